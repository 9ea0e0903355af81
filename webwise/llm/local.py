"""``local``: the embedded Qwen2.5-Coder GGUF, run in-process by llama.cpp through ``xllamacpp``.

xllamacpp embeds llama.cpp's own server, so we get its chat template handling (read from the
GGUF), stop strings, usage counts and, above all, prompt caching: with one slot and
``cache_prompt`` the KV cache of the longest shared prefix is kept between calls, so the
fixed system/API part of every prompt is computed once. The server tokenizes a request
before generating anything and refuses one that exceeds ``n_ctx``; that refusal becomes
:class:`ContextOverflow` (the paper's "TLE") at no generation cost.

Where a call's time goes is reported with every reply (``extra``): prompt tokens taken from
the cache, prompt and generation milliseconds, drafted and accepted tokens. Two knobs
(:class:`Tuning`, each an environment variable) were built to trade memory for speed and
measured no faster on two cores, so both default off: slots (calls that run at once, each
slot keeping its own cached prefix) and speculative decoding that drafts tokens by n-gram
lookup in the prompt, which programs copy texts from.

The embedded server also opens an HTTP port; we bind it to an ephemeral loopback port and
never use it.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webwise.errors import ConfigError, ContextOverflow, LLMError
from webwise.llm.base import ChatReply, ChatRequest, one_line

N_CTX = 16384
"""Tokens of context: whole-DOM prompts of the paper's tasks fit; KV cache ~0.45 GiB for the 1.5B."""

THREADS = 2
"""The target machines have two cores; more threads than cores only adds contention."""


def _env_int(name: str, default: int, minimum: int = 1) -> int:
    raw = os.environ.get(name, "")
    if not raw:
        return default
    # ASCII digits only: str.isdigit() alone takes '²', which int() refuses with a traceback.
    if not (raw.isascii() and raw.isdigit()) or int(raw) < minimum:
        kind = "a positive integer" if minimum == 1 else f"an integer >= {minimum}"
        raise ConfigError(f"{name} must be {kind}, not {raw!r}")
    return int(raw)


DRAFTS = ("none", "ngram")
"""Speculative decoding: none, or drafts looked up as n-grams of the prompt and reply so far."""


@dataclass(frozen=True)
class Tuning:
    """How the embedded server spends memory for speed; :meth:`from_env` reads the overrides.

    ``slots`` calls run at once (a bench's workers: llama.cpp decodes them in one batch),
    each slot keeping its caller's last prompt cached, and ``draft`` picks speculative
    decoding. One slot is the default for any number of workers, whose calls llama.cpp then
    queues. A slot per worker keeps a worker's re-asks on their prefix (a re-ask is its last
    prompt and one more paragraph), but a worker's next step shares little more than the
    system part with its last one, since each step shows the new page right after the task,
    and two calls decoded in one batch share the same two cores: on eight fresh episodes of
    the 1.5B at three trials two slots measured 1.10x, within what those eight vary
    (``benchmarks/results/speed-1.5b/affinity-t3/``), at twice the KV memory.

    llama.cpp's host-RAM prompt cache, which keeps the prefixes a slot moved on from, stays
    off: it loaded other calls' state into a slot, and the reply went on with another task's
    text. With two slots about 2% of the whole-suite run's 1.5B replies quoted the task running
    beside them (a checkbox task's review naming the next checkbox task's labels); with one
    slot the 0.5B answered click-test with a program for another page, where the same prompt
    on a model without the cache answers ``click('button', '')``.
    """

    slots: int = 1
    draft: str = "none"

    @classmethod
    def from_env(cls) -> "Tuning":
        draft = os.environ.get("WEBWISE_LOCAL_DRAFT", "") or cls.draft
        if draft not in DRAFTS:
            raise ConfigError(f"WEBWISE_LOCAL_DRAFT must be one of {', '.join(DRAFTS)}, not {draft!r}")
        if os.environ.get("WEBWISE_LOCAL_CACHE_MIB", "0") != "0":
            raise ConfigError("WEBWISE_LOCAL_CACHE_MIB: llama.cpp's host-RAM prompt cache stays off, because it "
                              "loaded other calls' state into a slot and replies went on with another task's text")
        return cls(slots=_env_int("WEBWISE_LOCAL_SLOTS", cls.slots), draft=draft)


