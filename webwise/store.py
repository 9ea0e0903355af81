"""The harvested-example store: programs that solved a task zero-shot (Auto-Context Generation).

One JSON file per task under the store directory, holding a list of examples in the
schema of ``incontext/manual`` plus provenance. Writes take an exclusive lock on the
store and replace the task's file atomically, so concurrent harvests never corrupt it.
The default store is ``incontext/auto``: in a checkout the repository's, which ``harvest``
writes into; in an installed copy the shipped one, read-only data, so ``harvest`` there
needs a ``--store`` of its own.

People read and curate a store through :func:`listing`, :func:`coverage` and :func:`remove`
(``webwise store list|show|remove``); examples are numbered from 1 within their task, in the
order the prompt shows them.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Iterator

from webwise.arguments import readable_folder, whole
from webwise.atomic import open_own, open_to_read, replace_file, writable_directory
from webwise.errors import ConfigError
from webwise.examples import CHECKOUT, INCONTEXT, Example, Step, read_steps
from webwise.extraction import normal
from webwise.tasks import PAPER48, all_tasks, check_task

DEFAULT_STORE = INCONTEXT / "auto"
#: The paper keeps at most two harvested programs per task.
MAX_PER_TASK = 2


def task_file(task: str, directory: Path | str | None = None) -> Path:
    return store_path(directory) / f"{task}.json"


def store_path(directory: Path | str | None) -> Path:
    """The store ``directory`` names, the default one for None; a library caller's string works as
    a path does, checked as ``--store`` is (a NUL in it, a link that leads nowhere)."""
    return readable_folder("store_dir", directory) or DEFAULT_STORE


def _read(path: Path) -> list[dict[str, Any]]:
    """A task's stored examples as stored, each checked (:func:`_checked`)."""
    return [entry for entry, _ in _checked(path)]


#: The largest example file read: two examples with their pages take well under 1 MiB.
MAX_FILE_BYTES = 16 << 20


def _checked(path: Path) -> list[tuple[dict[str, Any], tuple[Step, ...]]]:
    """A task's stored examples, each checked as the prompt and ``store list`` read it, with the
    steps the prompt shows: a store may be a folder someone handed over, and a malformed one
    is a one-line error up front."""
    unreadable = f"harvested examples in {path} are unreadable"
    fd = open_to_read(path, unreadable)  # a FIFO, a folder, a link to nothing: refused, not skipped
    if fd is None:
        return []
    try:
        with os.fdopen(fd, "rb") as stream:
            if os.fstat(fd).st_size > MAX_FILE_BYTES:  # read whole, it would take as much memory
                raise ConfigError(f"{unreadable}: the file holds more than {MAX_FILE_BYTES >> 20} MiB")
            entries = json.loads(stream.read().decode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"{unreadable}: {exc.strerror or exc}") from None
    except (ValueError, RecursionError) as exc:
        raise ConfigError(f"{unreadable}: {exc}") from None
    if not isinstance(entries, list):
        raise ConfigError(f"{unreadable}: expected a list of examples")
    checked = [(entry, check_entry(f"{path}: example {number}", entry)) for number, entry in enumerate(entries, 1)]
    _check_as_added(path, entries)
    return checked


def _check_as_added(path: Path, entries: list[dict[str, Any]]) -> None:
    """Refuse a file :func:`add` could not have written: more than :data:`MAX_PER_TASK` examples,
    or two with the same programs. A hand edit or a merge of two stores makes one, and the
    prompt would show them all."""
    if len(entries) > MAX_PER_TASK:
        raise ConfigError(f"{path}: {len(entries)} examples; a store keeps at most {MAX_PER_TASK} per task")
    twin = next((number for number, entry in enumerate(entries, 1) if _holds(entries[:number - 1], entry)), None)
    if twin is not None:
        raise ConfigError(f"{path}: example {twin} has the same programs as an example before it")


