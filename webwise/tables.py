"""The paper's tables from episode records: per task (Table 1) and per group (Table 2).

Pure functions over the episode dicts of ``results.jsonl``, so the bench, ``webwise report``
and tests share one computation. An episode with an ``infra_error`` (the endpoint or the
browser failed, not the agent) is no result: it is left out of every rate and mean and
counted in its own column, ``infra failures``, until ``bench --resume`` runs it again. A
results file holds each episode once (``bench --resume`` never runs one twice); a file put
together by hand may hold one again, and the tables count every record but say how many
repeat an episode. A *column set* is one (llm, method, examples, trials, guards) combination;
each gets a per-group and a per-task table. The paper's gpt-3.5-turbo averages from its
Table 2 sit next to the matching column set. Its per-task Table 1 is not reproduced: the
text extraction of that table has lost cells, so its numbers cannot be read reliably.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable

from webwise.provenance import described
from webwise.tasks import PAPER_GROUPS, catalog, group_of, suite_group
from webwise.untrusted import shown

GROUPS: tuple[str, ...] = (*PAPER_GROUPS, "other")
#: The whole suite's groups: the paper's rule (API calls a solution needs) applied to every
#: task, and last the tasks no reference program solves (``webwise tasks`` says why).
SUITE_GROUPS: tuple[str, ...] = (*PAPER_GROUPS, "no reference")

#: Table 2 of the paper (gpt-3.5-turbo): method -> k -> group -> success rate. ``auto`` is
#: Auto-Context Generation, reported for k=0 only.
PAPER_GPT35: dict[str, dict[int, dict[str, float]]] = {
    "instruction-only": {0: {"1": 0.45, "2": 0.03, "3-6": 0.00, "variable": 0.01},
                         1: {"1": 0.94, "2": 0.27, "3-6": 0.94, "variable": 0.20}},
    "whole-dom": {0: {"1": 0.82, "2": 0.71, "3-6": 0.77, "variable": 0.16},
                  1: {"1": 0.94, "2": 0.89, "3-6": 0.80, "variable": 0.23}},
    "filtered-dom": {0: {"1": 0.86, "2": 0.64, "3-6": 0.80, "variable": 0.21},
                     1: {"1": 0.97, "2": 0.91, "3-6": 0.97, "variable": 0.44}},
    "webwise": {0: {"1": 0.87, "2": 0.73, "3-6": 0.80, "variable": 0.27},
                1: {"1": 0.97, "2": 0.93, "3-6": 0.99, "variable": 0.75}},
    "auto": {0: {"1": 0.86, "2": 0.81, "3-6": 0.80, "variable": 0.30}},
}
#: Methods whose self-taught column sets stand beside the paper's ACG row: ``filtered-dom`` is
#: the method the paper's ACG ran (its section 4.4: single-step programs with the harvested
#: examples), ``webwise`` this project's own self-taught runs.
ACG_METHODS = ("filtered-dom", "webwise")


#: AgentLab's published MiniWoB++ success rates of its GenericAgent (BrowserGym): 125 tasks x 5
#: seeds, one attempt, success when the raw reward is above 0, so a partial reward counts.
AGENTLAB_MINIWOB: dict[str, float] = {
    "Claude-3.5-Sonnet": 0.698, "GPT-4o": 0.638, "Llama-3.1-70B": 0.576, "GPT-4o-mini": 0.566,
}
#: Tasks and episodes of that run.
AGENTLAB_EPISODES = (125, 625)
#: Tasks of the installed MiniWoB++ that AgentLab's list of 125 (``miniwob_tasks_all.csv``)
#: lacks, added to the suite after it: the comparison with its numbers leaves them out.
NOT_IN_AGENTLAB = frozenset({"button-delay", "chase-circle", "hover-shape", "moving-items", "simon-says"})


#: The example mode of the derived column set that shows what a harvest taught a whole run:
#: the ``auto`` episodes of the tasks they ran on, the ``none`` episodes of the other tasks.
SELF_TAUGHT = "auto+none"
SELF_TAUGHT_NOTE = ("`auto+none` is what `--examples auto` gives over the whole run: its episodes for the tasks it "
                    "ran on (the store has an example of them), the `none` episodes of the same model and settings "
                    "for the rest, whose prompts `auto` would not change. The paper's ACG row is of this kind.")


@dataclass(frozen=True)
class ColumnSet:
    llm: str
    method: str
    examples: str
    trials: int = 1
    #: Episodes run without the program-rewriting guards are a column of their own.
    guards: bool = True

    def label(self, with_llm: bool) -> str:
        trials = f", T={self.trials}" if self.trials > 1 else ""
        guards = "" if self.guards else ", no guards"
        return f"{self.method} / {self.examples}{trials}{guards}" + (f" ({self.llm})" if with_llm else "")


@dataclass(frozen=True)
class Row:
    """Aggregates of one task or group within one column set."""

    name: str
    group: str
    episodes: int
    successes: int
    first_successes: int
    steps: float
    llm_calls: float
    prompt_tokens: float
    completion_tokens: float
    context_overflows: int
    errors: int
    paper: float | None = None
    trials: int = 1
    #: Episodes that ended on an infrastructure failure: not in ``episodes``, nor in any mean.
    infra: int = 0
    #: Episodes with a raw reward above 0 (AgentLab's success), by the last trial and at trial 1.
    rewarded: int = 0
    first_rewarded: int = 0

    @property
    def rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0

    @property
    def success_text(self) -> str:
        return share_text(self.successes, self.episodes)

    @property
    def first_text(self) -> str:
        """Success at trial 1, beside the final success when an episode had several trials."""
        return share_text(self.first_successes, self.episodes)


def share_text(count: int, total: int) -> str:
    """``0.63 (90/144)``: the share to two decimals with its counts; ``- (0/0)`` with no episode,
    whose rate is unknown, not 0 (a task whose every episode was an infrastructure failure)."""
    return f"{rounded(count, total)} ({count}/{total})" if total else f"- ({count}/{total})"


def rounded(count: int, total: int) -> str:
    """``count / total`` to two decimals, a half rounded up, from the counts themselves: formatting
    the float would round 90/144 = 0.625 down (to even) and 1/40 = 0.025 up (its float is a little
    above), so two rates the same distance from their neighbours went different ways."""
    hundredths = (200 * count + total) // (2 * total)
    return f"{hundredths // 100}.{hundredths % 100:02d}"


@dataclass(frozen=True)
class Tables:
    """For each column set: rows per group (plus ``all``) and rows per task."""

    groups: dict[ColumnSet, list[Row]]
    tasks: dict[ColumnSet, list[Row]]
    #: Episodes per code version and commit (see :mod:`webwise.provenance`); two versions mean a mixed table.
    code: dict[str, int] = field(default_factory=dict)
    #: Where the model's time went, per column set (records that carry per-call timings only).
    costs: dict[ColumnSet, "Cost"] = field(default_factory=dict)
    #: For column sets with tasks outside the paper's 48: rows by :data:`SUITE_GROUPS` (plus ``all``).
    suite: dict[ColumnSet, list[Row]] = field(default_factory=dict)
    #: For the same column sets: the episodes of AgentLab's tasks, and how many tasks they cover.
    agentlab: dict[ColumnSet, tuple[Row, int]] = field(default_factory=dict)
    #: Records of an episode (column set, task, seed) that an earlier record of the file is of.
    repeated: int = 0

    @property
    def many_llms(self) -> bool:
        return len({c.llm for c in self.groups}) > 1


@dataclass(frozen=True)
class Cost:
    """Means per model call that a model ran (calls the response cache answered are left out).

    ``computed`` is prompt tokens the model had to process, the rest came from its prompt
    cache; ``past_block`` is the share of replies that went on after their code block.
    """

    calls: int
    seconds: float
    prompt_tokens: float
    computed: float | None
    prompt_s: float | None
    generated: float
    generate_s: float | None
    drafted: float | None
    accepted: float | None
    past_block: float

    HEADER = ("calls", "s/call", "prompt tokens/call", "computed (not cached)/call", "prompt s/call",
              "generated tokens/call", "generate s/call", "drafted/accepted tokens/call", "replies past the block")

    def cells(self) -> list[str]:
        def shown(value: float | None, digits: int = 1) -> str:
            return "-" if value is None else f"{value:.{digits}f}"

        drafted = "-" if self.drafted is None else f"{self.drafted:.1f}/{shown(self.accepted)}"
        return [str(self.calls), f"{self.seconds:.2f}", f"{self.prompt_tokens:.0f}", shown(self.computed, 0),
                shown(self.prompt_s, 2), f"{self.generated:.1f}", shown(self.generate_s, 2), drafted,
                f"{self.past_block:.0%}"]


def cost(records: Iterable[dict[str, Any]]) -> Cost | None:
    """Per-call means over the ``calls`` of ``records``; None when no record carries them."""
    calls = [c for r in records for c in r.get("calls") or () if not c.get("from_cache")]
    if not calls:
        return None

    def mean(key: str) -> float | None:
        values = [float(c[key]) for c in calls if c.get(key) is not None]
        return sum(values) / len(values) if len(values) == len(calls) else None

    def seconds(key: str) -> float | None:
        ms = mean(key)
        return None if ms is None else ms / 1000

    cached = mean("cached_tokens")
    prompt = mean("prompt_tokens") or 0.0
    return Cost(calls=len(calls), seconds=mean("seconds") or 0.0, prompt_tokens=prompt,
                computed=None if cached is None else prompt - cached, prompt_s=seconds("prompt_ms"),
                generated=mean("completion_tokens") or 0.0, generate_s=seconds("generate_ms"),
                drafted=mean("draft_tokens") or None, accepted=mean("draft_accepted"),
                past_block=sum(1 for c in calls if c.get("past_block")) / len(calls))


def paper_rate(method: str, examples: str, group: str) -> float | None:
    """The paper's gpt-3.5 success rate for this method, example mode and group, if it has one."""
    if examples in ("auto", SELF_TAUGHT):
        return PAPER_GPT35["auto"][0].get(group) if method in ACG_METHODS else None
    k = {"manual": 1, "none": 0}.get(examples)
    return None if k is None else PAPER_GPT35.get(method, {}).get(k, {}).get(group)


