"""A worker whose children run each program as plain Python with the channel socket in reach,
as if the program had escaped the policy (the rlimits, the process isolation and the seccomp
filter still apply). Tests boot it in place of ``sandbox.worker`` to write raw frames to the
host, skipping every check the child's own encoder makes, and to make the system calls an
escaped program would. ``print`` goes to the run's output and an exception becomes its error,
so a test sees what the program reached.
"""

from __future__ import annotations

import ctypes  # noqa: F401  (imported before the fork, as an escaped program would find it)
import fcntl  # noqa: F401
from typing import Any, NoReturn

from sandbox import worker


def _run_escaped(program: worker._Program, code: str, data: dict[str, Any], functions: list[str]) -> NoReturn:
    try:
        exec(code, {"channel": program.channel, "print": program.printer._call_print})
    except BaseException as exc:
        program.finish(False, worker.describe(exc, program.limits))
    program.finish(True, None)


worker._Program.run = _run_escaped  # type: ignore[method-assign]
main = worker.main
