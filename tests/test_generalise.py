"""Reading a harvested program's copied literals from ``task``: what is lifted, what is left, and that
the rewrite runs on another seed's instruction."""

from __future__ import annotations

import re

import pytest

from webwise.generalise import lift, pattern, search_panels, skip_unseen_items

SELECT = "Select peh7J and click Submit."
OTHER = "Select Yfewp1 and click Submit."


def run(program: str, task: str) -> dict[str, object]:
    """The variables a lifted program's reads give on ``task`` (its actions are not called)."""
    reads = "\n".join(line for line in program.splitlines() if line.startswith(("import", "from_task")))
    names: dict[str, object] = {"task": task}
    exec(reads, names)  # noqa: S102 -- a test's own rewrite, not model code
    return {k: v for k, v in names.items() if k.startswith("from_task")}


def test_only_the_literals_that_vary_are_read_from_the_task() -> None:
    program = "click('label', 'peh7J')\nclick('button', 'Submit')"
    lifted = lift(program, SELECT, OTHER)
    assert lifted == ("import re\nfrom_task = re.search(r'Select (.+?) and', task).group(1)\n"
                      "click('label', from_task)\nclick('button', 'Submit')")
    assert run(lifted, OTHER) == {"from_task": "Yfewp1"}


def test_the_same_literal_twice_is_one_variable_and_two_literals_are_two() -> None:
    instruction = 'Enter "Kasey" as the username and "x9z" as the password.'
    other = 'Enter "Deena" as the username and "qq1" as the password.'
    program = ("enter_text('input_text', 'Kasey')\nenter_text('input_password', 'x9z')\n"
               "if 'Kasey' not in str(observation): press_key('Enter')")
    lifted = lift(program, instruction, other)
    assert lifted is not None and lifted.count("re.search") == 2 and "'Kasey'" not in lifted
    assert "enter_text('input_password', from_task_2)" in lifted
    assert run(lifted, other) == {"from_task": "Deena", "from_task_2": "qq1"}


@pytest.mark.parametrize(("instruction", "value", "other", "expected"), [
    ("Click on Tab #5.", "5", "Click on Tab #12.", "12"),                       # at the end: anchored there
    ('click on the link "nulla".', "nulla", 'click on the link "in.".', "in."),
    ("Öffne Größe 7 jetzt", "Größe", "Öffne Maß 7 jetzt", "Maß"),              # not ASCII
    ("Type (a+b)* here", "(a+b)*", "Type [x] here", "[x]"),                      # the pattern's own characters
    ("peh7J is the one", "peh7J", "Yfewp1 is the one", "Yfewp1"),               # at the start
    ("Find the email by Cathrine and click the star icon to mark it as important.", "star",  # "the" twice
     "Find the email by Audie and click the trash icon to delete it.", "trash"),
    ("the a the a the b x", "b", "the a the a the cd x", "cd"),                # the words before, thrice
])
def test_the_pattern_finds_the_same_place_in_another_instruction(instruction: str, value: str, other: str,
                                                                  expected: str) -> None:
    assert re.search(pattern(value, instruction), instruction).group(1) == value
    assert re.search(pattern(value, instruction), other).group(1) == expected


@pytest.mark.parametrize("program", [
    "click('button', 'Cancel')",
    "hover(tag='button', text='Cancel')",
    "drag('button', 'Cancel', to_tag='button', to_text='Cancel')",
])
def test_an_action_s_tag_is_never_read_from_the_task(program: str) -> None:
    """"the cancel button" holds the tag's word, and another seed's instruction may not: the tag
    is the API's name for the element, not a text of the page."""
    lifted = lift(program, "Click the cancel button.", 'Enter the name "Ignacio" then press "Agree"')
    assert lifted is not None and "re.search(r'the (.+?) button', task)" in lifted
    assert "'button'" in lifted and "'Cancel'" not in lifted


def test_comments_naming_the_copied_answer_go_and_others_stay() -> None:
    program = ("click('label', 'peh7J')  # click the label with the text 'PEH7J'\n"
               "click('button', 'Submit')  # then submit")
    assert lift(program, SELECT, OTHER).splitlines()[2:] == ["click('label', from_task)",
                                                              "click('button', 'Submit')  # then submit"]


