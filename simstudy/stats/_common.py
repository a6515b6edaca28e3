"""Helpers shared by :mod:`.pairwise`, :mod:`.multiple` and :mod:`.choice`: input checks and
the "undefined statistic" convention (``statistic = nan, pvalue = 1.0``; see the module
docstring of :mod:`.pairwise` for why).  Pure functions, no I/O.
"""

from __future__ import annotations

import numpy as np

from ..errors import SimstudyError
from ._result import TestResult

#: a spread below this fraction of max|d| is treated as exactly zero
REL_TOL = 1e-12
_NAN = float("nan")


def check_array(
    x: object,
    name: str,
    shape: tuple[int, ...] | None = None,
    ndim: int | None = None,
    min_size: int = 1,
) -> np.ndarray:
    """Float64 view of ``x``; checks shape/ndim/size and finiteness (cheaply)."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise SimstudyError(f"{name} must be an array of numbers, got {x!r}") from exc
    if shape is not None and a.shape != shape:
        raise SimstudyError(f"{name} must have shape {shape!r}, got shape {a.shape!r}")
    if ndim is not None and a.ndim != ndim:
        raise SimstudyError(f"{name} must be {ndim}-dimensional, got shape {a.shape!r}")
    if a.size < min_size:
        raise SimstudyError(f"{name} needs at least {min_size} values, got shape {a.shape!r}")
    if not np.isfinite(a).all():
        raise SimstudyError(f"{name} contains nan or inf: {a!r}")
    return a


def undefined(df: float | tuple[float, float] | None, alternative: str | None) -> TestResult:
    """The result of a test whose statistic is undefined (zero variance): never rejects."""
    return TestResult(_NAN, 1.0, df, alternative)


def degenerate(ss: float, scale: float, count: int) -> bool:
    """True when a sum of squared spreads ``ss`` is zero up to rounding of values ~``scale``."""
    return ss <= count * (REL_TOL * scale) ** 2
