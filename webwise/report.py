"""``webwise report DIR``: one self-contained HTML file of a bench directory.

The file must open anywhere, offline, years later, and quickly with hundreds of episodes:
inline CSS, inline SVG charts (:mod:`webwise.charts`), a small inline script, no fonts or
links outside the file. It shows the charts and tables, then the episodes, failures first,
with filters by task and by outcome. An episode's steps (prompt, reply, program, what it
did, error, feedback, the screenshot after the step) are drawn only when the reader opens
it: each episode is a JSON block the script parses on demand, prompt texts (the bulk, and
mostly repeated) are stored once in a shared table, and each distinct screenshot is one
base64 block turned into an image only when its episode is opened. So the page the browser
lays out at load is the summary, not every step of every episode; and the screenshots, most
of the file's bytes, come after the script, so the filters work before they are parsed.

Record text reaches the page only as JSON inside ``<script type="application/json">``
(with ``<``, ``>`` and ``&`` escaped, so ``</script>`` cannot end the block) and is put in
the page with ``textContent``, never parsed as HTML. A record with a truthy
``infra_error`` is an infrastructure fault, listed and filtered apart from the failures.

It also regenerates tables.md and tables.csv, so ``report`` is how to refresh the tables
of a directory without running anything.
"""

from __future__ import annotations

import base64
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from webwise import charts, tables
from webwise.bench import RESULTS, SCREENSHOTS, read_results, replace_text, write_tables
from webwise.episode import call_text
from webwise.errors import ConfigError
from webwise.tasks import PAPER48
from webwise.untrusted import html_text