def test_a_re_cased_copy_is_read_as_the_instruction_writes_it() -> None:
    """The model wrote "Tempus" for the instruction's "tempus"; click matches either way."""
    instruction, other = 'click on the link "tempus".', 'click on the link "ornare".'
    lifted = lift("click('span', 'Tempus')", instruction, other)
    assert lifted is not None and run(lifted, other) == {"from_task": "ornare"}
    assert run(lifted, instruction) == {"from_task": "tempus"}
    assert lift("click('span', 'Tempus')", instruction, 'click on the link "TEMPUS".') is None


def test_a_non_ascii_line_is_spliced_at_the_literal() -> None:
    """ast counts columns in UTF-8 bytes; the rewrite must not cut the line elsewhere."""
    lifted = lift("x = 'é'; click('a', 'Größe')", "Öffne Größe jetzt", "Öffne Maß jetzt")
    assert lifted is not None and lifted.splitlines()[-1] == "x = 'é'; click('a', from_task)"


@pytest.mark.parametrize("program", [
    "click('button', 'Submit')",                        # in both instructions: a constant, not an answer
    "click('label', f'{task.split()[1]}')",             # built at run time
    "click('label', 'peh7',)",                          # not the instruction's text as a whole
    "click('label', 'peh7J'",                           # does not parse
    "x = 3\nclick('a', ' ')",                           # no word in it
])
def test_nothing_to_lift_is_none(program: str) -> None:
    assert lift(program, SELECT, OTHER) is None


CHECKBOXES = "Select p7rzlQ8, vbBigoI, Ol and click Submit."


def clicks(program: str, task: str, page: list[str]) -> list[tuple[str, str]]:
    """The clicks a lifted program makes on ``task``'s instruction and a page of the texts ``page``
    (a test's own rewrite, not model code)."""
    made: list[tuple[str, str]] = []
    observation = [{"tag": "label", "text": text} for text in page]
    exec(program, {"task": task, "observation": observation,  # noqa: S102
                   "click": lambda tag, text: made.append((tag, text))})
    return made


def test_a_run_of_clicks_on_the_items_of_a_list_becomes_a_loop_that_follows_another_seed_s_list() -> None:
    program = ("click('label', 'p7rzlQ8')  # the first, p7rzlQ8\nclick('label', 'vbBigoI')\nclick('label', 'Ol')\n"
               "click('button', 'Submit')")
    lifted = lift(program, CHECKBOXES, "Select bF and click Submit.")
    assert lifted == ("import re\ntexts_on_page = [element['text'] for element in observation]\n"
                      "for item_from_task in re.search(r'Select (.+?) and', task).group(1).split(', '):\n"
                      "    if item_from_task in texts_on_page:\n        click('label', item_from_task)\n"
                      "click('button', 'Submit')")
    assert lift(program, CHECKBOXES, "Select Ol, bF and click Submit.") == lifted  # an item on both lists
    in_page_order = "click('label', 'Ol')\nclick('label', 'p7rzlQ8')\nclick('label', 'vbBigoI')\nclick('button', 'Submit')"
    assert lift(in_page_order, CHECKBOXES, "Select bF and click Submit.") == lifted  # the loop goes in the task's order
    for other, items in [("Select bF and click Submit.", ["bF"]),
                         ("Select dy, Fl, Rj4R4sY, ljQsN96, wK and click Submit.", ["dy", "Fl", "Rj4R4sY", "ljQsN96", "wK"])]:
        assert clicks(lifted, other, [*items, "zz"]) == [*(("label", item) for item in items), ("button", "Submit")]
    # "Select nothing": a list item the page does not show is no box to click
    assert clicks(lifted, "Select nothing and click Submit.", ["bF", "Ol"]) == [("button", "Submit")]


@pytest.mark.parametrize(("program", "why"), [
    ("click('label', 'p7rzlQ8')\nclick('label', 'Ol')\nclick('button', 'Submit')", "not consecutive items"),
    ("click('label', 'p7rzlQ8')\nclick('span', 'vbBigoI')\nclick('button', 'Submit')", "not alike"),
    ("click('label', 'p7rzlQ8'); click('label', 'vbBigoI')\nclick('button', 'Submit')", "sharing a line"),
])
def test_no_loop_where_the_literals_are_not_a_list_s_items_in_turn(program: str, why: str) -> None:
    lifted = lift(program, CHECKBOXES, "Select bF and click Submit.")
    assert lifted is not None and "for " not in lifted, why
    assert "from_task_2" in lifted  # each literal read on its own instead


