"""Tests on per-instance 0/1 losses proposed since 1998: pure functions, vectorised twins.

Every test here reads counts of the two learners' per-instance 0/1 losses on a fold:
``n01`` = #(A wrong, B right), ``n10`` = #(A right, B wrong), ``n`` = test instances
(:func:`pair_counts`).  For 0/1 losses these counts are sufficient: each statistic below
depends on the instances only through them.

* :func:`mcnemar_exact`, :func:`mcnemar_midp`: McNemar's exact (binomial) test and its mid-p
  version (Fagerland, Lydersen & Laake 2013, BMC Med Res Methodol 13:91), on one fold, beside
  the χ² of :func:`simstudy.stats.mcnemar`;
* :func:`paired_permutation_test`: approximate randomisation (Noreen 1989; Ojala & Garriga
  2010): swap the two learners' losses of each instance at random;
* :func:`paired_bootstrap_test`: resample the test instances (Efron & Tibshirani 1993,
  ch. 16: the bootstrap test of the loss difference, centred on the null);
* :func:`cv_clt`: the cross-validation CLT test of Bayle, Bayle, Janson & Mackey (2020,
  NeurIPS) over the folds of one k-fold partition, within-fold variance.

Monte Carlo resampling (the permutation and bootstrap tests) draws from a counter-based
generator (SplitMix64, Steele, Lea & Flood 2014) keyed per trial: resample j of the trial
with key κ reads ``mix(κ + (j + 1) γ)``, so the draws of all trials come in one array
operation and a trial's p-value never depends on which other trials are computed with it.
The key of a stored trial derives from the trial's own seed (:func:`resampling_key`): the
same stored losses give the same p-value on every recomputation.

A resample's statistic depends on the resample only through its counts, whose
distribution is known exactly (binomial for the permutation, trinomial for the bootstrap);
each resample's statistic is drawn by inversion from that distribution with one uniform,
the same random variable as swapping or resampling the instances one by one.  The same
distributions give the B -> infinity limits (``resamples=None``): the exact permutation
p-value, which for 0/1 losses *is* McNemar's exact test, and the ideal bootstrap p-value.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from ..errors import SimstudyError
from ._result import TestResult
from .pairwise import _binary, _check_alternative

__all__ = [
    "PERMUTATION",
    "BOOTSTRAP",
    "TEST_PURPOSE",
    "cv_clt",
    "cv_clt_batch",
    "mcnemar_exact",
    "mcnemar_exact_batch",
    "mcnemar_midp",
    "mcnemar_midp_batch",
    "pair_counts",
    "paired_bootstrap_batch",
    "paired_bootstrap_test",
    "paired_permutation_batch",
    "paired_permutation_test",
    "resampling_key",
    "uniforms",
]

#: purpose of a test's draws in a trial's spawn key, after simstudy.study's SOURCE 0,
#: DESIGN 1, MODEL 2 (fixed forever: changing it changes stored p-values)
TEST_PURPOSE = 3
#: which resampling test draws (part of the spawn key)
PERMUTATION, BOOTSTRAP = 0, 1

_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_CHUNK = 1 << 22  # draws per array operation (32 MiB of uint64)


# ------------------------------------------------------------------ counts and keys
def _counts_of(errors_a: object, errors_b: object) -> tuple[int, int, int]:
    ea = _binary(errors_a, "errors_a")
    eb = _binary(errors_b, "errors_b")
    if ea.shape != eb.shape:
        raise SimstudyError(
            f"errors_a and errors_b must have the same length, got {ea.shape!r} and {eb.shape!r}")
    return int(np.count_nonzero(ea & ~eb)), int(np.count_nonzero(eb & ~ea)), int(ea.size)


def pair_counts(losses: object, a: int = 0, b: int = 1) -> np.ndarray:
    """(n01, n10, n) per fold of learners ``a``, ``b`` from stored per-instance losses.

    ``losses`` is int8 (..., K, R, F, n) with -1 off a fold's test positions (as
    :class:`simstudy.core.FoldLosses` keeps them); returns int64 (..., R, F, 3).

    Examples
    --------
    >>> import numpy as np
    >>> L = np.array([[[[1, 0, 1, -1]]], [[[0, 0, 1, -1]]]], dtype=np.int8)  # K=2, R=F=1
    >>> pair_counts(L).tolist()
    [[[1, 0, 3]]]
    """
    L = np.asarray(losses)
    if L.ndim < 4:
        raise SimstudyError(f"losses must have shape (..., K, R, F, n), got shape {L.shape!r}")
    la, lb = L[..., a, :, :, :], L[..., b, :, :, :]
    on = la >= 0
    n01 = np.count_nonzero((la == 1) & (lb == 0), axis=-1)
    n10 = np.count_nonzero((la == 0) & (lb == 1), axis=-1)
    return np.stack([n01, n10, np.count_nonzero(on, axis=-1)], axis=-1).astype(np.int64)


def resampling_key(seed: object, which: int, a: int = 0, b: int = 1) -> np.uint64:
    """The 64-bit key of a resampling test's draws.

    ``seed`` is a trial's :class:`numpy.random.SeedSequence` (the runner's
    ``simstudy.study.trial_seed(root, cell, run)``): the key is that sequence extended by
    ``(TEST_PURPOSE, which, a, b)`` in its spawn key, as the trial's other purposes are.
    An int seeds a fresh sequence (``SeedSequence(seed)``); ``None`` draws fresh entropy
    (not reproducible).

    Examples
    --------
    >>> import numpy as np
    >>> k = resampling_key(np.random.SeedSequence(1999, spawn_key=(7, 0)), PERMUTATION)
    >>> bool(k == resampling_key(np.random.SeedSequence(1999, spawn_key=(7, 0)), PERMUTATION))
    True
    """
    if isinstance(seed, np.random.SeedSequence):
        ss = seed
    elif seed is None or isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        ss = np.random.SeedSequence(None if seed is None else int(seed))
    else:
        raise SimstudyError(f"seed must be an int, a numpy SeedSequence or None, got {seed!r}")
    ext = np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, TEST_PURPOSE,
                                                        int(which), int(a), int(b)),
                                 pool_size=ss.pool_size)
    return ext.generate_state(1, np.uint64)[0]


def uniforms(keys: object, start: int, count: int) -> np.ndarray:
    """Uniforms in [0, 1) (53 bits), (T, count): draws ``start .. start+count-1`` of each key.

    SplitMix64 (Steele, Lea & Flood 2014) read at random access: draw j of key κ is
    ``mix(κ + (j + 1) γ)``, γ = 0x9E3779B97F4A7C15.

    Examples
    --------
    >>> import numpy as np
    >>> u = uniforms(np.array([1, 2], dtype=np.uint64), 0, 3)
    >>> u.shape, bool(((u >= 0) & (u < 1)).all())
    ((2, 3), True)
    """
    k = np.asarray(keys, dtype=np.uint64).reshape(-1, 1)
    z = np.arange(start + 1, start + count + 1, dtype=np.uint64)[None, :] * _GAMMA + k
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)


def _mc_counts(keys: np.ndarray, g_lo: np.ndarray, g_hi: np.ndarray, B: int) -> np.ndarray:
    """#{j < B: u_j <= g_lo} + #{j < B: u_j > g_hi} per trial, in bounded-memory blocks."""
    T = keys.size
    out = np.zeros(T, dtype=np.int64)
    per = max(1, _CHUNK // max(B, 1))
    for s in range(0, T, per):
        e = min(T, s + per)
        u = uniforms(keys[s:e], 0, B)
        out[s:e] = (np.count_nonzero(u <= g_lo[s:e, None], axis=1)
                    + np.count_nonzero(u > g_hi[s:e, None], axis=1))
    return out


def _tail_counts(keys: object, g_lo: np.ndarray, g_hi: np.ndarray, tie: np.ndarray, B: int,
                 what: str) -> np.ndarray:
    """Resamples (of B) whose statistic is at least as extreme as the observed one: a
    uniform at or below G(lower tail) or above G(just below the upper tail); every one
    where the observed statistic is 0 (``tie``)."""
    if keys is None:
        raise SimstudyError(f"the Monte Carlo {what} needs a key per trial (resampling_key); "
                            "give resamples=None for its B -> infinity limit")
    k = np.asarray(keys, dtype=np.uint64).ravel()
    if k.size != g_lo.size:
        raise SimstudyError(f"need one key per trial: {k.size} keys for {g_lo.size} trials")
    return np.where(tie, B, _mc_counts(k, g_lo, g_hi, B))


def _check_resamples(resamples: object) -> int | None:
    if resamples is None:
        return None
    if isinstance(resamples, bool) or not isinstance(resamples, (int, np.integer)) \
            or int(resamples) < 1:
        raise SimstudyError(f"resamples must be a positive integer or None (exact), "
                            f"got {resamples!r}")
    return int(resamples)


def _as_counts(*xs: object) -> list[np.ndarray]:
    out = []
    for x in xs:
        a = np.asarray(x)
        if a.dtype.kind not in "iu" and not (a.dtype.kind == "f" and np.all(a == np.round(a))):
            raise SimstudyError(f"counts must be non-negative integers, got {x!r}")
        a = a.astype(np.int64)
        if (a < 0).any():
            raise SimstudyError(f"counts must be non-negative integers, got {x!r}")
        out.append(a)
    return out


# ------------------------------------------------------------------ McNemar exact / mid-p
def _binom_half(b: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(X <= b) and P(X = b), X ~ Bin(m, 1/2) (m = 0: 1 and 1)."""
    cdf = np.where(m > 0, special.bdtr(b, np.maximum(m, 1), 0.5), 1.0)
    from scipy import stats  # imported on first use: about 0.5 s CPU

    pmf = np.where(m > 0, stats.binom.pmf(b, np.maximum(m, 1), 0.5), 1.0)
    return cdf, pmf


def mcnemar_exact_batch(n01: object, n10: object) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`mcnemar_exact` over count arrays: ``(statistic, pvalue)``."""
    a, c = _as_counts(n01, n10)
    m = a + c
    cdf, _ = _binom_half(np.minimum(a, c), m)
    none = m == 0
    return (np.where(none, np.nan, a.astype(float)),
            np.where(none, 1.0, np.minimum(1.0, 2.0 * cdf)))


def mcnemar_midp_batch(n01: object, n10: object) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`mcnemar_midp` over count arrays: ``(statistic, pvalue)``."""
    a, c = _as_counts(n01, n10)
    m = a + c
    cdf, pmf = _binom_half(np.minimum(a, c), m)
    none = m == 0
    return (np.where(none, np.nan, a.astype(float)),
            np.where(none, 1.0, np.clip(2.0 * cdf - pmf, 0.0, 1.0)))


def mcnemar_exact(errors_a: object, errors_b: object) -> TestResult:
    """McNemar's exact conditional test (McNemar 1947; Fagerland, Lydersen & Laake 2013).

    Conditional on the m = n01 + n10 discordant pairs, n01 ~ Bin(m, 1/2) under H0;
    two-sided ``p = min(1, 2 P(X <= min(n01, n10)))`` (statsmodels'
    ``mcnemar(exact=True)``).  ``statistic`` = n01; no discordant pair: nan, p = 1.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1] * 9 + [0] * 2 + [1] * 5 + [0] * 34)
    >>> b = np.array([0] * 9 + [1] * 2 + [1] * 5 + [0] * 34)
    >>> r = mcnemar_exact(a, b)
    >>> r.statistic, round(r.pvalue, 4)
    (9.0, 0.0654)
    """
    n01, n10, _ = _counts_of(errors_a, errors_b)
    s, p = mcnemar_exact_batch(n01, n10)
    return TestResult(float(s), float(p), None, "two-sided")


def mcnemar_midp(errors_a: object, errors_b: object) -> TestResult:
    """McNemar mid-p test (Fagerland, Lydersen & Laake 2013).

    The exact test's p-value minus the point probability of the observed count:
    ``p = 2 [P(X <= b) - P(X = b) / 2]``, b = min(n01, n10), X ~ Bin(n01 + n10, 1/2);
    1 when n01 = n10.  ``statistic`` = n01; no discordant pair: nan, p = 1.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1] * 9 + [0] * 2 + [1] * 5 + [0] * 34)
    >>> b = np.array([0] * 9 + [1] * 2 + [1] * 5 + [0] * 34)
    >>> round(mcnemar_midp(a, b).pvalue, 4)
    0.0386
    """
    n01, n10, _ = _counts_of(errors_a, errors_b)
    s, p = mcnemar_midp_batch(n01, n10)
    return TestResult(float(s), float(p), None, "two-sided")


# ------------------------------------------------------------------ permutation
def paired_permutation_batch(n01: object, n10: object, keys: object = None, *,
                             resamples: int | None = 9999) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`paired_permutation_test` over count arrays (T,) and keys (T,)."""
    a, c = _as_counts(n01, n10)
    a, c = np.atleast_1d(a).ravel(), np.atleast_1d(c).ravel()
    B = _check_resamples(resamples)
    m = a + c
    delta = a - c
    b = np.minimum(a, c)
    g_lo, _ = _binom_half(b, m)                                  # P(X <= b)
    g_hi = np.where(m > 0, special.bdtr(m - b - 1, np.maximum(m, 1), 0.5), 0.0)
    tie = delta == 0  # every arrangement is as extreme: p = 1
    if B is None:  # the two tails are equal (symmetry): McNemar's exact p-value
        p = np.where(tie, 1.0, np.minimum(1.0, 2.0 * g_lo))
    else:
        cnt = _tail_counts(keys, g_lo, g_hi, tie, B, "permutation test")
        p = (1.0 + cnt) / (B + 1.0)
    return delta.astype(float), p


