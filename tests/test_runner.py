"""The runner and the store: determinism across backends, resume, kill-and-resume, bench."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import pytest

from simstudy.aggregate import collect, reject_table, wilson
from simstudy.catalog import get_study
from simstudy.errors import SimstudyError
from simstudy.planning import make_plan
from simstudy.runner import compute_chunk, run_study
from simstudy.store import Store

COLS = ["cell", "run", "test", "statistic", "pvalue", "reject"]


def _results(store: Store, study) -> pd.DataFrame:
    r = store.results([c.id for c in study.cells], seed=study.seed, runs=study.runs)
    return r[COLS].sort_values(["cell", "run", "test"]).reset_index(drop=True)


def _run(path, study, **kw):
    with Store(path) as s:
        summary = run_study(study, s, progress=False, **kw)
        return summary, _results(s, study), s.trials([c.id for c in study.cells])


@pytest.fixture(scope="module")
def demo():
    return get_study("demo", runs=8, chunk=3)


@pytest.fixture(scope="module")
def serial(demo, tmp_path_factory):
    return _run(tmp_path_factory.mktemp("serial") / "s.sqlite", demo, backend="serial")


def test_demo_runs_and_stores_every_trial(demo, serial):
    summary, res, trials = serial
    assert summary.trials_computed == len(demo.cells) * demo.runs == len(trials)
    assert set(res["test"]) == {"t5x2cv", "F5x2cv"}
    assert len(res) == 2 * len(trials)
    E = np.stack(list(trials["errors"]))
    assert E.shape == (len(trials), 2, 5, 2)
    assert np.all((E >= 0) & (E <= 1))
    # iris has 150 instances: random 5x2 halves of 75
    iris = trials[trials["cell"].str.startswith("iris/")]
    assert np.all(np.stack(list(iris["n_test"])) == 75)


@pytest.mark.parametrize("workers", ["forked", "spawned"])
def test_joblib_two_workers_gives_identical_numbers(demo, serial, tmp_path, monkeypatch,
                                                    workers):
    from simstudy import execute

    used = []
    real = execute.Pool._fork_map

    def fork_map(self, fn, items):
        used.append(1)
        yield from real(self, fn, items)

    monkeypatch.setattr(execute.Pool, "_fork_map", fork_map)
    if workers == "forked":  # this test process may have started numba's threads already
        monkeypatch.setattr(execute, "_fork_safe", lambda: True)
    else:
        monkeypatch.setenv("SIMSTUDY_SPAWN", "1")
    _, res, _ = _run(tmp_path / "j.sqlite", demo, backend="joblib", jobs=2)
    pd.testing.assert_frame_equal(res, serial[1])
    assert bool(used) == (workers == "forked")


def test_workers_are_spawned_when_forking_is_unsafe(monkeypatch):
    import types

    from simstudy import execute

    monkeypatch.delenv("SIMSTUDY_SPAWN", raising=False)
    monkeypatch.setitem(sys.modules, "numba.np.ufunc.parallel",
                        types.SimpleNamespace(_is_initialized=False))
    assert execute._fork_safe()
    monkeypatch.setitem(sys.modules, "numba.np.ufunc.parallel",
                        types.SimpleNamespace(_is_initialized=True))
    assert not execute._fork_safe()  # numba's threads are running here: a child cannot use them
    monkeypatch.setitem(sys.modules, "numba.np.ufunc.parallel",
                        types.SimpleNamespace(_is_initialized=False))
    monkeypatch.setenv("SIMSTUDY_SPAWN", "1")
    assert not execute._fork_safe()


def test_dask_local_cluster_gives_identical_numbers(demo, serial, tmp_path):
    pytest.importorskip("distributed")
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None, processes=True) as cluster:
        _, res, _ = _run(tmp_path / "d.sqlite", demo, backend="dask",
                         scheduler=cluster.scheduler_address)
    pd.testing.assert_frame_equal(res, serial[1])


def test_chunk_size_and_cell_order_do_not_change_numbers(demo, serial, tmp_path):
    shuffled = demo.replace(cells=list(reversed(demo.cells)), chunk=1)
    _, res, _ = _run(tmp_path / "o.sqlite", shuffled, backend="serial")
    pd.testing.assert_frame_equal(res, serial[1])
    # a study holding only one of the cells gets that cell's numbers unchanged
    one = demo.select(demo.cells[2].id)
    _, res1, _ = _run(tmp_path / "one.sqlite", one, backend="serial")
    want = serial[1][serial[1]["cell"] == demo.cells[2].id].reset_index(drop=True)
    pd.testing.assert_frame_equal(res1, want)


def test_rerun_computes_only_missing_trials(demo, serial, tmp_path):
    path = tmp_path / "r.sqlite"
    s1, _, _ = _run(path, demo.replace(runs=3), backend="serial")
    s2, res, _ = _run(path, demo, backend="serial")
    assert s1.trials_computed == 3 * len(demo.cells)
    assert s2.trials_done_before == 3 * len(demo.cells)
    assert s2.trials_computed == (demo.runs - 3) * len(demo.cells)
    pd.testing.assert_frame_equal(res, serial[1])
    s3, _, _ = _run(path, demo, backend="serial")
    assert s3.trials_computed == 0


def test_seed_changes_numbers(demo, serial, tmp_path):
    _, res, _ = _run(tmp_path / "s.sqlite", demo.replace(seed=1), backend="serial")
    assert not np.allclose(res["pvalue"], serial[1]["pvalue"])


def test_tests_recomputed_from_stored_losses_match(demo, serial):
    """Every stored p-value is the stats function applied to the stored fold losses."""
    from simstudy.stats import ftest_5x2cv, ttest_5x2cv

    _, res, trials = serial
    for tr in trials.itertuples(index=False):
        d = tr.errors[0] - tr.errors[1]
        got = res[(res["cell"] == tr.cell) & (res["run"] == tr.run)].set_index("test")["pvalue"]
        assert got["F5x2cv"] == pytest.approx(ftest_5x2cv(d).pvalue, abs=0, rel=1e-12)
        assert got["t5x2cv"] == pytest.approx(ttest_5x2cv(d).pvalue, abs=0, rel=1e-12)


def test_aggregate_wilson_and_mcse(demo, tmp_path, serial):
    with Store(tmp_path / "a.sqlite") as s:
        run_study(demo, s, backend="serial", progress=False)
        result = collect(demo, s)
    t = result.table
    assert len(t) == 2 * len(demo.cells)
    row = t.iloc[0]
    assert row["proportion"] == row["rejects"] / row["runs"]
    assert row["ci_low"] <= row["proportion"] <= row["ci_high"]
    assert row["mcse"] == pytest.approx(np.sqrt(row["proportion"] * (1 - row["proportion"]) / row["runs"]))


def test_wilson_against_hand_formula():
    k, n, z = 7, 40, 1.959963984540054
    p = k / n
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    lo, hi = wilson(k, n)
    assert lo == pytest.approx(c - h, rel=1e-9) and hi == pytest.approx(c + h, rel=1e-9)


def test_reject_table_recomputes_at_other_alpha():
    res = pd.DataFrame({"cell": ["c"] * 4, "test": ["t"] * 4, "a": 0, "b": 1,
                        "pvalue": [0.001, 0.03, 0.07, 0.5], "reject": [1, 1, 0, 0]})
    assert reject_table(res)["rejects"].item() == 2
    assert reject_table(res, alpha=0.01)["rejects"].item() == 1
    assert reject_table(res, alpha=0.1)["rejects"].item() == 3


def test_reject_table_confidence_level():
    res = pd.DataFrame({"cell": ["c"] * 40, "test": ["t"] * 40, "a": 0, "b": 1,
                        "pvalue": [0.001] * 7 + [0.5] * 33})
    z = 2.5758293035489004  # the 99.5 % normal quantile: a 99 % two-sided Wilson interval
    p, n = 7 / 40, 40
    c = (p + z * z / (2 * n)) / (1 + z * z / n)
    h = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    t99 = reject_table(res, alpha=0.05, confidence=0.99).iloc[0]
    assert t99["ci_low"] == pytest.approx(c - h, rel=1e-9)
    assert t99["ci_high"] == pytest.approx(c + h, rel=1e-9)
    t95 = reject_table(res, alpha=0.05).iloc[0]
    assert t99["ci_low"] < t95["ci_low"] and t95["ci_high"] < t99["ci_high"]
    for bad in (0.0, 1.0, 95.0):
        with pytest.raises(SimstudyError, match=f"confidence must be in \\(0, 1\\), got {bad!r}"):
            reject_table(res, confidence=bad)


def test_plan_uses_canonical_blocks(demo, tmp_path):
    with Store(tmp_path / "p.sqlite") as s:
        p = make_plan(demo, s)
    assert p.total == demo.runs * len(demo.cells) and p.done_before == 0
    assert {c.runs for c in p.chunks} == {(0, 1, 2), (3, 4, 5), (6, 7)}


# --- bench: a new test on stored losses, no learner fitted -------------------------------------

def my_F(d, *, n_train, n_test):
    """The combined F, re-implemented by a 'user' (Alpaydin 1999 eq. 3.1)."""
    from scipy import stats

    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    f = (d ** 2).sum() / (2 * s2.sum())
    return f, stats.f.sf(f, 10, 5)


def test_bench_uses_stored_losses_without_fitting(demo, tmp_path, monkeypatch):
    from simstudy.benchmark import bench
    from simstudy.learners.base import Learner

    path = tmp_path / "b.sqlite"
    with Store(path) as s:
        run_study(demo, s, backend="serial", progress=False)
    fits = []

    def counting(self, *a, **k):  # any fit during bench is a failure
        fits.append(self)
        raise AssertionError("bench must not fit a learner")

    monkeypatch.setattr(Learner, "fit_predict", counting)
    for mod in list(sys.modules):
        obj = sys.modules[mod]
        for name in dir(obj) if mod.startswith("simstudy.learners") else []:
            cls = getattr(obj, name)
            if isinstance(cls, type) and issubclass(cls, Learner) and "fit_predict" in vars(cls):
                monkeypatch.setattr(cls, "fit_predict", counting)
    with Store(path, create=False) as s:
        table = bench(my_F, demo, s, name="myF")
    assert fits == []
    assert "myF" in table.columns and "F5x2cv" in table.columns
    np.testing.assert_allclose(table["myF"], table["F5x2cv"])


def test_compute_chunk_is_pure(demo):
    from simstudy.planning import Chunk

    c = Chunk("demo", demo.cells[0], (4, 5), 0, 0.05)
    a, b = compute_chunk(c), compute_chunk(c)
    for x, y in zip(a, b, strict=True):
        assert np.array_equal(x.losses.errors, y.losses.errors)


# --- SIGKILL mid-run, then resume --------------------------------------------------------------

def _count(path):
    try:
        con = sqlite3.connect(path, timeout=5)
        n = con.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
        con.close()
        return n
    except sqlite3.Error:
        return 0


def test_sigkill_then_resume_equals_uninterrupted_run(tmp_path):
    cmd = [sys.executable, "-m", "simstudy", "run", "demo", "--filter", "iris", "--runs", "300",
           "--chunk", "1", "--backend", "serial", "--no-progress"]
    killed = tmp_path / "killed.sqlite"
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    p = subprocess.Popen(cmd + ["--store", str(killed), "--out", str(tmp_path / "o1")],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    deadline = time.time() + 120
    while _count(killed) < 20 and time.time() < deadline and p.poll() is None:
        time.sleep(0.02)
    assert p.poll() is None, "the run finished before it could be killed; make it longer"
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    total = 3 * 300
    con = sqlite3.connect(killed)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    before = dict(con.execute("SELECT cell || '#' || run, created FROM trials").fetchall())
    con.close()
    assert 20 <= len(before) < total
    r = subprocess.run(cmd + ["--store", str(killed), "--out", str(tmp_path / "o2")],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"{total - len(before)} trials computed, {len(before)} already stored" in r.stdout
    fresh = tmp_path / "fresh.sqlite"
    r2 = subprocess.run(cmd + ["--store", str(fresh), "--out", str(tmp_path / "o3")],
                        capture_output=True, text=True, env=env, timeout=300)
    assert r2.returncode == 0, r2.stderr
    q = "SELECT cell, run, test, statistic, pvalue, reject FROM results ORDER BY cell, run, test"
    a = sqlite3.connect(killed).execute(q).fetchall()
    b = sqlite3.connect(fresh).execute(q).fetchall()
    assert len(a) == len(b) == 2 * total and a == b
    # no trial stored before the kill was recomputed
    con = sqlite3.connect(killed)
    after = dict(con.execute("SELECT cell || '#' || run, created FROM trials").fetchall())
    assert all(after[k] == v for k, v in before.items())


def test_generated_trials_same_numbers_stacked_or_one_by_one():
    """A chunk of generated trials (stacked for index-based learners, per trial for dense
    ones) gives each trial the numbers it gets alone.  This chunk once crashed AdaBoost."""
    from simstudy.planning import Chunk
    from simstudy.study import Cell

    cell = Cell("wang-case7", ("svm", "ab"), "poor5x2", ("F5x2cv",))
    together = compute_chunk(Chunk("t", cell, tuple(range(25, 50)), 2016, 0.05))
    for rec in together[::6]:
        alone = compute_chunk(Chunk("t", cell, (rec.run,), 2016, 0.05))[0]
        assert np.array_equal(alone.losses.errors, rec.losses.errors)
    cell2 = Cell("wang-case3", ("rt", "ls"), "b3x2", ("tB3x2cv",))
    both = compute_chunk(Chunk("t", cell2, (0, 1, 2), 1, 0.05))
    one = compute_chunk(Chunk("t", cell2, (2,), 1, 0.05))[0]
    assert np.array_equal(both[2].losses.errors, one.losses.errors)


def test_a_learner_that_leaves_test_rows_unpredicted_is_an_error(monkeypatch):
    from simstudy.errors import SimstudyError
    from simstudy.learners import registry
    from simstudy.learners.base import Learner
    from simstudy.planning import Chunk
    from simstudy.study import Cell

    class Lazy(Learner):
        name = "lazy"

        def fit_predict(self, X, y, train, test, seeds):
            return np.full(train.shape, -1, dtype=np.int64)

    monkeypatch.setattr(registry, "LEARNERS", registry.LEARNERS.copy())
    registry.register("lazy", lambda **kw: Lazy())
    with pytest.raises(SimstudyError, match="'lazy'"):
        compute_chunk(Chunk("t", Cell("iris", ("nmc", "lazy"), "5x2", ("t5x2cv",)), (0,), 0, 0.05))


def _blas_threads(_: object) -> list[int]:
    from threadpoolctl import threadpool_info

    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


@pytest.mark.parametrize("workers", ["forked", "spawned"])
def test_local_workers_run_blas_on_one_thread(workers, monkeypatch):
    from simstudy import execute

    if workers == "forked":
        monkeypatch.setattr(execute, "_fork_safe", lambda: True)
    else:
        monkeypatch.setenv("SIMSTUDY_SPAWN", "1")
    pool = execute.Pool("joblib", 2, None, {})
    try:
        seen = list(pool.imap_unordered(_blas_threads, range(4), unit=lambda c: str(c)))
    finally:
        pool.close()
    assert seen and all(t and set(t) == {1} for t in seen)
