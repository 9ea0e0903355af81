"""Optional on-disk response cache, so rerunning a temperature-0 benchmark costs nothing.

The key is the whole request as the model sees it (backend name, messages, temperature,
max_tokens, stop, and the seed when there is one) and nothing else: ``task`` and
``call_index`` are bookkeeping, and two episodes that send the same prompt should share
the answer. One JSON file per key, written to a temp file and renamed, so concurrent
workers and interrupted runs never leave a torn entry; an unreadable entry counts as a
miss and is overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from pathlib import Path

from webwise.llm.base import ChatModel, ChatReply, ChatRequest
from webwise.untrusted import json_text

_FORMAT = 1  # bump when the entry layout or the key changes


def request_key(model: str, request: ChatRequest) -> str:
    """sha256 of a canonical JSON rendering of everything that shapes the reply.

    An unseeded request keeps the key it had before requests carried seeds, so existing
    caches of temperature-0 runs still answer.
    """
    shape: dict[str, object] = {
        "format": _FORMAT,
        "model": model,
        "messages": request.messages,
        "temperature": request.temperature,
        "max_tokens": request.max_tokens,
        "stop": list(request.stop),
    }
    if request.seed is not None:
        shape["seed"] = request.seed
    canonical = json.dumps(
        shape,
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def entry_path(directory: Path, model: str, request: ChatRequest) -> Path:
    """Where the reply to ``request`` to ``model`` is kept under ``directory``."""
    key = request_key(model, request)
    return directory / key[:2] / f"{key}.json"


def store(directory: Path, model: str, request: ChatRequest, reply: ChatReply) -> None:
    """Keep ``reply`` as the answer to ``request``; also how a cache is warmed from a recorded run."""
    entry = {
        "text": reply.text,
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "seconds": reply.seconds,
        "extra": _jsonable(reply.extra),
    }
    path = entry_path(directory, model, request)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json_text(entry))  # a reply's lone surrogate too
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class CachedModel:
    """Wraps a backend: answers repeated requests from ``directory``, asks the backend otherwise."""

    def __init__(self, inner: ChatModel, directory: Path) -> None:
        self.inner = inner
        self.name = inner.name
        self.directory = directory

    def complete(self, request: ChatRequest) -> ChatReply:
        start = time.perf_counter()
        hit = self._load(entry_path(self.directory, self.name, request))
        if hit is not None:
            hit.seconds = time.perf_counter() - start
            return hit
        reply = self.inner.complete(request)
        store(self.directory, self.name, request, reply)
        return reply

    @staticmethod
    def _load(path: Path) -> ChatReply | None:
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
            return ChatReply(
                text=entry["text"],
                prompt_tokens=int(entry["prompt_tokens"]),
                completion_tokens=int(entry["completion_tokens"]),
                cached=True,
                extra={**entry.get("extra", {}), "original_seconds": float(entry["seconds"])},
            )
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def close(self) -> None:
        self.inner.close()


def _jsonable(extra: dict[str, object]) -> dict[str, object]:
    """Keep only the extras JSON can carry (timings, finish reason), drop the rest."""
    kept: dict[str, object] = {}
    for key, value in extra.items():
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            continue
        kept[key] = value
    return kept
