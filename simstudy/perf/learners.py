"""``python -m simstudy perf``: time each fast path beside its scikit-learn reference.

Both run in this process on the same masks (5×2 random halves: ``runs × 10`` models; quick:
10 runs = 100 models, full: 100 runs = 1000 models).  The reference is slow, so it is timed
on at most ``ref_models`` of those masks and its time is scaled per model to the full
batch (the ``reference_models`` field says on how many it ran); the deterministic learners
also report how many reference predictions the fast path reproduced (``agree``).
A one-off warm-up (numba compilation, imports) is run first and not timed.

Data: iris, wine and optdigits (the bundled files via :func:`simstudy.sources.get_source`;
scikit-learn's ``load_*`` copies if that fails -- its "digits" is the 1,797-row version of
optdigits), and for the tree learners a two-class Gaussian set with n = 200 made here.
1-NN memory: the peak of numpy allocations (``tracemalloc``) while 1-NN fits 20 models on
pendigits and optdigits (``peak_mb``).
"""

from __future__ import annotations

import json
import time
import tracemalloc
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import SimstudyError

FAST_DETERMINISTIC = ("max", "nmc", "1nn", "lda", "ls", "nb")
NEURAL = ("lp", "lgc", "mlp-10")
TREES = ("rt", "rf", "ab")
# the paper variant's per-pattern online backprop vs MLPClassifier(solver="sgd", batch_size=1), same rule
ONLINE_MLP = "mlp-10[activation=logistic,alpha=0,epochs=100,eta=0.02,init=0.01,solver=online]"
WEKA = ("wnb", "ib1", "j48")  # rows by simstudy.perf.weka (speed; Weka's predictions: the suite)
KEYS = ("name", "dataset", "n", "d", "n_models", "fast_s", "reference_s", "speedup")


def load(name: str) -> tuple[Any, str]:
    """A :class:`~simstudy.core.Dataset` by name (bundled, else scikit-learn's copy)."""
    from ..core import Dataset

    if name == "gauss200":
        rng = np.random.default_rng(2016)
        y = np.repeat([0, 1], 100)
        X = rng.normal(size=(200, 2)) + y[:, None] * np.array([1.0, 1.0])
        return Dataset("gauss200", X, y, ("0", "1")), "numpy: N((0,0),I) vs N((1,1),I), 100 each"
    try:
        from ..sources import get_source

        ds = get_source(name).sample(np.random.default_rng(0))
        return ds, "bundled"
    except Exception as exc:  # noqa: BLE001 - sources may not be ready: fall back
        from sklearn import datasets

        loader = {"iris": datasets.load_iris, "wine": datasets.load_wine, "optdigits": datasets.load_digits}
        if name not in loader:
            raise
        X, y = loader[name](return_X_y=True)
        note = f"sklearn copy ({type(exc).__name__} from get_source)"
        return Dataset(name, np.asarray(X, float), np.asarray(y, np.int64), tuple(map(str, np.unique(y)))), note


def halves(n: int, runs: int, rng: np.random.Generator) -> np.ndarray:
    """(runs·10, n) training masks: 5 random halvings per run, both folds of each."""
    rows = []
    for _ in range(runs * 5):
        m = rng.permutation(n) < n // 2
        rows += [m, ~m]
    return np.array(rows)


def _time(learner: Any, ds: Any, train: np.ndarray, seeds: Sequence[Any]) -> tuple[float, np.ndarray]:
    t0 = time.perf_counter()
    pred = learner.fit_predict(ds.X, ds.y, train, ~train, seeds)
    return time.perf_counter() - t0, pred


