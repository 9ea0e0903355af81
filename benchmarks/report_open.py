"""How big and how quick to open ``webwise report`` is on a 500-episode bench, before and after.

Builds a bench directory from committed real records (benchmarks/results/paper48-1.5b, four
runs of the 48 tasks, 3 seeds, T=3: 500 episodes) with a real Chromium screenshot of each
task's page behind every step (one distinct PNG file per step: the bytes differ by a text
chunk, so the report cannot share them: the worst case for its size). Then writes the
report with the report module of ``--before`` (a git revision) and with this checkout's, and
opens each in real headless Chromium: file size, write time, first contentful paint,
DOMContentLoaded and load (navigation timing), and for this checkout's report when its script
has run (the filters work) and the first interactions: a task filter applied and painted,
and the largest episode opened and painted.

Usage: .venv/bin/python benchmarks/report_open.py [--episodes 500] [--before 7ed896e] [--runs 3] [--no-screenshots]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from webwise import report as after_report  # noqa: E402
from webwise.bench import RESULTS, SCREENSHOTS  # noqa: E402
from webwise.browser import launch  # noqa: E402
from webwise.environment import MiniWoBEnv  # noqa: E402

RUNS = ("ww-none-t3", "ww-none-t3-once", "ww-none-t3-change", "ww-none-t3-settle")

ORDER = ["first contentful paint", "filters work", "DOMContentLoaded", "load", "driver.get returned",
         "filter applied, painted", "largest episode opened, painted"]

#: Resolves when the next frame after a change has been painted, with the time it took.
_PAINTED = """
const done = arguments[arguments.length - 1], start = arguments[0];
requestAnimationFrame(() => requestAnimationFrame(() => done(performance.now() - start)));
"""
_FILTER = """
const box = document.getElementById('task-filter'), start = performance.now();
box.value = arguments[0];
box.dispatchEvent(new Event('input'));
return start;
"""
_OPEN = """
const all = Array.from(document.querySelectorAll('details.episode'));
const biggest = all.reduce((a, b) => document.getElementById('ep-' + b.dataset.n).textContent.length >
                                     document.getElementById('ep-' + a.dataset.n).textContent.length ? b : a);
const start = performance.now();
biggest.open = true;
return start;
"""


def old_module(revision: str) -> ModuleType:
    """The report module as it was at ``revision``, loaded beside this checkout's."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:webwise/report.py"],
                            check=True, capture_output=True, text=True).stdout
    module = ModuleType("report_before")
    exec(compile(source, f"{revision}:webwise/report.py", "exec"), module.__dict__)
    return module


def with_text_chunk(png: bytes, text: str) -> bytes:
    """The same image with a tEXt chunk after IHDR: different bytes, same pixels and about the same size."""
    data = b"Comment\x00" + text.encode("ascii")
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data + struct.pack(">I", zlib.crc32(b"tEXt" + data))
    end_of_ihdr = 8 + 4 + 4 + 13 + 4
    return png[:end_of_ihdr] + chunk + png[end_of_ihdr:]


