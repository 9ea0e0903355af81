"""The ``webwise`` command: ``solve``, ``harvest``, ``store``, ``bench``, ``report`` and ``tasks``.

Exit status: 0 solved, 1 ran but not solved, 2 bad input or configuration (one line on
stderr, never a traceback), 130 interrupted.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import sys
import threading
from pathlib import Path
from typing import Callable, NoReturn, Sequence, TypeVar

from webwise.agent import EXAMPLE_MODES, Settings, check_method, check_setting, load_examples
from webwise.arguments import as_path, grid_url, one_of, page_host, readable_folder, some, whole, writable_folder
from webwise.environment import MAX_SEED, BrowserDied, PageFault, check_seed
from webwise.episode import Episode
from webwise.errors import ConfigError, WebwiseError
from webwise.harvest import CHECK_SEEDS, HARVEST_EXAMPLES, HARVEST_SEED_START, MAX_CHECK_SEEDS
from webwise.llm import SPECS
from webwise.prompts import METHODS
from webwise.tasks import PAPER48, PAPER_GROUPS, all_tasks, catalog, check_task, parse_task_list, suite_group
from webwise.untrusted import shown, shown_line


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        """One line, exit 2: argparse's default prints the whole usage first."""
        self.exit(2, f"webwise: error: {shown_line(message)}\n")


def tab_row(*cells: object) -> str:
    """One line of tab-separated cells, each as :func:`shown_line` writes it, with its own tabs and line breaks
    written as ``\\t`` and ``\\n``: a stored instruction or a refusal's reason cannot split a row."""
    return "\t".join(shown_line(str(cell)).replace("\t", "\\t") for cell in cells)


T = TypeVar("T")


def option(check: Callable[[str], T]) -> Callable[[str], T]:
    """An argparse type made of the check the library makes of the same argument: the option is
    refused in the library's words, after argparse's ``argument --option: ``, while the command
    line is parsed, before anything is created or started."""
    def parse(text: str) -> T:
        try:
            return check(text)
        except ConfigError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    return parse


def typed(text: str) -> int | str:
    """A whole number as typed: ASCII digits, with a sign, are its number; anything else stays
    text, which the check then refuses. ``int()`` alone reads ``1_0`` as 10, ``１`` and ``١٢`` as
    digits and `` 3 `` as 3: a typo would run another seed than the one typed."""
    return int(text) if re.fullmatch(r"[+-]?[0-9]{1,4000}", text) else text


def setting(name: str) -> Callable[[str], int]:
    """A whole-number knob of :class:`Settings` (``max_steps``), bounded as the library bounds it."""
    return option(lambda text: check_setting(name, typed(text)))


def count(name: str, most: int | None = None) -> Callable[[str], int]:
    """A count of at least 1 (and at most ``most``) that the library takes as the argument ``name`` (``workers``)."""
    return option(lambda text: whole(name, typed(text), 1, most))


#: A page seed, a whole number from 0 to 2**53 - 1 (:func:`webwise.environment.check_seed`).
seed = option(lambda text: check_seed(typed(text)))


def path(name: str) -> Callable[[str], Path]:
    """A path the library takes as ``name``: an empty one is refused, as ``Path("")`` would quietly
    be the current directory (a ``--out "$UNSET"`` writing a bench into the checkout)."""
    return option(lambda text: as_path(name, text))


def directory(name: str) -> Callable[[str], Path]:
    """A directory to write into (:func:`webwise.arguments.writable_folder`)."""
    return option(lambda text: writable_folder(name, text))


#: The Selenium Grid's URL (``--remote``); an empty one is refused, not read as no Grid.
remote = option(lambda text: grid_url("remote_url", text))
#: Where the task pages are served (``--page-host``): bound for a moment as the line is read.
host = option(lambda text: page_host("page_host", text))
#: A store to read from: its directory, which may be read-only (a store handed over, or shipped
#: with an installed copy). Whether it exists and can be read is the store's check, when an example
#: is first asked for; a file in its place is refused here, as for the stores written to.
readable_store = option(lambda text: readable_folder("store_dir", text))


def choice(name: str, choices: Sequence[str]) -> Callable[[str], str]:
    """One of ``choices``, refused as the library refuses an unknown ``name`` (``method``)."""
    return option(lambda text: one_of(name, text, choices))


