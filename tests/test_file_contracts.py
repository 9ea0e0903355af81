"""The two file contracts outside programs meet: replay files and the episode JSON.

Replay files (docs/replay.md) are written by hand or by other tools: every shape the docs
allow must load, and anything else is one line naming the file and what is wrong (exit
status 2 from ``solve`` and ``bench``, :class:`ConfigError` from the library), before any
browser starts. The episode JSON (docs/episode-json.md) is read by other programs: each
record holds exactly the documented fields with their documented types, is strict JSON,
and ``solve --json`` prints it as the one line on stdout. Episodes run in real headless
Chromium through ``python -m webwise`` in a subprocess, so stdout and stderr are the
process's own; the committed ``benchmarks/results`` records are checked against the docs too.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import webwise
from webwise import cli
from webwise.errors import ConfigError, RepliesExhausted
from webwise.llm.base import ChatReply, ChatRequest
from webwise.llm.replay import ReplayModel, load_replies

ROOT = Path(__file__).resolve().parent.parent
EPISODE_DOC = ROOT / "docs" / "episode-json.md"
#: A reply that solves click-button on every seed (it reads the name from the task).
SOLVES = json.loads((ROOT / "tests" / "replays" / "solve.json").read_text(encoding="utf-8"))["click-button"][0]
NO_CODE = "I would click the button, but I cannot see the page."
WRONG = "```python\nclick('button', 'no such button here')\n```"
REVIEW = "Step: 1\nWhy: it clicked a button that is not there.\n" + SOLVES[SOLVES.index("```"):]


# -- replay files: what is refused -----------------------------------------------------------

BAD_FILES: dict[str, tuple[bytes, str]] = {
    "empty": (b"", "is empty"),
    "blank": (b"  \r\n\t\n", "is empty"),
    "invalid": (b'{"click-button": ["x",]}', "is not valid JSON: Expecting value at line 1, column 23"),
    "list": (json.dumps([SOLVES]).encode(),
             "must hold a JSON object mapping task names to lists of replies, not a list"),
    "null": (b"null", "not null"),
    "string": (b'"click-button"', "not a string"),
    "twice": (b'{"click-button": ["no code"], "click-button": ["x"]}', "'click-button' is given twice"),
    "null-reply": (json.dumps({"click-button": [SOLVES, None]}).encode(),
                   "entry 'click-button' must be a list of strings; reply 2 is null"),
    "number-reply": (b'{"click-button": [1]}', "reply 1 is a number"),
    "nested": (json.dumps({"click-button": [[SOLVES]]}).encode(), "reply 1 is a list"),
    "one-string": (json.dumps({"click-button": SOLVES}).encode(),
                   "entry 'click-button' must be a list of strings; it is a string"),
    "per-seed": (json.dumps({"click-button": {"0": [SOLVES]}}).encode(), "it is an object"),
    "null-entry": (b'{"click-button": null}', "it is null"),
    "not-utf8": (b'{"click-button": ["\xff"]}', "is not UTF-8 text: byte 0xff at offset 19"),
    "utf16": (json.dumps({"click-button": [SOLVES]}).encode("utf-16"), "is not UTF-8 text"),
}


def bad_file(tmp_path: Path, name: str) -> tuple[Path, str]:
    data, expected = BAD_FILES[name]
    path = tmp_path / f"{name}.json"
    path.write_bytes(data)
    return path, expected


def one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    """Run the CLI in-process; it must exit 2 with one line on stderr and nothing on stdout."""
    assert cli.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.endswith("\n") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("name", list(BAD_FILES))
def test_a_malformed_replay_file_is_one_line_naming_it(name: str, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path, expected = bad_file(tmp_path, name)
    with pytest.raises(ConfigError) as raised:
        load_replies(path)
    assert str(raised.value).count("\n") == 0 and str(path) in str(raised.value) and expected in str(raised.value)
    solve = one_line_error(capsys, ["solve", "--task", "click-button", "--llm", f"replay:{path}", "--json"])
    assert solve.startswith("webwise: error: ") and str(path) in solve and expected in solve
    out = tmp_path / "out"
    bench = one_line_error(capsys, ["bench", "--tasks", "click-button", "--llm", f"replay:{path}", "--out", str(out)])
    assert str(path) in bench and expected in bench
    assert not out.exists()  # refused before the bench made anything


def test_the_library_refuses_a_malformed_file_before_a_browser(tmp_path: Path) -> None:
    path, expected = bad_file(tmp_path, "twice")
    with pytest.raises(ConfigError, match=re.escape(expected)):
        webwise.solve("click-button", seed=0, llm=f"replay:{path}")


@pytest.mark.parametrize("make, expected", [
    (lambda p: p, "replay file not found: "),
    (lambda p: p.mkdir() or p, "cannot read replay file {path}: Is a directory"),
])
def test_a_missing_file_or_a_directory_is_one_line(make: Callable[[Path], Path], expected: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    path = make(tmp_path / "replies.json")
    err = one_line_error(capsys, ["solve", "--task", "click-button", "--llm", f"replay:{path}"])
    assert expected.format(path=path) in err and str(path) in err


def test_a_nul_in_the_name_is_a_config_error() -> None:
    """Only the library can pass one; ``os.stat`` raises ValueError, not OSError."""
    with pytest.raises(ConfigError, match="embedded null byte"):
        load_replies(Path("replies\x00.json"))


# -- replay files: what the docs allow -------------------------------------------------------

def test_a_byte_order_mark_and_crlf_line_ends_are_read(tmp_path: Path) -> None:
    """Windows editors write both; JSON lets a reader skip the mark."""
    text = json.dumps({"click-button": [SOLVES.replace("\n", "\r\n")]}, indent=2).replace("\n", "\r\n")
    path = tmp_path / "windows.json"
    path.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load_replies(path) == {"click-button": [SOLVES.replace("\n", "\r\n")]}


def test_any_unicode_and_lone_surrogates_are_kept_as_written(tmp_path: Path) -> None:
    path = tmp_path / "unicode.json"
    path.write_text('{"*": ["Voil\\u00e0 \\ud800 \\ud83c\\udf89 日本", "\\udfff"]}', encoding="utf-8")
    assert load_replies(path) == {"*": ["Voilà \ud800 🎉 日本", "\udfff"]}


def test_a_tilde_path_is_the_home_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The shell leaves ``replay:~/x.json`` as it is; ``local:~/m.gguf`` expanded it already."""
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / "replies.json").write_text(json.dumps({"click-button": [SOLVES]}), encoding="utf-8")
    model = ReplayModel.from_file(Path("~/replies.json"))
    assert model.replies == {"click-button": [SOLVES]}
    assert model.name == f"replay:{(tmp_path / 'replies.json').resolve()}"


