"""Per-call latency and prompt tokens per task and method, from bench results.

Run a bench with the model and the methods to compare, then point this at its folder:

    .venv/bin/webwise bench --tasks paper48 --methods webwise,filtered-dom,whole-dom,instruction-only \\
        --examples manual --llm local --out runs/latency
    .venv/bin/python benchmarks/llm_latency.py runs/latency

Prints a Markdown table (one row per task, a column pair per method: seconds per LLM
call and prompt tokens per call), the means per method, and the tasks whose prompt did
not fit the context window.
"""

from __future__ import annotations

import argparse
import statistics
from collections import defaultdict
from pathlib import Path

from webwise.bench import RESULTS, read_results
from webwise.prompts import METHODS
from webwise.tasks import PAPER48


def per_call(records: list[dict]) -> tuple[dict[tuple[str, str], list[tuple[float, int]]], set[tuple[str, str]]]:
    """(task, method) -> [(seconds, prompt tokens) per model call], and the overflowing pairs."""
    calls: dict[tuple[str, str], list[tuple[float, int]]] = defaultdict(list)
    overflows = set()
    for record in records:
        key = (record["task"], record["method"])
        if record.get("context_overflows"):
            overflows.add(key)
        for step in record["trace"]:
            if step.get("reply") is not None:
                calls[key].append((step["llm_seconds"], step["prompt_tokens"]))
    return calls, overflows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path, help="bench output folders")
    args = parser.parse_args()
    records = [r for d in args.dirs for r in read_results(d / RESULTS)]
    calls, overflows = per_call(records)
    methods = [m for m in METHODS if any(k[1] == m for k in calls)]
    print("| task | " + " | ".join(f"{m} s/call | {m} tokens/call" for m in methods) + " |")
    print("|---|" + "---|---|" * len(methods))
    for task in [t for t in PAPER48 if any(k[0] == t for k in calls)]:
        cells = []
        for method in methods:
            sample = calls.get((task, method), [])
            cells += ([f"{statistics.fmean(s for s, _ in sample):.1f}", f"{statistics.fmean(t for _, t in sample):.0f}"]
                      if sample else ["overflow" if (task, method) in overflows else "-", "-"])
        print(f"| {task} | " + " | ".join(cells) + " |")
    print()
    for method in methods:
        sample = [c for (_, m), cs in calls.items() if m == method for c in cs]
        print(f"{method}: {len(sample)} calls, {statistics.fmean(s for s, _ in sample):.2f} s/call, "
              f"{statistics.fmean(t for _, t in sample):.0f} prompt tokens/call")
    print("context overflows:", ", ".join(f"{t} ({m})" for t, m in sorted(overflows)) or "none")


if __name__ == "__main__":
    main()
