"""Compile-time policy: RestrictedPython's transformer, plus augmented assignment on items.

The transformer rewrites every attribute access, item access, iteration, write and print into a
call of a guard (see ``sandbox.guards``) and rejects names that start with ``_``, so ``__class__``,
``__globals__``, ``__builtins__`` and friends cannot even be spelled. This is a policy layer: the
process confinement in ``sandbox.confine`` is what holds if it has a gap.
"""

from __future__ import annotations

import ast
import re
import types
import warnings

from RestrictedPython import compile_restricted_exec
from RestrictedPython.transformer import (
    INSPECT_ATTRIBUTES,
    IOPERATOR_TO_STR,
    RestrictingNodeTransformer,
    copy_locations,
)

FILENAME = "<program>"
_MAX_ERROR_CHARS = 300
_RP_ERROR = re.compile(r"^Line (\d+): (.*)$", re.DOTALL)


class ProgramError(Exception):
    """A program that cannot run; the message is the one line shown to the model."""


def one_line(text: str) -> str:
    """Collapse whitespace and cap the length: errors go into prompts and traces."""
    line = " ".join(text.split())
    return line if len(line) <= _MAX_ERROR_CHARS else line[: _MAX_ERROR_CHARS - 3] + "..."


class Transformer(RestrictingNodeTransformer):
    """RestrictedPython's policy, with ``x[k] += v`` and ``obj.attr += v`` allowed.

    Generated programs count with ``counts[word] += 1`` all the time; RestrictedPython rejects
    it only because it has no guarded form. The rewrite evaluates the container and key once and
    routes the read through ``_getitem_``/``_getattr_`` and the write through ``_write_``.
    """

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | list[ast.stmt] | None:
        target = node.target
        if isinstance(target, ast.Name):
            return super().visit_AugAssign(node)
        if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Slice):
            self.error(node, "Augmented assignment of slices is not allowed.")
            return node
        if isinstance(target, ast.Attribute) and (
            target.attr.startswith("_") or target.attr in INSPECT_ATTRIBUTES
        ):
            self.error(node, f'"{target.attr}" is an invalid attribute name.')
            return node
        if not isinstance(target, (ast.Subscript, ast.Attribute)):  # pragma: no cover - grammar
            self.not_allowed(node)
            return node

        obj = self.gen_tmp_name()
        statements: list[ast.stmt] = [
            ast.Assign(targets=[ast.Name(obj, ast.Store())], value=self.visit(target.value))
        ]
        container = ast.Call(ast.Name("_write_", ast.Load()), [ast.Name(obj, ast.Load())], [])
        read: ast.expr
        write: ast.expr
        if isinstance(target, ast.Subscript):
            key = self.gen_tmp_name()
            statements.append(
                ast.Assign(targets=[ast.Name(key, ast.Store())], value=self.visit(target.slice))
            )
            read = ast.Call(
                ast.Name("_getitem_", ast.Load()),
                [ast.Name(obj, ast.Load()), ast.Name(key, ast.Load())],
                [],
            )
            write = ast.Subscript(container, ast.Name(key, ast.Load()), ast.Store())
        else:
            read = ast.Call(
                ast.Name("_getattr_", ast.Load()),
                [ast.Name(obj, ast.Load()), ast.Constant(target.attr)],
                [],
            )
            write = ast.Attribute(container, target.attr, ast.Store())
        operation = ast.Call(
            ast.Name("_inplacevar_", ast.Load()),
            [ast.Constant(IOPERATOR_TO_STR[type(node.op)]), read, self.visit(node.value)],
            [],
        )
        statements.append(ast.Assign(targets=[write], value=operation))
        for statement in statements:
            copy_locations(statement, node)
            ast.fix_missing_locations(statement)
        return statements


def compile_program(code: str) -> types.CodeType:
    """Parse, apply the policy and compile; raise ProgramError with one line on any failure."""
    if type(code) is not str:
        raise ProgramError(f"TypeError: program must be str, not {type(code).__name__}")
    try:
        with warnings.catch_warnings():
            # "\d" in a regex literal or `x is 1` must not fail a program (pytest turns warnings
            # into errors, and a model cannot act on a warning anyway).
            warnings.simplefilter("ignore")
            tree = ast.parse(code, FILENAME, "exec")
            result = compile_restricted_exec(tree, FILENAME, policy=Transformer)
    except SyntaxError as exc:
        raise ProgramError(one_line(f"SyntaxError: {exc.msg} (line {exc.lineno})")) from None
    except (ValueError, RecursionError, MemoryError) as exc:
        # The parser's own stack overflowing raises a MemoryError with no text.
        why = str(exc) or "it is nested too deeply"
        raise ProgramError(one_line(f"SyntaxError: program cannot be compiled ({why})")) from None
    if result.errors:
        match = _RP_ERROR.match(result.errors[0])
        text = f"{match.group(2)} (line {match.group(1)})" if match else result.errors[0]
        raise ProgramError(one_line(f"PolicyError: {text}"))
    assert result.code is not None
    return result.code


def check(code: str) -> str | None:
    """Compile under the policy only; the one-line error, or None if the program may run."""
    try:
        compile_program(code)
    except ProgramError as exc:
        return str(exc)
    return None