def paired_permutation_test(errors_a: object, errors_b: object, *,
                            resamples: int | None = 9999, seed: object = None) -> TestResult:
    """Paired permutation test, approximate randomisation (Noreen 1989; Ojala & Garriga
    2010, JMLR 11).

    Each resample swaps the two learners' losses of every instance with probability 1/2;
    the statistic is Σ (loss_A - loss_B) = n01 - n10 (``statistic``), two-sided:
    ``p = (1 + #{|Σ*| >= |Σ|}) / (B + 1)`` over B = ``resamples`` resamples (Phipson &
    Smyth 2010's +1: a valid p-value).  Concordant instances never change Σ; a resample's
    Σ* = 2X - m with X ~ Bin(m, 1/2) the discordant pairs that keep their sign, drawn by
    inversion (module doc).  ``resamples=None``: the exact permutation p-value,
    ``min(1, 2 P(X <= min(n01, n10)))``, which is McNemar's exact test.

    Parameters
    ----------
    errors_a, errors_b : 0/1 arrays
        Per-instance losses of A and B on the same test instances.
    resamples : int or None
        B, default 9999 (scipy's ``permutation_test`` default); None for the exact test.
    seed : SeedSequence, int or None
        The draws' seed (:func:`resampling_key`); a stored trial's seed when the runner
        computes it.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1] * 9 + [0] * 2 + [1] * 5 + [0] * 34)
    >>> b = np.array([0] * 9 + [1] * 2 + [1] * 5 + [0] * 34)
    >>> round(paired_permutation_test(a, b, resamples=None).pvalue, 4)  # = mcnemar_exact
    0.0654
    >>> r = paired_permutation_test(a, b, seed=1)
    >>> r.statistic, abs(r.pvalue - 0.0654) < 0.01
    (7.0, True)
    """
    n01, n10, _ = _counts_of(errors_a, errors_b)
    B = _check_resamples(resamples)
    key = None if B is None else np.array([resampling_key(seed, PERMUTATION)])
    s, p = paired_permutation_batch(n01, n10, key, resamples=B)
    return TestResult(float(s[0]), float(p[0]), None, "two-sided")


