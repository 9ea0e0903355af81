"""End to end: ``webwise solve`` with replayed programs in real headless Chromium.

``replays/solve.json`` holds, per task, the raw replies a model might give (prose around a
```python fence, bare fences, unfenced code, the paper's ``click_action1`` / ``env.step``
spelling). The k-th LLM call of an episode gets the k-th reply. Every program reads ``task``
and ``observation`` and never hard-codes one seed's answer, so each must solve its task on
every seed; a task with n replies must be solved in exactly n steps.

``replays/failures.json`` scripts what goes wrong: a first program whose click finds
nothing (the loop records it and a second reply solves the task), a reply with no code,
and a replay that runs out of replies.

Most episodes share one browser through ``webwise.Session`` (the library path); a few go
through ``webwise.cli.main`` in-process, and one through the ``.venv/bin/webwise`` console
script in a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Callable, Iterator

import pytest

import webwise
from webwise import cli, store
from webwise.agent import Agent
from webwise.errors import ConfigError

REPLAYS = Path(__file__).parent / "replays"
SOLVE = REPLAYS / "solve.json"
FAILURES = REPLAYS / "failures.json"
SOLVE_REPLIES: dict[str, list[str]] = json.loads(SOLVE.read_text(encoding="utf-8"))
FAILURE_REPLIES: dict[str, list[str]] = json.loads(FAILURES.read_text(encoding="utf-8"))
SEEDS = (0, 1, 2, 3)
#: What each scripted task exercises (kept in step with replays/solve.json).
TASKS = {
    "click-button": "paper spelling: click_action1 + env.step",
    "click-link": "bare fence, loop over spans, exact-case match",
    "click-tab": "prose around the fence",
    "click-dialog": "tag given as a class, empty text",
    "grid-coordinate": "click('circle', '(x,y)') through the id rule",
    "focus-text-2": "unfenced code, ordinal read from the task",
    "enter-password": "loop over password inputs",
    "simple-arithmetic": "arithmetic read from the page",
    "enter-time": "'9:37 PM' converted for <input type=time>",
    "enter-text": "two steps; Control+a and Backspace before typing",
    "enter-date": "two steps; '05/20/2010' converted for <input type=date>",
    "login-user": "two steps; key presses",
    "click-collapsible": "two steps: expand, then submit",
    "click-checkboxes": "loop over text nodes, click their labels",
    "use-autocomplete": "two steps: ArrowDown opens the menu, pick from it",
    "terminal": "two steps: 'ls\\n', read the listing, 'rm FILE\\n'",
}
EPISODE_KEYS = {"task", "seed", "method", "examples", "llm", "success", "reward", "steps", "llm_calls",
                "prompt_tokens", "completion_tokens", "seconds", "trace"}
STEP_KEYS = {"prompt", "reply", "program", "actions", "error"}


def test_replay_file_covers_the_scripted_tasks() -> None:
    assert set(SOLVE_REPLIES) == set(TASKS)
    assert len(TASKS) >= 14
    assert sum(len(replies) > 1 for replies in SOLVE_REPLIES.values()) >= 6  # multi-step tasks
    every_reply = [reply for replies in SOLVE_REPLIES.values() for reply in replies]
    assert any(reply.startswith("```\n") for reply in every_reply)  # bare fence
    assert any("```python" in reply and not reply.startswith("```") for reply in every_reply)  # prose around
    assert any("```" not in reply for reply in every_reply)  # no fence at all
    assert any("click_action1(" in reply and "= env.step(action)" in reply for reply in every_reply)


@pytest.fixture(scope="module")
def session():
    with webwise.Session(llm=f"replay:{SOLVE}") as shared:
        yield shared


@pytest.fixture(scope="module")
def failing_session():
    with webwise.Session(llm=f"replay:{FAILURES}") as shared:
        yield shared


def run_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict | None, str]:
    """``webwise solve ... --json`` in-process: exit status, the printed object, stderr."""
    code = cli.main(["solve", *args, "--json"])
    out, err = capsys.readouterr()
    return code, (json.loads(out) if out.strip() else None), err


def assert_clean_success(record: dict, replies: list[str]) -> None:
    """Solved in exactly one step per reply, every reply used as-is, nothing failed."""
    assert record["success"] is True, record["trace"]
    assert record["reward"] > 0 and record.get("raw_reward", 1.0) >= 1.0
    assert record["steps"] == len(record["trace"]) == len(replies)
    assert record["llm_calls"] == len(replies)
    assert record["error"] is None
    for step, reply in zip(record["trace"], replies):
        assert STEP_KEYS <= set(step)
        assert step["reply"] == reply
        assert step["program"] is not None
        assert step["error"] is None, step["error"]
        assert step["actions"], "every scripted step performs at least one action"
        assert all(action["error"] is None for action in step["actions"])


# -- every scripted task on every seed, through the library ---------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("task", list(TASKS))
def test_replayed_program_solves_task(session: webwise.Session, task: str, seed: int) -> None:
    episode = session.run(task, seed, "webwise", "none")
    record = json.loads(json.dumps(episode.to_dict()))  # what --json prints
    assert EPISODE_KEYS <= set(record)
    assert (record["task"], record["seed"], record["method"], record["examples"]) == (task, seed, "webwise", "none")
    assert_clean_success(record, SOLVE_REPLIES[task])


# -- traces of a few episodes in detail ------------------------------------------------------

def test_trace_of_enter_text(session: webwise.Session) -> None:
    episode = session.run("enter-text", 2, "webwise", "none")
    wanted = re.search(r'"(.*)"', episode.utterance).group(1)
    first, second = episode.trace
    assert [(a["name"], a["args"]) for a in first.actions] == [("click", ["input", "tt"])]
    assert first.done is False and second.done is True
    assert [(a["name"], a["args"]) for a in second.actions][-4:] == [
        ("press_key", ["Control+a"]), ("press_key", ["Backspace"]), ("enter_text", [wanted]),
        ("click", ["button", "Submit"])]
    assert second.actions[-1]["target"].startswith("button")
    # the second prompt tells the model what the first program did
    assert "click('input', 'tt')" in second.prompt[-1]["content"]


def test_trace_of_terminal(session: webwise.Session) -> None:
    episode = session.run("terminal", 1, "webwise", "none")
    assert episode.success and episode.steps == 2
    first, second = episode.trace
    assert [(a["name"], a["args"]) for a in first.actions] == [("click", ["input", "terminal-target"]),
                                                              ("enter_text", ["ls\n"])]
    remove = second.actions[-1]
    assert remove["name"] == "enter_text" and remove["error"] is None
    extension = re.search(r"extension \.(\S+)", episode.utterance).group(1)
    assert re.fullmatch(rf"rm \S+\.{re.escape(extension)}\n", remove["args"][0])
    assert "ls\n" not in second.program  # step 2 is the reply's own program, not step 1's


def test_trace_of_paper_spelling(session: webwise.Session) -> None:
    episode = session.run("click-button", 3, "webwise", "none")
    name = re.search(r'"(.+?)"', episode.utterance).group(1)
    [step] = episode.trace
    assert "env.step(action)" in step.program
    assert [(a["name"], a["args"]) for a in step.actions] == [("click", ["button", name])]
    assert step.done and step.error is None


# -- failures the loop must survive ----------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
def test_failing_first_program_is_recorded_and_the_loop_goes_on(failing_session: webwise.Session, seed: int) -> None:
    episode = failing_session.run("click-button", seed, "webwise", "none")
    assert episode.success and episode.steps == 2 and episode.llm_calls == 2
    first, second = episode.trace
    name = re.search(r'"(.+?)"', episode.utterance).group(1)
    # one line that says what failed and names the closest candidates, among them the right button
    error = first.error
    assert error and "\n" not in error and "Traceback" not in error and len(error) < 300
    assert "Click on the" in error and "closest" in error
    assert repr(name) in error
    [click] = first.actions
    assert click["name"] == "click" and click["error"] and "closest" in click["error"]
    assert first.done is False
    # the error reaches the next prompt, and the second program solves the task
    assert "closest" in second.prompt[-1]["content"]
    assert second.error is None and second.done
    assert (second.actions[-1]["name"], second.actions[-1]["args"]) == ("click", ["button", name])


@pytest.mark.parametrize("seed", (0, 1))
def test_reply_without_code_is_recorded_with_program_null(failing_session: webwise.Session, seed: int) -> None:
    episode = failing_session.run("click-link", seed, "webwise", "none")
    first, second = episode.trace
    assert first.reply == FAILURE_REPLIES["click-link"][0]
    assert first.program is None
    assert first.error and "\n" not in first.error
    assert first.actions == []
    assert second.program is not None and second.error is None
    assert episode.success and episode.steps == 2


def test_running_out_of_replies_fails_the_episode(capsys: pytest.CaptureFixture[str]) -> None:
    code, record, err = run_cli(capsys, "--task", "enter-text", "--seed", "1", "--examples", "none",
                                "--llm", f"replay:{FAILURES}")
    assert code == 1, err
    assert record["success"] is False and record["reward"] <= 0
    assert record["llm_calls"] == 1
    assert record["error"] and re.search(r"repl(y|ies)", record["error"])
    first, last = record["trace"][0], record["trace"][-1]
    assert first["error"] is None and first["actions"][0]["name"] == "click"
    assert last["reply"] is None and last["program"] is None
    assert last["error"] == record["error"]
    assert "Traceback" not in err


# -- the CLI ----------------------------------------------------------------------------------

@pytest.mark.parametrize("task, seed", [("enter-date", 3), ("click-checkboxes", 2), ("simple-arithmetic", 1)])
def test_cli_in_process(capsys: pytest.CaptureFixture[str], task: str, seed: int) -> None:
    code, record, err = run_cli(capsys, "--task", task, "--seed", str(seed), "--examples", "none",
                                "--llm", f"replay:{SOLVE}")
    assert code == 0, err
    assert EPISODE_KEYS <= set(record)
    assert record["llm"] == f"replay:{SOLVE}"
    assert_clean_success(record, SOLVE_REPLIES[task])
    for step in record["trace"]:
        assert isinstance(step["prompt"], list) and step["prompt"][-1]["content"]


def test_cli_multi_step_trace(capsys: pytest.CaptureFixture[str]) -> None:
    code, record, _ = run_cli(capsys, "--task", "click-collapsible", "--seed", "0", "--examples", "none",
                              "--llm", f"replay:{SOLVE}")
    assert code == 0
    first, second = record["trace"]
    assert [(a["name"], a["args"]) for a in first["actions"]] == [("click", ["h3", "Section"])]
    assert first["done"] is False and first["error"] is None
    assert (second["actions"][-1]["name"], second["actions"][-1]["args"]) == ("click", ["button", "Submit"])
    assert second["done"] is True and second["error"] is None


@pytest.mark.parametrize("task, seed", [("enter-text", 0), ("terminal", 3), ("click-collapsible", 1),
                                        ("login-user", 2)])
def test_each_step_records_only_its_own_actions(session: webwise.Session, task: str, seed: int) -> None:
    episode = session.run(task, seed, "webwise", "none")
    assert episode.success
    expected = {
        "enter-text": [["click"], ["press_key", "press_key", "enter_text", "click"]],
        "terminal": [["click", "enter_text"], ["enter_text"]],
        "click-collapsible": [["click"], ["click"]],
        "login-user": [["click", "press_key", "press_key", "enter_text"], ["click", "enter_text", "click"]],
    }[task]
    assert [[a["name"] for a in step.actions] for step in episode.trace] == expected


def webwise_command() -> str:
    beside = Path(sys.executable).parent / "webwise"
    found = str(beside) if beside.exists() else shutil.which("webwise")
    if found is None:
        pytest.fail("the webwise console script is not installed (run the README's set-up)")
    return found


def test_console_script_in_a_subprocess(tmp_path: Path) -> None:
    result = subprocess.run(
        [webwise_command(), "solve", "--task", "grid-coordinate", "--seed", "3", "--examples", "none",
         "--llm", f"replay:{SOLVE}", "--json"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=dict(os.environ))
    assert result.returncode == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["task"] == "grid-coordinate" and record["seed"] == 3
    assert_clean_success(record, SOLVE_REPLIES["grid-coordinate"])
    x, y = re.search(r"\((-?\d+),(-?\d+)\)", record["utterance"]).groups()
    assert record["trace"][0]["actions"][0]["args"] == ["circle", f"({x},{y})"]


# -- element refs must not collide across episodes on the same page --------------

def test_refs_stay_unique_across_episodes(session: webwise.Session) -> None:
    # 7 then 8 then 0, 7, 8: on seed 8 the menu item's ref collided with the live region's
    outcomes = [session.run("use-autocomplete", seed, "webwise", "none").success for seed in (7, 8, 2, 0, 7, 8)]
    assert all(outcomes), outcomes


# -- the program-rewriting guards ---------------------------------------------------------------

#: Check every box, then uncheck those the task does not name: each unwanted box is clicked
#: twice on purpose, which the checkbox guard takes for a small model's slip.
CHECK_ALL_THEN_UNCHECK = """```python
import re
wanted = re.search(r'Select (.*) and click Submit', task).group(1)
words = [e['text'] for e in observation if e['tag'] == 't']
for word in words:
    click('label', word)
for word in words:
    if word not in re.findall(r'[^ ,]+', wanted):
        click('label', word)
click('button', 'Submit')
```"""


@pytest.mark.parametrize("guards, solved", [(True, False), (False, True)])
def test_no_guards_runs_a_program_that_unchecks_a_box_as_written(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], guards: bool, solved: bool) -> None:
    """click-checkboxes seed 0 ("Select HF2"): the program checks AU and HF2, then unchecks AU."""
    replies = tmp_path / "replies.json"
    replies.write_text(json.dumps({"click-checkboxes": [CHECK_ALL_THEN_UNCHECK]}))
    flag = [] if guards else ["--no-guards"]
    code, record, err = run_cli(capsys, "--task", "click-checkboxes", "--seed", "0", "--examples", "none",
                                "--max-steps", "1", "--llm", f"replay:{replies}", *flag)
    assert (code, record["success"], record["guards"]) == (0 if solved else 1, solved, guards), err
    unchecks = [a for a in record["trace"][0]["actions"] if a["args"] == ["label", "AU"]]
    assert len(unchecks) == 2
    assert (unchecks[1]["note"] or "").startswith("not clicked") is guards


# -- the library's arguments and a model of the user's own -----------------------------------

class OwnModel:
    """A model of a user's own (:class:`webwise.ChatModel`): the first call of an episode gets
    enter-text's first program, every later one what ``then`` does."""

    name = "my-model"

    def __init__(self) -> None:
        self.then: Callable[[], object] = lambda: webwise.ChatReply(text="")
        self.calls, self.closed = 0, False

    def complete(self, request: webwise.ChatRequest) -> webwise.ChatReply:
        self.calls += 1
        if request.call_index == 0:
            return webwise.ChatReply(text=SOLVE_REPLIES["enter-text"][0], prompt_tokens=10, completion_tokens=5)
        return self.then()  # type: ignore[return-value]

    def close(self) -> None:
        self.closed = True


