"""Extraction of programs from realistic, messy model replies."""

from __future__ import annotations

import re

import pytest

from webwise.extraction import ExtractionError, chars_past_block, extract_program, rewrite_clicks

FENCED_WITH_PROSE = """Sure! To complete the task I will click the button.

```python
click('button', 'Submit')
```

This clicks the Submit button, which completes the task."""

PY_FENCE = """```py
for element in observation:
    if element['tag'] == 'input_checkbox':
        click('input_checkbox', element['id'])
```"""

BARE_FENCE = """```
click('a', 'More')
```"""

SEVERAL_FENCES = """The API is used like this:
```python
x = 1
```
Solution:
```python
import re
name = re.search(r'"(.*)"', task).group(1)
click('button', name)
```
Also you could:
```python
click('button', 'Cancel')
```"""

CUT_OFF = """```python
click('input_text', '')
enter_text('hello')
click('button', 'Sub"""

NO_FENCE = """Solution:
action = click_action1('button', 'ONE', observation)
observation, reward, terminated, truncated, info = env.step(action)
The program above clicks ONE."""

REDEFINES_API = """```python
def click(tag, text):
    pass

def enter_text(text):
    pass

click('input_text', 'name')
enter_text('Bob')
```"""

PROSE_INSIDE_FENCE = """```python
Here is the program:
click('span', 'Okay')
```"""

INDENTED = """Answer:
```python
    click('button', 'OK')
    click('button', 'Next')
```"""

THINK_FIRST = """<think>
Maybe the cancel button?
```python
click('button', 'Cancel')
```
No: the task says OK.
</think>
```python
click('button', 'OK')
```"""

CUT_OFF_WHILE_THINKING = """<think>
The field first:
```python
click('input_text', 'name')
"""

PROSE_BETWEEN_CALLS = """```python
click('input_text', 'name')
Then type the name:
enter_text('Bob')
[7] button "Submit"
click('button', 'Submit')
```"""

MAIN_GUARD = """```python
def main():
    click('button', 'OK')

if __name__ == "__main__":
    main()
```"""


