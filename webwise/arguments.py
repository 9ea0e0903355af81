"""Checks of the arguments the library takes, each failing as a one-line :class:`ConfigError`.

The CLI's parser checks what a user types; a library caller's values reach the same code
without it, and a wrong type there crashed deep inside a run (or ran nothing: ``max_steps=0``
asks no program) instead of saying which argument is wrong.
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from webwise.errors import ConfigError


def whole(name: str, value: object, least: int) -> int:
    """``value`` when it is a whole number of at least ``least`` (a bool is not one)."""
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ConfigError(f"{name} must be a whole number >= {least}, not {value!r}")
    return value


def number(name: str, value: object, low: float, high: float) -> float:
    """``value`` when it is a number (not a bool) from ``low`` to ``high``."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value <= high:
        raise ConfigError(f"{name} must be a number from {low:g} to {high:g}, not {value!r}")
    return value


def web_url(name: str, value: str) -> str:
    """``value`` when it is an ``http://`` or ``https://`` URL with a host. Anything else
    (``notaurl``, ``127.0.0.1:4444``) would be sent on and fail only as a connection that
    cannot be made, after retries, or with a library's warning."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigError(f"{name} must be an http:// or https:// URL with a host, not {value!r}")
    return value


def as_path(name: str, value: object) -> Path:
    """The path argument ``name`` as a :class:`Path`: a string works as a path does. An empty
    string is refused, as ``Path("")`` would quietly be the current directory."""
    if isinstance(value, str) and not value:
        raise ConfigError(f"{name} is an empty path")
    if not isinstance(value, (str, os.PathLike)):
        raise ConfigError(f"{name} must be a path, not {type(value).__name__}")
    return Path(value)


def folder(name: str, value: object) -> Path | None:
    """The optional folder argument ``name``: None (the default place), else :func:`as_path`'s."""
    return None if value is None else as_path(name, value)
