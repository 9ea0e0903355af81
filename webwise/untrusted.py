"""Text a program or a model wrote, made safe for where the host writes it.

Programs and replies are hostile: an exception message can hold ``\\x1b[2J`` and a fake
verdict, a print a lone surrogate (``'\\ud800'``) that no UTF-8 writer accepts. Everything
that writes such text goes through one of the functions here, and none drops a
character: :func:`shown` writes the unsafe ones out as the escapes a Python program would
(for a terminal or a prompt; :func:`html_text` for an HTML page), :func:`json_text` as JSON
``\\u`` escapes that read back as the same string.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

#: What a terminal obeys or cannot encode: C0 controls (but tab and newline), DEL, C1
#: controls (``\x9b`` is a CSI on its own), the bidirectional overrides and isolates that
#: reorder what is displayed, and lone surrogates.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
#: The same, less what ``json.dumps`` already escapes (every C0 control, tab and newline too).
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match[0])
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def shown(text: str) -> str:
    """``text`` with each control character, bidi override and lone surrogate written as its
    escape (``\\x1b``, ``\\u202e``, ``\\ud800``): shown, not obeyed, and always encodable.
    Newlines and tabs stay: programs are printed as they were written."""
    return _UNSAFE.sub(_escape, text)


def shown_line(text: str) -> str:
    """``text`` as one line for the terminal: :func:`shown`'s escapes, and a line break written
    as ``\\n``, not as a second line (a path the user typed, a reason a program's error gave)."""
    return shown(text).replace("\n", "\\n")


def html_text(text: object) -> str:
    """``text`` as HTML text or an attribute's value: :func:`shown`, then HTML-escaped."""
    return html.escape(shown(str(text)), quote=True)


def json_text(value: Any) -> str:
    """``json.dumps(value)`` that any UTF-8 writer accepts and that ``cat`` cannot turn into
    terminal commands; ``json.loads`` gives back exactly ``value``.

    The characters :func:`shown` escapes can only stand inside JSON strings, where a
    ``\\u`` escape means the same character; a lone surrogate stays one.
    """
    return _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m[0]):04x}", json.dumps(value, ensure_ascii=False))