def _raises() -> object:
    raise RuntimeError("boom\n  at line 2")


def _interrupted() -> object:
    raise KeyboardInterrupt


MISBEHAVIOURS: dict[str, tuple[Callable[[], object], str]] = {
    "raises": (_raises, "complete() raised RuntimeError: boom at line 2"),
    "returns a str": (lambda: "click('input', 'tt')", "complete() returned str, not a ChatReply"),
    "returns None": (lambda: None, "complete() returned NoneType, not a ChatReply"),
    "text None": (lambda: webwise.ChatReply(text=None),  # type: ignore[arg-type]
                  "complete() returned a ChatReply whose text is NoneType, not str"),
    "tokens None": (lambda: webwise.ChatReply(text="x", prompt_tokens=None),  # type: ignore[arg-type]
                    "complete() returned a ChatReply whose prompt_tokens is NoneType, not int"),
    "tokens str": (lambda: webwise.ChatReply(text="x", completion_tokens="3"),  # type: ignore[arg-type]
                   "complete() returned a ChatReply whose completion_tokens is str, not int"),
    "tokens negative": (lambda: webwise.ChatReply(text="x", prompt_tokens=-5),
                        "complete() returned a ChatReply whose prompt_tokens is -5, below 0"),
    "seconds NaN": (lambda: webwise.ChatReply(text="x", seconds=float("nan")),
                    "complete() returned a ChatReply whose seconds is nan, not a time"),
}


