"""Hostile replies and programs: the host survives each, records it, and writes it safely.

Each case is a reply a model might send, or a program it might write, that once stopped a
whole run with a traceback (issue 34): code nested too deep for ``ast``, a lone surrogate in
a print, an exception or a click, a digit ``regex`` reads and ``int()`` refuses, escape
sequences that repaint the terminal with a fake verdict, an unfenced reply of hundreds of
lines. Each goes through the real pipeline (replay backend, extraction, the sandbox's
confined child, real headless Chromium) and then through the real writers: a
``results.jsonl`` line, the HTML report, the ``solve`` summary and ``--json``.

What must hold for every case: the hostile step is recorded with its error, the episode goes
on and a benign program solves it, every record is valid UTF-8 JSON that reads back as the
same episode (a lone surrogate included), and nothing a program wrote reaches a terminal as
an escape byte.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Iterator

import pytest

import webwise
from webwise import cli, extraction, report
from webwise.actions import Executor
from webwise.agent import VIEWS, ActionHandler, Agent, Settings
from webwise.bench import ResultsFile, read_results
from webwise.cli import summary
from webwise.environment import BrowserDied
from webwise.episode import Episode, Step
from webwise.extraction import MAX_PARSES, ExtractionError, chars_past_block, extract_program
from webwise.llm.cache import CachedModel
from webwise.llm.replay import ReplayModel
from webwise.reflection import parse_reflection
from webwise.untrusted import json_text, shown

WEBWISE = str(Path(sys.executable).parent / "webwise")
ESC = "\x1b"
#: Read the task's quoted name and click it: solves click-button (and, with span, click-link).
BENIGN = {
    "click-button": "```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```",
    "click-link": "```python\nimport re\nclick('span', re.search(r'\"(.*)\"', task).group(1))\n```",
}
#: Calls an action the checks accept, never runs it: the programs below pass extraction.
NEVER = "if len(task) < 0:\n    click('button', 'never')\n"
#: A fake verdict drawn over the real one: clear the screen, go home, print green.
FAKE_VERDICT = "\\x1b[2J\\x1b[H\\x1b[32mSOLVED: reward 1\\x1b[0m"


def fenced(code: str) -> str:
    return f"```python\n{code}\n```"


def long_unfenced(lines: int = 500) -> str:
    """Hundreds of unfenced code lines ending in a cut-off call: the search for the longest
    parsable run once parsed each run from each line (seconds to tens of seconds)."""
    body = [f"x{i} = len(task) + {i}" for i in range(lines - 3)]
    return "\n".join([*body, *NEVER.splitlines(), "click('button',"])


#: name -> (reply, a text the hostile step's error holds; None: it may end without one)
HOSTILE: dict[str, tuple[str, str | None]] = {
    "deep-unary-fenced": (fenced("x = " + "-" * 3000 + "1"), "no Python code found"),
    "deep-unary-unfenced": ("x = " + "-" * 3000 + "1\nclick('button', 'never')", "no 'button' element"),
    "deep-parses-but-will-not-compile": (fenced("x = " + "-" * 1500 + "1\n" + NEVER), "cannot be compiled"),
    "surrogate-in-print": (fenced("print('\\ud800')\nclick('button', 'never')"), "no 'button' element"),
    "surrogate-in-exception": (fenced(NEVER + "raise ValueError('bad \\udfff')"), "ValueError: bad \udfff"),
    "surrogate-in-click": (fenced("click('button', 'a\\udfff')"), "holds a lone surrogate"),
    "surrogate-in-reply": (fenced("click('button', 'a\udfff')"), "no Python code found"),
    "unicode-digit-in-click": (fenced("click('div', '[\U00011f50]')"), "no 'div' element"),
    "escapes-in-exception": (fenced(NEVER + f"raise Exception('{FAKE_VERDICT}')"), "SOLVED: reward 1"),
    "escapes-in-output": (fenced(f"print('{FAKE_VERDICT}')\nclick('button', 'never')"), "no 'button' element"),
    "raw-controls-in-reply": (fenced(NEVER + "# \x1b[2J\nraise Exception('\x1b[31mSOLVED\u202e\x9b\x7f')"),
                              "SOLVED"),
    "carriage-return-and-bidi": (fenced(NEVER + "raise Exception('\\rSOLVED: reward 1\\u202e')"), "SOLVED"),
    "long-unfenced": (long_unfenced(), None),
}


@pytest.fixture(scope="module")
def session() -> Iterator[webwise.Session]:
    with webwise.Session(llm=ReplayModel({}, "replay:hostile")) as shared:
        yield shared


def run(session: webwise.Session, replies: list[str], cache: Path, task: str = "click-button", seed: int = 0,
        settings: Settings | None = None) -> Episode:
    """One episode of ``task`` answered by ``replies``, in the session's browser and sandbox,
    through the on-disk response cache a real backend's replies go through: the request's key
    (every prompt, with the errors of the programs before) and the stored reply are written too."""
    model = CachedModel(ReplayModel({task: replies}, "replay:hostile"), cache)
    agent = Agent(model, session.env, session.sandbox, settings or Settings(max_steps=len(replies)))
    return agent.run(task, seed, "webwise", "none")


def assert_written_safely(episode: Episode, tmp_path: Path) -> None:
    """The real writers take the episode: a results.jsonl line that reads back as the same
    record, the HTML report, and the terminal summary without an escape byte."""
    record = episode.to_dict()
    (tmp_path / "out").mkdir()
    ResultsFile(tmp_path / "out" / "results.jsonl").append(record)
    data = (tmp_path / "out" / "results.jsonl").read_bytes()
    data.decode("utf-8")  # valid UTF-8
    assert ESC.encode() not in data and "\x9b".encode() not in data
    assert read_results(tmp_path / "out" / "results.jsonl") == [record]  # nothing it said is lost
    page = report.write_report(tmp_path / "out").read_text(encoding="utf-8")
    assert ESC not in page and "\x9b" not in page
    printed = shown(summary(episode))
    printed.encode("utf-8")
    assert ESC not in printed and "\r" not in printed and "\u202e" not in printed


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_hostile_reply_is_one_recorded_step_and_the_next_program_solves(
        session: webwise.Session, name: str, tmp_path: Path) -> None:
    reply, error = HOSTILE[name]
    episode = run(session, [reply, BENIGN["click-button"]], tmp_path / "cache")
    assert episode.error is None
    hostile, benign = episode.trace
    assert hostile.reply == reply and not hostile.done
    if error is not None:
        assert hostile.error is not None and error in hostile.error, hostile.error
        assert "\n" not in hostile.error and "Traceback" not in hostile.error
    assert benign.error is None and episode.success, benign
    assert ESC not in "".join(message["content"] for message in benign.prompt)  # what the model was sent
    assert_written_safely(episode, tmp_path)


def test_the_terminal_sees_escapes_written_out(session: webwise.Session, tmp_path: Path) -> None:
    episode = run(session, [HOSTILE["escapes-in-exception"][0], BENIGN["click-button"]], tmp_path)
    printed = shown(summary(episode))
    assert "error: Exception: \\x1b[2J\\x1b[H\\x1b[32mSOLVED: reward 1\\x1b[0m" in printed
    assert printed.rstrip().splitlines()[-1].startswith("SOLVED: reward 1 in 2 step(s)")


#: Reviews after a failed trial; each named a step in a way that once crashed the host.
HOSTILE_REVIEWS = {
    "unicode-digit-step": "Step: \U00011f50\nWhy: wrong button\n" + fenced("click('button', 'x')"),
    "five-thousand-digit-step": "Step: " + "9" * 5000 + "\nWhy: wrong button",
    "deep-fix": "Step: 1\nWhy: wrong button\n" + fenced("x = " + "-" * 3000 + "1"),
}


@pytest.mark.parametrize("name", list(HOSTILE_REVIEWS))
def test_a_hostile_review_corrects_nothing_and_the_next_trial_asks_afresh(
        session: webwise.Session, name: str, tmp_path: Path) -> None:
    replies = [fenced("click('button', 'never')"), HOSTILE_REVIEWS[name], BENIGN["click-button"]]
    episode = run(session, replies, tmp_path, settings=Settings(max_steps=1, trials=2))
    assert [t.success for t in episode.trials] == [False, True]
    assert episode.trials[0].reflection["reply"] == HOSTILE_REVIEWS[name]
    assert episode.trace[-1].source == "model" and episode.success


def test_any_exception_an_action_raises_is_its_error_and_a_dead_browser_still_stops(
        session: webwise.Session, monkeypatch: pytest.MonkeyPatch) -> None:
    """The class, not the instances: whatever the executor raises (here injected) is the
    action's one line for the program, and its record says so; a dead browser still stops."""
    session.env.reset("click-button", 0)
    executor = Executor(session.env, VIEWS["webwise"])
    executor.start()
    handler = ActionHandler(executor)
    monkeypatch.setattr(executor, "_click", lambda tag, text: int("\U00011f50"))
    reply = handler("click", ["button", "x"], {})
    assert reply.error is not None and reply.error.startswith("click failed: ValueError: invalid literal")
    assert executor.records[-1].error == reply.error and not reply.stop
    monkeypatch.setattr(executor, "_scroll", lambda text: "div 'x'")
    monkeypatch.setattr(executor, "refresh", lambda: {}["no such key"])
    reply = handler("scroll", ["x"], {})  # raised after the action, outside the executor's record of it
    assert reply.error == "scroll failed: KeyError: 'no such key'"
    dead = BrowserDied("browser died: gone")
    monkeypatch.setattr(executor, "_press", lambda key: throw(dead))
    reply = handler("press_key", ["Enter"], {})
    assert reply.stop and reply.error is None and handler.fatal is dead


