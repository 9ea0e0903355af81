"""The host's bounds on what a program's action calls may ask, on real MiniWoB++ pages.

A program's arguments are hostile: each action must refuse what it cannot do in one clear
line, pass what it does to the page only as data, and end within the program's time. The
cases that once got through are here (typing that ran seconds past the program's wall-clock
limit, a lone surrogate the driver refused with a message naming nothing, the plus key in
a combination), with the neighbouring cases that held, so they keep holding.
"""

from __future__ import annotations

import json
import time

import pytest

import webwise
from sandbox import Limits
from webwise.actions import ActionError, Executor
from webwise.agent import ActionHandler, Settings
from webwise.dom import filtered_summary
from webwise.environment import MiniWoBEnv, PageFault
from webwise.llm.replay import ReplayModel


def start(env: MiniWoBEnv, task: str, seed: int = 0) -> Executor:
    env.reset(task, seed)
    executor = Executor(env, filtered_summary)
    executor.start()
    return executor


def field_value(env: MiniWoBEnv) -> str:
    return env.script("return document.querySelector('#area input').value;")


def ended(env: MiniWoBEnv) -> list:
    return env.script("return [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL];")


# -- typing ends with the program's time ---------------------------------------------------

def test_typing_stops_at_the_program_s_deadline(env: MiniWoBEnv) -> None:
    """2,000 characters take the driver about 5 s; the sandbox kills the program at its limit
    but cannot stop a typing the host is doing for it."""
    executor = start(env, "enter-text")
    executor.click("input_text", "")
    began = time.monotonic()
    executor.enter_text("b" * 200)  # one batch: how long typing takes on this machine, now
    batch = time.monotonic() - began
    executor.deadline = time.monotonic() + 0.5
    began = time.monotonic()
    with pytest.raises(ActionError, match=r"^enter_text\(\): the program's time ran out after \d+ of 2000 "):
        executor.enter_text("a" * 2000)
    assert time.monotonic() - began < 0.5 + 2 * batch + 0.5  # not the ten batches of the whole text
    assert 0 < len(field_value(env)) < 2000
    assert executor.records[-1].error.startswith("enter_text(): the program's time ran out")


def test_typing_in_batches_types_every_character_in_order(env: MiniWoBEnv) -> None:
    executor = start(env, "enter-text")
    executor.click("input_text", "")
    text = "".join(chr(ord("a") + i % 26) for i in range(450))  # three batches, the last part-full
    executor.enter_text(text)
    assert field_value(env) == text


def test_a_program_typing_in_a_loop_ends_near_its_wall_clock_limit() -> None:
    """The whole pipeline: the step ends within a batch's typing of the limit (it ran 5 s past)."""
    # The typing starts half a second before the limit: without batches it went on 5 s past it.
    program = "click('input_text', '')\nwait(2.5)\nfor i in range(60):\n    enter_text(str(i) + 'a' * 1990)\n"
    settings = Settings(max_steps=1, limits=Limits(wall_seconds=3.0))
    with webwise.Session(ReplayModel({"enter-text": [f"```python\n{program}```"]}, "replay:typing"), settings) as own:
        record = json.loads(json.dumps(own.run("enter-text", 0, "webwise", "none").to_dict()))
    (step,) = record["trace"]
    # Whichever comes first ends it: the sandbox's wall clock, or the typing refusing to go on.
    assert step["error"].startswith(("TimeoutError: program exceeded 3 s wall time",
                                     "ActionError: enter_text(): the program's time ran out")), step["error"]
    assert step["run_seconds"] < 5.5, step["run_seconds"]  # 3 s, a batch and the kill; not 3 s + 5 s of typing


# -- text arguments ------------------------------------------------------------------------

@pytest.mark.parametrize(("name", "args", "error"), [
    ("enter_text", ["a\ud800"], "enter_text(): text holds a lone surrogate (U+D800-U+DFFF), half of a character"),
    ("press_key", ["\udfff"], "press_key(): key holds a lone surrogate"),
    ("click", ["button", "x\ud83d"], "click(): text holds a lone surrogate"),
    ("click", ["\ud800", "ONE"], "click(): tag holds a lone surrogate"),
    ("hover", ["button", "\ud800"], "hover(): text holds a lone surrogate"),
    ("drag", ["button", "ONE", "div", "\udc00"], "drag(): to_text holds a lone surrogate"),
    ("select_text", ["\ud800"], "select_text(): text holds a lone surrogate"),
    ("scroll", ["\ud800"], "scroll(): text holds a lone surrogate"),
    ("click_action1", ["button", "\ud800", []], "click_action1(): each argument holds a lone surrogate"),
])
def test_a_lone_surrogate_is_refused_before_the_browser(env: MiniWoBEnv, name: str, args: list, error: str) -> None:
    """The sandbox's pipe carries one; the driver refused it as "invalid argument: missing
    command parameters"."""
    executor = start(env, "click-button")
    reply = ActionHandler(executor)(name, args, {})
    assert reply.error is not None and reply.error.startswith(error), reply.error
    assert executor.records == []  # refused before it was performed


