"""Bouckaert & Frank (2004) §4.4, Table 5: replicability on four known data sources.

Study ``ban``
-------------
Four Bayesian-network sources over 10 binary variables (``ban[src=1..4]``, see
:mod:`simstudy.sources.ban`); from each, ``sets`` training sets of 300 cases (the paper:
1000); every test is run 10 times on every training set, each time on a new random
partition of that same set.  A Table 5 cell is the percentage of training sets on which the
test's 10 outcomes (reject or not, two-sided, alpha 0.05, direction ignored) all agree; the
"min." column is the smallest of the four.

=========================  ===================================  ===========================
Table 5 row                design                               test
=========================  ===================================  ===========================
5x2 cv                     ``5x2cv`` (stratified, as Weka)      ``t5x2cv`` (t(5))
10 x resampling            ``resample[r=10,train=0.9]``         ``corrected-resampled-t``
                           (unstratified 270/30)                (t(9))
100 x resampling           ``resample[r=100,train=0.9]``        ``corrected-resampled-t``
10-fold cv                 ``1x10cv`` (stratified)              ``cv-t`` (standard, t(9))
corrected 10x10 fold cv    ``10x10cv`` (stratified)             ``corrected-rxk-t`` (t(99))
=========================  ===================================  ===========================

Not in Table 5, reported beside it from the same trials at no extra cost: the corrected
1×10 cv t (``corrected-rxk-t`` on the 10-fold cv trials; the issue asks for it) and the
uncorrected 10×10 cv t (``rxk-t``, §4.3's most consistent but invalid test).

Shared training sets.  The cells are source × design; every cell of a source has
``sets × 10`` runs, and run ``r`` of every cell sees training set ``r // 10`` of its source:
the source sets ``runs_per_draw = 10``, so the runner seeds its sample by (source, set index)
rather than by cell (:func:`simstudy.seeding.draw_seed`), while partitions and models
stay seeded by (cell, run).  ``meta["runs_per_set"] = 10`` lets ``--sets N`` ask for N sets.

The accuracy row.  The paper trains naive Bayes and C4.5 on each training set and measures
them on a 20,000-case test set.  We compute each trained model's *exact* accuracy under the
source: predict all 512 attribute patterns and weight by the joint, sum_x P(x, class =
pred(x)) (:func:`simstudy.sources.ban.exact_accuracy`); the row is the mean over the same
training sets of acc(NB) − acc(C4.5), in points.  Sources 2–4 were made with C4.5 ahead
(``data/PROVENANCE.md``), so our signed differences are negative; the paper prints
magnitudes.

Cost (measured 2026-11-23 on the 2-core development machine; CPU seconds, so other
processes' load is left out).  Per fit on 300-case sets, the runner's batches (10 runs of
one set per call): ``wnb`` 5-11 us; ``j48`` 33-40 us on sources 2 and 4, 52-75 us on
source 3 and 94-181 us on source 1 (on pure noise it grows large trees and prunes them
back).  Fits alone: 79 ms per (set, repetition) over the 4 sources × 230 splits × 2
learners (wnb 5 ms, j48 74 ms), i.e. 792 CPU s for the full protocol (18.4 M fits); whole
trials in the runner (masks, stacking, tests, records): 126 ms, i.e. 1,260 CPU s, ≈ 11 min
of wall time with ``--jobs 2`` on an otherwise idle machine, plus ~0.2 ms per trial of
store writes in the main process (200,000 trials).  The accuracy row (1000 sets × 4
sources × 2 learners) takes ≈ 15 s.

Choices the paper leaves open: the four networks (``data/ban_sources.json``); learners are
Weka's NaiveBayes and J48 with default settings (``wnb``, ``j48``; the paper used Weka 3.3);
the resampled t uses df = n − 1; an undefined t (zero variance) accepts.

Modules
-------
:mod:`.grid` the cells and Table 5's rows; :mod:`.tables` Table 5 and the accuracy row;
:mod:`.claims` the paper's claims; :mod:`.pages` the results page; :mod:`.render` the
study's rendering.  This module registers the study and is its interface to the report
and to ``scripts/known_truth.py`` (which writes the study's ``truth.csv``).
"""

from __future__ import annotations

from collections.abc import Sequence

from simstudy.catalog import register_study
from simstudy.study import Study

from .grid import ALPHA, CHUNK, DESCRIPTION, LEARNERS, REPS, SEED, SETS, SOURCES, WEKA, cells
from .pages import page
from .render import render as render_study  # the module stays .render
from .tables import exact_accuracies

# what simstudy.report (the page; the claims: :mod:`.claims`) and scripts/known_truth.py (the
# exact accuracies) read
__all__ = ["SEED", "SOURCES", "WEKA", "build", "exact_accuracies", "page"]


@register_study("ban",
                description="Bouckaert & Frank 2004 Table 5: four random BAN sources, 1000 training sets")
def build(sets: int = SETS, learners: Sequence[str] = LEARNERS) -> Study:
    """The ``ban`` study: ``sets`` training sets per source, 10 runs each."""
    return Study(name="ban", cells=cells(learners), runs=int(sets) * REPS, seed=SEED,
                 alpha=ALPHA, chunk=CHUNK, description=DESCRIPTION, render=render_study,
                 meta={"runs_per_set": REPS, "paper": "Bouckaert & Frank (2004) Table 5"})
