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
from .errors import SimstudyError
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
    rng = np.random.default_rng(design_seed(seed, cid, run))
    if hasattr(des, "rows"):
        return _design_rows(des, data, rng, cid)
    train = des.masks(data.y, rng)
    test = des.test_masks(train)
    return data, train, test


#: ``Dataset.meta`` key of the instance column of each row a design built (see _design_rows)
ROW_COLUMNS = "instance_of_row"


def _design_rows(des, data: Dataset, rng: np.random.Generator, cid: str):
    """A design whose training sets repeat instances (the bootstrap): the data are the rows
    it draws, ``(X[xi], y[yi])``, and its masks are over those rows; the instance column of
    each row rides in the data's meta, for the losses to be folded back
    (:func:`instance_columns`)."""
    import dataclasses

    if data.X_test is not None:
        raise SimstudyError(f"cell {cid!r}: design {des.name!r} builds its own rows and "
                            "cannot take an independent test set (n_test=0)")
    xi, yi, train, test, col = des.rows(data.y, rng)
    rows = dataclasses.replace(data, X=data.X[xi], y=data.y[yi],
                               meta={**data.meta, ROW_COLUMNS: (col, data.n)})
    return rows, train, test


def instance_columns(losses: np.ndarray, data: Dataset) -> np.ndarray:
    """A trial's (K, R*F, N) per-row losses folded back to its (K, R*F, n) instance columns
    when its design built rows (each fold tests an instance at most once); else as is.

    >>> from simstudy.study import cells
    >>> d, train, test = trial_data(cells(["iris"], [("nmc", "1nn")], ["boot[r=5]"], [])[0],
    ...                             0, 0)
    >>> R, F, N = test.shape  # r + 2 replications over N rows drawn from 150 instances
    >>> losses = np.where(test.reshape(1, R * F, N), 0.0, -1.0).repeat(2, axis=0)
    >>> folded = instance_columns(losses, d)
    >>> folded.shape, int((folded[0] >= 0).sum()) == int(test.sum())
    ((2, 7, 150), True)
    """
    got = data.meta.get(ROW_COLUMNS)
    if got is None:
        return losses
    col, n = got
    out = np.full(losses.shape[:2] + (n,), -1, dtype=losses.dtype)
    fold, row = np.nonzero(losses[0] >= 0)
    out[:, fold, col[row]] = losses[:, fold, row]
    return out


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
