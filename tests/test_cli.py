"""The command line: bad input gets one line on stderr and exit 2; tasks are listed."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from webwise.cli import build_parser, main
from webwise.episode import Episode
from webwise.tasks import PAPER48, PAPER_GROUPS, catalog, group_by_calls, group_of, parse_task_list

WEBWISE = str(Path(sys.executable).parent / "webwise")
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def replay_file(tmp_path: Path) -> Path:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"*": ["```python\nclick('button', '')\n```"]}))
    return path


def bad_inputs(tmp_path: Path) -> list[tuple[list[str], str]]:
    malformed = tmp_path / "malformed.json"
    malformed.write_text("{not json")
    wrong_shape = tmp_path / "list.json"
    wrong_shape.write_text('["a reply"]')
    wrong_entry = tmp_path / "entry.json"
    wrong_entry.write_text('{"click-button": "not a list"}')
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    long_number = tmp_path / "number.json"
    long_number.write_text('{"click-button": ' + "9" * 5000 + "}")
    ok = ["--llm", f"replay:{malformed}"]
    bench = ["bench", "--tasks", "click-button", "--llm", f"replay:{malformed}"]
    return [
        (["solve", "--task", "no-such-task", "--llm", f"replay:{wrong_shape}"], "unknown task 'no-such-task'"),
        (["solve", "--task", "click-button", "--llm", "gpt4"], "unknown --llm spec 'gpt4'"),
        (["solve", "--task", "click-button", "--llm", "replay:"], "needs a file name"),
        (["solve", "--task", "click-button", "--llm", f"replay:{tmp_path / 'missing.json'}"], "replay file not found"),
        (["solve", "--task", "click-button", *ok], "is not valid JSON"),
        (["solve", "--task", "click-button", "--llm", f"replay:{wrong_shape}"], "must hold a JSON object"),
        (["solve", "--task", "click-button", "--llm", f"replay:{wrong_entry}"], "must be a list of strings"),
        (["solve", "--task", "click-button", "--llm", f"replay:{deep}"], "is not a replay file"),
        (["solve", "--task", "click-button", "--llm", f"replay:{long_number}"], "is not a replay file"),
        (["solve", "--task", "click-button", "--seed", "-3", *ok], "argument --seed: seed -3 is out of range: seeds run from 0 to"),
        (["solve", "--task", "click-button", "--seed", "abc", *ok], "argument --seed: a seed is a whole number, not 'abc'"),
        (["solve", "--task", "click-button", "--method", "magic", *ok], "argument --method: unknown method 'magic'"),
        (["solve", "--task", "click-button", "--examples", "many", *ok], "unknown examples mode 'many'"),
        (["solve", "--task", "click-button", "--max-steps", "0", *ok], "max_steps must be a whole number >= 1, not 0"),
        (["solve", "--task", "click-button", "--screenshots", str(malformed / "shots"), *ok],
         f"{malformed} is not a directory"),
        (["solve", "--task", "click-button", "--store", str(malformed), *ok], f"{malformed} is not a directory"),
        (["harvest", "--tasks", "click-button", "--store", str(malformed), *ok], f"{malformed} is not a directory"),
        ([*bench, "--out", str(malformed)], f"{malformed} is not a directory"),
        ([*bench, "--out", str(malformed / "run")], f"{malformed} is not a directory"),
        (["solve"], "the following arguments are required: --task"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        ([*bench, "--out", ""], "argument --out: out is an empty path"),
        (["store", "list", "--store", ""], "argument --store: store_dir is an empty path"),
        (["harvest", "--tasks", "click-button", "--store", "", *ok],
         "argument --store: store_dir is an empty path"),
        ([*bench, "--out", str(tmp_path / "o"), "--remote", ""],
         "argument --remote: remote_url must be an http:// or https:// URL with a host, not ''"),
        ([*bench, "--out", str(tmp_path / "o"), "--workers", "-1"],
         "argument --workers: workers must be a whole number >= 1, not -1"),
        (["harvest", "--tasks", "click-button", "--check-seeds", "99999999999", *ok],
         "argument --check-seeds: check_seeds must be a whole number from 1 to 100, not 99999999999"),
    ]


def test_bad_input_exits_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, message in bad_inputs(tmp_path):
        with pytest.raises(SystemExit) as info:
            code = main(argv)
            raise SystemExit(code)
        err = capsys.readouterr().err
        assert info.value.code == 2, argv
        assert err.count("\n") == 1 and err.startswith("webwise: error: "), (argv, err)
        assert message in err, (argv, err)


def test_bad_input_through_the_console_script(tmp_path: Path) -> None:
    result = subprocess.run([WEBWISE, "solve", "--task", "nope", "--llm", "replay:x.json"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr == "webwise: error: unknown task 'nope'; `webwise tasks` lists the 130 available\n"
    assert "Traceback" not in result.stderr and result.stdout == ""


@pytest.mark.parametrize("command", [[WEBWISE], [sys.executable, "-m", "webwise"]])
def test_ctrl_c_while_the_command_is_being_imported_is_no_traceback(tmp_path: Path, command: list[str]) -> None:
    """Ctrl-C in the first third of a second, before ``main`` and its handler exist: a module the
    command imports on its way there (``regex``, shadowed) raises the interrupt as it is imported."""
    (tmp_path / "regex.py").write_text("raise KeyboardInterrupt\n")
    result = subprocess.run([*command, "tasks"], capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert (result.returncode, result.stderr, result.stdout) == (130, "webwise: interrupted\n", "")


def test_importing_the_package_imports_nothing_until_a_name_is_used() -> None:
    """What lets the command catch Ctrl-C from its first moment; the names still resolve as before."""
    probe = ("import sys, webwise; before = sorted(m for m in sys.modules if m.startswith('webwise.'))\n"
             "from webwise import Session, solve, ChatRequest\n"
             "import webwise.session, webwise.llm.base\n"
             "assert solve is webwise.session.solve and ChatRequest is webwise.llm.base.ChatRequest\n"
             "assert sorted(webwise.__all__) == sorted(webwise._HOMES) and set(webwise.__all__) <= set(dir(webwise))\n"
             "print(before)")
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert (result.returncode, result.stdout) == (0, "[]\n"), result.stderr
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        webwise_module = __import__("webwise")
        getattr(webwise_module, "nothing")


def test_tasks_lists_every_page_and_the_paper_groups(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tasks"]) == 0
    listed = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert len(listed) == 130 and "click-button" in listed and "book-flight" in listed
    assert main(["tasks", "--paper48"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert [r[0] for r in rows] == list(PAPER48)
    assert {r[1] for r in rows} == {"1", "2", "3-6", "variable"}
    assert all(len(r) == 3 for r in rows)


def test_tasks_shows_each_tasks_group_and_actions_from_the_catalog(capsys: pytest.CaptureFixture[str]) -> None:
    """The catalog's groups and actions reach the listing; --group keeps one group."""
    entries = catalog()
    assert main(["tasks"]) == 0
    rows = {line.split("\t")[0]: line.split("\t")[1:] for line in capsys.readouterr().out.splitlines()}
    for task, entry in entries.items():
        group, what = rows[task]
        assert group == (group_of(task) if task in PAPER48 else entry.get("group", "-"))
        assert what == (",".join(entry["actions"]) if "actions" in entry else f"needs: {entry['needs']}")
        assert not what.startswith("needs: needs:"), task  # a .skip file's reason is said once
    assert main(["tasks", "--group", "variable"]) == 0
    variable = [line.split("\t")[0] for line in capsys.readouterr().out.splitlines()]
    assert set(PAPER_GROUPS["variable"]) <= set(variable) and "click-button" not in variable


