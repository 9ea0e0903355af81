"""Trials with structured reflection, failed-target memory, no repeats and ending conditions (replay backend)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chat_server import ChatServer, reply
from webwise import Session, Settings
from webwise.environment import MiniWoBEnv
from webwise.episode import Step
from webwise.reflection import FailureMemory, parse_reflection

TARGET = "import re\ntarget = re.search(r'\"(.*)\"', task).group(1)\n"
STEP1 = "```python\nclick('input_text', '')\n```"
WRONG_TYPE = "```python\nenter_text('wrong')\nclick('button', 'Submit')\n```"
REFLECTION = ("Step: 2\nWhy: it typed a word that is not the one asked for.\n```python\n" + TARGET +
              "enter_text(target)\nclick('button', 'Submit')\n```")
IDLE = "```python\nscroll('Submit')\n```"  # acts, but changes nothing


def session(tmp_path: Path, replies: dict[str, list[str]], **settings: int) -> Session:
    path = tmp_path / "replies.json"
    path.write_text(json.dumps(replies))
    return Session(f"replay:{path}", Settings(**settings))


def test_correction_applied_at_the_named_step_after_replaying_earlier_ones(tmp_path: Path) -> None:
    with session(tmp_path, {"enter-text": [STEP1, WRONG_TYPE, REFLECTION]}, max_steps=4, trials=3) as s:
        episode = s.run("enter-text", 2, "webwise", "none")
    assert episode.success and not episode.success_first_trial
    assert episode.llm_calls == 3  # two steps, one reflection; the second trial asked nothing
    first, second = episode.trials
    assert (first.ending, first.steps, second.ending, second.steps) == ("failed", 2, "solved", 2)
    assert (first.raw_reward, second.raw_reward) == (-1.0, 1.0)  # each attempt's own reward
    assert first.reflection["step"] == 2 and "not the one asked for" in first.reflection["why"]
    trial2 = [step for step in episode.trace if step.trial == 1]
    assert [step.source for step in trial2] == ["replay", "correction"]
    assert [step.prompt for step in trial2] == [[], []]
    assert trial2[0].program == "click('input_text', '')"
    assert trial2[1].program.endswith("enter_text(target)\nclick('button', 'Submit')")


def test_replayed_steps_do_not_count_against_the_step_budget(tmp_path: Path) -> None:
    """With two steps per trial, a fix at step 2 after a replay still leaves a step to submit in."""
    typed_wrong = "```python\nenter_text('wrong')\n```"
    typed_right = f"Step: 2\nWhy: it typed the wrong word.\n```python\n{TARGET}enter_text(target)\n```"
    submit = "```python\nclick('button', 'Submit')\n```"
    with session(tmp_path, {"enter-text": [STEP1, typed_wrong, typed_right, submit]}, max_steps=2, trials=2) as s:
        episode = s.run("enter-text", 2, "webwise", "none")
    first, second = episode.trials
    assert (first.ending, first.steps) == ("incomplete", 2)
    assert (second.ending, second.steps) == ("solved", 3) and episode.success
    trial2 = [step for step in episode.trace if step.trial == 1]
    assert [step.source for step in trial2] == ["replay", "correction", "model"]


def test_reflection_prompt_is_built_from_the_trace(tmp_path: Path) -> None:
    with session(tmp_path, {"enter-text": [STEP1, WRONG_TYPE, REFLECTION]}, max_steps=4, trials=2) as s:
        episode = s.run("enter-text", 2, "webwise", "none")
    system, user = episode.trials[0].reflection["prompt"]
    assert "earliest step whose program was wrong" in system["content"]
    assert "def click(tag: str, text: str)" in system["content"]
    content = user["content"]
    assert content.startswith(f"Task: {episode.utterance}")
    assert (content.index("--- step 1: the page ---") < content.index("--- step 1: the program ---")
            < content.index("--- step 2: the page ---"))
    assert ("--- step 1: what happened ---\nran click('input_text', ''); the page changed; the task is not complete yet"
            in content)
    assert "ran enter_text('wrong'); click('button', 'Submit'); the page ended the task as failed" in content
    page2 = content.split("--- step 2: the page ---")[1]
    assert "input_text" in page2 and "focused" in page2
    assert content.endswith("The attempt ended: failed. Answer in exactly this form and nothing else:\n"
                            "Step: <the number of the earliest wrong step>\nWhy: <one short sentence>\n"
                            "```python\n<the program that step should have run>\n```")


def _seed_with_two_buttons() -> tuple[int, str, str]:
    with MiniWoBEnv() as env:
        for seed in range(30):
            utterance = env.reset("click-button", seed)
            target = utterance.split('"')[1]
            others = [e["text"] for e in env.observe()[0] if e["tag"] == "button" and e["text"] != target]
            if others:
                return seed, target, others[0]
    raise AssertionError("no seed of click-button shows two different buttons")


def test_failed_click_targets_are_marked_in_the_next_trial(tmp_path: Path) -> None:
    seed, target, wrong = _seed_with_two_buttons()
    wrong_program = f"```python\nclick('button', {wrong!r})\n```"
    right = f"```python\n{TARGET}click('button', target)\n```"
    replies = [wrong_program, "I am not sure what went wrong.", right]
    with session(tmp_path, {"click-button": replies}, max_steps=2, trials=2) as s:
        episode = s.run("click-button", seed, "webwise", "none")
    assert episode.success and episode.trials[0].ending == "failed"
    assert episode.trials[0].reflection["step"] is None
    retry = next(step for step in episode.trace if step.trial == 1)
    marked = [e for e in retry.observation if e.get("failed_before")]
    assert [e["text"] for e in marked] == [wrong]
    page = retry.prompt[1]["content"].split("Page:")[1]
    assert re.search(rf'button "{re.escape(wrong)}".* failed_before', page)
    assert not re.search(rf'button "{re.escape(target)}".* failed_before', page)


def test_targets_the_task_names_are_not_flagged_as_failed(tmp_path: Path) -> None:
    """The step failed for the extra box it ticked, not for the box and the Submit the task names."""
    with MiniWoBEnv() as env:
        task = env.reset("click-checkboxes", 0)
        boxes = [e["text"] for e in env.observe()[0] if e["tag"] == "t"]
    named, extra = [b for b in boxes if b in task], [b for b in boxes if b not in task][:1]
    assert named and extra
    ticks = "".join(f"click('label', {b!r})\n" for b in named)
    wrong = f"```python\n{ticks}click('label', {extra[0]!r})\nclick('button', 'Submit')\n```"
    right = f"```python\n{ticks}click('button', 'Submit')\n```"
    with session(tmp_path, {"click-checkboxes": [wrong, "I am not sure.", right]}, max_steps=2, trials=2) as s:
        episode = s.run("click-checkboxes", 0, "webwise", "none")
    assert episode.success and episode.trials[0].ending == "failed"
    retry = next(step for step in episode.trace if step.trial == 1)
    assert [e["text"] for e in retry.observation if e.get("failed_before")] == extra


@pytest.mark.parametrize("target, flagged", [("Submit", False), ("submit", False), ("a", False),
                                              ("Sub", True), ("b", True)])
def test_a_target_counts_as_named_by_the_task_only_as_a_whole_word(target: str, flagged: bool) -> None:
    step = Step(index=0, prompt=[], actions=[{"name": "click", "args": ["button", target], "target_text": target}])
    memory = FailureMemory()
    memory.remember(0, step, "Select a and press Submit.")
    assert (target in memory.failed[0]) == flagged


def test_a_repeated_program_is_not_run_twice(tmp_path: Path) -> None:
    solve = f"```python\n{TARGET}click('input_text', '')\nenter_text(target)\nclick('button', 'Submit')\n```"
    with session(tmp_path, {"enter-text": [IDLE, IDLE, solve]}, max_steps=3) as s:
        episode = s.run("enter-text", 4, "webwise", "none")
    assert episode.success and episode.llm_calls == 3
    first, second = episode.trace
    assert first.status == "no change" and second.repeats == 1
    assert "You already ran exactly this program on this page" in second.prompt[1]["content"]
    assert second.program.endswith("click('button', 'Submit')")


def test_repeating_past_the_cap_ends_the_trial_as_a_cycle(tmp_path: Path) -> None:
    with session(tmp_path, {"enter-text": [IDLE] * 4}, max_steps=3) as s:
        episode = s.run("enter-text", 4, "webwise", "none")
    assert not episode.success and episode.llm_calls == 4
    assert [step.status for step in episode.trace] == ["no change", "cycle"]
    assert episode.trace[1].error.startswith("the model repeated a program")
    assert episode.trials[0].ending == "cycle"


@pytest.mark.parametrize(
    ("task", "replies", "statuses", "ending"),
    [
        ("enter-text", [STEP1, "```python\nx = 1 / 0\n```", IDLE], ["progress", "exception", "no change"], "incomplete"),
        ("click-checkboxes", ["```python\nclick('input_checkbox', '')\n```"] * 2, ["progress", "cycle"], "cycle"),
        ("click-collapsible-2", ["```python\nclick('h3', 'Section #1')\n```"] * 2, ["progress", "cycle"], "cycle"),
        ("enter-text", [STEP1, WRONG_TYPE], ["progress", "failed"], "failed"),
        ("click-test", ["```python\nclick('button', 'Click Me!')\n```"], ["solved"], "solved"),
    ],
    ids=["exception-no-change-incomplete", "cycle", "cycle-accordion-closed-again", "failed", "solved"],
)
def test_ending_conditions(tmp_path: Path, task: str, replies: list[str], statuses: list[str], ending: str) -> None:
    with session(tmp_path, {task: replies}, max_steps=3) as s:
        episode = s.run(task, 1, "webwise", "none")
    assert [step.status for step in episode.trace] == statuses
    assert episode.trials[0].ending == ending
    assert all(step.feedback for step in episode.trace)


def test_bare_python_errors_get_a_hint(tmp_path: Path) -> None:
    replies = ["```python\nx = next(e for e in observation if e['tag'] == 'marquee')\nclick('marquee', x['text'])\n```",
               "```python\nimport re\nclick('button', re.search(r'zzz(\\d+)', task).group(1))\n```"]
    with session(tmp_path, {"click-test": replies}, max_steps=2) as s:
        episode = s.run("click-test", 0, "webwise", "none")
    first, second = episode.trace
    assert first.error == "StopIteration: next() found no element of observation that matches"
    assert second.error.endswith("(a value is None: often a re.search that found no match)")
    assert "next() found no element" in second.prompt[1]["content"]


def test_warm_re_asks_are_seeded_so_a_rerun_draws_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Through the real openai client: only calls above temperature 0 carry a seed, their index."""
    solve = f"```python\n{TARGET}click('input_text', '')\nenter_text(target)\nclick('button', 'Submit')\n```"
    with ChatServer([reply(IDLE), reply(IDLE), reply(IDLE), reply(solve)]) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.delenv("WEBWISE_LLM_CACHE", raising=False)
        with Session("openai:test-model", Settings(max_steps=3)) as s:
            episode = s.run("enter-text", 4, "webwise", "none")
    assert episode.success and episode.trace[1].repeats == 2
    sent = [(body["temperature"], body.get("seed")) for body in server.requests]
    assert sent == [(0.0, None), (0.0, None), (0.7, 2), (0.7, 3)]


