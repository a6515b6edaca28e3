"""Wang, Li & Li (2016), *Calibrated balanced 5×2 cv F test*: Tables 3, 4 and 5.

Studies
-------
``gaussian``   Table 3 (§3.1): two-class Gaussian data, n = 200, the 8 cases (μ1, Σ1) of the
               table × RT vs LS, SVM vs RF, SVM vs AB, AB vs RF.
``wang-real``  Tables 4 and 5 (§3.2): six UCI data sets.  Table 4: MLP vs MLP with equal
               hidden units (H0 true, type I error) and LP vs MLP (the paper's "type II
               error" block); Table 5: SVM vs RF, SVM vs LDA, LDA vs RF.

Each test runs on its own design, as in the paper: Alpaydın's combined 5×2 cv F test
(``F5x2cv``, F(10, 5)) on the "poor" 5×2 partition of §3 (``poor5x2``: replications 1 and
2 share 9n/20 training instances), the blocked 3×2 cv t test (``tB3x2cv``, t(5)) on blocked
3×2 cv (``b3x2``) and the calibrated balanced 5×2 cv F test (``FB5x2cv``: the statistic of
eq. 6 against F(7, 5), eq. 7) on balanced 5×2 cv (``b5x2``, Table 1 of the paper).  A grid
cell is therefore source × learner pair × (test, design); the three tests of one case see
independent data.

Choices the paper leaves open (documented here, visible in the grid):

* 5000 runs per cell, as the paper; alpha = 0.05; root seed 2016.
* Gaussian samples: each instance's class is a fair coin (class counts Binomial(200, 1/2)),
  a fresh sample per run (the source ``wang-caseK``).
* Learners (see :mod:`simstudy.learners.registry`): RT = least-squares regression tree on
  the 0/1 label thresholded at 0.5; LS = least squares on the 0/1 label thresholded at 0.5;
  SVM = scikit-learn SVC, RBF kernel, defaults; RF = random forest, scikit-learn defaults;
  AB = AdaBoost (SAMME) over stumps, 50 rounds; LDA; LP and MLP-h as in Alpaydın (1999).
* Real data: Heart = ``heart-statlog`` (270 cases), Balance = ``balance-scale``, Thyroid
  gland = ``new-thyroid`` (215 cases, 5 attributes, as the paper describes).
* Table 4's right half is labelled "probabilities of type II error" in the paper, but the
  setup is Alpaydın's LP vs MLP experiment, whose numbers are *reject probabilities*.  We
  report reject probabilities, compare them with the paper's numbers as printed, and say so
  in every output.

The ``-paper`` studies (``gaussian-paper``, ``wang-real-paper``) hold these cells again
(the same ids) beside variants and hypotheses about the paper's learners and tB3x2cv's
criterion, rendered as scenarios (:mod:`.grid`).

Modules
-------
:mod:`.grid` the cells, variants and scenarios; :mod:`.tables` Tables 3-5 beside ours;
:mod:`.claims` the paper's claims on them; :mod:`.pages` the results pages; :mod:`.render`
a study's rendering.  This module registers the studies and is the paper's interface to
the report.
"""

from __future__ import annotations

from simstudy.catalog import register_study
from simstudy.study import Study

from .claims import gaussian_claims, real_claims
from .grid import (
    CASES,
    GAUSS_SCENARIOS,
    GBM_OLD,
    ONE_SIDED,
    REAL_SCENARIOS,
    RPART,
    RUNS,
    SEED,
    SIM_COMPARISONS,
    TEST_DESIGN,
    gaussian_cells,
    real_cells,
    real_variant_cells,
)
from .pages import (
    _slug,
    page_ab_weka_defaults,
    page_gaussian,
    page_gaussian_paper,
    page_real,
    page_real_paper,
)
from .render import render_gaussian, render_gaussian_paper, render_real, render_real_paper
from .tables import replication_correlations, scenario_rows, table3

# what simstudy.report (pages, claims, scenarios), scripts/known_truth.py and the examples read
__all__ = ["CASES", "GAUSS_SCENARIOS", "GBM_OLD", "ONE_SIDED", "REAL_SCENARIOS", "RPART", "SEED",
           "SIM_COMPARISONS", "TEST_DESIGN", "_slug", "gaussian_claims", "page_ab_weka_defaults",
           "page_gaussian", "page_gaussian_paper", "page_real", "page_real_paper", "real_claims",
           "render_gaussian_paper", "replication_correlations", "scenario_rows", "table3",
           "build_gaussian", "build_real", "build_gaussian_paper", "build_real_paper"]


@register_study("gaussian",
                description="Wang, Li & Li 2016 Table 3: 8 Gaussian cases x 4 comparisons x 3 tests")
def build_gaussian() -> Study:
    """Wang, Li & Li (2016) Table 3: 96 cells, 5000 runs each."""
    # chunk 25: ~1-1.6 s per work unit for the SVM/RF/AB pairs; larger chunks make the
    # batched LS slower per run on generated data (the chunk's samples are stacked into one X)
    return Study("gaussian", gaussian_cells(), runs=RUNS, seed=SEED, chunk=25,
                 description="Wang, Li & Li 2016 Table 3 (simulated Gaussian data)",
                 render=render_gaussian)


@register_study("wang-real", description="Wang, Li & Li 2016 Tables 4-5 on six UCI data sets")
def build_real() -> Study:
    """Wang, Li & Li (2016) Tables 4 and 5: 144 cells, 5000 runs each."""
    # chunk 50: 500 batched MLP fits per call; ~1-10 s per work unit
    return Study("wang-real", real_cells(), runs=RUNS, seed=SEED, chunk=50,
                 description="Wang, Li & Li 2016 Tables 4-5 (six UCI data sets)",
                 render=render_real)


@register_study("gaussian-paper",
                description="gaussian with the paper-variant learners and hypotheses about AB")
def build_gaussian_paper() -> Study:
    """Table 3 under the scenarios: the default cells (shared ids) and every variant."""
    return Study("gaussian-paper", gaussian_cells(variants=True), runs=RUNS, seed=SEED, chunk=25,
                 description="Wang, Li & Li 2016 Table 3: default and hypotheses",
                 render=render_gaussian_paper)


@register_study("wang-real-paper",
                description="wang-real with R-default-like learners (paper variant)")
def build_real_paper() -> Study:
    """Tables 4-5 under the scenarios: default, nnet LP/MLP and sigmoid-SVM cells."""
    return Study("wang-real-paper", real_variant_cells(), runs=RUNS, seed=SEED, chunk=50,
                 description="Wang, Li & Li 2016 Tables 4-5: default, R defaults, hypotheses",
                 render=render_real_paper)
