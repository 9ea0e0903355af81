"""Generalising a harvested program: literals copied from the instruction become reads of ``task``.

A small model solving a task zero-shot often copies the instruction's answer into its program
(``click('label', 'peh7J')`` for "Select peh7J and click Submit."). That program solves its own
page only, the harvest's check refuses it, and the paper names the same failure of its ACG: a
kept program that worked once is copied rather than generalised. Here the harvest rewrites such
a program before giving up on it: each string literal that the instruction holds, and that a
page of another seed does not (as whole words, in any case), is replaced by a variable that a
regular expression reads from ``task`` by the words around it::

    import re
    from_task = re.search(r'Select (.+?) and', task).group(1)
    click('label', from_task)

Comments that name a lifted text go with it. The rewrite is only a candidate: the harvest
keeps it if it solves the check's fresh seeds, as any other. It never touches literals the
other instruction also has (``'Submit'``), nor text built at run time (f-strings), so a program
that already reads ``task`` is left as is.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize

#: The variable names the rewrite introduces, numbered from the second on.
VARIABLE = "from_task"
_WORD = re.compile(r"\w")
_BEFORE = re.compile(r"\w+\W*$")
_AFTER = re.compile(r"\W*\w+")
_SPECIAL = re.compile(r"[.^$*+?{}\[\]\\|()]")


def lift(program: str, instruction: str, other: str) -> str | None:
    """``program`` with the literals that vary between ``instruction`` and ``other`` (the
    instruction of a seed it failed on) read from ``task``; None when there is none to lift
    or the program does not parse."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return None
    literals = [node for node in _plain_strings(tree)
                if _WORD.search(node.value) and _place(node.value, instruction) is not None
                and _place(node.value, other) is None]
    if not literals:
        return None
    names: dict[str, str] = {}
    for node in literals:
        names.setdefault(node.value, VARIABLE if not names else f"{VARIABLE}_{len(names) + 1}")
    lines = [line.encode() for line in program.splitlines()]  # ast's columns count UTF-8 bytes
    for node in sorted(literals, key=lambda n: (n.lineno, n.col_offset), reverse=True):
        line = lines[node.lineno - 1]
        lines[node.lineno - 1] = line[:node.col_offset] + names[node.value].encode() + line[node.end_col_offset:]
    reads = [f"{name} = re.search({_raw(pattern(value, instruction))}, task).group(1)"
             for value, name in names.items()]
    body = _without_comments_naming("\n".join(line.decode() for line in lines), list(names))
    return "\n".join(["import re", *reads, body])


def _without_comments_naming(program: str, values: list[str]) -> str:
    """``program`` without the comments that name a lifted value ("# click the label 'peh7J'"):
    shown as an example, they would teach copying the very answer the rewrite stopped copying."""
    lines = program.split("\n")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(program).readline))
    except (tokenize.TokenError, SyntaxError):
        return program
    for token in reversed(tokens):
        if token.type == tokenize.COMMENT and any(v.lower() in token.string.lower() for v in values):
            row, col = token.start
            lines[row - 1] = lines[row - 1][:col].rstrip()
    return "\n".join(lines)


def pattern(value: str, instruction: str) -> str:
    """A regular expression whose group 1 is ``value`` in ``instruction``, anchored by the word
    before it and the word after it (or the instruction's start and end), so it finds the
    same place in the instruction of another seed, whatever stands there."""
    start = _place(value, instruction)
    if start is None:
        raise ValueError(f"{value!r} is not a whole text of {instruction!r}")
    before, after = instruction[:start], instruction[start + len(value):]
    left = _BEFORE.search(before)
    right = _AFTER.match(after)
    head = _escape(left.group(0)) if left else "^" + _escape(before)
    tail = _escape(right.group(0)) if right else _escape(after) + "$"
    return f"{head}(.+?){tail}"


def _place(value: str, instruction: str) -> int | None:
    """Where ``value`` first stands in ``instruction`` as whole words (``'5'`` is not in "Tab #15"),
    in any case: click matches texts so, and models re-case what they copy ("Tempus" for "tempus")."""
    found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", instruction, re.IGNORECASE)
    return found.start() if found else None


def _escape(text: str) -> str:
    """``text`` as a literal in a pattern, spaces left readable (``re.escape`` escapes them)."""
    return _SPECIAL.sub(r"\\\g<0>", text)


def _raw(text: str) -> str:
    """``text`` as a Python literal, raw when it can be, as a person writes a pattern."""
    for quote in ("'", '"'):
        if quote not in text and "\n" not in text and not text.endswith("\\"):
            return f"r{quote}{text}{quote}"
    return repr(text)


def _plain_strings(tree: ast.AST) -> list[ast.Constant]:
    """String constants on one line that are not parts of an f-string (whose pieces have no
    position of their own to splice at)."""
    inside_fstrings = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                       for part in ast.walk(node)}
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in inside_fstrings
            and node.lineno == node.end_lineno]
