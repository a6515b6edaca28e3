"""Per-training-fold preprocessing: mean imputation and standardisation.

Every statistic is fitted on the training rows of one fold only (never on its test rows):

* a missing value (``nan``) is replaced by the training-fold mean of its column; a column
  with no observed training value is filled with 0;
* a column is standardised with the training-fold mean and population sd (``ddof=0``) of the
  *imputed* column, as ``SimpleImputer(keep_empty_features=True)`` followed by
  ``StandardScaler()`` does; a (near-)constant column keeps scale 1, with scikit-learn's own
  test for "near constant" (``var <= n·eps·var + (n·mean·eps)²``).

Two forms that agree to rounding (tests check it):

* :func:`fold_stats` / :func:`apply_stats`: batched, ``B`` masks at once with masked sums
  (one matrix product each), float64 -- for the fast paths;
* :func:`make_preprocessor`: a scikit-learn ``Pipeline`` fitted per model -- for the
  reference path.

and a third, :func:`model_stats`: the statistics of :func:`fold_stats` computed per model
in compiled code, for learners whose results must not depend on their batch-mates (the
neural learners).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import numpy as np

from ..blas import one_thread
from ..errors import unknown

if TYPE_CHECKING:  # scikit-learn is imported by the reference path only
    from sklearn.pipeline import Pipeline

#: accepted values of a learner's ``preprocess`` setting
PREPROCESS = ("standardize", "impute", "none")

_EPS = np.finfo(np.float64).eps


def check_preprocess(value: str) -> str:
    """Validate a ``preprocess`` setting (raise SimstudyError naming the choices)."""
    if value not in PREPROCESS:
        raise unknown("preprocess", value, PREPROCESS)
    return value


def make_preprocessor(preprocess: str = "standardize") -> Pipeline | None:
    """The per-fit scikit-learn form: imputer (+ scaler), or ``None`` for ``"none"``."""
    from sklearn.impute import SimpleImputer
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    check_preprocess(preprocess)
    if preprocess == "none":
        return None
    steps = [("impute", SimpleImputer(strategy="mean", keep_empty_features=True))]
    if preprocess == "standardize":
        steps.append(("scale", StandardScaler()))
    return Pipeline(steps)


def fold_stats(
    X: np.ndarray, train: np.ndarray, *, standardize: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Batched imputation means and scales for ``B`` training masks.

    Parameters
    ----------
    X : (n, d) float64 with ``nan`` for missing.
    train : (B, n) bool training masks.
    standardize : if False the returned scale is all ones (imputation only).

    Returns
    -------
    mean, scale : (B, d) float64.  ``mean[b]`` is the fill value of fold ``b`` (0 for an
    all-missing column) and the centre used for standardisation; ``scale[b]`` the sd of
    the imputed training column (1 where it is near constant).

    Cost: three ``(B, n) @ (n, d)`` products (two without missing values), on one BLAS
    thread, plus an exact two-pass recomputation of the few (fold, column) pairs whose
    moment variance is too small to trust.
    """
    # one BLAS thread: see simstudy.blas (a svm batch of the Gaussian study nearly doubled
    # its CPU through the spinning threads; one thread's bits are those of the shipped trials)
    with one_thread():
        return _fold_stats(X, train, standardize)


def _fold_stats(
    X: np.ndarray, train: np.ndarray, standardize: bool
) -> tuple[np.ndarray, np.ndarray]:
    X = np.asarray(X, dtype=np.float64)
    train = np.asarray(train, dtype=bool)
    T = train.astype(np.float64)
    ok = ~np.isnan(X)
    complete = bool(ok.all())
    n_b = T.sum(axis=1)[:, None]
    # shift by a global column centre first: the masked second moment below then loses
    # no precision to cancellation when |mean| >> sd (e.g. years, ids-like scales)
    n_obs = ok.sum(axis=0)
    if complete:
        centre = X.sum(axis=0) / max(X.shape[0], 1)
        Xc = X - centre
        cnt = np.broadcast_to(n_b, (T.shape[0], X.shape[1]))
    else:
        centre = np.where(ok, X, 0.0).sum(axis=0) / np.maximum(n_obs, 1)
        Xc = np.where(ok, X - centre, 0.0)
        cnt = T @ ok.astype(np.float64)  # observed training values per column
    s1 = T @ Xc
    with np.errstate(invalid="ignore", divide="ignore"):
        m_c = np.where(cnt > 0, s1 / np.maximum(cnt, 1.0), 0.0)
    mean = np.where(cnt > 0, m_c + centre, 0.0)
    if not standardize:
        return mean, np.ones_like(mean)
    # imputed entries equal the mean and add nothing to the centred sum of squares
    ss = T @ (Xc * Xc) - cnt * m_c * m_c
    var = np.maximum(ss, 0.0) / np.maximum(n_b, 1.0)
    # The moment formula is accurate to about n·eps·max|Xc|² (worst case).  Where the
    # variance is not far above that -- (near-)constant columns, where scikit-learn gets
    # exactly 0 and then scale 1, and columns whose spread in the fold is tiny against
    # their global range -- mean and variance are recomputed exactly (two-pass, constancy
    # tested exactly).  A threshold of 1e-6·max|Xc|² keeps the rest within ~1e-9 relative.
    amax = np.abs(Xc).max(axis=0) if X.shape[0] else np.zeros(X.shape[1])
    cand = var <= 1e-6 * amax * amax
    if cand.any():
        mean, var = _exact_pairs(X, ok, train, cand, mean, var)
    constant = var <= n_b * _EPS * var + (n_b * mean * _EPS) ** 2
    scale = np.where(constant, 1.0, np.sqrt(var))
    return mean, scale


