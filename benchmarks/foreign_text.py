"""Model replies that carry another task's text: a check for a serving bug, not for the agent.

    .venv/bin/python benchmarks/foreign_text.py benchmarks/results/suite-1.5b/ww-none-t3 [RUN ...] [--show]

A reply can only quote what its own prompt shows or what the model makes up. When a serving
stack mixes two conversations (llama.cpp's host-RAM prompt cache did, shared by two slots:
it loaded one call's state into the other's slot), a reply goes on with the text of a task
that ran beside it. This counts, per run, the model calls (steps and reviews) whose reply
quotes a literal (``'...'``, 3 to 40 characters) that the call's own prompt does not show,
inside a 30-character span that a reply of another task in the same run holds word for word.

The count has a floor: a model writes common words (``'Trash'``, ``'Submit'``) that another
task also wrote. Runs of one serving setup compare with each other; ``--show`` prints every
hit, to tell a real mix (``click-option``'s program ending with ``click-menu-2``'s review
sentence) from a shared word.
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from webwise.bench import RESULTS, read_results

SPAN = 30
"""Characters of a reply that must match another task's reply word for word."""

LITERAL = re.compile(r"'([^'\n]{3,40})'")

Call = tuple[str, int, str, str, str]
"""Task, seed, kind (``step`` or ``review``), the prompt's text, the reply."""


def calls(record: dict[str, Any]) -> Iterator[Call]:
    """The episode's model calls that have a recorded prompt and reply."""
    for step in record["trace"]:
        if step.get("prompt") and step.get("reply") and step.get("source") == "model":
            yield record["task"], record["seed"], "step", _text(step["prompt"]), step["reply"]
    for trial in record.get("trials") or ():
        review = trial.get("reflection") or {}
        if review.get("prompt") and review.get("reply"):
            yield record["task"], record["seed"], "review", _text(review["prompt"]), review["reply"]


def _text(messages: list[dict[str, str]]) -> str:
    return "\n".join(message["content"] for message in messages)


def foreign(run: list[Call]) -> list[tuple[Call, str]]:
    """The calls of ``run`` holding another task's text, each with the literal that shows it."""
    tasks_by_span: dict[str, set[str]] = defaultdict(set)
    for task, _, _, _, reply in run:
        for start in range(len(reply) - SPAN + 1):
            tasks_by_span[reply[start:start + SPAN]].add(task)
    hits = []
    for call in run:
        task, _, _, prompt, reply = call
        for match in LITERAL.finditer(reply):
            if match.group(1) in prompt:
                continue
            starts = range(max(0, match.end() - SPAN), min(len(reply) - SPAN, match.start()) + 1)
            if any(tasks_by_span[reply[start:start + SPAN]] - {task} for start in starts):
                hits.append((call, match.group(0)))
                break
    return hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("runs", nargs="+", type=Path, help="bench output directories")
    parser.add_argument("--show", action="store_true", help="print every call found")
    args = parser.parse_args()
    for directory in args.runs:
        if not (directory / RESULTS).is_file():
            parser.error(f"{directory}: no {RESULTS}")
        run = [call for record in read_results(directory / RESULTS) for call in calls(record)]
        hits = foreign(run)
        print(f"{directory}: {len(hits)} of {len(run)} calls hold another task's text")
        for (task, seed, kind, _, reply), literal in hits if args.show else ():
            print(f"  {task} seed {seed} {kind}: {literal} in {reply[:160]!r}")


if __name__ == "__main__":
    main()
