"""The action executor on real MiniWoB++ pages in headless Chromium."""

from __future__ import annotations

import re
import time

import pytest

from webwise.actions import HOVER_DWELL, ActionError, Executor
from webwise.agent import ActionHandler
from webwise.dom import filtered_summary
from webwise.environment import MiniWoBEnv


def start(env: MiniWoBEnv, task: str, seed: int) -> Executor:
    env.reset(task, seed)
    executor = Executor(env, filtered_summary)
    executor.start()
    return executor


def input_value(env: MiniWoBEnv, selector: str = "input") -> str:
    return env.script("return document.querySelector(arguments[0]).value;", selector)


def test_click_by_text_solves_click_button(env: MiniWoBEnv) -> None:
    executor = start(env, "click-button", 4)
    executor.click("button", env.utterance.split('"')[1])
    assert executor.outcome.success
    assert executor.records[-1].target.startswith("button")


def test_click_label_through_descendant_text_checks_the_box(env: MiniWoBEnv) -> None:
    executor = start(env, "click-checkboxes", 5)
    first = next(e for e in executor.observation if e["tag"] == "t")
    observation = executor.click("label", first["text"])
    box = next(e for e in observation if e["tag"] == "input_checkbox")
    assert box["value"] is True
    assert any(e["clicked"] for e in observation)


def test_a_box_flips_once_per_program_however_it_is_clicked(env: MiniWoBEnv) -> None:
    """Its label and then the box itself (or the box twice) would check and uncheck it: the second click is not made."""
    executor = start(env, "click-checkboxes-large", 0)
    word = re.search(r"Select ([^, ]+)", env.utterance)[1]
    executor.click("label", word)
    observation = executor.click("input_checkbox", word)
    box = executor.records[0].flipped
    assert re.fullmatch(r"#ch\d+", box) and executor.records[1].flipped is None
    assert executor.records[1].note == (f"not clicked: it would flip back {box}, which this program already"
                                        " flipped (a box and its label are one control)")
    assert next(e for e in observation if f"#{e['id']}" == box)["value"] is True
    executor.records.clear()  # the next program may uncheck it, once
    for _ in range(2):
        observation = executor.click("input_checkbox", box[1:])
        assert next(e for e in observation if f"#{e['id']}" == box)["value"] is False


def test_a_box_the_page_flipped_in_turn_may_still_be_clicked(env: MiniWoBEnv) -> None:
    """As after a "select all": only boxes the program's own clicks flipped are held."""
    executor = start(env, "click-checkboxes-large", 0)
    env.script("var a = document.getElementById('ch0'), b = document.getElementById('ch1');"
               "a.addEventListener('click', function () { b.checked = !b.checked; });")
    executor.refresh()
    executor.click("input_checkbox", "ch0")
    observation = executor.click("input_checkbox", "ch1")
    state = {e["id"]: e["value"] for e in observation if e["tag"] == "input_checkbox"}
    assert (state["ch0"], state["ch1"]) == (True, False)
    assert [record.flipped for record in executor.records] == ["#ch0", "#ch1"] and executor.records[1].note is None


def test_a_header_beside_an_icon_shows_its_text_and_clicking_it_expands(env: MiniWoBEnv) -> None:
    executor = start(env, "click-collapsible", 0)
    header = next(e for e in executor.observation if e["tag"] == "h3")
    assert re.fullmatch(r"Section #\d+", header["text"])
    assert not any(e["tag"] == "t" for e in executor.observation)
    executor.click("h3", header["text"])
    executor.click("button", "Submit")
    assert executor.outcome.success


def test_click_bare_text_node(env: MiniWoBEnv) -> None:
    executor = start(env, "click-checkboxes", 6)
    word = next(e for e in executor.observation if e["tag"] == "t")["text"]
    observation = executor.click("t", word)
    assert any(e["tag"] == "input_checkbox" and e["value"] is True for e in observation)