def test_expressible_names_the_tasks_a_reference_solves() -> None:
    """What harvest and bench take for the whole suite the API can express; hover-shape never pays a reward."""
    tasks = parse_task_list("expressible")
    assert tasks == sorted(t for t, entry in catalog().items() if "actions" in entry)
    assert "click-button" in tasks and "hover-shape" not in tasks


def test_tasks_into_a_closed_pipe_is_quiet() -> None:
    """`webwise tasks | head -1`: the reader leaving early is not a traceback."""
    listing = subprocess.Popen([sys.executable, "-m", "webwise", "tasks"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    listing.stdout.close()  # closed before the listing is written, unbuffered: the first line meets it
    assert listing.wait(timeout=60) == 0 and listing.stderr.read() == ""
    listing.stderr.close()


@pytest.mark.parametrize("counts, group", [([1, 1], "1"), ([2], "2"), ([3, 3], "3-6"), ([6], "3-6"),
                                           ([3, 4], "variable"), ([7, 7], "variable"), ([], "variable")])
def test_groups_follow_the_papers_rule(counts: list[int], group: str) -> None:
    assert group_by_calls(counts) == group


def test_solve_json_has_the_episode_contract(replay_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["solve", "--task", "click-test", "--seed", "3", "--llm", f"replay:{replay_file}",
                 "--examples", "none", "--json"])
    record = json.loads(capsys.readouterr().out)
    assert code == 0 and record["success"] is True
    for key in ("task", "seed", "method", "examples", "llm", "success", "reward", "steps", "llm_calls",
                "prompt_tokens", "completion_tokens", "seconds", "trace"):
        assert key in record, key
    step = record["trace"][0]
    for key in ("prompt", "reply", "program", "actions", "error"):
        assert key in step, key
    assert step["prompt"][0]["role"] == "system" and step["error"] is None
    assert step["actions"][0]["name"] == "click"
    head = subprocess.run(["git", "rev-parse", "--short=12", "HEAD"], capture_output=True, text=True, check=True)
    assert record["code"].startswith(f"{metadata.version('webwise')}+src.")
    assert record["commit"].startswith(head.stdout.strip())  # the commit that ran, .dirty while edited


def test_unsolved_run_exits_1_and_says_replies_ran_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    replay_file = tmp_path / "idle.json"
    replay_file.write_text(json.dumps({"click-button": ["```python\nprint('thinking')\n```"]}))
    code = main(["solve", "--task", "click-button", "--seed", "0", "--llm", f"replay:{replay_file}",
                 "--examples", "none", "--max-steps", "3"])
    out = capsys.readouterr().out
    assert code == 1
    assert "NOT SOLVED" in out and "replay file has only 1 replies" in out


def test_manual_examples_for_a_task_that_has_none_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Before any browser or model starts; in a bench plan too, before any episode runs."""
    assert main(["solve", "--task", "click-pie-nodelay", "--llm", "replay:x.json"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("webwise: error: no hand-written example for click-pie-nodelay: ") and err.count("\n") == 1
    assert main(["bench", "--tasks", "click-button,click-pie-nodelay", "--llm", "replay:x.json",
                 "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == err
    assert not (tmp_path / "out").exists()


def test_a_store_the_user_cannot_write_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """``solve``, ``bench`` and ``store list`` only read ``--store``: a store handed over
    read-only (or an installed copy's) is read, not refused as a place to write. Root may
    write anywhere, so the permission check answers as for another user's store; its one
    file is malformed, so each command stops with that store's own error, before any
    browser or model starts."""
    store = tmp_path / "store"
    store.mkdir()
    (store / "click-button.json").write_text("[1]")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda path, mode: not (mode & os.W_OK and Path(path) == store)
                        and real_access(path, mode))
    unreadable = (f"webwise: error: {store / 'click-button.json'}: example 1: "
                  "expected an object with 'instruction' and 'steps'\n")
    for argv in (["solve", "--task", "click-button", "--examples", "auto", "--llm", "replay:x.json"],
                 ["bench", "--tasks", "click-button", "--examples", "auto", "--llm", "replay:x.json",
                  "--out", str(tmp_path / "run")],
                 ["store", "list"]):
        assert main([*argv, "--store", str(store)]) == 2, argv
        assert capsys.readouterr().err == unreadable, argv
    with pytest.raises(SystemExit, match="2"):  # a change to it is refused
        main(["store", "remove", "click-button", "1", "--store", str(store)])
    assert capsys.readouterr().err.endswith(f"argument --store: cannot write in {store}\n")


def documented_options(text: str) -> dict[str, set[str]]:
    """The options docs/cli.md's synopsis (its first indented block) gives each command
    (``store list``: a command's lower-case second word names its subcommand; a command may
    take two lines, one per way of running it, as ``harvest`` does)."""
    synopsis = text.split("\n\n")[1]
    options: dict[str, set[str]] = {}
    command = ""
    for line in synopsis.splitlines():
        words = line.split()
        if words[0] == "webwise":
            command = " ".join(words[1:3] if len(words) > 2 and re.fullmatch(r"[a-z]+", words[2]) else words[1:2])
            options.setdefault(command, set())
        options[command] |= set(re.findall(r"--[a-z0-9-]+", line))
    return options


def parser_options(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, set[str]]:
    """Each (sub)command's options, keyed like :func:`documented_options`."""
    subparsers = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if subparsers is None:
        return {prefix: {option for action in parser._actions for option in action.option_strings
                         if option.startswith("--") and option != "--help"}}
    found: dict[str, set[str]] = {}
    for name, sub in subparsers.choices.items():
        found |= parser_options(sub, f"{prefix} {name}".strip())
    return found


def test_the_documented_synopsis_is_the_parser() -> None:
    """docs/cli.md lists every option of every command, and nothing the parser lacks."""
    assert documented_options((ROOT / "docs" / "cli.md").read_text(encoding="utf-8")) == parser_options(build_parser())


def test_a_screenshot_replaces_a_link_planted_under_its_name(replay_file: Path, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The screenshot folder may be someone else's: its file names are predictable."""
    shots, victim = tmp_path / "shots", tmp_path / "victim"
    shots.mkdir()
    victim.write_text("keep")
    (shots / "click-test-s3-webwise-none-t0-step0.png").symlink_to(victim)
    code = main(["solve", "--task", "click-test", "--seed", "3", "--llm", f"replay:{replay_file}",
                 "--examples", "none", "--screenshots", str(shots)])
    capsys.readouterr()
    assert code == 0 and victim.read_text() == "keep"
    shot = shots / "click-test-s3-webwise-none-t0-step0.png"
    assert not shot.is_symlink() and shot.read_bytes().startswith(b"\x89PNG")


def test_paths_the_system_refuses_are_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A name longer than a file name may be (ENAMETOOLONG) and a folder where a file belongs are
    found where each path is first looked at, before any browser or model starts."""
    long = tmp_path / ("x" * 300)
    replay_file = ROOT / "tests" / "replays" / "solve.json"
    ok = ["--llm", f"replay:{replay_file}"]
    bench = ["bench", "--tasks", "click-button", "--examples", "none", *ok]
    for name in ("results", "lock", "journal", "tables", "report"):
        (tmp_path / name).mkdir()
    (tmp_path / "results" / "results.jsonl").mkdir()
    (tmp_path / "lock" / ".bench.lock").mkdir()
    (tmp_path / "journal" / "harvest.jsonl").mkdir()
    record = json.dumps(Episode("click-button", 0, "webwise", "none", "replay:x").to_dict()) + "\n"
    for name in ("tables", "report"):
        (tmp_path / name / "results.jsonl").write_text(record)
    (tmp_path / "tables" / "tables.md").mkdir()
    (tmp_path / "report" / "report.html").mkdir()
    for argv, message in [
        ([*bench, "--out", str(long)], f"argument --out: {long}: File name too long"),
        (["store", "list", "--store", str(long)], f"argument --store: {long}: File name too long"),
        (["solve", "--task", "click-button", *ok, "--screenshots", str(long / "shots")],
         f"argument --screenshots: {long / 'shots'}: File name too long"),
        (["harvest", "--tasks", "click-button", *ok, "--store", str(long)],
         f"argument --store: {long}: File name too long"),
        (["report", str(long)], f"cannot read {long / 'results.jsonl'}: File name too long"),
        (["harvest", "--from-results", str(long), "--store", str(tmp_path / "s")],
         f"no bench results at {long}: File name too long"),
        (["solve", "--task", "click-button", "--llm", f"local:{long}.gguf"],
         f"--llm local:{long}.gguf: File name too long"),
        ([*bench, "--out", str(tmp_path / "results")],
         f"cannot read {tmp_path / 'results' / 'results.jsonl'}: Is a directory"),
        ([*bench, "--out", str(tmp_path / "lock")], f"cannot open {tmp_path / 'lock' / '.bench.lock'}: Is a directory"),
        (["harvest", "--tasks", "click-button", *ok, "--store", str(tmp_path / "journal")],
         f"cannot read {tmp_path / 'journal' / 'harvest.jsonl'}: Is a directory"),
        (["report", str(tmp_path / "tables")], f"cannot write {tmp_path / 'tables' / 'tables.md'}: Is a directory"),
        (["report", str(tmp_path / "report")], f"cannot write {tmp_path / 'report' / 'report.html'}: Is a directory"),
    ]:
        with pytest.raises(SystemExit) as info:
            raise SystemExit(main(argv))
        assert (info.value.code, capsys.readouterr().err) == (2, f"webwise: error: {message}\n"), argv


def test_an_os_error_nothing_foresaw_is_one_line_naming_its_path(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The last line of defence: whatever OSError escapes a command is exit 2 and one line."""
    import webwise.cli

    def broken(args: argparse.Namespace) -> int:
        raise IsADirectoryError(21, "Is a directory", "out/tables.md")

    monkeypatch.setattr(webwise.cli, "_tasks", broken)
    assert main(["tasks"]) == 2
    assert capsys.readouterr().err == "webwise: error: out/tables.md: Is a directory\n"


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full here")
def test_a_stdout_that_cannot_be_written_is_one_line() -> None:
    with open("/dev/full", "w") as full:
        result = subprocess.run([WEBWISE, "tasks"], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr == "webwise: error: cannot write to stdout: No space left on device\n"


def test_a_task_named_twice_runs_once() -> None:
    assert parse_task_list("click-test,click-button,click-test, click-button") == ["click-test", "click-button"]


def test_a_bad_llm_spec_creates_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Checked with the rest of the plan: no empty OUT (nor store) is left behind."""
    for argv in (["bench", "--tasks", "click-button", "--out", str(tmp_path / "out")],
                 ["harvest", "--tasks", "click-button", "--store", str(tmp_path / "out")]):
        assert main([*argv, "--llm", "bogus"]) == 2
        assert capsys.readouterr().err.startswith("webwise: error: unknown --llm spec 'bogus'")
        assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("url", ["notaurl", "ftp://example.org/v1", "http://", "http://a b/v1", "http://a\x01b/v1",
                                 "http://127.0.0.1:9/v1\nx"])
def test_an_endpoint_url_that_is_no_url_is_bad_input(url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """Not half a minute of retried 'connection' failures: one line, exit 2, nothing created."""
    monkeypatch.setenv("OPENAI_BASE_URL", url)
    for argv in (["bench", "--tasks", "click-button", "--out", str(tmp_path / "out")],
                 ["solve", "--task", "click-button"]):
        assert main([*argv, "--llm", "openai:m"]) == 2
        assert capsys.readouterr().err == (f"webwise: error: OPENAI_BASE_URL must be an http:// or https:// URL "
                                           f"with a host, not {url!r}\n")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("spec, error", [
    ("replay:~nosuchuser/x.json", "replay file: no home folder for '~nosuchuser'"),
    ("local:~nosuchuser/x.gguf", "--llm local:~nosuchuser/x.gguf: no home folder for '~nosuchuser'"),
    ("replay:/dev/zero", "replay file /dev/zero holds more than 256 MiB"),  # not read until memory runs out
])
def test_a_model_path_that_cannot_be_read_is_one_line(spec: str, error: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["solve", "--task", "click-button"], ["bench", "--tasks", "click-button", "--out", str(tmp_path / "o")]):
        assert main([*argv, "--llm", spec]) == 2
        assert capsys.readouterr().err == f"webwise: error: {error}\n"
    assert not (tmp_path / "o").exists()


def test_a_stored_instruction_with_a_tab_or_line_break_stays_one_row(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """`store list` prints one tab-separated row per example, whatever a store's texts hold."""
    page = [{"ref": 4, "tag": "button", "text": "Ok", "id": "", "classes": "", "value": "", "clicked": False,
             "modified": False}]
    (tmp_path / "click-button.json").write_text(json.dumps([{
        "instruction": "Click\tthe\nOk button.", "steps": [{"observation": page, "program": "click('button', 'Ok')"}],
        "provenance": {"llm": "m", "method": "webwise", "seed": 3, "reward": 1.0, "seconds": 1.0,
                       "harvested_at": "2026-11-24T10:00:00+00:00", "check_seeds": [7]}}]))
    assert main(["store", "list", "--store", str(tmp_path)]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[1].split("\t") == ["click-button", "1", "1", "m", "-", "2026-11-24", "7", "Click\\tthe\\nOk button."]
    assert len(rows) == 3


def test_an_empty_browser_variable_is_unset() -> None:
    """`WEBWISE_CHROMIUM= webwise ...` (a variable cleared in a script) uses the default browser."""
    code = "from webwise import browser; print(browser.CHROMIUM, browser.CHROMEDRIVER)"
    env = {**os.environ, "WEBWISE_CHROMIUM": "", "WEBWISE_CHROMEDRIVER": ""}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out == "/usr/bin/chromium /usr/bin/chromedriver\n"


@pytest.mark.parametrize(("variable", "value", "error"), [
    ("WEBWISE_LLM_TIMEOUT", "1e12", "WEBWISE_LLM_TIMEOUT must be a number above 0, up to 1000000, not '1e12'"),
    ("WEBWISE_LLM_DEADLINE", "2000000", "WEBWISE_LLM_DEADLINE must be a number above 0, up to 1000000, not '2000000'"),
    ("WEBWISE_LLM_RETRIES", "1_0", "WEBWISE_LLM_RETRIES must be a whole number from 0 to 100, not '1_0'"),
    ("WEBWISE_LLM_RETRIES", "\uff11", "WEBWISE_LLM_RETRIES must be a whole number from 0 to 100, not '\uff11'"),
    ("WEBWISE_LLM_BACKOFF", " 1 ", "WEBWISE_LLM_BACKOFF must be a number from 0 to 1000000, not ' 1 '"),
    ("OPENAI_API_KEY", "cl\u00e9", "OPENAI_API_KEY holds a space or a character an HTTP header cannot carry"),
])
def test_a_model_setting_no_call_could_use_is_refused_up_front(variable: str, value: str, error: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A 1e12 s timeout overflowed the socket clock and a non-ASCII key the HTTP header: every call
    then failed, counted as the agent's failure or the endpoint's, not the setting's."""
    monkeypatch.setenv(variable, value)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    assert main(["bench", "--tasks", "click-button", "--out", str(tmp_path / "o"), "--llm", "openai:m"]) == 2
    assert capsys.readouterr().err == f"webwise: error: {error}\n"
    assert not (tmp_path / "o").exists()


def test_a_missing_browser_creates_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Found before OUT is made: an empty results file was left behind."""
    from webwise import browser

    replies = Path(__file__).resolve().parent / "replays" / "solve.json"
    monkeypatch.setattr(browser, "CHROMIUM", str(tmp_path / "chromium"))
    for argv in (["bench", "--tasks", "click-button", "--out", str(tmp_path / "o")],
                 ["harvest", "--tasks", "click-button", "--store", str(tmp_path / "o")]):
        assert main([*argv, "--llm", f"replay:{replies}"]) == 2
        assert capsys.readouterr().err.endswith(f"webwise: error: {tmp_path / 'chromium'} not found: install Debian's "
                                                "chromium and chromium-driver (see README)\n")
        assert not (tmp_path / "o").exists()


def test_a_path_the_terminal_cannot_encode_is_escaped_not_a_traceback(tmp_path: Path) -> None:
    folder = tmp_path / "\u00e9t\u00e9"
    folder.mkdir()
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    done = subprocess.run([sys.executable, "-m", "webwise", "report", str(folder)], env=env, capture_output=True,
                          text=True, encoding="ascii", timeout=60)
    assert done.returncode == 2 and done.stderr.count("\n") == 1
    assert "\\xe9t\\xe9/results.jsonl not found" in done.stderr
