"""Tests on a design's fold differences proposed since 1998: pure functions, vectorised twins.

Conventions are those of :mod:`.pairwise`: ``d`` are differences of error rates, learner A
minus learner B; ``alternative='greater'`` is H1 "A's error > B's"; a zero spread makes the
statistic undefined (``nan``, p = 1, never a reject); bad input raises
:class:`~simstudy.errors.SimstudyError`.  Each test has a ``*_batch`` twin over trials
(``d`` of shape (T, ...)) returning ``(statistic, pvalue)`` arrays; the scalar function is
the batch on one trial, so the two agree by construction.

* :func:`conservative_z`: Nadeau & Bengio (2003)'s conservative Z on a design of paired
  complementary halves (5x2, balanced 5x2, blocked 3x2);
* :func:`combined_ttest_5x2cv`: Yıldız (2013)'s combined 5x2 cv t, t(5);
* :func:`wilcoxon_signed_rank` and :func:`sign_test` on the fold differences (Demšar 2006
  for their use on results), as scipy computes them.

Rounding: fold differences are differences of rates (k/n), so "equal" ones may differ by an
ulp (0.3 - 0.2 != 0.2 - 0.1).  The rank tests therefore read ``d`` snapped to 12 decimals
of its largest magnitude (:func:`snap`): values within ~1e-12 of each other tie, and a
difference within that of 0 is a zero.  scipy compares floats exactly; fed the snapped
values it gives the same p-values (tests/test_stats_baselines.py).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

from ..errors import SimstudyError
from ._common import REL_TOL
from ._result import TestResult
from .pairwise import _check_alternative

__all__ = [
    "combined_ttest_5x2cv",
    "combined_ttest_5x2cv_batch",
    "conservative_z",
    "conservative_z_batch",
    "sign_test",
    "sign_test_batch",
    "snap",
    "wilcoxon_signed_rank",
    "wilcoxon_signed_rank_batch",
]

#: scipy's rules (``scipy.stats.wilcoxon(method='auto')``): the exact null distribution
#: without ties or zeros up to this many differences ...
EXACT_MAX_N = 50
#: ... and the exact permutation distribution (all 2^n sign flips) with ties or zeros up to
#: this many; beyond, the normal approximation with the tie correction
PERMUTATION_MAX_N = 13


def _trials(d: object, name: str = "d", tail: tuple[int, ...] | None = None,
            min_per: int = 1) -> np.ndarray:
    """Float64 (T, ...) view of a batch, checked; ``tail`` = required trailing shape."""
    try:
        a = np.asarray(d, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise SimstudyError(f"{name} must be an array of numbers, got {d!r}") from exc
    if a.ndim < 2 or a.shape[0] == 0:
        raise SimstudyError(f"{name} must have shape (trials, ...), got shape {a.shape!r}")
    if tail is not None and a.shape[1:] != tail:
        raise SimstudyError(f"{name} must have shape (trials, {', '.join(map(str, tail))}), "
                            f"got shape {a.shape!r}")
    if int(np.prod(a.shape[1:])) < min_per:
        raise SimstudyError(f"{name} needs at least {min_per} values per trial, got shape "
                            f"{a.shape!r}")
    if not np.isfinite(a).all():
        raise SimstudyError(f"{name} contains nan or inf")
    return a


def _unit(a: np.ndarray) -> np.ndarray:
    """Each trial divided by its largest |d| (the statistics are scale-invariant)."""
    m = np.abs(a.reshape(a.shape[0], -1)).max(axis=1)
    return a / np.where(m > 0, m, 1.0).reshape((-1,) + (1,) * (a.ndim - 1))


def _p_normal(z: np.ndarray, alternative: str) -> np.ndarray:
    if alternative == "two-sided":
        return np.minimum(1.0, 2.0 * special.ndtr(-np.abs(z)))
    return special.ndtr(-z) if alternative == "greater" else special.ndtr(z)


def _p_t(t: np.ndarray, df: float, alternative: str) -> np.ndarray:
    if alternative == "two-sided":
        return np.minimum(1.0, 2.0 * special.stdtr(df, -np.abs(t)))
    return special.stdtr(df, -t) if alternative == "greater" else special.stdtr(df, t)


def _one(batch, d: object, shape_check, df, alternative: str, **kw) -> TestResult:
    """Run a batch test on one trial and wrap it as a TestResult."""
    a = np.asarray(d, dtype=np.float64) if not isinstance(d, np.ndarray) else d
    shape_check(a)
    stat, p = batch(a[None], alternative=alternative, **kw)
    return TestResult(float(stat[0]), float(p[0]), df, alternative)


# ------------------------------------------------------------------ conservative Z
def conservative_z_batch(d: object, *, alternative: str = "two-sided"
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`conservative_z` over ``d`` of shape (T, J, 2)."""
    a = _unit(_trials(d, tail=None))
    if a.ndim != 3 or a.shape[2] != 2:
        raise SimstudyError(f"d must have shape (trials, J, 2): J pairs of complementary "
                            f"halves, got shape {a.shape!r}")
    alternative = _check_alternative(alternative)
    J = a.shape[1]
    diff = a[:, :, 0] - a[:, :, 1]
    s2 = (diff * diff).sum(axis=1) / (2.0 * J)
    bad = 2.0 * J * s2 <= J * REL_TOL ** 2 * np.abs(a).max(axis=(1, 2)) ** 2
    z = a.mean(axis=(1, 2)) / np.sqrt(np.where(bad, 1.0, s2))
    return np.where(bad, np.nan, z), np.where(bad, 1.0, _p_normal(z, alternative))