def test_an_element_named_after_the_instruction_s_ordinal_is_built_from_the_number_read_from_the_task() -> None:
    """'tt3' for "the 3rd input": the suffix changes with the number, so only the word before anchors it."""
    lifted = lift("click('input_text', 'tt3')", "Focus into the 3rd input textbox.",
                  "Focus into the 1st input textbox.")
    assert lifted == "import re\nfrom_task = re.search(r'the (\\d+)', task).group(1)\nclick('input_text', 'tt' + from_task)"
    assert run(lifted, "Focus into the 2nd input textbox.") == {"from_task": "2"}


def test_a_number_the_other_instruction_states_alike_or_not_at_all_is_left() -> None:
    assert lift("click('input_text', 'tt3')", "Focus into the 3rd input.", "Focus into the 3rd input.") is None
    assert lift("click('input_text', 'tt3')", "Focus into the 3rd input.", "Focus into the last input.") is None
    assert lift("click('input_text', 'tt3')", "Focus into the input.", "Focus into the 1st input.") is None  # not stated
    assert lift("click('input_text', 'a1b2')", "Use the 1st and 2nd.", "Use the 3rd and 4th.") is None  # two numbers


def test_a_number_passed_to_an_action_that_the_instruction_states_is_read_from_the_task() -> None:
    """``wait(2)`` for "wait 2 seconds": another seed asks for another delay."""
    program = "click('button', 'ONE')\nwait(2)\nclick('button', 'TWO')"
    lifted = lift(program, "Click button ONE, wait 2 seconds, then click button TWO.",
                  "Click button ONE, wait 1 seconds, then click button TWO.")
    assert lifted == ("import re\nfrom_task = re.search(r'wait (\\d+)', task).group(1)\n"
                      "click('button', 'ONE')\nwait(int(from_task))\nclick('button', 'TWO')")
    assert run(lifted, "Click button ONE, wait 4 seconds, then click button TWO.") == {"from_task": "4"}


def test_a_number_of_the_program_s_own_arithmetic_is_left() -> None:
    program = ("import re\nsize = re.search(r'type the (\\w+)', task).group(1)\n"
               "texts = [e['text'] for e in observation]\nfor _ in range(1):\n"
               "    enter_text(texts[texts.index(size) + 1])")
    assert lift(program, "Wait 1 seconds, then type the Size.", "Wait 3 seconds, then type the Size.") is None
    assert lift("wait(2)", "Wait 2 seconds.", "Wait 2 seconds.") is None  # the same on the other seed


def test_a_whole_literal_and_a_numbered_one_get_a_variable_each() -> None:
    lifted = lift("click('label', 'peh7J')\nclick('input_radio', 'r2')  # the 2nd radio",
                  "Select peh7J and the 2nd radio.", "Select Yfewp1 and the 4th radio.")
    assert lifted is not None
    assert lifted.splitlines()[3:] == ["click('label', from_task)", "click('input_radio', 'r' + from_task_2)"]
    assert run(lifted, "Select Yfewp1 and the 4th radio.") == {"from_task": "Yfewp1", "from_task_2": "4"}


TABLE = [{"tag": "td", "text": "Colour"}, {"tag": "td", "text": "teal"},
         {"tag": "td", "text": "Size"}, {"tag": "td", "text": "large"}, {"tag": "input_text", "text": ""}]


def test_a_value_typed_from_beside_the_instruction_s_key_is_read_from_the_page_there() -> None:
    lifted = lift("click('input_text', 'tt')\nenter_text('teal')  # the teal one", "Type the Colour here.",
                  "Type the Size here.", TABLE)
    assert lifted == ("import re\nfrom_task = re.search(r'the (.+?) here', task).group(1)\n"
                      "texts_on_page = [element['text'] for element in observation]\n"
                      "click('input_text', 'tt')\nenter_text(texts_on_page[texts_on_page.index(from_task) + 1])")
    names = {"task": "Type the Size here.", "observation": TABLE}
    exec(lifted.replace("click(", "(").replace("enter_text(", "typed = ("), names)  # noqa: S102 -- the test's own
    assert names["typed"] == "large"


