"""Learners: a registry of named learners, the scikit-learn reference path, fast paths.

``get_learner("nmc")`` -> batched fast path; ``get_learner("nmc", reference=True)`` -> the
scikit-learn reference it must match.  See :mod:`simstudy.learners.registry` for the names
and how a learner registers itself (``@register_learner``).

Files by family: ``baseline`` (max), ``linear`` (nmc, lda, ls), ``neighbours`` (1nn),
``bayes`` (nb), ``neural/`` (lp, lgc, mlp-<h>: one file per solver), ``svm``, ``trees/``
(c45, rf, ab, rt; ``rt_rpart`` registers ``rt`` and its rpart-like pruning), ``gbm`` (R's
gbm: the paper variants), ``weka/`` (j48, wnb, ib1); ``_batched`` (what the batched fast paths share),
``preprocess`` (per-fold imputation and standardisation), ``reference`` (scikit-learn paths).
"""

from typing import Any

from .base import Learner
from .registry import (
    LEARNERS,
    describe_learners,
    get_learner,
    list_learners,
    register,
    register_learner,
)

__all__ = ["LEARNERS", "Learner", "SklearnLearner", "describe_learners", "get_learner",
           "list_learners", "register", "register_learner"]


def __getattr__(name: str) -> Any:
    # the reference path imports scikit-learn: only when it is asked for
    if name == "SklearnLearner":
        from .reference import SklearnLearner

        return SklearnLearner
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
