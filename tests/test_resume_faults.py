"""Runs that fail halfway keep what they recorded and resume: a full disk, a writer killed mid-line
while another process appends to the same file, a browser that dies as it starts, a malformed
store. Real parts where the fault can be made for real (headless Chromium, the CLI, a small
tmpfs as a full disk); a stand-in where it cannot be timed."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest

from webwise.bench import Bench, BenchConfig, ResultsFile, Worker, read_results, record_key
from webwise.cli import main
from webwise.environment import BrowserDied
from webwise.errors import ConfigError
from webwise.llm.replay import ReplayModel

CLICK = "```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"


@pytest.fixture()
def replay(tmp_path: Path) -> Path:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"click-button": [CLICK]}))
    return path


def record(seed: int) -> dict[str, Any]:
    return {"task": "click-button", "seed": seed, "method": "webwise", "examples": "none", "llm": "m",
            "success": True, "error": None, "program": "x" * 2000}


def test_a_line_a_full_disk_cut_short_is_taken_out_and_the_file_stays_readable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A torn line left in place made the file unreadable once another worker's line followed it."""
    path = tmp_path / "results.jsonl"
    results = ResultsFile(path)
    results.append(record(0))
    real_write = os.write
    calls = []

    def half_then_full(fd: int, data: bytes) -> int:
        """What a disk with room for half a line does: takes half, then refuses the rest."""
        calls.append(len(data))
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data[:len(data) // 2])

    monkeypatch.setattr(os, "write", half_then_full)
    with pytest.raises(ConfigError, match=f"cannot write {path}: No space left on device"):
        results.append(record(1))
    monkeypatch.setattr(os, "write", real_write)  # some space came free: another worker's line goes in
    results.append(record(2))
    assert [r["seed"] for r in read_results(path)] == [0, 2]


@pytest.fixture()
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 400 KiB tmpfs: a disk a bench fills within a few episodes."""
    mount = tmp_path / "disk"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=400k", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip("no tmpfs to fill here (mount needs root)")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_bench_that_fills_the_disk_says_so_in_one_line_and_resumes_once_there_is_room(
        replay: Path, small_disk: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = small_disk / "out"
    args = ["bench", "--tasks", "click-button", "--seeds", "40", "--examples", "none", "--llm", f"replay:{replay}",
            "--out", str(out)]
    assert main(args) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == f"webwise: error: cannot write {out / 'results.jsonl'}: No space left on device", err[-1]
    kept = [record_key(r) for r in read_results(out / "results.jsonl")]
    assert 0 < len(kept) < 40 and (out / "results.jsonl").read_bytes().endswith(b"\n")
    subprocess.run(["mount", "-o", "remount,size=8m", str(small_disk)], check=True)
    assert main([*args, "--resume"]) == 0
    assert f"{len(kept)} already in" in capsys.readouterr().err
    records = read_results(out / "results.jsonl")
    assert [record_key(r) for r in records][:len(kept)] == kept  # what was recorded stayed as it was
    assert sorted(r["seed"] for r in records) == list(range(40)) and all(r["success"] for r in records)


class _Starting:
    """A session whose browser dies as it starts ``deaths`` times, then answers."""

    def __init__(self, deaths: int) -> None:
        self.deaths = deaths
        self.env = self

    def script(self, source: str) -> int:
        if self.deaths:
            self.deaths -= 1
            raise BrowserDied("browser died: ProtocolError")
        return 1


def _worker(replay: Path, tmp_path: Path, deaths: int) -> Worker:
    config = BenchConfig(tasks=["click-button"], seeds=[0], methods=["webwise"], examples=["none"],
                         llm=f"replay:{replay}", out=tmp_path)
    worker = Worker(0, Bench(config), llm=ReplayModel({}, "m"))
    worker.session = _Starting(deaths)
    return worker


def test_a_browser_that_dies_once_as_it_starts_is_replaced_and_the_run_goes_on(replay: Path, tmp_path: Path) -> None:
    """A second worker's browser killed as it started ended the whole run, the other worker's
    episodes in flight with it, as a set-up error (exit 2)."""
    worker = _worker(replay, tmp_path, deaths=1)
    worker._launch()
    assert worker.session.deaths == 0


def test_a_browser_that_dies_twice_as_it_starts_is_a_set_up_error(replay: Path, tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="^cannot start a browser here: browser died: ProtocolError$"):
        _worker(replay, tmp_path, deaths=2)._launch()


@pytest.mark.parametrize(("examples", "broken"), [("none", "click-button"), ("auto-near", "click-link")])
def test_a_malformed_store_file_is_refused_before_the_harvest_starts_anything(
        examples: str, broken: str, replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A store file cut short was found only once the first episode that read it ran: after the
    model was loaded and the browsers started. ``auto-near`` reads other tasks' files too."""
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    (store_dir / f"{broken}.json").write_text('[{"instruction": "Click')
    assert main(["harvest", "--tasks", "click-button", "--seeds", "2", "--llm", f"replay:{replay}",
                 "--examples", examples, "--store", str(store_dir)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"webwise: error: harvested examples in {store_dir / f'{broken}.json'} are unreadable")
    assert err.count("\n") == 1  # not even the plan line: nothing ran
    assert not (store_dir / "harvest.jsonl").exists()


def test_a_line_torn_by_a_killed_writer_is_cut_before_another_process_appends(tmp_path: Path) -> None:
    """Two harvests into one store, one killed -9 mid-line: the other's next line went after the
    torn one, and the journal was a file no harvest could read again (a bad line in the middle)."""
    path = tmp_path / "harvest.jsonl"
    ResultsFile(path).append(record(0))
    with path.open("ab") as killed:  # what the killed writer left
        killed.write(json.dumps(record(1)).encode()[:100])
    ResultsFile(path).append(record(2))  # the other harvest, going on
    assert [r["seed"] for r in read_results(path)] == [0, 2]


def test_an_append_does_not_cut_a_line_another_process_is_writing(tmp_path: Path) -> None:
    """Two harvests appending to one journal: the second must not take the first's line, half
    written, for one whose writer died and cut it; the rest of it would land as a bad line."""
    path = tmp_path / "harvest.jsonl"
    ResultsFile(path).append(record(0))
    line = (json.dumps(record(1)) + "\n").encode()
    writer = os.open(path, os.O_WRONLY | os.O_APPEND)
    fcntl.flock(writer, fcntl.LOCK_EX)  # as ResultsFile holds it while it writes
    os.write(writer, line[:100])
    other = threading.Thread(target=ResultsFile(path).append, args=(record(2),))
    other.start()
    time.sleep(0.3)
    os.write(writer, line[100:])
    os.close(writer)
    other.join(timeout=10)
    assert [r["seed"] for r in read_results(path)] == [0, 1, 2]
