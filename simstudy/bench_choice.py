"""A best-of-K method on a K-learner study's stored trials: :func:`simstudy.benchmark.bench_choice`.

Kept as a name for imports; the code lives in :mod:`simstudy.benchmark` beside the pairwise
bench, both calling the user's function through :mod:`simstudy.usertest`.
"""

from .benchmark import ALL, NONE, bench_choice

__all__ = ["ALL", "NONE", "bench_choice"]