@pytest.fixture
def pipe_path() -> Iterator[Path]:
    """A pipe holding a replay file, as ``replay:<(jq ...)`` gives one: it can be read once."""
    read, write = os.pipe()
    os.write(write, json.dumps({"click-button": [SOLVES]}).encode())
    os.close(write)
    yield Path(f"/dev/fd/{read}")
    os.close(read)


def test_a_pipe_serves_every_read_of_the_run(pipe_path: Path) -> None:
    """A bench reads its file to check it, then for each worker's model: a pipe is empty by the second."""
    first = load_replies(pipe_path)
    assert load_replies(pipe_path) == first == {"click-button": [SOLVES]}
    assert ReplayModel.from_file(pipe_path).name == f"replay:{pipe_path}"  # not /proc/PID/fd/pipe:[N]


def test_a_named_fifo_no_one_writes_to_is_refused_at_once(tmp_path: Path) -> None:
    """Opening it for reading waited for a writer: a solve hung with nothing said."""
    fifo = tmp_path / "replies.json"
    os.mkfifo(fifo)
    said: list[BaseException] = []

    def load() -> None:
        try:
            load_replies(fifo)
        except ConfigError as exc:
            said.append(exc)

    reader = threading.Thread(target=load, daemon=True)  # daemon: a reader stuck in open never ends
    reader.start()
    reader.join(timeout=5)
    assert not reader.is_alive(), "the open of a FIFO with no writer is still waiting"
    assert str(said[0]).startswith(f"replay file {fifo} is empty")


