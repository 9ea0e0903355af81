"""Ask eight recorded 1.5B step prompts with llama.cpp server settings changed, one call at a time.

    .venv/bin/python benchmarks/results/speed-1.5b/server-knobs/knobs.py base
    .venv/bin/python benchmarks/results/speed-1.5b/server-knobs/knobs.py fa0 flash_attn_type=0

Each KEY=VALUE sets a field of xllamacpp's CommonParams (dotted for nested ones) on top of what
the shipped local backend sets; the rows go to NAME.json beside this file. Run from the
repository's root on a quiet machine. The first call (it computes the system part, which the
later calls take from the cache) is left out of the totals printed.
"""
import json
import sys
from pathlib import Path

import xllamacpp

sys.path.insert(0, "benchmarks")
from prompt_replay import ask, describe, recorded_prompts, totals  # noqa: E402

from webwise.llm import make_llm  # noqa: E402

name, *pairs = sys.argv[1:]
real_server = xllamacpp.Server


def patched(params: object) -> object:
    for pair in pairs:
        key, value = pair.split("=")
        *path, last = key.split(".")
        target = params
        for part in path:
            target = getattr(target, part)
        current = getattr(target, last)
        setattr(target, last, bool(int(value)) if isinstance(current, bool) else type(current)(int(value)))
    return real_server(params)


xllamacpp.Server = patched
prompts = recorded_prompts(Path("benchmarks/results/paper48-1.5b/ww-none-t3"), 8)
llm = make_llm("local:1.5b")
rows = []
for task, messages in prompts:
    row = ask(llm, messages)
    row["task"] = task
    rows.append(row)
    print(task, row["computed"], round(row["prompt_ms"]), row["generated"], round(row["generate_ms"]), flush=True)
print(describe(name, totals(rows[1:])))
(Path(__file__).parent / f"{name}.json").write_text(json.dumps(rows))
