"""Batched fast paths: a whole batch of models fitted as matrix work.

Every learner here fits ``B`` models (one per training mask) at once and predicts exactly
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
from collections.abc import Callable, Sequence
from typing import Any

import numba
import numpy as np

from ..errors import SimstudyError, unknown
from .base import Learner
from .preprocess import apply_stats, chunk_size, fold_stats
from .registry import register_learner

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
            from threadpoolctl import threadpool_limits

            ctx = threadpool_limits(limits=1, user_api="blas")
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


@register_learner("max", description="majority class of the training fold (Yıldız & Alpaydın 2006)")
class FastMax(FastLearner):
    """MAX (Yıldız & Alpaydın 2006 §4.1): every test instance gets the training fold's most
    frequent class.  Ties between equally frequent classes go to the lowest class code, as
    ``DummyClassifier(strategy="most_frequent")`` (argmax of its class priors).  All folds'
    class counts come from one matrix product."""

    name = "max"
    preprocess = "impute"

    def reference_estimator(self) -> Any:
        from sklearn.dummy import DummyClassifier

        return DummyClassifier(strategy="most_frequent")

    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        X, y, train, test = _check(X, y, train, test)
        C = _n_classes(y)
        counts = train.astype(np.float64) @ np.eye(C)[y]
        cls = np.argmax(counts, axis=1)
        return np.where(test, cls[:, None], -1).astype(np.int64)


@register_learner("nmc", description="nearest mean classifier, standardised inputs (Yıldız & Alpaydın 2006)")
class FastNMC(FastLearner):
    """NMC, the nearest mean classifier (Yıldız & Alpaydın 2006 §4.1): one mean vector per
    class, Euclidean distance.  Inputs imputed and standardised per training fold
    (``scale="standard"``, see the module note) or only imputed (``scale="none"``).  Ties go
    to the lowest class code, as ``NearestCentroid`` (whose ``pairwise_distances_argmin``
    keeps the first minimum).

    No standardised copy of the data is made.  With ``z = (x - m_b)/s_b`` and class means
    ``μ`` of the imputed raw training rows, ``||z_i - μ'_c||² = Σ_j w_bj (x_ij - μ_cj)²``
    with ``w_b = 1/s_b²``; dropping ``Σ_j w_bj x_ij²`` (the same for every class) leaves the
    score ``2 Σ_j x_ij w_bj μ_cj - Σ_j w_bj μ_cj²``, whose first term for all folds and
    classes is one ``(n, d) @ (d, B·C)`` product (plus one for missing entries, which are
    imputed with the fold mean).  The data are centred on the global column mean first so
    that the expansion keeps its precision; what remains is relative to a column's global
    range rather than its spread in the fold (about ``eps·range/sd``), so class scores
    that agree to ~1e-12 may be ordered differently from the reference.
    """

    name = "nmc"

    def __init__(self, scale: str = "standard") -> None:
        self.scale = self._scale(scale)
        self.preprocess = "standardize" if scale == "standard" else "impute"
        if scale != "standard":
            self.name = f"nmc[scale={scale}]"

    def reference_estimator(self) -> Any:
        from sklearn.neighbors import NearestCentroid

        return NearestCentroid()

    @_one_blas_thread
    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        X, y, train, test = _check(X, y, train, test)
        B, n = train.shape
        d = X.shape[1]
        C = _n_classes(y)
        Xc, centre, miss = _centred(X)
        out = np.empty((B, n), dtype=np.int64)
        for sl in self._chunks(B, 8.0 * (3 * n * C + 2 * n + 4 * C * d)):
            tr = train[sl]
            c = tr.shape[0]
            groups = _class_groups(tr.astype(np.float64), y, C)
            mean, scale = fold_stats(X, tr, standardize=self.scale == "standard")
            fill = mean - centre  # a missing entry's imputed value, centred
            n_c = _class_sums(groups, None)[:, :, 0]  # (c, C)
            S = _class_sums(groups, Xc)  # (c, C, d)
            if miss is not None:
                S += _class_sums(groups, miss) * fill[:, None, :]
            mu = S / np.maximum(n_c, 1.0)[:, :, None]
            w = 1.0 / (scale * scale)
            U = w[:, None, :] * mu  # (c, C, d)
            q = np.einsum("bcd,bcd->bc", U, mu)
            cross = Xc @ U.reshape(c * C, d).T  # (n, c·C)
            if miss is not None:
                cross += miss @ (U * fill[:, None, :]).reshape(c * C, d).T
            pred = np.empty((c, n), dtype=np.int64)
            _group_argmax(cross, 2.0, np.where(n_c > 0, -q, -np.inf), test[sl], pred)
            out[sl] = _single_class_fix(pred, n_c, test[sl])
        return out


# ---------------------------------------------------------------------------- 1-NN kernels
# Every kernel returns, per test row, the training row with the smallest
#     D(i, k) = fl(Σ_j (Z_ij - Z_kj)²), summed in column order by _sqd,
# the lowest index among exact ties.  Identical (or mirror-image) training rows then tie
# exactly, whichever kernel runs; the fast kernels only skip rows they can prove are not
# the minimum, and recompute every candidate with _sqd.


@numba.njit(cache=True, inline="always")
def _sqd(Z, i, k):  # pragma: no cover - compiled
    s = 0.0
    for j in range(Z.shape[1]):
        t = Z[i, j] - Z[k, j]
        s += t * t
    return s


@numba.njit(cache=True, fastmath={"nnan"})
def _min(a):  # pragma: no cover - compiled
    # the order of a min reduction does not matter, so it may be vectorised ("nnan": the
    # distances are never nan)
    m = np.inf
    for t in range(a.shape[0]):
        m = min(m, a[t])
    return m


@numba.njit(cache=True)
def _nn1_brute(Z, tr, te, out):  # pragma: no cover - compiled
    """Z (n, d) of one fold, tr/te ascending row indices; out[te[r]] = nearest row.
    The training rows are transposed so that the inner loop runs over them (SIMD lanes);
    each distance is still summed over j in order, exactly as :func:`_sqd` does."""
    d = Z.shape[1]
    p = tr.shape[0]
    Zt = np.empty((d, p))
    for t in range(p):
        for j in range(d):
            Zt[j, t] = Z[tr[t], j]
    acc = np.zeros(p)
    for r in range(te.shape[0]):
        i = te[r]
        acc[:] = 0.0
        for j in range(d):
            zi = Z[i, j]
            for t in range(p):
                u = zi - Zt[j, t]
                acc[t] += u * u
        best = _min(acc)
        out[i] = -1
        for t in range(p):  # ascending rows: the first minimum is the lowest index
            if acc[t] == best:
                out[i] = tr[t]
                break


@numba.njit(cache=True)
def _nn1_brute_all(Z, train, test, out):  # pragma: no cover - compiled
    """:func:`_nn1_brute` for a chunk of folds: ``Z`` (c, n, d), masks (c, n)."""
    for b in range(Z.shape[0]):
        _nn1_brute(Z[b], np.flatnonzero(train[b]), np.flatnonzero(test[b]), out[b])


@numba.njit(cache=True)
def _nn1_screened(G, nt, nq, tol, Z, q, tr, out):  # pragma: no cover - compiled
    """Rows ``q`` of one fold from ``G = Z[q] @ Z[tr].T``: the approximate distance
    ``nt_k - 2 G_rk`` (``nq`` dropped: same for the whole row) is within ``tol[r]/2`` of
    ``D - nq``, so only training rows within ``tol[r]`` of the row's approximate minimum
    can be the minimum of D; those are recomputed exactly."""
    m, p = G.shape
    for r in range(m):
        amin = np.inf
        for k in range(p):
            a = nt[k] - 2.0 * G[r, k]
            if a < amin:
                amin = a
        cut = amin + tol[r]
        i = q[r]
        best = np.inf
        arg = -1
        for k in range(p):
            if nt[k] - 2.0 * G[r, k] <= cut:
                s = _sqd(Z, i, tr[k])
                if s < best:
                    best = s
                    arg = tr[k]
        out[i] = arg


@numba.njit(cache=True)
def _nn1_listed(Z, is_tr, te, lists, lb, rho, nz, nzmax, margin, out, left):  # pragma: no cover
    """Rows ``te`` of one fold from candidate lists: the nearest listed training row is the
    nearest of all when the lower bound ``rho·lb[i]`` on every unlisted row's distance
    (less rounding margins) exceeds it; other rows are appended to ``left``.  Returns how
    many were left."""
    nl = 0
    L = lists.shape[1]
    for r in range(te.shape[0]):
        i = te[r]
        best = np.inf
        arg = -1
        if is_tr[i]:  # a row in both masks: itself (lists leave it out)
            best = _sqd(Z, i, i)
            arg = i
        for t in range(L):
            k = lists[i, t]
            if k < 0 or not is_tr[k]:
                continue
            s = _sqd(Z, i, k)
            if s < best or (s == best and k < arg):
                best = s
                arg = k
        bound = rho * lb[i] * (1.0 - 1e-9) - margin * (nz[i] + nzmax)
        if arg >= 0 and bound > best:
            out[i] = arg
        else:
            left[nl] = i
            nl += 1
    return nl


@numba.njit(cache=True)
def _topl_block(G, ny_blk, ny, start, out_idx, out_lb):  # pragma: no cover - compiled
    """For rows ``start + r`` (``G = Y[block] @ Y.T``): the ``L`` nearest other rows by
    ``ny_i - 2 G + ny_k`` and the (L+1)-th smallest value (the least among the rest)."""
    m, n = G.shape
    L = out_idx.shape[1]
    vals = np.empty(L + 1)
    ids = np.empty(L + 1, dtype=np.int64)
    for r in range(m):
        i = start + r
        vals[:] = np.inf
        ids[:] = -1
        for k in range(n):
            if k == i:
                continue
            v = (ny_blk[r] - 2.0 * G[r, k]) + ny[k]
            if v < vals[L]:
                p = L
                while p > 0 and vals[p - 1] > v:
                    vals[p] = vals[p - 1]
                    ids[p] = ids[p - 1]
                    p -= 1
                vals[p] = v
                ids[p] = k
        for t in range(L):
            out_idx[i, t] = ids[t]
        out_lb[i] = vals[L]


_KERNELS = ("auto", "loop", "blas", "lists")
_WARM: list[bool] = []


def _warm_kernels() -> None:
    """Compile (or load from numba's cache) every 1-NN kernel on a toy problem, once per
    process: which kernel runs depends on the batch, and a first call should not pay for
    compiling another one mid-way (the benchmark's warm-up uses a batch of two)."""
    if _WARM:
        return
    Z = np.arange(6.0).reshape(3, 2)
    tr = np.array([0, 1], dtype=np.int64)
    te = np.array([2], dtype=np.int64)
    out = np.full(3, -1, dtype=np.int64)
    is_tr = np.array([True, True, False])
    _nn1_brute_all(Z[None], is_tr[None], ~is_tr[None], out[None])
    _nn1_screened(Z[te] @ Z[tr].T, np.ones(2), np.ones(1), np.ones(1), Z, te, tr, out)
    lists = np.zeros((3, 1), dtype=np.int64)
    _nn1_listed(Z, is_tr, te, lists, np.ones(3), 1.0, np.ones(3), 1.0, 0.0, out, out.copy())
    _topl_block(Z @ Z.T, np.ones(3), np.ones(3), 0, lists, np.ones(3))
    _WARM.append(True)


@register_learner("1nn", description="1-nearest neighbour, standardised Euclidean (Yıldız; Bouckaert & Frank)")
class Fast1NN(FastLearner):
    """1-NN (Yıldız & Alpaydın 2006 §4.1; Bouckaert & Frank's IB1): the class of the nearest
    training instance in Euclidean distance, inputs imputed and standardised per training
    fold (see the module note; Weka's IB1 scales to [0, 1] instead -- a documented
    difference).

    The distance is ``Σ_j (z_ij - z_kj)²`` from direct differences of the standardised
    rows, summed in column order; the nearest training row is the one with the smallest
    computed value, the lowest index among exact ties -- as scikit-learn's
    ``KNeighborsClassifier(1, algorithm="brute")``, whose heap keeps the first of equal
    distances.  Identical training points tie exactly (same terms in the same order), in
    every kernel.  scikit-learn computes ``||x||² - 2x·y + ||y||²`` instead, so where two
    *different* training rows are at mathematically equal distance its rounding may pick
    the other one.  Measured on one 5x2 run each (10 folds), this happened nowhere on
    optdigits, car, nursery, mushroom, segment and tic-tac-toe (0 of 138,240 test
    predictions differ); the earlier expansion-based kernel differed on 2 of car's 8,640.
    The arithmetic is exact enough that distances are finite: data beyond ~1e150 would
    overflow.

    All kernels give identical predictions (tests check it); they differ only in which
    rows they prove cannot be nearest before computing the exact distances:

    * ``loop``: every training row (small problems);
    * ``blas``: per fold, ``Z_test @ Z_train.T`` in float64 gives all distances to within a
      rigorous rounding bound; only rows within that bound of the minimum are recomputed;
    * ``lists``: once per call, the ``L`` nearest neighbours of every row under the metric
      ``Σ_j w_j (x_ij - x_kj)²`` with ``w_j`` the smallest ``1/s_bj²`` of all folds (a lower
      bound of every fold's distance; columns with missing values left out).  Per fold a
      test row whose best listed training row beats the bound for all unlisted rows is
      done in ``L·d`` operations; the rest go to ``blas``.
    * ``auto``: ``loop`` for ``n <= 400``, else ``lists`` for batches of 4 or more folds
      (the lists cost about as much as ``blas`` on 2-4 folds), else ``blas``.

    Share of test rows the lists leave to ``blas`` (one 5x2 run): optdigits 0.1 %,
    segment 0.2 %, mushroom 0.03 %, pendigits / car / nursery / tic-tac-toe 0; with
    missing values in every column the bound is empty and all rows fall back (slower,
    still exact).
    """

    name = "1nn"
    #: candidate list length of the ``lists`` kernel
    n_list: int = 24

    def __init__(self, scale: str = "standard", kernel: str = "auto") -> None:
        self.scale = self._scale(scale)
        self.preprocess = "standardize" if scale == "standard" else "impute"
        if scale != "standard":
            self.name = f"1nn[scale={scale}]"
        if kernel not in _KERNELS:
            raise unknown("1nn kernel", kernel, _KERNELS)
        self.kernel = kernel

    def reference_estimator(self) -> Any:
        from sklearn.neighbors import KNeighborsClassifier

        return KNeighborsClassifier(n_neighbors=1, algorithm="brute")

    def _pick_kernel(self, n: int, B: int) -> str:
        if self.kernel != "auto":
            return self.kernel
        if n * n <= 160_000:  # n ≤ 400: the plain loop costs less than any set-up
            return "loop"
        return "lists" if B >= 4 else "blas"

    @_one_blas_thread
    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        X, y, train, test = _check(X, y, train, test)
        B, n = train.shape
        d = X.shape[1]
        std = self.scale == "standard"
        kernel = self._pick_kernel(n, B)
        if kernel != "loop":
            _warm_kernels()
        mean_all, scale_all = fold_stats(X, train, standardize=std)
        lists = lb = wmin = None
        if kernel == "lists":
            lists, lb, wmin = self._lists(X, scale_all)
        nn = np.full((B, n), -1, dtype=np.int64)
        if kernel == "loop":  # one compiled call per chunk: no per-fold overhead
            for sl in self._chunks(B, 8.0 * n * d, 32e6):
                Zc = apply_stats(X, mean_all[sl], scale_all[sl])
                _nn1_brute_all(Zc, train[sl], test[sl], nn[sl])
        else:
            # one (n, d) buffer for all folds: fresh large arrays per fold cost page faults
            Z = np.empty((n, d))
            nan = np.isnan(X)
            has_nan = bool(nan.any())
            left = np.empty(n, dtype=np.int64)
            for b in range(B):
                tr = np.flatnonzero(train[b])
                te = np.flatnonzero(test[b])
                if len(tr) == 0 or len(te) == 0:
                    continue
                # the values of apply_stats, computed in place
                np.copyto(Z, X)
                if has_nan:
                    np.copyto(Z, np.broadcast_to(mean_all[b], Z.shape), where=nan)
                Z -= mean_all[b]
                Z /= scale_all[b]
                if kernel == "lists":
                    nz = np.einsum("ij,ij->i", Z, Z)
                    w = 1.0 / (scale_all[b] * scale_all[b])
                    use = wmin > 0
                    rho = float(np.min(w[use] / wmin[use])) if use.any() else 0.0
                    margin = 64.0 * (d + 4) * _EPS
                    nl = _nn1_listed(
                        Z, train[b], te, lists, lb, rho, nz, float(nz[tr].max()), margin,
                        nn[b], left,
                    )
                    te = left[:nl].copy()
                    if nl == 0:
                        continue
                self._blas(Z, tr, te, nn[b])
        pred = np.where(nn >= 0, y[np.maximum(nn, 0)], 0)  # no training row: class 0
        return np.where(test, pred, -1).astype(np.int64)

    def _blas(self, Z: np.ndarray, tr: np.ndarray, te: np.ndarray, out: np.ndarray) -> None:
        """The ``blas`` kernel for test rows ``te`` of one fold (writes ``out[te]``)."""
        Zt = Z[tr]
        nt = np.einsum("ij,ij->i", Zt, Zt)
        ntmax = float(nt.max())
        d = Z.shape[1]
        # |computed - exact| of the expansion is below (d+3)·u·(|z_i| + |z_k|)² per entry
        # and the direct sum within d·u relative; 16(d+4)·eps·(nq + max nt) covers twice both
        c = 16.0 * (d + 4) * _EPS
        rows = max(16, int(min(self.memory_budget, 32e6) // (8.0 * len(tr))))
        for s in range(0, len(te), rows):
            q = te[s : s + rows]
            Zq = Z[q]
            nq = np.einsum("ij,ij->i", Zq, Zq)
            G = Zq @ Zt.T
            _nn1_screened(G, nt, nq, c * (nq + ntmax), Z, q, tr, out)

    def _lists(self, X: np.ndarray, scale_all: np.ndarray):
        """Candidate lists (``n_list`` nearest rows under the lower-bound metric) and the
        bound ``lb[i]`` for all other rows, less the expansion's rounding."""
        n, d = X.shape
        Xc, _, miss = _centred(X)
        cols = np.ones(d, dtype=bool) if miss is None else ~miss.any(axis=0)
        wmin = np.where(cols, (1.0 / (scale_all * scale_all)).min(axis=0), 0.0)
        Y = Xc[:, cols] * np.sqrt(wmin[cols])
        ny = np.einsum("ij,ij->i", Y, Y)
        L = min(self.n_list, max(n - 1, 1))
        lists = np.empty((n, L), dtype=np.int64)
        lb = np.empty(n)
        rows = max(16, int(32e6 // (8.0 * n)))
        for s in range(0, n, rows):
            G = Y[s : s + rows] @ Y.T
            _topl_block(G, ny[s : s + rows], ny, s, lists, lb)
        lb -= 8.0 * (d + 4) * _EPS * (ny + ny.max())
        return lists, lb, wmin


@register_learner("lda", description="linear discriminant analysis (Wang et al. 2016)")
class FastLDA(FastLearner):
    """LDA, linear discriminant analysis (Wang et al. 2016 §3.1, Table 5): class means and a
    pooled covariance (maximum likelihood, divisor n), priors = training class frequencies,
    as ``LinearDiscriminantAnalysis(solver="lsqr")``.  Inputs imputed and standardised per
    fold (LDA is affine invariant; this only conditions the arithmetic, and it decides
    which directions the pseudo-inverse drops, so it is kept to match the reference).  The
    solve uses a pseudo-inverse (relative cutoff ``max(d)·eps``, as the reference's
    least-squares solve): with collinear columns (e.g. one-hot groups) the two may then
    differ in rounding, so equivalence is claimed for full-rank data.  scikit-learn's
    default ``svd`` solver gives the same classifier when the covariance has full rank.

    Per fold only the training rows are standardised (class-centred two-pass scatter, as
    the reference's ``empirical_covariance`` per class) and only the test rows scored;
    the pseudo-inverses of a chunk of folds are one stacked call."""

    name = "lda"

    def reference_estimator(self) -> Any:
        from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

        return LinearDiscriminantAnalysis(solver="lsqr")

    @_one_blas_thread
    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        X, y, train, test = _check(X, y, train, test)
        B, n = train.shape
        d = X.shape[1]
        C = _n_classes(y)
        eye = np.eye(C)
        complete = not np.isnan(X).any()
        mean, scale = fold_stats(X, train)
        out = np.full((B, n), -1, dtype=np.int64)
        for sl in self._chunks(B, 8.0 * (2 * d * d + 2 * C * d + n)):
            bs = range(sl.start, sl.stop)
            S = np.zeros((len(bs), d, d))
            M = np.zeros((len(bs), C, d))
            n_c = np.zeros((len(bs), C))
            for k, b in enumerate(bs):
                tr = np.flatnonzero(train[b])
                if len(tr) == 0:
                    continue
                Z = _std_rows(X, tr, mean[b], scale[b], complete)
                E = eye[y[tr]]
                n_c[k] = E.sum(axis=0)
                M[k] = (E.T @ Z) / np.maximum(n_c[k], 1.0)[:, None]
                R = Z - M[k][y[tr]]  # centred by own class mean
                S[k] = (R.T @ R) / len(tr)
            coef = np.linalg.pinv(S, hermitian=True) @ M.transpose(0, 2, 1)  # (c, d, C)
            n_b = np.maximum(n_c.sum(axis=1), 1.0)
            with np.errstate(divide="ignore"):
                logp = np.log(n_c / n_b[:, None])
            inter = -0.5 * np.einsum("bcd,bdc->bc", M, coef) + logp
            for k, b in enumerate(bs):
                te = np.flatnonzero(test[b])
                present = n_c[k] > 0
                if present.sum() <= 1:  # one class (or none) in the fold: predict it
                    out[b, te] = np.argmax(n_c[k])
                    continue
                F = _std_rows(X, te, mean[b], scale[b], complete) @ coef[k] + inter[k]
                out[b, te] = _argmax_present(F, present)
        return out


@register_learner("ls", description="least squares on the 0/1 label, thresholded at 0.5 (Wang et al. 2016)")
class FastLS(FastLearner):
    """LS, least-squares linear classifier (Wang et al. 2016 §3.1 (B)); see
    :class:`~simstudy.learners.reference.LeastSquaresClassifier` for the rule (two classes:
    fitted 0/1 label ``> 0.5``; more: argmax over the present classes).  Per fold the Gram
    matrix ``A'A`` of the design ``A = [1, Z]`` over the fold's training rows (Z imputed +
    standardised, which leaves OLS predictions unchanged) is one product; a chunk of folds
    is solved with one stacked pseudo-inverse (cutoff ``1e-10`` relative) so collinear
    one-hot columns are handled like the reference's minimum-norm ``lstsq``."""

    name = "ls"

    def reference_estimator(self) -> Any:
        from .reference import LeastSquaresClassifier

        return LeastSquaresClassifier()

    @_one_blas_thread
    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        X, y, train, test = _check(X, y, train, test)
        B, n = train.shape
        d = X.shape[1]
        C = _n_classes(y)
        eye = np.eye(C)
        complete = not np.isnan(X).any()
        mean, scale = fold_stats(X, train)
        out = np.full((B, n), -1, dtype=np.int64)
        for sl in self._chunks(B, 8.0 * ((d + 1) * (d + 1 + 2 * C) + n)):
            bs = range(sl.start, sl.stop)
            G = np.zeros((len(bs), d + 1, d + 1))
            rhs = np.zeros((len(bs), d + 1, C))
            n_c = np.zeros((len(bs), C))
            for k, b in enumerate(bs):
                tr = np.flatnonzero(train[b])
                A = np.empty((len(tr), d + 1))
                A[:, 0] = 1.0
                A[:, 1:] = _std_rows(X, tr, mean[b], scale[b], complete)
                E = eye[y[tr]]
                n_c[k] = E.sum(axis=0)
                G[k] = A.T @ A
                rhs[k] = A.T @ E
            beta = np.linalg.pinv(G, rtol=1e-10, hermitian=True) @ rhs  # (c, d+1, C)
            for k, b in enumerate(bs):
                te = np.flatnonzero(test[b])
                present = n_c[k] > 0
                if present.sum() <= 1:  # one class (or none) in the fold: predict it
                    out[b, te] = np.argmax(n_c[k])
                    continue
                F = beta[k, 0] + _std_rows(X, te, mean[b], scale[b], complete) @ beta[k, 1:]
                if present.sum() == 2:
                    # Wang's rule I[fitted > 0.5] on the larger of the two present codes
                    lo, hi = np.flatnonzero(present)
                    out[b, te] = np.where(F[:, hi] > 0.5, hi, lo)
                else:
                    out[b, te] = _argmax_present(F, present)
        return out


@register_learner("nb", description="naive Bayes, Gaussian + categorical (Bouckaert & Frank 2004)")
class FastNB(FastLearner):
    """Naive Bayes (Bouckaert & Frank 2004, Weka ``NaiveBayes``): Gaussian for numeric
    columns, Laplace-corrected categorical for one-hot nominal groups, missing values
    skipped -- exactly the model of :class:`~simstudy.learners.reference.MixedNB` (see there
    for what we take from Weka and where we differ).  Nominal groups come from the data set
    (:meth:`prepare`) or the constructor; without them every column is Gaussian.

    Per-class counts, sums and sums of squares of all folds are one product per class
    (over that class's rows); the joint log-likelihoods of all rows, folds and classes are
    one ``(n, 2p+1+K) @ (2p+1+K, B·C)`` product of ``[x², x, 1, one-hot]`` with the
    expanded Gaussian square ``-(x - θ)²/2v - log(2πv)/2`` and the log frequencies."""

    name = "nb"
    preprocess = "none"

    def __init__(
        self,
        nominal_groups: tuple[tuple[int, ...], ...] = (),
        var_smoothing: float = 1e-9,
        alpha: float = 1.0,
    ) -> None:
        self.nominal_groups = tuple(tuple(int(j) for j in g) for g in nominal_groups)
        self.var_smoothing = float(var_smoothing)
        self.alpha = float(alpha)

    def prepare(self, data: Any) -> FastNB:
        groups = tuple(getattr(data, "nominal_groups", ()) or ())
        return FastNB(groups, self.var_smoothing, self.alpha)

    def reference_estimator(self) -> Any:
        from .reference import MixedNB

        return MixedNB(self.nominal_groups, self.var_smoothing, self.alpha)

    @_one_blas_thread
    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        X, y, train, test = _check(X, y, train, test)
        B, n = train.shape
        C = _n_classes(y)
        nom = sorted({j for g in self.nominal_groups for j in g})
        num = np.array([j for j in range(X.shape[1]) if j not in set(nom)], dtype=int)
        Xc, _, miss = _centred(X[:, num])  # global centring keeps the moments accurate
        okf = None if miss is None else 1.0 - miss
        Xc2 = Xc * Xc
        V0 = [np.nan_to_num(X[:, list(g)], nan=0.0) for g in self.nominal_groups]
        # the features the joint log-likelihood is linear in
        H = np.hstack([Xc2, Xc, np.ones((n, 1)) if okf is None else okf, *V0])
        W = H.shape[1]
        out = np.empty((B, n), dtype=np.int64)
        for sl in self._chunks(B, 8.0 * C * (3 * n + 2 * W)):
            tr = train[sl]
            c = tr.shape[0]
            T = tr.astype(np.float64)
            groups = _class_groups(T, y, C)
            n_c = _class_sums(groups, None)[:, :, 0]  # (c, C)
            n_b = n_c.sum(axis=1)
            with np.errstate(divide="ignore"):
                prior = np.where(n_c > 0, np.log(np.maximum(n_c, 1.0) / n_b[:, None]), -np.inf)
            blocks = []
            if len(num):
                # overall variance per numeric column (observed values) -> epsilon
                cnt = n_b[:, None] if okf is None else T @ okf
                m1 = (T @ Xc) / np.maximum(cnt, 1.0)
                v_all = np.where(cnt > 0, (T @ Xc2) / np.maximum(cnt, 1.0) - m1 * m1, 0.0)
                eps = self.var_smoothing * np.maximum(v_all, 0.0).max(axis=1)
                eps = np.where(eps > 0, eps, self.var_smoothing)
                k = n_c[:, :, None] if okf is None else _class_sums(groups, okf)  # (c, C, p)
                s1 = _class_sums(groups, Xc)
                s2 = _class_sums(groups, Xc2)
                seen = np.broadcast_to(k > 0, s1.shape)
                theta = s1 / np.maximum(k, 1.0)
                var = np.maximum(s2 / np.maximum(k, 1.0) - theta * theta, 0.0)
                var = var + eps[:, None, None]
                # per (c, j): -0.5 log(2π v) - 0.5 (x - θ)²/v, skipped where unseen / x missing
                c0 = np.where(seen, -0.5 * np.log(2.0 * np.pi * var) - 0.5 * theta * theta / var, 0.0)
                blocks += [
                    np.where(seen, -0.5 / var, 0.0),
                    np.where(seen, theta / var, 0.0),
                    c0.sum(axis=2, keepdims=True) if okf is None else c0,
                ]
            else:
                blocks.append(np.zeros((c, C, 1)))
            for g, V in zip(self.nominal_groups, V0, strict=True):
                N_cv = _class_sums(groups, V)  # (c, C, K)
                N_c = N_cv.sum(axis=2, keepdims=True)
                blocks.append(np.log(N_cv + self.alpha) - np.log(N_c + self.alpha * len(g)))
            coef = np.concatenate(blocks, axis=2).reshape(c * C, W)
            pred = np.empty((c, n), dtype=np.int64)
            _group_argmax(H @ coef.T, 1.0, prior, test[sl], pred)
            out[sl] = _single_class_fix(pred, n_c, test[sl])
        return out
