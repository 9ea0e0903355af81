"""The hand-written in-context examples (incontext/manual): complete, well-formed, runnable, invented.

Why each check exists:
* one example per paper task, because the paper's k=1 setting needs exactly that;
* programs use only program API v1 and pass the sandbox policy, or the model learns
  to write programs the sandbox rejects;
* each program, run against stand-ins on its own invented page, finds every click
  target and types only after focusing an input, so an example never teaches a
  program that would fail (the prototype's "typing with nothing focused");
* the pages are invented: the instruction is not the task's own query template and the
  page's words are not drawn from the task's word lists, so no example leaks an answer.
"""

from __future__ import annotations

import ast
import builtins
import json
import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import api_stubs
import miniwob
import sandbox
from webwise.errors import ConfigError
from webwise.examples import MANUAL_DIR, Example, load_example, load_manual
from webwise.tasks import PAPER48, group_of
from webwise.matching import find_target

API_NAMES = frozenset({"click", "enter_text", "press_key", "scroll"})
PROGRAM_NAMES = API_NAMES | {"task", "observation"}
ALLOWED_MODULES = frozenset(api_stubs.ALLOWED_IMPORTS)
SAFE_BUILTINS = frozenset(
    "abs all any bool dict enumerate filter float int isinstance len list map max min next "
    "range reversed round set sorted str sum tuple zip".split()
)
MINIWOB_TAGS = frozenset(
    "button a span div label td th tr p h3 ul li t svg rect circle polygon text tspan path textarea "
    "input_text input_password input_checkbox input_radio input_number input_date input_time".split()
)
EDITABLE_TAGS = frozenset(
    {"textarea", "input_text", "input_password", "input_number", "input_date", "input_time"}
)
KEYS = frozenset(
    "Enter Tab Backspace Delete Escape Space Home End ArrowUp ArrowDown ArrowLeft ArrowRight".split()
)
MAX_ACTIONS = 50

TASK_HTML = Path(miniwob.__file__).resolve().parent / "html"
#: Function words and interface verbs any page of this kind shares; they carry no answer.
STOPWORDS = frozenset(
    "the and for you your are was with from into that this then its our has have not but all "
    "any out one two per".split()
)
#: Words a task's lists share with its interface, which an honest example of the same kind
#: of page must use too: the five widget kinds, and the mail actions and their buttons.
INTERFACE_WORDS = {
    "click-widget": frozenset({"checkbox"}),
    **dict.fromkeys(
        ("email-inbox", "email-inbox-nl-turk", "email-inbox-forward-nl", "email-inbox-forward-nl-turk"),
        frozenset({"forward", "reply", "important"}),
    ),
}


def all_examples() -> Iterator[Example]:
    for task in sorted(PAPER48):
        yield from load_manual(task)


def example_ids() -> list[str]:
    return sorted(PAPER48)


# ---------------------------------------------------------------- completeness and schema


def test_paper48_groups_match_the_paper() -> None:
    groups = [group_of(task) for task in PAPER48]
    assert len(PAPER48) == 48
    assert {group: groups.count(group) for group in set(groups)} == {"1": 14, "2": 10, "3-6": 10, "variable": 14}


def test_every_paper_task_has_exactly_one_manual_example() -> None:
    files = {path.stem for path in MANUAL_DIR.glob("*.json")}
    assert files == set(PAPER48)
    for task in PAPER48:
        assert len(load_manual(task)) == 1, task


def test_a_task_without_an_example_is_an_error_not_a_zero_shot_run(tmp_path: Path) -> None:
    """Falling back to k=0 quietly would pass k=0 numbers off as k=1 ones."""
    with pytest.raises(ConfigError, match=r"^no hand-written example for click-pie-nodelay: .*paper's 48 tasks"):
        load_manual("click-pie-nodelay")
    with pytest.raises(ConfigError, match=r"^the hand-written examples are missing \("):
        load_manual("click-button", tmp_path / "gone")


@pytest.mark.parametrize("task", example_ids())
def test_example_schema(task: str) -> None:
    (example,) = load_manual(task)
    assert example.task == task and example.source == "manual"
    raw = json.loads((MANUAL_DIR / f"{task}.json").read_text())
    assert set(raw) <= {"task", "instruction", "steps", "note"}
    for step in example.steps:
        refs = [element["ref"] for element in step.observation]
        assert len(refs) == len(set(refs)), "refs repeat within a step"
        assert step.observation, "every step shows a page"
        for element in step.observation:
            assert element["tag"] in MINIWOB_TAGS, element["tag"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{", "not JSON"),
        ("[]", "JSON object"),
        ('{"task": "t", "instruction": "i", "steps": []}', "'steps'"),
        ('{"task": "t", "instruction": "", "steps": [{"observation": [], "program": "x"}]}', "'instruction'"),
        ('{"task": "t", "instruction": "i", "steps": [{"observation": [{"ref": 1}], "program": "x"}]}', "missing"),
        ('{"task": "t", "instruction": "i", "steps": [{"observation": [], "program": ""}]}', "'program'"),
    ],
)
def test_malformed_files_fail_with_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "t.json"
    path.write_text(content)
    with pytest.raises(ConfigError, match=message) as info:
        load_example(path)
    assert "\n" not in str(info.value)


