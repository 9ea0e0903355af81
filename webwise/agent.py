"""The agent: the paper's four methods over one environment, model and sandbox.

``webwise`` observes, asks for a program, runs it, observes again, until the task is
done or the step budget runs out. The single-program methods (``filtered-dom``,
``whole-dom``, ``instruction-only``) get one program. Whatever fails inside a step (no
usable code, a raising program, a refused action) goes into the trace and the next
prompt; only a dead browser or a failed model call ends the episode early, and then the
record so far is kept.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import api_stubs
from sandbox import ActionReply, Limits, RunResult, Sandbox
from webwise import dom, examples, nearest, store
from webwise.actions import ActionError, Executor, failure
from webwise.arguments import flag, folder, number, one_of, readable_folder, whole
from webwise.atomic import replace_file
from webwise.environment import BrowserDied, MiniWoBEnv, Outcome, PageFault
from webwise.episode import Call, Episode, Step, Trial, call_text
from webwise.errors import ConfigError, ContextOverflow, EndpointError, LLMError, WebwiseError
from webwise.extraction import ExtractionError, chars_past_block, extract_program, normal, rewrite_clicks
from webwise.llm.base import ChatModel, ChatReply, ChatRequest, Message, one_line, reply_problem
from webwise.reflection import Correction, FailureMemory, parse_reflection, reflection_messages
from webwise.prompts import METHODS, PastStep, PromptExample, as_shown, build_messages, pointer_page, task_message
from webwise.untrusted import shown

EXAMPLE_MODES: tuple[str, ...] = ("manual", "auto", "auto-near", "none")
#: Stop generating once the code block closes: generation is half of a local call's time.
STOP = ("\n```\n",)

View = Callable[[list[dom.Element], set[int], set[int]], list[dom.Element]]
VIEWS: dict[str, View] = {
    "webwise": dom.filtered_summary,
    "filtered-dom": dom.filtered_summary,
    "whole-dom": dom.whole_dom,
    "instruction-only": lambda elements, clicked, modified: [],
}

#: Most tokens one model call may be asked for: llama.cpp and the servers read the count as a
#: 32-bit number, and a larger one failed the first call, after the browser had started.
MAX_TOKENS = 2**31 - 1
#: The whole-number knobs of :class:`Settings` and their bounds (least, most), which the command
#: line's options check through :func:`check_setting` too.
WHOLE_SETTINGS: dict[str, tuple[int, int | None]] = {
    "max_steps": (1, None), "trials": (1, None), "max_tokens": (1, MAX_TOKENS), "repeat_asks": (0, None)}


def check_setting(name: str, value: object) -> int:
    """``value`` when it is a whole number within the bounds of the knob ``name``."""
    least, most = WHOLE_SETTINGS[name]
    return whole(name, value, least, most)


@dataclass(frozen=True)
class Settings:
    """Knobs of a run; defaults are what the CLI uses."""

    max_steps: int = 5
    trials: int = 1
    temperature: float = 0.0
    max_tokens: int = 400
    #: Re-asks when the model proposes a program already run on the same page, and their temperature.
    repeat_asks: int = 2
    repeat_temperature: float = 0.7
    limits: Limits = field(default_factory=Limits)
    screenshot_dir: Path | None = None
    store_dir: Path | None = None
    #: The program-rewriting guards (see :attr:`webwise.actions.Executor.guards`); False runs
    #: programs literally. The episode records it, and the bench keeps the two apart.
    guards: bool = True

    def __post_init__(self) -> None:
        """Every knob checked here, once for the CLI and the library alike: a bad one is a one-line
        :class:`ConfigError` before a browser starts, not a crash (or a silent empty run: a
        ``max_steps`` of 0 asks nothing) in the middle of an episode. Folders given as strings
        become paths."""
        for name in WHOLE_SETTINGS:
            check_setting(name, getattr(self, name))
        for name in ("temperature", "repeat_temperature"):
            number(name, getattr(self, name), 0, 2)  # the range chat endpoints accept
        if not isinstance(self.limits, Limits):
            raise ConfigError(f"limits must be a sandbox.Limits, not {type(self.limits).__name__}")
        flag("guards", self.guards)
        # A screenshot folder is only looked at when a step saves to it (a failed save is the step's
        # note); a store in a file's place can never be read, nor written by a harvest.
        object.__setattr__(self, "screenshot_dir", folder("screenshot_dir", self.screenshot_dir))
        object.__setattr__(self, "store_dir", readable_folder("store_dir", self.store_dir))


def check_method(method: str, examples: str) -> None:
    one_of("method", method, METHODS)
    one_of("examples mode", examples, EXAMPLE_MODES)


def load_examples(task: str, mode: str, store_dir: Path | None = None,
                  seed: int | None = None) -> list[examples.Example]:
    """The examples ``mode`` may show for ``task`` (at ``seed``, when an episode asks).

    ``manual`` without the task's example, or ``auto`` without a store, is a
    :class:`ConfigError`; a store that holds nothing for the task yet gives none (the run
    is zero-shot and its trace says so), since harvesting fills stores task by task.
    ``auto-near`` gives the task's own harvested examples, else every stored one: the
    candidates, of which the agent shows the nearest once it sees the first page
    (:func:`choose`). A harvested example is never shown on the page it was solved on (its
    task at its seed): it would hand the episode its own answer, as examples learnt from a
    bench run's episodes (``harvest --from-results``) could on that run's seeds.
    """
    if mode == "manual":
        return examples.load_manual(task)
    if mode == "auto":
        return _elsewhere(store.load(task, store_dir), task, seed)
    if mode == "auto-near":
        return _elsewhere(store.load(task, store_dir), task, seed) or _elsewhere(store.load_all(store_dir), task, seed)
    return []


def _elsewhere(found: list[examples.Example], task: str, seed: int | None) -> list[examples.Example]:
    """``found`` without the examples solved on ``task``'s page at ``seed``."""
    return [example for example in found if seed is None or (example.task, example.seed) != (task, seed)]