def check_env() -> None:
    """A one-line :class:`ConfigError` for a ``WEBWISE_LOCAL_*`` setting :class:`LocalModel` would
    refuse, read without loading the model: a command checks them with the ``--llm`` spec, before
    it creates anything (a bench's OUT), not once the model is being loaded."""
    Tuning.from_env()
    _env_int("WEBWISE_LOCAL_CTX", N_CTX)
    _env_int("WEBWISE_LOCAL_THREADS", THREADS)


class LocalModel:
    """One llama.cpp model; up to ``tuning.slots`` calls at once, prefix caches kept warm."""

    def __init__(self, path: Path, name: str, *, n_ctx: int | None = None, threads: int | None = None,
                 tuning: Tuning | None = None) -> None:
        try:
            import xllamacpp
        except ImportError:
            raise ConfigError("the local model needs xllamacpp: pip install 'webwise[local]'") from None
        if not path.is_file():
            raise ConfigError(f"model file not found: {path}")
        self.name = name
        self.path = path
        self.n_ctx = n_ctx or _env_int("WEBWISE_LOCAL_CTX", N_CTX)
        threads = threads or _env_int("WEBWISE_LOCAL_THREADS", THREADS)
        params = xllamacpp.CommonParams()
        params.model.path = str(path)
        self.tuning = tuning or Tuning.from_env()
        params.n_ctx = self.n_ctx * self.tuning.slots  # every slot gets the whole window
        params.n_parallel = self.tuning.slots  # each slot's KV cache is a prefix cache
        params.kv_unified = False
        params.cache_idle_slots = False  # a slot keeps its caller's prefix while the others run
        params.cache_prompt = True
        params.cache_ram_mib = 0  # see Tuning: the host-RAM cache mixes calls
        if self.tuning.draft == "ngram":
            params.speculative.types = [xllamacpp.common_speculative_type.COMMON_SPECULATIVE_TYPE_NGRAM_SIMPLE]
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.warmup = False
        params.verbosity = -1  # llama.cpp logs every request otherwise
        params.port = 0  # the embedded HTTP listener: loopback, ephemeral, unused
        params.hostnames = ["127.0.0.1"]
        self._slots: dict[int, int] = {}  # each affinity's slot
        self._assign = threading.Lock()
        try:
            self._server: Any = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise ConfigError(f"llama.cpp could not load {path}: {one_line(exc)}") from None

    def complete(self, request: ChatRequest) -> ChatReply:
        """Stream the reply, so that one gone into a loop is cut where the loop shows."""
        body: dict[str, object] = {
            "messages": request.messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "cache_prompt": True,
            "id_slot": self._slot(request.affinity),
            "stream": True,
            "timings_per_token": True,  # counts and timings survive a reply cut short
            "stream_options": {"include_usage": True},
        }
        if request.stop:
            body["stop"] = list(request.stop)
        if request.seed is not None:
            body["seed"] = request.seed
        start = time.perf_counter()
        server = self._server
        if server is None:
            raise LLMError(f"{self.name}: model already closed")
        stream = _Stream()
        server.handle_chat_completions(body, stream.take)
        return stream.reply(self.name, time.perf_counter() - start)

    def _slot(self, affinity: int) -> int:
        """The slot of the calls of ``affinity``: affinities get slots in turn, so each of a bench's
        workers keeps its own task's prompt prefix (left to itself llama.cpp picks the idle slot
        whose prefix looks most alike, and with the shared system part every prefix looks alike).
        Affinities beyond the slot count share, and llama.cpp queues their calls.

        Not the calling thread's: a bench makes each call on a thread of its own (so that Ctrl-C
        can abandon it), which gave every call the next slot, and a worker's re-ask found its
        prompt in the other worker's slot.
        """
        with self._assign:
            return self._slots.setdefault(affinity, len(self._slots) % self.tuning.slots)

    def close(self) -> None:
        """Stop llama.cpp's loop and free the model (the C++ destructor joins its threads).

        A call still generating, one that an interrupted bench abandoned, is not waited for:
        waiting here kept an interrupted bench computing for minutes. Such a call holds its
        own reference to the server, which keeps the model loaded until the call returns or
        the process ends, which ends the generation with it.
        """
        self._server = None