def test_task_name_must_match_file(tmp_path: Path) -> None:
    (tmp_path / "click-test.json").write_text((MANUAL_DIR / "click-button.json").read_text())
    with pytest.raises(ConfigError, match="expected 'click-test'"):
        load_manual("click-test", tmp_path)


# ---------------------------------------------------------------- programs: API v1 and sandbox


def program_steps() -> list[tuple[str, int, str]]:
    return [
        (example.task, number, step.program)
        for example in all_examples()
        for number, step in enumerate(example.steps, 1)
    ]


STEP_IDS = [f"{task}-{number}" for task, number, _ in program_steps()]


@pytest.mark.parametrize(("task", "number", "program"), program_steps(), ids=STEP_IDS)
def test_program_uses_only_api_v1(task: str, number: int, program: str) -> None:
    tree = ast.parse(program)
    imported: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            pytest.fail(f"'from {node.module} import' is not how examples import")
        if isinstance(node, ast.Import):
            for alias in node.names:
                assert alias.name in ALLOWED_MODULES and alias.asname is None, alias.name
                imported.add(alias.name)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
        assert not isinstance(node, (ast.FunctionDef, ast.Lambda, ast.ClassDef, ast.Global)), "keep examples flat"
        if isinstance(node, ast.Attribute):
            assert not node.attr.startswith("_"), node.attr
            if isinstance(node.value, ast.Name) and node.value.id in ALLOWED_MODULES:
                assert hasattr(__import__(node.value.id), node.attr), f"{node.value.id}.{node.attr}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            known = PROGRAM_NAMES | SAFE_BUILTINS | imported | bound
            assert node.id in known, f"{node.id!r} is neither API v1, an allowed builtin nor bound"
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in API_NAMES:
            arity = {"click": 2, "enter_text": 1, "press_key": 1, "scroll": 1}[node.func.id]
            assert len(node.args) == arity and not node.keywords, f"{node.func.id} takes {arity} argument(s)"
    assert any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in API_NAMES
        for node in ast.walk(tree)
    ), "a program that acts on nothing teaches nothing"
    assert len(program.splitlines()) <= 12, "examples stay short"


@pytest.mark.parametrize(("task", "number", "program"), program_steps(), ids=STEP_IDS)
def test_program_passes_sandbox_policy(task: str, number: int, program: str) -> None:
    assert sandbox.check(program) is None


# ---------------------------------------------------------------- programs: consistent with their page


class StandIn:
    """Plain-Python stand-ins for the actions, checking each against one step's page.

    ``click`` must find a target by the real matching rules; ``enter_text`` needs an
    editable element focused by a click (``press_key`` keeps focus, as Tab moves it to
    the next field). The page does not change: examples show the next page as the next step.
    """

    def __init__(self, observation: list[dict[str, Any]]) -> None:
        self.observation = observation
        self.elements = [
            {**element, "deep_text": re.sub(r"\s+", " ", element["text"]).strip(), "parent": None}
            for element in observation
        ]
        self.focused = False
        self.actions: list[str] = []

    def _act(self, what: str) -> list[dict[str, Any]]:
        self.actions.append(what)
        assert len(self.actions) <= MAX_ACTIONS, "too many actions"
        return self.observation

    def click(self, tag: str, text: str) -> list[dict[str, Any]]:
        target = find_target(self.elements, tag, text)
        self.focused = target["tag"] in EDITABLE_TAGS
        return self._act(f"click {target['tag']} {target['deep_text'] or target['id']!r}")

    def enter_text(self, text: str) -> list[dict[str, Any]]:
        assert isinstance(text, str) and text, "enter_text needs text"
        assert self.focused, "typing with nothing editable focused: click the input first"
        return self._act(f"type {text!r}")

    def press_key(self, key: str) -> list[dict[str, Any]]:
        assert all(part in KEYS or len(part) == 1 or part in {"Control", "Shift", "Alt"} for part in key.split("+")), key
        return self._act(f"key {key}")

    def scroll(self, text: str) -> list[dict[str, Any]]:
        assert any(text.lower() in element["deep_text"].lower() for element in self.elements), text
        return self._act(f"scroll {text!r}")


@pytest.mark.parametrize("task", example_ids())
def test_programs_act_on_their_own_page(task: str) -> None:
    (example,) = load_manual(task)
    for number, step in enumerate(example.steps, 1):
        actions = StandIn(step.observation)
        namespace: dict[str, Any] = {
            "__builtins__": builtins,
            "task": example.instruction,
            "observation": step.observation,
            "click": actions.click,
            "enter_text": actions.enter_text,
            "press_key": actions.press_key,
            "scroll": actions.scroll,
        }
        try:
            exec(compile(step.program, f"{task}-step{number}", "exec"), namespace)
        except Exception as exc:  # noqa: BLE001 - report which step, with the program
            pytest.fail(f"step {number}: {type(exc).__name__}: {exc}\n{step.program}")
        assert actions.actions, f"step {number} did nothing"