def test_a_program_that_failed_in_an_earlier_trial_is_not_sent_to_that_page_again(tmp_path: Path) -> None:
    seed, target, wrong = _seed_with_two_buttons()
    wrong_program = f"```python\nclick('button', {wrong!r})\n```"
    right = f"```python\n{TARGET}click('button', target)\n```"
    replies = [wrong_program, "no idea", wrong_program, right]
    with session(tmp_path, {"click-button": replies}, max_steps=2, trials=2) as s:
        episode = s.run("click-button", seed, "webwise", "none")
    assert episode.success and not episode.success_first_trial
    retry = next(step for step in episode.trace if step.trial == 1)
    assert retry.repeats == 1 and retry.program.endswith("click('button', target)")
    assert f"An earlier attempt ran this program on this same page:\n```python\nclick('button', {wrong!r})" in \
        retry.prompt[1]["content"]
    clicks = [a["target_text"] for step in episode.trace for a in step.actions]
    assert clicks == [wrong, target]


def test_a_review_that_repeats_the_step_it_names_leads_to_a_fresh_ask_there(tmp_path: Path) -> None:
    """The review is not asked again: the next trial replays step 1 and asks the model at step 2,
    showing the repeated program as failed on that page (comments aside, it is the same one)."""
    same = "Step: 2\nWhy: unsure.\n```python\nenter_text('wrong')  # type it\nclick('button', 'Submit')\n```"
    solve = f"```python\n{TARGET}enter_text(target)\nclick('button', 'Submit')\n```"
    with session(tmp_path, {"enter-text": [STEP1, WRONG_TYPE, same, solve]}, max_steps=3, trials=2) as s:
        episode = s.run("enter-text", 2, "webwise", "none")
    assert episode.success and episode.llm_calls == 4  # two steps, one review, one fresh ask
    review = episode.trials[0].reflection
    assert review["repeated"] and review["step"] == 2 and review["reply"] == same
    assert "That changes nothing" not in review["prompt"][1]["content"]
    trial2 = [step for step in episode.trace if step.trial == 1]
    assert [step.source for step in trial2] == ["replay", "model"]
    assert ("An earlier attempt ran this program on this same page:\n```python\nenter_text('wrong')"
            in trial2[1].prompt[1]["content"])
    assert trial2[1].program.endswith("enter_text(target)\nclick('button', 'Submit')")


