"""Aggregate stored trials: reject proportions with Wilson intervals and Monte-Carlo SE."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtri

from .errors import SimstudyError
from .store import Store
from .study import Study


def wilson(k, n, confidence: float = 0.95):
    """Wilson (1927) score interval for ``k`` successes in ``n`` trials.

    The arithmetic of scipy's ``binomtest(k, n).proportion_ci(confidence, "wilson")``
    (Newcombe 1998, eq. 3), step for step, so the bounds are the same floats; written out
    because it also takes arrays (one call for thousands of cells, where scipy's object per
    call costs ~1000x more).  ``n = 0`` gives NaN bounds.  Scalars give a tuple of floats,
    arrays a tuple of arrays.

    >>> lo, hi = wilson(5, 100)
    >>> round(lo, 4), round(hi, 4)
    (0.0215, 0.1118)
    """
    if not 0 < confidence < 1:
        raise SimstudyError(f"confidence must be in (0, 1), got {confidence!r}")
    scalar = np.ndim(k) == 0 and np.ndim(n) == 0
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    z = float(ndtri(0.5 + 0.5 * confidence))
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        denom = 2 * (n + z**2)
        center = (2 * n * p + z**2) / denom
        delta = z / denom * np.sqrt(4 * n * p * (1 - p) + z**2)
        lo = np.where(k == 0, 0.0, center - delta)
        hi = np.where(k == n, 1.0, center + delta)
    lo = np.where(n == 0, np.nan, lo)
    hi = np.where(n == 0, np.nan, hi)
    if scalar:
        return float(lo), float(hi)
    return lo, hi


def tango_paired(n10, n01, n, confidence: float = 0.95):
    """Tango's (1998) asymptotic score interval for the difference of two paired proportions.

    Two tests decided on the same ``n`` trials: ``n10`` trials rejected by the first only,
    ``n01`` by the second only.  The difference delta = p1 - p2 = (n10 - n01) / n; its
    interval is the set of delta0 the score test does not reject (Tango 1998, eqs. 3-5):
    ``T(delta0) = (n10 - n01 - n delta0) / sqrt(n (2 q + delta0 (1 - delta0)))`` with ``q``
    the restricted maximum-likelihood estimate of P(second only) under delta = delta0,
    ``q = (sqrt(B^2 - 4 A C) - B) / (2 A)``, A = 2n, B = -n10 - n01 + (2n - n10 + n01) delta0,
    C = -n01 delta0 (1 - delta0); the bounds solve T = +z and T = -z (bisection, to 1e-12).
    Why this interval: it depends only on the discordant trials, so two correlated tests'
    difference is resolved from far fewer trials than two independent proportions need, and
    it keeps its coverage with few discordant pairs (Fagerland, Lydersen & Laake 2014).
    Arrays broadcast; returns (low, high).

    >>> lo, hi = tango_paired(6, 16, 161)  # Fagerland et al. (2017) Table 8.3: -0.1240, -0.0054
    >>> round(float(lo), 4), round(float(hi), 4)
    (-0.124, -0.0054)
    """
    if not 0 < confidence < 1:
        raise SimstudyError(f"confidence must be in (0, 1), got {confidence!r}")
    b, c, n = np.broadcast_arrays(*(np.asarray(x, dtype=float) for x in (n10, n01, n)))
    z = float(ndtri(0.5 + 0.5 * confidence))

    def score(d0):
        A = 2 * n
        B = -b - c + (2 * n - b + c) * d0
        C = -c * d0 * (1 - d0)
        q = (np.sqrt(np.maximum(B * B - 4 * A * C, 0.0)) - B) / (2 * A)
        var = n * (2 * q + d0 * (1 - d0))
        num = b - c - n * d0
        with np.errstate(divide="ignore", invalid="ignore"):
            # at delta0 = the estimate with no discordant trial both are 0: T = 0 there
            return np.where(num == 0, 0.0, num / np.sqrt(var))

    def solve(target):
        # T decreases in delta0 (Tango 1998, Appendix); bisect T(delta0) = target on (-1, 1)
        lo, hi = np.full(b.shape, -1.0), np.full(b.shape, 1.0)
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            above = score(mid) > target
            lo, hi = np.where(above, mid, lo), np.where(above, hi, mid)
        return 0.5 * (lo + hi)

    with np.errstate(divide="ignore", invalid="ignore"):
        est = (b - c) / n
        low = np.where(est <= -1, -1.0, solve(z))
        high = np.where(est >= 1, 1.0, solve(-z))
    bad = n <= 0
    low, high = np.where(bad, np.nan, low), np.where(bad, np.nan, high)
    if low.ndim == 0:
        return float(low), float(high)
    return low, high


def newcombe_unpaired(k1, n1, k2, n2, confidence: float = 0.95):
    """Newcombe's (1998) hybrid score interval for p1 - p2 of two *independent* proportions
    (his method 10): from the Wilson intervals (l1, u1), (l2, u2),
    ``low = d - sqrt((p1 - l1)^2 + (u2 - p2)^2)``, ``high = d + sqrt((u1 - p1)^2 + (p2 - l2)^2)``.
    What the card sets beside the paired interval: the width two reject rates would have
    if they came from different trials.  Arrays broadcast; returns (low, high).

    >>> lo, hi = newcombe_unpaired(56, 70, 48, 80)  # Newcombe (1998) Table II: 0.0524, 0.3339
    >>> round(float(lo), 4), round(float(hi), 4)
    (0.0524, 0.3339)
    """
    k1, n1, k2, n2 = (np.asarray(x, dtype=float) for x in (k1, n1, k2, n2))
    l1, u1 = wilson(k1, n1, confidence)
    l2, u2 = wilson(k2, n2, confidence)
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p2 = k1 / n1, k2 / n2
    d = p1 - p2
    low = d - np.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + np.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    if np.ndim(low) == 0:
        return float(low), float(high)
    return low, high


def runs_to_resolve(n10, n01, n, delta: float, confidence: float = 0.95):
    """Trials needed for a 95 % interval of half-width ``delta`` on the difference of two
    reject rates, at the discordance seen in ``n`` trials (normal approximation): paired,
    ``z^2 (p10 + p01 - (p10 - p01)^2) / delta^2``; a variance below one discordant trial in
    ``n`` counts as that one (no observed discordance does not mean none).  Returns an
    int64 array (or int)."""
    if not delta > 0:
        raise SimstudyError(f"delta must be a positive difference, got {delta!r}")
    z = float(ndtri(0.5 + 0.5 * confidence))
    b, c, n = (np.asarray(x, dtype=float) for x in (n10, n01, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.maximum((b + c) / n - ((b - c) / n) ** 2, 1.0 / n)
    out = np.ceil(z * z * v / (delta * delta))
    out = np.where(n > 0, out, 0).astype(np.int64)
    return int(out) if out.ndim == 0 else out


def runs_to_resolve_unpaired(k1, k2, n, delta: float, confidence: float = 0.95):
    """As :func:`runs_to_resolve` for two reject rates from independent trials:
    ``z^2 (p1 q1 + p2 q2) / delta^2`` per test (the same floor)."""
    if not delta > 0:
        raise SimstudyError(f"delta must be a positive difference, got {delta!r}")
    z = float(ndtri(0.5 + 0.5 * confidence))
    k1, k2, n = (np.asarray(x, dtype=float) for x in (k1, k2, n))
    with np.errstate(divide="ignore", invalid="ignore"):
        p1, p2 = k1 / n, k2 / n
        v = np.maximum(p1 * (1 - p1) + p2 * (1 - p2), 1.0 / n)
    out = np.ceil(z * z * v / (delta * delta))
    out = np.where(n > 0, out, 0).astype(np.int64)
    return int(out) if out.ndim == 0 else out


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


def pair_name(learners, a: int, b: int) -> str:
    """``nb~j48``; positions added when a spec repeats (``lp#1~lp#2``, ``lp#1~nmc#3``).

    >>> pair_name(("lp", "lp", "nmc"), 0, 2)
    'lp#1~nmc#3'
    """
    if len(set(learners)) == len(learners):
        return f"{learners[a]}~{learners[b]}"
    return f"{learners[a]}#{a + 1}~{learners[b]}#{b + 1}"


def pair_cell(cell, a: int, b: int):
    """The cell with only its learners ``a`` and ``b``: a pair of a K-learner cell as the
    pairwise tests see it.

    >>> from simstudy.study import Cell
    >>> pair_cell(Cell("iris", ("nb", "j48", "ib1"), "5x2", ()), 0, 2).learners
    ('nb', 'ib1')
    """
    import dataclasses

    return dataclasses.replace(cell, learners=(cell.learners[a], cell.learners[b]))


def rejects(p: np.ndarray, alpha: float) -> np.ndarray:
    """The decisions ``p < alpha``, an undefined p-value (NaN) accepting."""
    return np.where(np.isnan(p), np.inf, p) < alpha


def repetitions(study: Study) -> tuple[str, int] | None:
    """How a study repeats a data set, as it declares in its ``meta``: ``("sets", k)`` (runs
    k*i .. k*i+k-1 of a cell share training set i: ``meta["runs_per_set"] = k``), ``("cell",
    runs)`` (every run of a cell re-partitions one fixed data set: ``meta["repetition"] =
    "cell"``, as Bouckaert & Frank's ``replicability`` declares), or None.

    >>> from simstudy.study import Study, cells
    >>> s = Study("x", cells(["iris"], [("nmc", "1nn")], ["5x2"], ["t5x2cv"]), runs=10)
    >>> repetitions(s), repetitions(s.replace(meta={"repetition": "cell"}))
    (None, ('cell', 10))
    """
    meta = study.meta or {}
    k = meta.get("runs_per_set")
    if k:
        return "sets", int(k)
    if meta.get("repetition") == "cell" and study.runs >= 2:
        return "cell", int(study.runs)
    return None


def rejects_per_unit(runs: np.ndarray, p: np.ndarray, alpha: float,
                     mode: tuple[str, int]) -> np.ndarray:
    """Rejections per complete repetition unit of :func:`repetitions`' ``mode``: per training
    set (``("sets", k)``: runs ``k*i .. k*i+k-1``; a set with fewer stored runs is left out)
    or the whole cell (``("cell", runs)``).  Consistency counts are read from these.

    >>> rejects_per_unit(np.arange(6), np.array([0.01, 0.2, 0.03, 0.04, np.nan, 0.5]), 0.05,
    ...                  ("sets", 3)).tolist()
    [2, 1]
    """
    rej = rejects(p, alpha).astype(np.int64)
    kind, k = mode
    if kind == "cell":
        return np.array([int(rej.sum())]) if rej.size == k else np.zeros(0, dtype=np.int64)
    sets = np.asarray(runs) // k
    n = np.bincount(sets)
    c = np.bincount(sets, weights=rej).astype(np.int64)
    return c[n == k]


def named_pairs(result: StudyResult) -> pd.DataFrame:
    """The result's table with a ``pair`` column after ``test`` when a cell compares more
    than two learners (its rows differ only by ``a``, ``b`` otherwise); the table as it is
    when every cell has two."""
    table = result.table
    learners = {c.id: c.learners for c in result.study.cells}
    if table.empty or all(len(learners.get(c, ())) <= 2 for c in table["cell"].unique()):
        return table
    pairs = [pair_name(learners[c], int(a), int(b)) if len(learners.get(c, ())) > 2 else ""
             for c, a, b in zip(table["cell"], table["a"], table["b"], strict=True)]
    out = table.copy()
    out.insert(list(out.columns).index("test") + 1, "pair", pairs)
    return out


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
    from .evaluation import evaluate
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
    from .truth import truth_labels  # "H0", "H1 (Δ=…)" or "unknown" per cell

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
