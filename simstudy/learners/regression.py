"""Regression learners: ``ols``, ``ridge`` (numpy per model, scikit-learn as reference),
``rf-reg``, ``knn-reg`` (scikit-learn estimators looped per model: the learner is its
reference path).

Each predicts real numbers (``task = "regression"``) and scores a prediction by its
``loss``: ``squared`` (default) or ``absolute`` error per instance
(:func:`simstudy.learners.base.instance_losses`); ``ols[loss=absolute]`` is its own
learner id.  Inputs are mean-imputed per training fold, and standardised where the model
is not scale invariant (ridge, k-NN).  On a classification source they are refused
(:func:`simstudy.learners.base.check_task`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from ..errors import unknown
from ..spec import format_spec
from ._batched import _one_blas_thread
from .base import LOSSES, Learner
from .reference import SklearnLearner
from .registry import register_learner

__all__ = ["KNNRegressor", "OLS", "RandomForestRegressor", "Ridge"]

_REGRESSION_LOSSES = tuple(k for k, v in LOSSES.items() if v == "regression")


def _name(base: str, params: dict[str, object], loss: str) -> str:
    """The canonical id: parameters not at their default (None) and a loss not squared."""
    if loss not in _REGRESSION_LOSSES:
        raise unknown(f"loss of learner {base!r}:", loss, _REGRESSION_LOSSES)
    shown = {k: v for k, v in params.items() if v is not None}
    if loss != "squared":
        shown["loss"] = loss
    return format_spec(base, shown)


class _Regressor(SklearnLearner):
    """A scikit-learn regressor with a per-instance loss, named by its spec."""

    task = "regression"

    def __init__(self, estimator: Any, base: str, params: dict[str, object], loss: str,
                 preprocess: str) -> None:
        super().__init__(estimator, name=_name(base, params, loss), preprocess=preprocess)
        self.loss = loss


class _Linear(Learner):
    """OLS and ridge fitted per model in numpy (no scikit-learn call per fit): mean
    imputation with the training means, optional standardisation, centred least squares
    (min-norm) or the ridge system ``(Z'Z + alpha I) w = Z'y``, intercept ``mean(y) -
    mean(Z) w``.  The scikit-learn estimator is the reference path."""

    task = "regression"

    def __init__(self, estimator: Any, base: str, params: dict[str, object], loss: str,
                 preprocess: str, alpha: float) -> None:
        self.name = _name(base, params, loss)
        self.estimator, self.loss, self.preprocess, self.alpha = estimator, loss, preprocess, alpha

    def reference_estimator(self) -> Any:
        return self.estimator

    @_one_blas_thread  # threaded BLAS on small products spins on a busy machine
    def fit_predict(self, X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                    seeds: Sequence[np.random.SeedSequence]) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        out = np.full(np.shape(train), np.nan)
        for b in range(out.shape[0]):
            tr, te = np.asarray(train[b], bool), np.asarray(test[b], bool)
            m, s, Z = _fold_scaling(X[tr], self.preprocess == "standardize")
            yc = y[tr] - y[tr].mean()
            if self.alpha > 0:
                w = np.linalg.solve(Z.T @ Z + self.alpha * np.eye(Z.shape[1]), Z.T @ yc)
            else:
                w = np.linalg.lstsq(Z, yc, rcond=None)[0]
            Xe = np.where(np.isnan(X[te]), m, X[te])
            out[b, te] = ((Xe - m) / s) @ w + y[tr].mean()
        return out


def _fold_scaling(Xt: np.ndarray, standardize: bool
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A training fold's ``(mean, scale, scaled inputs)``: missing values filled with the
    fold's column means (the imputer), then centred and, with ``standardize``, divided by
    the ddof-0 sd (``StandardScaler``; a constant column unscaled), else by 1."""
    m = _column_means(Xt)  # the imputer's fill and the centre
    Xt = np.where(np.isnan(Xt), m, Xt)
    s = np.ones(Xt.shape[1])
    if standardize:
        s = Xt.std(axis=0)
        s[s == 0] = 1.0  # StandardScaler leaves a constant column unscaled
    return m, s, (Xt - m) / s


def _column_means(Xt: np.ndarray) -> np.ndarray:
    """Training column means over the present values; 0 for a column with none (as
    ``SimpleImputer(keep_empty_features=True)``)."""
    present = ~np.isnan(Xt)
    count = present.sum(axis=0)
    total = np.where(present, Xt, 0.0).sum(axis=0)
    return np.where(count > 0, total / np.maximum(count, 1), 0.0)


@register_learner("ols", description="ordinary least squares with intercept, squared or "
                  "absolute loss (reference scikit-learn LinearRegression; Bates, Hastie & "
                  "Tibshirani 2024 sec. 2)")
class OLS(_Linear):
    """Least squares with an intercept, min-norm on the centred inputs as
    ``sklearn.linear_model.LinearRegression`` (its reference); inputs mean-imputed per
    training fold.

    Examples
    --------
    >>> OLS(loss="absolute").name
    'ols[loss=absolute]'
    """

    impl_id = 'simstudy.learners.regression:OLS'

    def __init__(self, loss: str = "squared") -> None:
        from sklearn.linear_model import LinearRegression

        super().__init__(LinearRegression(), "ols", {}, loss, "impute", 0.0)


@register_learner("ridge", variants=("alpha=1",), description="ridge regression on standardised inputs, [alpha=1] "
                  "(reference scikit-learn Ridge; Hoerl & Kennard 1970)")
class Ridge(_Linear):
    """Ridge regression, penalty ``alpha`` on standardised inputs (training mean and ddof-0
    sd, as ``StandardScaler``) with an unpenalised intercept, as ``sklearn.linear_model.Ridge``
    after the standardisation (its reference).

    Examples
    --------
    >>> Ridge(alpha=10).name
    'ridge[alpha=10]'
    """

    impl_id = 'simstudy.learners.regression:Ridge'

    def __init__(self, alpha: float = 1.0, loss: str = "squared") -> None:
        from sklearn.linear_model import Ridge as _Ridge

        super().__init__(_Ridge(alpha=float(alpha)), "ridge",
                         {"alpha": None if alpha == 1.0 else alpha}, loss, "standardize",
                         float(alpha))


@register_learner("rf-reg", variants=("trees=100",), description="random forest regressor, [trees=100], seeded per "
                  "model (scikit-learn RandomForestRegressor; Breiman 2001)")
class RandomForestRegressor(_Regressor):
    """Random forest of ``trees`` regression trees (``sklearn.ensemble``), each model seeded
    from its own SeedSequence.

    Examples
    --------
    >>> RandomForestRegressor(trees=50).name
    'rf-reg[trees=50]'
    """

    impl_id = 'simstudy.learners.regression:RandomForestRegressor'

    def __init__(self, trees: int = 100, loss: str = "squared") -> None:
        from sklearn.ensemble import RandomForestRegressor as _RF

        super().__init__(_RF(n_estimators=int(trees)), "rf-reg",
                         {"trees": None if trees == 100 else trees}, loss, "impute")


@register_learner("knn-reg", variants=("k=5",), description="k nearest neighbours regressor on standardised "
                  "inputs, [k=5] (reference scikit-learn KNeighborsRegressor)")
class KNNRegressor(Learner):
    """Mean response of the ``k`` nearest training instances (Euclidean distance on inputs
    mean-imputed and standardised with the training fold's mean and ddof-0 sd, as
    ``StandardScaler``), fitted per model in numpy: no scikit-learn call per fit, which cost
    about 3 ms a model, 20 s a trial of nested cv at K = 10 and 50 repetitions.  The
    reference is ``sklearn.neighbors.KNeighborsRegressor``; the neighbours are ranked by
    squared distance from ``|a|^2 + |b|^2 - 2 a.b``, ties (equal distances) by training
    order, and their responses averaged nearest first.

    Examples
    --------
    >>> KNNRegressor().name
    'knn-reg'
    >>> X = np.array([[0.0], [1.0], [3.0], [10.0]]); y = np.array([0.0, 1.0, 3.0, 10.0])
    >>> train = np.array([[True, True, True, False]])
    >>> KNNRegressor(k=2).fit_predict(X, y, train, ~train, [None])[0, 3]
    np.float64(2.0)
    """

    impl_id = 'simstudy.learners.regression:KNNRegressor'
    task = "regression"
    #: test rows scored at a time (bounds the distance matrix: 4096 x n_train floats)
    _BLOCK = 4096

    def __init__(self, k: int = 5, loss: str = "squared") -> None:
        self.k = int(k)
        self.name = _name("knn-reg", {"k": None if self.k == 5 else self.k}, loss)
        self.loss, self.preprocess = loss, "standardize"

    def reference_estimator(self) -> Any:
        from sklearn.neighbors import KNeighborsRegressor

        return KNeighborsRegressor(n_neighbors=self.k)

    @_one_blas_thread
    def fit_predict(self, X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                    seeds: Sequence[np.random.SeedSequence]) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        out = np.full(np.shape(train), np.nan)
        for b in range(out.shape[0]):
            tr, te = np.flatnonzero(train[b]), np.flatnonzero(test[b])
            if self.k > tr.size:
                raise ValueError(f"knn-reg: k={self.k!r} neighbours, but {tr.size} training "
                                 "instances")
            m, s, Z = _fold_scaling(X[tr], True)
            zz = np.einsum("ij,ij->i", Z, Z)
            yt = y[tr]
            for lo in range(0, te.size, self._BLOCK):
                rows = te[lo:lo + self._BLOCK]
                E = (np.where(np.isnan(X[rows]), m, X[rows]) - m) / s
                d = zz[None, :] - 2.0 * (E @ Z.T)  # + |e|^2, the same for a row's ranking
                out[b, rows] = yt[_k_nearest(d, self.k)].mean(axis=1)
        return out


@numba.njit(cache=True)
def _k_nearest(d: np.ndarray, k: int) -> np.ndarray:  # pragma: no cover - compiled
    """``(rows, k)`` column indices of each row's ``k`` smallest entries of ``d``, smallest
    first, equal entries in column order: one pass per row keeping the ``k`` best sorted
    (comparisons only, so the same on any CPU), where a partition leaves the order of equal
    entries at the k-th place unspecified."""
    m, n = d.shape
    out = np.empty((m, k), dtype=np.int64)
    best = np.empty(k)
    for i in range(m):
        c = 0
        for j in range(n):
            v = d[i, j]
            if c < k:
                p = c
                c += 1
            elif v < best[k - 1]:
                p = k - 1
            else:
                continue
            while p > 0 and best[p - 1] > v:
                best[p] = best[p - 1]
                out[i, p] = out[i, p - 1]
                p -= 1
            best[p] = v
            out[i, p] = j
    return out