def test_a_review_whose_fix_makes_only_the_calls_the_step_made_leads_to_a_fresh_ask(tmp_path: Path) -> None:
    """The step's first click ended the task, so the rest never ran: a fix that is that one
    click is the failed step again, whatever its text."""
    seed, target, wrong = _seed_with_two_buttons()
    both = f"```python\nclick('button', {wrong!r})\nclick('button', {target!r})\n```"
    review = f"Step: 1\nWhy: it clicked two buttons.\n```python\nclick('button', {wrong!r})  # just one\n```"
    right = f"```python\n{TARGET}click('button', target)\n```"
    with session(tmp_path, {"click-button": [both, review, right]}, max_steps=2, trials=2) as s:
        episode = s.run("click-button", seed, "webwise", "none")
    assert episode.success and episode.trials[0].ending == "failed"
    assert episode.trials[0].reflection["repeated"]
    retry = [step for step in episode.trace if step.trial == 1]
    assert [step.source for step in retry] == ["model"]
    assert [a["target_text"] for step in episode.trace for a in step.actions] == [wrong, target]


def test_a_program_that_makes_only_the_calls_of_one_that_failed_here_is_not_run(tmp_path: Path) -> None:
    """Step 1 raised at its second call on a page it left as it was; step 2's program differs
    in text but makes exactly those calls, so it would raise there again."""
    missing = "```python\nlabel = 'Nope'\nscroll('Submit')\nclick('button', label)\n```"
    spelled_out = "```python\nscroll('Submit')\nclick('button', 'Nope')\n```"
    solve = f"```python\n{TARGET}click('input_text', '')\nenter_text(target)\nclick('button', 'Submit')\n```"
    with session(tmp_path, {"enter-text": [missing, spelled_out, solve]}, max_steps=3) as s:
        episode = s.run("enter-text", 4, "webwise", "none")
    assert episode.success and episode.llm_calls == 3
    assert [step.status for step in episode.trace] == ["exception", "solved"]
    second = episode.trace[1]
    assert second.repeats == 1
    assert "This program only makes the calls a program already made on this page" in second.prompt[1]["content"]
    assert [a["args"] for a in second.actions][0] == ["input_text", ""]


