"""``webwise store``: a harvested store people can read and curate (list, show, remove)."""

from __future__ import annotations

import fcntl
import os
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from webwise import store
from webwise.atomic import open_own
from webwise.cli import main
from webwise.episode import Episode
from webwise.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
REPLAY = ROOT / "tests" / "replays" / "solve.json"

BUTTON = {"ref": 4, "tag": "button", "text": "Next", "id": "", "classes": "", "value": "",
          "clicked": False, "modified": False}
GENERAL = "import re\nclick('button', re.search(r'\"(.*)\"', task).group(1))"


def entry(instruction: str, program: str, **provenance: Any) -> dict[str, Any]:
    return {"instruction": instruction, "steps": [{"observation": [BUTTON], "program": program}],
            "provenance": {"llm": "local:1.5b", "method": "webwise", "seed": 3, "reward": 1.0, "seconds": 9.5,
                           "harvested_at": "2026-11-24T10:00:00+00:00", **provenance}}


@pytest.fixture()
def stored(tmp_path: Path) -> Path:
    """A store with two examples of a paper task (one of the old format) and one of another task."""
    directory = tmp_path / "store"
    directory.mkdir()
    (directory / "click-button.json").write_text(json.dumps([
        entry('Click on the "Next" button.', GENERAL, check_seed=100003),
        entry('Click on the "Ok" button.', "click('button', 'Ok')", trial=1, code="0.4.0+src.abc123",
              check_seeds=[100010, 100011, 100012])]))
    (directory / "click-color.json").write_text(json.dumps([
        entry("Click the red button.", "click('button', 'red')", harvested_at="2026-11-25T01:02:03+00:00",
              check_seeds=[7, 8, 9])]))
    return directory


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of ``webwise ARGV`` (argparse's refusals exit)."""
    try:
        code = main(list(argv))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_list_shows_provenance_and_coverage(stored: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "store", "list", "--store", str(stored))
    lines = out.splitlines()
    assert code == 0 and err == ""
    assert lines[0].split("\t") == ["task", "number", "steps", "llm", "code", "date", "seeds_verified", "instruction"]
    assert lines[1:4] == [
        'click-button\t1\t1\tlocal:1.5b\t-\t2026-11-24\t100003\tClick on the "Next" button.',
        'click-button\t2\t1\tlocal:1.5b\t0.4.0+src.abc123\t2026-11-24\t100010,100011,100012\tClick on the "Ok" button.',
        "click-color\t1\t1\tlocal:1.5b\t-\t2026-11-25\t7,8,9\tClick the red button.",
    ]
    assert lines[4:] == ["2 of 130 tasks have an example; 1 of the paper's 48"]


def test_list_of_one_task(stored: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "store", "list", "--store", str(stored), "--task", "click-color")
    assert code == 0
    assert [line.split("\t")[0] for line in out.splitlines()[1:-1]] == ["click-color"]


def test_show_prints_the_example_as_the_prompt_shows_it(stored: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """What `store show` prints is, character for character, part of a real `--examples auto` prompt."""
    code, shown_one, _ = run(capsys, "store", "show", "click-button", "2", "--store", str(stored))
    assert code == 0
    assert shown_one.startswith("Here is a task you solved before, with the program that solved it:\n"
                                'Task: Click on the "Ok" button.\nPage:\n[4] button "Next"\n')
    assert "click('button', 'Ok')" in shown_one and GENERAL not in shown_one
    _, shown_all, _ = run(capsys, "store", "show", "click-button", "--store", str(stored))
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"*": [f"```python\n{GENERAL}\n```"]}))
    main(["solve", "--task", "click-button", "--examples", "auto", "--store", str(stored), "--llm", f"replay:{replies}",
          "--json"])
    prompt = json.loads(capsys.readouterr().out)["trace"][0]["prompt"][1]["content"]
    assert prompt.startswith(shown_all.rstrip("\n") + "\n\nTask: ")
    assert shown_one.rstrip("\n") in prompt


