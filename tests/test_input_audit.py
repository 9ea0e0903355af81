"""The bad-input contract, checked by enumeration rather than by example.

docs/cli.md: bad input to any ``webwise`` subcommand is one line on stderr naming what is wrong,
exit status 2, no traceback and nothing created or lost on disk, found before a browser or a
model starts. The library (README, "Use it as a library") raises :class:`webwise.ConfigError`
with the same message for the same bad value, before a browser or a model starts: the command
line's line is the library's message, or it after argparse's ``argument --option: ``.

The options come from the parser itself (:func:`webwise.cli.build_parser`): every argument of
every subcommand gets the bad values of its kind, and an argument added later fails
:func:`test_every_argument_has_a_kind` until it is given one. Everything runs in-process with the
browser and the embedded model replaced by tripwires, so a case that would start either fails at
once instead of starting it; a snapshot of the test's folder (the current directory included)
shows whatever a refused command created or changed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest

import webwise
import webwise.browser
import webwise.llm.local
from webwise import cli, harvest, store
from webwise.bench import BenchConfig, run_bench
from webwise.episode import Episode
from webwise.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
WEBWISE = str(Path(sys.executable).parent / "webwise")
#: The environment variables docs/cli.md and docs/faults.md name for the model backends.
MODEL_VARIABLES = ("OPENAI_BASE_URL", "WEBWISE_LLM_CACHE", "WEBWISE_LLM_TIMEOUT", "WEBWISE_LLM_RETRIES",
                   "WEBWISE_LLM_BACKOFF", "WEBWISE_LLM_MAX_WAIT", "WEBWISE_LLM_DEADLINE", "WEBWISE_LOCAL_SLOTS",
                   "WEBWISE_LOCAL_DRAFT", "WEBWISE_LOCAL_CACHE_MIB", "WEBWISE_LOCAL_THREADS", "WEBWISE_LOCAL_CTX")


class Started(BaseException):
    """A browser or the embedded model was about to start; bad input must be refused before.
    Not an :class:`Exception`, so that nothing on the way mistakes it for a failed episode."""


@pytest.fixture(autouse=True)
def tripwires(monkeypatch: pytest.MonkeyPatch) -> None:
    """No browser, no model: either one starting is a failure of the case that started it."""
    def launch(*args: object, **kwargs: object) -> None:
        raise Started("a browser was started")

    class LocalModel:
        def __init__(self, *args: object, **kwargs: object) -> None:
            raise Started("the embedded model was loaded")

    monkeypatch.setattr(webwise.browser, "launch", launch)
    monkeypatch.setattr(webwise.llm.local, "LocalModel", LocalModel)
    for name in MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@dataclass(frozen=True)
class World:
    """The test's folder: every path a case names is in it, and so is the current directory."""

    root: Path
    replay: Path    # a valid replay file
    file: Path      # a regular file: a file where a folder belongs, and FILE/sub unwritable even for root
    newline: Path   # a regular file whose name holds a line break
    folder: Path    # an empty folder: a folder where a file belongs
    not_gguf: Path  # a text file named like a model
    store: Path     # a store holding one example of click-button
    run: Path       # a bench's output folder with one episode
    missing: Path   # nothing there

    @property
    def spec(self) -> str:
        return f"replay:{self.replay}"

    @property
    def long(self) -> Path:
        """A name longer than a file name may be (ENAMETOOLONG)."""
        return self.root / ("x" * 300)


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")  # a relative name (`--out " "`) lands in the snapshot too
    replay = tmp_path / "replies.json"
    replay.write_text(json.dumps({"*": ["```python\nclick('button', '')\n```"]}))
    (tmp_path / "file").write_text("a file")
    (tmp_path / "line\nbreak").write_text("a file")
    (tmp_path / "folder").mkdir()
    (tmp_path / "model.gguf").write_text("not a model")
    (tmp_path / "store").mkdir()
    shutil.copy(ROOT / "incontext" / "auto" / "click-button.json", tmp_path / "store" / "click-button.json")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "results.jsonl").write_text(
        json.dumps(Episode("click-button", 0, "webwise", "none", "replay:x").to_dict()) + "\n")
    (tmp_path / "run" / ".bench.lock").touch()  # as every bench leaves it
    return World(root=tmp_path, replay=replay, file=tmp_path / "file", newline=tmp_path / "line\nbreak",
                 folder=tmp_path / "folder", not_gguf=tmp_path / "model.gguf", store=tmp_path / "store",
                 run=tmp_path / "run", missing=tmp_path / "missing")


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every file's bytes and every folder (None) under ``root``."""
    return {str(path.relative_to(root)): None if path.is_dir() else path.read_bytes()
            for path in sorted(root.rglob("*"))}


