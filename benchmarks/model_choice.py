"""Which embedded model should ``local`` mean? Both on the paper's 48 tasks, one run.

For each model: success by group, seconds per LLM call and prompt tokens per call, with
the ``webwise`` method and the hand-written examples. Prints a Markdown table and writes
per-episode JSON lines to ``--out`` so the numbers can be rechecked.

    .venv/bin/python benchmarks/model_choice.py --models 1.5b,0.5b --seeds 1 --max-steps 3
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import webwise
from webwise.tasks import PAPER48, PAPER_GROUPS


def run_model(size: str, seeds: int, max_steps: int, method: str, examples: str, out: Path) -> list[dict]:
    records = []
    settings = webwise.Settings(max_steps=max_steps)
    with webwise.Session(f"local:{size}", settings) as session, out.open("a") as sink:
        for seed in range(seeds):
            for task in PAPER48:
                episode = session.run(task, seed, method, examples).to_dict()
                episode.pop("trace")
                sink.write(json.dumps(episode) + "\n")
                sink.flush()
                records.append(episode)
                print(f"{size} {task} seed {seed}: {'ok' if episode['success'] else '--'} "
                      f"{episode['llm_calls']} calls {episode['seconds']:.1f}s", flush=True)
    return records


def table(results: dict[str, list[dict]], seconds: dict[str, float]) -> str:
    header = "| model | " + " | ".join(PAPER_GROUPS) + " | all 48 | s per call | prompt tokens per call | wall s |"
    lines = [header, "|" + "---|" * (len(PAPER_GROUPS) + 5)]
    for size, records in results.items():
        cells = []
        for tasks in PAPER_GROUPS.values():
            group = [r for r in records if r["task"] in tasks]
            cells.append(f"{sum(r['success'] for r in group) / len(group):.2f}")
        calls = sum(r["llm_calls"] for r in records) or 1
        rate = sum(r["success"] for r in records) / len(records)
        per_call = statistics.fmean(r["seconds"] / max(1, r["llm_calls"]) for r in records)
        tokens = sum(r["prompt_tokens"] for r in records) / calls
        lines.append(f"| {size} | " + " | ".join(cells) + f" | {rate:.2f} | {per_call:.1f} | {tokens:.0f} | {seconds[size]:.0f} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default="1.5b,0.5b")
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--max-steps", type=int, default=3)
    parser.add_argument("--method", default="webwise")
    parser.add_argument("--examples", default="manual")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/model_choice.jsonl"))
    args = parser.parse_args()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    results, seconds = {}, {}
    for size in args.models.split(","):
        started = time.monotonic()
        results[size] = run_model(size, args.seeds, args.max_steps, args.method, args.examples, args.out)
        seconds[size] = time.monotonic() - started
    print(table(results, seconds))


if __name__ == "__main__":
    main()
