"""Interval methods for the generalization error against independent computations: closed
forms by hand, scipy's t / normal / binomial intervals, the named tests they invert, and a
plain re-implementation of nested cv (Bates, Hastie & Tibshirani 2024, Algorithm 1) that
refits every model of the algorithm from scratch."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from simstudy.core import FoldLosses
from simstudy.designs import get_design
from simstudy.errors import SimstudyError
from simstudy.stats import folds as FD
from simstudy.stats import instances as I
from simstudy.stats import pairwise as P
from simstudy.stats.interval_registry import (
    check_intervals_fit,
    describe_intervals,
    get_interval,
    list_intervals,
)
from simstudy.stats.intervals import IntervalResult, holdout_interval, nested_cv_interval
from simstudy.stats.registry import check_tests_fit

LEVELS = (0.8, 0.9, 0.95, 0.99)


# --- a trial computed here: two learners' per-instance losses on a design's real masks ---

def _ols(X, y, train):
    A = np.c_[np.ones(int(train.sum())), X[train]]
    beta = np.linalg.lstsq(A, y[train], rcond=None)[0]
    return np.c_[np.ones(X.shape[0]), X] @ beta


def _trial(spec: str, n: int = 40, seed: int = 0, loss: str = "01") -> tuple[FoldLosses, object]:
    """Fold losses of learner 0 (least squares) and learner 1 (the training mean) on the
    masks of design ``spec``; ``loss='01'`` thresholds both at 0.5 against a 0/1 label,
    ``'squared'`` keeps squared errors of a linear-Gaussian response."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 3))
    design = get_design(spec)
    if loss == "01":
        y = (X @ [1.0, -0.5, 0.3] + rng.standard_normal(n) > 0).astype(float)
    else:
        y = X @ [1.0, -0.5, 0.3] + rng.standard_normal(n)
    train = design.masks(y, np.random.default_rng(seed + 1))
    R, F, _ = train.shape
    L = np.full((2, R, F, n), -1.0)
    for r in range(R):
        for f in range(F):
            tr = train[r, f]
            preds = (_ols(X, y, tr), np.full(n, y[tr].mean()))
            for k, p in enumerate(preds):
                lo = ((p > 0.5) != (y > 0.5)).astype(float) if loss == "01" else (p - y) ** 2
                L[k, r, f] = np.where(tr, -1.0, lo)
    test = L[0] >= 0
    n_test = test.sum(axis=2).astype(float)
    errors = np.where(test[None], L, 0.0).sum(axis=3) / n_test
    return FoldLosses(errors, n - n_test, n_test, L), design


def _ci(spec, fl, design, level=0.95, a=0, b=None):
    return get_interval(spec)(fl, design, a, b).confidence_interval(level)


# --- listing ----------------------------------------------------------------------------------

def test_every_method_is_listed_with_its_paper():
    rows = dict(describe_intervals())
    assert set(list_intervals()) >= {"holdout", "naive-cv", "cv-clt", "corrected-t",
                                     "conservative-z", "t5x2cv", "ncv"}
    for name, paper in [("ncv", "Bates, Hastie & Tibshirani 2024"), ("cv-clt", "Bayle"),
                        ("corrected-t", "Nadeau & Bengio 2003"), ("t5x2cv", "Dietterich 1998")]:
        assert paper in rows[name]


def test_list_command_prints_the_intervals(capsys):
    from simstudy.cli import _cmd_list

    _cmd_list()
    out = capsys.readouterr().out
    section = out.split("intervals:\n", 1)[1].split("learners:", 1)[0]
    assert "ncv" in section and "Algorithm 1" in section


# --- each method against an independent computation ------------------------------------------

@pytest.mark.parametrize("level", LEVELS)
def test_holdout_normal_is_the_wald_interval_by_hand(level):
    fl, d = _trial("holdout[train=0.6]", n=50)
    h = fl.losses[0, 0, 0][fl.losses[0, 0, 0] >= 0]
    half = stats.norm.ppf((1 + level) / 2) * h.std(ddof=1) / math.sqrt(h.size)
    assert _ci("holdout", fl, d, level) == pytest.approx((h.mean() - half, h.mean() + half))


@pytest.mark.parametrize("level", LEVELS)
def test_holdout_binomial_is_scipys_clopper_pearson(level):
    fl, d = _trial("holdout", n=60, seed=3)
    h = fl.losses[0, 0, 0][fl.losses[0, 0, 0] >= 0]
    ref = stats.binomtest(int(h.sum()), h.size).proportion_ci(level, method="exact")
    assert _ci("holdout[dist=binomial]", fl, d, level) == pytest.approx((ref.low, ref.high))


