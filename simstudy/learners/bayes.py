"""``nb``: naive Bayes as Weka's ``NaiveBayes`` models it (Bouckaert & Frank 2004), batched
(see :mod:`._batched` for what the fast paths share; Weka's own arithmetic is ``wnb`` in
:mod:`.weka.nb`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._batched import (
    FastLearner,
    _centred,
    _check,
    _class_groups,
    _class_sums,
    _group_argmax,
    _n_classes,
    _one_blas_thread,
    _single_class_fix,
)
from .registry import register_learner


@register_learner("nb", description="naive Bayes, Gaussian + categorical "
                  "(Bouckaert & Frank 2004)")
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

    impl_id = 'simstudy.learners.bayes:FastNB'

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
