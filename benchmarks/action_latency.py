"""Per-action latency of webwise against raw Selenium, on the same page and target.

    .venv/bin/python benchmarks/action_latency.py [--reps 40] [--warmup 5] [--json out.json]

Three actions, each timed N times, webwise and raw interleaved rep by rep (so drift from
other load on the machine hits both alike), on one browser:

* observe: ``MiniWoBEnv.observe()`` (the DOM tree, outcome and utterance in one script,
  flattened into elements) against ``driver.execute_script('return core.getDOMInfo()')``,
  on the click-button and enter-text pages.
* click: ``Executor.click('button', TEXT)`` (read the page, match the five rules, click by
  ref, read the page and reward again) against
  ``driver.find_element(By.XPATH, "//button[normalize-space(.)=TEXT]").click()`` of the
  same button, on click-button (the click ends the episode: each rep starts from a reset).
* type: ``Executor.enter_text(WORD)`` (check the focus, type, read the page again) against
  ``element.send_keys(WORD)`` on the same focused input, on enter-text (reset per rep;
  focusing the input is not timed; the raw side finds the element before the timer).

Resets, focusing and the episode outcome are outside the timed region. Prints a table of
medians (and p90) in milliseconds and the ratio webwise/raw of the medians; the target
is within 1.2x of raw Selenium.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Callable

from selenium.webdriver.common.by import By

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from webwise import dom  # noqa: E402
from webwise.actions import Executor  # noqa: E402
from webwise.environment import MiniWoBEnv  # noqa: E402

TARGET = 1.2


def xpath_literal(text: str) -> str:
    """``text`` as an XPath string literal (XPath 1.0 has no escapes: concat around quotes)."""
    if "'" not in text:
        return f"'{text}'"
    if '"' not in text:
        return f'"{text}"'
    return "concat(" + ", \"'\", ".join(f"'{part}'" for part in text.split("'")) + ")"


def quoted(utterance: str) -> str:
    match = re.search(r'"(.+?)"', utterance)
    if match is None:
        raise SystemExit(f"no quoted text in {utterance!r}")
    return match.group(1)


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return (time.perf_counter() - started) * 1000


class Bench:
    def __init__(self, env: MiniWoBEnv) -> None:
        self.env = env
        self.samples: dict[str, dict[str, list[float]]] = {}

    def record(self, action: str, side: str, ms: float) -> None:
        self.samples.setdefault(action, {"webwise": [], "raw": []})[side].append(ms)

    def executor(self, task: str, seed: int) -> Executor:
        self.env.reset(task, seed)
        executor = Executor(self.env, dom.filtered_summary)
        executor.start()
        return executor

    # -- one rep of each action, webwise then raw (the order alternates by rep) --------------

    def observe(self, rep: int, task: str, keep: bool) -> None:
        self.env.reset(task, rep)
        driver = self.env.driver
        sides = [("webwise", self.env.observe), ("raw", lambda: driver.execute_script("return core.getDOMInfo()"))]
        for side, action in sides if rep % 2 == 0 else sides[::-1]:
            ms = timed(action)
            if keep:
                self.record(f"observe ({task})", side, ms)

    def click(self, rep: int, keep: bool) -> None:
        def webwise_side() -> float:
            executor = self.executor("click-button", rep)
            text = quoted(self.env.utterance)
            ms = timed(lambda: executor.click("button", text))
            assert executor.outcome.done, "the webwise click did not reach the button"
            return ms

        def raw_side() -> float:
            self.env.reset("click-button", rep)
            text, driver = quoted(self.env.utterance), self.env.driver
            xpath = f"//button[normalize-space(.)={xpath_literal(text)}]"
            ms = timed(lambda: driver.find_element(By.XPATH, xpath).click())
            assert self.env.outcome().done, "the raw click did not reach the button"
            return ms

        for side, measure in [("webwise", webwise_side), ("raw", raw_side)][:: 1 if rep % 2 == 0 else -1]:
            ms = measure()
            if keep:
                self.record("click (click-button)", side, ms)

    def type(self, rep: int, keep: bool) -> None:
        def webwise_side() -> float:
            executor = self.executor("enter-text", rep)
            word = quoted(self.env.utterance)
            executor.click("input", "tt")
            ms = timed(lambda: executor.enter_text(word))
            assert self.env.script("return document.getElementById('tt').value") == word
            return ms

        def raw_side() -> float:
            self.env.reset("enter-text", rep)
            word, driver = quoted(self.env.utterance), self.env.driver
            element = driver.find_element(By.ID, "tt")
            element.click()
            ms = timed(lambda: element.send_keys(word))
            assert self.env.script("return document.getElementById('tt').value") == word
            return ms

        for side, measure in [("webwise", webwise_side), ("raw", raw_side)][:: 1 if rep % 2 == 0 else -1]:
            ms = measure()
            if keep:
                self.record("type (enter-text)", side, ms)


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.9 * (len(ordered) - 1)))]


def table(samples: dict[str, dict[str, list[float]]]) -> tuple[str, list[dict[str, object]]]:
    rows = []
    for action, sides in samples.items():
        web, raw = statistics.median(sides["webwise"]), statistics.median(sides["raw"])
        rows.append({"action": action, "n": len(sides["webwise"]), "webwise_ms": round(web, 2),
                     "raw_ms": round(raw, 2), "webwise_p90_ms": round(p90(sides["webwise"]), 2),
                     "raw_p90_ms": round(p90(sides["raw"]), 2), "ratio": round(web / raw, 2)})
    header = f"{'action':<26} {'n':>4} {'webwise ms':>11} {'raw ms':>8} {'webwise p90':>12} {'raw p90':>8} {'ratio':>6}"
    lines = [header, "-" * len(header)]
    for row in rows:
        flag = "" if row["ratio"] <= TARGET else f"  > {TARGET}x"
        lines.append(f"{row['action']:<26} {row['n']:>4} {row['webwise_ms']:>11.2f} {row['raw_ms']:>8.2f} "
                     f"{row['webwise_p90_ms']:>12.2f} {row['raw_p90_ms']:>8.2f} {row['ratio']:>5.2f}x{flag}")
    return "\n".join(lines), rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=40, help="timed repetitions per action and side (default 40)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed repetitions first (default 5)")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows here")
    args = parser.parse_args(argv)

    with MiniWoBEnv() as env:
        bench = Bench(env)
        started = time.monotonic()
        for rep in range(args.warmup + args.reps):
            keep = rep >= args.warmup
            bench.observe(rep, "click-button", keep)
            bench.observe(rep, "enter-text", keep)
            bench.click(rep, keep)
            bench.type(rep, keep)
        seconds = time.monotonic() - started
    text, rows = table(bench.samples)
    print(text)
    print(f"\nmedians over {args.reps} reps after {args.warmup} warm-up reps, one headless Chromium, "
          f"{seconds:.1f} s; target: ratio <= {TARGET}x")
    if args.json:
        args.json.write_text(json.dumps({"reps": args.reps, "warmup": args.warmup, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
