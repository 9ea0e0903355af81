"""What the pages of recorded runs spend their characters on: bare wrapper lines and classes.

    .venv/bin/python benchmarks/page_parts.py benchmarks/results/paper48-1.5b/auto-near-30 \\
        benchmarks/results/outside-0.5b

Reading the page is most of a model call's prompt, so these shares bound what a leaner page
rendering could save before anyone runs it. For every observation a step recorded (the
summary as the model read it), the rendered page is measured three ways:

* *wrapper lines*: an element with no text, id, value, flag or colour of its own, not a field,
  button or picture, whose next line lies inside its box (a calendar's ``td`` holding the day's
  link, a ``th`` holding the weekday): its content is the next line's;
* *classes*: the ``.a.b`` part of the lines left after the wrappers.

Prints, per folder, the observations read, their characters, and the two shares. Runs
recorded before observations carried boxes are skipped, and counted.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from webwise.bench import RESULTS, read_results
from webwise.dom import FLAGS, Element, is_visual, render

#: Elements that are the content themselves, whatever they hold.
_SELF_SHOWN = ("textarea", "select", "button", "img", "svg", "canvas")


def _inside(outer: Element, inner: Element, slack: float = 1.0) -> bool:
    return (inner["left"] >= outer["left"] - slack and inner["top"] >= outer["top"] - slack
            and inner["left"] + inner["width"] <= outer["left"] + outer["width"] + slack
            and inner["top"] + inner["height"] <= outer["top"] + outer["height"] + slack)


def is_wrapper(page: list[Element], index: int) -> bool:
    """Whether line ``index`` only holds the line after it (see the module docstring)."""
    element = page[index]
    if (element["text"] or element["id"] or element["value"] not in ("", None) or is_visual(element)
            or any(element.get(flag) for flag in FLAGS)):
        return False
    if element["tag"].startswith("input") or element["tag"] in _SELF_SHOWN:
        return False
    return index + 1 < len(page) and _inside(element, page[index + 1])


def parts(page: list[Element]) -> tuple[int, int, int]:
    """Characters of the rendered page, of its wrapper lines, and of the other lines' classes."""
    whole = len(render(page))
    kept = [element for index, element in enumerate(page) if not is_wrapper(page, index)]
    lean = len(render(kept))
    return whole, whole - lean, lean - len(render([{**element, "classes": ""} for element in kept]))


def measure(folder: Path) -> dict[str, Any]:
    pages = skipped = whole = wrappers = classes = 0
    for record in read_results(folder / RESULTS):
        for step in record["trace"]:
            page = step.get("observation")
            if not page:
                continue
            if "left" not in page[0]:
                skipped += 1
                continue
            counts = parts(page)
            pages += 1
            whole, wrappers, classes = whole + counts[0], wrappers + counts[1], classes + counts[2]
    return {"pages": pages, "skipped": skipped, "chars": whole,
            "wrappers": wrappers / whole if whole else 0.0, "classes": classes / whole if whole else 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="bench output folders")
    for folder in parser.parse_args().folders:
        found = measure(folder)
        print(f"{folder}: {found['pages']} pages ({found['skipped']} without boxes skipped), {found['chars']} "
              f"characters; wrapper lines {found['wrappers']:.3f}, classes of the other lines {found['classes']:.3f}")


if __name__ == "__main__":
    main()
