"""``--examples auto-near``: a task with no example of its own borrows the nearest of another task."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from webwise import store
from webwise.bench import BenchConfig
from webwise.cli import main
from webwise.errors import ConfigError
from webwise.examples import Example, Step
from webwise.nearest import kinds, nearest, words


def element(ref: int, tag: str, text: str) -> dict[str, Any]:
    return {"ref": ref, "tag": tag, "text": text, "id": "", "classes": "", "value": "", "clicked": False,
            "modified": False}


TABS = [element(2, "div", ""), element(3, "a", "Tab #1"), element(4, "a", "Tab #2"), element(5, "p", "Lorem")]
DIALOG = [element(2, "div", ""), element(3, "span", "Note"), element(4, "button", "OK"), element(5, "button", "Cancel")]
TAB_PROGRAM = "import re\nclick('a', 'Tab #' + re.search(r'\\d+', task).group(0))"
DIALOG_PROGRAM = "import re\nclick('button', re.search(r'\"(.*)\"', task).group(1))"
#: A reply that fails on any page: the replay runs out after it and the episode ends.
MISS = "```python\nclick('button', 'no such button')\n```"


def entry(instruction: str, page: list[dict[str, Any]], program: str) -> dict[str, Any]:
    return {"instruction": instruction, "steps": [{"observation": page, "program": program}],
            "provenance": {"llm": "local:1.5b", "method": "webwise", "seed": 10000, "reward": 1.0, "seconds": 1.0,
                           "harvested_at": "2026-11-25T00:00:00+00:00", "check_seeds": [100000, 100001, 100002]}}


@pytest.fixture()
def stored(tmp_path: Path) -> Path:
    """Examples of click-dialog-2 and click-tab, which come first and last in name order."""
    directory = tmp_path / "store"
    directory.mkdir()
    (directory / "click-dialog-2.json").write_text(json.dumps(
        [entry('Click the button in the dialog box labeled "OK".', DIALOG, DIALOG_PROGRAM)]))
    (directory / "click-tab.json").write_text(json.dumps([
        entry("Click on Tab #2.", TABS, TAB_PROGRAM),
        entry("Click on Tab #1.", TABS, "click('a', 'Tab #1')")]))
    return directory


def solve(tmp_path: Path, capsys: pytest.CaptureFixture[str], task: str, store_dir: Path,
          *more: str) -> dict[str, Any]:
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"*": [MISS] * 6}))
    main(["solve", "--task", task, "--examples", "auto-near", "--store", str(store_dir), "--llm", f"replay:{replies}",
          "--json", *more])
    return json.loads(capsys.readouterr().out)


def test_words_mask_literals_and_numbers_and_kinds_leave_layout_out() -> None:
    assert words('Enter "Agustina" into the text fields, then press Submit 3 times.') == {
        "enter", "<quoted>", "text", "field", "press", "submit", "<number>", "time"}
    assert words('Click on Tab #2.') == words('Click on Tab #15.') == {"click", "tab", "<number>"}
    assert kinds(TABS) == {"a"} and kinds(DIALOG) == {"button"}


def test_nearest_is_chosen_by_page_and_instruction_not_by_order() -> None:
    dialog = Example("click-dialog-2", 'Click the button in the dialog box labeled "OK".', (Step(DIALOG, "..."),))
    tab = Example("click-tab", "Click on Tab #2.", (Step(TABS, "..."),))
    assert nearest([dialog, tab], 'Switch between the tabs and click on the link "aliquet".', TABS) is tab
    assert nearest([tab, dialog], 'Click on the "okay" button.', DIALOG) is dialog
    twin = Example("click-tab-2", tab.instruction, tab.steps)
    assert nearest([tab, twin], "Click on Tab #3.", TABS) is tab  # a tie goes to the first, every time


def test_a_task_without_examples_gets_the_nearest_of_another_task(tmp_path: Path, stored: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """click-tab-2's page has links, like click-tab's example, though click-dialog-2 comes first."""
    record = solve(tmp_path, capsys, "click-tab-2", stored, "--trials", "2", "--max-steps", "1")
    assert record["examples"] == "auto-near"
    assert record["examples_shown"] == [{"task": "click-tab", "number": 1, "source": "auto"}]
    first, *later = [step for step in record["trace"] if step["prompt"]]
    assert first["note"] == ("no auto-near example of click-tab-2's own; showing the nearest stored one, "
                             "click-tab example 1")
    for step in (first, *later):
        prompt = step["prompt"][1]["content"]
        assert prompt.startswith("Here is a different task, click-tab, that you solved before")
        assert "Task: Click on Tab #2." in prompt and TAB_PROGRAM in prompt and "Click on Tab #1." not in prompt
    assert later and all(step["trial"] == 1 and step["note"] is None for step in later)
    again = solve(tmp_path, capsys, "click-button", stored)
    assert again["examples_shown"] == [{"task": "click-dialog-2", "number": 1, "source": "auto"}]
    assert "Here is a different task, click-dialog-2," in again["trace"][0]["prompt"][1]["content"]


def test_a_task_with_its_own_examples_gets_them(tmp_path: Path, stored: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    record = solve(tmp_path, capsys, "click-tab", stored)
    prompt = record["trace"][0]["prompt"][1]["content"]
    assert record["examples_shown"] == [{"task": "click-tab", "number": n, "source": "auto"} for n in (1, 2)]
    assert record["trace"][0]["note"] is None
    assert prompt.startswith("Here is a task you solved before") and "different task" not in prompt
    assert "Click on Tab #1." in prompt and "Click on Tab #2." in prompt


def test_an_empty_store_runs_zero_shot_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    record = solve(tmp_path, capsys, "click-tab-2", tmp_path / "empty")
    assert record["examples_shown"] == []
    assert record["trace"][0]["note"] == "no auto-near example for click-tab-2; running zero-shot"


def test_a_missing_store_fails_before_anything_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["solve", "--task", "click-tab-2", "--examples", "auto-near", "--store", str(tmp_path / "typo"),
                 "--llm", "replay:x.json"]) == 2
    assert capsys.readouterr().err == f"webwise: error: no example store at {tmp_path / 'typo'}\n"
    plan = BenchConfig(tasks=["click-tab-2"], seeds=range(1), methods=["webwise"], examples=["auto-near"],
                       llm="replay:x.json", out=tmp_path / "out", store_dir=tmp_path / "typo")
    with pytest.raises(ConfigError, match="no example store at"):
        plan.jobs()
    monkeypatch.setattr(store, "DEFAULT_STORE", tmp_path / "typo")  # without --store, the default store
    with pytest.raises(ConfigError, match="no example store at"):
        BenchConfig(tasks=["click-tab-2"], seeds=range(1), methods=["webwise"], examples=["auto"],
                    llm="replay:x.json", out=tmp_path / "out").jobs()


def test_a_bench_reads_the_store_it_is_given(tmp_path: Path, stored: Path) -> None:
    """Teach with one model, run with another: the bench shows what --store holds, not the default store."""
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"*": [MISS] * 6}))
    out = tmp_path / "out"
    assert main(["bench", "--tasks", "click-tab,click-tab-2", "--examples", "auto,auto-near", "--store", str(stored),
                 "--llm", f"replay:{replies}", "--max-steps", "1", "--out", str(out)]) == 0
    shown = {(r["task"], r["examples"]): r["examples_shown"]
             for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}
    assert shown[("click-tab", "auto")] == [{"task": "click-tab", "number": n, "source": "auto"} for n in (1, 2)]
    assert shown[("click-tab-2", "auto")] == []
    assert shown[("click-tab-2", "auto-near")] == [{"task": "click-tab", "number": 1, "source": "auto"}]


def test_a_bench_of_the_stored_tasks_runs_those_the_store_taught(tmp_path: Path, stored: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """After a harvest, ``auto`` changes only the tasks the store has examples of: ``--tasks
    stored`` names them, without a list to keep in step with the store by hand."""
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"*": [MISS] * 6}))
    out = tmp_path / "out"
    assert main(["bench", "--tasks", "stored", "--examples", "auto", "--store", str(stored),
                 "--llm", f"replay:{replies}", "--max-steps", "1", "--out", str(out)]) == 0
    assert [json.loads(line)["task"] for line in (out / "results.jsonl").read_text().splitlines()] == [
        "click-dialog-2", "click-tab"]
    empty = tmp_path / "empty"
    empty.mkdir()
    capsys.readouterr()
    assert main(["bench", "--tasks", "stored", "--examples", "auto", "--store", str(empty),
                 "--llm", f"replay:{replies}", "--out", str(tmp_path / "out2")]) == 2
    assert capsys.readouterr().err == f"webwise: error: --tasks stored: the store {empty} holds no example yet\n"


@pytest.mark.timeout(10)
def test_an_instruction_of_unclosed_quotes_is_read_at_once() -> None:
    """A store's instructions come from files: unclosed quotes once took quadratic time."""
    assert words("“" * 200_000 + " Click") == words("“" * 10_000)
    assert words('Click "OK" now') == {"click", "<quoted>", "now"}
