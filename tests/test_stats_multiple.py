"""Tests of simstudy.stats.multiple: ANOVA, Newman–Keuls, Looney, MultiTest, TestFirst."""

from __future__ import annotations

import json
import math
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from simstudy.errors import SimstudyError
from simstudy.stats import (
    anova,
    looney_f,
    multiple_rejections,
    multitest,
    multitest_order,
    newman_keuls,
    testfirst,
    ttest_kfold,
)
from simstudy.stats.multiple import _nk_best

REF = Path(__file__).resolve().parents[1] / "studies" / "reference"

settings.register_profile("stats_multiple", max_examples=40, deadline=None)
settings.load_profile("stats_multiple")


def _graph(k: int, edges_1based) -> np.ndarray:
    r = np.zeros((k, k), dtype=bool)
    for i, j in edges_1based:
        r[i - 1, j - 1] = True
    return r


# ------------------------------------------------------------------------- MultiTest
def test_multitest_order_fig2_and_text_examples():
    ex = json.loads((REF / "yildiz2006_fig2_example.json").read_text())
    order = multitest_order(_graph(ex["K"], ex["edges"]))
    assert [o + 1 for o in order] == ex["ordering"] == [3, 2, 4, 1]
    for other in ex["other_examples_from_text"]:
        order = multitest_order(_graph(other["K"], other["edges_list"]))
        assert [o + 1 for o in order] == other["ordering"]
    # pendigits: 5 < 3 < 4 < 2 < 1 ; hepatitis: prior order
    assert [
        o + 1 for o in multitest_order(_graph(5, ex["other_examples_from_text"][0]["edges_list"]))
    ] == [5, 3, 4, 2, 1]
    assert multitest_order(np.zeros((5, 5), dtype=bool)) == (0, 1, 2, 3, 4)


def test_multitest_order_ignores_lower_triangle():
    r = _graph(3, [(1, 2)])
    r[2, 0] = True  # i > j entries are not edges
    assert multitest_order(r) == (1, 0, 2)


def _errors_from_means(means, noise=0.002, seed=0, shape=(5, 2)):
    rng = np.random.default_rng(seed)
    return np.array([m + rng.normal(0, noise, shape) for m in means])


PENDIGITS = [0.9005, 0.1570, 0.0624, 0.0745, 0.0074]  # Yıldız Table 1, MAX NMC LGC C4.5 NN


def test_multitest_pendigits_like_errors():
    e = _errors_from_means(PENDIGITS)
    res = multitest(e)
    # every H0: mu_i <= mu_j rejected except (LGC, C4.5) = (2, 3): 5 < 3 < 4 < 2 < 1
    assert set(res.edges) == {(i, j) for i in range(5) for j in range(i + 1, 5)} - {(2, 3)}
    assert res.ordering == (4, 2, 3, 1, 0) and res.best == 4
    assert np.isnan(res.pvalues[1, 0]) and 0 <= res.pvalues[0, 1] <= 1


def test_multitest_equal_errors_gives_prior_order():
    e = _errors_from_means([0.2] * 4, noise=0.01, seed=1)
    res = multitest(e)
    assert res.edges == () and res.ordering == (0, 1, 2, 3) and res.best == 0


def test_multitest_uses_the_correction():
    # a stub test with fixed one-sided p-values per pair; errors[k] = 2**k makes every
    # d = errors[i] - errors[j] unique: (0,1) -> -1, (0,2) -> -3, (1,2) -> -2
    p = {-1.0: 0.02, -3.0: 0.001, -2.0: 0.6}
    e = np.array([np.full((5, 2), 2.0**k) for k in range(3)])
    stub = lambda d: SimpleNamespace(pvalue=p[float(d[0, 0])])  # noqa: E731
    res_b = multitest(e, correction="bonferroni", test=stub)
    res_h = multitest(e, correction="holm", test=stub)
    # Bonferroni: .001 < .0167 only.  Holm: .001 < .0167, .02 < .025, .6 > .05
    assert res_b.edges == ((0, 2),) and res_h.edges == ((0, 1), (0, 2))
    assert res_b.ordering == (1, 2, 0) and res_h.ordering == (1, 2, 0)
    assert res_b.pvalues[0, 1] == 0.02
    # a test returning nan (undefined) never rejects
    nan_stub = lambda d: SimpleNamespace(pvalue=float("nan"))  # noqa: E731
    assert multitest(e, test=nan_stub).edges == ()


def test_multitest_custom_test():
    e = _errors_from_means([0.30, 0.10, 0.20], noise=0.01, seed=3, shape=(10,))
    res = multitest(e, test=lambda d: ttest_kfold(d, alternative="greater"))
    assert (0, 1) in res.edges and (0, 2) in res.edges and (1, 2) not in res.edges
    assert res.ordering == (1, 2, 0)