@pytest.mark.parametrize(
    ("reply", "program"),
    [
        (FENCED_WITH_PROSE, "click('button', 'Submit')"),
        (PY_FENCE, PY_FENCE.split("\n", 1)[1].rsplit("\n```", 1)[0]),
        (BARE_FENCE, "click('a', 'More')"),
        (SEVERAL_FENCES, "import re\nname = re.search(r'\"(.*)\"', task).group(1)\nclick('button', name)"),
        (CUT_OFF, "click('input_text', '')\nenter_text('hello')"),
        (NO_FENCE, "action = click_action1('button', 'ONE', observation)\n"
                   "observation, reward, terminated, truncated, info = env.step(action)"),
        (REDEFINES_API, "click('input_text', 'name')\nenter_text('Bob')"),
        (PROSE_INSIDE_FENCE, "click('span', 'Okay')"),
        (INDENTED, "click('button', 'OK')\nclick('button', 'Next')"),
        (THINK_FIRST, "click('button', 'OK')"),
        (CUT_OFF_WHILE_THINKING, "click('input_text', 'name')"),
        (PROSE_BETWEEN_CALLS, "click('input_text', 'name')\nenter_text('Bob')\nclick('button', 'Submit')"),
        ("```python\r\n    click('button', 'OK')\r\n    click('button', 'Next')\r\n```\r\n",
         "click('button', 'OK')\nclick('button', 'Next')"),
        ("```\npython\nclick('button', 'OK')\n```", "click('button', 'OK')"),
        ("Click it:\n`click('button', 'OK')`", "click('button', 'OK')"),
        (MAIN_GUARD, "def main():\n    click('button', 'OK')\nmain()"),
        ("```python\nclass Steps:\n    def run(self):\n        click('a', 'Next')\nSteps().run()\n```",
         "class Steps:\n    def run(self):\n        click('a', 'Next')\nSteps().run()"),
        ("```python\nplan = [(click, ('input_text', 'tt')), (enter_text, ('Bob',))]\nfor act, args in plan:\n"
         "    act(*args)\n```",
         "plan = [(click, ('input_text', 'tt')), (enter_text, ('Bob',))]\nfor act, args in plan:\n    act(*args)"),
        ("```python\ndo = click\ndo('button', 'OK')\n```", "do = click\ndo('button', 'OK')"),
    ],
    ids=["prose", "py-fence", "bare-fence", "several-fences", "cut-off", "paper-env-step", "redefines-api",
         "prose-in-fence", "indented", "think-then-answer", "cut-off-while-thinking", "prose-between-calls",
         "crlf", "language-line", "inline-code", "main-guard", "method-called", "actions-in-a-table", "alias"],
)
def test_extracts_the_program(reply: str, program: str) -> None:
    assert extract_program(reply) == program


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("I am sorry, I cannot browse the web.", "no Python code found"),
        ("```python\nclick('a', 'Next'); click('a', 'Search' text\n```",
         "no Python code found in the reply: its code block does not parse ("),
        ("```python\nclick('button', 'a\udfff')\n```", "its code block holds a lone surrogate (U+D800-U+DFFF)"),
        ("```python\nclick('button', 'a\x00')\n```", "does not parse (source code string cannot contain null bytes);"),
        ("```python\nfrom selenium import webdriver\ndriver = webdriver.Chrome()\n```", "uses Selenium"),
        ("```python\ndriver.find_element(By.ID, 'subbtn').click()\n```", "uses Selenium"),
        ("```python\nclick_button('OK')\n```", "click_button() is not defined"),
        ("```python\nclick('OK')\n```", "click() takes 2 argument(s) (tag, text), got 1"),
        ("```python\nclick('div#wrap')\n```",
         "click() takes 2 argument(s) (tag, text), got 1: for that element write click('div', 'wrap')"),
        ("```python\nclick('h3 \"Section #1\" #ui-id-1 .ui-accordion-header.ui-corner-top')\n```",
         "got 1: for that element write click('h3', 'Section #1')"),
        ("```python\nhover('div \"Evy\" #ui-id-4 .ui-menu-item-wrapper')\n```",
         "hover() takes 2 argument(s) (tag, text), got 1: for that element write hover('div', 'Evy')"),
        ("```python\nenter_text('a', 'b', 'c')\n```", "enter_text() takes 1 argument(s)"),
        ("```python\ndef click(tag, text):\n    pass\n```", "only redefines the API"),
        ("```python\nprint('done')\n```", "the program calls no action"),
        ("```python\n# click OK\n```", "the program calls no action"),
        ("```python\nclick('input_text', 'tt')\ntype('Bob')\n```",
         "type() is a Python built-in that programs cannot use here"),
        ("```python\nclick('button', 'OK')\nexit()\n```", "exit() is a Python built-in that programs cannot use"),
        ("```python\n```\nI cannot see the page.", "no Python code found in the reply; answer"),
        ("```python\ndef main():\n    click('button', 'OK')\n```",
         "main() holds the actions but nothing calls it; call main() at the end"),
        ("```python\nobservation = [{'ref': 1, 'tag': 'button'}]\n```", "copies the page"),
    ],
)
def test_refuses_with_one_line(reply: str, message: str) -> None:
    with pytest.raises(ExtractionError, match=re.escape(message)) as info:
        extract_program(reply)
    assert "\n" not in str(info.value)


SUBMIT_BOB = "click('input_text', 'name')\nenter_text('Bob')\nclick('button', 'Submit')"
COMMENTED = "click('input_text', 'name')  # no </think> needed\nenter_text('Bob')\nclick('button', 'Submit')"


@pytest.mark.parametrize(
    ("reply", "program"),
    [
        (f"```python\n{COMMENTED}\n```", COMMENTED),
        ("```python\nenter_text('</think>')\nclick('button', 'Submit')\n```",
         "enter_text('</think>')\nclick('button', 'Submit')"),
        (f"```python\n{SUBMIT_BOB}\n```\nNote: ignore </think> above ```python\nprint(1)\n```", SUBMIT_BOB),
        (f" \n<think>\nThe name first.\n```python\nclick('button', 'Submit')\n```\n</think>\n```python\n"
         f"{SUBMIT_BOB}  # </think>\n```",
         f"{SUBMIT_BOB}  # </think>"),
        (f"The form has a name field.\n```python\nclick('button', 'Submit')\n```\nNo, the name first.\n</think>\n\n"
         f"```python\n{SUBMIT_BOB}\n```", SUBMIT_BOB),
    ],
    ids=["in-a-comment", "in-a-string", "in-prose-after", "after-the-opening-block", "opened-by-the-template"],
)
def test_only_the_think_block_a_reply_opens_with_is_skipped(reply: str, program: str) -> None:
    """A ``</think>`` elsewhere is text: taken for the block's end, it cut the program at a
    comment or string, or skipped the answer for a later block that calls no action."""
    assert extract_program(reply) == program


