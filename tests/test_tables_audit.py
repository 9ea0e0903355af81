"""The numbers of tables.md, tables.csv and the report checked against what the docs say they are:
rounding, rows without episodes, an episode recorded twice, which column set stands beside the
paper's ACG row, infrastructure failures in the model-call means, and files of every shape a
researcher may hand over (empty, old fields missing, any task name) written without a traceback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webwise import tables
from webwise.cli import main


def record(task: str, seed: int, success: bool, **fields: Any) -> dict[str, Any]:
    """An episode record with only the fields the oldest committed runs have."""
    return {"task": task, "seed": seed, "method": "webwise", "examples": "none", "llm": "m", "success": success,
            "steps": 1, "llm_calls": 1, "prompt_tokens": 100, "completion_tokens": 10, **fields}


def infra(task: str, seed: int, **fields: Any) -> dict[str, Any]:
    return record(task, seed, False, error="endpoint down", infra_error="endpoint down", steps=0, llm_calls=0,
                  prompt_tokens=0, completion_tokens=0, **fields)


def column(examples: str = "none", method: str = "webwise") -> tables.ColumnSet:
    return tables.ColumnSet("m", method, examples)


def rows(computed: tables.Tables, examples: str = "none", method: str = "webwise") -> dict[str, tables.Row]:
    return {row.name: row for row in computed.groups[column(examples, method)]}


@pytest.mark.parametrize(("count", "total", "shown"), [
    (90, 144, "0.63"),  # 0.625: the float's format rounded it to even, 0.62
    (1, 40, "0.03"), (3, 40, "0.08"),  # 0.025 and 0.075: their floats lie either side, 0.03 and 0.07
    (1, 8, "0.13"), (54, 144, "0.38"), (0, 3, "0.00"), (3, 3, "1.00"), (2, 3, "0.67"), (1, 3, "0.33"),
])
def test_a_rate_is_rounded_half_up_from_its_counts(count: int, total: int, shown: str) -> None:
    records = [record("click-button", seed, seed < count) for seed in range(total)]
    assert rows(tables.compute(records))["all"].success_text == f"{shown} ({count}/{total})"


def test_a_task_or_group_with_only_infrastructure_failures_has_no_rate_and_no_means() -> None:
    records = [record("click-button", 0, True), infra("enter-text", 0), infra("enter-text", 1)]
    computed = tables.compute(records)
    group = rows(computed)["3-6"]
    assert (group.episodes, group.infra) == (0, 2)
    assert tables.group_cells(group) == ["3-6", "- (0/0)", "-", "-", "-", "0", "0", "2", "0.80"]
    task = next(r for r in computed.tasks[column()] if r.name == "enter-text")
    assert tables.task_cells(task) == ["enter-text", "3-6", "- (0/0)", "-", "-", "-", "0", "0", "2"]
    assert "| enter-text | 3-6 | - (0/0) | - | - | - | 0 | 0 | 2 |" in tables.markdown(computed)
    line = next(line for line in tables.to_csv(computed).splitlines() if line.startswith("task,enter-text,"))
    assert line.split(",")[7:16] == ["0", "0", "0", "", "", "", "", "", "0"]  # no 0.0000 rate, no 0.0000 means
    # Two trials: success at trial 1 has no rate either.
    first = tables.compute([infra("enter-text", 0, max_trials=2)]).groups[tables.ColumnSet("m", "webwise", "none", 2)]
    assert tables.cells(first[0])[:2] == ["- (0/0)", "- (0/0)"]


def test_an_agentlab_comparison_without_episodes_shows_no_rate() -> None:
    total = tables.Row("AgentLab's tasks", "all", 0, 0, 0, 0, 0, 0, 0, 0, 0, infra=3)
    assert tables.agentlab_rows(total, 1)[0] == ["this run, trial 1", "1", "0", "- (0/0)", "- (0/0)"]


def test_an_episode_recorded_twice_is_counted_as_often_and_the_tables_say_so(tmp_path: Path) -> None:
    """Two results files joined by hand hold an episode twice, which weighs its seed double in
    every rate: the tables (and the report) open with a warning saying how many records do."""
    records = [record("click-button", 0, False), record("click-button", 1, True), record("click-button", 0, True),
               record("click-link", 0, True), infra("click-link", 0)]
    computed = tables.compute(records)
    assert computed.repeated == 2
    group = rows(computed)["all"]
    assert (group.successes, group.episodes, group.infra) == (3, 4, 1)
    warning = "Warning: 2 of these records repeat an episode (column set, task and seed) an earlier record is of"
    assert warning in tables.markdown(computed)
    out = write(tmp_path / "joined", records)
    assert main(["report", str(out)]) == 0
    assert warning in (out / "report.html").read_text(encoding="utf-8")
    # The same task and seed in two column sets are two episodes.
    other = tables.compute([record("click-button", 0, True), record("click-button", 0, True, examples="manual")])
    assert other.repeated == 0 and "Warning" not in tables.markdown(other)


def test_the_paper_acg_row_stands_beside_filtered_dom_with_harvested_examples() -> None:
    """The paper's ACG ran single-step programs from the filtered DOM (its section 4.4)."""
    computed = tables.compute([record("click-button", 0, True, method="filtered-dom", examples="auto")])
    assert rows(computed, "auto", "filtered-dom")["1"].paper == 0.86
    assert tables.paper_rate("whole-dom", "auto", "1") is None


