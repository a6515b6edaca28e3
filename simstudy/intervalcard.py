"""A new interval method's report card: coverage and width beside every baseline interval
method, paired on the same stored trials (no learner is fitted).

The counterpart of the test card (:mod:`simstudy.testcard`) for a method
``g(fold_losses, design, a, b) -> (low, high)`` of the generalization error, called as the
registered interval methods are (:mod:`simstudy.stats.interval_registry`; loading, declared
designs, probing and errors: :class:`simstudy.usertest.UserTest`, kind ``"interval"``).
For every stored trial of every cell of the interval studies (``ci-synthetic``, ``ci-real``)
whose design the method reads, and for every target -- the first learner's error
(``b = None``) and each pair's difference -- the card computes the new interval and the interval of every
registered baseline method that reads the same design, on the same trial, at the same
level, and sets them against the truth (:mod:`simstudy.interval_truth`):

* **coverage** -- of the *conditional* truth (the fitted model's error on a large
  independent sample, ``Err_XY`` of Bates, Hastie & Tibshirani 2024) and of the
  *unconditional* truth (the mean of the conditional truths over the runs read, ``Err``),
  each with its Wilson (1927) 95 % interval, the share missed below (the truth below the
  interval) and above, and the mean width (the metrics of Schulz-Kümpel et al. 2024);
* **paired** -- per cell, target and baseline, on the trials both gave an interval: the
  new coverage minus the baseline's with Tango's (1998) paired interval, and the ratio of
  mean widths (new over baseline) at the level and at matched coverage;
* **matched coverage** (:data:`MATCHING`) -- the counterpart of the test card's power at
  matched size: a narrower interval that covers less is no gain, so each baseline is also
  read at the level where it covers the conditional truth as often as the new method does
  on the trials both read (pooled), and the widths are compared there;
* **verdict** -- one sentence by a stated rule (:data:`RULE`).

Pooled figures pool trials (each cell weighted by its runs).  Widths are compared as
ratios per cell and target (cells differ in loss and scale).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import special

from .aggregate import tango_paired, wilson
from .core import FoldLosses
from .designs import get_design
from .errors import SimstudyError
from .stats.interval_registry import INTERVALS, get_interval
from .stats.intervals import check_level
from .study import Study
from .usertest import (
    UserTest,
    locate,
    no_trials,
    open_readers,
    progress_bar,
    settle_study,
    study_list,
)

__all__ = ["LEVEL", "MATCHING", "RULE", "IntervalCard", "interval_card"]


def interval_studies() -> list[str]:
    """The card's default studies: those shipped whose trials carry a numeric truth
    (a study's ``meta['interval_truth']``), in the catalog's order."""
    from .trials import shipped_studies

    return shipped_studies(intervals=True)


#: default level (Bates, Hastie & Tibshirani 2024 report 90 % intervals)
LEVEL = 0.90
POOLED = "(pooled)"
#: how the card compares widths, stated on the card
MATCHING = ("width at matched coverage: per baseline, on the trials both it and the new "
            "method gave an interval (every cell and target pooled), the baseline is read "
            "at the smallest level at which it covers the conditional truth at least as "
            "often as the new method does; per cell and target, the new method's mean width "
            "over the baseline's at that level")
#: the verdict's rule, stated on the card
RULE = ("the new method holds its level when the level lies in the Wilson 95 % interval "
        "of its pooled coverage of the conditional truth, under-covers when above it, "
        "over-covers when below it; it is set against one baseline, the one read on the "
        "most trials in common whose pooled coverage is nearest its level; it is narrower "
        "on a cell and target when its mean width is below the baseline's at matched "
        "coverage")


@dataclass
class IntervalCard:
    """An interval method's report card: tidy frames, one row per study x cell x target x
    method (``coverage``), x baseline (``paired``), per baseline (``matched``)."""

    name: str
    level: float
    coverage: pd.DataFrame
    paired: pd.DataFrame
    matched: pd.DataFrame
    studies: pd.DataFrame
    verdict: str = ""
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    trials: int = 0
    comparator: str | None = None


def interval_card(fn: Callable | str | UserTest, studies: Sequence[Study | str] | None = None,
                  store=None, *, name: str | None = None, level: float | None = None,
                  runs: int | None = None, seed: int | None = None,
                  baselines: Sequence[str] | None = None, progress: bool | None = None,
                  log: Callable[[str], None] | None = None) -> IntervalCard:
    """The report card of interval method ``fn`` on the stored trials of ``studies``.

    ``fn``: ``g(fold_losses, design, a, b)`` returning ``(low, high)`` or an object with
    ``confidence_interval(level)``; a function, ``"MODULE:FUNCTION"`` or
    ``"path.py:FUNCTION"``.  ``studies``: names or Study objects (default
    :func:`interval_studies`); ``store``: a path, open store or list of them, None for the
    shipped trials.  ``level``: the intervals' level (default ``g.confidence`` if declared,
    else :data:`LEVEL`); a pair ``g`` returns is read at its declared ``g.confidence``.
    ``baselines``: interval method specs (default: every registered method, and the
    variants each cell names in its ``intervals`` label, that reads the cell's design).

    Examples
    --------
    >>> import simstudy as ss, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = ss.run("ci-real", runs=3, store=path, progress=False,
    ...            filter="population[[]data=nursery,n=100]/*/5x2")
    >>> from simstudy.stats.interval_registry import get_interval
    >>> def wide(fl, design, a, b):
    ...     return get_interval("conservative-z")(fl, design, a, b).confidence_interval(0.99)
    >>> wide.confidence = 0.90
    >>> c = interval_card(wide, ["ci-real"], path)
    >>> c.trials, sorted(set(c.coverage["method"]))  # every method that reads 5x2
    (3, ['conservative-z', 'corrected-t', 'cv-clt', 'holdout', 'naive-cv', 't5x2cv', 'wide'])
    """
    test = UserTest.of(fn, name=name, kind="interval")
    if level is None:
        level = test.declared_confidence if test.declared_confidence is not None else LEVEL
    level = check_level(level)
    if (test.declared_confidence is not None
            and not math.isclose(test.declared_confidence, level)):
        raise SimstudyError(f"level {level!r} differs from the interval function's declared "
                            f"g.confidence {test.declared_confidence!r}; the pair it returns "
                            "is at its declared level (drop one of them)")
    for b in baselines or ():
        get_interval(b)  # an unknown name fails here, naming the valid ones
    studies = study_list(studies, interval_studies)
    t0 = time.perf_counter()
    readers, opened = open_readers(store, [s for s in studies if isinstance(s, str)])
    try:
        return _card(test, studies, readers, level, runs, seed,
                     None if baselines is None else tuple(baselines), progress, log, t0)
    finally:
        for r in opened:
            r.close()


# --- one trial's intervals ---------------------------------------------------------------

@dataclass
class _Series:
    """One method's intervals on one cell and target, per trial (nan: undefined)."""

    low: np.ndarray
    high: np.ndarray
    # the baseline's (statistic, standard error, df, errors, n) per trial: its interval at
    # any level (:func:`_at_level`); None for the new method
    stat: np.ndarray | None = None
    se: np.ndarray | None = None
    df: np.ndarray | None = None
    k: np.ndarray | None = None
    n: np.ndarray | None = None


def _quantile(p: float, df: np.ndarray) -> np.ndarray:
    z = special.ndtri(p)
    return np.where(np.isnan(df), z, special.stdtrit(np.where(np.isnan(df), 1.0, df), p))


def _at_level(s: _Series, level: float) -> tuple[np.ndarray, np.ndarray]:
    """A baseline's intervals at another level: ``stat ± q se`` (t(df), or N(0, 1) where df
    is nan), Clopper & Pearson (1934) where it counted errors."""
    q = _quantile((1.0 + level) / 2.0, s.df)
    lo, hi = s.stat - q * s.se, s.stat + q * s.se
    cp = ~np.isnan(s.k)
    if cp.any():
        sub = _Series(s.low, s.high, s.stat, s.se, s.df, s.k[cp], s.n[cp])
        lo[cp], hi[cp] = _cp_at(sub, level)
    bad = ~(np.isfinite(lo) & np.isfinite(hi) & (lo <= hi))
    lo[bad], hi[bad] = np.nan, np.nan
    return lo, hi


def _baseline_series(method, fls: list[FoldLosses], design, a: int, b: int | None,
                     level: float) -> _Series:
    """A registered method on each trial (it reads the design and the trials' losses: the
    caller checked both once, so its function is called directly)."""
    T = len(fls)
    stat, se, df = np.full(T, np.nan), np.full(T, np.nan), np.full(T, np.nan)
    k, n = np.full(T, np.nan), np.full(T, np.nan)
    fn = method.fn
    for i, fl in enumerate(fls):
        r = fn(fl, design, a, b)
        stat[i], se[i] = r.statistic, r.standard_error
        if r.df is not None:
            df[i] = r.df
        if r.counts is not None:
            k[i], n[i] = r.counts
    s = _Series(np.empty(0), np.empty(0), stat, se, df, k, n)
    s.low, s.high = _at_level(s, level)
    return s


def _baselines_for(cell, design, names: tuple[str, ...] | None) -> list[str]:
    """The baseline specs of a cell: those asked for, or every registered method and every
    variant the cell names (its ``intervals`` label) that reads the design."""
    if names is None:
        labelled = tuple(cell.label("intervals", ()))
        names = tuple(dict.fromkeys([*labelled, *sorted(e.name for e in INTERVALS)]))
    return [m for m in names if get_interval(m).fits(design)]


# --- the card -------------------------------------------------------------------------------

def _truths(reader, study: Study, cell, runs: np.ndarray, cache: dict,
            secs: dict) -> np.ndarray:
    """(T, K) conditional truths of the trials: those stored with them (the reader's
    ``truths``), else measured by :func:`simstudy.interval_truth.conditional_truth`
    (shared by a source's cells: cached by source, learners and run) -- a store made
    before truths were stored with the trials."""
    held = getattr(reader, "truths", None)
    out = held(cell.id, study.seed, study.runs) if callable(held) else None
    out = (np.full((len(runs), len(cell.learners)), np.nan) if out is None
           else np.array(out, dtype=float))
    missing = np.flatnonzero(np.isnan(out).any(axis=1))
    if missing.size:  # trials stored without their truth: measured here
        from .interval_truth import conditional_truth

        t = time.perf_counter()
        for i in missing:
            key = (cell.source, cell.learners, study.seed, int(runs[i]))
            if key not in cache:
                cache[key] = conditional_truth(cell, study.seed, int(runs[i])).error
            out[i] = cache[key]
        secs["truth"] += time.perf_counter() - t
        secs["truths measured"] = secs.get("truths measured", 0) + int(missing.size)
    return out


def _card(test: UserTest, studies: list, readers: list, level: float, runs, seed,
          baselines: tuple[str, ...] | None, progress, log, t0: float) -> IntervalCard:
    secs = {"read": 0.0, "truth": 0.0, "baselines": 0.0, "new method": 0.0, "aggregate": 0.0}
    located = []
    for st in studies:
        t = time.perf_counter()
        located.append((st, *locate(st, readers, runs, seed, None)))
        secs["read"] += time.perf_counter() - t
    total = 0
    for _, study, reader in located:
        if reader is not None:
            held = reader.holdings([c.id for c in study.cells])
            held = held[held["seed"] == study.seed]
            total += int(np.minimum(held["trials"], study.runs).sum())
    if log is not None:
        where = list(dict.fromkeys(r.describe() for _, _, r in located if r is not None))
        log(f"interval card {test.name!r}: up to {total:,} trials to read from "
            f"{'; '.join(where) or 'nowhere'}; no learner is fitted")
    bar = progress_bar(progress, total, f"card {test.name}")
    rows: list[dict] = []
    series: list[tuple[dict, dict[str, _Series]]] = []
    study_rows: list[dict] = []
    notes: list[str] = []
    cache: dict = {}
    trials = 0
    try:
        for st, study, reader in located:
            label = st if isinstance(st, str) else study.name
            row = {"study": label, "status": "skipped", "cells": len(study.cells),
                   "cells_read": 0, "trials": 0,
                   "read_from": "" if reader is None else reader.describe(), "reason": ""}
            study_rows.append(row)
            if reader is None:
                row["reason"] = no_trials(st, study, readers)
                notes.append(f"{label}: skipped: {row['reason']}")
                continue
            t = time.perf_counter()
            held = reader.fold_errors([c.id for c in study.cells], study.seed, study.runs)
            secs["read"] += time.perf_counter() - t
            why: dict[str, list[str]] = {}
            for cell in study.cells:
                tr = held.get(cell.id)
                if tr is None:
                    why.setdefault("no stored trials", []).append(cell.id)
                    continue
                if test.fits(cell.design) is False:
                    why.setdefault(f"design {cell.design!r} not in g.designs",
                                   []).append(cell.id)
                    continue
                n_read = _cell(test, study, cell, tr, reader, level, baselines, rows, series,
                               why, cache, secs)
                if bar is not None:
                    bar.update(tr.T)
                if n_read:
                    row["cells_read"] += 1
                    row["trials"] += n_read
                    trials += n_read
            for reason in [r for r in why if r.startswith(_DIFFERENCES)]:
                cells = why.pop(reason)
                notes.append(f"{label}: {len(cells)} cells read for one learner's error only, "
                             f"{reason}: {', '.join(cells[:3])}"
                             + (", ..." if len(cells) > 3 else ""))
            settle_study(row, why, label, len(study.cells), notes)
    finally:
        if bar is not None:
            bar.close()
    if not trials:
        why = "; ".join(f"{r['study']}: {r['reason']}" for r in study_rows if r["reason"])
        raise SimstudyError(f"the interval method {test.name!r} fits no stored cell of "
                            f"{[r['study'] for r in study_rows]!r}" + (f" ({why})" if why else ""))
    if secs.get("truths measured"):
        notes.append(f"{int(secs['truths measured']):,} trials read hold no numeric truth: "
                     "their conditional truth was measured now (simstudy.interval_truth)")
    t = time.perf_counter()
    coverage = _coverage_frame(rows)
    paired, matched = _paired_frames(test.name, series, level)
    studies_df = pd.DataFrame(study_rows, columns=["study", "status", "cells", "cells_read",
                                                   "trials", "read_from", "reason"])
    comp = comparator(test.name, coverage, matched, level)
    verdict = _verdict(test.name, level, coverage, matched, paired, studies_df, comp)
    secs["aggregate"] += time.perf_counter() - t
    secs["total"] = time.perf_counter() - t0
    return IntervalCard(test.name, level, coverage, paired, matched, studies_df, verdict,
                        notes, secs, trials, comp)


def _targets(learners: tuple[str, ...]) -> list[tuple[str, int, int | None]]:
    """One learner's error (the cell's first) and the difference of each pair."""
    K = len(learners)
    return [(f"error of {learners[0]}", 0, None)] + [
        (f"{learners[a]} - {learners[b]}", a, b) for a, b in itertools.combinations(range(K), 2)]


def _cell(test: UserTest, study: Study, cell, tr, reader, level: float,
          baselines: tuple[str, ...] | None, rows: list, series: list, why: dict,
          cache: dict, secs: dict) -> int:
    """Every target's intervals on one cell's trials; the number of trials read (0 when the
    cell is skipped, the reason in ``why``)."""
    design = get_design(cell.design)
    t = time.perf_counter()
    losses = (reader.losses(cell.id, study.seed, study.runs) if tr.has_losses.any()
              else [None] * tr.T)
    fls = [FoldLosses(tr.errors[i], tr.n_train[i], tr.n_test[i], losses[i])
           for i in range(tr.T)]
    secs["read"] += time.perf_counter() - t
    truth = _truths(reader, study, cell, tr.runs, cache, secs)  # (T, K)
    names = [m for m in _baselines_for(cell, design, baselines)
             if not (get_interval(m).needs_losses and not tr.has_losses.all())]
    for ti, (target, a, b) in enumerate(_targets(cell.learners)):
        cond = truth[:, a] if b is None else truth[:, a] - truth[:, b]
        uncond = float(cond.mean())
        uncond_se = float(cond.std(ddof=1) / math.sqrt(cond.size)) if cond.size > 1 else math.nan
        t = time.perf_counter()
        lo, hi = np.empty(tr.T), np.empty(tr.T)
        for i, fl in enumerate(fls):
            skipped: list[str] = []
            # the first trial of a target is a probe: an undeclared method's first call
            # on a cell (its design), any method's first call on a difference
            out = test.interval(fl, design, a, b, level,
                                where=f"cell {cell.id!r}, target {target!r}, run {int(tr.runs[i])}",
                                probe=i == 0 and (ti > 0 or test.designs is None),
                                skipped=skipped)
            if out is None:
                break
            lo[i], hi[i] = out
        secs["new method"] += time.perf_counter() - t
        if out is None:
            if ti == 0:
                why.setdefault(f"design {cell.design!r}: the interval function raised "
                               f"{skipped[0]}", []).append(cell.id)
                return 0
            why.setdefault(_DIFFERENCES + f"the interval function raised {skipped[0]}",
                           []).append(cell.id)
            continue
        key = {"study": study.name, "cell": cell.id, "design": cell.design, "target": target,
               "kind": "error" if b is None else "difference", "unconditional": uncond,
               "unconditional_se": uncond_se}
        got = {test.name: _Series(lo, hi)}
        t = time.perf_counter()
        for m in names:
            try:
                got[m] = _baseline_series(get_interval(m), fls, design, a, b, level)
            except SimstudyError:
                continue  # e.g. holdout[dist=binomial] on a difference: not this target's
        secs["baselines"] += time.perf_counter() - t
        for m, s in got.items():
            rows.append({**key, "method": m, "new": m == test.name,
                         **_counts(s.low, s.high, cond, uncond)})
        series.append(({**key, "cond": cond, "runs": tr.runs}, got))
    return tr.T


#: the start of a reason that a cell's differences (not the cell) were not read
_DIFFERENCES = "differences not read: "


def _counts(lo: np.ndarray, hi: np.ndarray, cond: np.ndarray, uncond: float) -> dict:
    ok = np.isfinite(lo) & np.isfinite(hi)
    lo, hi, c = lo[ok], hi[ok], cond[ok]
    return {"runs": int(ok.sum()), "undefined": int((~ok).sum()),
            "covered": int(((lo <= c) & (c <= hi)).sum()),
            "below": int((c < lo).sum()), "above": int((c > hi).sum()),
            "covered_unconditional": int(((lo <= uncond) & (uncond <= hi)).sum()),
            "width_sum": float((hi - lo).sum())}


_COV_COLS = ["study", "cell", "design", "target", "kind", "method", "new", "runs",
             "undefined", "coverage", "coverage_low", "coverage_high", "share_below",
             "share_above", "coverage_unconditional", "coverage_unconditional_low",
             "coverage_unconditional_high", "mean_width", "unconditional", "unconditional_se",
             "covered", "below", "above", "covered_unconditional"]


def _coverage_frame(rows: list[dict]) -> pd.DataFrame:
    """Coverage of the conditional and unconditional truths (Wilson intervals), the shares
    missed below and above, mean width: per cell, target and method, and pooled per method
    over every cell and target (mean width not pooled: cells differ in scale)."""
    if not rows:
        return pd.DataFrame(columns=_COV_COLS)
    df = pd.DataFrame(rows)
    cnt = ["runs", "undefined", "covered", "below", "above", "covered_unconditional"]
    pooled = [{"study": "(all)", "cell": POOLED, "design": "", "target": "", "kind": "",
               "method": m, "new": bool(g["new"].iloc[0]), "width_sum": np.nan,
               "unconditional": np.nan, "unconditional_se": np.nan,
               **{c: int(g[c].sum()) for c in cnt}}
              for m, g in df.groupby("method", sort=False)]
    df = pd.concat([df, pd.DataFrame(pooled)], ignore_index=True)
    n = df["runs"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["coverage"] = df["covered"] / n
        df["coverage_unconditional"] = df["covered_unconditional"] / n
        df["share_below"] = df["below"] / n
        df["share_above"] = df["above"] / n
        df["mean_width"] = df["width_sum"] / n
    df["coverage_low"], df["coverage_high"] = wilson(df["covered"].to_numpy(), n)
    (df["coverage_unconditional_low"],
     df["coverage_unconditional_high"]) = wilson(df["covered_unconditional"].to_numpy(), n)
    return df[_COV_COLS]


def _needed_level(s: _Series, cond: np.ndarray) -> np.ndarray:
    """Per trial, the smallest level at which the baseline's interval covers ``cond``
    (inf when none below 1 does, nan when undefined): ``2 F(|cond - stat| / se) - 1`` with
    F the t(df) (or normal) distribution function; by bisection where it counted errors
    (Clopper & Pearson's bounds widen with the level)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        u = np.abs(cond - s.stat) / s.se
        u = np.where((s.se == 0) & (cond == s.stat), 0.0, u)
    nodf = np.isnan(s.df)
    F = np.where(nodf, special.ndtr(u), special.stdtr(np.where(nodf, 1.0, s.df), u))
    need = 2.0 * F - 1.0
    need = np.where(np.isinf(u) | (need >= 1.0), np.inf, need)
    need[np.isnan(s.stat) | np.isnan(s.se)] = np.nan
    cp = ~np.isnan(s.k)
    if cp.any():
        sub = _Series(s.low[cp], s.high[cp], s.stat[cp], s.se[cp], s.df[cp], s.k[cp], s.n[cp])
        c = cond[cp]
        lo_l, hi_l = np.zeros(c.size), np.full(c.size, 1.0 - 1e-12)
        for _ in range(45):
            mid = 0.5 * (lo_l + hi_l)
            a, b = _cp_at(sub, mid)
            ok = (a <= c) & (c <= b)
            hi_l, lo_l = np.where(ok, mid, hi_l), np.where(ok, lo_l, mid)
        a, b = _cp_at(sub, hi_l)
        need[cp] = np.where((a <= c) & (c <= b), hi_l, np.inf)
    return need


def _cp_at(s: _Series, level: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Clopper & Pearson's bounds at a level per trial."""
    a = (1.0 - level) / 2.0
    k, n = s.k, s.n
    lo = np.where(k == 0, 0.0, special.betaincinv(np.maximum(k, 1), n - k + 1, a))
    hi = np.where(k == n, 1.0, special.betaincinv(k + 1, np.maximum(n - k, 1), 1 - a))
    return lo, hi


def _matched_level(s: _Series, cond: np.ndarray, target: float) -> float:
    """The smallest level at which the baseline covers ``cond`` on at least a share
    ``target`` of the trials (the ``ceil(target T)``-th smallest level a trial needs,
    :func:`_needed_level`); nan when no level below 1 does (e.g. the truth outside a
    degenerate interval)."""
    need = _needed_level(s, cond)
    need = np.where(np.isnan(need), np.inf, need)
    m = int(math.ceil(target * need.size - 1e-9))
    if m <= 0:
        return 0.0
    star = float(np.sort(need)[m - 1])
    # a hair above: the level's quantile, recomputed, must not fall short of the trial's
    return min(star + 1e-12, 1.0 - 1e-15) if math.isfinite(star) else math.nan


def _concat(parts: list[_Series]) -> _Series:
    return _Series(*(np.concatenate([getattr(p, f) for p in parts])
                     for f in ("low", "high", "stat", "se", "df", "k", "n")))


_PAIRED_COLS = ["study", "cell", "target", "baseline", "runs", "new_coverage",
                "base_coverage", "diff", "ci_low", "ci_high", "n10", "n01", "width_ratio",
                "base_level_matched", "width_ratio_matched"]
_MATCHED_COLS = ["baseline", "cells", "runs", "new_coverage", "base_coverage",
                 "base_level_matched", "base_coverage_matched", "median_width_ratio",
                 "median_width_ratio_matched", "narrower_cells", "diff", "ci_low", "ci_high"]
# the matched frame also carries its discordant counts, n10 and n01


def _paired_frames(name: str, series: list, level: float) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per cell, target and baseline, on the trials both gave an interval: coverage
    difference (Tango's paired interval) and width ratio at the level and at matched
    coverage (:data:`MATCHING`); and per baseline, the same pooled."""
    by: dict[str, list] = {}
    for key, got in series:
        new = got[name]
        for m, s in got.items():
            if m == name:
                continue
            ok = (np.isfinite(new.low) & np.isfinite(s.low))
            if not ok.any():
                continue
            sub = _Series(*(getattr(s, f)[ok] for f in ("low", "high", "stat", "se", "df",
                                                         "k", "n")))
            by.setdefault(m, []).append((key, new.low[ok], new.high[ok], sub, key["cond"][ok]))
    prow, mrow = [], []
    for m, parts in by.items():
        cond = np.concatenate([p[4] for p in parts])
        nlo = np.concatenate([p[1] for p in parts])
        nhi = np.concatenate([p[2] for p in parts])
        x = (nlo <= cond) & (cond <= nhi)
        whole = _concat([p[3] for p in parts])
        y = (whole.low <= cond) & (cond <= whole.high)
        star = _matched_level(whole, cond, float(x.mean()))
        if math.isnan(star):
            mlo = mhi = np.full(cond.size, np.nan)
        else:
            mlo, mhi = _at_level(whole, star)
        ym = (mlo <= cond) & (cond <= mhi)
        at = 0
        ratios, ratios_m = [], []
        for key, lo, hi, s, _c in parts:
            T = lo.size
            sl = slice(at, at + T)
            at += T
            xi, yi = x[sl], y[sl]
            n10, n01 = int((xi & ~yi).sum()), int((~xi & yi).sum())
            bw = float(np.mean(s.high - s.low))
            wm = mhi[sl] - mlo[sl]
            bwm = float(np.mean(wm)) if np.isfinite(wm).all() else math.nan
            nw = float(np.mean(hi - lo))
            r = nw / bw if bw > 0 else math.nan
            rm = nw / bwm if bwm > 0 else math.nan
            ratios.append(r)
            ratios_m.append(rm)
            prow.append({"study": key["study"], "cell": key["cell"], "target": key["target"],
                         "baseline": m, "runs": T, "new_coverage": float(xi.mean()),
                         "base_coverage": float(yi.mean()), "diff": (n10 - n01) / T,
                         "ci_low": np.nan, "ci_high": np.nan, "n10": n10, "n01": n01,
                         "width_ratio": r, "base_level_matched": star,
                         "width_ratio_matched": rm})
        n = int(x.size)
        n10, n01 = int((x & ~y).sum()), int((~x & y).sum())
        rm = np.array(ratios_m, dtype=float)
        mrow.append({"baseline": m, "cells": len(parts), "runs": n,
                     "new_coverage": float(x.mean()), "base_coverage": float(y.mean()),
                     "base_level_matched": star, "base_coverage_matched": float(ym.mean()),
                     "median_width_ratio": float(np.nanmedian(ratios)),
                     "median_width_ratio_matched": (float(np.nanmedian(rm))
                                                    if np.isfinite(rm).any() else math.nan),
                     "narrower_cells": int((rm < 1).sum()), "diff": (n10 - n01) / n,
                     "ci_low": np.nan, "ci_high": np.nan, "n10": n10, "n01": n01})
    paired = pd.DataFrame(prow, columns=_PAIRED_COLS)
    matched = pd.DataFrame(mrow, columns=[*_MATCHED_COLS, "n10", "n01"])
    for f in (paired, matched):  # Tango's interval, every row in one vectorised call
        if len(f):
            f["ci_low"], f["ci_high"] = tango_paired(f["n10"].to_numpy(), f["n01"].to_numpy(),
                                                     f["runs"].to_numpy())
    return paired, matched


def comparator(name: str, coverage: pd.DataFrame, matched: pd.DataFrame,
               level: float) -> str | None:
    """The one baseline the verdict names: of those read on the most trials in common
    with the new method, the one whose pooled conditional coverage is nearest the level.

    >>> import pandas as pd
    >>> m = pd.DataFrame({"baseline": ["a", "b", "c"], "runs": [100, 100, 40],
    ...                   "base_coverage": [0.70, 0.88, 0.90]})
    >>> comparator("new", pd.DataFrame(), m, 0.9)
    'b'
    """
    if not len(matched):
        return None
    top = matched[matched["runs"] == matched["runs"].max()]
    gap = (top["base_coverage"] - level).abs()
    return str(top.loc[gap.sort_values(kind="stable").index[0], "baseline"])


def _verdict(name: str, level: float, coverage: pd.DataFrame, matched: pd.DataFrame,
             paired: pd.DataFrame, studies: pd.DataFrame, comp: str | None) -> str:
    """One sentence by :data:`RULE`."""
    p = coverage[(coverage["cell"] == POOLED) & (coverage["method"] == name)].iloc[0]
    cells = coverage[(coverage["cell"] != POOLED) & (coverage["method"] == name)]
    lo, hi = float(p["coverage_low"]), float(p["coverage_high"])
    word = ("under-covers" if hi < level else "over-covers" if lo > level
            else "holds its level")
    s = (f"`{name}` {word}: it covers the conditional truth at {p['coverage']:.3f} "
         f"[{lo:.3f}, {hi:.3f}] against its level {level:g} (the unconditional truth at "
         f"{p['coverage_unconditional']:.3f}) over {len(cells):,} cell x target"
         f"{'' if len(cells) == 1 else 's'} ({int(p['runs']):,} intervals)")
    if comp is not None:
        m = matched[matched["baseline"] == comp].iloc[0]
        s += (f"; against {comp} on the same {int(m['runs']):,} intervals of "
              f"{int(m['cells']):,} cell x target{'' if m['cells'] == 1 else 's'}: coverage "
              f"{m['new_coverage']:.3f} vs {m['base_coverage']:.3f} "
              f"({m['diff']:+.3f} [{m['ci_low']:+.3f}, {m['ci_high']:+.3f}]), median width "
              f"{m['median_width_ratio']:.2f}x {comp}'s at level {level:g}")
        if math.isnan(m["base_level_matched"]):
            s += f", no matched coverage ({comp} covers less at every level)"
        else:
            s += (f" and {m['median_width_ratio_matched']:.2f}x at matched coverage ({comp} "
                  f"at level {m['base_level_matched']:.3f}), narrower on "
                  f"{int(m['narrower_cells'])} of {int(m['cells'])}")
    else:
        s += "; no baseline read on the same trials"
    skipped = studies[studies["status"] == "skipped"]["study"].tolist() if len(studies) else []
    if skipped:
        s += f"; skipped: {', '.join(skipped)}"
    return s + "."
