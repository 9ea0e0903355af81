"""Packaging: a plain ``pip install .`` works on its own, hand-written examples included.

An editable install finds ``incontext/`` in the checkout; an installed copy must carry it,
or every ``--examples manual`` run would quietly lose its example. The slow test builds a
fresh virtualenv (no system or development site-packages), installs a copy of the sources
non-editably and solves a task from another folder with a replayed reply, then checks that
the prompt is the one the checkout builds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
import warnings
from pathlib import Path

import pytest

from webwise.cli import main

ROOT = Path(__file__).resolve().parent.parent
#: What a source distribution holds: the project file, the README it names and the packages.
SOURCES = ("pyproject.toml", "README.md", "webwise", "api_stubs", "sandbox", "incontext")
REPLY = "```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"


def test_every_package_data_pattern_names_files_that_exist() -> None:
    """setuptools skips a pattern that matches nothing; the list must not promise files."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for package, patterns in config["tool"]["setuptools"]["package-data"].items():
        for pattern in patterns:
            assert list((ROOT / package.replace(".", "/")).glob(pattern)), f"{package}: {pattern}"


def test_every_shipped_module_compiles_without_warnings() -> None:
    """An invalid escape in a string (``"\\d"`` outside a raw string) is a DeprecationWarning on
    3.11 and a SyntaxWarning that every user sees on 3.12; compiling the sources with warnings
    as errors finds it before a user does."""
    for package in ("webwise", "api_stubs", "sandbox"):
        for source in sorted((ROOT / package).rglob("*.py")):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                compile(source.read_text(encoding="utf-8"), str(source), "exec")


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_plain_install_solves_with_the_hand_written_example_from_any_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = tmp_path / "source"  # a copy: pip builds in the tree it is given
    source.mkdir()
    for part in SOURCES:
        if (ROOT / part).is_dir():
            shutil.copytree(ROOT / part, source / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(ROOT / part, source / part)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(source)], check=True,
                   capture_output=True, timeout=800, env=env)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replies = elsewhere / "replies.json"
    replies.write_text(json.dumps({"click-button": [REPLY]}))
    args = ["solve", "--task", "click-button", "--seed", "2", "--examples", "manual", "--llm", f"replay:{replies}",
            "--json"]

    done = subprocess.run([str(venv / "bin" / "webwise"), *args], cwd=elsewhere, capture_output=True, text=True,
                          timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    installed = json.loads(done.stdout)
    assert main(args) == 0
    checkout = json.loads(capsys.readouterr().out)
    assert installed["success"] and installed["trace"][0]["note"] is None
    assert "Example (an invented page):" in installed["trace"][0]["prompt"][1]["content"]
    assert installed["trace"][0]["prompt"] == checkout["trace"][0]["prompt"]
    assert installed["code"] == checkout["code"] and installed["commit"] is None

    harvest = subprocess.run([str(venv / "bin" / "webwise"), "harvest", "--tasks", "click-button", "--llm",
                              f"replay:{replies}"], cwd=elsewhere, capture_output=True, text=True, timeout=120, env=env)
    assert harvest.returncode == 2
    assert harvest.stderr.startswith("webwise: error: harvest needs --store DIR here") and harvest.stderr.count("\n") == 1

    remove = subprocess.run([str(venv / "bin" / "webwise"), "store", "remove", "click-button", "1"],
                            cwd=elsewhere, capture_output=True, text=True, timeout=120, env=env)
    assert remove.returncode == 2
    assert remove.stderr.startswith("webwise: error: store remove needs --store DIR here")
    assert remove.stderr.count("\n") == 1
