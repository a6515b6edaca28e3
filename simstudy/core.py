"""The few types everything passes around: a data set, and one trial's fold losses."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class Dataset:
    """A classification data set as plain arrays, ready for any learner.

    ``X`` is float64 ``(n, d)`` with ``nan`` for missing values; nominal attributes are
    already one-hot encoded over their declared domain (a missing nominal value is ``nan``
    in all its indicator columns).  Imputation and standardisation are *not* done here:
    learners fit them on each training fold only.  ``y`` holds class codes ``0..C-1``.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    classes: tuple[str, ...]
    feature_names: tuple[str, ...] = ()
    # indices of columns that came from one nominal attribute, per attribute (for NB etc.)
    nominal_groups: tuple[tuple[int, ...], ...] = ()
    X_test: np.ndarray | None = None  # an independent test set (generators only), else None
    y_test: np.ndarray | None = None
    meta: dict = field(default_factory=dict, compare=False)

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def n_classes(self) -> int:
        return len(self.classes)


@dataclass(frozen=True)
class FoldLosses:
    """Everything the tests may read about one trial of one cell.

    ``errors[k, r, f]`` is the test error rate of learner ``k`` on fold ``f`` of
    replication ``r``; ``n_train``/``n_test`` are ``(R, F)`` sizes; ``losses`` is the
    per-instance 0/1 loss ``(K, R, F, n)`` (``-1`` where the instance was not a test
    instance of that fold), kept only when a test needs it.
    """

    errors: np.ndarray
    n_train: np.ndarray
    n_test: np.ndarray
    losses: np.ndarray | None = None

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.errors.shape[1]), int(self.errors.shape[2])

    def diff(self, a: int = 0, b: int = 1) -> np.ndarray:
        """Differences of error rates, learner ``a`` minus learner ``b``, shape (R, F)."""
        return self.errors[a] - self.errors[b]
