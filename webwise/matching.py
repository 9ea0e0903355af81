"""Which element ``click(tag, text)`` means: the five rules of program API v1, then six more.

Pure functions over flattened elements (see :func:`webwise.dom.flatten`), so the rules
are testable without a browser. The first rule that matches wins; within a rule, the
first element in document order.

The sixth and seventh are ours and only run when the contract's five found nothing. They cover
the embedded 0.5B's two commonest misses at k=0 (101 and 74 of its 216 unmatched clicks
on the paper's 48 tasks). Sixth: models copy the rest of the element's summary line into
``text`` (``click('button', 'subbtn .secondary-action')``, ``click('input_text', 'tt
focused')``, ``click('div', '#tabs-1')``); such a ``text`` is read in the summary's own
notation (:func:`webwise.dom.render`) and names the element it describes. Seventh: they
name a field by the value they mean to type (``click('input_password', 'yA')``); a field
kind the page has once is that field, whatever the text. Eighth: they drop or add the
punctuation around a text and name a link ``a`` whatever the page made it of
(``click('a', 'euismod')`` for ``span "euismod."``, which lost the 1.5B click-tab-2 s1 at
every trial); a text equal to an element's apart from case and that punctuation names it.
Ninth: a text ending in an ellipsis is the start of one (models shorten texts so:
``click('div', 'Imperdiet. Cursus..')``), and one with an ellipsis between two parts is the
start and end of one (the summary cuts a long text's middle so: ``"Donec ... Maecenas."``). Tenth: a
cross (``x``, ``×``, ``✕``) names the element whose text is "Close": an icon-only close button
shows people a cross and says Close only to screen readers and the summary, so an
instruction or a person asks for "the x" (jQuery UI dialogs: 'labeled "x"', ``button
"Close"``). Eleventh: a colour names the element that shows it, as people name a box by
its colour; the summary prints a swatch's colour (``div .color color=olive``) and the
1.5B wrote ``click('div', 'olive')`` on click-color at every seed and trial. For the same
reason a copied line's ``color=`` picks among the elements it otherwise fits, and names the
element by itself when nothing else in the line does (``circle @84,134 17x17 color=yellow``).

Whatever rule found it, a match of another kind than the program named is read as the program
meant it (:func:`_meant`): a field kind named by the text of its caption is that field
(``click('input_text', 'Year')`` for ``th "Year"`` beside the field, which lost multi-orderings
its right first program), and a list named by one of its options' texts is that option.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from typing import Callable, Sequence

import regex

from webwise.dom import ELIDED, FLAGS, TYPABLE, Element, collapse


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


#: One part of a summary line: ``[ref]``, ``"text"``, ``#id``, ``.a.b`` classes, ``value=...``, a word.
#: A ref is ASCII digits, after a minus for a text node's: ``regex``'s ``\d`` also takes digits
#: ``int()`` refuses (U+11F50).
#: The box, colour and corners a line shows for a shape or a swatch (``@12,50 20x20
#: color=red points=1,2 3,4``) describe how it looks, like ``value=``, and are dropped too.
_PART = regex.compile(r'\[(-?[0-9]+)\]|"([^"]*)"|#(\S+)|\.(\S+)|color=(\S+)|(value=(?:"[^"]*"|\S*)|color=|points=\S*'
                      r'|@-?[0-9]+,-?[0-9]+|[0-9]+x[0-9]+|-?[0-9]+,-?[0-9]+(?=\s|$))|(\S+)')
#: Words the summary adds after an element's name: state, not identity.
_FLAGS = frozenset(FLAGS) | {"checked", "unchecked"}


@dataclass(frozen=True)
class Described:
    """What a ``text`` written as (part of) a summary line says about its element."""

    ref: int | None = None
    text: str | None = None
    names: tuple[str, ...] = ()  # bare words: each the element's id or one of its classes
    classes: tuple[str, ...] = ()
    color: str | None = None  # picks among the elements the rest fits, or alone names one

    @property
    def named(self) -> bool:
        """Whether anything but the colour names the element."""
        return self.ref is not None or self.text is not None or bool(self.names or self.classes)

    def fits(self, element: Element) -> bool:
        """Whether the element is the one described; the colour decides only when nothing
        else names it (``circle @84,134 17x17 color=yellow``)."""
        classes = element["classes"].split()
        return ((self.ref is None or element["ref"] == self.ref)
                and (self.text is None or element["deep_text"] == self.text)
                and all(name == element["id"] or name in classes for name in self.names)
                and all(name in classes for name in self.classes)
                and (self.named or self.shows(element)))

    def shows(self, element: Element) -> bool:
        return self.color is None or _same_colour(element, self.color)


def described(text: str, tag: str = "") -> Described | None:
    """Read ``text`` as summary notation; None when it names nothing that way.

    Flags, ``value=`` and the box and corners are dropped (they describe state and looks,
    and models rewrite the numbers), and so is a copy of ``tag`` (the line starts with it).
    The colour is kept to choose among the elements the rest fits. Any other bare word is an
    id or a class, and one with dots inside is a run of classes, as models write them.
    """
    ref, quoted, names, classes, color = None, None, [], [], None
    for match in _PART.finditer(text):
        number, words, ident, dotted, painted, _seen, word = match.groups()
        if number is not None:
            ref = int(number)
        elif words is not None:
            quoted = collapse(words)
        elif ident is not None:
            names.append(ident)
        elif dotted is not None:
            classes.extend(part for part in dotted.split(".") if part)
        elif painted is not None:
            color = painted
        elif word is not None and word not in _FLAGS and word != tag:
            head, *rest = word.split(".")
            names.extend([head] if head else [])
            classes.extend(part for part in rest if part)
    description = Described(ref, quoted, tuple(names), tuple(classes), color)
    return description if description.named or color is not None else None


def find_target(elements: Sequence[Element], tag: str, text: str) -> Element:
    """The element ``click(tag, text)`` acts on, or :class:`NoMatch`."""
    text, kind = collapse(str(text)), str(tag).strip()
    if not text:
        for element in elements:
            if tag_matches(element, kind):
                return element
    else:
        for rule in _rules(kind, text):
            matches = [element for element in elements if rule(element)]
            if matches:
                return _meant(elements, _innermost(matches, elements), kind, text)
        description = described(text, kind)
        if description is not None:
            matches = [element for element in elements if description.fits(element)]
            matches = [element for element in matches if description.shows(element)] or matches
            if matches:
                return _tag_first(matches, kind)
        loose = (_only_field(elements, kind.lower()) or loosely_named(elements, kind, text)
                 or _closed_by(elements, kind, text) or _coloured(elements, kind, text))
        if loose is not None:
            return _meant(elements, loose, kind, text)
    raise NoMatch(f"no {tag!r} element with text {text!r}; closest: {closest(elements, tag, text)}")


#: Tags of the elements that caption a field beside them: texts and their containers, never a
#: control (a button or a link is something to click, not the name of a field).
_CAPTIONS = frozenset({"label", "th", "td", "span", "div", "p", "t", "b", "strong", "em", "i", "dt", "dd",
                       "h1", "h2", "h3", "h4", "h5", "h6", "legend", "caption", "font"})


def _captioned_alone(elements: Sequence[Element], caption: Element) -> Element | None:
    """The field ``caption`` names (:func:`captioned_field`), unless the caption belongs to a
    control of its own: the text of a label that wraps its checkbox names that checkbox, not
    a text field further along the form."""
    field = captioned_field(elements, caption)
    if field is None:
        return None
    parents = {e["ref"]: e["parent"] for e in elements}
    by_ref = {e["ref"]: e for e in elements}
    node: Element | None = caption
    while node is not None and not _is_descendant(field, node, parents):
        if any(e["tag"].startswith("input_") or e["tag"] in ("select", "textarea", "button")
               for e in elements if _is_descendant(e, node, parents)):
            return None
        node = by_ref.get(node["parent"]) if node["parent"] is not None else None
    return field


def _meant(elements: Sequence[Element], found: Element, tag: str, text: str) -> Element:
    """What a click that ``found`` an element by its text means, when the program named another kind.

    A field kind named by a caption's text (``click('input_text', 'Year')`` on a form whose
    ``th "Year"`` heads the row of its field) means that field: the caption alone focuses
    nothing, and the program said which kind of element it wants. Only a caption of a single
    field counts (:func:`captioned_field`), and only when the rules found an element of
    another kind. A list named with the text of one of its options (``click('select',
    'Ronda')``, which the fourth rule finds by the list's text) means that option: clicking
    the list itself chooses nothing.
    """
    kind = tag.strip().lower()
    if kind in TYPABLE and found["tag"] in _CAPTIONS and not tag_matches(found, kind):
        field = _captioned_alone(elements, found)
        if field is not None:
            return field
    if found["tag"] == "select":
        parents = {e["ref"]: e["parent"] for e in elements}
        options = [e for e in elements if e["tag"] == "option" and _is_descendant(e, found, parents)]
        wanted = collapse(text)
        chosen = (next((o for o in options if o["deep_text"] == wanted), None)
                  or next((o for o in options if o["deep_text"].lower() == wanted.lower()), None))
        if chosen is not None:
            return chosen
    return found


#: Punctuation, symbols and spaces at either end of a text.
_ENDS = regex.compile(r"^[\p{P}\p{S}\s]+|[\p{P}\p{S}\s]+$")
#: An ellipsis ending a text: ``...``, ``..`` or ``…``.
_ELLIPSIS = regex.compile(r"\s*(?:\.{2,}|…)$")
#: An ellipsis between two parts of a text, where the page text cuts a long one's middle: the
#: page text's own marker (:data:`webwise.dom.ELIDED`), or the ellipses a model writes for it.
ELLIPSIS_WITHIN = regex.compile(rf"^(.*?\S)\s*(?:{regex.escape(ELIDED.strip())}|\.{{3,}}|…)\s*(\S.*)$")


def _bare(text: str) -> str:
    """``text`` without case and without the punctuation around it: ``'Euismod.'`` is ``'euismod'``."""
    return _ENDS.sub("", text).lower()


def loosely_named(elements: Sequence[Element], tag: str, text: str) -> Element | None:
    """The eighth and ninth rules: the same text apart from case and the punctuation around
    it, whatever the tag; else, for a text ending in an ellipsis, the first element whose
    text starts with the rest, and for a text with one between two parts, the first whose
    text starts with the first and ends with the second (one of ``tag`` first)."""
    bare = _bare(text)
    matches = [element for element in elements if bare and _bare(element["deep_text"]) == bare]
    if matches:
        return _innermost(matches, elements)
    start, end = _ELLIPSIS.sub("", text).lower() if _ELLIPSIS.search(text) else "", ""
    if not start and (within := ELLIPSIS_WITHIN.match(text)):
        start, end = within[1].lower(), within[2].lower()
    matches = [element for element in elements
               if start and element["deep_text"].lower().startswith(start) and element["deep_text"].lower().endswith(end)]
    if not matches:
        return None
    return next((element for element in matches if tag_matches(element, tag)), _innermost(matches, elements))


#: The glyphs a close control shows: x, X, multiplication sign, crosses.
_CROSSES = frozenset({"x", "X", "\u00d7", "\u2715", "\u2716", "\u2717", "\u2718"})


def _closed_by(elements: Sequence[Element], tag: str, text: str) -> Element | None:
    """The tenth rule: for a cross, the first element whose text is "Close" (one of ``tag`` first)."""
    if text not in _CROSSES:
        return None
    matches = [element for element in elements if element["deep_text"].strip().lower() == "close"]
    return _tag_first(matches, tag) if matches else None


def _tag_first(matches: Sequence[Element], tag: str) -> Element:
    """The first of ``matches`` whose tag matches ``tag``, else the first of them."""
    return next((element for element in matches if tag_matches(element, tag)), matches[0])


def _same_colour(element: Element, colour: str) -> bool:
    return bool(element.get("color")) and _bare(element["color"]) == _bare(colour)


def _coloured(elements: Sequence[Element], tag: str, text: str) -> Element | None:
    """The eleventh rule: the first element that shows the colour ``text`` (one of ``tag`` first)."""
    matches = [element for element in elements if _same_colour(element, text)]
    return _tag_first(matches, tag) if matches else None


def _only_field(elements: Sequence[Element], tag: str) -> Element | None:
    """The page's one field of kind ``tag`` (``input_password``, ``textarea``...), if it has one.

    Fields have no text, so models name them by the value they mean to type or by their
    label (``click('input_password', 'yA')``); when the page has a single field of that
    kind there is no doubt which one.
    """
    if not (tag.startswith("input_") or tag == "textarea"):
        return None
    fields = [element for element in elements if element["tag"] == tag]
    return fields[0] if len(fields) == 1 else None


def captioned_field(elements: Sequence[Element], caption: Element) -> Element | None:
    """The text field that ``caption`` names by sitting beside it, or None.

    Pages caption fields with labels, spans or table cells that are not tied to them
    (``<p><label>Password</label><input></p>``), so clicking the caption focuses nothing
    and the typing after it fails. Its field is the one typable element in the closest
    ancestor of the caption that holds any (the paragraph, row or entry they share); an
    ancestor holding several is a form, and then the caption names none of them.
    """
    if caption["tag"] in TYPABLE:
        return None
    parents = {e["ref"]: e["parent"] for e in elements}
    fields = [e for e in elements if e["tag"] in TYPABLE]
    holder: int | None = caption["ref"]
    while holder is not None:
        inside = [f for f in fields if _is_descendant(f, {"ref": holder}, parents)]
        if inside:
            return inside[0] if len(inside) == 1 else None
        holder = parents.get(holder)
    return None


def naming_call(elements: Sequence[Element], element: Element, action: str = "click") -> str | None:
    """An ``action`` call (``click`` or another that names elements so) that finds ``element``
    here: by its text, its id, or its ``[ref]``."""
    for text in (element["deep_text"], element["id"], f"[{element['ref']}]"):
        try:
            if text and find_target(elements, element["tag"], text)["ref"] == element["ref"]:
                return f"{action}({element['tag']!r}, {text!r})"
        except NoMatch:
            continue
    return None


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


_COMPARED = 80


def closest(elements: Sequence[Element], tag: str, text: str, limit: int = 3) -> str:
    """The few elements most like ``(tag, text)``, rendered as ``tag 'text'``. Both sides are
    cut to :data:`_COMPARED` characters: the comparison's cost grows with their product, and a
    program may name a text of thousands on a page of hundreds of elements."""
    needle = text.lower()[:_COMPARED]

    def score(element: Element) -> float:
        ratio = difflib.SequenceMatcher(None, needle, element["deep_text"].lower()[:_COMPARED]).ratio()
        return ratio + (0.5 if tag_matches(element, tag) else 0.0)

    labelled = [e for e in elements if e["deep_text"] or e["id"]]
    best = sorted(labelled, key=score, reverse=True)[:limit]
    if not best:
        return "(the page has no labelled elements)"
    return ", ".join(f"{e['tag']} {(e['deep_text'][:40] or '#' + e['id'])!r}" for e in best)