def test_the_step_a_review_names_is_not_run_again_even_when_it_made_progress(tmp_path: Path) -> None:
    named = "Step: 1\nWhy: it should have typed first."
    click_field = "```python\nclick('input_text', '')  # focus the field\n```"
    solve = f"```python\n{TARGET}click('input_text', '')\nenter_text(target)\nclick('button', 'Submit')\n```"
    with session(tmp_path, {"enter-text": [STEP1, WRONG_TYPE, named, click_field, solve]},
                 max_steps=3, trials=2) as s:
        episode = s.run("enter-text", 2, "webwise", "none")
    assert episode.success
    first = [step for step in episode.trace if step.trial == 1][0]
    assert first.trial == 1 and first.repeats == 1  # the same click with another comment is the same program
    assert "You already ran exactly this program on this page" in first.prompt[1]["content"]
    assert first.program.endswith("click('button', 'Submit')")


@pytest.mark.parametrize("examples, demonstrated", [("none", True), ("manual", False)])
def test_the_demonstration_stands_in_for_missing_examples(tmp_path: Path, examples: str, demonstrated: bool) -> None:
    """Next to the task's own example the demonstration only competes with it (k=1: 0.74 with it, 0.80 without)."""
    with session(tmp_path, {"enter-text": [STEP1, WRONG_TYPE, REFLECTION]}, max_steps=4, trials=2) as s:
        episode = s.run("enter-text", 2, "webwise", examples)
    step_prompts = [step.prompt[0]["content"] for step in episode.trace if step.prompt]
    reflection_prompt = episode.trials[0].reflection["prompt"][0]["content"]
    assert len(step_prompts) == 2
    assert ("Example (an invented page)" in episode.trace[0].prompt[1]["content"]) != demonstrated
    for system in [*step_prompts, reflection_prompt]:
        assert ("How a program reads the page" in system) == demonstrated


