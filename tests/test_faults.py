"""Issue 34: runs keep their meaning under faults.

An endpoint outage is no result and ``--resume`` reruns what it touched; a bench stops early
on an endpoint that keeps failing; Ctrl-C ends a bench waiting on a hung endpoint within
seconds; kill -9 leaves no browser, driver or profile behind once the next bench starts;
an episode's identity does not depend on how the replay path is spelled; arguments are bounded.
All against real parts: a chat-completions server on loopback, headless Chromium, the CLI.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chat_server import ChatServer, free_port, reply, slow
from webwise import tables
from webwise.bench import read_results, record_key
from webwise.cli import main

WEBWISE = str(Path(sys.executable).parent / "webwise")
#: Reads the button's name from the task, as a real model's program would.
CLICK = "```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"


@pytest.fixture(autouse=True)
def fast_llm_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Two attempts a call, short waits: an outage shows in seconds, not minutes."""
    monkeypatch.setenv("WEBWISE_LLM_RETRIES", "1")
    monkeypatch.setenv("WEBWISE_LLM_BACKOFF", "0.01")
    monkeypatch.setenv("WEBWISE_LLM_TIMEOUT", "10")
    monkeypatch.delenv("WEBWISE_LLM_CACHE", raising=False)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


def openai_bench(out: Path, seeds: int) -> list[str]:
    return ["bench", "--tasks", "click-button", "--seeds", str(seeds), "--methods", "webwise", "--examples", "none",
            "--llm", "openai:test-model", "--max-steps", "1", "--out", str(out)]


def test_an_outage_is_no_result_stops_the_bench_and_resume_solves_what_it_touched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    out, port = tmp_path / "out", free_port()
    url = f"http://127.0.0.1:{port}/v1"
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    assert main(openai_bench(out, seeds=8)) == 1
    err = capsys.readouterr().err
    assert (f"bench: stopped early: 3 episodes in a row ended on an infrastructure failure, the last with: "
            f"openai:test-model: cannot connect to {url} after 2 attempts") in err
    records = read_results(out / "results.jsonl")
    assert len(records) == 3 and all(r["infra_error"] and not r["success"] for r in records)
    text = (out / "tables.md").read_text()
    assert "| all | - (0/0) | - | - | - | 0 | 0 | 3 |" in text  # no result, three infra failures

    with ChatServer(default=reply(CLICK), port=port) as server:  # the endpoint is back, where it was
        assert main([*openai_bench(out, seeds=8), "--resume"]) == 0
    assert "8 to run (3 of them after an infrastructure failure)" in capsys.readouterr().err
    assert len(server.requests) == 8
    records = read_results(out / "results.jsonl")
    assert sorted(r["seed"] for r in records) == list(range(8))  # each episode once
    assert all(r["success"] and r["infra_error"] is None for r in records)
    assert "| all | 1.00 (8/8) | 1.00 | 1.00 |" in (out / "tables.md").read_text()


def test_tables_keep_infrastructure_failures_out_of_every_rate() -> None:
    base = {"task": "click-button", "seed": 0, "method": "webwise", "examples": "none", "llm": "m", "steps": 1,
            "llm_calls": 1, "prompt_tokens": 100, "completion_tokens": 10}
    records = [{**base, "success": True}, {**base, "seed": 1, "success": False, "error": "no program"},
               {**base, "seed": 2, "success": False, "steps": 0, "llm_calls": 0, "error": "down",
                "infra_error": "down"}]
    computed = tables.compute(records)
    everything = computed.groups[tables.ColumnSet("m", "webwise", "none")][-1]
    assert (everything.success_text, everything.errors, everything.infra, everything.steps) == ("0.50 (1/2)", 1, 1, 1.0)
    assert "| all | 0.50 (1/2) | 1.00 | 1.00 | 110 (100+10) | 0 | 1 | 1 |" in tables.markdown(computed)
    assert ",errors,paper_gpt35,infra_failures," in tables.to_csv(computed).splitlines()[0]