def first_trial_success(record: dict[str, Any]) -> bool:
    """Whether the episode was solved at its first trial: ``success_first_trial``, or, in a
    record without it, its first trial's outcome, or, with one trial, its outcome."""
    if "success_first_trial" in record:
        return bool(record["success_first_trial"])
    trials = record.get("trials") or []
    return bool(trials[0].get("success") if trials else record.get("success"))


def record_problem(record: dict[str, Any]) -> str | None:
    """What keeps a record out of the tables, or None: a solved episode of several trials that
    says nothing of its first one would count a later trial's success as trial 1's."""
    if (record.get("success") and int(record.get("max_trials", 1)) > 1
            and "success_first_trial" not in record and not record.get("trials")):
        return f"solved in {record['max_trials']} trials, but neither success_first_trial nor trials"
    return None


def _rewarded(record: dict[str, Any], first_only: bool) -> bool:
    """Whether an attempt of the episode (only the first with ``first_only``) ended with a raw
    reward above 0. Records from before trials carried their reward know only the last one,
    and for trial 1 of a multi-trial episode only whether it was solved."""
    trials = record.get("trials") or []
    if trials and all("raw_reward" in t for t in trials):
        return any(t.get("success") or t["raw_reward"] > 0 for t in (trials[:1] if first_only else trials))
    if first_only and int(record.get("max_trials", 1)) > 1:
        return first_trial_success(record)
    return bool(record.get("success")) or float(record.get("raw_reward") or 0) > 0


