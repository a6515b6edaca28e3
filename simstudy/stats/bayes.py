"""The Bayesian correlated t test (Corani & Benavoli 2015; Benavoli et al. 2017): pure functions.

``d`` holds the design's differences of error rates, learner A minus learner B, one per fold
(all replications).  With n = R·F differences, mean d̄ and sample variance s² (ddof = 1), the
marginal posterior of the mean difference μ under the correlation heuristic ρ = n_test / n
(n = n_train + n_test, the sizes of a fold) is Student's t (Corani & Benavoli 2015, Machine
Learning 100:285-304; Benavoli, Corani, Demšar & Zaffalon 2017, JMLR 18(77))::

    μ | d ~ St(df = n - 1, location = d̄, scale² = (1/n + ρ / (1 - ρ)) s²)

A region of practical equivalence ``rope`` (in error rate; default 0.01) splits it into
P(left) = P(μ < -rope) (A's error lower: A better), P(rope) = P(-rope <= μ <= rope) and
P(right) = P(μ > rope) (A worse).  Benavoli et al. (2017) decide when one of them
exceeds 0.95: a declared difference (left or right) counts as a reject, P(rope) > 0.95
declares practical equivalence, otherwise the test stays undecided.

So that stored results decide as every other test does (``pvalue < alpha``), the result's
``pvalue`` is ``1 - max(P(left), P(right))`` (the three probabilities are the result's
``extra``, which the store keeps with the row): at alpha = 0.05 it rejects exactly when the
paper declares a difference (posterior probability of a side above 0.95); another alpha moves
the threshold to 1 - alpha.  With ``rope = 0`` the decision is a one-sided corrected t test
at alpha on each side (P(left) is the lower tail of the corrected resampled t of Nadeau &
Bengio), i.e. a two-sided one at 2 alpha.

A zero spread (every difference equal, up to rounding: see :mod:`.pairwise`) makes the
posterior a point mass at d̄ (the limit of the t as s -> 0, as baycomp computes it):
the probabilities are 0 or 1 and ``statistic`` is nan.  This departs from the "undefined
never rejects" rule of the frequentist tests on purpose: the posterior is defined in the
limit; identical mistakes (all d = 0) still land in the rope, never a reject.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from ..errors import SimstudyError
from ._common import REL_TOL, check_array
from ._result import TestResult

__all__ = [
    "DECISION_LEVEL",
    "ROPES",
    "BayesResult",
    "correlated_bayesian_ttest",
    "correlated_bayesian_ttest_batch",
    "decision_shares",
    "decisions",
]

#: Benavoli et al. (2017) decide when a posterior probability exceeds 0.95
DECISION_LEVEL = 0.95
#: rope widths a test spec may name (``bayes-correlated-t[rope=0.02]``), in error rate
ROPES = ("0.01", "0", "0.005", "0.02", "0.05")


@dataclass(frozen=True)
class BayesResult(TestResult):
    """A :class:`TestResult` with the three posterior probabilities of the correlated t.

    ``pvalue`` is ``1 - max(p_left, p_right)`` (see the module doc); ``extra`` is what the
    store keeps with the result row.
    """

    p_left: float = math.nan
    p_rope: float = math.nan
    p_right: float = math.nan
    rope: float = 0.01

    @property
    def extra(self) -> dict[str, float]:
        return {"p_left": self.p_left, "p_rope": self.p_rope, "p_right": self.p_right,
                "rope": self.rope}

    def decision(self, level: float = DECISION_LEVEL) -> str:
        """``'left'``, ``'right'`` (a declared difference), ``'rope'`` or ``'undecided'``."""
        return str(decisions(self.p_left, self.p_rope, self.p_right, level))


def _check_rope(rope: object) -> float:
    try:
        r = float(rope)  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise SimstudyError(f"rope must be a number >= 0 (error rate), got {rope!r}") from exc
    if not (math.isfinite(r) and r >= 0.0):
        raise SimstudyError(f"rope must be a number >= 0 (error rate), got {rope!r}")
    return r


def _rho(n_train: object, n_test: object, shape: tuple[int, ...]) -> np.ndarray:
    """ρ = n_test / (n_train + n_test), broadcast to ``shape`` (one per trial)."""
    try:
        a = np.asarray(n_train, dtype=np.float64)
        b = np.asarray(n_test, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise SimstudyError(f"n_train and n_test must be positive numbers, got {n_train!r}, "
                            f"{n_test!r}") from exc
    if not (np.isfinite(a).all() and np.isfinite(b).all() and (a > 0).all() and (b > 0).all()):
        raise SimstudyError(f"n_train and n_test must be positive numbers, got {n_train!r}, "
                            f"{n_test!r}")
    try:
        return np.broadcast_to(b / (a + b), shape)
    except ValueError:
        raise SimstudyError(f"n_train / n_test of shape {a.shape!r} / {b.shape!r} do not match "
                            f"{shape[0] if shape else 1} trial(s)") from None


def correlated_bayesian_ttest_batch(
    d: object, n_train: object, n_test: object, *, rope: float = 0.01
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Vectorised :func:`correlated_bayesian_ttest` over trials.

    ``d`` has shape (T, ...) (each trial's fold differences, flattened); ``n_train`` and
    ``n_test`` are scalars or (T,) arrays (each trial's mean fold sizes).  Returns
    ``(statistic, pvalue, p_left, p_rope, p_right)``, arrays of shape (T,).
    """
    a = np.asarray(d, dtype=np.float64)
    if a.ndim < 1 or a.shape[0] == 0:
        raise SimstudyError(f"d must have shape (trials, folds...), got shape {a.shape!r}")
    a = a.reshape(a.shape[0], -1)
    if a.shape[1] < 2:
        raise SimstudyError(f"d needs at least 2 differences per trial, got shape {a.shape!r}")
    if not np.isfinite(a).all():
        raise SimstudyError("d contains nan or inf")
    r = _check_rope(rope)
    T, n = a.shape
    rho = _rho(n_train, n_test, (T,))
    m = a.mean(axis=1)
    dev = a - m[:, None]
    ss = (dev * dev).sum(axis=1)
    scale_d = np.abs(a).max(axis=1)
    point = ss <= n * (REL_TOL * scale_d) ** 2
    var = np.where(point, 1.0, ss / (n - 1)) * (1.0 / n + rho / (1.0 - rho))
    s = np.sqrt(var)
    df = float(n - 1)
    # P(mu < -rope) and P(mu > rope): both as lower tails, no 1 - cdf cancellation
    p_left = special.stdtr(df, (-r - m) / s)
    p_right = special.stdtr(df, (m - r) / s)
    if r == 0.0:
        p_rope = np.zeros(T)
    else:
        p_rope = np.clip(1.0 - p_left - p_right, 0.0, 1.0)
    # point mass at the mean (zero spread): 0/1 probabilities
    p_left = np.where(point, (m < -r).astype(float), p_left)
    p_right = np.where(point, (m > r).astype(float), p_right)
    p_rope = np.where(point, 1.0 - p_left - p_right, p_rope)
    stat = np.where(point, np.nan, m / s)
    pvalue = 1.0 - np.maximum(p_left, p_right)
    return stat, pvalue, p_left, p_rope, p_right


