"""The one chat-completions interface every backend implements.

The agent builds a :class:`ChatRequest` and gets a :class:`ChatReply`; it never knows
whether a hosted endpoint, the embedded llama.cpp model or a replay file answered.
``task`` and ``call_index`` ride along as metadata: real backends ignore them, the
replay backend needs them to pick the k-th reply of an episode. ``seed`` makes a reply
above temperature 0 repeatable; without one llama.cpp draws a fresh seed per request.
"""

from __future__ import annotations

import math
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
    #: Calls with the same affinity share one prompt cache where a backend keeps several (the
    #: embedded model's slots): an agent passes its own, so its re-asks and reviews find their
    #: prefix. 0 is as good as any other key.
    affinity: int = 0


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
    """Anything that answers chat requests; ``name`` is the spec it was built from.

    A model of your own needs only these three: a ``name`` (it goes into every episode record),
    ``complete`` and ``close``. Whatever ``complete`` raises (webwise's own errors other than
    ``LLMError`` aside: they reach the caller), or returns that is not a :class:`ChatReply`
    (:func:`reply_problem`), ends the episode with a one-line error naming the model, as a
    failed call of a built-in backend does.
    """

    name: str

    def complete(self, request: ChatRequest) -> ChatReply: ...

    def close(self) -> None: ...


def reply_problem(reply: object) -> str | None:
    """What makes ``reply`` no :class:`ChatReply` the agent can record, in a few words (None: nothing).

    A model written outside webwise may return anything; the agent reads the text as a string
    and sums the counts, so a ``None`` text or a ``"12"`` count would crash the episode midway
    and lose its record, or put a wrong total in it.
    """
    if not isinstance(reply, ChatReply):
        return f"{type(reply).__name__}, not a ChatReply"
    if not isinstance(reply.text, str):
        return f"a ChatReply whose text is {type(reply.text).__name__}, not str"
    for name in ("prompt_tokens", "completion_tokens"):
        value = getattr(reply, name)
        if not isinstance(value, int) or isinstance(value, bool):
            return f"a ChatReply whose {name} is {type(value).__name__}, not int"
        if value < 0:
            return f"a ChatReply whose {name} is {value}, below 0"
    if not isinstance(reply.seconds, (int, float)) or isinstance(reply.seconds, bool):
        return f"a ChatReply whose seconds is {type(reply.seconds).__name__}, not a number"
    if not math.isfinite(reply.seconds) or reply.seconds < 0:  # summed into the episode's timings
        return f"a ChatReply whose seconds is {reply.seconds}, not a time"
    if not isinstance(reply.extra, dict):
        return f"a ChatReply whose extra is {type(reply.extra).__name__}, not dict"
    return None