def _row(name: str, group: str, every: list[dict[str, Any]], paper: float | None = None, trials: int = 1) -> Row:
    records = [r for r in every if not r.get("infra_error")]
    n = len(records)

    def mean(key: str) -> float:
        return sum(float(r.get(key) or 0) for r in records) / n if n else 0.0

    return Row(name=name, group=group, episodes=n, successes=sum(bool(r.get("success")) for r in records),
               first_successes=sum(first_trial_success(r) for r in records),
               steps=mean("steps"), llm_calls=mean("llm_calls"), prompt_tokens=mean("prompt_tokens"),
               completion_tokens=mean("completion_tokens"),
               context_overflows=sum(int(r.get("context_overflows") or 0) for r in records),
               errors=sum(1 for r in records if r.get("error")), paper=paper, trials=trials,
               infra=len(every) - n, rewarded=sum(_rewarded(r, False) for r in records),
               first_rewarded=sum(_rewarded(r, True) for r in records))


def in_agentlab(task: str) -> bool:
    """Whether ``task`` is one of AgentLab's 125: a task of the suite (the catalog lists all 130)
    but none of the five added since. A name the suite lacks (a file from another MiniWoB++, a
    hand-made one) is none of theirs either."""
    return task in catalog() and task not in NOT_IN_AGENTLAB


