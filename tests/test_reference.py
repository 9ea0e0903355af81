"""The reference programs: well-formed fixtures for every task, and the ceiling they reach.

The default run checks the files (every task has a program or a reason, each program goes
through the model's own extraction unchanged); the slow run replays every reference that
the catalog counts in the ceiling on two of the seeds the catalog was measured on, through
``bench`` with the replay backend: sandbox, executor and headless Chromium, as a model's
program runs. It guards the harness: what the catalog says a program solves, it still
solves. How far references generalise is measured by ``benchmarks/ceiling.py`` on fresh
seeds, not here: some pages cannot be won on every seed by any program (terminal's file
check, a crowd-written instruction that swaps sender and recipient).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.reference import PROGRAMS, covered, left_out, programs, replies, write_replay
from webwise.bench import RESULTS, BenchConfig, read_results, run_bench
from webwise.extraction import extract_program, normal
from webwise.tasks import all_tasks, catalog

#: Seeds of the slow replay: the first two of the catalog's ceiling run (benchmarks/results/ceiling).
CHECK_SEEDS = range(5000, 5002)


def test_every_task_has_a_reference_or_a_reason() -> None:
    with_program, without = set(covered()), set(left_out())
    assert not with_program & without, "a task has both a program and a .skip"
    assert with_program | without == set(all_tasks())
    assert not {p.stem for p in PROGRAMS.iterdir()} - set(all_tasks()), "a file names no task"
    assert all(reason and "\n" not in reason for reason in left_out().values())


@pytest.mark.parametrize("task", covered())
def test_each_program_reads_as_a_models_program(task: str) -> None:
    """Extraction gives back each program as written: nothing the checks drop or refuse."""
    for program, reply in zip(programs(task), replies([task])[task]):
        assert normal(extract_program(reply)) == normal(program)


def test_the_catalog_names_real_tasks_and_only_solved_ones_have_actions() -> None:
    assert set(catalog()) <= set(all_tasks())
    for task, entry in catalog().items():
        assert ("actions" in entry) != ("needs" in entry), task
        assert "needs" not in entry or task in left_out(), task


@pytest.mark.slow
def test_references_in_the_ceiling_still_solve_their_seeds(tmp_path: Path) -> None:
    ceiling = sorted(t for t, e in catalog().items() if e.get("seeds_solved", "").split("/")[0] == "10")
    assert ceiling
    replay = write_replay(tmp_path / "references.json", ceiling)
    config = BenchConfig(tasks=ceiling, seeds=CHECK_SEEDS, methods=["webwise"], examples=["none"],
                         llm=f"replay:{replay}", out=tmp_path / "run", workers=2)
    run_bench(config)
    failed = sorted({(r["task"], r["seed"]) for r in read_results(tmp_path / "run" / RESULTS) if not r["success"]})
    assert not failed
