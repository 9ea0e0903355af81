"""The bench: results appended once each, resume after kill -9, torn lines, tables, dead browsers."""

from __future__ import annotations

import base64
import csv
import importlib.util
import io
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import ModuleType

import pytest

from webwise import charts, tables
from webwise.bench import (MAX_RESULTS_BYTES, Bench, BenchConfig, Job, Progress, ResultsFile, Worker, read_results,
                           record_key, rewrite_results)
from webwise.cli import main
from webwise.dom import render
from webwise.environment import BrowserDied
from webwise.episode import Episode, Step
from webwise.errors import ConfigError
from webwise.llm.cache import CachedModel
from webwise.llm.replay import ReplayModel
from webwise.provenance import code_version, git_commit
from webwise.report import render as render_report
from webwise.session import Session

WEBWISE = str(Path(sys.executable).parent / "webwise")
ROOT = Path(__file__).resolve().parents[1]
#: Programs that read the task, as a real model's would; each solves its task in one step.
PROGRAMS = {
    "click-button": "Clicking the named button.\n```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```",
    "click-link": "```python\nimport re\nclick('span', re.search(r'\"(.*)\"', task).group(1))\n```",
}


@pytest.fixture()
def replay(tmp_path: Path) -> Path:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({task: [reply] for task, reply in PROGRAMS.items()}))
    return path


def benchmark(name: str) -> ModuleType:
    """A script of ``benchmarks/``, loaded as a module (the folder is no package)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bench_args(replay: Path, out: Path, seeds: int = 2, workers: int = 2) -> list[str]:
    return ["bench", "--tasks", "click-button,click-link", "--seeds", str(seeds), "--methods", "webwise,filtered-dom",
            "--examples", "none", "--llm", f"replay:{replay}", "--workers", str(workers), "--out", str(out)]


def keys(out: Path) -> list[tuple[object, ...]]:
    return [record_key(r) for r in read_results(out / "results.jsonl")]


def test_bench_records_every_episode_once_and_refuses_to_overwrite(
        replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "out"
    assert main(bench_args(replay, out)) == 0
    captured = capsys.readouterr()
    records = read_results(out / "results.jsonl")
    assert len(records) == 8 and len(set(keys(out))) == 8
    assert all(r["success"] and r["trace"][0]["program"] for r in records)
    assert {r["llm"] for r in records} == {f"replay:{replay}"}
    assert len([line for line in captured.err.splitlines() if line.startswith("bench 8/8")]) == 1  # a line per episode
    assert "| click-button | 1 | 1.00 (2/2) |" in captured.out
    assert (out / "tables.md").read_text() in captured.out and (out / "tables.csv").is_file()
    assert all((out / "screenshots" / r["trace"][0]["screenshot"]).is_file() for r in records)

    assert main(bench_args(replay, out)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "already holds 8 episodes: pass --resume" in err
    assert main([*bench_args(replay, out, seeds=3), "--resume"]) == 0  # only the new seed runs
    assert len(keys(out)) == 12 and len(set(keys(out))) == 12
    assert "warning" not in capsys.readouterr().err

    copied = tmp_path / "copied"  # another run's results file, brought here: a refusal leaves it alone
    copied.mkdir()
    (copied / "results.jsonl").write_bytes((out / "results.jsonl").read_bytes())
    assert main(bench_args(replay, copied)) == 2
    assert [path.name for path in copied.iterdir()] == ["results.jsonl"]


def test_resuming_with_other_step_or_token_limits_says_so(
        replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--max-steps and --max-tokens are not part of an episode's key: a resume with others added
    to the same column sets without a word."""
    out = tmp_path / "out"
    assert main([*bench_args(replay, out, seeds=1), "--max-steps", "3"]) == 0
    records = read_results(out / "results.jsonl")
    assert {(r["max_steps"], r["max_tokens"]) for r in records} == {(3, 400)}
    capsys.readouterr()
    assert main([*bench_args(replay, out, seeds=2), "--max-steps", "2", "--max-tokens", "300", "--resume"]) == 0
    assert ("bench: warning: episodes already there ran with other settings (--max-steps 3 4, --max-tokens 400 4), "
            "not --max-steps 2, --max-tokens 300; the tables will mix them") in capsys.readouterr().err