# ------------------------------------------------------------------ corrections
def test_multiple_rejections_hand():
    p = np.array([0.001, 0.013, 0.02, 0.04])
    assert multiple_rejections(p, correction="bonferroni").tolist() == [True, False, False, False]
    # Holm: .001 < .0125, .013 < .01667, .02 < .025, .04 < .05
    assert multiple_rejections(p, correction="holm").tolist() == [True] * 4
    p2 = np.array([0.04, 0.01, 0.02, 0.03])
    # Holm: .01 < .0125 yes; .02 < .01667 no -> stop
    assert multiple_rejections(p2, correction="holm").tolist() == [False, True, False, False]
    # a larger family (m) makes both stricter
    assert not multiple_rejections([0.02], correction="bonferroni", m=3)[0]
    assert multiple_rejections([0.02], correction="bonferroni")[0]


@given(st.lists(st.floats(0, 1), min_size=1, max_size=12), st.floats(0.001, 0.5))
def test_holm_dominates_bonferroni(p, alpha):
    b = multiple_rejections(p, alpha=alpha, correction="bonferroni")
    h = multiple_rejections(p, alpha=alpha, correction="holm")
    assert (h | ~b).all()  # b implies h


# -------------------------------------------------------------------------- TestFirst
def test_testfirst_paper_example():
    # order by mean error 3 < 4 < 1 < 2 < 5 (1-based); 3 must beat the simpler 1 and 2
    e = _errors_from_means([0.30, 0.35, 0.10, 0.15, 0.40])
    res = testfirst(e)
    assert res.candidate == 2 and res.best == 2 and set(res.pvalues) == {0, 1}
    # 3 only marginally better than 1: cannot find the best
    e2 = _errors_from_means([0.105, 0.35, 0.10, 0.15, 0.40], noise=0.01)
    res2 = testfirst(e2)
    assert res2.candidate == 2 and res2.best is None


def test_testfirst_hepatitis_like_and_simplest_wins():
    # equal expected errors with LGC (index 2) slightly lowest on average -> not found
    e = np.full((5, 5, 2), 0.2)
    e[2] -= 0.001
    e += np.random.default_rng(4).normal(0, 0.02, e.shape)
    e[2] -= e[2].mean() - (e.reshape(5, -1).mean(axis=1).min() - 0.001)
    res = testfirst(e)
    assert res.candidate == 2 and res.best is None
    # the simplest learner has the smallest mean: chosen without any test
    e3 = _errors_from_means([0.1, 0.2, 0.3])
    r3 = testfirst(e3)
    assert r3.best == 0 and r3.pvalues == {}


def test_testfirst_bonferroni_family_is_k_minus_1():
    # candidate 1 against the simpler learner 0 only.  d = e0 - e1 has rows (0, 0.02) except
    # row 0 = (x, x + 0.02): sum s_i^2 = 0.001, so t = x / sqrt(0.0002) = 2.3 exactly and the
    # one-sided p = P(t5 > 2.3) ~ 0.035 lies between alpha/(K-1) = 0.0167 and alpha = 0.05.
    x = 2.3 * math.sqrt(0.0002)
    d = np.array([[0.0, 0.02]] * 5)
    d[0] = [x, x + 0.02]
    e = np.full((4, 5, 2), 0.5)
    e[1] = 0.2
    e[0] = 0.2 + d
    res = testfirst(e)
    assert res.candidate == 1
    assert res.pvalues[0] == pytest.approx(stats.t.sf(2.3, 5), rel=1e-9)
    assert res.best is None  # 0.035 >= 0.05 / 3
    assert testfirst(e, alpha=0.12).best == 1  # 0.035 < 0.12 / 3


# ------------------------------------------------------------------------------ ANOVA
def test_anova_matches_scipy():
    e = np.random.default_rng(6).normal(0.2, 0.03, (5, 10)) + np.arange(5)[:, None] * 0.01
    r = anova(e)
    ref = stats.f_oneway(*e)
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-10)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-8)
    assert r.df == (4, 45)


def test_anova_degenerate():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r = anova(np.tile([[0.1], [0.2], [0.3]], (1, 4)))
    assert math.isnan(r.statistic) and r.pvalue == 1.0


