"""How much ``compare`` saves against mlxtend's calls, side by side in one process.

Cases (each: the median of ``repeats`` interleaved runs; wall and this process's CPU time
apart, BLAS on one thread throughout):

``sklearn estimators``
    ``compare([GaussianNB(), DecisionTreeClassifier()], X, y, tests=["t5x2cv", "F5x2cv"],
    design="5x2")`` against mlxtend's ``paired_ttest_5x2cv`` plus ``combined_ftest_5x2cv``
    on the same estimators: 20 fits against 40 (target: >= 2x less CPU).
``j48 vs wnb``, ``mlp-10 vs lp``
    ``compare`` of the registered learners (every fold of a learner in one batched call)
    against mlxtend's two calls on the equivalent scikit-learn models (J48: an unpruned
    entropy tree with 2 instances per leaf; Weka's NaiveBayes: GaussianNB; mlp-10 and lp:
    their reference configurations, imputed and standardised per fold; target: >= 20x).

and, per registered learner, what one model per call costs against the batch of a design's
ten folds in one call (``single`` vs ``batched`` microseconds per fit).

Compiled learners are called once before timing (their first call compiles).  ``write``
puts ``figures/perf-compare.json`` and ``.md`` with the commit and the load average
(``nox -s perf-compare``).
"""

from __future__ import annotations

import json
import os
import statistics
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from .provenance import checkout

__all__ = ["benchmark", "markdown", "write"]

TARGETS = {"sklearn estimators": 2.0, "j48 vs wnb": 20.0, "mlp-10 vs lp": 20.0}


def _equivalents() -> dict[str, Any]:
    from sklearn.impute import SimpleImputer
    from sklearn.naive_bayes import GaussianNB
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.tree import DecisionTreeClassifier

    from ..learners import get_learner

    def std(est):
        return make_pipeline(SimpleImputer(), StandardScaler(), est)

    return {"j48": DecisionTreeClassifier(criterion="entropy", min_samples_leaf=2,
                                          random_state=0),
            "wnb": GaussianNB(),
            "mlp-10": std(get_learner("mlp-10").reference_estimator().set_params(
                random_state=0)),
            "lp": std(get_learner("lp").reference_estimator())}


def _data(name: str) -> tuple[np.ndarray, np.ndarray]:
    from ..sources import get_source

    d = get_source(name).sample(np.random.default_rng(0))
    return np.asarray(d.X, dtype=np.float64), np.asarray(d.y)


def _timed(fn) -> tuple[float, float]:
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def _case(label: str, ours, theirs, repeats: int) -> dict[str, Any]:
    ours()  # compiles what a first call compiles, loads what it loads
    theirs()
    o, t = [], []
    for _ in range(repeats):  # interleaved: a load change hits both sides alike
        o.append(_timed(ours))
        t.append(_timed(theirs))
    ow, oc = statistics.median(x[0] for x in o), statistics.median(x[1] for x in o)
    tw, tc = statistics.median(x[0] for x in t), statistics.median(x[1] for x in t)
    return {"case": label, "compare_wall_s": ow, "compare_cpu_s": oc, "mlxtend_wall_s": tw,
            "mlxtend_cpu_s": tc, "cpu_ratio": tc / oc, "wall_ratio": tw / ow,
            "target": TARGETS[label], "repeats": repeats}


def _single_vs_batched(name: str, X: np.ndarray, y: np.ndarray, repeats: int
                       ) -> dict[str, Any]:
    from ..designs import get_design
    from ..learners import get_learner
    from ..seeding import ModelSeeds

    train = get_design("5x2").masks(y, np.random.default_rng(0)).reshape(10, -1)
    test = ~train
    seeds = ModelSeeds(0, "perf-compare", (0,), 0, 10)
    ln = get_learner(name)
    yy = np.unique(y, return_inverse=True)[1].astype(np.int64)

    def batched():
        ln.fit_predict(X, yy, train, test, seeds)

    def single():
        for b in range(10):
            ln.fit_predict(X, yy, train[b:b + 1], test[b:b + 1], seeds[b:b + 1])

    batched()
    single()
    bt = statistics.median(_timed(batched)[1] for _ in range(repeats))
    st = statistics.median(_timed(single)[1] for _ in range(repeats))
    return {"learner": name, "batched_us_per_fit": bt / 10 * 1e6,
            "single_us_per_fit": st / 10 * 1e6, "single_over_batched": st / bt}


