"""The store against the instructions MiniWoB++ really writes: a value the rewrite reads from one
seed's instruction must be the same value on every other seed's, in every form the task asks
in, whatever the value holds; and the harvest's check must see those forms.

:data:`FORMS` are the instruction templates of the tasks the committed stores hold (those whose
instruction varies from seed to seed), as their pages write them
(``miniwob/html/miniwob/TASK.html``, the line that fills ``#query``), each slot named.
:data:`REAL` are instructions those pages wrote on fresh seeds (91000-91029, the audit's;
click-menu's 100000-100011, the check's), every form and kind of value they showed;
:func:`test_the_real_pages_write_these_instructions` resets some of them again, so the
properties below run on what the suite asks, not on what a test author imagined.
"""

from __future__ import annotations

import re
from typing import Any, Callable

import pytest

from webwise.environment import MiniWoBEnv
from webwise.generalise import lift, pattern
from webwise.harvest import distinct_seeds, instruction_forms, instruction_shape

#: Each family's instruction forms (one page writes them all; several tasks share a family).
FORMS: dict[str, list[str]] = {
    "button-delay": ["Click button ONE, wait {n} seconds, then click button TWO."],
    "choose-list": ["Select {item} from the list and click Submit."],
    "click-button": ['Click on the "{text}" button.'],
    "click-checkboxes": ["Select {items} and click Submit."],
    "click-collapsible-2": ['Expand the sections below, to find and click on the link "{link}".'],
    "click-color": ["Click on the {color} colored box."],
    "click-dialog-2": ['Click the button in the dialog box labeled "{label}".'],
    "click-link": ['Click on the link "{link}".'],
    "click-menu": ["Select {path}"],
    "click-option": ["Select {item} and click Submit."],
    "click-pie": ['Expand the pie menu below and click on the item labeled "{label}".'],
    "click-tab": ["Click on {tab}."],
    "click-tab-2": ['Switch between the tabs to find and click on the link "{link}".'],
    "drag-circle": ["Drag the circle {direction} then press Submit."],
    "email-inbox": ["Find the email by {name} and click the {icon} icon to delete it.",
                    "Find the email by {name} and click the {icon} icon to mark it as important.",
                    'Find the email by {name} and reply to them with the text "{text}".',
                    "Find the email by {name} and forward that email to {to}."],
    "enter-date": ["Enter {date} as the date and hit submit."],
    "enter-password": ['Enter the password "{password}" into both text fields and press submit.'],
    "enter-text": ['Enter "{text}" into the text field and press Submit.'],
    "enter-text-2": ['Type "{text}" in all {case} case letters in the text input and press Submit.'],
    "enter-time": ["Enter {time} as the time and press submit."],
    "focus-text-2": ["Focus into the {ordinal} input textbox."],
    "form-sequence-3": ['Choose {height} from the dropdown, then click the button labeled "{button}".'],
    "login-user": ['Enter the username "{username}" and the password "{password}" into the text fields and press login.'],
    "navigate-tree": ['Navigate through the file tree. Find and click on the folder or file named "{name}".'],
    "read-table": ["Enter the value of {key} into the text field and press Submit."],
    "unicode-test": ['Click on the "{text}" button.'],
    "use-autocomplete": ['Enter an item that starts with "{start}" and ends with "{end}".',
                         'Enter an item that starts with "{start}".'],
}
#: The stores' tasks by family.
FAMILY = {"click-checkboxes-large": "click-checkboxes", "click-checkboxes-transfer": "click-checkboxes",
          "click-collapsible-2-nodelay": "click-collapsible-2", "click-pie-nodelay": "click-pie",
          "click-tab-2-easy": "click-tab-2", "click-tab-2-hard": "click-tab-2", "enter-text-dynamic": "enter-text",
          "use-autocomplete-nodelay": "use-autocomplete", "email-inbox-delete": "email-inbox",
          "email-inbox-important": "email-inbox", "email-inbox-noscroll": "email-inbox",
          "email-inbox-star-reply": "email-inbox"}

