"""Auto-Context Generation: zero-shot episodes whose successful programs become examples.

An episode runs a task with no examples (or, with ``examples="auto-near"``, the store's
nearest example of another task while the task has none of its own), over up to ``trials``
attempts with the structured reflection between them (as ``solve --trials``). A solved
episode's candidate is the attempt that solved it: its programs in order (replayed steps
included, as the programs they were) with the page each program saw. The candidate is kept
only if its programs, replayed without the model, solve :func:`distinct_seeds` too, fresh
seeds of the task no harvest runs, each asking something new: a program that only worked on
one page is no example. When the
check refuses a candidate, the :data:`REWRITES` try to generalise it (the literals it copied
from the instruction read from ``task``, a loop over the task's items made to skip those the
page does not show, a search through closed tabs, sections or folders added before a click:
:mod:`webwise.generalise`), each checked in its place. At most
:data:`webwise.store.MAX_PER_TASK` per task, no duplicates.

Episodes run over the bench's :class:`~webwise.bench.Pool` (workers, shared model, progress,
interrupts, the Grid). ``STORE/harvest.jsonl`` is the journal: one line per finished episode
(identified like a bench episode), appended after its candidate went into the store. Running
the same harvest again runs only the episodes missing from it, so an interrupted or killed
harvest resumes; an episode killed between the store and the journal runs again and finds
its own example stored, which it counts as kept.

Two runs work without the model on candidates episodes already made: :class:`Recheck` checks
the journal's refused ones again with the rewrites added since, and :class:`Import` learns from
a bench run's zero-shot episodes as if a harvest had run them.
"""

from __future__ import annotations

import datetime as dt
import os
import re
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

from webwise import store
from webwise.agent import Agent, Settings, check_method, load_examples
from webwise.arguments import as_path, one_of, some, whole
from webwise.bench import EXIT_FAULTS, RESULTS, Job, Key, Pool, read_results, record_key
from webwise.environment import check_seed
from webwise.episode import Episode
from webwise.errors import ConfigError, Interrupted
from webwise.generalise import lift, search_panels, skip_unseen_items
from webwise.llm import SPECS, ChatModel, check_spec, make_llm
from webwise.llm.replay import ReplayModel
from webwise.provenance import code_of, code_version
from webwise.session import Session
from webwise.tasks import check_task
from webwise.untrusted import shown_line

#: The check's seeds start here. Harvest seeds must stay below it, so a check seed is never a
#: page the model saw; people evaluate on seeds 0..999 and the harness ceiling uses 5000 and up.
CHECK_SEED_OFFSET = 100_000
#: Harvest seeds start here by default: apart from the seeds benches evaluate on.
HARVEST_SEED_START = 10_000
#: Fresh seeds a candidate must solve, replayed without the model, to be kept.
CHECK_SEEDS = 3
#: The most check seeds a harvest takes: finding them resets the page on :data:`CHECK_POOL` times
#: as many seeds, each a round trip to the browser, so a mistyped count would hang building them.
MAX_CHECK_SEEDS = 100
#: The journal of finished episodes, in the store directory.
JOURNAL = "harvest.jsonl"
#: What a harvest episode's prompt may show: nothing (the paper's ACG), or the store's nearest
#: example of another task while the task has none of its own (what a solved relative taught).
HARVEST_EXAMPLES: tuple[str, ...] = ("none", "auto-near")


#: How many seeds, per seed it needs, the check looks through for instructions not yet asked.
CHECK_POOL = 4
#: A token of an instruction: a word, or one character of punctuation.
_TOKEN = re.compile(r"\w+|[^\w\s]")
#: What a word of an instruction's form becomes when it is one instruction's own (a value).
_VALUE = "\0"
_WORDLIKE = re.compile(r"\w")


