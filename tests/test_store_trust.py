"""A store a researcher can trust: every stored trial answers every question asked
of it, and every bad input gets one line, exit 2, and leaves the store as it was."""

import dataclasses
import gzip
import hashlib
import json
import os
import platform
import shutil
import sqlite3
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from simstudy import runner as runner_mod
from simstudy import store as stattests  # stats_version: the stats code's stamp
from simstudy.aggregate import collect
from simstudy.catalog import get_study
from simstudy.errors import SimstudyError
from simstudy.learners.base import Learner
from simstudy.provenance import blas_kernels
from simstudy.runner import run_study
from simstudy.stats import ftest_5x2cv
from simstudy.store import Store
from simstudy.study import Study, cells


def run_cli(*args, cwd=None, exe=None):
    cmd = [exe, *args] if exe else [sys.executable, "-m", "simstudy", *args]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd, timeout=300)
    return r.returncode, r.stdout, r.stderr


def one_line_error(rc, err, needle=None):
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert rc == 2, err
    assert len(lines) == 1 and "Traceback" not in err, err
    if needle is not None:
        assert needle in lines[0], lines[0]
    return lines[0]


def sha(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def study_file(tmp_path, tests=("t5x2cv",), name="mystudy.py", source="iris",
               learners=("nmc", "1nn"), runs=6):
    p = tmp_path / name
    p.write_text(textwrap.dedent(f"""
        from simstudy.study import Study, cells

        def build():
            grid = cells(sources=[{source!r}], learners=[{tuple(learners)!r}],
                         designs=["5x2"], tests={list(tests)!r})
            return Study("mystudy", grid, runs={runs}, seed=0, chunk=3)
    """))
    return p


# --- tests are results of stored losses, not of runs ----------------------------------------

def test_adding_a_test_computes_only_that_test_with_zero_fits(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        first = run_study(get_study(str(study_file(tmp_path))), st, backend="serial",
                          progress=False)
    assert first.trials_computed == 6
    more = get_study(str(study_file(tmp_path, ("t5x2cv", "F5x2cv"), name="more.py")))
    monkeypatch.setattr(runner_mod, "compute_chunk",
                        lambda c: (_ for _ in ()).throw(AssertionError("fitted")))
    with Store(path) as st:
        second = run_study(more, st, backend="serial", progress=False)
        res = st.results([c.id for c in more.cells], seed=0)
        trials = st.trials([c.id for c in more.cells], seed=0)
    assert second.trials_computed == 0 and second.results_recomputed == 6
    assert sorted(set(res["test"])) == ["F5x2cv", "t5x2cv"]
    f = res[res["test"] == "F5x2cv"].set_index("run")["pvalue"]
    for tr in trials.itertuples():
        assert f[tr.run] == pytest.approx(ftest_5x2cv(tr.errors[0] - tr.errors[1]).pvalue, rel=1e-12)


def test_changed_stats_code_refreshes_results_without_refit(tmp_path, monkeypatch):
    study = get_study(str(study_file(tmp_path, ("t5x2cv", "F5x2cv"))))
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        run_study(study, st, backend="serial", progress=False)
    monkeypatch.setattr(stattests, "stats_version", lambda: "a-new-version")
    monkeypatch.setattr(runner_mod, "compute_chunk",
                        lambda c: (_ for _ in ()).throw(AssertionError("fitted")))
    with Store(path) as st:
        s = run_study(study, st, backend="serial", progress=False)
        versions = set(st.results(seed=0)["stats_version"])
        again = run_study(study, st, backend="serial", progress=False)
    assert s.trials_computed == 0 and s.results_recomputed == 12
    assert versions == {"a-new-version"}
    assert again.results_recomputed == 0


def test_alpha_is_applied_when_reading(tmp_path):
    study = get_study("demo", runs=10)
    with Store(tmp_path / "s.sqlite") as st:
        run_study(study, st, backend="serial", progress=False)
        res = st.results(seed=0)
        for alpha in (0.001, 0.05, 0.3):
            t = collect(study, st, alpha=alpha).table
            assert t["rejects"].sum() == int((res["pvalue"] < alpha).sum())
    assert (res["pvalue"] < 0.001).sum() < (res["pvalue"] < 0.05).sum()


def test_cli_report_alpha_counts_only_small_pvalues(tmp_path):
    assert run_cli("run", "demo", "--runs", "10", "--no-progress", cwd=tmp_path)[0] == 0
    rc, out, _ = run_cli("report", "demo", "--alpha", "0.001", "--format", "csv", cwd=tmp_path)
    assert rc == 0
    con = sqlite3.connect(tmp_path / "simstudy-store.sqlite")
    small = con.execute("SELECT COUNT(*) FROM results WHERE pvalue < 0.001").fetchone()[0]
    rejects = sum(int(line.split(",")[2]) for line in out.strip().splitlines()[1:])
    assert rejects == small


def test_report_shows_what_the_store_holds(tmp_path):
    assert run_cli("run", "demo", "--runs", "12", "--seed", "7", "--no-progress",
                   "--filter", "iris/nmc", cwd=tmp_path)[0] == 0
    rc, out, err = run_cli("report", "demo", "--filter", "iris/nmc", "--format", "csv",
                           cwd=tmp_path)
    assert rc == 0, err
    assert {int(line.split(",")[3]) for line in out.strip().splitlines()[1:]} == {12}
    # more runs asked than stored: one line says so, and the stored runs are reported
    rc, out, err = run_cli("report", "demo", "--filter", "iris/nmc", "--runs", "50",
                           "--format", "csv", cwd=tmp_path)
    assert rc == 0 and "at most 12" in err and len(err.strip().splitlines()) == 1
    # a second seed: report asks which
    assert run_cli("run", "demo", "--runs", "3", "--seed", "8", "--no-progress",
                   "--filter", "iris/nmc", cwd=tmp_path)[0] == 0
    rc, _, err = run_cli("report", "demo", "--filter", "iris/nmc", cwd=tmp_path)
    one_line_error(rc, err, "[7, 8]")
    rc, _, err = run_cli("report", "demo", "--seed", "9", cwd=tmp_path)
    one_line_error(rc, err, "seed 9")


# --- trial keys depend on content -------------------------------------------------------------

def _csv(path, rows):
    path.write_text("a,b,class\n" + "\n".join(rows) + "\n")


def test_editing_a_csv_makes_new_trials_and_keeps_the_old(tmp_path):
    data = tmp_path / "mydata.csv"
    rng = np.random.default_rng(0)
    rows = [f"{x:.3f},{y:.3f},{'p' if x + y > 0 else 'q'}" for x, y in rng.normal(size=(40, 2))]
    _csv(data, rows)
    sf = study_file(tmp_path, source=str(data), learners=("nmc", "max"))
    study = get_study(str(sf))
    cid = study.cells[0].id
    assert cid.startswith("mydata@") and str(tmp_path) not in cid
    with Store(tmp_path / "s.sqlite") as st:
        assert run_study(study, st, backend="serial", progress=False).trials_computed == 6
        _csv(data, rows[:-1] + ["9.0,9.0,q"])
        edited = get_study(str(sf))
        assert edited.cells[0].id != cid
        assert run_study(edited, st, backend="serial", progress=False).trials_computed == 6
        assert len(st.done_runs(cid, 0)) == 6  # the old trials stay, untouched


def test_csv_too_small_for_its_design(tmp_path):
    data = tmp_path / "tiny.csv"
    _csv(data, ["1,2,p", "2,3,q", "3,1,p"])
    sf = study_file(tmp_path, source=str(data), learners=("nmc", "max"))
    rc, _, err = run_cli("run", str(sf), cwd=tmp_path)
    one_line_error(rc, err, "too small")
    assert not (tmp_path / "simstudy-store.sqlite").exists()


def test_continuous_label_is_refused_unless_named(tmp_path):
    data = tmp_path / "reg.csv"
    rng = np.random.default_rng(1)
    data.write_text("a,b,target\n" + "\n".join(f"{x:.4f},{y:.4f},{x * 3 + y:.5f}"
                                             for x, y in rng.normal(size=(60, 2))) + "\n")
    sf = study_file(tmp_path, source=str(data), learners=("nmc", "max"))
    rc, _, err = run_cli("run", str(sf), cwd=tmp_path)
    one_line_error(rc, err, "looks continuous")
    from simstudy.sources import get_source

    named = get_source(f"{data}[label=a]").sample(None)  # named: the user says so
    assert named.n_classes == 60 and named.X.shape[1] == 2


# --- learners: bad predictions, failures, code paths ---------------------------------------

class BadPredictions(Learner):
    name = "bad"

    def __init__(self, value):
        self.value = value

    def fit_predict(self, X, y, train, test, seeds):
        out = np.zeros(train.shape, dtype=float)
        out[:, 0] = self.value  # one wrong prediction per model
        return out


def _one_cell(learner, runs=4):
    return Study("t", cells(["iris"], [("max", "nmc")], ["5x2"], ["t5x2cv"]), runs=runs,
                 chunk=2)


@pytest.mark.parametrize("value", [np.nan, 0.5, 7.0, -1.0])
def test_bad_predictions_are_an_error_naming_cell_and_fold(value, monkeypatch, tmp_path):
    bad = BadPredictions(value)
    real = runner_mod.learner_of
    monkeypatch.setattr(runner_mod, "learner_of", lambda s: bad if s == "max" else real(s))
    with Store(tmp_path / "s.sqlite") as st, pytest.raises(SimstudyError) as e:
        run_study(_one_cell(bad), st, backend="serial", progress=False)
    msg = str(e.value)
    assert "'max'" in msg and "iris/max~nmc/5x2" in msg and "run 0, fold " in msg and "0..2" in msg


def test_a_learner_that_raises_stops_with_one_line_and_keeps_work(monkeypatch, tmp_path):
    calls = {"n": 0}
    real = runner_mod.learner_of

    class FailsLater(Learner):
        name = "fails"

        def fit_predict(self, X, y, train, test, seeds):
            calls["n"] += 1
            if calls["n"] > 1:  # the first chunk succeeds, the second fails
                raise np.linalg.LinAlgError("singular matrix")
            return np.zeros(train.shape, dtype=np.int64)

    f = FailsLater()
    monkeypatch.setattr(runner_mod, "learner_of", lambda s: f if s == "max" else real(s))
    path = tmp_path / "s.sqlite"
    with Store(path) as st, pytest.raises(SimstudyError) as e:
        run_study(_one_cell(f), st, backend="serial", progress=False)
    assert "LinAlgError: singular matrix" in str(e.value) and "run 2, fold 0" in str(e.value)
    with Store(path) as st:
        assert st.done_runs("iris/max~nmc/5x2", 0) == {0, 1}  # the committed chunk is kept
        log = st.runs_log()
    assert log["status"].tolist() == ["failed"] and "LinAlgError" in log["message"][0]


def test_every_trial_records_its_learner_code_path(tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        run_study(get_study("demo", runs=2).select("iris/nmc"), st, backend="serial",
                  progress=False)
        impl = json.loads(st.trials()["impl"][0])
    assert impl == ["simstudy.learners.linear:FastNMC", "simstudy.learners.neighbours:Fast1NN"]


@pytest.fixture(scope="module")
def run_args(tmp_path_factory) -> dict:
    """``runs.args`` of one small invocation (what every run records about itself)."""
    with Store(tmp_path_factory.mktemp("args") / "s.sqlite") as st:
        run_study(get_study("demo", runs=1).select("iris/nmc"), st, backend="serial",
                  progress=False)
        return json.loads(st.runs_log()["args"][0])


def test_every_invocation_records_numbas_compile_target(run_args, monkeypatch):
    """The default lp/mlp are bitwise per compile target (fastmath reassociation), so each
    run records the target: the host's CPU, or NUMBA_CPU_NAME when it is set."""
    import llvmlite.binding as llvm
    import numba
    from numba.core import config

    from simstudy.provenance import compile_target

    args = run_args
    host = config.CPU_NAME or llvm.get_host_cpu_name()
    assert args["compile_target"].startswith(host)
    assert args["compile_target"].endswith(f"numba {numba.__version__}")
    monkeypatch.setattr(config, "CPU_NAME", "skylake-avx512")
    monkeypatch.setattr(config, "CPU_FEATURES", "")
    assert compile_target().startswith("skylake-avx512, numba ")


def test_every_invocation_records_the_blas_kernels(run_args):
    """OpenBLAS picks its kernels per CPU, and the svm scaling and lda differ in the last bits
    between kernels, so each run records them (as threadpoolctl reports them)."""
    from threadpoolctl import threadpool_info

    args = run_args
    assert args["blas"] == blas_kernels()
    archs = {i["architecture"] for i in threadpool_info()
             if i.get("user_api") == "blas" and i.get("architecture")}
    assert archs and all(f" {a}" in args["blas"] for a in archs)


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64")
                    or "openblas " not in blas_kernels(),
                    reason="needs OpenBLAS on x86-64 (the kernel name)")
def test_openblas_coretype_shows_in_the_recorded_kernels():
    # Nehalem's kernels run on any x86-64 CPU this suite meets; the override must be visible
    env = {**os.environ, "OPENBLAS_CORETYPE": "NEHALEM"}
    out = subprocess.run([sys.executable, "-c",
                          "from simstudy.provenance import blas_kernels; print(blas_kernels())"],
                         env=env, capture_output=True, text=True, check=True).stdout.strip()
    libs = out.split("; ")
    assert libs and all(lib.startswith("openblas ") and lib.endswith(" Nehalem")
                        for lib in libs), out


# --- bench ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    d = tmp_path_factory.mktemp("bench")
    assert run_cli("run", "demo", "--runs", "4", "--no-progress", cwd=d)[0] == 0
    return d


@pytest.mark.parametrize("body, needle", [
    ("return None", "returned None"),
    ("return (1.0, 7.5)", "p = 7.5"),
    ("return (1.0, float('nan'))", "p = nan"),
    ("raise RuntimeError('oops')", "RuntimeError: oops"),
])
def test_bench_bad_test_functions(demo_store, body, needle):
    mod = demo_store / f"t{abs(hash(body))}.py"
    mod.write_text(f"def f(d, *, n_train, n_test):\n    {body}\n")
    rc, _, err = run_cli("bench", "--test", f"{mod}:f", "--study", "demo", "--store",
                         "simstudy-store.sqlite", cwd=demo_store)
    line = one_line_error(rc, err, needle)
    if "raise" in body or "nan" in body or "7.5" in body:
        assert "cell 'iris/nmc~1nn/5x2', run 0" in line


def test_bench_wrong_signature(demo_store):
    mod = demo_store / "sig.py"
    mod.write_text("def f(d):\n    return (0.0, 0.5)\n")
    rc, _, err = run_cli("bench", "--test", f"{mod}:f", "--study", "demo", "--store",
                         "simstudy-store.sqlite", cwd=demo_store)
    one_line_error(rc, err, "cannot be called as f(d, *, n_train, n_test)")


def test_console_script_imports_from_the_current_directory(demo_store):
    exe = shutil.which("simstudy")
    if exe is None:
        pytest.skip("the simstudy console script is not installed in this environment")
    (demo_store / "usertest.py").write_text(
        "from simstudy.stats import ftest_5x2cv\n"
        "def f(d, *, n_train, n_test):\n    return ftest_5x2cv(d)\n")
    rc, out, err = run_cli("bench", "--test", "usertest:f", "--study", "demo", "--store",
                           "simstudy-store.sqlite", cwd=demo_store, exe=exe)
    assert rc == 0, err
    assert "| f |" in out.splitlines()[1] or "f" in out.splitlines()[1]


# --- one line instead of a traceback -------------------------------------------------------

@pytest.mark.parametrize("body, needle", [
    ("raise KeyError('x')", "build() raised KeyError"),
    ("return 42", "must return a simstudy.study.Study"),
])
def test_study_file_build_failures(tmp_path, body, needle):
    sf = tmp_path / "broken.py"
    sf.write_text(f"def build():\n    {body}\n")
    rc, _, err = run_cli("run", str(sf), cwd=tmp_path)
    one_line_error(rc, err, needle)


def test_damaged_store_is_one_line(demo_store, tmp_path):
    path = tmp_path / "damaged.sqlite"
    shutil.copy(demo_store / "simstudy-store.sqlite", path)
    with sqlite3.connect(path) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    raw = bytearray(path.read_bytes())
    page = 4096
    raw[2 * page:6 * page] = b"\xff" * (4 * page)  # scribble over pages in the middle
    path.write_bytes(bytes(raw))
    before = sha(path)
    for args in (["report", "demo"], ["bench", "--test", "x.py:f", "--study", "demo"]):
        (tmp_path / "x.py").write_text("def f(d, *, n_train, n_test):\n    return (0, .5)\n")
        rc, _, err = run_cli(*args, "--store", str(path), cwd=tmp_path)
        one_line_error(rc, err)
    assert sha(path) == before


def test_report_piped_to_head_is_quiet(demo_store):
    r = subprocess.run(f"{sys.executable} -m simstudy report demo | head -n 1", shell=True,
                       capture_output=True, text=True, cwd=demo_store, timeout=120)
    assert r.returncode == 0 and r.stderr == "" and r.stdout.startswith("|")


def test_report_never_writes(tmp_path):
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    rc, _, err = run_cli("report", "demo", "--store", str(empty), cwd=tmp_path)
    one_line_error(rc, err, "empty")
    assert empty.stat().st_size == 0 and not (tmp_path / "empty.sqlite-wal").exists()


def test_run_refuses_a_foreign_sqlite_database(tmp_path):
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as con:
        con.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
        con.execute("INSERT INTO customers VALUES (1, 'x')")
    before = sha(other)
    rc, _, err = run_cli("run", "demo", "--runs", "2", "--store", str(other), cwd=tmp_path)
    one_line_error(rc, err, "not a simstudy store")
    assert sha(other) == before


def test_fast_path_that_cannot_load_is_an_error(monkeypatch):
    from simstudy.learners import registry

    monkeypatch.setattr(registry, "LEARNERS", registry.Registry("learner"))  # nothing yet
    monkeypatch.setattr(registry, "FAMILIES", ("simstudy.learners.no_such_module",))
    monkeypatch.setattr(registry, "_loaded", {})
    with pytest.raises(SimstudyError, match="'nmc'"):
        registry.get_learner("nmc")


# --- schema versions --------------------------------------------------------------------------

V1_SCHEMA = """
CREATE TABLE trials (cell TEXT NOT NULL, seed INTEGER NOT NULL, run INTEGER NOT NULL,
    study TEXT, source TEXT, learners TEXT, design TEXT, trial_seed TEXT, errors TEXT NOT NULL,
    n_train TEXT NOT NULL, n_test TEXT NOT NULL, seconds REAL, created REAL, version TEXT,
    PRIMARY KEY (cell, seed, run));
CREATE TABLE results (cell TEXT NOT NULL, seed INTEGER NOT NULL, run INTEGER NOT NULL,
    test TEXT NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL, statistic REAL, pvalue REAL,
    df TEXT, alpha REAL, reject INTEGER, PRIMARY KEY (cell, seed, run, test, a, b));
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, study TEXT, args TEXT, version TEXT,
    host TEXT, started REAL, finished REAL, trials_done INTEGER);
"""


def test_schema_1_store_is_refused_by_report_and_migrated_by_run(tmp_path):
    study = get_study("demo", runs=3).select("iris/nmc")
    with Store(tmp_path / "new.sqlite") as st:
        run_study(study, st, backend="serial", progress=False)
        trials, results = st.trials(), st.results()
    old = tmp_path / "old.sqlite"
    with sqlite3.connect(old) as con:  # a schema-1 store holding the same trials
        con.executescript(V1_SCHEMA)
        for tr in trials.itertuples():
            con.execute("INSERT INTO trials VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                        (tr.cell, tr.seed, tr.run, tr.study, tr.source, tr.learners, tr.design,
                         tr.trial_seed, json.dumps(tr.errors.tolist()),
                         json.dumps(tr.n_train.tolist()), json.dumps(tr.n_test.tolist()),
                         tr.seconds, tr.created, "0.1.0"))
        for r in results.itertuples():
            con.execute("INSERT INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                        (r.cell, r.seed, r.run, r.test, r.a, r.b, r.statistic, r.pvalue, r.df,
                         r.alpha, r.reject))
    before = sha(old)
    rc, _, err = run_cli("report", "demo", "--store", str(old), cwd=tmp_path)
    one_line_error(rc, err, "migrate")
    assert sha(old) == before
    with Store(old) as st:  # opening for writing migrates, keeping a backup
        s = run_study(study, st, backend="serial", progress=False)
    assert s.trials_computed == 0
    assert sha(tmp_path / "old.sqlite.v1.bak") == before
    with Store(old, readonly=True) as st:
        assert len(st.trials()) == len(trials)


