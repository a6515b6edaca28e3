"""Benchmarks: ``python -m simstudy perf`` (each fast learner path beside its reference).

* :mod:`.learners` -- the learner benchmark and the command line (``run_perf``, ``main``);
* :mod:`.cell` -- the whole-cell entry (``cell``: a study cell against an mlxtend loop);
* :mod:`.weka` -- the Weka learners' rows (agreement with Weka's own predictions);
* :mod:`.j48` -- ``j48`` beside scikit-learn's entropy tree.
"""

from .learners import KEYS, main, run_perf

__all__ = ["KEYS", "main", "run_perf"]
