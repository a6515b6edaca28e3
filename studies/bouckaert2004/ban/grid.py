"""Bouckaert & Frank (2004), Table 5: the grid -- four BAN sources × five designs, NB and
C4.5 -- and Table 5's rows."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from simstudy.designs import get_design
from simstudy.study import Cell

REF = Path(__file__).parents[2] / "reference"
SEED = 2004

SETS = 1000

REPS = 10  # runs per training set (the paper's 10 repetitions)

#: runs per work unit: one training set's 10 runs.  Trials of a generated source are stacked
#: into one X per learner call, so 50 runs of 10x10 cv made (5000, 15000) masks and
#: predictions: 1.2 GB peak per worker, and no faster per trial than 10 runs (0.3-0.4 GB)
CHUNK = REPS

ALPHA = 0.05

#: Weka's NaiveBayes and J48 (the paper's NB and C4.5)
WEKA: tuple[str, str] = ("wnb", "j48")

#: what the study ran on before the Weka learners existed (not the paper's learners)
STAND_INS: tuple[str, str] = ("nb", "c45")

#: the learners of every cell: NB first, C4.5 second (the accuracy row is acc0 − acc1)
LEARNERS: tuple[str, str] = WEKA

SOURCES: tuple[str, ...] = tuple(f"ban[src={k}]" for k in range(1, 5))

SOURCE_LABEL = {s: f"source {k}" for k, s in enumerate(SOURCES, 1)}


def _design(spec: str) -> str:
    return get_design(spec).name  # canonical id (e.g. "resample" for r = 10, train = 0.9)


#: (design, tests) of each source's cells
EXPERIMENTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("5x2cv", ("t5x2cv",)),
    (_design("resample[r=10,train=0.9]"), ("corrected-resampled-t",)),
    (_design("resample[r=100,train=0.9]"), ("corrected-resampled-t",)),
    ("1x10cv", ("cv-t", "corrected-rxk-t")),
    ("10x10cv", ("corrected-rxk-t", "rxk-t")),
)

#: Table 5's rows (the paper's label -> design, test), then ours beside them
ROWS: tuple[tuple[str, str, str, bool], ...] = (
    ("5x2 cv", "5x2cv", "t5x2cv", True),
    ("10 x resampling", EXPERIMENTS[1][0], "corrected-resampled-t", True),
    ("100 x resampling", EXPERIMENTS[2][0], "corrected-resampled-t", True),
    ("10-fold cv", "1x10cv", "cv-t", True),
    ("corrected 10x10 fold cv", "10x10cv", "corrected-rxk-t", True),
    ("corrected 10-fold cv (not in paper)", "1x10cv", "corrected-rxk-t", False),
    ("uncorrected 10x10 fold cv (not in paper)", "10x10cv", "rxk-t", False),
)

PAPER_ROWS = tuple(r[0] for r in ROWS if r[3])

#: the paper's claimed order of the min column (§4.4 and Table 5)
MIN_ORDER = ("5x2 cv", "10 x resampling", "10-fold cv", "100 x resampling",
             "corrected 10x10 fold cv")


DESCRIPTION = "Bouckaert & Frank 2004 Table 5: replicability on four BAN data sources"


def cells(learners: Sequence[str] = LEARNERS) -> list[Cell]:
    """4 sources × 5 designs = 20 cells, learners (NB, C4.5)."""
    return [Cell(src, tuple(learners), design, tests, (("source", SOURCE_LABEL[src]),))
            for src in SOURCES for design, tests in EXPERIMENTS]
