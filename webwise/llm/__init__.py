"""LLM backends behind one chat-completions interface, built from a ``--llm`` spec."""

from __future__ import annotations

import os
from pathlib import Path

from webwise.errors import ConfigError
from webwise.llm.base import ChatModel, ChatReply, ChatRequest, Message
from webwise.llm.replay import ReplayModel

__all__ = ["ChatModel", "ChatReply", "ChatRequest", "Message", "SPECS", "make_llm"]

#: The ``--llm`` specs :func:`make_llm` understands, as help and error texts name them.
SPECS = "local (the 0.5B), local:0.5b, local:1.5b, local:PATH.gguf, openai:MODEL or replay:FILE"


def make_llm(spec: str, cache_dir: Path | None = None) -> ChatModel:
    """Build a backend from a ``--llm`` spec, one of :data:`SPECS`.

    Real backends are wrapped in the on-disk response cache when ``cache_dir`` or
    ``WEBWISE_LLM_CACHE`` names a directory; replay never is.
    """
    kind, _, arg = spec.partition(":")
    if kind == "replay":
        if not arg:
            raise ConfigError("--llm replay:FILE needs a file name")
        return ReplayModel.from_file(Path(arg))
    if kind == "openai":
        if not arg:
            raise ConfigError("--llm openai:MODEL needs a model name, e.g. openai:gpt-4o-mini")
        from webwise.llm.openai_backend import OpenAIModel, policy_from_env

        timeout, policy = policy_from_env()
        model: ChatModel = OpenAIModel(arg, timeout=timeout, policy=policy)
    elif kind == "local":
        model = _make_local(arg)
    else:
        raise ConfigError(f"unknown --llm spec {spec!r}: use {SPECS}")
    cache = cache_dir or (Path(os.environ["WEBWISE_LLM_CACHE"]) if os.environ.get("WEBWISE_LLM_CACHE") else None)
    if cache is None:
        return model
    from webwise.llm.cache import CachedModel

    return CachedModel(model, cache)


def _make_local(arg: str) -> ChatModel:
    """``local`` / ``local:SIZE`` load a verified cached model; ``local:PATH.gguf`` loads that file."""
    from webwise import model_assets
    from webwise.llm.local import LocalModel, Tuning

    tuning = Tuning.from_env()
    size = arg or model_assets.DEFAULT_LOCAL
    if size in model_assets.MODELS:
        return LocalModel(model_assets.require_model(size), f"local:{size}", tuning=tuning)
    if arg.lower().endswith(".gguf"):
        path = Path(arg).expanduser()
        if not path.is_file():
            raise ConfigError(f"--llm local:{arg}: no such model file")
        return LocalModel(path.resolve(), f"local:{path.resolve()}", tuning=tuning)
    raise ConfigError(f"--llm local:{arg}: expected one of {', '.join(model_assets.MODELS)} or a path ending in .gguf")