#: Outcomes in the order the episode list shows them: what a reader looks for first, first.
OUTCOMES = ("failed", "infra", "solved")
OUTCOME_LABELS = {"failed": "failed", "infra": "infra fault", "solved": "solved"}
_PNG = b"\x89PNG\r\n\x1a\n"  # the signature every PNG file starts with
#: The largest screenshot put into a report: a bench's are 10-60 KB, and a sparse file of
#: 512 MiB planted in a handed-over folder made a report of 716 MB.
MAX_SCREENSHOT_BYTES = 8 << 20

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5em auto; max-width: 80em; color: #222; padding: 0 1em; }
table { border-collapse: collapse; margin: .5em 0 1.5em; }
th, td { border: 1px solid #ccc; padding: .2em .5em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
th { background: #f0f0f0; }
svg { display: block; margin: .5em 0 1.5em; max-width: 100%; height: auto; }
svg text { fill: #222; }
svg .task-row { cursor: pointer; }
svg .task-row:hover text { text-decoration: underline; }
.filters { position: sticky; top: 0; background: #fff; padding: .5em 0; border-bottom: 1px solid #ccc; z-index: 1; }
.filters label { margin-right: 1.5em; }
[hidden] { display: none !important; }
details.episode { border: 1px solid #ccc; border-left-width: 6px; border-radius: 4px; margin: .3em 0; padding: .2em .8em; }
details.episode.solved { border-left-color: #2a2; }
details.episode.failed { border-left-color: #c33; }
details.episode.infra { border-left-color: #999; background: #f6f6f6; }
details.episode > summary { cursor: pointer; }
details.episode, #episodes { scroll-margin-top: 3em; }
.outcome { font-weight: bold; display: inline-block; min-width: 6.5em; }
.failed .outcome { color: #b00; }
.solved .outcome { color: #171; }
.infra .outcome { color: #555; }
.step { border-top: 1px dashed #ccc; padding: .5em 0; display: grid; grid-template-columns: minmax(0, 1fr) auto; gap: 1em; }
.step h5, .trial { margin: .2em 0; }
.trial { border-top: 2px solid #888; padding-top: .4em; }
pre { background: #f7f7f7; padding: .5em; overflow-x: auto; white-space: pre-wrap; margin: .3em 0; }
pre.program { background: #eef6ee; }
.error { color: #b00; white-space: pre-wrap; }
.feedback { background: #f3f0e6; padding: .3em .5em; white-space: pre-wrap; }
.note { font-style: italic; }
.step > .note { max-width: 400px; overflow-wrap: anywhere; }
img.screenshot { width: 330px; height: 215px; object-fit: none; object-position: 0 0; border: 1px solid #ccc;
  cursor: zoom-in; }
img.screenshot.whole { width: 800px; max-width: 60vw; height: auto; object-fit: contain; cursor: zoom-out; }
"""

#: Draws an opened episode from its JSON block, and filters the list. Text goes in with
#: textContent only: nothing from a record is ever parsed as HTML.
_JS = r"""
"use strict";
(() => {
  const byId = id => document.getElementById(id);
  let strings = null;
  const shared = i => (strings ??= JSON.parse(byId("strings").textContent))[i];
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text != null) node.textContent = text;
    return node;
  }
  function fold(label, text) {
    const box = el("details");
    box.append(el("summary", null, label), el("pre", null, text));
    return box;
  }
  const promptText = messages => messages.map(([role, i]) => `[${role}]\n${shared(i)}`).join("\n\n");
  function step(s) {
    const box = el("div", "step"), words = el("div");
    const source = s.source && s.source !== "model" ? ` (${s.source})` : "";
    words.append(el("h5", null, `Step ${s.index + 1}${source}${s.status ? " · " + s.status : ""}`));
    if (s.note) words.append(el("p", "note", s.note));
    words.append(s.program != null ? el("pre", "program", s.program) : el("p", "note", "(no usable program)"));
    if (s.actions.length) words.append(el("p", "actions", "Actions: " + s.actions.join("; ")));
    if (s.error) words.append(el("p", "error", "Error: " + s.error));
    if (s.output) words.append(fold("Output", s.output));
    if (s.feedback) words.append(el("p", "feedback", "Feedback: " + s.feedback));
    words.append(fold(`Prompt (${s.prompt.length} messages)`, promptText(s.prompt)));
    if (s.reply != null) words.append(fold("Reply", s.reply));
    box.append(words);
    if (s.shot != null) {
      const img = el("img", "screenshot");
      img.alt = `screenshot after step ${s.index + 1}`;
      img.title = "the task's corner of the screenshot: click for all of it";
      img.addEventListener("click", () => img.classList.toggle("whole"));
      show(img, s.shot);
      box.append(img);
    } else if (s.missing) {
      box.append(el("p", "note", `screenshot ${s.missing} is missing`));
    }
    return box;
  }
  function show(img, n) {  // the screenshots follow the script: one opened early may still be on its way
    const block = byId("png-" + n);
    if (block) img.src = "data:image/png;base64," + block.textContent;
    else document.addEventListener("DOMContentLoaded", () => show(img, n), {once: true});
  }
  function trialEnd(t) {
    const box = el("div", "trial-end");
    box.append(el("p", null, `Trial ${t.trial + 1} ended: ${t.ending}, ${t.steps} step(s), ${t.llm_calls} LLM call(s).`));
    const r = t.reflection;
    if (r) {
      box.append(el("p", "feedback", `Reflection: restart from step ${r.step ?? "?"}: ${r.why ?? ""}`));
      if (r.reply != null) box.append(fold("Reflection reply", r.reply));
      if (r.prompt) box.append(fold(`Reflection prompt (${r.prompt.length} messages)`, promptText(r.prompt)));
    }
    return box;
  }
  function draw(box) {
    const ep = JSON.parse(byId("ep-" + box.dataset.n).textContent), body = el("div", "body");
    if (ep.utterance) body.append(el("p", null, "Task: " + ep.utterance));
    if (ep.infra_error) body.append(el("p", "error", "Infrastructure fault: " + ep.infra_error));
    if (ep.error) body.append(el("p", "error", "Episode error: " + ep.error));
    const trials = new Map(ep.trials.map(t => [t.trial, t]));
    let trial = null;
    const close = () => { if (trial !== null && trials.has(trial)) body.append(trialEnd(trials.get(trial))); };
    for (const s of ep.steps) {
      if (s.trial !== trial) {
        close();
        trial = s.trial;
        if (ep.max_trials > 1) body.append(el("h4", "trial", `Trial ${trial + 1}`));
      }
      body.append(step(s));
    }
    close();
    if (!ep.steps.length) body.append(el("p", "note", "(no steps)"));
    box.append(body);
  }
  document.addEventListener("toggle", event => {
    const box = event.target;
    if (box.classList && box.classList.contains("episode") && box.open && !box.dataset.drawn) {
      box.dataset.drawn = "1";
      draw(box);
    }
  }, true);

  const episodes = Array.from(document.querySelectorAll("details.episode"));
  const taskBox = byId("task-filter"), outcomeBox = byId("outcome-filter"), count = byId("shown");
  const names = new Set(episodes.map(e => e.dataset.task));
  function filter() {
    const wanted = taskBox.value.trim().toLowerCase(), outcome = outcomeBox.value;
    const exact = names.has(wanted);
    let shown = 0;
    for (const e of episodes) {
      const task = e.dataset.task.toLowerCase();
      const keep = (!wanted || (exact ? task === wanted : task.includes(wanted)))
        && (outcome === "all" || e.dataset.outcome === outcome);
      e.hidden = !keep;
      shown += keep;
    }
    count.textContent = `${shown} of ${episodes.length} episodes shown`;
  }
  taskBox.addEventListener("input", filter);
  outcomeBox.addEventListener("change", filter);
  document.addEventListener("click", event => {
    const row = event.target.closest && event.target.closest(".task-row");
    if (!row) return;
    taskBox.value = row.dataset.task;
    filter();
    byId("episodes").scrollIntoView();
  });
  filter();
  performance.mark("webwise-report-ready");  // what benchmarks/report_open.py reads as "filters work"
})();
"""


def write_report(out: Path) -> Path:
    """Write ``out/report.html`` (and refresh the tables); returns its path. ``out`` is a bench's
    output folder, or its ``results.jsonl``."""
    path = out / RESULTS
    records = read_results(path, check=tables.record_problem)  # first: a file that cannot be read is its one line
    if not path.is_file():
        if out.is_file() and out.name == RESULTS:  # its results file, as harvest --from-results takes it
            return write_report(out.parent)
        if out.is_file():  # not "OUT/results.jsonl not found", a path that cannot be
            raise ConfigError(f"{out} is a file, not a folder: give the folder of a `webwise bench --out`")
        raise ConfigError(f"{path} not found: run `webwise bench --out {out}` first")
    write_tables(out)
    target = out / "report.html"
    replace_text(target, render(records, out / SCREENSHOTS))
    return target


def outcome_of(record: dict[str, Any]) -> str:
    """``infra`` for an infrastructure fault (not the agent's doing), else solved or failed."""
    if record.get("infra_error"):
        return "infra"
    return "solved" if record.get("success") else "failed"


def render(records: list[dict[str, Any]], screenshots: Path) -> str:
    computed = tables.compute(records)
    counts = {o: sum(outcome_of(r) == o for r in records) for o in OUTCOMES}
    summary = ", ".join(f"{counts[o]} {OUTCOME_LABELS[o]}" for o in OUTCOMES if counts[o] or o != "infra")
    blobs = _Blobs(screenshots)
    ordered = sorted(records, key=_order)
    episodes = [_episode(n, record, computed.many_llms, blobs) for n, record in enumerate(ordered)]
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>webwise bench report</title>", f"<style>{_CSS}</style></head><body>",
             "<h1>webwise bench report</h1>",
             f'<p id="counts">{len(records)} episodes: {html_text(summary)}. '
             '<a href="#episodes">Episodes, failures first</a>.</p>',
             _charts(computed), _tables(computed), _episode_list(ordered, episodes),
             _json_block("strings", blobs.strings), f"<script>{_JS}</script>", *blobs.images, "</body></html>"]
    return "\n".join(parts)


def _order(record: dict[str, Any]) -> tuple[Any, ...]:
    """Failures, then infra faults, then solved; within each, by column set, paper task order and seed."""
    rank = {task: i for i, task in enumerate(PAPER48)}
    return (OUTCOMES.index(outcome_of(record)), record["llm"], record["method"], record["examples"],
            rank.get(record["task"], len(rank)), record["task"], record["seed"])


def _charts(computed: tables.Tables) -> str:
    parts = ["<h2>Charts</h2>",
             "<p>Success by group beside the WebWISE paper's gpt-3.5-turbo rate for the same method and k "
             "(Table 2), then per task: success, LLM calls and tokens per episode. Click a task to list its "
             "episodes.</p>"]
    for column, rows in computed.groups.items():
        label = column.label(computed.many_llms)
        parts.append(f"<h3>{html_text(label)}</h3>")
        parts.append(charts.group_chart(column, rows, label))
        parts.append(charts.task_chart(computed.tasks[column], label))
    return "\n".join(parts)


def _tables(computed: tables.Tables) -> str:
    parts = ["<h2>Tables</h2>", f"<p>{html_text(tables.INTRO)}</p>"]
    if computed.repeated:
        parts.append(f"<p>{html_text(tables.repeated_note(computed.repeated))}</p>")
    for column, rows in computed.groups.items():
        parts.append(f"<h3>{html_text(column.label(computed.many_llms))}</h3>")
        if column.examples == tables.SELF_TAUGHT:
            parts.append(f"<p>{html_text(tables.SELF_TAUGHT_NOTE)}</p>")
        parts.append(_table(tables.group_header(column.trials), map(tables.group_cells, rows)))
        if column in computed.suite:
            parts.append(f"<p>By group, whole suite. {html_text(tables.SUITE_NOTE)}</p>")
            parts.append(_table(tables.group_header(column.trials, paper=False),
                                map(tables.suite_cells, computed.suite[column])))
        if column in computed.agentlab:
            parts.append(f"<p>Beside AgentLab. {html_text(tables.AGENTLAB_NOTE)}</p>")
            parts.append(_table(list(tables.AGENTLAB_HEADER), tables.agentlab_rows(*computed.agentlab[column])))
        if column in computed.costs:
            parts.append("<p>Model calls (means per call the model ran):</p>")
            parts.append(_table(list(tables.Cost.HEADER), [computed.costs[column].cells()]))
        parts.append(_table(tables.task_header(column.trials), map(tables.task_cells, computed.tasks[column])))
    return "\n".join(parts)


def _table(header: list[str], rows: Iterable[list[str]]) -> str:
    head = "".join(f"<th>{html_text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _episode_list(records: list[dict[str, Any]], episodes: list[str]) -> str:
    tasks = sorted({r["task"] for r in records})
    options = "".join(f'<option value="{o}">{OUTCOME_LABELS[o]}</option>' for o in OUTCOMES)
    return "\n".join([
        '<h2 id="episodes">Episodes</h2>',
        '<div class="filters"><label>Task <input id="task-filter" type="search" list="task-names" '
        'placeholder="task name" autocomplete="off"></label>',
        '<datalist id="task-names">' + "".join(f'<option value="{html_text(t)}">' for t in tasks) + "</datalist>",
        f'<label>Outcome <select id="outcome-filter"><option value="all">all</option>{options}</select></label>',
        '<span id="shown" aria-live="polite"></span></div>',
        "<p>Open an episode to see its steps: program, actions, error, feedback, prompt, reply and the "
        "screenshot after each step.</p>",
        *episodes])


@dataclass
class _Blobs:
    """The data the script reads on demand: shared prompt texts, and each distinct screenshot once."""

    screenshots: Path
    strings: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    _string_ids: dict[str, int] = field(default_factory=dict)
    _image_ids: dict[str, int] = field(default_factory=dict)

    def string(self, text: str) -> int:
        if text not in self._string_ids:
            self._string_ids[text] = len(self.strings)
            self.strings.append(text)
        return self._string_ids[text]

    def prompt(self, messages: list[dict[str, Any]] | None) -> list[list[Any]]:
        return [[m.get("role", "?"), self.string(str(m.get("content", "")))] for m in messages or []]

    def screenshot(self, name: str) -> int | None:
        """The number of the screenshot's block, or None when its file is gone, cannot be read or
        is not one of the bench's PNGs: a report is the file people share, and a link planted among the
        screenshots of a folder someone handed over would put any file it reaches into it."""
        path = self.screenshots / Path(name).name
        try:
            if (self.screenshots.is_symlink() or path.is_symlink() or not path.is_file()
                    or path.stat().st_size > MAX_SCREENSHOT_BYTES):
                return None
            data = path.read_bytes()
        except OSError:
            return None
        if not data.startswith(_PNG):
            return None
        digest = hashlib.sha256(data).hexdigest()
        if digest not in self._image_ids:
            self._image_ids[digest] = len(self.images)
            encoded = base64.b64encode(data).decode("ascii")
            self.images.append(f'<script type="text/plain" id="png-{len(self.images)}">{encoded}</script>')
        return self._image_ids[digest]


def _episode(number: int, record: dict[str, Any], with_llm: bool, blobs: _Blobs) -> str:
    """The summary line a reader scans, and the episode's JSON block that the script draws when opened."""
    outcome = outcome_of(record)
    tokens = int(record.get("prompt_tokens") or 0) + int(record.get("completion_tokens") or 0)
    facts = [f"{record['task']}", f"seed {record['seed']}", f"{record['method']} / {record['examples']}",
             *[record["llm"]] * with_llm, f"{record.get('steps', 0)} step(s)", f"{record.get('llm_calls', 0)} LLM call(s)",
             f"{tokens} tokens", f"{float(record.get('seconds') or 0):.1f} s"]
    if record.get("max_trials", 1) > 1 and record.get("success") and not tables.first_trial_success(record):
        facts.append(f"solved after trial 1 of {record['max_trials']}")
    if record.get("error") and outcome != "infra":
        facts.append("episode error")
    data = {"utterance": record.get("utterance") or "", "error": record.get("error"),
            "infra_error": record.get("infra_error"), "max_trials": int(record.get("max_trials", 1)),
            "trials": [_trial(t, blobs) for t in record.get("trials") or []],
            "steps": [_step(s, blobs) for s in record.get("trace") or []]}
    return "\n".join([
        f'<details class="episode {outcome}" id="episode-{number}" data-n="{number}" data-task="{html_text(record["task"])}" '
        f'data-outcome="{outcome}"><summary><span class="outcome">{OUTCOME_LABELS[outcome].upper()}</span> '
        f"{html_text(' · '.join(facts))}</summary>",
        _json_block(f"ep-{number}", data), "</details>"])


def _trial(trial: dict[str, Any], blobs: _Blobs) -> dict[str, Any]:
    out = {k: trial.get(k) for k in ("trial", "success", "ending", "steps", "llm_calls")}
    reflection = trial.get("reflection")
    if reflection:
        out["reflection"] = {"step": reflection.get("step"), "why": reflection.get("why"),
                             "reply": reflection.get("reply"), "prompt": blobs.prompt(reflection.get("prompt"))}
    return out


def _step(step: dict[str, Any], blobs: _Blobs) -> dict[str, Any]:
    """What the page shows of a step; the observation is left out, the prompt already shows the page."""
    out: dict[str, Any] = {k: step.get(k) for k in ("index", "trial", "source", "status", "note", "program",
                                                    "reply", "error", "output", "feedback")}
    out["index"], out["trial"] = int(step.get("index") or 0), int(step.get("trial") or 0)
    out["actions"] = [_action(a) for a in step.get("actions") or []]
    out["prompt"] = blobs.prompt(step.get("prompt"))
    name = step.get("screenshot")
    if name:
        shot = blobs.screenshot(str(name))
        out["shot" if shot is not None else "missing"] = shot if shot is not None else str(name)
    return out


def _action(action: dict[str, Any]) -> str:
    text = call_text({"name": action.get("name"), "args": action.get("args") or []})
    return text + (f" → {action['error']}" if action.get("error") else "")


def _json_block(element_id: str, data: Any) -> str:
    """Data for the script, inert to the HTML parser: no ``<`` can close the block or open a comment."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{element_id}">{text}</script>'

