"""Which element ``click(tag, text)`` means: the five rules of program API v1.

Pure functions over flattened elements (see :func:`webwise.dom.flatten`), so the rules
are testable without a browser. The first rule that matches wins; within a rule, the
first element in document order.
"""

from __future__ import annotations

import difflib
from typing import Callable, Sequence

from webwise.dom import Element, collapse


class NoMatch(LookupError):
    """No element matches; the message names the closest candidates."""


def tag_matches(element: Element, tag: str) -> bool:
    """Tag equals, ``input`` covers every ``input_*``, or ``tag`` is one of the classes."""
    tag = tag.strip().lower()
    if element["tag"] == tag:
        return True
    if tag == "input" and element["tag"].startswith("input_"):
        return True
    return tag in element["classes"].lower().split()


def _rules(tag: str, text: str) -> list[Callable[[Element], bool]]:
    lowered = text.lower()
    return [
        lambda e: tag_matches(e, tag) and e["deep_text"] == text,
        lambda e: tag_matches(e, tag) and e["deep_text"].lower() == lowered,
        lambda e: tag_matches(e, tag) and e["id"] == text,
        lambda e: tag_matches(e, tag) and lowered in e["deep_text"].lower(),
        lambda e: e["deep_text"] == text,
    ]


def find_target(elements: Sequence[Element], tag: str, text: str) -> Element:
    """The element ``click(tag, text)`` acts on, or :class:`NoMatch`."""
    text = collapse(str(text))
    if not text:
        for element in elements:
            if tag_matches(element, tag):
                return element
    else:
        for rule in _rules(str(tag), text):
            matches = [element for element in elements if rule(element)]
            if matches:
                return _innermost(matches, elements)
    raise NoMatch(f"no {tag!r} element with text {text!r}; closest: {closest(elements, tag, text)}")


def _innermost(matches: list[Element], elements: Sequence[Element]) -> Element:
    """The first match, or a matching descendant of it when it only borrowed its text.

    ``<div><button>OK</button></div>``: the div's text is its child's, so a rule that
    matches both means the button, not the wrapper.
    """
    parents = {e["ref"]: e["parent"] for e in elements}
    first = matches[0]
    for candidate in matches[1:]:
        if not first["text"] and _is_descendant(candidate, first, parents):
            first = candidate
    return first


def _is_descendant(element: Element, ancestor: Element, parents: dict[int, int | None]) -> bool:
    parent = element["parent"]
    while parent is not None:
        if parent == ancestor["ref"]:
            return True
        parent = parents.get(parent)
    return False


def closest(elements: Sequence[Element], tag: str, text: str, limit: int = 3) -> str:
    """The few elements most like ``(tag, text)``, rendered as ``tag 'text'``."""
    def score(element: Element) -> float:
        ratio = difflib.SequenceMatcher(None, text.lower(), element["deep_text"].lower()[:80]).ratio()
        return ratio + (0.5 if tag_matches(element, tag) else 0.0)

    labelled = [e for e in elements if e["deep_text"] or e["id"]]
    best = sorted(labelled, key=score, reverse=True)[:limit]
    if not best:
        return "(the page has no labelled elements)"
    return ", ".join(f"{e['tag']} {(e['deep_text'][:40] or '#' + e['id'])!r}" for e in best)
