"""Executor defects found in the failed episodes of the 1.5B's suite run (benchmarks/results/suite-1.5b/).

Each test builds the page structure that failed on an invented page (a task page whose area
holds the test's own HTML) or calls the action as the recorded program did, and fails
without its fix.
"""

from __future__ import annotations

import re

import pytest

from webwise.actions import ActionError, Executor
from webwise.dom import filtered_summary, flatten
from webwise.environment import MiniWoBEnv
from webwise.matching import find_target


def page(env: MiniWoBEnv, html: str) -> Executor:
    """An executor on a fresh task page whose area holds ``html`` (set as data, not source)."""
    env.reset("click-button", 0)
    env.script("document.getElementById('area').innerHTML = arguments[0];", html)
    executor = Executor(env, filtered_summary)
    executor.start()
    return executor


def value(env: MiniWoBEnv, selector: str) -> str:
    return env.script("return document.querySelector(arguments[0]).value;", selector)


# multi-orderings and multi-layouts head each field's row with a th (or a div) not tied to it.
FORM = """
<div class="title">Movie Search</div>
<table>
  <tr><th>Year</th><td><input type="text" id="f-1"></td></tr>
  <tr><th>Genre</th><td><input type="text" id="f-2"></td></tr>
  <tr><th>Director</th><td><input type="text" id="f-3"></td></tr>
</table>
<button>Go</button>
"""


def test_a_field_kind_named_by_its_caption_clicks_the_captioned_field(env: MiniWoBEnv) -> None:
    """multi-orderings seed 1: ``click('input_text', 'Year')`` clicked the th "Year" (any tag
    with that text), typing then failed, and the right first program lost its trial."""
    executor = page(env, FORM)
    for caption, typed in (("Genre", "crime"), ("Year", "1995"), ("Director", "Curry")):
        executor.click("input_text", caption)
        assert executor.records[-1].target == "input_text ''"
        executor.enter_text(typed)
    assert [value(env, f"#f-{n}") for n in (1, 2, 3)] == ["1995", "crime", "Curry"]


def test_a_caption_is_still_what_its_own_tag_or_a_control_names(env: MiniWoBEnv) -> None:
    """The field is meant only when the program named a field kind and the text is a caption
    of that one field: ``th`` clicks the caption, a button's text clicks the button, a title
    over several fields names none of them."""
    executor = page(env, FORM)
    executor.click("th", "Genre")
    assert executor.records[-1].target == "th 'Genre'"
    executor.click("input_text", "Go")
    assert executor.records[-1].target == "button 'Go'"
    executor.click("input_text", "Movie Search")
    assert executor.records[-1].target == "div 'Movie Search'"


def test_a_field_captioned_by_a_label_beside_it_is_clicked_through_the_label_text() -> None:
    """login-user's shape, by hand: ``<p><label>Password</label><input type=password></p>``;
    a label that wraps its own checkbox stays the label."""
    elements = flatten({"ref": 1, "tag": "BODY", "children": [
        {"ref": 2, "tag": "P", "children": [
            {"ref": 3, "tag": "LABEL", "text": "Password", "children": []},
            {"ref": 4, "tag": "INPUT_password", "value": "", "id": "password", "children": []}]},
        {"ref": 5, "tag": "P", "children": [
            {"ref": 6, "tag": "LABEL", "children": [
                {"ref": 7, "tag": "INPUT_checkbox", "value": False, "children": []},
                {"ref": -1, "tag": "t", "text": "Remember", "children": []}]},
            {"ref": 8, "tag": "INPUT_text", "value": "", "id": "note", "children": []}]},
    ]})
    assert find_target(elements, "input_password", "Password")["ref"] == 4
    assert find_target(elements, "input_text", "Password")["ref"] == 4  # the kind misnamed, the caption clear
    assert find_target(elements, "label", "Password")["ref"] == 3
    assert find_target(elements, "input_text", "Remember")["ref"] in (6, -1)  # holds its own box


@pytest.mark.parametrize("size", [4, 1])
def test_a_list_named_with_an_options_text_chooses_that_option(env: MiniWoBEnv, size: int) -> None:
    """click-scroll-list seed 2, trial 1: ``click('select', 'Ronda')`` clicked the list (found by
    its text, which holds every option's) and chose nothing; the option was meant."""
    multiple = " multiple" if size > 1 else ""
    executor = page(env, f'<select id="pick" size="{size}"{multiple}><option>Valenka</option>'
                         "<option>Ronda</option><option>Rondal</option></select>")
    observation = executor.click("select", "ronda")
    assert executor.records[-1].target == "option 'Ronda'"
    assert env.script("return Array.from(document.getElementById('pick').selectedOptions)"
                      ".map(o => o.text);") == ["Ronda"]
    assert [e["text"] for e in observation if e.get("selected")] == ["Ronda"]
    executor.click("select", "pick")  # the list named by its id is still the list
    assert executor.records[-1].target.startswith("select ")