def test_clicking_options_of_a_multiple_list_toggles_each(env: MiniWoBEnv) -> None:
    """A pointer chooses an option (option.click() alone chooses nothing); with no Ctrl+click in
    the API, a click in a list that takes several adds the option, a second click takes it out."""
    executor = start(env, "click-scroll-list", 0)
    wanted = re.search(r"Select (.*) from the scroll list", env.utterance)[1].split(", ")
    options = env.script("return Array.from(document.querySelectorAll('option'), o => o.textContent);")
    other = next(name for name in options if name not in wanted)
    assert len(wanted) == 2
    executor.click("option", wanted[0])
    executor.click("option", other)
    executor.click("option", other)
    executor.click("option", wanted[1])
    chosen = env.script("return Array.from(document.getElementById('options').selectedOptions, o => o.textContent);")
    assert sorted(chosen) == sorted(wanted)
    executor.click("button", "Submit")
    assert executor.outcome.success


def test_a_drop_down_lists_its_options_and_clicking_or_selecting_one_chooses_it(env: MiniWoBEnv) -> None:
    """A closed drop-down shows only its chosen option; the summary lists all of them (marking
    the chosen one), so choose-list's answer is on the page, and a click or select_text picks it."""
    executor = start(env, "choose-list", 1)
    wanted = re.search(r"Select (.*) from the list", env.utterance)[1]
    options = [e for e in executor.observation if e["tag"] == "option"]
    assert wanted in [e["text"] for e in options] and len(options) > 2
    assert [e["text"] for e in options if e.get("selected")] == [options[0]["text"]]
    executor.select_text(wanted)
    assert [e["text"] for e in executor.observation if e.get("selected")] == [wanted]
    executor.click("option", options[0]["text"])
    assert [e["text"] for e in executor.observation if e.get("selected")] == [options[0]["text"]]
    executor.click("option", wanted)
    executor.click("button", "Submit")
    assert executor.outcome.success


@pytest.mark.parametrize("seed", [3, 8])
def test_a_spinner_arrow_steps_on_each_click_as_under_a_pointer(env: MiniWoBEnv, seed: int) -> None:
    """jQuery UI's spinner steps on mousedown: a click that sent only the click event moved nothing."""
    executor = start(env, "use-spinner", seed)
    wanted = int(re.search(r"-?\d+", env.utterance)[0])
    for _ in range(abs(wanted)):
        executor.click("ui-spinner-up" if wanted > 0 else "ui-spinner-down", "")
    assert int(input_value(env)) == wanted
    executor.click("button", "Submit")
    assert executor.outcome.success


def test_typing_the_page_swallows_is_noted_and_a_command_the_page_clears_is_not(env: MiniWoBEnv) -> None:
    """use-spinner's field drops every key: the program would submit 0 and never learn why.
    A terminal clears its prompt on Enter, which is the command taking effect, not keys lost."""
    executor = start(env, "use-spinner", 3)
    executor.click("input_text", "")
    executor.enter_text("5")
    assert "the page ignores typed keys there" in executor.records[-1].note
    executor = start(env, "terminal", 0)
    executor.click("input_text", "")
    executor.enter_text("ls\n")
    assert executor.records[-1].note is None


def test_a_click_on_a_rich_text_editor_s_paragraph_puts_the_caret_there(env: MiniWoBEnv) -> None:
    """A person's click focuses the editor and places the caret; the page's paragraph cannot take
    focus itself, so typing after the click found nothing focused."""
    executor = start(env, "text-editor", 2)
    paragraph = next(e for e in executor.observation if e["tag"] == "p")
    executor.click("p", paragraph["text"])
    executor.enter_text("Zq")
    assert paragraph["text"] + "Zq" in env.script("return document.querySelector('.ql-editor').textContent;")


def test_click_with_no_match_names_candidates(env: MiniWoBEnv) -> None:
    executor = start(env, "click-button", 4)
    with pytest.raises(ActionError, match=r"no 'button' element with text 'Nonexistent'; closest: "):
        executor.click("button", "Nonexistent")
    assert not executor.outcome.done


