"""The harness ceiling: every task's reference program replayed on N seeds through the real pipeline.

    .venv/bin/python benchmarks/ceiling.py --seeds 10 --seed-start 5000 --workers 2 --out benchmarks/results/ceiling

Writes OUT/references.json (the replay file), runs ``webwise bench`` on it with no examples
(resumable: run the same command again), then prints per task how many seeds the reference
solved, the tasks solved on every seed, and the tasks left out with their reasons. A task
counts for the ceiling only when its reference solves every seed.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.reference import covered, left_out, write_replay  # noqa: E402
from webwise.bench import RESULTS, BenchConfig, read_results, run_bench  # noqa: E402
from webwise.tasks import all_tasks  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seed-start", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tasks", default="", help="comma-separated (default: every task with a reference)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    tasks = [t for t in args.tasks.split(",") if t] or covered()
    args.out.mkdir(parents=True, exist_ok=True)
    replay = write_replay(args.out / "references.json", tasks)
    config = BenchConfig(tasks=tasks, seeds=range(args.seed_start, args.seed_start + args.seeds),
                         methods=["webwise"], examples=["none"], llm=f"replay:{replay.resolve()}",
                         out=args.out, workers=args.workers, resume=True, max_steps=5)
    status = run_bench(config)
    print(summary(args.out, tasks, args.seeds))
    return status


def summary(out: Path, tasks: list[str], seeds: int) -> str:
    solved: dict[str, list[bool]] = defaultdict(list)
    errors: dict[str, str] = {}
    for record in read_results(out / RESULTS):
        solved[record["task"]].append(bool(record["success"]))
        if not record["success"]:
            errors[record["task"]] = next((s["error"] for s in record["trace"] if s.get("error")), "") or ""
    lines = ["| task | seeds solved | last error |", "|---|---|---|"]
    for task in tasks:
        runs = solved.get(task, [])
        lines.append(f"| {task} | {sum(runs)}/{len(runs)} | {errors.get(task, '')[:100]} |")
    full = [t for t in tasks if len(solved.get(t, [])) >= seeds and all(solved[t])]
    skipped = left_out()
    lines.append(f"\nSolved on every seed: {len(full)} of {len(all_tasks())} tasks "
                 f"({len(tasks)} with a reference, {len(skipped)} left out).")
    lines += [f"- left out: {task}: {reason}" for task, reason in skipped.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())
