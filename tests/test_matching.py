"""The click rules of program API v1 and our six after them, on elements built by hand (no browser)."""

from __future__ import annotations

import pytest

from webwise.dom import ELIDED, flatten, render
from webwise.matching import NoMatch, captioned_field, find_target, naming_call

# body > [button "Submit", button "submit form", label(checkbox + t "HF2"), a#next "More",
#         span "Okay", div > button "OK", svg circle #(1,2) .plot-point]
TREE = {
    "ref": 1, "tag": "BODY", "children": [
        {"ref": 2, "tag": "BUTTON", "text": "submit form", "children": []},
        {"ref": 3, "tag": "BUTTON", "text": "Submit", "children": []},
        {"ref": 4, "tag": "LABEL", "children": [
            {"ref": 5, "tag": "INPUT_checkbox", "value": False, "children": []},
            {"ref": -1, "tag": "t", "text": "HF2", "children": []},
        ]},
        {"ref": 6, "tag": "A", "id": "next", "text": "More", "children": []},
        {"ref": 7, "tag": "SPAN", "text": "Okay", "classes": "choice primary", "children": []},
        {"ref": 8, "tag": "DIV", "children": [{"ref": 9, "tag": "BUTTON", "text": "OK", "children": []}]},
        {"ref": 10, "tag": "circle", "id": {"baseVal": "(1,2)", "animVal": "(1,2)"},
         "classes": {"baseVal": "plot-point", "animVal": "plot-point"}, "children": []},
        {"ref": 11, "tag": "INPUT_text", "value": "", "id": "user", "children": []},
    ],
}
ELEMENTS = flatten(TREE)


@pytest.mark.parametrize(
    ("tag", "text", "ref", "rule"),
    [
        ("button", "Submit", 3, "1: exact text beats an earlier case-insensitive match"),
        ("button", "SUBMIT", 3, "2: text ignoring case, first in document order"),
        ("a", "next", 6, "3: element id"),
        ("button", "form", 2, "4: text contains, ignoring case"),
        ("button", "Okay", 7, "5: any tag with exactly this text"),
        ("label", "HF2", 4, "descendant text of a label that wraps a checkbox"),
        ("choice", "Okay", 7, "tag given as one of the classes"),
        ("input", "user", 11, "'input' matches any input_* tag"),
        ("circle", "(1,2)", 10, "SVG id given as {baseVal, animVal}"),
        ("plot-point", "", 10, "empty text picks the first element whose tag matches"),
        ("t", "HF2", -1, "a bare text node"),
        ("p", "OK", 9, "rule 5 prefers the button over the div that borrows its text"),
        ("a", "okay.", 7, "8: any tag, ignoring case and the punctuation around the text"),
        ("button", "submit fo...", 2, "9: a text ending in an ellipsis is the start of one"),
        ("span", "Mor…", 6, "9: with no element of the tag, any tag"),
        ("button", "submit ... m", 2, "9: an ellipsis within is the start and the end of one"),
    ],
)
def test_click_rules(tag: str, text: str, ref: int, rule: str) -> None:
    assert find_target(ELEMENTS, tag, text)["ref"] == ref, rule


def test_whitespace_is_collapsed() -> None:
    assert find_target(ELEMENTS, "button", "  submit\n form ")["ref"] == 2


def test_no_match_names_closest_candidates() -> None:
    with pytest.raises(NoMatch) as info:
        find_target(ELEMENTS, "button", "Sumbit")
    message = str(info.value)
    assert "Sumbit" in message and "'Submit'" in message
    assert "\n" not in message


@pytest.mark.timeout(5)
def test_a_long_text_that_names_nothing_is_answered_at_once() -> None:
    """The closest candidates are scored by text likeness, whose cost is the product of the two
    texts' lengths: a program's long text on a page of hundreds of long elements once kept the
    host busy for seconds a call (these took over ten)."""
    page = flatten({"ref": 1, "tag": "BODY", "children": [
        {"ref": 2 + i, "tag": "P", "text": f"paragraph {i} " + "lorem ipsum " * 20, "children": []}
        for i in range(300)]})
    with pytest.raises(NoMatch) as info:
        find_target(page, "button", "lorem ipsum dolor " * 500)
    assert "closest: p 'paragraph" in str(info.value)


@pytest.mark.parametrize(
    ("tag", "text", "ref", "written"),
    [
        ("a", "#next", 6, "an id with its '#'"),
        ("input_text", "user focused", 11, "an id followed by a flag"),
        ("span", '[7] span "Okay" .choice.primary selected', 7, "the line of a chosen element"),
        ("span", "choice.primary", 7, "classes run together with dots"),
        ("button", "choice .primary", 7, "an id-or-class word and a class; the tag given is wrong"),
        ("span", '[7] span "Okay" .choice.primary', 7, "the whole summary line"),
        ("circle", "#(1,2) .plot-point", 10, "an SVG id and class"),
        ("button", "[9]", 9, "the ref alone"),
        ("t", "[-1]", -1, "a text node's ref, which is negative"),
        ("t", '[-1] t "HF2"', -1, "a text node's whole line"),
        ("circle", "[10] circle #(1,2) @15,65 8x8 color=blue", 10, "a shape's line with its box and colour"),
        ("line", "line @11,71 72x51 color=black points=11,71 83,122 #(1,2)", 10, "corners, then the id"),
    ],
)
def test_text_in_summary_notation_names_the_element_it_describes(tag: str, text: str, ref: int, written: str) -> None:
    assert find_target(ELEMENTS, tag, text)["ref"] == ref, written