def test_holdout_binomial_at_zero_and_all_errors_by_hand():
    # Clopper-Pearson: k = 0 gives (0, 1 - (alpha/2)^(1/n)); k = n the mirror image
    lo, hi = holdout_interval(np.zeros(20), dist="binomial").confidence_interval(0.9)
    assert (lo, hi) == pytest.approx((0.0, 1 - 0.05 ** (1 / 20)))
    lo, hi = holdout_interval(np.ones(20), dist="binomial").confidence_interval(0.9)
    assert (lo, hi) == pytest.approx((0.05 ** (1 / 20), 1.0))


@pytest.mark.parametrize("spec", ["1x10cv", "2x5cv", "5x2"])
@pytest.mark.parametrize("level", LEVELS)
def test_naive_cv_t_is_scipys_one_sample_t_interval(spec, level):
    fl, d = _trial(spec)
    for b in (None, 1):
        e = fl.errors[0].ravel() if b is None else fl.diff(0, 1).ravel()
        ref = stats.ttest_1samp(e, 0.0).confidence_interval(level)
        assert _ci("naive-cv", fl, d, level, b=b) == pytest.approx((ref.low, ref.high))


def test_naive_cv_z_uses_the_normal_quantile():
    fl, d = _trial("1x10cv")
    e = fl.errors[0, 0]
    half = 1.959963984540054 * e.std(ddof=1) / math.sqrt(10)
    assert _ci("naive-cv[dist=z]", fl, d) == pytest.approx((e.mean() - half, e.mean() + half))


@pytest.mark.parametrize("variance", ["within", "all", "naive"])
def test_cv_clt_by_hand(variance):
    fl, d = _trial("1x5cv", n=43, loss="squared")
    h, fold = [], []
    for f in range(5):
        on = fl.losses[0, 0, f] >= 0
        h.append(fl.losses[0, 0, f][on])
        fold += [f] * int(on.sum())
    allh = np.concatenate(h)
    if variance == "within":
        var = np.mean([x.var(ddof=1) for x in h])
    elif variance == "all":
        var = allh.var(ddof=0)
    else:
        var = allh.var(ddof=1)
    half = stats.norm.ppf(0.95) * math.sqrt(var / allh.size)
    got = _ci(f"cv-clt[variance={variance}]", fl, d, 0.9)
    assert got == pytest.approx((allh.mean() - half, allh.mean() + half))


@pytest.mark.parametrize("spec", ["resample[r=15,train=0.8]", "3x5cv"])
@pytest.mark.parametrize("level", LEVELS)
def test_corrected_t_by_hand(spec, level):
    fl, d = _trial(spec, n=50)
    for b in (None, 1):
        e = (fl.errors[0] if b is None else fl.diff(0, 1)).ravel()
        n1, n2 = fl.n_train.mean(), fl.n_test.mean()
        half = stats.t.ppf((1 + level) / 2, e.size - 1) * e.std(ddof=1) * math.sqrt(
            1 / e.size + n2 / n1)
        assert _ci("corrected-t", fl, d, level, b=b) == pytest.approx(
            (e.mean() - half, e.mean() + half))


def test_conservative_z_and_t5x2cv_by_hand():
    fl, d = _trial("5x2", n=50)
    e = fl.errors[0]
    s = math.sqrt(((e[:, 0] - e[:, 1]) ** 2).sum() / 10)
    z = stats.norm.ppf(0.975)
    assert _ci("conservative-z", fl, d) == pytest.approx((e.mean() - z * s, e.mean() + z * s))
    s2 = ((e - e.mean(axis=1, keepdims=True)) ** 2).sum()
    half = stats.t.ppf(0.975, 5) * math.sqrt(s2 / 5)
    assert _ci("t5x2cv", fl, d) == pytest.approx((e[0, 0] - half, e[0, 0] + half))


# --- the difference of two learners: each interval inverts its named test -----------------------

