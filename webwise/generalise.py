r"""Generalising a harvested program: literals copied from the instruction become reads of ``task``.

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

A text the instruction quotes is the copy of that quoted text, even where its word stands
earlier ('An' of 'Enter an item that starts with "An".'), and is read up to its closing quote
(``r'with "(.+?)"'``), whatever follows it on another seed: one task may quote one text or two.
A text with no word in it ("♥♥♥") is taken only as the whole of a quoted text.

Statements alike but for taking the items of one list of the instruction in turn become a
loop over that list, which may be longer or shorter on another seed, acting on the items the
page shows (another seed's list may be "nothing", which is no item to click)::

    texts_on_page = [element['text'] for element in observation]
    for item_from_task in re.search(r'Select (.+?) and', task).group(1).split(', '):
        if item_from_task in texts_on_page:
            click('label', item_from_task)

A literal built around a number the instruction states (an id after its ordinal: 'tt3' for
"Focus into the 3rd input") is built from that number read from ``task``, anchored on the
word before it only, since the suffix changes with the number::

    from_task = re.search(r'the (\d+)', task).group(1)
    click('input_text', 'tt' + from_task)

A whole number passed to an action that the instruction states (``wait(2)`` for "wait 2
seconds") is that number read from ``task`` the same way::

    wait(int(from_task))

A literal that is not the instruction's but the text of the page just after one of its texts
that varies (a table's cell after its label, for "Enter the value of Color") is read from the
page beside that key, whose texts are taken once, before any action changes the page::

    from_task = re.search(r'of (.+?) into', task).group(1)
    texts_on_page = [element['text'] for element in observation]
    enter_text(texts_on_page[texts_on_page.index(from_task) + 1])

When the key is not the instruction's but the label the form shows just before the field
("Color:" before the field 'tt1', for "Enter the value that corresponds with each label"), the
key is read from the page too, by the field's id, which stays while the labels change::

    texts_on_page = [element['text'] for element in observation]
    ids_on_page = [element['id'] for element in observation]
    enter_text(texts_on_page[texts_on_page.index(texts_on_page[ids_on_page.index('tt1') - 1].rstrip(': ')) + 1])

A copy the model typed all in upper or all in lower case keeps that case (typed text is
checked letter for letter); when the instruction names the case ("in all upper case letters"),
the case is read from ``task`` too, since another seed may ask for the other::

    enter_text(from_task.upper() if re.search(r'(?i)\bupper[ -]?case', task) else from_task.lower())

A click on a text the program computes (read from ``task`` or the page) that a check seed hides
in a closed tab or section, which the executor's error names with the control that opens it,
is preceded by a search through the controls of that kind, which stops at the one showing the
text (:func:`search_panels`)::

    shown_texts = [element['text'] for element in observation]
    for panel in [element['text'] for element in observation if 'ui-tabs-anchor' in element['classes'].split()]:
        if from_task in shown_texts:
            break
        shown_texts = [element['text'] for element in click('ui-tabs-anchor', panel)]
    click('a', from_task)

A loop of the model's own over a list read from ``task`` that raised on a check seed for want
of an element with one of its items' texts ("Select nothing and click Submit." lists
"nothing") acts only on the items the page shows, as the list rewrite's loops do
(:func:`skip_unseen_items`).

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
from typing import Sequence

from api_stubs import ACTION_NAMES, tag_parameters
from webwise.dom import Element

#: The variable names the rewrite introduces, numbered from the second on.
VARIABLE = "from_task"
#: The loop variable of a list read from the task.
LIST_VARIABLE = "item_from_task"
#: The page's texts in document order, read once before any action changes the page.
PAGE_TEXTS = "texts_on_page"
#: The page's element ids in document order, read with its texts (a field found by its id).
PAGE_IDS = "ids_on_page"
_WORD = re.compile(r"\w")
_BEFORE = re.compile(r"\w+\W*$")
_WORDS = re.compile(r"\w+")
#: How far back from a place the anchors look for the words before it: searched over a whole
#: long instruction (one from a results file) the pattern takes quadratic time.
_NEAR = 200
_AFTER = re.compile(r"\W*\w+")
#: The quotes an instruction may put around a text, each opening one with the one closing it.
_QUOTES = {'"': '"', "'": "'", "\u201c": "\u201d", "\u2018": "\u2019", "\u00ab": "\u00bb", "\u201e": "\u201c"}
_SPECIAL = re.compile(r"[.^$*+?{}\[\]\\|()]")
_DIGITS = re.compile(r"\d+")
_USES_RE = re.compile(r"\bre\.")
_PAGE_TEXTS_READ = f"{PAGE_TEXTS} = [element['text'] for element in observation]"
_PAGE_IDS_READ = f"{PAGE_IDS} = [element['id'] for element in observation]"
#: Tags of the fields a form labels.
_FIELD_TAGS = ("input", "textarea", "select")
#: An instruction naming the case to type in ("in all upper case letters").
_NAMED_CASE = re.compile(r"(?i)\b(upper|lower)[ -]?case")
_UPPER_CASE = re.compile(r"(?i)\bupper[ -]?case")
#: The executor's error for a text out of view in a closed panel, with the call that opens it
#: ("span 'ornare' is in a closed panel: click('a', '2') opens it").
_CLOSED_PANEL = re.compile(r"is in a closed panel: click\((.+)\) opens it")
#: What an action's error says when no element has the text it was given.
_NO_ELEMENT = "element with text"
#: The page's texts as the panel search last saw them, and the control it opens next.
SHOWN_TEXTS = "shown_texts"
PANEL = "panel"


def lift(program: str, instruction: str, other: str, page: Sequence[Element] = ()) -> str | None:
    """``program`` with the literals that vary between ``instruction`` and ``other`` (the
    instruction of a seed it failed on) read from ``task``, or from ``page`` (the page the
    program saw) beside a text read from ``task`` or from a field's label; None when there is
    none to lift or the program does not parse. A run of statements that differ only in taking
    the items of one of the instruction's lists in turn becomes a loop over that list first
    (:func:`_lift_list`), then each literal left is lifted on its own."""
    listed = _lift_list(program, instruction, other)
    return _lift_literals(listed or program, instruction, other, page) or listed


def search_panels(program: str, refusal: str, page: Sequence[Element]) -> str | None:
    """``program`` with each top-level click on a text it computes (a variable or expression, not
    a literal) preceded by a search through the page's panels, when ``refusal`` (why a check seed
    failed) says the text was in a closed panel; None otherwise, or when the program does not parse
    or has no such click, or ``page`` (the page where the error was raised) shows no set of
    controls like the one the error names.

    Tabs and accordion sections keep their closed panels' content out of the page, so a program
    that clicked a link its own seed showed fails on a seed that puts it in another tab
    (click-tab-2-hard). The controls to try are the elements sharing a class with the named one
    (jQuery UI's 'ui-tabs-anchor'); the search opens them in turn, and stops at the first whose
    page shows the text, then clicks it as before.
    """
    named = _CLOSED_PANEL.search(refusal)
    if named is None:
        return None
    try:
        tree = ast.parse(program)
        tag, text = ast.literal_eval(f"({named.group(1)},)")
    except (SyntaxError, ValueError):
        return None
    kind = _panel_class(tag, text, page)
    clicks = [statement for statement in tree.body if _clicks_computed_text(statement)]
    if kind is None or not clicks:
        return None
    lines = program.split("\n")
    for statement in reversed(clicks):
        call = statement.value
        assert isinstance(call, ast.Call)  # _clicks_computed_text saw to it
        wanted = ast.get_source_segment(program, call.args[1])
        lines[statement.lineno - 1:statement.lineno - 1] = [
            f"{SHOWN_TEXTS} = [element['text'] for element in observation]",
            f"for {PANEL} in [element['text'] for element in observation if {kind!r} in element['classes'].split()]:",
            f"    if {wanted} in {SHOWN_TEXTS}:",
            "        break",
            f"    {SHOWN_TEXTS} = [element['text'] for element in click({kind!r}, {PANEL})]"]
    return "\n".join(lines)


def skip_unseen_items(program: str, refusal: str) -> str | None:
    """``program`` with the body of each loop over values read from ``task`` run only for an item
    the page shows as a text (taken before any action), when ``refusal`` is an action that found
    no element with a text; None otherwise, or when there is no such loop not guarded so already
    or the program does not parse."""
    if _NO_ELEMENT not in refusal:
        return None
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return None
    from_task = _read_from_task(tree)
    loops = [node for node in ast.walk(tree) if isinstance(node, ast.For) and isinstance(node.target, ast.Name)
             and _names(node.iter) & from_task and not _guarded(node)]
    loops = [loop for loop in loops  # the outermost only: an edit shifts the lines of what it holds
             if not any(other.lineno < loop.lineno <= (other.end_lineno or 0) for other in loops)]
    if not loops:
        return None
    lines = program.split("\n")
    for loop in sorted(loops, key=lambda node: node.lineno, reverse=True):
        first, last = loop.body[0].lineno, loop.body[-1].end_lineno or loop.body[-1].lineno
        indent = lines[first - 1][:len(lines[first - 1]) - len(lines[first - 1].lstrip())]
        assert isinstance(loop.target, ast.Name)  # chosen so above
        lines[first - 1:last] = [f"{indent}if {loop.target.id} in {PAGE_TEXTS}:",
                                 *("    " + line if line.strip() else line for line in lines[first - 1:last])]
    return _importing_re([_PAGE_TEXTS_READ], lines)


def _read_from_task(tree: ast.AST) -> set[str]:
    """``task`` and the variables assigned, in order, from expressions that use one of these."""
    names = {"task"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and _names(node.value) & names:
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


def _names(node: ast.AST) -> set[str]:
    """The variable names ``node`` uses."""
    return {name.id for name in ast.walk(node) if isinstance(name, ast.Name)}


def _guarded(loop: ast.For) -> bool:
    """Whether the loop's whole body is already one ``if`` testing its variable against something."""
    return (len(loop.body) == 1 and isinstance(loop.body[0], ast.If) and isinstance(loop.target, ast.Name)
            and loop.target.id in _names(loop.body[0].test))


def _clicks_computed_text(statement: ast.stmt) -> bool:
    """Whether ``statement`` is one line calling ``click(tag, text)`` with a ``text`` not written out."""
    call = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
    return (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "click"
            and len(call.args) == 2 and not isinstance(call.args[1], ast.Constant)
            and statement.lineno == statement.end_lineno)


def _panel_class(tag: str, text: str, page: Sequence[Element]) -> str | None:
    """The class of the control ``click(tag, text)`` names on ``page`` that makes it one of a set
    of tabs, section headers or folders: the first it shares with another element, else its
    first (a tree may show one folder). None when the page has no such control, or it has no
    class."""
    control = next((element for element in page
                    if text in (element.get("text"), element.get("id"))
                    and tag in (element.get("tag"), *element.get("classes", "").split())), None)
    own = control.get("classes", "").split() if control is not None else []
    others = {name for element in page if element is not control for name in element.get("classes", "").split()}
    return next((name for name in own if name in others), own[0] if own else None)


def _from_instruction(tree: ast.AST, instruction: str, not_in: str | None = None) -> list[ast.Constant]:
    """The plain string literals that stand in ``instruction`` as whole words, or as a whole
    quoted text when they hold no word ('♥♥♥' of 'Click on the "♥♥♥" button.') (and, when
    ``not_in`` is given, not in that other instruction, or not quoted there when quoted here:
    the ones that vary; 'An' of '... starts with "An".' is no answer of '... starts with "Un".'
    for standing in its "Enter an item")."""
    return [node for node in _plain_strings(tree)
            if _place(node.value, instruction) is not None
            and (not_in is None or _place(node.value, not_in) is None
                 or _quoted(node.value, instruction) is not None and _quoted(node.value, not_in) is None
                 or _case(node.value, instruction) is not None and _named_case(instruction) != _named_case(not_in))]


def _lift_list(program: str, instruction: str, other: str) -> str | None:
    """The first run of two or more sibling statements alike but for one literal each, whose
    literals are consecutive items of one list of the instruction (the same separator between
    each, as ``Select bF, Ol, wK and click``), rewritten as a loop over that list read from
    ``task``: another seed's list may be longer or shorter, which one variable per item cannot
    follow. The loop skips an item the page does not show as a text ("Select nothing and
    click Submit." lists "nothing"): acting on it could only raise. Some item must be missing
    from ``other`` (others may be on both lists). None when the program has no such run or
    does not parse."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return None
    quoted = {id(node): node for node in _from_instruction(tree, instruction)}
    for block in _blocks(tree):
        run: list[tuple[ast.stmt, ast.Constant]] = []
        shape = ""
        for statement in [*block, None]:
            item = _one_item(statement, quoted) if statement is not None else None
            item_shape = _shape(*item) if item is not None else ""
            if run and item_shape != shape:
                values = [literal.value for _, literal in run]
                span = _list_span(values, instruction)
                if (len(run) >= 2 and span is not None and _own_lines([s for s, _ in run], block)
                        and any(_place(value, other) is None for value in values)):
                    looped = _as_loop(program, [s for s, _ in run], run[0][1], span, instruction)
                    return _without_comments_naming(looped, values)
                run = []
            if item is not None:
                run.append(item)
                shape = item_shape
    return None


def _blocks(tree: ast.AST) -> list[list[ast.stmt]]:
    """Every list of sibling statements: the module's body, and each loop's, branch's, ..."""
    return [getattr(node, name) for node in ast.walk(tree) for name in ("body", "orelse", "finalbody")
            if isinstance(getattr(node, name, None), list) and getattr(node, name)
            and isinstance(getattr(node, name)[0], ast.stmt)]


def _one_item(statement: ast.stmt, quoted: dict[int, ast.Constant]) -> tuple[ast.stmt, ast.Constant] | None:
    """``statement`` with its one literal of the instruction, if it is a one-line statement with one."""
    if isinstance(statement, (ast.For, ast.While, ast.If, ast.With, ast.Try, ast.FunctionDef)) \
            or statement.lineno != statement.end_lineno:
        return None
    found = [node for node in ast.walk(statement) if id(node) in quoted]
    return (statement, found[0]) if len(found) == 1 else None


def _own_lines(statements: list[ast.stmt], block: list[ast.stmt]) -> bool:
    """Whether each of ``statements`` has a line to itself (none shares one through ``;``)."""
    lines = [statement.lineno for statement in statements]
    others = {statement.lineno for statement in block if statement not in statements}
    return len(set(lines)) == len(lines) and not others & set(range(lines[0], lines[-1] + 1))


def _shape(statement: ast.stmt, literal: ast.Constant) -> str:
    """The statement's structure with its literal of the instruction blanked out."""
    value, literal.value = literal.value, "\0"
    try:
        return ast.dump(statement)
    finally:
        literal.value = value


def _list_span(values: list[str], instruction: str) -> tuple[str, str] | None:
    """(the list's text in ``instruction``, its separator) when ``values``, in any order (a model
    may take them in the page's), stand there one after another with the same separator (no
    word in it) between each; else None. The loop then goes in the instruction's order, which
    the check tries like any rewrite."""
    places = [_place(value, instruction) for value in values]
    if None in places or len(set(places)) != len(places):
        return None
    ordered = sorted((place, value) for place, value in zip(places, values) if place is not None)
    starts = [place for place, _ in ordered]
    ends = [start + len(value) for start, value in ordered]
    separators = {instruction[end:start] for end, start in zip(ends, starts[1:])}
    if len(separators) != 1:
        return None
    [separator] = separators
    if not separator or _WORD.search(separator):
        return None
    return instruction[starts[0]:ends[-1]], separator


def _as_loop(program: str, statements: list[ast.stmt], literal: ast.Constant, span: tuple[str, str],
             instruction: str) -> str:
    """``program`` with ``statements`` (a run of one-line siblings) replaced by one loop over the list."""
    text, separator = span
    lines = program.splitlines()
    first, last = statements[0].lineno, statements[-1].lineno
    line = lines[literal.lineno - 1].encode()
    body = (line[:literal.col_offset] + LIST_VARIABLE.encode() + line[literal.end_col_offset:]).decode()
    indent = body[:len(body) - len(body.lstrip())]
    loop = (f"{indent}for {LIST_VARIABLE} in re.search({_raw(pattern(text, instruction))}, task)"
            f".group(1).split({separator!r}):")
    shown = f"{indent}    if {LIST_VARIABLE} in {PAGE_TEXTS}:"
    return _importing_re([_PAGE_TEXTS_READ], [*lines[:first - 1], loop, shown, "        " + body, *lines[last:]])


def _importing_re(reads: list[str], lines: list[str]) -> str:
    """The program: ``import re`` (once, first, when it uses ``re``), the ``reads`` of the task
    and page, then ``lines`` (without a read an earlier rewrite already put there)."""
    body = [*reads, *(line for line in lines if line != "import re" and line not in reads)]
    uses_re = any(_USES_RE.search(line) for line in body)
    return "\n".join(["import re", *body] if uses_re else body)


def _lift_literals(program: str, instruction: str, other: str, page: Sequence[Element] = ()) -> str | None:
    """Each literal that varies read from ``task`` by a variable of its own (see :func:`lift`),
    each literal built around a number the instruction states (:func:`_numbered`) built from
    that number read from ``task``, each whole number passed to an action that the
    instruction states (:func:`_whole_numbers`) read from ``task`` the same way, and each text
    of ``page`` that stands right after a text read from ``task`` (:func:`_beside`), or right
    after the text of a field's label (:func:`_labelled`), read from the page there."""
    try:
        tree = ast.parse(program)
    except SyntaxError:
        return None
    literals = _from_instruction(tree, instruction, not_in=other)
    strings, texts = _plain_strings(tree), [element.get("text", "") for element in page]
    taken = {id(node) for node in literals}
    numbered = [(node, *found) for node in strings if id(node) not in taken
                for found in [_numbered(node.value, instruction, other)] if found is not None]
    taken |= {id(node) for node, *_ in numbered}
    beside = [(node, key) for node in strings if id(node) not in taken
              for key in [_beside(node.value, texts, instruction, other)] if key is not None]
    taken |= {id(node) for node, _ in beside}
    labelled = [(node, field) for node in strings if id(node) not in taken
                for field in [_labelled(node.value, texts, page, instruction)] if field is not None]
    counts = [(node, found[0]) for node in _whole_numbers(tree)
              for found in [_numbered(str(node.value), instruction, other)] if found is not None]
    if not literals and not numbered and not counts and not beside and not labelled:
        return None
    names: dict[str, str] = {}  # the pattern that reads a value -> its variable
    edits: list[tuple[ast.Constant, str]] = []
    for node in literals:
        edits.append((node, _recased(node.value, _name(names, _raw(pattern(node.value, instruction))), instruction)))
    for node, number_pattern, start, end in numbered:
        name = _name(names, _raw(number_pattern))
        parts = [repr(part) for part in (node.value[:start],) if part] + [name] \
            + [repr(part) for part in (node.value[end:],) if part]
        edits.append((node, " + ".join(parts)))
    for node, number_pattern in counts:
        edits.append((node, f"int({_name(names, _raw(number_pattern))})"))
    for node, key in beside:
        name = _name(names, _raw(pattern(key, instruction)))
        edits.append((node, f"{PAGE_TEXTS}[{PAGE_TEXTS}.index({name}) + 1]"))
    for node, field in labelled:
        label = f"{PAGE_TEXTS}[{PAGE_IDS}.index({field!r}) - 1].rstrip(': ')"
        edits.append((node, f"{PAGE_TEXTS}[{PAGE_TEXTS}.index({label}) + 1]"))
    lines = [line.encode() for line in program.splitlines()]  # ast's columns count UTF-8 bytes
    for node, text in sorted(edits, key=lambda edit: (edit[0].lineno, edit[0].col_offset), reverse=True):
        line = lines[node.lineno - 1]
        lines[node.lineno - 1] = line[:node.col_offset] + text.encode() + line[node.end_col_offset:]
    reads = [f"{name} = re.search({read}, task).group(1)" for read, name in names.items()]
    if beside or labelled:
        reads.append(_PAGE_TEXTS_READ)
    if labelled:
        reads.append(_PAGE_IDS_READ)
    values = ([node.value for node in literals] + [node.value[start:end] for node, _, start, end in numbered]
              + [node.value for node, _ in beside + labelled])
    body = _without_comments_naming("\n".join(line.decode() for line in lines), values)
    return _importing_re(reads, body.split("\n"))


def _recased(value: str, name: str, instruction: str) -> str:
    """The expression that types ``value`` from ``name`` (its text read from the instruction): the
    name itself, or the text in the case the model re-cased it to when that is all upper or all
    lower case, which the page may check (click ignores case; typing does not). When the
    instruction names the case ("in all upper case letters"), the case is read from the task as
    well, since another seed may ask for the other one."""
    case = _case(value, instruction)
    if case is None:
        return name
    if _named_case(instruction):
        return f"({name}.upper() if re.search({_raw(_UPPER_CASE.pattern)}, task) else {name}.lower())"
    return f"{name}.{case}()"


def _case(value: str, instruction: str) -> str | None:
    """'upper' or 'lower' when ``value`` is its text in the instruction re-cased all so; else None."""
    start = _place(value, instruction)
    written = instruction[start:start + len(value)] if start is not None else value
    return next((case for case in ("upper", "lower") if value != written and value == getattr(written, case)()),
                None)


def _named_case(instruction: str) -> str | None:
    """The case the instruction asks to type in ('upper' or 'lower'), if it names one."""
    found = _NAMED_CASE.search(instruction)
    return found.group(1).lower() if found else None


def _key_before(value: str, texts: Sequence[str], instruction: str) -> str | None:
    """The text just before ``value`` among a page's ``texts`` (in document order), when both hold
    a word and the instruction does not hold ``value``: the key a looked-up answer stands beside."""
    if not _WORD.search(value) or value not in texts[1:] or _place(value, instruction) is not None:
        return None
    key = texts[texts.index(value, 1) - 1]
    return key if _WORD.search(key) else None


def _beside(value: str, texts: Sequence[str], instruction: str, other: str) -> str | None:
    """The text just before ``value`` among a page's ``texts`` (:func:`_key_before`) when that text
    stands in the instruction, not in ``other``: the answer looked up beside the instruction's
    key, as a table's cell after its label ("Enter the value of Color" typed 'maroon', the cell
    after 'Color'). None otherwise."""
    key = _key_before(value, texts, instruction)
    if key is None or _place(key, instruction) is None or _place(key, other) is not None:
        return None
    return key


def _labelled(value: str, texts: Sequence[str], page: Sequence[Element], instruction: str) -> str | None:
    """The id of the field that ``page`` (whose ``texts`` these are) labels with the text just
    before ``value`` (:func:`_key_before`; the label stands right before the field and is that
    text with a colon or so): the value a form asks for by a label it shows, looked up beside the
    same text elsewhere on the page (a table's cell after 'Color', for the field labelled
    "Color:"). None otherwise, and when the lookup by that text would not find this value."""
    key = _key_before(value, texts, instruction)
    if key is None or texts[texts.index(key) + 1] != value:
        return None
    return next((field["id"] for label, field in zip(page, page[1:])
                 if label.get("text", "") != key and label.get("text", "").rstrip(": ") == key
                 and field.get("id") and field.get("tag", "").startswith(_FIELD_TAGS)), None)


def _name(names: dict[str, str], read: str) -> str:
    """The variable that ``read`` (a pattern) fills: the one it already has, else the next free one."""
    return names.setdefault(read, VARIABLE if not names else f"{VARIABLE}_{len(names) + 1}")


def _numbered(value: str, instruction: str, other: str) -> tuple[str, int, int] | None:
    """(a pattern reading the number, its start and end in ``value``) when ``value`` holds one
    number that the instruction states, as a word of its own or with a suffix ('3' of "the 3rd
    input", in 'tt3' or '3'), and the same place of ``other`` states another number: the
    element a model named by id after the instruction's ordinal. The pattern is anchored on the
    word before only, since the suffix changes with the number (1st, 2nd, 3rd)."""
    numbers = list(_DIGITS.finditer(value))
    if len(numbers) != 1:
        return None
    number = numbers[0]
    stated = re.search(rf"(?<!\w){number.group(0)}(?!\d)", instruction)
    if stated is None:
        return None
    left = _BEFORE.search(instruction[max(0, stated.start() - _NEAR):stated.start()])
    if left is None:
        return None
    read = f"{_escape(left.group(0))}(\\d+)"
    there = re.search(read, other)
    if there is None or there.group(1) == number.group(0):
        return None
    return read, number.start(), number.end()


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
    """A regular expression whose group 1 is ``value`` in ``instruction``, anchored by the words
    before it and the word after it (or the instruction's start and end), so it finds the
    same place in the instruction of another seed, whatever stands there.

    One word before is enough unless it also stands earlier: "the (.+?) icon" read "email by
    Audie and click the trash" from "Find the email by Audie and click the trash icon", since a
    search starts at the first "the". The anchor takes words before until the pattern reads
    ``value`` back from its own instruction.

    A quoted value ends at its closing quote, whatever follows it: anchored on the instruction's
    end instead, 'with "(.+?)"\\.$' read 'Swed" and ends with "eden' from another seed's
    'Enter an item that starts with "Swed" and ends with "eden".' (the same task asks with one
    quoted text or two), and the page took that as an item starting with "Swed" and ending
    with "eden"."""
    start = _place(value, instruction)
    if start is None:
        raise ValueError(f"{value!r} is not a whole text of {instruction!r}")
    before, after = instruction[:start], instruction[start + len(value):]
    right = _AFTER.match(after)
    closing = _closing_quote(value, instruction, start)
    tail = _escape(closing) if closing else _escape(right.group(0)) if right else _escape(after) + "$"
    near = before[-_NEAR:]
    for word in reversed(list(_WORDS.finditer(near))):
        read = f"{_escape(near[word.start():])}(.+?){tail}"
        found = re.search(read, instruction)
        if found is not None and found.start(1) == start:
            return read
    return f"^{_escape(before)}(.+?){tail}"


def _place(value: str, instruction: str) -> int | None:
    """Where ``value`` first stands in ``instruction`` as whole words (``'5'`` is not in "Tab #15"),
    in any case: click matches texts so, and models re-case what they copy ("Tempus" for "tempus").
    A quoted text comes first: a model copies the quoted answer, and its words may stand in the
    instruction before it ('An' of 'Enter an item that starts with "An".' is not the second
    word). A value with no word in it ('♥♥♥') has no word edges to tell a whole text by: it must
    be a whole quoted text ('♥' is not in '"♥♥♥"')."""
    quoted = _quoted(value, instruction)
    if quoted is not None or not _WORD.search(value):
        return quoted
    found = re.search(rf"(?<!\w){re.escape(value)}(?!\w)", instruction, re.IGNORECASE)
    return found.start() if found else None


def _quoted(value: str, instruction: str) -> int | None:
    """Where ``value`` first stands in ``instruction`` as the whole of a quoted text, in any case."""
    if not value.strip():
        return None
    found = re.search("|".join(re.escape(opening) + re.escape(value) + re.escape(closing)
                               for opening, closing in _QUOTES.items()), instruction, re.IGNORECASE)
    return found.start() + 1 if found else None


def _closing_quote(value: str, instruction: str, start: int) -> str | None:
    """The quote that closes ``value`` standing at ``start`` of ``instruction`` right after the quote
    that opens it, when ``value`` does not hold it; else None."""
    closing = _QUOTES.get(instruction[start - 1:start]) if start > 0 else None
    end = start + len(value)
    return closing if closing and instruction[end:end + len(closing)] == closing and closing not in value else None


def _escape(text: str) -> str:
    """``text`` as a literal in a pattern, spaces left readable (``re.escape`` escapes them)."""
    return _SPECIAL.sub(r"\\\g<0>", text)


def _raw(text: str) -> str:
    """``text`` as a Python literal, raw when it can be, as a person writes a pattern."""
    for quote in ("'", '"'):
        if quote not in text and "\n" not in text and not text.endswith("\\"):
            return f"r{quote}{text}{quote}"
    return repr(text)


def _whole_numbers(tree: ast.AST) -> list[ast.Constant]:
    """Integer constants (not True or False) passed straight to an action of the program API: a
    delay or a count the model may have copied from the instruction (``wait(2)``). Numbers
    anywhere else (``index + 1``, ``match.group(1)``, ``range(3)``) are the program's own."""
    return [argument for call in _action_calls(tree)
            for argument in [*call.args, *(keyword.value for keyword in call.keywords)]
            if isinstance(argument, ast.Constant) and type(argument.value) is int]


def _plain_strings(tree: ast.AST) -> list[ast.Constant]:
    """String constants on one line that are not parts of an f-string (whose pieces have no
    position of their own to splice at) nor an action's tag: 'button' in ``click('button',
    'Cancel')`` is the API's word for the element, even when the instruction says "the cancel
    button" and another seed's does not."""
    left_out = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                for part in ast.walk(node)} | _tags(tree)
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in left_out
            and node.lineno == node.end_lineno]


def _tags(tree: ast.AST) -> set[int]:
    """The ids of the nodes passed to an action of the program API as a tag (:func:`tag_parameters`)."""
    tags: set[int] = set()
    for call in _action_calls(tree):
        parameters = tag_parameters(call.func.id)
        tags |= {id(argument) for place, argument in enumerate(call.args) if place in parameters.values()}
        tags |= {id(keyword.value) for keyword in call.keywords if keyword.arg in parameters}
    return tags


def _action_calls(tree: ast.AST) -> list[ast.Call]:
    """The program's calls of an action of the program API by its name (``click(...)``)."""
    return [node for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ACTION_NAMES]