@pytest.mark.parametrize("text", ["#nowhere", "next .missing-class", "[99]", "focused", "user .primary"])
def test_notation_that_fits_no_element_still_raises(text: str) -> None:
    with pytest.raises(NoMatch):
        find_target(ELEMENTS, "a", text)


# body > div#board > [swatch teal, swatch Maroon, swatch #4a90d9, span "maroon" (a caption)]
SWATCHES = flatten(
    {"ref": 1, "tag": "BODY", "children": [{"ref": 2, "tag": "DIV", "id": "board", "children": [
        {"ref": 3, "tag": "DIV", "classes": "tile", "children": []},
        {"ref": 4, "tag": "DIV", "classes": "tile", "children": []},
        {"ref": 5, "tag": "DIV", "classes": "tile", "children": []},
        {"ref": 6, "tag": "SPAN", "text": "maroon", "children": []},
    ]}]},
    {"3": {"color": "teal"}, "4": {"color": "Maroon"}, "5": {"color": "rgb(74, 144, 217)"}},
)


@pytest.mark.parametrize(
    ("tag", "text", "ref", "written"),
    [
        ("div", "teal", 3, "a colour the page shows on one box"),
        ("div", "TEAL", 3, "in any case"),
        ("div", "#4A90D9", 5, "a colour printed as #rrggbb"),
        ("div", "maroon", 2, "a text match wins over a box of that colour (rule 4: the board holds the caption)"),
        ("div", ".tile @20,30 52x52 color=maroon", 4, "a copied line: its colour picks among the .tile boxes"),
        ("div", "[5] div .tile color=teal", 5, "a ref outranks the colour"),
        ("div", "@20,30 52x52 color=maroon", 4, "a line's box and colour, nothing else: the colour names it"),
    ],
)
def test_a_colour_names_the_box_that_shows_it(tag: str, text: str, ref: int, written: str) -> None:
    """The 1.5B named click-color's boxes by their colour (``click('div', 'olive')``) at every
    seed and trial; its copied line ``.color @4,103 52x52 color=olive`` clicked the first box."""
    assert find_target(SWATCHES, tag, text)["ref"] == ref, written


@pytest.mark.parametrize("text", ["olive", "@20,30 52x52 color=olive"])
def test_a_colour_no_element_shows_is_no_match(text: str) -> None:
    with pytest.raises(NoMatch):
        find_target(SWATCHES, "div", text)


def test_the_contract_rules_win_over_notation() -> None:
    """A text that the five rules match is never read as notation (here: an exact text)."""
    tree = {"ref": 1, "tag": "BODY", "children": [
        {"ref": 2, "tag": "DIV", "id": "next", "children": []},
        {"ref": 3, "tag": "DIV", "text": "#next", "children": []},
    ]}
    assert find_target(flatten(tree), "div", "#next")["ref"] == 3


def test_flatten_keeps_document_order_and_parents() -> None:
    assert [e["ref"] for e in ELEMENTS] == [2, 3, 4, 5, -1, 6, 7, 8, 9, 10, 11]
    label, text = ELEMENTS[2], ELEMENTS[4]
    assert label["text"] == "" and label["deep_text"] == "HF2"
    assert text["parent"] == 4 and text["tag"] == "t"
    assert ELEMENTS[9]["id"] == "(1,2)" and ELEMENTS[9]["classes"] == "plot-point"


def test_an_element_whose_text_is_loose_beside_an_icon_takes_that_text() -> None:
    header = {"ref": 1, "tag": "BODY", "children": [
        {"ref": 2, "tag": "H3", "children": [
            {"ref": 3, "tag": "SPAN", "classes": "ui-icon", "children": []},
            {"ref": -1, "tag": "t", "text": "Section  #2", "children": []},
        ]},
        {"ref": 4, "tag": "P", "children": [
            {"ref": -2, "tag": "t", "text": "Read", "children": []},
            {"ref": 5, "tag": "A", "text": "more", "children": []},
        ]},
    ]}
    elements = flatten(header)
    assert [(e["ref"], e["text"]) for e in elements] == [(2, "Section #2"), (3, ""), (4, ""), (-2, "Read"), (5, "more")]
    assert find_target(elements, "t", "Section #2")["ref"] == 2


