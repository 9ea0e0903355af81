"""The harvested-example store: programs that solved a task zero-shot (Auto-Context Generation).

One JSON file per task under the store directory, holding a list of examples in the
schema of ``incontext/manual`` plus provenance. Writes take an exclusive lock on the
store and replace the task's file atomically, so concurrent harvests never corrupt it.
The default store is ``incontext/auto``: in a checkout the repository's, which ``harvest``
writes into; in an installed copy the shipped one, read-only data, so ``harvest`` there
needs a ``--store`` of its own.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator

from webwise.errors import ConfigError
from webwise.examples import CHECKOUT, INCONTEXT, Example, Step
from webwise.extraction import normal

DEFAULT_STORE = INCONTEXT / "auto"
#: The paper keeps at most two harvested programs per task.
MAX_PER_TASK = 2


def task_file(task: str, directory: Path | None = None) -> Path:
    return (directory or DEFAULT_STORE) / f"{task}.json"


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    try:
        entries = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(entries, list):
            raise ValueError("expected a list of examples")
        return entries
    except (OSError, ValueError) as exc:
        raise ConfigError(f"harvested examples in {path} are unreadable: {exc}") from None


def load(task: str, directory: Path | None = None) -> list[Example]:
    """The harvested examples of ``task``: empty when the store has none for it, a
    :class:`ConfigError` when there is no store at all (a mistyped ``--store``)."""
    if not (directory or DEFAULT_STORE).is_dir():
        raise ConfigError(f"no example store at {directory or DEFAULT_STORE}")
    path = task_file(task, directory)
    try:
        return [Example(task=task, instruction=e["instruction"],
                        steps=tuple(Step(s["observation"], s["program"]) for s in e["steps"]),
                        source="auto", note=e.get("note", "")) for e in _read(path)]
    except (KeyError, TypeError) as exc:
        raise ConfigError(f"harvested examples in {path} are malformed: missing {exc}") from None


def writable(directory: Path | None) -> Path:
    """Where a harvest writes: ``directory``, else the checkout's store.

    An installed copy's store is package data, replaced by the next install; harvesting
    into it would lose the examples, so there the store must be named.
    """
    if directory is not None:
        return directory
    if CHECKOUT is None:
        raise ConfigError("harvest needs --store DIR here: webwise runs from an installed copy, whose "
                          "incontext/auto is read-only package data")
    return DEFAULT_STORE


def programs_key(entry: dict[str, Any]) -> tuple[str, ...]:
    """What makes two harvested examples the same: their programs, comments and layout aside."""
    return tuple(normal(step["program"]) for step in entry["steps"])


def _holds(entries: list[dict[str, Any]], entry: dict[str, Any]) -> bool:
    key = programs_key(entry)
    return any(programs_key(e) == key for e in entries)


def has(task: str, entry: dict[str, Any], directory: Path | None = None) -> bool:
    """Whether the store already holds an example with the same programs."""
    return twin(task, entry, directory) is not None


def twin(task: str, entry: dict[str, Any], directory: Path | None = None) -> dict[str, Any] | None:
    """The stored example with the same programs as ``entry``, if any (its provenance says whence)."""
    key = programs_key(entry)
    return next((e for e in _read(task_file(task, directory)) if programs_key(e) == key), None)


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def add(task: str, entry: dict[str, Any], directory: Path | None = None) -> str:
    """Store ``entry`` unless it is a duplicate or the task is full; returns what happened.

    One of ``"kept"``, ``"duplicate"``, ``"full"``.
    """
    directory = directory or DEFAULT_STORE
    with _locked(directory):
        path = task_file(task, directory)
        entries = _read(path)
        if _holds(entries, entry):
            return "duplicate"
        if len(entries) >= MAX_PER_TASK:
            return "full"
        _write_atomic(path, entries + [entry])
        return "kept"


def count(task: str, directory: Path | None = None) -> int:
    return len(_read(task_file(task, directory)))


def _write_atomic(path: Path, entries: list[dict[str, Any]]) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(entries, stream, indent=1)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