def refused(argv: list[str], world: World, capsys: pytest.CaptureFixture[str]) -> str:
    """Run ``webwise argv`` in-process and check the contract; the message, without ``webwise: error: ``."""
    capsys.readouterr()
    before = snapshot(world.root)
    try:
        code = cli.main(argv)
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), (argv, code, out, err)
    assert err.startswith("webwise: error: ") and err.endswith("\n") and err.count("\n") == 1, (argv, err)
    assert "Traceback" not in err and err.strip() != "webwise: error:", (argv, err)
    assert snapshot(world.root) == before, (argv, err)
    return err[len("webwise: error: "):-1]


def raised(call: Callable[[], object], world: World) -> str:
    """Call the library and check it raises a one-line :class:`ConfigError`, creating nothing; its message."""
    before = snapshot(world.root)
    with pytest.raises(ConfigError) as info:
        call()
    message = str(info.value)
    assert message and "\n" not in message, message
    assert snapshot(world.root) == before, message
    return message


def same(line: str, message: str) -> bool:
    """Whether the command line's ``line`` says what the library's ``message`` says."""
    return line == message or re.fullmatch(r"argument \S+: " + re.escape(message), line) is not None


# -- every argument of every subcommand ------------------------------------------------------

def commands(parser: argparse.ArgumentParser,
             words: tuple[str, ...] = ()) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Each (sub)command as typed (``store show``) with its parser."""
    sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if sub is None:
        yield " ".join(words), parser
        return
    for name, child in sub.choices.items():
        yield from commands(child, (*words, name))


def arguments(parser: argparse.ArgumentParser) -> list[tuple[str, bool]]:
    """The arguments of ``parser`` that take a value: ``(--option or positional's name, positional)``."""
    return [(action.option_strings[0] if action.option_strings else action.dest, not action.option_strings)
            for action in parser._actions
            if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)) and action.nargs != 0]


#: What each argument takes, by ``(command, argument)`` or by argument alone.
KINDS: dict[tuple[str, str] | str, str] = {
    "--seed": "seed", "--seed-start": "seed", "--seeds": "count", "--workers": "count", "--check-seeds": "count",
    "number": "count", "--max-steps": "count", "--trials": "count", "--max-tokens": "tokens",
    "--method": "choice", "--examples": "choice", "--group": "choice", ("bench", "--examples"): "choices",
    "--methods": "choices", "--task": "task", "task": "task", "--tasks": "tasks", "--llm": "llm",
    "--remote": "url", "--page-host": "host", "--out": "write", "--screenshots": "write",
    ("harvest", "--store"): "write", ("store remove", "--store"): "write", "--store": "read",
    ("store list", "--store"): "store", ("store show", "--store"): "store", "--from-results": "results", "dir": "dir",
}

#: Whole numbers as they are mistyped: not numbers, not ASCII, not whole, not finite, out of range.
NOT_WHOLE = ["", " ", "abc", "1.5", "nan", "inf", "-inf", "1e3", "0x10", " 3 ", "1_0", "１", "١٢", "²", "9" * 5000,
             "\udcff"]