FORM = [{**element, "id": ""} for element in TABLE[:4]] + [
    {"tag": "label", "text": "Size:", "id": "ll1"}, {"tag": "input_text", "text": "", "id": "tt1"},
    {"tag": "button", "text": "Submit", "id": "subbtn"}]
SAME = "Enter the value that corresponds with each label into the form."


def test_a_value_typed_for_a_field_s_label_is_read_from_the_page_beside_that_label() -> None:
    """The instruction is the same on every seed; the form's label says which row to copy."""
    lifted = lift("click('input_text', 'tt1')\nenter_text('large')\nclick('button', 'Submit')", SAME, SAME, FORM)
    assert lifted == ("texts_on_page = [element['text'] for element in observation]\n"
                      "ids_on_page = [element['id'] for element in observation]\n"
                      "click('input_text', 'tt1')\n"
                      "enter_text(texts_on_page[texts_on_page.index(texts_on_page[ids_on_page.index('tt1') - 1]"
                      ".rstrip(': ')) + 1])\nclick('button', 'Submit')")
    other_page = [{**element, "text": "Colour:"} if element.get("id") == "ll1" else element for element in FORM]
    names = {"observation": other_page}
    exec(lifted.replace("click(", "(").replace("enter_text(", "typed = ("), names)  # noqa: S102 -- the test's own
    assert names["typed"] == "teal"


@pytest.mark.parametrize("page", [
    TABLE,                                                                     # no form labels the field
    FORM[:4] + [{"tag": "label", "text": "Size", "id": "ll1"}] + FORM[5:],    # the label is the key itself
    FORM[:4] + [{"tag": "label", "text": "Size:", "id": "ll1"}, FORM[6]],     # the label stands before no field
    [*FORM[:2], {"tag": "td", "text": "Size"}, {"tag": "td", "text": "small"}, *FORM[2:]],  # 'Size' first finds 'small'
])
def test_a_page_text_is_left_unless_a_field_s_label_finds_it(page: list[dict[str, str]]) -> None:
    assert lift("enter_text('large')", SAME, SAME, page) is None


@pytest.mark.parametrize(("program", "instruction", "other"), [
    ("enter_text('teal')", "Type the Colour here.", "Type the Colour there."),   # the key does not vary
    ("enter_text('teal')", "Type teal, the Colour.", "Type the Size."),          # the value is the instruction's
    ("enter_text('Colour')", "Type the thing.", "Type the other."),              # nothing before it is asked for
])
def test_a_page_text_is_left_unless_it_stands_beside_a_key_that_varies(program: str, instruction: str,
                                                                       other: str) -> None:
    lifted = lift(program, instruction, other, TABLE)
    assert lifted is None or "texts_on_page" not in lifted


def typed(program: str, task: str) -> list[str]:
    """The texts a lifted program types on ``task``'s instruction (a test's own rewrite, not model code)."""
    made: list[str] = []
    exec(program, {"task": task, "enter_text": made.append})  # noqa: S102
    return made


def test_a_copy_typed_in_the_case_the_instruction_names_follows_the_case_another_seed_names() -> None:
    """Typing is checked letter for letter: "Qrs" in upper case is 'QRS', and the next seed may ask for lower."""
    lifted = lift("enter_text('QRS')", 'Write "Qrs" in upper case, then submit.',
                  'Write "kLm2" in lower case, then submit.')
    assert lifted is not None
    assert typed(lifted, 'Write "kLm2" in lower case, then submit.') == ["klm2"]
    assert typed(lifted, 'Write "aB" in Upper-case, then submit.') == ["AB"]
    same_text = lift("enter_text('QRS')", 'Write "Qrs" in upper case, then submit.',
                     'Write "qrs" in lower case, then submit.')  # the text is on both; the case asked is not
    assert same_text is not None and typed(same_text, 'Write "qrs" in lower case, then submit.') == ["qrs"]
    assert lift("enter_text('QRS')", 'Write "Qrs" in upper case.', 'Write "qrs" in upper case.') is None


def test_a_copy_re_cased_where_the_instruction_names_no_case_keeps_the_model_s_case() -> None:
    assert typed(lift("enter_text('AB7')", 'Enter "ab7" here.', 'Enter "x" here.'), 'Enter "cd" here.') == ["CD"]
    assert typed(lift("enter_text('ab7')", 'Enter "aB7" here.', 'Enter "x" here.'), 'Enter "Cd" here.') == ["cd"]
    assert typed(lift("enter_text('Ab7')", 'Enter "aB7" here.', 'Enter "x" here.'), 'Enter "Cd" here.') == ["Cd"]