def test_dataclass_cells_keep_their_ids():
    c = cells(["iris"], [("nmc", "1nn")], ["5x2"], ["t5x2cv"])[0]
    assert c.id == "iris/nmc~1nn/5x2" == dataclasses.replace(c, source_key="").id


# --- snapshot: a consistent copy while a run writes ------------------------------------------

def _rows(path):
    with sqlite3.connect(path) as con:
        return con.execute("SELECT cell, seed, run, errors FROM trials ORDER BY 1, 2, 3").fetchall()


def test_snapshot_copies_committed_trials_while_a_writer_holds_the_store(tmp_path):
    src, old = tmp_path / "live.sqlite", tmp_path / "snap.sqlite"
    with Store(src) as writer:
        run_study(get_study("demo", runs=2), writer, backend="serial", progress=False)
        with Store(src, readonly=True) as ro:
            ro.snapshot(old)  # an older snapshot, replaced below
        run_study(get_study("demo", runs=4), writer, backend="serial", progress=False)
        committed = _rows(src)
        assert (src.parent / (src.name + "-wal")).exists()  # trials still in the WAL
        # an open transaction of the writer: not committed, so not in the copy
        writer.con.execute("INSERT INTO trials (cell, seed, run, errors, n_train, n_test) "
                           "VALUES ('x', 0, 0, '[]', '[]', '[]')")
        assert writer.con.in_transaction
        with Store(src, readonly=True) as ro:
            assert len(_rows(old)) < len(committed)
            ro.snapshot(old)
        writer.con.rollback()
    assert _rows(old) == committed and len(committed) == 24
    # one self-contained file: no WAL beside it, rollback journal mode, readable elsewhere
    assert not (tmp_path / "snap.sqlite-wal").exists()
    with sqlite3.connect(old) as con:
        assert con.execute("PRAGMA journal_mode").fetchone()[0] == "delete"
    elsewhere = tmp_path / "other" / "copy.sqlite"
    elsewhere.parent.mkdir()
    shutil.copy(old, elsewhere)
    with Store(elsewhere, readonly=True) as st:
        assert st.count() == 24
    assert not list(tmp_path.glob(".*.tmp"))  # the temporary file was renamed away


