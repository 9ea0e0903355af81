"""Files replaced at once: a reader, a kill or a crash finds the old file or the new one.

The new content goes to a temporary file beside the target, created exclusively under a
random name (:func:`tempfile.mkstemp`), then renamed over it. A fixed name such as
``tables.csv.partial`` would be opened through whatever link sits there already, and
output folders are handed around (a bench's ``--out``, a store): a link planted under that
name would have the write land on any file its owner can write.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def replace_file(path: Path, data: bytes) -> None:
    """Make ``path`` hold ``data``, durably (fsync) and at once (rename)."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o644)  # mkstemp makes 0600: results and stores are read by others
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
