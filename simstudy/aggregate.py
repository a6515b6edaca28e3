"""Aggregate stored trials: reject proportions with Wilson intervals and Monte-Carlo SE."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import stats as sps

from .errors import SimstudyError
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

    ``ci_low``, ``ci_high`` are Wilson intervals at ``confidence``.  Decisions are taken
    here, from the stored p-values: reject when ``pvalue < alpha``
    (an undefined p-value never rejects).  ``alpha=None`` uses each row's ``alpha`` column
    (the study's alpha when the row was stored), or a ``reject`` column when there is no
    ``alpha`` column.  Choice-method rows (``a < 0``) are not
    reject decisions and are left out.
    """
    cols = ["cell", "test", "a", "b", "rejects", "runs", "proportion", "ci_low", "ci_high", "mcse"]
    if not 0 < confidence < 1:
        raise SimstudyError(f"confidence must be in (0, 1), got {confidence!r}")
    if results.empty:
        return pd.DataFrame(columns=cols)
    res = results[results["a"] >= 0].copy()
    if res.empty:
        return pd.DataFrame(columns=cols)
    if alpha is not None or "alpha" in res.columns:
        level = res["alpha"].astype(float) if alpha is None else float(alpha)
        res["reject"] = (res["pvalue"].astype(float) < level).astype(int)
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
    confidence: float = 0.95  # the level of the table's Wilson intervals

    def mean_errors(self) -> pd.DataFrame:
        """Mean and sd of test-fold error per cell and learner position (over runs x folds)."""
        rows = []
        for cell, g in self.trials.groupby("cell", sort=False):
            E = np.stack(list(g["errors"]))  # (T, K, R, F)
            for k in range(E.shape[1]):
                e = E[:, k].ravel()
                rows.append((cell, k, float(e.mean()), float(e.std(ddof=1)) if e.size > 1 else 0.0))
        return pd.DataFrame(rows, columns=["cell", "learner", "error_mean", "error_sd"])


def asked_results(study: Study, results: pd.DataFrame) -> pd.DataFrame:
    """The rows of the tests each cell asks for, in the study's cell and test order."""
    if results.empty:
        return results
    cell_pos = {c.id: i for i, c in enumerate(study.cells)}
    test_pos = {(c.id, t): j for c in study.cells for j, t in enumerate(c.tests)}
    key = [test_pos.get((c, t), -1) for c, t in zip(results["cell"], results["test"], strict=True)]
    out = results.assign(_t=key, _c=results["cell"].map(cell_pos))
    out = out[out["_t"] >= 0].sort_values(["_c", "run", "_t", "a", "b"], kind="stable")
    return out.drop(columns=["_t", "_c"]).reset_index(drop=True)


def _choices_at(study: Study, trials: pd.DataFrame, results: pd.DataFrame,
                alpha: float) -> pd.DataFrame:
    """Choice-method rows re-decided at ``alpha`` from the stored fold errors (no refit)."""
    from .core import FoldLosses
    from .runner import evaluate
    from .stats.registry import is_choice

    sel = (results["a"] < 0) & (results["alpha"].astype(float) != alpha)
    if not sel.any():
        return results
    by_id = {c.id: c for c in study.cells}
    rows = []
    for tr in trials.itertuples(index=False):
        cell = by_id[tr.cell]
        names = tuple(t for t in cell.tests if is_choice(t))
        if not names:
            continue
        for r in evaluate(cell, FoldLosses(tr.errors, tr.n_train, tr.n_test), alpha, tr.run, names):
            v = r.values(tr.cell, int(tr.seed), int(tr.run))
            rows.append(dict(zip(results.columns, v, strict=True)))
    fresh = pd.DataFrame(rows, columns=results.columns)
    fresh["statistic"] = fresh["statistic"].astype(float)
    return pd.concat([results[~(results["a"] < 0)], fresh], ignore_index=True)


def collect(study: Study, store: Store, alpha: float | None = None,
            confidence: float = 0.95) -> StudyResult:
    """Read a study's trials (runs < study.runs, the study's seed) and aggregate them.

    Decisions are taken at ``alpha`` (default: the study's alpha) from the stored
    p-values; choice methods are re-decided from the stored errors when ``alpha`` differs
    from the one they were stored at.  ``result.study.alpha`` is the alpha used.  The
    table's Wilson intervals are at ``confidence``.
    """
    if alpha is not None and float(alpha) != study.alpha:
        study = study.replace(alpha=float(alpha))
    alpha = study.alpha
    ids = [c.id for c in study.cells]
    trials = store.trials(ids, seed=study.seed, runs=study.runs)
    results = store.results(ids, seed=study.seed, runs=study.runs)
    if not results.empty:
        results = asked_results(study, _choices_at(study, trials, results, alpha))
    table = reject_table(results, alpha=alpha, confidence=confidence)
    labels = study.grid().rename(columns={"tests": "cell_tests"})
    from .truth import truth_labels  # issue 16: "H0", "H1 (Δ=…)" or "unknown" per cell

    labels["truth"] = labels["cell"].map({k: v["truth"] for k, v in truth_labels(study).items()})
    # a label named like a table column (e.g. "test") keeps its value under "label_<name>"
    labels = labels.rename(columns={c: f"label_{c}" for c in labels.columns
                                    if c != "cell" and c in table.columns})
    table = table.merge(labels, on="cell", how="left")
    order = {cid: i for i, cid in enumerate(ids)}  # the study's own cell order
    table = table.sort_values("cell", key=lambda c: c.map(order), kind="stable")
    table = table.reset_index(drop=True)
    return StudyResult(study, table, trials, results, confidence)


def collect_seeds(study: Study, store: Store, seeds, alpha: float | None = None) -> StudyResult:
    """One :class:`StudyResult` over several root seeds (``run --seeds N``).

    ``trials`` and ``results`` hold every seed's rows (their ``seed`` column tells them
    apart; the store keys trials by (cell, seed, run)), so a rendering can show the spread
    over seeds; ``table`` and ``study`` are those of the first seed.
    """
    parts = [collect(study.replace(seed=int(s)), store, alpha) for s in seeds]
    if not parts:
        raise SimstudyError("collect_seeds needs at least one seed")
    trials = pd.concat([p.trials for p in parts], ignore_index=True)
    results = pd.concat([p.results for p in parts], ignore_index=True)
    return StudyResult(parts[0].study, parts[0].table, trials, results)
