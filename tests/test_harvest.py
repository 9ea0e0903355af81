"""Auto-Context Generation with the replay backend: what is kept, what is refused, what the prompt shows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from webwise import store
from webwise.cli import main
from webwise.harvest import harvest

GENERAL = "```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"
OTHER_SPELLING = "Here:\n```python\nimport re\nname = re.findall(r'\"(.*)\"', task)[0]\nclick('button', name)\n```"
WRONG = "```python\nclick('button', 'no such button')\n```"


def replay(tmp_path: Path, replies: dict[str, list[str]], name: str = "replies.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(replies))
    return f"replay:{path}"


def test_successes_kept_failures_and_duplicates_refused(tmp_path: Path) -> None:
    llm = replay(tmp_path, {"click-button": [GENERAL], "click-link": [WRONG]})
    reports = harvest(["click-button", "click-link"], trials=3, llm=llm, store_dir=tmp_path / "store")
    button, link = reports
    assert (button.trials, button.solved, button.kept, button.duplicates) == (3, 3, 1, 2)
    assert (link.solved, link.kept, link.stored) == (0, 0, 0)
    entries = json.loads((tmp_path / "store" / "click-button.json").read_text())
    assert len(entries) == 1
    entry = entries[0]
    assert entry["steps"][0]["program"].endswith("click('button', re.search(r'\"(.*)\"', task).group(1))")
    assert any(e["tag"] == "button" for e in entry["steps"][0]["observation"])
    assert entry["instruction"].startswith("Click on the")
    assert {"llm", "method", "seed", "reward", "seconds", "harvested_at", "check_seed"} <= set(entry["provenance"])
    assert not (tmp_path / "store" / "click-link.json").exists()


def test_a_program_that_differs_only_in_comments_and_layout_is_a_duplicate(tmp_path: Path) -> None:
    recommented = ("```python\nimport re  # the quoted name\n\n"
                   "click( 'button',re.search(r'\"(.*)\"', task).group(1) )  # press it\n```")
    for number, reply in enumerate([GENERAL, recommented]):
        llm = replay(tmp_path, {"click-button": [reply]}, f"r{number}.json")
        [report] = harvest(["click-button"], trials=1, llm=llm, store_dir=tmp_path / "store", seed_start=number)
    assert (report.solved, report.kept, report.duplicates) == (1, 0, 1)
    assert store.count("click-button", tmp_path / "store") == 1


def test_cap_of_two_per_task(tmp_path: Path) -> None:
    third = "```python\nimport re\nwanted = re.search(r'\"(.*)\"', task).group(1)\nclick('button', wanted)\n```"
    for number, reply in enumerate([GENERAL, OTHER_SPELLING, third]):
        llm = replay(tmp_path, {"click-button": [reply]}, f"r{number}.json")
        harvest(["click-button"], trials=1, llm=llm, store_dir=tmp_path / "store", seed_start=number)
    assert store.count("click-button", tmp_path / "store") == store.MAX_PER_TASK


def test_program_that_only_fits_one_seed_fails_the_recheck(tmp_path: Path) -> None:
    from webwise.environment import MiniWoBEnv

    with MiniWoBEnv() as env:
        utterance = env.reset("click-button", 0)
    lucky = f"```python\nclick('button', {utterance.split(chr(34))[1]!r})\n```"
    llm = replay(tmp_path, {"click-button": [lucky]})
    [report] = harvest(["click-button"], trials=1, llm=llm, store_dir=tmp_path / "store")
    assert report.solved == 1 and report.failed_check == 1 and report.stored == 0


def test_concurrent_harvests_never_corrupt_the_store(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    files = [replay(tmp_path, {"click-button": [reply]}, f"c{n}.json") for n, reply in enumerate([GENERAL, OTHER_SPELLING])]
    runs = [subprocess.Popen([sys.executable, "-m", "webwise", "harvest", "--tasks", "click-button,click-test",
                              "--trials", "2", "--llm", llm, "--store", str(store_dir)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE) for llm in files]
    for run in runs:
        assert run.wait(timeout=120) == 0, run.stderr.read()
    entries = json.loads((store_dir / "click-button.json").read_text())
    assert len(entries) == 2
    assert len({store.programs_key(e) for e in entries}) == 2
    assert not list(store_dir.glob("*.tmp"))


def test_auto_prompt_shows_harvested_programs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store_dir = tmp_path / "store"
    harvest(["click-button"], trials=1, llm=replay(tmp_path, {"click-button": [GENERAL]}), store_dir=store_dir)
    solve_llm = replay(tmp_path, {"*": [GENERAL]}, "solve.json")
    code = main(["solve", "--task", "click-button", "--seed", "5", "--examples", "auto", "--store", str(store_dir),
                 "--llm", solve_llm, "--json"])
    record = json.loads(capsys.readouterr().out)
    prompt = record["trace"][0]["prompt"][1]["content"]
    assert code == 0
    assert "Here is a task you solved before" in prompt
    assert "re.search(r'\"(.*)\"', task).group(1)" in prompt
    assert record["trace"][0]["note"] is None


def test_auto_with_empty_store_runs_zero_shot_and_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "empty").mkdir()
    main(["solve", "--task", "click-button", "--seed", "5", "--examples", "auto", "--store", str(tmp_path / "empty"),
          "--llm", replay(tmp_path, {"*": [GENERAL]}), "--json"])
    record = json.loads(capsys.readouterr().out)
    assert record["trace"][0]["note"] == "no auto example for click-button; running zero-shot"
    assert "solved before" not in record["trace"][0]["prompt"][1]["content"]


def test_auto_without_a_store_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A mistyped --store must not turn an auto run into a zero-shot one."""
    assert main(["solve", "--task", "click-button", "--examples", "auto", "--store", str(tmp_path / "typo"),
                 "--llm", "replay:x.json"]) == 2
    assert capsys.readouterr().err == f"webwise: error: no example store at {tmp_path / 'typo'}\n"


def test_harvest_bad_task_list_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["harvest", "--tasks", "click-button,nope", "--llm", "replay:x.json"]) == 2
    assert capsys.readouterr().err == "webwise: error: unknown task 'nope'; `webwise tasks` lists the 130 available\n"
