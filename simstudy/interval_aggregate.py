"""Aggregate the interval studies' stored trials: coverage, width and misses per method.

For every cell of an interval study (``ci-synthetic``, ``ci-real``: the cell's label
``intervals`` names the methods that read its design), every trial and every target -- the
error of learner 0, of learner 1, and the difference learner 0 - learner 1 -- the method's
interval at ``level`` (:mod:`simstudy.stats.interval_registry`) is set against

* the **conditional truth** of the trial: the fitted models' errors on fresh data, stored
  with the trial (:mod:`simstudy.interval_truth`, ``Err_XY`` of Bates, Hastie &
  Tibshirani 2024);
* the **unconditional truth** of the cell: the mean of the conditional truths over the
  cell's trials read (``Err``), with its standard error.

Counted per (cell, method, target): runs, intervals covering each truth, intervals missing
below (the truth lies below the interval) and above, and the mean width.  Shares come with
Wilson (1927) 95 % intervals (:func:`simstudy.aggregate.wilson`).  The trials are read
through a reader object (:class:`simstudy.store.Store` or
:class:`simstudy.trials.ShippedTrials`): the store's per-instance losses and the shipped
sums give the same intervals bit for bit.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .aggregate import wilson
from .core import FoldLosses, LossSums, NestedSums, loss_sums
from .errors import SimstudyError
from .study import Study

__all__ = ["LEVEL", "coverage_counts", "coverage_table"]

#: the level of the studies' intervals: Bates, Hastie & Tibshirani (2024)'s 90 %
LEVEL = 0.9


def _targets(learners: tuple[str, ...]) -> list[tuple[str, int, int | None]]:
    """(label, a, b) of each target: each learner's error, then learner 0 - learner 1."""
    out = [(f"error {name}", k, None) for k, name in enumerate(learners)]
    if len(learners) >= 2:
        out.append((f"difference {learners[0]} - {learners[1]}", 0, 1))
    return out


def coverage_counts(reader: object, study: Study, level: float = LEVEL,
                    cells: list[str] | None = None) -> pd.DataFrame:
    """Counts of coverage, misses and the mean width per (cell, method, target).

    Parameters
    ----------
    reader : Store or ShippedTrials
        Holds the study's trials with their losses and truths.
    study : Study
        The interval study (its cells' ``intervals`` labels name the methods).
    level : float
        Confidence level of every interval.
    cells : list of str, optional
        Only these cell ids.

    Returns
    -------
    DataFrame
        One row per (cell, method, target): ``study, cell, source, n, design, method,
        target, runs, covered, covered_unconditional, below, above, width`` (mean),
        ``truth_unconditional`` and ``truth_unconditional_se``; cells without trials are
        left out.

    Examples
    --------
    >>> import simstudy as ss, tempfile, os
    >>> from simstudy.catalog import get_study
    >>> d = tempfile.mkdtemp()
    >>> _ = ss.run("ci-synthetic", runs=3, store=os.path.join(d, "s.sqlite"),
    ...            filter="logistic[[]n=100]/*/5x2", progress=False, render="none")
    >>> from simstudy.store import Store
    >>> with Store(os.path.join(d, "s.sqlite"), readonly=True) as st:
    ...     df = coverage_counts(st, get_study("ci-synthetic"))
    >>> sorted(set(df.method)), int(df.runs.iloc[0])
    (['conservative-z', 't5x2cv'], 3)
    """
    from .designs import get_design
    from .stats.interval_registry import get_interval
    from .stats.intervals import check_level

    level = check_level(level)
    rows = []
    for cell in study.cells:
        if cells is not None and cell.id not in cells:
            continue
        ct = reader.fold_errors([cell.id], study.seed).get(cell.id)
        if ct is None or ct.T == 0:
            continue
        truth = reader.truths(cell.id, study.seed)
        if truth is None or np.isnan(truth).any():
            raise SimstudyError(f"cell {cell.id!r}: {reader.describe()} holds trials without "
                                f"a numeric truth; an interval study stores one per trial")
        losses = reader.losses(cell.id, study.seed)
        design = get_design(cell.design)
        # each trial's sums once (the methods read them; from instances or shipped sums)
        fls = [FoldLosses(ct.errors[i], ct.n_train[i], ct.n_test[i], _reduced(losses[i]))
               for i in range(ct.T)]
        del losses
        for target, a, b in _targets(cell.learners):
            cond = truth[:, a] if b is None else truth[:, a] - truth[:, b]
            uncond = float(cond.mean())
            se = float(cond.std(ddof=1) / np.sqrt(cond.size)) if cond.size > 1 else np.nan
            for m in cell.label("intervals"):
                if b is not None and "binomial" in m:  # one learner's 0/1 error only
                    continue
                meth = get_interval(m)
                ci = np.empty((ct.T, 2))
                for i, fl in enumerate(fls):
                    try:
                        ci[i] = meth(fl, design, a, b).confidence_interval(level)
                    except SimstudyError as e:
                        raise SimstudyError(f"cell {cell.id!r}, run {int(ct.runs[i])}: {e}"
                                            ) from None
                lo, hi = ci[:, 0], ci[:, 1]
                rows.append({
                    "study": study.name, "cell": cell.id, "source": cell.source,
                    "n": cell.label("n"), "design": cell.design, "method": m,
                    "target": target, "runs": ct.T,
                    "covered": int(((lo <= cond) & (cond <= hi)).sum()),
                    "covered_unconditional": int(((lo <= uncond) & (uncond <= hi)).sum()),
                    "below": int((cond < lo).sum()), "above": int((cond > hi).sum()),
                    "width": float((hi - lo).mean()), "truth_unconditional": uncond,
                    "truth_unconditional_se": se})
    return pd.DataFrame(rows)


def _reduced(x):
    """A trial's losses as sums (shipped sums pass through)."""
    if x is None or isinstance(x, LossSums | NestedSums):
        return x
    return loss_sums(x)


def coverage_table(counts: pd.DataFrame) -> pd.DataFrame:
    """Shares with their Wilson 95 % intervals from :func:`coverage_counts`: coverage of
    the conditional and the unconditional truth, the shares missed below and above.

    Examples
    --------
    >>> c = pd.DataFrame({"runs": [100], "covered": [90], "covered_unconditional": [80],
    ...                   "below": [4], "above": [6]})
    >>> t = coverage_table(c)
    >>> round(float(t.coverage[0]), 2), round(float(t.coverage_low[0]), 4)
    (0.9, 0.8256)
    """
    df = counts.copy()
    n = df["runs"].to_numpy()
    for col, name in (("covered", "coverage"), ("covered_unconditional",
                                                 "coverage_unconditional"),
                      ("below", "below_share"), ("above", "above_share")):
        k = df[col].to_numpy()
        df[name] = k / n
        df[f"{name}_low"], df[f"{name}_high"] = wilson(k, n)
    return df
