"""Study ``ban``: Bouckaert & Frank (2004) Table 5 on the four BAN sources.

The grid is checked against the paper's rows, the counting and the claim checks against
hand counts and the paper's own Table 5, the shared-training-set contract by recomputing
stored trials from scratch, and the whole study runs end to end (``ban --sets 3``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from simstudy.studies.bouckaert2004 import ban as S
from simstudy.studies.bouckaert2004.ban import claims as SC
from simstudy.studies.bouckaert2004.ban import grid as SG
from simstudy.studies.bouckaert2004.ban import tables as ST

from simstudy.aggregate import StudyResult, collect
from simstudy.catalog import get_study
from simstudy.cli import main
from simstudy.designs import get_design
from simstudy.learners import get_learner
from simstudy.planning import validate
from simstudy.seeding import DESIGN, MODEL, draw_seed, trial_seed
from simstudy.sources import get_source
from simstudy.store import Store


def test_grid_is_4_sources_x_the_papers_designs():
    study = get_study("ban")
    assert study.runs == 1000 * 10 and study.meta["runs_per_set"] == 10
    assert study.alpha == 0.05
    assert len(study.cells) == 20 == len({c.id for c in study.cells})
    want = {("5x2cv", ("t5x2cv",)), ("resample", ("corrected-resampled-t",)),
            ("resample[r=100]", ("corrected-resampled-t",)), ("1x10cv", ("cv-t", "corrected-rxk-t")),
            ("10x10cv", ("corrected-rxk-t", "rxk-t"))}
    for src in SG.SOURCES:
        assert {(c.design, c.tests) for c in study.cells if c.source == src} == want
    assert {c.learners for c in study.cells} == {SG.LEARNERS}
    # resampling = 270/30 random splits; the cv designs are stratified; 230 splits per set
    assert get_design("resample").shape == (10, 1)
    assert sum(get_design(d).shape[0] * get_design(d).shape[1] for d, _ in want) == 230
    assert all(get_source(s).runs_per_draw == 10 for s in SG.SOURCES)
    validate(study)


def test_paper_rows_are_the_reference_table():
    ref = pd.read_csv(SG.REF / "bouckaert2004_table5.csv")
    assert list(ref["row_label"][1:]) == list(SG.PAPER_ROWS)
    assert set(SG.MIN_ORDER) == set(SG.PAPER_ROWS)
    paper = ST.paper_table5()
    assert paper[("5x2 cv", "source 4")] == 16.9 and paper[("accuracy", "source 4")] == 11.27
    # the paper's own min column is the min of its row
    for row in SG.PAPER_ROWS:
        assert paper[(row, "min.")] == min(paper[(row, f"source {k}")] for k in range(1, 5))


# --- counting ---------------------------------------------------------------------------------

def _results(cell: str, test: str, pvalues: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"cell": cell, "seed": S.SEED, "run": np.arange(len(pvalues)),
                         "test": test, "a": 0, "b": 1, "statistic": 1.0,
                         "pvalue": pvalues})


def test_set_counts_count_rejections_per_complete_set():
    p = [0.01] * 10 + [0.5] * 9 + [0.04] + [0.01] * 5 + [np.nan] * 5 + [0.01] * 7
    r = _results("c", "t", p)
    np.testing.assert_array_equal(ST.set_counts(r, "c", "t", 0.05), [10, 1, 5])  # 4th set: 7 runs
    np.testing.assert_array_equal(ST.set_counts(r, "c", "t", 0.02), [10, 0, 5])
    assert ST.set_counts(r, "other", "t", 0.05).size == 0


def test_table5_long_percentages_by_hand():
    study = get_study("ban").replace(runs=40)
    rows = []
    rng = np.random.default_rng(0)
    for c in study.cells:
        for t in c.tests:
            # 4 sets: all reject, none reject, mixed, all reject -> 75 % consistent
            p = [0.001] * 10 + [0.9] * 10 + list(rng.permutation([0.01] * 3 + [0.3] * 7)) + [0.0] * 10
            rows.append(_results(c.id, t, p))
    res = StudyResult(study, pd.DataFrame(), pd.DataFrame(), pd.concat(rows, ignore_index=True))
    long = ST.table5_long(res)
    assert (long["status"] == "ok").all() and (long["sets"] == 4).all()
    assert np.allclose(long["ours"], 75.0) and np.allclose(long["almost_pct"], 75.0)
    assert np.allclose(long["mean_reject"], (10 + 0 + 3 + 10) / 40)
    assert ST.mins(long)["5x2 cv"] == 75.0


def _paper_as_ours() -> pd.DataFrame:
    paper = ST.paper_table5()
    rows = [{"row": r, "source": f"source {k}", "status": "ok", "sets": 1000,
             "paper": paper[(r, f"source {k}")], "ours": paper[(r, f"source {k}")]}
            for r in SG.PAPER_ROWS for k in range(1, 5)]
    return pd.DataFrame(rows)


def test_claims_hold_on_the_papers_own_numbers():
    acc = pd.DataFrame({"source": [f"source {k}" for k in range(1, 5)],
                        "diff_pts": [0.0, -2.77, -5.83, -11.27], "se_pts": 0.05,
                        "abs_gap_pts": 0.0})
    cl = SC.claims(_paper_as_ours(), acc)
    claims = [c for c in cl if not isinstance(c, str)]
    assert len(claims) == 4 and all(c.verdict == "reproduced" for c in claims), cl
    # the accuracy row is the sources' calibration target, said beside the claims
    assert [c for c in cl if isinstance(c, str)][0].startswith("(a calibration target")


def test_claims_can_fail():
    long = _paper_as_ours()
    long.loc[(long["row"] == "5x2 cv") & (long["source"] == "source 4"), "ours"] = 95.0
    acc = pd.DataFrame({"source": ["source 2"], "diff_pts": [-2.0], "se_pts": [0.05],
                        "abs_gap_pts": [-0.77]})
    verdict = {c.text.split(":")[0]: c.held for c in SC.claims(long, acc)
               if not isinstance(c, str)}
    assert verdict["source 4 is hard for the 5x2 cv t"] is False
    assert verdict["min column order"] is False  # 5x2's min is now 72.3 / 71.2 ... > 26
    assert not any(k.startswith("accuracy") for k in verdict)  # a target, not a claim


# --- end to end ------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    d = tmp_path_factory.mktemp("ban")
    store, out = d / "store.sqlite", d / "out"
    assert main(["ban", "--sets", "3", "--store", str(store), "--out", str(out),
                 "--jobs", "1"]) == 0
    return store, out


def test_ban_sets_3_writes_table5_and_results(ran):
    store, out = ran
    for stem in ("table5", "table5_long", "accuracy"):
        for ext in ("md", "csv", "tex"):
            assert (out / f"{stem}.{ext}").is_file()
    t5 = pd.read_csv(out / "table5.csv")
    assert list(t5["row"][:6]) == ["accuracy (NB - C4.5, points)", *SG.PAPER_ROWS]
    assert "(16.9)" in t5.loc[t5["row"] == "5x2 cv", "source 4"].iloc[0]
    long = pd.read_csv(out / "table5_long.csv")
    assert (long["status"] == "ok").all() and (long["sets"] == 3).all()
    # a percentage of 3 sets
    assert set(np.round(long["ours"] * 3 / 100, 9)) <= {0.0, 1.0, 2.0, 3.0}
    acc = pd.read_csv(out / "accuracy.csv")
    assert np.allclose(acc.loc[acc["source"] == "source 1", ["acc_nb", "acc_c45"]], 0.5)
    text = (out / "RESULTS.md").read_text()
    assert "Table 5" in text and "min column order" in text
    with Store(store) as s:
        assert s.count() == 20 * 30


def test_stored_trials_are_the_shared_training_sets(ran):
    """Recompute two trials of two different cells of one source from scratch: the data
    are training set run // 10 of the source (seeded by source and set only), the partition
    and models are the cell's own."""
    store, _ = ran
    study = get_study("ban", runs=30)
    with Store(store) as s:
        res = collect(study, s)
    for design, run in (("1x10cv", 13), ("5x2cv", 17)):
        cell = next(c for c in study.cells if c.source == "ban[src=3]" and c.design == design)
        src, des = get_source(cell.source), get_design(cell.design)
        data = src.sample(np.random.default_rng(draw_seed(study.seed, cell.source, run // 10)))
        train = des.masks(data.y, np.random.default_rng(trial_seed(study.seed, cell.id, run,
                                                                   DESIGN)))
        R, F = des.shape
        train = train.reshape(R * F, -1)
        test = ~train
        want = []
        for k, ln in enumerate(cell.learners):
            seeds = [trial_seed(study.seed, cell.id, run, MODEL, k, m) for m in range(R * F)]
            pred = get_learner(ln).prepare(data).fit_predict(data.X, data.y, train, test, seeds)
            want.append(((pred != data.y) & test).sum(1) / test.sum(1))
        got = res.trials[(res.trials["cell"] == cell.id) & (res.trials["run"] == run)]
        np.testing.assert_allclose(got["errors"].iloc[0].reshape(2, -1), np.array(want),
                                   rtol=0, atol=1e-12)


def test_exact_accuracies_match_one_model_at_a_time():
    """The stacked call (many training sets above the 512 patterns) gives each model the
    accuracy it gets alone."""
    src = get_source("ban[src=4]")
    got = S.exact_accuracies("ban[src=4]", SG.LEARNERS, 7, 3, block=3)
    pat = src.patterns_dataset()
    for i in range(3):
        d = src.sample(np.random.default_rng(draw_seed(7, "ban[src=4]", i)))
        X = np.vstack([d.X, pat.X])
        y = np.concatenate([d.y, np.zeros(512, dtype=np.int64)])
        train = np.zeros((1, X.shape[0]), bool)
        train[0, :d.n] = True
        for k, ln in enumerate(SG.LEARNERS):
            seeds = [trial_seed(7, "accuracy:ban[src=4]", i, MODEL, k)]
            pred = get_learner(ln).prepare(d).fit_predict(X, y, train, ~train, seeds)
            assert got[k, i] == pytest.approx(src.exact_accuracy(pred[0, d.n:]), abs=1e-15)
    assert np.all((got > 0.5) & (got < 1.0))