def test_a_pair_of_surrogates_is_one_character_and_typed(env: MiniWoBEnv) -> None:
    executor = start(env, "enter-text")
    executor.click("input_text", "")
    executor.enter_text("é漢😀")
    assert field_value(env) == "é漢😀"


HOSTILE_TEXTS = ["'); core.endEpisode(1, true); ('", '"]); WOB_RAW_REWARD_GLOBAL = 1; //', "\\", "\\'\\\"",
                 "</script><script>core.endEpisode(1, true)</script>", "${core.endEpisode(1, true)}",
                 "`${1}`", "(a+)+$" + "a" * 40, ".*", "[", "\u202eabc\u200b", "\x00", "[999999]", "[-1]"]


@pytest.mark.parametrize("text", HOSTILE_TEXTS)
def test_a_hostile_text_stays_data_in_every_action_that_names_text(env: MiniWoBEnv, text: str) -> None:
    executor = start(env, "click-button", 4)
    handler = ActionHandler(executor)
    for name, args in [("click", ["button", text]), ("click", [text, text]), ("hover", ["button", text]),
                       ("drag", ["button", text, "button", "Ok"]), ("select_text", [text]), ("scroll", [text])]:
        reply = handler(name, args, {})
        assert reply.error is None or "\n" not in reply.error
    assert ended(env) == [False, 0]


# -- keys ----------------------------------------------------------------------------------

def test_the_plus_key_is_pressed_alone_and_in_a_combination(env: MiniWoBEnv) -> None:
    executor = start(env, "enter-text")
    executor.click("input_text", "")
    executor.press_key("+")
    executor.press_key("Shift++")  # was: unknown modifier '' in 'Shift++'
    assert field_value(env) == "++"
    with pytest.raises(ActionError, match=r"^unknown key ''"):
        executor.press_key("Shift+")


def test_browser_shortcuts_and_control_characters_stay_on_the_page(env: MiniWoBEnv) -> None:
    """Reload, back, close-tab: the driver's key events reach the page, never the browser."""
    executor = start(env, "enter-text")
    address = env.script("return location.href;")
    executor.click("input_text", "")
    executor.enter_text("kept")
    for key in ("Control+r", "Alt+ArrowLeft", "Control+w", "Meta+w", "\x00", "\x07", "Shift+" * 300 + "a"):
        executor.press_key(key)
    for key in ("F5", "Alt+F4", "Control+\ue035", "\ue023"):
        with pytest.raises(ActionError):
            executor.press_key(key)
    assert env.script("return location.href;") == address
    assert field_value(env).startswith("kept") and ended(env) == [False, 0]


# -- elements that moved, vanished or are out of the window ----------------------------------

def test_an_element_gone_between_reading_and_clicking_is_a_one_line_error(
        env: MiniWoBEnv, monkeypatch: pytest.MonkeyPatch) -> None:
    executor = start(env, "click-button", 4)
    target = env.utterance.split('"')[1]
    read = env.observe

    def read_then_page_changes():  # the page redraws right after it was read
        observed = read()
        env.script("document.querySelectorAll('#area button').forEach(function (b) { b.remove(); });")
        return observed

    monkeypatch.setattr(env, "observe", read_then_page_changes)
    with pytest.raises(ActionError, match=r"^click\('button', '.+'\): the element is no longer on the page$"):
        executor.click("button", target)
    assert ended(env) == [False, 0]


def test_elements_out_of_the_window_are_refused_by_pointer_actions_and_hidden_ones_by_all(env: MiniWoBEnv) -> None:
    executor = start(env, "click-button", 4)
    env.script("""
      var area = document.getElementById('area');
      [['Far', 'top: 3000px; left: 10px'], ['Above', 'top: -500px; left: 10px'], ['Gone', 'display: none'],
       ['Flat', 'width: 0; height: 0; padding: 0; border: 0; overflow: hidden']].forEach(function (made) {
        var b = document.createElement('button'); b.textContent = made[0];
        b.style.cssText = 'position: absolute; ' + made[1]; area.appendChild(b);
      });""")
    handler = ActionHandler(executor)
    for text in ("Far", "Above"):
        assert handler("hover", ["button", text], {}).error == (
            f"hover(): the button {text!r} is outside the window; scroll({text!r}) first")
        assert handler("drag_to", ["button", text, 10, 10], {}).error.startswith("drag_to(): the button")
        assert handler("drag", ["button", "Ok", "button", text], {}).error.startswith("drag(): the button")
    for text in ("Gone", "Flat"):
        for name, args in [("click", ["button", text]), ("hover", ["button", text])]:
            assert handler(name, args, {}).error.startswith(f"no 'button' element with text {text!r}")
    assert ended(env) == [False, 0]


