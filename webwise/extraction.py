"""Pulling a program out of a model's reply, and checking it before it runs.

Replies come with prose, several fences (```python, ```py, bare ```), a fence cut off by
the token limit or a stop sequence, or no fence at all. The checks catch what small
models get wrong before a program wastes a step: Selenium code they were told not to
write, invented helper functions, wrong arity; each becomes one line of feedback. And
what makes two programs the same one (:func:`normal`), for the agent's refusal to run a
program twice on one page and the store's refusal to keep an example twice; and the one
edit the harness makes to a program (:func:`rewrite_clicks`).
"""

from __future__ import annotations

import ast
import builtins
import inspect
import keyword
import textwrap
from typing import Callable

import regex

import api_stubs
from api_stubs import program_api
from sandbox import PROGRAM_BUILTINS
from webwise.matching import described

# No two runs of spaces in a row (a fence and a long run of spaces then took quadratic time).
# The closing fence stands at a line's start, which may be the body's own start (an empty block).
_FENCE = regex.compile(r"```[ \t]*(?:([A-Za-z0-9_+-]+)[ \t]*)?\n(.*?)(?:(?<=\n)[ \t]*```|\Z)", regex.DOTALL)
#: A fence where unfenced code is read: a line that is one (with its language), or three backticks
#: glued to a line's start or end (```click('a', 'b')```). Backticks inside a line are the program's.
_FENCE_MARK = regex.compile(r"^[ \t]*```(?:[ \t]*[A-Za-z0-9_+-]+[ \t]*$)?|```[ \t]*$", regex.MULTILINE)
#: Reasoning models (DeepSeek-R1, Qwen3, ...) write drafts in a think block before their answer.
_THINK_START, _THINK_END = "<think>", "</think>"
#: A line that opens or closes a fenced block: an odd number of them before a place puts it inside one.
_FENCE_LINE = regex.compile(r"^[ \t]*```", regex.MULTILINE)
#: A ``</think>`` that starts a line, as a think block opened by the chat template ends.
_THINK_END_LINE = regex.compile(r"^[ \t]*</think>", regex.MULTILINE)
#: A line that is one inline-code span: `click('button', 'OK')`.
_INLINE_LINE = regex.compile(r"^[ \t]*`([^`\n]+)`[ \t]*$", regex.MULTILINE)
_CODE_LANGS = {"", "python", "py", "python3", "py3"}
_SELENIUM_NAMES = {"driver", "webdriver", "By", "Keys", "ActionChains", "WebDriverWait", "selenium"}
_SELENIUM_ATTRS = {"execute_script", "send_keys", "find_element", "find_elements", "switch_to"}
_CODE_START = regex.compile(
    r"^\s*(?:[A-Za-z_][\w.]*\s*(?:\(|=|\[|,|\+=|-=)|(?:for|while|if|def|import|from|try|with|print|return|pass)\b)"
)


#: The part of a reply extraction reads: ten times the default completion budget (400 tokens,
#: about 1,600 characters). Past it a reply only costs the host time; it gives no better program.
MAX_REPLY_CHARS = 16_000
#: The ``ast.parse`` calls one reply may cost (each of at most MAX_REPLY_CHARS). Looking for the
#: longest parsable run of lines from every code-like line took seconds to tens of seconds on a
#: reply of a few hundred unfenced lines (a parse per line end per start); the search now jumps
#: to the line a syntax error names, and stops when this many attempts are spent.
MAX_PARSES = 32
# What ast.parse raises on text that is no program (or one nested too deep to parse).
_UNPARSABLE = (SyntaxError, ValueError, RecursionError, MemoryError)


class ExtractionError(ValueError):
    """No usable program in the reply; the one-line message goes back to the model."""


def extract_program(reply: str) -> str:
    """The program in ``reply``, checked against the API, or :class:`ExtractionError`.

    Only the first :data:`MAX_REPLY_CHARS` characters are read, with at most
    :data:`MAX_PARSES` parse attempts: no reply holds the host longer than that.
    """
    read = _readable(reply)
    parser = _Parser()
    start = _answer_start(read)
    program = _best_block(read[start:], parser) if start else None
    if program is None:
        program = _best_block(read, parser)
    # A program cut at the limit may have lost its actions: every error says what was read.
    cut = f" (its first {MAX_REPLY_CHARS} characters)" if len(reply) > MAX_REPLY_CHARS else ""
    if program is None:
        raise ExtractionError(f"no Python code found in the reply{cut}{_why_not_code(read[start:])}; "
                              "answer with one ```python code block")
    try:
        return check_program(program)
    except ExtractionError as exc:
        if not cut:
            raise
        raise ExtractionError(f"in the reply{cut}, {exc}") from None