def test_remove_takes_out_one_and_the_file_with_the_last(stored: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "store", "remove", "click-button", "1", "--store", str(stored))
    assert code == 0 and out == 'removed click-button example 1: Click on the "Next" button.\n'
    [left] = store.load("click-button", stored)
    assert (left.instruction, left.number) == ('Click on the "Ok" button.', 1)
    assert run(capsys, "store", "remove", "click-color", "1", "--store", str(stored))[0] == 0
    assert not (stored / "click-color.json").exists()
    assert store.tasks(stored) == ["click-button"]
    assert not list(stored.glob("*.tmp"))


@pytest.mark.parametrize(("argv", "message"), [
    (["show", "no-such-task"], "unknown task 'no-such-task'; `webwise tasks` lists the 130 available"),
    (["remove", "no-such-task", "1"], "unknown task 'no-such-task'; `webwise tasks` lists the 130 available"),
    (["list", "--task", "no-such-task"], "unknown task 'no-such-task'; `webwise tasks` lists the 130 available"),
    (["show", "click-link"], "no example for click-link in {store}"),
    (["remove", "click-link", "1"], "no example for click-link in {store}"),
    (["show", "click-button", "3"], "click-button has 2 example(s) in {store}; there is no example 3"),
    (["remove", "click-color", "2"], "click-color has 1 example(s) in {store}; there is no example 2"),
    (["remove", "click-color", "0"],
     "argument number: the example's number must be a whole number >= 1, not 0"),
])
def test_bad_input_is_one_line_and_exit_2(stored: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                          message: str) -> None:
    before = {path.name: path.read_bytes() for path in stored.iterdir()}
    code, out, err = run(capsys, "store", *argv, "--store", str(stored))
    assert (code, out) == (2, "") and err == f"webwise: error: {message.format(store=stored)}\n"
    assert {path.name: path.read_bytes() for path in stored.iterdir()} == before


@pytest.mark.parametrize("command", [["list"], ["show", "click-button"], ["remove", "click-button", "1"]])
def test_no_store_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, err = run(capsys, "store", *command, "--store", str(tmp_path / "typo"))
    assert (code, out, err) == (2, "", f"webwise: error: no example store at {tmp_path / 'typo'}\n")
    assert not (tmp_path / "typo").exists()


