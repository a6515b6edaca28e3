"""Aggregate stored trials: reject proportions with Wilson intervals and Monte-Carlo SE."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from .store import Store
from .study import Study


def wilson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for ``k`` successes in ``n`` (scipy's binomtest)."""
    if n == 0:
        return float("nan"), float("nan")
    ci = sps.binomtest(int(k), int(n)).proportion_ci(confidence_level=confidence, method="wilson")
    return float(ci.low), float(ci.high)


def reject_table(results: pd.DataFrame, alpha: float | None = None,
                 confidence: float = 0.95) -> pd.DataFrame:
    """One row per cell x test (x pair): rejects, runs, proportion, Wilson CI and MC SE.

    ``alpha=None`` uses the decisions stored with each trial; a number recomputes them
    from the stored p-values.
    """
    cols = ["cell", "test", "a", "b", "rejects", "runs", "proportion", "ci_low", "ci_high", "mcse"]
    if results.empty:
        return pd.DataFrame(columns=cols)
    res = results.copy()
    if alpha is not None:
        res["reject"] = (res["pvalue"] < alpha).astype(int)
    g = res.groupby(["cell", "test", "a", "b"], sort=False)["reject"].agg(["sum", "count"])
    rows = []
    for (cell, test, a, b), (k, n) in g.iterrows():
        p = k / n
        lo, hi = wilson(k, n, confidence)
        rows.append((cell, test, int(a), int(b), int(k), int(n), p, lo, hi,
                     float(np.sqrt(p * (1 - p) / n))))
    return pd.DataFrame(rows, columns=cols)


@dataclass
class StudyResult:
    """Everything a study's rendering needs, read back from the store."""

    study: Study
    table: pd.DataFrame     # reject_table joined with the cells' labels
    trials: pd.DataFrame    # one row per trial, errors decoded (K x R x F)
    results: pd.DataFrame   # one row per trial x test x pair

    def mean_errors(self) -> pd.DataFrame:
        """Mean and sd of test-fold error per cell and learner position (over runs x folds)."""
        rows = []
        for cell, g in self.trials.groupby("cell", sort=False):
            E = np.stack(list(g["errors"]))  # (T, K, R, F)
            for k in range(E.shape[1]):
                e = E[:, k].ravel()
                rows.append((cell, k, float(e.mean()), float(e.std(ddof=1)) if e.size > 1 else 0.0))
        return pd.DataFrame(rows, columns=["cell", "learner", "error_mean", "error_sd"])


def collect(study: Study, store: Store, alpha: float | None = None) -> StudyResult:
    """Read a study's trials (runs < study.runs, the study's seed) and aggregate them."""
    ids = [c.id for c in study.cells]
    trials = store.trials(ids, seed=study.seed, runs=study.runs)
    results = store.results(ids, seed=study.seed, runs=study.runs)
    table = reject_table(results, alpha=alpha)
    labels = study.grid().rename(columns={"tests": "cell_tests"})
    # a label named like a table column (e.g. "test") keeps its value under "label_<name>"
    labels = labels.rename(columns={c: f"label_{c}" for c in labels.columns
                                    if c != "cell" and c in table.columns})
    table = table.merge(labels, on="cell", how="left")
    order = {cid: i for i, cid in enumerate(ids)}  # the study's own cell order
    table = table.sort_values("cell", key=lambda c: c.map(order), kind="stable")
    table = table.reset_index(drop=True)
    return StudyResult(study, table, trials, results)
