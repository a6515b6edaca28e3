"""The tests proposed since 1998 (simstudy.stats.bayes, folds, instances, mcs) against their
peer implementations, on >= 200 random inputs each, with ties, zero variance and tiny folds.

Peers: baycomp's CorrelatedTTest, nlptoolkit-classification's Combined5x2t, statsmodels'
mcnemar, scipy's wilcoxon / binomtest / permutation_test, arch's MCS.  Where a peer has no
Python implementation (conservative Z, the CV CLT test) the oracle is the paper's formula
written out again with numpy, the way mlr3inferr's R code computes it.  Agreement is to
1e-10 absolute in p-value or posterior probability unless a Monte Carlo tolerance is stated.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from simstudy.core import FoldLosses
from simstudy.designs import get_design
from simstudy.errors import SimstudyError
from simstudy.stats import bayes as BY
from simstudy.stats import folds as FD
from simstudy.stats import instances as I
from simstudy.stats import mcs as M
from simstudy.stats.registry import describe_tests, get_test

TOL = 1e-10
N_INPUTS = 240


def _rates(rng: np.random.Generator, shape: tuple[int, ...], m: int) -> np.ndarray:
    """Error rates k/m: discrete, so fold differences tie often (m small: tiny folds)."""
    return rng.integers(0, m + 1, size=shape) / m


def _fold_pairs(seed: int, shapes: list[tuple[int, int]]):
    """(errors A, errors B, R, F, m) with ties, tiny folds, and ~1 in 8 zero spreads."""
    rng = np.random.default_rng(seed)
    for i in range(N_INPUTS):
        R, F = shapes[i % len(shapes)]
        m = int(rng.choice([2, 3, 5, 10, 37, 150]))
        ea = _rates(rng, (R, F), m)
        eb = _rates(rng, (R, F), m)
        if i % 8 == 0:      # every difference equal (zero spread), sometimes all zero
            eb = np.clip(ea - (i % 16 == 0) * 1.0 / m, 0, 1)
            eb = ea - (ea - eb).ravel()[0]
        yield ea, eb, R, F, m


# ----------------------------------------------------------- Bayesian correlated t
@pytest.mark.parametrize("rope", [0.01, 0.05, 0.0])
def test_bayesian_correlated_t_agrees_with_baycomp(rope):
    baycomp = pytest.importorskip("baycomp")
    worst, n = 0.0, 0
    for ea, eb, R, F, m in _fold_pairs(1, [(5, 2), (1, 10), (10, 10), (3, 2), (2, 5)]):
        # k-fold: n_test / n = 1 / F, baycomp's rho = runs / n
        n_test, n_train = m, (F - 1) * m
        r = BY.correlated_bayesian_ttest(ea - eb, n_train=n_train, n_test=n_test, rope=rope)
        d = (ea - eb).ravel()
        if rope == 0.0 and np.all(d == d[0]):
            continue  # baycomp splits a point mass at 0 in halves without a rope (see docs)
        got = baycomp.CorrelatedTTest.probs(eb.ravel(), ea.ravel(), rope=rope, runs=R)
        want = (got[0], 0.0, got[1]) if rope == 0.0 else got
        if np.var(d, ddof=1) != 0 and np.ptp(d) <= 1e-12 * np.abs(d).max():
            # ulp noise: baycomp's variance is ~1e-34, ours a point mass; equal unless the
            # mean sits on the rope's edge
            want = tuple(float(x) for x in np.round(want))
        worst = max(worst, *(abs(x - y) for x, y in zip((r.p_left, r.p_rope, r.p_right), want,
                                                         strict=True)))
        n += 1
    assert n >= 200 and worst < TOL, (n, worst)


def test_bayesian_correlated_t_on_resampling_designs():
    # resampled 90/10 splits: rho/(1-rho) = 1/9 = baycomp's 1/(nfolds - 1) with 10 "folds"
    baycomp = pytest.importorskip("baycomp")
    rng = np.random.default_rng(2)
    for _ in range(50):
        d = rng.integers(-5, 6, size=10) / 30
        r = BY.correlated_bayesian_ttest(d, n_train=270, n_test=30, rope=0.01)
        want = baycomp.CorrelatedTTest.probs(np.zeros(10), d, rope=0.01, runs=1)
        assert np.allclose((r.p_left, r.p_rope, r.p_right), want, atol=TOL, rtol=0)


def test_bayesian_decision_is_the_papers_and_a_difference_is_a_reject():
    d = np.full((5, 2), 0.05) + np.array([[0.01, -0.01]] * 5)  # clear difference
    r = BY.correlated_bayesian_ttest(d, n_train=100, n_test=100)
    assert r.p_right > 0.95 and r.decision() == "right" and r.reject(0.05)
    assert r.pvalue == pytest.approx(1 - r.p_right)
    same = BY.correlated_bayesian_ttest(np.zeros((5, 2)), n_train=100, n_test=100)
    assert (same.p_rope, same.decision(), same.reject(0.05)) == (1.0, "rope", False)
    assert math.isnan(same.statistic)
    s = BY.decision_shares([r.p_left, same.p_left], [r.p_rope, same.p_rope],
                           [r.p_right, same.p_right])
    assert (s["difference"], s["equivalence"], s["undecided"], s["trials"]) == (0.5, 0.5, 0.0, 2)
    # batch == scalar
    stat, p, pl, p0, pr = BY.correlated_bayesian_ttest_batch(np.stack([d, np.zeros((5, 2))]),
                                                             100, 100)
    assert (pl[0], p0[0], pr[0], p[0]) == (r.p_left, r.p_rope, r.p_right, r.pvalue)
    with pytest.raises(SimstudyError, match="rope"):
        BY.correlated_bayesian_ttest(d, n_train=1, n_test=1, rope=-0.1)


# ----------------------------------------------------------- combined 5x2 cv t
def test_combined_5x2cv_t_agrees_with_nlptoolkit():
    pytest.importorskip("Classification")
    from Classification.Performance.ExperimentPerformance import ExperimentPerformance
    from Classification.Performance.Performance import Performance
    from Classification.StatisticalTest.Combined5x2t import Combined5x2t
    from Classification.StatisticalTest.StatisticalTestNotApplicable import (
        StatisticalTestNotApplicable,
    )

    def perf(e):
        out = ExperimentPerformance()
        for x in e.ravel():  # replication-major: nlptoolkit pairs results 2i, 2i+1
            out.add(Performance(float(x)))
        return out

    worst, n, undefined = 0.0, 0, 0
    for ea, eb, *_ in _fold_pairs(3, [(5, 2)]):
        mine = FD.combined_ttest_5x2cv(ea - eb)
        try:
            upper = Combined5x2t().compare(perf(ea), perf(eb)).getPValue()  # P(T5 > t)
        except StatisticalTestNotApplicable:  # its zero variance: ours undefined too
            assert math.isnan(mine.statistic) and mine.pvalue == 1.0
            undefined += 1
            continue
        if math.isnan(mine.statistic):
            # a spread of ulps (differences of rates that are equal on paper): nlptoolkit
            # divides by it, we call it zero (the module convention)
            d = (ea - eb)
            assert np.ptp(d[:, 0] - d[:, 1]) <= 1e-12 * np.abs(d).max() * 4
            undefined += 1
            continue
        worst = max(worst, abs(2 * min(upper, 1 - upper) - mine.pvalue),
                    abs(upper - FD.combined_ttest_5x2cv(ea - eb, alternative="greater").pvalue))
        n += 1
    assert n + undefined >= 200 and undefined > 10 and worst < TOL, (n, undefined, worst)


def test_combined_t_and_conservative_z_are_the_papers_formulas():
    rng = np.random.default_rng(4)
    for _ in range(N_INPUTS):
        d = rng.integers(-4, 5, size=(5, 2)) / 20
        s2 = ((d[:, 0] - d[:, 1]) ** 2 / 2).sum()
        t = FD.combined_ttest_5x2cv(d)
        z = FD.conservative_z(d)
        if s2 == 0:
            assert math.isnan(t.statistic) and math.isnan(z.statistic) and z.pvalue == 1.0
            continue
        want_t = math.sqrt(10) * d.mean() / math.sqrt(s2 / 5)
        assert t.statistic == pytest.approx(want_t, rel=1e-12)
        assert abs(t.pvalue - 2 * stats.t.sf(abs(want_t), 5)) < TOL
        # N&B: sigma^2 = 1/(2J) sum_j (mu_j - mu_j^c)^2, Z = mean / sigma ~ N(0, 1)
        want_z = d.mean() / math.sqrt(((d[:, 0] - d[:, 1]) ** 2).sum() / 10)
        assert z.statistic == pytest.approx(want_z, rel=1e-12)
        assert abs(z.pvalue - 2 * stats.norm.sf(abs(want_z))) < TOL
        assert z.statistic == pytest.approx(t.statistic / math.sqrt(10), rel=1e-12)


# ----------------------------------------------------------- rank tests
@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_and_sign_test_agree_with_scipy(alternative):
    # two-sided on all N_INPUTS inputs; the one-sided alternatives on every third
    worst, n = 0.0, 0
    step = 1 if alternative == "two-sided" else 3
    pairs = list(_fold_pairs(5, [(5, 2), (1, 10), (3, 2), (2, 10), (10, 10), (1, 30)]))
    for ea, eb, *_ in pairs[::step]:
        d = FD.snap((ea - eb).reshape(1, -1))[0]  # scipy compares floats exactly
        mine = FD.wilcoxon_signed_rank(ea - eb, alternative=alternative)
        sg = FD.sign_test(ea - eb, alternative=alternative)
        k, m = int((d > 0).sum()), int((d != 0).sum())
        if m == 0:
            assert mine.pvalue == 1.0 and sg.pvalue == 1.0 and math.isnan(sg.statistic)
            continue
        ref = stats.wilcoxon(d, alternative=alternative)
        worst = max(worst, abs(mine.pvalue - ref.pvalue), abs(mine.statistic - ref.statistic),
                    abs(sg.pvalue - stats.binomtest(k, m, 0.5, alternative=alternative).pvalue))
        n += 1
    assert n >= 200 // step and worst < TOL, (n, worst)


def test_wilcoxon_exact_with_ties_is_the_full_permutation_distribution():
    # scipy enumerates the 2^n sign flips (method='auto' with ties, n <= 13)
    rng = np.random.default_rng(6)
    for _ in range(60):
        d = rng.integers(-3, 4, size=int(rng.integers(2, 13))) / 7
        if not d.any():
            continue
        ref = stats.wilcoxon(d, method=stats.PermutationMethod(n_resamples=np.inf))
        assert abs(FD.wilcoxon_signed_rank(d).pvalue - ref.pvalue) < TOL


def test_snapping_ties_differences_of_rates():
    a = np.array([0.3 - 0.2, 0.2 - 0.1, 0.4, -0.1])
    assert a[0] != a[1]  # an ulp apart
    s = FD.snap(a[None])[0]
    assert s[0] == s[1] and abs(s[3]) == s[0]


# ----------------------------------------------------------- McNemar exact / mid-p
def _discordant(seed: int):
    rng = np.random.default_rng(seed)
    for i in range(N_INPUTS):
        m = int(rng.choice([0, 1, 2, 3, 7, 20, 60, 200]))
        n01 = int(rng.integers(0, m + 1)) if i % 5 else m // 2
        yield n01, m - n01, max(1, m + int(rng.integers(0, 40)))


def test_mcnemar_exact_and_chi2_agree_with_statsmodels():
    sm = pytest.importorskip("statsmodels.stats.contingency_tables")
    from simstudy.stats import mcnemar

    worst, n = 0.0, 0
    for n01, n10, nn in _discordant(7):
        a = np.r_[np.ones(n01), np.zeros(n10), np.ones(nn - n01 - n10 - (nn - n01 - n10) // 2),
                  np.zeros((nn - n01 - n10) // 2)]
        b = np.r_[np.zeros(n01), np.ones(n10), a[n01 + n10:]]
        table = [[0, n01], [n10, 0]]
        ex = I.mcnemar_exact(a, b)
        if n01 + n10 == 0:
            assert ex.pvalue == 1.0 and math.isnan(ex.statistic)
            continue
        worst = max(worst, abs(ex.pvalue - sm.mcnemar(table, exact=True).pvalue),
                    abs(mcnemar(a, b).pvalue - sm.mcnemar(table, exact=False).pvalue))
        n += 1
    assert n >= 200 and worst < TOL, (n, worst)


def test_mcnemar_midp_is_fagerland_et_al_with_scipy_binom():
    worst, n = 0.0, 0
    for n01, n10, _ in _discordant(8):
        m = n01 + n10
        if m == 0:
            continue
        b = min(n01, n10)
        # Fagerland et al. (2013)'s mid-p: 2 [P(X <= b) - P(X = b) / 2], X ~ Bin(m, 1/2)
        want = min(1.0, 2 * (stats.binom.cdf(b, m, 0.5) - 0.5 * stats.binom.pmf(b, m, 0.5)))
        got = I.mcnemar_midp_batch(n01, n10)[1]
        worst = max(worst, abs(float(got) - want))
        assert float(got) <= float(I.mcnemar_exact_batch(n01, n10)[1]) + 1e-15
        n += 1
    assert n >= 200 and worst < TOL, (n, worst)


# ----------------------------------------------------------- permutation and bootstrap
def test_exact_permutation_test_agrees_with_scipys_enumeration():
    rng = np.random.default_rng(9)
    worst, n = 0.0, 0
    while n < N_INPUTS:
        size = int(rng.integers(2, 13))
        a = rng.integers(0, 2, size=size)
        b = np.where(rng.random(size) < 0.3, a, rng.integers(0, 2, size=size))
        mine = I.paired_permutation_test(a, b, resamples=None)
        ref = stats.permutation_test((a, b), lambda x, y: np.mean(x - y),
                                     permutation_type="samples", n_resamples=np.inf,
                                     vectorized=False)
        worst = max(worst, abs(mine.pvalue - ref.pvalue))
        assert mine.pvalue == I.mcnemar_exact(a, b).pvalue or (a == b).all()
        n += 1
    assert worst < TOL, worst


def test_monte_carlo_permutation_and_bootstrap_are_within_monte_carlo_error():
    # B = 9999; |p_MC - p_B=inf| <= 5 sd of a binomial share + 2/B (a stated MC tolerance)
    B = 9999
    worst = 0.0
    for i, (n01, n10, nn) in enumerate(_discordant(10)):
        for kind, fn in ((I.PERMUTATION, I.paired_permutation_batch),
                         (I.BOOTSTRAP, I.paired_bootstrap_batch)):
            args = (n01, n10) if kind == I.PERMUTATION else (n01, n10, max(nn, 1))
            key = np.array([I.resampling_key(i, kind)])
            p_mc = float(fn(*args, key, resamples=B)[1][0])
            p_ex = float(fn(*args, None, resamples=None)[1][0])
            tol = 5 * math.sqrt(p_ex * (1 - p_ex) / B) + 2.0 / B
            worst = max(worst, abs(p_mc - p_ex) / tol)
    assert worst <= 1.0, worst


def test_ideal_bootstrap_is_the_trinomial_sum():
    rng = np.random.default_rng(11)
    worst = 0.0
    for _ in range(N_INPUTS):
        n = int(rng.integers(1, 25))
        n01 = int(rng.integers(0, n + 1))
        n10 = int(rng.integers(0, n - n01 + 1))
        delta = n01 - n10
        p = [n01 / n, n10 / n, 1 - (n01 + n10) / n]
        want = 1.0 if delta == 0 else sum(
            stats.multinomial.pmf([x, y, n - x - y], n, p)
            for x in range(n + 1) for y in range(n + 1 - x) if abs(x - y - delta) >= abs(delta))
        got = float(I.paired_bootstrap_batch(n01, n10, n, resamples=None)[1][0])
        worst = max(worst, abs(got - want))
    assert worst < TOL, worst


def test_monte_carlo_bootstrap_agrees_with_arch_resampling_within_monte_carlo_error():
    ab = pytest.importorskip("arch.bootstrap")
    rng = np.random.default_rng(12)
    B = 2000
    for i in range(20):
        n = int(rng.integers(20, 80))
        a = rng.integers(0, 2, size=n)
        b = np.where(rng.random(n) < 0.6, a, 1 - a)
        h = (a - b).astype(float)
        delta = h.mean()
        boot = ab.IIDBootstrap(h, seed=i)
        stars = np.array([x[0][0].mean() for x in boot.bootstrap(B)])
        ref = np.mean(np.abs(stars - delta) >= abs(delta) - 1e-12) if delta else 1.0
        mine = I.paired_bootstrap_test(a, b, resamples=B, seed=i).pvalue
        ideal = I.paired_bootstrap_test(a, b, resamples=None).pvalue
        tol = 5 * math.sqrt(2 * ideal * (1 - ideal) / B) + 2.0 / B
        assert abs(mine - ref) <= tol, (i, mine, ref, tol)


def test_resampling_draws_are_reproducible_and_per_trial():
    k = np.array([I.resampling_key(np.random.SeedSequence(5, spawn_key=(9, r)), 0)
                  for r in range(4)])
    u = I.uniforms(k, 0, 1000)
    assert np.array_equal(u, I.uniforms(k, 0, 1000))
    assert np.array_equal(u[2:3], I.uniforms(k[2:3], 0, 1000))  # alone or in a batch
    assert np.array_equal(u[:, 500:], I.uniforms(k, 500, 500))
    assert abs(u.mean() - 0.5) < 0.02 and len({*k.tolist()}) == 4
    p1 = I.paired_permutation_batch([9, 3], [2, 3], k[:2])[1]
    p2 = I.paired_permutation_batch([9], [2], k[:1])[1]
    assert p1[0] == p2[0] and p1[1] == 1.0


# ----------------------------------------------------------- cross-validation CLT
def test_cv_clt_is_bayle_et_al_within_fold_estimator():
    # the oracle: mlr3inferr's ci.wald_cv(variance = "within-fold") written out in numpy
    rng = np.random.default_rng(13)
    worst, n = 0.0, 0
    for i in range(N_INPUTS):
        k = int(rng.integers(2, 11))
        sizes = rng.integers(1 if i % 10 == 0 else 2, 30, size=k)
        folds = np.repeat(np.arange(k), sizes)
        h = rng.integers(-1, 2, size=folds.size) * (rng.random(folds.size) < 0.5)
        if i % 9 == 0:
            h = np.zeros_like(h)
        alt = ("two-sided", "greater", "less")[i % 3]
        mine = I.cv_clt(h, folds, alternative=alt)
        if (sizes < 2).any():
            assert math.isnan(mine.statistic) and mine.pvalue == 1.0
            continue
        var_in = np.mean([np.var(h[folds == j], ddof=1) for j in range(k)])
        if var_in == 0:
            assert mine.pvalue == 1.0
            continue
        z = math.sqrt(h.size) * h.mean() / math.sqrt(var_in)
        want = {"two-sided": 2 * stats.norm.sf(abs(z)), "greater": stats.norm.sf(z),
                "less": stats.norm.cdf(z)}[alt]
        worst = max(worst, abs(mine.pvalue - want), abs(mine.statistic - z))
        n += 1
    assert n >= 150 and worst < TOL, (n, worst)
    # real-valued losses too
    h = rng.normal(0.1, 1, 60)
    f = np.repeat(np.arange(5), 12)
    z = math.sqrt(60) * h.mean() / math.sqrt(np.mean([np.var(h[f == j], ddof=1) for j in range(5)]))
    assert I.cv_clt(h, f).statistic == pytest.approx(z, rel=1e-12)


# ----------------------------------------------------------- model confidence set
@pytest.mark.parametrize("method", ["R", "max"])
def test_mcs_agrees_with_arch_given_its_bootstrap_indices(method):
    ab = pytest.importorskip("arch.bootstrap")
    rng = np.random.default_rng(14)
    worst, n = 0.0, 0
    for i in range(N_INPUTS // 2 if method == "R" else N_INPUTS // 2):
        T = int(rng.choice([10, 20, 30]))
        K = int(rng.integers(2, 6))
        L = rng.normal(rng.uniform(0.1, 0.3, K), rng.uniform(0.005, 0.05), size=(T, K))
        ref = ab.MCS(L, size=0.1, reps=200, method=method, block_size=2,
                     bootstrap="circular", seed=i)
        ref.compute()
        idx = np.stack(ref._bootstrap_indices)
        p, order = M.mcs_pvalues(L[None], idx[None], method=method)
        want = ref.pvalues["Pvalue"]
        got = np.array([p[0, j] for j in want.index])
        worst = max(worst, float(np.abs(got - want.to_numpy()).max()))
        mine = M.model_confidence_set(L, alpha=0.1, method=method, indices=idx)
        assert list(mine.included) == sorted(ref.included)
        n += 1
    assert n >= 100 and worst < TOL, (n, worst)


def test_mcs_handles_what_arch_does_not():
    # identical models and tied maxima: one model eliminated per step (HLN), no crash
    base = np.random.default_rng(15).normal(0.2, 0.02, size=(10, 1))
    L = np.hstack([base + 0.05, base, base])  # model 0 worse; models 1 and 2 identical
    idx = M.mcs_indices(5, 2, 500, np.random.default_rng(0))
    for method in ("R", "max"):
        r = M.model_confidence_set(L, method=method, indices=idx)
        assert r.eliminated[0] == 0 and set(r.included) == {1, 2}, (method, r)


def test_mcs_choice_is_registered_and_picks_the_most_preferred_survivor():
    e = np.stack([np.full((5, 2), 0.30), np.full((5, 2), 0.10), np.full((5, 2), 0.105)])
    e = e + np.random.default_rng(3).normal(0, 0.01, e.shape)
    best, order = get_test("mcs")(e, 0.05)
    assert best == 1 and order[-1] == 0
    assert get_test("mcs[stat=max]")(e, 0.05)[0] == 1
    assert best == get_test("mcs")(e, 0.05)[0]  # seeded by the errors: reproducible


# ----------------------------------------------------------- the named tests
NEW = ("bayes-correlated-t", "conservative-z", "combined-t5x2cv", "wilcoxon", "sign-test",
       "cv-clt", "mcnemar-exact", "mcnemar-midp", "paired-permutation", "paired-bootstrap",
       "mcs")


def test_every_new_test_is_listed_with_its_paper():
    rows = dict(describe_tests())
    papers = {"bayes-correlated-t": "Corani & Benavoli 2015", "conservative-z": "Nadeau & Bengio",
              "combined-t5x2cv": "Yildiz", "wilcoxon": "Demsar 2006", "sign-test": "Demsar 2006",
              "cv-clt": "Bayle, Bayle, Janson & Mackey 2020",
              "mcnemar-exact": "Fagerland, Lydersen & Laake 2013",
              "mcnemar-midp": "Fagerland, Lydersen & Laake 2013",
              "paired-permutation": "Ojala & Garriga 2010",
              "paired-bootstrap": "Efron & Tibshirani 1993", "mcs": "Hansen, Lunde & Nason 2011"}
    for name in NEW:
        assert papers[name] in rows[name], (name, rows[name])


@pytest.mark.parametrize("design, fit", [
    ("5x2", {"bayes-correlated-t", "conservative-z", "combined-t5x2cv", "wilcoxon",
             "sign-test", "cv-clt", "mcs"}),
    ("b5x2", {"bayes-correlated-t", "conservative-z", "combined-t5x2cv", "cv-clt"}),
    ("10x10cv", {"bayes-correlated-t", "wilcoxon", "cv-clt", "mcs"}),
    ("resample", {"bayes-correlated-t", "wilcoxon", "sign-test"}),
])
def test_designs_each_new_test_fits(design, fit):
    des = get_design(design)
    for name in NEW:
        if name in fit:
            assert get_test(name).fits(des), (name, design)
    assert not get_test("conservative-z").fits(get_design("10x10cv"))
    assert not get_test("combined-t5x2cv").fits(get_design("resample"))
    assert not get_test("cv-clt").fits(get_design("resample"))


def _trial(seed: int, R: int = 5, F: int = 2, n: int = 40):
    rng = np.random.default_rng(seed)
    test = np.zeros((R, F, n), dtype=bool)
    for r in range(R):
        perm = rng.permutation(n)
        for f in range(F):
            test[r, f, perm[f::F]] = True
    wrong = rng.random((3, R, F, n)) < np.array([0.2, 0.3, 0.25])[:, None, None, None]
    losses = np.where(test[None], wrong.astype(np.int8), np.int8(-1))
    errors = (wrong & test[None]).sum(-1) / test.sum(-1)
    nte = test.sum(-1)
    return FoldLosses(errors, n - nte, nte, losses)


def test_named_tests_are_their_pure_functions_on_the_pair():
    fl = _trial(0)
    for a, b in itertools.combinations(range(3), 2):
        d = fl.diff(a, b)
        c = I.pair_counts(fl.losses, a, b)
        la, lb = fl.losses[a, 0, 0], fl.losses[b, 0, 0]
        on = la >= 0
        pairs = {
            "bayes-correlated-t": BY.correlated_bayesian_ttest(
                d, n_train=fl.n_train.mean(), n_test=fl.n_test.mean()),
            "conservative-z": FD.conservative_z(d),
            "combined-t5x2cv": FD.combined_ttest_5x2cv(d),
            "wilcoxon": FD.wilcoxon_signed_rank(d),
            "sign-test": FD.sign_test(d),
            "mcnemar-exact": I.mcnemar_exact(la[on], lb[on]),
            "mcnemar-midp": I.mcnemar_midp(la[on], lb[on]),
            "paired-permutation[resamples=exact]": I.paired_permutation_test(
                la[on], lb[on], resamples=None),
            "paired-bootstrap[resamples=exact]": I.paired_bootstrap_test(
                la[on], lb[on], resamples=None),
        }
        for name, want in pairs.items():
            got = get_test(name)(fl, a, b)
            assert (got.pvalue, got.df) == (want.pvalue, want.df), name
            assert got.statistic == want.statistic or (math.isnan(got.statistic)
                                                       and math.isnan(want.statistic)), name
        h = np.concatenate([(fl.losses[a, 0, f] - fl.losses[b, 0, f])[fl.losses[a, 0, f] >= 0]
                            for f in range(2)])
        folds = np.concatenate([np.full(int(c[0, f, 2]), f) for f in range(2)])
        assert get_test("cv-clt")(fl, a, b).pvalue == pytest.approx(
            I.cv_clt(h, folds).pvalue, abs=1e-14)


def test_monte_carlo_tests_need_the_trials_seed():
    fl = _trial(1)
    with pytest.raises(SimstudyError, match="seed"):
        get_test("paired-permutation")(fl, 0, 1)
    with pytest.raises(SimstudyError, match="per-instance losses"):
        get_test("mcnemar-exact")(FoldLosses(fl.errors, fl.n_train, fl.n_test), 0, 1)