def test_snapshot_refuses_to_overwrite_what_is_not_a_store(tmp_path):
    src = tmp_path / "s.sqlite"
    with Store(src) as st:
        run_study(get_study("demo", runs=2), st, backend="serial", progress=False)
    precious = tmp_path / "data.csv"
    precious.write_text("a,b\n1,2\n")
    before = sha(precious)
    with Store(src, readonly=True) as st:
        with pytest.raises(SimstudyError, match="not a simstudy store.*not overwritten"):
            st.snapshot(precious)
        with pytest.raises(SimstudyError, match="directory"):
            st.snapshot(tmp_path)
        with pytest.raises(SimstudyError, match="the store itself"):
            st.snapshot(src)
        with pytest.raises(SimstudyError, match="does not exist"):
            st.snapshot(tmp_path / "no" / "x.sqlite")
    assert sha(precious) == before


def test_snapshot_cli(tmp_path):
    src = tmp_path / "s.sqlite"
    with Store(src) as st:
        run_study(get_study("demo", runs=2), st, backend="serial", progress=False)
    rc, out, err = run_cli("snapshot", "--store", str(src), str(tmp_path / "c.sqlite"))
    assert rc == 0, err
    assert "12 trials" in out and _rows(tmp_path / "c.sqlite") == _rows(src)
    rc, _, err = run_cli("snapshot", "--store", str(tmp_path / "none.sqlite"),
                         str(tmp_path / "d.sqlite"))
    one_line_error(rc, err, "does not exist")
    assert not (tmp_path / "d.sqlite").exists()


