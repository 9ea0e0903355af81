"""Auto-Context Generation: zero-shot trials whose successful programs become examples.

A trial runs a task with no examples. A solved trial's programs (with the instruction and
the page each program saw) are kept only if they solve the task again on a fresh seed,
replayed without the model: a program that only worked by luck on one page is no example.
At most :data:`webwise.store.MAX_PER_TASK` per task, no duplicates.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from webwise import store
from webwise.agent import Agent, Settings
from webwise.episode import Episode
from webwise.llm import ChatModel
from webwise.llm.replay import ReplayModel
from webwise.session import Session

#: Fresh seeds for the re-check start here, far from any trial seed.
CHECK_SEED_OFFSET = 100_000


@dataclass
class TaskHarvest:
    """What the trials of one task produced."""

    task: str
    trials: int = 0
    solved: int = 0
    kept: int = 0
    duplicates: int = 0
    failed_check: int = 0
    stored: int = 0


def entry_from(episode: Episode) -> dict:
    """The example a solved episode teaches: its clean steps and where it came from."""
    steps = [{"observation": step.observation, "program": step.program}
             for step in episode.trace if step.program is not None and step.error is None]
    return {
        "instruction": episode.utterance,
        "steps": steps,
        "provenance": {"llm": episode.llm, "method": episode.method, "seed": episode.seed,
                       "reward": episode.raw_reward, "seconds": episode.seconds,
                       "harvested_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")},
    }


def recheck(session: Session, task: str, entry: dict, seed: int, settings: Settings) -> bool:
    """Replay the entry's programs, in order and without the model, on ``seed``."""
    replies = [f"```python\n{step['program']}\n```" for step in entry["steps"]]
    model = ReplayModel({task: replies}, "replay:harvest-check")
    agent = Agent(model, session.env, session.sandbox, settings)
    return agent.run(task, seed, "webwise", "none").success


def harvest(tasks: list[str], *, trials: int = 10, llm: str | ChatModel = "local", store_dir: Path | None = None,
            method: str = "webwise", seed_start: int = 0, max_steps: int = 5, guards: bool = True,
            progress: Callable[[str], None] = lambda line: None) -> list[TaskHarvest]:
    """Run zero-shot trials per task and keep what solves the task twice."""
    store_dir = store.writable(store_dir)
    settings = Settings(max_steps=max_steps, store_dir=store_dir, guards=guards)
    reports = []
    with Session(llm, settings) as session:
        for task in tasks:
            report = TaskHarvest(task)
            reports.append(report)
            for trial in range(trials):
                if store.count(task, store_dir) >= store.MAX_PER_TASK:
                    break
                seed = seed_start + trial
                episode = session.run(task, seed, method, "none")
                report.trials += 1
                verdict = "not solved"
                if episode.success:
                    report.solved += 1
                    verdict = _keep(session, task, episode, seed, settings, store_dir, report)
                progress(f"harvest {task} trial {trial + 1}/{trials} (seed {seed}): {verdict}")
            report.stored = store.count(task, store_dir)
    return reports


def _keep(session: Session, task: str, episode: Episode, seed: int, settings: Settings,
          store_dir: Path | None, report: TaskHarvest) -> str:
    entry = entry_from(episode)
    if not entry["steps"]:
        return "solved without a program"
    if store.has(task, entry, store_dir):
        report.duplicates += 1
        return "solved; duplicate"
    check_seed = CHECK_SEED_OFFSET + seed
    if not recheck(session, task, entry, check_seed, settings):
        report.failed_check += 1
        return f"solved; failed the re-check on seed {check_seed}"
    entry["provenance"]["check_seed"] = check_seed
    outcome = store.add(task, entry, store_dir)
    if outcome == "kept":
        report.kept += 1
    elif outcome == "duplicate":
        report.duplicates += 1
    return f"solved; {outcome}"
