"""Plans: what a run of a study will do, decided once, before anything is computed.

:func:`make_plan` keys the study's cells by their sources' content, validates every cell
(names resolve, tests fit their designs, data sets are large enough for their designs),
reads what the store holds and returns a frozen :class:`Plan`: the keyed study, the runs
stored per cell, the work units (:class:`Chunk`) still to compute, the test results to
compute from stored fold losses, the counts, the cost per trial of the cells to compute
and the run's definition with its hash.  :func:`simstudy.runner.run_study` executes a plan;
its progress bar counts the plan's costs.

Work units are canonical blocks of runs (``run // study.chunk``) and every model draws only
from its own seeds, so which units a plan holds -- a fresh store, a half-filled one, one
shard of a job array -- never changes a stored number.

Examples
--------
>>> from simstudy.catalog import get_study
>>> p = make_plan(get_study("demo", runs=20))  # no store: nothing is stored yet
>>> p.total, p.done_before, len(p.chunks), p.definition["cells"]
(120, 0, 12, 6)
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

import numpy as np

from .errors import SimstudyError
from .evaluation import resolve_tests
from .study import Cell, Study
from .trialdata import design_of, learner_of, source_of

if TYPE_CHECKING:
    import pandas as pd

    from .store import Store


@dataclass(frozen=True)
class Chunk:
    """A work unit: some runs of one cell."""

    study: str
    cell: Cell
    runs: tuple[int, ...]
    seed: int
    alpha: float
    keep_losses: bool = False  # keep per-instance losses (0/1 as packed bits) with the trial
    truth: bool = False  # store each trial's numeric truth with its losses (interval studies)


# --- validation ----------------------------------------------------------------------------

def check_folds(cell_id: str, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> None:
    """Every fold needs a test instance and at least two classes with >= 2 training instances.

    (Requiring two instances of *every* class would refuse the papers' own data sets, where
    some classes have a single member, e.g. audiology and primary-tumor.)
    """
    R, F, _ = train.shape
    C = int(y.max()) + 1
    for r in range(R):
        for f in range(F):
            nte = int(test[r, f].sum())
            counts = np.bincount(y[train[r, f]], minlength=C)
            if nte == 0 or int((counts >= 2).sum()) < 2:
                raise SimstudyError(
                    f"cell {cell_id!r}: the data set (n={y.shape[0]}) is too small for its "
                    f"design: replication {r}, fold {f} has {nte} test instance(s) and "
                    f"training class counts {counts.tolist()}; each fold needs at least one "
                    "test instance and two classes with at least 2 training instances")


def validate(study: Study) -> None:
    """Resolve every name and check every cell can run, before anything is written.

    Unknown names, tests that do not fit a design and data sets too small for a design all
    raise :class:`SimstudyError` here, so a bad grid never leaves a half-written store.
    :func:`make_plan` calls it once per plan.

    Examples
    --------
    >>> from simstudy.study import cells
    >>> validate(Study("s", cells(["iris"], [("nmc", "nmc")], ["5x2cv"], ["t5x2cv"])))
    >>> validate(Study("s", cells(["iris"], [("nmc",)], ["5x2cv"], ["t5x2cv"])))
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: cell 'iris/nmc/5x2cv' needs at least two learners
    """
    from .learners.base import check_task
    from .stats.registry import check_tests_fit

    if not study.cells:
        raise SimstudyError(f"study {study.name!r} has no cells; give it at least one "
                            "(simstudy.cells(sources, learner pairs, designs, tests))")
    for cell in study.cells:
        src, des = source_of(cell.source), design_of(cell.design)
        for ln in cell.learners:
            check_task(learner_of(ln), getattr(src, "task", "classification"), src.name)
        if len(cell.learners) < 2:
            raise SimstudyError(f"cell {cell.id!r} needs at least two learners")
        resolve_tests(cell.tests)
        check_tests_fit(cell.tests, des)
        # one throwaway sample checks the data set against the design (too small, …)
        data = src.sample(np.random.default_rng(0))
        train = des.masks(data.y, np.random.default_rng(0))
        if getattr(src, "task", "classification") == "regression":  # no classes to count
            if getattr(des, "strat", False):
                raise SimstudyError(f"cell {cell.id!r}: design {des.name!r} stratifies by "
                                    f"class and source {src.name!r} is a regression source; "
                                    f"write the design with [strat=0]")
            test = des.test_masks(train)
            if (test.sum(axis=2) < 1).any() or (train.sum(axis=2) < 2).any():
                raise SimstudyError(f"cell {cell.id!r}: the data set (n={data.n}) is too "
                                    f"small for its design: each fold needs a test instance "
                                    f"and at least 2 training instances")
        else:
            check_folds(cell.id, data.y, train, des.test_masks(train))


def needs_losses(cell: Cell) -> bool:
    """A cell with a per-instance test needs stored losses: a trial stored without them is
    recomputed (same seeds, same numbers) rather than answered wrongly.  (A study's
    ``meta["keep_losses"]`` only keeps them for new trials; it never forces a refit.)"""
    return any(getattr(t, "needs_losses", False) for t in resolve_tests(cell.tests))


def definition(study: Study) -> dict:
    """What a run of ``study`` is: runs, seed, alpha, chunk, the grid (a hash of its cells and
    their tests) and the statistics version -- recorded with each invocation, compared by
    :func:`simstudy.merging.merge_stores`.

    Examples
    --------
    >>> from simstudy.catalog import get_study
    >>> d = definition(get_study("demo"))
    >>> d["runs"], d["cells"]
    (20, 6)
    """
    from .store import stats_version

    lines = sorted(f"{c.id}|{','.join(c.tests)}" for c in study.cells)
    grid = hashlib.sha256("\n".join(lines).encode()).hexdigest()[:12]
    return {"study": study.name, "runs": int(study.runs), "seed": int(study.seed),
            "alpha": float(study.alpha), "chunk": int(study.chunk), "cells": len(lines),
            "grid": grid, "stats_version": stats_version()}


# --- costs ---------------------------------------------------------------------------------

#: per model, cost grows as (instances x features) ** this: fitted on README command 1
#: (type1, 10 runs: MLPs on iris .. optdigits, 12,000 .. 7 M) where the linear model put
#: optdigits' two cells at 94 % of the work, measured 67 % (this: 81 %)
SIZE_EXPONENT = 0.7

#: a run of this many trials or more says its size and cost before it is planned
LARGE_RUN = 10**6


def trial_cost(cell: Cell) -> float:
    """Estimated relative cost of one trial of ``cell``: its models (learners x
    replications x folds) times (instances x features) ** :data:`SIZE_EXPONENT`.

    Fixed costs per fit (calls, iterations that do not scale with the data) make small
    data sets dearer than their size says.

    >>> from simstudy.study import cells
    >>> a, b = cells(["iris", "wine"], [("nmc", "1nn")], ["5x2cv"], [])
    >>> trial_cost(b) > trial_cost(a)  # wine (178 x 13) beside iris (150 x 4)
    True
    """
    from .shard import estimated_cost

    R, F = design_of(cell.design).shape
    models = len(cell.learners) * R * F
    return models * (estimated_cost(cell) / models) ** SIZE_EXPONENT


def per_trial(cells: list[Cell], measured: Mapping[str, float]) -> tuple[dict[str, float], bool]:
    """Cost per trial of each of ``cells``: the ``measured`` seconds where there are some,
    else :func:`trial_cost` scaled to the measured cells (by the median ratio); and whether
    every cell is measured (then the costs are seconds)."""
    got = {c.id: measured[c.id] for c in cells if c.id in measured}
    est = {c.id: trial_cost(c) for c in cells if c.id not in got}
    if got and est:  # the estimates in the measured cells' seconds
        both = {c.id: trial_cost(c) for c in cells if c.id in got}
        scale = float(np.median([got[c] / both[c] for c in got if both[c] > 0] or [1.0]))
        est = {cid: v * scale for cid, v in est.items()}
    return {**est, **got}, not est


def plan_note(study: Study, seeds: int, store: str | os.PathLike | None) -> str | None:
    """The size and estimated cost of running ``study`` at ``seeds`` root seeds, when it is
    :data:`LARGE_RUN` trials or more (else None): trials, model fits, and CPU time from the
    seconds per trial ``store`` measured for the cells (estimated from the cells' shapes for
    the cells it has not measured), when it holds any.  Said before :func:`make_plan`, which
    walks every run of every cell.

    Examples
    --------
    >>> from simstudy.catalog import get_study
    >>> plan_note(get_study("demo", runs=10**6), 1, "no-such-store.sqlite")[:48]
    'demo: 6,000,000 trials (6 cells x 1,000,000 runs'
    """
    from .shard import measured_costs

    trials = len(study.cells) * study.runs * seeds
    if trials < LARGE_RUN:
        return None
    fits = sum(len(c.learners) * int(np.prod(design_of(c.design).shape))
               for c in study.cells) * study.runs * seeds
    line = (f"{study.name}: {trials:,} trials ({len(study.cells):,} cells x {study.runs:,} "
            f"runs x {seeds:,} root seed{'s' if seeds > 1 else ''}), {fits:,} model fits")
    ids = [c.id for c in study.cells]
    got = measured_costs(store, ids) if store is not None and Path(store).is_file() else {}
    if not got:
        return line + ("; no measured seconds per trial in the store to estimate its time "
                       "(a short run of a few runs measures them); Ctrl-C stops it")
    per, _ = per_trial(study.cells, got)
    cpu = sum(per.values()) * study.runs * seeds
    return line + (f"; about {cpu / 3600:,.1f} CPU-hours at the seconds per trial the store "
                   f"measured ({len(got)} of {len(ids)} cells measured, the others estimated "
                   "from their shapes); Ctrl-C stops it")


# --- the plan ------------------------------------------------------------------------------

def _frozen(d: Mapping) -> Mapping:
    return MappingProxyType(dict(d))


@dataclass(frozen=True)
class Plan:
    """What a run of one study at one root seed will do (:func:`make_plan`).

    Attributes
    ----------
    study : Study
        The study, its cells keyed by their sources' content and validated.
    store : str or None
        The store whose holdings were read (None: planned without one, nothing stored).
    stored : mapping
        Cell id -> the runs (below ``study.runs``) the store holds (for a cell whose tests
        need per-instance losses, only trials that kept them).
    chunks : tuple of Chunk
        The work units still to compute, in the study's cell order.
    results : tuple
        ``(cell, runs, tests)`` of stored trials whose test results are missing or were
        computed by other statistics code: computed from the stored fold losses.
    total, done_before : int
        The trials the plan covers (a shard: its units') and those stored before it.
    losses : mapping
        Cell id -> whether its trials must keep per-instance losses.
    measured : mapping
        Cell id -> mean seconds per trial the store measured (cells with work to do).
    definition : mapping
        What the run is (:func:`definition`), recorded with the invocation.
    facts : mapping
        What the invocation records besides: the definition, and a shard's split.

    Examples
    --------
    >>> from simstudy.catalog import get_study
    >>> p = make_plan(get_study("demo", runs=4, chunk=2).select("iris/nmc"))
    >>> [c.runs for c in p.chunks], p.missing, p.results
    ([(0, 1), (2, 3)], 4, ())
    """

    study: Study
    store: str | None
    stored: Mapping[str, frozenset[int]]
    chunks: tuple[Chunk, ...]
    results: tuple[tuple[Cell, tuple[int, ...], tuple[str, ...]], ...]
    total: int
    done_before: int
    losses: Mapping[str, bool]
    measured: Mapping[str, float]
    definition: Mapping
    facts: Mapping = field(default_factory=lambda: MappingProxyType({}))

    @property
    def missing(self) -> int:
        """Trials the plan computes."""
        return sum(len(c.runs) for c in self.chunks)

    @property
    def definition_hash(self) -> str:
        """A short hash of :attr:`definition` (runs, seed, alpha, chunk, grid, statistics)."""
        text = json.dumps(dict(self.definition), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @cached_property
    def costs(self) -> tuple[Mapping[str, float], bool]:
        """Cost per trial of each cell with work to do (:func:`per_trial`), and whether
        every one is measured (then they are seconds).  Worked out when first asked: a
        run without a progress bar never estimates."""
        cells = list({c.cell.id: c.cell for c in self.chunks}.values())
        per, all_measured = per_trial(cells, self.measured) if cells else ({}, True)
        return _frozen(per), all_measured

    @property
    def seconds(self) -> float | None:
        """Estimated CPU seconds of the work units (None when the store measured no cell)."""
        if not self.measured and self.chunks:
            return None
        per, _ = self.costs
        return float(sum(per[c.cell.id] * len(c.runs) for c in self.chunks))

    def table(self) -> pd.DataFrame:
        """One row per cell: runs stored, runs to compute, work units, results to compute
        from stored losses, and the seconds per trial (measured, or estimated from the
        cell's shape and the measured cells; NaN when the store measured none)."""
        import pandas as pd

        per = self.costs[0] if self.measured else {}
        units: dict[str, int] = {}
        todo: dict[str, int] = {}
        for c in self.chunks:
            units[c.cell.id] = units.get(c.cell.id, 0) + 1
            todo[c.cell.id] = todo.get(c.cell.id, 0) + len(c.runs)
        redo = {cell.id: len(runs) for cell, runs, _ in self.results}
        return pd.DataFrame([{
            "cell": c.id, "stored": len(self.stored[c.id]), "to_compute": todo.get(c.id, 0),
            "units": units.get(c.id, 0), "results_from_losses": redo.get(c.id, 0),
            "seconds_per_trial": per.get(c.id, float("nan")),
            "measured": c.id in self.measured} for c in self.study.cells])

    def describe(self) -> str:
        """The plan in a few lines, as ``run --dry-run`` prints it."""
        s = self.study
        where = f"store {self.store}" if self.store else "no store yet"
        lines = [f"{s.name}: plan at seed {s.seed} on {where} (definition "
                 f"{self.definition_hash}, grid {self.definition['grid']})",
                 f"{len(s.cells)} cells x {s.runs} runs: {len(s.cells) * s.runs} trials"
                 + (f", {self.total} in shard {self.facts['shard']}" if "shard" in self.facts
                    else "")
                 + f", {self.done_before} stored, {self.missing} to compute in "
                 f"{len(self.chunks)} work units of at most {s.chunk} runs",
                 f"{sum(len(r) for _, r, _ in self.results)} stored trials get test results "
                 "computed from their stored losses (no refit)"]
        secs = self.seconds
        if not self.chunks:
            lines.append("nothing to compute")
        elif secs is None:
            lines.append("cost: no measured seconds per trial in the store (a short run "
                         "measures them)")
        else:
            n, of = sum(c in self.measured for c in self.costs[0]), len(self.costs[0])
            lines.append(f"cost: about {secs:,.1f} CPU-seconds at the seconds per trial the "
                         f"store measured ({n} of {of} cells measured"
                         + (", the others estimated from their shapes)" if n < of else ")"))
        return "\n".join(lines)


def _chunks(study: Study, stored: Mapping[str, frozenset[int]], keep: bool,
            truth: bool = False) -> list[Chunk]:
    """The missing runs of each cell cut at the canonical chunk boundaries."""
    out = []
    runs, step = study.runs, study.chunk
    for cell in study.cells:
        done = np.fromiter(stored[cell.id], dtype=np.int64)
        # whole blocks of runs at once: a million runs of a cell are planned in a fraction
        # of a second, not one run at a time
        missing = np.setdiff1d(np.arange(runs, dtype=np.int64), done, assume_unique=True)
        cut = [0, *(np.flatnonzero(np.diff(missing // step)) + 1).tolist(), missing.size]
        m = missing.tolist()
        out += [Chunk(study.name, cell, tuple(m[a:b]), study.seed, study.alpha, keep, truth)
                for a, b in zip(cut[:-1], cut[1:], strict=True) if b > a]
    return out


def _results(study: Study, store: Store, stored: Mapping[str, frozenset[int]]) -> list:
    """Stored trials whose test results are missing or were computed by other stats code.

    Completeness is tracked per (cell, run, test, pair): adding a test to a study, or
    changing the statistics code, leaves such gaps, filled from the stored fold losses.
    """
    from .stats.registry import is_choice
    from .store import stats_version

    version = stats_version()
    todo = []
    for cell in study.cells:
        runs = stored[cell.id]
        if not runs:
            continue
        K = len(cell.learners)
        npairs = K * (K - 1) // 2
        keys = store.result_keys(cell.id, study.seed, study.runs)
        keys = keys[keys["stats_version"] == version]
        have: dict[tuple[str, int], int] = {}
        for t, r in zip(keys["test"], keys["run"], strict=True):
            have[(t, int(r))] = have.get((t, int(r)), 0) + 1
        need_runs: set[int] = set()
        need_tests: set[str] = set()
        for t in cell.tests:
            want = 1 if is_choice(t) else npairs
            miss = {r for r in runs if have.get((t, r), 0) < want}
            if miss:
                need_runs |= miss
                need_tests.add(t)
        if need_runs:
            todo.append((cell, tuple(sorted(need_runs)),
                         tuple(t for t in cell.tests if t in need_tests)))
    return todo


def _check_source_content(study: Study, store: Store) -> None:
    """Refuse to mix trials of one cell computed on different data (a changed data file)."""
    for cell in study.cells:
        h = getattr(source_of(cell.source), "content_hash", None)
        if h is None:
            continue
        stored = store.source_hashes(cell.id, study.seed) - {h}
        if stored:
            raise SimstudyError(
                f"store {str(store.path)!r} holds trials of cell {cell.id!r} computed on data "
                f"with sha256 {sorted(stored)[0][:12]}…, but the data now has {h[:12]}…; "
                "use another --store (the stored trials are kept)")


def make_plan(study: Study | Plan, store: Store | None = None, *, seed: int | None = None,
              shard: tuple[int, int] | str | None = None,
              costs: str | os.PathLike | None = None) -> Plan:
    """Plan a run of ``study`` on ``store``: what it will compute, and what that costs.

    Parameters
    ----------
    study : Study or Plan
        The study; its cells are keyed (:meth:`Study.keyed`) and validated
        (:func:`validate`) here, once.  A :class:`Plan` gives its keyed, validated study
        and is planned again on ``store`` (e.g. at another root ``seed``) without either.
    store : Store, optional
        The open store the run writes to (its holdings are read); None plans as if nothing
        were stored (a dry run before the store exists).
    seed : int, optional
        Plan at this root seed instead of the study's.
    shard, costs : optional
        Only shard ``(i, n)`` (or ``"I/N"``) of the work units (:mod:`simstudy.shard`),
        balanced by the measured seconds of the store ``costs``.

    Returns
    -------
    Plan
        Frozen: the run (:func:`simstudy.runner.run_study`) executes it as it is.

    Examples
    --------
    >>> import os, tempfile
    >>> from simstudy.catalog import get_study
    >>> from simstudy.runner import run_study
    >>> from simstudy.store import Store
    >>> study = get_study("demo", runs=6, chunk=4).select("iris/nmc")
    >>> with Store(os.path.join(tempfile.mkdtemp(), "s.sqlite")) as st:
    ...     _ = run_study(make_plan(study.replace(runs=3), st), st, progress=False)
    ...     p = make_plan(study, st)
    >>> p.done_before, [c.runs for c in p.chunks]
    (3, [(3,), (4, 5)])
    """
    from .params import SEED, check, check_shard

    shard = check_shard(shard)
    if costs is not None and shard is None:
        raise SimstudyError(f"costs {str(costs)!r} balances shards; it needs shard=(I, N) "
                            "(--shard I/N)")
    if isinstance(study, Plan):
        s = study.study
    elif isinstance(study, Study):
        s = study.keyed()
        validate(s)
    else:
        raise SimstudyError(f"make_plan needs a Study or a Plan, got {study!r:.80}")
    # the plan's own copy: a caller changing its study later does not change the plan
    s = s.replace(seed=check("seed", seed, SEED)) if seed is not None else s.replace()
    losses = {c.id: needs_losses(c) for c in s.cells}
    if store is None:
        stored = {c.id: frozenset() for c in s.cells}
    else:
        _check_source_content(s, store)
        # read once per plan: the chunks and the results to compute both come from it
        stored = {c.id: frozenset(r for r in store.done_runs(c.id, s.seed,
                                                               with_losses=losses[c.id])
                                  if r < s.runs) for c in s.cells}
    chunks = _chunks(s, stored, bool(s.meta.get("keep_losses", False)),
                     bool(s.meta.get("interval_truth", False)))
    total = len(s.cells) * s.runs
    done_before = sum(len(v) for v in stored.values())
    facts: dict = {"definition": definition(s)}
    if shard is not None:  # a deterministic 1/N of the work units
        from .shard import shard_chunks

        chunks, total, done_before, more = shard_chunks(s, chunks, shard, costs)
        facts.update(more)
    results = _results(s, store, stored) if store is not None else []
    measured: dict[str, float] = {}
    if store is not None and chunks:
        from .shard import measured_costs

        measured = measured_costs(store, list({c.cell.id: 0 for c in chunks}))
    return Plan(study=s, store=None if store is None else str(store.path),
                stored=_frozen(stored), chunks=tuple(chunks), results=tuple(results),
                total=total, done_before=done_before, losses=_frozen(losses),
                measured=_frozen(measured), definition=_frozen(facts["definition"]),
                facts=_frozen(facts))
