"""The pointer actions (click_at, hover, drag, drag_to, draw, select_text, wait) end to end.

Each program goes the way a model's does: a replayed reply, extracted, run in the sandbox,
its calls performed by the host on a real MiniWoB++ page in headless Chromium. Programs
read their targets from ``task`` and ``observation`` (the whole-DOM view where they need an
element's geometry), so each works on any seed.
"""

from __future__ import annotations

import json
import math
import re
from typing import Iterator

import pytest

import api_stubs
import webwise
from sandbox import Limits
from webwise.actions import Executor
from webwise.agent import ActionHandler, Settings
from webwise.dom import filtered_summary
from webwise.episode import Episode
from webwise.llm.replay import ReplayModel
from webwise.prompts import pointer_page, system_message, task_message

#: The seeds each solving program is shown on.
SEEDS = (0, 1, 2)


@pytest.fixture(scope="module")
def session() -> Iterator[webwise.Session]:
    with webwise.Session(ReplayModel({}, "replay:pointer-tests"), Settings(max_steps=1)) as shared:
        yield shared


def run(session: webwise.Session, task: str, seed: int, program: str, method: str = "webwise") -> Episode:
    """One episode of ``task`` whose single step runs ``program`` as a model's reply."""
    session.llm.replies = {task: [f"```python\n{program}\n```"]}  # type: ignore[attr-defined]
    episode = session.run(task, seed, method, "none")
    return json.loads(json.dumps(episode.to_dict()))  # what --json prints


def only_step(record: dict) -> dict:
    (step,) = record["trace"]
    return step


DRAG_ITEMS = """
import re
name, place = re.search(r'Drag (.+) to the (\\d+)', task).groups()
items = [e['text'] for e in observation if e['tag'] == 'div' and e['text']]
drag('div', name, 'div', items[int(place) - 1])
"""


@pytest.mark.parametrize("seed", SEEDS)
def test_drag_reorders_a_sortable_list(session: webwise.Session, seed: int) -> None:
    record = run(session, "drag-items", seed, DRAG_ITEMS)
    step = only_step(record)
    assert step["error"] is None and [a["name"] for a in step["actions"]] == ["drag"]
    assert record["success"], step["actions"]
    assert "drag(tag, text, to_tag, to_text): Press on one element" in step["prompt"][-1]["content"]


# Press ONE, wait the seconds the task names, press TWO: the page pays in full only a delay within 15%.
BUTTON_DELAY = """
import re
seconds = int(re.search(r'wait (\\d+) second', task).group(1))
click('button', 'ONE')
observation = wait(seconds)
print(len(observation))
click('button', 'TWO')
"""


def test_wait_waits_and_observes_again(session: webwise.Session) -> None:
    record = run(session, "button-delay", 3, BUTTON_DELAY)  # 3 s: the 15% leave 450 ms for the clicks
    step = only_step(record)
    seconds = int(re.search(r"wait (\d+) second", record["utterance"]).group(1))
    waited = step["actions"][1]
    assert (waited["name"], waited["args"], waited["error"]) == ("wait", [seconds], None)
    assert waited["ms"] >= seconds * 1000
    assert int(step["output"].strip()) > 0  # wait returned the observation
    assert record["success"], step


# The slider's handle dragged past the far end of its track, the top or the right (whole-DOM
# view: geometry); the value shown is then the slider's maximum.
SLIDER_END = """
track = next(e for e in observation if e['id'] == 'slider')
handle = next(e for e in observation if 'ui-slider-handle' in e['classes'])
if track['height'] > track['width']:
    end = (track['left'] + track['width'] / 2, track['top'] - 5)
else:
    end = (track['left'] + track['width'] + 5, track['top'] + track['height'] / 2)
drag_to('span', handle['text'], end[0], end[1])
print(next(e for e in observation if e['id'] == 'val')['text'])
"""


@pytest.mark.parametrize("seed", SEEDS)
def test_drag_to_moves_a_slider_to_a_point(session: webwise.Session, seed: int) -> None:
    record = run(session, "use-slider", seed, SLIDER_END, method="whole-dom")
    step = only_step(record)
    assert step["error"] is None, step["error"]
    top = session.env.script("return $('#slider').slider('option', 'max');")
    assert step["output"].strip() == str(top)


CLICK_AT_BUTTON = """
import re
wanted = re.search(r'"(.+)"', task).group(1)
button = next(e for e in observation if e['tag'] == 'button' and e['text'] == wanted)
click_at(button['left'] + button['width'] / 2, button['top'] + button['height'] / 2)
"""