#: Instructions the real pages wrote, by task and seed.
REAL: dict[str, list[tuple[int, str]]] = {
    "button-delay": [(91000, "Click button ONE, wait 2 seconds, then click button TWO."),
                     (91001, "Click button ONE, wait 3 seconds, then click button TWO."),
                     (91007, "Click button ONE, wait 1 seconds, then click button TWO.")],
    "choose-list": [(91000, "Select Syrian Arab Republic from the list and click Submit."),
                    (91001, "Select Namibia from the list and click Submit."),
                    (91002, "Select Karoly from the list and click Submit."),
                    (91013, "Select Timor-Leste from the list and click Submit."),
                    (91022, "Select United Kingdom from the list and click Submit.")],
    "click-button": [(91000, 'Click on the "Next" button.'), (91001, 'Click on the "Submit" button.'),
                     (91002, 'Click on the "Okay" button.'), (91003, 'Click on the "ok" button.'),
                     (91005, 'Click on the "no" button.')],
    "click-checkboxes-transfer": [(91000, "Select g4g3, RZxOMv and click Submit."),
                                  (91001, "Select Qv, YFTEK1, 3B and click Submit."),
                                  (91002, "Select jM and click Submit."),
                                  (91004, "Select pjoz, 5GGZKVW and click Submit."),
                                  (91014, "Select nothing and click Submit.")],
    "click-checkboxes-large": [
        (91000, "Select g4g3, dwzOhPf, y088gP, GJ, Xpq, Wa, DHz, RZxOMv, ibwt2rm, roM and click Submit."),
        (91002, "Select OdJD8, IwLm, 10, 8li67Y9, jM, 9kHfW, B2, lzwDNK and click Submit.")],
    "click-collapsible-2": [(91000, 'Expand the sections below, to find and click on the link "sit".'),
                            (91001, 'Expand the sections below, to find and click on the link "sodales.".'),
                            (91004, 'Expand the sections below, to find and click on the link "Ac".'),
                            (91012, 'Expand the sections below, to find and click on the link "Eu,".')],
    "click-color": [(91000, "Click on the magenta colored box."), (91001, "Click on the red colored box."),
                    (91004, "Click on the white colored box.")],
    "click-dialog-2": [(91000, 'Click the button in the dialog box labeled "Cancel".'),
                       (91002, 'Click the button in the dialog box labeled "OK".'),
                       (91004, 'Click the button in the dialog box labeled "x".')],
    "click-link": [(91000, 'Click on the link "id".'), (91002, 'Click on the link "Risus".'),
                   (91004, 'Click on the link "dictumst.".'), (91029, 'Click on the link "Pharetra,.".')],
    "click-menu": [(91000, "Select Rozina>Petronille"), (91001, "Select Almira>Arlyne>Kessia"),
                   (91002, "Select Prue"), (91004, "Select Zelma"), (91005, "Select Fran>Cecilla>Antonia"),
                   (100000, "Select Tana"), (100001, "Select Lynda"), (100002, "Select Paulina"),
                   (100003, "Select Theresa>Concordia"), (100004, "Select Ede>Florrie>Idalina"),
                   (100005, "Select Lisetta>Juliana>Sibylla"), (100006, "Select Rebeka>Pia"),
                   (100007, "Select Analise>Natka"), (100008, "Select Silvana"), (100009, "Select Kate>Carroll"),
                   (100010, "Select Corina"), (100011, "Select Tansy>Catrina>Rose")],
    "click-option": [(91000, "Select 3VR and click Submit."), (91001, "Select 0fGLp and click Submit."),
                     (91004, "Select NXLE2 and click Submit.")],
    "click-pie": [(91000, 'Expand the pie menu below and click on the item labeled "p".'),
                  (91001, 'Expand the pie menu below and click on the item labeled "1".'),
                  (91003, 'Expand the pie menu below and click on the item labeled "P".')],
    "click-tab": [(91000, "Click on Tab #3."), (91003, "Click on Tab #2."), (91004, "Click on Tab #1.")],
    "click-tab-2-hard": [(91007, 'Switch between the tabs to find and click on the link "ac,.".'),
                         (91010, 'Switch between the tabs to find and click on the link "A".'),
                         (91018, 'Switch between the tabs to find and click on the link "adipiscing".'),
                         (91021, 'Switch between the tabs to find and click on the link "Nunc.".')],
    "drag-circle": [(91000, "Drag the circle up then press Submit."), (91001, "Drag the circle down then press Submit."),
                    (91002, "Drag the circle right then press Submit."),
                    (91014, "Drag the circle left then press Submit.")],
    "email-inbox-noscroll": [
        (91000, "Find the email by Angelika and forward that email to Ginni."),
        (91001, "Find the email by Trudy and click the star icon to mark it as important."),
        (91002, "Find the email by Lacey and click the star icon to mark it as important."),
        (91003, "Find the email by Lesli and click the trash icon to delete it."),
        (91004, 'Find the email by Bernete and reply to them with the text "Egestas nibh.".'),
        (91006, "Find the email by Sam and forward that email to Leonore."),
        (91008, 'Find the email by Ofilia and reply to them with the text "Lectus tellus tellus.".'),
        (91009, "Find the email by Marys and click the trash icon to delete it."),
        (91014, 'Find the email by Beatrice and reply to them with the text "Quis. Vestibulum.".'),
        (91029, 'Find the email by Maxi and reply to them with the text "At et pulvinar. Posuere.".')],
    "enter-date": [(91000, "Enter 07/15/2016 as the date and hit submit."),
                   (91001, "Enter 07/13/2019 as the date and hit submit."),
                   (91003, "Enter 04/02/2015 as the date and hit submit.")],
    "enter-password": [(91000, 'Enter the password "JiWa" into both text fields and press submit.'),
                       (91001, 'Enter the password "pw3Bq" into both text fields and press submit.'),
                       (91004, 'Enter the password "BtP9" into both text fields and press submit.')],
    "enter-text-dynamic": [(91000, 'Enter "amg" into the text field and press Submit.'),
                           (91001, 'Enter "BqQvN" into the text field and press Submit.'),
                           (91004, 'Enter "9bp" into the text field and press Submit.')],
    "enter-text-2": [(91000, 'Type "LYDA" in all lower case letters in the text input and press Submit.'),
                     (91001, 'Type "dannie" in all upper case letters in the text input and press Submit.'),
                     (91002, 'Type "AGUSTINA" in all lower case letters in the text input and press Submit.'),
                     (91004, 'Type "ashlea" in all upper case letters in the text input and press Submit.')],
    "enter-time": [(91000, "Enter 5:32 PM as the time and press submit."),
                   (91001, "Enter 11:24 PM as the time and press submit."),
                   (91002, "Enter 6:55 AM as the time and press submit.")],
    "focus-text-2": [(91000, "Focus into the 1st input textbox."), (91001, "Focus into the 2nd input textbox."),
                     (91006, "Focus into the 3rd input textbox.")],
    "form-sequence-3": [(91000, 'Choose 6 ft from the dropdown, then click the button labeled "Maybe".'),
                        (91001, 'Choose 6ft 1in from the dropdown, then click the button labeled "Yes".'),
                        (91002, 'Choose 5ft 11in from the dropdown, then click the button labeled "No".')],
    "login-user": [
        (91000, 'Enter the username "rex" and the password "iWam" into the text fields and press login.'),
        (91001, 'Enter the username "ignacio" and the password "w3" into the text fields and press login.'),
        (91003, 'Enter the username "agustina" and the password "t8vZ" into the text fields and press login.')],
    "navigate-tree": [
        (91000, 'Navigate through the file tree. Find and click on the folder or file named "Michel".'),
        (91001, 'Navigate through the file tree. Find and click on the folder or file named "Cheree".'),
        (91003, 'Navigate through the file tree. Find and click on the folder or file named "Renda".')],
    "read-table": [(91000, "Enter the value of Country into the text field and press Submit."),
                   (91002, "Enter the value of Year of Birth into the text field and press Submit."),
                   (91008, "Enter the value of Last name into the text field and press Submit.")],
    "unicode-test": [(91000, 'Click on the "取消" button.'), (91001, 'Click on the "ÖK" button.'),
                     (91002, 'Click on the "Cancél" button.'), (91003, 'Click on the "♥♥♥" button.'),
                     (91007, 'Click on the "ヘルプ" button.')],
    "use-autocomplete": [(91000, 'Enter an item that starts with "New " and ends with "ia".'),
                         (91001, 'Enter an item that starts with "Un".'),
                         (91002, 'Enter an item that starts with "Ira" and ends with "raq".'),
                         (91003, 'Enter an item that starts with "Lie".'),
                         (91004, 'Enter an item that starts with "Qata" and ends with "ar".'),
                         (91009, 'Enter an item that starts with "Pu".'),
                         (91028, 'Enter an item that starts with "An" and ends with "ica".')],
}