def test_stand_in_rejects_typing_unfocused() -> None:
    page = [{"ref": 1, "tag": "label", "text": "Name", "id": "", "classes": "", "value": ""},
            {"ref": 2, "tag": "input_text", "text": "", "id": "name", "classes": "", "value": ""}]
    actions = StandIn(page)
    actions.click("label", "Name")
    with pytest.raises(AssertionError, match="nothing editable"):
        actions.enter_text("bob")
    actions.click("input_text", "")
    actions.enter_text("bob")


# ---------------------------------------------------------------- invented, not copied


def _js_strings(source: str) -> list[str]:
    return [a or b for a, b in re.findall(r"'((?:[^'\\\n]|\\.)*)'|\"((?:[^\"\\\n]|\\.)*)\"", source)]


@cache
def _ui_utils_lists() -> dict[str, list[str]]:
    source = (TASK_HTML / "common" / "ui_utils.js").read_text()
    return {
        name: _js_strings(body)
        for name, body in re.findall(r"ui_utils\.(\w+)\s*=\s*\[(.*?)\];", source, re.S)
    }


def _task_source(task: str) -> str:
    return (TASK_HTML / "miniwob" / f"{task}.html").read_text()


def task_words(task: str) -> set[str]:
    """Every word the task can put on its page from a list: its own arrays and ui_utils' lists."""
    source = _task_source(task)
    strings = [s for body in re.findall(r"\[([^\[\]]*)\]", source) for s in _js_strings(body)]
    lists = _ui_utils_lists()
    for name in set(re.findall(r"ui_utils\.(\w+)", source)):
        strings += lists.get(name, [])
    if "generateWords" in source:
        strings += lists["lorem_words"]
    items = [s for s in strings if len(s.split()) <= 3]  # list items, not instruction sentences
    return {word.lower() for s in items for word in re.findall(r"[A-Za-z][A-Za-z'-]+", s)}


def query_templates(task: str) -> list[re.Pattern[str]]:
    """The task's instruction templates as patterns, with its variable parts as wildcards."""
    source = _task_source(task)
    patterns: list[str] = []
    static = re.search(r'<div id="query">(.*?)</div>', source, re.S)
    if static and static.group(1).strip():
        patterns.append(re.escape(re.sub(r"<[^>]+>", "", static.group(1)).strip()))
    for start in re.finditer(r"#query'\)\.(?:html|text)\(", source):
        expression = source[start.end(): source.index(");", start.end())]
        pieces = [re.sub(r"<[^>]+>", "", s) for s in _js_strings(expression)]
        if any(piece.strip() for piece in pieces):
            patterns.append(".*".join(re.escape(piece) for piece in pieces))
    templates = _js_strings(_nl_template_source(source))
    patterns += [re.escape(t).replace("NAME", ".*").replace("DEST", ".*").replace("MSG", ".*") for t in templates]
    return [re.compile(p, re.I | re.S) for p in patterns if p]


def _nl_template_source(source: str) -> str:
    found = re.findall(r"NL_TEMPLATES = \[(.*?)\];", source, re.S)
    if "email-inbox-nl/templates.js" in source:
        found.append((TASK_HTML / "common" / "special" / "email-inbox-nl" / "templates.js").read_text())
    return "\n".join(found)


def test_template_extraction_sees_real_instructions() -> None:
    """The instruction check below is only meaningful if it recognises real instructions."""
    real = {
        "click-button": 'Click on the "ok" button.',
        "simple-arithmetic": "Solve the math problem and type your answer into the textbox. Press submit when done.",
        "email-inbox-forward-nl": "Forward the email from Abby to Ada.",
        "email-inbox-nl-turk": "Delete the email from Abby.",
        "terminal": "Use the terminal below to delete a file ending with the extension .png",
        "click-tab": "Click on Tab #2.",
    }
    for task, instruction in real.items():
        assert any(p.fullmatch(instruction) for p in query_templates(task)), task
    assert "karrie" in task_words("enter-text") and "lorem" in task_words("click-link")


@pytest.mark.parametrize("task", example_ids())
def test_instruction_is_not_the_tasks_template(task: str) -> None:
    (example,) = load_manual(task)
    templates = query_templates(task)
    assert templates, f"no query template found for {task}"
    for pattern in templates:
        assert not pattern.fullmatch(example.instruction), f"instruction copies the template {pattern.pattern!r}"


@pytest.mark.parametrize("task", example_ids())
def test_page_words_are_not_the_tasks_words(task: str) -> None:
    (example,) = load_manual(task)
    real = task_words(task)
    texts = [example.instruction] + [e["text"] for step in example.steps for e in step.observation]
    ours = {w.lower() for text in texts for w in re.findall(r"[A-Za-z][A-Za-z'-]{2,}", text)} - STOPWORDS
    leaked = sorted(ours & real - INTERFACE_WORDS.get(task, frozenset()))
    assert not leaked, f"words from the task's own lists: {leaked}"