@pytest.mark.parametrize(("task", "panel", "control"), [
    ("click-tab-2", "#tabs-3", "click('a', 'Tab #3')"),
    ("click-collapsible-2", "#area > div:last-of-type", "click('h3', 'Section #{n}')"),
])
def test_a_link_in_a_closed_panel_is_named_with_the_click_that_opens_it(
        env: MiniWoBEnv, task: str, panel: str, control: str) -> None:
    """Tabs and accordions keep closed panels out of the observation; the error says which
    control opens the one holding the text, and following it reaches the link."""
    executor = start(env, task, 2)
    word = env.script("return document.querySelector(arguments[0] + ' .alink').textContent;", panel)
    sections = env.script("return document.querySelectorAll('#area h3').length;")
    control = control.format(n=sections)
    with pytest.raises(ActionError, match=re.escape(f"is in a closed panel: {control} opens it")):
        executor.click("a", word)
    executor.click(*re.fullmatch(r"click\('(\w+)', '(.+)'\)", control).groups())
    executor.click("span", word)
    assert executor.outcome.done


def test_a_name_in_a_closed_folder_is_named_with_the_folder_that_opens_it(env: MiniWoBEnv) -> None:
    """A file tree keeps a closed folder's items out of the observation, in a hidden list under the
    folder's own list item: the error names the folder, and clicking it shows the name."""
    executor = start(env, "navigate-tree", 1)
    word, folder = env.script("var s = Array.from(document.querySelectorAll('#tree ul span'))"
                              ".find(e => !e.getClientRects().length);"
                              "var item = s.closest('ul').parentElement;"
                              "return [s.textContent, item.querySelector(':scope > span').textContent];")
    with pytest.raises(ActionError, match=re.escape(f"is in a closed panel: click('span', {folder!r}) opens it")):
        executor.click("span", word)
    observation = executor.click("span", folder)
    assert word in {element["text"] for element in observation}


@pytest.mark.parametrize("seed", [2, 4])
def test_an_item_in_a_closed_submenu_is_reached_by_the_hovers_the_errors_name(env: MiniWoBEnv, seed: int) -> None:
    """A menu opens a submenu under the resting pointer and chooses any item clicked, so
    click-menu failed when the 1.5B clicked the parent item our error named. The error names
    a hover; following it level by level, then clicking the item, chooses the right one."""
    executor = start(env, "click-menu", seed)
    leaf = env.utterance.split(">")[-1]
    hovers = []
    for _ in range(3):
        try:
            executor.click("div", leaf)
            break
        except ActionError as exc:
            hover = re.search(r"is in a closed submenu: hover\('div', '(.+)'\) opens it \(a click", str(exc))
            assert hover, str(exc)
            hovers.append(hover.group(1))
            executor.hover("div", hover.group(1))
    assert hovers == env.utterance[len("Select "):].split(">")[:-1][-len(hovers):]
    assert executor.outcome.success


def test_the_page_is_read_once_an_opening_panel_stops_moving(env: MiniWoBEnv) -> None:
    """click-collapsible-2's accordion animates one section shut and the next open; a page
    read meanwhile showed the closing section's links and none of the opening one's."""
    executor = start(env, "click-collapsible-2", 1)
    for header in ("Section #1", "Section #2", "Section #3"):
        observation = executor.click("h3", header)
    links = env.script("var h = document.querySelectorAll('#area h3')[2];"
                       "return Array.from(document.querySelectorAll("
                       "'#' + h.getAttribute('aria-controls') + ' .alink')).map(e => e.textContent);")
    shown = {e["text"] for e in observation}
    assert links and set(links) <= shown


def test_enter_text_without_focus_is_an_error_that_names_the_fields_to_click(env: MiniWoBEnv) -> None:
    executor = start(env, "enter-text", 1)
    with pytest.raises(ActionError) as raised:
        executor.enter_text("hello")
    assert str(raised.value) == ("no text input is focused (nothing is); "
                                 "click the field first, then type: click('input_text', 'tt')")