def family(task: str) -> str:
    return FAMILY.get(task, task)


def form_pattern(form: str) -> str:
    """The form as a regular expression, each slot a named group."""
    parts = re.split(r"\{(\w+)\}", form)
    return "".join(re.escape(part) if place % 2 == 0 else f"(?P<{part}>.+)" for place, part in enumerate(parts))


def read(task: str, instruction: str) -> tuple[str, dict[str, str]]:
    """The form ``instruction`` is written in, and what each of its slots holds."""
    for form in FORMS[family(task)]:
        found = re.fullmatch(form_pattern(form), instruction)
        if found:
            return form, found.groupdict()
    raise AssertionError(f"{task}: no form writes {instruction!r}")


def instructions() -> list[tuple[str, str, dict[str, str]]]:
    """Every real instruction: (its task, its form, its slots)."""
    return [(task, *read(task, instruction)) for task, asked in REAL.items() for _, instruction in asked]


def quoted(form: str, slot: str) -> bool:
    return f'"{{{slot}}}"' in form


def test_every_real_instruction_is_written_in_one_of_its_task_s_forms() -> None:
    assert len(instructions()) == sum(len(asked) for asked in REAL.values())


@pytest.mark.parametrize("task", sorted(REAL))
def test_the_real_pages_write_these_instructions(env: MiniWoBEnv, task: str) -> None:
    """The first and the last instruction recorded for the task, asked again by its page."""
    for seed, instruction in {REAL[task][0], REAL[task][-1]}:
        assert env.reset(task, seed) == instruction


