"""Warm an LLM response cache from a recorded bench run, so a rerun shares its first trials.

    .venv/bin/python benchmarks/warm_cache.py benchmarks/results/paper48-1.5b/ww-none-t3-rerun runs/cache
    WEBWISE_LLM_CACHE=runs/cache .venv/bin/webwise bench ... --out runs/changed

A change to what happens after a failed trial leaves trial 1's prompts as they were. With the
cache warmed from an earlier run, the rerun answers those prompts with the replies recorded
there instead of asking the model again: the two runs share trial 1 (no run-to-run spread in
it) and the rerun pays only for the later trials. Only calls whose request the record holds
exactly are written: trial-1 steps the model answered at the first ask (temperature 0, the
prompt and reply are in the trace). Re-asks and reviews are left to the model: their seeds
or token counts are not recorded per call.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, Iterator

from webwise.agent import STOP, Settings
from webwise.bench import RESULTS, read_results
from webwise.llm.base import ChatReply, ChatRequest
from webwise.llm.cache import store


def first_trial_calls(record: dict[str, Any], max_tokens: int) -> Iterator[tuple[ChatRequest, ChatReply]]:
    """The episode's trial-1 model calls that can be rebuilt exactly, with their replies."""
    for step in record["trace"]:
        if step["trial"] != 0 or step["source"] != "model" or step["repeats"] or step["reply"] is None:
            continue
        request = ChatRequest(step["prompt"], temperature=0.0, max_tokens=max_tokens, stop=STOP)
        yield request, ChatReply(step["reply"], step["prompt_tokens"], step["completion_tokens"],
                                 seconds=step["llm_seconds"])


def warm(run: Path, cache: Path, max_tokens: int = Settings().max_tokens) -> int:
    """Write the run's rebuildable trial-1 calls into ``cache``; returns how many."""
    written = 0
    for record in read_results(run / RESULTS):
        for request, reply in first_trial_calls(record, max_tokens):
            store(cache, record["llm"], request, reply)
            written += 1
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run", type=Path, help="a bench --out directory")
    parser.add_argument("cache", type=Path, help="the cache directory (WEBWISE_LLM_CACHE of the rerun)")
    args = parser.parse_args()
    if not (args.run / RESULTS).is_file():
        parser.error(f"{args.run} holds no {RESULTS}")
    print(f"{warm(args.run, args.cache)} replies from {args.run} written to {args.cache}")


if __name__ == "__main__":
    main()