@pytest.mark.parametrize("reply, step", [
    ("Step: 2\nWhy: wrong word.\n```python\nenter_text('right')\n```", 2),
    ("**Step:** 1\n**Why:** no focus.\n```python\nclick('input_text', '')\n```", 1),
    ("--- step 1: the program ---\n```python\nclick('input_text', '')\n```\n--- step 1: what happened ---\nran", None),
    ("Step: 2\nWhy: it typed the wrong word.", 2),
    ("The program did not work.", None),
])
def test_only_an_answer_in_the_form_names_a_step(reply: str, step: int | None) -> None:
    """A small model that echoes the trace back names no step, however many "step 1"s it repeats."""
    steps = [Step(index=0, trial=0, prompt=[], program="click('input_text', '')"),
             Step(index=1, trial=0, prompt=[], program="enter_text('wrong')")]
    correction = parse_reflection(reply, steps)
    assert (correction.step if correction else None) == step


def test_a_step_named_without_a_program_is_replayed_up_to_and_asked_afresh(tmp_path: Path) -> None:
    solve = f"```python\n{TARGET}enter_text(target)\nclick('button', 'Submit')\n```"
    named = "Step: 2\nWhy: it typed a word that is not the one asked for."
    with session(tmp_path, {"enter-text": [STEP1, WRONG_TYPE, named, solve]}, max_steps=3, trials=2) as s:
        episode = s.run("enter-text", 2, "webwise", "none")
    assert episode.success and episode.llm_calls == 4
    assert episode.trials[0].reflection["step"] == 2
    trial2 = [step for step in episode.trace if step.trial == 1]
    assert [step.source for step in trial2] == ["replay", "model"]
    assert trial2[0].prompt == [] and "enter_text('wrong')" in trial2[1].prompt[1]["content"]


def test_an_error_midway_says_what_ran_and_that_nothing_after_it_did(tmp_path: Path) -> None:
    program = "```python\nclick('label', 'Username')\nenter_text('someone')\nclick('button', 'Login')\n```"
    with session(tmp_path, {"login-user": [program, IDLE]}, max_steps=2) as s:
        episode = s.run("login-user", 1, "webwise", "none")
    first = episode.trace[0]
    assert first.status == "exception"
    assert first.feedback == ("ran click('label', 'Username'), then error: ActionError: no text input is focused "
                              "(nothing is); click('label', 'Username') clicked the label 'Username', not its field; "
                              "click the field: click('input_text', 'username'); nothing after that ran")
    assert first.feedback in episode.trace[1].prompt[1]["content"]


