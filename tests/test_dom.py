"""Page read-outs that need no browser: what a step changed, in words."""

from __future__ import annotations

from webwise.dom import describe_change, new_texts


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
    assert describe_change(page(), page("w" * 100)) == 'new text: "' + "w" * 77 + '..."'