# ------------------------------------------------------------------ bootstrap
def _diff_cdf(n: int, n01: np.ndarray, n10: np.ndarray) -> np.ndarray:
    """CDF of D* = X01* - X10* over d = -n .. n, (T, 2n + 1), for resamples of n instances
    with P(+1) = n01/n, P(-1) = n10/n: the coefficients of (p10 + p00 z + p01 z²)^n,
    by FFT at the roots of unity (exact up to rounding, ~1e-15 absolute)."""
    L = 1 << int(math.ceil(math.log2(2 * n + 1)))
    w = np.exp(-2j * np.pi * np.arange(L) / L)
    p01 = n01[:, None] / n
    p10 = n10[:, None] / n
    base = p10 + (1.0 - p01 - p10) * w[None, :] + p01 * (w * w)[None, :]
    # integer power by |.|^n e^{i n arg}: no branch issue for integer n
    v = np.abs(base) ** n * np.exp(1j * n * np.angle(base))
    pmf = np.clip(np.fft.ifft(v, axis=1).real[:, :2 * n + 1], 0.0, None)
    return np.minimum(np.cumsum(pmf, axis=1), 1.0)


def _cdf_at(cdf: np.ndarray, d: np.ndarray) -> np.ndarray:
    """G(d) = P(D* <= d) per row of a (T, 2n + 1) CDF over -n .. n (0 below -n, 1 above n)."""
    n = (cdf.shape[1] - 1) // 2
    at = cdf[np.arange(cdf.shape[0]), np.clip(d + n, 0, 2 * n)]
    return np.where(d < -n, 0.0, np.where(d > n, 1.0, at))