def _readable(reply: str) -> str:
    """The part of ``reply`` that is read, with its line ends made ``\n``."""
    return _unix_lines(reply[:MAX_REPLY_CHARS])


def _unix_lines(text: str) -> str:
    """``text`` with Windows (``\r\n``) and old Mac (``\r``) line ends made ``\n``, as the fences expect."""
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _answer_start(reply: str) -> int:
    """Where the answer starts: after the reply's think block, else at 0.

    The drafts inside the block are what the model weighed, not what it answered; they are
    read only when nothing after the block is a program (a reply cut off while thinking, so
    with no ``</think>``). A reasoning model opens its reply with the block, or, when its chat
    template wrote the ``<think>`` into the prompt (DeepSeek-R1's), the reply holds only the
    ``</think>``, at a line's start, outside any code block and before the answer's block. A ``</think>``
    anywhere else is text (a comment or a string of the program, prose after it), and taking
    it for the block's end cut the program or skipped it.
    """
    opened = len(reply) - len(reply.lstrip())
    if reply.startswith(_THINK_START, opened):
        end = reply.find(_THINK_END, opened + len(_THINK_START))
        return end + len(_THINK_END) if end >= 0 else 0
    closing = _THINK_END_LINE.search(reply)
    if closing is None or _THINK_START in reply[:closing.start()]:
        return 0
    if len(_FENCE_LINE.findall(reply, 0, closing.start())) % 2:  # inside a code block: text
        return 0
    return closing.end() if _FENCE.search(reply, closing.end()) else 0


def _why_not_code(reply: str) -> str:
    """Where the reply's first code block breaks, when it does, for the model to mend.

    A block none of whose lines parse (a one-line program of calls joined by ``;``, cut
    off mid-call) was reported as no code at all, and the 1.5B wrote the same line again.
    """
    body = next((block for block in _code_blocks(reply) if block.strip()), "")
    try:
        ast.parse(body)
    except SyntaxError as exc:  # a NUL byte is one without a line
        where = f", line {exc.lineno}" if exc.lineno else ""
        return f": its code block does not parse ({exc.msg}{where})"
    except UnicodeEncodeError:
        return ": its code block holds a lone surrogate (U+D800-U+DFFF), half of a character"
    except _UNPARSABLE:
        pass
    return ""


class _Parser:
    """``ast.parse`` with a budget of :data:`MAX_PARSES` attempts for one reply."""

    def __init__(self) -> None:
        self.left = MAX_PARSES

    def parse(self, code: str) -> tuple[ast.Module | None, int]:
        """``code``'s tree, or None and the line its syntax error is on (0: none named, or out of attempts)."""
        if self.left <= 0:
            return None, 0
        self.left -= 1
        try:
            return ast.parse(code), 0
        except SyntaxError as exc:
            return None, exc.lineno or 0
        except _UNPARSABLE:  # nested too deep, null bytes, lone surrogates: no program
            return None, 0


def _best_block(reply: str, parser: _Parser) -> str | None:
    """The first fenced block that parses and calls an action; else the first block mended; else bare code lines.

    A first block that does not parse loses its prose lines, then is cut before the line that
    still breaks it: the token limit or the agent's stop sequence cut most such blocks, and a
    closing fence says little (the stop sequence takes it off; a small model writes a junk
    last line, a pasted API line, inside a closed block, after calls that solve the task).
    No cut mends a character Python refuses anywhere (a NUL, a lone surrogate), on which the
    parser names no line: that block gives None, not a piece of it read as bare code, and
    the error says why.
    """
    blocks = _code_blocks(reply)
    parsed: list[str] = []
    for block in blocks:
        tree = parser.parse(block)[0] if block.strip() else None
        if tree is not None:
            if _uses_action(tree):
                return block
            parsed.append(block)
    if parsed:
        return parsed[0]
    if blocks and blocks[0].strip():
        lines, tree, line = _without_prose(blocks[0].split("\n"), parser)
        if tree is not None:
            return "\n".join(lines).strip("\n")
        if not line:
            return None
        prefix = _parsable_prefix(lines[:line - 1], parser)
        if prefix:
            return prefix[0]
    return _bare_code(reply, parser)