@pytest.fixture(scope="module")
def own() -> Iterator[tuple[webwise.Session, OwnModel]]:
    model = OwnModel()
    with webwise.Session(model, webwise.Settings(max_steps=3)) as shared:
        yield shared, model
    assert model.closed  # the session owns the model it was given


@pytest.mark.parametrize("behaviour", list(MISBEHAVIOURS))
def test_a_misbehaving_model_of_ones_own_ends_the_episode_with_its_record_kept(
        own: tuple[webwise.Session, OwnModel], behaviour: str) -> None:
    session, model = own
    model.then, said = MISBEHAVIOURS[behaviour]
    episode = session.run("enter-text", 0, "webwise", "none")
    assert episode.error == f"my-model: {said}" and episode.infra_error is None and not episode.success
    first, second = episode.trace  # the step before the failed call is kept as it ran
    assert [a["name"] for a in first.actions] == ["click"] and first.error is None
    assert second.reply is None and second.program is None and second.error == episode.error
    assert (episode.llm_calls, len(episode.calls), episode.prompt_tokens) == (1, 1, 10)
    json.dumps(episode.to_dict())


def test_a_failed_review_call_ends_the_episode(own: tuple[webwise.Session, OwnModel]) -> None:
    session, model = own
    model.then = _raises
    agent = Agent(model, session.env, session.sandbox, webwise.Settings(max_steps=1, trials=2))
    episode = agent.run("enter-text", 1, "webwise", "none")
    assert episode.error == f"my-model: {MISBEHAVIOURS['raises'][1]}"
    assert len(episode.trials) == 1 and episode.llm_calls == 1 and episode.trials[0].reflection["reply"] is None


