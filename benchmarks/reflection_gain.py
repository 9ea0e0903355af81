"""What trials with reflection add over one trial, from one bench run with ``--trials T``.

    .venv/bin/webwise bench --tasks paper48 --seeds 3 --methods webwise --examples none \\
        --llm local --max-steps 3 --trials 3 --out runs/ww-none-t3
    .venv/bin/python benchmarks/reflection_gain.py runs/ww-none-t3

A run with T trials holds its own T=1 result: the first trial is exactly what a T=1 run
does (same seed, same prompts, temperature 0), so success at trial 1 and the calls of the
first trial (without the reflection asked after it) are the T=1 numbers, measured in the
same run. Prints success per group at T=1 and by trial T, the gain in points, and LLM calls
per episode at T=1 and at T, over all episodes and over the episodes solved at trial 1.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path
from typing import Any

from webwise.bench import RESULTS, read_results
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
    return (f"| {name} | {first / n:.2f} ({first}/{n}) | {final / n:.2f} ({final}/{n}) | {100 * (final - first) / n:+.1f} | "
            f"{calls_1:.2f} | {calls_t:.2f} | {ratio:.2f} |")


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


if __name__ == "__main__":
    main()
