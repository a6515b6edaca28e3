"""Drop-in replacements for peers' functions, computed with simstudy's tests.

:mod:`simstudy.compat.mlxtend`: ``paired_ttest_5x2cv``, ``combined_ftest_5x2cv``,
``paired_ttest_kfold_cv``, ``paired_ttest_resampled``, ``mcnemar`` and ``mcnemar_table``
with mlxtend's signatures, defaults and numbers.
"""