def test_typing_a_reply_before_clicking_its_field_names_that_field(env: MiniWoBEnv) -> None:
    """email-inbox-reply: the reply's textarea opens unfocused; typing right after Reply."""
    executor = start(env, "email-inbox-reply", 1)
    sender = re.search(r"email by (\S+)", env.utterance).group(1)
    executor.click("div", sender)
    executor.click("span", "email-reply")
    with pytest.raises(ActionError, match=r"click the field first, then type: click\('textarea', 'reply-text'\)"):
        executor.enter_text("hello")
    executor.click("textarea", "reply-text")
    executor.enter_text("hello")
    assert input_value(env, "#reply-text") == "hello"


@pytest.mark.parametrize("seed", [1, 2])
def test_textless_cards_the_page_marks_clickable_are_listed_and_clicked_by_ref(env: MiniWoBEnv, seed: int) -> None:
    """find-greatest's face-down cards are divs with no text, id or useful class: the summary
    left them out, and the page showed nothing to click but Submit."""
    env.reset("find-greatest", seed)
    executor = Executor(env, filtered_summary)
    cards = [e["ref"] for e in executor.start() if "card" in e["classes"].split()]
    assert len(cards) == 3
    values = {}
    for ref in cards:
        shown = executor.click("div", f"[{ref}]")
        values[ref] = int(next(e["text"] for e in shown if "card-value" in e["classes"] and e["text"]))
    executor.click("div", f"[{max(values, key=values.get)}]")
    executor.click("button", "Submit")
    assert executor.outcome.success


@pytest.mark.parametrize("seed", [3, 4])
def test_a_box_named_by_the_colour_the_page_shows_is_the_one_clicked(env: MiniWoBEnv, seed: int) -> None:
    """click-color's boxes have no text; the summary prints each one's colour, and the 1.5B
    named the box by it (``click('div', 'olive')``) at every seed and trial."""
    env.reset("click-color", seed)
    executor = Executor(env, filtered_summary)
    executor.start()
    colour = re.search(r"the (\S+) colored box", env.utterance).group(1)
    executor.click("div", colour)
    assert executor.outcome.success


@pytest.mark.parametrize(("task", "seed"), [("choose-date", 2), ("book-flight", 1), ("choose-date-medium", 4)])
def test_a_date_typed_into_a_calendar_field_gets_the_clicks_that_pick_it(env: MiniWoBEnv, task: str, seed: int) -> None:
    """The 1.5B typed the asked date into the read-only field, then, told to use the calendar,
    clicked day 1 of the month shown (choose-date, book-flight: 0 of 18). The error names the
    moves from the month shown and the day; following them sets the field to that date."""
    executor = start(env, task, seed)
    date = re.search(r"\d\d/\d\d/\d{4}", env.utterance).group(0)
    executor.click("input_text", "datepicker")
    with pytest.raises(ActionError, match=r"the calendar shows December 2016; for ") as info:
        executor.enter_text(date)
    loop = re.search(r"`for _ in range\((\d+)\): click\('(\w+)', '(\w+)'\)`, then call", str(info.value))
    once = re.search(r"call click\('(\w+)', '(\w+)'\), then", str(info.value))
    if loop:
        for _ in range(int(loop.group(1))):
            executor.click(loop.group(2), loop.group(3))
    elif once:
        executor.click(once.group(1), once.group(2))
    day = re.search(r"click\('(\w+)', '(\d+)'\)$", str(info.value))
    executor.click(day.group(1), day.group(2))
    assert input_value(env, "#datepicker") == date


