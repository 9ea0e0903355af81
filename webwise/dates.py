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
_TIME = re.compile(r"^\s*(\d{1,2})(?::(\d{2}))?(?::(\d{2}))?\s*([ap])?\.?\s*m?\.?\s*$", re.IGNORECASE)


def parse_date(text: str) -> dt.date | None:
    cleaned = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text.strip())
    for form in _DATE_FORMATS:
        try:
            return dt.datetime.strptime(cleaned, form).date()
        except ValueError:
            continue
    return None


def parse_time(text: str) -> dt.time | None:
    match = _TIME.match(text)
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
