"""The one chat-completions interface every backend implements.

The agent builds a :class:`ChatRequest` and gets a :class:`ChatReply`; it never knows
whether a hosted endpoint, the embedded llama.cpp model or a replay file answered.
``task`` and ``call_index`` ride along as metadata: real backends ignore them, the
replay backend needs them to pick the k-th reply of an episode. ``seed`` makes a reply
above temperature 0 repeatable; without one llama.cpp draws a fresh seed per request.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

Message = dict[str, str]


@dataclass(frozen=True)
class ChatRequest:
    """One call: the messages and the sampling settings that shape the reply."""

    messages: list[Message]
    temperature: float = 0.0
    max_tokens: int = 512
    stop: tuple[str, ...] = ()
    task: str = ""
    call_index: int = 0
    seed: int | None = None


@dataclass
class ChatReply:
    """The model's text and what it cost."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    cached: bool = False
    extra: dict[str, object] = field(default_factory=dict)


def one_line(text: object, limit: int = 300) -> str:
    """Collapse whitespace and cut, so an error never spills a server's HTML page into the trace."""
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def estimate_tokens(text: str) -> int:
    """Rough count where no tokenizer answers: about four characters per token."""
    return (len(text) + 3) // 4


class ChatModel(Protocol):
    """Anything that answers chat requests; ``name`` is the spec it was built from."""

    name: str

    def complete(self, request: ChatRequest) -> ChatReply: ...

    def close(self) -> None: ...
