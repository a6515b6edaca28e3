"""Alpaydın (1999), *Combined 5×2 cv F test*, Neural Computation 11(8): Tables 1–3, Figs. 1–2.

Studies
-------
``type1``      MLP vs MLP with equal hidden units (H0 true): Table 3 left half, Fig. 1.
``type2``      LP vs MLP (Table 3 right half, the paper's "type II" block, which reports
               *reject probabilities*), Fig. 2 (reject probability against the normalised
               difference z = (mean LP error − mean MLP error) / sd of MLP error).
``numerator``  Table 1: for LP vs MLP, how many of the 10 numerators of the 5×2cv t (eq. 2.2)
               reject and whether the combined F rejects, for one run -- plus the distribution
               of that count over runs, which the paper could not show.
``errors``     Table 2: mean and sd of test-fold error of LP and each MLP.

Choices the paper leaves open (documented, parameters of the grid):
* Random 5×2 cv halves (design ``5x2``), alpha 0.05, 1000 runs.
* THYROID is the 7200-case thyroid set, which we do not have: its rows say "not available";
  nothing stands in for it.  DIGIT (Table 1) is not available either; PEN is pendigits.
* Table 1 does not say how many hidden units its MLP had; we use the largest MLP of Table 2
  for each data set (20 hidden units; 20 for PEN too).
* ODR is optdigits (the paper's "optical digit recognition", 5620 instances).

Variants
--------
``type1-paper``, ``type2-paper``, ``errors-paper`` hold every cell twice, labelled
``variant``: ``default`` (the cells of ``type1``/``type2``, the same ids, so the same stored
trials) and ``paper``, whose LP and MLPs are trained the older way Alpaydın's probably were:
per-pattern online backprop (``solver=online``: logistic hidden units, softmax +
cross-entropy, η = 0.02, no momentum, U(−0.01, 0.01) initial weights, z-scored inputs,
reshuffled each epoch) for a number of epochs chosen per data set by
:mod:`.calibration` against Table 2 (the error table) only -- never against
Table 3's reject proportions.  Both are rendered side by side with their in-band counts.
The default studies are unchanged.

``odr-size`` is a hypothesis, not a variant: Table 2's sds fit the binomial sd of a test half
on every data set but ODR, whose sds imply about 900 cases instead of UCI optdigits' 5620
(:func:`.calibration.implied_sizes`).  It runs ODR's four Table 3 cells on the
first 900 cases with the paper variant's learners, their epochs calibrated again at that size
on Table 2 only.

Modules
-------
:mod:`.grid` the data sets, learners and cells; :mod:`.calibration` the paper variant's
epochs, chosen on Table 2 (``scripts/alpaydin1999_calibration.py`` reruns it);
:mod:`.tables` the paper's tables beside ours from a study's result; :mod:`.claims` the
paper's claims on those tables; :mod:`.pages` the results pages; :mod:`.render` a study's
rendering.  This module registers the studies and is the paper's interface to the report.
"""

from __future__ import annotations

from simstudy.catalog import register_study
from simstudy.study import Study

from .claims import KIND_TABLE, _runs_of_shares, claims_numerator, claims_type1, claims_type2
from .grid import (
    DATASETS,
    SIZES,
    VARIANTS,
    numerator_cells,
    odr_size_cells,
    odr_size_epochs,
    pilot_cells,
    pilot_hidden,
    table3_cells,
    variant_cells,
)
from .pages import (
    page_errors,
    page_errors_paper,
    page_numerator,
    page_odr_size,
    page_type1,
    page_type1_paper,
    page_type2,
    page_type2_paper,
)
from .render import (
    render_errors,
    render_errors_paper,
    render_numerator,
    render_numerator_pilot,
    render_odr_size,
    render_type1,
    render_type1_paper,
    render_type2,
    render_type2_paper,
)

# what simstudy.report reads of the paper: the pages, the claims and the variants
__all__ = ["DATASETS", "KIND_TABLE", "SIZES", "VARIANTS", "_runs_of_shares", "claims_numerator",
           "claims_type1", "claims_type2", "odr_size_epochs", "page_errors", "page_errors_paper",
           "page_numerator", "page_odr_size", "page_type1", "page_type1_paper", "page_type2",
           "page_type2_paper", "pilot_hidden", "render_odr_size", "render_type1_paper",
           "build_type1", "build_type2", "build_numerator", "build_errors", "build_type1_paper",
           "build_type2_paper", "build_errors_paper", "build_odr_size", "build_numerator_pilot"]

