"""``rt[cp=0.01,minsplit=20]``: the least-squares regression tree pruned as R's ``rpart`` does.

Wang, Li & Li (2016, §3.1 (A)) train "a least square RT" and threshold its leaf value at 0.5;
their group's public R code grows trees with ``rpart`` (and ``tree``), whose defaults prune:
a split is kept only if it lowers the tree's lack of fit by at least ``cp`` times the root's
(``rpart.control``: cp = 0.01, minsplit = 20, minbucket = round(minsplit / 3), maxdepth 30;
Therneau & Atkinson, *An Introduction to Recursive Partitioning Using the RPART Routines*,
§4 and §6.1).  rpart's complexity of a subtree T is ``R(T) + cp · |splits(T)| · R(root)``
with R the sum of squared errors; dividing by n gives scikit-learn's minimal cost-complexity
pruning with ``ccp_alpha = cp · R(root)/n = cp · Var(y_train)`` (population variance), so
this learner is ``DecisionTreeRegressor(min_samples_split=minsplit, min_samples_leaf=
round(minsplit/3), max_depth=30, ccp_alpha=cp·Var(y))`` fitted to the 0/1 indicator of the
larger class code (several classes: one multi-output tree on the class indicators, argmax of
the leaf means; ``ccp_alpha`` from the mean of their variances, as scikit-learn averages the outputs' MSE), predicting that class iff the leaf
mean is > 0.5, as :class:`~simstudy.learners.trees.RegressionTree`.  Differences from
rpart: ties between equally good splits are broken differently, and rpart also skips a
split whose improvement is below cp during growth (here the full tree is grown and pruned,
which keeps the same optimal subtree except on ties).  Inputs: the training-fold mean
imputes ``nan`` (rpart uses surrogate splits; the Wang data have no missing values).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import SimstudyError
from ..spec import format_spec
from .base import Learner
from .preprocess import fold_stats
from .registry import register_learner


class RpartTree(Learner):
    """rpart-like cost-complexity pruned least-squares tree, thresholded at 0.5."""

    impl_id = 'simstudy.learners.rt_rpart:RpartTree'

    preprocess = "impute"
    stack_trials = True

    def __init__(self, cp: float = 0.01, minsplit: int = 20, max_depth: int = 30) -> None:
        if isinstance(cp, bool) or not isinstance(cp, (int, float)) or not cp >= 0:
            raise SimstudyError(f"rt: cp must be a number >= 0, got {cp!r}")
        for k, v in (("minsplit", minsplit), ("max_depth", max_depth)):
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise SimstudyError(f"rt: {k} must be a positive integer, got {v!r}")
        self.cp, self.minsplit, self.max_depth = float(cp), int(minsplit), int(max_depth)
        self.minbucket = max(1, int(np.floor(self.minsplit / 3 + 0.5)))  # R's round(minsplit/3)
        params: dict[str, object] = {"cp": cp, "minsplit": minsplit}
        if max_depth != 30:
            params["max_depth"] = max_depth
        self.name = format_spec("rt", params)

    def _tree(self, ccp_alpha: float):
        from sklearn.tree import DecisionTreeRegressor

        return DecisionTreeRegressor(min_samples_split=self.minsplit,
                                     min_samples_leaf=self.minbucket, max_depth=self.max_depth,
                                     ccp_alpha=ccp_alpha, random_state=0)

    def fit_predict(self, X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                    seeds: Sequence[np.random.SeedSequence]) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        train = np.asarray(train, dtype=bool)
        test = np.asarray(test, dtype=bool)
        C = int(y.max()) + 1
        out = np.full(train.shape, -1, dtype=np.int64)
        mean, _ = fold_stats(X, train, standardize=False)
        missing = np.isnan(X)
        for b in range(train.shape[0]):
            tr, te = np.flatnonzero(train[b]), np.flatnonzero(test[b])
            if te.size == 0:
                continue
            Z = np.where(missing, mean[b], X) if missing.any() else X
            if C == 2:
                t = (y[tr] == 1).astype(np.float64)
                alpha = self.cp * float(t.var())
            else:
                t = np.eye(C)[y[tr]]
                alpha = self.cp * float(t.var(axis=0).mean())  # sklearn averages outputs
            m = self._tree(alpha).fit(Z[tr], t)
            p = m.predict(Z[te])
            out[b, te] = (p > 0.5).astype(np.int64) if C == 2 else np.argmax(p, axis=1)
        return out


@register_learner("rt", params={"max_depth", "cp", "minsplit"},
                  description="least-squares regression tree, thresholded at 0.5 (Wang et al. "
                  "2016); [cp=,minsplit=]: pruned as R's rpart")
def _rt(**params: object) -> Learner:
    """``rt``: :class:`~simstudy.learners.trees.RegressionTree` (fully grown); with ``cp`` or
    ``minsplit`` given, :class:`RpartTree`."""
    if "cp" in params or "minsplit" in params:
        return RpartTree(**params)
    from .trees import RegressionTree

    return RegressionTree(**params)