def test_a_field_kind_the_page_has_once_is_that_field_whatever_the_text() -> None:
    assert find_target(ELEMENTS, "input_text", "alice")["ref"] == 11


def test_a_field_kind_the_page_has_twice_still_needs_a_name() -> None:
    tree = {"ref": 1, "tag": "BODY", "children": [
        {"ref": 2, "tag": "INPUT_password", "id": "password", "value": "", "children": []},
        {"ref": 3, "tag": "INPUT_password", "id": "verify", "value": "", "children": []},
        {"ref": 4, "tag": "BUTTON", "text": "Submit", "children": []},
    ]}
    elements = flatten(tree)
    with pytest.raises(NoMatch):
        find_target(elements, "input_password", "yA")
    assert find_target(elements, "input_password", "verify")["ref"] == 3


def _field(ref: int, kind: str = "text", ident: str = "") -> dict:
    return {"ref": ref, "tag": f"INPUT_{kind}", "id": ident, "value": "", "children": []}


def _caption(ref: int, tag: str, text: str) -> dict:
    return {"ref": ref, "tag": tag, "text": text, "children": []}


# A form captioned three ways, none tied by `for`: label before its field in a paragraph,
# th beside a td holding the field, and a caption after its field (multi-layouts' last).
FORM = flatten({"ref": 1, "tag": "BODY", "children": [
    {"ref": 2, "tag": "FORM", "children": [
        {"ref": 3, "tag": "P", "children": [_caption(4, "LABEL", "Password"), _field(5, "password", "password")]},
        {"ref": 6, "tag": "TR", "children": [_caption(7, "TH", "Director"),
                                             {"ref": 8, "tag": "TD", "children": [_field(9)]}]},
        {"ref": 10, "tag": "DIV", "children": [_field(11), _caption(12, "DIV", "Year")]},
        _caption(13, "SPAN", "All fields are required"),
        _caption(14, "BUTTON", "Submit"),
    ]},
]})


@pytest.mark.parametrize(("caption", "field"), [(4, 5), (7, 9), (12, 11), (13, None), (5, None)],
                         ids=["label-before", "table-cell", "caption-after", "form-wide-text", "a-field-itself"])
def test_a_caption_names_the_one_field_it_shares_a_container_with(caption: int, field: int | None) -> None:
    element = next(e for e in FORM if e["ref"] == caption)
    found = captioned_field(FORM, element)
    assert (found["ref"] if found else None) == field


def test_naming_call_finds_the_element_by_id_or_by_ref() -> None:
    by_ref = {e["ref"]: e for e in FORM}
    assert naming_call(FORM, by_ref[5]) == "click('input_password', 'password')"
    assert naming_call(FORM, by_ref[9]) == "click('input_text', '[9]')"
    assert find_target(FORM, "input_text", "[9]")["ref"] == 9
    assert naming_call(FORM, by_ref[14]) == "click('button', 'Submit')"


DIALOG = flatten({"ref": 1, "tag": "BODY", "children": [
    {"ref": 2, "tag": "SPAN", "text": "Box", "children": []},
    {"ref": 3, "tag": "BUTTON", "text": "Close", "classes": "ui-dialog-titlebar-close", "children": []},
    {"ref": 4, "tag": "BUTTON", "text": "OK", "children": []},
]})


@pytest.mark.parametrize("cross", ["x", "X", "\u00d7", "\u2715"])
def test_a_cross_names_the_close_button_an_icon_shows_as_one(cross: str) -> None:
    assert find_target(DIALOG, "button", cross)["ref"] == 3


def test_a_cross_is_only_a_last_resort_and_not_any_x() -> None:
    with_x = flatten({"ref": 1, "tag": "BODY", "children": [
        {"ref": 2, "tag": "BUTTON", "text": "Close", "children": []},
        {"ref": 3, "tag": "BUTTON", "text": "x", "children": []}]})
    assert find_target(with_x, "button", "x")["ref"] == 3  # a button that says x is the x
    with pytest.raises(NoMatch):
        find_target(DIALOG, "button", "xx")
    with pytest.raises(NoMatch):
        find_target(DIALOG[:1], "button", "x")  # no close control: still an error


def test_a_long_text_copied_as_the_page_text_cuts_it_names_its_element() -> None:
    """The page text keeps a long text's start and end (``dom.ELIDED`` between); a program
    that copies that line must reach the element, and not a sibling sharing its start."""
    sentence = "Sed ut perspiciatis unde omnis iste natus error " * 4
    tree = {"ref": 1, "tag": "BODY", "children": [
        {"ref": 2, "tag": "P", "text": sentence + "sit voluptatem.", "children": []},
        {"ref": 3, "tag": "P", "text": sentence + "accusantium doloremque.", "children": []},
    ]}
    elements = flatten(tree)
    assert [element["ref"] for element in elements] == [2, 3]
    for element in elements:
        shown = render([element]).split('"')[1]
        assert ELIDED in shown
        assert find_target(elements, "p", shown) is element
