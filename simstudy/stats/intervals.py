"""Confidence intervals for the generalization error: pure functions of losses.

Each function takes the losses a resampling design produced (fold error rates, or
per-instance losses, of one learner or the difference of two learners' losses) and returns
an :class:`IntervalResult`, whose :meth:`~IntervalResult.confidence_interval` gives
``(low, high)`` at any level, as scipy's results do.  The named methods a study uses, with
the designs each can read, are :mod:`simstudy.stats.interval_registry`.

Losses are any real numbers (0/1 losses in classification, squared or absolute errors in
regression); ``nan`` marks a position that was not a test instance of that fold.

Pure: no I/O, no randomness.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import special

from ..errors import SimstudyError

__all__ = [
    "ConfidenceInterval",
    "IntervalResult",
    "check_level",
    "conservative_z_interval",
    "corrected_t_interval",
    "cv_clt_interval",
    "cv_clt_interval_sums",
    "holdout_interval",
    "holdout_interval_sums",
    "naive_cv_interval",
    "nested_cv_interval",
    "nested_cv_interval_sums",
    "t5x2cv_interval",
    "oob_632plus_interval",
]


class ConfidenceInterval(NamedTuple):
    """Bounds of a confidence interval (scipy's ``ConfidenceInterval`` shape)."""

    low: float
    high: float


def check_level(confidence_level: object) -> float:
    """``confidence_level`` as a float strictly between 0 and 1, else one-line error.

    Examples
    --------
    >>> check_level(0.9)
    0.9
    """
    try:
        level = float(confidence_level)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        level = math.nan
    if not 0.0 < level < 1.0:
        raise SimstudyError(f"confidence level {confidence_level!r} must be strictly between "
                            f"0 and 1 (e.g. 0.95)")
    return level


@dataclass(frozen=True)
class IntervalResult:
    """A point estimate of the generalization error (or of a difference) and its spread.

    ``confidence_interval(level)`` is ``statistic ± q · standard_error`` with ``q`` the
    ``(1 + level) / 2`` quantile of t(``df``) or, when ``df`` is None, of N(0, 1).  A
    holdout's exact binomial interval (``counts = (errors, n)``) is Clopper–Pearson's
    instead.

    Attributes
    ----------
    statistic : float
        The point estimate.
    standard_error : float
        Its estimated standard error (the interval's half-width over the quantile).
    df : float or None
        Degrees of freedom of the t quantile; None for normal quantiles.
    method : str
        The method's name (used in error messages).
    counts : tuple of int or None
        ``(errors, n)`` for the exact binomial interval.

    Examples
    --------
    >>> r = IntervalResult(0.2, 0.05, None, "example")
    >>> [round(x, 4) for x in r.confidence_interval(0.95)]
    [0.102, 0.298]
    """

    statistic: float
    standard_error: float
    df: float | None = None
    method: str = ""
    counts: tuple[int, int] | None = None

    def confidence_interval(self, confidence_level: float = 0.95) -> ConfidenceInterval:
        """``(low, high)`` at ``confidence_level``; a non-finite or reversed interval is an
        error naming the method."""
        level = check_level(confidence_level)
        if self.counts is not None:
            low, high = _clopper_pearson(*self.counts, level)
        else:
            q = _quantile((1.0 + level) / 2.0, self.df)
            low = self.statistic - q * self.standard_error
            high = self.statistic + q * self.standard_error
        if not (math.isfinite(low) and math.isfinite(high)) or low > high:
            raise SimstudyError(f"interval method {self.method or '?'!r} gave ({low!r}, "
                                f"{high!r}) at level {level!r}: bounds must be finite, "
                                f"low <= high")
        return ConfidenceInterval(float(low), float(high))


def _quantile(p: float, df: float | None) -> float:
    return float(special.ndtri(p)) if df is None else float(special.stdtrit(df, p))


def _clopper_pearson(k: int, n: int, level: float) -> tuple[float, float]:
    a = (1.0 - level) / 2.0
    low = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, a))
    high = 1.0 if k == n else float(special.betaincinv(k + 1, n - k, 1.0 - a))
    return low, high


def _finite(x: object, what: str, ndim: int) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != ndim:
        raise SimstudyError(f"{what} must be a {ndim}-d array, got shape {a.shape!r}")
    return a


def _sd(v: np.ndarray) -> float:
    return float(np.std(v, ddof=1)) if v.size >= 2 else math.nan


