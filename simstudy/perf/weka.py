"""perf rows for the Weka learners (``wnb``, ``ib1``, ...): speed on Bouckaert & Frank's
Table 5 shape.

Their reference is Weka, not scikit-learn, and Weka is not run here; that they predict what
Weka 3.6.14 predicts is the suite's to check, on the committed fixtures
(``tests/test_learners_weka.py``, ``tests/weka/``).  Timing: ``n_models`` models (1000,
quick; 2300 = Table 5's 230 splits × 10, full) on 300 rows × 10 binary nominal attributes
(``binary300``: random, class = ``[x1 + x2 + x3 + e >= 2]`` with ``e ~ Bernoulli(0.3)``),
each model trained on a random 90 % and tested on the rest.
``fast_s`` is wall time on all numba threads (best of 3); ``fast_cpu_us_per_model_1_thread``
the CPU time per model on one thread (best of 3, measured first).  ``reference_s``/``speedup``
are ``nan``: Weka's own per-fit time is measured beside ours by ``nox -s perf-weka``
(:mod:`.weka_peer`).
"""

from __future__ import annotations

import time
from typing import Any

import numba
import numpy as np


def binary300(seed: int = 5) -> Any:
    """300 × 10 binary nominal attributes, binary class (a :class:`~simstudy.core.Dataset`)."""
    import pandas as pd

    from ..sources.encode import encode

    rng = np.random.default_rng(seed)
    X = rng.integers(0, 2, (300, 10))
    y = (X[:, :3].sum(axis=1) + (rng.random(300) < 0.3) >= 2).astype(int)
    df = pd.DataFrame({f"b{j}": X[:, j].astype(str) for j in range(10)})
    df["class"] = y.astype(str)
    return encode(df, "binary300", nominal=list(df.columns[:-1]))


def weka_entry(name: str, quick: bool, seed: int = 0) -> dict[str, Any]:
    """One perf row for Weka learner ``name``."""
    from ..learners import get_learner

    ds = binary300()
    B = 1000 if quick else 2300
    rng = np.random.default_rng(seed)
    train = rng.random((B, ds.n)) < 0.9
    learner = get_learner(name).prepare(ds)
    # CPU time on one numba thread first, of the calling thread (where all the work runs
    # then): before any multi-threaded call of this row, and blind to idle workers that
    # earlier rows' parallel kernels left spinning
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        learner.fit_predict(ds.X, ds.y, train[:2], ~train[:2])  # warm-up (JIT, caches)
        cpus = []
        for _ in range(3):
            c0 = time.thread_time()
            learner.fit_predict(ds.X, ds.y, train, ~train)
            cpus.append(time.thread_time() - c0)
    finally:
        numba.set_num_threads(threads)
    times = []
    for _ in range(3):  # best of 3: the machine is shared
        t0 = time.perf_counter()
        pred = learner.fit_predict(ds.X, ds.y, train, ~train)
        times.append(time.perf_counter() - t0)
    fast_s = min(times)
    test = ~train
    return {
        "name": name,
        "dataset": "binary300",
        "n": ds.n,
        "d": int(ds.X.shape[1]),
        "n_models": B,
        "fast_s": fast_s,
        "reference_s": float("nan"),
        "speedup": float("nan"),
        "fast_us_per_model": 1e6 * fast_s / B,
        "fast_cpu_us_per_model_1_thread": 1e6 * min(cpus) / B,
        "threads": threads,
        "fast_error": float(np.mean(pred[test] != np.broadcast_to(ds.y, train.shape)[test])),
        "reference": "Weka 3.6.14 (its predictions: tests/test_learners_weka.py)",
        "source": "numpy: 10 binary attributes, class = [x1 + x2 + x3 + e >= 2], e ~ B(0.3)",
    }