def _exact_pairs(
    X: np.ndarray, ok: np.ndarray, train: np.ndarray, cand: np.ndarray,
    mean: np.ndarray, var: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Two-pass mean and (imputed-column) variance of the (fold, column) pairs in
    ``cand``; variance exactly 0 where the observed training values are all equal (or
    there is none).  Work: ``n`` per pair, vectorised per column."""
    mean = mean.copy()
    var = var.copy()
    n_b = train.sum(axis=1)
    for j in np.flatnonzero(cand.any(axis=0)):
        rows = np.flatnonzero(cand[:, j])
        obs = ok[:, j]
        v = X[obs, j]
        if v.size == 0 or v.min() == v.max():  # constant over the whole data set
            var[rows, j] = 0.0
            continue
        t = train[rows][:, obs]
        cnt = t.sum(axis=1)
        m = np.where(t, v, 0.0).sum(axis=1) / np.maximum(cnt, 1)
        dev = np.where(t, v - m[:, None], 0.0)
        ss = (dev * dev).sum(axis=1) - dev.sum(axis=1) ** 2 / np.maximum(cnt, 1)
        hi = np.where(t, v, -np.inf).max(axis=1)
        lo = np.where(t, v, np.inf).min(axis=1)
        mean[rows, j] = np.where(cnt > 0, m, 0.0)
        var[rows, j] = np.where(hi > lo, np.maximum(ss, 0.0) / np.maximum(n_b[rows], 1), 0.0)
    return mean, var


def model_stats(X: np.ndarray, train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`fold_stats`'s statistics computed model by model: bitwise batch-independent.

    Returns ``(mean, scale)``, each ``(B, d)`` float64: ``mean`` over a model's non-missing
    training values (0 if none), ``scale`` their population sd with 0 → 1 (as
    ``SimpleImputer(strategy="mean")`` + ``StandardScaler``: imputed values add nothing to
    the sum of squares).  Compiled, one model at a time, two passes over its rows (no BLAS):
    a model's values do not depend on its batch-mates, which the neural learners need (their
    weights are bitwise the same alone or in any batch).  :func:`fold_stats` gets the same
    values to rounding with matrix products over the whole batch.
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    train = np.ascontiguousarray(train, dtype=bool)
    return _model_stats_kernel()(X, train)


@functools.cache
def _model_stats_kernel():
    """:func:`_model_stats` compiled; numba is imported on first use (not by the reference
    path, which imports this module)."""
    from numba import njit

    return njit(cache=True, error_model="numpy")(_model_stats)


def _model_stats(X, train):  # pragma: no cover - compiled
    B, n = train.shape
    d = X.shape[1]
    mean = np.zeros((B, d))
    scale = np.ones((B, d))
    cnt = np.zeros(d)
    acc = np.zeros(d)
    for b in range(B):
        rows = np.flatnonzero(train[b])
        cnt[:] = 0.0
        acc[:] = 0.0
        for i in rows:
            for k in range(d):
                v = X[i, k]
                if not np.isnan(v):
                    cnt[k] += 1.0
                    acc[k] += v
        for k in range(d):
            mean[b, k] = acc[k] / cnt[k] if cnt[k] > 0 else 0.0
        # second pass about the mean (no cancellation); imputed values sit at the mean, add
        # nothing to the sum of squares and count in the denominator (all training rows)
        acc[:] = 0.0
        for i in rows:
            for k in range(d):
                v = X[i, k]
                if not np.isnan(v):
                    acc[k] += (v - mean[b, k]) ** 2
        nb = max(rows.shape[0], 1)
        for k in range(d):
            var = acc[k] / nb
            # StandardScaler's _is_constant_feature: variance at rounding level -> scale 1
            # (a constant 0.1 column leaves var ~1e-34 from the rounded mean)
            bound = nb * _EPS * var + (nb * mean[b, k] * _EPS) ** 2
            scale[b, k] = 1.0 if var <= bound else np.sqrt(var)
    return mean, scale


def apply_stats(
    X: np.ndarray, mean: np.ndarray, scale: np.ndarray, rows: np.ndarray | None = None
) -> np.ndarray:
    """Imputed, standardised copies of ``X`` (or of ``X[rows]``) for each fold.

    ``mean``/``scale`` are ``(B, d)`` from :func:`fold_stats`; the result is ``(B, m, d)``
    (``m = len(rows)`` or ``n``).  Memory is ``B·m·d`` floats: callers chunk over ``B``.
    """
    Xr = X if rows is None else X[rows]
    Z = np.where(np.isnan(Xr)[None], mean[:, None, :], Xr[None])
    Z -= mean[:, None, :]
    Z /= scale[:, None, :]
    return Z


def apply_one(X: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """:func:`apply_stats` for one fold: ``mean``/``scale`` of shape ``(d,)``."""
    Z = np.where(np.isnan(X), mean, X)
    Z -= mean
    Z /= scale
    return Z


def chunk_size(per_model_bytes: float, budget_bytes: float = 256e6) -> int:
    """How many models fit in a memory budget (at least one)."""
    return max(1, int(budget_bytes // max(per_model_bytes, 1.0)))
