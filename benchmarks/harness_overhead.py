"""Harness overhead per step: a replayed program through a Session vs the same click in raw Selenium.

Both sides use the same browser flags, page server and seeded click-button episodes, and
both count the whole step: reset the seeded episode, read the page, click the named
button, read the reward. The Session side adds what the harness does on top: the DOM
summary, the prompt, the (replayed, free) model call, extraction, the sandboxed program
with its proxied action and the re-observation. Rounds alternate between the two so that
load from other processes hits both alike; the ratio is of medians.

    .venv/bin/python benchmarks/harness_overhead.py [--episodes 40] [--out benchmarks/results/harness_overhead.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from webwise.agent import Settings
from webwise.browser import launch
from webwise.pages import PageServer
from webwise.session import Session
from webwise.tasks import html_root

TASK = "click-button"
PROGRAM = "```python\nimport re\nclick('button', re.search(r'\"(.*)\"', task).group(1))\n```"
RESET = ("Math.seedrandom(arguments[0]); core.setDataMode('train'); core.EPISODE_MAX_TIME = 3600000;"
         "core.startEpisodeReal(); return core.getUtterance();")
REWARD = "return [WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL];"


def raw_step(driver, seed: int, js_click: bool) -> tuple[float, bool]:
    """The step by hand: seeded reset, find the button named in the utterance, click, read the reward.

    webwise clicks with a DOM ``el.click()`` from a script, not a WebDriver click (which
    scrolls, hit-tests and synthesizes input events); ``js_click`` does the same here.
    """
    started = time.perf_counter()
    utterance = driver.execute_script(RESET, seed)
    name = utterance.split('"')[1]
    button = driver.find_element("xpath", f"//button[normalize-space(.)='{name}']")
    if js_click:
        driver.execute_script("arguments[0].click();", button)
    else:
        button.click()
    done, raw = driver.execute_script(REWARD)
    return time.perf_counter() - started, bool(done and raw >= 1)


def session_step(session: Session, seed: int) -> tuple[float, bool]:
    started = time.perf_counter()
    episode = session.run(TASK, seed, "webwise", "none")
    return time.perf_counter() - started, episode.success


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "harness_overhead.md")
    args = parser.parse_args()
    pages = PageServer(html_root())
    with tempfile.TemporaryDirectory() as scratch:
        replay = Path(scratch) / "replay.json"
        replay.write_text(json.dumps({TASK: [PROGRAM]}))
        session = Session(f"replay:{replay}", Settings(max_steps=1), pages=pages)
        browser = launch()
        try:
            browser.driver.get(f"{pages.base_url}/miniwob/{TASK}.html")
            time.sleep(0.5)
            for seed in range(3):  # warm up: page load, sandbox fork server, JIT
                raw_step(browser.driver, seed, js_click=False)
                session_step(session, seed)
            raw, raw_js, harness = [], [], []
            for seed in range(100, 100 + args.episodes):
                for samples, js_click in ((raw, False), (raw_js, True)):
                    seconds, ok = raw_step(browser.driver, seed, js_click)
                    assert ok, f"raw Selenium failed seed {seed}"
                    samples.append(seconds)
                seconds, ok = session_step(session, seed)
                assert ok, f"the session failed seed {seed}"
                harness.append(seconds)
        finally:
            browser.quit()
            session.close()
            pages.close()
    raw_ms, js_ms, harness_ms = (statistics.median(s) * 1000 for s in (raw, raw_js, harness))
    lines = [
        "# Harness overhead per step",
        "",
        f"`{' '.join([Path(sys.argv[0]).as_posix(), *sys.argv[1:]])}` on {time.strftime('%Y-%m-%d %H:%M')}, "
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end.",
        f"{args.episodes} seeded {TASK} steps each, rounds alternating.",
        "",
        "| path | median ms/step | mean ms/step | p90 ms/step |",
        "|---|---|---|---|",
        _row("raw Selenium, WebDriver click (reset, find, click, reward)", raw),
        _row("raw Selenium, script click as webwise does", raw_js),
        _row("webwise Session (replayed program)", harness),
        "",
        f"Ratio (medians) to the same script click: **{harness_ms / js_ms:.2f}x** (harness overhead "
        f"{harness_ms - js_ms:.0f} ms per step); to a WebDriver click: {harness_ms / raw_ms:.2f}x.",
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    return 0


def _row(label: str, seconds: list[float]) -> str:
    ordered = sorted(seconds)
    p90 = ordered[int(0.9 * (len(ordered) - 1))]
    return (f"| {label} | {statistics.median(seconds) * 1000:.1f} | {statistics.mean(seconds) * 1000:.1f} | "
            f"{p90 * 1000:.1f} |")


if __name__ == "__main__":
    sys.exit(main())
