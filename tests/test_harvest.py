"""Auto-Context Generation with the replay backend: what is kept, what is refused, what the prompt shows,
trials, workers, resume after kill -9 and Ctrl-C."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from webwise import store
from webwise.agent import load_examples
from webwise.bench import read_results, record_key
from webwise.cli import main
from webwise.errors import ConfigError
from webwise.harvest import HARVEST_SEED_START, JOURNAL, distinct_seeds, harvest, import_results, recheck

WEBWISE = str(Path(sys.executable).parent / "webwise")

GENERAL = "```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"
OTHER_SPELLING = "Here:\n```python\nimport re\nname = re.findall(r'\"(.*)\"', task)[0]\nclick('button', name)\n```"
WRONG = "```python\nclick('button', 'no such button')\n```"
#: Programs that read the task (click-test's button is always "Click Me!": there a literal generalises).
READERS = {
    "click-button": GENERAL,
    "click-link": "```python\nimport re\nclick('span', re.search(r'\"(.*)\"', task).group(1))\n```",
    "click-test": "```python\nclick('button', 'Click Me!')\n```",
}
QUIET = io.StringIO()


def readers(tmp_path: Path) -> str:
    return replay(tmp_path, {task: [reply] for task, reply in READERS.items()}, "readers.json")


def journal(store_dir: Path) -> list[dict[str, object]]:
    return read_results(store_dir / JOURNAL)


def replay(tmp_path: Path, replies: dict[str, list[str]], name: str = "replies.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(replies))
    return f"replay:{path}"


def test_successes_kept_failures_and_duplicates_refused(tmp_path: Path) -> None:
    llm = replay(tmp_path, {"click-button": [GENERAL], "click-link": [WRONG]})
    reports = harvest(["click-button", "click-link"], seeds=3, llm=llm, store_dir=tmp_path / "store", progress=QUIET)
    button, link = reports
    assert (button.episodes, button.solved, button.candidates, button.kept, button.duplicates) == (3, 3, 3, 1, 2)
    assert (link.episodes, link.solved, link.kept, link.stored) == (3, 0, 0, 0)
    entries = json.loads((tmp_path / "store" / "click-button.json").read_text())
    assert len(entries) == 1
    entry = entries[0]
    assert entry["steps"][0]["program"].endswith("click('button', re.search(r'\"(.*)\"', task).group(1))")
    assert any(e["tag"] == "button" for e in entry["steps"][0]["observation"])
    assert entry["instruction"].startswith("Click on the")
    assert set(entry["provenance"]) == {"llm", "method", "examples", "shown", "seed", "trial", "reward", "seconds",
                                        "harvested_at", "code", "check_seeds"}
    assert (entry["provenance"]["examples"], entry["provenance"]["shown"]) == ("none", [])
    # seed 10000 asks for "okay"; 100000-100003 for "No", "ok", "Next", "Submit". No other of the
    # twelve seeds looked through names "No" or "ok" (100010 asks 100000's question again): one form,
    # that of a button's name; "Next" and "Submit" are named twice, forms of their own, taken first
    assert entry["provenance"]["check_seeds"] == [100000, 100002, 100003]
    assert (entry["provenance"]["seed"], entry["provenance"]["trial"]) == (HARVEST_SEED_START, 0)
    assert not (tmp_path / "store" / "click-link.json").exists()


def test_an_unsolved_episode_records_why_for_people_to_read(tmp_path: Path) -> None:
    """A curator reads from the journal how each attempt of an unsolved episode ended and what it ran."""
    llm = replay(tmp_path, {"click-link": [WRONG] * 8})
    progress = io.StringIO()
    harvest(["click-link"], seeds=1, trials=2, max_steps=1, llm=llm, store_dir=tmp_path / "store", progress=progress)
    [record] = journal(tmp_path / "store")
    assert record["outcome"] == "not solved" and len(record["endings"]) == 2
    assert record["programs"] == ["click('button', 'no such button')"]
    assert record["verdict"] == f"not solved ({', '.join(record['endings'])})"
    assert record["verdict"] in progress.getvalue()


def test_a_program_that_differs_only_in_comments_and_layout_is_a_duplicate(tmp_path: Path) -> None:
    recommented = ("```python\nimport re  # the quoted name\n\n"
                   "click( 'button',re.search(r'\"(.*)\"', task).group(1) )  # press it\n```")
    for number, reply in enumerate([GENERAL, recommented]):
        llm = replay(tmp_path, {"click-button": [reply]}, f"r{number}.json")
        [report] = harvest(["click-button"], seeds=1, llm=llm, store_dir=tmp_path / "store", seed_start=number,
                           progress=QUIET)
    assert (report.solved, report.kept, report.duplicates) == (1, 0, 1)
    assert store.count("click-button", tmp_path / "store") == 1


def test_cap_of_two_per_task(tmp_path: Path) -> None:
    third = "```python\nimport re\nwanted = re.search(r'\"(.*)\"', task).group(1)\nclick('button', wanted)\n```"
    for number, reply in enumerate([GENERAL, OTHER_SPELLING, third]):
        llm = replay(tmp_path, {"click-button": [reply]}, f"r{number}.json")
        harvest(["click-button"], seeds=1, llm=llm, store_dir=tmp_path / "store", seed_start=number, progress=QUIET)
    assert store.count("click-button", tmp_path / "store") == store.MAX_PER_TASK


def test_a_literal_answer_is_refused_by_the_check_on_seeds_that_ask_something_else(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 13's button is "No", as is the first check seed's: checked there, the literal would
    pass. The check skips a seed asking what the episode asked, so even one check seed refuses it
    (100001's "ok"; of three, the first is 100002's "Next", a button the check's pool names twice).

    The program pieces it together, so no literal of it is a text of the instruction that the
    check could read from the task instead.
    """
    from webwise.environment import MiniWoBEnv

    with MiniWoBEnv() as env:
        buttons = [env.reset("click-button", seed).split('"')[1] for seed in (13, 100000, 100001)]
    assert buttons == ["No", "No", "ok"]
    llm = replay(tmp_path, {"click-button": ["```python\nclick('button', 'N' + 'o')\n```"]})
    [once] = harvest(["click-button"], seeds=1, seed_start=13, check_seeds=1, llm=llm, store_dir=tmp_path / "one",
                     progress=QUIET)
    assert (once.candidates, once.kept) == (1, 0) and once.reasons[0].startswith("seed 100001: ")

    assert main(["harvest", "--tasks", "click-button", "--seeds", "1", "--seed-start", "13", "--llm", llm,
                 "--store", str(tmp_path / "three")]) == 0
    out, err = capsys.readouterr()
    row = out.splitlines()[1].split("\t")
    assert row[:9] == ["click-button", "1", "1", "1", "0", "0", "0", "1", "0"]
    assert row[9].startswith("seed 100002: ")
    assert "solved; refused by the check: seed 100002: " in err
    assert "the check refused 1 candidate(s)" in err
    [record] = journal(tmp_path / "three")
    assert record["outcome"] == "refused" and record["check_seeds"] == []
    assert record["programs"] == ["click('button', 'N' + 'o')"]
    assert not (tmp_path / "three" / "click-button.json").exists()