def same_place(value: str, instruction: str, slot_start: int, in_quotes: bool = False) -> bool:
    """Whether a copy of ``value`` is the slot's: a value that also stands earlier as whole words
    (as a whole quoted text, for a quoted slot) is another text, and a copy cannot say which it was."""
    earlier = rf'"{re.escape(value)}"' if in_quotes else rf"(?<!\w){re.escape(value)}(?!\w)"
    return re.search(earlier, instruction[:slot_start - in_quotes], re.IGNORECASE) is None


def slot_start(form: str, slots: dict[str, str], slot: str) -> int:
    found = re.fullmatch(form_pattern(form), form.format(**slots))
    assert found is not None
    return found.start(slot)


@pytest.mark.parametrize("task", sorted(REAL))
def test_a_read_finds_the_same_slot_in_every_real_instruction(task: str) -> None:
    """pattern(v, A) on B, for every two instructions A and B of the task and every slot v fills
    in A: B's value of that slot when B is of A's form. In another form a quoted slot's read is
    B's value of the slot or nothing: it stops at its closing quote ('with "(.+?)"\\.$' read
    'Ira" and ends with "raq' from "starts with", and the page took that for an item)."""
    wrong = []
    for _, own in REAL[task]:
        own_form, own_slots = read(task, own)
        for slot, value in own_slots.items():
            if not same_place(value, own, slot_start(own_form, own_slots, slot), quoted(own_form, slot)):
                continue
            for _, other in REAL[task]:
                other_form, other_slots = read(task, other)
                found = re.search(pattern(value, own), other)
                got = found.group(1) if found else None
                if (other_form == own_form and got != other_slots[slot]
                        or quoted(own_form, slot) and got not in (other_slots.get(slot), None)):
                    wrong.append((pattern(value, own), other, got))
    assert not wrong


#: Texts a slot may hold, of the kinds the suite's values are (names of several words, punctuation
#: at the end, numbers, dates, times, not ASCII) and of the ones that break a pattern written
#: carelessly (its own special characters, quotes of the other kind, a backslash).
VALUES = ["Syrian Arab Republic", "Pharetra,.", "in.", "42", "08/20/2013", "4:20 PM", "5ft 11in", "Größe",
          "取消", "Cancél", "a+b (c)*? [x]|$", "O'Brien", "C:\\temp\\", "Timor-Leste", "x"]
