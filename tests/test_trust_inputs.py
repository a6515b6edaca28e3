"""Bad input is refused the same way from the command line and from Python; bounds on the
size of a run; a user's test function kept in its box; the data policy for missing values.

The CLI cases are run in-process (``simstudy.cli.main``), each with its Python twin: the two
messages must agree (the value each echoes aside: the CLI echoes the text typed, Python the
value given, and argparse prefixes ``argument --runs:``).
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import sqlite3
import time

import numpy as np
import pandas as pd
import pytest

import simstudy as ss
from simstudy.cli import main
from simstudy.errors import Interrupted, SimstudyError, SimstudyWarning
from simstudy.params import MAX_JOBS, MAX_RUNS, MAX_SEEDS, jobs_for


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    """A store holding 2 runs of demo's iris/nmc cell, and a copy whose trials table's
    root page is overwritten: it opens as a store, reading its trials fails in SQLite."""
    d = tmp_path_factory.mktemp("stored")
    path = d / "s.sqlite"
    ss.run("demo", runs=2, filter="iris/nmc", store=path, progress=False)
    bad = d / "damaged.sqlite"
    shutil.copy(path, bad)
    with sqlite3.connect(bad) as con:
        page = con.execute("SELECT page_size FROM pragma_page_size").fetchone()[0]
        root = con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'trials'"
                           ).fetchone()[0]
    with open(bad, "r+b") as f:
        f.seek((root - 1) * page)
        f.write(b"\xa5" * page)
    return path, bad


def good(d, *, n_train, n_test):
    return 0.0, 0.5


def _cli(argv, capsys) -> tuple[int, str]:
    """Exit status and the error line of ``python -m simstudy ARGV``."""
    rc = main([str(a) for a in argv])
    err = [x for x in capsys.readouterr().err.splitlines() if x.startswith("simstudy: ")]
    return rc, (err[-1] if err else "")


def _cases(tmp, store, damaged):
    """(id, CLI argv, Python call, the value the CLI echoes, the value Python echoes)."""
    empty = tmp / "empty.py"
    empty.write_text("from simstudy.study import Study\n\n"
                     "def build():\n    return Study('empty', [])\n")
    new = tmp / "new.sqlite"
    run = ["run", "demo", "--store", new, "--no-render", "--no-progress"]
    return [
        ("runs over the bound", [*run, "--runs", str(MAX_RUNS + 1)],
         lambda: ss.run("demo", runs=MAX_RUNS + 1, store=new), str(MAX_RUNS + 1), MAX_RUNS + 1),
        ("runs 0", [*run, "--runs", "0"], lambda: ss.run("demo", runs=0, store=new), "0", 0),
        ("seeds over the bound", [*run, "--seeds", str(MAX_SEEDS + 1)],
         lambda: ss.run("demo", seeds=MAX_SEEDS + 1, store=new), str(MAX_SEEDS + 1),
         MAX_SEEDS + 1),
        ("seeds past the largest seed", [*run, "--seed", str(2**63 - 2), "--seeds", "3"],
         lambda: ss.run("demo", seed=2**63 - 2, seeds=3, store=new), None, None),
        ("jobs over the bound", [*run, "--jobs", str(MAX_JOBS + 1)],
         lambda: ss.run("demo", jobs=MAX_JOBS + 1, store=new), str(MAX_JOBS + 1), MAX_JOBS + 1),
        ("sets of a study without sets", [*run, "--sets", "2"],
         lambda: ss.run("demo", sets=2, store=new), None, None),
        ("alpha", [*run, "--alpha", "1.5"], lambda: ss.run("demo", alpha=1.5, store=new),
         "1.5", 1.5),
        ("seed", [*run, "--seed", "-1"], lambda: ss.run("demo", seed=-1, store=new), "-1", -1),
        ("backend", [*run, "--backend", "spark"],
         lambda: ss.run("demo", backend="spark", store=new), None, None),
        ("render", [*run[:-2], "--render", "all"],
         lambda: ss.run("demo", render="all", store=new), None, None),
        ("render none with out", [*run[:-2], "--no-render", "--out", tmp / "o"],
         lambda: ss.run("demo", render="none", out=tmp / "o", store=new), None, None),
        ("empty filter", [*run, "--filter", ""], lambda: ss.run("demo", filter="", store=new),
         None, None),
        ("filter matching nothing", [*run, "--filter", "nomatch"],
         lambda: ss.run("demo", filter="nomatch", store=new), None, None),
        ("shard past the last", [*run, "--shard", "3/2"],
         lambda: ss.run("demo", shard=(3, 2), store=new), "3/2", (3, 2)),
        ("shard 0 (a 0-based job array)", [*run, "--shard", "0/2"],
         lambda: ss.run("demo", shard=(0, 2), store=new), "0/2", (0, 2)),
        ("shard text", [*run, "--shard", "1/2/3"],
         lambda: ss.run("demo", shard="1/2/3", store=new), None, None),
        ("scheduler without dask", [*run, "--scheduler", "tcp://127.0.0.1:1"],
         lambda: ss.run("demo", scheduler="tcp://127.0.0.1:1", store=new), None, None),
        ("costs without shard", [*run, "--costs", store],
         lambda: ss.run("demo", costs=str(store), store=new), None, None),
        ("unknown study", ["run", "nosuch", "--store", new],
         lambda: ss.run("nosuch", store=new), None, None),
        ("study with no cells", ["run", empty, "--store", new, "--no-render"],
         lambda: ss.run(str(empty), store=new, progress=False), None, None),
        ("run on a damaged store", ["run", "demo", "--runs", "2", "--filter", "iris/nmc",
                                    "--store", damaged, "--no-render", "--no-progress"],
         lambda: ss.run("demo", runs=2, filter="iris/nmc", store=damaged, progress=False),
         None, None),
        ("report/collect on a damaged store", ["report", "demo", "--store", damaged],
         lambda: ss.collect("demo", store=damaged), None, None),
        ("report/collect seed", ["report", "demo", "--store", store, "--seed", "-1"],
         lambda: ss.collect("demo", store=store, seed=-1), "-1", -1),
        ("report/collect confidence", ["report", "demo", "--store", store, "--confidence",
                                       "95"],
         lambda: ss.collect("demo", store=store, confidence=95), "95", 95),
        ("report/collect runs", ["report", "demo", "--store", store, "--runs", "0"],
         lambda: ss.collect("demo", store=store, runs=0), "0", 0),
        ("report/collect empty filter", ["report", "demo", "--store", store, "--filter", ""],
         lambda: ss.collect("demo", store=store, filter=""), None, None),
        ("card unknown study", ["card", "--test", f"{__name__}:good", "--studies", "nosuch",
                                "--store", store, "--out", tmp / "c"],
         lambda: ss.card(good, ["nosuch"], store), None, None),
        ("card unknown study, default store", ["card", "--test", f"{__name__}:good",
                                               "--studies", "nosuch", "--out", tmp / "c"],
         lambda: ss.card(good, ["nosuch"]), None, None),
        ("card runs", ["card", "--test", f"{__name__}:good", "--studies", "demo",
                       "--store", store, "--runs", "0", "--out", tmp / "c"],
         lambda: ss.card(good, ["demo"], store, runs=0), "0", 0),
        ("card alpha", ["card", "--test", f"{__name__}:good", "--studies", "demo",
                        "--store", store, "--alpha", "2", "--out", tmp / "c"],
         lambda: ss.card(good, ["demo"], store, alpha=2), "2", 2),
        ("card on a damaged store", ["card", "--test", f"{__name__}:good", "--studies",
                                     "demo", "--store", damaged, "--out", tmp / "c"],
         lambda: ss.card(good, ["demo"], damaged), None, None),
        ("bench unknown study", ["bench", "--test", f"{__name__}:good", "--study", "nosuch",
                                 "--store", store],
         lambda: ss.bench(good, "nosuch", store), None, None),
        ("bench runs", ["bench", "--test", f"{__name__}:good", "--study", "demo",
                        "--store", store, "--runs", str(MAX_RUNS + 1)],
         lambda: ss.bench(good, "demo", store, runs=MAX_RUNS + 1), str(MAX_RUNS + 1),
         MAX_RUNS + 1),
        ("bench on a damaged store", ["bench", "--test", f"{__name__}:good", "--study",
                                      "demo", "--store", damaged],
         lambda: ss.bench(good, "demo", damaged), None, None),
        ("snapshot of a missing store", ["snapshot", tmp / "copy.sqlite", "--store",
                                         tmp / "none.sqlite"],
         lambda: ss.snapshot(tmp / "none.sqlite", tmp / "copy.sqlite"), None, None),
        ("merge of a missing store", ["merge", tmp / "m.sqlite", tmp / "none.sqlite"],
         lambda: ss.merge(tmp / "m.sqlite", [tmp / "none.sqlite"]), None, None),
    ]


def test_every_cli_refusal_is_the_api_refusal(stored, tmp_path, monkeypatch, capsys):
    """Each bad input: the CLI exits 2 with one line, Python raises SimstudyError with the
    same message, and neither leaves a store or an output behind."""
    monkeypatch.chdir(tmp_path)  # a CLI default (out/STUDY) would land here
    store, damaged = stored
    cases = _cases(tmp_path, store, damaged)
    assert len(cases) >= 30
    for name, argv, call, cli_value, api_value in cases:
        rc, line = _cli(argv, capsys)
        assert rc == 2 and line.startswith("simstudy: error: "), (name, rc, line)
        with pytest.raises(SimstudyError) as e:
            call()
        said = str(e.value)
        assert "\n" not in said, name
        cli_msg = line.removeprefix("simstudy: error: ")
        if cli_value is not None:  # the value each echoes: the text typed, the value given
            cli_msg = cli_msg.replace(f"got {cli_value!r}", "got V")
            said = said.replace(f"got {api_value!r}", "got V")
        assert cli_msg.endswith(said), (name, cli_msg, said)
        assert not (tmp_path / "new.sqlite").exists(), name
        assert not (tmp_path / "out").exists() and not (tmp_path / "o").exists(), name


def test_the_refusals_say_why(stored, tmp_path):
    store, damaged = stored
    new = tmp_path / "n.sqlite"
    with pytest.raises(SimstudyError, match=r"^runs must be a positive integer <= 1000000, "
                                            r"got 1000001 \(at most 1,000,000 runs per cell"):
        ss.run("demo", runs=10**6 + 1, store=new)
    with pytest.raises(SimstudyError, match=r"^shard must be I/N .*got \(0, 2\)$"):
        ss.run("demo", shard=(0, 2), store=new)
    with pytest.raises(SimstudyError, match=r"^unknown study 'nosuch'; valid choices: .*type1"):
        ss.card(good, ["nosuch"], store)
    with pytest.raises(SimstudyError, match=r"^study 'empty' has no cells"):
        ss.run(ss.Study("empty", []), store=new)
    with pytest.raises(SimstudyError, match=r"damaged"):  # the store, named as damaged
        ss.run("demo", runs=2, filter="iris/nmc", store=damaged, progress=False)
    with pytest.raises(SimstudyError, match=r"^filter must be a non-empty text"):
        ss.run("demo", filter="", store=new)
    assert not new.exists()


def test_a_shard_is_computed_only_when_it_exists(stored, tmp_path):
    """shard=(2, 2) is the second half; (3, 2) and (0, 2) are refused, not run as empty."""
    r = ss.run("demo", runs=2, filter="iris/nmc", store=tmp_path / "a.sqlite",
               progress=False, shard=(1, 1))
    assert r.trials_computed == 2
    assert ss.run("demo", runs=2, filter="iris/nmc", store=tmp_path / "b.sqlite",
                  progress=False, shard="1/1").trials_computed == 2


def test_jobs_above_the_cores_are_capped_with_a_warning(stored):
    store, _ = stored
    assert jobs_for(8, "joblib", None, cores=2) == (2, jobs_for(8, "joblib", None, cores=2)[1])
    assert "8 is more than this machine's 2 cores" in jobs_for(8, "joblib", None, cores=2)[1]
    assert jobs_for(8, "joblib", None, cores=2, force=True) == (8, None)
    assert jobs_for(8, "dask", "tcp://h:8786", cores=2) == (8, None)  # workers elsewhere
    assert jobs_for(8, "serial", None, cores=2) == (8, None)
    cores = os.cpu_count() or 1
    with pytest.warns(SimstudyWarning, match=f"running {cores} workers"):
        r = ss.run("demo", runs=2, filter="iris/nmc", store=store, progress=False,
                   jobs=cores + 1)
    assert r.trials_computed == 0 and r.runs[0].execution["jobs"] == cores


def test_a_huge_run_says_its_size_before_planning(tmp_path, monkeypatch):
    """The size line comes before validation and planning (which walk the cells and runs)."""
    from simstudy import planning

    def stop(*a, **k):
        raise RuntimeError("planning began")

    monkeypatch.setattr(planning, "validate", stop)
    with pytest.warns(SimstudyWarning) as seen, pytest.raises(RuntimeError, match="planning"):
        ss.run("demo", runs=MAX_RUNS, seeds=2, store=tmp_path / "s.sqlite", progress=False)
    msg = str(seen[0].message)
    # 6 cells x 10**6 runs x 2 seeds; demo's designs are 5x2 (10 fits per learner)
    assert msg.startswith("demo: 12,000,000 trials (6 cells x 1,000,000 runs x 2 root "
                          "seeds), 240,000,000 model fits")
    assert not (tmp_path / "s.sqlite").exists()


def test_a_huge_run_is_estimated_from_the_measured_seconds(stored, tmp_path):
    from simstudy.catalog import get_study
    from simstudy.planning import plan_note

    store, _ = stored
    with sqlite3.connect(store) as con:
        secs = con.execute("SELECT AVG(seconds) FROM trials").fetchone()[0]
    study = get_study("demo", runs=MAX_RUNS).select("iris/nmc")
    note = plan_note(study, 1, store)
    hours = float(note.split("about ")[1].split(" CPU-hours")[0].replace(",", ""))
    assert hours == pytest.approx(secs * MAX_RUNS / 3600, abs=0.05)
    assert "(1 of 1 cells measured" in note
    assert plan_note(study.replace(runs=10), 1, store) is None  # a small run says nothing


def test_plan_groups_the_missing_runs_by_chunk(tmp_path):
    """The vectorised plan gives the chunks the run-by-run plan gave (hand-written here)."""
    from simstudy.catalog import get_study
    from simstudy.planning import _chunks

    study = get_study("demo", runs=25, chunk=10).select("iris/nmc")
    held = frozenset({0, 1, 2, 5, 11, 12, 24})  # the held runs below the runs asked
    chunks = _chunks(study, {study.cells[0].id: held}, keep=False)
    assert [c.runs for c in chunks] == [(3, 4, 6, 7, 8, 9),
                                        (10, 13, 14, 15, 16, 17, 18, 19), (20, 21, 22, 23)]


# --- a user's test in its box ----------------------------------------------------------

def _returns(value):
    def f(d, *, n_train, n_test):
        return 0.0, value
    return f


@pytest.mark.parametrize("value, shown", [(True, "True (bool)"), (np.True_, "np.True_ (bool)"),
                                          ("0.5", "'0.5' (str)"), (None, "None (NoneType)"),
                                          (0.5j, "0.5j (complex)")])
def test_a_p_value_that_is_not_a_number_is_refused(stored, value, shown):
    store, _ = stored
    with pytest.raises(SimstudyError, match=r"returned the p-value " + re.escape(shown)
                       + r".* on cell 'iris/nmc~1nn/5x2', run 0; it must be a number"):
        ss.card(_returns(value), ["demo"], store)


@pytest.mark.parametrize("value", [0.5, 1, np.float32(0.25), np.array(0.5)])
def test_numbers_are_p_values(stored, value):
    store, _ = stored
    assert ss.card(_returns(value), ["demo"], store).trials == 2


def _raises(error):
    def f(d, *, n_train, n_test):
        raise error
    return f


@pytest.mark.parametrize("error, said", [
    (SystemExit(3), r"called sys.exit\(3\) on cell 'iris/nmc~1nn/5x2', run 0; a test must "
                    r"return a p-value"),
    (ZeroDivisionError("no"), r"raised on cell 'iris/nmc~1nn/5x2', run 0: ZeroDivisionError: "
                              r"no")])
def test_sys_exit_and_exceptions_in_the_test_are_named(stored, error, said):
    store, _ = stored
    with pytest.raises(SimstudyError, match=said):
        ss.card(_raises(error), ["demo"], store)


def test_vectorised_bools_are_refused_with_the_run(stored):
    store, _ = stored

    def vec(d, *, n_train, n_test):
        return np.zeros(len(d)), np.zeros(len(d), dtype=bool)

    vec.vectorized = True
    with pytest.raises(SimstudyError, match=r"p-values of type bool on cell "
                                            r"'iris/nmc~1nn/5x2', run 0"):
        ss.card(vec, ["demo"], store)


def test_ctrl_c_in_a_card_says_what_was_done_and_that_nothing_is_stored(stored, tmp_path,
                                                                         monkeypatch, capsys):
    store, _ = stored
    calls = []

    def second(d, *, n_train, n_test):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return 0.0, 0.5

    with pytest.raises(Interrupted) as e:
        ss.card(second, ["demo"], store)
    assert str(e.value).startswith("card 'second' stopped in the test function 'second' on "
                                   "cell 'iris/nmc~1nn/5x2', run 1 after 1 of 2 trials")
    assert "stores nothing" in str(e.value) and "resume" not in str(e.value)
    # at the command line: one line, exit status 130, no card written
    monkeypatch.setattr(f"{__name__}.good", second)
    calls.clear()
    rc, line = _cli(["card", "--test", f"{__name__}:good", "--studies", "demo", "--store",
                     store, "--out", tmp_path / "card"], capsys)
    assert rc == 130 and line.startswith("simstudy: interrupted; card 'good' stopped")
    assert "stores nothing" in line and not (tmp_path / "card").exists()


def test_the_bar_moves_while_a_slow_test_runs():
    """A scalar test of 0.2 s per trial: the bar is told about trials every half second, not
    only after 256 of them (which left it at 0 % for 13 s with a 50 ms test)."""
    from simstudy.usertest import UserTest

    class Bar:
        def __init__(self):
            self.n, self.at = 0, []

        def update(self, k):
            self.n += k
            self.at.append(self.n)

    def slow(d, *, n_train, n_test):
        time.sleep(0.2)
        return 0.0, 0.5

    bar, T = Bar(), 8
    UserTest.of(slow).pvalues(np.zeros((T, 5, 2)), np.ones(T), np.ones(T), runs=np.arange(T),
                              where="cell 'x'", progress=bar)
    assert bar.n == T and len(bar.at) >= 3 and bar.at[0] <= 4


# --- the data policy ---------------------------------------------------------------------

def test_rows_without_a_label_are_refused_unless_dropped(tmp_path):
    p = tmp_path / "nolabel.csv"
    rows = [f"{i},{i % 3},{'x' if i % 2 else 'y'}" for i in range(40)]
    p.write_text("a,b,class\n" + "\n".join([*rows[:5], "1,2,", "3,4,?", *rows[5:], "5,6,NaN"])
                 + "\n")
    with pytest.raises(SimstudyError, match=r"3 of 43 rows have no class label .* e.g. row 6; "
                                            r"label them, or drop them with the source "
                                            r"'.*nolabel.csv\[unlabelled=drop\]'"):
        ss.get_source(str(p)).sample(None)
    src = ss.get_source(f"{p}[unlabelled=drop]")
    data = src.sample(None)
    assert data.X.shape == (40, 2) and data.meta["n_missing_class"] == 3
    assert "unlabelled=drop" in src.key  # other trials than the refused source's
    with pytest.raises(SimstudyError, match="unlabelled must be one of 'refuse', 'drop', got "
                                            "'keep'"):
        ss.get_source(f"{p}[unlabelled=keep]")
    from simstudy.sources import missing_notes

    assert missing_notes([f"{p}[unlabelled=drop]"]) == [
        f"rows without a class label dropped ([unlabelled=drop]): {p}[unlabelled=drop] 3"]


def test_missing_values_stay_missing_and_are_counted(tmp_path):
    """Empty, ? and a literal NaN are missing; a numeric column with NaN stays numeric."""
    p = tmp_path / "holes.csv"
    a = ["NaN" if i % 5 == 0 else str(i) for i in range(40)]
    b = ["?" if i % 7 == 0 else "" if i % 11 == 0 else str(i % 3) for i in range(40)]
    p.write_text("a,b,class\n" + "".join(f"{x},{y},{'xy'[i % 2]}\n"
                                         for i, (x, y) in enumerate(zip(a, b, strict=True))))
    holes = sum(x == "NaN" for x in a) + sum(y in ("?", "") for y in b)  # 8 + 6 + 3
    data = ss.get_source(str(p)).sample(None)
    assert data.feature_names == ("a", "b")  # numeric, not one indicator per text
    assert int(np.isnan(data.X).sum()) == holes == data.meta["n_missing_values"] == 17
    from simstudy.sources import missing_notes

    assert missing_notes([str(p)]) == ["missing attribute values, kept missing (each learner "
                                       f"handles them as it defines): {p} 17"]


def test_a_run_reports_the_missing_values(tmp_path):
    study = ss.Study("holes", ss.cells(["hepatitis"], [("nmc", "1nn")], ["5x2cv"],
                                       ["t5x2cv"]), runs=1)
    r = ss.run(study, store=tmp_path / "s.sqlite", progress=False)
    raw = pd.read_csv(gzip.open(ss.get_source("hepatitis").sample(None).meta["path"]),
                      keep_default_na=False, dtype=str)
    holes = int((raw.drop(columns="class") == "").to_numpy().sum())  # the file's own count
    assert r.notes == ["missing attribute values, kept missing (each learner handles them "
                       f"as it defines): hepatitis {holes:,}"]


def test_list_counts_the_missing_values_of_the_bundled_sets(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.split()[:1] == ["anneal"])
    raw = pd.read_csv(gzip.open(ss.get_source("anneal").sample(None).meta["path"]),
                      keep_default_na=False, dtype=str)
    holes = int((raw.drop(columns="class") == "").to_numpy().sum())
    assert line.endswith(f", {holes:,} missing values")
    assert "missing" not in next(x for x in out.splitlines() if x.split()[:1] == ["iris"])


def test_a_card_out_that_cannot_be_a_folder_is_refused_first(stored, tmp_path, capsys):
    """--out naming a file: one line before the card is computed, not a traceback after;
    a card that fails leaves no empty output folder."""
    store, damaged = stored
    f = tmp_path / "notes.txt"
    f.write_text("x")
    card = ["card", "--test", f"{__name__}:good", "--studies", "demo", "--no-figures"]
    rc, line = _cli([*card, "--store", store, "--out", f], capsys)
    assert (rc, line) == (2, f"simstudy: error: out {str(f)!r} is a file; give a directory "
                             "(new or existing)")
    rc, line = _cli([*card, "--store", damaged, "--out", tmp_path / "a" / "b"], capsys)
    assert rc == 2 and "damaged" in line
    assert not (tmp_path / "a").exists()


def test_compare_jobs_have_the_bounds_of_a_run(capsys):
    """compare's --jobs: refused above the bound as run's is, capped at the cores."""
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = np.arange(40) % 2
    with pytest.raises(SimstudyError) as e:
        ss.compare(["nmc", "1nn"], X, y, jobs=MAX_JOBS + 1, measured=False)
    rc, line = _cli(["compare", "--data", "iris", "--models", "nmc", "1nn", "--no-measured",
                     "--jobs", str(MAX_JOBS + 1)], capsys)
    assert rc == 2 and line.endswith(str(e.value).replace(f"got {MAX_JOBS + 1!r}",
                                                          f"got '{MAX_JOBS + 1}'"))
    cores = os.cpu_count() or 1
    with pytest.warns(SimstudyWarning, match=rf"^jobs {cores + 1} is more than this "
                                             rf"machine's {cores} cores: running {cores} "
                                             r"workers \(more would only share the cores\)$"):
        ss.compare(["nmc", "1nn"], X, y, jobs=cores + 1, measured=False)