def _suite_of(task: str) -> str:
    """A task's group among :data:`SUITE_GROUPS`."""
    group = suite_group(task)
    return group if group in PAPER_GROUPS else "no reference"


def task_group(task: str) -> str:
    """The group a task's row shows: the paper's for its 48; for the others ``other``, with the
    group the paper's rule gives it (``other, 3-6``) or ``other, no reference``."""
    paper = group_of(task)
    return paper if paper != "other" else f"other, {_suite_of(task)}"


def _group_rows(column: ColumnSet, chosen: list[dict[str, Any]], groups: Iterable[str], of: Callable[[str], str],
                paper: bool) -> list[Row]:
    """One row per group that has episodes, then ``all``; the paper's rate beside its own groups."""
    rows = []
    for group in groups:
        members = [r for r in chosen if of(r["task"]) == group]
        if members:
            rate = paper_rate(column.method, column.examples, group) if paper else None
            rows.append(_row(group, group, members, rate, column.trials))
    return [*rows, _row("all", "all", chosen, trials=column.trials)]


def _paper_order(task: str) -> tuple[int, int, str]:
    group = group_of(task)
    rank = GROUPS.index(group)
    within = PAPER_GROUPS[group].index(task) if group in PAPER_GROUPS else 0
    return rank, within, task


def _self_taught(by_set: dict[ColumnSet, list[dict[str, Any]]]) -> dict[ColumnSet, list[dict[str, Any]]]:
    """The :data:`SELF_TAUGHT` column sets: for each ``auto`` one with a ``none`` twin (same
    model, method, trials and guards) that ran tasks it did not, its episodes and the twin's
    of those tasks. A run harvests from its zero-shot episodes and runs ``auto`` again only
    on the tasks that got an example (the others' prompts would be the same), so this is
    the run's self-taught number over all its tasks."""
    derived = {}
    for column, taught in by_set.items():
        combined = replace(column, examples=SELF_TAUGHT)
        if column.examples != "auto" or combined in by_set:
            continue
        covered = {record["task"] for record in taught}
        rest = [record for record in by_set.get(replace(column, examples="none"), []) if record["task"] not in covered]
        if rest:
            derived[combined] = [*taught, *rest]
    return derived


def _column_of(record: dict[str, Any]) -> ColumnSet:
    """The record's column set; records from before ``guards`` was kept ran with the guards on."""
    return ColumnSet(record["llm"], record["method"], record["examples"], int(record.get("max_trials", 1)),
                     bool(record.get("guards", True)))


def _repeated(records: list[dict[str, Any]]) -> int:
    """How many records are of an episode an earlier record is of, an episode being its column
    set, task and seed (the bench's key). A bench never writes one twice; two files joined by
    hand do, and each such record weighs its seed double in every rate."""
    return len(records) - len({(_column_of(r), r["task"], int(r["seed"])) for r in records})


def _partial(column: ColumnSet, by_set: dict[ColumnSet, list[dict[str, Any]]]) -> bool:
    """Whether ``column`` is an ``auto`` run of only the tasks a harvest taught, whose
    :data:`SELF_TAUGHT` column set covers the rest: that one, not this, stands beside the
    paper's ACG row, which is over all of a group's tasks."""
    return column.examples == "auto" and replace(column, examples=SELF_TAUGHT) in by_set


def compute(records: Iterable[dict[str, Any]]) -> Tables:
    """Group episode records into column sets and aggregate per task and per group."""
    given = list(records)
    by_set: dict[ColumnSet, list[dict[str, Any]]] = {}
    for record in given:
        by_set.setdefault(_column_of(record), []).append(record)
    by_set.update(_self_taught(by_set))
    groups: dict[ColumnSet, list[Row]] = {}
    tasks: dict[ColumnSet, list[Row]] = {}
    costs: dict[ColumnSet, Cost] = {}
    suite: dict[ColumnSet, list[Row]] = {}
    agentlab: dict[ColumnSet, tuple[Row, int]] = {}
    for column in sorted(by_set, key=lambda c: (c.llm, c.method, c.examples, c.trials, not c.guards)):
        chosen = by_set[column]
        if (spent := cost(r for r in chosen if not r.get("infra_error"))) is not None:
            costs[column] = spent
        per_task: dict[str, list[dict[str, Any]]] = {}
        for record in chosen:
            per_task.setdefault(record["task"], []).append(record)
        tasks[column] = [_row(t, task_group(t), per_task[t], trials=column.trials)
                         for t in sorted(per_task, key=_paper_order)]
        rows = _group_rows(column, chosen, GROUPS, group_of, paper=not _partial(column, by_set))
        paper48 = [r for r in chosen if group_of(r["task"]) != "other"]
        if len(paper48) < len(chosen):  # tasks beyond the 48
            if paper48:  # the 48's own total, beside the rest
                at = next(i for i, row in enumerate(rows) if row.name == "other")
                rows.insert(at, _row("paper48", "paper48", paper48, trials=column.trials))
            suite[column] = _group_rows(column, chosen, SUITE_GROUPS, _suite_of, paper=False)
            theirs = [r for r in chosen if in_agentlab(r["task"])]
            if theirs:
                agentlab[column] = (_row("AgentLab's tasks", "all", theirs, trials=column.trials),
                                    len({r["task"] for r in theirs}))
        groups[column] = rows
    code = Counter(map(described, given))
    return Tables(groups, tasks, dict(sorted(code.items())), costs, suite, agentlab, _repeated(given))