def test_an_episode_starts_on_a_fresh_page_whatever_the_last_one_left(env: MiniWoBEnv) -> None:
    """MiniWoB's reset drew the next episode into the page the last one used. Its focused field
    got no focus event from the next click, so choose-date's calendar stayed shut (every
    replayed trial of choose-date-nodelay); with the focus cleared, the calendar the last
    episode opened was still open on the next one's first page."""
    executor = start(env, "choose-date-nodelay", 1)
    executor.click("input_text", "datepicker")
    executor = start(env, "choose-date-nodelay", 1)
    assert not any(element.get("focused") for element in executor.observation)
    observation = executor.click("input_text", "datepicker")
    assert any(element["text"] == "Prev" for element in observation)
    executor = start(env, "choose-date", 1)
    executor.click("input_text", "datepicker")
    executor.click("button", "Submit")  # ends the episode with the calendar open
    executor = start(env, "choose-date", 1)
    assert not any(element["text"] == "Prev" for element in executor.observation)


def test_an_autocompletes_notes_do_not_pile_up_from_episode_to_episode(env: MiniWoBEnv) -> None:
    """jQuery UI's autocomplete adds a "No search results." note for screen readers at each
    search; on a page reset rather than reloaded they stayed into the next episodes."""
    executor = start(env, "use-autocomplete-nodelay", 4)
    executor.click("input_text", "tags")
    executor.enter_text("zzz")
    for _ in range(30):  # the search runs after the keys, on a timer
        if any(element["text"] == "No search results." for element in env.observe()[0]):
            break
        time.sleep(0.1)
    else:
        pytest.fail("the autocomplete added no note")
    executor = start(env, "use-autocomplete-nodelay", 3)
    assert not any(element["text"] == "No search results." for element in executor.observation)


def test_an_episode_starts_with_the_pointer_where_a_new_browser_has_it(env: MiniWoBEnv) -> None:
    """The pointer rests where the last episode's hover left it, and Chrome gives the element
    that appears under it a mouseover: the same seed of click-menu began with a submenu open."""
    executor = start(env, "click-menu", 2)
    fresh = [(element["tag"], element["text"]) for element in executor.observation]
    parents = [element for element in executor.observation if element["tag"] == "div" and element["text"]]
    for parent in parents:
        if len(executor.hover("div", parent["text"])) > len(fresh):
            break
    else:
        pytest.fail("no item of the menu opens a submenu")
    executor = start(env, "click-menu", 2)
    time.sleep(HOVER_DWELL)  # a submenu opens this long after the pointer arrives
    executor.start()
    assert [(element["tag"], element["text"]) for element in executor.observation] == fresh


def test_typing_into_a_read_only_field_is_refused_and_its_calendar_is_what_sets_it(env: MiniWoBEnv) -> None:
    """choose-date's date field ignores keys: typing the asked date would leave it empty, then
    submit it, and the program would never learn why. The calendar its click opens sets it."""
    executor = start(env, "choose-date-easy", 1)
    date = re.search(r"Select (\S+) as", env.utterance).group(1)
    executor.click("input_text", "datepicker")
    with pytest.raises(ActionError, match="read-only, the page fills it from its own controls"):
        executor.enter_text(date)
    assert input_value(env, "#datepicker") == ""
    executor.click("a", str(int(date.split("/")[1])))
    assert input_value(env, "#datepicker") == date


def test_a_disabled_element_is_not_clicked_and_the_error_says_why(env: MiniWoBEnv) -> None:
    """sign-agreement keeps its name field and Agree button disabled until the text is scrolled
    to its end: a click on them does nothing, which the program is told instead of going on."""
    executor = start(env, "sign-agreement", 4)
    with pytest.raises(ActionError, match=r"click\('button', 'Agree'\): it is disabled: the page enables it"):
        executor.click("button", "Agree")
    with pytest.raises(ActionError, match="it is disabled"):
        executor.click("input_text", "name")
    env.script("var a = document.getElementById('text-area'); a.scrollTop = a.scrollHeight;"
               "a.dispatchEvent(new Event('scroll'));")
    executor.click("input_text", "name")
    executor.enter_text("Olin")
    executor.click("button", "Agree")
    assert executor.outcome.success


