"""Statistical tests and measures of the five papers: pure functions on arrays, no I/O.

``d`` is always an array of differences of error rates, learner A minus learner B, and
``alternative='greater'`` means H1: A's error > B's.  Every test returns a frozen
:class:`TestResult` (``statistic``, ``pvalue``, ``df``, ``alternative``); an undefined
statistic (zero variance) gives ``statistic=nan, pvalue=1.0``.  Bad input raises
:class:`~simstudy.errors.SimstudyError`.
"""

from ._result import TestResult
from .multiple import (
    CORRECTIONS,
    MultiTestResult,
    NewmanKeulsResult,
    TestFirstResult,
    anova,
    looney_f,
    multiple_rejections,
    multitest,
    multitest_order,
    newman_keuls,
    testfirst,
)
from .pairwise import (
    ALTERNATIVES,
    DF_BALANCED_EQ7,
    dof_balanced,
    ftest_5x2cv,
    ftest_5x2cv_batch,
    ftest_balanced_5x2cv,
    mcnemar,
    proportions_test,
    ttest_5x2cv,
    ttest_5x2cv_batch,
    ttest_blocked_3x2cv,
    ttest_corrected_repeated_kfold,
    ttest_corrected_resampled,
    ttest_kfold,
    ttest_repeated_kfold,
    ttest_resampled,
)
from .replicability import (
    ConsistencyResult,
    consistency,
    consistency_from_counts,
    replicability,
)

__all__ = [
    "ALTERNATIVES",
    "CORRECTIONS",
    "DF_BALANCED_EQ7",
    "ConsistencyResult",
    "MultiTestResult",
    "NewmanKeulsResult",
    "TestFirstResult",
    "TestResult",
    "anova",
    "consistency",
    "consistency_from_counts",
    "dof_balanced",
    "ftest_5x2cv",
    "ftest_5x2cv_batch",
    "ftest_balanced_5x2cv",
    "looney_f",
    "mcnemar",
    "multiple_rejections",
    "multitest",
    "multitest_order",
    "newman_keuls",
    "proportions_test",
    "replicability",
    "testfirst",
    "ttest_5x2cv",
    "ttest_5x2cv_batch",
    "ttest_blocked_3x2cv",
    "ttest_corrected_repeated_kfold",
    "ttest_corrected_resampled",
    "ttest_kfold",
    "ttest_repeated_kfold",
    "ttest_resampled",
]
