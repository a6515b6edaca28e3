"""``ci-synthetic`` and ``ci-real``: intervals for the generalization error.

``ci-synthetic`` runs on generated data:

The generators (:mod:`simstudy.sources.generators`: a linear-Gaussian regression, Friedman
#1, a low-dimensional logistic model) at n = 100, 400 and 1600, a pair of learners per
generator, and one cell per design that the interval methods read:

=====================  ===========================================================
design                 interval methods (:mod:`simstudy.stats.interval_registry`)
=====================  ===========================================================
``holdout[train=0.67]``  ``holdout`` (and ``holdout[dist=binomial]`` for 0/1 loss)
``1x10cv[strat=0]``      ``naive-cv``, ``cv-clt``, ``cv-clt[variance=naive]``
``resample[r=15]``       ``corrected-t``, ``naive-cv``
``5x2``                  ``t5x2cv``, ``conservative-z``
``ncv[k=5,reps=10]``     ``ncv``, ``ncv[bias=authors]``
=====================  ===========================================================

Run ``r`` of every cell of a source sees the same data set (the generators share their draw
per run), so the methods are compared on the same data, and each trial's truth (the fitted
models' errors on 100 000 fresh instances, :mod:`simstudy.interval_truth`) is shared by
the cells of its source.  Folds are unstratified (a regression response has no classes).
Nested cv runs K = 5 folds and 10 repetitions, not the authors' package defaults (K = 10,
50 repetitions: 2750 fits per trial and learner instead of 150).

``ci-real`` treats five large bundled data sets as populations (``population[data=...,n=...]``:
each run draws n rows, the rest are the truth's test set; Schulz-Kümpel et al. 2024): mushroom,
nursery, optdigits, pendigits and spambase at n = 100 and 500, learners nmc and 1nn, the
same designs.  (letter and satimage, also in Schulz-Kümpel et al.'s list, are not bundled.)

The trials keep their per-instance losses (``meta['keep_losses']``; a regression learner's
squared errors as float64, :func:`simstudy.core.pack_losses`) and, with them, each trial's
numeric truth (``meta['interval_truth']``: computed by the runner once per source and run,
:mod:`simstudy.interval_truth`), so every interval is judged from the store alone.
"""

from __future__ import annotations

from simstudy.catalog import register_study
from simstudy.study import Cell, Study

#: design -> the interval methods that read it
DESIGNS: dict[str, tuple[str, ...]] = {
    "holdout[train=0.67]": ("holdout",),
    "1x10cv[strat=0]": ("naive-cv", "cv-clt", "cv-clt[variance=naive]"),
    "resample[r=15]": ("corrected-t", "naive-cv"),
    "5x2": ("t5x2cv", "conservative-z"),
    "ncv[k=5,reps=10]": ("ncv", "ncv[bias=authors]"),
}
#: generator -> (learner pair, task)
GENERATORS: dict[str, tuple[tuple[str, str], str]] = {
    "lingauss": (("ols", "ridge"), "regression"),
    "friedman1": (("rf-reg", "knn-reg"), "regression"),
    "logistic": (("lda", "1nn"), "classification"),
}
SIZES = (100, 400, 1600)


def grid(sizes: tuple[int, ...] = SIZES) -> list[Cell]:
    """Every generator x size x design cell, its interval methods in the labels."""
    out = []
    for gen, (pair, task) in GENERATORS.items():
        for n in sizes:
            for design, methods in DESIGNS.items():
                if task == "classification" and design.startswith("holdout"):
                    methods = (*methods, "holdout[dist=binomial]")
                out.append(Cell(f"{gen}[n={n}]", pair, design, (),
                                (("generator", gen), ("intervals", methods), ("n", n),
                                 ("task", task))))
    return out


POPULATIONS = ("mushroom", "nursery", "optdigits", "pendigits", "spambase")
REAL_SIZES = (100, 500)


def real_grid(sizes: tuple[int, ...] = REAL_SIZES) -> list[Cell]:
    """Every population x size x design cell, its interval methods in the labels."""
    return [Cell(f"population[data={data},n={n}]", ("nmc", "1nn"), design, (),
                 (("data", data), ("intervals", (*methods, "holdout[dist=binomial]")
                                   if design.startswith("holdout") else methods),
                  ("n", n), ("task", "classification")))
            for data in POPULATIONS for n in sizes for design, methods in DESIGNS.items()]


@register_study("ci-real", description="intervals for the generalization error on 5 bundled "
                "data sets as populations x n 100/500 x 5 designs (Schulz-Kumpel et al. 2024)")
def build_real() -> Study:
    return Study("ci-real", real_grid(), runs=1000, seed=2024, chunk=20,
                 description="intervals for the generalization error on bundled data sets as "
                             "populations", meta={"keep_losses": True, "interval_truth": True})


@register_study("ci-synthetic", description="intervals for the generalization error: "
                "3 generators x n 100/400/1600 x 5 designs, one learner and the difference "
                "of two (Bates, Hastie & Tibshirani 2024; Schulz-Kumpel et al. 2024)")
def build() -> Study:
    return Study("ci-synthetic", grid(), runs=1000, seed=2024, chunk=20,
                 description=__doc__.splitlines()[0], meta={"keep_losses": True, "interval_truth": True})