def test_ctrl_c_in_a_model_of_ones_own_is_not_caught(own: tuple[webwise.Session, OwnModel]) -> None:
    session, model = own
    model.then = _interrupted
    with pytest.raises(KeyboardInterrupt):
        session.run("enter-text", 2, "webwise", "none")


def test_a_second_thread_is_refused_while_the_session_runs(own: tuple[webwise.Session, OwnModel]) -> None:
    session, model = own
    asked, release = threading.Event(), threading.Event()

    def wait_in_the_model() -> object:
        asked.set()
        release.wait(60)
        return webwise.ChatReply(text="")

    model.then = wait_in_the_model
    first: list[webwise.Episode] = []
    runner = threading.Thread(target=lambda: first.append(session.run("enter-text", 0, "webwise", "none")))
    runner.start()
    try:
        assert asked.wait(60)
        with pytest.raises(webwise.WebwiseError, match="^this Session is running an episode in another thread"):
            session.run("click-button", 0, "webwise", "none")
    finally:
        release.set()
        runner.join(60)
    assert first and first[0].task == "enter-text" and first[0].trace[0].actions  # the first ran on undisturbed
    model.then = lambda: webwise.ChatReply(text="")
    assert session.run("click-button", 0, "webwise", "none").task == "click-button"  # free again after it