def _without_prose(lines: list[str], parser: _Parser) -> tuple[list[str], ast.Module | None, int]:
    """``lines`` less the prose lines a parse trips on (``Then type the name:`` between calls),
    with what parsing the rest gave: its tree, or None and the line its error is on.

    A line counts as prose when it is not indented and does not start like code or with a
    Python keyword (``else:`` is code, whatever error the parser names on it); the first error
    on any other line ends the search.
    """
    lines = list(lines)
    while True:
        tree, line = parser.parse("\n".join(lines))
        if tree is None and 0 < line <= len(lines) and _is_prose(lines[line - 1]):
            del lines[line - 1]
        else:
            return lines, tree, line


def _is_prose(line: str) -> bool:
    words = line.split(maxsplit=1)
    return (bool(words) and not line.startswith((" ", "\t", "#")) and not _CODE_START.match(line)
            and not keyword.iskeyword(words[0].rstrip(":")))


def _code_blocks(reply: str) -> list[str]:
    """The reply's fenced blocks marked as Python (or unmarked), dedented, in order."""
    return [_without_language_line(_dedent(body)) for lang, body in _FENCE.findall(reply)
            if lang.lower() in _CODE_LANGS]


def _without_language_line(body: str) -> str:
    """``body`` less a first line that only names the language (a bare fence, then ``python``)."""
    first, _, rest = body.partition("\n")
    return rest.lstrip("\n") if first.strip().lower() in _CODE_LANGS - {""} else body


def _bare_code(reply: str, parser: _Parser) -> str | None:
    """Unfenced code: the longest parsable run of lines starting at a code-looking line.

    A start inside a run already found is not tried again: its run is a piece of that one.
    Only ``\n`` ends a line: a string may hold U+2028 or a form feed, which ``splitlines`` splits on.
    """
    lines = _INLINE_LINE.sub(r"\1", _FENCE_MARK.sub("", reply)).split("\n")
    best: str | None = None
    covered = 0
    for start, line in enumerate(lines):
        if start < covered or not _CODE_START.match(line) or line.startswith((" ", "\t")):
            continue
        found = _parsable_prefix(lines[start:], parser)
        if found is None:
            if parser.left <= 0:
                break
            continue
        text, end, tree = found
        covered = start + end
        if _uses_action(tree) and (best is None or len(text) > len(best)):
            best = text
    return best


def _parsable_prefix(lines: list[str], parser: _Parser) -> tuple[str, int, ast.Module] | None:
    """The longest run ``lines[:end]`` that parses, with ``end`` and its tree.

    A syntax error on line n is taken to rule out every run that reaches line n (the parser
    reads in order), so the next try ends before it rather than one line earlier.
    """
    end = len(lines)
    while end > 0:
        text = "\n".join(lines[:end])
        if not text.strip():
            return None
        tree, line = parser.parse(text)
        if tree is not None:
            return text.strip("\n"), end, tree
        if parser.left <= 0:
            return None
        end = min(end - 1, line - 1) if line > 0 else end - 1
    return None


def _dedent(code: str) -> str:
    return textwrap.dedent(code).strip("\n")


def _uses_action(tree: ast.AST) -> bool:
    """Whether the code names an action to use it: a call, or the function itself put in a table or
    given another name (``for action, args in plan: action(*args)``), which a check cannot follow."""
    names = set(api_stubs.ACTION_NAMES)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            return True
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and \
                f"{node.value.id}.{node.attr}" in names:
            return True
    return False


def _call_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        return f"{func.value.id}.{func.attr}"
    return ""


_ARITY = {
    name: inspect.signature(program_api.Env.step if name == "env.step" else getattr(program_api, name))
    for name in api_stubs.ACTION_NAMES
}


def check_program(code: str) -> str:
    """Refuse Selenium code, invented functions, wrong arity and programs that never act.

    Redefined API stubs and copies of the page or task (``observation = [...]``) are
    dropped first: small models paste them, and they would shadow the real values.
    Code nested too deep to parse or print back is refused like any other.
    """
    try:
        return _checked(code)
    except ExtractionError:
        raise
    except _UNPARSABLE as exc:
        raise ExtractionError(_unreadable(exc)) from None


def _unreadable(exc: BaseException) -> str:
    """The one line for a program ``ast`` cannot read or write back."""
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    if isinstance(exc, (RecursionError, MemoryError)):
        return "the program is nested too deeply to read; write it with fewer nested expressions"
    return f"the program cannot be read: {exc}"