@pytest.mark.parametrize("seed", SEEDS)
def test_click_at_presses_at_a_point(session: webwise.Session, seed: int) -> None:
    record = run(session, "click-button", seed, CLICK_AT_BUTTON, method="whole-dom")
    step = only_step(record)
    assert [a["name"] for a in step["actions"]] == ["click_at"]
    assert record["success"], step
    assert "drag(tag, text, to_tag, to_text): Press" not in step["prompt"][-1]["content"]


@pytest.mark.parametrize("seed", SEEDS)
def test_the_point_a_page_line_prints_is_one_that_hits_the_element(session: webwise.Session, seed: int) -> None:
    """Small models copy a line's ``@x,y`` into click_at as written (the 1.5B on
    ascending-numbers). Those numbers must be a point inside the element, not its box's
    corner: on ascending-numbers the boxes under the numbers start at the corner's pixel,
    and a click there misses them."""
    shown = only_step(run(session, "ascending-numbers", seed, "wait(0.1)"))["prompt"][-1]["content"]
    points = dict(re.findall(r'^\[\d+\] text "(\d)" \.text @(\d+,\d+) ', shown, re.M))
    assert sorted(points) == ["1", "2", "3", "4", "5"], shown
    copied = "\n".join(f"click_at({points[number]})" for number in sorted(points))
    record = run(session, "ascending-numbers", seed, copied)
    assert record["success"], only_step(record)["feedback"]


# Hovering fires the page's mouseenter; the task counts hovered frames until the episode ends.
HOVER = """
hover('rect', 'highlight')
print([e['id'] for e in observation if e['tag'] == 'rect'])
"""


def test_hover_moves_the_pointer_over_the_element(session: webwise.Session) -> None:
    record = run(session, "hover-shape", 0, HOVER)
    step = only_step(record)
    assert step["error"] is None, step["error"]
    assert step["actions"][0]["target"].startswith("rect")
    hovered = session.env.script("var h = document.getElementById('highlight');"
                                 "return h ? h.getAttribute('data-hover') : 'none';")
    assert hovered is not None


# draw-line: a stroke across the drawing area through the dot, in the direction the task
# names, then Submit (geometry: whole-DOM view).
DRAW_LINE = """
dot = next(e for e in observation if e['tag'] == 'circle')
area = next(e for e in observation if e['tag'] == 'svg')
x, y = dot['left'] + dot['width'] / 2, dot['top'] + dot['height'] / 2
if 'horizontal' in task:
    points = [(area['left'] + 5 + (area['width'] - 10) * i / 40, y) for i in range(41)]
else:
    points = [(x, area['top'] + 5 + (area['height'] - 10) * i / 40) for i in range(41)]
draw(points)
click('button', 'Submit')
"""


@pytest.mark.parametrize("seed", SEEDS)
def test_draw_strokes_a_line(session: webwise.Session, seed: int) -> None:
    record = run(session, "draw-line", seed, DRAW_LINE, method="whole-dom")
    step = only_step(record)
    assert step["error"] is None, step["error"]
    drawn, submitted = step["actions"]
    assert drawn["name"] == "draw" and len(drawn["args"][0]) == 41 and submitted["name"] == "click"
    assert f"draw([{drawn['args'][0][0]!r}, {drawn['args'][0][1]!r}, ... 41 items])" in step["feedback"]
    assert record["success"], step


def test_draw_reads_a_flat_list_of_numbers_as_pairs(session: webwise.Session) -> None:
    """``draw([x1, y1, x2, y2, ...])`` strokes the same line as the list of its pairs."""
    flat = DRAW_LINE.replace("draw(points)", "draw([number for point in points for number in point])")
    record = run(session, "draw-line", 0, flat, method="whole-dom")
    step = only_step(record)
    assert step["error"] is None, step["error"]
    drawn = step["actions"][0]
    assert drawn["name"] == "draw" and len(drawn["args"][0]) == 41 and len(drawn["args"][0][0]) == 2
    assert record["success"], step


HIGHLIGHT = """
paragraph = next(e for e in observation if e['tag'] == 'div' and e['text'])
select_text(paragraph['text'])
click('button', 'Submit')
"""


@pytest.mark.parametrize("seed", SEEDS)
def test_select_text_selects_as_a_drag_would(session: webwise.Session, seed: int) -> None:
    record = run(session, "highlight-text", seed, HIGHLIGHT)
    step = only_step(record)
    assert [a["name"] for a in step["actions"]] == ["select_text", "click"]
    assert record["success"], step


