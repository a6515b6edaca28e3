"""Test oracles: second implementations the suite compares the package's code with.

They live here, not in ``simstudy``: the package ships one implementation of each idea.
``pytest`` puts ``tests/`` on ``sys.path`` (no ``__init__.py`` there), so a test imports
them as ``from oracles.pairwise_batch import ttest_5x2cv_batch``.
"""
