"""Tests that compare two learners: pure functions on arrays of error-rate differences.

Conventions shared by every function here
-----------------------------------------
* ``d`` is always an array of differences of **error rates**, learner A minus learner B.
  (Bouckaert & Frank write accuracies, ``x = a - b``; with error rates the sign flips, which
  changes nothing for two-sided tests and swaps ``'less'``/``'greater'``.)
* ``alternative='greater'`` means H1: A's expected error > B's, i.e. the mean of ``d`` is
  positive; ``'less'`` means H1: A's error < B's.  This is the direction of Yıldız &
  Alpaydın (2006) §2.3.3: with ``d = e_i - e_j`` the one-sided test of H0: mu_i <= mu_j
  rejects when ``t > t_{alpha,5}``, i.e. it is ``alternative='greater'``.
* Undefined statistics (a zero variance estimate, e.g. all ``d`` equal, so 0/0 or c/0)
  give ``statistic = nan`` and ``pvalue = 1.0``: the test never rejects and no
  RuntimeWarning is emitted.  We chose "undefined -> never reject" over "c/0 = inf -> reject"
  because none of the papers defines the statistic there and a test that rejects on a
  degenerate sample would inflate type I error on easy data sets (where both learners make
  identical mistakes).  A spread below ``1e-12`` times the largest ``|d|`` counts as zero:
  differences of rates such as ``(0.3 - 0.2)`` and ``(0.2 - 0.1)`` differ by one ulp and
  must not make ``t`` ~ 1e16.
* Bad input (wrong shape, nan/inf, unknown ``alternative``) raises
  :class:`~simstudy.errors.SimstudyError` naming the parameter and the bad value.

* Batch-first: the t and F tests are computed on rows (a batch of trials, one row each);
  the scalar function checks its input and runs a batch of one, the ``*_batch`` functions
  (the registry's batch forms, :mod:`.registry`) run T trials through the same code.

p-values use :mod:`scipy.special` (``stdtr``, ``fdtrc``, ``chdtrc``, ``ndtr``) directly:
the same numbers as ``scipy.stats`` distributions at a fraction of the call overhead,
because these functions are called millions of times.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy import special

from ..errors import SimstudyError, unknown
from ._common import REL_TOL, check_array, undefined
from ._result import TestResult

__all__ = [
    "ALTERNATIVES",
    "DF_BALANCED_EQ7",
    "dof_balanced",
    "ftest_5x2cv",
    "ftest_5x2cv_batch",
    "ftest_balanced_5x2cv",
    "paired_t_batch",
    "mcnemar",
    "proportions_test",
    "ttest_5x2cv",
    "ttest_5x2cv_batch",
    "ttest_blocked_3x2cv",
    "ttest_blocked_3x2cv_batch",
    "ttest_corrected_repeated_kfold",
    "ttest_corrected_resampled",
    "ttest_kfold",
    "ttest_repeated_kfold",
    "ttest_resampled",
]

ALTERNATIVES = ("two-sided", "less", "greater")

#: Wang, Li & Li (2016) eq. 7: mean of f = 10/(1 + 8 rho2^2) over rho2 in (0, 0.5),
#: 5 sqrt(2) arctan(sqrt(2)) = 6.755; the paper rounds it to 7.
DF_BALANCED_EQ7 = 5.0 * math.sqrt(2.0) * math.atan(math.sqrt(2.0))


# ----------------------------------------------------------------------------- helpers
def _binary(x: object, name: str) -> np.ndarray:
    """1-d 0/1 (or bool) vector as bool."""
    a = np.asarray(x)
    if a.ndim != 1 or a.size == 0:
        raise SimstudyError(f"{name} must be a non-empty 1-d 0/1 vector, got shape {a.shape!r}")
    if a.dtype == np.bool_:
        return a
    if not np.issubdtype(a.dtype, np.number):
        raise SimstudyError(f"{name} must contain only 0 and 1, got dtype {a.dtype!r}")
    ok = (a == 0) | (a == 1)
    if not ok.all():
        bad = a[~ok][0]
        raise SimstudyError(f"{name} must contain only 0 and 1, found {bad!r}")
    return a.astype(bool)


def _check_alternative(alternative: object) -> str:
    if alternative not in ALTERNATIVES:
        raise unknown("alternative", alternative, ALTERNATIVES)
    return alternative  # type: ignore[return-value]


def _positive(x: object, name: str) -> float:
    """Mean of a positive scalar or array (fold sizes may differ by one instance)."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise SimstudyError(f"{name} must be positive and finite, got {x!r}") from exc
    if a.size == 0 or not (np.isfinite(a).all() and (a > 0).all()):
        raise SimstudyError(f"{name} must be positive and finite, got {x!r}")
    return float(a.mean())