@pytest.mark.parametrize(("asked", "own", "expected"), [
    ({100000: "A", 100001: "B", 100002: "C"}, "Z", [100000, 100001, 100002]),   # all new: the first three
    ({100000: "A", 100001: "A", 100002: "A", 100003: "B", 100004: "A", 100005: "C"}, "Z",
     [100000, 100003, 100005]),                                                  # repeats skipped
    ({100000: "Z", 100001: "B", 100002: "C", 100003: "D"}, "Z", [100001, 100002, 100003]),  # the episode's own
    ({}, "Z", [100000, 100001, 100002]),                                        # always the same: the first three
    ({100000: "A", 100001: "A", 100002: "B"}, "Z", [100000, 100001, 100002]),   # two new, the earliest other
])
def test_the_check_takes_seeds_that_ask_what_was_not_asked(asked: dict[int, str], own: str,
                                                           expected: list[int]) -> None:
    assert distinct_seeds(lambda seed: asked.get(seed, "Z" if not asked else "A"), own, 3) == expected


def test_a_candidate_whose_program_raises_on_a_check_seed_is_refused_though_the_page_is_solved(
        tmp_path: Path) -> None:
    """The first program clicks ONE, then a button no page has: it raises after moving the page on,
    so the candidate keeps it, and the second program solves every seed. Replayed on a fresh
    seed the task is solved again, but a call failed there: refused, with that call's error."""
    llm = replay(tmp_path, {"click-button-sequence": [
        "```python\nclick('button', 'ONE')\nclick('button', 'THREE')\n```",
        "```python\nclick('button', 'TWO')\n```"]})
    [report] = harvest(["click-button-sequence"], seeds=1, check_seeds=1, llm=llm, store_dir=tmp_path / "store",
                       max_steps=2, progress=QUIET)
    assert (report.solved, report.candidates, report.kept, report.refused) == (1, 1, 0, 1)
    assert report.reasons[0].startswith("seed 100000: ActionError: no 'button' element with text 'THREE'")
    [record] = journal(tmp_path / "store")
    assert record["programs"] == ["click('button', 'ONE')\nclick('button', 'THREE')", "click('button', 'TWO')"]
    assert store.count("click-button-sequence", tmp_path / "store") == 0


def test_a_list_clicked_item_by_item_is_kept_as_a_loop_over_the_task_s_list(tmp_path: Path) -> None:
    """Seed 10001 asks for two boxes; the check's seeds for other numbers of them, which one
    variable per item cannot follow."""
    program = "click('label', 'p7rzlQ8')\nclick('label', 'vbBigoI')\nclick('button', 'Submit')"
    llm = replay(tmp_path, {"click-checkboxes": [f"```python\n{program}\n```"]})
    [report] = harvest(["click-checkboxes"], seeds=1, seed_start=10001, llm=llm, store_dir=tmp_path / "store",
                       progress=QUIET)
    assert (report.kept, report.generalised) == (1, 1)
    [entry] = json.loads((tmp_path / "store" / "click-checkboxes.json").read_text())
    assert "for item_from_task in re.search(r'Select (.+?) and', task).group(1).split(', '):" in \
        entry["steps"][0]["program"]


def test_a_loop_over_the_task_s_list_is_kept_where_another_seed_lists_nothing(tmp_path: Path) -> None:
    """click-checkboxes-transfer's seeds 100000-100002 all say "Select nothing and click Submit.": the
    check takes the first of them and then seeds with lists. The loop clicks only the items the
    page shows, so on the first it clicks no box."""
    program = "click('label', 'cbVkV')\nclick('label', 'AwMOyB')\nclick('button', 'Submit')"
    llm = replay(tmp_path, {"click-checkboxes-transfer": [f"```python\n{program}\n```"]})
    [report] = harvest(["click-checkboxes-transfer"], seeds=1, seed_start=10003, llm=llm,
                       store_dir=tmp_path / "store", progress=QUIET)
    assert (report.kept, report.generalised) == (1, 1)
    [entry] = json.loads((tmp_path / "store" / "click-checkboxes-transfer.json").read_text())
    assert entry["provenance"]["check_seeds"] == [100000, 100003, 100004]