def test_typing_after_clicking_a_caption_names_the_click_that_reaches_its_field(env: MiniWoBEnv) -> None:
    """login-user's labels are not tied to their fields: clicking one focuses nothing."""
    executor = start(env, "login-user", 1)
    executor.click("label", "Password")
    with pytest.raises(ActionError) as raised:
        executor.enter_text("secret")
    advice = "click the field: click('input_password', 'password')"
    assert str(raised.value) == ("no text input is focused (nothing is); click('label', 'Password') clicked "
                                 f"the label 'Password', not its field; {advice}")
    assert executor.caption_fix("label", "Password") == "click('input_password', 'password')"
    assert executor.caption_fix("label", "Username") == "click('input_text', 'username')"
    assert executor.caption_fix("button", "Login") is None
    executor.click("input_password", "password")
    executor.enter_text("secret")
    assert input_value(env, "#password") == "secret"


def test_typing_after_clicking_another_fields_caption_is_refused(env: MiniWoBEnv) -> None:
    """The focus stays on the field typed into before; the text must not land there."""
    executor = start(env, "login-user", 1)
    executor.click("input_text", "username")
    executor.enter_text("someone")
    executor.click("label", "Password")
    with pytest.raises(ActionError) as raised:
        executor.enter_text("secret")
    assert str(raised.value) == ("not typed: the focus is still on another field (input_text); click('label', "
                                 "'Password') clicked the label 'Password', not its field; click the field: "
                                 "click('input_password', 'password')")
    assert input_value(env, "#username") == "someone"
    assert executor.caption_fix("label", "Password") == "click('input_password', 'password')"
    executor.click("label", "Username")  # a caption of the focused field itself: typing goes on there
    executor.enter_text("!")
    assert input_value(env, "#username") == "someone!"


def test_typing_what_the_field_already_holds_does_not_double_it(env: MiniWoBEnv) -> None:
    """A rewritten or replayed program types the username again; the field keeps one copy."""
    executor = start(env, "login-user", 1)
    executor.click("input_text", "username")
    executor.enter_text("someone")
    executor.enter_text("someone")
    assert input_value(env, "#username") == "someone"
    assert executor.records[-1].target == "input_text text (already held this text)"
    assert executor.records[-1].note is None
    executor.enter_text("one")
    assert input_value(env, "#username") == "someoneone"
    assert executor.records[-1].note == ("the field held 'someone', so the text went after it; "
                                         "press_key('Control+a') first to replace it")
    executor.press_key("Control+a")
    executor.enter_text("other")
    assert input_value(env, "#username") == "other" and executor.records[-1].note is None


def test_without_guards_typing_and_caption_clicks_run_as_written(env: MiniWoBEnv) -> None:
    """``guards=False``: a held value is typed again, and typing after another field's caption goes on."""
    env.reset("login-user", 1)
    executor = Executor(env, filtered_summary, guards=False)
    executor.start()
    executor.click("input_text", "username")
    executor.enter_text("someone")
    executor.enter_text("someone")
    assert input_value(env, "#username") == "someonesomeone"
    executor.click("label", "Password")
    executor.enter_text("!")
    assert input_value(env, "#username") == "someonesomeone!"
    executor.caption_misses.add(("label", "Password"))
    assert executor.caption_fix("label", "Password") is None


def test_enter_text_with_newline_presses_enter(env: MiniWoBEnv) -> None:
    executor = start(env, "enter-text", 2)
    word = re.search(r'"(.*)"', env.utterance).group(1)
    executor.click("input_text", "")
    observation = executor.enter_text(word)
    assert input_value(env) == word
    assert any(e["tag"] == "input_text" and e["modified"] for e in observation)
    executor.click("button", "Submit")
    assert executor.outcome.success


