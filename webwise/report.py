"""``webwise report DIR``: one self-contained HTML file of a bench directory.

The file must open anywhere, offline, years later: inline CSS, screenshots as base64 data
URIs, no scripts, fonts or links outside the file. It shows the tables, then every
episode step by step: the prompt (collapsed, it is long), the reply, the program, what it
did, the error and the screenshot taken after the step. It also regenerates tables.md and
tables.csv, so ``report`` is how to refresh the tables of a directory without running anything.
"""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any, Iterable

from webwise import tables
from webwise.bench import RESULTS, SCREENSHOTS, read_results, replace_text, write_tables
from webwise.errors import ConfigError
from webwise.tasks import PAPER48
from webwise.untrusted import shown

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 70em; color: #222; padding: 0 1em; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f0f0f0; }
section.episode { border: 1px solid #ccc; border-radius: 6px; margin: 1em 0; padding: .5em 1em; }
section.solved { border-left: 6px solid #2a2; }
section.failed { border-left: 6px solid #c33; }
.step { border-top: 1px dashed #ccc; padding: .5em 0; }
pre { background: #f7f7f7; padding: .5em; overflow-x: auto; white-space: pre-wrap; }
pre.program { background: #eef6ee; }
.error { color: #b00; }
img { max-width: 100%; border: 1px solid #ccc; }
"""


def write_report(out: Path) -> Path:
    """Write ``out/report.html`` (and refresh the tables); returns its path."""
    path = out / RESULTS
    if not path.is_file():
        raise ConfigError(f"{path} not found: run `webwise bench --out {out}` first")
    records = read_results(path)
    write_tables(out)
    target = out / "report.html"
    replace_text(target, render(records, out / SCREENSHOTS))
    return target


def render(records: list[dict[str, Any]], screenshots: Path) -> str:
    computed = tables.compute(records)
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             "<title>webwise bench report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>webwise bench report</h1>",
             f"<p>{len(records)} episodes, {sum(bool(r['success']) for r in records)} solved.</p>"]
    parts.append(_tables(computed))
    parts.append("<h2>Episodes</h2>")
    order = {task: i for i, task in enumerate(PAPER48)}
    for number, record in enumerate(sorted(records, key=lambda r: (
            r["llm"], r["method"], r["examples"], order.get(r["task"], len(order)), r["task"], r["seed"]))):
        parts.append(_episode(number, record, screenshots))
    parts.append("</body></html>")
    return "\n".join(parts)


def _tables(computed: tables.Tables) -> str:
    parts = ["<h2>Tables</h2>",
             "<p>Success rate with counts; means are per episode. <em>paper gpt-3.5</em> is the WebWISE paper's "
             "Table 2 (gpt-3.5-turbo) for the same method: k=1 for <code>manual</code>, k=0 for <code>none</code>, "
             "ACG for <code>webwise / auto</code>.</p>"]
    for column, rows in computed.groups.items():
        parts.append(f"<h3>{_e(column.label(computed.many_llms))}</h3>")
        parts.append(_table(tables.group_header(column.trials), map(tables.group_cells, rows)))
        parts.append(_table(tables.task_header(column.trials), map(tables.task_cells, computed.tasks[column])))
    return "\n".join(parts)


def _table(header: list[str], rows: Iterable[list[str]]) -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _episode(number: int, record: dict[str, Any], screenshots: Path) -> str:
    verdict = "solved" if record["success"] else "failed"
    title = (f"{record['task']} · seed {record['seed']} · {record['method']} / {record['examples']} · "
             f"{verdict.upper()} (reward {float(record.get('raw_reward') or 0):g})")
    facts = (f"{record['steps']} step(s), {record['llm_calls']} LLM call(s), "
             f"{record['prompt_tokens']}+{record['completion_tokens']} tokens, {record['seconds']:.1f} s, "
             f"llm {record['llm']}")
    parts = [f'<section class="episode {verdict}" id="episode-{number}">', f"<h3>{_e(title)}</h3>",
             f"<p>Task: <q>{_e(record.get('utterance') or '')}</q><br>{_e(facts)}</p>"]
    if record.get("error"):
        parts.append(f'<p class="error">Episode error: {_e(record["error"])}</p>')
    for step in record.get("trace") or []:
        parts.append(_step(step, screenshots))
    parts.append("</section>")
    return "\n".join(parts)


def _step(step: dict[str, Any], screenshots: Path) -> str:
    prompt = "\n\n".join(f"[{m.get('role', '?')}]\n{m.get('content', '')}" for m in step.get("prompt") or [])
    parts = ['<div class="step">', f"<h4>Step {step['index'] + 1}</h4>"]
    if step.get("note"):
        parts.append(f"<p><em>{_e(step['note'])}</em></p>")
    parts.append(f"<details><summary>Prompt ({len(step.get('prompt') or [])} messages)</summary>"
                 f"<pre>{_e(prompt)}</pre></details>")
    if step.get("reply") is not None:
        parts.append(f"<details><summary>Reply</summary><pre>{_e(step['reply'])}</pre></details>")
    program = step.get("program")
    parts.append(f'<pre class="program">{_e(program)}</pre>' if program is not None
                 else "<p><em>(no usable program)</em></p>")
    actions = [f"{a.get('name')}({', '.join(repr(x) for x in a.get('args') or [])})"
               + (f" → {a['error']}" if a.get("error") else "") for a in step.get("actions") or []]
    if actions:
        parts.append(f"<p>Actions: {_e('; '.join(actions))}</p>")
    if step.get("error"):
        parts.append(f'<p class="error">Error: {_e(step["error"])}</p>')
    parts.append(_screenshot(step.get("screenshot"), screenshots))
    parts.append("</div>")
    return "\n".join(parts)


def _screenshot(name: str | None, screenshots: Path) -> str:
    if not name:
        return ""
    path = screenshots / Path(name).name
    if not path.is_file():
        return f"<p><em>screenshot {_e(name)} is missing</em></p>"
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img alt="screenshot after the step" src="data:image/png;base64,{data}">'


def _e(text: object) -> str:
    """HTML of a text from the record: control characters and lone surrogates written out as escapes."""
    return html.escape(shown(str(text)), quote=True)
