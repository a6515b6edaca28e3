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

_SCALES = ("standard", "none")


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


def _class_masks(train: np.ndarray, y: np.ndarray, C: int) -> np.ndarray:
    """(B, C, n) float64: training rows of fold b that belong to class c."""
    Y1 = np.arange(C)[:, None] == y[None, :]
    return (train[:, None, :] & Y1[None]).astype(np.float64)


def _finish(scores: np.ndarray, present: np.ndarray, test: np.ndarray) -> np.ndarray:
    """argmax over present classes (first on ties), -1 outside the test rows."""
    scores = np.where(present[:, None, :], scores, -np.inf)
    pred = np.argmax(scores, axis=2)
    return np.where(test, pred, -1).astype(np.int64)


def _single_class_fix(pred: np.ndarray, counts: np.ndarray, test: np.ndarray) -> np.ndarray:
    """A fold with one training class predicts it (as the reference path does)."""
    one = (counts > 0).sum(axis=1) == 1
    if one.any():
        c = np.argmax(counts[one], axis=1)
        pred[one] = np.where(test[one], c[:, None], -1)
    return pred


class FastLearner(Learner):
    """Common parts: ``scale`` option and the memory budget per chunk of models."""

    #: bytes of temporary arrays allowed per chunk of models
    memory_budget: float = 256e6

    def _scale(self, scale: str) -> str:
        if scale not in _SCALES:
            raise unknown(f"scale for {self.name}", scale, _SCALES)
        return scale

    def _chunks(self, B: int, per_model: float):
        step = chunk_size(per_model, self.memory_budget)
        for s in range(0, B, step):
            yield slice(s, min(B, s + step))


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


class FastNMC(FastLearner):
    """NMC, the nearest mean classifier (Yıldız & Alpaydın 2006 §4.1): one mean vector per
    class, Euclidean distance.  Inputs imputed and standardised per training fold
    (``scale="standard"``, see the module note) or only imputed (``scale="none"``).  Ties go
    to the lowest class code, as ``NearestCentroid`` (whose ``pairwise_distances_argmin``
    keeps the first minimum).  Distances as ``||x||² - 2x·m + ||m||²``, the order
    scikit-learn uses."""

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
        C = _n_classes(y)
        out = np.empty((B, n), dtype=np.int64)
        for sl in self._chunks(B, 8.0 * n * (X.shape[1] + 2 * C)):
            tr = train[sl]
            mean, scale = fold_stats(X, tr, standardize=self.scale == "standard")
            Z = apply_stats(X, mean, scale)  # (c, n, d)
            Tc = _class_masks(tr, y, C)  # (c, C, n)
            n_c = Tc.sum(axis=2)
            M = (Tc @ Z) / np.maximum(n_c, 1.0)[:, :, None]  # class means, (c, C, d)
            zz = np.einsum("bnd,bnd->bn", Z, Z)
            mm = np.einsum("bcd,bcd->bc", M, M)
            D = (zz[:, :, None] + (-2.0) * (Z @ M.transpose(0, 2, 1))) + mm[:, None, :]
            pred = _finish(-np.maximum(D, 0.0), n_c > 0, test[sl])
            out[sl] = _single_class_fix(pred, n_c, test[sl])
        return out


@numba.njit(cache=True, parallel=True)
def _nn1_kernel(Z, train, test, y, out):  # pragma: no cover - compiled
    """Nearest training row per test row, per fold; strict < keeps the lowest index."""
    B, n, d = Z.shape
    for b in numba.prange(B):
        tr = np.flatnonzero(train[b])
        for i in range(n):
            if not test[b, i]:
                out[b, i] = -1
                continue
            best = np.inf
            arg = -1
            for k in tr:
                s = 0.0
                for j in range(d):
                    t = Z[b, i, j] - Z[b, k, j]
                    s += t * t
                if s < best:
                    best = s
                    arg = k
            out[b, i] = y[arg] if arg >= 0 else 0