def _fsum(x: object) -> float:
    """The correctly rounded sum (``math.fsum``): the same bits in any order and memory
    layout, so sums read from a store and from the shipped trials give the same interval."""
    return math.fsum(np.ravel(np.asarray(x, dtype=np.float64)).tolist())


def _var(count: object, total: object, sumsq: object) -> np.ndarray:
    """Sample variances (ddof 1) from counts, sums and sums of squares (nan below 2
    instances; a rounding error below zero is zero)."""
    c = np.asarray(count, dtype=np.float64)
    S = np.asarray(total, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        v = (np.asarray(sumsq, dtype=np.float64) - S * S / c) / (c - 1.0)
    return np.where(c >= 2, np.maximum(v, 0.0), np.nan)


# ------------------------------------------------------------------------------ holdout

def holdout_interval(losses: object, *, dist: str = "normal") -> IntervalResult:
    """Holdout interval from one test set's per-instance losses.

    ``dist='normal'``: mean ``L̄`` of the ``m`` test losses ± ``z · s / sqrt(m)`` with ``s``
    the sample standard deviation (ddof 1) -- the Wald interval of a mean of i.i.d. losses
    given the fitted model (Schulz-Kümpel et al. 2024, sec. 4.1, "holdout"; mlr3inferr's
    ``ci.holdout``).  For the difference of two learners pass the paired loss differences.
    ``dist='binomial'``: 0/1 losses only, the exact Clopper–Pearson interval of the error
    rate (Clopper & Pearson 1934, Biometrika 26; Dietterich 1998 sec. 3.1 treats the count
    of errors as binomial).

    Parameters
    ----------
    losses : array (m,)
        Per-instance losses of the test set (nan entries are ignored).
    dist : {'normal', 'binomial'}

    Examples
    --------
    >>> r = holdout_interval([0, 1, 0, 0, 1, 0, 0, 0, 0, 1])
    >>> round(r.statistic, 2), [round(x, 4) for x in r.confidence_interval(0.95)]
    (0.3, [0.0006, 0.5994])
    """
    a = _finite(losses, "losses", 1)
    a = a[~np.isnan(a)]
    if dist == "binomial" and not np.all((a == 0) | (a == 1)):
        raise SimstudyError("holdout interval [dist='binomial'] needs 0/1 losses of one "
                            "learner; use dist='normal' for other losses or a difference")
    return holdout_interval_sums(a.size, float(a.sum()), float((a * a).sum()), dist=dist)


def holdout_interval_sums(count: int, total: float, sumsq: float, *,
                          dist: str = "normal") -> IntervalResult:
    """:func:`holdout_interval` from the test set's sufficient statistics: the number of
    test losses, their sum and their sum of squares.

    Examples
    --------
    >>> r = holdout_interval_sums(10, 3.0, 3.0)
    >>> [round(x, 4) for x in r.confidence_interval(0.95)]
    [0.0006, 0.5994]
    """
    m = int(count)
    if dist == "binomial":
        if total != sumsq or total != round(total):  # 0/1 losses: l * l == l, integral sum
            raise SimstudyError("holdout interval [dist='binomial'] needs 0/1 losses of one "
                                "learner; use dist='normal' for other losses or a difference")
        return IntervalResult(total / m if m else math.nan, math.nan, None,
                              "holdout[dist=binomial]", (int(round(total)), m))
    if dist != "normal":
        raise SimstudyError(f"holdout dist {dist!r}; valid choices: binomial, normal")
    return IntervalResult(total / m if m else math.nan,
                          math.sqrt(float(_var(m, total, sumsq))) / math.sqrt(max(m, 1)),
                          None, "holdout")


# --------------------------------------------------------------------- k-fold cv, naive

def naive_cv_interval(errors: object, *, dist: str = "t") -> IntervalResult:
    """Naive cross-validation interval on the fold means.

    ``ē ± q · s_e / sqrt(J)`` over the ``J`` fold error rates ``e_j`` (``s_e`` their sample
    standard deviation), ``q`` from t(J - 1) (``dist='t'``) or N(0, 1) (``dist='z'``): the
    interval of the paired k-fold cv t (Dietterich 1998 sec. 3.4; Yıldız & Alpaydın 2006
    eq. 4-5) read as a confidence interval, and the "naive" cv interval Bates, Hastie &
    Tibshirani (2024, sec. 3) show can cover far below its level.

    Parameters
    ----------
    errors : array (J,)
        Fold error rates (or their differences between two learners).
    dist : {'t', 'z'}

    Examples
    --------
    >>> r = naive_cv_interval([0.1, 0.2, 0.15, 0.25, 0.2])
    >>> round(r.statistic, 2), r.df
    (0.18, 4.0)
    """
    e = _finite(errors, "errors", 1)
    if dist not in ("t", "z"):
        raise SimstudyError(f"naive cv dist {dist!r}; valid choices: t, z")
    J = e.size
    return IntervalResult(float(e.mean()), _sd(e) / math.sqrt(max(J, 1)),
                          float(J - 1) if dist == "t" else None, "naive-cv")


# ------------------------------------------------------------------------------- CV CLT

def cv_clt_interval(losses: object, folds: object, *, variance: str = "within"
                    ) -> IntervalResult:
    """Cross-validation CLT interval (Bayle, Bayle, Janson & Mackey 2020, NeurIPS).

    Each of the ``n`` instances is tested once in a k-fold partition.  ``R̂ = mean(h)`` over
    all per-instance losses ``h_i``; ``R̂ ± z · σ̂ / sqrt(n)`` (their CLT, Theorem 1, and the
    interval built on it in their sec. 3), with their within-fold variance
    ``σ̂²_in = (1/k) Σ_j (1/(n_j - 1)) Σ_{i in fold j} (h_i - h̄_j)²`` (``variance='within'``)
    or the all-pairs ``σ̂²_out = (1/n) Σ_i (h_i - R̂)²`` (``variance='all'``; mlr3inferr's
    ``ci.wald_cv`` default).  ``variance='naive'`` is Bates, Hastie & Tibshirani (2024)'s
    naive cv interval (their ``naive_cv``: the sample variance, ddof 1, of all n losses).
    For the difference of two learners pass the paired loss differences.

    Parameters
    ----------
    losses : array (n,)
        Per-instance losses (or paired differences), each instance's own test fold.
    folds : int array (n,)
        The fold of each instance.
    variance : {'within', 'all', 'naive'}

    Examples
    --------
    >>> r = cv_clt_interval([0, 1, 0, 1, 1, 0, 0, 0], [0, 0, 0, 0, 1, 1, 1, 1])
    >>> round(r.statistic, 3), round(r.standard_error, 4)
    (0.375, 0.1909)
    """
    h = _finite(losses, "losses", 1)
    f = np.asarray(folds)
    if f.shape != h.shape:
        raise SimstudyError(f"folds must have the losses' shape {h.shape!r}, got {f.shape!r}")
    js = np.unique(f)
    return cv_clt_interval_sums([int((f == j).sum()) for j in js],
                                [float(h[f == j].sum()) for j in js],
                                [float((h[f == j] ** 2).sum()) for j in js], variance=variance)


def cv_clt_interval_sums(counts: object, totals: object, sumsqs: object, *,
                         variance: str = "within") -> IntervalResult:
    """:func:`cv_clt_interval` from each fold's number of losses, their sum and their sum
    of squares.

    Examples
    --------
    >>> r = cv_clt_interval_sums([4, 4], [2.0, 1.0], [2.0, 1.0])
    >>> round(r.statistic, 3), round(r.standard_error, 4)
    (0.375, 0.1909)
    """
    c = np.asarray(counts, dtype=np.float64)
    S = np.asarray(totals, dtype=np.float64)
    Q = np.asarray(sumsqs, dtype=np.float64)
    n = _fsum(c)
    rhat = _fsum(S) / n if n else math.nan
    if variance == "within":
        var = _fsum(_var(c, S, Q)) / c.size if c.size else math.nan
    elif variance == "all":
        var = max(_fsum(Q) / n - rhat * rhat, 0.0) if n else math.nan
    elif variance == "naive":
        var = float(_var(n, _fsum(S), _fsum(Q)))
    else:
        raise SimstudyError(f"cv-clt variance {variance!r}; valid choices: all, naive, within")
    return IntervalResult(rhat, math.sqrt(var / max(n, 1)), None, "cv-clt")


# ------------------------------------------------------------------- Nadeau & Bengio

def corrected_t_interval(errors: object, *, n_train: float, n_test: float) -> IntervalResult:
    """Corrected resampled t interval (Nadeau & Bengio 2003, Machine Learning 52, sec. 4).

    Over ``J`` train/test splits with fold error rates ``e_j``:
    ``ē ± t_{J-1} · s_e · sqrt(1/J + n2/n1)``, ``n1``/``n2`` the training and test sizes;
    for repeated k-fold cv (``J = r k``, ``n2/n1 = 1/(k - 1)``) this is Bouckaert & Frank
    (2004 sec. 3.3)'s corrected repeated cv.  mlr3inferr's ``ci.cor_t``.

    Examples
    --------
    >>> r = corrected_t_interval([0.1, 0.2, 0.15, 0.25, 0.2], n_train=90, n_test=10)
    >>> round(r.standard_error, 4)
    0.0318
    """
    e = _finite(errors, "errors", 1)
    if not (n_train > 0 and n_test > 0):
        raise SimstudyError(f"n_train={n_train!r} and n_test={n_test!r} must be positive")
    J = e.size
    return IntervalResult(float(e.mean()), _sd(e) * math.sqrt(1.0 / max(J, 1) + n_test / n_train),
                          float(J - 1), "corrected-t")


def conservative_z_interval(halves: object) -> IntervalResult:
    """Conservative Z interval (Nadeau & Bengio 2003, sec. 4).

    ``halves[j]`` are the two error rates of replication ``j`` of a design of complementary
    halves (train on one half, test on the other, then swap).  ``μ̂`` = mean of the 2J;
    ``σ̂² = (1/(2J)) Σ_j (e_j1 - e_j2)²``, the half-split variance estimate; the interval is
    ``μ̂ ± z · σ̂``.  N&B compute both estimates of a pair within each half (so σ̂² bounds
    the variance of the full-sample estimator from above); an r x 2 design has no
    within-half estimates, and σ̂² here is the variance of one fold's estimate -- as
    conservative as theirs (see :func:`simstudy.stats.folds.conservative_z`).  mlr3inferr's
    ``ci.con_z`` computes the same σ̂² from its paired subsampling.

    Examples
    --------
    >>> r = conservative_z_interval([[0.2, 0.3], [0.25, 0.25]])
    >>> round(r.statistic, 3), round(r.standard_error, 4)
    (0.25, 0.05)
    """
    a = _finite(halves, "halves", 2)
    if a.shape[1] != 2 or a.shape[0] < 1:
        raise SimstudyError(f"halves must have shape (J, 2), J >= 1, got {a.shape!r}")
    s2 = float(((a[:, 0] - a[:, 1]) ** 2).sum() / (2.0 * a.shape[0]))
    return IntervalResult(float(a.mean()), math.sqrt(s2), None, "conservative-z")


def t5x2cv_interval(halves: object) -> IntervalResult:
    """Interval of Dietterich's 5x2cv t (Dietterich 1998, Neural Computation 10, sec. 3.5).

    ``p_1^(1) ± t_r · sqrt((1/r) Σ_i s_i²)``, ``s_i² = Σ_j (p_i^(j) - p̄_i)²`` over the
    ``r`` replications of two folds (``r = 5``: Dietterich's t(5); Alpaydın 1999 eq. 2.1
    is the same statistic): the t test inverted, centred on the first fold's estimate.

    Examples
    --------
    >>> h = [[0.2, 0.3], [0.25, 0.25], [0.2, 0.2], [0.3, 0.2], [0.1, 0.3]]
    >>> r = t5x2cv_interval(h)
    >>> r.statistic, r.df, round(r.standard_error, 4)
    (0.2, 5.0, 0.0775)
    """
    a = _finite(halves, "halves", 2)
    if a.shape[1] != 2 or a.shape[0] < 1:
        raise SimstudyError(f"halves must have shape (r, 2), r >= 1, got {a.shape!r}")
    r = a.shape[0]
    s2 = ((a - a.mean(axis=1, keepdims=True)) ** 2).sum()
    return IntervalResult(float(a[0, 0]), math.sqrt(float(s2) / r), float(r), "t5x2cv")


# ---------------------------------------------------------------------------- nested cv

#: bias corrections of :func:`nested_cv_interval`: factor applied to ``Err_NCV - Err_CV``
NCV_BIAS = ("linear", "authors", "none")


def nested_cv_interval(outer: object, inner: object, *, bias: str = "linear"
                       ) -> IntervalResult:
    """Nested cross-validation interval (Bates, Hastie & Tibshirani 2024, JASA, Algorithm 1).

    For each repetition ``r`` and outer fold ``k`` of a ``K``-fold split:
    ``e_out`` = losses on fold k of the model fitted without fold k; ``e_in`` = the inner
    cv of the data without fold k (losses on fold j of the model fitted without folds k and
    j, every j != k).  Then ``a_{r,k} = (mean e_in - mean e_out)²`` and
    ``b_{r,k} = var(e_out) / |fold k|``, and the MSE estimate (Algorithm 1, from their holdout
    MSE identity, sec. 4) is ``MSE = mean(a) - mean(b)``.  The point estimate
    ``Err_NCV`` is the mean of every inner loss; the standard error, rescaled from training
    size ``n (K-1)/K`` to ``n`` (their sec. 4), is ``SE = sqrt((K-1)/K · max(MSE, 0))``,
    kept between the naive ``s/sqrt(n)`` and ``sqrt(K)`` times it (``s`` the sd of all inner
    losses; as the authors' ``nestedcv`` R code does).  The interval is
    ``Err_NCV - bias ± z · SE``.

    ``bias`` (their sec. 4: fits at sizes ``n (K-2)/K`` and ``n (K-1)/K`` extrapolated to
    ``n``, ``Err_CV`` the plain K-fold cv mean of the outer losses):
    ``'linear'`` -- ``(1 + (K-2)/K) (Err_NCV - Err_CV)``, exact when the error is linear in
    1/(training size) (as mlr3inferr's ``ci.ncv``); ``'authors'`` -- the factor
    ``1 + ((K-2)/K)^1.5`` of the authors' ``nestedcv`` R code; ``'none'`` -- no correction.

    Parameters
    ----------
    outer : array (R, K, n)
        ``outer[r, k, i]``: loss on instance i (in fold k) of the model fitted without fold
        k; nan where instance i is not in fold k.
    inner : array (R, K, K, n)
        ``inner[r, k, j, i]``: loss on instance i (in fold j) of the model fitted without
        folds k and j; nan where i is not in fold j, and on ``j == k``.
    bias : {'linear', 'authors', 'none'}

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> fold = np.arange(12) % 3
    >>> out = np.where(fold == np.arange(3)[:, None], rng.random((3, 12)), np.nan)[None]
    >>> inn = np.full((1, 3, 3, 12), np.nan)
    >>> for k in range(3):
    ...     for j in range(3):
    ...         if j != k:
    ...             inn[0, k, j] = np.where(fold == j, rng.random(12), np.nan)
    >>> r = nested_cv_interval(out, inn)
    >>> bool(r.standard_error > 0)
    True
    """
    o = _finite(outer, "outer", 3)
    w = _finite(inner, "inner", 4)
    R, K, n = o.shape
    if w.shape != (R, K, K, n):
        raise SimstudyError(f"inner must have shape {(R, K, K, n)!r}, got {w.shape!r}")
    on = ~np.isnan(o)
    oz = np.where(on, o, 0.0)
    won = ~np.isnan(w)
    wz = np.where(won, w, 0.0)
    return nested_cv_interval_sums(
        on.sum(axis=2), oz.sum(axis=2), (oz * oz).sum(axis=2), won.sum(axis=(2, 3)),
        wz.sum(axis=(2, 3)), float((wz * wz).sum()), n, bias=bias)


def nested_cv_interval_sums(out_count: object, out_total: object, out_sumsq: object,
                            in_count: object, in_total: object, in_sumsq: float, n: int, *,
                            bias: str = "linear") -> IntervalResult:
    """:func:`nested_cv_interval` from sums: for each repetition ``r`` and outer fold ``k``
    (arrays ``(R, K)``) the number, sum and sum of squares of the outer losses
    (``e_out``) and the number and sum of the inner losses (``e_in``); the sum of squares
    of every inner loss (a number); ``n`` the number of instances.

    Examples
    --------
    >>> r = nested_cv_interval_sums([[4, 4, 4]], [[1.0, 2.0, 1.5]], [[0.5, 1.5, 1.0]],
    ...                             [[8, 8, 8]], [[3.0, 2.5, 3.5]], 4.5, 12)
    >>> round(r.statistic, 4), round(r.standard_error, 4)
    (0.375, 0.0638)
    """
    c_o = np.asarray(out_count, dtype=np.float64)
    R, K = c_o.shape
    S_o = np.asarray(out_total, dtype=np.float64)
    c_i = np.asarray(in_count, dtype=np.float64)
    S_i = np.asarray(in_total, dtype=np.float64)
    if K < 3:
        raise SimstudyError(f"nested cv needs K >= 3 folds, got K={K}")
    if bias not in NCV_BIAS:
        raise SimstudyError(f"nested cv bias {bias!r}; valid choices: {', '.join(NCV_BIAS)}")
    mean_out = S_o / c_o
    var_out = _var(c_o, S_o, out_sumsq)  # nan on a fold of one instance
    a = (S_i / c_i - mean_out) ** 2
    b = var_out / c_o
    mse = _fsum(a) / a.size - _fsum(b) / b.size
    m = _fsum(c_i)
    err_ncv = _fsum(S_i) / m
    err_cv = _fsum(S_o) / _fsum(c_o)
    se_naive = math.sqrt(float(_var(m, _fsum(S_i), in_sumsq))) / math.sqrt(n)
    se = math.sqrt((K - 1) / K * max(mse, 0.0))
    se = min(max(se, se_naive), se_naive * math.sqrt(K))
    factor = {"linear": 1.0 + (K - 2) / K, "authors": 1.0 + ((K - 2) / K) ** 1.5,
              "none": 0.0}[bias]
    return IntervalResult(err_ncv - factor * (err_ncv - err_cv), se, None, "ncv")


# ------------------------------------------------------------------ out-of-bag bootstrap

def oob_632plus_interval(oob: object, apparent: object, no_information: float
                         ) -> IntervalResult:
    """The .632+ bootstrap estimate of the prediction error (Efron & Tibshirani 1997, JASA
    92, "Improvements on cross-validation: the .632+ bootstrap method", sec. 3, eq. 32)
    with a standard error.

    ``oob[b, i]`` is the loss at instance ``i`` of the model fitted on bootstrap sample
    ``b`` (n draws with replacement), nan where ``i`` is in that sample (only out-of-bag
    instances are tested); ``apparent[i]`` the loss at ``i`` of the model fitted on all n
    instances; ``no_information`` the no-information error ``γ̂ = (1/n²) Σ_i Σ_j
    L(y_i, f(x_j))`` of that full fit (for 0/1 loss ``Σ_l p_l (1 - q_l)``, ``p_l`` and
    ``q_l`` the shares of class l among the labels and the full fit's predictions).  Then:

    * leave-one-out bootstrap: ``Ê_i`` = mean of ``oob[:, i]`` over the samples that left
      ``i`` out, ``Err1 = mean_i Ê_i`` (an instance never left out is dropped, as they
      do);
    * apparent error ``err = mean(apparent)``; ``Err.632 = .368 err + .632 Err1``;
    * ``Err1' = min(Err1, γ̂)``; relative overfitting rate ``R' = (Err1' - err) /
      (γ̂ - err)`` when ``Err1' > err`` and ``γ̂ > err``, else 0;
    * ``Err.632+ = Err.632 + (Err1' - err) · .368 · .632 R' / (1 - .368 R')`` (eq. 32).

    The standard error is that of the mean of the ``Ê_i`` taken as independent,
    ``sd(Ê) / sqrt(n')``, scaled by ``Err.632+ / Err1`` (the proportional scaling Efron &
    Tibshirani use to carry a standard error of ``Err1`` over to ``Err.632+``); their
    delta-method correction of ``sd(Ê)`` for the dependence between the ``Ê_i`` is not
    applied, so the interval ``Err.632+ ± z · se`` is the naive one.

    Examples
    --------
    >>> import numpy as np
    >>> nan = np.nan
    >>> oob = [[nan, 1, 0, nan], [0, nan, nan, 1], [1, 0, nan, nan]]
    >>> r = oob_632plus_interval(oob, [0, 0, 0, 1], 0.75)
    >>> round(r.statistic, 4)
    0.4436
    """
    o = _finite(oob, "oob", 2)
    a = _finite(apparent, "apparent", 1)
    if a.shape[0] != o.shape[1]:
        raise SimstudyError(f"apparent has {a.shape[0]} losses, oob {o.shape[1]} instances")
    gamma = float(no_information)
    if not math.isfinite(gamma):
        raise SimstudyError(f"no_information must be a finite loss, got {no_information!r}")
    left = ~np.isnan(o)
    seen = left.any(axis=0)
    if not seen.any():
        raise SimstudyError("no instance is out of bag in any bootstrap sample")
    e_i = np.nansum(o[:, seen], axis=0) / left[:, seen].sum(axis=0)
    err1, err = float(e_i.mean()), float(a.mean())
    err632 = 0.368 * err + 0.632 * err1
    err1p = min(err1, gamma)
    r = (err1p - err) / (gamma - err) if (err1p > err and gamma > err) else 0.0
    est = err632 + (err1p - err) * 0.368 * 0.632 * r / (1.0 - 0.368 * r)
    se = _sd(e_i) / math.sqrt(e_i.size)
    return IntervalResult(est, se * est / err1 if err1 > 0 else se, None, "oob-632plus")
