"""The batch interface every learner implements.

A learner is asked for a *batch* of models at once: ``B`` pairs of (train, test) masks
over one ``X``.  The default implementation loops over scikit-learn fits; fast paths
override :meth:`Learner.fit_predict` and fit the whole batch as matrix work.

Randomness: model ``b`` draws only from ``np.random.default_rng(seeds[b])``.  So a model's
predictions depend on its data and its own seed, never on which other models share the
batch -- which is what makes results independent of chunking, workers and backend.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def frozen(a: Any, dtype: Any = None) -> np.ndarray:
    """``a`` as a C-contiguous read-only array: a view, or a copy if dtype or layout differ.

    Compiled kernels are specialised on each argument's writability as well as its dtype and
    layout.  Data sets' arrays are read-only, arrays built in tests or by users are not, and
    a kernel given both compiles twice (about a minute for J48's kernels).  Inputs a kernel
    only reads go through here, so every caller reaches the same compiled signature.
    """
    v = np.ascontiguousarray(a, dtype=dtype).view()
    v.flags.writeable = False
    return v


class Learner:
    """A named classification algorithm that fits batches of models.

    Subclasses set :attr:`name` (canonical id, e.g. ``"mlp-10"``) and implement
    :meth:`fit_predict`.
    """

    name: str = "learner"
    # True when the cost of a call grows with the models' own rows only (index-based
    # learners): the runner may then stack several generated trials into one X and call once
    stack_trials: bool = False
    #: preprocessing the reference path fits per training fold before the estimator:
    #: "standardize" (impute + standardise), "impute" (mean imputation only) or "none"
    preprocess: str = "standardize"
    #: what it predicts ("classification": class codes; "regression": real numbers) and
    #: the per-instance loss of a prediction (:data:`LOSSES`)
    task: str = "classification"
    loss: str = "01"
    #: the implementation's stable id, recorded with every trial it fits
    #: (:func:`simstudy.provenance.learner_impl`): declared by each class, so moving or
    #: renaming a module does not make stored trials look fitted by another implementation
    impl_id: str | None = None

    def fit_predict(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        seeds: Sequence[np.random.SeedSequence],
    ) -> np.ndarray:
        """Fit one model per row of ``train`` and predict the rows of ``test``.

        Parameters
        ----------
        X : (n, d) float64, ``nan`` = missing (impute/standardise on the training rows only).
        y : (n,) int64 class codes ``0..C-1``; ``C = y.max() + 1`` over the whole data set.
        train, test : (B, n) bool masks.
        seeds : B SeedSequences, one per model.

        Returns
        -------
        (B, n) int64 predictions; only positions where ``test`` is True are meaningful
        (others may be ``-1``).
        """
        raise NotImplementedError

    def reference_estimator(self) -> Any | None:
        """The scikit-learn configuration this learner must match (``None`` if there is none).

        The reference path (:class:`simstudy.learners.reference.SklearnLearner`) clones it
        per model, after the preprocessing named by :attr:`preprocess`.
        """
        return None

    def prepare(self, data: Any) -> Learner:
        """Bind data-set facts a learner may need (e.g. nominal groups for naive Bayes).

        ``data`` is a :class:`simstudy.core.Dataset`; the runner calls this once per data
        set before :meth:`fit_predict`.  The default returns ``self`` unchanged.
        """
        return self

    def __repr__(self) -> str:
        return f"<Learner {self.name}>"


#: per-instance losses of a prediction ``p`` of ``y``: 0/1 (classification), squared and
#: absolute error (regression)
LOSSES: dict[str, str] = {"01": "classification", "squared": "regression",
                          "absolute": "regression"}


def instance_losses(pred: np.ndarray, y: np.ndarray, loss: str) -> np.ndarray:
    """Per-instance losses of predictions ``pred`` of ``y`` (broadcast), float64.

    Examples
    --------
    >>> instance_losses(np.array([1.0, 3.0]), np.array([2.0, 2.0]), "squared").tolist()
    [1.0, 1.0]
    >>> instance_losses(np.array([0, 1]), np.array([0, 0]), "01").tolist()
    [0.0, 1.0]
    """
    from ..errors import unknown

    if loss == "01":
        return (pred != y).astype(np.float64)
    d = np.asarray(pred, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    if loss == "squared":
        return d * d
    if loss == "absolute":
        return np.abs(d)
    raise unknown("loss", loss, LOSSES)


def check_task(learner: Learner, task: str, source: str) -> None:
    """One line when a learner cannot learn a source's task (a regression learner on a
    classification source, or the reverse).

    Examples
    --------
    >>> check_task(Learner(), "classification", "iris")
    """
    from ..errors import SimstudyError

    have = getattr(learner, "task", "classification")
    if have != task:
        raise SimstudyError(f"learner {learner.name!r} is a {have} learner and cannot learn "
                            f"source {source!r}, a {task} source; give it a {have} source "
                            f"or a {task} learner")
