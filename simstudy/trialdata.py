"""The data of one trial: its sample of the source and its design's train and test masks.

Each trial draws only from its own seeds (:mod:`simstudy.seeding`): the sample from the
source's seed for the run, the masks from the design's, so the same (cell, root seed, run)
gives the same data wherever and in whatever order it is built -- by the runner fitting
it, or by a reader recomputing a shipped trial's test positions.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from .core import Dataset
from .seeding import design_seed, source_seed
from .study import Cell


@cache
def source_of(spec: str):
    """The source named ``spec`` (resolved once per process: workers resolve each name once).

    >>> source_of("iris").name
    'iris'
    """
    from .sources import get_source

    return get_source(spec)


@cache
def design_of(spec: str):
    """The design named ``spec`` (resolved once per process).

    >>> design_of("5x2cv").shape
    (5, 2)
    """
    from .designs import get_design

    return get_design(spec)


@cache
def learner_of(spec: str):
    """The learner named ``spec`` (resolved once per process: workers resolve each name once).

    >>> learner_of("nmc").name
    'nmc'
    """
    from .learners import get_learner

    return get_learner(spec)


def trial_data(cell: Cell, seed: int, run: int) -> tuple[Dataset, np.ndarray, np.ndarray]:
    """(sample, train masks, test masks) of run ``run`` of ``cell`` at root seed ``seed``;
    the masks are bool (R, F, n) over the sample's instances.

    >>> from simstudy.study import cells
    >>> d, train, test = trial_data(cells(["iris"], [("nmc", "1nn")], ["5x2cv"], [])[0], 0, 0)
    >>> train.shape, bool((train ^ test).all())
    ((5, 2, 150), True)
    """
    cid = cell.id
    src = source_of(cell.source)
    data = src.sample(np.random.default_rng(source_seed(
        seed, cid, cell.source, run, getattr(src, "runs_per_draw", None))))
    des = design_of(cell.design)
    train = des.masks(data.y, np.random.default_rng(design_seed(seed, cid, run)))
    test = des.test_masks(train)
    return data, train, test


def trial_block(d: Dataset, tr: np.ndarray, te: np.ndarray, m: int):
    """(X, y, train, test) of one trial with its ``m`` models' masks as rows (m, n'); an
    independent test set is appended to X (tested by every model, trained on by none).

    >>> from simstudy.study import cells
    >>> d, tr, te = trial_data(cells(["iris"], [("nmc", "1nn")], ["5x2cv"], [])[0], 0, 0)
    >>> [a.shape for a in trial_block(d, tr, te, 10)]
    [(150, 4), (150,), (10, 150), (10, 150)]
    """
    tr, te = tr.reshape(m, -1), te.reshape(m, -1)
    if d.X_test is None:
        return d.X, d.y, tr, te
    nt = d.X_test.shape[0]
    X = np.concatenate([d.X, d.X_test])
    y = np.concatenate([d.y, d.y_test])
    train = np.concatenate([tr, np.zeros((m, nt), dtype=bool)], axis=1)
    test = np.concatenate([np.zeros_like(tr), np.ones((m, nt), dtype=bool)], axis=1)
    return X, y, train, test
