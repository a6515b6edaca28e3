"""The numeric truth of a trial of a generator source: each fitted model's error.

An interval for the generalization error targets the error of the model fitted on the
trial's whole data set (``n`` instances), ``Err_XY`` of Bates, Hastie & Tibshirani (2024,
sec. 2): its expected loss on a new instance from the same distribution.  For a source that
can draw fresh data (``truth_sample``), that error is measured here on a large independent
sample (a ``population[...]`` source: the rows of its data set the run did not draw): the learner is fitted on all ``n`` instances of the trial's data (the very draw
the runner makes, :func:`simstudy.seeding.source_seed`), with model seed
``trial_seed(root, SOURCE, run, TRUTH, cell_key(LEARNER))``, and scored on ``n_truth``
instances drawn from ``trial_seed(root, SOURCE, run, TRUTH)``: keyed by the source and
learner specs, not the cell, so with a generator's shared draws (``runs_per_draw = 1``)
every cell of a source and run has the same truth for the same learner.  The Monte Carlo error of each truth is the standard
deviation of its per-instance losses over ``sqrt(n_truth)`` (for 0/1 loss at most
``0.5 / sqrt(n_truth)``, 0.0016 at the default 100 000).  The unconditional truth
``Err`` (expected error over training sets of size n) is the mean of the conditional truths
over runs, with their standard error.

Seeded, deterministic: the same cell, root seed and run give the same truth on any machine.
"""

from __future__ import annotations

import functools

import numpy as np

from .core import Truth
from .errors import SimstudyError
from .learners import get_learner
from .learners.base import instance_losses
from .seeding import TRUTH, cell_key, source_seed, trial_seed
from .sources import get_source
from .study import Cell

__all__ = ["N_TRUTH", "Truth", "conditional_truth"]

#: default size of the independent sample a truth is measured on
N_TRUTH = 100_000


def conditional_truth(cell: Cell, root_seed: int, run: int, n_truth: int = N_TRUTH) -> Truth:
    """Each learner's error, fitted on trial ``run``'s whole data, on a fresh sample.

    Examples
    --------
    >>> from simstudy.study import Cell
    >>> c = Cell("lingauss[n=50,p=5]", ("ols", "ridge"), "1x5cv", ())
    >>> t = conditional_truth(c, 0, 0, n_truth=20000)
    >>> bool(t.error[0] > 1.0), bool(t.mc_se[0] < 0.05)
    (True, True)
    """
    if not (isinstance(n_truth, int) and n_truth >= 2):
        raise SimstudyError(f"n_truth={n_truth!r} must be an integer >= 2")
    src = get_source(cell.source)
    if not hasattr(src, "truth_sample"):
        raise SimstudyError(f"source {cell.source!r} cannot draw an independent sample: its "
                            f"truth is not computable here (generators and population[...] "
                            f"sources can)")
    ds = source_seed(root_seed, cell.id, cell.source, run, getattr(src, "runs_per_draw", None))
    # the cells of one source and learner pair share their truths (the same draw and seeds):
    # a process computes each once
    return _truth(cell.source, tuple(cell.learners), root_seed, run, n_truth,
                  ds.entropy, tuple(ds.spawn_key))


@functools.lru_cache(maxsize=4096)
def _truth(source: str, learners: tuple[str, ...], root_seed: int, run: int, n_truth: int,
           entropy: int, spawn_key: tuple[int, ...]) -> Truth:
    src = get_source(source)
    data = src.sample(np.random.default_rng(
        np.random.SeedSequence(entropy, spawn_key=spawn_key)))
    Xt, yt = src.truth_sample(data, n_truth, np.random.default_rng(
        trial_seed(root_seed, source, run, TRUTH)))
    n_truth = int(yt.shape[0])
    X = np.concatenate([data.X, Xt])
    y = np.concatenate([data.y, yt])
    train = np.zeros((1, X.shape[0]), dtype=bool)
    train[0, : data.n] = True
    losses = []
    for spec in learners:
        learner = get_learner(spec).prepare(data)
        seeds = [trial_seed(root_seed, source, run, TRUTH, cell_key(spec))]
        pred = learner.fit_predict(X, y, train, ~train, seeds)[0, data.n:]
        losses.append(instance_losses(pred, yt, learner.loss))
    L = np.array(losses)  # (K, n_truth)
    se = L.std(axis=1, ddof=1) / np.sqrt(n_truth)
    D = L[:, None, :] - L[None, :, :]
    return Truth(L.mean(axis=1), se, D.std(axis=2, ddof=1) / np.sqrt(n_truth), n_truth)