class NoClose:
    name = "no-close"

    def complete(self, request: webwise.ChatRequest) -> webwise.ChatReply:
        return webwise.ChatReply(text="")


@pytest.mark.parametrize("llm", [123, None, NoClose()], ids=["int", "None", "no close()"])
def test_a_model_that_is_neither_a_spec_nor_a_chat_model_is_refused(llm: object) -> None:
    with pytest.raises(ConfigError, match="llm must be a spec .* or a ChatModel") as info:
        webwise.Session(llm)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_a_closed_session_refuses_to_run_before_anything_starts() -> None:
    model = OwnModel()
    session = webwise.Session(model)
    session.close()
    assert model.closed
    with pytest.raises(webwise.WebwiseError, match="^this Session is closed; make a new one") as info:
        session.run("click-button", 0, "webwise", "none")
    assert "\n" not in str(info.value)
    assert session.env.browser is None and model.calls == 0  # no browser started, no model asked
    session.close()  # again: nothing to do


@pytest.mark.parametrize("knobs", [
    {"max_steps": 0}, {"max_steps": "3"}, {"max_steps": 1.5}, {"trials": 0}, {"trials": True},
    {"max_tokens": -5}, {"temperature": "hot"}, {"temperature": 2.5}, {"repeat_asks": -1},
    {"limits": None}, {"screenshot_dir": 3}, {"store_dir": ""},
], ids=str)
def test_a_bad_setting_is_a_one_line_config_error(knobs: dict[str, object]) -> None:
    [name] = knobs
    with pytest.raises(ConfigError, match=f"^{name} ") as info:
        webwise.Settings(**knobs)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_solve_refuses_a_bad_argument_before_any_browser_starts() -> None:
    with pytest.raises(ConfigError, match="^max_steps must be a whole number >= 1, not -1$"):
        webwise.solve("click-button", llm=OwnModel(), max_steps=-1)


@pytest.mark.parametrize("seed", ["3", 1.5, True, None, -1, 2**53])
def test_a_seed_that_is_no_page_seed_is_a_one_line_config_error(session: webwise.Session, seed: object) -> None:
    with pytest.raises(ConfigError, match="seed") as info:
        session.run("click-button", seed, "webwise", "none")  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_folders_given_as_strings_work(session: webwise.Session, tmp_path: Path) -> None:
    settings = webwise.Settings(screenshot_dir=str(tmp_path / "shots"), store_dir=str(store.DEFAULT_STORE))
    assert settings.screenshot_dir == tmp_path / "shots" and settings.store_dir == store.DEFAULT_STORE
    episode = Agent(session.llm, session.env, session.sandbox, settings).run("click-button", 0, "webwise", "auto")
    assert episode.success and episode.examples_shown
    assert (tmp_path / "shots" / episode.trace[0].screenshot).is_file()
