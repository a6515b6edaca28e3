"""The interval studies' aggregate against independent computations: scipy's t interval on
the fold errors, scipy's Wilson interval, and the truths read straight from the blobs."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import simstudy as ss
from simstudy.catalog import get_study
from simstudy.core import unpack_truth
from simstudy.interval_aggregate import coverage_counts, coverage_table
from simstudy.store import Store


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    p = tmp_path_factory.mktemp("ci") / "s.sqlite"
    ss.run("ci-synthetic", runs=6, store=p, filter="logistic[[]n=100]/*/1x10cv*",
           progress=False, render="none")
    return p


def test_naive_cv_coverage_by_hand(store):
    study = get_study("ci-synthetic")
    with Store(store, readonly=True) as st:
        df = coverage_counts(st, study, level=0.8)
        cid = df["cell"].iloc[0]
        ct = st.fold_errors([cid], study.seed)[cid]
        blobs = list(st.trials([cid], study.seed)["losses"])  # packed, in run order
    truths = np.array([unpack_truth(b).error for b in blobs])  # (T, K)
    for target, a, b in (("error lda", 0, None), ("difference lda - 1nn", 0, 1)):
        e = ct.errors[:, a, 0] if b is None else ct.errors[:, a, 0] - ct.errors[:, b, 0]
        cond = truths[:, a] if b is None else truths[:, a] - truths[:, b]
        lo, hi = [], []
        for x in e:  # scipy's t interval of the 10 fold means
            ci = stats.t.interval(0.8, df=9, loc=x.mean(), scale=x.std(ddof=1) / np.sqrt(10))
            lo.append(ci[0])
            hi.append(ci[1])
        lo, hi = np.array(lo), np.array(hi)
        row = df[(df["method"] == "naive-cv") & (df["target"] == target)].iloc[0]
        assert row["runs"] == 6
        assert row["covered"] == int(((lo <= cond) & (cond <= hi)).sum())
        assert row["below"] == int((cond < lo).sum()) and row["above"] == int((cond > hi).sum())
        assert row["width"] == pytest.approx((hi - lo).mean(), rel=1e-9)
        assert row["covered_unconditional"] == int(((lo <= cond.mean()) &
                                                    (cond.mean() <= hi)).sum())


def test_wilson_against_scipy():
    c = pd.DataFrame({"runs": [50, 1000], "covered": [41, 903], "covered_unconditional":
                      [50, 0], "below": [3, 40], "above": [6, 57]})
    t = coverage_table(c)
    for i, row in c.iterrows():
        for col, name in (("covered", "coverage"), ("covered_unconditional",
                                                     "coverage_unconditional"),
                          ("below", "below_share"), ("above", "above_share")):
            ref = stats.binomtest(int(row[col]), int(row["runs"])).proportion_ci(
                0.95, method="wilson")
            assert t[f"{name}_low"][i] == pytest.approx(ref.low, abs=1e-12)
            assert t[f"{name}_high"][i] == pytest.approx(ref.high, abs=1e-12)


def test_bad_level_refused(store):
    from simstudy.errors import SimstudyError

    with Store(store, readonly=True) as st, pytest.raises(SimstudyError,
                                                          match="level 1.5 must be strictly"):
        coverage_counts(st, get_study("ci-synthetic"), level=1.5)