def _edge_at_zero(spec, fl, d, pvalue):
    """At level 1 - p, the interval of a test's statistic has an end exactly at 0."""
    lo, hi = _ci(spec, fl, d, 1.0 - pvalue, a=0, b=1)
    return min(abs(lo), abs(hi))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_difference_intervals_invert_the_named_tests(seed):
    fl, d = _trial("5x2", n=60, seed=seed)
    diff = fl.diff(0, 1)
    assert _edge_at_zero("t5x2cv", fl, d, P.ttest_5x2cv(diff).pvalue) == pytest.approx(0, abs=1e-12)
    assert _edge_at_zero("conservative-z", fl, d,
                         FD.conservative_z(diff).pvalue) == pytest.approx(0, abs=1e-12)
    fl, d = _trial("resample[r=10,train=0.9]", n=60, seed=seed)
    p = P.ttest_corrected_resampled(fl.diff(0, 1)[:, 0], n_train=fl.n_train.mean(),
                                    n_test=fl.n_test.mean()).pvalue
    assert _edge_at_zero("corrected-t", fl, d, p) == pytest.approx(0, abs=1e-12)
    fl, d = _trial("1x10cv", n=60, seed=seed)
    p = P.ttest_kfold(fl.diff(0, 1)[0]).pvalue
    assert _edge_at_zero("naive-cv", fl, d, p) == pytest.approx(0, abs=1e-12)
    h = fl.losses[0, 0] - fl.losses[1, 0]
    on = fl.losses[0, 0] >= 0
    fold = np.argmax(on, axis=0)
    p = I.cv_clt(h[fold, np.arange(60)], fold).pvalue
    assert _edge_at_zero("cv-clt", fl, d, p) == pytest.approx(0, abs=1e-12)


# --- nested cv: against a plain re-implementation of Algorithm 1 --------------------------------

def _ncv_by_the_paper(X, y, folds_per_rep, K, level, factor):
    """Algorithm 1 of Bates, Hastie & Tibshirani (2024), written out loop by loop: every
    inner model of every outer fold refitted (K (K-1) inner fits, not shared pairs)."""
    e_in_all, a_list, b_list, e_cv = [], [], [], []
    for fold in folds_per_rep:
        for k in range(K):
            out_train = fold != k
            e_out = (_ols(X, y, out_train) - y)[fold == k] ** 2
            e_cv.extend(e_out)
            e_in = []
            for j in range(K):
                if j == k:
                    continue
                inner_train = (fold != k) & (fold != j)
                e_in.extend((_ols(X, y, inner_train) - y)[fold == j] ** 2)
            e_in_all.extend(e_in)
            a_list.append((np.mean(e_in) - np.mean(e_out)) ** 2)
            b_list.append(np.var(e_out, ddof=1) / e_out.size)
    mse = np.mean(a_list) - np.mean(b_list)
    err_ncv, err_cv = np.mean(e_in_all), np.mean(e_cv)
    n = y.size
    sd = np.std(e_in_all, ddof=1)
    se = min(max(math.sqrt(max(mse, 0) * (K - 1) / K), sd / math.sqrt(n)), sd * math.sqrt(K / n))
    est = err_ncv - factor * (err_ncv - err_cv)
    q = stats.norm.ppf((1 + level) / 2)
    return est - q * se, est + q * se


@pytest.mark.parametrize("K,reps,n", [(5, 3, 37), (4, 2, 24)])
@pytest.mark.parametrize("bias", ["linear", "authors", "none"])
def test_nested_cv_matches_a_plain_reimplementation(K, reps, n, bias):
    spec = f"ncv[k={K},reps={reps}]"
    fl, d = _trial(spec, n=n, seed=5, loss="squared")
    rng = np.random.default_rng(5)  # the same draws as _trial
    X = rng.standard_normal((n, 3))
    y = X @ [1.0, -0.5, 0.3] + rng.standard_normal(n)
    train = d.masks(y, np.random.default_rng(6))
    folds = [np.argmin(train[r, :K], axis=0) for r in range(reps)]  # the fold each tests in
    factor = {"linear": 1 + (K - 2) / K, "authors": 1 + ((K - 2) / K) ** 1.5, "none": 0.0}[bias]
    ref = _ncv_by_the_paper(X, y, folds, K, 0.9, factor)
    got = _ci(f"ncv[bias={bias}]" if bias != "linear" else "ncv", fl, d, 0.9)
    assert got == pytest.approx(ref, rel=1e-10, abs=1e-12)


def test_ncv_design_pairs_leave_out_exactly_two_folds():
    d = get_design("ncv[k=4,reps=3]")
    assert d.shape == (3, 4 + 6)
    train = d.masks(np.zeros(22), np.random.default_rng(0))
    for r in range(3):
        fold = np.argmin(train[r, :4], axis=0)
        assert np.all(train[r, :4].sum(axis=0) == 3)  # each instance tested once
        c = 4
        for i in range(4):
            for j in range(i + 1, 4):
                assert np.array_equal(~train[r, c], (fold == i) | (fold == j))
                c += 1