def test_resuming_over_episodes_of_other_code_says_so_and_the_tables_count_both(
        replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A table measured across a code change must not pass for one measured at a single commit."""
    out = tmp_path / "out"
    assert main(bench_args(replay, out, seeds=1)) == 0
    records = read_results(out / "results.jsonl")
    assert {r["code"] for r in records} == {code_version()}
    records[0].update(code="0.1.0+src.000000000000\x1b[2J", commit="0123456789ab")  # a file handed over
    del records[1]["code"], records[1]["commit"]  # a line written before episodes recorded their code
    (out / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    capsys.readouterr()
    assert main([*bench_args(replay, out, seeds=2), "--resume"]) == 0
    err = capsys.readouterr().err
    assert (f"bench: warning: 2 episodes already there ran on other code (0.1.0+src.000000000000\\x1b[2J 1, "
            f"unrecorded 1), not {code_version()}; the tables will mix them") in err and "\x1b" not in err
    assert (f"Episodes by code version: 0.1.0+src.000000000000\\x1b[2J at 0123456789ab 1, {code_version()} at {git_commit()} 6, "
            "unrecorded 1" in (out / "tables.md").read_text())


def test_bad_bench_input_is_one_line_and_exit_2(replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = str(tmp_path / "o")
    for argv, message in [
        (["bench", "--tasks", "nope", "--out", out], "unknown task 'nope'"),
        (["bench", "--tasks", "click-button", "--methods", "webwise,magic", "--out", out], "argument --methods"),
        (["bench", "--tasks", "click-button", "--examples", "", "--out", out], "argument --examples"),
        (["bench", "--tasks", "click-button", "--workers", "0", "--out", out],
         "workers must be a whole number >= 1, not 0"),
        (["bench", "--tasks", "click-button", "--llm", "replay:/no/such.json", "--out", out], "replay file not found"),
        (["bench", "--tasks", "click-button"], "required: --out"),
        (["report", str(tmp_path / "empty")], "results.jsonl not found"),
        ([*bench_args(replay, tmp_path / "g"), "--remote", "http://127.0.0.1:9"], "cannot reach the Grid at"),
    ]:
        with pytest.raises(SystemExit) as info:
            raise SystemExit(main(argv))
        err = capsys.readouterr().err
        assert info.value.code == 2 and err.count("\n") == 1 and message in err, (argv, err)


def test_resume_after_kill_9_runs_only_what_is_missing(replay: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    args = bench_args(replay, out, seeds=4, workers=1)
    process = subprocess.Popen([WEBWISE, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(keys(out)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the bench and its browser, as a kill -9 of the session would
        process.wait()
    killed_at = len(keys(out))
    assert 3 <= killed_at < 16
    with (out / "results.jsonl").open("ab") as handle:  # what a kill in the middle of a write leaves
        handle.write(b'{"task": "click-button", "seed": 3, "meth')
    subprocess.run([WEBWISE, *args, "--resume"], check=True, capture_output=True, timeout=120)
    assert len(keys(out)) == 16 and len(set(keys(out))) == 16
    assert all(r["success"] for r in read_results(out / "results.jsonl"))


def test_a_results_file_replaced_under_a_running_bench_gets_the_next_lines(tmp_path: Path) -> None:
    """``git stash`` and ``git stash pop`` in the repository put a new file at the path; a bench
    holding the old file's descriptor wrote its later episodes into the deleted one."""
    path = tmp_path / "results.jsonl"
    results = ResultsFile(path)
    first, second = record("click-button", True), record("enter-text", False)
    results.append(first)
    copy = tmp_path / "restored"
    copy.write_bytes(path.read_bytes())
    os.replace(copy, path)  # what a checkout or a restore does: the same lines, another file
    results.append(second)
    assert read_results(path) == [first, second]


def test_a_whole_last_record_without_its_newline_counts_and_is_kept(tmp_path: Path) -> None:
    """A file an editor or printf saved without its last newline: its last episode was taken for
    a torn line, left out of the report and cut off by the next append."""
    path = tmp_path / "results.jsonl"
    first, last = ({"task": "click-button", "seed": seed, "method": "webwise", "examples": "none", "llm": "x"}
                   for seed in (0, 1))
    path.write_text(json.dumps(first) + "\n" + json.dumps(last))
    assert read_results(path) == [first, last]
    ResultsFile(path).append(first)
    assert read_results(path) == [first, last, first]


@pytest.mark.parametrize("levels", [65, 500])
def test_a_record_nested_past_what_a_bench_writes_is_refused_in_one_line(tmp_path: Path, levels: int) -> None:
    """One nested about 985 deep loaded, and the report or the resume that wrote it out again,
    from a deeper stack, ended in a RecursionError's traceback."""
    path = tmp_path / "results.jsonl"
    record = json.dumps({"task": "click-button", "seed": 0, "method": "webwise", "examples": "none", "llm": "x"})

    def nested(depth: int) -> str:  # the record is a level, its field's list the next, and so on
        return record[:-1] + ', "output": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}\n"

    path.write_text(nested(levels))
    with pytest.raises(ConfigError, match=r"^\S+: line 1 is not an episode record \(nested deeper than 64 levels\)$"):
        read_results(path)
    path.write_text(nested(64))
    assert len(read_results(path)) == 1


def test_a_results_file_larger_than_a_bench_writes_is_refused_unread(tmp_path: Path) -> None:
    """A sparse 2 GiB file was read whole (2 GB of memory), then taken as an empty results file."""
    path = tmp_path / "results.jsonl"
    with path.open("wb") as sparse:
        sparse.truncate(MAX_RESULTS_BYTES + 1)
    with pytest.raises(ConfigError, match=r"^\S+ holds more than 1024 MiB: not a file of episodes a bench wrote"):
        read_results(path)


def test_a_torn_last_line_is_ignored_and_cut_by_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    good = json.dumps({"task": "click-button", "seed": 0, "method": "webwise", "examples": "none", "llm": "x"})
    path.write_text(good + "\n" + good[:20])
    assert len(read_results(path)) == 1 and path.read_text().endswith(good[:20])  # reading leaves it
    ResultsFile(path).append(json.loads(good))
    assert path.read_text() == good + "\n" + good + "\n"
    path.write_text("garbage\n" + good + "\n")
    with pytest.raises(Exception, match="line 1 is not an episode record"):
        read_results(path)


def test_a_progress_line_shows_a_program_s_escapes_and_line_breaks_and_obeys_none() -> None:
    """A harvest's verdict carries the check's refusal, a program's exception text: written raw
    when stderr was no terminal (a log, a pipe), its escape sequences reached the terminal."""
    stream = io.StringIO()
    Progress(stream, 1, 0, "harvest").update({
        "task": "click-button", "seed": 0, "method": "webwise", "examples": "none", "success": True, "error": None,
        "verdict": "solved; refused by the check: seed 1: Exception: \x1b]0;owned\x07\nALL KEPT"})
    line = stream.getvalue()
    assert line.endswith(": solved; refused by the check: seed 1: Exception: \\x1b]0;owned\\x07\\nALL KEPT\n")
    assert "\x1b" not in line and line.count("\n") == 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_on_a_terminal_is_one_rewritten_line_with_an_eta() -> None:
    terminal = _Terminal()
    progress = Progress(terminal, total=4, already=2)
    progress.update({"success": True, "error": None, "task": "t", "seed": 0, "method": "m", "examples": "e"})
    progress.finish()
    text = terminal.getvalue()
    assert text.startswith("\r[##################......] 3/4 solved 1/1 ") and "ETA 0m" in text
    assert text.endswith("\n") and text.count("\n") == 1


def test_progress_shows_a_slow_runs_rate_to_two_places() -> None:
    """A whole-suite run of the 1.5B goes at a few tenths of an episode a minute."""
    lines = io.StringIO()
    progress = Progress(lines, total=400, already=0)
    progress.started -= 400  # 6 minutes 40 seconds for one episode: 0.15 a minute
    progress.update({"success": False, "error": None, "task": "t", "seed": 0, "method": "m", "examples": "e"})
    assert " 0.15 ep/min ETA 44h" in lines.getvalue()


def record(task: str, success: bool, steps: int = 1, overflows: int = 0, method: str = "webwise",
           examples: str = "manual", error: str | None = None) -> dict[str, object]:
    return {"task": task, "seed": 0, "method": method, "examples": examples, "llm": "m", "success": success,
            "steps": steps, "llm_calls": steps, "prompt_tokens": 100 * steps, "completion_tokens": 10 * steps,
            "context_overflows": overflows, "error": error}


def test_tables_from_known_records() -> None:
    records = [record("click-button", True), record("click-button", True), record("click-button", False, steps=4),
               record("enter-time", False, steps=2, overflows=1, error="too long"),
               record("click-button", True, method="filtered-dom", examples="none")]
    computed = tables.compute(records)
    webwise = tables.ColumnSet("m", "webwise", "manual")
    task_rows = {r.name: r for r in computed.tasks[webwise]}
    button = task_rows["click-button"]
    assert button.success_text == "0.67 (2/3)" and button.steps == 2.0 and button.llm_calls == 2.0
    assert button.prompt_tokens == 200 and button.completion_tokens == 20
    groups = {r.name: r for r in computed.groups[webwise]}
    assert groups["1"].paper == 0.97 and groups["2"].paper == 0.93
    assert groups["2"].success_text == "0.00 (0/1)" and groups["2"].context_overflows == 1 and groups["2"].errors == 1
    assert groups["all"].success_text == "0.50 (2/4)" and groups["all"].paper is None
    filtered = computed.groups[tables.ColumnSet("m", "filtered-dom", "none")]
    assert [(r.name, r.success_text, r.paper) for r in filtered] == [("1", "1.00 (1/1)", 0.86), ("all", "1.00 (1/1)", None)]
    text = tables.markdown(computed)
    assert "| 1 | 0.67 (2/3) | 2.00 | 2.00 | 220 (200+20) | 0 | 0 | 0 | 0.97 |" in text
    rows = tables.to_csv(computed).splitlines()
    assert rows[0].split(",") == list(tables.CSV_FIELDS)
    assert "task,click-button,1,m,webwise,manual,1,3,2,2,0.6667,2.0000,2.0000,200.00,20.00,0,0,,0,2,2,1" in rows
    assert "### Beside AgentLab" not in text  # the paper's tasks alone are no whole-suite run
    assert "whole suite" not in text and "paper48" not in text and not computed.suite


def test_a_whole_suite_table_groups_every_task_by_the_papers_rule_and_totals_the_48() -> None:
    """Outside the 48 the paper has no groups: a whole-suite run lumped 82 tasks into ``other``
    and left the 48's own total to be added by hand. The catalog's groups (``webwise tasks``)
    give every task one, and the tasks no reference program solves are a row of their own."""
    records = [record("click-button", True), record("enter-time", False), record("buy-ticket", True),
               record("ascending-numbers", True), record("bisect-angle", False)]
    computed = tables.compute(records)
    column = tables.ColumnSet("m", "webwise", "manual")
    assert [(r.name, r.success_text) for r in computed.groups[column]] == [
        ("1", "1.00 (1/1)"), ("2", "0.00 (0/1)"), ("paper48", "0.50 (1/2)"), ("other", "0.67 (2/3)"),
        ("all", "0.60 (3/5)")]
    assert [(r.name, r.success_text) for r in computed.suite[column]] == [
        ("1", "1.00 (2/2)"), ("2", "0.00 (0/1)"), ("3-6", "1.00 (1/1)"), ("no reference", "0.00 (0/1)"),
        ("all", "0.60 (3/5)")]
    assert {r.name: r.group for r in computed.tasks[column]} == {
        "click-button": "1", "enter-time": "2", "ascending-numbers": "other, 3-6", "buy-ticket": "other, 1",
        "bisect-angle": "other, no reference"}
    text = tables.markdown(computed)
    suite = text[text.index("### By group, whole suite"):text.index("### Beside AgentLab")]
    assert "| no reference | 0.00 (0/1) | 1.00 | 1.00 | 110 (100+10) | 0 | 0 | 0 |\n" in suite
    assert "suite_group,3-6,3-6,m,webwise,manual,1,1,1,1,1.0000" in tables.to_csv(computed)
    legend = charts.task_chart(computed.tasks[column], "m")  # the rest keep the colour of `other`
    assert ">group other<" in legend and ">group 1<" in legend


def test_a_run_beyond_the_papers_tasks_stands_beside_agentlab_counted_both_ways() -> None:
    """AgentLab counts a partial reward (raw reward above 0) as a success; the table shows this
    run by that rule and by its own (full reward), at trial 1 and by the last trial."""
    def episode(task: str, seed: int, trial_rewards: list[float]) -> dict[str, object]:
        trials = [{"trial": i, "success": r >= 1, "raw_reward": r} for i, r in enumerate(trial_rewards)]
        return {"task": task, "seed": seed, "method": "webwise", "examples": "none", "llm": "m",
                "success": trial_rewards[-1] >= 1, "success_first_trial": trial_rewards[0] >= 1,
                "raw_reward": trial_rewards[-1], "max_trials": 2, "trials": trials, "steps": 1, "llm_calls": 1,
                "prompt_tokens": 10, "completion_tokens": 1}

    records = [episode("bisect-angle", 0, [0.9998, 0.9998]),  # partial: theirs, not ours
               episode("bisect-angle", 1, [-1.0, 0.9997]),  # partial only at trial 2
               episode("click-button", 0, [-1.0, 1.0]),  # solved at trial 2
               episode("click-button", 1, [1.0]),
               episode("button-delay", 0, [1.0])]  # added to the suite after AgentLab's list: not compared
    text = tables.markdown(tables.compute(records))
    section = text[text.index("### Beside AgentLab"):text.index("### By task")]
    assert "| this run, trial 1 | 2 | 4 | 0.25 (1/4) | 0.50 (2/4) |" in section
    assert "| this run, by trial 2 | 2 | 4 | 0.50 (2/4) | 1.00 (4/4) |" in section
    assert "| AgentLab GenericAgent, GPT-4o | 125 | 625 |  | 0.638 |" in section


def test_auto_episodes_and_the_zero_shot_ones_of_the_other_tasks_make_the_self_taught_column() -> None:
    """A harvest from a zero-shot run gives some tasks an example; ``auto`` runs again only on
    those (the others' prompts would not change). The run's self-taught number takes each task's
    ``auto`` episodes where it has them, else its ``none`` ones, and stands beside the paper's ACG."""
    zero_shot = [record("click-button", False, examples="none"), record("click-dialog", True, examples="none"),
                 record("enter-time", False, examples="none"), record("use-slider", False, examples="none")]
    taught = [record("click-button", True, examples="auto"), record("click-dialog", True, examples="auto")]
    other_model = [{**record("enter-time", True, examples="none"), "llm": "other"}]
    computed = tables.compute(zero_shot + taught + other_model)
    combined = tables.ColumnSet("m", "webwise", tables.SELF_TAUGHT)
    assert list(computed.groups) == [tables.ColumnSet("m", "webwise", "auto"), combined,
                                     tables.ColumnSet("m", "webwise", "none"),
                                     tables.ColumnSet("other", "webwise", "none")]
    assert {r.name: r.success_text for r in computed.tasks[combined]} == {
        "click-button": "1.00 (1/1)", "click-dialog": "1.00 (1/1)", "enter-time": "0.00 (0/1)",
        "use-slider": "0.00 (0/1)"}
    groups = {r.name: (r.success_text, r.paper) for r in computed.groups[combined]}
    assert groups["1"] == ("1.00 (2/2)", 0.86) and groups["all"] == ("0.50 (2/4)", None)
    text = tables.markdown(computed)
    section = text[text.index("## webwise / auto+none"):text.index("## webwise / none")]
    assert tables.SELF_TAUGHT_NOTE in section
    assert "group,all,all,m,webwise,auto+none,1,4,2,2,0.5000" in tables.to_csv(computed)
    # Without tasks left to the zero-shot run, the auto column set says it all: no copy of it.
    assert tables.SELF_TAUGHT not in {c.examples for c in tables.compute(taught + zero_shot[:2]).groups}


def _chromium_pids(ancestor: int) -> set[int]:
    """Chromium main processes started (through chromedriver) by this test process."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmd = (entry / "cmdline").read_bytes().split(b"\0")[0]
            except OSError:
                continue
            parents[int(entry.name)] = (int(stat.rsplit(")", 1)[1].split()[1]), cmd)
    result = set()
    for pid, (ppid, cmd) in parents.items():
        if cmd.endswith(b"chromium") and ppid in parents and parents[ppid][0] == ancestor:
            result.add(pid)
    return result


def test_a_killed_browser_is_replaced_and_its_episode_retried(replay: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    config = BenchConfig(tasks=["click-button"], seeds=range(8), methods=["webwise"], examples=["none"],
                         llm=f"replay:{replay}", out=out, workers=1, progress=open(os.devnull, "w"))
    killed: list[int] = []

    def kill_the_browser_once() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(keys(out)) < 2:
            time.sleep(0.01)
        pids = _chromium_pids(os.getpid())
        for pid in pids:
            os.kill(pid, signal.SIGKILL)
        killed.extend(pids)

    killer = threading.Thread(target=kill_the_browser_once)
    killer.start()
    try:
        assert Bench(config).run() == 0
    finally:
        killer.join()
        config.progress.close()
    assert len(killed) == 1
    records = read_results(out / "results.jsonl")
    assert sorted(r["seed"] for r in records) == list(range(8))
    assert all(r["success"] for r in records), [r["error"] for r in records]
    assert not _chromium_pids(os.getpid())  # the replacement was quit at the end too


class _DyingSession:
    """A session whose browser dies on every attempt, after a partial episode."""

    def __init__(self) -> None:
        self.calls = 0

    def run(self, task: str, seed: int, method: str, examples: str) -> Episode:
        self.calls += 1
        died = BrowserDied("browser died: chrome not reachable")
        died.episode = Episode(task, seed, method, examples, "m", error=str(died))  # type: ignore[attr-defined]
        raise died


def test_an_episode_whose_browser_dies_twice_is_recorded_with_its_error(replay: Path, tmp_path: Path) -> None:
    config = BenchConfig(tasks=["click-button"], seeds=[0], methods=["webwise"], examples=["none"],
                         llm=f"replay:{replay}", out=tmp_path)
    worker = Worker(0, Bench(config), llm=None)  # type: ignore[arg-type]
    worker.session = _DyingSession()
    result = worker._episode(Job("click-button", 0, "webwise", "none"))
    assert worker.session.calls == 2
    assert result is not None and result["error"] == "browser died: chrome not reachable" and not result["success"]
    assert result["infra_error"] == "browser died: chrome not reachable"  # no result: --resume runs it again


def test_an_infrastructure_record_from_a_webdriver_error_has_the_planned_key(replay: Path, tmp_path: Path) -> None:
    """Its key must be the planned one (trials, guards), or --resume would neither see nor replace it."""
    from selenium.common.exceptions import WebDriverException

    class Failing:
        def run(self, task: str, seed: int, method: str, examples: str) -> Episode:
            raise WebDriverException("session deleted")

    config = BenchConfig(tasks=["click-button"], seeds=[0], methods=["webwise"], examples=["none"],
                         llm=f"replay:{replay}", out=tmp_path, trials=3, guards=False)
    worker = Worker(0, Bench(config), llm=ReplayModel({}, "m"))
    worker.session = Failing()
    result = worker._episode(Job("click-button", 0, "webwise", "none"))
    assert result is not None and "session deleted" in result["infra_error"]
    assert record_key(result) == Job("click-button", 0, "webwise", "none").key("m", 3, False)


def test_a_browser_dying_in_another_episode_of_the_job_records_the_job_s_own(replay: Path, tmp_path: Path) -> None:
    """A harvest's job also runs check episodes on seeds from 100000: a browser dying in one of
    them must not journal the job under that seed, which no resume would ever look for."""
    config = BenchConfig(tasks=["click-button"], seeds=[0], methods=["webwise"], examples=["none"],
                         llm=f"replay:{replay}", out=tmp_path)
    died = BrowserDied("browser died: chrome not reachable")
    died.episode = Episode("click-button", 100000, "webwise", "none", "replay:harvest-check")  # type: ignore[attr-defined]
    result = Bench(config).fault_record(Job("click-button", 0, "webwise", "none"), died, ReplayModel({}, "m"))
    assert record_key(result) == Job("click-button", 0, "webwise", "none").key("m", 1, True)
    assert result["infra_error"] == "browser died: chrome not reachable"


def test_tables_show_success_at_trial_1_beside_trial_t() -> None:
    from webwise import tables

    records = [{"task": "click-button", "seed": s, "method": "webwise", "examples": "none", "llm": "m",
                "success": ok, "success_first_trial": first, "max_trials": 3, "steps": 1, "llm_calls": 1,
                "prompt_tokens": 10, "completion_tokens": 1} for s, (first, ok) in enumerate([(True, True),
                                                                                           (False, True),
                                                                                           (False, False)])]
    text = tables.markdown(tables.compute(records))
    assert "## webwise / none, T=3" in text
    assert "| group | success at trial 1 | success by trial 3 |" in text
    assert "| 1 | 0.33 (1/3) | 0.67 (2/3) |" in text


def test_a_cache_warmed_from_a_run_answers_its_first_trial_without_the_model(replay: Path, tmp_path: Path) -> None:
    """benchmarks/warm_cache.py: a rerun shares the recorded trial-1 replies instead of asking again."""
    out, cache = tmp_path / "out", tmp_path / "cache"
    assert main(bench_args(replay, out, seeds=1)) == 0
    warm_cache = benchmark("warm_cache")
    assert warm_cache.warm(out, cache) == 4  # two tasks, two methods, one seed: one call each
    replay.write_text(json.dumps({}))  # the model has nothing left to say
    with Session(CachedModel(ReplayModel.from_file(replay), cache)) as session:
        episode = session.run("click-link", 0, "webwise", "none")
    recorded = next(r for r in read_results(out / "results.jsonl")
                    if r["task"] == "click-link" and r["method"] == "webwise")
    assert episode.success and episode.error is None
    assert episode.trace[0].program == recorded["trace"][0]["program"]


def test_reflection_gain_reports_success_by_each_trial() -> None:
    """A T=5 run holds its T=3 numbers: success by trial t counts the first t trials only."""
    reflection_gain = benchmark("reflection_gain")
    won_at = [1, 2, 4, None]  # the trial that won each episode, or none
    records = [{"trials": [{"success": number == won} for number in range(1, (won or 5) + 1)]} for won in won_at]
    assert reflection_gain.by_trial(records, 5) == ("T=1: 0.25 (1/4), T=2: 0.50 (2/4), T=3: 0.50 (2/4), "
                                                   "T=4: 0.75 (3/4), T=5: 0.75 (3/4)")


def test_sigterm_stops_the_bench_like_ctrl_c_and_leaves_no_browser(replay: Path, tmp_path: Path) -> None:
    """A scheduler's kill gets the finished episodes' tables and no browser left running."""
    out = tmp_path / "out"
    args = bench_args(replay, out, seeds=40, workers=1)
    process = subprocess.Popen([WEBWISE, *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(keys(out)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        children = subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True, text=True).stdout.split()
        process.terminate()
        err = process.communicate(timeout=30)[1]
    finally:
        process.kill()
    assert process.returncode == 130 and "interrupted;" in err and "--resume runs the rest" in err
    assert (out / "tables.md").exists() and 3 <= len(keys(out)) < 160
    assert children and not [pid for pid in children if Path(f"/proc/{pid}").exists()]


def test_episodes_with_and_without_guards_are_kept_apart() -> None:
    """A run without guards is another episode and another column; old records ran with them."""
    old = {"task": "click-button", "seed": 0, "method": "webwise", "examples": "none", "llm": "m",
           "success": True, "steps": 1}
    literal = {**old, "guards": False, "success": False}
    assert record_key(old) == record_key({**old, "guards": True}) != record_key(literal)
    assert Job("click-button", 0, "webwise", "none").key("m", 1, True) == record_key(old)
    computed = tables.compute([old, literal])
    assert [column.label(False) for column in computed.groups] == ["webwise / none", "webwise / none, no guards"]
    rows = list(csv.DictReader(io.StringIO(tables.to_csv(computed))))
    assert {(row["guards"], row["successes"]) for row in rows if row["level"] == "task"} == {("1", "1"), ("0", "0")}


def test_foreign_text_finds_a_reply_that_goes_on_with_another_tasks_reply() -> None:
    """benchmarks/foreign_text.py: the serving mix it was written for is found; a literal the
    call's own prompt shows, or one no other task wrote, is not."""
    foreign_text = benchmark("foreign_text")
    menu = "```python\nclick('button', 'Playback')  # open the submenu\nclick('button', 'Stop')\n```"
    mixed = "```python\nclick('input_radio', 'yS82i')\nclick('button', 'Playback')  # open the submenu\n```"
    own = "```python\nclick('input_radio', 'yS82i')\nclick('button', 'Submit')\n```"
    run = [("click-menu-2", 2, "step", "Task: click Stop\n[5] button 'Playback'\n[6] button 'Stop'", menu),
           ("click-option", 2, "step", "Task: select yS82i\n[3] input_radio #yS82i\n[4] button 'Submit'", mixed),
           ("click-option", 1, "step", "Task: select yS82i\n[3] input_radio #yS82i\n[4] button 'Submit'", own)]
    hits = foreign_text.foreign(run)
    assert [(call[0], call[1], literal) for call, literal in hits] == [("click-option", 2, "'Playback'")]


def test_prompt_replay_asks_again_only_what_the_model_answered_in_a_first_trial(tmp_path: Path) -> None:
    """benchmarks/prompt_replay.py: replayed steps, repeats and later trials are not model calls
    of the kind compared; the rates are summed counts over summed times, not a mean of ratios."""
    prompt_replay = benchmark("prompt_replay")

    def step(n: int, **fields: object) -> dict:
        return {"prompt": [{"role": "user", "content": f"p{n}"}], "reply": f"r{n}", "source": "model",
                "repeats": False, "trial": 0, **fields}

    trace = [step(0), step(1, source="replay"), step(2, repeats=True), step(3, trial=1), step(4, reply=None),
             step(5), step(6), step(7)]
    record = {"task": "click-button", "seed": 0, "method": "webwise", "examples": "none", "llm": "m",
              "success": False, "steps": 8, "trace": trace}
    (tmp_path / "results.jsonl").write_text(json.dumps(record) + "\n")
    asked = [messages[0]["content"] for _, messages in prompt_replay.recorded_prompts(tmp_path, 2)]
    assert asked == ["p0", "p6"]  # of p0, p5, p6, p7: every second
    rows = [{"computed": 100, "prompt_ms": 1000.0, "generated": 10, "generate_ms": 1000.0, "wall_s": 2.0},
            {"computed": 300, "prompt_ms": 1000.0, "generated": 30, "generate_ms": 500.0, "wall_s": 1.5}]
    total = prompt_replay.totals(rows)
    assert (total["prompt_tok_s"], total["gen_tok_s"], total["wall_s"]) == (200.0, 40.0 / 1.5, 3.5)


def test_page_parts_counts_a_cell_that_only_holds_its_link_as_a_wrapper() -> None:
    """benchmarks/page_parts.py: the shares it prints are what a leaner page could save, so a
    line that carries anything of its own (text, a field, a box beside the next) is no wrapper."""
    page_parts = benchmark("page_parts")

    def line(ref: int, tag: str, box: tuple[int, int, int, int], **own: object) -> dict:
        left, top, width, height = box
        return {"ref": ref, "tag": tag, "text": "", "id": "", "classes": "", "value": "", "left": left,
                "top": top, "width": width, "height": height, "color": "", "points": [], **own}

    page = [line(1, "td", (0, 0, 20, 20), classes="ui-datepicker-week-end"),
            line(2, "a", (2, 2, 16, 16), text="23", classes="ui-state-default"),
            line(3, "td", (20, 0, 20, 20), text="24"),
            line(4, "span", (40, 0, 20, 20)), line(5, "input_text", (70, 0, 60, 20)),
            line(6, "input_text", (70, 0, 60, 20), id="date"), line(7, "td", (0, 30, 20, 20))]
    assert [page_parts.is_wrapper(page, i) for i in range(len(page))] == [True, False, False, False, False,
                                                                           False, False]
    whole, wrappers, classes = page_parts.parts(page)
    assert wrappers == len("[1] td .ui-datepicker-week-end\n") and classes == len(" .ui-state-default")
    assert whole == len(render(page))


def test_links_planted_in_a_handed_over_folder_are_neither_written_through_nor_shown(
        replay: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A bench's folder is handed around. Links planted under the names the bench writes
    (a temporary file's, the lock's) or among its screenshots must not make a report or a bench
    write another file of the user's, or put one into the report people share."""
    out, victim, secret = tmp_path / "out", tmp_path / "victim", tmp_path / "secret"
    (out / "screenshots").mkdir(parents=True)
    victim.write_text("keep\n")
    secret.write_bytes(b"\x89PNG\r\n\x1a\n the secret")
    episode = Episode("click-button", 0, "webwise", "none", "m")
    episode.trace.append(Step(index=0, trial=0, prompt=[], program="click('button', 'x')", screenshot="x.png"))
    (out / "results.jsonl").write_text(json.dumps(episode.to_dict()) + "\n")
    (out / "screenshots" / "x.png").symlink_to(secret)
    for name in ("tables.md.partial", "tables.csv.partial", "report.html.partial", ".bench.lock"):
        (out / name).symlink_to(victim)

    assert main(["report", str(out)]) == 0
    assert base64.b64encode(secret.read_bytes()).decode() not in (out / "report.html").read_text()
    pictures = tmp_path / "pictures"  # the user's own PNGs, the screenshots folder a link to them
    pictures.mkdir()
    (pictures / "x.png").write_bytes(secret.read_bytes())
    (out / "screenshots" / "x.png").unlink()
    (out / "screenshots").rmdir()
    (out / "screenshots").symlink_to(pictures)
    assert main(["report", str(out)]) == 0
    assert base64.b64encode(secret.read_bytes()).decode() not in (out / "report.html").read_text()
    with pytest.raises(SystemExit) as info:  # a bench wrote its screenshots into the user's pictures
        raise SystemExit(main([*bench_args(replay, out), "--resume"]))
    assert info.value.code == 2 and "screenshots is a link" in capsys.readouterr().err
    assert [p.name for p in pictures.iterdir()] == ["x.png"]
    (out / "screenshots").unlink()
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main([*bench_args(replay, out), "--resume"]))
    assert info.value.code == 2 and ".bench.lock is a link" in capsys.readouterr().err
    assert victim.read_text() == "keep\n"
    (out / ".bench.lock").unlink()
    victim.write_text("keep")  # a torn last line, which an append cuts off
    for target, said in ((victim, "results.jsonl is a link"), (tmp_path / "new", "results.jsonl: a link to nothing")):
        (out / "results.jsonl").unlink()  # a file to cut or append to, one to create
        (out / "results.jsonl").symlink_to(target)
        with pytest.raises(SystemExit) as info:
            raise SystemExit(main([*bench_args(replay, out), "--resume"]))
        assert info.value.code == 2 and said in capsys.readouterr().err
    assert victim.read_text() == "keep" and not (tmp_path / "new").exists()


def test_a_results_file_rewritten_keeps_a_program_s_lone_surrogate(tmp_path: Path) -> None:
    """A resume over faults rewrites the file: what the bench appended must be written again."""
    path = tmp_path / "results.jsonl"
    episode = Episode("click-button", 0, "webwise", "none", "m")
    episode.trace.append(Step(index=0, trial=0, prompt=[], program="print('\ud800')", output="\ud800\n"))
    rewrite_results(path, [episode.to_dict()])
    assert read_results(path)[0]["trace"][0]["output"] == "\ud800\n"


@pytest.mark.parametrize(("change", "problem"), [
    ({"seed": math.inf}, "seed or max_trials is not a whole number in range"),
    ({"seed": -5}, "seed or max_trials is not a whole number in range"),
    ({"max_trials": 0}, "seed or max_trials is not a whole number in range"),
    ({"task": ["click-button"]}, "task is not a text"),
    ({"task": ""}, "task is not a text"),
    ({"method": "magic"}, "method or examples is not one a bench runs"),
    ({"examples": "many"}, "method or examples is not one a bench runs"),
    ({"guards": "no"}, "success or guards is not true or false"),  # was read as guards on
    ({"success": "yes"}, "success or guards is not true or false"),  # was counted as solved
    ({"steps": -3}, "steps is below 0"),
    ({"steps": "3"}, "steps is not a number"),
    ({"trace": "x"}, "trace is not a list of objects"),
    ({"trials": [{"raw_reward": None}]}, "a trial's raw_reward is not a number"),
    ({"calls": [{"seconds": "x"}]}, "a model call's costs are not numbers"),
    ({"trace": [{"actions": [{"name": "click", "args": 5}]}]}, "an action's args are not a list"),
])
def test_a_record_not_as_a_bench_writes_it_is_refused_in_one_line(
        change: dict[str, object], problem: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Results files are handed around: the tables and the report would stop halfway on these."""
    (tmp_path / "results.jsonl").write_text(
        json.dumps({**Episode("click-button", 0, "webwise", "none", "m").to_dict(), **change}) + "\n")
    with pytest.raises(SystemExit) as info:
        raise SystemExit(main(["report", str(tmp_path)]))
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1 and f"line 1 is not an episode record ({problem})" in err


def test_a_name_from_a_results_file_stays_one_cell_of_the_tables() -> None:
    """Results files are handed around: a model's name with a ``|``, a line break and an escape
    makes no cells, rows or headings of its own, and no spreadsheet formula."""
    hostile = "=cmd|x\n## injected \x1b[2J"
    computed = tables.compute([record("click-button", True), {**record("click-button", True), "llm": hostile}])
    text = tables.markdown(computed)
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert headings == ["## webwise / manual (=cmd\\|x ## injected \\x1b[2J)", "## webwise / manual (m)"]
    assert "\x1b" not in text
    rows = list(csv.reader(io.StringIO(tables.to_csv(computed))))
    assert {row[3] for row in rows[1:]} == {"'" + hostile, "m"}


def test_the_report_writes_a_name_s_control_characters_out(tmp_path: Path) -> None:
    """Its charts too: the terminal a report's HTML is printed to must not obey them."""
    records = [{**Episode("click-button", 0, "webwise", "none", llm).to_dict(), "success": True}
               for llm in ("m", "m\x1b[2J")]
    html = render_report(records, tmp_path)
    assert "\x1b" not in html and "m\\x1b[2J" in html


def test_the_same_signal_again_within_a_second_is_the_same_request(monkeypatch: pytest.MonkeyPatch) -> None:
    """coreutils ``timeout`` sends SIGTERM to the bench, then to its process group: one request to
    stop, which must not kill the bench before its tables are written. Later, a second is the default."""
    import webwise.bench

    happened: list[str] = []
    earlier = signal.signal(signal.SIGTERM, lambda signum, frame: happened.append("default"))
    monkeypatch.setattr(webwise.bench, "REPEAT_WINDOW", 0.5)
    try:
        with webwise.bench._on_interrupt(lambda: happened.append("stop")):
            signal.raise_signal(signal.SIGTERM)
            signal.raise_signal(signal.SIGTERM)
            assert happened == ["stop"]
            time.sleep(0.6)
            signal.raise_signal(signal.SIGTERM)
            assert happened == ["stop", "default"]
    finally:
        signal.signal(signal.SIGTERM, earlier)


def test_a_screenshot_that_cannot_be_written_loses_no_episode(replay: Path, tmp_path: Path) -> None:
    """A file where OUT/screenshots belongs: the episode is recorded, its step without a screenshot
    and with a note saying why."""
    out = tmp_path / "out"
    out.mkdir()
    (out / "screenshots").write_text("not a folder")
    assert main(["bench", "--tasks", "click-button", "--examples", "none", "--llm", f"replay:{replay}",
                 "--out", str(out)]) == 0
    [record] = read_results(out / "results.jsonl")
    assert record["success"] and record["trace"][0]["screenshot"] is None
    assert record["trace"][0]["note"] == f"no screenshot: {out / 'screenshots'} is not a directory"
