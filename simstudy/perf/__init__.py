"""Benchmarks: ``python -m simstudy perf`` (each fast learner path beside its reference).

* :mod:`.learners` -- the learner benchmark (``run_perf``; ``benchmark``: as the command runs it);
* :mod:`.cell` -- the whole-cell entry (``cell``: a study cell against an mlxtend loop);
* :mod:`.weka` -- the Weka learners' rows (agreement with Weka's own predictions);
* :mod:`.j48` -- ``j48`` beside scikit-learn's entropy tree.
"""

from .learners import KEYS, benchmark, run_perf

__all__ = ["KEYS", "benchmark", "run_perf"]
