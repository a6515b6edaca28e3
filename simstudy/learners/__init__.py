"""Learners: a registry of named learners, the scikit-learn reference path, fast paths.

``get_learner("nmc")`` -> batched fast path; ``get_learner("nmc", reference=True)`` -> the
scikit-learn reference it must match.  See :mod:`simstudy.learners.registry` for the names.
"""

from .base import Learner
from .reference import SklearnLearner
from .registry import describe_learners, get_learner, list_learners, register

__all__ = ["Learner", "SklearnLearner", "describe_learners", "get_learner", "list_learners",
           "register"]
