"""Which code produced a result, so that a results file says what it measured.

A table is reproducible only at the code that made it, and ``--resume`` can append
episodes run by newer code to a file that older code started. Every episode records
:func:`code_version`, a hash of the files that shape an episode, so the bench can say
when it resumes over episodes of other code; a commit that only touches docs or results
keeps the hash. :func:`git_commit` says where to find that code.
"""

from __future__ import annotations

import hashlib
import subprocess
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import metadata, util
from pathlib import Path
from typing import Any

from webwise.examples import CHECKOUT, MANUAL_DIR

#: The packages whose files decide what an episode does (prompts, sandbox, program API).
PACKAGES = ("webwise", "api_stubs", "sandbox")


@cache
def code_version() -> str:
    """``VERSION+src.HASH``: the hash covers the packages' sources and the hand-written examples."""
    digest = hashlib.sha256()
    for name, path in _sources():
        data = path.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return f"{metadata.version('webwise')}+src.{digest.hexdigest()[:12]}"


def code_of(record: Mapping[str, Any]) -> str:
    """The code version an episode record was run with; records from before it was kept say so."""
    return str(record.get("code", "unrecorded"))


def described(record: Mapping[str, Any]) -> str:
    """The code version with the commit it was run at, when known: what a table lists."""
    commit = record.get("commit")
    return code_of(record) + (f" at {commit}" if commit else "")


@cache
def git_commit() -> str | None:
    """The checkout's commit, ``.dirty`` when tracked files differ from it; None outside a checkout."""
    commit = _git("rev-parse", "--short=12", "HEAD")
    if not commit:
        return None
    return commit + (".dirty" if _git("status", "--porcelain", "--untracked-files=no") else "")


def _sources() -> Iterator[tuple[str, Path]]:
    """(name, path) of every source file in a stable order; names are relative, so the hash is too."""
    roots = [(package, Path(spec.submodule_search_locations[0]))
             for package in PACKAGES if (spec := util.find_spec(package)) and spec.submodule_search_locations]
    roots.append(("incontext/manual", MANUAL_DIR))
    for label, root in roots:
        files = (p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
        for path in sorted(files):
            yield f"{label}/{path.relative_to(root).as_posix()}", path


def _git(*args: str) -> str:
    """git's answer about the checkout; empty without one (an installed wheel) or without git."""
    if CHECKOUT is None or not (CHECKOUT / ".git").exists():
        return ""
    try:
        done = subprocess.run(["git", "-C", str(CHECKOUT), *args], capture_output=True, text=True, timeout=10,
                              check=True)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip()