REPEATS = 6
"""Complete lines in a row, all one line, that mark a reply gone into a loop: the 0.5B writes
``click('button', '')`` over and over until the token limit (two calls of 36 on paper48 with
k=1 spent 800 of 2935 generated tokens so). A program may repeat a line on purpose, so the cut
keeps the lines written so far; the finish reason says ``repeat``."""


class _Stream:
    """Collects a streamed chat reply chunk by chunk; :meth:`take` returns True to stop it."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.finish: str | None = None
        self.timings: dict[str, Any] = {}
        self.usage: dict[str, Any] = {}
        self.error: object = None
        self.chunks = 0

    def take(self, chunk: object) -> bool:
        self.chunks += 1
        if not isinstance(chunk, dict) or "error" in chunk:
            self.error = chunk.get("error", chunk) if isinstance(chunk, dict) else chunk
            return True
        self.timings = chunk.get("timings") or self.timings
        self.usage = chunk.get("usage") or self.usage
        for choice in chunk.get("choices") or ():
            content = (choice.get("delta") or {}).get("content")
            if content:
                self.parts.append(content)
                if "\n" in content and self._looping():
                    return True
            self.finish = choice.get("finish_reason") or self.finish
        return False

    def _looping(self) -> bool:
        """Whether the last :data:`REPEATS` complete lines are one non-blank line; if so the
        text is cut after them."""
        text = "".join(self.parts)
        lines = text.split("\n")[:-1]
        last = lines[-REPEATS:]
        if len(last) < REPEATS or not last[0].strip() or len(set(last)) > 1:
            return False
        self.parts = [text[: text.rindex("\n") + 1]]
        self.finish = "repeat"
        return True

    def reply(self, name: str, seconds: float) -> ChatReply:
        if self.error is not None or not self.chunks:
            error = self.error if isinstance(self.error, dict) else {"message": self.error or "no reply"}
            message = one_line(error.get("message", error))
            if error.get("type") == "exceed_context_size_error":
                raise ContextOverflow(f"{name}: prompt does not fit the context window: {message}")
            raise LLMError(f"{name}: llama.cpp error: {message}")
        timings = self.timings
        try:
            cached = int(timings.get("cache_n", 0))
            prompt_tokens = int(self.usage.get("prompt_tokens", cached + int(timings.get("prompt_n", 0))))
            completion_tokens = int(self.usage.get("completion_tokens", timings.get("predicted_n", 0)))
            return ChatReply(
                text="".join(self.parts),
                prompt_tokens=prompt_tokens,
                completion_tokens=completion_tokens,
                seconds=seconds,
                extra={
                    "finish_reason": self.finish,
                    "cached_prompt_tokens": cached,
                    "prompt_ms": float(timings.get("prompt_ms", 0.0)),
                    "generate_ms": float(timings.get("predicted_ms", 0.0)),
                    "draft_tokens": int(timings.get("draft_n", 0)),
                    "draft_accepted": int(timings.get("draft_n_accepted", 0)),
                },
            )
        except (TypeError, ValueError, AttributeError):
            raise LLMError(f"{name}: malformed result from llama.cpp: {one_line(self.usage or timings)[:120]}") from None