def test_an_empty_list_hides_the_star_entry(tmp_path: Path) -> None:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"click-button": [], "*": [SOLVES]}), encoding="utf-8")
    model = ReplayModel.from_file(path)
    with pytest.raises(RepliesExhausted, match="has only 0 replies for task 'click-button'; call 1 has none"):
        model.complete(ChatRequest(messages=[], task="click-button"))
    assert model.complete(ChatRequest(messages=[], task="click-link")).text == SOLVES


# -- the episode JSON: the documented fields and types ---------------------------------------

def text_or_null(value: Any) -> bool:
    return value is None or isinstance(value, str)


def whole(value: Any) -> bool:
    return type(value) is int


def whole_or_null(value: Any) -> bool:
    return value is None or whole(value)


def number(value: Any) -> bool:
    return type(value) in (int, float) and math.isfinite(value)


def number_or_null(value: Any) -> bool:
    return value is None or number(value)


def of(kind: type) -> Callable[[Any], bool]:
    return lambda value: type(value) is kind


STATUSES = {"solved", "failed", "cycle", "no change", "exception", "progress", None}
#: Each part of the record: the section of docs/episode-json.md that lists it, and its fields' types.
SCHEMA: dict[str, tuple[str, dict[str, Callable[[Any], bool]]]] = {
    "episode": ("## The episode", {
        "task": of(str), "seed": whole, "method": of(str), "examples": of(str), "llm": of(str),
        "examples_shown": of(list), "guards": of(bool), "code": of(str), "commit": text_or_null,
        "utterance": of(str), "success": of(bool), "reward": number, "raw_reward": number, "reason": text_or_null,
        "steps": whole, "llm_calls": whole, "prompt_tokens": whole, "completion_tokens": whole,
        "context_overflows": whole, "seconds": number, "error": text_or_null, "infra_error": text_or_null,
        "success_first_trial": of(bool), "max_trials": whole, "max_steps": whole, "max_tokens": whole,
        "trials": of(list), "trace": of(list),
        "calls": of(list)}),
    "examples_shown": ("## The episode", {"task": of(str), "number": whole, "source": of(str)}),
    "trace": ("## A step", {
        "index": whole, "trial": whole, "prompt": of(list), "observation": of(list),
        "source": lambda v: v in ("model", "replay", "correction"), "reply": text_or_null,
        "program": text_or_null, "actions": of(list), "error": text_or_null, "output": of(str),
        "done": of(bool), "reward": number, "status": lambda v: v in STATUSES, "feedback": of(str),
        "changed": of(bool), "note": text_or_null, "repeats": whole, "llm_seconds": number,
        "run_seconds": number, "prompt_tokens": whole, "completion_tokens": whole, "screenshot": text_or_null}),
    "actions": ("## An action", {
        "name": of(str), "args": of(list), "target": text_or_null, "target_text": text_or_null,
        "error": text_or_null, "ms": number, "flipped": text_or_null, "note": text_or_null}),
    "calls": ("## A model call", {
        "kind": lambda v: v in ("step", "review"), "trial": whole, "step": whole_or_null, "seconds": number,
        "prompt_tokens": whole, "completion_tokens": whole, "cached_tokens": whole_or_null,
        "prompt_ms": number_or_null, "generate_ms": number_or_null, "draft_tokens": whole_or_null,
        "draft_accepted": whole_or_null, "finish": text_or_null, "past_block": whole, "from_cache": of(bool),
        "refused": of(list)}),
    "trials": ("## A trial", {
        "trial": whole, "success": of(bool), "raw_reward": number,
        "ending": lambda v: v in ("solved", "failed", "cycle", "exception", "incomplete"),
        "steps": whole, "llm_calls": whole, "reflection": lambda v: v is None or type(v) is dict}),
    "reflection": ("## A trial", {"prompt": of(list), "reply": text_or_null, "step": whole_or_null,
                                  "why": of(str), "repeated": of(bool)}),
}


def doc_section(heading: str) -> str:
    text = EPISODE_DOC.read_text(encoding="utf-8")
    start = text.index("\n" + heading) + 1
    end = text.find("\n## ", start)
    return text[start:end if end >= 0 else len(text)]