LLM_HELP = f"{SPECS} (default local)"
TASKS_HELP = "paper48, all, expressible (tasks a reference program solves) or a comma-separated list"


def add_guards(parser: argparse.ArgumentParser) -> None:
    """``--no-guards``: run programs as written, without the rewriting that helps small models."""
    parser.add_argument("--no-guards", dest="guards", action="store_false",
                        help="run programs literally: no checkbox flip-back guard, no skipped retyping, "
                             "no caption-click redirect or caption typing refusal")


def add_budget(parser: argparse.ArgumentParser) -> None:
    """What one episode may spend: programs per trial, and tokens per model call."""
    parser.add_argument("--max-steps", type=setting("max_steps"), default=5, help="programs per trial (webwise method)")
    parser.add_argument("--max-tokens", type=setting("max_tokens"), default=Settings.max_tokens,
                        help=f"tokens a model call may generate (default {Settings.max_tokens}); a reasoning "
                             "model thinks within them too, so give it thousands")


def add_browsers(parser: argparse.ArgumentParser) -> None:
    """Where a many-episode command's browsers run: ``bench`` and ``harvest`` share these."""
    parser.add_argument("--workers", type=count("workers"), default=1,
                        help="parallel browsers (default 1); with local they share one model, which "
                             "answers their calls in turn")
    parser.add_argument("--remote", type=remote, default=None, metavar="URL",
                        help="run the browsers on the Selenium Grid at URL")
    parser.add_argument("--page-host", type=host, default="127.0.0.1",
                        help="address to serve task pages on; must be reachable from the Grid's nodes "
                             "(default 127.0.0.1)")