def benchmark(repeats: int = 5) -> dict[str, Any]:
    """Run every case; a dict of the results, the machine's load and the commit."""
    from mlxtend.evaluate import combined_ftest_5x2cv, paired_ttest_5x2cv
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    from ..blas import one_thread
    from ..yourmodels import compare

    load_before = os.getloadavg()
    code = checkout(("simstudy",))  # the code measured, before anything changes it
    t0 = time.perf_counter()
    eq = _equivalents()
    rows, single = [], []
    with one_thread(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence warnings of the mlxtend side's MLP
        cases = [("sklearn estimators", "credit-g",
                  [GaussianNB(), DecisionTreeClassifier(random_state=0)], None),
                 ("j48 vs wnb", "credit-g", ["j48", "wnb"], [eq["j48"], eq["wnb"]]),
                 ("mlp-10 vs lp", "breast-w", ["mlp-10", "lp"], [eq["mlp-10"], eq["lp"]])]
        for label, data, models, peers in cases:
            X, y = _data(data)
            peers = peers or models

            def ours(models=models, X=X, y=y):
                compare(models, X, y, design="5x2", tests=["t5x2cv", "F5x2cv"],
                        measured=False)

            def theirs(peers=peers, X=X, y=y):
                paired_ttest_5x2cv(peers[0], peers[1], X, y, random_seed=0)
                combined_ftest_5x2cv(peers[0], peers[1], X, y, random_seed=0)

            row = _case(label, ours, theirs, repeats)
            row.update(data=data, n=int(X.shape[0]), d=int(X.shape[1]))
            rows.append(row)
            if isinstance(models[0], str):
                single += [_single_vs_batched(m, X, y, repeats) for m in models]
    import mlxtend
    import sklearn

    return {"cases": rows, "single": single, "load_before": load_before,
            "load_after": os.getloadavg(), "cpus": os.cpu_count(),
            "seconds": time.perf_counter() - t0, "checkout": code,
            "versions": {"mlxtend": mlxtend.__version__, "sklearn": sklearn.__version__},
            "repeats": repeats}


def markdown(res: dict[str, Any]) -> str:
    """The results as figures/perf-compare.md."""
    c = res["checkout"]
    lines = ["# compare against mlxtend's calls",
             "",
             f"Commit {c['commit']}" + (" (with local changes)" if c.get("dirty") else "")
             + f"; mlxtend {res['versions']['mlxtend']}, scikit-learn "
             f"{res['versions']['sklearn']}; {res['cpus']} CPUs, load average "
             f"{res['load_before'][0]:.1f} before and {res['load_after'][0]:.1f} after; "
             f"median of {res['repeats']} interleaved repeats per side, BLAS on one thread, "
             "compiled learners called once before timing.  Each side computes the 5x2 cv t "
             "and the combined F for one pair: `compare(..., tests=['t5x2cv', 'F5x2cv'], "
             "design='5x2')` against mlxtend's `paired_ttest_5x2cv` plus "
             "`combined_ftest_5x2cv` (20 fits against 40).",
             "",
             "| case | data (n x d) | compare CPU s | mlxtend CPU s | CPU ratio | "
             "compare wall s | mlxtend wall s | wall ratio | target |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|"]
    for r in res["cases"]:
        lines.append(f"| {r['case']} | {r['data']} ({r['n']} x {r['d']}) | "
                     f"{r['compare_cpu_s']:.3f} | {r['mlxtend_cpu_s']:.3f} | "
                     f"x{r['cpu_ratio']:.1f} | {r['compare_wall_s']:.3f} | "
                     f"{r['mlxtend_wall_s']:.3f} | x{r['wall_ratio']:.1f} | "
                     f">= x{r['target']:g} |")
    lines += ["",
              "One model per call against the batch: the ten folds of a 5x2 design fitted "
              "in one `fit_predict` call (`compare`'s path) or in ten calls of one model "
              "each (CPU microseconds per fit, median):",
              "",
              "| learner | batched us/fit | one per call us/fit | one per call / batched |",
              "|---|---:|---:|---:|"]
    for r in res["single"]:
        lines.append(f"| {r['learner']} | {r['batched_us_per_fit']:,.0f} | "
                     f"{r['single_us_per_fit']:,.0f} | x{r['single_over_batched']:.2f} |")
    lines += ["", f"Total {res['seconds']:.0f} s."]
    return "\n".join(lines) + "\n"


def write(out: str | os.PathLike = "figures/perf-compare", repeats: int = 5) -> list[Path]:
    """Run :func:`benchmark` and write ``OUT.json`` and ``OUT.md``."""
    res = benchmark(repeats)
    stem = Path(out)
    stem.parent.mkdir(parents=True, exist_ok=True)
    paths = [stem.with_suffix(".json"), stem.with_suffix(".md")]
    paths[0].write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    paths[1].write_text(markdown(res), encoding="utf-8")
    return paths
