"""A run's plan (simstudy.planning): made once, frozen, and executed as it is."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import io
import json
import sqlite3

import pytest

import simstudy as ss
from simstudy import planning
from simstudy.catalog import get_study
from simstudy.errors import SimstudyError
from simstudy.planning import Plan, make_plan
from simstudy.runner import run_study
from simstudy.store import Store, stats_version

CELL = "iris/nmc~1nn/5x2"


def _study(runs: int, tests=("t5x2cv", "F5x2cv")):
    s = get_study("demo", runs=runs, chunk=2).select(CELL)
    return s.replace(cells=[dataclasses.replace(s.cells[0], tests=tuple(tests))])


def _rows(path, table: str) -> list:
    cols = ("cell, seed, run, errors, n_train, n_test, trial_seed, losses" if table == "trials"
            else "*")
    with contextlib.closing(sqlite3.connect(path)) as con:
        return con.execute(f"SELECT {cols} FROM {table} ORDER BY 1, 2, 3, 4").fetchall()


def test_a_plan_on_an_empty_store(tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        p = make_plan(_study(5), st)
    assert isinstance(p, Plan) and p.store == str(tmp_path / "s.sqlite")
    assert [c.runs for c in p.chunks] == [(0, 1), (2, 3), (4,)]  # canonical blocks of 2
    assert {c.cell.id for c in p.chunks} == {CELL} and {c.seed for c in p.chunks} == {0}
    assert (p.total, p.done_before, p.missing) == (5, 0, 5)
    assert dict(p.stored) == {CELL: frozenset()} and p.results == ()
    grid = hashlib.sha256(f"{CELL}|t5x2cv,F5x2cv".encode()).hexdigest()[:12]
    want = {"study": "demo", "runs": 5, "seed": 0, "alpha": 0.05, "chunk": 2, "cells": 1,
            "grid": grid, "stats_version": stats_version()}
    assert dict(p.definition) == want and dict(p.facts) == {"definition": want}
    assert p.definition_hash == hashlib.sha256(
        json.dumps(want, sort_keys=True).encode()).hexdigest()[:12]
    assert p.seconds is None  # nothing measured yet: no seconds to promise


def test_a_plan_on_a_half_filled_store_counts_what_is_stored(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        run_study(_study(3, ["t5x2cv"]), st, backend="serial", progress=False)
        p = make_plan(_study(7), st)
        fewer = make_plan(_study(2, ["t5x2cv"]), st)
    assert dict(p.stored) == {CELL: frozenset({0, 1, 2})}
    # run 3 completes the block 2..3; 4..5 and 6 are new blocks
    assert [c.runs for c in p.chunks] == [(3,), (4, 5), (6,)]
    assert (p.total, p.done_before, p.missing) == (7, 3, 4)
    # the stored trials lack the added test: computed from their losses, no refit
    assert [(c.id, runs, tests) for c, runs, tests in p.results] == [
        (CELL, (0, 1, 2), ("F5x2cv",))]
    # the store measured the cell: the cost is in seconds
    assert set(p.measured) == {CELL} and p.seconds == pytest.approx(p.measured[CELL] * 4)
    # runs beyond those asked are neither counted nor planned
    assert dict(fewer.stored) == {CELL: frozenset({0, 1})}
    assert (fewer.chunks, fewer.total, fewer.done_before, fewer.results) == ((), 2, 2, ())


def test_a_plan_is_frozen(tmp_path):
    p = make_plan(_study(3))
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.total = 10
    with pytest.raises(TypeError):
        p.stored[CELL] = frozenset({1})
    with pytest.raises(TypeError):
        p.definition["runs"] = 10
    assert isinstance(p.chunks, tuple) and isinstance(p.results, tuple)
    s = _study(3)
    q = make_plan(s)
    s.runs = 9  # the caller's study changing later does not change the plan
    assert q.study.runs == 3


def test_a_resumed_run_stores_the_bytes_of_one_run(tmp_path):
    """Plan, stop after part of it, plan again, resume: the same bytes as one run."""
    with Store(tmp_path / "one.sqlite") as st:
        s = run_study(make_plan(_study(7), st), st, backend="serial", progress=False)
    assert (s.trials_computed, s.trials_done_before, s.trials_total) == (7, 0, 7)
    with Store(tmp_path / "two.sqlite") as st:
        run_study(make_plan(_study(3, ["t5x2cv"]), st), st, backend="serial", progress=False)
        p = make_plan(_study(7), st)
        s = run_study(p, st, jobs=2, progress=False)
        again = make_plan(p, st)
    assert (s.trials_computed, s.trials_done_before, s.results_recomputed) == (4, 3, 3)
    assert again.chunks == () and again.results == () and again.done_before == 7
    for table in ("trials", "results"):
        assert _rows(tmp_path / "two.sqlite", table) == _rows(tmp_path / "one.sqlite", table)


def test_a_plan_runs_on_the_store_it_read(tmp_path):
    with Store(tmp_path / "a.sqlite") as a, Store(tmp_path / "b.sqlite") as b:
        p = make_plan(_study(2), a)
        with pytest.raises(SimstudyError, match="the plan was made on store .*a.sqlite"):
            run_study(p, b, progress=False)
        with pytest.raises(SimstudyError, match="the plan was made on store None"):
            run_study(make_plan(_study(2)), b, progress=False)
        with pytest.raises(SimstudyError, match="shard and costs are the plan's"):
            run_study(p, a, shard=(1, 2), progress=False)
    with pytest.raises(SimstudyError, match="make_plan needs a Study or a Plan"):
        make_plan("demo")


def test_replanning_a_plan_checks_nothing_again(tmp_path, monkeypatch):
    n: collections.Counter = collections.Counter()
    real = planning.check_folds

    def counted(*a, **k):
        n["check_folds"] += 1
        return real(*a, **k)

    monkeypatch.setattr(planning, "check_folds", counted)
    p = make_plan(_study(4))
    assert n["check_folds"] == 1
    with Store(tmp_path / "s.sqlite") as st:
        q = make_plan(p, st, seed=5)
    assert n["check_folds"] == 1  # validated once, in the first plan
    assert q.study.seed == 5 and {c.seed for c in q.chunks} == {5}
    assert q.definition["seed"] == 5 and q.definition_hash != p.definition_hash


def test_the_facade_and_the_dry_run_print_the_plan(tmp_path):
    from simstudy.cli import main

    path = tmp_path / "s.sqlite"
    assert ss.plan("demo", runs=3, store=path, filter=CELL).chunks[0].runs == (0, 1, 2)
    assert not path.exists()  # planning creates no store
    ss.run("demo", runs=2, store=path, filter=CELL, progress=False)
    p = ss.plan("demo", runs=3, store=path, filter=CELL)
    assert (p.done_before, [c.runs for c in p.chunks]) == (2, [(2,)])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["run", "demo", "--runs", "3", "--store", str(path), "--filter", CELL,
                     "--dry-run"]) == 0
    text = out.getvalue()
    assert "1 cells x 3 runs: 3 trials, 2 stored, 1 to compute in 1 work units" in text
    assert f"definition {p.definition_hash}" in text and f"| {CELL} | 2 | 1 | 1 | 0 |" in text
    with Store(path, readonly=True) as st:
        assert st.done_runs(CELL, 0) == {0, 1}  # the dry run computed nothing