# ----------------------------------------------------------------------- Newman–Keuls
def _rows_with_mse(means, e, L=10):
    """Rows mean_i + (+e, -e, ...): within-group SS = K L e^2, so MSE = L e^2 / (L - 1)."""
    dev = np.array([e, -e] * (L // 2))
    return np.array([m + dev for m in means])


def test_newman_keuls_boundary_against_studentized_range():
    L, K = 10, 3
    e = 0.01
    mse = L * e * e / (L - 1)
    df = K * (L - 1)
    q2 = stats.studentized_range.ppf(0.95, 2, df)
    q3 = stats.studentized_range.ppf(0.95, 3, df)
    # pair (0, 1) just over / under its P=2 critical value; learner 2 far away
    gap = lambda q: q / math.sqrt(L / mse)  # noqa: E731
    sig = newman_keuls(_rows_with_mse([0.2, 0.2 + gap(q2) * 1.01, 0.9], e))
    assert sig.groups == () and sig.order == (0, 1, 2) and sig.best == 0
    ns = newman_keuls(_rows_with_mse([0.2 + gap(q2) * 0.99, 0.2, 0.9], e))
    assert ns.groups == ((1, 0),) and ns.order == (1, 0, 2) and ns.best == 0
    # step-down rule: the range of 3 is accepted (< q3) so (0,1) is never tested even though
    # its difference exceeds the P=2 critical value
    mid = 0.2 + gap(q3) * 0.99
    top = newman_keuls(_rows_with_mse([0.2, mid, mid], e))
    assert (mid - 0.2) * math.sqrt(L / mse) > q2
    assert top.groups == ((0, 1, 2),)


def test_newman_keuls_pendigits_no_underline():
    e = _errors_from_means(PENDIGITS, noise=0.004, shape=(10,))
    r = newman_keuls(e)
    assert r.order == (4, 2, 3, 1, 0) and r.groups == () and r.best == 4


def test_newman_keuls_all_equal():
    r = newman_keuls(_rows_with_mse([0.2] * 5, 0.02))  # equal means, MSE > 0
    assert r.groups == ((0, 1, 2, 3, 4),) and r.best == 0
    flat = newman_keuls(np.full((3, 4), 0.1))  # MSE = 0: nothing significant
    assert flat.groups == ((0, 1, 2),)


@pytest.mark.parametrize(
    "order,lines,best",
    [
        ("35421", ["5421"], 3),  # first not underlined
        ("54321", ["543"], 3),  # line under the first, no overlap
        ("24531", ["245", "53"], 2),  # overlap without the first
        ("52431", ["524", "43"], 2),  # overlap holds no simpler learner
        ("54213", ["542", "21"], None),  # the paper's counter-example
    ],
)
def test_newman_keuls_best_rules_of_section_4_2(order, lines, best):
    o = tuple(int(c) - 1 for c in order)
    ranges = sorted((order.index(ln[0]), order.index(ln[-1])) for ln in lines)
    got = _nk_best(o, ranges)
    assert (None if got is None else got + 1) == best


# ----------------------------------------------------------------------------- Looney
def test_looney_f_against_two_way_anova():
    x = (np.random.default_rng(7).random((40, 4)) < [0.9, 0.8, 0.85, 0.6]).astype(int)
    r = looney_f(x)
    n, k = x.shape
    g, rows, cols = x.mean(), x.mean(axis=1, keepdims=True), x.mean(axis=0, keepdims=True)
    ssa = n * ((cols - g) ** 2).sum()
    ssab = ((x - rows - cols + g) ** 2).sum()
    f = (ssa / (k - 1)) / (ssab / ((k - 1) * (n - 1)))
    assert r.statistic == pytest.approx(f, rel=1e-10)
    assert r.df == (3, 117)
    assert r.pvalue == pytest.approx(stats.f.sf(f, 3, 117), rel=1e-8)


def test_looney_f_degenerate():
    r = looney_f(np.ones((10, 3), dtype=int))
    assert math.isnan(r.statistic) and r.pvalue == 1.0


# -------------------------------------------------------------------------- bad input
E = np.full((3, 5, 2), 0.2)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: multitest(E, alpha=0), "alpha.*0"),
        (lambda: multitest(E, alpha=1.0), "alpha.*1.0"),
        (lambda: multitest(E, alpha=float("nan")), "alpha.*nan"),
        (lambda: multitest(E, alpha="x"), "alpha.*'x'"),
        (lambda: multitest(E, correction="sidak"), "unknown correction 'sidak'.*bonferroni, holm"),
        (lambda: testfirst(E, correction=None), "unknown correction None"),
        (lambda: newman_keuls(E.reshape(3, 10), alpha=-0.1), "alpha.*-0.1"),
        (lambda: multitest(np.zeros((1, 5, 2))), r"K >= 2.*\(1, 5, 2\)"),
        (lambda: multitest(np.full((3, 5, 2), np.nan)), "nan or inf"),
        (lambda: anova(np.zeros(5)), "2-dimensional"),
        (lambda: anova(np.zeros((3, 1))), r"L >= 2.*\(3, 1\)"),
        (lambda: looney_f(np.full((4, 3), 2)), "only 0 and 1"),
        (lambda: multitest_order(np.zeros((2, 3))), r"square.*\(2, 3\)"),
        (lambda: multiple_rejections([0.1, float("nan")]), "nan"),
    ],
)
def test_bad_input(call, match):
    with pytest.raises(SimstudyError, match=match):
        call()
