"""DOM read-outs: the tree from ``core.getDOMInfo`` flattened, filtered and rendered.

Two views, both in document order (the paper's summary lost order, which broke
search-engine and text-transform):

* the *filtered summary*: elements whose tag or class is in the paper's useful lists,
  with ``clicked`` / ``modified`` flags;
* the *whole DOM*: every visible element with geometry and colours.

Each view is a list of dicts (what programs see as ``observation``) and renders to
compact text for prompts.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable, Sequence

Element = dict[str, Any]

#: The paper's "useful tags" (Listing 2), lower-cased MiniWoB style.
USEFUL_TAGS = frozenset(
    "button text input_time textarea polygon label input_password rect tt circle span "
    "input_text input_number input_date input_radio tspan input_checkbox t h3 ul a p div "
    "th tr td".split()
)
#: The paper's "useful classes".
USEFUL_CLASSES = frozenset({"folder"})
#: Tags of the fields that take typed text (as getDOMInfo names them).
TYPABLE = frozenset({"textarea"} | {f"input_{kind}" for kind in (
    "text", "password", "email", "number", "search", "tel", "url", "date", "time", "datetime-local", "month", "week")})

_SPACE = re.compile(r"\s+")


def collapse(text: str) -> str:
    """Whitespace-collapsed text, as click matching and summaries compare it."""
    return _SPACE.sub(" ", text).strip()


def _as_str(value: Any) -> str:
    """SVG elements report ``id`` / ``className`` as ``{baseVal, animVal}`` objects."""
    if isinstance(value, dict):
        return str(value.get("baseVal") or "")
    return "" if value is None else str(value)


def flatten(root: Element) -> list[Element]:
    """Flatten a ``getDOMInfo`` tree into document order.

    Each element gets ``parent`` (ref or None), ``depth`` and ``deep_text``: its own text,
    or when it has none, its descendants' text joined (what click matching falls back on).
    The root (``body``) is left out.
    """
    out: list[Element] = []

    def visit(node: Element, parent: int | None, depth: int) -> str:
        element: Element = {
            "ref": int(node["ref"]),
            "tag": str(node.get("tag", "")).lower(),
            "text": collapse(str(node.get("text") or "")),
            "id": _as_str(node.get("id")),
            "classes": collapse(_as_str(node.get("classes"))),
            "value": node.get("value", ""),
            "parent": parent,
            "depth": depth,
            "focused": bool(node.get("focused", False)),
            "left": round(float(node.get("left", 0))),
            "top": round(float(node.get("top", 0))),
            "width": round(float(node.get("width", 0))),
            "height": round(float(node.get("height", 0))),
            "fg": node.get("fgColor", ""),
            "bg": node.get("bgColor", ""),
        }
        if element["value"] is None:
            element["value"] = ""
        if depth >= 0:
            out.append(element)
        start = len(out)
        parts = [visit(child, element["ref"] if depth >= 0 else None, depth + 1) for child in node.get("children", [])]
        element["deep_text"] = element["text"] or collapse(" ".join(p for p in parts if p))
        if depth >= 0 and _only_loose_text(element, out[start:]):
            element["text"] = element["deep_text"]
            out[start:] = [e for e in out[start:] if not (e["tag"] == "t" and e["parent"] == element["ref"])]
        return element["deep_text"]

    visit(root, None, -1)
    return out


def _only_loose_text(element: Element, descendants: list[Element]) -> bool:
    """Whether all of ``element``'s text sits in its own bare text nodes.

    ``getDOMInfo`` gives an element text only when that text is its single child; an
    icon beside it (a jQuery UI accordion header: ``<h3><span icon/>Section #2</h3>``)
    leaves the element textless and the text a loose ``t``, and the 1.5B then named the
    header by its container (``click('div', 'Section #2')``). Such an element takes the
    text. Not when a field is inside: a label keeps its checkbox and the text apart.
    """
    if element["text"] or not element["deep_text"]:
        return False
    children = [e for e in descendants if e["parent"] == element["ref"]]
    return any(e["tag"] == "t" for e in children) and all(
        e["tag"] == "t" or not (e["deep_text"] or e["tag"].startswith("input") or e["tag"] in {"textarea", "select"})
        for e in descendants)


_SUMMARY_KEYS = ("ref", "tag", "text", "id", "classes", "value")


def filtered_summary(elements: Iterable[Element], clicked: set[int], modified: set[int]) -> list[Element]:
    """The paper's getSummary: useful tags or classes, with clicked/modified flags."""
    summary = []
    for element in elements:
        classes = set(element["classes"].split())
        if element["tag"] not in USEFUL_TAGS and not classes & USEFUL_CLASSES:
            continue
        bare = not element["text"] and not element["id"] and not classes & USEFUL_CLASSES
        if element["tag"] in {"div", "ul", "tr", "p"} and bare:
            continue  # bare layout containers: their children carry the content
        item = {key: element[key] for key in _SUMMARY_KEYS}
        item["clicked"] = element["ref"] in clicked
        item["modified"] = element["ref"] in modified
        if element["focused"]:
            item["focused"] = True
        summary.append(item)
    return summary


_WHOLE_KEYS = _SUMMARY_KEYS + ("parent", "left", "top", "width", "height", "fg", "bg", "focused")


def whole_dom(elements: Iterable[Element]) -> list[Element]:
    """Every visible element with every field the page reports (the paper's full read-out)."""
    return [{key: element[key] for key in _WHOLE_KEYS} for element in elements]


#: Class names that only say where the focus or the pointer is (jQuery UI's ``ui-state-focus``,
#: ``ui-datepicker-next-hover``, a page's own ``is-focused``): state, not content.
_POINTER_CLASS = re.compile(r"(?:^|[-_])(?:focus|focused|hover|hovered)$")


#: A letter or a digit: text without one (a caret ``█``, a ``+``, a ``▾``) is a mark, not content.
_WORDLIKE = re.compile(r"[^\W_]")


def _is_mark(text: str) -> bool:
    """A text that is only a mark, which a page may show and hide on its own.

    The terminal's caret blinks by appearing and disappearing every 800 ms: counted as
    content, it made a program that did nothing a change, and the same page two pages.
    """
    return bool(text) and not _WORDLIKE.search(text)


def page_key(elements: Iterable[Element]) -> str:
    """What the page shows, focus, flags and marks aside: equal keys mean the page did not change.

    Classes count as a set, without the ones that follow focus or pointer: an accordion
    section opened and closed again comes back as ``... ui-state-focus
    ui-accordion-header-collapsed`` in another order, and it is the page it was.
    """
    return "\n".join(f"{e['tag']}|{e['text']}|{e['value']}|{_content_classes(e['classes'])}"
                     for e in elements if not _is_mark(e['text']))


def _content_classes(classes: str) -> str:
    return " ".join(sorted(c for c in classes.split() if not _POINTER_CLASS.search(c)))


def new_texts(before: Iterable[Element], after: Iterable[Element]) -> list[str]:
    """The texts ``after`` shows that ``before`` did not, as phrases in document order.

    Texts are matched as a multiset (a second ``user$`` prompt in a terminal is new);
    consecutive new texts join into one phrase, so a message the page splits over several
    nodes (``The number is lower than`` ``5`` ``.``) reads as one. Elements without text
    neither join nor split phrases. A phrase of marks alone (a blinking caret) is no news;
    a mark beside words (the ``.`` after them) is part of their phrase.
    """
    kept = Counter(e["text"] for e in before if e.get("text"))
    phrases: list[str] = []
    run: list[str] = []
    for element in after:
        text = element.get("text")
        if not text:
            continue
        if kept[text] > 0:
            kept[text] -= 1
            if run:
                phrases.append(" ".join(run))
            run = []
        else:
            run.append(text)
    if run:
        phrases.append(" ".join(run))
    return [phrase for phrase in phrases if not _is_mark(phrase)]


def describe_change(before: Sequence[Element], after: Sequence[Element]) -> str:
    """What a program changed on the page, in words: texts that appeared and disappeared.

    The page after a step is in the next prompt, but a small model reads it as a new page
    and does not notice what its program caused (the reply of a guessing game, a terminal's
    error, the results a search brought up); the review between trials never saw the page
    after the last step at all. Empty when no text changed (a typed value, a moved focus).
    """
    parts = []
    for label, phrases, limit in (("new text", new_texts(before, after), 3),
                                  ("gone", new_texts(after, before), 2)):
        if phrases:
            more = f" and {len(phrases) - limit} more" if len(phrases) > limit else ""
            parts.append(f"{label}: " + ", ".join(_quote(p, 80) for p in phrases[:limit]) + more)
    return "; ".join(parts)


def render(observation: Iterable[Element]) -> str:
    """Compact text, one element per line, e.g. ``[3] button "Submit" #subbtn .primary``.

    Flags show as words (``clicked``, ``modified``, ``focused``, ``checked``, ``unchecked``,
    ``failed_before``); geometry, when present, as ``@left,top wxh``.
    """
    lines = []
    for element in observation:
        parts = [f"[{element['ref']}] {element['tag']}"]
        if element.get("text"):
            parts.append(_quote(element["text"]))
        if element.get("id"):
            parts.append("#" + element["id"])
        if element.get("classes"):
            parts.append("." + ".".join(element["classes"].split()))
        value = element.get("value")
        if isinstance(value, bool):
            parts.append("checked" if value else "unchecked")
        elif value not in ("", None):
            parts.append("value=" + _quote(str(value)))
        for flag in ("clicked", "modified", "focused", "failed_before"):
            if element.get(flag):
                parts.append(flag)
        if "left" in element:
            parts.append(f"@{element['left']},{element['top']} {element['width']}x{element['height']}")
            if element.get("parent") is not None:
                parts.append(f"in [{element['parent']}]")
        lines.append(" ".join(parts))
    return "\n".join(lines)


def _quote(text: str, limit: int = 120) -> str:
    if len(text) > limit:
        text = text[: limit - 3] + "..."
    return '"' + text.replace('"', "'") + '"'