def _tail(t: np.ndarray, df: float, alternative: str) -> np.ndarray:
    """p-values of Student's t with ``df`` degrees of freedom."""
    if alternative == "two-sided":
        return np.minimum(1.0, 2.0 * special.stdtr(df, -np.abs(t)))
    if alternative == "greater":
        return special.stdtr(df, -t)
    return special.stdtr(df, t)


def _z_pvalue(z: float, alternative: str) -> float:
    if alternative == "two-sided":
        return min(1.0, 2.0 * float(special.ndtr(-abs(z))))
    if alternative == "greater":
        return float(special.ndtr(-z))
    return float(special.ndtr(z))


def _d_array(d: object, **check: object) -> np.ndarray:
    """``d`` validated and divided by ``max|d|``.

    Every statistic here is invariant to the scale of ``d``; working at unit scale keeps
    squares of tiny differences from underflowing (which would make the result depend on
    the scale).
    """
    return _d_scaled(d, **check)[0]


def _d_scaled(d: object, **check: object) -> tuple[np.ndarray, float]:
    """:func:`_d_array` and the ``max|d|`` it divided by (1 for all zeros): the scale of
    the estimate and standard error a result reports."""
    a = check_array(d, "d", **check)  # type: ignore[arg-type]
    m = float(np.abs(a).max())
    return (a / m, m) if m > 0 else (a, 1.0)


# -------------------------------------------------------------- batch-first cores
# Each test below is computed on rows: ``x`` (T, n) differences at unit scale (per row
# divided by its max|d|, see :func:`_unit`), ``scale`` (T,) each row's max|x| (1, or 0 for
# an all-zero row).  The batch forms call them on T trials, the scalar functions on a batch
# of one (the same operations in the same order, so the same bits).