def entry(name: str, dataset: str, *, runs: int, ref_models: int, seed: int = 0) -> dict[str, Any] | None:
    """Time learner ``name`` (fast vs reference) on ``dataset``; None if it has no fast path."""
    from ..learners import SklearnLearner, get_learner

    ds, source = load(dataset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = get_learner(name).prepare(ds)
        ref = get_learner(name, reference=True).prepare(ds)
    if isinstance(fast, SklearnLearner):
        return None  # the fast path is not importable: nothing to compare
    train = halves(ds.n, runs, np.random.default_rng(seed))
    seeds = np.random.SeedSequence(seed).spawn(len(train))
    B = len(train)
    k = min(B, ref_models)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast.fit_predict(ds.X, ds.y, train[:2], ~train[:2], seeds[:2])  # warm-up (JIT)
        ref.fit_predict(ds.X, ds.y, train[:1], ~train[:1], seeds[:1])
        fast_s, pf = _time(fast, ds, train, seeds)
        ref_k, pr = _time(ref, ds, train[:k], seeds[:k])
    reference_s = ref_k / k * B
    test = ~train[:k]
    Y = np.broadcast_to(ds.y, train.shape)
    out = {
        "name": name,
        "dataset": dataset,
        "n": ds.n,
        "d": int(ds.X.shape[1]),
        "n_models": B,
        "fast_s": fast_s,
        "reference_s": reference_s,
        "speedup": reference_s / fast_s if fast_s > 0 else float("inf"),
        "reference_models": k,
        "reference_scaled": k < B,
        "fast_ms_per_model": 1e3 * fast_s / B,
        "reference_ms_per_model": 1e3 * ref_k / k,
        "agree": float(np.mean(pf[:k][test] == pr[test])),
        "fast_error": float(np.mean(pf[~train] != Y[~train])),
        "reference_error": float(np.mean(pr[test] != Y[:k][test])),
        "source": source,
    }
    if name == "c45":
        out.update(_c45_per_level(ds, train[:k], seeds[:k], pf[:k], fast_s / B))
    return out


def _c45_per_level(ds: Any, train: np.ndarray, seeds: Sequence[Any], fast_pred: np.ndarray,
                   fast_per_model: float, models: int = 10) -> dict[str, Any]:
    """``c45``'s previous path beside it: :class:`PrunedTree` (one refit per ``ccp_alpha`` of
    the cost-complexity path, chosen on the same hold-out) on the first ``models`` masks:
    the one-pass path's speed-up over it, and how often the two pruning rules agree."""
    from ..learners import SklearnLearner
    from ..learners.reference import PrunedTree

    k = min(models, len(train))
    old = SklearnLearner(PrunedTree(), preprocess="impute")
    t0 = time.perf_counter()
    po = old.fit_predict(ds.X, ds.y, train[:k], ~train[:k], seeds[:k])
    per = (time.perf_counter() - t0) / k
    return {
        "per_level_ms_per_model": 1e3 * per,
        "per_level_models": k,
        "speedup_vs_per_level": per / fast_per_model if fast_per_model > 0 else float("inf"),
        "agree_per_level": float(np.mean(fast_pred[:k][~train[:k]] == po[~train[:k]])),
    }


def memory_1nn(dataset: str, models: int = 20) -> dict[str, Any] | None:
    """Peak numpy allocation (tracemalloc) while 1-NN fits ``models`` folds of ``dataset``."""
    from ..learners import get_learner

    try:
        ds, source = load(dataset)
    except Exception:  # noqa: BLE001 - pendigits has no scikit-learn copy
        return None
    learner = get_learner("1nn")
    train = halves(ds.n, 1, np.random.default_rng(1))[: min(models, 10)]
    train = np.concatenate([train] * max(1, models // len(train)))[:models]
    seeds = np.random.SeedSequence(1).spawn(len(train))
    learner.fit_predict(ds.X, ds.y, train[:1], ~train[:1], seeds[:1])
    tracemalloc.start()
    t0 = time.perf_counter()
    learner.fit_predict(ds.X, ds.y, train, ~train, seeds)
    fast_s = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "name": "1nn-memory",
        "dataset": dataset,
        "n": ds.n,
        "d": int(ds.X.shape[1]),
        "n_models": len(train),
        "fast_s": fast_s,
        "reference_s": float("nan"),
        "speedup": float("nan"),
        "peak_mb": peak / 1e6,
        "source": source,
    }


# ----------------------------------------------------------------------------------
# HOOK for the lead: whole-cell entries (e.g. one named "cell") are appended here.
def extra_entries(quick: bool) -> list[dict[str, Any]]:
    """Extra benchmark entries (the whole-cell entry named ``cell`` goes here).

    Each must carry at least the keys in :data:`KEYS`.
    """
    from .cell import cell_entry

    return [cell_entry(quick)]


# ----------------------------------------------------------------------------------


def plan(quick: bool) -> list[tuple[str, str, int]]:
    """(learner, dataset, reference model cap) of a benchmark run."""
    p: list[tuple[str, str, int]] = []
    for ds in ("iris", "wine", "optdigits"):
        for name in FAST_DETERMINISTIC:
            p.append((name, ds, 20 if ds == "optdigits" else 100))
    for ds in ("iris", "wine"):
        for name in NEURAL:
            p.append((name, ds, 10 if quick else 50))
    for ds in ("gauss200", "iris"):
        for name in TREES:
            p.append((name, ds, 20 if quick else 100))
    p.append(("c45", "credit-g", 20 if quick else 100))  # the 1000-instance set of the j48 timing
    p.append((ONLINE_MLP, "iris", 2 if quick else 5))
    p += [(name, "binary300", 0) for name in WEKA]  # Bouckaert & Frank's Table 5 shape
    return p


def run_perf(
    quick: bool = False,
    json_path: str | Path | None = None,
    *,
    only: Sequence[str] | None = None,
    datasets: Sequence[str] | None = None,
    runs: int | None = None,
    memory: bool = True,
    echo: bool = True,
) -> list[dict[str, Any]]:
    """Run the benchmark; returns one dict per (learner, data set) and writes JSON if asked.

    ``only``/``datasets``/``runs``/``memory`` restrict the run (tests use a tiny one).
    """
    runs = runs if runs is not None else (10 if quick else 100)
    results: list[dict[str, Any]] = []
    for name, ds, cap in plan(quick):
        if (only and name not in only) or (datasets and ds not in datasets):
            continue
        try:
            if name in WEKA:
                from .weka import weka_entry

                e = weka_entry(name, quick)
                if name == "j48":  # per fit vs scikit-learn's entropy tree on credit-g
                    from .j48 import versus_sklearn

                    e.update(versus_sklearn(quick))
            else:
                e = entry(name, ds, runs=runs, ref_models=cap)
        except Exception as exc:  # noqa: BLE001 - report and go on with the others
            e = {"name": name, "dataset": ds, "error": f"{type(exc).__name__}: {exc}"}
        if e is not None:
            results.append(e)
            if echo:
                print(_row(e), flush=True)
    if memory:
        for ds in ("optdigits", "pendigits"):
            if datasets and ds not in datasets:
                continue
            m = memory_1nn(ds)
            if m is not None:
                results.append(m)
                if echo:
                    print(_row(m), flush=True)
    if not only or "cell" in only:
        for e in extra_entries(quick):
            results.append(e)
            if echo:
                print(f"{e['name']:<10} {e['dataset']:<10} B={e['n_models']:<5} fast "
                      f"{e['fast_s']:8.3f}s ref {e['reference_s']:8.1f}s* x{e['speedup']:7.1f}"
                      f"  ({e['reference']})", flush=True)
    if json_path is not None:
        Path(json_path).write_text(json.dumps(results, indent=1, default=float))
    return results


def _row(e: dict[str, Any]) -> str:
    if "error" in e:
        return f"{e['name']:<10} {e['dataset']:<10} ERROR {e['error']}"
    extra = f" peak {e['peak_mb']:.0f} MB" if "peak_mb" in e else ""
    ref = (
        f"ref {e['reference_s']:8.3f}s{'*' if e.get('reference_scaled') else ' '}"
        if np.isfinite(e["reference_s"])
        else " " * 14
    )
    sp = f"x{e['speedup']:7.1f}" if np.isfinite(e["speedup"]) else " " * 8
    agree = f" agree {e['agree']:.4f}" if "agree" in e else ""
    if "speedup_vs_per_level" in e:
        agree += f" (x{e['speedup_vs_per_level']:.0f} vs per-level refit)"
    if "credit_g_speedup_vs_sklearn" in e:
        agree += (f" ({e['binary300_cpu_us_per_fit']:.0f} us CPU per fit; credit-g: "
                  f"x{e['credit_g_speedup_vs_sklearn']:.1f} vs sklearn entropy tree per fit, CPU, one thread; "
                  f"x{e.get('credit_g_speedup_vs_sklearn_wall', float('nan')):.1f} wall, "
                  f"{e.get('j48_threads', 1)} threads)")
    elif "fast_cpu_us_per_model_1_thread" in e:
        agree += f" ({e['fast_cpu_us_per_model_1_thread']:.0f} us CPU per model, one thread)"
    return (
        f"{e['name']:<10} {e['dataset']:<10} n={e['n']:<6} B={e['n_models']:<5} "
        f"fast {e['fast_s']:8.4f}s {ref} {sp}{agree}{extra}"
    )


def benchmark(quick: bool = False, json_path: str | Path | None = None) -> list[dict[str, Any]]:
    """The whole benchmark as ``python -m simstudy perf`` runs it: a header, then one line per
    entry as it is measured, both sides on one BLAS thread.

    Parameters
    ----------
    quick : bool
        100 models per entry and fewer reference fits (a smoke test) instead of 1000.
    json_path : str or Path, optional
        Also write the entries here as JSON; checked before the minutes of measuring.

    Returns
    -------
    list of dict
        One entry per (learner, data set), as :func:`run_perf` returns them.

    Examples
    --------
    >>> benchmark(json_path="/no/such/folder/perf.json")
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: the JSON file '/no/such/folder/perf.json' must be a file in an existing directory
    """
    if json_path is not None:  # before minutes of benchmarks, not after
        jp = Path(json_path)
        if jp.is_dir() or not jp.parent.is_dir():
            raise SimstudyError(f"the JSON file {str(json_path)!r} must be a file in an "
                                "existing directory")
    print("learner    data       size         fast time      reference (* = scaled per model)")
    from threadpoolctl import threadpool_limits

    # both sides on one BLAS thread: on a shared 2-core machine multi-threaded BLAS stalls
    # unpredictably, which would make either side's timing meaningless
    with threadpool_limits(limits=1):
        return run_perf(quick=quick, json_path=json_path)