SEED = 1999


@register_study("type1", description="Alpaydin 1999 Table 3 type I (MLP vs MLP) and Fig. 1")
def build_type1() -> Study:
    return Study("type1", table3_cells("type1"), runs=1000, seed=SEED, chunk=100,
                 description="Alpaydin 1999 Table 3 (type I) and Fig. 1", render=render_type1,
                 meta={"keep_losses": True})  # the per-instance tests read the losses


@register_study("type2",
                description="Alpaydin 1999 Table 3 LP vs MLP (reject probability) and Fig. 2")
def build_type2() -> Study:
    return Study("type2", table3_cells("type2"), runs=1000, seed=SEED, chunk=100,
                 description="Alpaydin 1999 Table 3 (LP vs MLP) and Fig. 2", render=render_type2,
                 meta={"keep_losses": True})  # the per-instance tests read the losses


@register_study("numerator",
                description="Alpaydin 1999 Table 1: rejects out of the 10 numerators of the 5x2cv t")
def build_numerator() -> Study:
    return Study("numerator", numerator_cells(), runs=100, seed=SEED, chunk=100,
                 description="Alpaydin 1999 Table 1: the 10 numerators", render=render_numerator)


@register_study("errors", description="Alpaydin 1999 Table 2: test-fold errors of LP and MLPs")
def build_errors() -> Study:
    # the same cells (hence the same stored trials) as type1 and type2
    return Study("errors", table3_cells("type2") + table3_cells("type1"), runs=1000, seed=SEED,
                 chunk=100, description="Alpaydin 1999 Table 2: error rates",
                 render=render_errors)


@register_study("type1-paper",
                description="type1 with the learner settings calibrated on Alpaydin's Table 2")
def build_type1_paper() -> Study:
    """type1 with the paper variant's cells beside the default ones."""
    return Study("type1-paper", variant_cells("type1"), runs=1000, seed=SEED, chunk=100,
                 description="Alpaydin 1999 Table 3 (type I): default and paper variant",
                 render=render_type1_paper)


@register_study("type2-paper",
                description="type2 with the learner settings calibrated on Alpaydin's Table 2")
def build_type2_paper() -> Study:
    """type2 with the paper variant's cells beside the default ones."""
    return Study("type2-paper", variant_cells("type2"), runs=1000, seed=SEED, chunk=100,
                 description="Alpaydin 1999 Table 3 (LP vs MLP): default and paper variant",
                 render=render_type2_paper)


@register_study("errors-paper", description="Alpaydin Table 2 under the paper-variant learners")
def build_errors_paper() -> Study:
    """Table 2 under both variants (the cells of type1-paper and type2-paper)."""
    return Study("errors-paper", variant_cells("type2") + variant_cells("type1"), runs=1000,
                 seed=SEED, chunk=100, description="Alpaydin 1999 Table 2: both variants",
                 render=render_errors_paper)


@register_study("odr-size",
                description="Alpaydin 1999 ODR rows on the size Table 2's sds imply (hypothesis)")
def build_odr_size() -> Study:
    """ODR's four Table 3 cells on the size Table 2's sds imply (a hypothesis)."""
    return Study("odr-size", odr_size_cells(), runs=1000, seed=SEED, chunk=10,
                 description="Alpaydin 1999 ODR rows on the size Table 2's sds imply (hypothesis)",
                 render=render_odr_size)


def build_numerator_pilot(runs: int = 100) -> Study:
    """The pilot's cells: LP vs the hidden units of :func:`~.grid.pilot_hidden` (same seed as
    ``numerator``; VOWEL's cell is also a ``type2`` cell, so its trials are type2's).

    ``ss.run(build_numerator_pilot(), out="figures/numerator")`` writes
    ``pilot_table3_hidden.*`` and the numerator page's pilot section (100 LP vs MLP-5 fits
    on VOWEL: about 20 s).
    """
    return Study("numerator-pilot", pilot_cells(), runs=runs, seed=SEED, chunk=100,
                 description="Alpaydin 1999 Table 1 rows with Table 3's hidden units (pilot)",
                 render=render_numerator_pilot)