_HEADER = ("success", "steps/ep", "LLM calls/ep", "tokens/ep (prompt+completion)", "context overflows", "errors",
           "infra failures")


def cells(row: Row) -> list[str]:
    """The displayed values of a row, in ``_HEADER`` order (success at trial 1 first when T > 1);
    a row without episodes has no means, shown as ``-``."""
    means = [f"{row.steps:.2f}", f"{row.llm_calls:.2f}",
             f"{row.prompt_tokens + row.completion_tokens:.0f} ({row.prompt_tokens:.0f}+{row.completion_tokens:.0f})"]
    return [row.first_text] * (row.trials > 1) + [row.success_text, *(means if row.episodes else ["-"] * 3),
                                                   str(row.context_overflows), str(row.errors), str(row.infra)]


def _success_header(trials: int) -> list[str]:
    return ["success at trial 1", f"success by trial {trials}", *_HEADER[1:]] if trials > 1 else list(_HEADER)


def group_header(trials: int = 1, paper: bool = True) -> list[str]:
    return ["group", *_success_header(trials), *["paper gpt-3.5"] * paper]


def group_cells(row: Row, paper: bool = True) -> list[str]:
    return [row.name, *cells(row), *["" if row.paper is None else f"{row.paper:.2f}"] * paper]


def suite_cells(row: Row) -> list[str]:
    """A row of the whole suite's groups, which have no paper rate to stand beside."""
    return group_cells(row, paper=False)


def task_header(trials: int = 1) -> list[str]:
    return ["task", "group", *_success_header(trials)]


def task_cells(row: Row) -> list[str]:
    return [row.name, row.group, *cells(row)]


INTRO = ("Success rate with counts, rounded half up (`-` when a row has no episode); means are per episode. "
         "`infra failures` are episodes that ended on a fault outside the agent (model endpoint, browser): they "
         "are in no rate or mean, and `--resume` runs them again. `paper gpt-3.5` is the WebWISE paper's Table 2 "
         "(gpt-3.5-turbo) for the same method, k=1 for `manual`, k=0 for `none`, and its ACG row (harvested "
         "examples, run with filtered-dom) for `filtered-dom` and `webwise` with `auto` or `auto+none`: only "
         "`auto+none` when the file has it, as `auto` then ran only the tasks that have an example.")


def markdown(tables: Tables) -> str:
    """Per column set: the group table (with the paper's numbers), then the task table."""
    out = ["# Results", "", INTRO, ""]
    if tables.code:
        out += ["Episodes by code version: " + _md_text(", ".join(f"{code} {n}" for code, n in tables.code.items())),
                ""]
    if tables.repeated:
        out += [repeated_note(tables.repeated), ""]
    for column, rows in tables.groups.items():
        out += [f"## {_md_text(column.label(tables.many_llms))}", ""]
        if column.examples == SELF_TAUGHT:
            out += [SELF_TAUGHT_NOTE, ""]
        out += ["### By group", "", _md_table(group_header(column.trials), map(group_cells, rows)), ""]
        if column in tables.suite:
            out += ["### By group, whole suite", "", SUITE_NOTE, "",
                    _md_table(group_header(column.trials, paper=False), map(suite_cells, tables.suite[column])), ""]
        if column in tables.agentlab:
            out += ["### Beside AgentLab", "",
                    _md_table(list(AGENTLAB_HEADER), agentlab_rows(*tables.agentlab[column])), "", AGENTLAB_NOTE, ""]
        if column in tables.costs:
            out += ["### Model calls", "", _md_table(list(Cost.HEADER), [tables.costs[column].cells()]), ""]
        out += ["### By task", "", _md_table(task_header(column.trials), map(task_cells, tables.tasks[column])), ""]
    return "\n".join(out)


