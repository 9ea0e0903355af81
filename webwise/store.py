"""The harvested-example store: programs that solved a task zero-shot (Auto-Context Generation).

One JSON file per task under the store directory, holding a list of examples in the
schema of ``incontext/manual`` plus provenance. The default store is ``incontext/auto``.
"""

from __future__ import annotations

import json
from pathlib import Path

from webwise.errors import ConfigError
from webwise.examples import Example, Step

DEFAULT_STORE = Path(__file__).resolve().parent.parent / "incontext" / "auto"


def task_file(task: str, directory: Path | None = None) -> Path:
    return (directory or DEFAULT_STORE) / f"{task}.json"


def load(task: str, directory: Path | None = None) -> list[Example]:
    """The harvested examples of ``task`` (empty when none are stored)."""
    path = task_file(task, directory)
    if not path.exists():
        return []
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
        return [Example(task=task, instruction=e["instruction"],
                        steps=tuple(Step(s["observation"], s["program"]) for s in e["steps"]),
                        source="auto", note=e.get("note", "")) for e in entries]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigError(f"harvested examples in {path} are unreadable: {exc}") from None
