"""The episode record: what happened, step by step, and what it cost.

This is the episode JSON (docs/episode-json.md): ``webwise solve --json`` prints it, the
bench appends it to ``results.jsonl``, the report renders it. Fields are only ever added.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

from webwise.llm.base import Message
from webwise.provenance import code_version, git_commit


@dataclass
class Step:
    """One program: the prompt, the reply, what ran and what it did."""

    index: int
    prompt: list[Message]
    observation: list[dict[str, Any]] = field(default_factory=list)
    trial: int = 0
    source: str = "model"
    reply: str | None = None
    program: str | None = None
    actions: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    output: str = ""
    done: bool = False
    reward: float = 0.0
    llm_seconds: float = 0.0
    run_seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    screenshot: str | None = None
    note: str | None = None
    status: str | None = None
    feedback: str = ""
    repeats: int = 0
    #: Whether the page (or its focus) differed after the program: a step that raised midway
    #: may still have moved the page on, and the next trial replays it to get there.
    changed: bool = False


def call_text(action: dict[str, Any]) -> str:
    """A recorded action (an entry of ``Step.actions``) as the call a program writes; a long
    list (draw()'s points) shows its first two items and its length."""
    return f"{action['name']}({', '.join(map(_arg_text, action['args']))})"


def _arg_text(arg: Any) -> str:
    if isinstance(arg, list) and len(arg) > 4:
        return f"[{arg[0]!r}, {arg[1]!r}, ... {len(arg)} items]"
    return repr(arg)


@dataclass
class Call:
    """One model call and where its time went, so a run's cost can be read off its trace.

    ``cached_tokens`` of the ``prompt_tokens`` were reused from the server's prompt cache
    and not computed again; ``prompt_ms`` and ``generate_ms`` split the server's time (the
    embedded model reports both, a hosted endpoint neither: None). ``past_block`` counts
    the reply's characters after its code block closed, generation that bought nothing.
    ``from_cache`` marks a reply answered by the on-disk response cache (no model ran).
    ``refused`` names the request fields the endpoint refused for this model, which were then
    left out or renamed (reasoning models take no ``stop`` and want ``max_completion_tokens``).
    """

    kind: str  # "step" (a program) or "review" (the reflection between trials)
    trial: int
    step: int | None
    seconds: float
    prompt_tokens: int
    completion_tokens: int
    cached_tokens: int | None = None
    prompt_ms: float | None = None
    generate_ms: float | None = None
    draft_tokens: int | None = None
    draft_accepted: int | None = None
    finish: str | None = None
    past_block: int = 0
    from_cache: bool = False
    refused: list[str] = field(default_factory=list)


@dataclass
class Trial:
    """One attempt of the episode from a fresh reset of the same seed."""

    trial: int
    success: bool = False
    #: MiniWoB's raw reward when the attempt ended: above 0 but below 1 is a partial reward,
    #: which AgentLab counts as a success and we do not.
    raw_reward: float = 0.0
    ending: str = "incomplete"
    steps: int = 0
    llm_calls: int = 0
    reflection: dict[str, Any] | None = None


@dataclass
class Episode:
    """One seeded run of one task with one method and example mode."""

    task: str
    seed: int
    method: str
    examples: str
    llm: str
    code: str = field(default_factory=code_version)
    commit: str | None = field(default_factory=git_commit)
    utterance: str = ""
    success: bool = False
    reward: float = 0.0
    raw_reward: float = 0.0
    reason: str | None = None
    steps: int = 0
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    context_overflows: int = 0
    seconds: float = 0.0
    error: str | None = None
    #: Set when the episode ended on a fault outside the agent: the model endpoint failing for
    #: good (unreachable, hung past its deadline, 5xx after retries), a browser that died on
    #: both attempts, a page that would not load. Such an episode says nothing about the agent:
    #: the tables count it apart from the success rates and ``bench --resume`` runs it again.
    infra_error: str | None = None
    success_first_trial: bool = False
    max_trials: int = 1
    #: Programs a trial may run and tokens a model call may generate (``--max-steps``,
    #: ``--max-tokens``): not part of an episode's key, so a resume with others is warned of.
    #: Older records lack them.
    max_steps: int | None = None
    max_tokens: int | None = None
    #: Whether the program-rewriting guards ran (``--no-guards`` turns them off).
    guards: bool = True
    #: The in-context examples the prompts showed: ``{"task", "number", "source"}`` each, the
    #: task being another one's when ``auto-near`` borrowed it. Older records lack it.
    examples_shown: list[dict[str, Any]] = field(default_factory=list)
    trials: list[Trial] = field(default_factory=list)
    trace: list[Step] = field(default_factory=list)
    calls: list[Call] = field(default_factory=list)

    def add_step(self, step: Step) -> None:
        self.trace.append(step)
        self.steps = len(self.trace)

    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON-ready data: the episode JSON (docs/episode-json.md).

        Strict JSON: a number that is not finite is None. A model of your own may report its
        ``seconds`` as NaN (a cached reply's timing can say ``Infinity``), and ``json.dumps``
        would write ``NaN``, which most JSON readers refuse; ``null`` every reader takes."""
        return _finite(asdict(self))


def _finite(value: Any) -> Any:
    """``value`` (plain data) with every NaN and infinity replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_finite(item) for item in value]
    return value