TABS = [{"tag": "a", "text": str(number), "id": f"ui-id-{number}", "classes": "ui-tabs-anchor"}
        for number in (1, 2, 3)]
HIDDEN = ("seed 100002: ActionError: no 'a' element with text 'ornare' in view; span 'ornare' is in a closed"
          " panel: click('a', '2') opens it")
READ_LINK = "import re\nlink = re.search(r'link \"(.+?)\"', task).group(1)\n"


def clicks_on_tabs(program: str, link: str, in_tab: str) -> list[tuple[str, str]]:
    """The clicks ``program`` makes on three tabs whose panel ``in_tab`` holds ``link`` (the first open)."""
    made: list[tuple[str, str]] = []

    def page(tab: str) -> list[dict[str, str]]:
        return [*TABS, {"tag": "span", "text": link if tab == in_tab else "lorem", "id": "", "classes": "alink"}]

    def click(tag: str, text: str) -> list[dict[str, str]]:
        made.append((tag, text))
        return page(text) if "ui-tabs-anchor" in tag else page("")

    exec(program, {"task": f'click on the link "{link}".', "observation": page("1"), "click": click})  # noqa: S102
    return made


def test_a_click_on_a_computed_text_searches_the_tabs_a_check_seed_hid_it_in() -> None:
    searched = search_panels(READ_LINK + "click('a', link)", HIDDEN, TABS)
    assert searched == READ_LINK + (
        "shown_texts = [element['text'] for element in observation]\n"
        "for panel in [element['text'] for element in observation if 'ui-tabs-anchor' in element['classes'].split()]:\n"
        "    if link in shown_texts:\n"
        "        break\n"
        "    shown_texts = [element['text'] for element in click('ui-tabs-anchor', panel)]\n"
        "click('a', link)")
    assert clicks_on_tabs(searched, "ornare", in_tab="1") == [("a", "ornare")]
    assert clicks_on_tabs(searched, "ornare", in_tab="3") == [
        ("ui-tabs-anchor", "1"), ("ui-tabs-anchor", "2"), ("ui-tabs-anchor", "3"), ("a", "ornare")]


def test_a_tree_showing_one_folder_is_searched_by_that_folder_s_class() -> None:
    tree = [{"tag": "span", "text": "Lyda", "id": "", "classes": "file"},
            {"tag": "span", "text": "Agustina", "id": "", "classes": "folder"}]
    hidden = "seed 100000: ActionError: ...; span 'Sergio' is in a closed panel: click('span', 'Agustina') opens it"
    searched = search_panels(READ_LINK + "click('span', link)", hidden, tree)
    assert searched is not None and "click('folder', panel)" in searched


@pytest.mark.parametrize(("program", "refusal", "page"), [
    (READ_LINK + "click('a', link)", "seed 100002: not solved (reward 0)", TABS),       # nothing was hidden
    ("click('a', 'ornare')", HIDDEN, TABS),                                             # a literal: the other rewrite's
    (READ_LINK + "click('a', link)", HIDDEN, TABS[:1] + [{**TABS[1], "classes": ""}]),  # no control like '2' here
    (READ_LINK + "click('a', link)", HIDDEN.replace("'2'", "'9'"), TABS),               # the named control is not here
    (READ_LINK + "if link:\n    click('a', link)", HIDDEN, TABS),                        # not a top-level click
])
def test_a_click_is_left_as_it_is_unless_a_closed_panel_hid_a_computed_text_behind_a_set_of_controls(
        program: str, refusal: str, page: list[dict[str, str]]) -> None:
    assert search_panels(program, refusal, page) is None


LOOP = ("import re\nfor item in re.search(r'Select (.+?) and', task).group(1).split(', '):\n"
        "    click('label', item)\nclick('button', 'Submit')")
NOTHING = "seed 100000: ActionError: no 'label' element with text 'nothing'; closest: label 'NHYf', label 'wp'"


