"""Checks of the arguments webwise takes, each failing as a one-line :class:`ConfigError`.

One set of checks for the command line and the library alike: the ``webwise`` command's option
types call these with the library's name of the argument (``--max-steps 0`` is ``argument
--max-steps: max_steps must be a whole number >= 1, not 0``, and ``Settings(max_steps=0)`` raises
the same message), so the two never word one problem two ways. A library caller's values reach
the code without a parser, and a wrong type there crashed deep inside a run (or ran nothing:
``max_steps=0`` asks no program) instead of saying which argument is wrong.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path
from typing import Any, Sequence
from urllib.parse import urlsplit

from webwise.atomic import existing_folder, writable_directory
from webwise.errors import ConfigError


def whole(name: str, value: object, least: int, most: int | None = None) -> int:
    """``value`` when it is a whole number of at least ``least`` (and at most ``most``); a bool is not one."""
    if not isinstance(value, int) or isinstance(value, bool) or value < least or (most is not None and value > most):
        bound = f">= {least}" if most is None else f"from {least} to {most}"
        raise ConfigError(f"{name} must be a whole number {bound}, not {value!r}")
    return value


def number(name: str, value: object, low: float, high: float) -> float:
    """``value`` when it is a number (not a bool) from ``low`` to ``high``."""
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not low <= value <= high:
        raise ConfigError(f"{name} must be a number from {low:g} to {high:g}, not {value!r}")
    return value


def flag(name: str, value: object) -> bool:
    """``value`` when it is True or False: a string such as ``"no"`` is true to Python."""
    if not isinstance(value, bool):
        raise ConfigError(f"{name} must be True or False, not {value!r}")
    return value


def one_of(name: str, value: object, choices: Sequence[str]) -> str:
    """``value`` when it is one of ``choices``; ``name`` says what it is (``method``)."""
    if not isinstance(value, str) or value not in choices:
        raise ConfigError(f"unknown {name} {value!r}; choose one of {', '.join(choices)}")
    return value


def some(name: str, values: object) -> Sequence[Any]:
    """``values`` as a sequence of at least one item: an empty plan runs nothing and reports
    success, and a bare string would be read letter by letter (``"webwise"`` as 'w', 'e', ...).
    A sequence is kept as it is (a ``range`` of a million seeds is not spelt out); any other
    iterable becomes a list."""
    if isinstance(values, (str, bytes)):
        raise ConfigError(f"{name} is a list, not the string {values!r}: pass [{values!r}]")
    if not isinstance(values, Sequence):
        try:
            values = list(values)  # type: ignore[call-overload]
        except TypeError:
            raise ConfigError(f"{name} is a list, not {type(values).__name__}") from None
    if not values:
        raise ConfigError(f"{name} is empty: give at least one")
    return values


def web_url(name: str, value: object) -> str:
    """``value`` when it is an ``http://`` or ``https://`` URL with a host (and a port, if any, from
    0 to 65535). Anything else (``notaurl``, ``127.0.0.1:4444``) would be sent on and fail only as a
    connection that cannot be made, after retries, or with a library's warning or traceback
    (``http://[::1``, ``http://host:abc``, a host no resolver can encode). A space or a control
    character anywhere is refused too: the HTTP clients raise their own error for it at the
    first request (``http.client.InvalidURL``), which no caller expects."""
    problem = f"{name} must be an http:// or https:// URL with a host, not {value!r}"
    if not isinstance(value, str) or any(char.isspace() or not char.isprintable() for char in value):
        raise ConfigError(problem)
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 - raises for a port that is no number from 0 to 65535
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ConfigError(problem)
        parts.hostname.encode("idna")
    except (ValueError, UnicodeError):
        raise ConfigError(problem) from None
    return value


def grid_url(name: str, value: object) -> str | None:
    """The Selenium Grid's URL (:func:`web_url`), or None for browsers here. An empty string is
    refused, not read as no Grid: a ``--remote "$UNSET"`` would quietly run the browsers here."""
    return None if value is None else web_url(name, value)


def page_host(name: str, value: object) -> str:
    """``value`` when task pages can be served on it: an address of this machine, or a name that
    resolves to one. A socket is bound there for a moment, before a run creates anything: the page
    server binds only once the workers start, after OUT is made and the model loaded, and an empty
    host would quietly serve every interface."""
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(f"{name} must be a host name or address, not {value!r}")
    try:
        with socket.socket(socket.AF_INET6 if ":" in value else socket.AF_INET) as probe:
            probe.bind((value, 0))
    except OSError as exc:
        raise ConfigError(f"cannot serve task pages on {value}: {exc.strerror or exc}") from None
    except (TypeError, ValueError):  # a name no resolver can encode: a lone surrogate, a NUL
        raise ConfigError(f"cannot serve task pages on {value!r}: not a host name") from None
    return value


def as_path(name: str, value: object) -> Path:
    """The path argument ``name`` as a :class:`Path`: a string works as a path does. An empty
    string is refused, as ``Path("")`` would quietly be the current directory."""
    if isinstance(value, str) and not value:
        raise ConfigError(f"{name} is an empty path")
    if not isinstance(value, (str, os.PathLike)):
        raise ConfigError(f"{name} must be a path, not {type(value).__name__}")
    return Path(value)


def expanded(name: str, path: Path) -> Path:
    """``path`` with a leading ``~`` or ``~user`` made the home folder it names; a one-line
    :class:`ConfigError` when there is none (``pathlib`` raises a bare RuntimeError)."""
    try:
        return path.expanduser()
    except RuntimeError:
        raise ConfigError(f"{name}: no home folder for {str(path).split('/', 1)[0]!r}") from None


def folder(name: str, value: object) -> Path | None:
    """The optional folder argument ``name``: None (the default place), else :func:`as_path`'s."""
    return None if value is None else as_path(name, value)


def readable_folder(name: str, value: object) -> Path | None:
    """A folder only read (a store), which may be read-only or not made yet: :func:`folder`'s, where
    a file in the way is refused (the folder, or ``FILE/sub``, can never be one)."""
    path = folder(name, value)
    if path is not None:
        existing_folder(path)
    return path


def writable_folder(name: str, value: object) -> Path:
    """A folder to write into (``--out``): :func:`as_path`'s, where it exists or can be made and
    the user may write (:func:`webwise.atomic.writable_directory`)."""
    return writable_directory(as_path(name, value))
