"""Shared parts of the batched fast paths (:mod:`.baseline`, :mod:`.linear`,
:mod:`.neighbours`, :mod:`.bayes`): input checks, class sums, the per-fold argmax kernel and
:class:`FastLearner`.

Every fast path fits ``B`` models (one per training mask) at once and predicts exactly
what its scikit-learn reference (:meth:`reference_estimator`, wrapped by
:class:`~simstudy.learners.reference.SklearnLearner` with the same preprocessing) predicts,
up to floating-point rounding: the statistics are the same, but computed with masked sums
instead of per-fold arrays.  A prediction can only differ where two candidates (classes,
or training instances for 1-NN) score equal to ~1e-12 relative; exact ties are broken as
the reference breaks them (lowest class code; lowest training index for 1-NN).  The tests
check equality on random masks.

None of these learners is random: ``seeds`` is accepted and ignored.

Preprocessing follows the reference: for NMC and 1-NN the inputs are imputed and
standardised per training fold (:mod:`.preprocess`).  Yıldız & Alpaydın (2006) say only
"Euclidean distance"; their reported error rates match standardised inputs and not raw ones
(iris NMC 13.6 % / 1-NN 6.5 %, wine 3.4 % / 5.4 % in their Table 1; on 100 random halves we
measured raw 8.4 / 4.9 and 27.6 / 28.8 %, standardised 13.9 / 6.6 and 3.5 / 5.5 %).
``scale="none"`` gives raw Euclidean distances (imputation only).

Where the cost goes (optdigits, n = 5620, d = 64, 100 folds): no learner builds a
standardised copy of all the data for every fold any more.  NMC and NB score all folds and
classes with one ``(n, ·) @ (·, B·C)`` product from the raw (globally centred) data, the
standardisation folded into per-fold weights; class sums are one product per class over
that class's rows; LDA and LS form one Gram matrix per fold from its training rows only;
1-NN proves most nearest neighbours from candidate lists computed once per batch.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable

import numba
import numpy as np

from ..errors import SimstudyError, unknown
from .base import Learner
from .preprocess import chunk_size

_SCALES = ("standard", "none")
_EPS = float(np.finfo(np.float64).eps)


def _one_blas_thread(fit_predict: Callable) -> Callable:
    """Run large problems with single-threaded BLAS.

    Batched (stacked) products with a multi-threaded OpenBLAS were measured 30x slower on
    a busy 2-core machine (threads spin against each other and against other processes),
    and the runner already runs one process per core.  Small problems skip the (about
    1 ms) thread-pool switch, which would cost more than the work.
    """

    @functools.wraps(fit_predict)
    def wrapper(self, X, y, train, test, seeds=()):
        big = np.shape(X)[0] * max(np.ndim(X) > 1 and np.shape(X)[1], 1) >= 20_000
        ctx = contextlib.nullcontext()
        if big:
            from ..blas import one_thread

            ctx = one_thread()
        with ctx:
            return fit_predict(self, X, y, train, test, seeds)

    return wrapper


def _check(X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray):
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    train = np.asarray(train, dtype=bool)
    test = np.asarray(test, dtype=bool)
    if train.ndim != 2 or train.shape != test.shape or train.shape[1] != X.shape[0]:
        raise SimstudyError(
            f"masks must be (B, n) with n = {X.shape[0]}; got train {train.shape}, "
            f"test {test.shape}"
        )
    return X, y, train, test


def _n_classes(y: np.ndarray) -> int:
    return int(y.max()) + 1 if y.size else 1


def _single_class_fix(pred: np.ndarray, counts: np.ndarray, test: np.ndarray) -> np.ndarray:
    """A fold with one training class predicts it (as the reference path does)."""
    one = (counts > 0).sum(axis=1) == 1
    if one.any():
        c = np.argmax(counts[one], axis=1)
        pred[one] = np.where(test[one], c[:, None], -1)
    return pred


def _centred(X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """``(Xc, centre, miss)``: ``X`` less its global column mean (over observed values),
    missing entries 0; ``miss`` the 0/1 missing indicator, ``None`` without missing values.
    Centring keeps expanded squares (``Σ x² - 2 x·μ + ...``) free of cancellation when a
    column's mean is large against its spread."""
    ok = ~np.isnan(X)
    centre = np.where(ok, X, 0.0).sum(axis=0) / np.maximum(ok.sum(axis=0), 1)
    Xc = np.where(ok, X - centre, 0.0)
    return Xc, centre, (None if ok.all() else (~ok).astype(np.float64))


def _class_groups(T: np.ndarray, y: np.ndarray, C: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per class ``c``: (its row indices, ``T[:, rows]``)."""
    out = []
    for c in range(C):
        rows = np.flatnonzero(y == c)
        out.append((rows, T[:, rows]))
    return out


def _class_sums(groups: list[tuple[np.ndarray, np.ndarray]], M: np.ndarray | None) -> np.ndarray:
    """(B, C, k): ``Σ_i T[b, i]·[y_i = c]·M[i]``, one ``(B, n_c) @ (n_c, k)`` product per
    class -- work ``B·n·k``, where one-hot class masks would cost ``B·C·n·k``.  ``M=None``
    gives the counts (``k = 1``)."""
    B = groups[0][1].shape[0]
    k = 1 if M is None else M.shape[1]
    out = np.zeros((B, len(groups), k))
    for c, (rows, Tc) in enumerate(groups):
        if len(rows):
            out[:, c, :] = Tc.sum(axis=1, keepdims=True) if M is None else Tc @ M[rows]
    return out


@numba.njit(cache=True)
def _group_argmax(S, a, off, test, out):  # pragma: no cover - compiled
    """``out[b, i] = argmax_c (a·S[i, b·C + c] + off[b, c])`` (first on ties) on test rows,
    -1 elsewhere: the per-fold class decision from one ``(n, B·C)`` score product, without
    forming the scaled scores.  ``off = -inf`` marks a class absent from the fold."""
    n = S.shape[0]
    B, C = off.shape
    for i in range(n):  # row-major over S: contiguous reads
        for b in range(B):
            if not test[b, i]:
                out[b, i] = -1
                continue
            base = b * C
            best = a * S[i, base] + off[b, 0]
            arg = 0
            for c in range(1, C):
                v = a * S[i, base + c] + off[b, c]
                if v > best:
                    best = v
                    arg = c
            out[b, i] = arg


def _std_rows(X: np.ndarray, rows: np.ndarray, mean: np.ndarray, scale: np.ndarray, complete: bool) -> np.ndarray:
    """``apply_one(X[rows], mean, scale)`` (same values) working in place on the gathered
    copy; the nan test is skipped for data without missing values."""
    Z = X[rows]
    if not complete:
        np.copyto(Z, np.broadcast_to(mean, Z.shape), where=np.isnan(Z))
    Z -= mean
    Z /= scale
    return Z


def _argmax_present(F: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Row-wise argmax of ``F`` (m, C) over the present classes, first on ties."""
    return np.argmax(np.where(present[None, :], F, -np.inf), axis=1)


class FastLearner(Learner):
    """Common parts: ``scale`` option and the memory budget per chunk of models."""

    #: bytes of temporary arrays allowed per chunk of models
    memory_budget: float = 256e6

    def _scale(self, scale: str) -> str:
        if scale not in _SCALES:
            raise unknown(f"scale for {self.name}", scale, _SCALES)
        return scale

    def _chunks(self, B: int, per_model: float, cap: float = np.inf):
        step = chunk_size(per_model, min(self.memory_budget, cap))
        for s in range(0, B, step):
            yield slice(s, min(B, s + step))
