"""``max``: the majority-class baseline of Yıldız & Alpaydın (2006), batched (see
:mod:`._batched` for what the fast paths share)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ._batched import FastLearner, _check, _n_classes
from .registry import register_learner


@register_learner("max", description="majority class of the training fold "
                  "(Yıldız & Alpaydın 2006)")
class FastMax(FastLearner):
    """MAX (Yıldız & Alpaydın 2006 §4.1): every test instance gets the training fold's most
    frequent class.  Ties between equally frequent classes go to the lowest class code, as
    ``DummyClassifier(strategy="most_frequent")`` (argmax of its class priors).  All folds'
    class counts come from one matrix product."""

    impl_id = 'simstudy.learners.baseline:FastMax'

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