class Fast1NN(FastLearner):
    """1-NN (Yıldız & Alpaydın 2006 §4.1; Bouckaert & Frank's IB1): the class of the nearest
    training instance in Euclidean distance, inputs imputed and standardised per training
    fold (see the module note; Weka's IB1 scales to [0, 1] instead -- a documented
    difference).

    Ties: scikit-learn's ``KNeighborsClassifier(1, algorithm="brute")`` keeps, among
    training instances at exactly the same (computed) distance, the one with the lowest
    index (its heap rejects a candidate that is not strictly smaller; chunks are scanned in
    index order); so do both kernels here.  Small problems (``d <= 16``) use a compiled
    loop with direct differences; larger ones one BLAS product per fold with the
    ``||x||² - 2x·y + ||y||²`` expansion scikit-learn uses, in chunks of test rows so that
    memory stays bounded (about ``chunk_rows · n_train · 8`` bytes).  Identical training
    points give identical distances in both, so duplicates are resolved exactly as the
    reference does; distinct points whose distances agree to ~1e-15 may be resolved
    differently (rounding), which the tests count.
    """

    name = "1nn"

    def __init__(self, scale: str = "standard", kernel: str = "auto") -> None:
        self.scale = self._scale(scale)
        self.preprocess = "standardize" if scale == "standard" else "impute"
        if scale != "standard":
            self.name = f"1nn[scale={scale}]"
        if kernel not in ("auto", "loop", "blas"):
            raise unknown("1nn kernel", kernel, ("auto", "loop", "blas"))
        self.kernel = kernel

    def reference_estimator(self) -> Any:
        from sklearn.neighbors import KNeighborsClassifier

        return KNeighborsClassifier(n_neighbors=1, algorithm="brute")

    @_one_blas_thread
    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        X, y, train, test = _check(X, y, train, test)
        B, n = train.shape
        d = X.shape[1]
        use_loop = self.kernel == "loop" or (self.kernel == "auto" and d <= 16)
        out = np.empty((B, n), dtype=np.int64)
        std = self.scale == "standard"
        for sl in self._chunks(B, 8.0 * n * d):
            mean, scale = fold_stats(X, train[sl], standardize=std)
            Z = apply_stats(X, mean, scale)
            if use_loop:
                _nn1_kernel(Z, train[sl], test[sl], y, out[sl])
            else:
                for k, b in enumerate(range(sl.start, sl.stop)):
                    out[b] = self._blas_one(Z[k], train[b], test[b], y)
        return out

    def _blas_one(self, Z: np.ndarray, tr_mask, te_mask, y) -> np.ndarray:
        tr = np.flatnonzero(tr_mask)
        te = np.flatnonzero(te_mask)
        res = np.full(len(tr_mask), -1, dtype=np.int64)
        if len(tr) == 0:
            res[te] = 0
            return res
        Zt = Z[tr]
        nt = np.einsum("ij,ij->i", Zt, Zt)
        rows = max(1, int(self.memory_budget // (8.0 * 3 * len(tr))))
        for s in range(0, len(te), rows):
            q = te[s : s + rows]
            Zq = Z[q]
            nq = np.einsum("ij,ij->i", Zq, Zq)
            D = (nq[:, None] + (-2.0) * (Zq @ Zt.T)) + nt[None, :]
            np.maximum(D, 0.0, out=D)
            res[q] = y[tr[np.argmin(D, axis=1)]]
        return res


class FastLDA(FastLearner):
    """LDA, linear discriminant analysis (Wang et al. 2016 §3.1, Table 5): class means and a
    pooled covariance (maximum likelihood, divisor n), priors = training class frequencies,
    as ``LinearDiscriminantAnalysis(solver="lsqr")``.  Inputs imputed and standardised per
    fold (LDA is affine invariant; this only conditions the arithmetic).  The solve uses a
    pseudo-inverse (relative cutoff ``max(d)·eps``, as the reference's least-squares
    solve): with collinear columns (e.g. one-hot groups) the two may then differ in
    rounding, so equivalence is claimed for full-rank data.  scikit-learn's default
    ``svd`` solver gives the same classifier when the covariance has full rank."""

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
        out = np.empty((B, n), dtype=np.int64)
        for sl in self._chunks(B, 8.0 * n * (2 * d + C)):
            tr = train[sl]
            mean, scale = fold_stats(X, tr)
            Z = apply_stats(X, mean, scale)
            Tc = _class_masks(tr, y, C)
            n_c = Tc.sum(axis=2)
            n_b = n_c.sum(axis=1)
            M = (Tc @ Z) / np.maximum(n_c, 1.0)[:, :, None]
            R = Z - M[:, y, :]  # centred by own class mean
            Rm = R * tr[:, :, None]
            S = (Rm.transpose(0, 2, 1) @ R) / np.maximum(n_b, 1.0)[:, None, None]
            coef = np.linalg.pinv(S, hermitian=True) @ M.transpose(0, 2, 1)  # (c, d, C)
            with np.errstate(divide="ignore"):
                logp = np.log(n_c / np.maximum(n_b, 1.0)[:, None])
            inter = -0.5 * np.einsum("bcd,bdc->bc", M, coef) + logp
            F = Z @ coef + inter[:, None, :]
            pred = _finish(F, n_c > 0, test[sl])
            out[sl] = _single_class_fix(pred, n_c, test[sl])
        return out


class FastLS(FastLearner):
    """LS, least-squares linear classifier (Wang et al. 2016 §3.1 (B)); see
    :class:`~simstudy.learners.reference.LeastSquaresClassifier` for the rule (two classes:
    fitted 0/1 label ``> 0.5``; more: argmax over the present classes).  Per fold the Gram
    matrix ``A'MA`` of the design ``A = [1, Z]`` (Z imputed + standardised, which leaves
    OLS predictions unchanged) comes from one batched product; solved with a
    pseudo-inverse (cutoff ``1e-10`` relative) so collinear one-hot columns are handled
    like the reference's minimum-norm ``lstsq``."""

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
        Y1 = np.eye(C)[y]
        out = np.empty((B, n), dtype=np.int64)
        for sl in self._chunks(B, 8.0 * n * (2 * d + 2 + C)):
            tr = train[sl]
            mean, scale = fold_stats(X, tr)
            Z = apply_stats(X, mean, scale)
            A = np.concatenate([np.ones(Z.shape[:2] + (1,)), Z], axis=2)
            Am = A * tr[:, :, None]
            G = Am.transpose(0, 2, 1) @ A
            rhs = Am.transpose(0, 2, 1) @ Y1
            beta = np.linalg.pinv(G, rtol=1e-10, hermitian=True) @ rhs
            F = A @ beta  # (c, n, C)
            n_c = tr.astype(np.float64) @ Y1
            present = n_c > 0
            two = present.sum(axis=1) == 2
            pred = _finish(F, present, test[sl])
            if two.any():
                # Wang's rule I[fitted > 0.5] on the larger of the two present codes
                hi = C - 1 - np.argmax(present[two][:, ::-1], axis=1)
                lo = np.argmax(present[two], axis=1)
                f_hi = np.take_along_axis(F[two], hi[:, None, None], axis=2)[:, :, 0]
                p2 = np.where(f_hi > 0.5, hi[:, None], lo[:, None])
                pred[two] = np.where(test[sl][two], p2, -1)
            out[sl] = _single_class_fix(pred, n_c, test[sl])
        return out


class FastNB(FastLearner):
    """Naive Bayes (Bouckaert & Frank 2004, Weka ``NaiveBayes``): Gaussian for numeric
    columns, Laplace-corrected categorical for one-hot nominal groups, missing values
    skipped -- exactly the model of :class:`~simstudy.learners.reference.MixedNB` (see there
    for what we take from Weka and where we differ).  Nominal groups come from the data set
    (:meth:`prepare`) or the constructor; without them every column is Gaussian.  All
    per-class counts, sums and sums of squares of all folds come from three batched matrix
    products; log-likelihoods from the expanded square."""

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
        Xn = X[:, num]
        ok = ~np.isnan(Xn)
        okf = ok.astype(np.float64)
        centre = np.where(ok, Xn, 0.0).sum(axis=0) / np.maximum(ok.sum(axis=0), 1)
        Xc = np.where(ok, Xn - centre, 0.0)  # global centring keeps the moments accurate
        Xc2 = Xc * Xc
        out = np.empty((B, n), dtype=np.int64)
        for sl in self._chunks(B, 8.0 * C * (n + 4 * X.shape[1])):
            tr = train[sl]
            T = tr.astype(np.float64)
            Tc = _class_masks(tr, y, C)  # (c, C, n)
            n_c = Tc.sum(axis=2)
            n_b = n_c.sum(axis=1)
            jll = np.where(n_c > 0, np.log(np.maximum(n_c, 1.0) / n_b[:, None]), -np.inf)
            jll = np.broadcast_to(jll[:, None, :], (tr.shape[0], n, C)).copy()
            if len(num):
                # overall variance per numeric column (observed values) -> epsilon
                cnt = T @ okf
                m1 = (T @ Xc) / np.maximum(cnt, 1.0)
                v_all = np.where(cnt > 0, (T @ Xc2) / np.maximum(cnt, 1.0) - m1 * m1, 0.0)
                eps = self.var_smoothing * np.maximum(v_all, 0.0).max(axis=1)
                eps = np.where(eps > 0, eps, self.var_smoothing)
                k = Tc @ okf  # (c, C, j)
                s1 = Tc @ Xc
                s2 = Tc @ Xc2
                seen = k > 0
                theta = s1 / np.maximum(k, 1.0)
                var = np.maximum(s2 / np.maximum(k, 1.0) - theta * theta, 0.0)
                var = var + eps[:, None, None]
                # per (c, j): -0.5 log(2π v) - 0.5 (x - θ)²/v, skipped where unseen / x missing
                a = np.where(seen, -0.5 / var, 0.0)
                bq = np.where(seen, theta / var, 0.0)
                c0 = np.where(seen, -0.5 * np.log(2.0 * np.pi * var) - 0.5 * theta * theta / var, 0.0)
                jll += (
                    Xc2 @ a.transpose(0, 2, 1)
                    + Xc @ bq.transpose(0, 2, 1)
                    + okf @ c0.transpose(0, 2, 1)
                )
            for g in self.nominal_groups:
                V0 = np.nan_to_num(X[:, list(g)], nan=0.0)
                N_cv = Tc @ V0  # (c, C, K)
                N_c = N_cv.sum(axis=2, keepdims=True)
                lp = np.log(N_cv + self.alpha) - np.log(N_c + self.alpha * len(g))
                jll += V0 @ lp.transpose(0, 2, 1)
            pred = _finish(jll, n_c > 0, test[sl])
            out[sl] = _single_class_fix(pred, n_c, test[sl])
        return out
