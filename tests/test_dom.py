"""Page read-outs that need no browser: what a step changed, in words."""

from __future__ import annotations

from webwise.dom import describe_change, new_texts, page_key, render


def page(*texts: str) -> list[dict[str, str]]:
    return [{"text": text} for text in texts]


def test_new_texts_join_consecutive_pieces_and_count_repeats() -> None:
    before = page("user$", "", "Submit")
    after = page("user$", "ls", "", "a.txt b", "user$", "Submit", "done")
    assert new_texts(before, after) == ["ls a.txt b user$", "done"]


def test_a_change_lists_at_most_three_new_and_two_gone_phrases() -> None:
    before = page("a", "k1", "b", "k2", "c", "k3", "d")
    after = page("1", "k1", "2", "k2", "3", "k3", "4")
    assert describe_change(before, after) == 'new text: "1", "2", "3" and 1 more; gone: "a", "b" and 2 more'


def test_no_text_changed_says_nothing_and_long_phrases_are_cut() -> None:
    assert describe_change(page("a", "b"), page("b", "a")) == ""
    assert describe_change(page(), page("w" * 100 + "z" * 30)) == 'new text: "' + "w" * 49 + " ... " + "z" * 26 + '"'


def test_a_long_text_keeps_its_start_and_its_end() -> None:
    """A task may ask about a text's end (scroll-text: its last word), so the cut is in the middle."""
    text = "Donec ridiculus " + "lorem ipsum " * 12 + "pretium neque dui. Maecenas."
    line = render([{"ref": 4, "tag": "textarea", "text": "", "id": "", "classes": "", "value": text}])
    shown = line.split('"')[1]
    assert shown.startswith("Donec ridiculus lorem") and shown.endswith("neque dui. Maecenas.")
    assert " ... " in shown and len(shown) <= 120


def test_an_option_chosen_anew_is_said_though_no_text_changed() -> None:
    """Choosing from a drop-down changes no text; the feedback names the option now chosen."""
    def options(chosen: str) -> list[dict[str, object]]:
        return [{"ref": ref, "tag": "option", "text": text, "selected": text == chosen}
                for ref, text in enumerate(["Aurora", "Bobine", "Jyoti"], start=5)]

    assert describe_change(options("Aurora"), options("Bobine")) == 'chosen: "Bobine"'
    assert describe_change(options("Bobine"), options("Bobine")) == ""


def header(classes: str) -> dict[str, str]:
    return {"tag": "h3", "text": "Section #1", "value": "", "classes": classes}


def test_the_page_key_ignores_focus_and_hover_classes_and_class_order() -> None:
    closed = header("ui-accordion-header ui-accordion-header-collapsed ui-state-default")
    closed_again = header("ui-state-default ui-state-focus ui-accordion-header-collapsed ui-accordion-header")
    hovered = header("ui-accordion-header ui-accordion-header-collapsed ui-state-default ui-state-hover is-focused")
    opened = header("ui-accordion-header ui-accordion-header-active ui-state-active ui-state-focus")
    assert page_key([closed]) == page_key([closed_again]) == page_key([hovered])
    assert page_key([closed]) != page_key([opened])


def test_marks_are_neither_content_nor_news() -> None:
    """A text with no letter or digit (a blinking caret) neither keys the page nor reads as new."""
    prompt = [{"tag": "span", "text": "user$", "value": "", "classes": ""}]
    caret = {"tag": "span", "text": "\u2588", "value": "", "classes": ""}
    assert page_key(prompt + [caret]) == page_key(prompt)
    assert describe_change(prompt, prompt + [caret]) == ""
    assert describe_change(page("-"), page("5")) == 'new text: "5"'
    assert new_texts(page("Guess"), page("lower than", "5", ".", "Guess")) == ["lower than 5 ."]
    assert page_key([{**caret, "text": "A"}]) != page_key([])