def add_store(commands: argparse._SubParsersAction) -> None:
    """``store list|show|remove``: read and curate a harvested-example store."""
    parser = commands.add_parser("store", help="list, show or remove harvested examples",
                                 description="Read and curate a harvested-example store (default: incontext/auto).")
    actions = parser.add_subparsers(dest="store_command", metavar="{list,show,remove}", required=True,
                                    parser_class=_Parser)
    listing = actions.add_parser("list", help="tasks and their examples with provenance, and the tasks covered")
    listing.add_argument("--task", default=None, help="only this task's examples")
    show = actions.add_parser("show", help="examples of a task exactly as the prompt shows them")
    show.add_argument("task", help="the task")
    show.add_argument("number", type=count("the example's number"), nargs="?", default=None,
                      help="which example, from 1 as listed (default: all of the task's)")
    remove = actions.add_parser("remove", help="remove one example (under the store's lock)")
    remove.add_argument("task", help="the task")
    remove.add_argument("number", type=count("the example's number"), help="which example, from 1 as listed")
    for action in (listing, show):
        action.add_argument("--store", type=readable_store, default=None,
                            help="the store to read (default incontext/auto)")
    remove.add_argument("--store", type=directory("store_dir"), default=None,
                        help="the store to change (default: the checkout's incontext/auto; needed when installed)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="webwise", description="A program-synthesis web agent on MiniWoB++ tasks.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    solve = commands.add_parser("solve", help="run one task end to end in headless Chromium")
    solve.add_argument("--task", required=True, help="MiniWoB++ task name (see `webwise tasks`)")
    solve.add_argument("--seed", type=seed, default=0, help="episode seed (default 0)")
    solve.add_argument("--method", default="webwise", type=choice("method", METHODS), choices=METHODS,
                       help="agent method (default webwise)")
    solve.add_argument("--examples", default="manual", type=choice("examples mode", EXAMPLE_MODES),
                       choices=EXAMPLE_MODES,
                       help="in-context examples: manual (k=1), auto (harvested), "
                            "auto-near (harvested, else the nearest of another task), none (k=0)")
    solve.add_argument("--llm", default="local", help=LLM_HELP)
    add_budget(solve)
    solve.add_argument("--trials", type=setting("trials"), default=1,
                       help="attempts from a fresh reset of the same seed, with reflection between them (default 1)")
    solve.add_argument("--store", type=readable_store, default=None,
                       help="harvested-example store to read (default incontext/auto)")
    solve.add_argument("--screenshots", type=directory("screenshot_dir"), default=None,
                       help="save a PNG after each step here")
    add_guards(solve)
    solve.add_argument("--json", action="store_true", help="print the episode record as one JSON object")

    harvest = commands.add_parser(
        "harvest", help="zero-shot episodes whose solved programs become examples if they generalise (ACG)",
        description="Keep a solved episode's programs as the task's example only if, replayed without the model, "
                    "they solve --check-seeds fresh seeds (100000 and up) too. STORE/harvest.jsonl records each "
                    "finished episode: the same command again runs only the ones missing.")
    harvest.add_argument("--tasks", default=None,
                         help=TASKS_HELP + "; with --from-results, default every task of the file")
    harvest.add_argument("--seeds", type=count("seeds"), default=10, help="episodes (seeds) per task (default 10)")
    harvest.add_argument("--seed-start", type=seed, default=HARVEST_SEED_START,
                         help=f"first seed, below 100000 (default {HARVEST_SEED_START}: apart from evaluation seeds)")
    harvest.add_argument("--trials", type=setting("trials"), default=1,
                         help="attempts per episode with reflection between them (default 1)")
    harvest.add_argument("--check-seeds", type=count("check_seeds", MAX_CHECK_SEEDS), default=CHECK_SEEDS,
                         help="fresh seeds (100000 and up, each asking something new) a candidate must solve "
                              f"replayed without the model (default {CHECK_SEEDS}, at most {MAX_CHECK_SEEDS})")
    harvest.add_argument("--llm", default="local", help=LLM_HELP)
    harvest.add_argument("--store", type=directory("store_dir"), default=None,
                         help="example store to write (default: the checkout's incontext/auto; needed when installed)")
    harvest.add_argument("--method", default="webwise", type=choice("method", METHODS), choices=METHODS,
                         help="method of the episodes (default webwise)")
    harvest.add_argument("--examples", default="none", type=choice("examples mode", HARVEST_EXAMPLES),
                         metavar="{" + ",".join(HARVEST_EXAMPLES) + "}",
                         help="none (zero-shot, default) or auto-near: while a task has no example of its own, "
                              "show the store's nearest example of another task")
    add_budget(harvest)
    add_browsers(harvest)
    harvest.add_argument("--recheck", action="store_true",
                         help="run no episodes: check the journal's refused candidates of --tasks again with the "
                              "current rewrites, without the model, and keep those that pass")
    harvest.add_argument("--from-results", type=path("results"), default=None, metavar="RESULTS",
                         help="run no episodes: learn from a bench run's zero-shot episodes (its results.jsonl or "
                              "output folder), each solved one's programs checked and kept as a harvest's, "
                              "without the model")
    add_guards(harvest)

    add_store(commands)

    bench = commands.add_parser(
        "bench", help="tasks x seeds x methods x example modes over K workers, resumable",
        description="Append every episode to OUT/results.jsonl, then print the tables and write them to "
                    "OUT/tables.md and OUT/tables.csv. `webwise report OUT` regenerates the tables and writes "
                    "OUT/report.html. An episode is (task, seed, method, examples, llm, trials, guards).")
    bench.add_argument("--tasks", required=True,
                       help=TASKS_HELP + "; stored: the tasks --store holds examples of (a run with --examples auto "
                                         "after a harvest)")
    bench.add_argument("--seeds", type=count("seeds"), default=1, help="seeds per task (default 1)")
    bench.add_argument("--seed-start", type=seed, default=0, help="first seed (default 0)")
    bench.add_argument("--methods", type=choice_list("methods", "method", METHODS), default=["webwise"],
                       help=f"comma-separated, of {', '.join(METHODS)} (default webwise)")
    bench.add_argument("--examples", type=choice_list("examples", "examples mode", EXAMPLE_MODES),
                       default=["manual"],
                       help=f"comma-separated, of {', '.join(EXAMPLE_MODES)} (default manual)")
    bench.add_argument("--llm", default="local", help=LLM_HELP)
    add_browsers(bench)
    bench.add_argument("--out", type=directory("out"), required=True, help="output directory")
    bench.add_argument("--resume", action="store_true", help="run only the episodes missing from OUT/results.jsonl")
    bench.add_argument("--store", type=readable_store, default=None,
                       help="harvested-example store the auto modes read (default incontext/auto); keep one "
                            "--out per store, since an episode's key does not name it")
    add_budget(bench)
    bench.add_argument("--trials", type=setting("trials"), default=1,
                       help="attempts per episode with reflection between them; tables show success at trial 1 too")
    add_guards(bench)

    report = commands.add_parser("report", help="write DIR/report.html and regenerate DIR/tables.md and .csv",
                                 description="A self-contained HTML report of a bench directory: the tables and "
                                             "every episode step by step with prompt, program, error and screenshot. "
                                             "Also rewrites DIR/tables.md and DIR/tables.csv from DIR/results.jsonl.")
    report.add_argument("dir", type=path("dir"), help="a `webwise bench --out` directory (or its results.jsonl)")

    tasks = commands.add_parser("tasks", help="list the MiniWoB++ tasks: group and the actions each needs",
                                description="One line per task: name, group (the paper's rule: how many API "
                                            "calls a solution needs) and the actions its reference program uses.")
    tasks.add_argument("--paper48", action="store_true", help="only the paper's 48 tasks")
    tasks.add_argument("--group", choices=(*PAPER_GROUPS, "-"), default=None,
                       help="only the tasks of this group (by API calls a solution needs; - for none known)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):  # a path or a task's text the terminal cannot encode is escaped
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        status = _command(build_parser().parse_args(argv))
        sys.stdout.flush()  # a stdout that cannot take the output fails here, where it is handled, not at exit
        return status
    except ConfigError as exc:
        print(f"webwise: error: {shown_line(str(exc))}", file=sys.stderr)
        return 2
    except WebwiseError as exc:
        print(f"webwise: {shown_line(str(exc))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("webwise: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `webwise tasks | head`: the reader left early, which is no error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:  # the last line of defence: a path the checks up front could not foresee
        print(f"webwise: error: {shown_line(os_error(exc))}", file=sys.stderr)
        return 2


def _command(args: argparse.Namespace) -> int:
    if args.command == "bench":
        return _bench(args)
    if args.command == "report":
        return _report(args)
    if args.command == "tasks":
        return _tasks(args)
    if args.command == "harvest":
        return _harvest(args)
    if args.command == "store":
        return _store(args)
    return _solve(args)


def os_error(exc: OSError) -> str:
    """An OSError in one line naming what failed: stdout, when it is what cannot be written
    (``webwise tasks > /dev/full``), else the path the error names."""
    reason = exc.strerror or str(exc)
    if _stdout_refuses():
        return f"cannot write to stdout: {reason}"
    paths = [str(name) for name in (exc.filename, exc.filename2) if name is not None]
    return f"{' -> '.join(paths)}: {reason}" if paths else reason


def _stdout_refuses() -> bool:
    """Whether stdout cannot be written: its buffer will not flush, or its file refuses even an
    empty write (a failed write empties the buffer, so the flush alone may not tell). Then stdout
    is pointed at /dev/null, as for a reader that left: the flush at exit would fail again, with
    a traceback of its own."""
    try:
        fd = sys.stdout.fileno()
    except (OSError, ValueError):  # not a file (a test's capture): nothing to tell by
        return False
    try:
        sys.stdout.flush()
        os.write(fd, b"")
    except OSError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), fd)
        return True
    return False


#: The options of a harvest's episodes (argparse dests), which a harvest that runs none
#: (``--from-results``, ``--recheck``) has no use for: the candidates it checks were made
#: already, and each is checked with the guards its episode ran with.
EPISODE_OPTIONS = ("seeds", "seed_start", "trials", "llm", "method", "examples", "max_steps", "max_tokens", "guards")


def _refuse_unused(args: argparse.Namespace, names: Sequence[str], run: str) -> None:
    """A one-line :class:`ConfigError` when an option of ``names`` (argparse dests) was given a value
    other than its default: ``run`` would ignore it, and the user would believe it took effect
    (``harvest --from-results R --llm local:1.5b`` learns nothing from the 1.5B)."""
    parser = build_parser()
    defaults = vars(parser.parse_args([args.command]))
    flags = _flags(parser, args.command)
    given = [flags[name] for name in names if getattr(args, name) != defaults[name]]
    if given:
        one = len(given) == 1
        raise ConfigError(f"{' and '.join(given)} {'has' if one else 'have'} no effect with {run}, which runs no "
                          f"episodes: leave {'it' if one else 'them'} out")


def _flags(parser: argparse.ArgumentParser, command: str) -> dict[str, str]:
    """Each option of ``command`` by its dest, as the user types it (``guards``: ``--no-guards``).

    argparse keeps its parsers' options only in private attributes, and the flags are written
    once, where the parser declares them."""
    (commands,) = (action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
    return {action.dest: action.option_strings[-1] for action in commands.choices[command]._actions
            if action.option_strings}


def _harvest(args: argparse.Namespace) -> int:
    from webwise.harvest import Harvest, HarvestConfig, Import, Recheck

    if args.from_results is not None and args.recheck:
        raise ConfigError("--from-results and --recheck are two different runs: give one of them")
    if args.tasks is None and args.from_results is None:
        raise ConfigError("harvest needs --tasks (or --from-results, which takes the file's tasks)")
    if args.from_results is not None or args.recheck:
        _refuse_unused(args, EPISODE_OPTIONS, "--recheck" if args.recheck else "--from-results")
    tasks = parse_task_list(args.tasks) if args.tasks is not None else []  # an import's default: the file's
    config = HarvestConfig(tasks=tasks, seeds=_seeds(args), llm=args.llm, store_dir=args.store,
                           method=args.method, examples=args.examples, trials=args.trials,
                           check_seeds=args.check_seeds, max_steps=args.max_steps, max_tokens=args.max_tokens,
                           guards=args.guards,
                           workers=args.workers, remote_url=args.remote, page_host=args.page_host)
    if args.from_results is not None:
        run: Harvest = Import(config, args.from_results)
    else:
        run = Recheck(config) if args.recheck else Harvest(config)
    status = run.run()
    print("task\tepisodes\tsolved\tcandidates\tkept\tgeneralised\tduplicates\trefused\tstored\twhy refused")
    for r in run.reports:
        why = r.reasons[0] + (f" (+{len(r.reasons) - 1} more)" if len(r.reasons) > 1 else "") if r.reasons else ""
        print(tab_row(r.task, r.episodes, r.solved, r.candidates, r.kept, r.generalised, r.duplicates, r.refused,
                      r.stored, why))
    with_example = sum(r.stored > 0 for r in run.reports)
    refused = sum(r.refused for r in run.reports)
    print(f"{with_example} of {len(run.reports)} tasks have an example; the check refused {refused} candidate(s)",
          file=sys.stderr)
    if status == 130:
        _exit_past_abandoned_calls(status)
    return status


def _store(args: argparse.Namespace) -> int:
    from webwise import store
    from webwise.prompts import as_shown, render_example

    if args.store_command == "list":
        rows = store.listing(args.store, args.task)
        print("task\tnumber\tsteps\tllm\tcode\tdate\tseeds_verified\tinstruction")
        for row in rows:
            seeds = ",".join(map(str, row.seeds)) or "-"
            print(tab_row(row.task, row.number, row.steps, row.llm, row.code, row.date, seeds, row.instruction))
        print(store.coverage(args.store))
    elif args.store_command == "show":
        picked = store.pick(args.task, args.number, args.store)
        print(shown("\n\n".join(render_example(as_shown(e, args.task), "webwise") for e in picked)))
    else:
        removed = store.remove(args.task, args.number, store.writable(args.store, "store remove"))
        print(shown_line(f"removed {args.task} example {args.number}: {removed.get('instruction', '')}"))
    return 0


def choice_list(name: str, kind: str, choices: Sequence[str]) -> Callable[[str], list[str]]:
    """An argparse type for a comma-separated list ``name`` drawn from ``choices``, each item
    refused as the library refuses an unknown ``kind`` (``method``), each kept once."""
    def parse(text: str) -> list[str]:
        items = some(name, [item.strip() for item in text.split(",") if item.strip()])
        return list(dict.fromkeys(one_of(kind, item, choices) for item in items))
    return option(parse)


def _bench(args: argparse.Namespace) -> int:
    from webwise.bench import BenchConfig, run_bench

    status = run_bench(BenchConfig(tasks=_bench_tasks(args.tasks, args.store), seeds=_seeds(args), methods=args.methods,
                                   examples=args.examples, llm=args.llm, out=args.out, workers=args.workers,
                                   resume=args.resume, max_steps=args.max_steps, max_tokens=args.max_tokens,
                                   trials=args.trials,
                                   guards=args.guards, remote_url=args.remote,
                                   page_host=args.page_host, store_dir=args.store))
    if status == 130:
        _exit_past_abandoned_calls(status)
    return status


def _bench_tasks(spec: str, store_dir: Path | None) -> list[str]:
    """``--tasks``; ``stored`` is the tasks the store holds examples of, which a harvest gave
    one: the ones an ``auto`` run after it changes (the others' prompts stay zero-shot)."""
    if spec != "stored":
        return parse_task_list(spec)
    from webwise import store

    tasks = [check_task(task) for task in store.tasks(store_dir)]
    if not tasks:
        raise ConfigError(f"--tasks stored: the store {store.existing(store_dir)} holds no example yet")
    return tasks


def _seeds(args: argparse.Namespace) -> range:
    """``--seeds`` seeds from ``--seed-start``."""
    last = args.seed_start + args.seeds - 1
    if last > MAX_SEED:
        raise ConfigError(f"--seed-start {args.seed_start} with --seeds {args.seeds} goes past the largest seed, "
                          f"{MAX_SEED}")
    return range(args.seed_start, last + 1)


def _exit_past_abandoned_calls(status: int) -> None:
    """Exit now if an interrupted bench or harvest left a model call running, its results being written.

    An abandoned call cannot be joined: a hung endpoint may never answer, and llama.cpp's
    generation, native code, neither stops for Python nor lets a normal exit finish while
    it runs (an interrupted 1.5B bench computed on for minutes). Everything the bench
    keeps is fsynced by now; only the process is left to end.
    """
    from webwise.bench import CALL_THREAD

    if any(thread.name == CALL_THREAD and thread.is_alive() for thread in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)


def _report(args: argparse.Namespace) -> int:
    from webwise.report import write_report

    print(write_report(args.dir))
    return 0


def _tasks(args: argparse.Namespace) -> int:
    """One line per task: name, group and the actions its reference program uses (or what it needs)."""
    for task in PAPER48 if args.paper48 else all_tasks():
        group = suite_group(task)
        if args.group is None or args.group == group:
            entry = catalog().get(task, {})
            what = ",".join(entry.get("actions", ())) or (f"needs: {entry['needs']}" if "needs" in entry else "-")
            print(f"{task}\t{group}\t{what}")
    sys.stdout.flush()  # a reader that left (`| head`) shows here, where main handles it, not at exit
    return 0


def _solve(args: argparse.Namespace) -> int:
    from webwise.session import Session  # after validation: importing it starts nothing, but loads selenium

    check_task(args.task)
    check_method(args.method, args.examples)
    load_examples(args.task, args.examples, args.store)  # before the browser and the model start
    settings = Settings(max_steps=args.max_steps, max_tokens=args.max_tokens, trials=args.trials,
                        screenshot_dir=args.screenshots,
                        store_dir=args.store, guards=args.guards)
    with Session(args.llm, settings) as session:
        if not args.json:
            print(f"solving {args.task} (seed {args.seed}, method {args.method}, examples {args.examples}, "
                  f"llm {shown_line(session.llm.name)})", file=sys.stderr)
        try:
            episode = session.run(args.task, args.seed, args.method, args.examples)
        except (BrowserDied, PageFault) as exc:  # the record so far, with its error: --json prints it too
            episode = getattr(exc, "episode", None)
            if episode is None:
                raise WebwiseError(str(exc)) from None
    if args.json:
        print(json.dumps(episode.to_dict()))
    else:
        print(shown(summary(episode)))  # a program's escape sequences are shown, not obeyed
    return 0 if episode.success else 1


def summary(episode: Episode) -> str:
    """A readable account of an episode for the terminal."""
    lines = [f"task: {episode.utterance}"]
    for step in episode.trace:
        trial = f"trial {step.trial + 1}, " if len(episode.trials) > 1 else ""
        source = f", {step.source}" if step.source != "model" else ""
        lines.append(f"--- {trial}step {step.index + 1}{source}" + (f" ({step.note})" if step.note else ""))
        lines.append(step.program if step.program is not None else "(no usable program)")
        if step.error:
            lines.append(f"error: {step.error}")
        if step.status:
            lines.append(f"=> {step.status}")
    verdict = "SOLVED" if episode.success else "NOT SOLVED"
    lines.append(f"{verdict}: reward {episode.raw_reward:g} in {episode.steps} step(s), {episode.llm_calls} LLM "
                 f"call(s), {episode.prompt_tokens}+{episode.completion_tokens} tokens, {episode.seconds:.1f} s"
                 + (f"; {episode.error}" if episode.error else ""))
    return "\n".join(lines)