def _unit(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per trial ``d / max|d|`` (as :func:`_d_array`), flattened to (T, n); and max|d| of
    the result (1 or 0)."""
    x = d.reshape(d.shape[0], -1)
    m = np.abs(x).max(axis=1)
    x = np.where(m[:, None] > 0, x / np.where(m > 0, m, 1.0)[:, None], x)
    return np.ascontiguousarray(x), np.abs(x).max(axis=1)


def _one(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A validated, unit-scaled ``a`` as a batch of one row."""
    x = np.ascontiguousarray(a.reshape(1, -1))
    return x, np.abs(x).max(axis=1)


def _degenerate(ss: np.ndarray, scale: np.ndarray, count: int) -> np.ndarray:
    """:func:`._common.degenerate` per row."""
    return ss <= count * (REL_TOL * scale) ** 2


def _spread(x: np.ndarray, scale: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row: mean, sum of squared deviations, and whether that spread is zero."""
    m = x.mean(axis=1)
    ss = ((x - m[:, None]) ** 2).sum(axis=1)
    return m, ss, _degenerate(ss, scale, x.shape[1])


def _paired_rows(x: np.ndarray, scale: np.ndarray, factor: np.ndarray | float | None,
                 alternative: str = "two-sided") -> tuple[np.ndarray, ...]:
    """One-sample t per row: t = mean / sqrt(c * s^2), s^2 with ddof=1, df n-1; ``factor``
    c is ``1/n`` (None) for the plain t test and ``1/n + n2/n1`` for the Nadeau & Bengio
    correction.  Returns t, p, mean, standard error, undefined."""
    n = x.shape[1]
    m, ss, bad = _spread(x, scale)
    c = 1.0 / n if factor is None else factor
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(c * ss / (n - 1))
        t = m / se
    return t, _tail(t, float(n - 1), alternative), m, se, bad


def _s2_rows(x: np.ndarray) -> np.ndarray:
    """Per row of a 5x2 cv, sum_i s_i^2 with s_i^2 = (d_i1 - d_i2)^2 / 2."""
    a = x.reshape(-1, 5, 2)
    diff = np.ascontiguousarray(a[:, :, 0] - a[:, :, 1])
    return (diff * diff).sum(axis=1) / 2.0


def _t5x2_rows(x: np.ndarray, scale: np.ndarray, cell: int = 0,
               alternative: str = "two-sided") -> tuple[np.ndarray, ...]:
    """Per row of a 5x2 cv: t = x[cell] / sqrt(sum_i s_i^2 / 5) ~ t(5).  Returns t, p,
    numerator, standard error, undefined."""
    s2 = _s2_rows(x)
    bad = _degenerate(2.0 * s2, scale, 5)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(s2 / 5.0)
        t = x[:, cell] / se
    return t, _tail(t, 5.0, alternative), x[:, cell], se, bad


def _f5x2_rows(x: np.ndarray, scale: np.ndarray, factor: float,
               df_num: float) -> tuple[np.ndarray, ...]:
    """Per row of a 5x2 cv: f = factor sum d^2 / (2 sum_i s_i^2) ~ F(df_num, 5), upper tail.
    Returns f, p, undefined."""
    s2 = _s2_rows(x)
    bad = _degenerate(2.0 * s2, scale, 5)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = factor * (x * x).sum(axis=1) / (2.0 * s2)
    return f, special.fdtrc(df_num, 5.0, f), bad


def _tb3x2_rows(x: np.ndarray, scale: np.ndarray, alternative: str = "two-sided",
                one_sided_critical: bool = False) -> tuple[np.ndarray, ...]:
    """Per row of a blocked 3x2 cv: t = mean / sqrt(sum (d - mean)^2 / 6) ~ t(5); with
    ``one_sided_critical`` p = P(T_5 > |t|).  Returns t, p, mean, standard error,
    undefined."""
    m, ss, bad = _spread(x, scale)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.sqrt(ss / 6.0)
        t = m / se
    p = special.stdtr(5.0, -np.abs(t)) if one_sided_critical else _tail(t, 5.0, alternative)
    return t, p, m, se, bad


def _t_result(rows: tuple[np.ndarray, ...], df: float, alternative: str,
              scale: float) -> TestResult:
    """The scalar result of a batch of one (t, p, estimate, standard error, undefined);
    ``scale`` what ``d`` was divided by."""
    t, p, est, se, bad = rows
    if bad[0]:
        return undefined(df, alternative)
    return TestResult(float(t[0]), float(p[0]), df, alternative,
                      estimate=float(est[0]) * scale, standard_error=float(se[0]) * scale)


def _paired_t(a: np.ndarray, alternative: str, var_factor: float | None,
              scale: float = 1.0) -> TestResult:
    """One-sample t on the unit-scaled ``a`` (flattened), df n - 1 (:func:`_paired_rows`)."""
    x, sc = _one(a)
    return _t_result(_paired_rows(x, sc, var_factor, alternative), float(x.shape[1] - 1),
                     alternative, scale)


# ------------------------------------------------------------------------ 5x2 cv family
def _check_numerator(numerator: object) -> tuple[int, int]:
    try:
        i, j = (int(numerator[0]), int(numerator[1]))  # type: ignore[index]
        ok = len(numerator) == 2 and 0 <= i < 5 and 0 <= j < 2  # type: ignore[arg-type]
    except (TypeError, ValueError, IndexError):
        ok = False
    if not ok:
        raise SimstudyError(f"numerator must be (replication 0..4, fold 0..1), got {numerator!r}")
    return i, j


def ttest_5x2cv(
    d: object, *, numerator: tuple[int, int] = (0, 0), alternative: str = "two-sided"
) -> TestResult:
    """Dietterich's 5x2 cv paired t test (Alpaydın 1999, eq. 2.1; numerators eq. 2.2).

    ``t = d[i, j] / sqrt(sum_i s_i^2 / 5)``, ``s_i^2 = sum_j (d[i, j] - mean_i)^2``,
    compared with t(5).  ``numerator=(i, j)`` (0-based replication, fold) picks one of the 10
    statistics t_i^(j) of eq. 2.2; the default ``(0, 0)`` is Dietterich's p_1^(1).

    ``alternative='greater'`` is the one-sided test of Yıldız & Alpaydın (2006) §2.3.3,
    eq. 7: it rejects H0: mu_A <= mu_B (A's error not larger) when t > t_{alpha,5}, i.e. H1
    is "A's error > B's".  MultiTest applies it with A = the more preferred learner.

    Parameters
    ----------
    d : array (5, 2)
        Error-rate differences A - B, ``d[replication, fold]``.
    """
    a, scale = _d_scaled(d, shape=(5, 2))
    alternative = _check_alternative(alternative)
    i, j = _check_numerator(numerator)
    x, sc = _one(a)
    return _t_result(_t5x2_rows(x, sc, 2 * i + j, alternative), 5.0, alternative, scale)


def ftest_5x2cv(d: object) -> TestResult:
    """Alpaydın's combined 5x2 cv F test (Alpaydın 1999, eq. 3.1).

    ``f = sum_ij d_ij^2 / (2 sum_i s_i^2)`` ~ F(10, 5); p is the upper tail P(F > f)
    (the test is two-sided in its hypothesis, mu_A = mu_B, but squares the differences).
    Matches mlxtend's ``combined_ftest_5x2cv`` on the same differences.
    """
    a = _d_array(d, shape=(5, 2))
    return _ftest(a, 1.0, 10.0)


def _ftest(a: np.ndarray, factor: float, df_num: float) -> TestResult:
    x, sc = _one(a)
    f, p, bad = _f5x2_rows(x, sc, factor, df_num)
    df = (df_num, 5.0)
    if bad[0]:
        return undefined(df, "two-sided")
    return TestResult(float(f[0]), float(p[0]), df, "two-sided")


def dof_balanced(rho1: float, rho2: float) -> float:
    """Numerator DOF of the calibrated balanced 5x2 cv F (Wang, Li & Li 2016, eq. 5, Table 2).

    ``f = 10 / (1 + rho1^2 + 8 rho2^2)`` for group-in correlation rho1 and group-out
    correlation rho2, defined on ``0 <= rho1 <= rho2 <= 0.5`` (the proposition's domain; the
    paper's Table 2 includes the boundary 0.5).
    """
    r1, r2 = _check_rhos(rho1, rho2)
    return 10.0 / (1.0 + r1 * r1 + 8.0 * r2 * r2)


def _check_rhos(rho1: object, rho2: object) -> tuple[float, float]:
    try:
        r1, r2 = float(rho1), float(rho2)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise SimstudyError(f"rho1 and rho2 must be numbers, got {rho1!r}, {rho2!r}") from exc
    if not (0.0 <= r1 <= 0.5):
        raise SimstudyError(f"rho1 must lie in [0, 0.5], got {rho1!r}")
    if not (0.0 <= r2 <= 0.5):
        raise SimstudyError(f"rho2 must lie in [0, 0.5], got {rho2!r}")
    if r1 > r2:
        raise SimstudyError(
            f"need rho1 <= rho2 (Wang et al. 2016, eq. 5), got rho1={rho1!r} > rho2={rho2!r}"
        )
    return r1, r2


def ftest_balanced_5x2cv(
    d: object, *, df_num: float | None = None, rho1: float | None = None, rho2: float | None = None
) -> TestResult:
    """Calibrated balanced 5x2 cv F test (Wang, Li & Li 2016, eqs. 4-7).

    ``d`` are the 10 differences of a *balanced* 5x2 cv (their Table 1).  Eq. 5:
    ``F = (1 - rho1)/2 * sum_ik d_ik^2 / sum_i S_i^2 ~ F(f, 5)`` with
    ``f = 10/(1 + rho1^2 + 8 rho2^2)``.  The paper sets rho1 = 0 (eq. 6), so the statistic
    is exactly Alpaydın's eq. 3.1 value, and replaces f by its mean over rho2 in (0, 0.5),
    6.76 ~ 7 (eq. 7): F(7, 5).

    * default: statistic = Alpaydın's f, ``df = (7, 5)``;
    * ``df_num=x``: statistic as above, ``df = (x, 5)`` (e.g. ``DF_BALANCED_EQ7`` = 6.755);
    * ``rho2=r2`` (and optionally ``rho1=r1``, default 0): statistic multiplied by
      ``1 - rho1`` and ``df_num = dof_balanced(rho1, rho2)``.  Giving ``df_num`` too, or
      ``rho1`` without ``rho2``, is an error (ambiguous).
    """
    a = _d_array(d, shape=(5, 2))
    if rho1 is None and rho2 is None:
        if df_num is None:
            df_num = 7.0
        try:
            dfn = float(df_num)
        except (TypeError, ValueError) as exc:
            raise SimstudyError(f"df_num must be a positive number, got {df_num!r}") from exc
        if not (math.isfinite(dfn) and dfn > 0):
            raise SimstudyError(f"df_num must be a positive number, got {df_num!r}")
        return _ftest(a, 1.0, dfn)
    if rho2 is None:
        raise SimstudyError(
            f"rho1={rho1!r} given without rho2; eq. 5's DOF needs both (rho1 <= rho2)"
        )
    if df_num is not None:
        raise SimstudyError(f"give either df_num ({df_num!r}) or rho1/rho2, not both")
    r1, r2 = _check_rhos(0.0 if rho1 is None else rho1, rho2)
    return _ftest(a, 1.0 - r1, 10.0 / (1.0 + r1 * r1 + 8.0 * r2 * r2))


def ttest_blocked_3x2cv(d: object, *, alternative: str = "two-sided") -> TestResult:
    """Blocked 3x2 cv t test (Wang, Wang, Jia & Li 2014, Neural Computation 26(1)).

    ``t = mean(d) / sqrt((1/6) sum_k (d_k - mean(d))^2)`` over the 6 differences of a
    blocked 3x2 cv, compared with t(5) (two-sided in the paper).  The variance is that of
    one estimate, not of the mean: deliberately conservative.

    Source: Wang, Li & Li (2016) use this test but do not print it; the formula is from the
    public R code of the same group, ``HaojieTing/RegularizedCrossValidation``:
    ``R/signif_Test/mx2bcv_t_test.R`` (t = |mean - delta| / sqrt(var.est), two-sided
    ``qt(1 - alpha/2, 2m - 1)``) with ``R/varianceEstimator/var_est3_mx2cv.R``
    (``var = 1/(2m) * sum (mu_i - mu_all)^2`` unless ``minu_one``), configured with
    ``m = 3`` and ``freedegree = 5`` in ``R/papers/neco_b3x2_yu_2014/*/b3x2cv_t/sign_test/
    conf.R`` (``R/signif_Test/t_test_bmx2cv.R`` computes ``p = 2*pt(-|t|, df)``).  That code
    replaces a zero variance by 1e-9; we return nan / p = 1 instead (module convention).
    """
    a, scale = _d_scaled(d, shape=(3, 2))
    alternative = _check_alternative(alternative)
    x, sc = _one(a)
    return _t_result(_tb3x2_rows(x, sc, alternative), 5.0, alternative, scale)


# ------------------------------------------------------------- k-fold / resampling t tests
def ttest_kfold(d: object, *, alternative: str = "two-sided") -> TestResult:
    """K-fold cv paired t test (Yıldız & Alpaydın 2006, eqs. 4-5).

    ``t = sqrt(K) m / S`` with ``S^2 = sum (p_i - m)^2 / (K - 1)``, compared with t(K - 1).
    ``d`` is 1-d, one difference per fold (K >= 2).
    """
    a, scale = _d_scaled(d, ndim=1, min_size=2)
    return _paired_t(a, _check_alternative(alternative), None, scale)


def ttest_resampled(d: object, *, alternative: str = "two-sided") -> TestResult:
    """Uncorrected resampled paired t test (Dietterich 1998; Bouckaert & Frank 2004 §3.2).

    The standard paired t on n random train/test splits: ``t = mean / sqrt(s^2 / n)``,
    t(n - 1).  Known to have a very high type I error; kept as a baseline.
    """
    a, scale = _d_scaled(d, ndim=1, min_size=2)
    return _paired_t(a, _check_alternative(alternative), None, scale)


def ttest_corrected_resampled(
    d: object,
    *,
    n_train: float | Sequence[float] | np.ndarray,
    n_test: float | Sequence[float] | np.ndarray,
    alternative: str = "two-sided",
) -> TestResult:
    """Corrected resampled t test (Nadeau & Bengio 2003; Bouckaert & Frank 2004 §3.2).

    ``t = mean(d) / sqrt((1/n + n2/n1) s^2)`` with ``s^2`` the sample variance (ddof=1) of
    the n differences, n1 = ``n_train``, n2 = ``n_test``.  Degrees of freedom n - 1, as in
    Nadeau & Bengio and Weka's corrected tester; Bouckaert & Frank's text says "n degrees of
    freedom", which we read as a slip (with n = 10 the critical values differ by 2 %).
    ``n_train``/``n_test`` may be per-run arrays; their means are used.
    """
    a, scale = _d_scaled(d, ndim=1, min_size=2)
    alternative = _check_alternative(alternative)
    n1 = _positive(n_train, "n_train")
    n2 = _positive(n_test, "n_test")
    return _paired_t(a, alternative, 1.0 / a.size + n2 / n1, scale)


def ttest_corrected_repeated_kfold(
    d: object,
    *,
    n_train: float | Sequence[float] | np.ndarray,
    n_test: float | Sequence[float] | np.ndarray,
    alternative: str = "two-sided",
) -> TestResult:
    """Corrected repeated k-fold cv t test (Bouckaert & Frank 2004 §3.3).

    ``d`` has shape (r, k): run j, fold i.  ``t = m / sqrt((1/(k r) + n2/n1) s^2)`` with
    m, s^2 the mean and variance (ddof=1) of all k r differences; df = k r - 1.
    """
    a, scale = _d_scaled(d, ndim=2, min_size=2)
    alternative = _check_alternative(alternative)
    n1 = _positive(n_train, "n_train")
    n2 = _positive(n_test, "n_test")
    return _paired_t(a, alternative, 1.0 / a.size + n2 / n1, scale)


def ttest_repeated_kfold(d: object, *, alternative: str = "two-sided") -> TestResult:
    """Uncorrected repeated k-fold cv t test (Bouckaert & Frank 2004 §3.3 and §4.3).

    The standard paired t test on all ``r k`` differences of r times k-fold cv, with no
    variance correction: ``t = m / sqrt(s^2 / (k r))``, ``m`` and ``s^2`` the mean and
    variance (ddof=1) of the ``k r`` differences (§3.3's "one could simply use" estimates),
    compared with t(k r - 1), i.e. df = 99 for 10×10 cv (§4.3: "the standard t-test based on
    the 100 differences obtained by 10-times 10-fold cross validation").  Its type I error
    is very high (the differences are not independent); kept as the paper's baseline.
    ``d`` has shape (r, k): run j, fold i.  With r = 1 it equals :func:`ttest_kfold`.
    """
    a, scale = _d_scaled(d, ndim=2, min_size=2)
    return _paired_t(a, _check_alternative(alternative), None, scale)


# ------------------------------------------------------------- single train/test split
def mcnemar(
    errors_a: object, errors_b: object, *, correction: bool = True, exact: bool = False
) -> TestResult:
    """McNemar's test on one test set (Yıldız & Alpaydın 2006, eq. 13; Dietterich 1998).

    ``errors_a``, ``errors_b``: per-instance 0/1 errors of A and B on the same instances.
    n01 = #(A wrong, B right), n10 = #(A right, B wrong).

    * default: ``(|n01 - n10| - 1)^2 / (n01 + n10)`` ~ chi2(1) (eq. 13, continuity
      corrected; ``correction=False`` drops the ``- 1``);
    * ``exact=True``: two-sided exact binomial test of n01 out of n01 + n10 at 1/2
      (:func:`scipy.stats.binomtest`); statistic = n01, df = None.

    No discordant pair (n01 + n10 = 0): statistic nan, p = 1.
    """
    ea = _binary(errors_a, "errors_a")
    eb = _binary(errors_b, "errors_b")
    if ea.shape != eb.shape:
        raise SimstudyError(
            f"errors_a and errors_b must have the same length, got {ea.shape!r} and {eb.shape!r}"
        )
    n01 = int(np.count_nonzero(ea & ~eb))
    n10 = int(np.count_nonzero(eb & ~ea))
    n = n01 + n10
    if exact:
        if n == 0:
            return undefined(None, "two-sided")
        from scipy import stats  # imported on first use: about 0.5 s CPU

        return TestResult(float(n01), float(stats.binomtest(n01, n, 0.5).pvalue), None, "two-sided")
    if n == 0:
        return undefined(1.0, "two-sided")
    num = abs(n01 - n10) - (1.0 if correction else 0.0)
    chi2 = num * num / n
    return TestResult(chi2, float(special.chdtrc(1.0, chi2)), 1.0, "two-sided")


def proportions_test(
    errors_a: object, errors_b: object, *, alternative: str = "two-sided"
) -> TestResult:
    """Test for the difference of two proportions (Dietterich 1998, §3.1).

    p_A, p_B are the error rates on the same n test instances, p = (p_A + p_B)/2,
    ``z = (p_A - p_B) / sqrt(2 p (1 - p) / n)`` ~ N(0, 1).  (Dietterich notes it wrongly
    treats p_A and p_B as independent.)  p = 0 or 1 (no variance): nan, p-value 1.
    """
    ea = _binary(errors_a, "errors_a")
    eb = _binary(errors_b, "errors_b")
    alternative = _check_alternative(alternative)
    if ea.shape != eb.shape:
        raise SimstudyError(
            f"errors_a and errors_b must have the same length, got {ea.shape!r} and {eb.shape!r}"
        )
    n = ea.size
    pa = np.count_nonzero(ea) / n
    pb = np.count_nonzero(eb) / n
    p = (pa + pb) / 2.0
    var = 2.0 * p * (1.0 - p) / n
    if var <= 0.0:
        return undefined(None, alternative)
    se = math.sqrt(var)
    z = (pa - pb) / se
    return TestResult(z, _z_pvalue(z, alternative), None, alternative,
                      estimate=pa - pb, standard_error=se)


# ----------------------------------------------------------------- batch forms
# The registry's classic tests on T trials at once: ``d`` (T, R, F), one statistic and
# p-value per trial, each bit for bit what the scalar function above gives on that trial
# alone (both run the cores above; tests/test_stats_registry.py checks it).  No input
# checks: the callers hand over stored fold differences.

def _mean_size(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    return np.ascontiguousarray(x.reshape(x.shape[0], -1)).mean(axis=1)


def _defined(rows: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(statistic, p) of a batch, nan and 1 where the statistic is undefined."""
    stat, p, bad = rows[0], rows[1], rows[-1]
    return np.where(bad, np.nan, stat), np.where(bad, 1.0, p)


def paired_t_batch(d: np.ndarray, n_train: np.ndarray | None = None,
                   n_test: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided paired t on each trial's differences ``d`` (T, ...): :func:`ttest_kfold`,
    :func:`ttest_resampled`, :func:`ttest_repeated_kfold` per row; with ``n_train`` and
    ``n_test`` (T, ...) sizes, the corrected t of :func:`ttest_corrected_resampled` and
    :func:`ttest_corrected_repeated_kfold` (each trial's mean sizes).

    Examples
    --------
    >>> t, p = paired_t_batch(np.array([[0.02, 0.01, 0.03, 0.00, 0.02]]))
    >>> bool(p[0] == ttest_kfold([0.02, 0.01, 0.03, 0.00, 0.02]).pvalue)
    True
    """
    x, scale = _unit(d)
    n = x.shape[1]
    c = None if n_train is None else 1.0 / n + _mean_size(n_test) / _mean_size(n_train)
    return _defined(_paired_rows(x, scale, c))


def ttest_5x2cv_batch(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ttest_5x2cv` (numerator p_1^(1), two-sided) on each trial's (5, 2) ``d``."""
    return _defined(_t5x2_rows(*_unit(d)))


def ftest_5x2cv_batch(d: np.ndarray, df_num: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ftest_5x2cv` (``df_num`` 10) or the default :func:`ftest_balanced_5x2cv`
    (``df_num`` 7) on each trial's (5, 2) ``d``."""
    return _defined(_f5x2_rows(*_unit(d), 1.0, df_num))


def ttest_blocked_3x2cv_batch(d: np.ndarray, one_sided_critical: bool = False
                              ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`ttest_blocked_3x2cv` on each trial's (3, 2) ``d``; ``one_sided_critical``:
    the p-value ``P(T_5 > |t|)`` (the registry's ``tB3x2cv[crit=one-sided]``)."""
    return _defined(_tb3x2_rows(*_unit(d), one_sided_critical=one_sided_critical))
