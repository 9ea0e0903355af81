"""``webwise bench``: tasks x seeds x methods x example modes over K workers, resumable.

Workers are threads, each with its own :class:`Session` (one browser, one sandbox); they
share one page server. Threads rather than processes because a worker mostly waits (on
the browser, the sandbox child or the model), and because the embedded model must be
loaded once: with ``local`` every worker gets the same model object behind a lock, with
``replay``/``openai`` each worker builds its own client and calls run in parallel. This
machinery (:class:`Pool`: workers, shared model, progress, interrupts, the Grid) is also
what ``webwise harvest`` runs on.

``DIR/results.jsonl`` is the only state. Each finished episode is one ``os.write`` of one
line under the file's lock, then fsync, so a kill -9 loses at most the line being written, and
that torn tail is cut off (by ``--resume``, or by the next line another process appends) and
rerun; what a full disk took of a line is cut off at once. An episode is identified by (task,
seed, method, examples, llm, trials, guards); resume runs exactly the planned keys not yet in the file.

An episode that ended on an infrastructure failure (``infra_error``: the endpoint or the
browser failed, not the agent) is kept in the file until ``--resume`` plans it again; then
its line is taken out (one atomic rewrite under the directory's lock) and the episode
rerun, so each episode has one line. Such failures several in a row stop the bench: an
endpoint that is down would otherwise burn every planned episode. A bench that is
interrupted abandons its in-flight model calls (see :class:`SharedModel`), so it ends in
seconds however long the endpoint or the local generation would take.
"""

from __future__ import annotations

import contextlib
import fcntl
import itertools
import json
import math
import os
import queue
import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any, Callable, Iterator, Sequence, TextIO

from selenium.common.exceptions import WebDriverException

from webwise import browser, grid, tables
from webwise.agent import EXAMPLE_MODES, Settings, check_method, load_examples
from webwise.arguments import flag, grid_url, some, whole, writable_folder
from webwise.arguments import page_host as check_page_host  # a parameter of Pool is named page_host
from webwise.atomic import open_own, open_to_read, replace_file
from webwise.environment import BrowserDied, check_seed
from webwise.episode import Episode
from webwise.errors import ConfigError, Interrupted, WebwiseError
from webwise.llm import ChatModel, ChatReply, ChatRequest, check_spec, make_llm
from webwise.llm.base import one_line
from webwise.pages import PageServer
from webwise.prompts import METHODS
from webwise.provenance import code_of, code_version
from webwise.tasks import check_task, html_root
from webwise.untrusted import json_text, shown_line

RESULTS = "results.jsonl"
SCREENSHOTS = "screenshots"
Key = tuple[str, int, str, str, str, int, bool]
#: The most episodes one bench plans: its job list is built in memory (about 200 bytes a job).
MAX_EPISODES = 1_000_000
#: Episodes in a row ending on an infrastructure failure that stop the bench.
FAULTS_IN_A_ROW = 3
#: Bench exit status when episodes ended on an infrastructure failure (``--resume`` reruns them).
EXIT_FAULTS = 1


@dataclass(frozen=True)
class Job:
    task: str
    seed: int
    method: str
    examples: str

    def key(self, llm: str, trials: int, guards: bool) -> Key:
        return (self.task, self.seed, self.method, self.examples, llm, trials, guards)