def test_ctrl_c_ends_a_bench_waiting_on_a_hung_endpoint_within_seconds(tmp_path: Path) -> None:
    with ChatServer(default=slow(3600)) as server:
        env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "WEBWISE_LLM_TIMEOUT": "3600"}
        process = subprocess.Popen([WEBWISE, *openai_bench(tmp_path / "out", seeds=4)], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 60
            while not server.requests and time.monotonic() < deadline:
                time.sleep(0.05)
            assert server.requests, "the bench never called the endpoint"
            time.sleep(0.5)
            process.send_signal(signal.SIGINT)
            interrupted = time.monotonic()
            err = process.communicate(timeout=60)[1]
            took = time.monotonic() - interrupted
        finally:
            process.kill()
    assert process.returncode == 130 and "interrupted; 0 episodes kept" in err
    assert took < 5, f"the bench took {took:.1f} s to stop"


@pytest.mark.model
def test_ctrl_c_ends_a_bench_in_a_long_local_generation(tmp_path: Path) -> None:
    """Issue 34: the 1.5B on an email task computed on for minutes after Ctrl-C, until kill -9; the
    0.5B (the model CI assembles) on the same task is in its call as long."""
    process = subprocess.Popen([WEBWISE, "bench", "--tasks", "email-inbox", "--examples", "none", "--llm", "local:0.5b",
                                "--out", str(tmp_path / "out")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    try:
        assert process.stderr is not None
        for line in process.stderr:  # the plan line comes once the model is loaded
            if line.startswith("bench:"):
                break
        time.sleep(10)  # the browser starts, the first call is in its long prefill or generation
        process.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        process.wait(timeout=60)
        took = time.monotonic() - interrupted
    finally:
        process.kill()
    assert process.returncode == 130 and took < 10, f"the bench took {took:.1f} s to stop"


def _alive(pid: int) -> bool:
    """A process that runs (a zombie, killed and not yet reaped by its new parent, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _cmdline(pid: int) -> list[bytes]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return []


def _descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, frontier = set(), [root]
    while frontier:
        for child in children.get(frontier.pop(), []):
            found.add(child)
            frontier.append(child)
    return found


def test_what_a_killed_bench_left_is_gone_once_the_next_bench_starts(tmp_path: Path) -> None:
    replay = tmp_path / "replies.json"
    replay.write_text(json.dumps({"*": [CLICK]}))
    out = tmp_path / "out"
    args = ["bench", "--tasks", "click-button", "--seeds", "40", "--examples", "none", "--llm", f"replay:{replay}",
            "--out", str(out)]
    process = subprocess.Popen([WEBWISE, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while not (out / "results.jsonl").exists() or not read_results(out / "results.jsonl"):
            assert time.monotonic() < deadline, "the bench recorded nothing"
            time.sleep(0.05)
        left = _descendants(process.pid)
        profiles = {Path(arg.split(b"=", 1)[1].decode()) for pid in left for arg in _cmdline(pid)
                    if arg.startswith(b"--user-data-dir=")}
    finally:
        process.kill()  # kill -9 of the bench alone, as the OOM killer or a lost session would
        process.wait()
    time.sleep(0.5)
    assert any(_alive(pid) for pid in left) and profiles  # chromedriver and Chromium outlive their bench
    subprocess.run([WEBWISE, *args, "--resume"], check=True, capture_output=True, timeout=240)
    assert not [pid for pid in left if _alive(pid)]
    assert not [p for p in profiles if p.exists()]
    assert len({record_key(r) for r in read_results(out / "results.jsonl")}) == 40


def test_an_episode_is_the_same_however_the_replay_path_is_spelled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "replies.json").write_text(json.dumps({"*": [CLICK]}))
    monkeypatch.chdir(tmp_path / "sub")
    args = ["bench", "--tasks", "click-button", "--examples", "none", "--out", str(tmp_path / "out")]
    assert main([*args, "--llm", "replay:../replies.json"]) == 0
    assert main([*args, "--llm", f"replay:{tmp_path}/sub/../replies.json", "--resume"]) == 0
    assert "1 already in" in capsys.readouterr().err
    records = read_results(tmp_path / "out" / "results.jsonl")
    assert [r["llm"] for r in records] == [f"replay:{tmp_path / 'replies.json'}"]
    assert (tmp_path / "out" / "tables.md").read_text().count("| all |") == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["bench", "--tasks", "click-button", "--seeds", "1000000000"],
     "1000000000 episodes planned; a bench runs at most 1000000: pass fewer --seeds or tasks"),
    (["bench", "--tasks", "click-button", "--seed-start", str(2**53)],
     f"seed {2**53} is out of range: seeds run from 0 to {2**53 - 1}"),
    (["bench", "--tasks", "click-button", "--seed-start", str(2**53 - 2), "--seeds", "3"],
     f"--seed-start {2**53 - 2} with --seeds 3 goes past the largest seed, {2**53 - 1}"),
    (["solve", "--task", "click-button", "--seed", str(2**60), "--llm", "replay:/nonexistent.json"],
     f"seed {2**60} is out of range: seeds run from 0 to {2**53 - 1}"),
], ids=["plan", "seed-start", "seed-range", "solve-seed"])
def test_seeds_and_plans_are_bounded_with_one_line(argv: list[str], message: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    if argv[0] == "bench":
        argv = [*argv, "--llm", "replay:/nonexistent.json", "--out", str(tmp_path / "out")]
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(argv))
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1 and message in err, err


def test_chromium_that_will_not_start_is_one_line_without_the_driver_s_stack_trace(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """chromedriver says what is wrong over two lines (``session not created`` / ``from unknown
    error: no chrome binary at ...``): the error keeps both on one line, and no more."""
    from webwise import browser
    from webwise.errors import ConfigError

    def broken(profile_dir: str | None) -> object:
        options = browser.webdriver.ChromeOptions()
        options.binary_location = "/nonexistent/chromium"
        return options

    monkeypatch.setattr(browser, "chrome_options", broken)
    with pytest.raises(ConfigError) as raised:
        browser.launch().quit()
    message = str(raised.value)
    assert message.startswith("cannot start Chromium: session not created from unknown error: "
                              "no chrome binary at /nonexistent/chromium") and "\n" not in message
