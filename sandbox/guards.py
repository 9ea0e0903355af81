"""Run-time guards and builtins: the functions the policy's rewritten code calls.

Each guard closes one door that the compile-time check cannot: names built at run time
(``getattr(x, '_' + '_class__')``), attribute walks inside format strings
(``'{0.__globals__}'.format(f)``), introspection attributes that do not start with ``_``
(``gen.gi_frame``, ``tb.tb_frame``, ``exc.obj``) and writes to objects the program did not make.
"""

from __future__ import annotations

import collections
import operator
import string
import types
from collections.abc import Callable, Iterable
from typing import Any

from RestrictedPython.Guards import guarded_iter_unpack_sequence, guarded_unpack_sequence
from RestrictedPython.transformer import INSPECT_ATTRIBUTES

from sandbox.modules import MODULES, Namespace, guarded_import

# Objects whose every attribute leads to frames, code or the interpreter.
_OPAQUE_TYPES = (
    types.FrameType, types.TracebackType, types.CodeType, types.ModuleType,
    types.CoroutineType, types.AsyncGeneratorType, types.CellType,
)
_GENERATOR_METHODS = frozenset({"send", "throw", "close"})
_WRITABLE_TYPES = (dict, list, collections.deque)
_MISSING = object()

_INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow,
    "<<=": operator.ilshift, ">>=": operator.irshift, "|=": operator.ior,
    "^=": operator.ixor, "&=": operator.iand, "@=": operator.imatmul,
}


class ActionError(Exception):
    """Raised inside the program when the host's handler reports an error for an action."""


def _check_template(template: str) -> None:
    """Allow ``{}``, ``{0}``, ``{name}`` fields only; ``{0.attr}`` / ``{0[key]}`` walk objects."""
    for _literal, field, spec, _conversion in string.Formatter().parse(template):
        if field is not None and ("." in field or "[" in field):
            raise ValueError(f"format field '{{{field}}}' is not allowed: use simple fields")
        if spec and "{" in spec:
            _check_template(spec)


def safe_format(template: str, /, *args: Any, **kwargs: Any) -> str:
    _check_template(template)
    return str.format(template, *args, **kwargs)


def safe_format_map(template: str, mapping: Any, /) -> str:
    _check_template(template)
    return str.format_map(template, mapping)


def _bound(function: Callable[..., str], template: str) -> Callable[..., str]:
    def method(*args: Any, **kwargs: Any) -> str:
        return function(template, *args, **kwargs)

    return method


def _forwarded_to(obj: Any) -> Any:
    """The object a proxy passes an attribute lookup on to, or ``obj`` if it passes none on.

    Three built-in types answer a lookup of a public name with another object's attribute:
    a bound ``super`` (``super(S, s).format`` is ``str.format`` bound to ``s``), a method
    (``classmethod(x)`` binds any object, so ``C.m.format`` is ``x.format``) and a generic
    alias (``S[int].format`` is ``S.format``, for a ``str`` subclass that also derives from
    ``collections.ChainMap``).
    """
    if isinstance(obj, super) and obj.__self__ is not None:
        return obj.__self__
    if isinstance(obj, types.MethodType):
        return obj.__func__
    if isinstance(obj, types.GenericAlias):
        return obj.__origin__
    return obj


def _looked_up_on(obj: Any) -> Any:
    """The object whose attributes a lookup on ``obj`` finds, through any chain of proxies.

    The checks must look at that object: through a proxy a ``str`` gets the unguarded
    ``format`` and walks ``'{0.__globals__}'`` again, an exception gives its ``obj`` and a
    class its ``mro``.
    """
    target = _forwarded_to(obj)
    while target is not obj:
        obj, target = target, _forwarded_to(target)
    return target


def guarded_getattr(obj: Any, name: str, default: Any = _MISSING) -> Any:
    """``_getattr_`` and the program's ``getattr``; a refused name raises even with a default."""
    if type(name) is not str:
        raise TypeError("attribute name must be a string")
    if name.startswith("_") or name in INSPECT_ATTRIBUTES:
        raise AttributeError(f"access to attribute '{name}' is not allowed")
    target = _looked_up_on(obj)
    if isinstance(target, _OPAQUE_TYPES) or (
        isinstance(target, types.GeneratorType) and name not in _GENERATOR_METHODS
    ):
        raise AttributeError(f"access to attributes of {type(target).__name__} objects is not allowed")
    exception = isinstance(target, BaseException) or (isinstance(target, type) and issubclass(target, BaseException))
    if (name == "obj" and exception) or (name == "mro" and isinstance(target, type)):  # the class's obj is its descriptor
        raise AttributeError(f"access to attribute '{name}' is not allowed")
    if isinstance(target, str) and name in ("format", "format_map"):
        return _bound(safe_format if name == "format" else safe_format_map, target)
    if isinstance(target, type) and issubclass(target, str) and name in ("format", "format_map"):
        return safe_format if name == "format" else safe_format_map
    if default is _MISSING:
        return getattr(obj, name)
    return getattr(obj, name, default)


