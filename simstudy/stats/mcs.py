"""The model confidence set (Hansen, Lunde & Nason 2011) on fold losses: pure functions.

``losses`` is (T, K): T observations (the folds of a trial, R·F of them) of K models'
losses (fold error rates).  The MCS at level alpha is the set of models that survive
sequential elimination: while the equal-predictive-ability hypothesis H0,M is rejected at
alpha, eliminate the worst model.  HLN's T_R and T_max with their bootstrap
(Econometrica 79(2):453-497):

* ``method='R'``: T_R = max_{i,j in M} |t_ij|, t_ij = d̄_ij / sqrt(var*(d̄_ij)),
  d̄_ij = L̄_i - L̄_j; eliminate e_R = argmax_i max_j t_ij;
* ``method='max'``: T_max = max_{i in M} t_i., t_i. = d̄_i. / sqrt(var*(d̄_i.)),
  d̄_i. = L̄_i - mean_{j in M} L̄_j; eliminate e_max = argmax_i t_i.;

variances from B bootstrap resamples of the observations (the same resamples at every
step), p-value of H0,M = share of resamples with T* >= T (T* from the resample means
recentred on the sample means, see below), and a model's MCS p-value the largest p-value of the
steps up to its elimination; the last model's is 1.  The MCS = the models whose MCS
p-value exceeds alpha.  A resample's statistic equal to the observed one counts as at least
as extreme (T* >= T; arch counts T* > T): the two differ only on ties, which continuous
losses never have but fold error rates do, and with T* > T two identical models would
reject their equal ability (p = 0) and eliminate one of two equals.

Resampling unit: HLN bootstrap time series in blocks; fold losses are not a time series.
The folds of one replication share the data (they partition it), so by default whole
replications are resampled (``block='replication'``: R of them with replacement, each
bringing its F folds); a design of one replication resamples its folds.  ``indices``
overrides this with any (B, T) resample indices (e.g. arch's, to compare with it).

Degenerate spreads (identical losses of two models in every resample): t = 0 when the
mean difference is 0 too, else ±inf (a model worse in every resample).  Ties of the
elimination statistic eliminate one model, the first in index order (HLN eliminate one
model per step).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import SimstudyError
from ..params import ALPHA, check

__all__ = ["MCSResult", "content_seed", "mcs_choice", "mcs_choice_batch", "mcs_indices",
           "mcs_pvalues", "model_confidence_set"]

METHODS = ("R", "max")
BLOCKS = ("replication", "fold")


@dataclass(frozen=True)
class MCSResult:
    """A model confidence set.

    Attributes
    ----------
    included : tuple of int
        The models in the set (MCS p-value > alpha), in index order.
    pvalues : tuple of float
        Each model's MCS p-value (by model index).
    eliminated : tuple of int
        All models in elimination order (the survivor last).
    alpha : float
    method : str
    """

    included: tuple[int, ...]
    pvalues: tuple[float, ...]
    eliminated: tuple[int, ...]
    alpha: float
    method: str


def _check_method(method: object) -> str:
    if method not in METHODS:
        from ..errors import unknown

        raise unknown("MCS method", method, METHODS)
    return str(method)


def mcs_indices(R: int, F: int, reps: int, rng: np.random.Generator,
                block: str = "replication") -> np.ndarray:
    """(reps, R·F) bootstrap indices into observations ordered replication-major.

    ``block='replication'`` (R >= 2): R replications drawn with replacement, each bringing
    its F folds; ``'fold'`` or R = 1: the R·F folds drawn with replacement.
    """
    if block not in BLOCKS:
        from ..errors import unknown

        raise unknown("MCS block", block, BLOCKS)
    T = R * F
    if block == "fold" or R < 2:
        return rng.integers(0, T, size=(reps, T))
    reps_idx = rng.integers(0, R, size=(reps, R))
    return (reps_idx[:, :, None] * F + np.arange(F)[None, None, :]).reshape(reps, T)


def _std(d: np.ndarray, var: np.ndarray) -> np.ndarray:
    """d / sqrt(var) with 0/0 = 0 and c/0 = ±inf."""
    zero = var <= 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out = d / np.sqrt(np.where(zero, 1.0, var))
    return np.where(zero, np.where(d > 0, np.inf, np.where(d < 0, -np.inf, 0.0)), out)


def mcs_pvalues(losses: object, indices: object, *, method: str = "R"
                ) -> tuple[np.ndarray, np.ndarray]:
    """MCS p-values and elimination order, vectorised over trials.

    ``losses`` (N, T, K); ``indices`` (N, B, T) or (B, T) (shared) integer resample
    indices.  Returns ``(pvalues (N, K), order (N, K))``: each model's MCS p-value, and the
    models in elimination order (survivor last).
    """
    L = np.asarray(losses, dtype=np.float64)
    if L.ndim != 3 or L.shape[2] < 2 or L.shape[1] < 1:
        raise SimstudyError(f"losses must have shape (trials, T, K >= 2), got shape {L.shape!r}")
    if not np.isfinite(L).all():
        raise SimstudyError("losses contain nan or inf")
    method = _check_method(method)
    N, T, K = L.shape
    idx = np.asarray(indices)
    if idx.ndim == 2:
        idx = np.broadcast_to(idx, (N, *idx.shape))
    if idx.ndim != 3 or idx.shape[0] != N or idx.shape[2] != T:
        raise SimstudyError(f"indices must have shape (B, {T}) or ({N}, B, {T}), got "
                            f"shape {np.shape(indices)!r}")
    if idx.dtype.kind not in "iu" or idx.min() < 0 or idx.max() >= T:
        raise SimstudyError(f"indices must be integers in 0..{T - 1}")
    B = idx.shape[1]
    mean = L.mean(axis=1)                                            # (N, K)
    rows = np.arange(N)[:, None, None]
    boot = L[rows, idx].mean(axis=2)                                 # (N, B, K)
    zeta = boot - mean[:, None, :]                                   # recentred
    alive = np.ones((N, K), dtype=bool)
    pvals = np.ones((N, K))
    order = np.empty((N, K), dtype=np.int64)
    running = np.zeros(N)
    ar = np.arange(N)
    if method == "R":
        dbar = mean[:, :, None] - mean[:, None, :]                   # (N, K, K)
        zd = zeta[:, :, :, None] - zeta[:, :, None, :]               # (N, B, K, K)
        var = (zd * zd).mean(axis=1)
        t = _std(dbar, var)
        ts = _std(zd, var[:, None])
        for step in range(K - 1):
            pair = alive[:, :, None] & alive[:, None, :]
            tm = np.where(pair, t, -np.inf)
            stat = tm.reshape(N, -1).max(axis=1)
            sim = np.where(pair[:, None], ts, -np.inf).reshape(N, B, -1).max(axis=2)
            p = (sim >= stat[:, None]).mean(axis=1)
            # the first model (index order) whose row holds the maximum
            rowmax = tm.max(axis=2)
            out = np.argmax(np.where(alive, rowmax == stat[:, None], False), axis=1)
            running = np.maximum(running, p)
            pvals[ar, out] = running
            order[:, step] = out
            alive[ar, out] = False
    else:
        for step in range(K - 1):
            na = alive.sum(axis=1, keepdims=True)
            mbar = np.where(alive, mean, 0.0).sum(axis=1, keepdims=True) / na
            d = mean - mbar
            zc = zeta - (np.where(alive[:, None], zeta, 0.0).sum(axis=2, keepdims=True)
                         / na[:, None])
            var = (zc * zc).mean(axis=1)
            t = np.where(alive, _std(d, var), -np.inf)
            ts = np.where(alive[:, None], _std(zc, var[:, None]), -np.inf)
            stat = t.max(axis=1)
            p = (ts.max(axis=2) >= stat[:, None]).mean(axis=1)
            out = np.argmax(t == stat[:, None], axis=1)
            running = np.maximum(running, p)
            pvals[ar, out] = running
            order[:, step] = out
            alive[ar, out] = False
    order[:, K - 1] = np.argmax(alive, axis=1)
    pvals[ar, order[:, K - 1]] = 1.0
    return pvals, order


def model_confidence_set(losses: object, *, alpha: float = 0.05, method: str = "R",
                         reps: int = 1000, shape: tuple[int, int] | None = None,
                         block: str = "replication", indices: object = None,
                         seed: object = None) -> MCSResult:
    """The model confidence set of Hansen, Lunde & Nason (2011, Econometrica 79(2)).

    Parameters
    ----------
    losses : array (T, K)
        Losses of K models on T observations (e.g. a trial's R·F fold error rates,
        replication-major).
    alpha : float
        The MCS level: models with MCS p-value > alpha stay.
    method : {'R', 'max'}
        HLN's T_R (range) or T_max statistic and elimination rule.
    reps : int
        Bootstrap resamples B (HLN and arch: 1000).
    shape : (R, F) or None
        Replications x folds of the T observations, for ``block='replication'``; None: one
        replication (folds resampled).
    block : {'replication', 'fold'}
        Resampling unit (module doc).
    indices : int array (B, T), optional
        Resample indices to use instead of drawing them.
    seed : int, SeedSequence, Generator or None
        For the resample indices.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> L = rng.normal([0.10, 0.105, 0.20], 0.02, size=(10, 3))  # model 2 is far worse
    >>> r = model_confidence_set(L, shape=(5, 2), seed=1)
    >>> r.included, r.eliminated[0]
    ((0, 1), 2)
    """
    a = np.asarray(losses, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] < 2 or a.shape[0] < 2:
        raise SimstudyError(f"losses must have shape (T >= 2, K >= 2), got shape {a.shape!r}")
    alpha = check("alpha", alpha, ALPHA)
    method = _check_method(method)
    T, K = a.shape
    if indices is None:
        if isinstance(reps, bool) or not isinstance(reps, (int, np.integer)) or reps < 1:
            raise SimstudyError(f"reps must be a positive integer, got {reps!r}")
        R, F = (1, T) if shape is None else (int(shape[0]), int(shape[1]))
        if R * F != T:
            raise SimstudyError(f"shape {shape!r} does not hold the {T} observations")
        idx = mcs_indices(R, F, int(reps), np.random.default_rng(seed), block)
    else:
        idx = np.asarray(indices)
    p, order = mcs_pvalues(a[None], idx[None] if idx.ndim == 2 else idx, method=method)
    inc = tuple(int(i) for i in range(K) if p[0, i] > alpha)
    return MCSResult(inc, tuple(float(x) for x in p[0]), tuple(int(i) for i in order[0]),
                     alpha, method)


def content_seed(errors: np.ndarray) -> np.random.SeedSequence:
    """A seed that is a function of the trial's fold errors: the same stored errors always
    give the same set (a choice method sees the errors, not the trial's seed)."""
    words = np.frombuffer(np.ascontiguousarray(errors, dtype=np.float64).tobytes(),
                          dtype=np.uint32)
    return np.random.SeedSequence([0x4D4353, *words.tolist()])  # "MCS"


def mcs_choice(errors: object, alpha: float = 0.05, *, method: str = "R",
               reps: int = 1000) -> tuple[int | None, tuple[int, ...] | None]:
    """The MCS as a best-of-K chooser (beside MultiTest, ANOVA, Newman-Keuls, TestFirst).

    ``errors`` is a trial's (K, R, F) fold error rates, learners in decreasing prior
    preference (:mod:`.choice`).  The MCS at ``alpha`` (replications resampled, B = ``reps``,
    seeded by the errors themselves) holds the learners not shown worse; ``best`` is the
    most preferred learner in it (as ANOVA picks the simplest when it cannot separate
    them; the only one when the set has one member), ``order`` the set in preference
    order followed by the eliminated learners, last eliminated first.

    Examples
    --------
    >>> import numpy as np
    >>> e = np.stack([np.full((5, 2), 0.30), np.full((5, 2), 0.10), np.full((5, 2), 0.11)])
    >>> e = e + np.random.default_rng(3).normal(0, 0.01, e.shape)
    >>> mcs_choice(e)
    (1, (1, 2, 0))
    """
    a = np.asarray(errors, dtype=np.float64)
    if a.ndim != 3 or a.shape[0] < 2 or a.shape[1] * a.shape[2] < 2:
        raise SimstudyError(f"errors must have shape (K >= 2, R, F) with R*F >= 2, got shape "
                            f"{a.shape!r}")
    if not np.isfinite(a).all():
        raise SimstudyError(f"errors must be finite, got {a!r}")
    K, R, F = a.shape
    r = model_confidence_set(a.reshape(K, R * F).T, alpha=alpha, method=method, reps=reps,
                             shape=(R, F), seed=content_seed(a))
    out = [i for i in reversed(r.eliminated) if i not in r.included]
    return r.included[0], tuple(r.included) + tuple(out)


def mcs_choice_batch(errors: np.ndarray, alpha: float = 0.05, *, method: str = "R",
                     reps: int = 1000, chunk: int = 256) -> np.ndarray:
    """:func:`mcs_choice`'s ``best`` on each of T trials, ``errors`` (T, K, R, F): the
    chosen learner per trial (T,), as it chooses on each trial alone (each trial's
    resamples drawn from its own errors), ``chunk`` trials per array call.

    Examples
    --------
    >>> e = np.stack([np.full((5, 2), 0.30), np.full((5, 2), 0.10), np.full((5, 2), 0.11)])
    >>> e = e + np.random.default_rng(3).normal(0, 0.01, e.shape)
    >>> mcs_choice_batch(e[None]).tolist()
    [1]
    """
    E = np.asarray(errors, dtype=np.float64)
    T, K, R, F = E.shape
    losses = E.reshape(T, K, R * F).transpose(0, 2, 1)
    best = np.empty(T, dtype=np.int64)
    for s in range(0, T, chunk):
        e = min(T, s + chunk)
        idx = np.stack([mcs_indices(R, F, reps, np.random.default_rng(content_seed(E[t])))
                        for t in range(s, e)])
        p, _ = mcs_pvalues(losses[s:e], idx, method=method)
        best[s:e] = np.argmax(p > alpha, axis=1)  # the most preferred member of the set
    return best