# login-user-popup: focusing the username field opens a popup and disables every field until
# the popup is answered, so the focus is gone when the program types.
POPUP = """
<p><label>Username</label><input type="text" id="username"></p>
<p><label>Password</label><input type="password" id="password"></p>
"""
# The page's own script, as login-user-popup's: focusing the username disables every field and
# shows a popup. Added by the driver, since the pages run no inline handler (webwise.pages).
POPUP_ON_FOCUS = """
document.getElementById('username').addEventListener('focus', function () {
  document.querySelectorAll('input').forEach(function (i) { i.disabled = true; });
  var p = document.createElement('div'); p.textContent = 'Exit to home page?';
  document.getElementById('area').appendChild(p);
});
"""


def test_typing_while_the_page_has_disabled_its_fields_says_so(env: MiniWoBEnv) -> None:
    """login-user-popup seeds 1 and 2: the error told the 1.5B to click the username field,
    which the page had just disabled; its next programs met "it is disabled" at every trial."""
    executor = page(env, POPUP)
    env.script(POPUP_ON_FOCUS)
    executor.click("input_text", "username")
    with pytest.raises(ActionError) as raised:
        executor.enter_text("vina")
    assert str(raised.value) == ("no text input is focused (nothing is); the page has disabled its fields "
                                 "(input_text 'username', input_password 'password'): it enables them only "
                                 "once something else is done")


def test_typing_with_some_fields_disabled_names_only_the_others(env: MiniWoBEnv) -> None:
    executor = page(env, '<input type="text" id="a" disabled><input type="text" id="b">')
    with pytest.raises(ActionError) as raised:
        executor.enter_text("x")
    assert str(raised.value).endswith("click the field first, then type: click('input_text', 'b')")


@pytest.mark.parametrize("action", ["drag_to", "drag"])
def test_a_drag_from_a_point_is_refused_with_the_draw_it_meant(env: MiniWoBEnv, action: str) -> None:
    """form-sequence seed 1: ``drag_to(23, 71, 13, 71)`` for a slider's handle at (23, 71) was
    told "no '23' element with text '71'" at every trial (and ``drag`` named drag_to, which
    would refuse it too)."""
    executor = page(env, "<div id='slider'>x</div>")
    with pytest.raises(ActionError) as raised:
        getattr(executor, action)(23, 71, 13, 71.5)
    assert str(raised.value) == (f"{action}() presses on an element (tag, text), not at a point; to drag from a "
                                 "point to a point, write draw([(23, 71), (13, 71.5)])")
    with pytest.raises(ActionError, match=re.escape(f"{action}() presses on an element (tag, text), not at a point: "
                                                    "name the element to drag")):
        getattr(executor, action)(23, 71, "div", "slider")
    assert not executor.records or all(record.name != action or record.error for record in executor.records)


# click-menu-2: the item to click is named by the classes of its icon, and it sits in a closed
# submenu; a file tree's closed folder is the same hidden list inside a list item.
MENU = """
<ul id="menu" role="menu">
  <li><div><span class="icon icon-disk"></span>Save</div></li>
  <li><div>Playback</div>
    <ul role="menu" style="display: none">
      <li><div><span class="icon icon-stop"></span>Stop</div></li>
    </ul>
  </li>
</ul>
"""


@pytest.mark.parametrize(("role", "hint"), [
    ("menu", "span '.icon.icon-stop' is in a closed submenu: hover('div', 'Playback') opens it "
             "(a click on the item would choose it)"),
    ("group", "span '.icon.icon-stop' is in a closed panel: click('div', 'Playback') opens it"),
])
def test_an_element_named_by_its_classes_out_of_view_is_named_with_what_opens_it(
        env: MiniWoBEnv, role: str, hint: str) -> None:
    """click-menu-2 seed 2: ``click('div', 'ui-icon ui-icon-stop')`` for the Stop item of the
    closed Playback submenu was told only of the visible items, at every trial; a text in a
    closed submenu gets the hover that opens it, and so does an element named by its classes."""
    executor = page(env, MENU.replace('<ul role="menu" style', f'<ul role="{role}" style'))
    for tag, text in (("div", "icon icon-stop"), ("div", ".icon.icon-stop"), ("span", "span .icon.icon-stop")):
        with pytest.raises(ActionError) as raised:
            executor.click(tag, text)
        assert str(raised.value) == f"no {tag!r} element with text {text!r} in view; {hint}"
