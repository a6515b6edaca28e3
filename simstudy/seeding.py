"""Every seed of a study, derived in one place.

A trial ``(cell, run)`` draws all its randomness from

    np.random.SeedSequence(root_seed, spawn_key=(cell_key(cell.id), run, purpose, ...))

so its numbers do not depend on the order trials run in, on the number of workers or on
which other cells are in the study.  The purposes (:data:`SOURCE`, :data:`DESIGN`,
:data:`MODEL`) and the formulas below are fixed forever: changing any of them changes every
stored result.

One exception to "a trial's data is its own": a source with ``runs_per_draw = k`` (the
Bayesian-network sources of Bouckaert & Frank's Table 5) shares its samples across cells.
Runs ``k*i .. k*i+k-1`` of *every* cell with that source spec see training set ``i``, seeded
by (source spec, ``i``) through :func:`draw_seed`; partitions and models stay the cell's.

Examples
--------
>>> from simstudy.seeding import MODEL, trial_seed
>>> trial_seed(0, "iris/nmc~nmc/5x2cv", 3, MODEL, 1, 0).spawn_key[1:]
(3, 2, 1, 0)
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Sequence
from typing import overload

import numpy as np

__all__ = ["SOURCE", "DESIGN", "MODEL", "TRUTH", "cell_key", "trial_seed", "source_seed", "draw_seed",
           "design_seed", "model_seed", "ModelSeeds"]

# purposes inside a trial, part of the spawn key (fixed forever: changing them changes results)
SOURCE, DESIGN, MODEL = 0, 1, 2
# the numeric truth of a generated trial: its large independent sample (TRUTH) and the fit
# of learner k on the whole data (TRUTH, k), see simstudy.interval_truth
TRUTH = 3


@functools.lru_cache(maxsize=4096)  # a work unit asks for its cell's key once per trial
def cell_key(cell_id: str) -> int:
    """Stable 63-bit integer of a cell id (sha256), used in the trial's spawn key."""
    return int.from_bytes(hashlib.sha256(cell_id.encode("utf-8")).digest()[:8], "big") >> 1


def trial_seed(root_seed: int, cell_id: str, run: int, *purpose: int) -> np.random.SeedSequence:
    """The SeedSequence of one trial (or of one purpose inside it: source, design, model)."""
    return np.random.SeedSequence(root_seed, spawn_key=(cell_key(cell_id), int(run), *purpose))


def draw_seed(root_seed: int, source: str, draw: int) -> np.random.SeedSequence:
    """The seed of shared training set ``draw`` of ``source`` (a cell's source spec): the
    sample of runs ``k*draw .. k*draw+k-1`` of every cell with that source when the source
    has ``runs_per_draw = k``; also for anyone else who needs that training set."""
    return trial_seed(root_seed, "draw:" + source, int(draw), SOURCE)


def source_seed(root_seed: int, cell_id: str, source: str, run: int,
                runs_per_draw: int | None = None) -> np.random.SeedSequence:
    """The seed of a trial's data draw: the cell's own, or with ``runs_per_draw = k`` the
    shared draw ``run // k`` of the source (:func:`draw_seed`)."""
    if runs_per_draw:
        return draw_seed(root_seed, source, int(run) // int(runs_per_draw))
    return trial_seed(root_seed, cell_id, run, SOURCE)


def design_seed(root_seed: int, cell_id: str, run: int) -> np.random.SeedSequence:
    """The seed of a trial's partition into training and test folds."""
    return trial_seed(root_seed, cell_id, run, DESIGN)


def model_seed(root_seed: int, cell_id: str, run: int, learner: int,
               model: int) -> np.random.SeedSequence:
    """The seed of one model: learner ``learner`` (its index in the cell) on fold ``model``
    (``replication * folds + fold``) of the trial."""
    return trial_seed(root_seed, cell_id, run, MODEL, learner, model)


class ModelSeeds(Sequence):
    """The model seeds of one learner over some runs of a cell, each made when first asked for.

    Item ``i`` is ``model_seed(root_seed, cell_id, runs[i // per_run], learner, i % per_run)``.
    Deterministic learners never look at their seeds, and a ``SeedSequence`` costs about as much
    to build as a small model costs to fit, so none is built unless a learner asks for it.
    Slices are ``ModelSeeds`` too.

    Examples
    --------
    >>> from simstudy.seeding import ModelSeeds, model_seed
    >>> seeds = ModelSeeds(0, "iris/nmc~nmc/5x2cv", (3, 4), learner=1, per_run=10)
    >>> len(seeds), len(seeds[5:15])
    (20, 10)
    >>> seeds[12].spawn_key == model_seed(0, "iris/nmc~nmc/5x2cv", 4, 1, 2).spawn_key
    True
    """

    def __init__(self, root_seed: int, cell_id: str, runs: Sequence[int], learner: int,
                 per_run: int, _range: range | None = None) -> None:
        self._root, self._cell, self._runs = root_seed, cell_id, tuple(int(r) for r in runs)
        self._learner, self._per_run = int(learner), int(per_run)
        self._range = range(len(self._runs) * self._per_run) if _range is None else _range

    def __len__(self) -> int:
        return len(self._range)

    @overload
    def __getitem__(self, i: int) -> np.random.SeedSequence: ...

    @overload
    def __getitem__(self, i: slice) -> ModelSeeds: ...

    def __getitem__(self, i):
        if isinstance(i, slice):
            return ModelSeeds(self._root, self._cell, self._runs, self._learner, self._per_run,
                              self._range[i])
        g = self._range[i]  # IndexError beyond the end, as a list
        return model_seed(self._root, self._cell, self._runs[g // self._per_run], self._learner,
                          g % self._per_run)
