"""Replay backend: scripted replies from a JSON file, for tests and reproductions.

The file maps a task name (or ``"*"`` for any task) to a list of raw replies. The k-th
call of an episode of that task gets the k-th reply, used as-is so that it goes through
the same extraction as a real model's reply.
"""

from __future__ import annotations

import json
from pathlib import Path

from webwise.errors import ConfigError, RepliesExhausted
from webwise.llm.base import ChatReply, ChatRequest, estimate_tokens


def load_replies(path: Path) -> dict[str, list[str]]:
    """Read and validate a replay file; every problem is a one-line :class:`ConfigError`."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"replay file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read replay file {path}: {exc}") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"replay file {path} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
    except (ValueError, RecursionError) as exc:  # a number of 5000 digits, nesting 100000 deep
        raise ConfigError(f"replay file {path} is not a replay file: {str(exc) or type(exc).__name__}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"replay file {path} must hold a JSON object mapping task names to lists of replies")
    for task, replies in raw.items():
        if not isinstance(replies, list) or not all(isinstance(r, str) for r in replies):
            raise ConfigError(f"replay file {path}: entry {task!r} must be a list of strings")
    return raw


class ReplayModel:
    """Answers the k-th call of an episode with the k-th scripted reply."""

    def __init__(self, replies: dict[str, list[str]], name: str) -> None:
        self.name = name
        self.replies = replies

    @classmethod
    def from_file(cls, path: Path) -> "ReplayModel":
        """Named by the file's resolved path: the name is part of an episode's identity, which
        must not depend on how the path was spelled (``a.json``, ``./a.json``, a symlink)."""
        return cls(load_replies(path), f"replay:{path.expanduser().resolve()}")

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
