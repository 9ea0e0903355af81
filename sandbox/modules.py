"""The importable modules, handed over as read-only namespaces of chosen public members.

A real module object is a map of the interpreter: ``re.enum.sys.modules['os']``,
``datetime.sys``, ``json.codecs.sys``, ``collections._sys`` are all attribute chains from an
"allowed" module to ``os``. So a program never receives a module, only a ``Namespace`` listing
the functions, classes and constants below, and nothing else can be looked up on it.
"""

from __future__ import annotations

import collections
import datetime
import itertools
import json
import math
import re
import string
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any


class Namespace:
    """A read-only bag of attributes; also how dotted action names (``env.step``) are exposed."""

    __slots__ = ("_label", "_members")

    def __init__(self, label: str, members: Mapping[str, Any]) -> None:
        object.__setattr__(self, "_label", label)
        object.__setattr__(self, "_members", MappingProxyType(dict(members)))

    def __getattr__(self, name: str) -> Any:
        try:
            return self._members[name]
        except KeyError:
            raise AttributeError(f"'{self._label}' has no attribute '{name}'") from None

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"'{self._label}' is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"'{self._label}' is read-only")

    def __dir__(self) -> list[str]:
        return sorted(self._members)

    def __repr__(self) -> str:
        return f"<{self._label}>"


def _public(module: Any, names: list[str] | None = None) -> dict[str, Any]:
    chosen = names if names is not None else [n for n in dir(module) if not n.startswith("_")]
    return {name: getattr(module, name) for name in chosen}


_RE_NAMES = [
    "compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "subn", "split",
    "escape", "error", "Pattern", "Match", "A", "ASCII", "I", "IGNORECASE", "M", "MULTILINE",
    "S", "DOTALL", "X", "VERBOSE", "U", "UNICODE", "NOFLAG",
]
_DATETIME_NAMES = ["date", "datetime", "time", "timedelta", "timezone", "tzinfo", "MINYEAR",
                   "MAXYEAR", "UTC"]
_STRING_NAMES = ["ascii_letters", "ascii_lowercase", "ascii_uppercase", "digits", "hexdigits",
                 "octdigits", "printable", "punctuation", "whitespace", "capwords"]
_COLLECTIONS_NAMES = ["Counter", "defaultdict", "OrderedDict", "deque", "namedtuple", "ChainMap"]

# math and itertools are C modules whose public names are all plain functions and constants.
MODULES: dict[str, Namespace] = {
    "re": Namespace("module 're'", _public(re, _RE_NAMES)),
    "math": Namespace("module 'math'", _public(math)),
    "json": Namespace("module 'json'", _public(json, ["loads", "dumps", "JSONDecodeError"])),
    "datetime": Namespace("module 'datetime'", _public(datetime, _DATETIME_NAMES)),
    "string": Namespace("module 'string'", _public(string, _STRING_NAMES)),
    "itertools": Namespace("module 'itertools'", _public(itertools)),
    "collections": Namespace("module 'collections'", _public(collections, _COLLECTIONS_NAMES)),
}

#: The refusal's advice: the modules there are, or the action that does what a program
#: imported a module for (models import ``time`` to pause, which only ``wait`` does here).
_ONLY = f"the modules are {', '.join(MODULES)}"
_INSTEAD = {"time": "to pause, call wait(seconds)"}


def guarded_import(
    name: str,
    globals: Mapping[str, Any] | None = None,
    locals: Mapping[str, Any] | None = None,
    fromlist: tuple[str, ...] | None = (),
    level: int = 0,
) -> Namespace | None:
    """``__import__`` for programs: only the names above, never a submodule or relative import.

    C code running under the program's frame (``datetime.strftime`` needs ``time``) also lands
    here, through ``PyImport_Import``, which passes a *list* as ``fromlist`` (the compiler only
    ever emits None or a tuple), ignores the return value and reads ``sys.modules`` itself. For
    those calls nothing is imported and nothing is returned: C code finds the modules the worker
    preloaded, and the program never sees them.
    """
    if isinstance(fromlist, list):
        return None
    if level != 0 or name not in MODULES:
        raise ImportError(f"import of '{name}' is not allowed; {_INSTEAD.get(name, _ONLY)}")
    return MODULES[name]
