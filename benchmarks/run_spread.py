"""How far bench runs of the same settings part: the run-to-run spread a change must beat.

    .venv/bin/python benchmarks/run_spread.py benchmarks/results/paper48-1.5b/ww-none-t3 runs/rerun

llama.cpp at temperature 0 is not bit-for-bit repeatable with two workers sharing a server
(its prefix cache rounds differently by what ran before), so two runs of one code differ on
some episodes, and one episode's first difference changes everything after it. A difference
between code versions means something only when it is larger than that. Over the episodes
every run holds, prints per run the code versions it records, success at trial 1 and by the
last trial, the gain in points, the late wins and the LLM calls; then, for each later run
against the first, how many episodes ran the same programs at every step (and in trial 1),
and every episode whose outcome differs.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

from webwise.bench import RESULTS, Key, read_results, record_key
from webwise.extraction import normal

Run = dict[Key, dict[str, Any]]


def load(directory: Path) -> Run:
    """The run's episode records by key (a resumed run holds each key once)."""
    return {record_key(r): r for r in read_results(directory / RESULTS)}


def programs(record: dict[str, Any], first_trial_only: bool = False) -> list[str]:
    """The programs the episode ran, step by step, comments and layout aside."""
    return [normal(step["program"]) for step in record["trace"] if not first_trial_only or step["trial"] == 0]


def solved(records: list[dict[str, Any]]) -> tuple[int, int]:
    """Episodes solved at trial 1 and by the last trial."""
    return sum(bool(r["success_first_trial"]) for r in records), sum(bool(r["success"]) for r in records)


def summary(name: str, records: list[dict[str, Any]]) -> str:
    n = len(records)
    first, final = solved(records)
    versions = Counter(r.get("code") or "unrecorded" for r in records)
    return (f"| {name} | {', '.join(f'{v} ({c})' for v, c in versions.most_common())} | {first}/{n} | {final}/{n} | "
            f"{100 * (final - first) / n:+.1f} | {final - first} | {sum(r['llm_calls'] for r in records)} |")


def outcome(record: dict[str, Any]) -> str:
    """Trial 1's outcome and the final one, e.g. "no/yes": failed trial 1, solved later."""
    return f"{'yes' if record['success_first_trial'] else 'no'}/{'yes' if record['success'] else 'no'}"


def compare(name: str, base: Run, other: Run, keys: list[Key]) -> list[str]:
    """Lines on how ``other`` parts from ``base`` over ``keys``."""
    same_all = sum(programs(base[k]) == programs(other[k]) for k in keys)
    same_first = sum(programs(base[k], True) == programs(other[k], True) for k in keys)
    differ = [k for k in keys if outcome(base[k]) != outcome(other[k])]
    lines = [f"{name} against the first: {same_all}/{len(keys)} episodes ran the same programs at every step, "
             f"{same_first}/{len(keys)} in trial 1; {len(differ)} outcomes differ "
             "(trial 1/final, first run -> this run):"]
    lines += [f"  {k[0]} s{k[1]}: {outcome(base[k])} -> {outcome(other[k])}" for k in sorted(differ)]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", type=Path, nargs="+", help="bench --out directories of the same settings")
    directories = parser.parse_args().runs
    for directory in directories:
        if not (directory / RESULTS).is_file():
            parser.error(f"{directory} holds no {RESULTS}")
    runs = [load(d) for d in directories]
    keys = sorted(set.intersection(*(set(run) for run in runs)))
    if not keys:
        parser.error("the runs share no episode (same tasks, seeds, method, examples, model and trials)")
    print(f"{len(keys)} episodes in every run\n")
    print("| run | code versions (episodes) | solved trial 1 | solved by last trial | gain (points) | late wins "
          "| LLM calls |")
    print("|---|---|---|---|---|---|---|")
    gains = []
    for directory, run in zip(directories, runs):
        records = [run[k] for k in keys]
        print(summary(str(directory), records))
        first, final = solved(records)
        gains.append(100 * (final - first) / len(keys))
    print(f"\ngain: mean {statistics.fmean(gains):+.1f}, range {min(gains):+.1f} to {max(gains):+.1f} points")
    for directory, run in zip(directories[1:], runs[1:]):
        print()
        print("\n".join(compare(str(directory), runs[0], run, keys)))


if __name__ == "__main__":
    main()
