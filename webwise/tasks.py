"""Where MiniWoB++ task pages live, which tasks exist, their groups and the actions they need.

The paper grouped its 48 tasks by how many API calls a solution needs. The same rule
groups the rest of the suite: :data:`CATALOG_FILE` holds, per task, the group and the
actions of its hand-written reference program as replayed on ten seeds (written by
``benchmarks/ceiling.py``), or why the task has no reference.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from pathlib import Path
from typing import Any

from webwise.errors import ConfigError

#: The paper's 48 tasks, grouped by how many API calls they need (as in the paper's Table 2).
PAPER_GROUPS: dict[str, tuple[str, ...]] = {
    "1": ("click-button", "click-button-sequence", "click-dialog", "click-dialog-2", "click-link",
          "click-tab", "click-test", "click-test-2", "click-test-transfer", "click-widget",
          "grid-coordinate", "multi-layouts", "text-transform", "use-autocomplete"),
    "2": ("click-collapsible", "click-option", "click-pie", "click-tab-2-easy", "click-tab-2-medium",
          "enter-time", "read-table", "read-table-2", "simple-algebra", "simple-arithmetic"),
    "3-6": ("email-inbox-forward-nl", "email-inbox-forward-nl-turk", "enter-date", "enter-password",
            "enter-text", "enter-text-2", "enter-text-dynamic", "focus-text", "focus-text-2", "login-user"),
    "variable": ("click-checkboxes", "click-checkboxes-large", "click-checkboxes-soft",
                 "click-checkboxes-transfer", "click-collapsible-2", "click-tab-2", "click-tab-2-hard",
                 "email-inbox", "email-inbox-nl-turk", "find-word", "guess-number", "navigate-tree",
                 "search-engine", "terminal"),
}
PAPER48: tuple[str, ...] = tuple(task for group in PAPER_GROUPS.values() for task in group)


#: Per task: ``group`` and ``actions`` (from its reference program), or ``needs`` (why it has none).
CATALOG_FILE = Path(__file__).with_name("catalog.json")
#: Most actions a solution may take and still be grouped by its count, as the paper's ``3-6``.
MOST_COUNTED = 6


def group_of(task: str) -> str:
    """The paper's group of a task, or ``"other"`` for tasks outside the 48 (the tables' rows)."""
    return next((group for group, tasks in PAPER_GROUPS.items() if task in tasks), "other")


def group_by_calls(counts: list[int]) -> str:
    """The paper's rule: the API calls a solution needs, over seeds; ``variable`` when they vary."""
    if not counts or min(counts) != max(counts) or counts[0] > MOST_COUNTED:
        return "variable"
    return {1: "1", 2: "2"}.get(counts[0], "3-6")


@functools.cache
def catalog() -> dict[str, dict[str, Any]]:
    """The task catalog (empty when the file is missing: an old install)."""
    if not CATALOG_FILE.is_file():
        return {}
    return json.loads(CATALOG_FILE.read_text(encoding="utf-8"))


def suite_group(task: str) -> str:
    """A task's group by the paper's rule: the paper's own for its 48, the reference's for the rest."""
    paper = group_of(task)
    return paper if paper != "other" else catalog().get(task, {}).get("group", "-")


@functools.cache
def html_root() -> Path:
    """The ``miniwob/html`` folder of the installed ``miniwob`` package (found without importing it)."""
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the miniwob package is not installed; run the set-up command in the README")
    return Path(next(iter(spec.submodule_search_locations))) / "html"


@functools.cache
def all_tasks() -> tuple[str, ...]:
    """Every MiniWoB++ task page shipped by the package, sorted."""
    return tuple(sorted(p.stem for p in (html_root() / "miniwob").glob("*.html")))


def check_task(task: str) -> str:
    """Return ``task`` if a page exists for it, else a one-line :class:`ConfigError`."""
    if task not in all_tasks():
        raise ConfigError(f"unknown task {task!r}; `webwise tasks` lists the {len(all_tasks())} available")
    return task


def page_path(task: str) -> str:
    """The URL path of a task's page under the page server's root."""
    return f"/miniwob/{check_task(task)}.html"


def expressible() -> list[str]:
    """Tasks the program API can express: a reference program solves them (see the catalog)."""
    return [task for task in all_tasks() if "actions" in catalog().get(task, {})]


def parse_task_list(spec: str) -> list[str]:
    """``paper48``, ``all``, ``expressible`` or a comma-separated list of task names, each once in
    the order first given: a name given twice would run (and count) the same episodes twice."""
    if spec == "paper48":
        return list(PAPER48)
    if spec == "all":
        return list(all_tasks())
    if spec == "expressible":
        return expressible()
    names = [name.strip() for name in spec.split(",") if name.strip()]
    if not names:
        raise ConfigError("empty task list")
    return [check_task(name) for name in dict.fromkeys(names)]
