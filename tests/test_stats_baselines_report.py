"""simstudy.report.baselines: the baselines table from stored trials (no refit), the
vectorised evaluation of simstudy.stats.baselines against the named tests trial by trial,
reproducibility of the Monte Carlo tests, and the timing harness."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pandas as pd
import pytest

from simstudy.report.baselines import (
    COLUMNS,
    baselines_table,
    benchmark,
    synthetic_trials,
    write_baselines,
)
from simstudy.runner import run_study
from simstudy.seeding import trial_seed
from simstudy.stats import bayes as BY
from simstudy.stats.baselines import Trials, choose, evaluate
from simstudy.stats.mcs import mcs_choice
from simstudy.stats.registry import baselines, get_test
from simstudy.store import Store
from simstudy.study import Cell, Study


def _study(**meta) -> Study:
    cells = [
        Cell("iris", ("nmc", "1nn"), "5x2", ("t5x2cv", "F5x2cv", "mcnemar")),
        Cell("iris", ("nmc", "1nn", "lda"), "5x2", ("t5x2cv", "anova")),
        Cell("wine", ("nmc", "1nn"), "2x5cv", ("corrected-rxk-t",)),
        Cell("iris", ("nmc", "lda"), "resample", ("corrected-resampled-t",)),
    ]
    return Study("tiny-baselines", cells, runs=6, seed=3, chunk=6,
                 meta={"keep_losses": True, **meta})


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    path = tmp_path_factory.mktemp("bl") / "s.sqlite"
    study = _study()
    with Store(path) as store:
        run_study(study, store, jobs=1, backend="serial", progress=False)
    return path, study


def test_the_table_has_every_fitting_new_test_beside_the_stored_ones(stored):
    path, study = stored
    t = baselines_table(path, study)
    assert list(t.columns) == COLUMNS
    by_cell = {c: set(g.loc[g["new"], "test"]) for c, g in t.groupby("cell")}
    five = by_cell["iris/nmc~1nn/5x2"]
    assert set(baselines()) <= five  # 5x2 with losses: every new test fits
    assert {"cv-clt", "bayes-correlated-t", "wilcoxon"} <= by_cell["wine/nmc~1nn/2x5cv"]
    assert "conservative-z" not in by_cell["wine/nmc~1nn/2x5cv"]
    assert not {"cv-clt", "conservative-z", "combined-t5x2cv"} & by_cell[
        "iris/nmc~lda/resample"]
    classic = t[~t["new"] & (t["measure"] != "choice")]
    assert set(classic["test"]) == {"t5x2cv", "F5x2cv", "mcnemar", "corrected-rxk-t",
                                    "corrected-resampled-t"}
    assert (t.loc[t["measure"] != "choice", "runs"] == 6).all()
    # three pairs of the 3-learner cell; choice rows: each method's shares add up to 1
    assert t.loc[t["cell"] == "iris/nmc~1nn~lda/5x2", "pair"].nunique() == 4  # 3 pairs + ''
    ch = t[t["measure"] == "choice"]
    assert set(ch["test"]) == {"mcs", "mcs[stat=max]", "anova"}
    assert np.allclose(ch.groupby("test")["proportion"].sum(), 1.0)
    bayes = t[t["test"] == "bayes-correlated-t"]
    assert np.allclose(bayes[["difference", "equivalence", "undecided"]].sum(axis=1), 1.0)
    assert t.loc[t["test"] != "bayes-correlated-t", "difference"].isna().all()


def test_stored_values_match_the_named_tests_trial_by_trial(stored):
    path, study = stored
    t = baselines_table(path, study)
    with Store(path, readonly=True) as store:
        trials = store.trials(["iris/nmc~1nn~lda/5x2"], seed=study.seed, runs=study.runs,
                              losses=True)
        fls = [store.fold_losses(r) for r in trials.itertuples(index=False)]
    cell = study.cells[1]
    for spec in ("bayes-correlated-t", "combined-t5x2cv", "wilcoxon", "cv-clt[alternative=greater]",
                 "mcnemar-midp", "paired-bootstrap[resamples=exact]"):
        for a, b, pair in ((0, 2, "nmc~lda"), (1, 2, "1nn~lda")):
            p = np.array([get_test(spec)(fl, a, b).pvalue for fl in fls])
            row = t[(t["cell"] == cell.id) & (t["pair"] == pair) & (t["test"] == spec)]
            assert int(row["rejects"].iloc[0]) == int(np.sum(p < study.alpha)), spec
    # the model confidence set as the choice method chooses on each trial
    best = [mcs_choice(fl.errors, study.alpha)[0] for fl in fls]
    rows = t[(t["cell"] == cell.id) & (t["test"] == "mcs")].set_index("chosen")
    for k, name in enumerate(cell.learners):
        assert int(rows.loc[name, "rejects"]) == best.count(k)


def test_vectorised_evaluation_is_each_trial_alone():
    tr = synthetic_trials(40, seed=5, K=3)
    for spec in baselines():
        whole = evaluate(spec, tr, 0, 2)
        for i in (0, 17, 39):
            one = Trials(tr.errors[i:i + 1], tr.n_train[i:i + 1], tr.n_test[i:i + 1],
                         counts={k: v[i:i + 1] for k, v in tr.counts.items()},
                         seeds=tr.seeds[i:i + 1])
            alone = evaluate(spec, one, 0, 2)
            assert alone.pvalue[0] == whole.pvalue[i], (spec, i)
    assert np.array_equal(choose("mcs", tr), choose("mcs", tr))
    e = tr.errors[7]
    assert choose("mcs", Trials(e[None], tr.n_train[:1], tr.n_test[:1]))[0] == mcs_choice(e)[0]


def test_monte_carlo_tests_are_keyed_by_the_trials_seed(stored):
    path, study = stored
    one = baselines_table(path, study, tests=("paired-permutation", "paired-bootstrap"),
                          classic=False, choices=())
    two = baselines_table(path, study, tests=("paired-permutation", "paired-bootstrap"),
                          classic=False, choices=())
    pd.testing.assert_frame_equal(one, two)
    # the registered test reads the same key from a trial's seed
    with Store(path, readonly=True) as store:
        tr = store.trials(["iris/nmc~1nn/5x2"], seed=study.seed, runs=1, losses=True)
        row = next(tr.itertuples(index=False))
        fl = store.fold_losses(row)
    seed = trial_seed(study.seed, "iris/nmc~1nn/5x2", 0)
    fl = dataclasses.replace(fl, seed=seed)
    got = get_test("paired-permutation")(fl, 0, 1).pvalue
    want = evaluate("paired-permutation", Trials(fl.errors[None], fl.n_train[None],
                                                 fl.n_test[None], losses=[fl.losses],
                                                 seeds=[seed])).pvalue[0]
    assert got == want


def test_a_study_that_asks_for_them_stores_them(tmp_path):
    # named in a cell's tests: computed by the run (the Monte Carlo tests keyed by the
    # trial's seed, the Bayesian probabilities kept in results.extra) and recomputed from
    # the stored losses to the same numbers
    import json

    from simstudy.evaluation import evaluate as run_evaluate

    cell = Cell("iris", ("nmc", "1nn"), "5x2", ("bayes-correlated-t", "paired-permutation",
                                                "mcnemar-midp"))
    study = Study("asks", [cell], runs=4, seed=11, chunk=4)
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        run_study(study, store, jobs=1, backend="serial", progress=False)
        res = store.results([cell.id], seed=11)
        tr = store.trials([cell.id], seed=11, losses=True)
    assert tr["losses"].notna().all()  # a per-instance test keeps the losses
    bayes = res[res["test"] == "bayes-correlated-t"].sort_values("run")
    extra = [json.loads(x) for x in bayes["extra"]]
    assert set(extra[0]) == {"p_left", "p_rope", "p_right", "rope"}
    fe = np.stack(list(tr["errors"]))
    ntr = np.stack(list(tr["n_train"])).reshape(4, -1).mean(1)
    nte = np.stack(list(tr["n_test"])).reshape(4, -1).mean(1)
    _, p, pl, p0, pr = BY.correlated_bayesian_ttest_batch(fe[:, 0] - fe[:, 1], ntr, nte)
    assert [e["p_right"] for e in extra] == pr.tolist()
    assert bayes["pvalue"].tolist() == p.tolist()
    perm = res[res["test"] == "paired-permutation"].sort_values("run")["pvalue"].to_numpy()
    seeds = [trial_seed(11, cell.id, r) for r in range(4)]
    want = evaluate("paired-permutation", Trials(fe, ntr, nte, losses=list(tr["losses"]),
                                                 seeds=seeds)).pvalue
    assert perm.tolist() == want.tolist()
    # recomputed from the stored losses, as a run does when the statistics code changed
    with Store(path, readonly=True) as store:
        for row in store.trials([cell.id], seed=11).itertuples(index=False):
            fl = dataclasses.replace(store.fold_losses(row),
                                     seed=trial_seed(11, cell.id, int(row.run)))
            again = {r.test: r.pvalue for r in run_evaluate(cell, fl, 0.05, int(row.run))}
            assert again["paired-permutation"] == perm[int(row.run)]


def test_replicability_where_the_study_repeats_a_data_set(stored):
    path, study = stored
    rep = study.replace(meta={**study.meta, "repetition": "cell"})
    t = baselines_table(path, rep, choices=())
    pw = t[t["measure"] != "choice"]
    assert (pw["rep_units"] == 1).all()  # each cell repeats its data set: one unit
    k = pw["rejects"].to_numpy()
    want = (k * (k - 1) + (6 - k) * (5 - k)) / 30  # Bouckaert & Frank's R(k, n)
    assert np.allclose(pw["R"].to_numpy(), want)


def test_bayes_shares_are_derived_from_the_stored_errors(stored):
    path, study = stored
    t = baselines_table(path, study, tests=("bayes-correlated-t",), classic=False, choices=())
    with Store(path, readonly=True) as store:
        ct = store.fold_errors(["wine/nmc~1nn/2x5cv"], study.seed, study.runs)[
            "wine/nmc~1nn/2x5cv"]
    d = ct.errors[:, 0] - ct.errors[:, 1]
    _, _, pl, p0, pr = BY.correlated_bayesian_ttest_batch(
        d, ct.n_train.reshape(6, -1).mean(1), ct.n_test.reshape(6, -1).mean(1))
    s = BY.decision_shares(pl, p0, pr)
    row = t[t["cell"] == "wine/nmc~1nn/2x5cv"].iloc[0]
    assert (row["difference"], row["equivalence"], row["undecided"]) == (
        s["difference"], s["equivalence"], s["undecided"])


def test_writing_and_the_command_line(stored, tmp_path, capsys):
    path, study = stored
    t = baselines_table(path, study, tests=("sign-test",), choices=())
    files = write_baselines(t, tmp_path / "out")
    assert [f.name for f in files] == ["baselines.md", "baselines.csv", "baselines.tex"]
    back = pd.read_csv(files[1])
    assert len(back) == len(t) and list(back.columns) == COLUMNS
    from simstudy.cli import main

    assert main(["baselines", "nosuch", "--store", str(path)]) == 2
    assert "nosuch" in capsys.readouterr().err
    assert main(["baselines", "demo"]) == 2
    assert "--store" in capsys.readouterr().err


def test_benchmark_reports_every_new_test():
    b = benchmark(300, mc_trials=100, mcs_trials=5, out=open("/dev/null", "w"))
    names = set(b["test"])
    for spec in baselines():
        if spec in ("paired-permutation", "paired-bootstrap"):
            spec = f"{spec} (B = 9999)"
        assert spec in names
    assert {"mcs (K = 5, B = 1000)", "all closed-form and exact tests"} <= names
    assert (b["wall_s"] >= 0).all() and not b["us_per_trial"].isna().any()


def test_synthetic_trials_look_stored():
    tr = synthetic_trials(500, seed=1)
    c = tr.counts[(0, 1)]
    assert tr.errors.shape == (500, 2, 5, 2) and c.shape == (500, 5, 2, 3)
    # counts are consistent with the errors: e_a - e_b = (n01 - n10) / n
    assert np.allclose(tr.errors[:, 0] - tr.errors[:, 1], (c[..., 0] - c[..., 1]) / c[..., 2])
    assert 0.05 < tr.errors.mean() < 0.4
    assert not math.isnan(float(np.corrcoef(tr.errors[:, 0].ravel(),
                                            tr.errors[:, 1].ravel())[0, 1]))