def guarded_hasattr(obj: Any, name: str) -> bool:
    try:
        guarded_getattr(obj, name)
    except AttributeError:
        return False
    return True


def guarded_getitem(obj: Any, key: Any) -> Any:
    return obj[key]


def guarded_getiter(obj: Any) -> Any:
    return obj


def guarded_inplacevar(op: str, target: Any, value: Any) -> Any:
    return _INPLACE[op](target, value)


def guarded_apply(function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    return function(*args, **kwargs)


class Printer:
    """One capped buffer for every ``print`` in the program (RestrictedPython makes one per scope)."""

    MARKER = "\n[output truncated]"

    def __init__(self, cap: int) -> None:
        self._parts: list[str] = []
        self._room = cap
        self.truncated = False

    def _call_print(self, *objects: Any, sep: str | None = " ", end: str | None = "\n",
                    file: Any = None, flush: bool = False) -> None:
        if file is not None:
            raise TypeError("print(file=...) is not allowed")
        if not isinstance(sep, (str, type(None))) or not isinstance(end, (str, type(None))):
            raise TypeError("sep and end must be None or a string")
        text = (" " if sep is None else sep).join(map(str, objects)) + ("\n" if end is None else end)
        if len(text) > self._room:
            self.truncated = True
            text = text[: self._room]
        self._room -= len(text)
        self._parts.append(text)

    def __call__(self) -> str:
        """The value of RestrictedPython's ``printed`` name, and the captured output."""
        return "".join(self._parts) + (self.MARKER if self.truncated else "")


def _builtin_names() -> dict[str, Any]:
    import builtins

    names = [
        "__build_class__", "abs", "all", "any", "bool", "callable", "chr", "classmethod", "dict", "divmod",
        "enumerate", "filter", "float", "format", "frozenset", "hash", "hex", "int", "isinstance",
        "issubclass", "iter", "len", "list", "map", "max", "min", "next", "object", "oct", "ord",
        "pow", "property", "range", "repr", "reversed", "round", "set", "slice", "sorted",
        "staticmethod", "str", "sum", "super", "tuple", "zip",
        "ArithmeticError", "AssertionError", "AttributeError", "BaseException", "Exception",
        "ImportError", "IndexError", "KeyError", "LookupError", "MemoryError", "NameError",
        "NotImplementedError", "OverflowError", "RecursionError", "RuntimeError",
        "StopIteration", "TypeError", "UnicodeError", "ValueError", "ZeroDivisionError",
    ]
    return {name: getattr(builtins, name) for name in names}


_BUILTINS = _builtin_names()
#: The built-in names a program may call: the list above, the allowed modules (there without an
#: import), the guarded ``getattr``/``hasattr``, ``ActionError`` and ``print``. A checker that
#: reads a program before it runs refuses others by this list rather than Python's own.
PROGRAM_BUILTINS = frozenset(_BUILTINS) | frozenset(MODULES) | {"getattr", "hasattr", "ActionError", "print"}


def namespace(printer: Printer) -> dict[str, Any]:
    """Fresh globals for one program: builtins, guards and the hooks RestrictedPython expects."""
    program_classes: set[type] = set()

    def make_class(name: str, bases: tuple[type, ...], body: dict[str, Any], **kw: Any) -> type:
        cls = type(name, bases, body, **kw)
        program_classes.add(cls)
        return cls

    def guarded_write(obj: Any) -> Any:
        """Only containers and the program's own classes and instances may be written to."""
        if isinstance(obj, _WRITABLE_TYPES) or type(obj) in program_classes or (
            isinstance(obj, type) and obj in program_classes
        ):
            return obj
        raise TypeError(f"cannot modify {type(obj).__name__} objects")

    builtins = dict(_BUILTINS)
    builtins.update(MODULES)  # the prompt names them as there to use; an import gives the same ones
    builtins.update(
        __import__=guarded_import, getattr=guarded_getattr, hasattr=guarded_hasattr,
        ActionError=ActionError,
    )
    return {
        "__builtins__": builtins,
        "__name__": "program",
        "__metaclass__": make_class,
        "_getattr_": guarded_getattr,
        "_getitem_": guarded_getitem,
        "_getiter_": guarded_getiter,
        "_write_": guarded_write,
        "_inplacevar_": guarded_inplacevar,
        "_apply_": guarded_apply,
        "_print_": lambda _getattr_=None: printer,
        "_print": printer,
        "_unpack_sequence_": guarded_unpack_sequence,
        "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
    }


def expose(names: Iterable[str], make: Callable[[str], Callable[..., Any]]) -> dict[str, Any]:
    """Globals for the action names; ``"env.step"`` becomes an object ``env`` with ``step``."""
    tree: dict[str, Any] = {}
    for dotted in names:
        *parents, leaf = dotted.split(".")
        node = tree
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = make(dotted)

    def build(label: str, node: dict[str, Any]) -> Namespace:
        return Namespace(label, {k: build(f"{label}.{k}", v) if isinstance(v, dict) else v
                                 for k, v in node.items()})

    return {k: build(k, v) if isinstance(v, dict) else v for k, v in tree.items()}