def bad_values(kind: str, w: World) -> list[str]:
    """Values no argument of ``kind`` may take."""
    paths = ["", str(w.file), str(w.file / "sub"), str(w.newline / "sub"), str(w.long), str(w.long / "sub")]
    return {
        "count": ["0", "-1", *NOT_WHOLE],
        "tokens": ["0", "-1", str(2**31), *NOT_WHOLE],
        "seed": ["-1", str(2**53), str(2**64), *NOT_WHOLE],
        "choice": ["", " ", "x", "WEBWISE", "none,auto", "\udcff"],
        "choices": ["", " ", ",", "x", "webwise,x", "WEBWISE", "\udcff"],
        "task": ["", " ", "nope", " click-button", "CLICK-BUTTON", "click-button\n", "\udcff"],
        "tasks": ["", " ", ",", "nope", "click-button,nope", "CLICK-BUTTON", "paper48,", "\udcff"],
        "llm": ["", " ", "gpt4", "bogus:x", "openai:", "openai: ", "local:2b", "local:nope.gguf", f"local:{w.folder}",
                f"local:{w.not_gguf}", f"local:{w.long}.gguf", "replay:", f"replay:{w.missing}", f"replay:{w.folder}",
                f"replay:{w.file}/sub", "\udcff"],
        "url": ["", " ", "notaurl", "127.0.0.1:4444", "ftp://example.org", "http://", "http://[::1", "http://host:abc",
                "http://host:99999", "http://\udcff"],
        "host": ["", " ", "192.0.2.1", "\udcff"],  # none needs a name server to be refused
        "write": paths,
        "read": paths,
        "store": [*paths, str(w.missing)],
        "results": ["", str(w.missing), str(w.folder), str(w.file / "sub"), str(w.long)],
        "dir": ["", str(w.missing), str(w.folder), str(w.file), str(w.file / "sub"), str(w.long)],
    }[kind]


def valid(command: str, w: World) -> dict[str, str]:
    """A command line ``command`` runs (up to the tripwires): each case changes one argument of it."""
    return {
        "solve": {"--task": "click-button", "--llm": w.spec, "--examples": "none"},
        "harvest": {"--tasks": "click-button", "--llm": w.spec, "--store": str(w.root / "new-store")},
        "store list": {"--store": str(w.store)},
        "store show": {"task": "click-button", "number": "1", "--store": str(w.store)},
        "store remove": {"task": "click-button", "number": "1", "--store": str(w.store)},
        "bench": {"--tasks": "click-button", "--examples": "none", "--llm": w.spec, "--out": str(w.root / "new-out")},
        "report": {"dir": str(w.run)},
        "tasks": {},
    }[command]


def command_line(command: str, changes: dict[str, str], w: World) -> list[str]:
    """``command``'s valid arguments with ``changes``, positionals first, in the parser's order."""
    values = {**valid(command, w), **changes}
    positionals = [name for name, positional in arguments(dict(commands(cli.build_parser()))[command]) if positional]
    options = [item for name, value in values.items() if name not in positionals for item in (name, value)]
    return [*command.split(), *(values[name] for name in positionals if name in values), *options]


def kind_of(command: str, argument: str) -> str | None:
    return KINDS.get((command, argument)) or KINDS.get(argument)


CASES = [(command, argument) for command, parser in commands(cli.build_parser()) for argument, _ in arguments(parser)]


def test_every_argument_has_a_kind() -> None:
    """An argument added to the parser is covered once it is given a kind here."""
    unknown = [f"{command} {argument}" for command, argument in CASES if kind_of(command, argument) is None]
    assert not unknown, f"give these arguments a kind in KINDS: {unknown}"


