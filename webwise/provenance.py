"""Which code produced a result, so that a results file says what it measured.

A table is reproducible only at the code that made it, and ``--resume`` can append
episodes run by newer code to a file that older code started. Every episode records
:func:`code_version`, and the bench says so when it resumes over episodes of another one.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

#: The checkout the package runs from, when it runs from one (an editable install).
CHECKOUT = Path(__file__).resolve().parent.parent


@cache
def code_version() -> str:
    """``VERSION+gCOMMIT`` in a git checkout (``.dirty`` when tracked files differ from it), else ``VERSION``."""
    version = metadata.version("webwise")
    commit = _git("rev-parse", "--short=12", "HEAD")
    if not commit:
        return version
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return f"{version}+g{commit}{'.dirty' if dirty else ''}"


def code_of(record: Mapping[str, Any]) -> str:
    """The code version an episode record was run with; records from before it was kept say so."""
    return str(record.get("code", "unrecorded"))


def _git(*args: str) -> str:
    """git's answer about the checkout; empty without one (an installed wheel) or without git."""
    if not (CHECKOUT / ".git").exists():
        return ""
    try:
        done = subprocess.run(["git", "-C", str(CHECKOUT), *args], capture_output=True, text=True, timeout=10,
                              check=True)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()