def test_ncv_difference_of_two_learners_is_ncv_of_the_loss_differences():
    fl, d = _trial("ncv[k=4,reps=2]", n=30, seed=2, loss="squared")
    diffed = FoldLosses(fl.errors[:1] - fl.errors[1:], fl.n_train, fl.n_test,
                        np.where(fl.losses[:1] >= 0, fl.losses[:1] - fl.losses[1:], np.nan))
    r1 = get_interval("ncv[bias=none]")(fl, d, 0, 1)
    # nan marks the off-test positions of the differences; the method reads them the same
    from simstudy.stats.interval_registry import ncv_losses

    r2 = nested_cv_interval(*ncv_losses(diffed.losses[0], d.pairs), bias="none")
    assert (r1.statistic, r1.standard_error) == pytest.approx((r2.statistic, r2.standard_error))


# --- bad input: one line naming the bad value -------------------------------------------------

@pytest.mark.parametrize("level", [0, 1, -0.1, 1.5, float("nan"), "high"])
def test_level_outside_the_unit_interval(level):
    with pytest.raises(SimstudyError, match=r"confidence level .* strictly between 0 and 1") as e:
        IntervalResult(0.2, 0.1, None, "holdout").confidence_interval(level)
    assert repr(level) in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("est,se", [(float("nan"), 0.1), (0.2, float("nan")), (0.2, -1.0),
                                    (float("inf"), 0.1)])
def test_nan_or_reversed_bounds_name_the_method(est, se):
    with pytest.raises(SimstudyError, match=r"interval method 'my-method' gave") as e:
        IntervalResult(est, se, None, "my-method").confidence_interval(0.95)
    assert "\n" not in str(e.value)


def test_a_fold_of_one_instance_is_named_not_silent():
    # two instances per fold except one: the within-fold variance of a one-instance fold is nan
    fl, d = _trial("1x5cv", n=6)
    with pytest.raises(SimstudyError, match="'cv-clt'"):
        _ci("cv-clt", fl, d)


@pytest.mark.parametrize("spec,design", [("ncv", "5x2"), ("conservative-z", "1x10cv"),
                                         ("cv-clt", "resample"), ("naive-cv", "ncv[k=4,reps=2]"),
                                         ("t5x2cv", "ncv[k=3,reps=2]")])
def test_a_design_the_method_cannot_read_is_named(spec, design):
    fl, _ = _trial("5x2")
    with pytest.raises(SimstudyError) as e:
        get_interval(spec)(fl, get_design(design))
    msg = str(e.value)
    assert repr(spec) in msg and repr(get_design(design).name) in msg and "\n" not in msg
    with pytest.raises(SimstudyError, match=repr(spec)):
        check_intervals_fit((spec,), get_design(design))


def test_the_named_tests_do_not_read_nested_cv_as_folds():
    for t in ("cv-t", "corrected-rxk-t", "wilcoxon", "cv-clt", "conservative-z"):
        with pytest.raises(SimstudyError, match="does not fit design 'ncv"):
            check_tests_fit((t,), get_design("ncv[k=5,reps=2]"))


@pytest.mark.parametrize("spec,match", [("ncv[bias=half]", r"unknown bias of interval method "
                                         r"'ncv': 'half'; valid choices: authors, linear, none"),
                                        ("holdout[dist=t]", "'t'"),
                                        ("ncv[k=5]", "unknown parameter 'k'"),
                                        ("bootstrap", "unknown interval method 'bootstrap'")])
def test_bad_specs(spec, match):
    with pytest.raises(SimstudyError, match=match):
        get_interval(spec)


def test_binomial_holdout_refuses_a_difference_and_other_losses():
    fl, d = _trial("holdout", n=40)
    with pytest.raises(SimstudyError, match="holdout\\[dist=binomial\\]"):
        get_interval("holdout[dist=binomial]")(fl, d, 0, 1)
    fl, d = _trial("holdout", n=40, loss="squared")
    with pytest.raises(SimstudyError, match="0/1 losses"):
        get_interval("holdout[dist=binomial]")(fl, d)


def test_a_spec_string_for_the_design_is_refused_with_the_way_out():
    fl, _ = _trial("5x2")
    with pytest.raises(SimstudyError, match=r"get_design\('5x2'\)"):
        get_interval("t5x2cv")(fl, "5x2")


def test_methods_needing_instance_losses_say_so():
    fl, d = _trial("1x5cv")
    bare = FoldLosses(fl.errors, fl.n_train, fl.n_test)
    with pytest.raises(SimstudyError, match="'cv-clt' needs per-instance losses"):
        get_interval("cv-clt")(bare, d)
