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
"""

from __future__ import annotations

import numpy as np
from sklearn.impute import SimpleImputer
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from ..errors import unknown

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
    """
    X = np.asarray(X, dtype=np.float64)
    T = np.asarray(train, dtype=np.float64)
    ok = ~np.isnan(X)
    # shift by a global column centre first: the masked second moment below then loses
    # no precision to cancellation when |mean| >> sd (e.g. years, ids-like scales)
    n_obs = ok.sum(axis=0)
    centre = np.where(ok, X, 0.0).sum(axis=0) / np.maximum(n_obs, 1)
    Xc = np.where(ok, X - centre, 0.0)
    cnt = T @ ok.astype(np.float64)  # observed training values per column
    s1 = T @ Xc
    with np.errstate(invalid="ignore", divide="ignore"):
        m_c = np.where(cnt > 0, s1 / np.maximum(cnt, 1.0), 0.0)
    mean = np.where(cnt > 0, m_c + centre, 0.0)
    if not standardize:
        return mean, np.ones_like(mean)
    n_b = T.sum(axis=1)[:, None]
    # imputed entries equal the mean and add nothing to the centred sum of squares
    ss = T @ (Xc * Xc) - cnt * m_c * m_c
    var = np.maximum(ss, 0.0) / np.maximum(n_b, 1.0)
    # the moment formula leaves ~1e-21 where a column is exactly constant in the fold;
    # scikit-learn gets 0 there (and then scale 1), so test constancy exactly
    var = np.where(_constant_columns(X, ok, np.asarray(train, dtype=bool)), 0.0, var)
    constant = var <= n_b * _EPS * var + (n_b * mean * _EPS) ** 2
    scale = np.where(constant, 1.0, np.sqrt(var))
    return mean, scale


def _constant_columns(X: np.ndarray, ok: np.ndarray, train: np.ndarray) -> np.ndarray:
    """(B, d) True where the observed training values of a column are all equal."""
    B, n = train.shape
    d = X.shape[1]
    hi_src = np.where(ok, X, -np.inf)
    lo_src = np.where(ok, X, np.inf)
    out = np.empty((B, d), dtype=bool)
    step = chunk_size(2.0 * n * d * 8, 64e6)
    for s in range(0, B, step):
        t = train[s : s + step, :, None]
        hi = np.where(t, hi_src[None], -np.inf).max(axis=1)
        lo = np.where(t, lo_src[None], np.inf).min(axis=1)
        out[s : s + step] = ~(hi > lo)  # also True for a column with no observed value
    return out


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
