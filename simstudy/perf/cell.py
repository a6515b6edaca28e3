"""The whole-cell benchmark entry of ``python -m simstudy perf``: named ``cell``.

One cell of Alpaydın's type I study -- MLP-10 vs MLP-10 on iris, 100 runs of 5x2 cv, both
the 5x2cv t and the combined F -- computed by the engine (batched learners, fitted once per
fold, both tests from the same fold losses) against the way it is usually done: an
mlxtend loop that calls ``paired_ttest_5x2cv`` and ``combined_ftest_5x2cv`` per run, each
refitting both scikit-learn models on every fold.  Both sides run in this process on the same
data; the reference is timed on fewer runs and scaled per run (said in the entry).
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np


def _reference_loop(X: np.ndarray, y: np.ndarray, runs: int) -> float:
    from ..learners import get_learner

    pipe_a = get_learner("mlp-10", reference=True).pipeline()
    pipe_b = get_learner("mlp-10", reference=True).pipeline()
    try:
        from mlxtend.evaluate import combined_ftest_5x2cv, paired_ttest_5x2cv
    except ImportError:  # the same work, written out: 2 tests x 5 x 2 folds x 2 fits per run
        from sklearn.base import clone
        from sklearn.model_selection import train_test_split

        def paired_ttest_5x2cv(estimator1, estimator2, X, y, random_seed):
            rng = np.random.RandomState(random_seed)
            for _ in range(5):
                s = rng.randint(0, 2**31 - 1)
                a, b, ya, yb = train_test_split(X, y, test_size=0.5, random_state=s)
                for (tr, ytr, te, yte) in ((a, ya, b, yb), (b, yb, a, ya)):
                    for est in (estimator1, estimator2):
                        clone(est).fit(tr, ytr).score(te, yte)

        combined_ftest_5x2cv = paired_ttest_5x2cv

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in range(runs):
            for test in (paired_ttest_5x2cv, combined_ftest_5x2cv):
                try:
                    test(estimator1=pipe_a, estimator2=pipe_b, X=X, y=y, random_seed=r)
                except ZeroDivisionError:
                    pass  # mlxtend divides 0/0 when both models err alike: the fits are done
    return time.perf_counter() - t0


def cell_entry(quick: bool = False, runs: int = 100) -> dict[str, Any]:
    """Time the whole cell both ways; ``speedup`` = reference seconds / engine seconds."""
    from ..planning import Chunk
    from ..runner import compute_chunk
    from ..study import Cell
    from ..trialdata import source_of

    cell = Cell("iris", ("mlp-10", "mlp-10"), "5x2", ("t5x2cv", "F5x2cv"))
    compute_chunk(Chunk("perf", cell, (0,), 0, 0.05))  # warm-up: imports, JIT, caches
    t0 = time.perf_counter()
    records = compute_chunk(Chunk("perf", cell, tuple(range(runs)), 0, 0.05))
    fast_s = time.perf_counter() - t0
    data = source_of("iris").sample(np.random.default_rng(0))
    ref_runs = 3 if quick else 10
    ref_s = _reference_loop(data.X, data.y, ref_runs) * runs / ref_runs
    return {
        "name": "cell",
        "dataset": "iris",
        "reference_s": ref_s,
        "fast_s": fast_s,
        "speedup": ref_s / fast_s,
        "n_models": runs * 10 * 2,
        "runs": runs,
        "trials_computed": len(records),
        "reference": f"mlxtend-style loop, 2 tests x 10 folds x 2 fits per run; timed on "
                     f"{ref_runs} runs and scaled to {runs}",
        "fast": "simstudy runner: one batched fit per learner per fold, both tests from the "
                "same fold losses",
    }
