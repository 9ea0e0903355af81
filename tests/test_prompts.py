"""Prompts per method: fixed part first and shared, the page in the right form, history shown."""

from __future__ import annotations

import ast

import regex

import api_stubs
from sandbox.modules import MODULES
from webwise.agent import VIEWS
from webwise.dom import FLAGS, filtered_summary, flatten, render, whole_dom
from webwise.examples import Step
from webwise.extraction import extract_program
from webwise.matching import find_target
from webwise.prompts import (_DEMO_INSTRUCTION, _DEMO_PAGE, _DEMO_PROGRAM, METHODS, PastStep,
                             PromptExample, build_messages, system_message, task_message)

TREE = {"ref": 1, "tag": "BODY", "children": [
    {"ref": 2, "tag": "DIV", "id": "query", "text": "Click Save", "children": []},
    {"ref": 3, "tag": "BUTTON", "text": "Save", "classes": "primary", "left": 10, "top": 20, "width": 40, "height": 18,
     "children": []},
]}
ELEMENTS = flatten(TREE)
FILTERED = filtered_summary(ELEMENTS, set(), set())
WHOLE = whole_dom(ELEMENTS)
EXAMPLE = PromptExample("Press the Open button.", [Step(
    [{"ref": 1, "tag": "button", "text": "Open", "id": "", "classes": "", "value": "", "clicked": False,
      "modified": False}], "click('button', 'Open')")])


def test_system_message_is_fixed_and_carries_the_api_from_the_stubs() -> None:
    for method in METHODS:
        text = system_message(method)
        assert api_stubs.render_api() in text
        assert "def click(tag: str, text: str)" in text
        assert text == system_message(method)
    assert system_message("webwise") != system_message("filtered-dom")
    assert "step by step" in system_message("webwise")
    assert "one chance" in system_message("whole-dom")
    assert "do not see the page" in system_message("instruction-only")


def test_the_rules_name_exactly_the_modules_the_sandbox_imports() -> None:
    rule = next(line for line in system_message("webwise").split("\n- ") if "the modules" in line)
    named = set(regex.findall(r"\b[a-z]+\b", rule.split("the modules", 1)[1].split(".")[0])) - {"and"}
    assert named == set(api_stubs.ALLOWED_IMPORTS) == set(MODULES)


def test_page_rendering_differs_by_method() -> None:
    filtered = task_message("filtered-dom", "Click Save", FILTERED)
    whole = task_message("whole-dom", "Click Save", WHOLE)
    blind = task_message("instruction-only", "Click Save", [])
    assert '[3] button "Save" .primary' in filtered and "@30,29 40x18" not in filtered
    assert "@30,29 40x18" in whole  # the centre of the box at 10,20
    assert "Page:" not in blind and "Task: Click Save" in blind


def test_every_view_of_a_page_has_the_keys_the_prompt_promises() -> None:
    """The role text lists the element keys for every method; a program that reads one of
    them (``e['clicked']``) must not meet a KeyError in one view only."""
    promised = set(regex.findall(r"\b[a-z]+\b", system_message("webwise").split("list of dicts with keys")[1]
                                 .split("and these actions")[0])) - {"plus", "flags"}
    assert {"ref", "clicked", "modified", "left", "points"} <= promised
    for method in ("webwise", "filtered-dom", "whole-dom"):
        view = VIEWS[method](ELEMENTS, {3}, set())
        assert all(promised <= set(element) for element in view), method
        assert [element["clicked"] for element in view if element["ref"] == 3] == [True], method
    unflagged = [{key: value for key, value in element.items() if key not in FLAGS} for element in WHOLE]
    assert render(WHOLE) == render(unflagged)  # flags that are false leave whole-dom's prompt as it was


def test_examples_come_before_the_task_and_history_after_the_page() -> None:
    history = [PastStep("click('button', 'Sav')", "error: no 'button' element with text 'Sav'; closest: button 'Save'")]
    text = task_message("webwise", "Click Save", FILTERED, [EXAMPLE], history)
    task_at = text.index("Task: Click Save")
    page_at = text.index("Page:", task_at)
    assert text.index("Example (an invented page)") < task_at < page_at
    assert page_at < text.index("Step 1 program:") < text.index("closest: button 'Save'")
    assert text.endswith("Write the program for the next step.")


def test_harvested_examples_are_introduced_as_solved_before() -> None:
    solved = PromptExample(EXAMPLE.instruction, EXAMPLE.steps, solved_before=True)
    assert "Here is a task you solved before" in task_message("webwise", "Click Save", FILTERED, [solved])


def test_messages_put_the_fixed_part_first() -> None:
    first = build_messages("webwise", task_message("webwise", "Click Save", FILTERED))
    second = build_messages("webwise", task_message("webwise", "Click Open", FILTERED))
    assert [m["role"] for m in first] == ["system", "user"]
    assert first[0] == second[0] and first[1] != second[1]


def test_fixed_demonstration_is_a_valid_program_that_hits_its_own_page() -> None:
    """The demo in every system prompt must survive extraction and aim at real elements,
    or the model would learn a call shape that never works."""
    text = system_message("filtered-dom")
    assert f"```python\n{_DEMO_PROGRAM}\n```" in text
    assert extract_program(f"```python\n{_DEMO_PROGRAM}\n```") == _DEMO_PROGRAM
    elements = [{**element, "deep_text": element["text"], "parent": None} for element in _DEMO_PAGE]
    clicks = [call for call in ast.walk(ast.parse(_DEMO_PROGRAM))
              if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "click"]
    targets = [find_target(elements, *(arg.value for arg in call.args))["ref"] for call in clicks]
    assert targets == [5, 7, 9]
    assert "Page:" not in system_message("instruction-only").split("How a program reads")[1]


def test_without_the_demonstration_the_system_message_only_loses_it() -> None:
    for method in METHODS:
        full, bare = system_message(method), system_message(method, demonstrate=False)
        assert "How a program reads" in full and "How a program reads" not in bare
        assert _DEMO_INSTRUCTION in full and _DEMO_INSTRUCTION not in bare
        assert bare.split("\n\n")[-1] == full.split("\n\n")[-1]  # the method's closing rule stays