def parts(record: dict[str, Any]) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(part, path, object) for the record and every object nested in it that the docs describe."""
    yield "episode", "", record
    for example in record.get("examples_shown", []):
        yield "examples_shown", "examples_shown[].", example
    for step in record["trace"]:
        yield "trace", "trace[].", step
        for action in step["actions"]:
            yield "actions", "actions[].", action
    for call in record.get("calls", []):
        yield "calls", "calls[].", call
    for trial in record["trials"]:
        yield "trials", "trials[].", trial
        if trial["reflection"] is not None:
            yield "reflection", "trials[].reflection.", trial["reflection"]


def check_record(record: dict[str, Any], older: set[str] = frozenset()) -> None:
    """Every field documented and of its documented type; a field missing (or not documented)
    only when ``older`` names it, as the docs' "Older records" does."""
    for part, path, obj in parts(record):
        fields = SCHEMA[part][1]
        for name in set(fields) - set(obj):
            assert path + name in older, f"{path}{name} missing"
        for name, value in obj.items():
            if name not in fields:
                assert path + name in older, f"{path}{name} is not documented"
            else:
                assert fields[name](value), f"{path}{name} = {value!r}"


def test_the_schema_here_is_what_the_docs_list() -> None:
    for part, (heading, fields) in SCHEMA.items():
        section = doc_section(heading)
        for name in fields:
            assert f"`{name}`" in section, f"{part}.{name} is not in the docs' section {heading!r}"


def strict_json(line: str) -> dict[str, Any]:
    """``line`` parsed as RFC 8259 JSON: no NaN, Infinity or -Infinity."""
    def refuse(constant: str) -> None:
        raise AssertionError(f"{constant} is not JSON")
    return json.loads(line, parse_constant=refuse)


def solve_json(tmp_path: Path, replies: dict[str, list[str]], *args: str,
               raw: bytes | None = None) -> tuple[int, dict[str, Any], str]:
    """``python -m webwise solve --json`` on click-button seed 1 with a replay file of
    ``replies`` (or the bytes ``raw``): exit status, the record, stderr. stdout must be
    exactly one line of strict JSON."""
    path = tmp_path / "replies.json"
    path.write_bytes(raw if raw is not None else json.dumps(replies).encode())
    result = subprocess.run([sys.executable, "-m", "webwise", "solve", "--task", "click-button", "--seed", "1",
                             "--llm", f"replay:{path}", "--json", *args],
                            capture_output=True, timeout=120, cwd=tmp_path)
    out = result.stdout.decode("utf-8")
    assert out.endswith("\n") and out.count("\n") == 1, (out[:300], result.stderr[-2000:])
    record = strict_json(out)
    check_record(record)
    assert record["steps"] == len(record["trace"]) and record["llm_calls"] == len(record["calls"])
    assert record["llm"] == f"replay:{path.resolve()}"
    return result.returncode, record, result.stderr.decode("utf-8")


def test_a_solved_episode_from_a_windows_file(tmp_path: Path) -> None:
    """BOM, CRLF, a "*" entry and a reply with a lone surrogate and other Unicode in its prose."""
    reply = "Voilà ✓ \ud800\n" + SOLVES
    text = json.dumps({"*": [reply]}, indent=1).replace("\n", "\r\n")
    code, record, err = solve_json(tmp_path, {}, raw=b"\xef\xbb\xbf" + text.encode("ascii"))
    assert code == 0 and err == "", err
    assert record["success"] and record["raw_reward"] == 1.0 and record["trace"][0]["reply"] == reply
    assert record["trials"] == [{"trial": 0, "success": True, "raw_reward": 1.0, "ending": "solved", "steps": 1,
                                 "llm_calls": 1, "reflection": None}]


def test_a_failing_episode_that_runs_out_of_replies(tmp_path: Path) -> None:
    code, record, err = solve_json(tmp_path, {"click-button": [NO_CODE]}, "--trials", "2")
    assert code == 1 and err == ""
    assert not record["success"]
    assert record["error"] == "replay file has only 1 replies for task 'click-button'; call 2 has none"
    first, second = record["trace"]
    assert first["reply"] == NO_CODE and first["program"] is None and first["status"] == "exception"
    assert second["reply"] is None and second["status"] is None and second["error"] == record["error"]
    assert record["max_trials"] == 2 and len(record["trials"]) == 1  # no trial after the error
    assert record["trials"][0]["ending"] == "exception"