def choose(task: str, candidates: list[examples.Example], instruction: str,
           page: list[dom.Element]) -> list[examples.Example]:
    """What the prompt shows of ``candidates``: the task's own examples when there are any,
    else the one nearest to ``instruction`` and ``page`` (see :mod:`webwise.nearest`)."""
    if not candidates or any(example.task == task for example in candidates):
        return candidates
    return [nearest.nearest(candidates, instruction, page)]


#: Step statuses that end a trial; "no change", "exception" and "progress" let it go on.
ENDING_STATUSES = ("solved", "failed", "cycle")


class Agent:
    """Runs episodes; owns nothing it did not create (env, model and sandbox are given)."""

    def __init__(self, llm: ChatModel, env: MiniWoBEnv, sandbox: Sandbox, settings: Settings = Settings()) -> None:
        self.llm, self.env, self.sandbox, self.settings = llm, env, sandbox, settings

    def run(self, task: str, seed: int, method: str = "webwise", examples: str = "manual") -> Episode:
        """One episode of up to ``settings.trials`` trials.

        Raises only :class:`BrowserDied` and :class:`PageFault` (with the record so far as
        ``.episode``, its ``error`` set) and config errors.
        """
        check_method(method, examples)
        episode = Episode(task=task, seed=seed, method=method, examples=examples, llm=self.llm.name,
                          max_trials=self.settings.trials, max_steps=self.settings.max_steps,
                          max_tokens=self.settings.max_tokens, guards=self.settings.guards)
        started = time.monotonic()
        try:
            self._run(episode)
        except (BrowserDied, PageFault) as exc:
            episode.error = str(exc)
            exc.episode = episode  # type: ignore[attr-defined]
            raise
        finally:
            episode.seconds = round(time.monotonic() - started, 3)
        return episode

    def _run(self, episode: Episode) -> None:
        candidates = load_examples(episode.task, episode.examples, self.settings.store_dir, episode.seed)
        memory = FailureMemory()
        correction: Correction | None = None
        shown: list[PromptExample] = []
        for number in range(self.settings.trials):
            trial = Trial(number)
            episode.trials.append(trial)
            calls_before = episode.llm_calls
            executor = self._reset(episode, memory)
            note = None
            if number == 0:  # the same seed shows the same first page to every trial
                shown, note = self._examples(episode, candidates, executor.elements)
            steps, pages, outcome = self._trial(episode, trial, executor, shown, note, correction, memory)
            trial.success, trial.raw_reward, trial.steps = outcome.success, outcome.raw_reward, len(steps)
            episode.success, episode.reward = outcome.success, outcome.reward
            episode.raw_reward, episode.reason = outcome.raw_reward, outcome.reason
            if number == 0:
                episode.success_first_trial = outcome.success
            last = outcome.success or number + 1 == self.settings.trials or episode.error is not None
            if not last:
                correction = self._reflect(episode, trial, steps, pages, memory, demonstrate=not shown)
            trial.llm_calls = episode.llm_calls - calls_before
            if last or episode.error is not None:  # the review's call failed: no trial more
                break

    def _reset(self, episode: Episode, memory: FailureMemory) -> Executor:
        """A fresh page of the episode's seed, observed, and the executor that acts on it."""
        episode.utterance = self.env.reset(episode.task, episode.seed)
        executor = Executor(self.env, VIEWS[episode.method], caption_misses=memory.caption_misses,
                            guards=self.settings.guards)
        executor.start()
        return executor

    def _trial(self, episode: Episode, trial: Trial, executor: Executor, shown: list[PromptExample],
               note: str | None, correction: Correction | None,
               memory: FailureMemory) -> tuple[list[Step], list[str], Outcome]:
        """One attempt from a fresh reset (``executor``'s): replayed and corrected steps first, then the model.

        Replayed steps only restore the page the last trial reached, so they do not count
        against the step budget: the trial has ``max_steps`` steps from the corrected one on.
        Counting them left no step to plan after the fix (with ``--max-steps 2``, 16 of the
        1.5B's 108 later trials on paper48 ended out of steps right after a replay). A fix
        that raised before any of its actions ran does not count either: it did nothing,
        and the model still gets ``max_steps`` steps to plan with its error in view.

        Returns the steps, the page state each of them started on, and the outcome.
        """
        observation = executor.observation
        planned = correction.programs if correction else ()
        history: list[PastStep] = []
        seen = [executor.page_key]
        ran: set[tuple[str, str]] = set()
        steps: list[Step] = []
        replayed = correction.at if correction else 0
        budget = (self.settings.max_steps if episode.method == "webwise" else 1) + replayed
        index = 0
        while index < budget:
            step = Step(index=index, trial=trial.trial, prompt=[], observation=memory.mark(index, observation))
            episode.add_step(step)
            steps.append(step)
            if index == 0 and trial.trial == 0:
                step.note = note
            fixed, redirected = _redirect(planned[index] if index < len(planned) else None, executor)
            is_fix = index == len(planned) - 1  # replays restore the page; only the fix may be refused
            if fixed is not None and not (is_fix and memory.failed_here(executor.page_key, fixed)):
                step.program, step.note = fixed, _joined(step.note, redirected)
                step.source = "correction" if is_fix else "replay"
            elif not self._ask_fresh(episode, step, shown, history, executor, ran, memory):
                trial.ending = step.status or "exception"
                break
            if step.status == "cycle":  # the model kept repeating a program already run here
                trial.ending = "cycle"
                break
            before = (executor.page_key, executor.focus_ref)
            ran.add((executor.page_key, normal(step.program)))
            observation = self._execute(step, executor, episode.utterance)
            self._screenshot(episode, step)
            after = (executor.page_key, executor.focus_ref)
            step.changed = after != before
            step.status = classify(step, executor.outcome, before, after, seen)
            step.feedback = feedback(step, executor.outcome, dom.describe_change(step.observation, observation))
            seen.append(executor.page_key)
            if step.status not in ("progress", "solved"):
                memory.remember_program(before[0], step)
            if step.status in ENDING_STATUSES:
                trial.ending = step.status
                break
            budget += step.source == "correction" and not any(a["error"] is None for a in step.actions)
            history.append(PastStep(step.program, step.feedback))
            index += 1
        return steps, seen[:len(steps)], executor.outcome

    def _examples(self, episode: Episode, candidates: list[examples.Example],
                  elements: list[dom.Element]) -> tuple[list[PromptExample], str | None]:
        """The examples the prompt shows, chosen on the first page (``elements``), and a trace
        note when a store had none of the task's own. The episode records which they are."""
        page = dom.filtered_summary(elements, set(), set())  # what harvested examples' pages are
        chosen = choose(episode.task, candidates, episode.utterance, page)
        episode.examples_shown = [{"task": e.task, "number": e.number, "source": e.source} for e in chosen]
        note = None
        if not chosen and episode.examples != "none":
            note = f"no {episode.examples} example for {episode.task}; running zero-shot"
        elif any(e.task != episode.task for e in chosen):
            note = (f"no auto-near example of {episode.task}'s own; showing the nearest stored one, "
                    f"{chosen[0].task} example {chosen[0].number}")
        return [as_shown(e, episode.task) for e in chosen], note

    def _ask_fresh(self, episode: Episode, step: Step, shown: list[PromptExample], history: list[PastStep],
                   executor: Executor, ran: set[tuple[str, str]], memory: FailureMemory) -> bool:
        """Ask for a program not already run on this page; re-ask warmer a few times if it is.

        Programs that failed on this page earlier in the episode (this trial or an earlier
        one) are shown in the prompt and count as already run. A reply's clicks on captions
        that focused nothing before go to their fields first, so the program judged (and
        run) is the one the harness will run. False when the model cannot be asked (the
        episode's error says why). A program still repeated after the re-asks is not run:
        the step's status becomes "cycle".
        """
        page = executor.page_key
        failed_here = [PastStep(program, result) for program, result in memory.tried.get(page, ())]
        user = task_message(episode.method, episode.utterance, step.observation, shown, history, failed_here,
                            pointer=pointer_page(executor.elements))
        temperature = self.settings.temperature
        for attempt in range(1 + self.settings.repeat_asks):
            step.prompt = build_messages(episode.method, user, demonstrate=not shown)
            if not self._ask(episode, step, temperature):
                return False
            step.program, redirected = _redirect(step.program, executor)
            again = step.program is not None and ((page, normal(step.program)) in ran
                                                  or memory.tried_here(page, step.program))
            if step.program is None or not (again or memory.made_here(page, step.program)):
                step.note = _joined(step.note, redirected)
                return True
            step.repeats += 1
            said = ("You already ran exactly this program on this page" if again
                    else "This program only makes the calls a program already made on this page")
            user += (f"\n\n{said} and it did not complete the task:"
                     f"\n```python\n{step.program}\n```\nWrite a different program.")
            temperature = self.settings.repeat_temperature
        step.error = "the model repeated a program that already ran on this page; it was not run again"
        step.status, step.feedback = "cycle", step.error
        return True

    def _ask(self, episode: Episode, step: Step, temperature: float) -> bool:
        """Call the model and extract a program; False when the episode cannot go on."""
        request = self._request(episode, step.prompt, temperature)
        step.prompt = request.messages
        reply = self._complete(episode, request, step)
        if reply is None:
            return False
        step.reply, step.llm_seconds = reply.text, round(step.llm_seconds + reply.seconds, 3)
        step.prompt_tokens += reply.prompt_tokens
        step.completion_tokens += reply.completion_tokens
        step.program = None
        try:
            step.program = extract_program(reply.text)
            step.error = None
        except ExtractionError as exc:
            step.error = str(exc)
        return True

    def _request(self, episode: Episode, messages: list[Message], temperature: float) -> ChatRequest:
        """The episode's next call. Above temperature 0 it is seeded with its index in the
        episode, so a rerun draws the same replies (the warm re-asks included) instead of
        ones from a seed the server picks at random. Programs' errors, outputs and earlier
        replies in the messages are made :func:`shown`: a lone surrogate would fail the
        request's encoding (or the cache key's), a control character means nothing to a model."""
        seed = episode.llm_calls if temperature > 0 else None
        messages = [{**message, "content": shown(message["content"])} for message in messages]
        return ChatRequest(messages, temperature=temperature, max_tokens=self.settings.max_tokens, stop=STOP,
                           task=episode.task, call_index=episode.llm_calls, seed=seed, affinity=id(self))

    def _complete(self, episode: Episode, request: ChatRequest, step: Step | None = None,
                  trial: int = 0) -> ChatReply | None:
        """One model call, recorded in ``episode.calls``; a failure is recorded as the episode's
        error and ends it (an endpoint's failure as its ``infra_error`` too). A call without
        ``step`` is the review after trial ``trial``."""
        try:
            reply = self._reply(request)
        except LLMError as exc:
            episode.context_overflows += isinstance(exc, ContextOverflow)
            episode.error = str(exc)
            if isinstance(exc, EndpointError):
                episode.infra_error = str(exc)
            if step is not None:
                step.error = str(exc)
            return None
        episode.llm_calls += 1
        episode.prompt_tokens += reply.prompt_tokens
        episode.completion_tokens += reply.completion_tokens
        episode.calls.append(_call_record(reply, step, trial))
        return reply

    def _reply(self, request: ChatRequest) -> ChatReply:
        """The model's reply to ``request``, or an :class:`LLMError` naming the model.

        A model of the user's own (any :class:`ChatModel`) may raise anything or return
        anything: that ends the episode as a failed call does, with the record so far kept,
        instead of crashing it. Webwise's own errors other than :class:`LLMError` pass:
        a :class:`ConfigError` (an endpoint refusing the key) and :class:`Interrupted` (the
        bench stopping) are meant for the caller, and so is a KeyboardInterrupt.
        """
        try:
            reply = self.llm.complete(request)
        except WebwiseError:
            raise
        except Exception as exc:
            said = f": {one_line(exc)}" if str(exc) else ""
            raise LLMError(f"{self.llm.name}: complete() raised {type(exc).__name__}{said}") from exc
        problem = reply_problem(reply)
        if problem is not None:
            raise LLMError(f"{self.llm.name}: complete() returned {problem}")
        return reply

    def _reflect(self, episode: Episode, trial: Trial, steps: list[Step], pages: list[str], memory: FailureMemory,
                 demonstrate: bool) -> Correction | None:
        """Ask which step went wrong first; remember its program and click targets as failed there.

        A review whose program is the one the named step already ran corrects nothing; it
        still names the step, so the next trial asks afresh there, with that program shown
        as failed on the page. Asking the review again instead cost up to two calls and did
        worse with the 1.5B, whose second answers invent steps: on paper48, seeds 0-2, the
        trial after such a review won 0 of 41 that way and 2 of 41 asking afresh.
        """
        messages = reflection_messages(episode.method, episode.utterance, steps, trial.ending,
                                       demonstrate=demonstrate)
        request = self._request(episode, messages, self.settings.temperature)
        reply = self._complete(episode, request, trial=trial.trial)
        correction = parse_reflection(reply.text, steps) if reply is not None else None
        repeated = correction is not None and correction.repeats(steps)
        if correction is not None and repeated:
            correction = correction.without_fix()
        trial.reflection = {"prompt": request.messages, "reply": reply.text if reply is not None else None,
                            "step": correction.step if correction else None,
                            "why": correction.why if correction else None, "repeated": repeated}
        if correction is None:
            if steps:
                memory.remember(len(steps) - 1, steps[-1], episode.utterance)
            return None
        wrong = steps[correction.step - 1]
        memory.remember(correction.at, wrong, episode.utterance)
        memory.remember_program(pages[correction.step - 1], wrong)
        return correction

    def _execute(self, step: Step, executor: Executor, utterance: str) -> list[dom.Element]:
        """Run the step's program in the sandbox; returns the page observed afterwards."""
        if step.program is not None:
            handler = ActionHandler(executor)
            executor.deadline = time.monotonic() + self.sandbox.limits.wall_seconds
            result: RunResult = self.sandbox.run(
                step.program, data={"task": utterance, "observation": step.observation},
                functions=api_stubs.ACTION_NAMES, handler=handler)
            step.actions = [asdict(record) for record in executor.records]
            executor.records.clear()
            step.error, step.output, step.run_seconds = explain(result.error), result.output, round(result.seconds, 3)
            if handler.fatal is not None:
                raise handler.fatal
        observation = executor.refresh()
        step.done, step.reward = executor.outcome.done, executor.outcome.reward
        return observation

    def _screenshot(self, episode: Episode, step: Step) -> None:
        """Save the page after ``step`` as a PNG; one that cannot be written (a file in the folder's
        place, a full disk) leaves the step without a screenshot and its ``note`` saying why.

        The episode goes on rather than stopping: its record, minutes of model time, is what
        a run measures, and a picture is only there for people reading the report.
        """
        directory = self.settings.screenshot_dir
        if directory is None:
            return
        path = directory / (f"{episode.task}-s{episode.seed}-{episode.method}-{episode.examples}"
                            f"-t{step.trial}-step{step.index}.png")
        png = self.env.screenshot_png()  # a dead browser ends the episode as anywhere else
        try:
            directory.mkdir(parents=True, exist_ok=True)
            replace_file(path, png)  # a link planted under its name is replaced, not followed
        except FileExistsError:  # mkdir's, when a file has the folder's name
            step.note = _joined(step.note, f"no screenshot: {directory} is not a directory")
        except OSError as exc:
            step.note = _joined(step.note, f"no screenshot: cannot make {directory}: {exc.strerror or exc}")
        except ConfigError as exc:
            step.note = _joined(step.note, f"no screenshot: {exc}")
        else:
            step.screenshot = path.name


