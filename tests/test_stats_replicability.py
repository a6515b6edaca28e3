"""Tests of simstudy.stats.replicability against Bouckaert & Frank (2004) Table 1."""

from __future__ import annotations

import csv
import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simstudy.errors import SimstudyError
from simstudy.stats import consistency, consistency_from_counts, replicability

REF = Path(__file__).resolve().parents[1] / "studies" / "reference"

settings.register_profile("stats_repl", max_examples=60, deadline=None)
settings.load_profile("stats_repl")


def test_replicability_hand_values():
    assert replicability(0, 10) == 1.0
    assert replicability(10, 10) == 1.0
    assert replicability(1, 10) == pytest.approx(72 / 90)
    # below the 0.5 the paper's text claims as a floor (pairs without replacement)
    assert replicability(5, 10) == pytest.approx(40 / 90)
    assert round(replicability(5, 10), 3) == 0.444
    np.testing.assert_allclose(replicability(np.array([0, 1, 5]), 10), [1, 0.8, 40 / 90])


@given(st.lists(st.booleans(), min_size=2, max_size=15))
def test_replicability_equals_fraction_of_agreeing_pairs(outcomes):
    n, k = len(outcomes), sum(outcomes)
    pairs = list(itertools.combinations(outcomes, 2))
    agree = sum(a == b for a, b in pairs) / len(pairs)
    assert replicability(k, n) == pytest.approx(agree, rel=1e-12)
    assert replicability(n - k, n) == pytest.approx(agree, rel=1e-12)  # symmetric


def _table1():
    with open(REF / "bouckaert2004_table1.csv") as fh:
        rows = list(csv.DictReader(fh))
    with open(REF / "bouckaert2004_table1_summary.csv") as fh:
        summary = {(r["pair"], r["measure"]): float(r["value"]) for r in csv.DictReader(fh)}
    return rows, summary


@pytest.mark.parametrize(
    "pair,column",
    [
        ("NB vs C4.5", "nonrejections_NB_vs_C45_of_10"),
        ("NB vs NN", "nonrejections_NB_vs_NN_of_10"),
        ("C4.5 vs NN", "nonrejections_C45_vs_NN_of_10"),
    ],
)
def test_bouckaert_table1_summary_rows(pair, column):
    rows, summary = _table1()
    assert len(rows) == 27
    counts = np.array([int(r[column]) for r in rows])
    res = consistency_from_counts(counts, 10)
    assert res.consistent == summary[(pair, "consistent")]
    assert res.almost_consistent == summary[(pair, "almost_consistent")]
    assert round(res.R, 3) == summary[(pair, "replicability_R")]
    assert res.n_datasets == 27 and res.n_repetitions == 10
    # the same from a (data sets x repetitions) outcome array; order within a row is free
    rng = np.random.default_rng(0)
    outcomes = np.array([rng.permutation([0] * c + [1] * (10 - c)) for c in counts])
    again = consistency(outcomes)
    assert (again.consistent, again.almost_consistent) == (res.consistent, res.almost_consistent)
    assert again.R == pytest.approx(res.R, rel=1e-12)


def test_expected_values_printed_in_paper():
    # the published summary rows, explicitly (9/12/13, 14/17/17, 0.737/0.783/0.816)
    rows, _ = _table1()
    cols = [
        "nonrejections_NB_vs_C45_of_10",
        "nonrejections_NB_vs_NN_of_10",
        "nonrejections_C45_vs_NN_of_10",
    ]
    got = [consistency_from_counts([int(r[c]) for r in rows], 10) for c in cols]
    assert [g.consistent for g in got] == [9, 12, 13]
    assert [g.almost_consistent for g in got] == [14, 17, 17]
    assert [round(g.R, 3) for g in got] == [0.737, 0.783, 0.816]


def test_consistency_small_hand_example():
    o = np.array([[1] * 10, [0] * 10, [1] * 9 + [0], [1] * 5 + [0] * 5])
    r = consistency(o)
    assert r.consistent == 2 and r.almost_consistent == 3 and r.counts == (10, 0, 9, 5)
    assert r.R == pytest.approx((1 + 1 + 0.8 + 40 / 90) / 4)
    assert consistency(o[3]).consistent == 0  # 1-d = one data set
    assert consistency(o.astype(bool)).R == pytest.approx(r.R)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: replicability(3, 1), "n must be an integer >= 2, got 1"),
        (lambda: replicability(11, 10), "k must lie in 0..n=10, got 11"),
        (lambda: replicability(-1, 10), "got -1"),
        (lambda: replicability(2.5, 10), "k must be an integer.*2.5"),
        (lambda: replicability(2, 10.0), "n must be an integer.*10.0"),
        (lambda: consistency(np.array([[0, 2, 1]])), "only 0 and 1"),
        (lambda: consistency(np.zeros((3, 1))), r"repetitions >= 2.*\(3, 1\)"),
        (lambda: consistency_from_counts([], 10), "non-empty"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(SimstudyError, match=match):
        call()