def test_a_loop_of_the_model_s_own_over_the_task_s_list_is_kept_skipping_items_the_page_does_not_show(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 10006 lists three boxes and the program loops over the task's list; check seed 100000
    says "Select nothing", whose 'nothing' no label has."""
    program = ("import re\nfor item in re.search(r'Select (.+?) and', task).group(1).split(', '):\n"
               "    click('label', item)\nclick('button', 'Submit')")
    llm = replay(tmp_path, {"click-checkboxes-transfer": [f"```python\n{program}\n```"]})
    assert main(["harvest", "--tasks", "click-checkboxes-transfer", "--seeds", "1", "--seed-start", "10006",
                 "--llm", llm, "--store", str(tmp_path / "store")]) == 0
    assert "solved; kept (items the page does not show skipped)" in capsys.readouterr().err
    [entry] = json.loads((tmp_path / "store" / "click-checkboxes-transfer.json").read_text())
    assert "    if item in texts_on_page:\n        click('label', item)" in entry["steps"][0]["program"]
    assert entry["provenance"]["check_seeds"][0] == 100000


def test_auto_near_shows_a_task_without_examples_a_relative_s_and_its_example_says_whose(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    llm = readers(tmp_path)
    harvest(["click-button"], seeds=1, llm=llm, store_dir=store_dir, progress=QUIET)
    [report] = harvest(["click-link"], seeds=1, llm=llm, store_dir=store_dir, examples="auto-near", progress=QUIET)
    assert report.kept == 1
    [entry] = json.loads((store_dir / "click-link.json").read_text())
    assert entry["provenance"]["examples"] == "auto-near"
    assert [shown["task"] for shown in entry["provenance"]["shown"]] == ["click-button"]
    assert [r["examples"] for r in journal(store_dir)] == ["none", "auto-near"]

    with pytest.raises(ConfigError, match="unknown examples mode 'auto'; choose one of none, auto-near"):
        harvest(["click-link"], seeds=1, llm=llm, store_dir=store_dir, examples="auto", progress=QUIET)


def test_a_literal_copied_from_the_instruction_is_read_from_the_task_and_then_kept(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The same literal as written: refused as it is (seed 100002's button is "Next"), kept once the
    program reads it from ``task`` by the words around it (the quoted text, up to its closing
    quote), and shown so."""
    llm = replay(tmp_path, {"click-button": ["```python\nclick('button', 'No')  # the one asked for\n```"]})
    assert main(["harvest", "--tasks", "click-button", "--seeds", "1", "--seed-start", "13", "--llm", llm,
                 "--store", str(tmp_path / "store")]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[1].split("\t")[:9] == ["click-button", "1", "1", "1", "1", "1", "0", "0", "1"]
    assert "solved; kept (literals read from the task)" in err
    [entry] = json.loads((tmp_path / "store" / "click-button.json").read_text())
    assert entry["steps"][0]["program"] == ("import re\nfrom_task = re.search(r'the \"(.+?)\"', task).group(1)\n"
                                            "click('button', from_task)  # the one asked for")
    # 100000 asks for "No" as seed 13 did: the check's seeds ask for buttons the pool names twice
    assert entry["provenance"]["generalised"] is True and entry["provenance"]["check_seeds"] == [100002, 100003, 100004]
    [record] = journal(tmp_path / "store")
    assert record["outcome"] == "kept" and record["generalised"] is True and record["refusal"] is None


def test_an_input_named_after_the_instruction_s_ordinal_is_kept_built_from_the_task_s_number(
        tmp_path: Path) -> None:
    """Seed 10000 asks for the 3rd input and the program clicks 'tt3'; the check's seeds ask for the
    1st and the 2nd."""
    llm = replay(tmp_path, {"focus-text-2": ["```python\nclick('input_text', 'tt3')\n```"]})
    [report] = harvest(["focus-text-2"], seeds=1, llm=llm, store_dir=tmp_path / "store", progress=QUIET)
    assert (report.kept, report.generalised) == (1, 1)
    [entry] = json.loads((tmp_path / "store" / "focus-text-2.json").read_text())
    assert entry["instruction"] == "Focus into the 3rd input textbox."
    assert entry["steps"][0]["program"].endswith("click('input_text', 'tt' + from_task)")


def test_a_value_typed_from_the_cell_beside_the_instruction_s_key_is_kept_read_from_the_page(
        tmp_path: Path) -> None:
    """Seed 10000 asks for the value of Color; the program typed the cell after 'Color'. The check's
    seeds ask for other rows, which the rewrite finds beside the key it reads from the task."""
    program = "click('input_text', 'tt')\nenter_text('maroon')\nclick('button', 'Submit')"
    llm = replay(tmp_path, {"read-table": [f"```python\n{program}\n```"]})
    [report] = harvest(["read-table"], seeds=1, llm=llm, store_dir=tmp_path / "store", progress=QUIET)
    assert (report.kept, report.generalised) == (1, 1)
    [entry] = json.loads((tmp_path / "store" / "read-table.json").read_text())
    assert "enter_text(texts_on_page[texts_on_page.index(from_task) + 1])" in entry["steps"][0]["program"]


def test_values_typed_for_the_form_s_labels_are_kept_read_from_the_table_beside_those_labels(
        tmp_path: Path) -> None:
    """read-table-2 asks the same on every seed; seed 10000's form labels its fields "Year of Birth:"
    and "Color:", and the program typed the table's cells after those texts. The check's seeds label
    other rows, which the rewrite reads from the table by each field's label."""
    program = ("click('input_text', 'tt1')\nenter_text('1968')\nclick('input_text', 'tt2')\n"
               "enter_text('silver')\nclick('button', 'Submit')")
    llm = replay(tmp_path, {"read-table-2": [f"```python\n{program}\n```"]})
    [report] = harvest(["read-table-2"], seeds=1, llm=llm, store_dir=tmp_path / "store", progress=QUIET)
    assert (report.kept, report.generalised) == (1, 1)
    [entry] = json.loads((tmp_path / "store" / "read-table-2.json").read_text())
    assert "ids_on_page.index('tt2') - 1]" in entry["steps"][0]["program"]


def test_a_link_another_seed_hides_in_a_closed_tab_is_kept_searched_for_through_the_tabs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 10000 shows the link in the open tab, and the program reads it from the task and clicks
    it; a check seed hides it in another tab, where the executor's error says it is. Kept once the
    click is preceded by a search through the page's tabs."""
    program = "import re\nlink = re.search(r'link \"(.+?)\"\\.$', task).group(1)\nclick('a', link)"
    llm = replay(tmp_path, {"click-tab-2-hard": [f"```python\n{program}\n```"]})
    assert main(["harvest", "--tasks", "click-tab-2-hard", "--seeds", "1", "--llm", llm,
                 "--store", str(tmp_path / "store")]) == 0
    assert "solved; kept (closed panels searched)" in capsys.readouterr().err
    [entry] = json.loads((tmp_path / "store" / "click-tab-2-hard.json").read_text())
    assert "click('ui-tabs-anchor', panel)" in entry["steps"][0]["program"]
    # 100004's link "iaculis." has a full stop: an instruction of another shape, checked first
    assert entry["provenance"]["generalised"] is True and entry["provenance"]["check_seeds"] == [100000, 100001, 100004]


def test_a_name_copied_from_the_instruction_is_read_from_it_and_searched_for_in_closed_folders(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 10000 shows "Karrie" at the top of the tree and the program clicks it by that name.
    Read from the task, the name still fails check seed 100000, which hides it in a folder that
    seed names; the folder search, added on top of the first rewrite, passes."""
    llm = replay(tmp_path, {"navigate-tree": ["```python\nclick('span', 'Karrie')\n```"]})
    assert main(["harvest", "--tasks", "navigate-tree", "--seeds", "1", "--llm", llm,
                 "--store", str(tmp_path / "store")]) == 0
    assert "solved; kept (literals read from the task; closed panels searched)" in capsys.readouterr().err
    [entry] = json.loads((tmp_path / "store" / "navigate-tree.json").read_text())
    assert entry["steps"][0]["program"].endswith("click('folder', panel)]\nclick('span', from_task)")


def test_a_refused_candidate_is_kept_when_rechecked_with_a_rewrite_added_since(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Seed 10000 asks for "SERGIO" in lower case and the program types 'sergio'; check seed 100000
    asks for upper case. Harvested as by code without any rewrite, the candidate is refused;
    `harvest --recheck` runs no episode and keeps it once the current rewrite reads both the
    text and its case from the task."""
    import webwise.harvest

    program = "click('input_text', 'tt')\nenter_text('sergio')\nclick('button', 'Submit')"
    llm = replay(tmp_path, {"enter-text-2": [f"```python\n{program}\n```"]})
    store_dir = tmp_path / "store"
    with monkeypatch.context() as older:
        older.setattr(webwise.harvest, "REWRITES", ())
        [report] = harvest(["enter-text-2"], seeds=1, llm=llm, store_dir=store_dir, progress=QUIET)
    assert (report.refused, report.stored) == (1, 0)
    [refused] = journal(store_dir)
    assert refused["candidate"]["steps"][0]["program"] == program
    assert any(element["tag"] == "input_text" for element in refused["candidate"]["steps"][0]["observation"])

    assert main(["harvest", "--tasks", "enter-text-2,click-button", "--recheck", "--store", str(store_dir)]) == 0
    out, err = capsys.readouterr()
    assert "recheck: 1 refused candidates to check again" in err
    assert out.splitlines()[1].split("\t")[:9] == ["enter-text-2", "1", "1", "1", "1", "1", "0", "0", "1"]
    [entry] = json.loads((store_dir / "enter-text-2.json").read_text())
    assert "enter_text((from_task.upper() if re.search(" in entry["steps"][0]["program"]
    assert entry["provenance"]["check_seeds"] == [100000, 100001, 100002] and entry["provenance"]["seed"] == 10000
    first, again = journal(store_dir)
    assert record_key(again) == record_key(first)
    assert again["outcome"] == "kept" and again["rechecked_with"] and "candidate" not in again

    progress = io.StringIO()
    [again_report] = recheck(["enter-text-2"], store_dir=store_dir, progress=progress)  # the library's way
    assert "recheck: 0 refused candidates to check again" in progress.getvalue()
    assert (again_report.kept, again_report.refused, again_report.stored) == (1, 0, 1)
    assert len(journal(store_dir)) == 2


def test_an_episode_solved_at_trial_2_contributes_trial_2s_programs(tmp_path: Path) -> None:
    """Trial 1 clicks a wrong button (cleanly); the review names nothing; trial 2 reads the task."""
    wrong_button = ("```python\nimport re\nwanted = re.search(r'\"(.*)\"', task).group(1)\n"
                    "click('button', next(e['text'] for e in observation if e['tag'] == 'button' "
                    "and e['text'] != wanted))\n```")
    llm = replay(tmp_path, {"click-button": [wrong_button, "I do not know.", GENERAL]})
    [report] = harvest(["click-button"], seeds=1, trials=2, max_steps=1, llm=llm, store_dir=tmp_path / "store",
                       progress=QUIET)
    assert (report.solved, report.kept) == (1, 1)
    [entry] = json.loads((tmp_path / "store" / "click-button.json").read_text())
    assert [step["program"] for step in entry["steps"]] == [GENERAL.split("\n", 1)[1].rsplit("\n", 1)[0]]
    assert entry["provenance"]["trial"] == 1
    assert journal(tmp_path / "store")[0]["max_trials"] == 2


def test_a_step_replayed_from_an_earlier_trial_is_part_of_the_example(tmp_path: Path) -> None:
    """Trial 1 types the name, then clicks no button; the review fixes step 2; trial 2 replays step 1 and
    runs the fix: the example is those two programs, with the pages they saw in trial 2."""
    typing = "import re\nclick('input_text', '')\nenter_text(re.search(r'\"(.+?)\"', task).group(1))"
    review = "Step: 2\nWhy: no button has that name.\n```python\nclick('button', '')\n```"
    llm = replay(tmp_path, {"enter-text": [f"```python\n{typing}\n```", "```python\nclick('button', 'Nope')\n```",
                                           review]})
    [report] = harvest(["enter-text"], seeds=1, trials=2, max_steps=2, llm=llm, store_dir=tmp_path / "store",
                       progress=QUIET)
    assert (report.solved, report.kept) == (1, 1), report
    [entry] = json.loads((tmp_path / "store" / "enter-text.json").read_text())
    assert [step["program"] for step in entry["steps"]] == [typing, "click('button', '')"]
    assert entry["provenance"]["trial"] == 1
    assert entry["steps"][1]["observation"] != entry["steps"][0]["observation"]  # the page after the typing


def test_two_workers_harvest_every_task(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    llm = readers(tmp_path)
    assert main(["harvest", "--tasks", ",".join(READERS), "--seeds", "2", "--llm", llm, "--workers", "2",
                 "--store", str(tmp_path / "store")]) == 0
    err = capsys.readouterr().err
    assert "6 to run with" in err and "on 2 worker(s)" in err
    assert len([line for line in err.splitlines() if line.startswith("harvest ") and "ETA" in line]) == 6
    assert sorted((r["task"], r["seed"]) for r in journal(tmp_path / "store")) == [
        (task, seed) for task in sorted(READERS) for seed in (HARVEST_SEED_START, HARVEST_SEED_START + 1)]
    assert all(store.count(task, tmp_path / "store") == 1 for task in READERS)


def test_resume_after_kill_9_neither_loses_nor_duplicates_examples(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    args = [WEBWISE, "harvest", "--tasks", ",".join(READERS), "--seeds", "4", "--llm", readers(tmp_path),
            "--store", str(store_dir)]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while len(journal(store_dir)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        os.killpg(process.pid, signal.SIGKILL)  # the harvest and its browser, as a kill -9 of the session would
        process.wait()
    killed_at = len(journal(store_dir))
    assert 2 <= killed_at < 12
    with (store_dir / JOURNAL).open("ab") as handle:  # what a kill in the middle of a write leaves
        handle.write(b'{"task": "click-link", "seed": 3, "meth')
    again = subprocess.run(args, capture_output=True, text=True, timeout=200)
    assert again.returncode == 0, again.stderr
    assert f"{killed_at} already in" in again.stderr and f"{12 - killed_at} to run" in again.stderr
    keys = [record_key(r) for r in journal(store_dir)]
    assert len(keys) == 12 and len(set(keys)) == 12  # no finished episode ran twice
    for task, program in READERS.items():
        [entry] = json.loads((store_dir / f"{task}.json").read_text())
        assert program.split("```python\n")[1].startswith(entry["steps"][0]["program"])
    assert [line.split("\t")[4] for line in again.stdout.splitlines()[1:]] == ["1", "1", "1"]  # kept, once each


def test_an_episode_killed_after_storing_its_example_counts_it_as_kept_when_rerun(tmp_path: Path) -> None:
    """A kill between the store and the journal: the rerun finds its own example, not another's duplicate."""
    store_dir, llm = tmp_path / "store", replay(tmp_path, {"click-button": [GENERAL]})
    harvest(["click-button"], seeds=1, llm=llm, store_dir=store_dir, progress=QUIET)
    (store_dir / JOURNAL).unlink()
    [report] = harvest(["click-button"], seeds=2, llm=llm, store_dir=store_dir, progress=QUIET)
    assert (report.episodes, report.kept, report.duplicates, report.stored) == (2, 1, 1, 1)
    assert [r["verdict"] for r in journal(store_dir)] == ["solved; kept (stored before an interruption)",
                                                          "solved; duplicate"]


def test_ctrl_c_exits_130_with_what_was_kept_on_disk(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    process = subprocess.Popen([WEBWISE, "harvest", "--tasks", "click-button", "--seeds", "40", "--llm",
                                readers(tmp_path), "--store", str(store_dir)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while len(journal(store_dir)) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()
    assert process.returncode == 130, err
    assert "harvest: interrupted;" in err and "the same command runs the rest" in err
    assert 3 <= len(journal(store_dir)) < 40 and store.count("click-button", store_dir) == 1
    assert out.splitlines()[1].split("\t")[4] == "1"


def test_harvest_remote_and_seed_errors_are_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    llm = readers(tmp_path)
    base = ["harvest", "--tasks", "click-button", "--llm", llm, "--store", str(tmp_path / "store")]
    assert main([*base, "--remote", "http://127.0.0.1:9"]) == 2
    assert capsys.readouterr().err.startswith("webwise: error: cannot reach the Grid at http://127.0.0.1:9: ")
    assert not (tmp_path / "store").exists()  # asked before the store is made
    assert main([*base, "--seed-start", "99999", "--seeds", "2"]) == 2
    assert capsys.readouterr().err == ("webwise: error: harvest seeds must be below 100000, where the check's fresh "
                                       "seeds start; got 100000\n")


def test_concurrent_harvests_never_corrupt_the_store(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    files = [replay(tmp_path, {"click-button": [reply]}, f"c{n}.json")
             for n, reply in enumerate([GENERAL, OTHER_SPELLING])]
    runs = [subprocess.Popen([sys.executable, "-m", "webwise", "harvest", "--tasks", "click-button,click-test",
                              "--seeds", "2", "--llm", llm, "--store", str(store_dir)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE) for llm in files]
    for run in runs:
        assert run.wait(timeout=120) == 0, run.stderr.read()
    entries = json.loads((store_dir / "click-button.json").read_text())
    assert len(entries) == 2
    assert len({store.programs_key(e) for e in entries}) == 2
    assert not list(store_dir.glob("*.tmp"))


def test_auto_prompt_shows_harvested_programs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store_dir = tmp_path / "store"
    harvest(["click-button"], seeds=1, llm=replay(tmp_path, {"click-button": [GENERAL]}), store_dir=store_dir,
            progress=QUIET)
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


def bench_run(tmp_path: Path, replies: dict[str, list[str]], examples: str = "none", seeds: int = 2) -> Path:
    """A bench's output folder: the episodes of ``replies``' tasks on seeds 0.., zero-shot by default."""
    out = tmp_path / "bench"
    llm = replay(tmp_path, replies, f"bench-{examples}.json")
    args = ["bench", "--tasks", ",".join(replies), "--seeds", str(seeds), "--examples", examples, "--llm", llm,
            "--out", str(out), "--resume"]
    assert main(args) == 0
    return out


def test_a_bench_run_s_solved_episodes_become_examples_without_the_model(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The bench's model is gone when the import runs: the candidates are the episodes' own
    programs, checked by replay on the fresh seeds, and kept as a harvest keeps them."""
    out = bench_run(tmp_path, {"click-button": [GENERAL], "click-link": [WRONG]})
    (tmp_path / "bench-none.json").unlink()
    capsys.readouterr()
    store_dir = tmp_path / "store"
    assert main(["harvest", "--from-results", str(out), "--store", str(store_dir)]) == 0
    out_lines, err = capsys.readouterr()
    assert f"import: 4 episodes of {out / 'results.jsonl'} to learn from, 0 already in" in err
    rows = [line.split("\t")[:9] for line in out_lines.splitlines()[1:]]
    assert rows == [["click-button", "2", "2", "2", "1", "0", "1", "0", "1"],
                    ["click-link", "2", "0", "0", "0", "0", "0", "0", "0"]]
    [entry] = json.loads((store_dir / "click-button.json").read_text())
    provenance = entry["provenance"]
    assert (provenance["seed"], provenance["trial"], provenance["examples"]) == (0, 0, "none")
    assert provenance["llm"] == f"replay:{tmp_path / 'bench-none.json'}"
    assert provenance["check_seeds"] == [100000, 100002, 100003]  # as a harvest's of seed 10000: seed 0 asks "okay" too
    assert provenance["imported_from"] == "../bench/results.jsonl" and provenance["imported_with"]
    assert entry["steps"][0]["program"].endswith("click('button', re.search(r'\"(.*)\"', task).group(1))")
    lines = journal(store_dir)
    assert {record_key(line) for line in lines} == {record_key(r) for r in read_results(out / "results.jsonl")}
    assert all(line["imported_from"] == "../bench/results.jsonl" for line in lines)

    assert main(["harvest", "--from-results", str(out / "results.jsonl"), "--tasks", "click-button",
                 "--store", str(store_dir)]) == 0
    assert "2 episodes of" in capsys.readouterr().err and len(journal(store_dir)) == 4


def test_a_store_moved_with_the_run_it_learnt_from_resumes_where_it_was(tmp_path: Path) -> None:
    """A store committed beside its bench run (benchmarks/results/...) is resumed from another
    clone: the journal names the results file from the store, so nothing is looked at twice.
    A journal that named it by its absolute path, as earlier versions wrote, still counts."""
    replies = {"click-button": [GENERAL]}
    (tmp_path / "here").mkdir()
    bench_run(tmp_path / "here", replies, seeds=2)
    [first] = import_results(tmp_path / "here" / "bench", store_dir=tmp_path / "here" / "store",
                             progress=io.StringIO())
    assert (first.episodes, first.kept) == (2, 1)
    shutil.move(tmp_path / "here", tmp_path / "clone")
    progress = io.StringIO()
    [again] = import_results(tmp_path / "clone" / "bench", store_dir=tmp_path / "clone" / "store", progress=progress)
    assert "2 episodes of" in progress.getvalue() and "2 already in" in progress.getvalue()
    assert (again.episodes, again.kept, again.duplicates) == (2, 1, 1)
    assert len(journal(tmp_path / "clone" / "store")) == 2

    absolute = tmp_path / "clone" / "store" / JOURNAL
    results = str((tmp_path / "clone" / "bench" / "results.jsonl").resolve())
    absolute.write_text("".join(json.dumps({**line, "imported_from": results}) + "\n"
                                for line in journal(tmp_path / "clone" / "store")))
    progress = io.StringIO()
    import_results(tmp_path / "clone" / "bench", store_dir=tmp_path / "clone" / "store", progress=progress)
    assert "2 already in" in progress.getvalue()


def test_importing_a_bench_run_again_looks_only_at_its_new_episodes(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    replies = {"click-button": [GENERAL]}
    out = bench_run(tmp_path, replies, seeds=1)
    progress = io.StringIO()
    [first] = import_results(out, store_dir=store_dir, progress=progress)  # the library's way
    assert (first.episodes, first.kept) == (1, 1)
    bench_run(tmp_path, replies, seeds=3)  # the bench went on
    progress = io.StringIO()
    [again] = import_results(out, store_dir=store_dir, progress=progress)
    assert "3 episodes of" in progress.getvalue() and "1 already in" in progress.getvalue()
    assert (again.episodes, again.solved, again.kept, again.duplicates) == (3, 3, 1, 2)
    assert [line["seed"] for line in journal(store_dir)] == [0, 1, 2]


def test_an_import_killed_between_the_store_and_the_journal_counts_its_example_as_kept(tmp_path: Path) -> None:
    """What kill -9 leaves between storing an example and journaling its episode: the rerun looks
    at the episode again and finds its own example, neither a duplicate nor a second copy."""
    store_dir = tmp_path / "store"
    out = bench_run(tmp_path, {"click-button": [GENERAL]}, seeds=1)
    import_results(out, store_dir=store_dir, progress=QUIET)
    (store_dir / JOURNAL).write_text("")
    progress = io.StringIO()
    [report] = import_results(out, store_dir=store_dir, progress=progress)
    assert "1 to look at" in progress.getvalue() and "kept (stored before an interruption)" in progress.getvalue()
    assert (report.kept, report.duplicates, report.stored) == (1, 0, 1)


def test_episodes_shown_hand_written_examples_are_not_learnt_from(tmp_path: Path) -> None:
    out = bench_run(tmp_path, {"click-button": [GENERAL]}, examples="manual")
    progress = io.StringIO()
    [report] = import_results(out, store_dir=tmp_path / "store", progress=progress)
    assert "0 episodes of" in progress.getvalue() and "2 left out" in progress.getvalue()
    assert (report.episodes, report.stored) == (0, 0)
    assert journal(tmp_path / "store") == []


def test_an_auto_episode_is_not_shown_the_example_solved_on_its_own_page(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An example learnt from seed 0 would hand seed 0 its own answer; seed 1 may see it."""
    store_dir = tmp_path / "store"
    import_results(bench_run(tmp_path, {"click-button": [GENERAL]}, seeds=1), store_dir=store_dir, progress=QUIET)
    solve = ["solve", "--task", "click-button", "--examples", "auto", "--store", str(store_dir),
             "--llm", replay(tmp_path, {"*": [GENERAL]}, "solve.json"), "--json"]
    capsys.readouterr()
    main([*solve, "--seed", "0"])
    own = json.loads(capsys.readouterr().out)
    assert own["examples_shown"] == []
    assert own["trace"][0]["note"] == "no auto example for click-button; running zero-shot"
    main([*solve, "--seed", "1"])
    other = json.loads(capsys.readouterr().out)
    assert other["examples_shown"] == [{"task": "click-button", "number": 1, "source": "auto"}]
    assert "Here is a task you solved before" in other["trace"][0]["prompt"][1]["content"]


def test_records_from_before_later_fields_are_learnt_from(tmp_path: Path) -> None:
    """Results written before ``infra_error``, ``guards``, ``examples_shown`` and the steps'
    ``changed`` were recorded (the committed 1.5B runs of the 48 tasks) are imported alike;
    records without their programs are left out and counted."""
    out = bench_run(tmp_path, {"click-button": [GENERAL]})
    old = []
    for record in read_results(out / "results.jsonl"):
        for name in ("infra_error", "guards", "examples_shown", "calls", "code", "commit"):
            record.pop(name)
        for step in record["trace"]:
            step.pop("changed")
            for element in step["observation"]:  # older still: no flags on elements
                element.pop("clicked"), element.pop("modified")
        old.append(record)
    old[1].pop("trace")
    (out / "results.jsonl").write_text("".join(json.dumps(record) + "\n" for record in old))
    progress = io.StringIO()
    [report] = import_results(out, store_dir=tmp_path / "store", progress=progress)
    assert "1 episodes of" in progress.getvalue() and "1 left out" in progress.getvalue()
    assert (report.episodes, report.kept, report.stored) == (1, 1, 1)
    [line] = journal(tmp_path / "store")
    assert (line["guards"], line["code"]) == (True, "unrecorded")
    [entry] = json.loads((tmp_path / "store" / "click-button.json").read_text())
    assert entry["provenance"]["code"] == "unrecorded" and entry["provenance"]["imported_with"]
    assert not store.load("click-button", tmp_path / "store")[0].steps[0].observation[0]["clicked"]


def test_auto_near_episodes_shown_their_own_task_s_example_are_not_learnt_from(tmp_path: Path) -> None:
    """auto-near shows a task its own stored example when there is one: such an episode copied it."""
    out = bench_run(tmp_path, {"click-button": [GENERAL]}, seeds=3)
    records = read_results(out / "results.jsonl")
    own = {"task": "click-button", "number": 1, "source": "auto"}
    relative = {"task": "click-link", "number": 1, "source": "auto"}
    for record, shown in zip(records, ([own], [relative], None)):
        record["examples"] = "auto-near"
        if shown is None:
            record.pop("examples_shown")  # from before it was kept: cannot say
        else:
            record["examples_shown"] = shown
    (out / "results.jsonl").write_text("".join(json.dumps(record) + "\n" for record in records))
    progress = io.StringIO()
    [report] = import_results(out, store_dir=tmp_path / "store", progress=progress)
    assert "1 episodes of" in progress.getvalue() and "2 left out" in progress.getvalue()
    assert [line["seed"] for line in journal(tmp_path / "store")] == [1]
    assert report.kept == 1


def test_a_second_bench_file_with_the_same_episodes_is_looked_at_in_full(tmp_path: Path) -> None:
    """A rerun of the same episodes (another code version) is another file: importing it after the
    first finds its twins duplicates, not episodes already done or stored before an interruption."""
    store_dir = tmp_path / "store"
    first = bench_run(tmp_path, {"click-button": [GENERAL]}, seeds=2)
    import_results(first, store_dir=store_dir, progress=QUIET)
    rerun = first.rename(tmp_path / "rerun")
    progress = io.StringIO()
    [report] = import_results(rerun, store_dir=store_dir, progress=progress)
    assert "2 episodes of" in progress.getvalue() and "0 already in" in progress.getvalue()
    assert (report.episodes, report.solved, report.kept, report.duplicates) == (2, 2, 0, 2)
    assert len(journal(store_dir)) == 4 and store.count("click-button", store_dir) == 1


def test_a_check_failing_outside_the_agent_is_journaled_under_the_episode_and_looked_at_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import webwise.harvest
    from webwise.errors import WebwiseError

    out = bench_run(tmp_path, {"click-button": [GENERAL]}, seeds=1)
    store_dir = tmp_path / "store"
    capsys.readouterr()

    def browser_gone(*args: object, **kwargs: object) -> None:
        raise WebwiseError("the browser went away")

    with monkeypatch.context() as broken:
        broken.setattr(webwise.harvest, "check", browser_gone)
        assert main(["harvest", "--from-results", str(out), "--store", str(store_dir)]) == 1
    err = capsys.readouterr().err
    assert "import: 1 episodes ended on an infrastructure failure; the same command runs them again" in err
    [fault] = journal(store_dir)
    assert record_key(fault) == record_key(read_results(out / "results.jsonl")[0])
    assert fault["infra_error"] == "the browser went away" and fault["imported_from"] == "../bench/results.jsonl"
    assert main(["harvest", "--from-results", str(out), "--store", str(store_dir)]) == 0
    assert "1 to look at" in capsys.readouterr().err and store.count("click-button", store_dir) == 1


def test_a_harvest_s_check_failing_outside_the_agent_is_a_journal_line_with_outcome_fault_run_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import webwise.harvest
    from webwise.errors import WebwiseError

    llm = replay(tmp_path, {"click-button": [GENERAL]})
    store_dir = tmp_path / "store"

    def browser_gone(*args: object, **kwargs: object) -> None:
        raise WebwiseError("the browser went away")

    with monkeypatch.context() as broken:
        broken.setattr(webwise.harvest, "check", browser_gone)
        [report] = harvest(["click-button"], seeds=1, llm=llm, store_dir=store_dir, progress=QUIET)
    assert report.faults == 1
    [fault] = journal(store_dir)
    assert (fault["task"], fault["seed"], fault["outcome"]) == ("click-button", HARVEST_SEED_START, "fault")
    assert fault["infra_error"] == "the browser went away" and "trace" not in fault
    assert main(["harvest", "--tasks", "click-button", "--seeds", "1", "--llm", llm,
                 "--store", str(store_dir)]) == 0
    assert "1 to run" in capsys.readouterr().err and store.count("click-button", store_dir) == 1


def test_a_recheck_failing_outside_the_agent_keeps_the_candidate_for_the_next_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import webwise.harvest
    from webwise.errors import WebwiseError

    program = "click('input_text', 'tt')\nenter_text('sergio')\nclick('button', 'Submit')"
    store_dir = tmp_path / "store"
    with monkeypatch.context() as older:
        older.setattr(webwise.harvest, "REWRITES", ())
        harvest(["enter-text-2"], seeds=1, llm=replay(tmp_path, {"enter-text-2": [f"```python\n{program}\n```"]}),
                store_dir=store_dir, progress=QUIET)

    def browser_gone(*args: object, **kwargs: object) -> None:
        raise WebwiseError("the browser went away")

    with monkeypatch.context() as broken:
        broken.setattr(webwise.harvest, "check", browser_gone)
        assert main(["harvest", "--tasks", "enter-text-2", "--recheck", "--store", str(store_dir)]) == 1
    refused, fault = journal(store_dir)
    assert record_key(fault) == record_key(refused) and fault["candidate"] == refused["candidate"]
    assert fault["infra_error"] == "the browser went away"
    [report] = recheck(["enter-text-2"], store_dir=store_dir, progress=QUIET)
    assert (report.kept, report.stored) == (1, 1)


def test_auto_near_shows_a_relative_s_example_where_the_task_s_own_was_solved_on_this_page(tmp_path: Path) -> None:
    store_dir = tmp_path / "store"
    import_results(bench_run(tmp_path, {"click-button": [GENERAL], "click-test": [READERS["click-test"]]}, seeds=1),
                   store_dir=store_dir, progress=QUIET)
    assert [e.task for e in load_examples("click-button", "auto-near", store_dir, seed=0)] == ["click-test"]
    assert [e.task for e in load_examples("click-button", "auto-near", store_dir, seed=1)] == ["click-button"]
    assert [e.task for e in load_examples("click-button", "auto", store_dir)] == ["click-button"]


def test_a_file_of_another_kind_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A harvest's journal has an episode's identity but not its programs' record."""
    store_dir = tmp_path / "store"
    harvest(["click-button"], seeds=1, llm=replay(tmp_path, {"click-button": [GENERAL]}), store_dir=store_dir,
            progress=QUIET)
    assert main(["harvest", "--from-results", str(store_dir / JOURNAL), "--store", str(tmp_path / "other")]) == 2
    assert capsys.readouterr().err == (f"webwise: error: {store_dir / JOURNAL}: record 1 is not a bench episode's: "
                                       "it has no 'utterance'\n")


@pytest.mark.parametrize(("args", "error"), [
    (["--from-results", "{tmp}/nothing"], "no bench results at {tmp}/nothing"),
    (["--from-results", "{tmp}", "--recheck"], "--from-results and --recheck are two different runs: give one of them"),
    ([], "harvest needs --tasks (or --from-results, which takes the file's tasks)"),
])
def test_import_errors_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               args: list[str], error: str) -> None:
    assert main(["harvest", *(arg.format(tmp=tmp_path) for arg in args), "--store", str(tmp_path / "store")]) == 2
    assert capsys.readouterr().err == f"webwise: error: {error.format(tmp=tmp_path)}\n"


def test_bench_records_an_import_cannot_learn_from_are_refused_naming_their_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Records read_results takes as episodes' but whose attempts or steps are not as a bench writes
    them (a file edited by hand) are refused up front, as any other bad line is, before anything runs."""
    out = bench_run(tmp_path, {"click-button": [GENERAL]}, seeds=1)
    [record] = read_results(out / "results.jsonl")
    no_win = {**record, "trials": [{**trial, "success": False} for trial in record["trials"]]}
    no_page = {**record, "trace": [{**step, "observation": None} for step in record["trace"]]}
    no_program = {**record, "trace": [{k: v for k, v in step.items() if k != "program"} for step in record["trace"]]}
    capsys.readouterr()
    for broken, problem in ((no_win, "it is a success, but no trial succeeded"),
                            (no_page, "a step's observation is null"),
                            (no_program, "a step lacks one of trial, program, error, observation")):
        results = tmp_path / "edited.jsonl"
        results.write_text(json.dumps(record) + "\n" + json.dumps(broken) + "\n")
        assert main(["harvest", "--from-results", str(results), "--store", str(tmp_path / "store")]) == 2
        assert capsys.readouterr().err == (f"webwise: error: {results}: line 2 is not an episode record ({problem})\n")
    assert not (tmp_path / "store").exists()


@pytest.mark.parametrize(("candidate", "problem"), [
    (None, "its candidate: expected an object with 'instruction' and 'steps'"),
    ("click('button', 'Ok')", "its candidate: expected an object with 'instruction' and 'steps'"),
    ({"instruction": "Click Ok.", "steps": [{"observation": [], "program": "click('button', 'Ok')"}]},
     "its candidate's provenance has no 'llm'"),
])
def test_a_hand_edited_candidate_is_refused_naming_its_journal_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], candidate: object, problem: str) -> None:
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    refused = {"task": "click-button", "seed": 10000, "method": "webwise", "examples": "none", "llm": "replay:x",
               "success": True, "error": None, "infra_error": None, "outcome": "refused", "candidate": candidate}
    (store_dir / JOURNAL).write_text(json.dumps(refused) + "\n")
    assert main(["harvest", "--tasks", "click-button", "--recheck", "--store", str(store_dir)]) == 2
    assert capsys.readouterr().err == (f"webwise: error: {store_dir / JOURNAL}: line 1 is not an episode record "
                                       f"({problem})\n")


def test_a_store_whose_lock_cannot_be_taken_is_refused_before_any_episode(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store_dir = tmp_path / "store"
    (store_dir / ".lock").mkdir(parents=True)
    assert main(["harvest", "--tasks", "click-button", "--seeds", "1", "--llm", replay(tmp_path, {"*": [GENERAL]}),
                 "--store", str(store_dir)]) == 2
    assert capsys.readouterr().err == f"webwise: error: cannot open {store_dir / '.lock'}: Is a directory\n"
    assert not (store_dir / JOURNAL).exists()


@pytest.mark.parametrize(("arguments", "message"), [
    ({"tasks": "click-button"}, "tasks is a list, not the string 'click-button': pass ['click-button']"),
    ({"tasks": []}, "tasks is empty: give at least one"),
    ({"seeds": 0}, "seeds must be a whole number >= 1, not 0"),
    ({"seeds": "2"}, "seeds must be a whole number >= 1, not '2'"),
    ({"seed_start": -5}, "seed -5 is out of range: seeds run from 0 to 9007199254740991"),
    ({"workers": 0}, "workers must be a whole number >= 1, not 0"),
    ({"max_steps": -1}, "max_steps must be a whole number >= 1, not -1"),
    ({"check_seeds": "3"}, "check_seeds must be a whole number from 1 to 100, not '3'"),
], ids=lambda value: str(value)[:40])
def test_a_bad_library_argument_is_a_one_line_error_before_anything_runs(
        tmp_path: Path, arguments: dict[str, object], message: str) -> None:
    given = {"tasks": ["click-button"], "seeds": 1, **arguments}
    with pytest.raises(ConfigError) as info:
        harvest(given.pop("tasks"), llm=replay(tmp_path, {"click-button": [GENERAL]}),  # type: ignore[arg-type]
                store_dir=tmp_path / "store", progress=QUIET, **given)  # type: ignore[arg-type]
    assert str(info.value) == message
    assert not (tmp_path / "store").exists()


def test_the_library_takes_folders_and_results_files_as_strings(tmp_path: Path) -> None:
    llm = replay(tmp_path, {"click-button": [GENERAL]})
    [report] = harvest(["click-button"], seeds=1, llm=llm, store_dir=str(tmp_path / "store"), progress=QUIET)
    assert (report.solved, report.kept) == (1, 1) and store.count("click-button", tmp_path / "store") == 1
    with pytest.raises(ConfigError, match=f"^no bench results at {tmp_path / 'nothing'}$"):
        import_results(str(tmp_path / "nothing"), store_dir=str(tmp_path / "store"), progress=QUIET)
    with pytest.raises(ConfigError, match="^tasks is a list, not the string 'click-button'"):
        recheck("click-button", store_dir=str(tmp_path / "store"), progress=QUIET)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="^tasks is empty: give at least one$"):
        recheck([], store_dir=str(tmp_path / "store"), progress=QUIET)


def test_a_recheck_of_a_store_that_is_not_there_is_bad_input(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """A mistyped --store used to print "0 refused candidates to check again" and exit 0."""
    typo = tmp_path / "stroe"
    assert main(["harvest", "--tasks", "click-button", "--recheck", "--store", str(typo)]) == 2
    assert capsys.readouterr().err == (f"webwise: error: no harvest journal at {typo / JOURNAL}: --recheck checks "
                                       "a harvested store's refusals\n")
    assert not typo.exists()
    with pytest.raises(ConfigError, match="^no harvest journal at "):
        recheck(["click-button"], store_dir=typo, progress=QUIET)


@pytest.mark.parametrize("change, said", [
    ({"success": None}, "no 'success'"),
    ({"refusal": None}, "a refused candidate without its refusal as a text"),
    ({"refusal": 5}, "a refused candidate without its refusal as a text"),
    ({"imported_from": ["a"]}, "'imported_from' is not a path"),
])
def test_a_hand_edited_journal_record_a_harvest_would_trip_over_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict, said: str) -> None:
    """Each of these ended a recheck (and a harvest's summary) with a traceback and exit 1."""
    record = {"task": "click-button", "seed": 1, "method": "webwise", "examples": "none", "llm": "replay:x",
              "max_trials": 1, "guards": True, "success": True, "outcome": "refused", "refusal": "r"}
    record.update(change)
    record = {key: value for key, value in record.items() if value is not None}
    store_dir = tmp_path / "store"
    store_dir.mkdir()
    (store_dir / JOURNAL).write_text(json.dumps(record) + "\n")
    assert main(["harvest", "--tasks", "click-button", "--recheck", "--store", str(store_dir)]) == 2
    err = capsys.readouterr().err
    assert err == f"webwise: error: {store_dir / JOURNAL}: line 1 is not an episode record ({said})\n"
