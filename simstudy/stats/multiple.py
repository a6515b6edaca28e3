"""Comparing K > 2 learners: ANOVA, Newman–Keuls, Looney's F, MultiTest, TestFirst.

All from Yıldız & Alpaydın (2006), *Ordering and Finding the Best of K > 2 Supervised
Learning Algorithms*, IEEE TPAMI 28(3).  Learners are indexed ``0 .. K-1`` in **decreasing
prior preference** (index 0 = simplest / most preferred), the paper's 1..K minus one.

``errors`` arrays hold error rates: ``(K, L)`` for ANOVA / Newman–Keuls (L validation folds
per learner) and ``(K, R, F)`` (e.g. ``(K, 5, 2)``) for MultiTest / TestFirst; a ``(K, L)``
array is accepted there as ``(K, L)`` too when a custom ``test`` reads it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy import special

from ..errors import SimstudyError, unknown
from ..params import ALPHA, check
from ._common import check_array, degenerate, undefined
from ._result import TestResult
from .pairwise import ttest_5x2cv

__all__ = [
    "CORRECTIONS",
    "MultiTestResult",
    "NewmanKeulsResult",
    "TestFirstResult",
    "anova",
    "looney_f",
    "multiple_rejections",
    "multitest",
    "multitest_order",
    "newman_keuls",
    "testfirst",
]

CORRECTIONS = ("bonferroni", "holm")


def _check_correction(correction: object) -> str:
    if correction not in CORRECTIONS:
        raise unknown("correction", correction, CORRECTIONS)
    return correction  # type: ignore[return-value]


def _errors_kl(errors: object) -> np.ndarray:
    a = check_array(errors, "errors", ndim=2)
    if a.shape[0] < 2 or a.shape[1] < 2:
        raise SimstudyError(f"errors must have shape (K >= 2, L >= 2), got shape {a.shape!r}")
    return a


# --------------------------------------------------------------------------- corrections
def multiple_rejections(
    pvalues: object, *, alpha: float = 0.05, correction: str = "bonferroni", m: int | None = None
) -> np.ndarray:
    """Which of ``pvalues`` are rejected at family-wise level ``alpha``.

    * ``'bonferroni'``: reject p < alpha / m;
    * ``'holm'`` (Holm 1979): sort ascending, reject p_(k) < alpha / (m - k) for
      k = 0, 1, ... and stop at the first acceptance.

    ``m`` (default: the number of p-values) is the family size; a larger ``m`` counts
    hypotheses that were accepted without a test.  Returns a bool array shaped like
    ``pvalues``.  (Strict ``<``, as :meth:`TestResult.reject`.)
    """
    alpha = check("alpha", alpha, ALPHA)
    correction = _check_correction(correction)
    p = np.asarray(pvalues, dtype=np.float64)
    if np.isnan(p).any():
        raise SimstudyError(f"pvalues contain nan: {p!r}")
    mm = p.size if m is None else int(m)
    if mm < p.size:
        raise SimstudyError(f"m must be at least the number of p-values ({p.size}), got {m!r}")
    if correction == "bonferroni":
        return p < alpha / max(mm, 1)
    flat = p.ravel()
    out = np.zeros(flat.size, dtype=bool)
    for k, idx in enumerate(np.argsort(flat, kind="stable")):
        if not flat[idx] < alpha / (mm - k):
            break
        out[idx] = True
    return out.reshape(p.shape)


# ----------------------------------------------------------------------------- ANOVA
def anova(errors: object) -> TestResult:
    """One-way ANOVA of K learners' fold errors (Yıldız & Alpaydın 2006, eqs. 9-11).

    ``MST = L sum_i (m_i - m)^2 / (K - 1)``, ``MSE = sum_ij (Y_ij - m_i)^2 / (K L - K)``,
    ``f = MST / MSE`` ~ F(K - 1, K(L - 1)); p is the upper tail.  ``errors`` is (K, L).
    MSE = 0 gives nan / p = 1.
    """
    a = _errors_kl(errors)
    k, n = a.shape
    mi = a.mean(axis=1)
    m = float(mi.mean())
    ss_within = float(((a - mi[:, None]) ** 2).sum())
    df = (float(k - 1), float(k * (n - 1)))
    if degenerate(ss_within, float(np.abs(a).max()), a.size):
        return undefined(df, None)
    mst = n * float(((mi - m) ** 2).sum()) / (k - 1)
    f = mst / (ss_within / (k * n - k))
    return TestResult(f, float(special.fdtrc(df[0], df[1], f)), df, None)


# ---------------------------------------------------------------------- Newman–Keuls
@dataclass(frozen=True)
class NewmanKeulsResult:
    """Outcome of :func:`newman_keuls`.

    order : learner indices sorted by ascending mean error (ties: lower index first).
    means : mean error of each learner (indexed by learner).
    groups : the "underlines": maximal runs of consecutive learners in ``order`` whose means
        are not significantly different, each a tuple in ``order`` order; only runs of two or
        more learners (a learner in no group differs from all others).
    best : the best learner by the four rules of §4.2, or None when they cannot pick one.
    """

    order: tuple[int, ...]
    means: tuple[float, ...]
    groups: tuple[tuple[int, ...], ...]
    best: int | None


@lru_cache(maxsize=1024)
def _q_crit(alpha: float, p: int, df: float) -> float:
    # studentized_range.ppf is slow (numerical integration); the few (alpha, P, df) a study
    # uses are cached.
    from scipy import stats  # imported on first use: about 0.5 s CPU

    return float(stats.studentized_range.ppf(1.0 - alpha, p, df))


def newman_keuls(errors: object, *, alpha: float = 0.05) -> NewmanKeulsResult:
    """Newman–Keuls multiple range test (Yıldız & Alpaydın 2006, §2.4.2, eq. 12).

    Sort the K means ascending.  For range sizes P = K, K-1, ..., 2, each range of P
    consecutive means (m_i .. m_j) not inside an already accepted range is tested with
    ``t = (m_j - m_i) sqrt(L / MSE)`` against the studentized range quantile
    ``q_{alpha, P, K(L-1)}`` (MSE of eq. 10); an accepted range is "underlined" and its
    subranges are not tested.  ``errors`` is (K, L).  MSE = 0 (undefined): nothing is
    significant, one group of all K.

    ``best`` applies the rules of §4.2: if the first (smallest mean) learner is not
    underlined it is best; otherwise take the simplest (lowest index) learner c of the
    underline that contains the first; c is best unless another underline overlapping it
    contains a learner simpler than c, in which case no best is found (None).  This is our
    formalisation of the paper's four cases and its counter-example "5 4 2 1 3".
    """
    a = _errors_kl(errors)
    alpha = check("alpha", alpha, ALPHA)
    k, n = a.shape
    mi = a.mean(axis=1)
    order = tuple(int(i) for i in np.argsort(mi, kind="stable"))
    sm = mi[list(order)]
    ss_within = float(((a - mi[:, None]) ** 2).sum())
    df = float(k * (n - 1))
    accepted: list[tuple[int, int]] = []  # (start, stop) positions in sorted order, inclusive
    if degenerate(ss_within, float(np.abs(a).max()), a.size):
        accepted.append((0, k - 1))
    else:
        scale = math.sqrt(n / (ss_within / (k * n - k)))
        for size in range(k, 1, -1):
            q = _q_crit(alpha, size, df)
            for s in range(0, k - size + 1):
                e = s + size - 1
                if any(s0 <= s and e <= e0 for s0, e0 in accepted):
                    continue
                if (sm[e] - sm[s]) * scale <= q:  # accept H0: equal means in the range
                    accepted.append((s, e))
    groups = tuple(tuple(order[s : e + 1]) for s, e in sorted(accepted))
    return NewmanKeulsResult(
        order, tuple(float(x) for x in mi), groups, _nk_best(order, sorted(accepted))
    )


def _nk_best(order: tuple[int, ...], ranges: list[tuple[int, int]]) -> int | None:
    first = [r for r in ranges if r[0] == 0]
    if not first:
        return order[0]
    s0, e0 = first[0]
    c = min(order[s0 : e0 + 1])
    for s, e in ranges:
        if (s, e) != (s0, e0) and s <= e0 and min(order[s : e + 1]) < c:
            return None
    return c


# ---------------------------------------------------------------------------- Looney
def looney_f(correct: object) -> TestResult:
    """Looney's F test on one test set (Yıldız & Alpaydın 2006, eqs. 14-16).

    ``correct`` is an N x K 0/1 matrix, 1 where classifier j classifies test instance i
    correctly.  With p_.j the column proportions, p_i. the row proportions and p.. the total
    proportion: ``SSA = N sum p_.j^2 - N K p..^2``, ``SSB = K sum p_i.^2 - N K p..^2``,
    ``SST = N K p..(1 - p..)``, ``SSAB = SST - SSA - SSB`` and
    ``F = (SSA/(K-1)) / (SSAB/((K-1)(N-1)))`` ~ F(K-1, (K-1)(N-1)) (the unadjusted F, not
    Looney's epsilon-adjusted F+).  SSAB = 0 gives nan / p = 1.
    """
    c = np.asarray(correct)
    if c.ndim != 2 or c.shape[0] < 2 or c.shape[1] < 2:
        raise SimstudyError(
            f"correct must be an N x K 0/1 matrix with N, K >= 2, got shape {c.shape!r}"
        )
    if c.dtype != np.bool_:
        if not np.issubdtype(c.dtype, np.number) or not ((c == 0) | (c == 1)).all():
            raise SimstudyError("correct must contain only 0 and 1")
    x = c.astype(np.float64)
    n, k = x.shape
    pj = x.mean(axis=0)
    pi = x.mean(axis=1)
    p = float(x.mean())
    ssa = n * float((pj * pj).sum()) - n * k * p * p
    ssb = k * float((pi * pi).sum()) - n * k * p * p
    sst = n * k * p * (1.0 - p)
    ssab = sst - ssa - ssb
    df = (float(k - 1), float((k - 1) * (n - 1)))
    if ssab <= 1e-12 * max(sst, 1.0):
        return undefined(df, None)
    f = (ssa / df[0]) / (ssab / df[1])
    f = max(f, 0.0)  # SSA can be -1e-16 by cancellation
    return TestResult(f, float(special.fdtrc(df[0], df[1], f)), df, None)


# -------------------------------------------------------------------------- MultiTest
@dataclass(frozen=True)
class MultiTestResult:
    """Outcome of :func:`multitest`.

    best : the best learner (index, 0 = most preferred).
    ordering : all learners, best first.
    edges : (i, j) with i < j where H0: mu_i <= mu_j was rejected (j significantly better).
    pvalues : K x K array, ``pvalues[i, j]`` the one-sided p of H0: mu_i <= mu_j for i < j
        (nan elsewhere).
    """

    best: int
    ordering: tuple[int, ...]
    edges: tuple[tuple[int, int], ...]
    pvalues: np.ndarray


def multitest_order(rejected: object) -> tuple[int, ...]:
    """Full MultiTest ordering from the rejection graph (Yıldız & Alpaydın 2006, Fig. 1).

    ``rejected[i, j]`` (read only for i < j) is True when H0: mu_i <= mu_j was rejected,
    i.e. there is an edge i -> j.  Repeatedly take the lowest-index node with no outgoing
    edge to a remaining node and remove it.  Returns the ordering, best first.  (Edges only
    go from lower to higher index, so the graph is acyclic and a candidate always exists.)
    """
    r = np.asarray(rejected)
    if r.ndim != 2 or r.shape[0] != r.shape[1] or r.shape[0] < 1:
        raise SimstudyError(f"rejected must be a square K x K matrix, got shape {r.shape!r}")
    k = r.shape[0]
    out_edges = np.triu(r.astype(bool), 1)
    remaining = list(range(k))
    ordering: list[int] = []
    while remaining:
        for node in remaining:  # ascending index, so the first candidate is the simplest
            if not out_edges[node, remaining].any():
                break
        ordering.append(node)
        remaining.remove(node)
    return tuple(ordering)


def _default_test(d: np.ndarray) -> TestResult:
    return ttest_5x2cv(d, alternative="greater")


def _errors_k(errors: object) -> np.ndarray:
    a = check_array(errors, "errors")
    if a.ndim < 2 or a.shape[0] < 2:
        raise SimstudyError(
            f"errors must have shape (K >= 2, ...), e.g. (K, 5, 2), got shape {a.shape!r}"
        )
    return a


def _one_sided_p(test: Callable[[np.ndarray], object], d: np.ndarray) -> float:
    p = float(test(d).pvalue)  # type: ignore[attr-defined]
    return 1.0 if math.isnan(p) else p


def multitest(
    errors: object,
    *,
    alpha: float = 0.05,
    correction: str = "bonferroni",
    test: Callable[[np.ndarray], object] | None = None,
) -> MultiTestResult:
    """MultiTest (Yıldız & Alpaydın 2006, §3.2, Fig. 1).

    For every i < j test H0: mu_i <= mu_j on ``d = errors[i] - errors[j]`` with the one-sided
    ``test`` (default: one-sided 5x2 cv t, ``ttest_5x2cv(d, alternative='greater')``, so
    ``errors`` is (K, 5, 2)); reject with Bonferroni (alpha / (K(K-1)/2)) or Holm over the
    K(K-1)/2 p-values; edges i -> j for rejections; order by :func:`multitest_order`.

    ``test`` is any callable ``d -> result`` whose ``.pvalue`` is the p-value of H0:
    mu_i <= mu_j against H1: mu_i > mu_j (the 'greater' alternative on ``d``).
    """
    a = _errors_k(errors)
    alpha = check("alpha", alpha, ALPHA)
    correction = _check_correction(correction)
    if test is None:
        test = _default_test
    k = a.shape[0]
    pv = np.full((k, k), np.nan)
    iu = np.triu_indices(k, 1)
    for i, j in zip(*iu, strict=True):
        pv[i, j] = _one_sided_p(test, a[i] - a[j])
    rej = np.zeros((k, k), dtype=bool)
    rej[iu] = multiple_rejections(pv[iu], alpha=alpha, correction=correction)
    ordering = multitest_order(rej)
    edges = tuple((int(i), int(j)) for i, j in zip(*np.nonzero(rej), strict=True))
    return MultiTestResult(ordering[0], ordering, edges, pv)


# -------------------------------------------------------------------------- TestFirst
@dataclass(frozen=True)
class TestFirstResult:
    """Outcome of :func:`testfirst`.

    best : the learner with the smallest mean error if it passed, else None.
    candidate : the learner with the smallest mean error.
    pvalues : one-sided p of H0: mu_j <= mu_candidate for each simpler learner j
        (``{j: p}``); more complex learners need no test.
    """

    __test__ = False  # not a pytest test class

    best: int | None
    candidate: int
    pvalues: dict[int, float]


def testfirst(
    errors: object,
    *,
    alpha: float = 0.05,
    correction: str = "bonferroni",
    test: Callable[[np.ndarray], object] | None = None,
) -> TestFirstResult:
    """TestFirst (Yıldız & Alpaydın 2006, §4.2).

    Take the learner c with the smallest mean error (over all folds; ties go to the simpler).
    Against every more complex learner j > c it wins without a test (smaller mean and
    simpler).  Against every simpler learner j < c it must have significantly less error:
    the one-sided test must reject H0: mu_j <= mu_c on ``d = errors[j] - errors[c]``.  The
    K - 1 comparisons form the family for the correction (Bonferroni alpha/(K-1), or Holm
    with m = K - 1); the paper says "Bonferroni" without the family size, and K - 1 is the
    number of comparisons TestFirst makes.  If any test accepts, no best (None).
    """
    a = _errors_k(errors)
    alpha = check("alpha", alpha, ALPHA)
    correction = _check_correction(correction)
    if test is None:
        test = _default_test
    k = a.shape[0]
    means = a.reshape(k, -1).mean(axis=1)
    c = int(np.argmin(means))  # argmin returns the first (simplest) of tied minima
    pvals = {j: _one_sided_p(test, a[j] - a[c]) for j in range(c)}
    if not pvals:
        return TestFirstResult(c, c, pvals)
    rej = multiple_rejections(
        np.array(list(pvals.values())), alpha=alpha, correction=correction, m=k - 1
    )
    return TestFirstResult(c if bool(rej.all()) else None, c, pvals)


testfirst.__test__ = False  # type: ignore[attr-defined]  # pytest: a name, not a test
