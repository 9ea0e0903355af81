"""Learning across tasks: the stored example nearest to a task that has none of its own.

``--examples auto-near`` shows a task its own harvested examples when the store has them,
and otherwise the one stored example, of another task, that looks most like it. Likeness
must be cheap and the same on every run, so it is counted, not learned: the words of the
two instructions, with quoted literals and numbers masked (they are one seed's values, not
what kind of task it is), and the kinds of elements (tags) on the two first pages, each
compared as sets (Jaccard) and added with equal weight. Function words, a plural's ``s``,
and the layout tags every page has (``div``, ``span``, ``p``, loose text) would make every
pair look alike, so they are left out.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from webwise.dom import Element
from webwise.examples import Example

_QUOTED = re.compile(r"\"[^\"]*\"|“[^”]*”")
#: MiniWoB++'s longest instructions are a few hundred characters.
_READ = 2000
_NUMBER = re.compile(r"\d+(?:[.,:/]\d+)*")
_WORD = re.compile(r"<\w+>|[a-z]+")
_FUNCTION_WORDS = frozenset("a an and as at by for from in into of on or the then to with".split())
_LAYOUT_TAGS = frozenset({"div", "span", "p", "t"})


def words(instruction: str) -> frozenset[str]:
    """The instruction's words, lower-cased and singular, each quoted literal one ``<quoted>`` and
    each number one ``<number>``, function words left out. Only the first :data:`_READ`
    characters count: a store's instructions come from files, and unclosed quotes take the
    quote pattern quadratic time in the length."""
    masked = _NUMBER.sub(" <number> ", _QUOTED.sub(" <quoted> ", instruction[:_READ]))
    return frozenset(_singular(word) for word in _WORD.findall(masked.lower()) if word not in _FUNCTION_WORDS)


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def kinds(page: Iterable[Element]) -> frozenset[str]:
    """The kinds of elements on a page: their tags (``button``, ``input_text``, ``a``), layout aside."""
    return frozenset(str(element["tag"]) for element in page) - _LAYOUT_TAGS


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def similarity(instruction: str, page: Sequence[Element], example: Example) -> float:
    """How much ``example`` looks like the task at hand, from 0 to 2: instruction words plus page kinds."""
    return (_jaccard(words(instruction), words(example.instruction))
            + _jaccard(kinds(page), kinds(example.steps[0].observation)))


def nearest(candidates: Sequence[Example], instruction: str, page: Sequence[Element]) -> Example:
    """The candidate most like the task at hand; on a tie, the first in ``candidates``' order."""
    return max(candidates, key=lambda example: similarity(instruction, page, example))
