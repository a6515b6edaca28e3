"""The run's progress bar: work counted in cost units, so its estimate is right early.

A study's cells differ in cost by orders of magnitude (``type1``: iris's 150 x 4 beside
optdigits' 5620 x 64), so a bar over trials moves fast through the cheap cells and then
stalls, and its first estimate extrapolates start-up.  :class:`Progress` counts each work
unit as its *cost*, which the run's plan holds (:attr:`simstudy.planning.Plan.costs`): the
mean seconds per trial the store measured for the cell in earlier runs (any root seed), else
an estimate from the cell's shape (:func:`simstudy.planning.trial_cost`) scaled to the
measured cells when some are.  The percentage is of that work.  The time left is the
remaining cost times the seconds per cost unit the workers measured on the units done so
far, over the workers: their own timings, so the run's start-up is not extrapolated, and
not on a worker's first unit, which also loads the learners' kernels.  Before that, the
measured seconds when every cell has them; else the bar says how many units it waits for.
The bar also says how many trials are done.

The first run of a learner compiles its numba kernels (later runs load them from numba's
cache beside the sources); :func:`cold_kernels` tells which learner families have nothing
cached yet, and the bar says "compiling kernels (first run only)…" until the first unit is
done.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Sequence

COMPILING = "compiling kernels (first run only)…"


def _cached(dispatcher) -> bool:
    """Whether numba's cache holds a current compilation of ``dispatcher`` (its index file
    exists, and its stamp matches the source file and numba's version)."""
    try:
        return bool(dispatcher._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - numba internals moved, or no cache: say nothing
        return True


def cold_kernels(learners: Iterable) -> list[str]:
    """The learner families (e.g. ``simstudy.learners.neural``) among ``learners`` whose
    numba kernels have nothing in numba's cache: their first call compiles.

    A family counts as warm when any of its kernels is cached (a family holds kernels of
    several solvers, most runs use some of them); a learner without numba kernels is never
    cold.  The families' modules must be imported already (:func:`simstudy.planning.validate` does).
    """
    numba = sys.modules.get("numba")
    if numba is None:
        return []
    from numba.core.registry import CPUDispatcher

    roots = sorted({".".join(type(lr).__module__.split(".")[:3]) for lr in learners})
    cold = []
    for root in roots:
        kernels = [v for name, mod in list(sys.modules.items())
                   if mod is not None and (name == root or name.startswith(root + "."))
                   for v in vars(mod).values()
                   if isinstance(v, CPUDispatcher) and v.py_func.__module__ == name]
        if kernels and not any(_cached(k) for k in kernels):
            cold.append(root)
    return cold


def _clock(seconds: float) -> str:
    s = int(round(seconds))
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """The bar of one ``run_study``: :meth:`update` with each unit's trial records,
    :meth:`others` with trials a cooperating run stored.  A context manager.

    Parameters
    ----------
    plan : Plan
        The run's plan (:func:`simstudy.planning.make_plan`): its work units, its trials in
        all and stored before, and the cost per trial of its cells.
    jobs : workers computing units at once.
    enabled : show the bar (``False``: every method does nothing).
    """

    def __init__(self, plan, *, jobs: int = 1, enabled: bool = True) -> None:
        self.enabled = bool(enabled)
        self.trials, self.total = plan.done_before, plan.total
        self.bar = None
        if not self.enabled:
            return
        if "IPython" in sys.modules:  # a notebook's widget bar, where there is one
            from tqdm.auto import tqdm
        else:  # tqdm.auto would import asyncio too
            from tqdm import tqdm

        from .trialdata import learner_of

        chunks = plan.chunks
        self.per, self.measured = plan.costs
        self.units = len(chunks)
        self.jobs = max(1, int(jobs))
        todo = sum(self.per[c.cell.id] * len(c.runs) for c in chunks)
        self.left = todo  # cost not computed yet
        self.spu: list[float] = []  # worker seconds per cost unit, one per unit done
        self.t0 = time.perf_counter()
        # the bar is the whole study: what was stored before counts as done, at the mean
        # cost per trial of what is left
        done = todo / max(1, sum(len(c.runs) for c in chunks)) * plan.done_before
        cold = cold_kernels({learner_of(ln) for c in chunks for ln in c.cell.learners}
                            ) if chunks else []
        self.note = COMPILING if cold else ""
        self.bar = tqdm(total=done + todo, initial=done, desc=plan.study.name,
                        dynamic_ncols=True, bar_format=self._format())

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            if self.note:  # e.g. no unit was done: the phase is over
                self.note = ""
                self._show()
            self.bar.close()

    def _eta(self) -> str:
        if self.left <= 0:
            return ""
        # worker seconds per cost unit on the units done; a worker's first unit also
        # imports its learners and loads (or compiles) their kernels -- mostly start-up on
        # small units -- so the first ``jobs`` units done do not count
        later = sorted(self.spu[self.jobs:])
        if later:
            spu = later[len(later) // 2]
        elif self.measured:
            spu = 1.0
        else:
            return f", time left: after {self.jobs + 1 - len(self.spu)} more unit(s)"
        return f", ~{_clock(self.left * spu / min(self.jobs, max(1, self.units)))} left"

    def _format(self) -> str:
        """tqdm's bar format with the trials done, the time taken and left, the phase."""
        took = _clock(time.perf_counter() - self.t0)
        text = f"{self.trials}/{self.total} trials [{took}{self._eta()}]"
        text = f"{text} {self.note}".rstrip().replace("{", "{{").replace("}", "}}")
        return "{desc}: {percentage:3.0f}%|{bar}| " + text

    def _show(self, cost: float = 0.0) -> None:
        """Advance the bar by ``cost`` and redraw it."""
        self.bar.bar_format = self._format()
        # float sums of the units' costs can pass the total by an ulp (tqdm then warns)
        self.bar.n = min(self.bar.total, self.bar.n + cost)
        self.bar.refresh()

    def update(self, records: Sequence) -> None:
        """A unit is done: ``records`` are its trials (``TrialRecord``)."""
        self.trials += len(records)
        if self.bar is None or not records:
            return
        cost = sum(self.per.get(r.cell, 0.0) for r in records)
        seconds = sum(r.seconds for r in records)  # the worker's own time for the unit
        if cost > 0:
            self.spu.append(seconds / cost)
        self.left -= cost
        self.units -= 1
        self.note = ""
        self._show(cost)

    def others(self, n: int) -> None:
        """``n`` trials stored by a cooperating run (counted at the mean cost per trial)."""
        self.trials += n
        if self.bar is None or n <= 0:
            return
        left_trials = max(1, self.total - self.trials + n)
        cost = self.left * n / left_trials
        self.left -= cost
        self._show(cost)