def test_select_text_takes_an_element_reading_exactly_the_text_before_a_longer_one(
        session: webwise.Session) -> None:
    """choose-list at this seed lists Alexandra before Alexa: the first occurrence of "Alexa" is
    inside the wrong option, which a program reading the name from the task then chose."""
    program = "import re\nselect_text(re.search(r'Select (.+?) from', task).group(1))\nclick('button', 'Submit')"
    record = run(session, "choose-list", 100000, program)
    options = [e["text"] for e in only_step(record)["observation"] if e["tag"] == "option"]
    assert options.index("Alexandra") < options.index("Alexa") and record["utterance"].startswith("Select Alexa ")
    assert record["success"], only_step(record)


def test_select_text_of_a_text_the_page_lacks_is_an_error(session: webwise.Session) -> None:
    step = only_step(run(session, "highlight-text", 0, "select_text('no such words here at all')"))
    assert step["error"] == "ActionError: select_text('no such words here at all'): the page shows no such text"


#: The sandbox's pipe refuses what is not plain data (NaN, infinities) and messages over its
#: size limit before the host sees them; the host refuses the rest.
PIPE = "TypeError: {}() arguments must be plain data (non-finite float)"


@pytest.mark.parametrize(("call", "error"), [
    ("click_at(float('nan'), 10)", PIPE.format("click_at")),
    ("click_at(10, 1e309)", PIPE.format("click_at")),
    ("draw([(10, 10), (float('inf'), 5)])", PIPE.format("draw")),
    ("wait(float('nan'))", PIPE.format("wait")),
    ("draw([(10, 10)] * 10 ** 6)", "ValueError: draw() arguments are too large"),
    ("click_at(10 ** 400, 10)", "ActionError: click_at() expects x as a finite number, not 1000000000000000000000000000000000000000"),
    ("click_at(1e9, 10)", "ActionError: click_at(): the point (1e+09, 10) is outside the window"),
    ("click_at(-1, 10)", "ActionError: click_at(): the point (-1, 10) is outside the window"),
    ("click_at(True, 10)", "ActionError: click_at() expects x as a number, not bool"),
    ("click_at('10', 10)", "ActionError: click_at() expects x as a number, not str"),
    ("click_at('button', 'ONE')", "ActionError: click_at() clicks a point (x, y) of the page, not an element; to "
     "click an element, write click('button', 'ONE')"),
    ("drag_to('button', 'ONE', 10, [3])", "ActionError: drag_to() expects y as a number, not list"),
    ("drag_to('button', 'ONE', 'input_text', 'tt')", "ActionError: drag_to() drops at a point (x, y) of the page, "
     "not on an element; to drop on an element, write drag('button', 'ONE', 'input_text', 'tt')"),
    ("drag_to('button', 'ONE', '10', 20)", "ActionError: drag_to() expects x as a number, not str"),
    ("drag('button', 'ONE', 66, 103.5)", "ActionError: drag() drops on an element (to_tag, to_text), not at a "
     "point; to drop at a point, write drag_to('button', 'ONE', 66, 103.5)"),
    ("drag('button', 'ONE', 'td', 12)", "ActionError: no 'td' element with text '12'"),
    ("drag_to('button', 'ONE', 'b' * 3000, 'x')", "ActionError: drag_to(): x is longer than 2000 characters"),
    ("drag_to('button', 'ONE', 10, 5000)", "ActionError: drag_to(): the point (10, 5000) is outside the window"),
    ("draw([(1, 2)] * 10 ** 5)", "ActionError: draw() takes 2 to 200 points, not 100000"),
    ("draw([(10, 10)])", "ActionError: draw() takes 2 to 200 points, not 1"),
    ("draw([33, 84])", "ActionError: draw() takes 2 to 200 points, not 1"),
    ("draw([4, 130, 12])", "ActionError: draw() read 3 numbers, which are not (x, y) pairs: write draw([(x1, y1), "),
    ("draw([(10, 10), (20, [20])])", "ActionError: draw() point 1 expects y as a number, not list"),
    ("draw([(10, 10), (1, 2, 3)])", "ActionError: draw(): point 1 is not an (x, y) pair"),
    ("draw([[[[[1]]]], (1, 2)])", "ActionError: draw(): point 0 is not an (x, y) pair"),
    ("draw({'a': 1})", "ActionError: draw() expects points as a list of (x, y) pairs, not dict"),
    ("wait(1e9)", "ActionError: wait() takes seconds above 0 and at most 5, not 1e+09"),
    ("wait(0)", "ActionError: wait() takes seconds above 0 and at most 5, not 0"),
    ("wait(-1)", "ActionError: wait() takes seconds above 0 and at most 5, not -1"),
    ("wait('2')", "ActionError: wait() expects seconds as a number, not str"),
    ("hover('button', ['ONE'])", "ActionError: hover() expects text as a string, not list"),
    ("drag('button', 'ONE', 'button', None)", "ActionError: drag() expects to_text as a string, not NoneType"),
    ("hover('button', 'Nothing like it')", "ActionError: no 'button' element with text 'Nothing like it'"),
    ("select_text('  ')", "ActionError: select_text() needs a text to select"),
    # WebDriver reads U+E000-U+F8FF as keys of its own (U+E035 is F5): not a way past the key list.
    ("enter_text('a\\ue035')", "ActionError: enter_text(): text holds a character U+E000-U+F8FF"),
    ("press_key('Control+\\ue035')", "ActionError: press_key(): key holds a character U+E000-U+F8FF"),
    # The paper's spellings return their arguments as data: only bounded text, never the program's own.
    ("click_action1([[['deep']]], 'x', observation)", "ActionError: click_action1() expects each argument as a string, not list"),
])
def test_bad_arguments_are_refused_in_one_line(session: webwise.Session, call: str, error: str) -> None:
    step = only_step(run(session, "button-delay", 0, call))
    assert step["error"] is not None and step["error"].startswith(error), step["error"]
    assert "\n" not in step["error"]
    assert not any(action["error"] is None for action in step["actions"])  # nothing was performed


