"""The ``multitest`` study (Yıldız & Alpaydın 2006) end to end on 2 data sets × 3 runs, its
grid, the data variants it relies on, and ``bench_choice`` on its stored trials."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from simstudy.studies.yildiz2006 import grid as Y

from simstudy.aggregate import collect
from simstudy.bench_choice import ALL, NONE, bench_choice
from simstudy.catalog import get_study
from simstudy.errors import SimstudyError
from simstudy.runner import run_study
from simstudy.sources import get_source
from simstudy.stats.choice import multitest_choice
from simstudy.stats.registry import get_test
from simstudy.store import Store

REF = Path(__file__).resolve().parents[1] / "studies" / "reference"
SETS = ("iris", "hepatitis")
RUNS = 3


# ------------------------------------------------------------------------------ the grid
def test_grid_is_the_papers():
    study = get_study("multitest")
    paper = pd.read_csv(REF / "yildiz2006_table1.csv")
    names = list(dict.fromkeys(paper["dataset"].replace({"Z00": "zoo"})))
    assert [c.label("dataset") for c in study.cells] == names == list(Y.DATASETS)
    assert len(study.cells) == 30 and study.runs == 1000 and study.alpha == 0.05
    for c in study.cells:
        assert c.learners == ("max", "nmc", "lgc", "c45", "1nn")  # prior order, §4.1
        assert c.design == "5x2"  # unstratified random halves
        assert {"anova", "newman-keuls", "multitest", "testfirst"} <= set(c.tests)
    # Table 1's prior ranks are the cells' learner order
    ranks = paper.drop_duplicates("algorithm").set_index("algorithm")["prior_preference_rank"]
    assert [int(ranks[n]) for n in Y.NAMES] == [1, 2, 3, 4, 5]


def test_optdigits_is_the_uci_training_file():
    # optdigits.names: training-set class counts 376 389 380 389 387 376 377 387 380 382
    d = get_source(Y.DATASETS["optdigits"]).sample(None)
    assert d.n == 3823
    assert np.bincount(d.y).tolist() == [376, 389, 380, 389, 387, 376, 377, 387, 380, 382]
    # and the remaining 1797 rows are optdigits.tes (178 182 177 183 181 182 181 179 174 180)
    full = get_source("optdigits").sample(None)
    rest = np.bincount(full.y[3823:], minlength=10).tolist()
    assert rest == [178, 182, 177, 183, 181, 182, 181, 179, 174, 180]
    assert "NOT the paper's 7494-row training file" in Y.NOTES["pendigits"]


def test_rows_parameter_rejects_bad_values():
    for bad in ("optdigits[rows=0]", "optdigits[rows=99999]", "optdigits[rows=abc]"):
        with pytest.raises(SimstudyError, match="rows"):
            get_source(bad)


# ------------------------------------------------------------------ end to end, 2 x 3 runs
@pytest.fixture(scope="module")
def small(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("multitest")
    study = get_study("multitest", runs=RUNS)
    study = study.replace(cells=[c for c in study.cells if c.label("dataset") in SETS])
    store = Store(tmp / "store.sqlite")
    run_study(study, store, jobs=1, backend="serial", progress=False)
    result = collect(study, store)
    out = tmp / "out"
    paths = study.render(result, out)
    return study, store, result, out, paths


def test_outputs_exist(small):
    _, _, _, out, paths = small
    for stem in ("table1", "table1_paper_layout", "table2", "table2_paper_layout", "table3",
                 "table3_paper_layout"):
        for ext in ("md", "csv", "tex"):
            assert (out / f"{stem}.{ext}").stat().st_size > 0
    for stem in ("figure3_multitest_graph", "figure4_error_distributions"):
        for ext in ("png", "pdf"):
            assert (out / f"{stem}.{ext}").stat().st_size > 1000
    assert (out / "RESULTS.md").is_file() and all(p.exists() for p in paths)


def test_stored_choice_rows_recomputed_from_stored_errors(small):
    study, store, _, _, _ = small
    trials = store.trials([c.id for c in study.cells], seed=study.seed)
    res = store.results([c.id for c in study.cells], seed=study.seed)
    res = res[res["a"] < 0]
    assert len(trials) == RUNS * len(SETS)
    assert len(res) == len(trials) * len(Y.METHODS)
    assert (res["b"] == -1).all() and res["pvalue"].isna().all()
    for tr in trials.itertuples(index=False):
        for test in Y.METHODS:
            r = res[(res["cell"] == tr.cell) & (res["run"] == tr.run) & (res["test"] == test)]
            assert len(r) == 1
            best, order = get_test(test)(tr.errors, study.alpha)
            stat = float(r["statistic"].iloc[0])
            assert (np.isnan(stat) and best is None) or stat == best
            extra = r["extra"].iloc[0]
            stored = None if extra is None or extra != extra else json.loads(extra)
            assert stored == (None if order is None else list(order))


def test_table1_is_the_mean_and_sd_of_stored_fold_errors(small):
    study, store, _, out, _ = small
    t1 = pd.read_csv(out / "table1.csv")
    assert list(t1.columns[:6]) == ["dataset", "learner", "mean", "sd", "paper_mean", "paper_sd"]
    assert len(t1) == 150  # every paper row, ours where run
    trials = store.trials([c.id for c in study.cells], seed=study.seed)
    ds = {c.id: c.label("dataset") for c in study.cells}
    for cell, g in trials.groupby("cell"):
        E = 100 * np.stack(list(g["errors"]))  # (T, K, 5, 2)
        for k, name in enumerate(Y.NAMES):
            row = t1[(t1["dataset"] == ds[cell]) & (t1["learner"] == name)].iloc[0]
            e = E[:, k].ravel()
            assert e.size == RUNS * 10
            assert row["mean"] == pytest.approx(e.mean(), abs=1e-9)
            assert row["sd"] == pytest.approx(e.std(ddof=1), abs=1e-9)
    ran = t1[t1["dataset"].isin(SETS)]
    assert ran["mean"].notna().all() and t1[~t1["dataset"].isin(SETS)]["mean"].isna().all()
    # MAX on iris (50/50/50, halves of 75): the training half's majority class has >= 25
    # training cases, so <= 25 of the 75 test cases: every fold error is >= 2/3
    iris = next(c.id for c in study.cells if c.label("dataset") == "iris")
    E = np.stack(list(trials[trials["cell"] == iris]["errors"]))
    assert (E[:, 0] >= 2 / 3 - 1e-12).all()


def test_table3_counts_sum_to_runs_times_sets(small):
    _, _, _, out, _ = small
    t3 = pd.read_csv(out / "table3.csv")
    for method, g in t3.groupby("method"):
        assert g["count"].sum() == RUNS * len(SETS), method
        assert g["pct"].sum() == pytest.approx(100.0)
        assert set(g["best"]) == {NONE, *Y.NAMES}
    mt = t3[(t3["method"] == "MultiTest") & (t3["best"] == NONE)]
    assert int(mt["count"].iloc[0]) == 0  # MultiTest always finds a best
    an = t3[(t3["method"] == "Anova") & t3["best"].isin(Y.NAMES[1:])]
    assert (an["count"] == 0).all()  # Anova's best can only be MAX
    paper = pd.read_csv(REF / "yildiz2006_table3.csv")
    got = t3.dropna(subset=["paper_count"]).set_index(["method", "best"])["paper_count"]
    want = paper.set_index(["method", "best_algorithm"])["count"]
    assert len(got) == 24 and all(int(got[k]) == int(want[k]) for k in want.index)


def test_table2_agrees_with_table3(small):
    _, _, _, out, _ = small
    t2 = pd.read_csv(out / "table2.csv", keep_default_na=False, na_values=[""])
    t3 = pd.read_csv(out / "table3.csv")
    ran = t2[t2["dataset"].isin(SETS)]
    assert (ran["runs"] == RUNS).all()
    assert (ran["first_pct"] >= ran["second_pct"].fillna(0)).all()
    for method, g in ran.groupby("method"):
        # each data set's most chosen label is counted in Table 3 at least that often
        for _, r in g.iterrows():
            c = t3[(t3["method"] == method) & (t3["best"] == r["first"])]["count"].iloc[0]
            assert c >= round(r["first_pct"] * RUNS / 100)
    assert (t2[~t2["dataset"].isin(SETS)]["runs"] == 0).all()


def test_results_md_states_the_claims(small):
    _, _, _, out, _ = small
    text = (out / "RESULTS.md").read_text()
    for claim in ("MultiTest always finds a best", "Anova finds a best only when it accepts",
                  "TestFirst cannot find the best algorithm",
                  "Newman–Keuls cannot find the best only on hepatitis and glass",
                  "MultiTest favours simpler learners", "pendigits is all 10,992 rows"):
        assert claim in text
    assert "**reproduced**: MultiTest always finds a best" in text


# ------------------------------------------------------------------------- bench_choice
def test_bench_choice_reproduces_a_stored_method(small):
    study, store, _, _, _ = small

    def mine(errors, *, alpha):
        assert errors.shape == (5, 5, 2)
        return multitest_choice(errors, alpha)[0]

    t = bench_choice(mine, study, store, name="mine")
    cols = [NONE, *study.cells[0].learners]
    for _cell, g in t.groupby("cell"):
        a = g[g["method"] == "mine"][cols].to_numpy()
        b = g[g["method"] == "multitest"][cols].to_numpy()
        np.testing.assert_array_equal(a, b)
    tot = t[(t["cell"] == ALL) & (t["method"] == "mine")].iloc[0]
    assert tot["runs"] == RUNS * len(SETS) and tot[NONE] == 0.0
    # at another alpha the stored methods are re-decided from the stored errors
    t2 = bench_choice(mine, study, store, name="mine", alpha=0.3)
    a = t2[(t2["cell"] == ALL) & (t2["method"] == "mine")][cols].to_numpy()
    b = t2[(t2["cell"] == ALL) & (t2["method"] == "multitest")][cols].to_numpy()
    np.testing.assert_array_equal(a, b)


def test_bench_choice_none_and_bad_returns(small):
    study, store, _, _, _ = small
    t = bench_choice(lambda e, *, alpha: None, study, store, name="never")
    assert (t[t["method"] == "never"][NONE] == 100.0).all()
    for bad in (5, -1, 1.0, "max", True):
        with pytest.raises(SimstudyError, match="learner index"):
            bench_choice(lambda e, *, alpha, b=bad: b, study, store)
    f = lambda e, *, alpha: 0  # noqa: E731
    f.designs = {"b5x2"}
    with pytest.raises(SimstudyError, match="fits no design"):
        bench_choice(f, study, store)