@dataclass(frozen=True)
class BenchConfig:
    tasks: Sequence[str]
    seeds: Sequence[int]
    methods: Sequence[str]
    examples: Sequence[str]
    llm: str
    out: Path
    workers: int = 1
    resume: bool = False
    max_steps: int = 5
    max_tokens: int = Settings.max_tokens
    trials: int = 1
    guards: bool = True
    remote_url: str | None = None
    page_host: str = "127.0.0.1"
    #: Harvested-example store the ``auto`` modes read (None: the checkout's incontext/auto).
    store_dir: Path | None = None
    progress: TextIO | None = None  # None: whatever sys.stderr is when the bench runs

    def __post_init__(self) -> None:
        """The arguments as ``webwise bench`` checks its options (:mod:`webwise.arguments`), so a
        library caller's bad value is the same one-line :class:`ConfigError`, not a traceback
        (``out`` given as a string) or a quiet run of nothing (``workers=0``, no seeds). The
        lists' items are checked by :meth:`jobs`, once the plan's size is known to be bounded."""
        for name in ("tasks", "seeds", "methods", "examples"):
            object.__setattr__(self, name, some(name, getattr(self, name)))
        object.__setattr__(self, "out", writable_folder("out", self.out))
        whole("workers", self.workers, 1)
        flag("resume", self.resume)

    @property
    def stream(self) -> TextIO:
        return self.progress or sys.stderr

    def jobs(self) -> list[Job]:
        """Same task and method next to each other, so a worker's browser rarely reloads a page.
        Every problem of the plan, the ``--llm`` spec's too, is a :class:`ConfigError` before the
        bench creates anything in OUT."""
        for method, examples in itertools.product(self.methods, self.examples):
            check_method(method, examples)
        planned = len(self.tasks) * len(self.methods) * len(self.examples) * len(self.seeds)
        if planned > MAX_EPISODES:
            raise ConfigError(f"{planned} episodes planned; a bench runs at most {MAX_EPISODES}: "
                              "pass fewer --seeds or tasks")
        for task in self.tasks:
            check_task(task)
        for seed in self.seeds:
            check_seed(seed)
        for task, examples in itertools.product(self.tasks, self.examples):
            load_examples(task, examples, self.store_dir)  # a task without its examples fails the plan, not the run
        check_spec(self.llm)  # as solve: the examples first, then the model
        combinations = itertools.product(self.tasks, self.methods, self.examples, self.seeds)
        return [Job(t, s, m, e) for t, m, e, s in combinations]


def record_key(record: dict[str, Any]) -> Key:
    """The episode's identity; records from before ``guards`` was kept ran with the guards on."""
    return (record["task"], int(record["seed"]), record["method"], record["examples"], record["llm"],
            int(record.get("max_trials", 1)), bool(record.get("guards", True)))


#: Fields the tables and the report read beyond a record's key, when a record has them: numbers
#: (or null), and lists of objects (or null). Files are handed around, and a record whose field
#: has another type would stop the tables halfway with a traceback.
_NUMBERS = ("steps", "llm_calls", "prompt_tokens", "completion_tokens", "context_overflows", "seconds",
            "reward", "raw_reward")
#: Those of them that count or time something, so are never below 0 (a reward may be).
_COUNTS = _NUMBERS[:6]
_OBJECT_LISTS = ("trials", "trace", "calls", "examples_shown")
_CALL_NUMBERS = ("seconds", "prompt_tokens", "completion_tokens", "cached_tokens", "prompt_ms", "generate_ms",
                 "draft_tokens", "draft_accepted", "past_block")


def _number(value: Any) -> bool:
    return value is None or (type(value) in (int, float) and math.isfinite(value))


def _deeper_than(value: Any, levels: int) -> bool:
    """Whether ``value`` (decoded JSON) has more than ``levels`` levels, a level at a time."""
    level = [value]
    for _ in range(levels):
        level = [item for node in level
                 for item in (node.values() if type(node) is dict else node if type(node) is list else ())]
        if not level:
            return False
    return True


def _object_list(value: Any) -> bool:
    return value is None or (type(value) is list and all(type(item) is dict for item in value))


#: The largest results file (or journal) read: 390 episodes of the whole suite take 21 MB.
MAX_RESULTS_BYTES = 1 << 30

#: Levels of nesting a record may have; a bench writes 9 at the most. One of about 985 levels
#: loaded, then could not be written out again from the deeper stack of a report or a resume.
MAX_NESTING = 64


