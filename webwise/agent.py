"""The agent: the paper's four methods over one environment, model and sandbox.

``webwise`` observes, asks for a program, runs it, observes again, until the task is
done or the step budget runs out. The single-program methods (``filtered-dom``,
``whole-dom``, ``instruction-only``) get one program. Whatever fails inside a step (no
usable code, a raising program, a refused action) goes into the trace and the next
prompt; only a dead browser ends the episode early, and then the record so far is kept.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from selenium.common.exceptions import WebDriverException

import api_stubs
from sandbox import ActionReply, Limits, RunResult, Sandbox
from webwise import dom, examples, store
from webwise.actions import ActionError, Executor
from webwise.environment import BrowserDied, MiniWoBEnv
from webwise.episode import Episode, Step
from webwise.errors import ConfigError, ContextOverflow, LLMError
from webwise.extraction import ExtractionError, extract_program
from webwise.llm.base import ChatModel, ChatRequest
from webwise.prompts import METHODS, ExampleStep, PastStep, PromptExample, build_messages, task_message

EXAMPLE_MODES: tuple[str, ...] = ("manual", "auto", "none")
#: Stop generating once the code block closes: generation is half of a local call's time.
STOP = ("\n```\n",)

View = Callable[[list[dom.Element], set[int], set[int]], list[dom.Element]]
VIEWS: dict[str, View] = {
    "webwise": dom.filtered_summary,
    "filtered-dom": dom.filtered_summary,
    "whole-dom": lambda elements, clicked, modified: dom.whole_dom(elements),
    "instruction-only": lambda elements, clicked, modified: [],
}


@dataclass(frozen=True)
class Settings:
    """Knobs of a run; defaults are what the CLI uses."""

    max_steps: int = 5
    temperature: float = 0.0
    max_tokens: int = 400
    limits: Limits = field(default_factory=Limits)
    screenshot_dir: Path | None = None
    store_dir: Path | None = None


def check_method(method: str, examples: str) -> None:
    if method not in METHODS:
        raise ConfigError(f"unknown method {method!r}; choose one of {', '.join(METHODS)}")
    if examples not in EXAMPLE_MODES:
        raise ConfigError(f"unknown examples mode {examples!r}; choose one of {', '.join(EXAMPLE_MODES)}")


class Agent:
    """Runs episodes; owns nothing it did not create (env, model and sandbox are given)."""

    def __init__(self, llm: ChatModel, env: MiniWoBEnv, sandbox: Sandbox, settings: Settings = Settings()) -> None:
        self.llm, self.env, self.sandbox, self.settings = llm, env, sandbox, settings

    def run(self, task: str, seed: int, method: str = "webwise", examples: str = "manual") -> Episode:
        """One episode. Raises only :class:`BrowserDied` (with ``episode`` attached) and config errors."""
        check_method(method, examples)
        episode = Episode(task=task, seed=seed, method=method, examples=examples, llm=self.llm.name)
        started = time.monotonic()
        try:
            self._run(episode)
        except BrowserDied as exc:
            episode.error = str(exc)
            exc.episode = episode  # type: ignore[attr-defined]
            raise
        finally:
            episode.seconds = round(time.monotonic() - started, 3)
        return episode

    def _run(self, episode: Episode) -> None:
        episode.utterance = self.env.reset(episode.task, episode.seed)
        executor = Executor(self.env, VIEWS[episode.method])
        observation = executor.start()
        shown, note = self._examples(episode)
        history: list[PastStep] = []
        budget = self.settings.max_steps if episode.method == "webwise" else 1
        for index in range(budget):
            step = Step(index=index, observation=observation, prompt=build_messages(
                episode.method, task_message(episode.method, episode.utterance, observation, shown, history)))
            episode.add_step(step)
            if index == 0:
                step.note = note
            if not self._ask(episode, step):
                break
            before = dom.render(observation)
            observation = self._execute(step, executor, observation, episode.utterance)
            self._screenshot(episode, step)
            if step.done:
                break
            history.append(PastStep(step.program, describe(step, before != dom.render(observation))))
        outcome = executor.outcome
        episode.success, episode.reward = outcome.success, outcome.reward
        episode.raw_reward, episode.reason = outcome.raw_reward, outcome.reason

    def _examples(self, episode: Episode) -> tuple[list[PromptExample], str | None]:
        """The task's examples for the prompt, and a trace note when ``auto`` found none."""
        if episode.examples == "none":
            return [], None
        if episode.examples == "manual":
            loaded = examples.load_manual(episode.task)
        else:
            loaded = store.load(episode.task, self.settings.store_dir)
        note = None if loaded else f"no {episode.examples} example for {episode.task}; running zero-shot"
        shown = [PromptExample(e.instruction, [ExampleStep(s.observation, s.program) for s in e.steps],
                               solved_before=e.source != "manual") for e in loaded]
        return shown, note

    def _ask(self, episode: Episode, step: Step) -> bool:
        """Call the model and extract a program; False when the episode cannot go on."""
        request = ChatRequest(step.prompt, temperature=self.settings.temperature, max_tokens=self.settings.max_tokens,
                              stop=STOP, task=episode.task, call_index=step.index)
        try:
            reply = self.llm.complete(request)
        except ContextOverflow as exc:
            episode.context_overflows += 1
            step.error = episode.error = str(exc)
            return False
        except LLMError as exc:
            step.error = episode.error = str(exc)
            return False
        episode.llm_calls += 1
        episode.prompt_tokens += reply.prompt_tokens
        episode.completion_tokens += reply.completion_tokens
        step.reply, step.llm_seconds = reply.text, round(reply.seconds, 3)
        step.prompt_tokens, step.completion_tokens = reply.prompt_tokens, reply.completion_tokens
        try:
            step.program = extract_program(reply.text)
        except ExtractionError as exc:
            step.error = str(exc)
        return True

    def _execute(self, step: Step, executor: Executor, observation: list[dom.Element], utterance: str) -> list[dom.Element]:
        """Run the step's program in the sandbox; returns the page observed afterwards."""
        if step.program is not None:
            handler = ActionHandler(executor)
            result: RunResult = self.sandbox.run(
                step.program, data={"task": utterance, "observation": observation},
                functions=api_stubs.ACTION_NAMES, handler=handler)
            step.actions = [asdict(record) for record in executor.records]
            step.error, step.output, step.run_seconds = result.error, result.output, round(result.seconds, 3)
            if handler.fatal is not None:
                raise handler.fatal
        observation = executor.refresh()
        step.done, step.reward = executor.outcome.done, executor.outcome.reward
        return observation

    def _screenshot(self, episode: Episode, step: Step) -> None:
        directory = self.settings.screenshot_dir
        if directory is None:
            return
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / f"{episode.task}-s{episode.seed}-{episode.method}-{episode.examples}-step{step.index}.png"
        path.write_bytes(self.env.screenshot_png())
        step.screenshot = path.name