@pytest.mark.parametrize(("command", "argument"), CASES, ids=[" ".join(case) for case in CASES])
def test_each_bad_value_of_each_argument_is_refused(command: str, argument: str, world: World,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Every bad value of the argument's kind, and the empty string for any argument."""
    kind = kind_of(command, argument)
    for value in dict.fromkeys(["", *(bad_values(kind, world) if kind else [])]):
        message = refused(command_line(command, {argument: value}, world), world, capsys)
        shown_value = value.replace("\n", "\\n")
        words = {argument, argument.lstrip("-"), argument.lstrip("-").replace("-", "_"), shown_value}
        if kind:  # or what the kind is about, when the library's message names the value's role instead
            words |= {kind.rstrip("s"), "seed", "store", "path", "URL", "host", "spec", "replay", "model"}
        assert any(word in message for word in words), (command, argument, value, message)


def test_the_valid_command_lines_are_valid(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    """What each case changes is what is refused: unchanged, each command line runs, or starts a browser."""
    for command, _ in commands(cli.build_parser()):
        argv = command_line(command, {}, world)
        try:
            code = cli.main(argv)
        except Started:
            code = 0
        assert code == 0, (argv, capsys.readouterr())


# -- options that conflict, or that the run would ignore -------------------------------------

def conflicts(w: World) -> list[tuple[list[str], str]]:
    """Command lines each of whose arguments is fine alone, and what the refusal says."""
    harvest_run = ["harvest", "--store", str(w.root / "new-store")]
    bench_run = ["bench", "--llm", w.spec, "--out", str(w.root / "new-out")]
    return [
        ([*harvest_run, "--from-results", str(w.run), "--recheck"], "--from-results and --recheck"),
        (harvest_run, "harvest needs --tasks"),
        ([*harvest_run, "--from-results", str(w.run), "--llm", "local:1.5b"],
         "--llm has no effect with --from-results"),
        ([*harvest_run, "--from-results", str(w.run), "--seeds", "3", "--trials", "2"],
         "--seeds and --trials have no effect with --from-results"),
        ([*harvest_run, "--tasks", "click-button", "--recheck", "--max-tokens", "99"],
         "--max-tokens has no effect with --recheck"),
        ([*harvest_run, "--from-results", str(w.run), "--no-guards"],  # each episode's own guards are used
         "--no-guards has no effect with --from-results"),
        ([*harvest_run, "--tasks", "click-button", "--llm", w.spec, "--examples", "manual"],
         "argument --examples: unknown examples mode 'manual'; choose one of none, auto-near"),
        ([*harvest_run, "--tasks", "stored", "--llm", w.spec], "unknown task 'stored'"),
        ([*harvest_run, "--tasks", "click-button", "--llm", w.spec, "--seed-start", "99999", "--seeds", "2"],
         "harvest seeds must be below 100000"),
        ([*harvest_run, "--tasks", "click-button", "--llm", w.spec, "--check-seeds", "101"],
         "argument --check-seeds: check_seeds must be a whole number from 1 to 100, not 101"),
        ([*bench_run, "--tasks", "click-button", "--seed-start", str(2**53 - 2), "--seeds", "3"],
         "goes past the largest seed"),
        ([*bench_run, "--tasks", "stored", "--store", str(w.folder)], "holds no example yet"),
        ([*bench_run, "--tasks", "click-pie-nodelay"], "no hand-written example for click-pie-nodelay"),
        ([*bench_run, "--tasks", "all", "--seeds", "100000"], "episodes planned; a bench runs at most"),
        ([*bench_run, "--tasks", "click-button", "--examples", "auto", "--store", str(w.missing)],
         "no example store at"),
        (["bench", "--tasks", "click-button", "--llm", w.spec, "--out", str(w.run)], "already holds 1 episodes"),
        (["solve", "--task", "click-pie-nodelay", "--llm", w.spec], "no hand-written example"),
        (["solve", "--task", "click-button", "--llm", w.spec, "--examples", "auto", "--store", str(w.missing)],
         "no example store at"),
        (["solve", "--task", "click-button", "--llm", w.spec, "extra"], "unrecognized arguments: extra"),
        (["solve", "--task", "click-button", "--llm", w.spec, "--bogus\nx"], "unrecognized arguments: --bogus\\nx"),
        (["solve", "--task"], "expected one argument"),
        (["solve"], "the following arguments are required: --task"),
        (["store", "show", "click-button", "2", "--store", str(w.store)], "there is no example 2"),
        (["store", "remove", "click-test", "1", "--store", str(w.store)], "no example for click-test"),
        (["store"], "the following arguments are required"),
        (["tasks", "extra"], "unrecognized arguments: extra"),
        ([], "the following arguments are required"),
        (["--bogus"], "the following arguments are required"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
    ]


def test_conflicting_and_ignored_options_are_refused(world: World, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, expected in conflicts(world):
        assert expected in refused(argv, world, capsys), argv


# -- the environment the docs name -----------------------------------------------------------

ENVIRONMENT: list[tuple[str, str, str]] = [
    *(("OPENAI_BASE_URL", url, "openai:m") for url in ("notaurl", "ftp://example.org/v1", "http://", "http://[::1",
                                                        "http://host:abc", "http://host:99999", "http://\udcff")),
    *((name, value, "openai:m") for name in ("WEBWISE_LLM_TIMEOUT", "WEBWISE_LLM_DEADLINE")
      for value in ("abc", "-1", "0", "nan", "inf", "1e999")),
    *(("WEBWISE_LLM_RETRIES", value, "openai:m") for value in ("abc", "-1", "1.5", "nan", "inf", "1e999")),
    *((name, value, "openai:m") for name in ("WEBWISE_LLM_BACKOFF", "WEBWISE_LLM_MAX_WAIT")
      for value in ("abc", "-1", "nan", "inf")),
    *(("WEBWISE_LLM_CACHE", "{file}", spec) for spec in ("openai:m", "local")),
    *(("WEBWISE_LLM_CACHE", "{file}/sub", spec) for spec in ("openai:m", "local")),
    *((name, value, "local") for name in ("WEBWISE_LOCAL_SLOTS", "WEBWISE_LOCAL_THREADS", "WEBWISE_LOCAL_CTX")
      for value in ("0", "-1", "abc", "²", "1.5")),
    ("WEBWISE_LOCAL_DRAFT", "fast", "local"),
    ("WEBWISE_LOCAL_CACHE_MIB", "1024", "local"),
    ("WEBWISE_MODEL_DIR", "{folder}", "local"),
    ("WEBWISE_MODEL_DIR", "{file}", "local"),
]


@pytest.mark.parametrize(("name", "value", "spec"), ENVIRONMENT, ids=[f"{n}={v!r} {s}" for n, v, s in ENVIRONMENT])
def test_a_bad_environment_variable_is_refused_before_anything_starts(
        name: str, value: str, spec: str, world: World, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """For each command that builds a model: before a bench's OUT or a harvest's store is made,
    and before the model loads or the browser starts."""
    monkeypatch.setenv(name, value.format(file=world.file, folder=world.folder))
    for command in ("solve", "bench", "harvest"):
        message = refused(command_line(command, {"--llm": spec}, world), world, capsys)
        assert (name in message) if name != "WEBWISE_MODEL_DIR" else ("is not installed at" in message), message


def test_bad_bytes_from_the_shell_are_one_line(world: World) -> None:
    """Through the console script: an argument or a variable that is no UTF-8 arrives as lone surrogates."""
    for argv, extra in [([b"solve", b"--task", b"click-button", b"--seed", b"\xff"], {}),
                        ([b"bench", b"--tasks", b"click-button", b"--llm", b"openai:m", b"--out", b"out"],
                         {b"OPENAI_BASE_URL": b"http://\xff"})]:
        result = subprocess.run([WEBWISE.encode(), *argv], capture_output=True, env={**os.environb, **extra},
                                timeout=120, cwd=world.root / "cwd")
        assert result.returncode == 2 and result.stdout == b"", result
        assert result.stderr.count(b"\n") == 1 and result.stderr.startswith(b"webwise: error: "), result.stderr
        assert b"\\udcff" in result.stderr, result.stderr  # the byte shown as its escape, not written raw
    assert snapshot(world.root / "cwd") == {}


# -- the library: the same values, the same messages -----------------------------------------

def pairs(w: World) -> dict[str, tuple[list[str], list[Callable[[], object]]]]:
    """A bad command line and the library calls that take the same bad value."""
    R = w.spec
    new_store, new_out = w.root / "new-store", w.root / "new-out"

    def solve(task: str = "click-button", **kwargs: Any) -> Callable[[], object]:
        return lambda: webwise.solve(task, **{"llm": R, "examples": "none", **kwargs})

    def harvested(**kwargs: Any) -> Callable[[], object]:
        return lambda: harvest.harvest(["click-button"], **{"llm": R, "store_dir": new_store, **kwargs})

    def bench(**kwargs: Any) -> Callable[[], object]:
        plan = {"tasks": ["click-button"], "seeds": [0], "methods": ["webwise"], "examples": ["none"], "llm": R,
                "out": new_out, **kwargs}
        return lambda: run_bench(BenchConfig(**plan))

    def session(*, remote_url: object = None, **kwargs: Any) -> Callable[[], object]:
        def run() -> object:
            with webwise.Session(R, remote_url=remote_url) as opened:  # type: ignore[arg-type]
                return opened.run(**{"task": "click-button", "seed": 0, "examples": "none", **kwargs})
        return run

    S = ["solve", "--task", "click-button", "--llm", R, "--examples", "none"]
    H = ["harvest", "--tasks", "click-button", "--llm", R, "--store", str(new_store)]
    B = ["bench", "--tasks", "click-button", "--examples", "none", "--llm", R, "--out", str(new_out)]
    return {
        "seed -1": ([*S, "--seed", "-1"], [solve(seed=-1), session(seed=-1)]),
        "seed text": ([*S, "--seed", "abc"], [solve(seed="abc"), session(seed="abc")]),
        "seed too large": ([*S, "--seed", str(2**53)], [solve(seed=2**53)]),
        "max_steps 0": ([*S, "--max-steps", "0"], [solve(max_steps=0), harvested(max_steps=0), bench(max_steps=0),
                                                   lambda: webwise.Settings(max_steps=0)]),
        "trials 0": ([*H, "--trials", "0"], [solve(trials=0), harvested(trials=0), bench(trials=0)]),
        "max_tokens 2**31": ([*B, "--max-tokens", str(2**31)], [solve(max_tokens=2**31), harvested(max_tokens=2**31),
                                                               bench(max_tokens=2**31)]),
        "method": ([*S, "--method", "magic"], [solve(method="magic"), session(method="magic"),
                                              harvested(method="magic")]),
        "examples": ([*S, "--examples", "many"], [solve(examples="many"), session(examples="many"),
                                                 harvested(examples="many")]),
        "bench method": ([*B, "--methods", "webwise,magic"], [bench(methods=["webwise", "magic"])]),
        "bench examples": ([*B, "--examples", "none,many"], [bench(examples=["none", "many"])]),
        "no methods": ([*B, "--methods", ","], [bench(methods=[])]),
        "store a file": ([*S, "--store", str(w.file)], [solve(store_dir=w.file), bench(store_dir=w.file),
                                                        lambda: webwise.Settings(store_dir=w.file)]),
        "store under a file": ([*H, "--store", str(w.file / "sub")], [harvested(store_dir=w.file / "sub")]),
        "store empty": ([*S, "--store", ""], [solve(store_dir=""), harvested(store_dir=""), bench(store_dir="")]),
        "llm unknown": ([*S, "--llm", "bogus"], [solve(llm="bogus"), harvested(llm="bogus"), bench(llm="bogus")]),
        "llm blank model": ([*S, "--llm", "openai: "], [solve(llm="openai: "), bench(llm="openai: ")]),
        "llm not gguf": ([*B, "--llm", f"local:{w.not_gguf}"], [solve(llm=f"local:{w.not_gguf}"),
                                                              bench(llm=f"local:{w.not_gguf}")]),
        "task": ([*S[:2], "nope", *S[3:]], [solve(task="nope"), session(task="nope")]),
        "harvest seeds 0": ([*H, "--seeds", "0"], [harvested(seeds=0)]),
        "harvest seed_start -1": ([*H, "--seed-start", "-1"], [harvested(seed_start=-1)]),
        "check_seeds 0": ([*H, "--check-seeds", "0"], [harvested(check_seeds=0),
                                                       lambda: harvest.recheck(["click-button"], check_seeds=0)]),
        "check_seeds 101": ([*H, "--check-seeds", "101"], [harvested(check_seeds=101)]),
        "workers 0": ([*H, "--workers", "0"], [harvested(workers=0), bench(workers=0)]),
        "harvest examples manual": ([*H, "--examples", "manual"], [harvested(examples="manual")]),
        "remote empty": ([*H, "--remote", ""], [harvested(remote_url=""), bench(remote_url=""),
                                                session(remote_url="")]),
        "remote no URL": ([*B, "--remote", "http://[::1"], [harvested(remote_url="http://[::1"),
                                                           bench(remote_url="http://[::1"),
                                                           session(remote_url="http://[::1")]),
        "page host empty": ([*B, "--page-host", ""], [harvested(page_host=""), bench(page_host="")]),
        "page host elsewhere": ([*B, "--page-host", "192.0.2.1"], [harvested(page_host="192.0.2.1"),
                                                                   bench(page_host="192.0.2.1")]),
        "out a file": ([*B[:-1], str(w.file)], [bench(out=w.file)]),
        "out under a file": ([*B[:-1], str(w.file / "sub")], [bench(out=w.file / "sub")]),
        "out empty": ([*B[:-1], ""], [bench(out="")]),
        "bench task": (["bench", "--tasks", "nope", *B[3:]], [bench(tasks=["nope"])]),
        "results empty": (["harvest", "--from-results", "", "--store", str(new_store)],
                          [lambda: harvest.import_results("", store_dir=new_store)]),
        "results missing": (["harvest", "--from-results", str(w.missing), "--store", str(new_store)],
                            [lambda: harvest.import_results(w.missing, store_dir=new_store)]),
        "store missing": (["store", "list", "--store", str(w.missing)],
                          [lambda: store.listing(w.missing), lambda: store.coverage(w.missing)]),
        "listed task": (["store", "list", "--task", "nope", "--store", str(w.store)],
                        [lambda: store.listing(w.store, "nope")]),
        "example number": (["store", "show", "click-button", "0", "--store", str(w.store)],
                           [lambda: store.pick("click-button", 0, w.store)]),
    }


#: A world for collecting the cases' names: building them calls nothing.
NOWHERE = World(*[Path("/nowhere")] * 9)
PAIRS = list(pairs(NOWHERE))


@pytest.mark.parametrize("name", PAIRS)
def test_the_library_refuses_what_the_command_refuses_in_the_same_words(
        name: str, world: World, capsys: pytest.CaptureFixture[str]) -> None:
    argv, calls = pairs(world)[name]
    line = refused(argv, world, capsys)
    for call in calls:
        message = raised(call, world)
        assert same(line, message), (line, message)


@pytest.mark.parametrize(("variable", "value"), [("OPENAI_BASE_URL", "http://[::1"), ("WEBWISE_LLM_RETRIES", "nan"),
                                                 ("WEBWISE_LLM_TIMEOUT", "0"), ("WEBWISE_LLM_CACHE", "{file}")])
def test_the_library_reads_the_environment_as_the_command_does(
        variable: str, value: str, world: World, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(variable, value.format(file=world.file))
    line = refused(["solve", "--task", "click-button", "--llm", "openai:m"], world, capsys)
    for call in (lambda: webwise.solve("click-button", llm="openai:m"),
                 lambda: harvest.harvest(["click-button"], llm="openai:m", store_dir=world.root / "new-store"),
                 lambda: run_bench(BenchConfig(tasks=["click-button"], seeds=[0], methods=["webwise"],
                                               examples=["none"], llm="openai:m", out=world.root / "new-out"))):
        assert same(line, raised(call, world))


def library_only(w: World) -> dict[str, Callable[[], object]]:
    """Bad values only a library caller can pass: types, and shapes a parser never makes."""
    plan = {"tasks": ["click-button"], "seeds": [0], "methods": ["webwise"], "examples": ["none"], "llm": w.spec,
            "out": w.root / "new-out"}

    def bench(**kwargs: Any) -> Callable[[], object]:
        return lambda: run_bench(BenchConfig(**{**plan, **kwargs}))

    def harvested(**kwargs: Any) -> Callable[[], object]:
        return lambda: harvest.harvest(["click-button"], **{"llm": w.spec, "store_dir": w.root / "new-store", **kwargs})

    return {
        "bench tasks as a string": bench(tasks="click-button"),
        "bench no tasks": bench(tasks=[]),
        "bench no seeds": bench(seeds=[]),
        "bench negative seed": bench(seeds=[-1]),
        "bench seed as text": bench(seeds=["0"]),
        "bench methods as a string": bench(methods="webwise"),
        "bench llm an object": bench(llm=3),
        "bench out a number": bench(out=3),
        "bench workers as text": bench(workers="2"),
        "bench resume as text": bench(resume="yes"),
        "bench guards as text": bench(guards="no"),
        "harvest tasks as a string": lambda: harvest.harvest("click-button", llm=w.spec),
        "harvest store a file": harvested(store_dir=w.file),
        "harvest page host a number": harvested(page_host=3),
        "harvest llm an object": harvested(llm=3),
        "session remote a number": lambda: webwise.Session(w.spec, remote_url=3),
        "session settings": lambda: webwise.Session(w.spec, 3),  # type: ignore[arg-type]
        "solve llm an object": lambda: webwise.solve("click-button", llm=3),  # type: ignore[arg-type]
        "solve guards as text": lambda: webwise.solve("click-button", llm=w.spec, guards="no"),  # type: ignore
        "settings temperature nan": lambda: webwise.Settings(temperature=float("nan")),
        "settings store under a file": lambda: webwise.Settings(store_dir=str(w.file / "sub")),
    }


LIBRARY_ONLY = list(library_only(NOWHERE))


@pytest.mark.parametrize("name", LIBRARY_ONLY)
def test_a_bad_library_argument_is_one_line_before_anything_starts(name: str, world: World) -> None:
    raised(library_only(world)[name], world)


# -- folders named by what no folder can be --------------------------------------------------

def nul_folders(w: World) -> dict[str, Callable[[], object]]:
    """Library calls naming a folder with a NUL, which the command line cannot pass."""
    name = "a\x00b"
    plan = {"tasks": ["click-button"], "seeds": [0], "methods": ["webwise"], "examples": ["none"], "llm": w.spec}
    return {
        "bench out": lambda: run_bench(BenchConfig(**plan, out=name)),
        "bench store": lambda: run_bench(BenchConfig(**plan, out=w.root / "new-out", store_dir=name)),
        "harvest store": lambda: harvest.harvest(["click-button"], llm=w.spec, store_dir=name),
        "settings store": lambda: webwise.Settings(store_dir=name),
        "solve store": lambda: webwise.solve("click-button", llm=w.spec, examples="auto", store_dir=name),
        "store listing": lambda: store.listing(name),
        "store remove": lambda: store.remove("click-button", 1, name),
    }


@pytest.mark.parametrize("name", list(nul_folders(NOWHERE)))
def test_a_nul_in_a_folder_is_a_config_error_that_shows_it_escaped(name: str, world: World) -> None:
    """``Path.exists()`` says False for such a name: the check went on to the folder above it,
    and the NUL met ``mkdir`` as a ValueError, or a message, raw."""
    assert raised(nul_folders(world)[name], world) == "a\\x00b: embedded null byte"


@pytest.fixture
def links(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A link loop and a link to nothing, beside the world: its snapshot cannot read them."""
    folder = tmp_path_factory.mktemp("links")
    (folder / "loop").symlink_to("loop")
    (folder / "dangling").symlink_to(folder / "gone" / "x")
    return folder / "loop", folder / "dangling"


def test_a_link_that_leads_nowhere_is_refused_up_front(world: World, links: tuple[Path, Path],
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """``Path.exists()`` says False for both, as where nothing is: a bench's --out failed late
    with ``File exists``, and --screenshots and WEBWISE_LLM_CACHE were taken."""
    loop, dangling = links
    for link, what in ((loop, "a link loop"), (dangling, "a link to nothing")):
        for command, argument in (("bench", "--out"), ("solve", "--screenshots"), ("harvest", "--store"),
                                  ("store list", "--store")):
            for path in (link, link / "sub"):
                argv = command_line(command, {argument: str(path)}, world)
                assert refused(argv, world, capsys) == f"argument {argument}: {link} is {what}", argv
        monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        monkeypatch.setenv("WEBWISE_LLM_CACHE", str(link))
        assert refused(command_line("solve", {"--llm": "openai:m"}, world), world, capsys) == \
            f"WEBWISE_LLM_CACHE: {link} is {what}"
        monkeypatch.delenv("WEBWISE_LLM_CACHE")
        assert raised(lambda: run_bench(BenchConfig(tasks=["click-button"], seeds=[0], methods=["webwise"],
                                                    examples=["none"], llm=world.spec, out=link)), world) == \
            f"{link} is {what}"
