"""Statistical tests and measures of the five papers, and the tests proposed since
(docs/baselines.md): pure functions on arrays, no I/O.

``d`` is always an array of differences of error rates, learner A minus learner B, and
``alternative='greater'`` means H1: A's error > B's.  Every test returns a frozen
:class:`TestResult` (``statistic``, ``pvalue``, ``df``, ``alternative``); an undefined
statistic (zero variance) gives ``statistic=nan, pvalue=1.0``.  Bad input raises
:class:`~simstudy.errors.SimstudyError`.
"""

from ._result import TestResult
from .bayes import (
    BayesResult,
    correlated_bayesian_ttest,
    correlated_bayesian_ttest_batch,
    decision_shares,
)
from .folds import (
    combined_ttest_5x2cv,
    conservative_z,
    sign_test,
    wilcoxon_signed_rank,
)
from .instances import (
    cv_clt,
    mcnemar_exact,
    mcnemar_midp,
    paired_bootstrap_test,
    paired_permutation_test,
)
from .mcs import MCSResult, model_confidence_set
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
    ftest_balanced_5x2cv,
    mcnemar,
    proportions_test,
    ttest_5x2cv,
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
    "BayesResult",
    "ConsistencyResult",
    "MCSResult",
    "MultiTestResult",
    "NewmanKeulsResult",
    "TestFirstResult",
    "TestResult",
    "anova",
    "combined_ttest_5x2cv",
    "consistency",
    "consistency_from_counts",
    "conservative_z",
    "correlated_bayesian_ttest",
    "correlated_bayesian_ttest_batch",
    "cv_clt",
    "decision_shares",
    "dof_balanced",
    "ftest_5x2cv",
    "ftest_balanced_5x2cv",
    "looney_f",
    "mcnemar",
    "mcnemar_exact",
    "mcnemar_midp",
    "model_confidence_set",
    "multiple_rejections",
    "multitest",
    "multitest_order",
    "newman_keuls",
    "paired_bootstrap_test",
    "paired_permutation_test",
    "proportions_test",
    "replicability",
    "sign_test",
    "testfirst",
    "ttest_5x2cv",
    "ttest_blocked_3x2cv",
    "ttest_corrected_repeated_kfold",
    "ttest_corrected_resampled",
    "ttest_kfold",
    "ttest_repeated_kfold",
    "ttest_resampled",
    "wilcoxon_signed_rank",
]
