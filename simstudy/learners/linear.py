"""Linear classifiers, batched: ``nmc`` (nearest mean, Yıldız & Alpaydın 2006), ``lda``
and ``ls`` (Wang et al. 2016).  What the fast paths share (and the note on standardised
inputs for NMC) is in :mod:`._batched`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._batched import (
    FastLearner,
    _argmax_present,
    _centred,
    _check,
    _class_groups,
    _class_sums,
    _group_argmax,
    _n_classes,
    _one_blas_thread,
    _single_class_fix,
    _std_rows,
)
from .preprocess import fold_stats
from .registry import register_learner


@register_learner("nmc", description="nearest mean classifier, standardised inputs "
                  "(Yıldız & Alpaydın 2006)")
class FastNMC(FastLearner):
    """NMC, the nearest mean classifier (Yıldız & Alpaydın 2006 §4.1): one mean vector per
    class, Euclidean distance.  Inputs imputed and standardised per training fold
    (``scale="standard"``, see the note in :mod:`._batched`) or only imputed
    (``scale="none"``).  Ties go to the lowest class code, as ``NearestCentroid`` (whose
    ``pairwise_distances_argmin`` keeps the first minimum).

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

    impl_id = 'simstudy.learners.linear:FastNMC'

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

    impl_id = 'simstudy.learners.linear:FastLDA'

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


@register_learner("ls", description="least squares on the 0/1 label, thresholded at 0.5 "
                  "(Wang et al. 2016)")
class FastLS(FastLearner):
    """LS, least-squares linear classifier (Wang et al. 2016 §3.1 (B)); see
    :class:`~simstudy.learners.reference.LeastSquaresClassifier` for the rule (two classes:
    fitted 0/1 label ``> 0.5``; more: argmax over the present classes).  Per fold the Gram
    matrix ``A'A`` of the design ``A = [1, Z]`` over the fold's training rows (Z imputed +
    standardised, which leaves OLS predictions unchanged) is one product; a chunk of folds
    is solved with one stacked pseudo-inverse (cutoff ``1e-10`` relative) so collinear
    one-hot columns are handled like the reference's minimum-norm ``lstsq``."""

    impl_id = 'simstudy.learners.linear:FastLS'

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