def check_entry(where: str, entry: Any) -> tuple[Step, ...]:
    """The entry's steps, once the whole entry is checked; else a one-line :class:`ConfigError`."""
    if not isinstance(entry, dict) or not isinstance(entry.get("instruction"), str):
        raise ConfigError(f"{where}: expected an object with 'instruction' and 'steps'")
    steps = read_steps(where, entry.get("steps"))
    provenance = entry.get("provenance", {})
    if not isinstance(provenance, dict) or not isinstance(entry.get("note", ""), str):
        raise ConfigError(f"{where}: 'provenance' must be an object and 'note' a string")
    checked = provenance.get("check_seeds", [])
    seeds = [*checked, provenance.get("check_seed", 0), provenance.get("seed") or 0] if isinstance(checked, list) else [None]
    if not all(type(seed) is int for seed in seeds):
        raise ConfigError(f"{where}: the provenance's seeds must be whole numbers")
    return steps


def existing(directory: Path | str | None = None) -> Path:
    """The store directory, which must exist and be readable: a mistyped ``--store`` is an error,
    never an empty store, and so is one the user may not read (its listing would be empty too)."""
    directory = store_path(directory)
    try:
        found = directory.is_dir()
    except OSError as exc:  # a name too long, a folder on the way the user may not look into
        raise ConfigError(f"no example store at {directory}: {exc.strerror or exc}") from None
    if not found:
        raise ConfigError(f"no example store at {directory}")
    if not os.access(directory, os.R_OK | os.X_OK):
        raise ConfigError(f"cannot read the example store at {directory}")
    return directory


def load(task: str, directory: Path | str | None = None) -> list[Example]:
    """The harvested examples of ``task``: empty when the store has none for it, a
    :class:`ConfigError` when there is no store at all (a mistyped ``--store``)."""
    path = task_file(task, existing(directory))
    return [Example(task=task, instruction=e["instruction"], steps=steps, source="auto", note=e.get("note", ""),
                    number=number, seed=e.get("provenance", {}).get("seed"))
            for number, (e, steps) in enumerate(_checked(path), 1)]


def tasks(directory: Path | str | None = None) -> list[str]:
    """The tasks the store holds examples for, sorted."""
    return sorted(path.stem for path in existing(directory).glob("*.json") if _read(path))


def load_all(directory: Path | str | None = None) -> list[Example]:
    """Every example in the store, task by task in name order."""
    return [example for task in tasks(directory) for example in load(task, directory)]


@dataclass(frozen=True)
class Listed:
    """One stored example as ``webwise store list`` shows it: its place and where it came from."""

    task: str
    number: int
    instruction: str
    steps: int
    llm: str
    code: str
    date: str
    #: The fresh seeds on which its programs, replayed without the model, solved the task again.
    seeds: tuple[int, ...]


def listing(directory: Path | str | None = None, task: str | None = None) -> list[Listed]:
    """The store's examples (only ``task``'s when given) with their provenance.

    Entries harvested before ``code`` and ``check_seeds`` were recorded show ``-`` for the
    code version and their one ``check_seed``.
    """
    names = [check_task(task)] if task is not None else tasks(directory)
    rows = []
    for name in names:
        for number, entry in enumerate(_read(task_file(name, existing(directory))), 1):
            provenance = entry.get("provenance") or {}
            seeds = provenance.get("check_seeds", [provenance["check_seed"]] if "check_seed" in provenance else [])
            rows.append(Listed(task=name, number=number, instruction=str(entry.get("instruction", "")),
                               steps=len(entry.get("steps", [])), llm=str(provenance.get("llm", "-")),
                               code=str(provenance.get("code", "-")),
                               date=str(provenance.get("harvested_at", "-"))[:10], seeds=tuple(seeds)))
    return rows


def coverage(directory: Path | str | None = None) -> str:
    """How many tasks the store covers, of all and of the paper's 48, in one line."""
    covered = set(tasks(directory))
    return (f"{len(covered & set(all_tasks()))} of {len(all_tasks())} tasks have an example; "
            f"{len(covered & set(PAPER48))} of the paper's {len(PAPER48)}")


def pick(task: str, number: int | None, directory: Path | str | None = None) -> list[Example]:
    """Example ``number`` of ``task`` (all of the task's when None); a missing one is a :class:`ConfigError`."""
    if number is not None:
        whole("the example's number", number, 1)
    found = load(check_task(task), directory)
    if not found:
        raise ConfigError(f"no example for {task} in {existing(directory)}")
    if number is None:
        return found
    if not 1 <= number <= len(found):
        raise ConfigError(f"{task} has {len(found)} example(s) in {existing(directory)}; there is no example {number}")
    return [found[number - 1]]