def _checked(code: str) -> str:
    tree = ast.parse(code)
    marker = _selenium_marker(tree)
    if marker:
        raise ExtractionError(
            f"the program uses Selenium ({marker}); use only click, enter_text, press_key and scroll"
        )
    statements = len(tree.body)
    tree.body = [node for node in tree.body if not _redefines_api(node) and not _copies_data(node)]
    if statements and not tree.body:
        raise ExtractionError("the reply only redefines the API functions or copies the page; call the actions instead")
    guarded = [_main_guarded(node) for node in tree.body]
    changed = len(tree.body) != statements or any(inner is not None for inner in guarded)
    tree.body = [inner for node, body in zip(tree.body, guarded) for inner in (body if body is not None else [node])]
    defined = _defined_names(tree)
    known = defined | PROGRAM_BUILTINS | set(api_stubs.DATA_NAMES) | {"env"}
    known |= {n.split(".")[0] for n in api_stubs.ACTION_NAMES}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _call_name(node)
        if isinstance(node.func, ast.Name) and name in dir(builtins) and name not in known:
            raise ExtractionError(f"{name}() is a Python built-in that programs cannot use here; the page is "
                                  "reached only through click, enter_text, press_key and scroll")
        if isinstance(node.func, ast.Name) and name not in known:
            raise ExtractionError(
                f"{name}() is not defined; use only click, enter_text, press_key and scroll"
            )
        if name in _ARITY and name not in defined:
            _check_arity(name, node)
    if not _uses_action(tree):
        raise ExtractionError("the program calls no action; task and observation are already defined: "
                              "call click, enter_text, press_key or scroll")
    uncalled = _uncalled_actor(tree)
    if uncalled:
        raise ExtractionError(f"{uncalled}() holds the actions but nothing calls it; call {uncalled}() at the "
                              "end, or write the actions at the top level")
    return ast.unparse(tree) if changed else code


def _main_guarded(node: ast.stmt) -> list[ast.stmt] | None:
    """The body of ``if __name__ == "__main__":``, which a script always runs; None for any other statement.

    The sandbox has no ``__name__`` (names with underscores are refused), so the guard is
    taken away rather than run.
    """
    if not isinstance(node, ast.If) or node.orelse or not isinstance(node.test, ast.Compare):
        return None
    test = node.test
    if len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return None
    sides = {_name_or_text(test.left), _name_or_text(test.comparators[0])}
    return node.body if sides == {"name:__name__", "text:__main__"} else None


def _name_or_text(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return f"name:{node.id}"
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return f"text:{node.value}"
    return ""


def _uncalled_actor(tree: ast.Module) -> str | None:
    """The function holding every action call when no line of the program names it, else None.

    The models wrap their program in ``def main():`` and forget the call; it would run, do
    nothing, and the model would hear only that nothing changed. A function named anywhere
    (called, passed, or a method reached through an attribute) counts as called.
    """
    top_level = ast.Module(body=[n for n in tree.body if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                             ast.ClassDef))], type_ignores=[])
    if _uses_action(top_level):
        return None
    named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    named |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    actors = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and _uses_action(n)]
    if not actors or any(actor.name in named for actor in actors):
        return None
    return actors[0].name


def _copies_data(node: ast.stmt) -> bool:
    """``observation = [...]`` or ``task = "..."``: a literal copy of what the sandbox provides."""
    return (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
            and node.targets[0].id in api_stubs.DATA_NAMES
            and isinstance(node.value, (ast.List, ast.Dict, ast.Tuple, ast.Constant, ast.JoinedStr)))


