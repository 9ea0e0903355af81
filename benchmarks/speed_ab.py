"""Episodes per minute with a change off (A) and on (B), the same episodes, one machine, one run.

    .venv/bin/python benchmarks/speed_ab.py --out runs/ab --a-env WEBWISE_LOCAL_SLOTS=1 \\
        --b-env WEBWISE_LOCAL_DRAFT=ngram -- --tasks paper48 --seeds 1 --examples manual --llm local --workers 2

Everything after ``--`` goes to ``webwise bench`` for both sides. A side is an environment
(``--a-env``/``--b-env``, space-separated NAME=VALUE pairs; the speed knobs are environment
variables, see ``webwise.llm.local.Tuning``) and optionally another checkout's ``webwise``
(``--a-webwise``/``--b-webwise``: today's main against a change). The task list is cut into
``--chunks`` pieces run A B, B A, A B, ... so that a drift in the machine's load falls on both
sides alike; each piece is a resumable bench into OUT/a or OUT/b, so an interrupted comparison
goes on where it stopped (the wall time of the pieces already run is kept in OUT/times.json).
Prints, per side, episodes, wall minutes, episodes per minute and successes, the ratio B/A,
the model-call table of each side, and every episode whose outcome differs.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from webwise import tables
from webwise.bench import RESULTS, Key, read_results, record_key
from webwise.tasks import parse_task_list


def sides(args: argparse.Namespace) -> dict[str, tuple[dict[str, str], str]]:
    """Side name -> (environment overrides, webwise command)."""
    default = str(Path(sys.executable).with_name("webwise"))
    return {side: (dict(pair.split("=", 1) for pair in shlex.split(getattr(args, f"{side}_env"))),
                   getattr(args, f"{side}_webwise") or default)
            for side in ("a", "b")}


def chunks(tasks: list[str], count: int) -> list[list[str]]:
    size = -(-len(tasks) // count)
    return [tasks[i:i + size] for i in range(0, len(tasks), size)]


def bench_args(rest: list[str]) -> tuple[list[str], list[str]]:
    """Split the bench arguments into the task list and everything else."""
    if "--tasks" not in rest:
        raise SystemExit("speed_ab: pass --tasks to the bench after --")
    at = rest.index("--tasks")
    return parse_task_list(rest[at + 1]), rest[:at] + rest[at + 2:]


def run_piece(out: Path, side: str, env: dict[str, str], command: str, tasks: list[str], rest: list[str]) -> float:
    """One bench of ``tasks`` for ``side``; its wall seconds."""
    start = time.perf_counter()
    argv = [command, "bench", "--tasks", ",".join(tasks), *rest, "--out", str(out / side), "--resume"]
    status = subprocess.run(argv, env={**os.environ, **env}).returncode
    if status not in (0, 1):
        raise SystemExit(f"speed_ab: bench for side {side} exited {status}")
    return time.perf_counter() - start


def compare(out: Path, seconds: dict[str, float]) -> str:
    runs: dict[str, dict[Key, dict[str, Any]]] = {
        side: {record_key(r)[:4]: r for r in read_results(out / side / RESULTS)} for side in ("a", "b")}
    common = sorted(set(runs["a"]) & set(runs["b"]))
    lines = ["| side | episodes | wall minutes | episodes/min | solved | LLM calls |", "|---|---|---|---|---|---|"]
    rate: dict[str, float] = {}
    for side in ("a", "b"):
        records = [runs[side][key] for key in common]
        minutes = seconds.get(side, 0.0) / 60
        rate[side] = len(records) / minutes if minutes else 0.0
        lines.append(f"| {side} | {len(records)} | {minutes:.1f} | {rate[side]:.2f} | "
                     f"{sum(bool(r['success']) for r in records)} | {sum(r['llm_calls'] for r in records)} |")
    if rate["a"]:
        lines += ["", f"episodes per minute, B/A: {rate['b'] / rate['a']:.2f}x"]
    for side in ("a", "b"):
        spent = tables.cost(runs[side][key] for key in common)
        if spent is not None:
            lines += ["", f"model calls, side {side}:", "",
                      "| " + " | ".join(tables.Cost.HEADER) + " |", "|" + "---|" * len(tables.Cost.HEADER),
                      "| " + " | ".join(spent.cells()) + " |"]
    differ = [key for key in common if bool(runs["a"][key]["success"]) != bool(runs["b"][key]["success"])]
    lines += ["", f"outcomes that differ: {len(differ)} of {len(common)}"]
    lines += [f"- {key[0]} seed {key[1]}: A {'solved' if runs['a'][key]['success'] else 'failed'}, "
              f"B {'solved' if runs['b'][key]['success'] else 'failed'}" for key in differ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--a-env", default="", help="NAME=VALUE pairs for side A")
    parser.add_argument("--b-env", default="", help="NAME=VALUE pairs for side B")
    parser.add_argument("--a-webwise", default=None, help="the webwise command of side A (default this one)")
    parser.add_argument("--b-webwise", default=None, help="the webwise command of side B (default this one)")
    parser.add_argument("--chunks", type=int, default=2, help="pieces of the task list, run ABBA... (default 2)")
    parser.add_argument("bench", nargs=argparse.REMAINDER, help="-- then the arguments of webwise bench")
    args = parser.parse_args()
    rest = args.bench[1:] if args.bench[:1] == ["--"] else args.bench
    tasks, rest = bench_args(rest)
    args.out.mkdir(parents=True, exist_ok=True)
    times_path = args.out / "times.json"
    times: dict[str, Any] = json.loads(times_path.read_text()) if times_path.exists() else {}
    config = sides(args)
    for number, piece in enumerate(chunks(tasks, args.chunks)):
        for side in ("a", "b") if number % 2 == 0 else ("b", "a"):
            name = f"{side}{number}"
            if name in times:
                continue
            env, command = config[side]
            times[name] = run_piece(args.out, side, env, command, piece, rest)
            times_path.write_text(json.dumps(times, indent=1))
    seconds = {side: sum(v for k, v in times.items() if k.startswith(side)) for side in ("a", "b")}
    report = compare(args.out, seconds)
    (args.out / "comparison.md").write_text(report + "\n")
    print(report)


if __name__ == "__main__":
    main()
