"""Prompt building: the fixed part first, then the task's examples, page and history.

The system message depends only on the method, never on the task, so a local model
reuses its KV cache for it across every call of a run. The API section is rendered from
``api_stubs`` so it cannot drift from what the sandbox exposes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, Sequence

import api_stubs
from webwise.dom import Element, render
from webwise.examples import Example, Step
from webwise.llm.base import Message

METHODS: tuple[str, ...] = ("webwise", "filtered-dom", "whole-dom", "instruction-only")

_ROLE = """You write short Python programs that carry out tasks on a web page.
Your program runs in a sandbox where these names are defined:
  task         the instruction, a string
  observation  the page's visible elements in document order: a list of dicts with keys
               ref, tag, text, id, classes, value, left, top, width, height, color,
               points (plus clicked/modified flags)
and these actions, which are the only way to touch the page:"""

#: The pointer actions as the system message names them: one line, so the 48 paper tasks'
#: prompts barely grow; the task message explains them where the page calls for them.
_POINTER_NAMED = "Also: "
#: What the task message says, before the task, on a page with things to drag or point at.
_POINTER = """This page has things to drag, draw on or point at. Pointer actions; each returns the new
observation. x, y are page pixels. A page line's @x,y is the centre of that element, where
click_at(x, y) hits it, and wxh its size; in a program the centre of e is
(e['left'] + e['width'] / 2, e['top'] + e['height'] / 2):"""
#: Tags and classes that make a page one to point at: drawings, and jQuery UI's draggable,
#: sortable, slider and resizable widgets.
POINTER_TAGS = frozenset({"svg", "canvas"})
_POINTER_CLASS = re.compile(r"(?:^|\s)ui-(?:draggable|sortable|slider|resizable)(?:\s|$)")

_RULES = """Rules:
- Reply with exactly one ```python code block and nothing after it.
- Use only the actions above, Python built-ins, and the modules re, math, json, datetime,
  string, itertools and collections. There is no browser object, no Selenium, no other helper.
- task and observation are already defined: never write the page or the task out in your
  program. Take every target from them; copy texts exactly as the page shows them.
- To type, click the input element itself first (tag input_text, input_password, textarea,
  ...), then call enter_text. Clicking a label or text does not focus anything.
- Each action returns the new observation and also updates the variable observation."""

_PAGE_FORMAT = """The page is shown one element per line: [ref] tag "text" #id .classes value flags.
These lines are not Python: your program names elements by tag and text (or id)."""

#: A worked demonstration of the API on an invented page, in the fixed prompt of every
#: task shown with no example of its own (k=0). Without it a small model zero-shot writes
#: the observation out as a literal instead of acting, and aims click('input_text', ...)
#: at the text it wants to type rather than at the input's id.
_DEMO_INSTRUCTION = 'Set the city to "Oslo", tick Express and press Save.'
_DEMO_PAGE: tuple[Element, ...] = (
    {"ref": 3, "tag": "h2", "text": "Delivery", "id": "", "classes": "", "value": ""},
    {"ref": 4, "tag": "label", "text": "City", "id": "", "classes": "", "value": ""},
    {"ref": 5, "tag": "input_text", "text": "", "id": "city", "classes": "", "value": ""},
    {"ref": 6, "tag": "input_checkbox", "text": "", "id": "opt-1", "classes": "", "value": False},
    {"ref": 7, "tag": "label", "text": "Express", "id": "", "classes": "", "value": ""},
    {"ref": 8, "tag": "button", "text": "Cancel", "id": "", "classes": "", "value": ""},
    {"ref": 9, "tag": "button", "text": "Save", "id": "", "classes": "", "value": ""},
)
_DEMO_PROGRAM = """click('input_text', 'city')  # an input has no text: name it by its id
enter_text('Oslo')  # a value, copied exactly from the task
click('label', 'Express')  # a checkbox or radio button: click its label
click('button', 'Save')  # anything else: its tag and its text"""

_STEPWISE = """You work step by step. After your program runs you see the page again and write
the next program. When one program cannot finish the task (content appears only after a
click, a page must be opened first), do the next useful actions and stop; the episode ends
by itself once the task is complete. Never send a program that already failed unchanged."""

_SINGLE = """You get one chance: the program must complete the whole task."""

_NO_PAGE = """You do not see the page; infer the elements from the task."""


def system_message(method: str, *, demonstrate: bool = True) -> str:
    """The fixed, task-independent part of every prompt for ``method``.

    ``demonstrate`` adds one worked program on an invented form. It is what lets a small
    model write any working program zero-shot (filtered-dom k=0 went from 0.02 to 0.31 with
    the 0.5B), but next to a task's own example it competes with it: the model copies the
    demonstration's literal style over the example's page-reading one (webwise k=1: 0.74 with
    it, 0.80 without, same seeds). So callers demonstrate only when the prompt carries no
    example; the text stays fixed within a run either way, which keeps the KV-cache prefix.
    """
    api = api_stubs.render_api()
    parts = [_ROLE, api + "\n\n" + _POINTER_NAMED + api_stubs.render_calls() + ".", _RULES]
    parts.append(_NO_PAGE if method == "instruction-only" else _PAGE_FORMAT)
    if demonstrate:
        parts.append(_demonstration(method))
    parts.append(_STEPWISE if method == "webwise" else _SINGLE)
    return "\n\n".join(parts)


def _demonstration(method: str) -> str:
    page = "" if method == "instruction-only" else f"Page:\n{render(_DEMO_PAGE)}\n"
    return (f"How a program reads the page (an invented one):\nTask: {_DEMO_INSTRUCTION}\n"
            f"{page}Program:\n```python\n{_DEMO_PROGRAM}\n```")


def pointer_page(elements: Iterable[Element]) -> bool:
    """Whether the page has something to drag, draw on or point at: an svg or canvas, or a
    jQuery UI draggable, sortable, slider or resizable.

    A rule on the page, never on the task's name. Dialogs are left out: jQuery UI makes
    every dialog draggable and resizable, and no task asks to move one.
    """
    return any(e["tag"] in POINTER_TAGS or (_POINTER_CLASS.search(e["classes"]) and "ui-dialog" not in e["classes"])
               for e in elements)


@dataclass(frozen=True)
class PromptExample:
    """An in-context example as the prompt shows it (hand-written or harvested)."""

    instruction: str
    steps: Sequence[Step]
    solved_before: bool = False
    #: The task it was solved on, when that is not the task at hand (``--examples auto-near``).
    from_task: str | None = None


def as_shown(example: Example, task: str) -> PromptExample:
    """``example`` as the prompt for ``task`` shows it: harvested ones as solved before,
    another task's as that task's."""
    return PromptExample(example.instruction, example.steps, solved_before=example.source != "manual",
                         from_task=None if example.task == task else example.task)


@dataclass(frozen=True)
class PastStep:
    """A program already run in this episode and what came of it."""

    program: str | None
    result: str


def task_message(
    method: str,
    instruction: str,
    page: Sequence[Element],
    examples: Sequence[PromptExample] = (),
    history: Sequence[PastStep] = (),
    failed_here: Sequence[PastStep] = (),
    pointer: bool = False,
) -> str:
    """The per-call user message: examples, the pointer actions where the page has things
    to point at (``pointer``, see :func:`pointer_page`), the task, the current page, earlier steps.

    ``failed_here`` are programs that already ran on this very page without success.
    """
    parts = [render_example(example, method) for example in examples]
    if pointer:
        parts.append(_POINTER + "\n" + api_stubs.render_listing())
    parts.append(f"Task: {instruction}")
    if method != "instruction-only":
        parts.append("Page:\n" + (render(page) or "(no visible elements)"))
    for number, past in enumerate(history, 1):
        code = f"```python\n{past.program}\n```" if past.program else "(no usable program)"
        parts.append(f"Step {number} program:\n{code}\nResult: {past.result}")
    for past in failed_here:
        parts.append(f"An earlier attempt ran this program on this same page:\n```python\n{past.program}\n```\n"
                     f"Result: {past.result}\nIt did not work: do something different.")
    ask = "Write the program for the next step." if history else "Write the program."
    parts.append(ask)
    return "\n\n".join(parts)


def render_example(example: PromptExample, method: str) -> str:
    """One example as the user message shows it (``webwise store show`` prints this too)."""
    if example.from_task is not None:
        heading = (f"Here is a different task, {example.from_task}, that you solved before, with the program "
                   "that solved it. Your task is not this one: learn the way, not the values:")
    elif example.solved_before:
        heading = "Here is a task you solved before, with the program that solved it:"
    else:
        heading = "Example (an invented page):"
    lines = [heading, f"Task: {example.instruction}"]
    steps = example.steps
    for number, step in enumerate(steps, 1):
        label = f" (step {number})" if len(steps) > 1 else ""
        if method != "instruction-only":
            lines.append(f"Page{label}:\n{render(step.observation)}")
        lines.append(f"Program{label}:\n```python\n{step.program}\n```")
    return "\n".join(lines)


def build_messages(method: str, user: str, *, demonstrate: bool = True) -> list[Message]:
    """The chat for one call: the fixed system part, then ``user`` (see :func:`system_message`)."""
    return [{"role": "system", "content": system_message(method, demonstrate=demonstrate)},
            {"role": "user", "content": user}]
