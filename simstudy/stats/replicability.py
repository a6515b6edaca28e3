"""Replicability of a test's outcome across re-randomisations (Bouckaert & Frank 2004, §2).

A test is run n times on the same data set with different random partitions.  With k the
number of times it rejects (or, equivalently by symmetry, accepts):

* *consistent*: all n outcomes equal (k = 0 or k = n);
* *almost consistent*: at most one outcome differs (k <= 1 or k >= n - 1; includes the
  consistent ones, as the paper's Table 1 counts "0s, 1s, 9s and 10s");
* ``R(k, n) = (C(k,2) + C(n-k,2)) / C(n,2)``, the estimated probability that two runs agree,
  and over m data sets ``R = sum_k (i_k / m) R(k, n)`` = the mean of R(k_d, n) over data sets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SimstudyError

__all__ = ["ConsistencyResult", "consistency", "consistency_from_counts", "replicability"]


def replicability(k: int | np.ndarray, n: int) -> float | np.ndarray:
    """R(k, n) = (k(k-1) + (n-k)(n-k-1)) / (n(n-1)) (Bouckaert & Frank 2004, §2).

    The probability that two of the n runs agree, estimated from pairs of runs, when k of
    them reject.  Note: the paper says this probability "is never worse than 0.5", true for
    its population value p^2 + (1-p)^2, but not for this finite-n pair-count estimator:
    R(5, 10) = 40/90 = 0.444 (pairs are drawn without replacement).  ``k`` may be an array.
    """
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 2:
        raise SimstudyError(f"n must be an integer >= 2, got {n!r}")
    ka = np.asarray(k)
    if not np.issubdtype(ka.dtype, np.integer) or ka.dtype == np.bool_:
        raise SimstudyError(f"k must be an integer (or integer array), got {k!r}")
    if ((ka < 0) | (ka > n)).any():
        raise SimstudyError(f"k must lie in 0..n={n}, got {k!r}")
    kf = ka.astype(np.float64)
    r = (kf * (kf - 1.0) + (n - kf) * (n - kf - 1.0)) / (n * (n - 1.0))
    return float(r) if r.ndim == 0 else r


@dataclass(frozen=True)
class ConsistencyResult:
    """Replicability summary over data sets (Bouckaert & Frank 2004, §2 and Table 1).

    consistent, almost_consistent : number of data sets (not fractions).
    R : mean over data sets of R(k_d, n).
    counts : k_d, the number of rejections (outcome 1) per data set.
    n_repetitions : n.
    """

    consistent: int
    almost_consistent: int
    R: float
    counts: tuple[int, ...]
    n_repetitions: int

    @property
    def n_datasets(self) -> int:
        return len(self.counts)


def consistency(outcomes: object) -> ConsistencyResult:
    """Consistency, almost consistency and R from a (data sets x repetitions) 0/1 array.

    ``outcomes[d, r]`` is 1 when the test rejected on data set d in repetition r.  A 1-d
    array is one data set.
    """
    o = np.asarray(outcomes)
    if o.ndim == 1:
        o = o[None, :]
    if o.ndim != 2 or o.shape[0] < 1 or o.shape[1] < 2:
        raise SimstudyError(
            f"outcomes must be a (data sets, repetitions >= 2) 0/1 array, got shape {o.shape!r}"
        )
    if o.dtype != np.bool_:
        if not np.issubdtype(o.dtype, np.number) or not ((o == 0) | (o == 1)).all():
            raise SimstudyError("outcomes must contain only 0 and 1 (or booleans)")
    counts = np.count_nonzero(o, axis=1)
    return consistency_from_counts(counts, int(o.shape[1]))


def consistency_from_counts(counts: object, n: int) -> ConsistencyResult:
    """Same as :func:`consistency` from per-data-set counts k_d out of n repetitions.

    Counts of acceptances work as well as counts of rejections (all three measures are
    symmetric in k <-> n - k), e.g. Bouckaert & Frank's Table 1 "number of draws".
    """
    c = np.asarray(counts)
    if c.ndim != 1 or c.size == 0:
        raise SimstudyError(f"counts must be a non-empty 1-d integer array, got {counts!r}")
    r = replicability(c, n)
    minority = np.minimum(c, n - c)
    return ConsistencyResult(
        consistent=int(np.count_nonzero(minority == 0)),
        almost_consistent=int(np.count_nonzero(minority <= 1)),
        R=float(np.mean(r)),
        counts=tuple(int(x) for x in c),
        n_repetitions=int(n),
    )