#: In quotes a slot may also hold no word at all, a word its template says before it, a space at its end.
QUOTED_VALUES = [*VALUES, "♥♥♥", "the", "An", "New "]
#: A real instruction's slots for each form, to fill the slots not under test.
EXAMPLE = {form: slots for task, form, slots in reversed(instructions())}
FORM_SLOTS = [(form, slot) for forms in FORMS.values() for form in forms for slot in re.findall(r"\{(\w+)\}", form)]


@pytest.mark.parametrize(("form", "slot"), FORM_SLOTS)
def test_a_read_holds_whatever_a_slot_holds(form: str, slot: str) -> None:
    """Every pair of :data:`VALUES` in every slot of every form: the read of the first finds the second."""
    values = QUOTED_VALUES if quoted(form, slot) else VALUES
    wrong = []
    for value in values:
        own = form.format(**{**EXAMPLE[form], slot: value})
        if not same_place(value, own, slot_start(form, {**EXAMPLE[form], slot: value}, slot), quoted(form, slot)):
            continue
        for other_value in values:
            found = re.search(pattern(value, own), form.format(**{**EXAMPLE[form], slot: other_value}))
            if found is None or found.group(1) != other_value:
                wrong.append((pattern(value, own), other_value, found and found.group(1)))
    assert not wrong


Calls = list[tuple[Any, ...]]


def answer(task: str, slots: dict[str, str]) -> Calls:
    """The actions of the program a model writes for the instruction holding ``slots``, the
    answers copied in: the program the rewrite must turn into one for every seed."""
    name = family(task)
    if name == "button-delay":
        return [("click", "button", "ONE"), ("wait", int(slots["n"])), ("click", "button", "TWO")]
    if name == "click-checkboxes":
        items = [] if slots["items"] == "nothing" else slots["items"].split(", ")
        return [*(("click", "label", item) for item in items), ("click", "button", "Submit")]
    if name == "email-inbox":
        rest = {"text": [("click", "span", "reply"), ("enter_text", slots.get("text"))],
                "to": [("click", "span", "forward"), ("enter_text", slots.get("to"))],
                "icon": [("click", "span", slots.get("icon"))]}
        return [("click", "span", slots["name"]), *next(calls for slot, calls in rest.items() if slot in slots)]
    if name == "enter-text-2":
        typed = slots["text"].upper() if slots["case"] == "upper" else slots["text"].lower()
        return [("click", "input_text", "tt"), ("enter_text", typed), ("click", "button", "Submit")]
    if name == "focus-text-2":
        return [("click", "input_text", "tt" + re.sub(r"\D", "", slots["ordinal"]))]
    if name == "login-user":
        return [("enter_text", slots["username"]), ("enter_text", slots["password"]), ("click", "button", "Login")]
    if name in ("choose-list", "form-sequence-3"):
        return [("select_text", slots.get("item") or slots["height"]),
                ("click", "button", slots.get("button", "Submit"))]
    if name in ("enter-date", "enter-time", "enter-text", "enter-password", "use-autocomplete"):
        return [("click", "input_text", "tt"), ("enter_text", next(iter(slots.values()))), ("click", "button", "Submit")]
    [value] = slots.values()  # one text to click
    return [("click", "span", value)]


def program(calls: Calls) -> str:
    return "\n".join(f"{action}({', '.join(map(repr, arguments))})" for action, *arguments in calls)


def run(source: str, instruction: str, page: list[str]) -> Calls:
    """The calls ``source`` makes on ``instruction`` and a page of the texts ``page`` (a test's own
    rewrite, not model code)."""
    made: Calls = []

    def action(name: str) -> Callable[..., None]:
        return lambda *arguments: made.append((name, *arguments))

    names: dict[str, Any] = {"task": instruction, "observation": [{"text": text} for text in page]}
    names.update({name: action(name) for name in ("click", "enter_text", "wait", "select_text")})
    exec(source, names)  # noqa: S102
    return made


def shown(task: str, slots: dict[str, str]) -> list[str]:
    """The texts the task's page shows: every text the answer acts on."""
    return [argument for _, *arguments in answer(task, slots) for argument in arguments if isinstance(argument, str)]