def test_press_key_combinations_edit_the_input(env: MiniWoBEnv) -> None:
    executor = start(env, "enter-text", 3)
    executor.click("input_text", "")
    executor.enter_text("abc def")
    executor.press_key("Backspace")
    assert input_value(env) == "abc de"
    executor.press_key("Home")
    executor.press_key("Delete")
    assert input_value(env) == "bc de"
    executor.press_key("Control+a")
    executor.press_key("Backspace")
    assert input_value(env) == ""
    executor.enter_text("a")
    executor.press_key(" ")  # the space bar written as the character it types
    executor.enter_text("b")
    assert input_value(env) == "a b"
    with pytest.raises(ActionError, match="unknown key"):
        executor.press_key("Hyper")
    with pytest.raises(ActionError, match="unknown modifier"):
        executor.press_key("Super+x")


def test_copy_and_paste_between_inputs(env: MiniWoBEnv) -> None:
    executor = start(env, "login-user", 0)
    executor.click("input_text", "username")
    executor.enter_text("copied")
    executor.press_key("Control+a")
    executor.press_key("Control+c")
    executor.click("input_password", "password")
    executor.press_key("Control+v")
    assert input_value(env, "#password") == "copied"


@pytest.mark.parametrize("typed", ["03/14/2016", "2016-03-14", "March 14, 2016"])
def test_date_input_accepts_human_forms(env: MiniWoBEnv, typed: str) -> None:
    executor = start(env, "enter-date", 0)
    executor.click("input_date", "")
    executor.enter_text(typed)
    assert input_value(env, "#tt") == "2016-03-14"


@pytest.mark.parametrize(("typed", "value"), [("9:37 PM", "21:37"), ("21:37", "21:37"), ("12:05am", "00:05")])
def test_time_input_accepts_human_forms(env: MiniWoBEnv, typed: str, value: str) -> None:
    executor = start(env, "enter-time", 0)
    executor.click("input_time", "")
    executor.enter_text(typed)
    assert input_value(env, "#tt") == value


#: Whether the first button whose text is arguments[0] lies wholly inside the viewport.
IN_VIEW = """
var button = Array.from(document.querySelectorAll('button')).find(b => b.textContent.trim() === arguments[0]);
var r = button.getBoundingClientRect();
return r.top >= 0 && r.bottom <= window.innerHeight;
"""


def test_scroll_brings_text_into_view(env: MiniWoBEnv) -> None:
    """A spacer above the task pushes its buttons below the fold; scroll brings the named one back."""
    executor = start(env, "click-button", 4)
    env.script("var spacer = document.createElement('div'); spacer.style.height = '3000px';"
               "document.body.insertBefore(spacer, document.body.firstChild); window.scrollTo(0, 0);")
    name = env.utterance.split('"')[1]
    assert env.script(IN_VIEW, name) is False
    executor.scroll(name)
    assert env.script(IN_VIEW, name) is True
    with pytest.raises(ActionError, match="no element contains"):
        executor.scroll("zzzz-not-on-the-page")


def test_scroll_inside_a_scrolled_box_brings_the_text_itself_into_view(env: MiniWoBEnv) -> None:
    """The calendar's hours sit in a box that scrolls: scrolling to the box's top left 8pm out of view."""
    executor = start(env, "daily-calendar", 0)
    label = "Array.from(document.querySelectorAll('.hour-label')).find(e => e.textContent.trim() === arguments[0])"
    in_box = (f"var r = {label}.getBoundingClientRect(), box = document.getElementById('area').getBoundingClientRect();"
              "return r.top >= box.top && r.bottom <= box.bottom && r.bottom <= window.innerHeight;")
    assert env.script(in_box, "8pm") is False
    executor.scroll("8pm")
    assert env.script(in_box, "8pm") is True