def correlated_bayesian_ttest(
    d: object, *, n_train: float | np.ndarray, n_test: float | np.ndarray,
    rope: float = 0.01,
) -> BayesResult:
    """Bayesian correlated t test (Corani & Benavoli 2015; Benavoli et al. 2017).

    Posterior of the mean difference of error rates (A - B):
    ``St(n - 1, d̄, (1/n + ρ/(1 - ρ)) s²)`` with ρ = n_test / (n_train + n_test);
    probabilities left of, inside and right of ``[-rope, rope]``.

    Parameters
    ----------
    d : array
        Differences of error rates A - B, one per fold (any shape; flattened), n >= 2.
    n_train, n_test : float or array
        Training and test fold sizes (arrays: their means are used).
    rope : float
        Half-width of the region of practical equivalence, in error rate (default 0.01).

    Returns
    -------
    BayesResult
        ``statistic`` = d̄ / scale, ``pvalue`` = 1 - max(P(left), P(right)),
        ``df`` = n - 1, ``alternative`` = ``'two-sided'``, and ``p_left``, ``p_rope``,
        ``p_right``.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([[0.04, 0.05], [0.03, 0.06], [0.05, 0.04], [0.02, 0.05], [0.04, 0.03]])
    >>> r = correlated_bayesian_ttest(d, n_train=100, n_test=100)  # 5x2 cv: rho = 1/2
    >>> round(r.p_right, 4), r.decision()
    (0.9822, 'right')
    >>> r.reject(0.05)  # a declared difference is a reject
    True
    """
    a = check_array(d, "d", min_size=2)
    n1 = float(np.mean(np.asarray(n_train, dtype=np.float64)))
    n2 = float(np.mean(np.asarray(n_test, dtype=np.float64)))
    r = _check_rope(rope)
    stat, p, pl, pr0, pr = correlated_bayesian_ttest_batch(a.reshape(1, -1), n1, n2, rope=r)
    return BayesResult(float(stat[0]), float(p[0]), float(a.size - 1), "two-sided",
                       float(pl[0]), float(pr0[0]), float(pr[0]), r)


def decisions(p_left: object, p_rope: object, p_right: object,
              level: float = DECISION_LEVEL) -> np.ndarray:
    """Decision per trial: ``'left'``/``'right'`` when P(side) > level (a declared difference),
    ``'rope'`` when P(rope) > level (practical equivalence), else ``'undecided'``.

    Examples
    --------
    >>> decisions([0.97, 0.01, 0.2], [0.02, 0.98, 0.5], [0.01, 0.01, 0.3]).tolist()
    ['left', 'rope', 'undecided']
    """
    pl, p0, pr = (np.asarray(x, dtype=np.float64) for x in (p_left, p_rope, p_right))
    out = np.full(np.broadcast(pl, p0, pr).shape, "undecided", dtype=object)
    out[p0 > level] = "rope"
    out[pl > level] = "left"
    out[pr > level] = "right"
    return out


def decision_shares(p_left: object, p_rope: object, p_right: object,
                    level: float = DECISION_LEVEL) -> dict[str, float]:
    """Shares of trials that declare a difference, declare equivalence, or stay undecided.

    Returns ``{"difference", "left", "right", "equivalence", "undecided", "trials"}``
    (shares of the trials, ``trials`` their number; NaN probabilities count as undecided).

    Examples
    --------
    >>> s = decision_shares([0.97, 0.01, 0.2, 0.0], [0.02, 0.98, 0.5, 0.0], [0.01, 0.01, 0.3, 1.0])
    >>> s["difference"], s["equivalence"], s["undecided"]
    (0.5, 0.25, 0.25)
    """
    dec = decisions(p_left, p_rope, p_right, level).ravel()
    n = dec.size
    if n == 0:
        nan = float("nan")
        return {"difference": nan, "left": nan, "right": nan, "equivalence": nan,
                "undecided": nan, "trials": 0}
    left = float(np.count_nonzero(dec == "left")) / n
    right = float(np.count_nonzero(dec == "right")) / n
    return {"difference": left + right, "left": left, "right": right,
            "equivalence": float(np.count_nonzero(dec == "rope")) / n,
            "undecided": float(np.count_nonzero(dec == "undecided")) / n, "trials": n}