def build_bench(out: Path, episodes: int, screenshots: bool) -> tuple[int, int]:
    """Real records in ``out``, with a real screenshot file per step unless not wanted (then each step's
    screenshot is missing, as in a committed results directory); returns (screenshots, their bytes)."""
    records: list[dict[str, Any]] = []
    for run in RUNS:
        path = ROOT / "benchmarks/results/paper48-1.5b" / run / RESULTS
        records += [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    records = records[:episodes]
    count = size = 0
    if screenshots:
        pages = task_screenshots(sorted({r["task"] for r in records}))
        shots = out / SCREENSHOTS
        shots.mkdir(parents=True)
        for number, record in enumerate(records):
            for step in record["trace"]:
                name = f"e{number}-t{step['trial']}-step{step['index']}.png"
                data = with_text_chunk(pages[record["task"]], name)
                (shots / name).write_bytes(data)
                step["screenshot"] = name
                count, size = count + 1, size + len(data)
    out.mkdir(parents=True, exist_ok=True)
    (out / RESULTS).write_text("".join(json.dumps(r) + "\n" for r in records))
    return count, size


def task_screenshots(tasks: list[str]) -> dict[str, bytes]:
    """A real screenshot of each task's page (seed 0), as the bench takes them."""
    env = MiniWoBEnv()
    try:
        return {task: (env.reset(task, 0), env.screenshot_png())[1] for task in tasks}
    finally:
        env.close()


def write(module: ModuleType, out: Path, name: str) -> tuple[Path, float]:
    start = time.perf_counter()
    written = module.write_report(out)
    seconds = time.perf_counter() - start
    return written.rename(out / name), seconds


def _await_first_paint(driver: Any, seconds: float = 10) -> None:
    """Wait until the page's first-contentful-paint entry exists: Chromium adds it a moment after
    the load event that ``driver.get`` returns on, and the timings read it."""
    deadline = time.monotonic() + seconds
    while not driver.execute_script("return performance.getEntriesByName('first-contentful-paint').length"):
        if time.monotonic() > deadline:
            raise RuntimeError(f"no first contentful paint within {seconds:g} s")
        time.sleep(0.02)


def open_timings(driver: Any, page: Path, interactive: bool) -> dict[str, float]:
    """Milliseconds from navigation start to DOMContentLoaded and load, and of the first interactions."""
    driver.get("about:blank")
    start = time.perf_counter()
    driver.get(page.as_uri())  # returns after the load event
    returned = (time.perf_counter() - start) * 1000
    _await_first_paint(driver)
    timings = dict(driver.execute_script(
        "const n = performance.getEntriesByType('navigation')[0];"
        "const paint = performance.getEntriesByName('first-contentful-paint')[0];"
        "const ready = performance.getEntriesByName('webwise-report-ready')[0];"
        "return Object.assign({'first contentful paint': paint.startTime},"
        "  ready ? {'filters work': ready.startTime} : {},"
        "  {'DOMContentLoaded': n.domContentLoadedEventEnd, 'load': n.loadEventEnd});"))
    timings["driver.get returned"] = returned
    if interactive:
        driver.set_script_timeout(60)
        timings["filter applied, painted"] = driver.execute_async_script(
            _PAINTED, driver.execute_script(_FILTER, "click-checkboxes-large"))
        driver.execute_script(_FILTER, "")
        timings["largest episode opened, painted"] = driver.execute_async_script(
            _PAINTED, driver.execute_script(_OPEN))
    return timings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=500)
    parser.add_argument("--before", default="7ed896e", help="git revision of the old report (default: before charts)")
    parser.add_argument("--runs", type=int, default=3, help="opens per report; medians are printed")
    parser.add_argument("--keep", type=Path, help="build the bench here and keep it")
    parser.add_argument("--no-screenshots", action="store_true", help="records only, as in benchmarks/results")
    options = parser.parse_args()
    out = options.keep or Path(tempfile.mkdtemp(prefix="webwise-report-open-"))
    try:
        count, size = build_bench(out, options.episodes, not options.no_screenshots)
        print(f"bench: {options.episodes} episodes, {count} screenshots ({size / 1e6:.1f} MB of PNG)")
        before = old_module(options.before)
        reports = {f"before ({options.before})": (*write(before, out, "report-before.html"), False),
                   "after": (*write(after_report, out, "report-after.html"), True)}
        browser = launch()
        try:
            for label, (page, seconds, interactive) in reports.items():
                runs = [open_timings(browser.driver, page, interactive) for _ in range(options.runs)]
                print(f"{label}: {page.stat().st_size / 1e6:.1f} MB, written in {seconds:.2f} s")
                for key in sorted(runs[0], key=ORDER.index):
                    values = [run[key] for run in runs]
                    print(f"  {key}: median {statistics.median(values):.0f} ms "
                          f"(of {', '.join(f'{v:.0f}' for v in values)})")
        finally:
            browser.quit()
    finally:
        if not options.keep:
            shutil.rmtree(out, ignore_errors=True)


if __name__ == "__main__":
    main()
