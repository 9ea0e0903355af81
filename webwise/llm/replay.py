"""Replay backend: scripted replies from a JSON file, for tests and reproductions.

The file maps a task name (or ``"*"`` for any task) to a list of raw replies. The k-th
call of an episode of that task gets the k-th reply, used as-is so that it goes through
the same extraction as a real model's reply. docs/replay.md is the file's contract.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from webwise.arguments import expanded
from webwise.errors import ConfigError, RepliesExhausted
from webwise.llm.base import ChatReply, ChatRequest, estimate_tokens

Replies = dict[str, list[str]]

#: The pipe read last, by (device, inode), and what it held. A bench reads its replay file to
#: check it, then again for the model its workers share, and a pipe (``replay:<(jq ...)``) has
#: nothing left after the first read. A regular file is read afresh each time: it may have been edited.
_last_pipe: tuple[tuple[int, int], Replies] | None = None


def load_replies(path: Path) -> Replies:
    """Read and validate a replay file; every problem is a one-line :class:`ConfigError`
    naming the file. A pipe read before gives what it held then."""
    global _last_pipe
    path = expanded("replay file", path)
    try:
        pipe = _pipe(path)
        if pipe is not None and _last_pipe is not None and _last_pipe[0] == pipe:
            return _last_pipe[1]
        text = _text(path)
    except FileNotFoundError:
        raise ConfigError(f"replay file not found: {path}") from None
    except OSError as exc:  # a directory, no permission, a name too long
        raise ConfigError(f"cannot read replay file {path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL in the name, which only the library can pass
        raise ConfigError(f"cannot read replay file {str(path)!r}: {exc}") from None
    replies = _parse(text, path)
    if pipe is not None:
        _last_pipe = pipe, replies
    return replies


def _pipe(path: Path) -> tuple[int, int] | None:
    """The (device, inode) of what ``path`` names when it can be read only once (a pipe, a
    device such as ``/dev/stdin``); None for a regular file, and for a directory, which
    :func:`_text` refuses."""
    info = os.stat(path)
    return None if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode) else (info.st_dev, info.st_ino)


#: The most a replay file may hold: ``replay:/dev/zero`` would otherwise be read until memory ran out.
MAX_REPLAY_BYTES = 256 << 20


def _text(path: Path) -> str:
    """The file's text. A UTF-8 byte order mark, which some Windows editors write, is skipped
    (JSON lets a reader skip it); the bytes are let go before the text is parsed, so a large
    file is not held twice."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO no one writes to held the open forever
        os.set_blocking(fd, True)  # a pipe's writer is then waited for; with none, it reads as empty
        with os.fdopen(fd, "rb") as file:
            data = file.read(MAX_REPLAY_BYTES + 1)
        if len(data) > MAX_REPLAY_BYTES:
            raise ConfigError(f"replay file {path} holds more than {MAX_REPLAY_BYTES >> 20} MiB")
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"replay file {path} is not UTF-8 text: byte 0x{exc.object[exc.start]:02x} "
                          f"at offset {exc.start}") from None


def _parse(text: str, path: Path) -> Replies:
    """The replies ``text`` holds, checked to be a mapping of names to lists of strings."""
    if not text or text.isspace():  # isspace, not strip: no copy of a large file
        raise ConfigError(f"replay file {path} is empty: it must hold a JSON object mapping task names "
                          "to lists of replies")
    try:
        raw = json.loads(text, object_pairs_hook=_unique_names)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"replay file {path} is not valid JSON: {exc.msg} at line {exc.lineno}, "
                          f"column {exc.colno}") from None
    except (ValueError, RecursionError) as exc:  # a name given twice, a number of 5000 digits, deep nesting
        raise ConfigError(f"replay file {path} is not a replay file: {str(exc) or type(exc).__name__}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"replay file {path} must hold a JSON object mapping task names to lists of replies, "
                          f"not {_kind(raw)}")
    for task, replies in raw.items():
        problem = _entry_problem(replies)
        if problem:
            raise ConfigError(f"replay file {path}: entry {task!r} must be a list of strings; {problem}")
    return raw


def _unique_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object, refusing a name given twice: ``json.loads`` would keep the last one
    without a word, and a file naming a task twice most likely meant another task."""
    seen: set[str] = set()
    for name, _ in pairs:
        if name in seen:
            raise ValueError(f"{name!r} is given twice")
        seen.add(name)
    return dict(pairs)


def _entry_problem(replies: Any) -> str | None:
    """What makes one task's entry no list of strings, in a few words (None: nothing)."""
    if not isinstance(replies, list):
        return f"it is {_kind(replies)}"
    for number, reply in enumerate(replies, 1):
        if not isinstance(reply, str):
            return f"reply {number} is {_kind(reply)}"
    return None


def _kind(value: Any) -> str:
    """A JSON value's kind as a reader of the file would name it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    names = {dict: "an object", list: "a list", str: "a string", int: "a number", float: "a number"}
    return names.get(type(value), type(value).__name__)


class ReplayModel:
    """Answers the k-th call of an episode with the k-th scripted reply."""

    def __init__(self, replies: Replies, name: str) -> None:
        self.name = name
        self.replies = replies

    @classmethod
    def from_file(cls, path: Path) -> "ReplayModel":
        """Named by the file's resolved path: the name is part of an episode's identity, which
        must not depend on how the path was spelled (``a.json``, ``./a.json``, a symlink).
        A pipe keeps its own name (``/dev/fd/63``): it resolves to a new ``pipe:[inode]`` each run."""
        replies = load_replies(path)
        path = expanded("replay file", path)
        resolved = path.resolve()
        return cls(replies, f"replay:{resolved if resolved.exists() else path.absolute()}")

    def complete(self, request: ChatRequest) -> ChatReply:
        replies = self.replies.get(request.task, self.replies.get("*"))
        if replies is None:
            raise RepliesExhausted(f"replay file has no replies for task {request.task!r}")
        if request.call_index >= len(replies):
            raise RepliesExhausted(
                f"replay file has only {len(replies)} replies for task {request.task!r}; "
                f"call {request.call_index + 1} has none"
            )
        text = replies[request.call_index]
        prompt = "".join(m["content"] for m in request.messages)
        return ChatReply(text=text, prompt_tokens=estimate_tokens(prompt), completion_tokens=estimate_tokens(text))

    def close(self) -> None:
        """Nothing to release."""
