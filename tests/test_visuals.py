"""What the page shows and the text summary leaves out: boxes, colours, SVG corners, canvas
drawings, a swatch in the instruction; read from real task pages in headless Chromium."""

from __future__ import annotations

import re
import time

import pytest

from webwise.dom import RUN_LIMIT, colour, corners, filtered_summary, flatten, render, whole_dom
from webwise.environment import MiniWoBEnv


def summary(env: MiniWoBEnv) -> list[dict]:
    return filtered_summary(env.observe()[0], set(), set())


def click_ref(env: MiniWoBEnv, ref: int) -> None:
    env.script("core.previousDOMInfo[arguments[0]].dispatchEvent(new MouseEvent('click', {bubbles: true}));", ref)


def test_colours_read_as_a_program_compares_them() -> None:
    assert colour("Cyan") == "cyan"
    assert colour("rgb(127, 176, 255)") == "#7fb0ff"
    assert colour("rgba(0, 0, 0, 0)") == colour("none") == colour("transparent") == ""
    assert colour("#AbC") == "#aabbcc"


def test_corners_of_a_traced_outline_drop_side_points_and_join_blunt_corners() -> None:
    square = [(0, 0), (20, 0.5), (40, 0), (40, 40), (6, 40), (0, 34)]
    assert corners(square) == [(0, 0), (40, 0), (40, 40), (3.0, 37.0)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_swatch_the_instruction_names_carries_that_colour(env: MiniWoBEnv, seed: int) -> None:
    wanted = re.search(r"the (\S+) colored box", env.reset("click-color", seed)).group(1)
    boxes = [e for e in summary(env) if "color" in e["classes"].split()]
    assert len(boxes) == 4 and all(e["width"] > 0 and e["height"] > 0 for e in boxes)
    click_ref(env, next(e["ref"] for e in boxes if e["color"] == wanted))
    assert env.outcome().success


@pytest.mark.parametrize("seed", [0, 1, 9, 35, 54])
def test_a_canvas_drawing_has_as_many_corners_as_sides(env: MiniWoBEnv, seed: int) -> None:
    env.reset("count-sides", seed)
    page = summary(env)
    canvas = next(e for e in page if e["tag"] == "canvas")
    assert all(canvas["left"] <= x <= canvas["left"] + canvas["width"] for x, _ in canvas["points"])
    click_ref(env, next(e["ref"] for e in page if e["tag"] == "button" and e["text"] == str(len(canvas["points"]))))
    assert env.outcome().success


def test_svg_shapes_carry_fill_and_corners_in_the_frame_of_their_boxes(env: MiniWoBEnv) -> None:
    for seed in range(20):
        env.reset("click-shape", seed)
        triangles = [e for e in summary(env) if e["tag"] == "polygon"]
        if triangles:
            break
    triangle = triangles[0]
    assert len(triangle["points"]) == 3 and triangle["color"] in {"red", "green", "blue", "aqua", "black",
                                                                  "magenta", "yellow"}
    xs, ys = [x for x, _ in triangle["points"]], [y for _, y in triangle["points"]]
    assert abs(min(xs) - triangle["left"]) <= 1 and abs(max(ys) - triangle["top"] - triangle["height"]) <= 1

    env.reset("right-angle", 3)
    page = summary(env)
    ends = next(e for e in page if e["tag"] == "line")["points"]
    centres = [[e["left"] + e["width"] / 2, e["top"] + e["height"] / 2] for e in page if e["tag"] == "circle"]
    assert all(abs(a - b) <= 1 for end, centre in zip(ends, centres) for a, b in zip(end, centre))
    assert {e["color"] for e in page if e["tag"] == "circle"} == {"black", "blue"}


def test_a_swatch_in_the_instruction_is_said_as_its_colour(env: MiniWoBEnv) -> None:
    utterance = env.reset("use-colorwheel-2", 4)
    wanted = re.search(r"the following color #([0-9a-f]{6}) with", utterance).group(1)
    env.script("var el = document.getElementById('col'); el.value = arguments[0];"
               "document.getElementById('subbtn').click();", wanted)
    assert env.outcome().success


def test_a_form_prompt_shows_no_box_but_its_elements_carry_one(env: MiniWoBEnv) -> None:
    env.reset("login-user", 0)
    page = summary(env)
    field = next(e for e in page if e["tag"] == "input_text")
    assert field["width"] > 0 and field["color"] == "" and field["points"] == []
    text = render(page)
    assert "@" not in text and "color=" not in text
    whole = render(whole_dom(env.observe()[0]))
    assert re.search(r"input_text #username @\d+,\d+ \d+x\d+ in \[", whole)


def test_the_whole_dom_shows_colours_and_corners(env: MiniWoBEnv) -> None:
    env.reset("right-angle", 3)
    assert re.search(r"\] line @\d+,\d+ \d+x\d+ color=black points=\d+,\d+ \d+,\d+ in \[",
                     render(whole_dom(env.observe()[0])))


def test_the_items_of_a_container_of_zero_size_are_seen(env: MiniWoBEnv) -> None:
    """drag-items-grid floats its items in a <ul> of zero height, which getDOMInfo skipped."""
    name = re.match(r"Drag (.+?) (?:to the |up|down|left|right)", env.reset("drag-items-grid", 0)).group(1)
    names = [e["text"] for e in summary(env) if e["tag"] == "div" and e["text"]]
    assert len(names) == 9 and name in names
    assert env.script("return document.getElementById('sortable').getBoundingClientRect().height;") == 0


def test_an_image_says_its_alt_text_and_stays_in_the_summary(env: MiniWoBEnv) -> None:
    env.reset("order-food", 0)
    page = summary(env)
    types = [e["text"] for e in page if e["tag"] == "img"]
    assert types and set(types) <= {"dairy", "gluten-free", "meat", "peanuts", "vegan"}
    caesar = next(i for i, e in enumerate(page) if e["text"] == "Caesar Salad")
    assert [e["text"] for e in page[caesar + 1:caesar + 3]] == ["vegan", "gluten-free"]


def test_an_icon_in_the_instruction_is_said_as_the_classes_of_the_icon_it_shows(env: MiniWoBEnv) -> None:
    utterance = env.reset("click-menu-2", 2)
    icon = re.search(r"the item with the (.+) icon\.", utterance).group(1)
    env.script("var icon = arguments[0]; $('#menu span').filter(function () { return this.className === icon; })"
               ".closest('li').click();", icon)
    assert env.outcome().success


def test_a_clickable_element_is_listed_only_when_nothing_inside_it_is() -> None:
    """An element that sets the pointer cursor stands for itself only when nothing it holds is
    listed: a face-down card, not an email thread whose sender names it."""
    card = {"ref": 2, "tag": "DIV", "classes": "card hidden", "children": []}
    thread = {"ref": 3, "tag": "DIV", "classes": "email-thread", "children": [
        {"ref": 4, "tag": "DIV", "text": "Audrey", "classes": "email-sender", "children": []}]}
    layout = {"ref": 5, "tag": "DIV", "children": []}
    elements = flatten({"ref": 1, "tag": "BODY", "children": [card, thread, layout]},
                       {"2": {"clickable": True}, "3": {"clickable": True}})
    assert [e["ref"] for e in filtered_summary(elements, set(), set())] == [2, 4]


def _dot(ref: int, x: int) -> dict:
    return {"ref": ref, "tag": "circle", "text": "", "id": "", "classes": "plot-point", "value": "",
            "left": x, "top": 70, "width": 1, "height": 1, "color": "red", "points": []}


def test_a_long_run_of_alike_elements_shows_as_its_first_and_a_count() -> None:
    """A chart's dots, alike but for their place, would fill the context; a run of RUN_LIMIT
    or fewer, or one broken by an element with a text, still shows line by line."""
    price = {**_dot(999, 0), "tag": "span", "text": "$46.40", "id": "stock-price", "classes": "", "color": ""}
    chart = [_dot(10 + n, 2 * n) for n in range(RUN_LIMIT + 5)]
    lines = render([*chart, price]).splitlines()
    assert lines == ["[10] circle .plot-point @0,70 1x1 color=red",
                     f"({RUN_LIMIT + 4} more like it: [11] to [{RUN_LIMIT + 14}], @2,70 to @{2 * RUN_LIMIT + 8},70)",
                     '[999] span "$46.40" #stock-price']
    short = [*chart[:RUN_LIMIT], price, *chart[RUN_LIMIT:]]
    assert len(render(short).splitlines()) == len(short)
    other_colour = [{**dot, "color": "blue"} if n % 2 else dot for n, dot in enumerate(chart)]
    assert len(render(other_colour).splitlines()) == len(chart)


def test_stock_market_s_chart_leaves_the_price_in_a_short_page(env: MiniWoBEnv) -> None:
    env.reset("stock-market", 3)
    time.sleep(5)  # the chart draws about ten dots a second
    page = summary(env)
    dots = [element for element in page if element["tag"] == "circle"]
    text = render(page)
    assert len(dots) > RUN_LIMIT and len(text.splitlines()) < 15
    assert re.search(r'span "\$[\d.]+" #stock-price', text) and f"({len(dots) - 1} more like it:" in text