def _shape_problem(record: Any) -> str | None:
    """What in ``record`` is not as a bench writes it, or None."""
    if type(record) is not dict:
        return "not a JSON object"
    if _deeper_than(record, MAX_NESTING):
        return f"nested deeper than {MAX_NESTING} levels"
    for name in ("task", "llm"):
        if type(record.get(name)) is not str or not record[name]:
            return f"{name} is not a text"
    if record.get("method") not in METHODS or record.get("examples") not in EXAMPLE_MODES:
        return "method or examples is not one a bench runs"
    seed, trials = record.get("seed"), record.get("max_trials", 1)
    if type(seed) is not int or type(trials) is not int or seed < 0 or trials < 1:
        return "seed or max_trials is not a whole number in range"
    if not all(type(record.get(name, True)) is bool for name in ("success", "guards", "success_first_trial")):
        return "success or guards is not true or false"
    problem = next((f"{name} is not a number" for name in _NUMBERS if not _number(record.get(name))), None)
    problem = problem or next((f"{name} is below 0" for name in _COUNTS if (record.get(name) or 0) < 0), None)
    problem = problem or next((f"{name} is not a list of objects" for name in _OBJECT_LISTS
                               if not _object_list(record.get(name))), None)
    if problem:
        return problem
    for trial in record.get("trials") or ():
        if "raw_reward" in trial and (trial["raw_reward"] is None or not _number(trial["raw_reward"])):
            return "a trial's raw_reward is not a number"
        if type(trial.get("trial", 0)) is not int or type(trial.get("success", False)) is not bool:
            return "a trial's number or success is not as a bench writes it"
        reflection = trial.get("reflection")
        if not (reflection is None or (type(reflection) is dict and _object_list(reflection.get("prompt")))):
            return "a trial's review is not as a bench writes it"
    for step in record.get("trace") or ():
        if not all(_object_list(step.get(name)) for name in ("prompt", "actions", "observation")):
            return "a step's prompt, actions or observation is not a list of objects"
        if not all(type(step.get(name, 0)) is int for name in ("index", "trial")):
            return "a step's index or trial is not a whole number"
        if not all(type(step.get(name)) in (str, type(None)) for name in ("program", "error")):
            return "a step's program or error is not a text"
        if not all(type(action.get("args", [])) in (list, type(None)) for action in step.get("actions") or ()):
            return "an action's args are not a list"
    if not all(_number(call.get(name)) for call in record.get("calls") or () for name in _CALL_NUMBERS):
        return "a model call's costs are not numbers"
    return None


