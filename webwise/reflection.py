"""Learning from a failed trial: structured reflection and a memory of failed targets.

After a failed trial the model reviews the trial's steps (page, program, outcome), names
the earliest wrong step and writes the program that step should have run. The next trial
replays the programs before that step that moved the page on (even when they raised after
moving it), without asking the model, runs the correction next (or asks afresh there when
the review wrote no program), and plans freely after it; replayed steps do not count
against the trial's step budget.

Click targets of wrong steps (but the ones the task names) are remembered per step and
flagged ``failed_before`` in that step's page, so the model does not pick them again; a
correction at step N forgets what was learned about later steps, whose pages will differ.
The wrong step's program counts as failed on its page, and a review that answers with that
same program is taken as naming the step only: the next trial asks afresh there. A program
counts as one that failed on a page when its text is, or when it is nothing but the calls
the failed one made there: the same calls on the same page end the same way. Clicks that
hit a field's caption and focused nothing are remembered for the whole episode: later
programs click the field instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Sequence

import regex

from webwise.dom import Element, render
from webwise.episode import Step, call_text
from webwise.extraction import MAX_REPLY_CHARS, ExtractionError, extract_program, normal
from webwise.llm.base import Message
from webwise.prompts import system_message

_INSTRUCTIONS = """You are now reviewing an attempt at the task that failed. Each step of the
attempt ran one program; you see the page before it, the program and what happened. Find the
earliest step whose program was wrong: the first step that, done differently, leads to success.
Then write the program that step should have run instead."""

#: The answer's form closes the prompt: small models continue the last pattern they read, and
#: with the form only in the system part 153 of the 0.5B's 192 reflections echoed the trace.
_ANSWER = """The attempt ended: {ending}. Answer in exactly this form and nothing else:
Step: <the number of the earliest wrong step>
Why: <one short sentence>
```python
<the program that step should have run>
```"""

#: "Step: 2" at the start of a line; the trace's own "--- step 2 ..." headers do not count.
#: ASCII digits, at most six: ``regex``'s ``\d`` takes digits ``int()`` refuses (U+11F50), and
#: ``int()`` refuses more than 4300 digits. Nothing before the colon crosses a line or follows
#: another run of spaces: a reply of blank lines and spaces then took cubic time.
_STEP = regex.compile(r"^[^\w\n]*step[ \t]*(?:number[ \t]*)?[:#=][\s*]*([0-9]{1,6})(?![0-9])",
                      regex.IGNORECASE | regex.MULTILINE)


@dataclass(frozen=True)
class Correction:
    """What a reflection decided: replay ``programs[:-1]``, then run ``programs[-1]`` as the fix.

    ``step`` is the step the review named (1-based); ``at`` is the index the fix runs at in
    the next trial, earlier when steps before the named one are not replayed. A ``None``
    fix (no program) means: ask the model there instead.
    """

    step: int
    programs: tuple[str | None, ...]
    why: str = ""

    @property
    def fix(self) -> str | None:
        """The program to run at the named step (None: ask the model there)."""
        return self.programs[-1]

    @property
    def at(self) -> int:
        """The index of the step the fix runs at in the next trial."""
        return len(self.programs) - 1

    def repeats(self, steps: Sequence[Step]) -> bool:
        """Whether the fix is the program the named step already ran (comments and layout
        aside) or the calls that program made."""
        named = steps[self.step - 1]
        return self.fix is not None and normal(self.fix) in (normal(named.program), calls_made(named))

    def without_fix(self) -> Correction:
        """The same step and replay, with the model asked afresh at the step instead of a fix."""
        return replace(self, programs=self.programs[:-1] + (None,))


def reflection_messages(method: str, instruction: str, steps: Sequence[Step], ending: str,
                        *, demonstrate: bool = True) -> list[Message]:
    """The reflection prompt: the method's fixed system part (as the trial's steps had it)
    plus the review instructions."""
    parts = [f"Task: {instruction}"]
    for number, step in enumerate(steps, 1):
        if method != "instruction-only":
            parts.append(f"--- step {number}: the page ---\n{render(step.observation) or '(no visible elements)'}")
        code = f"```python\n{step.program}\n```" if step.program else "(no usable program)"
        parts.append(f"--- step {number}: the program ---\n{code}\n"
                     f"--- step {number}: what happened ---\n{step.feedback}")
    parts.append(_ANSWER.format(ending=ending))
    return [
        {"role": "system", "content": system_message(method, demonstrate=demonstrate) + "\n\n" + _INSTRUCTIONS},
        {"role": "user", "content": "\n\n".join(parts)},
    ]


def parse_reflection(reply: str, steps: Sequence[Step]) -> Correction | None:
    """The correction in ``reply``, or None when it names no step.

    A reply that names the step but carries no usable program still counts: the next
    trial replays the steps before it and asks the model afresh there (the embedded 0.5B
    names a step far more often than it writes a program after it). Earlier steps that left
    the page as it was (they changed nothing, or raised before acting) are not replayed:
    they did nothing the fix builds on (27 of the 1.5B's 114 reviews named a step after
    such a one, and its fix ran one page late or not at all). A step that raised after
    moving the page on is replayed: the search it ran before its error is what the fix
    builds on (10 of the 1.5B's 88 reviews on paper48 named a step after one, and their
    fixes ran on the page before the search).
    """
    reply = reply[:MAX_REPLY_CHARS]
    match = _STEP.search(reply)
    if not match or not steps:
        return None
    number = min(max(int(match[1]), 1), len(steps))
    try:
        program: str | None = extract_program(reply)
    except ExtractionError:
        program = None
    why = regex.search(r"why\s*:\s*(.+)", reply, regex.IGNORECASE)
    earlier = tuple(step.program for step in steps[: number - 1] if moved_on(step))
    return Correction(number, earlier + (program,), why[1].strip() if why else "")


def moved_on(step: Step) -> bool:
    """Whether the step left the page further on: it made progress, or raised after changing it."""
    return step.status == "progress" or (step.status == "exception" and step.changed)


def calls_made(step: Step) -> str | None:
    """The step's calls as one straight-line program (normalised), when they alone decided
    how it ended; None when they did not, or it made none.

    Another program that makes the same calls on the same page ends the same way: the
    1.5B's reviews answered a 27-click program that ended the task at its first click with
    that one click, and spent the next trial on it (3 trials in each paper48 run). A step
    that progressed, or raised in Python after its calls, is not decided by its calls alone.
    """
    if not step.actions:
        return None
    decided = step.status in ("failed", "no change", "cycle") or (
        step.status == "exception" and step.actions[-1]["error"] is not None)
    return normal("\n".join(map(call_text, step.actions))) if decided else None


@dataclass
class FailureMemory:
    """What an episode learned from failure, kept across its trials.

    ``failed`` holds, per step index, the texts of click targets that belonged to a wrong
    step (set by reflection between trials). ``tried`` holds, per page state, the programs
    that did not work there (they raised, changed nothing, went in circles or failed the
    task), recorded as soon as they ran: at temperature 0 a small model sends them again on
    the same page, so every later prompt on that page, in this trial or the next, shows
    them and the agent refuses to run them twice. ``calls`` holds, per page state, the
    calls those programs made (:func:`calls_made`): a program that makes nothing but those
    is refused too. ``caption_misses`` holds the
    ``(tag, text)`` of clicks that hit a field's caption and focused nothing; every trial's
    executor adds to it, and later programs' clicks on those captions go to the fields.
    """

    failed: dict[int, set[str]] = field(default_factory=dict)
    tried: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    calls: dict[str, set[str]] = field(default_factory=dict)
    caption_misses: set[tuple[str, str]] = field(default_factory=set)

    def remember_program(self, page: str, step: Step) -> None:
        """Remember that the step's program did not work on ``page``, with what it did there."""
        if step.program is None:
            return
        if not self.tried_here(page, step.program):
            self.tried.setdefault(page, []).append((step.program, step.feedback))
        made = calls_made(step)
        if made is not None:
            self.calls.setdefault(page, set()).add(made)

    def tried_here(self, page: str, program: str) -> bool:
        """Whether ``program`` (comments and layout aside) already failed on ``page`` in this episode."""
        return any(normal(earlier) == normal(program) for earlier, _ in self.tried.get(page, ()))

    def failed_here(self, page: str, program: str) -> bool:
        """Whether ``program``, or nothing but the calls of one, already failed on ``page``."""
        return self.tried_here(page, program) or self.made_here(page, program)

    def made_here(self, page: str, program: str) -> bool:
        """Whether ``program`` is nothing but the calls a program that failed on ``page`` made."""
        return normal(program) in self.calls.get(page, ())

    def remember(self, index: int, step: Step, instruction: str) -> None:
        """Remember the clicks of the wrong step at ``index`` and forget every later step.

        Targets the instruction names are left out: the task asks for them, so they are not
        what made the step wrong, and flagging them steers the model away from the answer
        (67 of the 141 flags in a paper48 run were on such targets: the Submit the task says
        to press, every checkbox of click-checkboxes-large).
        """
        targets = {a["target_text"] for a in step.actions
                   if a["name"] == "click" and a.get("target_text") and not _names(instruction, a["target_text"])}
        self.failed.setdefault(index, set()).update(targets)
        for later in [i for i in self.failed if i > index]:
            del self.failed[later]

    def mark(self, index: int, observation: list[Element]) -> list[Element]:
        """The observation with ``failed_before`` set on targets that failed at this step."""
        failed = self.failed.get(index)
        if not failed:
            return observation
        return [{**e, "failed_before": True} if e["text"] in failed else e for e in observation]


def _names(instruction: str, text: str) -> bool:
    """Whether ``instruction`` contains ``text`` as a whole word or phrase, case aside."""
    return regex.search(rf"(?<!\w){regex.escape(text)}(?!\w)", instruction, regex.IGNORECASE) is not None