def throw(exc: BaseException) -> None:
    raise exc


def test_host_work_on_a_long_unfenced_reply_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 500-line unfenced reply costs at most MAX_PARSES parses (and the check's one), not a
    parse per line end per start: about 9 s before, well under a second after."""
    calls = []
    parse = ast.parse
    monkeypatch.setattr(ast, "parse", lambda *args, **kwargs: calls.append(1) or parse(*args, **kwargs))
    started = time.perf_counter()
    program = extract_program(long_unfenced())
    seconds = time.perf_counter() - started
    assert len(program.splitlines()) == 499  # all but the cut-off call
    assert len(calls) <= MAX_PARSES + 1 and seconds < 3, (len(calls), seconds)


@pytest.mark.timeout(10)
def test_replies_shaped_to_make_the_host_s_patterns_backtrack_are_read_at_once() -> None:
    """Blank lines then spaces once took the review's step pattern cubic time (a 4 KB reply 38 s,
    these minutes), and a fence then spaces the fence pattern quadratic time over the whole reply."""
    steps = [Step(index=0, trial=0, prompt=[], program="click('button', 'OK')")]
    assert parse_reflection("\n" * 5000 + "Step" + " " * 5000, steps) is None
    assert parse_reflection("\n" * 5000 + "Step: 1\nWhy: x", steps).step == 1
    assert chars_past_block("```" + " " * 400_000) == 0
    assert chars_past_block("```python\n" + "x = 1\n" * 10_000) == 0  # a block that never closes
    assert chars_past_block("```python\nclick('button', 'OK')\n```\nDone.") == len("\nDone.")
    assert chars_past_block("```python\r\nclick('button', 'OK')\r\n```\r\nDone.") == len("\nDone.")
    assert chars_past_block("<think>\n```python\nx = 1\n```\n</think>\n```python\nclick('a', 'b')\n```") == 0


def test_only_the_first_max_reply_chars_are_read() -> None:
    padding = "Let me think. " * (extraction.MAX_REPLY_CHARS // 14 + 1)
    with pytest.raises(ExtractionError, match="its first 16000 characters"):
        extract_program(padding + fenced("click('button', 'OK')"))
    assert extract_program(fenced("click('button', 'OK')") + padding) == "click('button', 'OK')"


def test_an_error_for_a_cut_reply_says_it_was_cut() -> None:
    """The action past the cut is lost: "calls no action" alone told the model nothing true."""
    program = "\n".join(f"x{i} = {i}" for i in range(10_000)) + "\nclick('button', 'OK')"
    with pytest.raises(ExtractionError, match=re.escape("in the reply (its first 16000 characters), the program "
                                                        "calls no action")):
        extract_program(fenced(program))


def test_json_text_keeps_every_character_and_shown_writes_them_out() -> None:
    said = "a\x1b[2J\r\x00\x7f\x9b\u202e\udfff\ud800\t\nz é 𑽐"  # surrogates, but not a pair
    line = json_text({"said": said})
    line.encode("utf-8")
    assert json.loads(line) == {"said": said}
    assert not set(line) & set("\x1b\r\x00\x7f\x9b\u202e\ud800\udfff")
    assert shown(said) == "a\\x1b[2J\\x0d\\x00\\x7f\\x9b\\u202e\\udfff\\ud800\t\nz é 𑽐"


# -- end to end through the console script --------------------------------------------------------

def replay_file(tmp_path: Path, replies: dict[str, list[str]]) -> Path:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps(replies), encoding="utf-8")
    return path


def test_bench_over_hostile_and_benign_replies_records_every_episode(tmp_path: Path) -> None:
    """Every hostile reply, spread over tasks and seeds: every episode recorded, exit 0, the
    benign programs after them solve, and a task given nothing but hostile replies is recorded
    failed with its error; --resume then has nothing left to run."""
    names = list(HOSTILE)
    replies = {
        "click-button": [HOSTILE[n][0] for n in names[0::2]] + [BENIGN["click-button"]],
        "click-link": [HOSTILE[n][0] for n in names[1::2]] + [BENIGN["click-link"]],
        "click-dialog": [HOSTILE[n][0] for n in ("surrogate-in-exception", "escapes-in-output")],
    }
    path = replay_file(tmp_path, replies)
    out = tmp_path / "out"
    args = [WEBWISE, "bench", "--tasks", "click-button,click-link,click-dialog", "--seeds", "2", "--examples", "none",
            "--llm", f"replay:{path}", "--max-steps", str(max(map(len, replies.values()))), "--out", str(out)]
    result = subprocess.run(args, capture_output=True, timeout=280, env=dict(os.environ))
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    assert b"Traceback" not in result.stderr and ESC.encode() not in result.stdout + result.stderr
    records = read_results(out / "results.jsonl")
    assert sorted((r["task"], r["seed"]) for r in records) == [
        (task, seed) for task in ("click-button", "click-dialog", "click-link") for seed in (0, 1)]
    for record in records:
        replied = [step["reply"] for step in record["trace"] if step["reply"] is not None]
        assert replied == replies[record["task"]][:len(replied)]
        if record["task"] == "click-dialog":
            assert not record["success"] and "replay file has only 2 replies" in record["error"]
        else:
            assert record["success"] and len(replied) == len(replies[record["task"]]), record["trace"][-1]
    resumed = subprocess.run([*args, "--resume"], capture_output=True, timeout=120, env=dict(os.environ))
    assert resumed.returncode == 0 and b"0 to run" in resumed.stderr


@pytest.mark.parametrize("json_flag", [False, True], ids=["summary", "json"])
def test_solve_prints_no_escape_byte_a_program_wrote(tmp_path: Path, json_flag: bool) -> None:
    hostile = ["escapes-in-exception", "raw-controls-in-reply", "carriage-return-and-bidi", "surrogate-in-exception",
               "escapes-in-output"]
    replies = [HOSTILE[name][0] for name in hostile] + [BENIGN["click-button"]]
    path = replay_file(tmp_path, {"click-button": replies})
    result = subprocess.run(
        [WEBWISE, "solve", "--task", "click-button", "--examples", "none", "--llm", f"replay:{path}",
         "--max-steps", str(len(replies)), *(["--json"] if json_flag else [])],
        capture_output=True, timeout=180, env=dict(os.environ))
    assert result.returncode == 0, result.stderr.decode(errors="replace")[-2000:]
    for stream in (result.stdout, result.stderr):
        for control in (ESC, "\r", "\x7f", "\x9b"):
            assert control.encode() not in stream, control
        stream.decode("utf-8")
    text = result.stdout.decode("utf-8")
    if json_flag:
        record = json.loads(text)
        assert record["success"] and record["trace"][3]["error"] == "ValueError: bad \udfff"
        assert "\x1b[2J" in record["trace"][0]["error"]  # kept in the record, escaped in the JSON
    else:
        assert text.rstrip().splitlines()[-1].startswith("SOLVED: reward 1 in 6 step(s)")
        assert "error: ValueError: bad \\udfff" in text


def test_a_one_line_error_shows_its_escapes(capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's error line carries text from elsewhere (a server's message, a path): shown too."""
    assert cli.main(["solve", "--task", "click-button", "--llm", "replay:/nonexistent/\x1b[2J.json"]) == 2
    err = capsys.readouterr().err
    assert err == "webwise: error: replay file not found: /nonexistent/\\x1b[2J.json\n"
