"""Writing into folders that are handed around (a bench's ``--out``, a store).

A link planted in such a folder, under a name webwise writes, would have the write land on
any file its user can write. So files are replaced at once through a temporary file created
exclusively under a random name (:func:`tempfile.mkstemp`) and renamed over the target, which
replaces a link rather than following it; files appended to or locked in place are opened
without following a link (:func:`open_own`). A reader, a kill or a crash finds the old file
or the new one. A path that cannot be written (a folder in a file's place, a folder that is
not the user's to write) is a one-line :class:`ConfigError` naming it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from webwise.errors import ConfigError


def replace_file(path: Path, data: bytes) -> None:
    """Make ``path`` hold ``data``, durably (fsync) and at once (rename)."""
    try:
        _replace(path, data)
    except OSError as exc:  # named by the target: the temporary file's name means nothing to a user
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


def _replace(path: Path, data: bytes) -> None:
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o666 & ~_umask())  # as open() would have made it; mkstemp makes 0600
        os.replace(temporary, path)
        folder = os.open(path.parent, os.O_RDONLY)
        try:  # the rename itself, durable
            os.fsync(folder)
        finally:
            os.close(folder)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise


def existing_folder(path: Path) -> Path:
    """The folder ``path`` is, or the nearest one above it that exists, where it could be made;
    a one-line :class:`ConfigError` when a file stands in the way (``FILE/sub`` can never be a folder)."""
    try:
        existing = next((p for p in (path, *path.parents) if p.exists()), Path("."))
        if not existing.is_dir():
            raise ConfigError(f"{existing} is not a directory")
    except OSError as exc:  # a name too long, a folder on the way the user may not look into
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL in a library caller's string, which no system call takes
        raise ConfigError(f"{str(path)!r}: {exc}") from None
    return existing


def writable_directory(path: Path) -> Path:
    """``path`` if it is a directory to write into: one that exists, or one that can be made where
    the path points; else a one-line :class:`ConfigError`.

    Checked before anything runs: a file in the way would otherwise surface at the first write,
    after minutes of model calls.
    """
    existing = existing_folder(path)
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"cannot write in {existing}")
    return path


def open_own(path: Path, flags: int) -> int:
    """``os.open`` of a file webwise writes in place (appends, a lock), never through a link."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW, 0o666)
    except OSError as exc:
        if os.path.islink(path):  # False, not a second error, where the path cannot be looked at
            raise ConfigError(f"{path} is a link: webwise writes only files of its own there; remove it") from None
        raise ConfigError(f"cannot open {path}: {exc.strerror or exc}") from None


def _umask() -> int:
    """The process's umask, read without setting it (``os.umask`` sets it, for every thread)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError):
        return 0o022
