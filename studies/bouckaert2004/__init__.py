"""Bouckaert & Frank (2004), *Evaluating the replicability of significance tests for
comparing learning algorithms* (PAKDD 2004): Tables 1–4 and the numbers of §4.3.

Study ``replicability``
-----------------------
The 27 UCI data sets of Table 1 × 9 designs, one cell per (data set, design) with the three
learners naive Bayes, C4.5 and nearest neighbour, so the three pairs share every fit.  A run
is one repetition of the test with a new random partition; 10 runs per cell (the paper's 10
repetitions); two-sided tests at alpha 0.05 unless stated.

=============  ===================================  =============================  ==========
table          design(s)                            test                           paper
=============  ===================================  =============================  ==========
Table 1        ``5x2cv`` (stratified)               ``t5x2cv`` (t(5))              §4.1
Table 2        ``resample[r=R]``, R = 10/20/50/100  ``corrected-resampled-t``      §4.2
               (unstratified 90/10 splits; each     (t(R − 1))
               column its own experiment)
Table 3        ``{r}x10cv``, r = 1/2/5/10           ``corrected-rxk-t`` (t(10r−1))  §4.3
               (stratified as Weka)
Table 4        the 10×10 cv trials of Table 3 at    ``corrected-rxk-t``            §4.3
               alpha 1, 2.5, 5, 10 %
§4.3 text      ``1x10cv``; ``10x10cv``              ``cv-t`` (t(9)); ``rxk-t``       §4.3
                                                    (uncorrected, t(99))
=============  ===================================  =============================  ==========

Table 4 and the §4.3 numbers fit nothing new: their decisions are recomputed from the
p-values stored with the Table 3 trials (:func:`simstudy.aggregate.reject_table`).
Stratified resampling (§4.3, "the replicability scores differed only very slightly") doubles
the resampling cost, so it is a separate study, ``replicability-strat``: Table 2's designs
unstratified (the same cells as ``replicability``, so a store that holds them refits nothing)
and with ``strat=1``, rendered side by side against the paper's Table 2.

Choices the paper leaves open (documented, visible in the grid):

* Learners: Weka's NaiveBayes, J48 and IB1 with default settings (``wnb``, ``j48``, ``ib1``;
  the paper used Weka 3.3, ours are re-implementations checked against Weka 3.6.14).
  :data:`LEARNERS` names them (the study was developed on the stand-ins :data:`STAND_INS`
  before they existed; the numbers here are the Weka learners').
* The resampled t uses df = n − 1 (the paper's text says "n degrees of freedom"; Weka and
  Nadeau & Bengio use n − 1).  An undefined statistic (zero variance) accepts H0.
* Columns of Tables 2 and 3 are independent experiments (not nested partitions).
* Outcome = reject or accept, direction ignored (as the paper's consistency counts); the
  sign of the statistic gives the direction for the §4.1 check.
* The counts depend on the partitions, so every summary row is also given over several
  root seeds (``python -m simstudy run replicability --seeds 3 --jobs 2``): ours on the first
  seed, and the min–max over the seeds.

Data (verified in tests/test_study_bouckaert.py against Table 1's #inst. and #cl.): all 27
sets are bundled (:data:`.grid.DATASETS`), and read as Weka reads its
ARFF files: ``NAME[domains=declared]`` (declared nominal domains, unused values included,
and class order; ``simstudy/sources/data/DOMAINS.json``) wherever those are recorded --
every set but heart-h (:func:`.grid.source`).  Variants: vowel keeps all
13 attributes of Weka's vowel.arff (Train_or_Test, Speaker_Number, Sex and the 10 features);
credit-rating = ``crx`` (Weka credit-a, 690 × 15); German credit = ``credit-g``; Hungarian
heart disease = ``heart-h`` (294 × 13); Wisconsin breast cancer = ``breast-w`` with all 699
cases (16 missing Bare.nuclei); horse-colic = Weka's colic.arff (22 attributes, class =
surgical lesion, 232 yes / 136 no); zoo without the animal name (16 attributes); pima-diabetes
= ``diabetes``.  The paper's #atts. excludes the class except for ecoli (8), credit-rating (16)
and arrhythmia (280), where it is Weka's attribute count including the class (ours 7, 15, 279).
ionosphere's constant attribute a02 is dropped on loading (it cannot change any of the three
learners' predictions).

Table 5 (the ``ban`` study, four known data sources) is :mod:`.ban`.

Modules
-------
:mod:`.grid` the cells and the summary rows; :mod:`.tables` the counts and the summary
tables; :mod:`.claims` the paper's claims; :mod:`.pages` the results page; :mod:`.render`
a study's rendering.  This module registers the studies and is the paper's interface to
the report.
"""

from __future__ import annotations

from collections.abc import Iterable

from simstudy.catalog import register_study
from simstudy.study import Study

from .grid import ALPHA, LEARNERS, RUNS, SEED, cells
from .pages import page
from .render import render as render_study  # the module stays .render

# what simstudy.report reads of the paper: the page (the claims: :mod:`.claims`)
__all__ = ["build", "build_strat", "page"]


@register_study("replicability",
                description="Bouckaert & Frank 2004 Tables 1-4: replicability on 27 UCI sets")
def build(datasets: Iterable[str] | None = None, learners: tuple[str, ...] = LEARNERS) -> Study:
    """Bouckaert & Frank (2004) Tables 1–4 and §4.3: 27 data sets × 9 designs, 10 runs."""
    return Study("replicability", cells(datasets, learners=learners), runs=RUNS, seed=SEED,
                 alpha=ALPHA, chunk=RUNS,
                 description="Bouckaert & Frank 2004 Tables 1-4 (replicability, 27 UCI sets)",
                 render=render_study, meta={"paper": "bouckaert2004", "repetition": "cell"})


@register_study("replicability-strat",
                description="Bouckaert & Frank 2004 Table 2 with stratified resampling beside")
def build_strat(datasets: Iterable[str] | None = None,
                learners: tuple[str, ...] = LEARNERS) -> Study:
    """§4.3's check: Table 2's resampling unstratified (the main study's cells, reused from
    the store) and stratified: 27 data sets × 8 designs."""
    return Study("replicability-strat", cells(datasets, strat=True, learners=learners),
                 runs=RUNS, seed=SEED, alpha=ALPHA, chunk=RUNS,
                 description="Bouckaert & Frank 2004 sec. 4.3: stratified resampling",
                 render=render_study,
                 meta={"paper": "bouckaert2004", "repetition": "cell", "strat": True})
