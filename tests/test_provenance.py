"""The code version an episode records: it changes with the code, not with docs or results."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PRINT_VERSION = "from webwise.provenance import code_version, git_commit; print(code_version(), git_commit())"


def version_of(tree: Path) -> list[str]:
    """What a fresh interpreter importing the code from ``tree`` records: version and commit."""
    done = subprocess.run([sys.executable, "-c", PRINT_VERSION], cwd=tree, capture_output=True, text=True,
                          check=True, timeout=60)
    return done.stdout.split()


def test_the_version_follows_the_sources_and_ignores_the_rest(tmp_path: Path) -> None:
    tree = tmp_path / "copy"
    for part in ("webwise", "api_stubs", "sandbox", "incontext"):
        shutil.copytree(ROOT / part, tree / part, ignore=shutil.ignore_patterns("__pycache__"))
    code, commit = version_of(tree)
    assert code == version_of(ROOT)[0]  # same files, same version, wherever they are
    assert commit == "None"  # not a git checkout

    (tree / "README.md").write_text("docs change nothing\n")
    (tree / "benchmarks" / "results").mkdir(parents=True)
    assert version_of(tree)[0] == code

    prompts = tree / "webwise" / "prompts.py"
    prompts.write_text(prompts.read_text() + "\n# an edit\n")
    edited = version_of(tree)[0]
    example = next((tree / "incontext" / "manual").glob("*.json"))
    example.write_text(example.read_text() + " ")
    assert len({code, edited, version_of(tree)[0]}) == 3
