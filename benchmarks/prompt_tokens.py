"""Prompt size of each task's first call: what a change to the observation or the API costs.

Resets each task at one seed in real headless Chromium, builds the first step's messages
exactly as the agent does (system part, the task's examples, the page), and counts tokens
with the project's estimate (about four characters a token). ``--out`` keeps the counts;
``--against`` an earlier ``--out`` file prints the ratio, overall and per task that changed.

Usage: .venv/bin/python benchmarks/prompt_tokens.py [--tasks paper48] [--seed 0]
           [--method webwise] [--examples manual] [--out FILE] [--against FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from webwise.agent import VIEWS, load_examples  # noqa: E402
from webwise.environment import MiniWoBEnv  # noqa: E402
from webwise.llm.base import estimate_tokens  # noqa: E402
from webwise.prompts import PromptExample, build_messages, task_message  # noqa: E402
from webwise.tasks import parse_task_list  # noqa: E402


def prompt_tokens(env: MiniWoBEnv, task: str, seed: int, method: str, examples: str) -> int:
    """Tokens of the first call's messages for ``task`` at ``seed``."""
    utterance = env.reset(task, seed)
    page = VIEWS[method](env.observe()[0], set(), set())
    shown = [PromptExample(e.instruction, e.steps) for e in load_examples(task, examples)]
    user = task_message(method, utterance, page, shown)
    return sum(estimate_tokens(m["content"]) for m in build_messages(method, user, demonstrate=not shown))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", default="paper48")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--method", default="webwise")
    parser.add_argument("--examples", default="manual")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--against", type=Path)
    options = parser.parse_args()
    with MiniWoBEnv() as env:
        counts = {task: prompt_tokens(env, task, options.seed, options.method, options.examples)
                  for task in parse_task_list(options.tasks)}
    total = sum(counts.values())
    print(f"{len(counts)} tasks, seed {options.seed}, {options.method}, {options.examples} examples: "
          f"{total} prompt tokens")
    if options.out:
        options.out.write_text(json.dumps(counts, indent=1) + "\n", encoding="utf-8")
    if options.against:
        before = json.loads(options.against.read_text(encoding="utf-8"))
        shared = [task for task in counts if task in before]
        old, new = sum(before[t] for t in shared), sum(counts[t] for t in shared)
        for task in shared:
            if counts[task] != before[task]:
                print(f"  {task}: {before[task]} -> {counts[task]} ({counts[task] / before[task]:.3f}x)")
        print(f"ratio over {len(shared)} tasks: {new}/{old} = {new / old:.4f}")


if __name__ == "__main__":
    main()