def test_scroll_brings_the_text_into_view_inside_a_scrolled_box(env: MiniWoBEnv) -> None:
    """order-food's menu scrolls inside its box: the dish at its bottom comes into the box's view."""
    executor = start(env, "order-food", 0)
    box = "var area = document.getElementById('area').getBoundingClientRect();"
    dish = "var dish = Array.from(document.querySelectorAll('.item-name')).pop().getBoundingClientRect();"
    shown = f"{box} {dish} return dish.top >= area.top && dish.bottom <= area.bottom;"
    assert env.script(shown) is False
    executor.scroll(env.script("return Array.from(document.querySelectorAll('.item-name')).pop().textContent;"))
    assert env.script(shown) is True


def test_injection_through_arguments_stays_data(env: MiniWoBEnv) -> None:
    executor = start(env, "click-button", 4)
    hostile = "'); core.endEpisode(1, false); ('"
    with pytest.raises(ActionError):
        executor.click("button", hostile)
    with pytest.raises(ActionError):
        executor.scroll("\"]); WOB_RAW_REWARD_GLOBAL = 1; //")
    assert not executor.outcome.done
    assert env.script("return WOB_RAW_REWARD_GLOBAL;") == 0


def test_paper_spelling_through_the_handler(env: MiniWoBEnv) -> None:
    executor = start(env, "click-button", 9)
    handler = ActionHandler(executor)
    target = env.utterance.split('"')[1]
    action = handler("click_action1", ["button", target, executor.observation], {}).value
    assert action == {"action": "click", "args": ["button", target]}
    reply = handler("env.step", [action], {})
    observation, reward, terminated, truncated, info = reply.value
    assert terminated and reply.stop and executor.outcome.success
    assert reply.rebind["observation"] == observation


def test_handler_refuses_bad_arguments(env: MiniWoBEnv) -> None:
    executor = start(env, "click-button", 9)
    handler = ActionHandler(executor)
    assert "expects text as a string" in handler("click", ["button", {"x": 1}], {}).error
    assert handler("click", ["button"], {}).error.startswith("click(): ")
    assert "not an action" in handler("navigate", ["http://example.com"], {}).error
    assert "env.step() expects" in handler("env.step", [{"action": "javascript"}], {}).error


def test_scrolling_a_box_named_by_its_tag_scrolls_its_content_to_the_end(env: MiniWoBEnv) -> None:
    """"Scroll to the bottom of the textarea": the 1.5B wrote scroll('textarea') on every
    sign-agreement and scroll-text-2 episode of a fresh-seed run and was told no element holds
    that text. A text no element holds that names a box whose content scrolls scrolls it."""
    executor = start(env, "sign-agreement", 4)
    executor.scroll("textarea")
    executor.click("input_text", "name")
    executor.enter_text("Olin")
    executor.click("button", "Agree")
    assert executor.outcome.success
    with pytest.raises(ActionError, match=r"scroll\('button'\): no element contains that text"):
        start(env, "sign-agreement", 4).scroll("button")  # a button's content does not scroll


def test_scrolling_to_a_text_copied_as_the_page_text_cuts_it(env: MiniWoBEnv) -> None:
    executor = start(env, "scroll-text", 1)
    area = next(e for e in executor.elements if e["tag"] == "textarea")
    words = area["value"].split()
    executor.scroll(" ".join(words[:4]) + " ...")
    assert executor.records[-1].target == f"textarea {area['value'][:40]!r}"
    executor.scroll(" ".join(words[:4]) + " ... " + " ".join(words[-3:]))
    assert executor.records[-1].target == f"textarea {area['value'][:40]!r}, scrolled to its end"


def test_a_copy_of_a_scrolling_box_s_text_to_its_end_scrolls_it_there(env: MiniWoBEnv) -> None:
    """sign-agreement asks to scroll its text area to the bottom; the 1.5B named the area by its
    text as the page text shows it, start ... end."""
    executor = start(env, "sign-agreement", 4)
    words = next(e for e in executor.elements if e["tag"] == "textarea")["value"].split()
    executor.scroll(" ".join(words[:5]) + " ... " + " ".join(words[-4:]))
    executor.click("input_text", "name")
    executor.enter_text("Olin")
    executor.click("button", "Agree")
    assert executor.outcome.success
