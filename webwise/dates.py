"""Dates and times as people write them, turned into what an HTML input's value needs.

``<input type=date>`` wants ``YYYY-MM-DD`` and ``type=time`` wants ``HH:MM``; models
write ``03/14/2016`` or ``9:37 PM``. Typing keystrokes into these inputs depends on
the browser's locale, so the executor sets the converted value instead.
"""

from __future__ import annotations

import datetime as dt
import re

_DATE_FORMATS = (
    "%Y-%m-%d", "%m/%d/%Y", "%m/%d/%y", "%m-%d-%Y", "%Y/%m/%d", "%d.%m.%Y",
    "%B %d, %Y", "%b %d, %Y", "%B %d %Y", "%b %d %Y", "%d %B %Y", "%d %b %Y",
)
# Linear in the text's length: one run of spaces at most, before an am/pm that must follow it
# (two optional runs in a row backtrack quadratically, and a program's text is hostile).
_TIME = re.compile(r"(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?(?:\s*([ap])\.?\s*m?\.?)?", re.IGNORECASE)
#: The longest text read as a time ("12:30:45 p.m." and spaces): a longer one is not a time.
_TIME_CHARS = 32


def parse_date(text: str) -> dt.date | None:
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text.strip())
    for form in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(cleaned, form).date()
        except ValueError:
            continue
    return None


def parse_time(text: str) -> dt.time | None:
    text = text.strip()
    match = _TIME.fullmatch(text) if len(text) <= _TIME_CHARS else None
    if not match:
        return None
    hour, minute, second = int(match[1]), int(match[2] or 0), int(match[3] or 0)
    half = (match[4] or "").lower()
    if half:
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if half == "p" else 0)
    try:
        return dt.time(hour, minute, second)
    except ValueError:
        return None


def to_input_value(kind: str, text: str) -> str | None:
    """The value for an input of type ``kind`` (date, time, datetime-local, month; others as typed), or None."""
    if kind == "date":
        date = parse_date(text)
        return date.isoformat() if date else None
    if kind == "time":
        time = parse_time(text)
        return time.strftime("%H:%M:%S" if time.second else "%H:%M") if time else None
    if kind == "month":
        date = parse_date(text) or parse_date(text.strip() + "-01")
        return date.strftime("%Y-%m") if date else None
    if kind == "datetime-local":
        date_part, _, time_part = text.strip().rpartition(" ")
        date, time = parse_date(date_part), parse_time(time_part)
        if date and time:
            return f"{date.isoformat()}T{time.strftime('%H:%M')}"
        return None
    return text.strip() or None


_MONTHS = {name.lower(): number for number, name in enumerate(
    ("January", "February", "March", "April", "May", "June", "July", "August", "September",
     "October", "November", "December"), start=1)}
_MONTHS.update({name[:3]: number for name, number in list(_MONTHS.items())})
_MONTH_TITLE = re.compile(r"^([A-Za-z]+)\.?(?:,?\s+(\d{4}))?$")
_YEAR = re.compile(r"^\d{4}$")


def shown_month(texts: list[str]) -> tuple[int, int] | None:
    """The (year, month) a calendar's title shows among ``texts`` (the page's texts in order),
    or None.

    A date picker titles its month ``December 2016``, or as two pieces (jQuery UI: a
    ``December`` span and a ``2016`` span just after it).
    """
    for index, text in enumerate(texts):
        match = _MONTH_TITLE.match(text.strip())
        month = _MONTHS.get(match[1].lower()) if match else None
        if month is None:
            continue
        year = match[2] or next((t.strip() for t in texts[index + 1:index + 3] if _YEAR.match(t.strip())), None)
        if year:
            return int(year), month
    return None


def month_title(year: int, month: int) -> str:
    """``December 2016``: a month as a calendar titles it."""
    return dt.date(year, month, 1).strftime("%B %Y")