class ActionHandler:
    """Turns the sandbox's proxied calls into executor actions, and outcomes into replies.

    A dead browser cannot be reported to the program; it is kept in ``fatal`` and the
    program is stopped, so the agent can raise it after the sandbox returns.
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
            "click_action1": lambda tag, text, observation=None: make("click", tag, text),
            "enter_text_action": lambda text, observation=None: make("enter_text", text),
            "scroll_action1": lambda text, observation=None: make("scroll", text),
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
        except TypeError as exc:
            return ActionReply(error=f"{name}(): {str(exc).split(') ', 1)[-1]}")
        except BrowserDied as exc:
            self.fatal = exc
            return ActionReply(stop=True)
        except WebDriverException as exc:
            message = (exc.msg or type(exc).__name__).splitlines()[0]
            return ActionReply(error=f"{name} failed in the browser: {message}")
        return ActionReply(value=value, rebind={"observation": self.executor.observation},
                           stop=self.executor.outcome.done)


def describe(step: Step, page_changed: bool) -> str:
    """One line for the next prompt: what the step's program did."""
    if step.program is None:
        return f"error: {step.error}"
    done = [a for a in step.actions if not a["error"]]
    acted = "; ".join(f"{a['name']}({', '.join(repr(x) for x in a['args'])})" for a in done[:6]) or "no action"
    if step.error:
        return f"error: {step.error} (after: {acted})"
    change = "the page changed" if page_changed else "the page did not change"
    return f"ran {acted}; {change}; the task is not complete yet"
