"""Regression learners: ``ols``, ``ridge``, ``rf-reg``, ``knn-reg``, scikit-learn estimators
looped per model (the reference path is the learner itself).

Each predicts real numbers (``task = "regression"``) and scores a prediction by its
``loss``: ``squared`` (default) or ``absolute`` error per instance
(:func:`simstudy.learners.base.instance_losses`); ``ols[loss=absolute]`` is its own
learner id.  Inputs are mean-imputed per training fold, and standardised where the model
is not scale invariant (ridge, k-NN).  On a classification source they are refused
(:func:`simstudy.learners.base.check_task`).
"""

from __future__ import annotations

from typing import Any

from ..errors import unknown
from ..spec import format_spec
from .base import LOSSES
from .reference import SklearnLearner
from .registry import register_learner

__all__ = ["KNNRegressor", "OLS", "RandomForestRegressor", "Ridge"]

_REGRESSION_LOSSES = tuple(k for k, v in LOSSES.items() if v == "regression")


class _Regressor(SklearnLearner):
    """A scikit-learn regressor with a per-instance loss, named by its spec."""

    task = "regression"

    def __init__(self, estimator: Any, base: str, params: dict[str, object], loss: str,
                 preprocess: str) -> None:
        if loss not in _REGRESSION_LOSSES:
            raise unknown(f"loss of learner {base!r}:", loss, _REGRESSION_LOSSES)
        shown = {k: v for k, v in params.items() if v is not None}
        if loss != "squared":
            shown["loss"] = loss
        super().__init__(estimator, name=format_spec(base, shown), preprocess=preprocess)
        self.loss = loss


@register_learner("ols", description="ordinary least squares with intercept, squared or "
                  "absolute loss (scikit-learn LinearRegression; Bates, Hastie & Tibshirani "
                  "2024 sec. 2)")
class OLS(_Regressor):
    """Least squares with an intercept (``sklearn.linear_model.LinearRegression``).

    Examples
    --------
    >>> OLS(loss="absolute").name
    'ols[loss=absolute]'
    """

    def __init__(self, loss: str = "squared") -> None:
        from sklearn.linear_model import LinearRegression

        super().__init__(LinearRegression(), "ols", {}, loss, "impute")


@register_learner("ridge", description="ridge regression on standardised inputs, [alpha=1] "
                  "(scikit-learn Ridge; Hoerl & Kennard 1970)")
class Ridge(_Regressor):
    """Ridge regression, penalty ``alpha`` (``sklearn.linear_model.Ridge``), inputs
    standardised per training fold.

    Examples
    --------
    >>> Ridge(alpha=10).name
    'ridge[alpha=10]'
    """

    def __init__(self, alpha: float = 1.0, loss: str = "squared") -> None:
        from sklearn.linear_model import Ridge as _Ridge

        super().__init__(_Ridge(alpha=float(alpha)), "ridge",
                         {"alpha": None if alpha == 1.0 else alpha}, loss, "standardize")


@register_learner("rf-reg", description="random forest regressor, [trees=100], seeded per "
                  "model (scikit-learn RandomForestRegressor; Breiman 2001)")
class RandomForestRegressor(_Regressor):
    """Random forest of ``trees`` regression trees (``sklearn.ensemble``), each model seeded
    from its own SeedSequence.

    Examples
    --------
    >>> RandomForestRegressor(trees=50).name
    'rf-reg[trees=50]'
    """

    def __init__(self, trees: int = 100, loss: str = "squared") -> None:
        from sklearn.ensemble import RandomForestRegressor as _RF

        super().__init__(_RF(n_estimators=int(trees)), "rf-reg",
                         {"trees": None if trees == 100 else trees}, loss, "impute")


@register_learner("knn-reg", description="k nearest neighbours regressor on standardised "
                  "inputs, [k=5] (scikit-learn KNeighborsRegressor)")
class KNNRegressor(_Regressor):
    """Mean response of the ``k`` nearest training instances (Euclidean, standardised
    inputs; ``sklearn.neighbors.KNeighborsRegressor``).

    Examples
    --------
    >>> KNNRegressor().name
    'knn-reg'
    """

    def __init__(self, k: int = 5, loss: str = "squared") -> None:
        from sklearn.neighbors import KNeighborsRegressor

        super().__init__(KNeighborsRegressor(n_neighbors=int(k)), "knn-reg",
                         {"k": None if k == 5 else k}, loss, "standardize")
