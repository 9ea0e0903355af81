"""How much model time replies that loop to the token limit take, and what cutting them would save.

    .venv/bin/python benchmarks/reply_loops.py benchmarks/results/suite-1.5b/ww-none-t3

Small models sometimes write one block of lines (or one line of ``;``-joined calls) over and
over until the agent's token limit ends the reply. The local backend already stops a reply
whose last :data:`webwise.llm.local.REPEATS` lines are one line. This reads a bench's records
and prints: the model time (prompt reading plus generation, from the per-call timings) of the
calls that reached the limit, their generation share, and, for two wider loop detectors run
over the recorded replies as if streamed, how many of those replies each would have stopped
and how many characters (so, roughly, generated tokens) it would have saved. Detectors:

- ``exact``: the last 3 repetitions of a block of 1 to 8 statements (lines or ``;`` parts),
  at least 6 statements in all;
- ``template``: the same with comments dropped and every number read as one, at least 12
  statements (``click('a', '21')``, ``click('a', '22')``, ... are one statement repeated).

Nothing here calls a model: it prices a change before anyone builds it.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path
from typing import Any, Callable

from webwise.agent import Settings
from webwise.bench import read_results
from webwise.errors import ConfigError
from webwise.harvest import results_file

_BREAK = re.compile(r"[;\n]")
_NUMBER = re.compile(r"\d+")


def _exact(statement: str) -> str:
    return statement


def _template(statement: str) -> str:
    return _NUMBER.sub("0", statement.split("#")[0].strip())


#: name -> (how a statement is compared, fewest statements in the repeated run)
DETECTORS: dict[str, tuple[Callable[[str], str], int]] = {"exact": (_exact, 6), "template": (_template, 12)}
MAX_PERIOD = 8
MIN_REPEATS = 3


def _looping(statements: list[str], least: int) -> bool:
    """Whether the statements end in :data:`MIN_REPEATS` or more copies of one block of at most
    :data:`MAX_PERIOD` statements, ``least`` statements in all."""
    for period in range(1, min(MAX_PERIOD, len(statements)) + 1):
        block = statements[-period:]
        repeats = 1
        while (len(statements) >= (repeats + 1) * period
               and statements[-(repeats + 1) * period:-repeats * period] == block):
            repeats += 1
        if repeats >= MIN_REPEATS and repeats * period >= least:
            return True
    return False


def cut_at(reply: str, detector: str) -> int | None:
    """Where a detector reading ``reply`` as it streams would stop it: the end of the statement
    that completed the loop, or None."""
    compare, least = DETECTORS[detector]
    statements: list[str] = []
    start = 0
    for found in _BREAK.finditer(reply):
        statement = reply[start:found.start()].strip()
        start = found.end()
        if statement:
            statements.append(compare(statement))
            if _looping(statements, least):
                return found.end()
    return None


def model_calls(records: list[dict[str, Any]]) -> list[tuple[dict[str, Any], str | None]]:
    """Each model call of the records with its reply (None for the review calls, whose text the
    trace does not keep apart): the calls of a step are matched by trial and step index."""
    calls = []
    for record in records:
        replies = {(s.get("trial", 0), s.get("index")): s.get("reply") for s in record.get("trace") or []
                   if s.get("source") == "model"}
        for call in record.get("calls") or []:
            key = (call.get("trial", 0), call.get("step"))
            calls.append((call, replies.get(key) if call.get("kind") == "step" else None))
    return calls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, help="a bench output folder (or its results.jsonl)")
    args = parser.parse_args()
    try:
        path = results_file(args.results)
        calls = model_calls(read_results(path))
    except ConfigError as exc:
        parser.exit(2, f"{exc}\n")
    if not calls:
        parser.exit(2, f"{path}: no per-call timings (its records are older than them)\n")
    limit = Settings().max_tokens
    busy = sum(c["prompt_ms"] + c["generate_ms"] for c, _ in calls) / 1000
    at_limit = [(c, reply) for c, reply in calls if c.get("completion_tokens", 0) >= limit]
    generating = sum(c["generate_ms"] for c, _ in at_limit) / 1000
    print(f"{len(calls)} calls, model busy {busy:.0f} s (prompt reading + generation)")
    print(f"{len(at_limit)} calls reached the {limit}-token limit: {generating:.0f} s generating "
          f"({generating / busy:.1%} of model time)")
    texts = [(c, reply) for c, reply in at_limit if reply]
    for detector in DETECTORS:
        stopped = saved_s = 0.0
        for call, reply in texts:
            cut = cut_at(reply, detector)
            if cut is not None:
                stopped += 1
                saved_s += call["generate_ms"] / 1000 * (1 - cut / len(reply))
        print(f"{detector}: stops {stopped:.0f} of {len(texts)} such replies, saving about {saved_s:.0f} s "
              f"({saved_s / busy:.1%} of model time)")


if __name__ == "__main__":
    main()