def conservative_z(d: object, *, alternative: str = "two-sided") -> TestResult:
    """Nadeau & Bengio (2003, Machine Learning 52)'s conservative Z on paired halves.

    ``d[j]`` are the two fold differences of replication j of a design of complementary
    halves (train on one half, test on the other, then swap).  With the estimate μ̂ the mean
    of all 2J differences and N&B's half-split variance estimate
    ``σ̂² = (1/(2J)) Σ_j (d_j1 - d_j2)²``, ``Z = μ̂ / σ̂`` is compared with N(0, 1).

    N&B compute the two estimates of a pair inside each half (train and test within a
    half: independent, so σ̂² is unbiased for the variance of a half-sample estimator, which
    bounds the full-sample estimator's from above).  A 5x2 design holds no within-half
    estimates; the two folds of a replication use both halves, so σ̂² here estimates
    Var(d) - Cov(d_j1, d_j2), the variance of one fold difference (it is Dietterich's
    s_j², averaged), not of μ̂: the test is conservative by construction (Z equals Yıldız's
    combined 5x2 cv t divided by sqrt(2J)).  docs/baselines.md says what this shows.

    Parameters
    ----------
    d : array (J, 2)
        Error-rate differences A - B of the J pairs of complementary halves, J >= 1.
    alternative : {'two-sided', 'less', 'greater'}

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([[0.04, 0.05], [0.03, 0.06], [0.05, 0.04], [0.02, 0.05], [0.04, 0.03]])
    >>> r = conservative_z(d)
    >>> round(r.statistic, 3), round(r.pvalue, 4)
    (2.829, 0.0047)
    """
    def check(a: np.ndarray) -> None:
        if a.ndim != 2 or a.shape[1] != 2 or a.shape[0] < 1:
            raise SimstudyError(f"d must have shape (J, 2), J >= 1 pairs of complementary "
                                f"halves, got shape {a.shape!r}")
    return _one(conservative_z_batch, d, check, None, _check_alternative(alternative))


