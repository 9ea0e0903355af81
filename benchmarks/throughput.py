"""Bench throughput in episodes/min with 1, 2 and 4 workers on replayed programs, in one run.

Each worker count runs the same episodes through :class:`webwise.bench.Bench` into a fresh
directory, so the wall time includes everything a user waits for: browser launches, page
loads, sandboxed programs, fsync'd results and the tables. The ratios to one worker are
measured in the same run, so they hold up better than absolute numbers on a loaded machine.

    .venv/bin/python benchmarks/throughput.py [--seeds 25] [--out benchmarks/results/throughput.md]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from webwise.bench import Bench, BenchConfig, read_results

#: One-step programs that read the task, as a model's would.
REPLIES = {
    "click-button": "```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```",
    "click-link": "```python\nimport re\nclick('span', re.search(r'\"(.*)\"', task).group(1))\n```",
    "click-test": "```python\nclick('button', 'Click Me!')\n```",
    "click-tab": "```python\nimport re\nclick('a', re.search(r'Tab #\\d+', task).group(0))\n```",
}
WORKERS = (1, 2, 4)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=25, help="seeds per task (default 25: 100 episodes per run)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "throughput.md")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        replay = Path(scratch) / "replay.json"
        replay.write_text(json.dumps({task: [reply] for task, reply in REPLIES.items()}))
        for workers in WORKERS:
            out = Path(scratch) / f"w{workers}"
            config = BenchConfig(tasks=list(REPLIES), seeds=range(args.seeds), methods=["webwise"],
                                 examples=["none"], llm=f"replay:{replay}", out=out, workers=workers,
                                 progress=io.StringIO())
            started = time.perf_counter()
            assert Bench(config).run() == 0
            seconds = time.perf_counter() - started
            records = read_results(out / "results.jsonl")
            rows.append((workers, len(records), sum(r["success"] for r in records), seconds))
            print(f"{workers} worker(s): {len(records)} episodes in {seconds:.1f} s", file=sys.stderr)
    base = rows[0][1] / rows[0][3]
    lines = [
        "# Bench throughput on replayed programs",
        "",
        f"`{' '.join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]])}` on {time.strftime('%Y-%m-%d %H:%M')}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end.",
        f"Tasks {', '.join(REPLIES)} x {args.seeds} seeds, method webwise, one step each; wall time per run "
        "includes browser launches.",
        "",
        "| workers | episodes | solved | wall s | episodes/min | ratio to 1 worker |",
        "|---|---|---|---|---|---|",
    ]
    for workers, episodes, solved, seconds in rows:
        rate = episodes / seconds
        lines.append(f"| {workers} | {episodes} | {solved} | {seconds:.1f} | {rate * 60:.0f} | {rate / base:.2f} |")
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
