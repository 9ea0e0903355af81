"""Dates as people and calendars write them (no browser)."""

from __future__ import annotations

import datetime as dt

import pytest

from webwise.dates import month_title, parse_date, parse_time, shown_month, to_input_value


@pytest.mark.parametrize(("texts", "shown"), [
    (["Prev", "Next", "December", "2016", "Su", "Mo"], (2016, 12)),  # jQuery UI: month and year apart
    (["Back", "March 2017", "1", "2"], (2017, 3)),
    (["Sep.", "1999"], (1999, 9)),
    (["May", "you", "enjoy", "2016"], None),  # a month word with no year beside it is no title
    (["Submit", "2016"], None),
])
def test_the_month_a_calendar_title_shows(texts: list[str], shown: tuple[int, int] | None) -> None:
    assert shown_month(texts) == shown


def test_dates_people_write_and_the_title_of_their_month() -> None:
    date = parse_date("03/05/2016")
    assert (date.year, date.month, date.day) == (2016, 3, 5)
    assert parse_date("the 5th") is None
    assert month_title(2016, 12) == "December 2016"


@pytest.mark.timeout(10)
def test_a_long_text_is_no_time_and_is_read_at_once() -> None:
    """A program's text reaches this on a time field. The pattern once backtracked on runs of
    spaces, cubically: 2,000 characters kept the host busy 10 s, these would take minutes."""
    assert parse_time("1" + " " * 4000 + "x") is None
    assert to_input_value("datetime-local", "2016-03-14 1" + "\t" * 4000 + "x") is None
    assert parse_time(" 9:37 p.m. ") == dt.time(21, 37) and parse_time("09:05:07") == dt.time(9, 5, 7)