def test_a_step_that_raised_before_the_named_one_is_not_replayed(tmp_path: Path) -> None:
    """Replaying a step that raised and changed nothing only spends the next trial's step on it."""
    unfocused = "```python\nenter_text('wrong')\n```"
    named = ("Step: 2\nWhy: it typed a word that is not the one asked for.\n```python\n" + TARGET +
             "click('input_text', '')\nenter_text(target)\nclick('button', 'Submit')\n```")
    with session(tmp_path, {"enter-text": [unfocused, STEP1, WRONG_TYPE, named]}, max_steps=3, trials=2) as s:
        episode = s.run("enter-text", 2, "webwise", "none")
    assert [step.status for step in episode.trace if step.trial == 0] == ["exception", "progress", "failed"]
    assert episode.success and episode.llm_calls == 4
    trial2 = [step for step in episode.trace if step.trial == 1]
    assert [(step.source, step.index) for step in trial2] == [("correction", 0)]


LOGIN = "import re\nuser, password = re.findall(r'\"(.*?)\"', task)\n"
BY_CAPTION = (f"```python\n{LOGIN}click('label', 'Username')\nenter_text(user)\nclick('input_password', 'password')\n"
              "enter_text(password)\nclick('button', 'Login')\n```")


def test_a_caption_click_that_focused_nothing_sends_the_page_s_caption_clicks_to_their_fields(tmp_path: Path) -> None:
    """The model sends its caption clicks again after being told the fields' clicks; the harness
    makes those fixes, and the same for the other captions of the tag that focused nothing: fixing
    Username alone left the next program failing on Password (login-user-popup, 6 of 6 episodes)."""
    both_by_caption = (f"```python\n{LOGIN}click('label', 'Username')\nenter_text(user)\nclick('label', 'Password')\n"
                       "enter_text(password)\nclick('button', 'Login')\n```")
    with session(tmp_path, {"login-user": [both_by_caption, both_by_caption]}, max_steps=3) as s:
        episode = s.run("login-user", 1, "webwise", "none")
    assert episode.success and episode.llm_calls == 2  # no re-ask: the rewritten program is a new one
    first, second = episode.trace
    assert "click the field: click('input_text', 'username')" in first.error and first.note is None
    assert "click('label', 'Password')" in second.reply and "click('label'" not in second.program
    assert second.note == ("clicked the field, not the caption that focused nothing before: "
                           "click('label', 'Password') -> click('input_password', 'password'), "
                           "click('label', 'Username') -> click('input_text', 'username')")
    assert second.status == "solved"


def test_caption_clicks_learned_in_one_trial_are_fixed_in_the_next(tmp_path: Path) -> None:
    user_by_caption = f"```python\n{LOGIN}click('label', 'Username')\nenter_text(user)\n```"
    password = f"```python\n{LOGIN}click('input_password', 'password')\nenter_text(password)\n```"
    review = "Step: 1\nWhy: it clicked the caption, not the field.\n" + BY_CAPTION
    with session(tmp_path, {"login-user": [user_by_caption, password, review]}, max_steps=2, trials=2) as s:
        episode = s.run("login-user", 1, "webwise", "none")
    assert [step.status for step in episode.trace if step.trial == 0] == ["exception", "progress"]
    assert episode.success and episode.llm_calls == 3
    fix = next(step for step in episode.trace if step.trial == 1)
    assert fix.source == "correction" and fix.status == "solved"
    assert "click('input_text', 'username')" in fix.program and "caption that focused nothing" in fix.note


def test_a_fix_that_raised_before_acting_leaves_the_trial_its_steps(tmp_path: Path) -> None:
    """With one step per trial, a fix that names no element on the page still leaves the model its step."""
    wrong = "```python\nclick('input_text', '')\nenter_text('wrong')\nclick('button', 'Submit')\n```"
    review = "Step: 1\nWhy: it typed the wrong word.\n```python\nclick('button', 'Send it')\n```"
    right = f"```python\n{TARGET}click('input_text', '')\nenter_text(target)\nclick('button', 'Submit')\n```"
    with session(tmp_path, {"enter-text": [wrong, review, right]}, max_steps=1, trials=2) as s:
        episode = s.run("enter-text", 2, "webwise", "none")
    fix, fresh = [step for step in episode.trace if step.trial == 1]
    assert (fix.source, fix.status, fix.actions[0]["error"] is not None) == ("correction", "exception", True)
    assert (fresh.source, fresh.status) == ("model", "solved") and "Send it" in fresh.prompt[-1]["content"]
    assert episode.success and episode.llm_calls == 3


