"""A worker whose children run each program as plain Python with the channel socket in reach,
as if the program had escaped the policy (the rlimits and seccomp filter still apply). Tests
boot it in place of ``sandbox.worker`` to write raw frames to the host, skipping every check
the child's own encoder makes.
"""

from __future__ import annotations

from typing import Any, NoReturn

from sandbox import worker


def _run_escaped(program: worker._Program, code: str, data: dict[str, Any], functions: list[str]) -> NoReturn:
    exec(code, {"channel": program.channel})
    program.finish(True, None)


worker._Program.run = _run_escaped  # type: ignore[method-assign]
main = worker.main
