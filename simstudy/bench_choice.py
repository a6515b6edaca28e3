"""Benchmark a new best-of-K method on a K-learner study's stored trials (no refitting).

The user's function is ``g(errors, *, alpha)`` with ``errors`` one trial's (K, R, F) fold
error rates ((K, 5, 2) for 5×2 cv), learners in the cell's order (for Yıldız & Alpaydın
2006: decreasing prior preference, index 0 the simplest); it returns the index of the best
learner, or ``None`` when it finds none (a ``(best, order)`` tuple is accepted too).  It may
declare ``g.designs`` (design names or kinds it reads); other cells are skipped.

:func:`bench_choice` runs ``g`` on every stored trial of the study and tabulates how often it
picks each learner or none, beside the study's stored choice methods (re-decided from the
stored errors when ``alpha`` differs from the stored one), per cell and over all cells (the
layout of Yıldız & Alpaydın 2006, Table 3).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable

import numpy as np
import pandas as pd

from .bench import stored_trials
from .errors import SimstudyError
from .spec import parse_spec
from .store import Store
from .study import Study

NONE = "not_found"
ALL = "(all cells)"


def _best(out: object, K: int, cell: str, run: int) -> int:
    """A user's return value as a learner index, -1 for none; anything else is an error."""
    if isinstance(out, tuple) and len(out) == 2:
        out = out[0]
    if out is None:
        return -1
    if isinstance(out, numbers.Integral) and not isinstance(out, bool) and 0 <= int(out) < K:
        return int(out)
    raise SimstudyError(
        f"a choice function must return a learner index 0..{K - 1} or None, got {out!r} "
        f"(cell {cell!r}, run {run})")


def _fits(fn: Callable, design: str) -> bool:
    declared = getattr(fn, "designs", None)
    return declared is None or design in declared or parse_spec(design)[0] in declared


def _stored(study: Study, store: Store, alpha: float) -> pd.DataFrame:
    """Stored choice rows (a < 0) of the study, re-decided at ``alpha`` if needed."""
    from .aggregate import collect

    res = collect(study, store, alpha=alpha).results
    if res.empty:
        return pd.DataFrame(columns=["cell", "run", "method", "best"])
    res = res[res["a"] < 0]
    stat = res["statistic"].astype(float).to_numpy()
    return pd.DataFrame({"cell": res["cell"].to_numpy(), "run": res["run"].to_numpy(),
                         "method": res["test"].to_numpy(),
                         "best": np.where(np.isnan(stat), -1, np.nan_to_num(stat, nan=-1))
                         .astype(int)})


def bench_choice(fn: Callable, study: Study, store: Store, *, name: str = "new",
                 alpha: float | None = None) -> pd.DataFrame:
    """Choice frequencies (%) of ``fn`` beside the study's stored choice methods.

    Returns one row per (cell, method) plus one per method over all cells (cell
    ``"(all cells)"``): ``runs``, ``not_found`` and one column per learner (the cells'
    learner names when every cell has the same learners, else ``L0``, ``L1``, ...), each the
    percentage of runs; ``count_*`` columns hold the counts.
    """
    alpha = study.alpha if alpha is None else float(alpha)
    trials = stored_trials(study, store)
    cells = {c.id: c for c in study.cells}
    rows = []
    for tr in trials.itertuples(index=False):
        cell = cells[tr.cell]
        if not _fits(fn, cell.design):
            continue
        K = tr.errors.shape[0]
        try:  # a copy of the errors: g may scribble on it
            out = fn(np.array(tr.errors, dtype=np.float64), alpha=alpha)
        except Exception as e:  # noqa: BLE001 - the user's code: one line naming the trial
            raise SimstudyError(f"the choice function raised on cell {tr.cell!r}, run {tr.run}: "
                                f"{type(e).__name__}: {e}") from None
        rows.append((tr.cell, int(tr.run), name, _best(out, K, tr.cell, int(tr.run))))
    if not rows:
        raise SimstudyError(f"the function fits no design of study {study.name!r} "
                            f"(designs: {sorted({c.design for c in study.cells})})")
    new = pd.DataFrame(rows, columns=["cell", "run", "method", "best"])
    base = _stored(study, store, alpha)
    base = base[base["cell"].isin(new["cell"].unique())]
    both = pd.concat([base, new], ignore_index=True)

    learner_sets = {cells[c].learners for c in new["cell"].unique()}
    K = max(len(ls) for ls in learner_sets)
    names = list(next(iter(learner_sets))) if len(learner_sets) == 1 else [
        f"L{k}" for k in range(K)]
    methods = list(dict.fromkeys(list(base["method"]) + [name]))
    out = []

    def row(cell: str, method: str, b: np.ndarray) -> dict:
        n = len(b)
        counts = [int((b == -1).sum())] + [int((b == k).sum()) for k in range(K)]
        d = {"cell": cell, "method": method, "runs": n}
        for col, c in zip([NONE, *names], counts, strict=True):
            d[col] = 100.0 * c / n if n else np.nan
        for col, c in zip([NONE, *names], counts, strict=True):
            d[f"count_{col}"] = c
        return d

    for cid in [c.id for c in study.cells if c.id in set(new["cell"])]:
        g = both[both["cell"] == cid]
        for m in methods:
            b = g.loc[g["method"] == m, "best"].to_numpy()
            if len(b):
                out.append(row(cid, m, b))
    for m in methods:
        out.append(row(ALL, m, both.loc[both["method"] == m, "best"].to_numpy()))
    return pd.DataFrame(out)