def test_a_click_the_executor_did_not_make_is_named_in_the_feedback_the_review_reads(tmp_path: Path) -> None:
    box_and_label = ("```python\nimport re\nword = re.search(r'Select ([^, ]+)', task).group(1)\n"
                     "click('label', word)\nclick('input_checkbox', word)\nclick('button', 'Submit')\n```")
    review = "Step: 1\nWhy: it did not select every word.\n" + box_and_label
    with session(tmp_path, {"click-checkboxes-large": [box_and_label, review]}, max_steps=1, trials=2) as s:
        episode = s.run("click-checkboxes-large", 0, "webwise", "none")
    step = episode.trace[0]
    assert re.search(r"; click\('input_checkbox', '\w+'\) \(not clicked: it would flip back #ch\d+, which this "
                     r"program already flipped \(a box and its label are one control\)\); click\('button'", step.feedback)
    assert step.feedback in episode.trials[0].reflection["prompt"][1]["content"]


def test_feedback_says_which_texts_a_step_made_appear_and_disappear(tmp_path: Path) -> None:
    """A guess's answer is in the step's feedback, so the next step and the review read it there."""
    guess = "```python\nclick('input_number', '')\nenter_text('5')\nclick('button', 'Submit')\n```"
    review = "Step: 1\nWhy: the number is lower.\n```python\nclick('input_number', '')\n```"
    with session(tmp_path, {"guess-number": [guess, IDLE, review]}, max_steps=2, trials=2) as s:
        episode = s.run("guess-number", 0, "webwise", "none")
    first = episode.trace[0]
    assert first.status == "progress"
    assert re.fullmatch(r"ran click\('input_number', ''\); enter_text\('5'\); click\('button', 'Submit'\); the page "
                        r"changed \(new text: \"The number is (lower|higher) than 5 \.\"; gone: \"Waiting for your "
                        r"guess\.\.\.\"\); the task is not complete yet", first.feedback), first.feedback
    assert first.feedback in episode.trace[1].prompt[1]["content"]
    assert first.feedback in episode.trials[0].reflection["prompt"][1]["content"]


def test_an_error_midway_says_what_the_actions_before_it_changed(tmp_path: Path) -> None:
    search = ("```python\nimport re\nclick('input_text', '')\nenter_text(re.search(r'\"(.*?)\"', task).group(1))\n"
              "click('button', 'Search')\nclick('a', 'the 3rd result')\n```")
    with session(tmp_path, {"search-engine": [search]}, max_steps=1) as s:
        episode = s.run("search-engine", 0, "webwise", "none")
    step = episode.trace[0]
    assert step.status == "exception"
    assert re.search(r"nothing after that ran; by then the page had changed \(new text: \"[^\"]*https?://[^\"]+\"",
                     step.feedback), step.feedback


def test_a_step_that_raised_after_moving_the_page_on_is_replayed_before_the_fix(tmp_path: Path) -> None:
    """The search ran before the error is what the fix builds on: the fix clicks a result it brought up."""
    search = ("```python\nimport re\nclick('input_text', '')\nenter_text(re.search(r'\"(.*?)\"', task).group(1))\n"
              "click('button', 'Search')\nclick('a', 'the 1st search result')\n```")
    first_result = "[e['text'] for e in observation if e['classes'] == 'search-title'][0]"
    review = f"Step: 2\nWhy: it should click the first result's title.\n```python\nclick('a', {first_result})\n```"
    with session(tmp_path, {"search-engine": [search, "```python\nscroll('Search')\n```", review]},
                 max_steps=2, trials=2) as s:
        episode = s.run("search-engine", 4, "webwise", "none")
    first = [step for step in episode.trace if step.trial == 0]
    assert [(step.status, step.changed) for step in first] == [("exception", True), ("no change", False)]
    assert episode.success and episode.llm_calls == 3
    retry = [step for step in episode.trace if step.trial == 1]
    assert [(step.source, step.status) for step in retry] == [("replay", "exception"), ("correction", "solved")]
