"""Hand-written in-context examples: the paper's k=1 setting, kept as data in ``incontext/manual``.

One JSON file per task, on an *invented* page (never the task's real layout or a real
seed's answer), so the model learns the way to read ``task`` and ``observation`` rather
than an answer it could paste. Each example is a list of steps: the observation the
program saw, then the program. Multi-step examples show the page after each program,
which is what the step-by-step method feeds the model.

This module only loads and validates; the harvested (ACG) store lives elsewhere.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import incontext
from webwise.errors import ConfigError

#: The in-context examples, a data package of their own: the checkout's ``incontext/`` under
#: an editable install, the installed copy under a plain ``pip install``.
INCONTEXT = Path(incontext.__file__).resolve().parent
#: The source checkout webwise runs from; None when it runs from an installed copy, whose
#: files are not the repository's (no git, nothing to harvest into).
CHECKOUT: Path | None = INCONTEXT.parent if (INCONTEXT.parent / "pyproject.toml").is_file() else None
#: The hand-written examples, one per task of the paper's 48.
MANUAL_DIR = INCONTEXT / "manual"

#: Keys every observed element carries (program API v1 plus the summary's flags).
ELEMENT_KEYS = ("ref", "tag", "text", "id", "classes", "value", "clicked", "modified")


@dataclass(frozen=True)
class Step:
    """One observation and the program written for it."""

    observation: list[dict[str, Any]]
    program: str


@dataclass(frozen=True)
class Example:
    """An instruction solved on one page, over one or more steps."""

    task: str
    instruction: str
    steps: tuple[Step, ...]
    source: str = "manual"
    note: str = ""
    #: Its place among its task's examples, from 1 (``webwise store`` numbers them so).
    number: int = 1
    #: The seed whose page it was solved on (harvested ones); an episode of that very page is
    #: not shown it (:func:`webwise.agent.load_examples`).
    seed: int | None = None


def load_manual(task: str, directory: Path = MANUAL_DIR) -> list[Example]:
    """The hand-written example for ``task``, as a list of one.

    A task without one is a :class:`ConfigError`, never a quiet k=0 run: a k=1 number
    measured without its example would be a k=0 number under the wrong name.
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise ConfigError(f"the hand-written examples are missing ({directory} is not a directory); reinstall webwise")
    path = directory / f"{task}.json"
    if not path.is_file():
        raise ConfigError(f"no hand-written example for {task}: --examples manual covers the paper's 48 tasks "
                          "(webwise tasks --paper48); use --examples none or auto")
    example = load_example(path)
    if example.task != task:
        raise ConfigError(f"{path}: names task {example.task!r}, expected {task!r}")
    return [example]


def load_example(path: Path | str) -> Example:
    """Read and validate one example file; a malformed file is a one-line :class:`ConfigError`."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not JSON (line {exc.lineno}: {exc.msg})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object")
    for key in ("task", "instruction"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ConfigError(f"{path}: {key!r} must be a non-empty string")
    note = data.get("note", "")
    if not isinstance(note, str):
        raise ConfigError(f"{path}: 'note' must be a string")
    steps = read_steps(str(path), data.get("steps"))
    return Example(task=data["task"], instruction=data["instruction"], steps=steps, note=note)


def read_steps(where: str, raw_steps: Any) -> tuple[Step, ...]:
    """The steps of an example (hand-written or stored) as the prompt shows them; anything else
    is a one-line :class:`ConfigError` starting with ``where``, before a browser starts."""
    if not isinstance(raw_steps, list) or not raw_steps:
        raise ConfigError(f"{where}: 'steps' must be a non-empty list")
    return tuple(_step(f"{where}, step {number}", raw) for number, raw in enumerate(raw_steps, 1))


def _step(where: str, raw: Any) -> Step:
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected an object with 'observation' and 'program'")
    program = raw.get("program")
    if not isinstance(program, str) or not program.strip():
        raise ConfigError(f"{where}: 'program' must be a non-empty string")
    observation = raw.get("observation")
    if not isinstance(observation, list):
        raise ConfigError(f"{where}: 'observation' must be a list of elements")
    for index, element in enumerate(observation):
        _check_element(f"{where}, element {index}", element)
    return Step(observation=observation, program=program)


def _check_element(where: str, element: Any) -> None:
    if not isinstance(element, dict):
        raise ConfigError(f"{where}: expected an object")
    missing = [key for key in ELEMENT_KEYS if key not in element]
    if missing:
        raise ConfigError(f"{where}: missing {', '.join(missing)}")
    if not isinstance(element["ref"], int) or isinstance(element["ref"], bool):
        raise ConfigError(f"{where}: 'ref' must be an integer")
    for key in ("tag", "text", "id", "classes"):
        if not isinstance(element[key], str):
            raise ConfigError(f"{where}: {key!r} must be a string")
    if not isinstance(element["value"], (str, bool, int, float)):
        raise ConfigError(f"{where}: 'value' must be a string, number or boolean")
    for key in ("clicked", "modified"):
        if not isinstance(element[key], bool):
            raise ConfigError(f"{where}: {key!r} must be true or false")
