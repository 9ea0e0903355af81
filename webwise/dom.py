"""DOM read-outs: the tree from ``core.getDOMInfo`` flattened, filtered and rendered.

Two views, both in document order (the paper's summary lost order, which broke
search-engine and text-transform):

* the *filtered summary*: elements whose tag or class is in the paper's useful lists,
  with ``clicked`` / ``modified`` flags;
* the *whole DOM*: every visible element with geometry and colours.

Each view is a list of dicts (what programs see as ``observation``) and renders to
compact text for prompts. Every element carries its box (``left``, ``top``, ``width``,
``height``, viewport CSS pixels) and what ``getDOMInfo`` leaves out of what the page
shows: ``color`` (an SVG shape's paint, a textless swatch's background), ``points``
(an SVG line's or polygon's corners, the corners of what a canvas has drawn), and as an
image's ``text`` its alt text or title. The
summary's text shows box, colour and points only for the elements that show something
by them (:func:`is_visual`), so a form's prompt is what it was.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import AbstractSet, Any, Iterable, Sequence

Element = dict[str, Any]

#: The paper's "useful tags" (Listing 2), lower-cased MiniWoB style.
USEFUL_TAGS = frozenset(
    "button text input_time textarea polygon label input_password rect tt circle span "
    "input_text input_number input_date input_radio tspan input_checkbox t h3 ul a p div "
    "th tr td".split()
)
#: Tags the summary keeps beyond the paper's list: a drop-down or scrolled list and its
#: options, which none of the paper's 48 tasks has (choose-list, click-scroll-list).
LIST_TAGS = frozenset({"select", "option"})
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


def flatten(root: Element, visuals: dict[str, Any] | None = None) -> list[Element]:
    """Flatten a ``getDOMInfo`` tree into document order.

    Each element gets ``parent`` (ref or None), ``depth`` and ``deep_text``: its own text,
    or when it has none, its descendants' text joined (what click matching falls back on).
    ``visuals`` (by ref, as the page read-out gives them) add ``color`` and ``points``
    (see :func:`visual`), ``selected``, ``clickable`` (the element sets the pointer
    cursor) and ``disabled`` (a control the page turned off, which no click or typing
    reaches until it turns it on), and give an image its alt text as its text. The root (``body``) is left out.
    """
    out: list[Element] = []
    visuals = visuals or {}

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
        read = visuals.get(str(element["ref"])) or {}
        element.update(visual(element["tag"], read))
        element["text"] = element["text"] or collapse(str(read.get("text") or ""))
        element["selected"] = bool(read.get("selected"))
        element["clickable"] = bool(read.get("clickable"))
        element["disabled"] = bool(read.get("disabled"))
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


#: Elements whose background is chrome, not content, when they have no text.
_CONTROLS = frozenset({"button", "select", "textarea", "img", "iframe", "video", "hr"})
_RGB = re.compile(r"rgba?\(\s*([\d.]+)[\s,]+([\d.]+)[\s,]+([\d.]+)(?:\s*[,/]\s*([\d.]+)(%?))?\s*\)")
_SHORT_HEX = re.compile(r"#([0-9a-f])([0-9a-f])([0-9a-f])")


def colour(value: str) -> str:
    """A CSS colour as a program can compare it: a name as the page wrote it (``red``),
    else ``#rrggbb``; empty for none or fully transparent.

    Tasks name colours the way their page wrote them (click-color's ``cyan``, the shape
    grids' ``aqua``: the same ``rgb(0, 255, 255)`` once computed), so a written name is kept.
    """
    value = value.strip().lower()
    match = _RGB.fullmatch(value)
    if match:
        red, green, blue, alpha, percent = match.groups()
        if alpha is not None and float(alpha) == 0:
            return ""
        return "#" + "".join(f"{min(255, round(float(part))):02x}" for part in (red, green, blue))
    short = _SHORT_HEX.fullmatch(value)
    if short:
        return "#" + "".join(part * 2 for part in short.groups())
    return "" if value in ("", "none", "transparent") else value


def visual(tag: str, read: dict[str, Any] | None) -> Element:
    """``color`` and ``points`` of an element from the page's visuals read-out.

    SVG shapes and texts keep their paint and corners; a canvas keeps the corners of the
    convex outline of what it has drawn (:func:`corners`); any other element read as a
    textless swatch keeps its background unless it is a control, whose background is
    the browser's, not content.
    """
    read = read or {}
    points = [(float(x), float(y)) for x, y in read.get("points") or []]
    if tag == "canvas":
        points = corners(points)
    paint = colour(str(read.get("color") or ""))
    if tag in _CONTROLS or tag.startswith("input_"):
        paint = ""
    return {"color": paint, "points": [[round(x), round(y)] for x, y in points]}


def corners(outline: Sequence[tuple[float, float]], tolerance: float = 4.5,
            blunt: float = 10.0) -> list[tuple[float, float]]:
    """The corners of a closed convex outline traced in pixels.

    A drawn polygon's outline, read pixel by pixel, has many points along each side: a
    point closer than ``tolerance`` pixels to the line through its two neighbours is on
    a side, not a corner, and goes, until every point left turns the outline. A corner
    the drawing left blunt (anti-aliasing, or a path that is not closed: count-sides
    strokes its polygon open, and that corner ends in two butt caps) leaves two points
    closer than ``blunt`` pixels, which make one corner between them.
    """
    points = list(outline)
    changed = True
    while changed and len(points) > 3:
        changed = False
        for index, point in enumerate(points):
            before, after = points[index - 1], points[(index + 1) % len(points)]
            if _distance_to_line(point, before, after) < tolerance:
                del points[index]
                changed = True
                break
    index = 0
    while len(points) > 3 and index < len(points):
        (ax, ay), (bx, by) = points[index], points[(index + 1) % len(points)]
        if ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5 < blunt:
            points[index] = ((ax + bx) / 2, (ay + by) / 2)
            del points[(index + 1) % len(points)]
        else:
            index += 1
    return points


def _distance_to_line(point: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    (px, py), (ax, ay), (bx, by) = point, a, b
    length = ((bx - ax) ** 2 + (by - ay) ** 2) ** 0.5
    if length == 0:
        return ((px - ax) ** 2 + (py - ay) ** 2) ** 0.5
    return abs((bx - ax) * (ay - py) - (ax - px) * (by - ay)) / length


def spoken(pieces: Sequence[str | list[str]]) -> str:
    """The instruction from its texts and pictures in order, each swatch as its colour
    (a one-item list), each image or icon as what the page names it by (a string).

    The page's utterance is the query's text, which drops a coloured box standing for the
    colour asked for, or an icon standing for a menu item; the query lies outside the
    observation, so what they stand for must be said.
    """
    return collapse(" ".join(piece if isinstance(piece, str) else colour(piece[0]) for piece in pieces))


def centre(element: Element) -> tuple[float, float]:
    """The middle of the element's box in page pixels: where the pointer actions aim at it,
    and the point the page text prints, since small models copy that point into
    ``click_at`` (a box's top-left corner, which they copied before, lies on its edge)."""
    return element["left"] + element["width"] / 2, element["top"] + element["height"] / 2


def is_visual(element: Element) -> bool:
    """Whether the element shows content by colour or shape rather than by text: an SVG
    shape, a canvas that has drawn something, a coloured swatch."""
    return bool(element.get("color") or element.get("points"))


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
#: What every element of every view carries besides its own keys: its box and its visuals.
_SEEN_KEYS = ("left", "top", "width", "height", "color", "points")


def filtered_summary(elements: Iterable[Element], clicked: set[int], modified: set[int]) -> list[Element]:
    """The paper's getSummary: useful tags or classes, with clicked/modified flags.

    Elements that show content by colour or shape (:func:`is_visual`) are kept whatever
    their tag: a textless coloured box is click-color's answer. So is an image that says
    what it shows (its alt text or title as its text: order-food's food types are icons),
    and an element the page marks as one to click when nothing in it is kept
    (find-greatest's face-down cards; an email's thread is named by its sender inside it).
    """
    elements = list(elements)
    kept = [element for element in elements if _useful(element)]
    named = _with_ancestors(kept, {e["ref"]: e["parent"] for e in elements})
    kept_refs = {e["ref"] for e in kept}
    summary = []
    for element in elements:
        if element["ref"] not in kept_refs and not (element.get("clickable") and element["ref"] not in named):
            continue
        item = {key: element[key] for key in _SUMMARY_KEYS + _SEEN_KEYS}
        item["clicked"] = element["ref"] in clicked
        item["modified"] = element["ref"] in modified
        for flag in ("focused", "selected", "disabled"):
            if element.get(flag):
                item[flag] = True
        summary.append(item)
    return summary


def _useful(element: Element) -> bool:
    """Whether the paper's rule (or ours beyond it: lists, pictures) keeps the element."""
    if is_visual(element) or (element["tag"] == "img" and element["text"]):
        return True
    classes = set(element["classes"].split())
    if element["tag"] not in USEFUL_TAGS | LIST_TAGS and not classes & USEFUL_CLASSES:
        return False
    bare = not element["text"] and not element["id"] and not classes & USEFUL_CLASSES
    return not (element["tag"] in {"div", "ul", "tr", "p"} and bare)  # layout: its children carry the content


def _with_ancestors(elements: Iterable[Element], parents: dict[int, int | None]) -> set[int]:
    """The refs of ``elements`` and of every element that holds one of them."""
    refs: set[int] = set()
    for element in elements:
        ref: int | None = element["ref"]
        while ref is not None and ref not in refs:
            refs.add(ref)
            ref = parents.get(ref)
    return refs


_WHOLE_KEYS = _SUMMARY_KEYS + _SEEN_KEYS + ("parent", "fg", "bg", "focused", "selected", "disabled")


def whole_dom(elements: Iterable[Element], clicked: AbstractSet[int] = frozenset(),
              modified: AbstractSet[int] = frozenset()) -> list[Element]:
    """Every visible element with every field the page reports (the paper's full read-out),
    and the clicked/modified flags every method's prompt says elements have, so a program
    that reads them works in this view too."""
    return [{**{key: element[key] for key in _WHOLE_KEYS}, "clicked": element["ref"] in clicked,
             "modified": element["ref"] in modified} for element in elements]


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
    after the last step at all. A list's option chosen anew is said too, since choosing one
    changes no text. Empty when nothing of that changed (a typed value, a moved focus).
    """
    chosen_before = {e.get("ref") for e in before if e.get("selected")}
    chosen = [e["text"] for e in after if e.get("selected") and e.get("ref") not in chosen_before and e.get("text")]
    parts = []
    for label, phrases, limit in (("new text", new_texts(before, after), 3),
                                  ("gone", new_texts(after, before), 2), ("chosen", chosen, 3)):
        if phrases:
            more = f" and {len(phrases) - limit} more" if len(phrases) > limit else ""
            parts.append(f"{label}: " + ", ".join(_quote(p, 80) for p in phrases[:limit]) + more)
    return "; ".join(parts)


#: The state words a page line shows after an element's name, each for a true flag of that
#: name (a checkbox's value shows as ``checked`` or ``unchecked`` before them).
FLAGS = ("clicked", "modified", "focused", "selected", "disabled", "failed_before")


#: The longest run of alike elements a page shows line by line. Past it the run shows as its
#: first element and one line for the rest: stock-market's chart draws up to 2,220 dots, each an
#: SVG circle with nothing of its own to tell it apart, which pushed its page past the model's
#: 16,384-token context. No other page of the recorded runs has a run of more than 29.
RUN_LIMIT = 40


def render(observation: Iterable[Element]) -> str:
    """Compact text, one element per line, e.g. ``[3] button "Submit" #subbtn .primary``.

    Flags show as words (``clicked``, ``modified``, ``focused``, ``selected``, ``disabled``,
    ``checked``, ``unchecked``, ``failed_before``). The box shows as ``@x,y wxh`` (its :func:`centre` and
    size), then ``color=`` and ``points=x,y x,y ...``: on every element of the whole DOM (its
    elements name their ``parent``), and in the summary only on the elements that show
    content by colour or shape (:func:`is_visual`), which keeps the prompts of text pages as
    they were. A run of more than :data:`RUN_LIMIT` elements alike but for their place shows as
    its first element and ``(N more like it: [a] to [b], @x,y to @x,y)``; a program's
    ``observation`` still holds every one.
    """
    lines: list[str] = []
    for run in _runs(list(observation)):
        lines.append(_line(run[0]))
        if len(run) > RUN_LIMIT:
            lines.append(_rest_of_run(run[1:]))
        else:
            lines.extend(_line(element) for element in run[1:])
    return "\n".join(lines)


def _line(element: Element) -> str:
    """One element's page line (see :func:`render`)."""
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
    for flag in FLAGS:
        if element.get(flag):
            parts.append(flag)
    if _shows_box(element):
        x, y = centre(element)
        parts.append(f"@{round(x)},{round(y)} {element['width']}x{element['height']}")
        if element.get("color"):
            parts.append(f"color={element['color']}")
        if element.get("points"):
            parts.append("points=" + " ".join(f"{x},{y}" for x, y in element["points"]))
        if element.get("parent") is not None:
            parts.append(f"in [{element['parent']}]")
    return " ".join(parts)


def _shows_box(element: Element) -> bool:
    return "left" in element and ("parent" in element or is_visual(element))


def _runs(elements: list[Element]) -> list[list[Element]]:
    """``elements`` cut into runs of neighbours alike but for their ref and place (:func:`_likeness`)."""
    runs: list[list[Element]] = []
    last: tuple[Any, ...] | None = None
    for element in elements:
        alike = _likeness(element)
        if runs and alike is not None and alike == last:
            runs[-1].append(element)
        else:
            runs.append([element])
        last = alike
    return runs


def _likeness(element: Element) -> tuple[Any, ...] | None:
    """What an element's line says but its ref and centre; None for an element with a text, an
    id, a value or a shape of its own, which is never one of a run."""
    if element.get("text") or element.get("id") or element.get("value") not in ("", None) or element.get("points"):
        return None
    return (element["tag"], element.get("classes"), element.get("width"), element.get("height"),
            element.get("color"), element.get("parent"), *(bool(element.get(flag)) for flag in FLAGS))


def _rest_of_run(rest: list[Element]) -> str:
    """The line standing for all but the first element of a long run."""
    span = f"{len(rest)} more like it: [{rest[0]['ref']}] to [{rest[-1]['ref']}]"
    if _shows_box(rest[0]):
        (x0, y0), (x1, y1) = centre(rest[0]), centre(rest[-1])
        span += f", @{round(x0)},{round(y0)} to @{round(x1)},{round(y1)}"
    return f"({span})"


#: What a cut text keeps of its end, as a share of the limit.
_TAIL_SHARE = 3
#: What stands for the cut middle: an ellipsis between spaces, which matching reads as one.
ELIDED = " ... "


def _quote(text: str, limit: int = 120) -> str:
    """``text`` in double quotes, at most about ``limit`` characters.

    A longer text keeps its start and its end with :data:`ELIDED` between: a text's end is as
    much what a task asks about as its start (scroll-text asks for the last word of a
    textarea whose end lay past the cut in every episode of the whole-suite run), and a copied
    ``start ... end`` still names the element (:mod:`webwise.matching`, ninth rule).
    """
    if len(text) > limit:
        tail = limit // _TAIL_SHARE
        start = _whole_words(text, 0, limit - tail - len(ELIDED))
        text = start + ELIDED + _whole_words(text, len(text) - tail, len(text))
    return '"' + text.replace('"', "'") + '"'


def _whole_words(text: str, start: int, end: int) -> str:
    """``text[start:end]`` without a word cut at either edge, unless that is all it holds."""
    piece = text[start:end]
    if start > 0 and not text[start - 1].isspace() and " " in piece:
        piece = piece.split(" ", 1)[1]
    if end < len(text) and not text[end].isspace() and " " in piece:
        piece = piece.rsplit(" ", 1)[0]
    return piece.strip()