def test_remove_waits_for_the_stores_lock(stored: Path) -> None:
    """A removal while a harvest holds the lock waits for it, then removes: no lost update."""
    with open(stored / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        removal = subprocess.Popen([sys.executable, "-m", "webwise", "store", "remove", "click-button", "2",
                                    "--store", str(stored)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        with pytest.raises(subprocess.TimeoutExpired):
            removal.wait(timeout=3)
        assert store.count("click-button", stored) == 2
        fcntl.flock(lock, fcntl.LOCK_UN)
    assert removal.wait(timeout=60) == 0, removal.stderr.read() if removal.stderr else ""
    assert [e.instruction for e in store.load("click-button", stored)] == ['Click on the "Next" button.']


@pytest.mark.parametrize(("broken", "message"), [
    ("not an example", "example 1: expected an object with 'instruction' and 'steps'"),
    ({**entry("Click Next.", "click('button', 'Next')"), "steps": 3}, "example 1: 'steps' must be a non-empty list"),
    ({**entry("Click Next.", "click('button', 'Next')"), "provenance": ["local:1.5b"]},
     "example 1: 'provenance' must be an object"),
    (entry("Click Next.", "click('button', 'Next')", check_seeds=100000), "the provenance's seeds must be whole numbers"),
    ({"instruction": "Click Next.", "steps": [{"observation": [{**BUTTON, "classes": 3}], "program": "pass"}]},
     "example 1, step 1, element 0: 'classes' must be a string"),
])
@pytest.mark.parametrize("command", [["list"], ["show", "click-link"]])
def test_a_malformed_store_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                  broken: object, message: str, command: list[str]) -> None:
    """A store may be a folder someone handed over: refused up front, before a prompt is built."""
    (tmp_path / "click-link.json").write_text(json.dumps([broken]))
    code, out, err = run(capsys, "store", *command, "--store", str(tmp_path))
    assert (code, out) == (2, "") and err.count("\n") == 1 and message in err, err
    with pytest.raises(ConfigError, match="example 1"):
        store.load("click-link", tmp_path)


def test_a_store_the_user_cannot_read_is_an_error(stored: Path, capsys: pytest.CaptureFixture[str],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Not an empty listing. Root reads anything, so the permission check answers as for another
    user's store."""
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: not (mode & os.R_OK and Path(path) == stored)
                        and real_access(path, mode))
    for command in (["list"], ["show", "click-button"]):
        code, out, err = run(capsys, "store", *command, "--store", str(stored))
        assert (code, out, err) == (2, "", f"webwise: error: cannot read the example store at {stored}\n"), command


def test_a_checkout_s_store_the_user_cannot_write_is_an_error(stored: Path, capsys: pytest.CaptureFixture[str],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """``store remove`` and ``harvest`` write the checkout's store by default: one the user may
    only read (another user's checkout) is refused before anything runs, as a --store DIR is."""
    monkeypatch.setattr(store, "DEFAULT_STORE", stored)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: not (mode & os.W_OK and Path(path) == stored)
                        and real_access(path, mode))
    for command, argv in (("store remove", ["store", "remove", "click-button", "1"]),
                          ("harvest", ["harvest", "--tasks", "click-button", "--llm", "replay:x.json"])):
        code, out, err = run(capsys, *argv)
        assert (code, out, err) == (2, "", f"webwise: error: {command}: cannot write in {stored}; give --store DIR\n")
    assert store.count("click-button", stored) == 2


def test_the_library_takes_a_store_folder_as_a_string(stored: Path) -> None:
    folder = str(stored)
    assert store.coverage(folder) == "2 of 130 tasks have an example; 1 of the paper's 48"
    assert [(row.task, row.number) for row in store.listing(folder)] == [
        ("click-button", 1), ("click-button", 2), ("click-color", 1)]
    [example] = store.pick("click-button", 2, folder)
    assert example.instruction == 'Click on the "Ok" button.'
    assert store.remove("click-color", 1, folder)["instruction"] == "Click the red button."
    assert store.tasks(folder) == ["click-button"]


@pytest.mark.parametrize("number", ["1", 1.0, True])
def test_an_example_number_that_is_not_a_whole_number_is_a_one_line_error(stored: Path, number: object) -> None:
    with pytest.raises(ConfigError, match="^the example's number must be a whole number >= 1, not "):
        store.pick("click-button", number, stored)  # type: ignore[arg-type]


@pytest.mark.parametrize("number", [None, "1", 0])
def test_remove_needs_one_example_s_number(stored: Path, number: object) -> None:
    """``pick`` reads None as all of the task's examples; a removal needs one number (None raised TypeError)."""
    with pytest.raises(ConfigError, match="^the example's number must be a whole number >= 1, not "):
        store.remove("click-button", number, stored)  # type: ignore[arg-type]
    assert store.count("click-button", stored) == 2


def webwise(*argv: str) -> subprocess.CompletedProcess[str]:
    """``webwise ARGV`` in a process of its own: one that waits forever fails the test, not the run."""
    return subprocess.run([sys.executable, "-m", "webwise", *argv], capture_output=True, text=True, timeout=60)


HARVEST = ["harvest", "--tasks", "click-button", "--seeds", "1", "--llm", f"replay:{REPLAY}"]
LOCK = "{path} is not a regular file: webwise writes only files of its own there; remove it"
JOURNAL = "cannot read {path}: not a regular file"


@pytest.mark.parametrize(("name", "argv", "message"), [
    (".lock", ["store", "remove", "click-button", "1"], LOCK),
    (".lock", HARVEST, LOCK),
    ("harvest.jsonl", HARVEST, JOURNAL),
    ("harvest.jsonl", ["harvest", "--tasks", "click-button", "--recheck"], JOURNAL),
    ("harvest.jsonl", ["harvest", "--from-results", "{run}", "--tasks", "click-button"], JOURNAL),
], ids=["store remove, lock", "harvest, lock", "harvest, journal", "recheck, journal", "import, journal"])
def test_a_fifo_in_the_store_is_refused_not_waited_on(stored: Path, tmp_path: Path, name: str, argv: list[str],
                                                      message: str) -> None:
    """Opening a FIFO no one writes or reads blocks forever: the lock's open, the journal's read."""
    (tmp_path / "run").mkdir()  # a bench's results to import from
    (tmp_path / "run" / "results.jsonl").write_text(
        json.dumps(Episode("click-button", 0, "webwise", "none", "m").to_dict()) + "\n")
    before = (stored / "click-button.json").read_bytes()
    os.mkfifo(stored / name)
    result = webwise(*(arg.format(run=tmp_path / "run") for arg in argv), "--store", str(stored))
    assert (result.returncode, result.stdout) == (2, ""), result
    assert result.stderr == f"webwise: error: {message.format(path=stored / name)}\n"
    assert (stored / "click-button.json").read_bytes() == before


def test_open_own_opens_only_a_regular_file_and_never_waits(tmp_path: Path) -> None:
    """Its callers lock or append: a FIFO opened to write waits for a reader, and one opened to
    read and write (a bench's lock) would be locked instead of a file."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for flags in (os.O_RDWR | os.O_CREAT, os.O_RDWR | os.O_APPEND, os.O_WRONLY | os.O_APPEND | os.O_CREAT):
        with pytest.raises(ConfigError, match=f"^{re.escape(str(fifo))} is not a regular file: "):
            open_own(fifo, flags)
    fd = open_own(tmp_path / "lock", os.O_RDWR | os.O_CREAT)
    try:
        assert os.get_blocking(fd)  # as asked: the open's own flag is gone
    finally:
        os.close(fd)


@pytest.mark.parametrize(("make", "problem"), [
    (lambda path: path.symlink_to(path.name), "a link loop"),
    (lambda path: path.symlink_to(path.parent / "gone.json"), "a link to nothing"),
], ids=["loop", "dangling"])
def test_a_task_file_that_leads_nowhere_is_unreadable_not_skipped(
        stored: Path, capsys: pytest.CaptureFixture[str], make: Any, problem: str) -> None:
    """Skipped, the store held nothing for the task and ``--examples auto`` ran zero-shot."""
    path = stored / "click-link.json"
    make(path)
    message = f"harvested examples in {path} are unreadable: {problem}"
    for command in (["list"], ["show", "click-link"]):
        assert run(capsys, "store", *command, "--store", str(stored)) == (2, "", f"webwise: error: {message}\n")
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
        store.load("click-link", stored)


@pytest.mark.parametrize(("entries", "problem"), [
    ([entry(f"Click {name}.", f"click('button', '{name}')") for name in ("A", "B", "C")],
     "3 examples; a store keeps at most 2 per task"),
    ([entry("Click A.", "click('button', 'A')"), entry("Click B.", "# the same\nclick('button','A')")],
     "example 2 has the same programs as an example before it"),
], ids=["three", "twins"])
def test_a_file_the_harvest_could_not_have_written_is_malformed(
        stored: Path, capsys: pytest.CaptureFixture[str], entries: list[dict[str, Any]], problem: str) -> None:
    """docs/store.md: at most two examples per task, and two with the same programs are one;
    a hand edit or a merge that breaks this would put them all in the prompt."""
    path = stored / "click-link.json"
    path.write_text(json.dumps(entries))
    assert run(capsys, "store", "list", "--store", str(stored)) == (2, "", f"webwise: error: {path}: {problem}\n")
    with pytest.raises(ConfigError, match=f"^{re.escape(str(path))}: "):
        store.load("click-link", stored)
    assert json.loads(path.read_text()) == entries


COMMITTED = [ROOT / "incontext" / "auto", *sorted((ROOT / "benchmarks" / "results").glob("*/store"))]


@pytest.mark.parametrize("directory", COMMITTED, ids=lambda path: str(path.relative_to(ROOT)))
def test_the_committed_stores_keep_to_what_the_docs_say(directory: Path) -> None:
    """What every read now refuses is in none of them."""
    assert store.load_all(directory)


def test_an_example_file_larger_than_any_the_store_writes_is_refused_unread(stored: Path) -> None:
    """A sparse 1 GiB file was read whole (2 GB of memory) before its JSON was found wanting."""
    with (stored / "click-button.json").open("wb") as sparse:
        sparse.truncate(store.MAX_FILE_BYTES + 1)
    result = webwise("store", "list", "--store", str(stored))
    assert (result.returncode, result.stdout) == (2, ""), result
    assert result.stderr == (f"webwise: error: harvested examples in {stored / 'click-button.json'} are unreadable: "
                             "the file holds more than 16 MiB\n")