def repeated_note(repeated: int) -> str:
    """The warning above tables that count an episode more than once."""
    return (f"Warning: {repeated} of these records repeat an episode (column set, task and seed) an earlier "
            "record is of, and every rate and mean counts them again: a bench writes each episode once, so the "
            "file was joined by hand. Keep one record per episode to count each seed once.")


SUITE_NOTE = ("Every task grouped by the paper's rule, the API calls its reference program needs over seeds "
              "(`webwise tasks`); the 48 keep the paper's groups. `no reference`: tasks no program of this API "
              "solves in full, each listed with the reason by `webwise tasks`.")


AGENTLAB_HEADER = ("", "tasks", "episodes", "success: full reward", "success: reward > 0")
AGENTLAB_NOTE = ("AgentLab's rows are its published MiniWoB++ numbers (125 tasks x 5 seeds, one attempt of one "
                 "action per step, success when the raw reward is above 0, so a partial reward counts). `reward > 0` "
                 "counts this run their way; `full reward` is this project's success. Trial 1 is the single attempt "
                 "they made; neither side has a time limit that binds. This run's rows count its episodes of "
                 f"AgentLab's tasks only: the suite has since added {', '.join(sorted(NOT_IN_AGENTLAB))}.")


def agentlab_rows(total: Row, tasks: int) -> list[list[str]]:
    """A run beyond the paper's tasks next to AgentLab's whole-suite numbers, counted both ways."""
    n = total.episodes
    ours = [["this run, trial 1", str(tasks), str(n), share_text(total.first_successes, n),
             share_text(total.first_rewarded, n)]]
    if total.trials > 1:
        ours.append([f"this run, by trial {total.trials}", str(tasks), str(n), share_text(total.successes, n),
                     share_text(total.rewarded, n)])
    theirs = [[f"AgentLab GenericAgent, {model}", *map(str, AGENTLAB_EPISODES), "", f"{value:.3f}"]
              for model, value in AGENTLAB_MINIWOB.items()]
    return ours + theirs


def _md_table(header: list[str], rows: Iterable[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(map(_md_text, row)) + " |" for row in rows]
    return "\n".join(lines)


def _md_text(text: str) -> str:
    """A text from a results file (a task or model name) as one Markdown cell or heading: a
    ``|`` or a line break in it would make cells, rows and headings of its own, and control
    characters would act on the terminal ``bench`` prints the tables to."""
    return shown(text).replace("|", "\\|").replace("\n", " ").replace("\r", " ")


def _csv_text(text: str) -> str:
    """A name as a CSV cell no spreadsheet runs: one that starts like a formula gets a ``'``."""
    return "'" + text if len(text) > 1 and text[0] in "=+-@\t\r" else text


CSV_FIELDS = ("level", "name", "group", "llm", "method", "examples", "trials", "episodes", "first_trial_successes",
              "successes", "success_rate",
              "mean_steps", "llm_calls_per_episode", "prompt_tokens_per_episode", "completion_tokens_per_episode",
              "context_overflows", "errors", "paper_gpt35", "infra_failures", "rewarded", "first_trial_rewarded",
              "guards")


def to_csv(tables: Tables) -> str:
    """Long format, one row per (column set, group or task): easy to load into anything. A row
    without episodes leaves its rate and means empty (unknown), not 0."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for level, table in (("group", tables.groups), ("suite_group", tables.suite), ("task", tables.tasks)):
        for column, rows in table.items():
            for row in rows:
                names = map(_csv_text, (row.name, row.group, column.llm, column.method, column.examples))
                means = [f"{row.rate:.4f}", f"{row.steps:.4f}", f"{row.llm_calls:.4f}", f"{row.prompt_tokens:.2f}",
                         f"{row.completion_tokens:.2f}"]
                writer.writerow([level, *names, column.trials, row.episodes, row.first_successes, row.successes,
                                 *(means if row.episodes else [""] * len(means)), row.context_overflows,
                                 row.errors, "" if row.paper is None else f"{row.paper:.2f}", row.infra,
                                 row.rewarded, row.first_rewarded, int(column.guards)])
    return buffer.getvalue()
