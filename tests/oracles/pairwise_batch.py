"""Vectorised twins of :func:`simstudy.stats.pairwise.ttest_5x2cv` and
:func:`~simstudy.stats.pairwise.ftest_5x2cv` over many trials at once.

An oracle: the package computes each trial with the scalar functions; these array forms are
written independently (same formulas, same unit scaling, same zero-variance rule) and the
suite checks the two agree (``tests/test_stats_pairwise.py``).
"""

from __future__ import annotations

import numpy as np
from scipy import special

from simstudy.errors import SimstudyError
from simstudy.stats._common import REL_TOL
from simstudy.stats.pairwise import _check_alternative, _check_numerator


def _batch(d: object) -> np.ndarray:
    a = np.asarray(d, dtype=np.float64)
    if a.ndim < 2 or a.shape[-2:] != (5, 2):
        raise SimstudyError(f"d must have shape (..., 5, 2), got shape {a.shape!r}")
    if not np.isfinite(a).all():
        raise SimstudyError("d contains nan or inf")
    m = np.abs(a).max(axis=(-2, -1), keepdims=True)  # unit scale, as _d_array
    return a / np.where(m > 0, m, 1.0)


def _batch_s2(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    diff = a[..., 0] - a[..., 1]
    s2 = (diff * diff).sum(axis=-1) / 2.0
    scale = np.abs(a).max(axis=(-2, -1))
    bad = 2.0 * s2 <= 5 * (REL_TOL * scale) ** 2
    return np.where(bad, 1.0, s2), bad


def ttest_5x2cv_batch(
    d: object, *, numerator: tuple[int, int] = (0, 0), alternative: str = "two-sided"
) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`ttest_5x2cv` over ``d`` of shape (..., 5, 2).

    Returns ``(statistic, pvalue)`` arrays of shape ``d.shape[:-2]`` with the same
    nan / p = 1 convention for zero variance.
    """
    a = _batch(d)
    alternative = _check_alternative(alternative)
    i, j = _check_numerator(numerator)
    s2, bad = _batch_s2(a)
    t = a[..., i, j] / np.sqrt(s2 / 5.0)
    if alternative == "two-sided":
        p = np.minimum(1.0, 2.0 * special.stdtr(5.0, -np.abs(t)))
    elif alternative == "greater":
        p = special.stdtr(5.0, -t)
    else:
        p = special.stdtr(5.0, t)
    return np.where(bad, np.nan, t), np.where(bad, 1.0, p)


def ftest_5x2cv_batch(d: object, *, df_num: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised :func:`ftest_5x2cv` over ``d`` of shape (..., 5, 2).

    ``df_num=7`` gives the calibrated balanced F of :func:`ftest_balanced_5x2cv` (the
    statistic is the same).  Returns ``(statistic, pvalue)`` arrays.
    """
    a = _batch(d)
    s2, bad = _batch_s2(a)
    f = (a * a).sum(axis=(-2, -1)) / (2.0 * s2)
    p = special.fdtrc(float(df_num), 5.0, f)
    return np.where(bad, np.nan, f), np.where(bad, 1.0, p)
