"""What the sandbox costs: start-up per program with a warm worker, and the round trip per
action, each against doing the same in-process with plain exec() and a direct call.

Usage: .venv/bin/python benchmarks/sandbox_overhead.py [--programs N] [--actions K]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from sandbox import ActionReply, Limits, Sandbox  # noqa: E402

PROGRAM = (
    "buttons = [el for el in observation if el['tag'] == 'button']\n"
    "target = next((el for el in buttons if el['text'].lower() == 'ok'), None)\n"
)
OBSERVATION = [{"ref": i, "tag": "button" if i % 3 else "div", "text": f"item {i}"} for i in range(60)]


def handler(name: str, args: list, kwargs: dict) -> ActionReply:
    return ActionReply(value=None, rebind={})


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def timed(function: Callable[[], object], repeat: int) -> list[float]:
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        samples.append(time.perf_counter() - start)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument("--actions", type=int, default=500)
    options = parser.parse_args()
    data = {"task": "Click OK.", "observation": OBSERVATION}
    loop = f"for i in range({options.actions}):\n    click('button', 'OK')\n"

    with Sandbox(Limits(max_actions=options.actions, wall_seconds=60)) as box:
        cold = timed(lambda: box.run("pass", data=data, functions=["click"], handler=handler), 1)
        per_program = timed(lambda: box.run(PROGRAM, data=data, functions=["click"], handler=handler),
                            options.programs)
        with_actions = timed(lambda: box.run(loop, data=data, functions=["click"], handler=handler), 5)
        without = timed(lambda: box.run(loop.replace("click('button', 'OK')", "pass"), data=data,
                                        functions=["click"], handler=handler), 5)

    def in_process() -> None:
        exec(compile(PROGRAM, "<program>", "exec"), {"click": handler, **data})

    plain_program = timed(in_process, options.programs)
    direct_call = timed(lambda: [handler("click", ["button", "OK"], {}) for _ in range(options.actions)], 20)

    program_ms, plain_ms = median_ms(per_program), median_ms(plain_program)
    action_ms = (median_ms(with_actions) - median_ms(without)) / options.actions
    call_ms = median_ms(direct_call) / options.actions
    print(f"worker start (first program, cold):      {median_ms(cold):8.1f} ms")
    print(f"per program, warm worker (median of {options.programs}): {program_ms:8.2f} ms"
          f"   p90 {statistics.quantiles(per_program, n=10)[-1] * 1000:.2f} ms   target < 50 ms")
    print(f"per program, in-process exec():          {plain_ms:8.3f} ms   ratio {program_ms / plain_ms:,.0f}x")
    print(f"per action round trip (sandbox):         {action_ms * 1000:8.1f} us")
    print(f"per action, in-process function call:    {call_ms * 1000:8.3f} us   ratio {action_ms / call_ms:,.0f}x")


if __name__ == "__main__":
    main()