def read_results(path: Path, *,
                 check: Callable[[dict[str, Any]], str | None] | None = None) -> list[dict[str, Any]]:
    """The complete records of a results file (or a harvest's journal).

    A last line without its newline is what kill -9 mid-write leaves: ignored here, and cut off
    by the next append (:func:`append_line`), under the file's lock; unless it is a whole record
    (an editor or ``printf`` saved the file without its last newline), which counts. Any other bad line
    means the file is not ours to guess about: a one-line :class:`ConfigError`, as is a file
    that cannot be read. ``check`` says what else is wrong with a record for the caller's use
    (None: nothing), which refuses its line the same way.
    """
    fd = open_to_read(path, f"cannot read {path}")  # a FIFO in its place blocked the read forever
    if fd is None:
        return []
    with os.fdopen(fd, "rb") as file:
        if os.fstat(fd).st_size > MAX_RESULTS_BYTES:  # read whole, it would take as much memory
            raise ConfigError(f"{path} holds more than {MAX_RESULTS_BYTES >> 20} MiB: not a file of episodes "
                              "a bench wrote (an episode takes about 60 KB)")
        data = file.read()
    complete, _, tail = data.rpartition(b"\n")
    if _whole_record(tail):
        complete += b"\n" + tail
    records = []
    for number, line in enumerate(complete.split(b"\n") if complete else [], start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            problem = _shape_problem(record)
        except (ValueError, RecursionError):
            problem = "not JSON"
        problem = problem or (check(record) if check else None)
        if problem:
            raise ConfigError(f"{path}: line {number} is not an episode record ({problem})")
        records.append(record)
    return records


class ResultsFile:
    """Appends one episode per line: one write under a lock, then fsync.

    The file is opened for each line, so the lines go to whatever file is at the path. A bench
    that held one descriptor for its whole run wrote on into a deleted copy once the file was
    replaced under it (a ``git stash`` in the repository holding the results), and the lines
    of every later episode were in no file that would outlive the process.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        os.close(self._open())  # a path that cannot be written fails before any episode runs

    def _open(self) -> int:
        return open_own(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT)  # read: its tail, see append_line

    def append(self, record: dict[str, Any]) -> None:
        data = (json_text(record) + "\n").encode("utf-8")  # a program's lone surrogate too
        with self._lock:
            fd = self._open()
            try:
                append_line(fd, data, self.path)
            finally:
                os.close(fd)


def append_line(fd: int, data: bytes, path: Path) -> None:
    """Append the line ``data`` to ``path`` (open at ``fd`` with ``O_APPEND``) whole and durably, or
    not at all: a :class:`ConfigError` naming the file and why.

    Several processes may append to one file (harvests into one store at once), each holding the
    file's lock while it writes; so a last line without its newline is one whose writer died
    (kill -9), and it is cut off before this line goes in. Left there, this line would make it
    a bad line in the middle, and the file one no resume can read. A full disk (or a quota) takes
    part of a line and refuses the rest: that part is cut off at once, for the same reason.
    """
    fcntl.flock(fd, fcntl.LOCK_EX)  # let go when fd is closed
    start = _cut_torn_tail(fd)
    try:
        written = 0
        while written < len(data):
            written += os.write(fd, data[written:])  # the rest again: its error says why it was short
        os.fsync(fd)
    except OSError as exc:
        os.ftruncate(fd, start)
        raise ConfigError(f"cannot write {path}: {exc.strerror or exc}") from None


def _cut_torn_tail(fd: int) -> int:
    """Cut what follows the last newline of the file open at ``fd`` (a line whose writer died),
    under the file's lock; the file's size then. A whole record there only lacks its newline,
    which is added: cut, the episode it records was lost."""
    size = end = os.fstat(fd).st_size
    if not size or os.pread(fd, 1, size - 1) == b"\n":
        return size
    while end:
        chunk = os.pread(fd, min(end, 1 << 16), end - min(end, 1 << 16))
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            end -= len(chunk) - newline - 1
            break
        end -= len(chunk)
    if _whole_record(os.pread(fd, size - end, end)):
        os.pwrite(fd, b"\n", size)
        return size + 1
    os.ftruncate(fd, end)
    return end


def _whole_record(line: bytes) -> bool:
    """Whether ``line`` is a whole record. What a killed writer leaves never is: the line it
    was writing is JSON and its newline, and no part of a JSON object short of its end parses."""
    try:
        return _shape_problem(json.loads(line)) is None
    except (ValueError, RecursionError):
        return False


class SharedModel:
    """A worker's model: calls that an interrupt abandons, and one model object for every worker.

    Each call runs on a helper thread while the worker waits for its reply or the bench's
    stop, whichever comes first: a stop raises :class:`Interrupted` at once instead of
    waiting out a hung endpoint or a minutes-long local generation. The abandoned call
    ends with the process (the CLI exits without joining it, see ``webwise.cli``).

    With ``local`` (and ``replay``) every worker shares one wrapper, so the embedded model is loaded once per
    process; it bounds its own concurrency (one call per slot, see
    ``webwise.llm.local.Tuning``). A wrapper that does not ``own`` its model
    leaves it open on ``close``: a session closing must not close the model under the
    others; the bench closes the first model itself.
    """

    def __init__(self, model: ChatModel, stop: threading.Event, *, owns: bool = False) -> None:
        self.model, self.name, self.stop, self.owns = model, model.name, stop, owns

    def complete(self, request: ChatRequest) -> ChatReply:
        answer: queue.Queue[tuple[ChatReply | None, BaseException | None]] = queue.Queue(maxsize=1)

        def call() -> None:
            try:
                answer.put((self.model.complete(request), None))
            except BaseException as exc:  # handed to the waiting worker, which raises it
                answer.put((None, exc))

        threading.Thread(target=call, name=CALL_THREAD, daemon=True).start()
        while True:
            try:
                reply, error = answer.get(timeout=0.1)
            except queue.Empty:
                if self.stop.is_set():
                    raise Interrupted(f"{self.name}: call abandoned, the bench is stopping") from None
                continue
            if error is not None:
                raise error
            assert reply is not None
            return reply

    def close(self) -> None:
        if self.owns:
            self.model.close()


#: The name of the threads that run model calls; the CLI checks for live ones after an interrupt.
CALL_THREAD = "webwise-llm-call"


class Progress:
    """A progress line on stderr: \\r-updated on a terminal, one line per episode otherwise.

    ``label`` starts each line (the command's name); a record's ``verdict``, when it has one,
    replaces the plain solved/error/failed (a harvest says what became of the candidate).
    """

    def __init__(self, stream: TextIO, total: int, already: int, label: str = "bench") -> None:
        self.stream, self.total, self.already, self.label = stream, total, already, label
        self.done = self.solved = 0
        self.started = time.monotonic()
        self.tty = stream.isatty()

    def update(self, record: dict[str, Any]) -> None:
        self.done += 1
        self.solved += bool(record["success"])
        elapsed = time.monotonic() - self.started
        left = self.total - self.already - self.done
        eta = _duration(elapsed / self.done * left)
        count = self.already + self.done
        plain = "solved" if record["success"] else ("error" if record["error"] else "failed")
        verdict = record.get("verdict") or plain
        status = (f"{count}/{self.total} solved {self.solved}/{self.done} "
                  f"{_rate(self.done / elapsed * 60)} ep/min ETA {eta}")
        if self.tty:
            filled = round(24 * count / self.total)
            self.stream.write(f"\r[{'#' * filled}{'.' * (24 - filled)}] {status}  ")
        else:
            self.stream.write(f"{self.label} {status} | {record['task']} seed {record['seed']} {record['method']}/"
                              f"{record['examples']}: {shown_line(verdict)}\n")  # a harvest's: a program's error
        self.stream.flush()

    def finish(self) -> None:
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()


def _rate(per_minute: float) -> str:
    """Episodes per minute, to two places below one: the 1.5B's whole-suite run went at 0.2-0.3,
    and at its start, slowed by other load, it showed 0.0."""
    return f"{per_minute:.2f}" if per_minute < 1 else f"{per_minute:.1f}"


def _duration(seconds: float) -> str:
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


class Worker(threading.Thread):
    """Runs jobs from the pool's queue with its own session until the queue is empty or stop is set."""

    def __init__(self, number: int, pool: "Pool", llm: ChatModel) -> None:
        super().__init__(name=f"webwise-{pool.label}-{number}", daemon=True)
        self.pool, self.llm = pool, llm
        self.session: Any = None

    def run(self) -> None:
        from webwise.session import Session

        pool = self.pool
        try:
            self.session = Session(self.llm, pool.settings, remote_url=pool.remote_url, pages=pool.pages)
            self._launch()
            while not pool.stop.is_set():
                try:
                    job = pool.jobs.get_nowait()
                except queue.Empty:
                    return
                record = self._episode(job)
                if record is None or pool.stop.is_set():
                    return  # interrupted mid-episode: not recorded, so a resume reruns it
                pool.results.append(record)
                pool.finished.put(record)
                pool.count_fault(record)
        except BaseException as exc:  # a bug or a broken set-up ends the whole run, not one worker
            if not pool.stop.is_set():
                pool.fail(exc)
        finally:
            if self.session is not None:
                self.session.close()
            else:
                self.llm.close()

    def _launch(self) -> None:
        """Start the browser before the first job: a Grid or Chromium that cannot start at all is a
        set-up error for the whole run, not a failed episode per job. A browser that dies once as
        it starts (killed, crashed) is replaced once, as in an episode: one worker's bad start
        must not end the run, and the episodes of the others in flight with it."""
        for attempt in (1, 2):
            try:
                self.session.env.script("return 1;")
                return
            except BrowserDied as exc:
                if attempt == 2 or self.pool.stop.is_set():
                    where = f"on the Grid at {self.pool.remote_url}" if self.pool.remote_url else "here"
                    raise ConfigError(f"cannot start a browser {where}: {exc}") from None

    def _episode(self, job: Job) -> dict[str, Any] | None:
        """Run a job; a dead browser is replaced (the environment relaunches) and the job retried once.

        A failure outside the agent on both attempts is the episode's ``infra_error``.
        """
        for attempt in (1, 2):
            try:
                return self.pool.perform(self.session, job)
            except ConfigError:
                raise
            except (WebwiseError, WebDriverException) as exc:
                # Ctrl-C reaches the browser too: give the stop flag a moment to say so before retrying.
                if self.pool.stop.wait(0.5):
                    return None
                if attempt == 2:
                    return self.pool.fault_record(job, exc, self.llm)
        raise AssertionError("unreachable: the second attempt always returns")


class Pool:
    """Workers over one queue of jobs, one page server and one model, appending a record per job.

    What a job does is :meth:`perform` (the bench runs an episode; a harvest also checks and
    stores what the episode taught). Each worker has its own session; with ``local`` they
    share one model (see :class:`SharedModel`). Ctrl-C or SIGTERM stops them between jobs, an
    interrupted job is not recorded, and :data:`FAULTS_IN_A_ROW` infrastructure failures in a
    row stop the run.
    """

    def __init__(self, llm: str, settings: Settings, *, workers: int, remote_url: str | None, page_host: str,
                 stream: TextIO, label: str) -> None:
        """Where the browsers and the pages will be is checked here, before a bench or a harvest
        creates anything: the page server binds only once the workers start."""
        whole("workers", workers, 1)
        remote_url, page_host = grid_url("remote_url", remote_url), check_page_host("page_host", page_host)
        self.llm, self.settings, self.workers = llm, settings, workers
        self.remote_url, self.page_host, self.stream, self.label = remote_url, page_host, stream, label
        self.stop = threading.Event()
        self.jobs: queue.Queue[Job] = queue.Queue()
        self.finished: queue.Queue[dict[str, Any]] = queue.Queue()
        self.error: BaseException | None = None
        self.pages: PageServer | None = None
        self.results: ResultsFile
        self.faults_in_a_row = 0
        self.halted: str | None = None  # why the run stopped early on infrastructure failures
        self._faults_lock = threading.Lock()
        self.slots: int | None = None  # the Grid's Chrome slots, once :meth:`check_browsers` asked

    def check_browsers(self) -> None:
        """Before the run creates anything: the browser is installed here, or the Grid of
        ``--remote`` is one, and how many browsers it runs at once (:func:`webwise.grid.browsers`).
        Without it a missing Chromium or a wrong URL surfaced only as the first worker started a
        browser, after OUT was made, and workers beyond the Grid's slots waited in its queue until
        its session-request timeout failed the whole run, every episode finished or not."""
        if self.remote_url:
            self.slots = grid.browsers(self.remote_url)
        else:
            browser.check_installed()

    def workers_for(self, jobs: int) -> int:
        """Workers to start for ``jobs``: no more than the jobs, nor than the Grid's slots."""
        return min(self.workers, jobs, self.slots or jobs)

    def on_workers(self, jobs: int) -> str:
        """How the plan line names the workers for ``jobs``, and why fewer than asked for."""
        count = self.workers_for(jobs)
        capped = self.slots is not None and count == self.slots < min(self.workers, jobs)
        return f"on {count} worker(s)" + (f" (the Grid at {self.remote_url} runs {count} at once)" if capped else "")

    def perform(self, session: Any, job: Job) -> dict[str, Any]:
        """The job's record; the bench's is the episode's."""
        return session.run(job.task, job.seed, job.method, job.examples).to_dict()

    def fault_record(self, job: Job, exc: Exception, llm: ChatModel) -> dict[str, Any]:
        """The record of a job that failed outside the agent twice: its episode so far when the
        browser died in it (not in another episode the job ran, such as a harvest's check), with
        ``infra_error`` set, so that the tables count it apart and a resume runs it again."""
        episode = getattr(exc, "episode", None) if isinstance(exc, BrowserDied) else None
        if episode is None or (episode.task, episode.seed) != (job.task, job.seed):
            episode = Episode(job.task, job.seed, job.method, job.examples, llm.name, max_trials=self.settings.trials,
                              guards=self.settings.guards)
        said = one_line(str(exc).strip().split("\n", 1)[0] or type(exc).__name__)  # not a Grid's stack trace
        episode.error = episode.error or said
        episode.infra_error = said
        return episode.to_dict()

    def fail(self, exc: BaseException) -> None:
        self.error = self.error or exc
        self.stop.set()

    def count_fault(self, record: dict[str, Any]) -> None:
        """Stop the run after :data:`FAULTS_IN_A_ROW` infrastructure failures with no result between."""
        with self._faults_lock:
            self.faults_in_a_row = self.faults_in_a_row + 1 if record.get("infra_error") else 0
            if self.faults_in_a_row >= FAULTS_IN_A_ROW and self.halted is None:
                self.halted = (f"{self.faults_in_a_row} episodes in a row ended on an infrastructure failure, "
                               f"the last with: {record['infra_error']}")
                self.stop.set()

    def models(self, first: ChatModel, count: int) -> list[ChatModel]:
        """One model per worker: ``first`` shared by all with ``local`` (one model in memory) and
        ``replay`` (its replies are read-only: a large file is not read and held once per worker),
        else a client each."""
        if self.llm.split(":", 1)[0] in ("local", "replay"):
            return [SharedModel(first, self.stop)] * count
        return [SharedModel(first, self.stop),
                *(SharedModel(make_llm(self.llm), self.stop, owns=True) for _ in range(count - 1))]

    def work(self, jobs: Sequence[Job], path: Path, total: int, first: ChatModel) -> bool:
        """Run ``jobs`` over the workers, appending to ``path``, until done or Ctrl-C / SIGTERM;
        True when interrupted. ``total`` counts the jobs already done before these too."""
        for job in jobs:
            self.jobs.put(job)
        models = self.models(first, self.workers_for(len(jobs)))
        progress = Progress(self.stream, total, total - len(jobs), self.label)
        try:
            self.pages = PageServer(html_root(), host=self.page_host)
        except OSError as exc:
            raise ConfigError(f"cannot serve task pages on {self.page_host}: {exc.strerror or exc}") from None
        self.results = ResultsFile(path)
        workers = [Worker(i, self, model) for i, model in enumerate(models)]
        interrupted = threading.Event()
        with _on_interrupt(lambda: (interrupted.set(), self.stop.set())):
            try:
                for worker in workers:
                    worker.start()
                while any(w.is_alive() for w in workers) or not self.finished.empty():
                    try:
                        progress.update(self.finished.get(timeout=0.2))
                    except queue.Empty:
                        if self.stop.is_set():
                            break
                self._shut_down(workers)
                while not self.finished.empty():
                    progress.update(self.finished.get())
            finally:
                progress.finish()
                self.pages.close()
        return interrupted.is_set()

    def _shut_down(self, workers: list[Worker]) -> None:
        """Give in-flight episodes a moment, then pull their browsers so the threads can end."""
        deadline = time.monotonic() + 3
        for worker in workers:
            worker.join(timeout=max(0.0, deadline - time.monotonic()))
        for worker in workers:
            if worker.is_alive() and worker.session is not None:
                worker.session.env.close()
        for worker in workers:
            worker.join(timeout=5)


class Bench(Pool):
    """One bench run over an output directory."""

    def __init__(self, config: BenchConfig) -> None:
        settings = Settings(max_steps=config.max_steps, max_tokens=config.max_tokens, trials=config.trials,
                            guards=config.guards, screenshot_dir=config.out / SCREENSHOTS, store_dir=config.store_dir)
        super().__init__(config.llm, settings, workers=config.workers, remote_url=config.remote_url,
                         page_host=config.page_host, stream=config.stream, label="bench")
        self.config = config

    def run(self) -> int:
        """0 when every planned episode is in the file with a result; 1 (:data:`EXIT_FAULTS`) when
        some ended on an infrastructure failure or stopped the bench; 130 after Ctrl-C (results kept)."""
        config = self.config
        plan = config.jobs()
        self.check_browsers()
        path = config.out / RESULTS
        _refuse_to_add(path, config.resume)  # before the lock, so a refusal leaves OUT as it was
        if (config.out / SCREENSHOTS).is_symlink():  # the pictures went wherever it led; report refuses it too
            raise ConfigError(f"{config.out / SCREENSHOTS} is a link: webwise writes only files of its own there; "
                              "remove it")
        config.out.mkdir(parents=True, exist_ok=True)
        with _exclusive(config.out):
            existing = read_results(path)
            _refuse_to_add(path, config.resume, existing)  # again: another bench may have written since
            first = make_llm(config.llm)
            try:
                return self._run(plan, existing, first)
            finally:
                first.close()

    def _run(self, plan: list[Job], existing: list[dict[str, Any]], first: ChatModel) -> int:
        config = self.config
        keys = {job.key(first.name, config.trials, config.guards) for job in plan}
        faults = [r for r in existing if r.get("infra_error") and record_key(r) in keys]
        if faults:
            existing = [r for r in existing if not (r.get("infra_error") and record_key(r) in keys)]
            rewrite_results(config.out / RESULTS, existing)
        done = {record_key(r) for r in existing}
        pending = [job for job in plan if job.key(first.name, config.trials, config.guards) not in done]
        already = len(plan) - len(pending)
        again = f" ({len(faults)} of them after an infrastructure failure)" if faults else ""
        print(f"bench: {len(plan)} episodes planned, {already} already in {shown_line(str(config.out / RESULTS))}, "
              f"{len(pending)} to run{again} with {shown_line(config.llm)} {self.on_workers(len(pending))}",
              file=config.stream)
        for others in (_other_code(existing), _other_settings(existing, config)):
            if pending and others:
                print(f"bench: warning: {shown_line(others)}; the tables will mix them", file=config.stream)
        interrupted = bool(pending) and self.work(pending, config.out / RESULTS, len(plan), first)
        if self.error is not None:
            raise self.error
        write_tables(config.out)
        if interrupted:
            print(f"bench: interrupted; {len(read_results(config.out / RESULTS))} episodes kept, "
                  "--resume runs the rest", file=config.stream)
            return 130
        if self.halted:
            print(f"bench: stopped early: {self.halted}; fix it, then --resume runs what it touched and the rest",
                  file=config.stream)
            return EXIT_FAULTS
        faulty = sum(1 for r in read_results(config.out / RESULTS) if r.get("infra_error") and record_key(r) in keys)
        if faulty:
            print(f"bench: {faulty} episodes ended on an infrastructure failure and count in no rate; "
                  "--resume runs them again", file=config.stream)
            return EXIT_FAULTS
        return 0


def _refuse_to_add(path: Path, resume: bool, existing: list[dict[str, Any]] | None = None) -> None:
    """A :class:`ConfigError` when ``path`` already holds episodes and ``--resume`` was not given:
    a new run's episodes must not be mixed into an old run's file by accident."""
    if resume:
        return
    existing = read_results(path) if existing is None else existing
    if existing:
        raise ConfigError(f"{path} already holds {len(existing)} episodes: pass --resume to continue, "
                          "or choose another --out")


@contextlib.contextmanager
def _exclusive(out: Path) -> Iterator[None]:
    """One bench per output directory at a time: a second one would run the same episodes."""
    with os.fdopen(open_own(out / ".bench.lock", os.O_RDWR | os.O_CREAT)) as stream:
        try:
            fcntl.flock(stream, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(f"another bench is writing to {out}") from None
        yield


#: Seconds after a signal in which the same signal again is the same request, not a second one.
REPEAT_WINDOW = 1.0


@contextlib.contextmanager
def _on_interrupt(callback: Callable[[], object]) -> Iterator[None]:
    """The first Ctrl-C or SIGTERM asks the workers to stop; a second one is the default.

    SIGTERM (``kill``, a job scheduler's time limit) is stopped like Ctrl-C, so the finished
    episodes' tables get written and the browsers closed instead of left running. The same
    signal again within :data:`REPEAT_WINDOW` is ignored: coreutils ``timeout`` sends SIGTERM to
    the bench and then to its whole process group, the bench included, which is one request to
    stop, not a second one asking to be killed at once.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous: dict[int, Any] = {}
    first: dict[int, float] = {}  # when each signal first came

    def handler(signum: int, frame: FrameType | None) -> None:
        now = time.monotonic()
        if signum not in first:
            first[signum] = now
            callback()
        elif now - first[signum] > REPEAT_WINDOW:  # asked again: what the signal did before the bench
            signal.signal(signum, previous[signum])
            signal.raise_signal(signum)

    for signum in (signal.SIGINT, signal.SIGTERM):
        previous[signum] = signal.signal(signum, handler)
    try:
        yield
    finally:
        for signum, earlier in previous.items():
            signal.signal(signum, earlier)


def _other_code(records: list[dict[str, Any]]) -> str:
    """Which of ``records`` ran on code other than this, e.g. before a fix; empty if none did."""
    counts = Counter(map(code_of, records))
    counts.pop(code_version(), None)
    if not counts:
        return ""
    listed = ", ".join(f"{code} {n}" for code, n in sorted(counts.items()))
    return f"{sum(counts.values())} episodes already there ran on other code ({listed}), not {code_version()}"


def _other_settings(records: list[dict[str, Any]], config: BenchConfig) -> str:
    """Which of ``records`` ran with another ``--max-steps`` or ``--max-tokens`` than ``config``
    (records from before these were kept say nothing); empty if none did. Neither is part of an
    episode's key, so a resume with others adds to the same column sets."""
    wanted = {"max_steps": config.max_steps, "max_tokens": config.max_tokens}
    differ = Counter(f"--{name.replace('_', '-')} {record[name]}" for record in records
                     for name, value in wanted.items() if record.get(name, value) != value)
    if not differ:
        return ""
    listed = ", ".join(f"{setting} {n}" for setting, n in sorted(differ.items()))
    this = ", ".join(f"--{name.replace('_', '-')} {value}" for name, value in wanted.items())
    return f"episodes already there ran with other settings ({listed}), not {this}"


def rewrite_results(path: Path, records: list[dict[str, Any]]) -> None:
    """Replace the results file by ``records`` at once: a kill leaves the old file or the new one.
    Lines are written as :class:`ResultsFile` appends them (a program's lone surrogate included)."""
    replace_file(path, "".join(json_text(record) + "\n" for record in records).encode("utf-8"))


def write_tables(out: Path) -> str:
    """Recompute the tables from ``out/results.jsonl`` into tables.md and tables.csv; returns the Markdown."""
    computed = tables.compute(read_results(out / RESULTS, check=tables.record_problem))
    text = tables.markdown(computed)
    replace_text(out / "tables.md", text)
    replace_text(out / "tables.csv", tables.to_csv(computed))
    return text


def replace_text(path: Path, text: str) -> None:
    """Write to a temp file and rename: a reader never sees half a file. A lone surrogate a
    name brought in (a replay file's path) is written as its escape, not a crash."""
    replace_file(path, text.encode("utf-8", errors="backslashreplace"))


def run_bench(config: BenchConfig) -> int:
    """Run a bench and print its tables to stdout; the exit status of ``webwise bench``."""
    status = Bench(config).run()
    print((config.out / "tables.md").read_text(encoding="utf-8"))
    return status