def copies(task: str) -> list[tuple[str, str]]:
    """(A, B) for every two real instructions of one form whose varying slots all differ (each
    literal the rewrite must lift varies between the two), A's copied program one the rewrite
    can see as a copy: a list of one item is no list (the loop needs two)."""
    asked = [(*read(task, instruction), instruction) for _, instruction in REAL[task]]
    found = []
    for form, slots, own in asked:
        if family(task) == "click-checkboxes" and ", " not in slots["items"]:
            continue
        varying = [slot for slot in slots if len({other[slot] for f, other, _ in asked if f == form}) > 1]
        found += [(own, other) for f, other_slots, other in asked
                  if f == form and other != own  # click and the check read texts in any case
                  and all(other_slots[slot].lower() != slots[slot].lower() for slot in varying)]
    return found


@pytest.mark.parametrize("task", sorted(task for task in REAL if family(task) not in ("drag-circle", "read-table")))
def test_a_copied_answer_is_read_from_every_real_instruction_of_its_form(task: str) -> None:
    """The program copying A's answers, rewritten as the harvest rewrites it once B refused it,
    acts on every real instruction C of A's form as the program copying C's answers would.
    (drag-circle copies nothing; read-table's answer is on the page: tests/test_generalise.py.)"""
    pairs = copies(task)
    assert pairs
    wrong = []
    for own, other in pairs:
        own_form, own_slots = read(task, own)
        lifted = lift(program(answer(task, own_slots)), own, other)
        for _, instruction in REAL[task]:
            form, slots = read(task, instruction)
            if form == own_form and (lifted is None or run(lifted, instruction, shown(task, slots)) != answer(task, slots)):
                wrong.append((own, other, instruction, lifted))
    assert not wrong


MENU = dict(REAL["click-menu"])


@pytest.mark.parametrize("own", ["Select Martelle", "Select Rozina>Petronille"])
def test_the_check_asks_every_shape_of_click_menu_s_items_its_pool_shows(own: str) -> None:
    """Seeds 100000-100002 all ask for a top-level item: a program clicking the whole text
    ("Select Rozina>Petronille" as one item) passed them, and failed 7 of 10 fresh seeds."""
    seeds = distinct_seeds(MENU.__getitem__, own, 3)
    assert {MENU[seed].count(">") for seed in seeds} | {own.count(">")} == {0, 1, 2}


def test_the_check_asks_each_of_an_email_task_s_forms_its_pool_shows() -> None:
    """The episode's own asked to delete; the pool (the audit's seeds standing for the check's)
    asks to forward, star, delete and reply: the three seeds show the three other forms."""
    asked = [instruction for _, instruction in REAL["email-inbox-noscroll"]]
    pool = {100_000 + number: asked[number % len(asked)] for number in range(12)}
    seeds = distinct_seeds(pool.__getitem__, "Find the email by Izabel and click the trash icon to delete it.", 3)
    assert {re.search(r"forward|star|reply|trash", pool[seed]).group(0) for seed in seeds} == {"forward", "star", "reply"}


def test_the_check_asks_the_case_the_own_instruction_did_not() -> None:
    """A pool whose first three seeds ask for lower case, like the episode's own: the fourth, upper."""
    names = ["LYDA", "AGUSTINA", "TRUMAN", "ashlea", "EMILE", "CIERRA", "ALAN", "ANNIS", "JOYE", "KASIE", "REX", "TORA"]
    pool = {100_000 + number: f'Type "{name}" in all {"upper" if name.islower() else "lower"} case letters in the '
            "text input and press Submit." for number, name in enumerate(names)}
    seeds = distinct_seeds(pool.__getitem__, 'Type "DENEEN" in all lower case letters in the text input and press Submit.', 3)
    assert 100_003 in seeds


def test_a_form_blanks_what_only_one_instruction_says_and_a_shape_every_word() -> None:
    forms = instruction_forms(["Select Tana", "Select Rebeka>Pia", "Drag the circle up", "Drag the circle up"])
    assert forms["Select Tana"] == ("select", "\0") and forms["Select Rebeka>Pia"] == ("select", "\0", ">", "\0")
    assert forms["Drag the circle up"] == ("\0",) * 4  # the same instruction twice is one
    assert instruction_shape('Click on the link "Pharetra,.".') != instruction_shape('Click on the link "Dui".')
    assert instruction_shape('Click on the "ok" button.') == instruction_shape('Click on the "Cancel" button.')