def test_gzip_snapshot_reads_as_the_store_and_is_read_only(tmp_path):
    src = tmp_path / "s.sqlite"
    with Store(src) as st:
        run_study(get_study("demo", runs=2), st, backend="serial", progress=False)
    packed = tmp_path / "c.sqlite.gz"
    rc, out, err = run_cli("snapshot", "--store", str(src), str(packed))
    assert rc == 0, err
    assert "12 trials" in out
    assert gzip.decompress(packed.read_bytes())[:16] == b"SQLite format 3\x00"
    assert packed.stat().st_size < src.stat().st_size
    first = packed.read_bytes()
    with Store(src, readonly=True) as st:
        st.snapshot(packed)  # replaces the older snapshot: the same trials, the same bytes
    assert packed.read_bytes() == first
    with Store(src, readonly=True) as a, Store(packed, readonly=True) as b:
        assert b.count() == a.count() == 12
        pd.testing.assert_frame_equal(b.results(), a.results())
    # report reads it as it is; unpacking it back gives the original rows
    rc, out, err = run_cli("report", "demo", "--runs", "2", "--store", str(packed), "--format", "csv")
    rc2, out2, _ = run_cli("report", "demo", "--runs", "2", "--store", str(src), "--format", "csv")
    assert rc == rc2 == 0 and out == out2, err
    rc, _, err = run_cli("snapshot", "--store", str(packed), str(tmp_path / "back.sqlite"))
    assert rc == 0, err
    assert _rows(tmp_path / "back.sqlite") == _rows(src)
    # writing into it is refused before anything is computed, naming the way out
    rc, _, err = run_cli("demo", "--runs", "2", "--store", str(packed), cwd=tmp_path)
    one_line_error(rc, err, "gzip'd snapshot and read-only")
    assert packed.read_bytes() == first
    bad = tmp_path / "bad.sqlite.gz"
    bad.write_bytes(b"not gzip at all")
    rc, _, err = run_cli("report", "demo", "--store", str(bad))
    one_line_error(rc, err, "not a readable gzip'd simstudy store")
    bad.write_bytes(gzip.compress(b"not a database"))
    rc, _, err = run_cli("report", "demo", "--store", str(bad))
    one_line_error(rc, err, "bad.sqlite.gz")
