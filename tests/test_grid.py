"""A real Selenium Grid standalone on loopback, and a small bench through it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from webwise.bench import read_results
from webwise.cli import main
from webwise.grid import Grid
from webwise.harvest import JOURNAL

pytestmark = [pytest.mark.grid, pytest.mark.skipif(shutil.which("java") is None, reason="needs Java 17")]

REPLIES = {
    "click-button": ["```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"],
    "click-test": ["```python\nclick('button', 'Click Me!')\n```"],
}


def test_a_bench_runs_on_the_grid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replay = tmp_path / "replies.json"
    replay.write_text(json.dumps(REPLIES))
    out = tmp_path / "out"
    with Grid(max_sessions=2) as grid:
        assert grid.ready()
        status = main(["bench", "--tasks", "click-button,click-test", "--seeds", "2", "--examples", "none",
                       "--llm", f"replay:{replay}", "--workers", "2", "--remote", grid.url, "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    records = read_results(out / "results.jsonl")
    assert sorted((r["task"], r["seed"]) for r in records) == [("click-button", 0), ("click-button", 1),
                                                                ("click-test", 0), ("click-test", 1)]
    assert all(r["success"] and not r["error"] for r in records)
    assert not grid.alive()


def test_a_harvest_runs_on_the_grid(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replay = tmp_path / "replies.json"
    replay.write_text(json.dumps(REPLIES))
    store_dir = tmp_path / "store"
    with Grid(max_sessions=2) as grid:
        status = main(["harvest", "--tasks", "click-button,click-test", "--seeds", "1", "--llm", f"replay:{replay}",
                       "--workers", "2", "--remote", grid.url, "--store", str(store_dir)])
    assert status == 0, capsys.readouterr().err
    assert sorted(r["task"] for r in read_results(store_dir / JOURNAL)) == ["click-button", "click-test"]
    assert all((store_dir / f"{task}.json").is_file() for task in REPLIES)
    assert not grid.alive()