def paired_bootstrap_batch(n01: object, n10: object, n: object, keys: object = None, *,
                           resamples: int | None = 9999) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`paired_bootstrap_test` over count arrays (T,) and keys (T,)."""
    a, c, nn = _as_counts(n01, n10, n)
    a, c = np.atleast_1d(a).ravel(), np.atleast_1d(c).ravel()
    nn = np.broadcast_to(np.atleast_1d(nn).ravel(), a.shape)
    if (a + c > nn).any() or (nn < 1).any():
        raise SimstudyError("need 0 <= n01 + n10 <= n and n >= 1 test instances per trial")
    B = _check_resamples(resamples)
    delta = a - c
    g_lo = np.zeros(a.size)
    g_hi = np.ones(a.size)
    # the two thresholds per distinct (n, n01, n10): trials share counts heavily
    trip = np.stack([nn, a, c], axis=1)
    uniq, inv = np.unique(trip, axis=0, return_inverse=True)
    inv = inv.ravel()
    lo_u = np.zeros(len(uniq))
    hi_u = np.ones(len(uniq))
    for size in np.unique(uniq[:, 0]):
        sel = np.flatnonzero(uniq[:, 0] == size)
        dl = uniq[sel, 1] - uniq[sel, 2]
        cdf = _diff_cdf(int(size), uniq[sel, 1].astype(float), uniq[sel, 2].astype(float))
        # delta > 0: D* <= 0 or D* >= 2 delta; delta < 0: D* <= 2 delta or D* >= 0
        zero = np.zeros_like(dl)
        lo_u[sel] = np.where(dl > 0, _cdf_at(cdf, zero), _cdf_at(cdf, 2 * dl))
        hi_u[sel] = np.where(dl > 0, _cdf_at(cdf, 2 * dl - 1), _cdf_at(cdf, zero - 1))
    g_lo, g_hi = lo_u[inv], hi_u[inv]
    tie = delta == 0
    if B is None:
        p = np.where(tie, 1.0, np.clip(g_lo + (1.0 - g_hi), 0.0, 1.0))
    else:
        p = _tail_counts(keys, g_lo, g_hi, tie, B, "bootstrap") / float(B)
    return delta / nn.astype(float), p


def paired_bootstrap_test(errors_a: object, errors_b: object, *,
                          resamples: int | None = 9999, seed: object = None) -> TestResult:
    """Paired bootstrap test on one test set (Efron & Tibshirani 1993, ch. 16: a bootstrap
    hypothesis test, resampling from data that satisfy H0; the statistic unstudentised).

    The observed difference of error rates δ = mean(loss_A - loss_B) (``statistic``); B
    resamples of the n instances with replacement give δ*; the achieved significance level
    is the share of ``|δ* - δ| >= |δ|`` (the resampled differences recentred on H0: δ = 0).
    A resample's δ* depends only on how many resampled instances have each loss
    difference (a trinomial), drawn by inversion (module doc).  ``resamples=None``: the
    ideal bootstrap (B -> infinity) p-value from that trinomial.  δ = 0: p = 1.

    Parameters
    ----------
    errors_a, errors_b : 0/1 arrays
        Per-instance losses of A and B on the same test instances.
    resamples : int or None
        B, default 9999 (scipy's ``bootstrap`` default); None for the ideal bootstrap.
    seed : SeedSequence, int or None
        The draws' seed (:func:`resampling_key`).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1] * 9 + [0] * 2 + [1] * 5 + [0] * 34)
    >>> b = np.array([0] * 9 + [1] * 2 + [1] * 5 + [0] * 34)
    >>> r = paired_bootstrap_test(a, b, resamples=None)
    >>> r.statistic, round(r.pvalue, 4)
    (0.14, 0.0393)
    """
    n01, n10, n = _counts_of(errors_a, errors_b)
    B = _check_resamples(resamples)
    key = None if B is None else np.array([resampling_key(seed, BOOTSTRAP)])
    s, p = paired_bootstrap_batch(n01, n10, n, key, resamples=B)
    return TestResult(float(s[0]), float(p[0]), None, "two-sided")


# ------------------------------------------------------------------ cross-validation CLT
def cv_clt_batch(n: object, s1: object, s2: object, *, alternative: str = "two-sided"
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`cv_clt` from per-fold moments of the loss differences h.

    ``n``, ``s1``, ``s2``: (T, k) fold sizes, Σ h and Σ h² per fold (0/1 losses:
    s1 = n01 - n10, s2 = n01 + n10).  Returns ``(statistic, pvalue)`` of shape (T,).
    """
    nf = np.asarray(n, dtype=np.float64)
    a1 = np.asarray(s1, dtype=np.float64)
    a2 = np.asarray(s2, dtype=np.float64)
    if nf.ndim != 2 or a1.shape != nf.shape or a2.shape != nf.shape or nf.shape[1] < 2:
        raise SimstudyError(f"n, s1, s2 must have the same shape (trials, k >= 2 folds), got "
                            f"{nf.shape!r}, {a1.shape!r}, {a2.shape!r}")
    alternative = _check_alternative(alternative)
    small = (nf < 2).any(axis=1)  # a fold of one instance has no within-fold variance
    nfs = np.maximum(nf, 2.0)
    var_f = np.maximum(a2 - a1 * a1 / nfs, 0.0) / (nfs - 1.0)
    var_in = var_f.mean(axis=1)
    N = nf.sum(axis=1)
    rhat = a1.sum(axis=1) / N
    scale = np.sqrt(a2.sum(axis=1) / N)  # rms of h: the spread's natural unit
    bad = small | (var_in <= (1e-12 * np.where(scale > 0, scale, 1.0)) ** 2)
    z = np.sqrt(N) * rhat / np.sqrt(np.where(bad, 1.0, var_in))
    if alternative == "two-sided":
        p = np.minimum(1.0, 2.0 * special.ndtr(-np.abs(z)))
    else:
        p = special.ndtr(-z) if alternative == "greater" else special.ndtr(z)
    return np.where(bad, np.nan, z), np.where(bad, 1.0, p)


def cv_clt(loss_diff: object, folds: object, *, alternative: str = "two-sided") -> TestResult:
    """Cross-validation CLT test (Bayle, Bayle, Janson & Mackey 2020, NeurIPS).

    ``h_i`` = loss of A minus loss of B on instance i, each instance tested once in a
    k-fold partition (``folds[i]`` its fold).  With R̂ = mean(h) over all n instances and
    the within-fold variance ``σ̂²_in = (1/k) Σ_j (1/(n_j - 1)) Σ_{i in fold j} (h_i - h̄_j)²``
    (their within-fold estimator; n_j = n/k in the paper, each fold's own size here, as mlr3inferr's
    ``ci.wald_cv``), ``Z = sqrt(n) R̂ / σ̂_in`` ~ N(0, 1) (their CLT and their test:
    ``alternative='greater'`` is their one-sided test of H1 "A's error > B's").  A fold with
    fewer than 2 instances, or σ̂_in = 0: nan, p = 1.

    Parameters
    ----------
    loss_diff : array (n,)
        Per-instance loss differences A - B (any real losses; 0/1 in the studies).
    folds : int array (n,)
        Fold label of each instance (k >= 2 distinct labels).
    alternative : {'two-sided', 'less', 'greater'}

    Examples
    --------
    >>> import numpy as np
    >>> h = np.array([1, 0, 0, 1, -1, 0, 1, 0, 1, 0, 0, 1])
    >>> r = cv_clt(h, np.repeat([0, 1, 2], 4), alternative="greater")
    >>> round(r.statistic, 4), round(r.pvalue, 4)
    (1.7321, 0.0416)
    """
    h = np.asarray(loss_diff, dtype=np.float64)
    f = np.asarray(folds)
    if h.ndim != 1 or f.shape != h.shape or h.size == 0:
        raise SimstudyError(f"loss_diff and folds must be 1-d of the same length, got shapes "
                            f"{h.shape!r} and {f.shape!r}")
    if not np.isfinite(h).all():
        raise SimstudyError("loss_diff contains nan or inf")
    labels, idx = np.unique(f, return_inverse=True)
    if labels.size < 2:
        raise SimstudyError(f"folds must hold at least 2 distinct folds, got {labels.tolist()!r}")
    k = labels.size
    nf = np.bincount(idx, minlength=k).astype(float)[None]
    # centre per fold before squaring: exact for real-valued losses too
    means = np.bincount(idx, weights=h, minlength=k) / nf[0]
    c = h - means[idx]
    s1 = np.bincount(idx, weights=h, minlength=k)[None]
    s2 = (np.bincount(idx, weights=c * c, minlength=k) + s1[0] * s1[0] / nf[0])[None]
    z, p = cv_clt_batch(nf, s1, s2, alternative=_check_alternative(alternative))
    return TestResult(float(z[0]), float(p[0]), None, alternative)
