"""Ask recorded step prompts again, one at a time, and print where the model's time goes.

    .venv/bin/python benchmarks/prompt_replay.py benchmarks/results/suite-1.5b/ww-none-t3 \\
        --llm local:1.5b --calls 12 --out runs/replay-a.json
    PYTHONPATH=/path/to/other/xllamacpp .venv/bin/python benchmarks/prompt_replay.py ... --out runs/replay-b.json \\
        --compare runs/replay-a.json

A model-level comparison for what a whole bench would take hours to show: the same prompts
(first-trial step prompts of a bench's results, ``--calls`` of them spread evenly), asked
with the shipped local backend and the agent's own request settings, so only what differs
between two runs (an llama.cpp build, a ``WEBWISE_LOCAL_*`` knob) differs in the numbers.
Prints per call and in total: prompt tokens computed (not taken from the prefix cache) and
their rate, tokens generated and their rate, and the wall time. ``--compare`` reads another
run's output and prints the ratio of the two and how many replies differ. Run the sides in
turn (A B B A) on a quiet machine: the numbers are rates, so other load shows in them.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

from webwise.agent import STOP, Settings
from webwise.bench import RESULTS, read_results
from webwise.llm import make_llm
from webwise.llm.base import ChatRequest


def recorded_prompts(folder: Path, calls: int) -> list[tuple[str, list[dict[str, str]]]]:
    """(task, messages) of the first-trial step prompts the model answered, ``calls`` spread evenly."""
    prompts = [(record["task"], step["prompt"])
               for record in read_results(folder / RESULTS) for step in record["trace"]
               if step.get("source") == "model" and step.get("reply") and not step.get("repeats")
               and step.get("trial", 0) == 0]
    return prompts[:: max(1, len(prompts) // calls)][:calls]


def ask(llm: Any, messages: list[dict[str, str]]) -> dict[str, Any]:
    """One call with the agent's settings; its counts and timings."""
    start = time.perf_counter()
    reply = llm.complete(ChatRequest(messages, temperature=0.0, max_tokens=Settings().max_tokens, stop=STOP))
    extra = reply.extra
    return {"text": reply.text, "wall_s": time.perf_counter() - start,
            "computed": reply.prompt_tokens - extra["cached_prompt_tokens"], "prompt_ms": extra["prompt_ms"],
            "generated": reply.completion_tokens, "generate_ms": extra["generate_ms"]}


def totals(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Summed counts and the rates they give."""
    computed = sum(r["computed"] for r in rows)
    generated = sum(r["generated"] for r in rows)
    prompt_s = sum(r["prompt_ms"] for r in rows) / 1000
    generate_s = sum(r["generate_ms"] for r in rows) / 1000
    return {"calls": len(rows), "computed": computed, "prompt_s": prompt_s,
            "prompt_tok_s": computed / prompt_s if prompt_s else 0.0, "generated": generated,
            "generate_s": generate_s, "gen_tok_s": generated / generate_s if generate_s else 0.0,
            "wall_s": sum(r["wall_s"] for r in rows)}


def describe(name: str, total: dict[str, float]) -> str:
    return (f"{name}: {total['calls']:.0f} calls, {total['computed']:.0f} prompt tokens computed in "
            f"{total['prompt_s']:.1f} s ({total['prompt_tok_s']:.1f}/s), {total['generated']:.0f} generated in "
            f"{total['generate_s']:.1f} s ({total['gen_tok_s']:.1f}/s), wall {total['wall_s']:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a bench output folder whose prompts are asked again")
    parser.add_argument("--llm", default="local:1.5b")
    parser.add_argument("--calls", type=int, default=12)
    parser.add_argument("--out", type=Path, required=True, help="JSON file for this run's rows")
    parser.add_argument("--compare", type=Path, help="another run's --out file, to print the ratio against")
    args = parser.parse_args()
    prompts = recorded_prompts(args.results, args.calls)
    other_rows = json.loads(args.compare.read_text()) if args.compare else []
    if args.compare and [r["task"] for r in other_rows] != [task for task, _ in prompts]:
        parser.exit(2, f"{args.compare} asked other prompts: compare runs of the same results and --calls\n")
    llm = make_llm(args.llm)
    rows = []
    for task, messages in prompts:
        row = {"task": task, **ask(llm, messages)}
        rows.append(row)
        print(f"{task}: {row['computed']} computed, {row['prompt_ms'] / 1000:.1f} s; {row['generated']} generated, "
              f"{row['generate_ms'] / 1000:.1f} s", flush=True)
    llm.close()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(rows, indent=1))
    mine = totals(rows)
    print(describe(str(args.out), mine))
    if args.compare:
        other = totals(other_rows)
        print(describe(str(args.compare), other))
        differ = sum(a["text"] != b["text"] for a, b in zip(rows, other_rows))
        print(f"this/other: prompt rate {mine['prompt_tok_s'] / other['prompt_tok_s']:.2f}x, generation rate "
              f"{mine['gen_tok_s'] / other['gen_tok_s']:.2f}x, wall {other['wall_s'] / mine['wall_s']:.2f}x faster; "
              f"{differ} of {len(rows)} replies differ")


if __name__ == "__main__":
    main()
