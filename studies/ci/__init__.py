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
``ncv[k=5,reps=5]``      ``ncv``, ``ncv[bias=authors]``
=====================  ===========================================================

Run ``r`` of every cell of a source sees the same data set (the generators share their draw
per run), so the methods are compared on the same data, and each trial's truth (the fitted
models' errors on 100 000 fresh instances, :mod:`simstudy.interval_truth`) is shared by
the cells of its source.  Folds are unstratified (a regression response has no classes).
Nested cv runs K = 5 folds and 5 repetitions, not the authors' package defaults (K = 10,
50 repetitions: 2750 fits per trial and learner instead of 75).  The reason is the shipped
bytes: a regression trial of nested cv keeps float64 sums per repetition and outer fold and
its fits' fold errors, about 4.5 kB at 10 repetitions, so 10 repetitions at 1000 runs would
put the two studies' shipped trials over 25 MB.  ``ci-ncv-reps`` measures what the cut
does to coverage: the three generators at n = 100 under 5 and 10 repetitions of K = 5 and
under the authors' K = 10, 50 repetitions, on the same data sets.

Friedman #1's learners are ridge and k-NN: a random forest (``rf-reg``, 100 trees) costs
about 2.5 ms of CPU per tree fitted at n = 100, 40 s per trial of nested cv at 10
repetitions, and the grid at 1000 runs would take over 70 CPU hours against the 6 of its
budget (measured at commit 3da2dda, ``figures/pilots/ci_plan.md`` there).

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
from simstudy.study import Study

from .grid import grid as synthetic_grid
from .grid import ncv_grid, real_grid


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
    return Study("ci-synthetic", synthetic_grid(), runs=1000, seed=2024, chunk=20,
                 description=__doc__.splitlines()[0], meta={"keep_losses": True, "interval_truth": True})


@register_study("ci-ncv-reps", description="nested cv's coverage under 5 and 10 repetitions "
                "of 5 folds and the authors' 10 folds x 50 repetitions, 3 generators at "
                "n = 100 (Bates, Hastie & Tibshirani 2024)")
def build_ncv_reps() -> Study:
    return Study("ci-ncv-reps", ncv_grid(), runs=500, seed=2024, chunk=10,
                 description="nested cv's repetitions and folds against the authors' setting",
                 meta={"keep_losses": True, "interval_truth": True})