# ------------------------------------------------------------ combined 5x2 cv t
def combined_ttest_5x2cv_batch(d: object, *, alternative: str = "two-sided"
                               ) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`combined_ttest_5x2cv` over ``d`` of shape (T, 5, 2)."""
    a = _unit(_trials(d, tail=(5, 2)))
    alternative = _check_alternative(alternative)
    diff = a[:, :, 0] - a[:, :, 1]
    s2 = (diff * diff).sum(axis=1) / 2.0  # sum over replications of s_i^2
    bad = 2.0 * s2 <= 5 * (REL_TOL * np.abs(a).max(axis=(1, 2))) ** 2
    t = math.sqrt(10.0) * a.mean(axis=(1, 2)) / np.sqrt(np.where(bad, 1.0, s2) / 5.0)
    return np.where(bad, np.nan, t), np.where(bad, 1.0, _p_t(t, 5.0, alternative))


def combined_ttest_5x2cv(d: object, *, alternative: str = "two-sided") -> TestResult:
    """Yıldız (2013, IEEE TKDE 25(9):2105)'s combined 5x2 cv t test.

    All ten differences over the pooled variance:
    ``t = sqrt(10) · mean(d) / sqrt(Σ_i s_i² / 5)``, ``s_i² = Σ_j (d_ij - d̄_i)²``, ~ t(5).
    (Dietterich's 5x2 cv t uses one difference, d_11, over the same denominator.)

    Parameters
    ----------
    d : array (5, 2)
        Error-rate differences A - B, ``d[replication, fold]``.
    alternative : {'two-sided', 'less', 'greater'}

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([[0.04, 0.05], [0.03, 0.06], [0.05, 0.04], [0.02, 0.05], [0.04, 0.03]])
    >>> r = combined_ttest_5x2cv(d)
    >>> round(r.statistic, 3), round(r.pvalue, 6), r.df
    (8.947, 0.000291, 5.0)
    """
    def check(a: np.ndarray) -> None:
        if a.shape != (5, 2):
            raise SimstudyError(f"d must have shape (5, 2), got shape {a.shape!r}")
    return _one(combined_ttest_5x2cv_batch, d, check, 5.0, _check_alternative(alternative))


# ------------------------------------------------------------- rank tests
def snap(d: object) -> np.ndarray:
    """``d`` (T, n) rounded to 12 decimals of each trial's largest |d|, back on its scale.

    Ulp noise of differences of rates goes (0.3 - 0.2 and 0.2 - 0.1 tie; 1e-17 is 0);
    differences further apart than ~1e-12 of the largest stay apart.
    """
    a = np.asarray(d, dtype=np.float64)
    m = np.abs(a).max(axis=1, keepdims=True)
    m = np.where(m > 0, m, 1.0)
    return np.round(a / m, 12) * m


def sign_test_batch(d: object, *, alternative: str = "two-sided"
                    ) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`sign_test` over ``d`` of shape (T, ...)."""
    a = snap(_trials(d).reshape(np.shape(d)[0], -1))
    alternative = _check_alternative(alternative)
    k = (a > 0).sum(axis=1)
    m = (a != 0).sum(axis=1)
    none = m == 0
    # P(X <= k) and P(X >= k) for X ~ Bin(m, 1/2)
    lo = special.bdtr(k, m, 0.5)
    hi = np.where(k > 0, special.bdtrc(np.maximum(k - 1, 0), m, 0.5), 1.0)
    if alternative == "two-sided":
        p = np.minimum(1.0, 2.0 * np.minimum(lo, hi))
    else:
        p = hi if alternative == "greater" else lo
    return np.where(none, np.nan, k.astype(np.float64)), np.where(none, 1.0, p)


def sign_test(d: object, *, alternative: str = "two-sided") -> TestResult:
    """Sign test on the fold differences (Demšar 2006, as a test on one data set).

    Zeros dropped; k = #(d > 0) of the m non-zero differences, exact binomial test of
    k ~ Bin(m, 1/2) (``scipy.stats.binomtest``; two-sided: ``min(1, 2 min(P(X <= k),
    P(X >= k)))``).  ``statistic`` = k; all differences zero: nan, p = 1.

    Examples
    --------
    >>> import numpy as np
    >>> r = sign_test(np.array([0.04, 0.05, 0.03, 0.06, -0.01, 0.02, 0.0, 0.03]))
    >>> r.statistic, round(r.pvalue, 4)
    (6.0, 0.125)
    """
    a = np.asarray(d, dtype=np.float64)
    if a.size < 1:
        raise SimstudyError(f"d needs at least one difference, got shape {a.shape!r}")
    stat, p = sign_test_batch(a.reshape(1, -1), alternative=_check_alternative(alternative))
    return TestResult(float(stat[0]), float(p[0]), None, alternative)


@functools.cache
def _untied_cdf(n: int) -> np.ndarray:
    """P(W+ <= w), w = 0 .. n(n+1)/2, of the signed-rank statistic without ties (n ranks)."""
    return np.cumsum(_rank_sum_pmf(np.arange(1, n + 1, dtype=np.int64)[None], n * (n + 1) // 2)[0])


def _rank_sum_pmf(r: np.ndarray, top: int) -> np.ndarray:
    """pmf of Σ_i r_i s_i with independent fair signs s_i ∈ {0, 1}: (T, top + 1) for the
    integer (doubled) ranks ``r`` (T, m); the exact conditional null given the ties."""
    T, m = r.shape
    pmf = np.zeros((T, top + 1))
    pmf[:, 0] = 1.0
    grid = np.arange(top + 1)
    rows = np.arange(T)[:, None]
    for i in range(m):
        src = grid[None, :] - r[:, i:i + 1]
        shifted = np.where(src >= 0, pmf[rows, np.maximum(src, 0)], 0.0)
        pmf = 0.5 * (pmf + shifted)
    return pmf


#: per m: the packed tie patterns seen (sorted) and their cdfs of 2 W+ (one row each)
_TIE_CDF: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _tie_cdfs(rr: np.ndarray, m: int) -> tuple[np.ndarray, np.ndarray]:
    """The permutation cdfs of 2 W+ for the sorted doubled ranks ``rr`` (T, m), m <=
    :data:`PERMUTATION_MAX_N`: a (U, m (m + 1) + 1) table and each row's index into it.
    Each row is packed into one integer (its ranks, at most 2m, as digits in base 2m + 1:
    27^13 < 2^63), so finding the distinct ones is a sort of T integers; a pattern's cdf is
    computed once and kept (bounded) for later calls."""
    base = 2 * m + 1
    key = np.zeros(rr.shape[0], dtype=np.int64)
    for j in range(m):
        key = key * base + rr[:, j]
    uk, first, inv = np.unique(key, return_index=True, return_inverse=True)
    keys, table = _TIE_CDF.get(m, (np.zeros(0, np.int64), np.zeros((0, m * (m + 1) + 1))))
    pos = np.minimum(np.searchsorted(keys, uk), max(keys.size - 1, 0))
    new = (keys[pos] != uk) if keys.size else np.ones(uk.size, dtype=bool)
    if new.any():
        fresh = np.concatenate([
            np.cumsum(_rank_sum_pmf(rr[part], m * (m + 1)), axis=1)  # bounded memory
            for part in np.array_split(first[new], -(-int(new.sum()) // 20000))])
        if keys.size + fresh.shape[0] > 200_000:
            keys, table = keys[:0], table[:0]
        keys = np.concatenate([keys, uk[new]])
        table = np.concatenate([table, fresh])
        order = np.argsort(keys, kind="stable")
        keys, table = keys[order], table[order]
        _TIE_CDF[m] = (keys, table)
        pos = np.searchsorted(keys, uk)
    return table[pos], inv.reshape(-1)


#: up to this many differences per trial, midranks by comparing every pair (no sort)
PAIRWISE_MAX_N = 16


def _midranks2(x: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Doubled average ranks (integers) of ``x`` among the valid entries of each row, and
    Σ (t³ - t) over tie groups (for the normal approximation)."""
    T, n = x.shape
    if n <= PAIRWISE_MAX_N:
        # an entry after L smaller ones in a tie group of t holds ranks L+1 .. L+t: twice
        # their mean is 2L + t + 1; a group's t³ - t is the sum of t² - 1 over its members
        below = np.zeros((T, n), dtype=np.int16)
        t = np.zeros((T, n), dtype=np.int16)
        for j in range(n):  # (T, n) at a time: bounded memory, no (T, n, n) array
            xj, vj = x[:, j:j + 1], valid[:, j:j + 1]
            below += (xj < x) & vj
            t += (xj == x) & vj
        t64 = t.astype(np.int64)
        tie = np.where(valid, t64 * t64 - 1, 0).sum(axis=1).astype(np.float64)
        return np.where(valid, 2 * below.astype(np.int64) + t64 + 1, 0), tie
    key = np.where(valid, x, np.inf)
    order = np.argsort(key, axis=1, kind="stable")
    xs = np.take_along_axis(key, order, axis=1)
    pos = np.arange(n)[None, :].repeat(T, 0)
    new = np.ones((T, n), dtype=bool)
    new[:, 1:] = xs[:, 1:] != xs[:, :-1]
    # first and last position of each run of equal values
    first = np.maximum.accumulate(np.where(new, pos, 0), axis=1)
    last_new = np.ones((T, n), dtype=bool)
    last_new[:, :-1] = new[:, 1:]
    last = np.flip(np.minimum.accumulate(np.flip(np.where(last_new, pos, n), 1), axis=1), 1)
    r2s = first + last + 2  # (first+1 + last+1): twice the average rank, an integer
    t = (last - first + 1).astype(np.float64)
    vs = np.take_along_axis(valid, order, axis=1)
    tie = np.where(vs & new, t ** 3 - t, 0.0).sum(axis=1)
    r2 = np.empty_like(r2s)
    np.put_along_axis(r2, order, r2s, axis=1)
    return np.where(valid, r2, 0), tie


def wilcoxon_signed_rank_batch(d: object, *, alternative: str = "two-sided"
                               ) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`wilcoxon_signed_rank` over ``d`` of shape (T, ...)."""
    a = snap(_trials(d).reshape(np.shape(d)[0], -1))
    alternative = _check_alternative(alternative)
    T, n = a.shape
    nz = a != 0
    m = nz.sum(axis=1)
    r2, tie = _midranks2(np.abs(a), nz)
    w2 = np.where(a > 0, r2, 0).sum(axis=1)          # 2 W+
    w2m = np.where(a < 0, r2, 0).sum(axis=1)         # 2 W-
    stat = (np.minimum(w2, w2m) if alternative == "two-sided" else w2) / 2.0
    p = np.ones(T)
    has_tie = tie > 0
    zeros = m < n
    exact_perm = n <= PERMUTATION_MAX_N
    exact_untied = ~has_tie & ~zeros & (n <= EXACT_MAX_N)
    lo = np.full(T, np.nan)
    hi = np.full(T, np.nan)
    # exact, no ties or zeros: the classic distribution of W+ for m ranks (one table per m)
    if not exact_perm:
        for mm in np.unique(m[exact_untied]):
            sel = exact_untied & (m == mm)
            cdf = _untied_cdf(int(mm))
            w = (w2[sel] // 2).astype(np.int64)
            lo[sel] = cdf[w]
            hi[sel] = 1.0 - np.where(w > 0, cdf[np.maximum(w - 1, 0)], 0.0)
    # exact permutation distribution given the ties (all 2^m sign flips of the midranks)
    if exact_perm:
        for mm in np.unique(m):
            sel = m == mm
            if mm == 0:
                lo[sel] = hi[sel] = 1.0
                continue
            rows = np.flatnonzero(sel)
            rr = np.sort(r2[rows], axis=1)[:, n - mm:]
            # one distribution per distinct tie pattern (few: fold errors are counts), kept
            # across calls; each row's the same numbers as computed alone
            cdf, inv = _tie_cdfs(rr, int(mm))
            w = w2[rows].astype(np.int64)
            lo[rows] = cdf[inv, w]
            hi[rows] = 1.0 - np.where(w > 0, cdf[inv, np.maximum(w - 1, 0)], 0.0)
    exact = exact_untied | exact_perm
    if exact.any():
        lo_e, hi_e = np.clip(lo[exact], 0.0, 1.0), np.clip(hi[exact], 0.0, 1.0)
        if alternative == "two-sided":
            p[exact] = np.minimum(1.0, 2.0 * np.minimum(lo_e, hi_e))
        else:
            p[exact] = hi_e if alternative == "greater" else lo_e
    asym = ~exact & (m > 0)
    if asym.any():
        mm = m[asym].astype(np.float64)
        se = np.sqrt((mm * (mm + 1) * (2 * mm + 1) - tie[asym] / 2.0) / 24.0)
        z = (w2[asym] / 2.0 - mm * (mm + 1) / 4.0) / se
        p[asym] = _p_normal(z, alternative)
    none = m == 0
    return np.where(none, np.nan, stat), np.where(none, 1.0, p)


def wilcoxon_signed_rank(d: object, *, alternative: str = "two-sided") -> TestResult:
    """Wilcoxon signed-rank test on the fold differences (Wilcoxon 1945; Demšar 2006), as
    ``scipy.stats.wilcoxon(d, alternative=...)`` computes it by default.

    Zeros are dropped (Wilcoxon's ``zero_method='wilcox'``); |d| ranked with average ranks
    on ties.  The method, as scipy's ``method='auto'`` (scipy >= 1.15):

    * no ties, no zeros, n <= 50: the exact null distribution of W+;
    * ties or zeros and n <= 13 (n counting the zeros): the exact permutation distribution
      of W+ given the ties (all 2^m sign flips of the midranks; computed exactly here,
      enumerated by scipy's ``permutation_test``);
    * otherwise: normal approximation with the tie correction, no continuity correction.

    ``statistic``: min(W+, W-) two-sided (as scipy), W+ one-sided; no non-zero difference:
    nan, p = 1.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([[0.04, 0.05], [0.03, 0.06], [0.05, 0.04], [-0.02, 0.05], [0.04, 0.03]])
    >>> r = wilcoxon_signed_rank(d)
    >>> r.statistic, round(r.pvalue, 4)
    (1.0, 0.0039)
    """
    a = np.asarray(d, dtype=np.float64)
    if a.size < 1:
        raise SimstudyError(f"d needs at least one difference, got shape {a.shape!r}")
    stat, p = wilcoxon_signed_rank_batch(a.reshape(1, -1),
                                         alternative=_check_alternative(alternative))
    return TestResult(float(stat[0]), float(p[0]), None, alternative)