@pytest.mark.parametrize("reply", [
    "```python\n# </think>\nclick('a', 'b')\n```\nextra",
    "<think>\n```python\nx = 1\n```\n</think>\n```python\nclick('a', 'b')  # </think>\n```\nextra",
], ids=["in-the-code", "after-the-opening-block"])
def test_chars_past_block_skips_only_the_opening_think_block(reply: str) -> None:
    assert chars_past_block(reply) == len("\nextra")


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("```python\nclick('input_text', 'name')\nenter_text('Jos\udce9')\nclick('button', 'Submit')\n```",
         "its code block holds a lone surrogate (U+D800-U+DFFF)"),
        ("```python\nprint('\ud800')\nclick('input_text', 'name')\nenter_text('Bob')\n```",
         "its code block holds a lone surrogate (U+D800-U+DFFF)"),
        ("```python\nclick('input_text', 'name')\nenter_text('Jos\udce9')\nclick('button', 'Sub",
         "its code block holds a lone surrogate (U+D800-U+DFFF)"),
        ("```python\nclick('input_text', 'name')\nenter_text('Bob\x00')\nclick('button', 'Submit')\n```",
         "its code block does not parse (source code string cannot contain null bytes);"),
    ],
    ids=["surrogate-mid-block", "surrogate-first-line", "surrogate-cut-off-block", "nul-mid-block"],
)
def test_a_character_python_refuses_leaves_no_program(reply: str, message: str) -> None:
    """No cut mends a NUL or a lone surrogate: the lines around it once ran as the program."""
    with pytest.raises(ExtractionError, match=re.escape(f"no Python code found in the reply: {message}")):
        extract_program(reply)


@pytest.mark.parametrize(
    ("reply", "program"),
    [
        ("```python\nclick('input_text', 'name')\nenter_text('Bob'\nclick('button', 'Sub", "click('input_text', 'name')"),
        ("```python\nclick('input_text', 'name')\nenter_text('Bob')\nclick('div #wrap') and its text\n```",
         "click('input_text', 'name')\nenter_text('Bob')"),  # the 1.5B's junk last line, after calls that solve
    ],
    ids=["cut-off", "junk-last-line"],
)
def test_a_block_is_cut_before_its_broken_line(reply: str, program: str) -> None:
    """Closed or not: the stop sequence takes a block's closing fence off, so it says little."""
    assert extract_program(reply) == program


def test_unfenced_code_keeps_the_backticks_inside_its_lines() -> None:
    """Only fences are dropped: the backticks of a string once went with them."""
    assert extract_program("Type the fence:\nenter_text('```')\nclick('button', 'Submit')") == \
        "enter_text('```')\nclick('button', 'Submit')"
    assert extract_program("```python\nclick('a', 'b')```\nThat clicks b.") == "click('a', 'b')"
    assert extract_program("```click('a', 'b')```") == "click('a', 'b')"


@pytest.mark.parametrize("separator", ["\u2028", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"],
                         ids=["u2028", "nel", "vt", "ff", "fs", "gs", "rs"])
def test_only_a_newline_ends_a_line(separator: str) -> None:
    """``splitlines`` also splits on these, inside a string too, and the statement was lost."""
    program = f"enter_text('a{separator}b')\nclick('button', 'OK')"
    assert extract_program(f"```python\nHere is the code\n{program}\n```") == program  # prose dropped
    assert extract_program(f"Do this:\n{program}") == program  # unfenced


def test_pasted_copies_of_the_page_are_dropped() -> None:
    reply = "```python\nobservation = [{'ref': 5, 'tag': 'button', 'text': 'OK'}]\ntask = 'x'\nclick('button', 'OK')\n```"
    assert extract_program(reply) == "click('button', 'OK')"


def test_helpers_the_program_defines_are_allowed() -> None:
    reply = "```python\ndef pick(word):\n    click('span', word)\n\npick('Okay')\n```"
    assert "pick('Okay')" in extract_program(reply)


def test_rewrite_clicks_replaces_only_the_named_literal_clicks() -> None:
    program = ("# the caption first\nclick('label', 'Prénom')  # é before it\nenter_text('Zoé'); "
               "click(\"label\", 'Prénom')\nclick('label', 'Nom')\nclick('label', name)\n")
    fixes = {("label", "Prénom"): "click('input_text', 'first')", ("span", "unused"): "click('input_text', 'x')"}
    asked: list[tuple[str, str]] = []

    def fix(tag: str, text: str) -> str | None:
        asked.append((tag, text))
        return fixes.get((tag, text))

    rewritten, used = rewrite_clicks(program, fix)
    assert rewritten == ("# the caption first\nclick('input_text', 'first')  # é before it\nenter_text('Zoé'); "
                         "click('input_text', 'first')\nclick('label', 'Nom')\nclick('label', name)\n")
    assert used == {("label", "Prénom"): "click('input_text', 'first')"}
    assert sorted(asked) == [("label", "Nom"), ("label", "Prénom")]  # once per click, the repeat remembered
    assert rewrite_clicks("click('label', 'Prénom'", fix) == ("click('label', 'Prénom'", {})
