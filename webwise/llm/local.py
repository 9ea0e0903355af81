"""``local``: the embedded Qwen2.5-Coder GGUF, run in-process by llama.cpp through ``xllamacpp``.

xllamacpp embeds llama.cpp's own server, so we get its chat template handling (read from the
GGUF), stop strings, usage counts and, above all, prompt caching: with one slot and
``cache_prompt`` the KV cache of the longest shared prefix is kept between calls, so the
fixed system/API part of every prompt is computed once. The server tokenizes a request
before generating anything and refuses one that exceeds ``n_ctx``; that refusal becomes
:class:`ContextOverflow` (the paper's "TLE") at no generation cost.

The embedded server also opens an HTTP port; we bind it to an ephemeral loopback port and
never use it.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from webwise.errors import ConfigError, ContextOverflow, LLMError
from webwise.llm.base import ChatReply, ChatRequest, one_line

N_CTX = 16384
"""Tokens of context: whole-DOM prompts of the paper's tasks fit; KV cache ~0.45 GiB for the 1.5B."""

THREADS = 2
"""The target machines have two cores; more threads than cores only adds contention."""


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ConfigError(f"{name} must be a positive integer, not {raw!r}")
    return int(raw)


class LocalModel:
    """One llama.cpp model with a single slot; calls are serialized, the prefix cache kept warm."""

    def __init__(self, path: Path, name: str, *, n_ctx: int | None = None, threads: int | None = None) -> None:
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
        params.n_ctx = self.n_ctx
        params.n_parallel = 1  # one slot: its KV cache is the prefix cache
        params.cache_prompt = True
        params.cache_ram_mib = 0  # no extra host-RAM prompt cache; the slot's own cache suffices
        params.cpuparams.n_threads = threads
        params.cpuparams_batch.n_threads = threads
        params.warmup = False
        params.verbosity = -1  # llama.cpp logs every request otherwise
        params.port = 0  # the embedded HTTP listener: loopback, ephemeral, unused
        params.hostnames = ["127.0.0.1"]
        self._lock = threading.Lock()
        try:
            self._server: Any = xllamacpp.Server(params)
        except RuntimeError as exc:
            raise ConfigError(f"llama.cpp could not load {path}: {one_line(exc)}") from None

    def complete(self, request: ChatRequest) -> ChatReply:
        body: dict[str, object] = {
            "messages": request.messages,
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "cache_prompt": True,
        }
        if request.stop:
            body["stop"] = list(request.stop)
        if request.seed is not None:
            body["seed"] = request.seed
        start = time.perf_counter()
        with self._lock:
            if self._server is None:
                raise LLMError(f"{self.name}: model already closed")
            result = self._server.handle_chat_completions(body)
        seconds = time.perf_counter() - start
        return self._reply(result, seconds)

    def _reply(self, result: object, seconds: float) -> ChatReply:
        if not isinstance(result, dict):
            raise LLMError(f"{self.name}: unexpected result from llama.cpp: {one_line(result)[:120]}")
        error = result.get("error", result if "code" in result else None)
        if isinstance(error, dict):
            message = one_line(error.get("message", error))
            if error.get("type") == "exceed_context_size_error":
                raise ContextOverflow(f"{self.name}: prompt does not fit the context window: {message}")
            raise LLMError(f"{self.name}: llama.cpp error: {message}")
        try:
            choice = result["choices"][0]
            text = choice["message"]["content"] or ""
            usage = result["usage"]
            timings = result.get("timings", {})
            return ChatReply(
                text=text,
                prompt_tokens=int(usage["prompt_tokens"]),
                completion_tokens=int(usage["completion_tokens"]),
                seconds=seconds,
                extra={
                    "finish_reason": choice.get("finish_reason"),
                    "cached_prompt_tokens": int(timings.get("cache_n", 0)),
                    "prompt_ms": float(timings.get("prompt_ms", 0.0)),
                    "generate_ms": float(timings.get("predicted_ms", 0.0)),
                },
            )
        except (KeyError, IndexError, TypeError, ValueError):
            raise LLMError(f"{self.name}: malformed result from llama.cpp: {one_line(result)[:120]}") from None

    def close(self) -> None:
        """Stop llama.cpp's loop and free the model (the C++ destructor joins its threads).

        A call still generating, one that an interrupted bench abandoned, is not waited for:
        waiting here kept an interrupted bench computing for minutes. The model then stays
        loaded until the process ends, which ends the generation with it.
        """
        if not self._lock.acquire(blocking=False):
            return
        try:
            self._server = None
        finally:
            self._lock.release()

