"""The harness ceiling: every task's reference program replayed on N seeds through the real pipeline.

    .venv/bin/python benchmarks/ceiling.py --seeds 10 --seed-start 5000 --workers 2 --out benchmarks/results/ceiling

Writes OUT/references.json (the replay file), runs ``webwise bench`` on it with no examples
(resumable: run the same command again), then prints per task how many seeds the reference
solved, the tasks solved on every seed, and the tasks left out with their reasons. A task
counts for the ceiling only when its reference solves every seed. With ``--catalog`` it also
writes webwise/catalog.json, which ``webwise tasks`` reads: per task the group (the paper's
rule, from the action calls each solved seed took), the actions used and the seeds solved,
or what a task left out needs.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.reference import covered, left_out, write_replay  # noqa: E402
from webwise.bench import RESULTS, BenchConfig, read_results, run_bench  # noqa: E402
from webwise.tasks import CATALOG_FILE, all_tasks, group_by_calls  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seed-start", type=int, default=5000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--tasks", default="", help="comma-separated (default: every task with a reference)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--catalog", action="store_true", help=f"write {CATALOG_FILE.name} from the results")
    args = parser.parse_args()
    if args.catalog and args.tasks:  # the catalog lists every task: one from a few would drop the rest
        parser.error("--catalog writes every task's entry: omit --tasks")
    tasks = [t for t in args.tasks.split(",") if t] or covered()
    unknown = sorted(set(tasks) - set(covered()))
    if unknown:
        parser.error(f"no reference program for {', '.join(unknown)} (omit --tasks for every task that has one)")
    args.out.mkdir(parents=True, exist_ok=True)
    replay = write_replay(args.out / "references.json", tasks)
    config = BenchConfig(tasks=tasks, seeds=range(args.seed_start, args.seed_start + args.seeds),
                         methods=["webwise"], examples=["none"], llm=f"replay:{replay.resolve()}",
                         out=args.out, workers=args.workers, resume=True, max_steps=5)
    status = run_bench(config)
    print(summary(args.out, tasks, args.seeds))
    if args.catalog:
        write_catalog(args.out)
    return status


def write_catalog(out: Path) -> None:
    """Each task's group and actions from the solved episodes of its reference; the reason for the rest."""
    episodes: dict[str, list[dict]] = defaultdict(list)
    for record in read_results(out / RESULTS):
        episodes[record["task"]].append(record)
    entries: dict[str, dict] = {}
    for task in all_tasks():
        solved = [r for r in episodes.get(task, []) if r["success"]]
        if solved:
            calls = [[a["name"] for s in r["trace"] for a in s["actions"] if not a["error"]] for r in solved]
            entries[task] = {"group": group_by_calls([len(c) for c in calls]),
                             "actions": sorted({name for c in calls for name in c}),
                             "seeds_solved": f"{len(solved)}/{len(episodes[task])}"}
        elif task in left_out():
            entries[task] = {"needs": left_out()[task]}
    CATALOG_FILE.write_text(json.dumps(entries, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {CATALOG_FILE} ({len(entries)} tasks)")


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