def test_a_drag_onto_itself_is_performed_and_changes_nothing(env: MiniWoBEnv) -> None:
    executor = start(env, "drag-items")
    items = [e["text"] for e in executor.elements if e["tag"] == "div" and e["text"]]
    executor.drag("div", items[0], "div", items[0])
    assert [e["text"] for e in executor.elements if e["tag"] == "div" and e["text"]] == items
    assert ended(env) == [False, 0]


@pytest.mark.parametrize(("x", "y"), [(10**9, 5), (-1e-9, 5), (5, 2**63), (-(10**18), -(10**18))])
def test_a_point_off_the_window_is_refused_and_nothing_moves(env: MiniWoBEnv, x: float, y: float) -> None:
    executor = start(env, "click-button", 4)
    handler = ActionHandler(executor)
    for name, args in [("click_at", [x, y]), ("drag_to", ["button", "Ok", x, y]), ("draw", [[(5, 5), (x, y)]])]:
        assert "is outside the window" in handler(name, args, {}).error
    assert all(record.error for record in executor.records)


# -- the page runs only its own scripts, one episode a load ---------------------------------

def test_markup_a_page_writes_from_typed_text_runs_no_script(env: MiniWoBEnv) -> None:
    """terminal echoes each command line through innerHTML: typing a tag with an inline handler
    ran the program's JavaScript in the page, which ended the episode with a full reward (was
    an escape; the page server's Content Security Policy admits the page's own scripts only)."""
    executor = start(env, "terminal")
    executor.click("input_text", "")
    executor.enter_text("<img src=x onerror=core.endEpisode(1,true)><svg onload=document.title=1>\n")
    assert ended(env) == [False, 0] and env.script("return document.title") != "1"
    assert env.script("return document.querySelectorAll('#terminal img').length") == 1  # written, inert
    executor.enter_text("rm\n")  # the page's own scripts still run
    assert "rm" in env.script("return document.getElementById('terminal').textContent")


def test_an_ended_episode_does_not_start_again_under_a_click_on_its_cover(env: MiniWoBEnv) -> None:
    """Once an episode ends the page shows a START cover, and a click on it drew another problem
    with the reward back at 0: an episode a page ends by itself (moving-items, on a timer) was
    then recorded as an unfinished one."""
    executor = start(env, "click-button", 4)
    wanted = env.utterance.split('"')[1]
    executor.click("button", next(e["text"] for e in executor.elements if e["tag"] == "button" and e["text"] != wanted))
    assert ended(env) == [True, -1]
    executor.click_at(80, 100)
    assert ended(env) == [True, -1] and executor.outcome.raw_reward == -1
    assert env.script("return document.getElementById('query').textContent") == env.utterance


def test_a_pointer_gesture_that_cannot_end_in_the_program_s_time_is_refused(env: MiniWoBEnv) -> None:
    """WebDriver performs a gesture whole: a 200-point draw begun at the end of a program went on
    3.4 s past its wall-clock limit, the page taking the moves after the program was killed."""
    executor = start(env, "draw-line")
    path = [(20 + i % 100, 60 + (i // 100) * 40) for i in range(200)]
    executor.deadline = time.monotonic() + 1.0
    began = time.monotonic()
    with pytest.raises(ActionError, match=r"^draw\(\): the program's time ran out: 200 pointer moves take about "
                                          r"4\.0 s, and (0\.\d|1\.0) s were left$"):
        executor.draw(path)
    assert time.monotonic() - began < 0.5
    executor.draw(path[:20])  # one that fits is drawn
    assert executor.records[-1].error is None


def test_a_page_the_browser_left_is_a_one_line_page_fault(env: MiniWoBEnv) -> None:
    """A read of the task's state on another page raised the driver's JavascriptException, with
    its native stack trace, out of the episode."""
    executor = start(env, "click-button")
    env.driver.get(env.pages.base_url + "/core/core.css")
    for read in (executor.refresh, env.outcome):
        with pytest.raises(PageFault, match=r"^the task's page is gone from the browser: [^\n]* is not defined$"):
            read()