@pytest.mark.parametrize(("name", "args", "error"), [
    ("click_at", [math.nan, 10], "click_at() expects x as a finite number, not nan"),
    ("click_at", [10, -math.inf], "click_at() expects y as a finite number, not -inf"),
    ("drag_to", ["button", "ONE", math.inf, 10], "drag_to() expects x as a finite number, not inf"),
    ("draw", [[[1, 2], [math.nan, 3]]], "draw() point 1 expects x as a finite number, not nan"),
    ("wait", [math.nan], "wait() expects seconds as a finite number, not nan"),
])
def test_the_host_refuses_non_finite_numbers_itself(session: webwise.Session, name: str, args: list,
                                                    error: str) -> None:
    """The sandbox's pipe refuses them already; the host does not rely on it."""
    session.env.reset("button-delay", 0)
    executor = Executor(session.env, filtered_summary)
    executor.start()
    reply = ActionHandler(executor)(name, args, {})
    assert reply.error == error and not executor.env.script("return WOB_DONE_GLOBAL;")


def test_a_pause_ends_with_the_program_s_time() -> None:
    """The sandbox kills a program at its wall-clock limit but cannot cut short a pause the
    host makes for it: wait() sleeps only until then."""
    settings = Settings(max_steps=1, limits=Limits(wall_seconds=1.0))
    with webwise.Session(ReplayModel({"button-delay": ["```python\nwait(4)\n```"]}, "replay:pause"), settings) as own:
        step = only_step(json.loads(json.dumps(own.run("button-delay", 0, "webwise", "none").to_dict())))
    assert step["actions"][0]["ms"] < 2000 and step["run_seconds"] < 3, step


def test_a_contract_v1_program_runs_as_before(session: webwise.Session) -> None:
    """The v1 API keeps its prompt text and its behaviour; the additions are listed after it."""
    record = run(session, "click-button", 0, "import re\nclick('button', re.search(r'\"(.+)\"', task).group(1))")
    step = only_step(record)
    assert record["success"] and [a["name"] for a in step["actions"]] == ["click"]
    system = system_message("webwise")
    assert api_stubs.render_api() in system
    assert system.index(api_stubs.render_api()) < system.index("click_at(x, y)")
    assert set(api_stubs.POINTER_ACTIONS) <= set(api_stubs.ACTION_NAMES)


@pytest.mark.parametrize(("task", "pointed"), [
    ("drag-items", True), ("use-slider", True), ("draw-line", True), ("resize-textarea", True),
    ("hover-shape", True), ("click-button", False), ("click-dialog", False), ("enter-text", False),
])
def test_the_pointer_actions_are_explained_on_pages_with_things_to_point_at(
        session: webwise.Session, task: str, pointed: bool) -> None:
    """Explained by a rule on the page, never on the task's name; named in every system message."""
    session.env.reset(task, 0)
    executor = Executor(session.env, filtered_summary)
    page = executor.start()
    assert pointer_page(executor.elements) is pointed
    user = task_message("webwise", session.env.utterance, page, pointer=pointer_page(executor.elements))
    assert ("drag_to(tag, text, x, y): Press on the element" in user) is pointed
    assert "Also: click_at(x, y), hover(tag, text), drag(tag, text, to_tag, to_text)" in system_message("webwise")
