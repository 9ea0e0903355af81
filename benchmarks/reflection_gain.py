"""What trials with reflection add over one trial, from one bench run with ``--trials T``.

    .venv/bin/webwise bench --tasks paper48 --seeds 3 --methods webwise --examples none \\
        --llm local --max-steps 3 --trials 3 --out runs/ww-none-t3
    .venv/bin/python benchmarks/reflection_gain.py runs/ww-none-t3

A run with T trials holds its own T=1 result: the first trial is exactly what a T=1 run
does (same seed, same prompts, temperature 0), so success at trial 1 and the calls of the
first trial (without the reflection asked after it) are the T=1 numbers, measured in the
same run. Prints success per group at T=1 and by trial T, the gain in points, and LLM calls
per episode at T=1 and at T, over all episodes and over the episodes solved at trial 1; then
success by each trial (so a T=5 run also gives T=3, as in the paper's T=1 / T=3 / T=5), what
the reviews between trials answered and what won the episodes solved after trial 1.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from webwise.bench import RESULTS, read_results
from webwise.tables import share_text
from webwise.tasks import PAPER_GROUPS


def first_trial_calls(record: dict[str, Any]) -> int:
    """LLM calls a T=1 run would have made: the first trial's, minus the reflection after it."""
    first = record["trials"][0]
    reflected = first.get("reflection") is not None and first["reflection"].get("reply") is not None
    return first["llm_calls"] - reflected


def line(name: str, records: list[dict[str, Any]]) -> str:
    n = len(records)
    first = sum(bool(r["success_first_trial"]) for r in records)
    final = sum(bool(r["success"]) for r in records)
    calls_1 = statistics.fmean(first_trial_calls(r) for r in records)
    calls_t = statistics.fmean(r["llm_calls"] for r in records)
    solved_1 = [r for r in records if r["success_first_trial"]]
    ratio = (sum(r["llm_calls"] for r in solved_1) / sum(first_trial_calls(r) for r in solved_1)) if solved_1 else float("nan")
    return (f"| {name} | {share_text(first, n)} | {share_text(final, n)} | {100 * (final - first) / n:+.1f} | "
            f"{calls_1:.2f} | {calls_t:.2f} | {ratio:.2f} |")


def by_trial(records: list[dict[str, Any]], trials: int) -> str:
    """Success by each trial t: episodes one of whose first t trials succeeded."""
    n = len(records)
    counts = [sum(any(t["success"] for t in r["trials"][:number]) for r in records) for number in range(1, trials + 1)]
    return ", ".join(f"T={number}: {share_text(count, n)}" for number, count in enumerate(counts, 1))


def reviews(records: list[dict[str, Any]]) -> Counter[str]:
    """How each review between trials answered: a step and a program, a step only, or no step."""
    counted: Counter[str] = Counter()
    for record in records:
        for trial in record["trials"]:
            review = trial.get("reflection")
            if review is None:
                continue
            if review.get("step") is None:
                counted["named no step"] += 1
            else:
                counted["a step and a program" if "```" in (review.get("reply") or "") else "a step only"] += 1
    return counted


def wins(records: list[dict[str, Any]]) -> Counter[str]:
    """What solved each episode won after trial 1: the review's correction, or a fresh ask."""
    counted: Counter[str] = Counter()
    for record in records:
        if record["success"] and not record["success_first_trial"]:
            last = record["trials"][-1]["trial"]
            sources = {step["source"] for step in record["trace"] if step["trial"] == last}
            counted["the correction" if "correction" in sources else "a fresh ask"] += 1
    return counted


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", type=Path)
    records = [r for r in read_results(parser.parse_args().dir / RESULTS) if r.get("trials")]
    trials = max(int(r["max_trials"]) for r in records)
    seeds = sorted({r["seed"] for r in records})
    print(f"{records[0]['method']} / {records[0]['examples']}, {records[0]['llm']}, T={trials}, seeds {seeds}\n")
    print(f"| group | success T=1 | success T={trials} | gain (points) | LLM calls/ep T=1 | LLM calls/ep T={trials} |"
          f" calls T={trials} / T=1 on episodes solved at T=1 |")
    print("|---|---|---|---|---|---|---|")
    for group, tasks in PAPER_GROUPS.items():
        members = [r for r in records if r["task"] in tasks]
        if members:
            print(line(group, members))
    print(line("all", records))
    print(f"\nSuccess by trial, all groups: {by_trial(records, trials)}")
    variable = [r for r in records if r["task"] in PAPER_GROUPS["variable"]]
    if variable:
        print(f"Success by trial, variable group: {by_trial(variable, trials)}")
    answered = reviews(records)
    print(f"\nReviews between trials: {sum(answered.values())}; "
          + ", ".join(f"{kind}: {answered[kind]}" for kind in ("a step and a program", "a step only", "named no step")))
    won = wins(records)
    print(f"Episodes solved after trial 1: {sum(won.values())}; "
          + ", ".join(f"by {kind}: {won[kind]}" for kind in ("the correction", "a fresh ask")))


if __name__ == "__main__":
    main()