def test_a_second_trial_after_a_review(tmp_path: Path) -> None:
    code, record, _ = solve_json(tmp_path, {"click-button": [WRONG, REVIEW]}, "--trials", "2", "--max-steps", "1")
    assert code == 0 and record["success"] and not record["success_first_trial"]
    first, second = record["trials"]
    assert first["ending"] == "incomplete" and first["llm_calls"] == 2 and first["reflection"]["step"] == 1
    assert first["reflection"]["reply"] == REVIEW and second["reflection"] is None
    assert [(s["trial"], s["source"], s["reply"] is None) for s in record["trace"]] == [(0, "model", False),
                                                                                       (1, "correction", True)]
    assert [c["kind"] for c in record["calls"]] == ["step", "review"]


def test_a_programs_hostile_output_is_kept_and_escaped(tmp_path: Path) -> None:
    program = "```python\nprint('\\ud800 \\x1b[2J \\u202e')\n" + SOLVES[SOLVES.index("import re"):]
    code, record, _ = solve_json(tmp_path, {"click-button": [program]})
    assert code == 0 and record["trace"][0]["output"] == "\ud800 \x1b[2J \u202e\n"


class NonFinite:
    """A model of one's own whose reply reports non-finite timings."""

    name = "non-finite"

    def complete(self, request: ChatRequest) -> ChatReply:
        return ChatReply(SOLVES, 10, 10, seconds=1.5, extra={"prompt_ms": math.inf, "generate_ms": math.nan})

    def close(self) -> None:
        """Nothing to release."""


def test_non_finite_numbers_are_null_in_the_record() -> None:
    record = webwise.solve("click-button", seed=0, llm=NonFinite()).to_dict()
    strict_json(json.dumps(record, allow_nan=False))
    [call] = record["calls"]
    assert (call["seconds"], call["prompt_ms"], call["generate_ms"]) == (1.5, None, None)
    assert record["success"]
    # A reply's own time is summed into the episode's: one that is not a time ends the episode.
    class NaNTime(NonFinite):
        def complete(self, request: ChatRequest) -> ChatReply:
            return ChatReply(SOLVES, 10, 10, seconds=math.nan)

    episode = webwise.solve("click-button", seed=0, llm=NaNTime())
    assert episode.error == "non-finite: complete() returned a ChatReply whose seconds is nan, not a time"


# -- committed results -----------------------------------------------------------------------

def committed_results() -> list[Path]:
    try:
        listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "benchmarks/results"], capture_output=True,
                                text=True, check=True, timeout=60).stdout.split()
    except (OSError, subprocess.SubprocessError):
        return []
    return [ROOT / name for name in listed if name.endswith("results.jsonl")]


def test_committed_records_hold_what_the_docs_say() -> None:
    """Every committed record is strict JSON with the documented fields and types; a field is
    missing, or undocumented, only when the docs' "Older records" names it."""
    files = committed_results()
    if not files:
        pytest.skip("no git checkout with committed results")
    older = set(re.findall(r"`([a-z_\[\].]+)`", doc_section("## Older records")))
    paths = {"code", "commit", "calls", "infra_error", "guards", "examples_shown"}
    assert paths <= older  # top-level names stand as they are; nested ones with their path
    assert {"trace[].changed", "actions[].flipped", "calls[].refused", "actions[].toggled"} <= older
    count = 0
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                check_record(strict_json(line), older)
                count += 1
    assert count > 1000


def test_a_page_that_will_not_load_still_gives_one_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The page server serving nothing (an empty folder): ``--json`` printed no record at all."""
    monkeypatch.setattr("webwise.environment.html_root", lambda: tmp_path)
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"*": [SOLVES]}))
    assert cli.main(["solve", "--task", "click-button", "--llm", f"replay:{path}", "--json"]) == 1
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    record = strict_json(out)
    check_record(record)
    assert re.fullmatch(r"page of task click-button did not load from http://127\.0\.0\.1:\d+: "
                        r"it never finished loading", record["error"])
    assert (record["success"], record["trace"], record["llm_calls"], record["infra_error"]) == (False, [], 0, None)
