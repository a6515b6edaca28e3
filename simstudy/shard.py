"""Shards: a deterministic 1/N of a study's work units, for job arrays and several machines.

``run STUDY --shard I/N`` computes only shard ``I`` of ``N`` (1-based).  The split depends on
nothing but the study (cells, runs, seed, chunk) and, if given, a store of measured costs, so
the N array tasks agree on it without talking to each other:

1. the study's *work units* are its canonical chunks, ``(cell, seed, runs lo..hi)`` with
   ``lo`` a multiple of the study's chunk; they are put in canonical order, by cell id, seed
   and first run (cells of one data set sit together, so a shard loads few data sets);
2. each unit gets an integer cost: its runs times the cell's cost per trial -- measured
   (mean ``seconds`` per trial in a ``costs`` store, e.g. a short pilot run) or, for cells
   the costs store does not hold, estimated (learners x models x instances x features,
   scaled to the measured cells when there are any);
3. the ordered units are cut into N contiguous runs of nearly equal total cost: unit ``u``
   goes to shard ``floor((2 P_u + c_u) N / 2 C)``, ``P_u`` the cost before it and ``C`` the
   total -- integer arithmetic, so every machine computes the same cut.

Which trials a shard computes never changes their numbers (each trial draws only from its
own seed); the shards' stores are combined with ``python -m simstudy merge`` (:mod:`.merge`).
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .study import Study

if TYPE_CHECKING:
    from .store import Store

_COST_SCALE = 10**6  # integer cost units for the largest per-trial cost


@dataclass(frozen=True)
class Unit:
    """One canonical work unit: runs ``lo .. hi - 1`` of a cell at a root seed."""

    cell: str
    seed: int
    lo: int
    hi: int

    @property
    def id(self) -> str:
        return unit_id(self.cell, self.seed, self.lo, self.hi)


def unit_id(cell: str, seed: int, lo: int, hi: int) -> str:
    """The canonical id of a work unit, ``"iris/nmc~1nn/5x2|0|10:20"`` (runs ``lo <= r < hi``)."""
    return f"{cell}|{int(seed)}|{int(lo)}:{int(hi)}"


def units(study: Study) -> list[Unit]:
    """Every work unit of the study, in canonical order (cell id, seed, first run)."""
    step = int(study.chunk)
    out = [Unit(c.id, study.seed, lo, min(lo + step, study.runs))
           for c in study.cells for lo in range(0, study.runs, step)]
    return sorted(out, key=lambda u: (u.cell, u.seed, u.lo))


def estimated_cost(cell) -> float:
    """Relative cost of one trial of ``cell`` from its shape alone (no timing).

    Learners x models per trial x instances x features: the same order for every learner,
    so it balances cells of one learner family well and mixed families roughly; a costs
    store (measured seconds) balances those.
    """
    from .designs import get_design
    from .sources import get_source

    data = get_source(cell.source).sample(np.random.default_rng(0))
    n = data.X.shape[0] + (0 if data.X_test is None else data.X_test.shape[0])
    d = data.X.shape[1] if data.X.ndim > 1 else 1
    R, F = get_design(cell.design).shape
    return float(len(cell.learners) * R * F * n * max(d, 1))


def measured_costs(store: Store | str | os.PathLike, cells: list[str]) -> dict[str, float]:
    """Mean stored ``seconds`` per trial of each of ``cells`` held in ``store``: an open
    store (the run's own, read through its connection) or the path of one (opened
    read-only)."""
    from .store import Store

    if isinstance(store, Store):
        per = store.mean_seconds()
    else:
        with Store(store, readonly=True) as st:
            per = st.mean_seconds()
    want = set(cells)
    return {c: float(s) for c, s in per.items() if c in want and s is not None and s > 0}


def cell_costs(study: Study, costs: str | os.PathLike | None = None) -> dict[str, int]:
    """Integer cost per trial of each cell: measured where ``costs`` holds the cell, else
    estimated (scaled by the median measured/estimated ratio when some cells are measured)."""
    est = {c.id: estimated_cost(c) for c in study.cells}
    got = {} if costs is None else measured_costs(costs, list(est))
    if got:
        ratio = float(np.median([got[c] / est[c] for c in got if est[c] > 0] or [1.0]))
        per = {c: got.get(c, est[c] * ratio) for c in est}
    else:
        per = est
    top = max(per.values(), default=1.0) or 1.0
    return {c: max(1, round(v / top * _COST_SCALE)) for c, v in per.items()}


def _split(study: Study, n: int, costs) -> tuple[list[Unit], list[int], dict[str, int]]:
    """The units in canonical order, their integer costs, and unit id -> shard (1-based)."""
    us = units(study)
    per = cell_costs(study, costs)
    c = [per[u.cell] * (u.hi - u.lo) for u in us]
    total = sum(c)
    owner, before = {}, 0
    for u, cu in zip(us, c, strict=True):
        owner[u.id] = min(n - 1, (2 * before + cu) * n // (2 * total)) + 1
        before += cu
    return us, c, owner


def assign(study: Study, n: int, costs: str | os.PathLike | None = None) -> dict[str, int]:
    """Unit id -> shard (1-based) for all of the study's units: contiguous, cost-balanced.

    Examples
    --------
    >>> from simstudy.catalog import get_study
    >>> owner = assign(get_study("demo"), 4)
    >>> sorted(set(owner.values()))
    [1, 2, 3, 4]
    """
    return _split(study, n, costs)[2]


def shard_chunks(study: Study, chunks: list, shard: tuple[int, int],
                 costs: str | os.PathLike | None = None):
    """The chunks of ``plan`` that belong to ``shard``, with the shard's trial counts.

    Returns ``(chunks, total, done_before, facts)``: ``total`` the trials of the shard's
    units, ``done_before`` those already stored, ``facts`` what the invocation records
    (``shard``, its units and cost share, a hash of the whole split).
    """
    i, n = shard
    us, cost, owner = _split(study, n, costs)
    step = int(study.chunk)

    def key(ch) -> str:
        lo = ch.runs[0] // step * step
        return unit_id(ch.cell.id, study.seed, lo, min(lo + step, study.runs))

    mine = [ch for ch in chunks if owner[key(ch)] == i]
    my_units = [u for u in us if owner[u.id] == i]
    total = sum(u.hi - u.lo for u in my_units)
    missing = sum(len(ch.runs) for ch in mine)
    my_cost = sum(c for u, c in zip(us, cost, strict=True) if owner[u.id] == i)
    split = hashlib.sha256("\n".join(f"{k} {v}" for k, v in sorted(owner.items()))
                           .encode()).hexdigest()[:12]
    facts = {"shard": f"{i}/{n}", "shard_units": len(my_units),
             "shard_cost_share": round(my_cost / max(1, sum(cost)), 4), "shard_split": split,
             "shard_costs": None if costs is None else str(costs)}
    return mine, total, total - missing, facts