def test_the_paper_acg_row_is_not_beside_an_auto_run_of_only_the_taught_tasks() -> None:
    """With `auto+none` in the file, `auto` ran only the tasks a harvest taught: 1.00 over them
    beside the paper's rate over all of a group's tasks compared two different things."""
    records = [record("click-button", 0, True, examples="auto"),
               record("click-button", 0, False), record("click-link", 0, False)]
    computed = tables.compute(records)
    assert rows(computed, "auto")["1"].paper is None
    assert rows(computed, tables.SELF_TAUGHT)["1"].paper == 0.86
    assert "| 1 | 1.00 (1/1) | 1.00 | 1.00 | 110 (100+10) | 0 | 0 | 0 |  |" in tables.markdown(computed)
    # An auto run over every task of the file is the self-taught number itself.
    alone = tables.compute([record("click-button", 0, True, examples="auto"), record("click-button", 0, False)])
    assert rows(alone, "auto")["1"].paper == 0.86


def test_the_agentlab_rows_count_only_agentlab_s_tasks() -> None:
    """Its rows count the run's episodes of AgentLab's 125 tasks only (docs/cli.md): neither the
    five tasks added since nor names the suite does not have."""
    records = [record("use-slider", 0, True), record("simon-says", 0, False), record("not-a-miniwob-task", 0, False),
               record("miniwob.click-button", 0, False)]
    total, count = tables.compute(records).agentlab[column()]
    assert (total.episodes, total.successes, count) == (1, 1, 1)
    assert tables.in_agentlab("use-slider") and not tables.in_agentlab("simon-says")


def test_model_call_means_leave_out_infrastructure_failures() -> None:
    """Infrastructure failures are in no mean: the model-call table's neither."""
    call = {"seconds": 2.0, "prompt_tokens": 100, "completion_tokens": 10}
    slow = {"seconds": 60.0, "prompt_tokens": 100, "completion_tokens": 10}
    computed = tables.compute([record("click-button", 0, True, calls=[call]), infra("click-button", 1, calls=[slow])])
    spent = computed.costs[column()]
    assert (spent.calls, spent.seconds) == (1, 2.0)
    assert column() not in tables.compute([infra("click-button", 1, calls=[slow])]).costs


def write(folder: Path, records: list[dict[str, Any]]) -> Path:
    folder.mkdir()
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    (folder / "results.jsonl").write_text(lines, encoding="utf-8")
    return folder


@pytest.mark.parametrize(("name", "records"), [
    ("empty", []),
    ("one", [record("click-button", 0, True)]),
    ("failures", [record(t, s, False) for t in ("click-button", "enter-text", "book-flight") for s in range(2)]),
    ("faults", [infra("click-button", 0), infra("use-slider", 1, max_trials=3)]),
    ("names", [record("clïck-bütton-✓", 0, True), record("タスク|x", 1, False), record("=1+1", 2, False),
               record("a\u202eb", 3, True)]),
    ("fields", [{"task": "click-button", "seed": 0, "method": "webwise", "examples": "none", "llm": "m"}]),
])
def test_report_writes_tables_of_any_results_file(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str,
                                                  records: list[dict[str, Any]]) -> None:
    out = write(tmp_path / name, records)
    assert main(["report", str(out)]) == 0
    assert capsys.readouterr().err == ""
    text = (out / "tables.md").read_text(encoding="utf-8")
    assert text.startswith("# Results") and (out / "report.html").is_file()
    assert (out / "tables.csv").read_text(encoding="utf-8").startswith("level,name,")


def test_success_at_trial_1_of_a_record_without_its_field_is_its_first_trial_s() -> None:
    """A multi-trial record that lacks ``success_first_trial`` (hand-made, or cut down by a tool)
    counted its final success as trial 1's: 1/1 at trial 1 for an episode solved at trial 3."""
    trials = [{"trial": 1, "success": False}, {"trial": 2, "success": False}, {"trial": 3, "success": True}]
    solved_late = record("click-button", 0, True, max_trials=3, trials=trials)
    row = tables.compute([solved_late]).groups[tables.ColumnSet("m", "webwise", "none", 3)][0]
    assert (row.first_successes, row.successes) == (0, 1)


def test_report_refuses_a_multi_trial_record_that_says_nothing_of_its_first_trial(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = write(tmp_path / "run", [record("click-button", 0, True), record("click-button", 1, True, max_trials=3)])
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "line 2 is not an episode record (solved in 3 trials, but neither" in err
    assert not (out / "tables.md").exists() and not (out / "report.html").exists()


def test_report_takes_a_bench_folder_or_its_results_file_and_no_other_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Given a file, report named FILE/results.jsonl as not found."""
    results = write(tmp_path / "run", [record("click-button", 0, True)]) / "results.jsonl"
    assert main(["report", str(results)]) == 0
    assert capsys.readouterr().out == f"{tmp_path / 'run' / 'report.html'}\n"
    other = tmp_path / "run" / "tables.md"
    assert main(["report", str(other)]) == 2
    assert capsys.readouterr().err == (f"webwise: error: {other} is a file, not a folder: give the folder of a "
                                       "`webwise bench --out`\n")