def instruction_forms(instructions: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The form of each of ``instructions`` (of one task): its words and punctuation in order, each
    word that no other of them has (in any case) standing for a value. Words two instructions
    share are the template's, or a value from a short list: the form tells an email to delete
    from one to star, "upper" case from "lower", "left" from "up", while the names and texts
    that vary from seed to seed are all one value."""
    tokens = {instruction: [token.lower() for token in _TOKEN.findall(instruction)] for instruction in instructions}
    shared: dict[str, int] = {}
    for words in tokens.values():
        for word in set(words):
            shared[word] = shared.get(word, 0) + 1
    return {instruction: tuple(word if shared[word] > 1 or not _WORDLIKE.match(word) else _VALUE for word in words)
            for instruction, words in tokens.items()}


def instruction_shape(instruction: str) -> tuple[str, ...]:
    """The instruction's punctuation and number of words, in order, every word one value: "Select
    Tana" from "Select Rebeka>Pia", a list of two from a list of three, a link "Dui" from a link
    "Pharetra,.", one quoted text from two."""
    return tuple(_VALUE if _WORDLIKE.match(token) else token for token in _TOKEN.findall(instruction))


def distinct_seeds(asks: Callable[[int], str], own: str, count: int) -> list[int]:
    """The ``count`` seeds a candidate is checked on: from 100000 up, each asking something that
    neither the episode the candidate came from (``own``) nor an earlier check seed asked
    (``asks`` gives a seed's instruction). Three seeds that ask the same are one check, and
    one asking the episode's own question is none for a copied answer: click-checkboxes-transfer's
    first three all say "Select nothing".

    A task may ask in several forms, and three seeds of the candidate's own form pass a program
    that fails every other: the first three seeds of click-menu ask for a top-level item, which
    a program clicking the whole "Select Rebeka>Pia" fails; email-inbox-noscroll asks to delete,
    star, reply or forward. So the seeds come in three rounds, each taking, in order, a seed that
    asks in a way no seed taken (nor ``own``) did: first a new shape of instruction
    (:func:`instruction_shape`: a nested item, a longer list, a value with punctuation or of
    several words, a form with more words), then a new form (:func:`instruction_forms`: a
    different template word, "upper" for "lower"), then anything new. Looks through
    ``CHECK_POOL * count`` seeds; where they ask too few new things (click-test-2 always asks
    "Click button ONE."), the earliest others make up the count. The same candidate gets the same
    seeds in every run."""
    pool = [CHECK_SEED_OFFSET + number for number in range(CHECK_POOL * count)]
    asked_by = {seed: asks(seed) for seed in pool}
    forms = instruction_forms([own, *asked_by.values()])
    taken: list[str] = [own]  # the instructions of the seeds picked, and the episode's own
    picked: list[int] = []
    kinds: tuple[Callable[[str], object], ...] = (instruction_shape, forms.__getitem__, str)
    for kind in kinds:
        for seed in pool:
            if len(picked) < count and seed not in picked and kind(asked_by[seed]) not in map(kind, taken):
                picked.append(seed)
                taken.append(asked_by[seed])
    return sorted(picked + [seed for seed in pool if seed not in picked][:count - len(picked)])


@dataclass
class TaskHarvest:
    """What the episodes of one task produced.

    ``candidates`` are the solved episodes with programs; each was kept, a duplicate, refused
    by the check (``reasons`` says why, one line each), or found the task full. ``generalised``
    of the kept passed the check only once their literals were read from the task. ``faults``
    episodes ended on an infrastructure failure: running the harvest again reruns them.
    """

    task: str
    episodes: int = 0
    solved: int = 0
    candidates: int = 0
    kept: int = 0
    generalised: int = 0
    duplicates: int = 0
    refused: int = 0
    reasons: list[str] = field(default_factory=list)
    faults: int = 0
    stored: int = 0


@dataclass(frozen=True)
class HarvestConfig:
    tasks: Sequence[str]
    seeds: Sequence[int]
    llm: str = "local"
    store_dir: Path | str | None = None
    method: str = "webwise"
    examples: str = "none"
    trials: int = 1
    check_seeds: int = CHECK_SEEDS
    max_steps: int = 5
    max_tokens: int = Settings.max_tokens
    guards: bool = True
    workers: int = 1
    remote_url: str | None = None
    page_host: str = "127.0.0.1"
    progress: TextIO | None = None  # None: whatever sys.stderr is when the harvest runs

    def jobs(self) -> list[Job]:
        """Task by task, seed by seed; every problem is a :class:`ConfigError` before anything starts."""
        check_method(self.method, self.examples)
        if not isinstance(self.llm, str):  # each worker builds its own model from the spec
            raise ConfigError(f"a harvest's llm is a spec ({SPECS}), not a {type(self.llm).__name__}")
        whole("workers", self.workers, 1)
        one_of("examples mode", self.examples, HARVEST_EXAMPLES)
        for task in self.tasks:
            check_task(task)
        whole("check_seeds", self.check_seeds, 1, MAX_CHECK_SEEDS)
        if self.seeds and max(self.seeds) >= CHECK_SEED_OFFSET:
            raise ConfigError(f"harvest seeds must be below {CHECK_SEED_OFFSET}, where the check's fresh seeds start; "
                              f"got {max(self.seeds)}")
        return [Job(task, seed, self.method, self.examples) for task in self.tasks for seed in self.seeds]


def entry_from(episode: dict[str, Any]) -> dict[str, Any]:
    """The example a solved episode teaches, from its record (:meth:`Episode.to_dict`, or a
    bench's results line): the winning attempt's programs and where they came from.

    A step is left out when its program raised without moving the page: it did nothing the
    later programs build on. One that raised after moving the page on stays, as a replayed
    step does: the page the next program saw depends on it.
    """
    won = next(trial["trial"] for trial in episode["trials"] if trial["success"])
    # Records from before the flags were kept lack them on elements: unflagged, as the page showed.
    steps = [{"observation": [{"clicked": False, "modified": False, **element} for element in step["observation"]],
              "program": step["program"]} for step in episode["trace"]
             if step["trial"] == won and step["program"] is not None
             and (step["error"] is None or step.get("changed", False))]
    return {
        "instruction": episode["utterance"],
        "steps": steps,
        "provenance": {"llm": episode["llm"], "method": episode["method"], "examples": episode["examples"],
                       "shown": episode.get("examples_shown", []), "seed": episode["seed"], "trial": won,
                       "reward": episode.get("raw_reward", episode["reward"]), "seconds": episode["seconds"],
                       "harvested_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                       "code": code_of(episode)},
    }


@dataclass
class Check:
    """What replaying a candidate on the check's seeds showed.

    ``passed`` are the seeds solved, up to the first that was not or where a program raised;
    ``refusal`` says why that one failed (``"seed N: why"``: the first error a program hit
    there, else ``not solved`` with the page's reason) and ``instruction`` is what its page
    asked, which tells the literals that vary from seed to seed (see :mod:`webwise.generalise`).
    """

    passed: list[int]
    refusal: str | None = None
    instruction: str = ""
    #: The page the program that raised there saw (empty when none raised).
    page: list[dict[str, Any]] = field(default_factory=list)


def check(session: Session, task: str, entry: dict[str, Any], seeds: Sequence[int], settings: Settings) -> Check:
    """Replay the entry's programs, in order and without the model, on each seed until one fails.

    A seed passes when the replay solves it with no program raising: a call that fails on a fresh
    page is one the example would teach, and a task can reward the calls that happened to work
    anyway (click-tab-2-medium pays for opening the second tab whenever the link is not on the
    first, so a program clicking one seed's link literally, then the tab, passed three seeds).
    """
    replies = [f"```python\n{step['program']}\n```" for step in entry["steps"]]
    agent = Agent(ReplayModel({task: replies}, "replay:harvest-check"), session.env, session.sandbox,
                  replace(settings, trials=1, max_steps=len(replies), screenshot_dir=None))
    passed: list[int] = []
    for seed in seeds:
        episode = agent.run(task, seed, "webwise", "none")
        if not episode.success or any(step.error for step in episode.trace):
            raised = next((step.observation for step in episode.trace if step.error), [])
            return Check(passed, f"seed {seed}: {_why(episode)}", episode.utterance, raised)
        passed.append(seed)
    return Check(passed)


def generalised(entry: dict[str, Any], refused: Check) -> dict[str, Any] | None:
    """The entry with each program's literals that the refusing seed's instruction does not hold
    read from ``task``, or from the page beside a text read from it or from a field's label, instead
    (:func:`webwise.generalise.lift`); None when nothing changed."""
    return _rewritten(entry, lambda step: lift(step["program"], entry["instruction"], refused.instruction,
                                               step["observation"]))


def items_skipped(entry: dict[str, Any], refused: Check) -> dict[str, Any] | None:
    """The entry with each program's loops over values read from ``task`` acting only on items the
    page shows, when the refusing seed listed one it did not
    (:func:`webwise.generalise.skip_unseen_items`); None when nothing changed."""
    reason = refused.refusal or ""
    return _rewritten(entry, lambda step: skip_unseen_items(step["program"], reason))


def panels_searched(entry: dict[str, Any], refused: Check) -> dict[str, Any] | None:
    """The entry with each program's clicks on a computed text preceded by a search through the
    page's tabs, sections or folders, when the refusing seed hid that text in a closed one
    (:func:`webwise.generalise.search_panels`, given the page where the error named the control
    that opens it: a folder's name is that seed's own); None when nothing changed."""
    reason = refused.refusal or ""
    return _rewritten(entry, lambda step: search_panels(step["program"], reason, refused.page))


def _rewritten(entry: dict[str, Any], rewrite: Callable[[dict[str, Any]], str | None]) -> dict[str, Any] | None:
    """The entry with ``rewrite`` applied to each step's program (None: the step left as it is),
    marked ``generalised``; None when no program changed."""
    steps = [{**step, "program": rewrite(step) or step["program"]} for step in entry["steps"]]
    if steps == entry["steps"]:
        return None
    return {**entry, "steps": steps, "provenance": {**entry["provenance"], "generalised": True}}


#: The rewrites a refused candidate gets, in this order, each on what the one before made (see
#: :meth:`Harvest._furthest`), with what the progress line says of a candidate kept after it.
REWRITES: tuple[tuple[Callable[[dict[str, Any], Check], dict[str, Any] | None], str], ...] = (
    (generalised, "literals read from the task"),
    (items_skipped, "items the page does not show skipped"),
    (panels_searched, "closed panels searched"),
)


def _unsolved(episode: dict[str, Any], record: dict[str, Any]) -> str:
    """The verdict on an episode the model did not solve. ``record`` gets what a person needs
    to see why, without running it again: how each attempt ended and the last one's programs."""
    record["endings"] = [trial["ending"] for trial in episode["trials"]]
    last = episode["trials"][-1]["trial"] if episode["trials"] else None
    record["programs"] = [step["program"] for step in episode["trace"]
                          if step["trial"] == last and step["program"] is not None]
    return "not solved" + (f" ({', '.join(record['endings'])})" if record["endings"] else "")


def _why(episode: Episode) -> str:
    error = next((step.error for step in episode.trace if step.error), None) or episode.error
    if error:
        return error.splitlines()[0]
    return "not solved" + (f" ({episode.reason})" if episode.reason else "")


def _journal_record(job: Job, llm: str, trials: int, guards: bool, code: str) -> dict[str, Any]:
    """The journal record of ``job`` before its outcome, identified like a bench episode."""
    return {"task": job.task, "seed": job.seed, "method": job.method, "examples": job.examples, "llm": llm,
            "max_trials": trials, "guards": guards, "code": code, "success": False, "error": None,
            "infra_error": None, "trial": None, "check_seeds": [], "refusal": None}


class Harvest(Pool):
    """One harvest into a store: episodes over the workers, candidates checked and stored."""

    def __init__(self, config: HarvestConfig) -> None:
        self.store_dir = store.writable(config.store_dir, "harvest")
        settings = Settings(max_steps=config.max_steps, max_tokens=config.max_tokens, trials=config.trials,
                            guards=config.guards, store_dir=self.store_dir)
        super().__init__(config.llm, settings, workers=config.workers, remote_url=config.remote_url,
                         page_host=config.page_host, stream=config.progress or sys.stderr, label="harvest")
        self.config = config
        self.reports: list[TaskHarvest] = []

    def run(self) -> int:
        """0 when every planned episode is in the journal with a result; 1 (:data:`EXIT_FAULTS`) when
        some ended on an infrastructure failure; 130 after Ctrl-C or SIGTERM (everything kept so
        far is on disk). :attr:`reports` holds the summary of every planned episode finished."""
        config = self.config
        plan = config.jobs()
        check_spec(config.llm)  # before the store is made
        self.check_browsers()
        store.ready(self.store_dir, config.tasks)  # its lock and files, which storing a candidate takes
        for task in config.tasks:  # as a bench plans: what auto-near will read, read now
            load_examples(task, config.examples, self.store_dir)
        journal = self.store_dir / JOURNAL
        existing = journal_records(journal)
        first = make_llm(config.llm)
        try:
            keys = [job.key(first.name, config.trials, config.guards) for job in plan]
            done = {record_key(r) for r in existing if not r.get("infra_error")}
            pending = [job for job, key in zip(plan, keys) if key not in done]
            print(f"harvest: {len(plan)} episodes planned, {len(plan) - len(pending)} already in "
                  f"{shown_line(str(journal))}, {len(pending)} to run with {shown_line(config.llm)} "
                  f"{self.on_workers(len(pending))}",
                  file=self.stream)
            interrupted = bool(pending) and self.work(pending, journal, len(plan), first)
        finally:
            first.close()
        if self.error is not None:
            raise self.error
        self.reports = summarize(journal_records(journal), set(keys), config.tasks, self.store_dir)
        return self._finish(interrupted)

    def _finish(self, interrupted: bool) -> int:
        """The exit status once :attr:`reports` is summed up, with a line saying why when it is not 0."""
        faults = sum(r.faults for r in self.reports)
        if interrupted:
            print(f"{self.label}: interrupted; what was kept is in {shown_line(str(self.store_dir))}, "
                  "the same command runs the rest",
                  file=self.stream)
            return 130
        if self.halted or faults:
            print(f"{self.label}: {self.halted or f'{faults} episodes ended on an infrastructure failure'}; "
                  "the same command runs them again", file=self.stream)
            return EXIT_FAULTS
        return 0

    def perform(self, session: Session, job: Job) -> dict[str, Any]:
        """Run the episode unless the task is full, then check and store its candidate: the journal record."""
        started = time.monotonic()
        record = self._record(job, session.llm.name)
        if store.count(job.task, self.store_dir) >= store.MAX_PER_TASK:
            outcome, verdict = "skipped", f"not run: the task already has {store.MAX_PER_TASK} examples"
        else:
            episode = session.run(job.task, job.seed, job.method, job.examples).to_dict()
            outcome, verdict = self._learn(session, episode, record)
        record.update(outcome=outcome, verdict=verdict, seconds=round(time.monotonic() - started, 3))
        return record

    def _record(self, job: Job, llm: str) -> dict[str, Any]:
        """The journal record of ``job``, run with the model named ``llm``, before its outcome."""
        return _journal_record(job, llm, self.settings.trials, self.settings.guards, code_version())

    def fault_record(self, job: Job, exc: Exception, llm: ChatModel) -> dict[str, Any]:
        """The journal record of a job that failed outside the agent twice, in the episode or in
        its check: a journal line like any other, with outcome ``fault``; the next run takes it up
        again."""
        record = self._record(job, llm.name)
        record.update(error=str(exc), infra_error=str(exc), outcome="fault", verdict=f"failed outside the agent: {exc}")
        return record

    def _learn(self, session: Session, episode: dict[str, Any], record: dict[str, Any],
               **provenance: str) -> tuple[str, str]:
        """What the episode's record teaches, into the journal ``record``: (outcome, the progress
        line's verdict), its candidate checked and stored when it was solved, with ``provenance``
        added to the example's."""
        record.update(success=episode["success"], error=episode.get("error"), infra_error=episode.get("infra_error"))
        if not episode["success"]:
            return "not solved", _unsolved(episode, record)
        entry = entry_from(episode)
        entry["provenance"].update(provenance)
        return self._candidate(session, episode["task"], entry, record)

    def _candidate(self, session: Session, task: str, entry: dict[str, Any],
                   record: dict[str, Any]) -> tuple[str, str]:
        """What became of a solved episode's candidate ``entry``: (outcome, the progress line's
        verdict). A refused one goes into ``record`` as it was, before any rewrite, so that
        :class:`Recheck` can try later rewrites on it without the model."""
        candidate = entry
        record["trial"] = entry["provenance"]["trial"]
        if not entry["steps"]:
            return "no program", "solved without a program"
        stored = store.twin(task, entry, self.store_dir)
        if _from_this_episode(stored, entry):
            record["check_seeds"] = stored["provenance"].get("check_seeds", [])
            return "kept", "solved; kept (stored before an interruption)"
        if stored is not None:
            return "duplicate", "solved; duplicate"
        seeds = distinct_seeds(lambda seed: session.env.reset(task, seed), entry["instruction"],
                               self.config.check_seeds)
        settings = replace(self.settings, guards=record["guards"])  # the harness the programs were written for
        entry, result, notes = self._furthest(session, task, entry, seeds, settings)
        record["check_seeds"] = result.passed
        if result.refusal is not None:
            record["refusal"] = result.refusal
            record["programs"] = [step["program"] for step in entry["steps"]]  # for people to read; never replayed
            record["candidate"] = candidate
            return "refused", f"solved; refused by the check: {result.refusal}"
        record["generalised"] = entry["provenance"].get("generalised", False)
        entry["provenance"]["check_seeds"] = result.passed
        outcome = store.add(task, entry, self.store_dir)
        stored = store.twin(task, entry, self.store_dir) if outcome == "duplicate" else None
        if _from_this_episode(stored, entry):
            outcome = "kept"  # generalised and stored before an interruption, so the twin check above missed it
        return outcome, f"solved; {outcome}" + (f" ({'; '.join(notes)})" if notes else "")

    def _furthest(self, session: Session, task: str, entry: dict[str, Any], seeds: Sequence[int],
                  settings: Settings) -> tuple[dict[str, Any], Check, list[str]]:
        """The version of ``entry`` that went furthest in the check, its check, and the notes of the
        :data:`REWRITES` that made it. Each rewrite works on the one before it whether or not that
        one went further: reading a literal from the task may not pass another seed until the
        panel search is added too."""
        notes: list[str] = []
        best = current = (entry, check(session, task, entry, seeds, settings), notes)
        for rewrite, note in REWRITES:
            if best[1].refusal is None:
                break
            rewritten = rewrite(current[0], current[1])
            if rewritten is not None:
                current = (rewritten, check(session, task, rewritten, seeds, settings), [*current[2], note])
                if current[1].refusal is None or len(current[1].passed) > len(best[1].passed):
                    best = current
        return best


class _WithoutModel(Harvest):
    """A harvest of candidates that episodes already made: no worker calls a model, and each job
    carries the record it works on (``queued``)."""

    def __init__(self, config: HarvestConfig, label: str) -> None:
        super().__init__(config)
        self.label = label
        self.queued: dict[int, dict[str, Any]] = {}  # id of a job -> the record it works on

    def models(self, first: ChatModel, count: int) -> list[ChatModel]:
        """The check replays the candidates' own programs: no worker calls a model."""
        return [first] * count

    def _replay(self, records: list[dict[str, Any]], journal: Path) -> bool:
        """A job per record over the workers, its journal line appended; True when interrupted."""
        jobs = [Job(record["task"], record["seed"], record["method"], record["examples"]) for record in records]
        self.queued = {id(job): record for job, record in zip(jobs, records)}
        if jobs:
            self.check_browsers()
            store.ready(self.store_dir, {job.task for job in jobs})  # its lock and files, before any check runs
        interrupted = bool(jobs) and self.work(jobs, journal, len(jobs), ReplayModel({}, f"replay:{self.label}"))
        if self.error is not None:
            raise self.error
        return interrupted


class Recheck(_WithoutModel):
    """The journal's refused candidates of ``config.tasks`` checked again, without the model.

    A rewrite added after a harvest (:mod:`webwise.generalise`) can turn a candidate the check
    refused into one it keeps; the refused record holds the candidate as the episode made it,
    so trying that costs a replay in the browser, not the model's time. Each recheck appends
    the episode's record again with the new outcome and ``rechecked_with``, the code's version:
    the journal's last record of an episode is its outcome. Records from before candidates
    were recorded cannot be rechecked; the count is reported.
    """

    def __init__(self, config: HarvestConfig) -> None:
        super().__init__(config, "recheck")

    def run(self) -> int:
        """0 when every refused candidate was checked again; 1 when a check failed outside the
        agent; 130 after Ctrl-C or SIGTERM."""
        self.config.jobs()  # the same checks of the tasks and settings as a harvest's
        journal = self.store_dir / JOURNAL
        if not os.path.lexists(journal):  # a mistyped --store would report nothing to do, exit 0
            raise ConfigError(f"no harvest journal at {journal}: --recheck checks a harvested store's refusals")
        records = journal_records(journal)
        latest = {(record_key(r), r.get("imported_from")): r for r in records
                  if r["task"] in self.config.tasks}  # two bench files may hold one episode: both count
        refused = [r for r in latest.values() if r.get("outcome") == "refused"]
        todo = [r for r in refused if "candidate" in r]
        print(f"recheck: {len(todo)} refused candidates to check again in {shown_line(str(journal))}"
              + (f"; {len(refused) - len(todo)} refused before candidates were recorded" if len(todo) < len(refused)
                 else ""), file=self.stream)
        interrupted = self._replay(todo, journal)
        self.reports = summarize(journal_records(journal), {key for key, _ in latest}, self.config.tasks,
                                 self.store_dir)
        return self._finish(interrupted)

    def fault_record(self, job: Job, exc: Exception, llm: ChatModel) -> dict[str, Any]:
        """The refused record again, candidate and all, marked with the failure: the next recheck
        takes it up once more."""
        return {**self.queued[id(job)], "error": str(exc), "infra_error": str(exc), "verdict": f"not checked: {exc}"}

    def perform(self, session: Session, job: Job) -> dict[str, Any]:
        """The episode's record again, with what the check now makes of its candidate."""
        started = time.monotonic()
        before = self.queued[id(job)]
        record = {name: value for name, value in before.items()
                  if name not in ("candidate", "programs", "refusal", "generalised", "outcome", "verdict")}
        record.update(rechecked_with=code_version(), refusal=None, check_seeds=[], error=None, infra_error=None)
        outcome, verdict = self._candidate(session, job.task, before["candidate"], record)
        record.update(outcome=outcome, verdict=verdict, seconds=round(time.monotonic() - started, 3))
        return record


def results_file(path: Path | str) -> Path:
    """A bench's results file: ``path`` itself, or ``results.jsonl`` in the bench's output folder."""
    path = as_path("results", path)
    try:
        found = path / RESULTS if path.is_dir() else path
        if not found.is_file():
            raise ConfigError(f"no bench results at {found}")
    except OSError as exc:  # a name too long, a folder on the way the user may not look into
        raise ConfigError(f"no bench results at {path}: {exc.strerror or exc}") from None
    return found


#: What every bench episode record holds that an import reads beyond its identity, which
#: :func:`webwise.bench.read_results` checks (``trials`` and ``trace`` aside, which records
#: written before them lack: such episodes are left out; ``code`` too, which records written
#: before it lack: :func:`webwise.provenance.code_of`).
RECORD_KEYS = ("utterance", "success", "reward", "seconds")


def episode_records(path: Path) -> list[dict[str, Any]]:
    """The episode records of the bench results file ``path``; a :class:`ConfigError` naming
    the first record that is not one (a harvest's journal, say, given by mistake)."""
    records = read_results(path, check=_unlearnable)
    for number, record in enumerate(records, 1):
        missing = [key for key in RECORD_KEYS if key not in record]
        if missing:
            raise ConfigError(f"{path}: record {number} is not a bench episode's: it has no {missing[0]!r}")
    return records


#: What a candidate's provenance must say for a harvest to judge it: the attempt it came from,
#: and what :func:`_from_this_episode` compares with the store's twin.
CANDIDATE_PROVENANCE = ("llm", "method", "examples", "seed", "trial")
#: What each attempt and each step of an episode's record must hold for :func:`entry_from` and
#: :func:`_unsolved` to read it (every record a bench wrote has them).
TRIAL_KEYS = ("trial", "success", "ending")
STEP_KEYS = ("trial", "program", "error", "observation")


def journal_records(journal: Path) -> list[dict[str, Any]]:
    """The records of a harvest's journal, each checked for what a harvest reads of it."""
    return read_results(journal, check=_journal_problem)


def _journal_problem(record: dict[str, Any]) -> str | None:
    """What a harvest would trip over in a journal record (None: nothing): a journal is a file
    people edit by hand, and a record without its success, a refusal that is not a text or a
    list where the results file it came from is named ended a recheck with a traceback."""
    wrong = [("success" not in record and not record.get("infra_error"), "no 'success'"),
             (record.get("outcome") == "refused" and type(record.get("refusal")) is not str,
              "a refused candidate without its refusal as a text"),
             (type(record.get("imported_from", "")) is not str, "'imported_from' is not a path")]
    return _candidate_problem(record) or next((said for found, said in wrong if found), None)


def _candidate_problem(record: dict[str, Any]) -> str | None:
    """What is wrong with the ``candidate`` a journal record holds, as the store's reader checks an
    example and as a harvest reads its provenance; None when it is sound or there is none. A
    journal is a file people edit by hand, and a candidate that is not one must be a line naming
    where it is, not a crash in the middle of a recheck."""
    if "candidate" not in record:
        return None
    candidate = record["candidate"]
    try:
        store.check_entry("its candidate", candidate)
    except ConfigError as exc:
        return str(exc)
    missing = [name for name in CANDIDATE_PROVENANCE if name not in candidate.get("provenance", {})]
    return f"its candidate's provenance has no {missing[0]!r}" if missing else None


def _unlearnable(record: dict[str, Any]) -> str | None:
    """What in a bench record that :func:`webwise.bench.read_results` took as an episode's would
    stop an import learning from it (None: nothing): its attempts and steps as :func:`entry_from`
    and :func:`_unsolved` read them, and the example a solved one teaches, as the store's reader
    checks it. Refused up front, as the line it is on, rather than found halfway through an import
    (records without ``trials`` or ``trace`` are left out and counted instead: see :func:`learnable`)."""
    if "trials" not in record or "trace" not in record or any(key not in record for key in RECORD_KEYS):
        return None  # left out, or named by episode_records
    if record["trials"] is None or record["trace"] is None:
        return "its trials or trace is null"
    if not all(key in trial for trial in record["trials"] for key in TRIAL_KEYS):
        return f"a trial lacks one of {', '.join(TRIAL_KEYS)}"
    if not all(key in step for step in record["trace"] for key in STEP_KEYS):
        return f"a step lacks one of {', '.join(STEP_KEYS)}"
    if not record["success"]:
        return None
    if not any(trial["success"] for trial in record["trials"]):
        return "it is a success, but no trial succeeded"
    if any(step["observation"] is None for step in record["trace"]):
        return "a step's observation is null"
    entry = entry_from(record)
    return _candidate_problem({"candidate": entry}) if entry["steps"] else None


def learnable(records: list[dict[str, Any]], tasks: Sequence[str]) -> list[dict[str, Any]]:
    """The episodes of ``tasks`` that taught themselves, as a harvest's do: the last record of
    each, shown no example of its own task (``none``, or ``auto-near`` borrowing another task's;
    a hand-written or stored example of the task teaches what someone else wrote), ended on
    the agent, not on an infrastructure failure, and recorded with its attempts and programs
    (``trials``, ``trace``)."""
    latest = {record_key(record): record for record in records}
    return [record for record in latest.values() if record["task"] in tasks and _self_taught(record)
            and not record.get("infra_error") and "trials" in record and "trace" in record]


def _self_taught(record: dict[str, Any]) -> bool:
    """Whether the episode was shown no example of its own task (an ``auto-near`` record from before
    ``examples_shown`` was kept cannot say, and is taken as shown one)."""
    if record["examples"] == "none":
        return True
    shown = record.get("examples_shown")
    return (record["examples"] == "auto-near" and shown is not None
            and all(example.get("task") != record["task"] for example in shown))


class Import(_WithoutModel):
    """What a bench run's episodes teach, kept as a harvest keeps it, without the model.

    A zero-shot bench run (``--examples none``) solves the episodes a harvest would run to find
    candidates, and its records hold each attempt's programs with the pages they saw: checking
    and storing those costs replays in the browser, where a harvest would spend the model's
    hours on new episodes. The journal gets a line per episode under the bench episode's
    identity and the file's (``imported_from``, with ``imported_with``, the code that checked
    it), so importing the file again after the bench went on looks only at what is new, and
    another file holding the same episodes (a rerun on other code) is looked at in full. An
    example remembers the seed it was solved on, and an ``auto`` episode on that seed of its
    task is not shown it (:func:`webwise.agent.load_examples`).
    """

    def __init__(self, config: HarvestConfig, results: Path | str) -> None:
        """``config.tasks`` empty: every task the file holds, in the order they first appear."""
        self.source = results_file(results).resolve()
        self.records = episode_records(self.source)
        if not config.tasks:
            config = replace(config, tasks=list(dict.fromkeys(record["task"] for record in self.records)))
        super().__init__(config, "import")
        #: The file as the journal and the stored examples name it (``imported_from``): its path
        #: from the store's folder, so a store committed beside the run it learnt from resumes in
        #: any clone; journals written before named it by its absolute path, which still counts.
        self.source_name = os.path.relpath(self.source, self.store_dir.resolve())

    def run(self) -> int:
        """0 when every episode of the file was learnt from; 1 when a check failed outside the
        agent; 130 after Ctrl-C or SIGTERM."""
        self.config.jobs()
        records = self.records
        episodes = learnable(records, self.config.tasks)
        left_out = sum(record["task"] in self.config.tasks for record in records) - len(episodes)
        self.store_dir.mkdir(parents=True, exist_ok=True)
        journal = self.store_dir / JOURNAL
        done = {record_key(r) for r in self._mine(journal_records(journal)) if not r.get("infra_error")}
        todo = [episode for episode in episodes if record_key(episode) not in done]
        print(f"import: {len(episodes)} episodes of {shown_line(str(self.source))} to learn from, "
              f"{len(episodes) - len(todo)} already in {shown_line(str(journal))}, {len(todo)} to look at"
              + (f"; {left_out} left out (shown examples of their own task, infrastructure failures, run "
                 "again or recorded without their programs)" if left_out else ""), file=self.stream)
        interrupted = self._replay(todo, journal)
        self.reports = summarize(self._mine(journal_records(journal)), {record_key(e) for e in episodes},
                                 self.config.tasks, self.store_dir)
        return self._finish(interrupted)

    def _mine(self, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The journal records of this file's episodes."""
        return [record for record in records if record.get("imported_from") in (self.source_name, str(self.source))]

    def perform(self, session: Session, job: Job) -> dict[str, Any]:
        """The episode's journal record: its candidate checked and stored, as a harvest's would be."""
        started = time.monotonic()
        episode = self.queued[id(job)]
        record = self._record(job, session.llm.name)
        if store.count(job.task, self.store_dir) >= store.MAX_PER_TASK:
            outcome, verdict = "skipped", f"not looked at: the task already has {store.MAX_PER_TASK} examples"
        else:
            outcome, verdict = self._learn(session, episode, record, imported_from=record["imported_from"],
                                           imported_with=record["imported_with"])
        record.update(outcome=outcome, verdict=verdict, seconds=round(time.monotonic() - started, 3))
        return record

    def _record(self, job: Job, llm: str) -> dict[str, Any]:
        """The journal record of the episode ``job`` works on, before its outcome, under the
        episode's own identity, not the replay model's (``llm``) nor today's settings."""
        episode = self.queued[id(job)]
        record = _journal_record(job, episode["llm"], int(episode.get("max_trials", 1)),
                                 bool(episode.get("guards", True)), code_of(episode))
        record.update(imported_from=self.source_name, imported_with=code_version())
        return record


def _from_this_episode(stored: dict[str, Any] | None, entry: dict[str, Any]) -> bool:
    """Whether ``stored``, the store's twin of ``entry`` if any, came from this very episode (same
    model, method, examples and seed, and the same bench file when imported): stored by it before
    an interruption, not by another episode."""
    if stored is None:
        return False
    before, now = stored["provenance"], entry["provenance"]
    return (all(before.get(name) == now[name] for name in ("llm", "method", "seed"))
            and before.get("examples", "none") == now["examples"]
            and before.get("imported_from") == now.get("imported_from"))


def summarize(records: list[dict[str, Any]], keys: set[Key], tasks: Sequence[str],
              store_dir: Path) -> list[TaskHarvest]:
    """Per task, what the planned episodes in the journal produced (the last record of each)."""
    latest = {record_key(r): r for r in records if record_key(r) in keys}
    reports = {task: TaskHarvest(task) for task in tasks}
    for record in latest.values():
        report = reports[record["task"]]
        outcome = record.get("outcome")
        if record.get("infra_error"):
            report.faults += 1
            continue
        if outcome == "skipped":
            continue
        report.episodes += 1
        report.solved += bool(record["success"])
        if outcome in ("kept", "duplicate", "refused", "full"):
            report.candidates += 1
        report.kept += outcome == "kept"
        report.generalised += outcome == "kept" and bool(record.get("generalised"))
        report.duplicates += outcome == "duplicate"
        if outcome == "refused":
            report.refused += 1
            report.reasons.append(record["refusal"])
    for report in reports.values():
        report.stored = store.count(report.task, store_dir)
    return list(reports.values())


def task_list(tasks: object) -> list[str]:
    """The task names ``tasks`` holds, as a list of at least one (:func:`webwise.arguments.some`):
    a bare string would be read letter by letter (``harvest("click-button")`` as tasks 'c', 'l',
    ...), and an empty list would make the store and run nothing."""
    return list(some("tasks", tasks))


def harvest(tasks: list[str], *, seeds: int = 10, seed_start: int = HARVEST_SEED_START, trials: int = 1,
            check_seeds: int = CHECK_SEEDS, llm: str = "local", store_dir: Path | str | None = None,
            method: str = "webwise", examples: str = "none", max_steps: int = 5,
            max_tokens: int = Settings.max_tokens, guards: bool = True, workers: int = 1,
            remote_url: str | None = None, page_host: str = "127.0.0.1",
            progress: TextIO | None = None) -> list[TaskHarvest]:
    """Harvest ``seeds`` episodes per task from ``seed_start`` into ``store_dir``; the summary per task.

    Runs only the episodes not already in the store's journal (see the module docstring).
    Raises :class:`Interrupted` after Ctrl-C or SIGTERM, with what was kept on disk.
    """
    check_seed(seed_start)
    first_seeds = range(seed_start, seed_start + whole("seeds", seeds, 1))
    run = Harvest(HarvestConfig(tasks=task_list(tasks), seeds=first_seeds, llm=llm,
                                store_dir=store_dir, method=method, examples=examples, trials=trials,
                                check_seeds=check_seeds, max_steps=max_steps, max_tokens=max_tokens, guards=guards, workers=workers, remote_url=remote_url,
                                page_host=page_host, progress=progress))
    if run.run() == 130:
        raise Interrupted("harvest interrupted; running it again runs the rest")
    return run.reports


def recheck(tasks: list[str], *, check_seeds: int = CHECK_SEEDS, store_dir: Path | str | None = None,
            workers: int = 1, guards: bool = True, progress: TextIO | None = None) -> list[TaskHarvest]:
    """Check the refused candidates of ``tasks`` in ``store_dir``'s journal again, without the
    model (see :class:`Recheck`); the summary per task. Raises :class:`Interrupted` after Ctrl-C."""
    run = Recheck(HarvestConfig(tasks=task_list(tasks), seeds=(), store_dir=store_dir, check_seeds=check_seeds,
                                guards=guards, workers=workers, progress=progress))
    if run.run() == 130:
        raise Interrupted("recheck interrupted; running it again checks the rest")
    return run.reports


def import_results(results: Path | str, tasks: Sequence[str] | None = None, *, check_seeds: int = CHECK_SEEDS,
                   store_dir: Path | str | None = None, workers: int = 1, guards: bool = True,
                   progress: TextIO | None = None) -> list[TaskHarvest]:
    """Learn from a bench run's episodes (``results``: its results file or output folder) without the
    model: each solved one's candidate checked and stored as a harvest's (see :class:`Import`); the
    summary per task of ``tasks``, by default every task the file holds. Raises
    :class:`Interrupted` after Ctrl-C."""
    run = Import(HarvestConfig(tasks=[] if tasks is None else task_list(tasks), seeds=(), store_dir=store_dir,
                               check_seeds=check_seeds, guards=guards, workers=workers, progress=progress), results)
    if run.run() == 130:
        raise Interrupted("import interrupted; running it again looks at the rest")
    return run.reports