def test_a_loop_over_the_task_s_items_acts_only_on_those_the_page_shows_once_one_was_missing() -> None:
    skipping = skip_unseen_items(LOOP, NOTHING)
    assert skipping == ("import re\ntexts_on_page = [element['text'] for element in observation]\n"
                        "for item in re.search(r'Select (.+?) and', task).group(1).split(', '):\n"
                        "    if item in texts_on_page:\n        click('label', item)\nclick('button', 'Submit')")
    clicked: list[tuple[str, str]] = []
    page = [{"text": "NHYf"}, {"text": "wp"}, {"text": "Submit"}]
    for instruction in ("Select nothing and click Submit.", "Select wp, NHYf and click Submit."):
        exec(skipping, {"task": instruction, "observation": page,  # noqa: S102 -- the test's own rewrite
                        "click": lambda tag, text: clicked.append((tag, text))})
    assert clicked == [("button", "Submit"), ("label", "wp"), ("label", "NHYf"), ("button", "Submit")]


def test_only_the_outermost_loop_over_the_task_s_items_is_guarded() -> None:
    nested = ("items = task.split(', ')\nfor item in items:\n    for again in items:\n"
              "        click('label', again)\n    click('label', item)")
    assert skip_unseen_items(nested, NOTHING) == (
        "texts_on_page = [element['text'] for element in observation]\nitems = task.split(', ')\n"
        "for item in items:\n    if item in texts_on_page:\n        for again in items:\n"
        "            click('label', again)\n        click('label', item)")


@pytest.mark.parametrize(("program", "refusal"), [
    (LOOP, "seed 100000: not solved (reward -1)"),                                    # no item was missing
    ("for item in ['a', 'b']:\n    click('label', item)", NOTHING),                   # not the task's items
    ("for item in task.split():\n    if item in str(observation):\n        click('label', item)", NOTHING),
])
def test_a_loop_is_left_as_it_is_unless_it_took_an_item_of_the_task_the_page_did_not_show(
        program: str, refusal: str) -> None:
    assert skip_unseen_items(program, refusal) is None


@pytest.mark.timeout(10)
def test_a_long_instruction_is_read_at_once() -> None:
    """An instruction read from a results file may be long. The word before a value is looked
    for near it: searched for over the whole, a 40,000-character word took quadratic time."""
    instruction = "a" * 40_000 + ' then click "OK" please'
    assert re.search(pattern("OK", instruction), 'then click "Cancel" please').group(1) == "Cancel"


def test_a_quoted_text_is_read_up_to_its_closing_quote_whatever_follows() -> None:
    """use-autocomplete asks with one quoted text or two. Anchored on the end of "starts with
    "Gua".", the read took 'Swed" and ends with "eden' from the other form, and the page, which
    checks only how the typed text starts and ends, rewarded typing it."""
    one, two = 'Enter an item that starts with "Gua".', 'Enter an item that starts with "Swed" and ends with "eden".'
    assert pattern("Gua", one) == 'with "(.+?)"'
    assert re.search(pattern("Gua", one), two).group(1) == "Swed"
    assert re.search(pattern("eden", two), 'Enter an item that starts with "An" and ends with "ica".').group(1) == "ica"
    assert re.search(pattern('a"b', 'Click the "a"b" link.'), 'Click the "c" link.').group(1) == "c"  # a quote inside


def test_a_copy_of_a_quoted_text_is_that_text_even_where_its_word_stands_earlier() -> None:
    """'An' of 'starts with "An"' is the answer, not the instruction's second word: read from
    there, every seed typed "an"; and since "an" stands in every instruction, the copy was not
    even taken for one that varies."""
    lifted = lift("enter_text('An')", 'Enter an item that starts with "An".', 'Enter an item that starts with "Un".')
    assert lifted is not None and run(lifted, 'Enter an item that starts with "Pu".') == {"from_task": "Pu"}


def test_a_text_with_no_word_is_read_from_the_task_when_it_is_a_whole_quoted_text() -> None:
    """unicode-test's "♥♥♥": with no word in it, it was never taken for a copied text."""
    lifted = lift("click('button', '♥♥♥')", 'Click on the "♥♥♥" button.', 'Click on the "ÖK" button.')
    assert lifted is not None and run(lifted, 'Click on the "取消" button.') == {"from_task": "取消"}
    assert lift("click('button', '♥')", 'Click on the "♥♥♥" button.', 'Click on the "ÖK" button.') is None
    assert lift("click('button', '?')", "What now? Click OK.", "What then? Click OK.") is None  # not quoted
