"""Writing into folders that are handed around (a bench's ``--out``, a store).

A link planted in such a folder, under a name webwise writes, would have the write land on
any file its user can write. So files are replaced at once through a temporary file created
exclusively under a random name (:func:`tempfile.mkstemp`) and renamed over the target, which
replaces a link rather than following it; files appended to or locked in place are opened
without following a link (:func:`open_own`). A reader, a kill or a crash finds the old file
or the new one. A path that cannot be written (a folder in a file's place, a folder that is
not the user's to write) is a one-line :class:`ConfigError` naming it, and so is a FIFO where
webwise reads, appends or locks a file: opened without waiting, it is refused, not waited on.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import Callable

from webwise.errors import ConfigError
from webwise.untrusted import shown


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
    a one-line :class:`ConfigError` when a file stands in the way (``FILE/sub`` can never be a folder)
    or a link that leads nowhere does (:func:`_found`)."""
    try:
        existing = next((p for p in (path, *path.parents) if _found(p)), Path("."))
        if not existing.is_dir():
            raise ConfigError(f"{existing} is not a directory")
    except OSError as exc:  # a name too long, a folder on the way the user may not look into
        raise ConfigError(f"{path}: {exc.strerror or exc}") from None
    except ValueError as exc:  # a NUL in a library caller's string, which no system call takes
        raise ConfigError(f"{shown(str(path))}: {exc}") from None
    return existing


def _found(path: Path) -> bool:
    """Whether anything is at ``path``; a link that leads nowhere is a :class:`ConfigError` saying so.

    ``Path.exists()`` says False for such a link, as where nothing is, so the folder above was
    checked in its place and the link failed only later, as ``File exists``. It says False for a
    NUL in the name too, which ``os.lstat`` raises on, for the caller to name.
    """
    try:
        os.lstat(path)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):  # what is on the way is named further up
            return False
        raise
    problem = _dead_link(path)
    if problem:
        raise ConfigError(f"{path} is {problem}")
    return True


def _dead_link(path: Path) -> str | None:
    """``a link loop`` or ``a link to nothing`` when ``path`` is a link that leads to no file, else None."""
    if not os.path.islink(path):
        return None
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "a link to nothing"
    except OSError as exc:  # one the user may not follow is no dead end: its own error says so
        return "a link loop" if exc.errno == errno.ELOOP else None
    return None


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
    """``os.open`` of a file webwise writes in place (appends, a lock): a regular file, never one
    through a link. A FIFO under the name would block the open (or the read that follows) forever
    with no message, so the open does not wait and what it opened is looked at."""
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        if os.path.islink(path):  # False, not a second error, where the path cannot be looked at
            raise ConfigError(f"{path} is a link: webwise writes only files of its own there; remove it") from None
        if exc.errno == errno.ENXIO:  # a FIFO no one reads, a socket: opened only to write
            raise ConfigError(_not_own(path)) from None
        raise ConfigError(f"cannot open {path}: {exc.strerror or exc}") from None
    return _regular(fd, lambda mode: _not_own(path))


def _not_own(path: Path) -> str:
    return f"{path} is not a regular file: webwise writes only files of its own there; remove it"


def open_to_read(path: Path, unreadable: str) -> int | None:
    """``os.open`` of the regular file at ``path`` (or a link to one) to read; None when nothing is
    there. Anything else is a one-line :class:`ConfigError`: ``unreadable``, then why.

    Opened without waiting, then looked at: a FIFO under the name would block the read forever.
    A link that leads nowhere is refused, not read as no file: ``Path.exists()`` is False for
    it, and what the file was meant to hold was quietly missing.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        problem = _dead_link(path)
        if problem is None and isinstance(exc, (FileNotFoundError, NotADirectoryError)):  # FILE/name: none there
            return None
        raise ConfigError(f"{unreadable}: {problem or exc.strerror or exc}") from None
    # a folder is refused as a read of it says
    return _regular(fd, lambda mode: f"{unreadable}: "
                    f"{os.strerror(errno.EISDIR) if stat.S_ISDIR(mode) else 'not a regular file'}")


def _regular(fd: int, refusal: Callable[[int], str]) -> int:
    """``fd``, opened without waiting, made to wait again, when it is a regular file; else closed,
    and a :class:`ConfigError` of ``refusal`` of its mode."""
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise ConfigError(refusal(mode))
    os.set_blocking(fd, True)  # as the caller asked: the flag was only for the open
    return fd


def _umask() -> int:
    """The process's umask, read without setting it (``os.umask`` sets it, for every thread)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError):
        return 0o022
