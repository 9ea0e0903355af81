"""LLM backends behind one chat-completions interface, built from a ``--llm`` spec."""

from __future__ import annotations

import os
from pathlib import Path

from webwise.arguments import expanded
from webwise.atomic import writable_directory
from webwise.errors import ConfigError
from webwise.llm.base import ChatModel, ChatReply, ChatRequest, Message
from webwise.llm.replay import ReplayModel, load_replies

__all__ = ["ChatModel", "ChatReply", "ChatRequest", "Message", "SPECS", "as_model", "check_spec", "make_llm"]

#: The ``--llm`` specs :func:`make_llm` understands, as help and error texts name them.
SPECS = "local (the 0.5B), local:0.5b, local:1.5b, local:PATH.gguf, openai:MODEL or replay:FILE"
#: The first bytes of every GGUF file.
GGUF_MAGIC = b"GGUF"


def make_llm(spec: str, cache_dir: Path | None = None) -> ChatModel:
    """Build a backend from a ``--llm`` spec, one of :data:`SPECS`.

    Real backends are wrapped in the on-disk response cache when ``cache_dir`` or
    ``WEBWISE_LLM_CACHE`` names a directory; replay never is.
    """
    kind, arg = _kind(spec)
    if kind == "replay":
        return ReplayModel.from_file(Path(arg))
    cache = _cache(cache_dir)  # before the model loads: a cache that cannot be written is bad input
    if kind == "openai":
        from webwise.llm.openai_backend import OpenAIModel, policy_from_env

        timeout, policy = policy_from_env()
        model: ChatModel = OpenAIModel(arg, timeout=timeout, policy=policy)
    else:
        model = _make_local(arg)
    if cache is None:
        return model
    from webwise.llm.cache import CachedModel

    return CachedModel(model, cache)


def as_model(llm: object) -> ChatModel:
    """The model ``llm`` names: a spec (one of :data:`SPECS`) built, or a :class:`ChatModel` as it is.

    Anything else is a one-line :class:`ConfigError` before a browser starts: an object without
    ``name``, ``complete`` or ``close`` would otherwise fail at the first episode, or leave the
    session unable to close.
    """
    if isinstance(llm, str):
        return make_llm(llm)
    missing = ["name (a str)"] if not isinstance(getattr(llm, "name", None), str) else []
    missing += [f"{part}()" for part in ("complete", "close") if not callable(getattr(llm, part, None))]
    if missing:
        raise ConfigError(f"llm must be a spec ({SPECS}) or a ChatModel (name, complete(), close()); "
                          f"{type(llm).__name__} lacks {', '.join(missing)}")
    return llm  # type: ignore[return-value]


def check_spec(spec: str) -> None:
    """A one-line :class:`ConfigError` for a spec :func:`make_llm` would refuse, without building
    the model (loading the embedded one takes seconds): a command checks it before it creates
    anything, so a mistyped ``--llm`` leaves no empty output folder behind. A replay file is read
    whole, as it is cheap to; a model file is looked for (a named size's stamp, a path's GGUF
    header); the response cache's folder, an endpoint's URL and retry settings and the embedded
    model's tuning are read from the environment."""
    from webwise import model_assets  # here, not at the top: see _make_local

    kind, arg = _kind(spec)
    if kind == "replay":
        load_replies(Path(arg))
        return
    _cache(None)
    if kind == "openai":
        from webwise.llm.openai_backend import checked_key, endpoint, policy_from_env

        endpoint()
        policy_from_env()
        checked_key()
        return
    from webwise.llm.local import check_env

    check_env()
    size = arg or model_assets.DEFAULT_LOCAL
    if size in model_assets.MODELS:
        model_assets.require_model(size)  # a stamp read: a model not fetched yet fails here, not after OUT is made
    else:
        _model_file(arg)


def _kind(spec: object) -> tuple[str, str]:
    """The spec's backend and its argument, each of a form :func:`make_llm` knows."""
    if not isinstance(spec, str):
        raise ConfigError(f"an llm spec is a string ({SPECS}), not {type(spec).__name__}")
    kind, _, arg = spec.partition(":")
    if kind == "replay" and not arg:
        raise ConfigError("--llm replay:FILE needs a file name")
    if kind == "openai" and not arg.strip():  # " " would be sent as the model's name
        raise ConfigError("--llm openai:MODEL needs a model name, e.g. openai:gpt-4o-mini")
    if kind not in ("replay", "openai", "local"):
        raise ConfigError(f"unknown --llm spec {spec!r}: use {SPECS}")
    return kind, arg


def _make_local(arg: str) -> ChatModel:
    """``local`` / ``local:SIZE`` load a verified cached model; ``local:PATH.gguf`` loads that file."""
    # Imported here, like the backends: were the package's import to load model_assets, running
    # it as `python -m webwise.model_assets` (setup, the README) would print runpy's warning.
    from webwise import model_assets
    from webwise.llm.local import LocalModel, check_env

    check_env()  # every WEBWISE_LOCAL_* setting, before a model file is looked for or loaded
    size = arg or model_assets.DEFAULT_LOCAL
    if size in model_assets.MODELS:
        return LocalModel(model_assets.require_model(size), f"local:{size}")
    path = _model_file(arg)
    return LocalModel(path, f"local:{path}")


def _model_file(arg: str) -> Path:
    """The GGUF file ``local:PATH.gguf`` names, resolved; a one-line :class:`ConfigError` when it
    names none (a folder, a missing file, a name too long to look up)."""
    from webwise import model_assets  # here, not at the top: see _make_local

    if not arg.lower().endswith(".gguf"):
        raise ConfigError(f"--llm local:{arg}: expected one of {', '.join(model_assets.MODELS)} "
                          "or a path ending in .gguf")
    path = expanded(f"--llm local:{arg}", Path(arg))
    try:
        found = path.is_file()
    except OSError as exc:
        raise ConfigError(f"--llm local:{arg}: {exc.strerror or exc}") from None
    if not found:
        raise ConfigError(f"--llm local:{arg}: no such model file")
    try:  # GGUF files open with their magic: anything else fails only once llama.cpp loads it
        with path.open("rb") as file:
            magic = file.read(4)
    except OSError as exc:
        raise ConfigError(f"--llm local:{arg}: {exc.strerror or exc}") from None
    if magic != GGUF_MAGIC:
        raise ConfigError(f"--llm local:{arg}: not a GGUF model file")
    return path.resolve()


def _cache(cache_dir: Path | None) -> Path | None:
    """The response cache's folder, ``cache_dir`` or ``WEBWISE_LLM_CACHE`` (None: no cache), where
    it exists or can be made and the user may write: a file in its place failed every model call,
    each an episode's error, once the browser had started."""
    cache = cache_dir or (Path(os.environ["WEBWISE_LLM_CACHE"]) if os.environ.get("WEBWISE_LLM_CACHE") else None)
    if cache is None:
        return None
    try:
        return writable_directory(cache)
    except ConfigError as exc:
        raise ConfigError(f"{'the cache folder' if cache_dir else 'WEBWISE_LLM_CACHE'}: {exc}") from None
