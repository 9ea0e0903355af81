"""Compare embedded models on the seeds every given bench folder has run.

    .venv/bin/webwise bench --tasks paper48 --seeds 2 --methods webwise --examples manual \\
        --llm local:0.5b --max-steps 3 --out runs/choice-0.5b      # and the same with local:1.5b
    .venv/bin/python benchmarks/model_choice.py runs/choice-0.5b runs/choice-1.5b

Prints one Markdown row per folder: success by group, seconds and prompt tokens per call.
"""

from __future__ import annotations

import argparse
import statistics
from pathlib import Path

from webwise.bench import RESULTS, read_results
from webwise.tables import rounded, share_text
from webwise.tasks import PAPER_GROUPS


def row(records: list[dict]) -> str:
    groups = []
    for tasks in PAPER_GROUPS.values():
        members = [r for r in records if r["task"] in tasks]
        groups.append(rounded(sum(r["success"] for r in members), len(members)) if members else "-")
    calls = [(s["llm_seconds"], s["prompt_tokens"]) for r in records for s in r["trace"] if s["reply"] is not None]
    solved = sum(r["success"] for r in records)
    return (f"| {records[0]['llm']} | " + " | ".join(groups) + f" | {share_text(solved, len(records))} | "
            f"{statistics.fmean(c[0] for c in calls):.1f} | {statistics.fmean(c[1] for c in calls):.0f} | "
            f"{statistics.fmean(r['seconds'] for r in records):.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dirs", nargs="+", type=Path)
    runs = [read_results(d / RESULTS) for d in parser.parse_args().dirs]
    common = set.intersection(*({r["seed"] for r in records} for records in runs))
    print(f"seeds {sorted(common)}\n")
    print("| model | " + " | ".join(PAPER_GROUPS) + " | all | s per LLM call | prompt tokens per call | s per episode |")
    print("|---|" + "---|" * (len(PAPER_GROUPS) + 4))
    for records in runs:
        print(row([r for r in records if r["seed"] in common]))


if __name__ == "__main__":
    main()