def writable(directory: Path | str | None, command: str) -> Path:
    """Where ``command`` (``harvest``, ``store remove``) writes: ``directory``, else the checkout's store.

    An installed copy's store is package data, replaced by the next install; writing into it
    would lose the change, so there the store must be named.
    """
    if directory is not None:
        return store_path(directory)
    if CHECKOUT is None:
        raise ConfigError(f"{command} needs --store DIR here: webwise runs from an installed copy, whose "
                          "incontext/auto is read-only package data")
    try:  # a checkout the user may only read (another user's, a shared one): checked as --store DIR is
        return writable_directory(DEFAULT_STORE)
    except ConfigError as exc:
        raise ConfigError(f"{command}: {exc}; give --store DIR") from None


def ready(directory: Path | str, tasks: Iterable[str] = ()) -> Path:
    """``directory``, made if missing, once its lock was taken and let go and the files of ``tasks``
    read: a store whose lock cannot be taken (a folder in its place) or whose file of a task to
    harvest is malformed (a hand edit, a copy cut short) is a one-line error before a harvest
    loads the model or starts a browser, not after the first episode ran."""
    directory = store_path(directory)
    with _locked(directory):
        for task in tasks:
            _read(task_file(task, directory))
        return directory


def programs_key(entry: dict[str, Any]) -> tuple[str, ...]:
    """What makes two harvested examples the same: their programs, comments and layout aside."""
    return tuple(normal(step["program"]) for step in entry["steps"])


def _holds(entries: list[dict[str, Any]], entry: dict[str, Any]) -> bool:
    key = programs_key(entry)
    return any(programs_key(e) == key for e in entries)


def twin(task: str, entry: dict[str, Any], directory: Path | str | None = None) -> dict[str, Any] | None:
    """The stored example with the same programs as ``entry``, if any (its provenance says whence)."""
    key = programs_key(entry)
    return next((e for e in _read(task_file(task, directory)) if programs_key(e) == key), None)


@contextlib.contextmanager
def _locked(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    with os.fdopen(open_own(directory / ".lock", os.O_WRONLY | os.O_APPEND | os.O_CREAT), "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def add(task: str, entry: dict[str, Any], directory: Path | str | None = None) -> str:
    """Store ``entry`` unless it is a duplicate or the task is full; returns what happened.

    One of ``"kept"``, ``"duplicate"``, ``"full"``.
    """
    check_entry(f"the example of {task} to store", entry)  # never write what the store's reader refuses
    directory = store_path(directory)
    with _locked(directory):
        path = task_file(task, directory)
        entries = _read(path)
        if _holds(entries, entry):
            return "duplicate"
        if len(entries) >= MAX_PER_TASK:
            return "full"
        _write_atomic(path, entries + [entry])
        return "kept"


def remove(task: str, number: int, directory: Path | str | None = None) -> dict[str, Any]:
    """Take example ``number`` of ``task`` out of the store and return it.

    Like :func:`add`, under the store's lock and by an atomic replace; the task's file goes
    when its last example does, so the store lists only tasks it can show.
    """
    whole("the example's number", number, 1)  # pick takes None too, for all of them
    directory = existing(directory)
    pick(task, number, directory)  # a missing task, example or store is a ConfigError before the lock
    with _locked(directory):
        path = task_file(task, directory)
        entries = _read(path)
        if number > len(entries):  # another process removed it meanwhile
            raise ConfigError(f"{task} has {len(entries)} example(s) in {directory}; there is no example {number}")
        removed = entries.pop(number - 1)
        if entries:
            _write_atomic(path, entries)
        else:
            path.unlink()
        return removed


def count(task: str, directory: Path | str | None = None) -> int:
    return len(_read(task_file(task, directory)))


def _write_atomic(path: Path, entries: list[dict[str, Any]]) -> None:
    replace_file(path, json.dumps(entries, indent=1).encode("utf-8"))