def _selenium_marker(tree: ast.Module) -> str | None:
    """The first sign of browser-automation code the model was told not to write."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in _SELENIUM_NAMES:
            return node.id
        if isinstance(node, ast.Attribute) and node.attr in _SELENIUM_ATTRS:
            return node.attr
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            modules = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
            if any(m.split(".")[0] == "selenium" for m in modules):
                return "import selenium"
    return None


def _redefines_api(node: ast.stmt) -> bool:
    return isinstance(node, (ast.FunctionDef, ast.ClassDef)) and (
        node.name in api_stubs.ACTION_NAMES or node.name == "Env"
    )


def _defined_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _check_arity(name: str, call: ast.Call) -> None:
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return
    signature = _ARITY[name]
    params = [p for p in signature.parameters if p != "self"]
    try:
        signature.bind(*([None] * (name == "env.step")), *call.args, **{k.arg: None for k in call.keywords})
    except TypeError:
        message = f"{name}() takes {len(params)} argument(s) ({', '.join(params)}), got {len(call.args) + len(call.keywords)}"
        split = _split_line(call) if name in _TAG_TEXT else None
        raise ExtractionError(message + (f": for that element write {name}{split}" if split else "")) from None


#: The actions whose first two arguments name an element as its tag and its text.
_TAG_TEXT = frozenset({"click", "hover"})
#: A copied page line's leading tag: ``div`` of ``div#wrap``, ``h3`` of ``h3 "Section #1" #ui-id-1``.
_LEADING_TAG = regex.compile(r"\s*([A-Za-z][A-Za-z0-9_]*)(?=[\s#.\"]|$)(.*)", regex.S)


def _split_line(call: ast.Call) -> str | None:
    """The arguments ``('h3', 'Section #1')`` for a call given one copied page line, or None.

    The 0.5B passes a whole line of the page as the one argument (``click('div#wrap')``,
    ``click('h3 "Section #1" #ui-id-1 .ui-accordion-header')``): the line's tag and its text
    (else its id) are the two arguments it meant.
    """
    if len(call.args) != 1 or call.keywords or not isinstance(call.args[0], ast.Constant):
        return None
    line = call.args[0].value
    match = _LEADING_TAG.match(line) if isinstance(line, str) else None
    description = described(match.group(2), match.group(1)) if match else None
    if description is None or not (description.text or description.names):
        return None
    return repr((match.group(1), description.text or description.names[0]))


def normal(program: str | None) -> str:
    """A program without comments and layout: two programs that differ only there are one.

    Small models rewrite the comments of a program they send again (the 1.5B's
    ``# submit the guess`` became ``# click the submit button``); that is no new program.
    """
    text = program or ""
    try:
        return ast.unparse(ast.parse(text))
    except _UNPARSABLE:
        return " ".join(text.split())


def rewrite_clicks(program: str, fix: Callable[[str, str], str | None]) -> tuple[str, dict[tuple[str, str], str]]:
    """``program`` with each ``click(tag, text)`` of literal arguments that ``fix`` maps to a
    call replaced by that call (``fix`` returns None to leave a click as written).

    Only the call's own text changes: comments, layout and everything else stay as written.
    Returns the new program and the ``(tag, text)`` replaced, each with its call. One parse
    finds the clicks and rewrites them, so the caller need not list them first.
    """
    try:
        tree = ast.parse(program)
    except _UNPARSABLE:
        return program, {}
    starts = [0]
    for line in program.encode().splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    answers: dict[tuple[str, str], str | None] = {}  # fix asked once a click
    edits: list[tuple[int, int, str]] = []
    for node in ast.walk(tree):
        key = _literal_click(node) if isinstance(node, ast.Call) else None
        if key is None:
            continue
        if key not in answers:
            answers[key] = fix(*key)
        call = answers[key]
        if call is not None:
            end = starts[(node.end_lineno or node.lineno) - 1] + (node.end_col_offset or 0)
            edits.append((starts[node.lineno - 1] + node.col_offset, end, call))
    text = program.encode()
    for begin, end, call in sorted(edits, reverse=True):
        text = text[:begin] + call.encode() + text[end:]
    return text.decode(), {key: call for key, call in sorted(answers.items()) if call is not None}


def _literal_click(node: ast.Call) -> tuple[str, str] | None:
    """``(tag, text)`` when ``node`` is ``click('tag', 'text')`` with string literals."""
    if _call_name(node) != "click" or len(node.args) != 2 or node.keywords:
        return None
    tag, text = (arg.value if isinstance(arg, ast.Constant) else None for arg in node.args)
    return (tag, text) if isinstance(tag, str) and isinstance(text, str) else None


def chars_past_block(reply: str) -> int:
    """Characters of ``reply`` after its first code block closes (0 when none closes).

    The agent stops generation at the closing fence, so this is what a reply spent past
    the program anyway: a block closed without the newline the stop sequence waits for,
    then more text. A reasoning model's think block comes before its answer, so the
    blocks inside it do not count. Line ends count as one character each.
    """
    whole = _unix_lines(reply)
    read = whole[:MAX_REPLY_CHARS]
    match = _FENCE.search(read, _answer_start(read))
    if match is None or (match.end() == len(read) < len(whole)):  # no block, or none closes in what is read
        return 0
    return len(whole) - match.end()