class ActionHandler:
    """Turns the sandbox's proxied calls into executor actions, and outcomes into replies.

    A dead browser cannot be reported to the program; it is kept in ``fatal`` and the
    program is stopped, so the agent can raise it after the sandbox returns. Anything else an
    action raises becomes that action's one-line error for the program (:func:`failure`).
    """

    def __init__(self, executor: Executor) -> None:
        self.executor = executor
        self.fatal: BrowserDied | None = None
        make = Executor.make_action
        self.calls: dict[str, Callable[..., Any]] = {
            "click": executor.click,
            "enter_text": executor.enter_text,
            "press_key": executor.press_key,
            "scroll": executor.scroll,
            "click_at": executor.click_at,
            "hover": executor.hover,
            "drag": executor.drag,
            "drag_to": executor.drag_to,
            "draw": executor.draw,
            "select_text": executor.select_text,
            "wait": executor.wait,
            "click_action1": lambda tag, text, observation=None: make("click_action1", "click", tag, text),
            "enter_text_action": lambda text, observation=None: make("enter_text_action", "enter_text", text),
            "scroll_action1": lambda text, observation=None: make("scroll_action1", "scroll", text),
            "env.step": lambda action: list(executor.step(action)),
        }

    def __call__(self, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> ActionReply:
        call = self.calls.get(name)
        if call is None:
            return ActionReply(error=f"{name} is not an action")
        try:
            value = call(*args, **kwargs)
        except ActionError as exc:
            return ActionReply(error=str(exc))
        except BrowserDied as exc:
            self.fatal = exc
            return ActionReply(stop=True)
        except TypeError as exc:  # the call's arguments do not fit the action
            return ActionReply(error=f"{name}(): {str(exc).split(') ', 1)[-1]}")
        except Exception as exc:  # anything else the program provoked: its error, not the host's crash
            return ActionReply(error=failure(name, exc))
        return ActionReply(value=value, rebind={"observation": self.executor.observation},
                           stop=self.executor.outcome.done)


def _call_record(reply: ChatReply, step: Step | None, trial: int) -> Call:
    """What one call cost, from the reply and the timings its backend reports in ``extra``."""
    extra = reply.extra

    def number(key: str, kind: type) -> Any:
        value = extra.get(key)
        return kind(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None

    finish, refused = extra.get("finish_reason"), extra.get("refused")
    return Call(kind="step" if step is not None else "review", trial=step.trial if step is not None else trial,
                step=step.index if step is not None else None, seconds=round(reply.seconds, 3),
                prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                cached_tokens=number("cached_prompt_tokens", int), prompt_ms=number("prompt_ms", float),
                generate_ms=number("generate_ms", float), draft_tokens=number("draft_tokens", int),
                draft_accepted=number("draft_accepted", int), finish=finish if isinstance(finish, str) else None,
                past_block=chars_past_block(reply.text), from_cache=reply.cached,
                refused=[str(name) for name in refused] if isinstance(refused, list) else [])


def _redirect(program: str | None, executor: Executor) -> tuple[str | None, str | None]:
    """The program with its clicks on captions sent to their fields, once a caption click of
    that tag focused nothing (:meth:`Executor.caption_fix`).

    After typing failed behind ``click('label', 'Username')`` the harness names the click
    that reaches the field, yet the 1.5B sent the caption click again in most of the
    episodes where it made it (paper48, seeds 0-2: 12 of 21 episodes still failing by trial
    3, on multi-layouts, read-table-2, simple-algebra and the like). Here the harness makes
    the fix it named, and the same fix for the page's other captions, on this page and in
    later trials; the note says which, and the next prompt shows the program that ran.
    Returns the program and the note (None: unchanged).
    """
    if program is None:
        return None, None
    rewritten, used = rewrite_clicks(program, executor.caption_fix)
    if not used:
        return program, None
    changes = ", ".join(f"click({tag!r}, {text!r}) -> {call}" for (tag, text), call in used.items())
    return rewritten, f"clicked the field, not the caption that focused nothing before: {changes}"


def _joined(note: str | None, more: str | None) -> str | None:
    return "; ".join(part for part in (note, more) if part) or None


def explain(error: str | None) -> str | None:
    """The sandbox's one-line error, with a hint where the bare Python error says too little.

    Small models' programs most often fail on ``next()`` over an empty match or on the
    ``None`` of a ``re.search`` that found nothing; the bare error names neither.
    """
    if error == "StopIteration":
        return "StopIteration: next() found no element of observation that matches"
    if error and "'NoneType' object" in error:
        return f"{error} (a value is None: often a re.search that found no match)"
    return error


def classify(step: Step, outcome: Outcome, before: tuple[str, int | None], after: tuple[str, int | None],
             seen: list[str]) -> str:
    """The step's ending condition: solved, failed, exception, no change, cycle or progress.

    ``before`` and ``after`` are (page key, focused ref): moving the focus is a change, and
    content that changed back to an earlier page (``seen``) is a cycle wherever the focus is.
    """
    if outcome.success:
        return "solved"
    if outcome.done:
        return "failed"
    if step.error is not None or step.program is None:
        return "exception"
    if after == before:
        return "no change"
    if after[0] != before[0] and after[0] in seen:
        return "cycle"
    return "progress"


def _call(action: dict[str, Any]) -> str:
    """The action as the program wrote it, with what the executor did instead, if anything."""
    note = f" ({action['note']})" if action.get("note") else ""
    return call_text(action) + note


def feedback(step: Step, outcome: Outcome, change: str = "") -> str:
    """One line for the next prompt (and the reflection) saying what the step's program did.

    ``change`` (from :func:`dom.describe_change`) says which texts the program made appear
    or disappear; it goes with the steps that left the page changed and the task open.
    """
    done = [a for a in step.actions if not a["error"]]
    acted = "; ".join(map(_call, done[:6])) or "no action"
    acted += "; ..." if len(done) > 6 else ""
    reason = f" ({outcome.reason})" if outcome.reason else ""
    changed = f" ({change})" if change else ""
    midway = f"; by then the page had changed{changed}" if change else ""
    return {
        "solved": f"ran {acted}; the task is complete",
        "failed": f"ran {acted}; the page ended the task as failed{reason}",
        "exception": (f"ran {acted}, then error: {step.error}; nothing after that ran{midway}" if done
                      else f"error: {step.error}"),
        "no change": f"ran {acted}; nothing on the page changed; the task is not complete",
        "cycle": f"ran {acted}; the page is back to an earlier state: this goes in circles",
        "progress": f"ran {acted}; the page changed{changed}; the task is not complete yet",
    }[step.status or "exception"]
