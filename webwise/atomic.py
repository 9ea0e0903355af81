"""Writing into folders that are handed around (a bench's ``--out``, a store).

A link planted in such a folder, under a name webwise writes, would have the write land on
any file its user can write. So files are replaced at once through a temporary file created
exclusively under a random name (:func:`tempfile.mkstemp`) and renamed over the target, which
replaces a link rather than following it; files appended to or locked in place are opened
without following a link (:func:`open_own`). A reader, a kill or a crash finds the old file
or the new one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from webwise.errors import ConfigError


def replace_file(path: Path, data: bytes) -> None:
    """Make ``path`` hold ``data``, durably (fsync) and at once (rename)."""
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


def open_own(path: Path, flags: int) -> int:
    """``os.open`` of a file webwise writes in place (appends, a lock), never through a link."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW, 0o666)
    except OSError as exc:
        if path.is_symlink():
            raise ConfigError(f"{path} is a link: webwise writes only files of its own there; remove it") from None
        raise


def _umask() -> int:
    """The process's umask, read without setting it (``os.umask`` sets it, for every thread)."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            return next(int(line.split()[1], 8) for line in status if line.startswith("Umask:"))
    except (OSError, StopIteration, ValueError):
        return 0o022
