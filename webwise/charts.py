"""Inline SVG charts of the tables, for ``webwise report``: drawn here, so the file needs no library.

Two charts per column set: success by group with the paper's gpt-3.5 number beside each
group, and one row per task with three aligned panels (success rate, LLM calls and tokens
per episode). Every bar carries its value as visible text and a ``<title>`` tooltip, and
every chart a title for screen readers, so nothing is only a colour or a length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from webwise.tables import ColumnSet, Row
from webwise.untrusted import html_text

BAR = 14  # height of one bar, px
GAP = 6  # between groups of bars, px
LABEL = 150  # width of the row labels, px
SCALE = 260  # width of a full-scale bar, px
VALUE = 90  # room for the value text after a bar, px

#: One colour per series; chosen to stay distinct in greyscale too.
COLOURS = {"bench": "#2f6db3", "trial 1": "#8fb4e0", "paper gpt-3.5": "#c9772b"}
GROUP_COLOURS = {"1": "#2f6db3", "2": "#3a9a5b", "3-6": "#8a5ab8", "variable": "#c9772b", "other": "#777777"}


@dataclass(frozen=True)
class Bar:
    series: str
    fraction: float  # of the full-scale width, 0..1
    text: str
    colour: str


def group_chart(column: ColumnSet, rows: Sequence[Row], label: str) -> str:
    """Success per group (and over all): this bench, at trial 1 when T > 1, and the paper's rate."""
    def bars(row: Row) -> list[Bar]:
        out = [Bar("bench", row.rate, row.success_text, COLOURS["bench"])]
        if column.trials > 1:
            first = row.first_successes / row.episodes if row.episodes else 0.0
            out.append(Bar("trial 1", first, row.first_text, COLOURS["trial 1"]))
        if row.paper is not None:
            out.append(Bar("paper gpt-3.5", row.paper, f"{row.paper:.2f}", COLOURS["paper gpt-3.5"]))
        return out

    series = ["bench", *["trial 1"] * (column.trials > 1), *["paper gpt-3.5"] * any(r.paper is not None for r in rows)]
    title = f"Success by group, {label}"
    parts, y = [], 0
    for row in rows:
        row_bars = bars(row)
        height = len(row_bars) * BAR
        parts.append(_text(LABEL - 8, y + height / 2, f"group {row.name}" if row.name != "all" else "all",
                           anchor="end", weight="bold" if row.name == "all" else None))
        for i, bar in enumerate(row_bars):
            parts.append(_bar(LABEL, y + i * BAR, bar, f"group {row.name}, {bar.series}: {bar.text}"))
        y += height + GAP
    legend_y = y + 4
    parts += _legend(series, legend_y)
    return _svg(title, "chart groups", LABEL + SCALE + VALUE, legend_y + BAR + 4, parts)


def _coloured_as(row: Row) -> str:
    """A task's colour group: the paper's, or ``other`` for every task outside the 48 (whose
    rows name the group the paper's rule gives them: ``other, 3-6``)."""
    return row.group if row.group in GROUP_COLOURS else "other"


def task_chart(rows: Sequence[Row], label: str) -> str:
    """Per task, three aligned panels: success rate, LLM calls per episode, tokens per episode."""
    calls_max = max((r.llm_calls for r in rows), default=0.0) or 1.0
    tokens_max = max((r.prompt_tokens + r.completion_tokens for r in rows), default=0.0) or 1.0
    panels: list[tuple[str, Callable[[Row], tuple[float, str]]]] = [
        ("success", lambda r: (r.rate, r.success_text)),
        ("LLM calls / episode", lambda r: (r.llm_calls / calls_max, f"{r.llm_calls:.2f}")),
        ("tokens / episode", lambda r: ((r.prompt_tokens + r.completion_tokens) / tokens_max,
                                        f"{r.prompt_tokens + r.completion_tokens:.0f}")),
    ]
    width = SCALE + VALUE
    top = BAR + 6
    parts = [_text(LABEL + i * width, BAR - 2, name, weight="bold") for i, (name, _) in enumerate(panels)]
    for n, row in enumerate(rows):
        y = top + n * (BAR + 2)
        colour = GROUP_COLOURS[_coloured_as(row)]
        parts.append(f'<g class="task-row" data-task="{html_text(row.name)}">')
        parts.append(_text(LABEL - 8, y + BAR / 2, row.name, anchor="end"))
        for i, (name, measure) in enumerate(panels):
            fraction, text = measure(row)
            parts.append(_bar(LABEL + i * width, y, Bar(name, fraction, text, colour),
                              f"{row.name} (group {row.group}), {name}: {text}"))
        parts.append("</g>")
    height = top + len(rows) * (BAR + 2)
    legend = [g for g in GROUP_COLOURS if any(_coloured_as(r) == g for r in rows)]
    parts += _legend([f"group {g}" for g in legend], height + 4, [GROUP_COLOURS[g] for g in legend])
    return _svg(f"Per task: success, LLM calls and tokens per episode, {label}", "chart tasks",
                LABEL + len(panels) * width, height + BAR + 8, parts)


def _bar(x: float, y: float, bar: Bar, tooltip: str) -> str:
    length = max(0.0, min(1.0, bar.fraction)) * SCALE
    return (f'<g class="bar" data-series="{html_text(bar.series)}"><title>{html_text(tooltip)}</title>'
            f'<rect x="{x:.1f}" y="{y + 1:.1f}" width="{max(length, 1):.1f}" height="{BAR - 2}" fill="{bar.colour}"/>'
            + _text(x + length + 4, y + BAR / 2, bar.text) + "</g>")


def _legend(names: Sequence[str], y: float, colours: Sequence[str] | None = None) -> list[str]:
    parts, x = [], float(LABEL)
    for name, colour in zip(names, colours or [COLOURS[n] for n in names]):
        parts.append(f'<rect x="{x:.1f}" y="{y + 2:.1f}" width="10" height="10" fill="{colour}"/>')
        parts.append(_text(x + 14, y + 7, name))
        x += 24 + 7 * len(name)
    return parts


def _text(x: float, y: float, text: str, *, anchor: str | None = None, weight: str | None = None) -> str:
    extra = (f' text-anchor="{anchor}"' if anchor else "") + (f' font-weight="{weight}"' if weight else "")
    return f'<text x="{x:.1f}" y="{y:.1f}" dominant-baseline="middle"{extra}>{html_text(text)}</text>'


def _svg(title: str, css_class: str, width: float, height: float, parts: list[str]) -> str:
    return (f'<svg class="{css_class}" role="img" aria-label="{html_text(title)}" width="{width:.0f}" height="{height:.0f}" '
            f'viewBox="0 0 {width:.0f} {height:.0f}" font-size="11">'
            f"<title>{html_text(title)}</title>" + "".join(parts) + "</svg>")

