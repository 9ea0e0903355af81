"""Hand-written reference programs: the harness ceiling on the whole MiniWoB++ suite.

Not in-context examples: these are test fixtures, replayed through the real pipeline
(``replay`` backend, sandbox, executor, headless Chromium) to show that the program API
can solve a task at all, on any seed. ``programs/<task>.py`` holds a task's programs, the
steps of one episode, separated by a line :data:`SEPARATOR`; each reads the page from
``task`` and ``observation`` like a model's program, never a seed's answer.
``programs/<task>.skip`` says in one line why a task has no reference program. A task
whose program is another's (a ``-nodelay`` variant, the same form on another page) is a
symlink to that task's file, so the one program is kept once.
"""

from __future__ import annotations

import json
from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"
#: The line between two programs (steps) of one task's reference.
SEPARATOR = "# --- next program ---"


def programs(task: str) -> list[str]:
    """The task's reference programs, in step order."""
    text = (PROGRAMS / f"{task}.py").read_text(encoding="utf-8")
    return [part.strip("\n") + "\n" for part in text.split(SEPARATOR + "\n")]


def covered() -> list[str]:
    """Tasks with a reference program, sorted."""
    return sorted(path.stem for path in PROGRAMS.glob("*.py"))


def left_out() -> dict[str, str]:
    """Tasks without a reference program, each with its one-line reason."""
    return {path.stem: path.read_text(encoding="utf-8").strip() for path in sorted(PROGRAMS.glob("*.skip"))}


def replies(tasks: list[str]) -> dict[str, list[str]]:
    """A replay file's content (see docs/replay.md): each program as a fenced reply."""
    return {task: [f"```python\n{program}```" for program in programs(task)] for task in tasks}


def write_replay(path: Path, tasks: list[str]) -> Path:
    path.write_text(json.dumps(replies(tasks), indent=1), encoding="utf-8")
    return path
