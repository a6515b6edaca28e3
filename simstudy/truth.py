"""Truth labels of cells: does H0 hold, and what is the true difference of error rates?

A report card splits a study's cells into *size* cells (H0 true: the reject
proportion estimates the type I error) and *power* cells (H1: it estimates the power at a
known true difference).  :func:`truth` answers per cell, in this order:

1. the cell's own labels ``h0`` (bool) and ``true_diff`` (float, error of learner a minus
   learner b), when the study declares them;
2. H0 when every learner of the cell is the same spec (Alpaydın 1999's type I cells, MLP vs
   MLP with equal hidden units; Wang, Li & Li 2016 Table 4's left half): the two learners
   are exchangeable, so the expected difference is 0 (``true_diff = 0.0``);
3. what a study declares for the cell's source and learners in a ``truth.csv`` of its
   folder (:func:`known_truth`; a row for learners ``*`` holds for any learners of that
   source), computed once, ahead of time, where the source makes it computable -- never at
   report time, so a card fits no learner (``scripts/known_truth.py`` writes the files):

   * Gaussian sources (Wang, Li & Li 2016 §3.1, ``wang-caseK``): each learner is trained on
     training sets of the cells' size (n/2 = 100 of the n = 200 sample, every design of the
     study) and scored on a large *independent* test sample from the same distribution
     (the source's ``n_test``), so each model's error is its generalisation error up to a
     binomial error of order sqrt(0.1/n_test); the mean over models of e_a - e_b estimates
     the true expected difference (:func:`gaussian_true_diff`).
   * BAN sources (Bouckaert & Frank 2004 §4.4): each model's *exact* accuracy under the
     network, sum_x P(x, class = pred(x)) over the 512 attribute patterns
     (:func:`simstudy.studies.bouckaert2004.ban.exact_accuracies`), on the study's own training
     sets of 300 cases; ``true_diff`` = mean(acc(C4.5) - acc(NB)) = error(NB) - error(C4.5).
     The folds train on fewer cases (150 to 270): the value is the paper's accuracy row,
     the difference *at the full training-set size* (stated wherever it is shown).
     Source 1 is pure noise: H0 holds exactly, for any two learners.

4. otherwise unknown: ``(None, None)``.
"""

from __future__ import annotations

import csv
import functools
import math
from collections.abc import Sequence
from pathlib import Path
from typing import NamedTuple

import numpy as np

from .errors import SimstudyError
from .registry import study_files
from .study import Cell, Study

#: the file a study's folder declares its known truths in, and its columns
TRUTH_FILE = "truth.csv"
TRUTH_COLUMNS = ("source", "learner_a", "learner_b", "h0", "true_diff", "se", "how")
ANY = "*"  # a learner of a truth row that holds for any learners of its source


class Known(NamedTuple):
    """A declared truth of (source, learner a, learner b): H0 holds or not, the true
    difference of error rates a - b, its Monte-Carlo standard error (NaN when exact) and how
    it was computed."""

    h0: bool
    true_diff: float
    se: float
    how: str


def read_known(path: Path) -> dict[tuple[str, str, str], Known]:
    """The rows of one ``truth.csv`` (columns :data:`TRUTH_COLUMNS`, floats as Python writes
    them, so they read back bit for bit).

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / TRUTH_FILE
    >>> write_known(p, {("s", "a", "b"): Known(False, 0.1 + 0.2, 0.01, "by hand")})
    >>> read_known(p)[("s", "a", "b")].true_diff == 0.1 + 0.2
    True
    """
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if rows and tuple(rows[0]) != TRUTH_COLUMNS:
        raise SimstudyError(f"{str(path)!r} has columns {tuple(rows[0])!r}; "
                            f"a truth file has {TRUTH_COLUMNS!r}")
    return {(r["source"], r["learner_a"], r["learner_b"]):
            Known(r["h0"] == "True", float(r["true_diff"]), float(r["se"] or "nan"), r["how"])
            for r in rows}


def write_known(path: Path, known: dict[tuple[str, str, str], Known]) -> None:
    """Write ``known`` as a ``truth.csv`` that :func:`read_known` reads back exactly."""
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(TRUTH_COLUMNS)
        for (src, a, b), k in known.items():
            w.writerow([src, a, b, bool(k.h0), repr(float(k.true_diff)),
                        "" if math.isnan(k.se) else repr(float(k.se)), k.how])


@functools.cache
def known_truth() -> dict[tuple[str, str, str], Known]:
    """Every truth the studies declare: the rows of each ``truth.csv`` in their folders
    (:func:`simstudy.registry.study_files`), keyed (source, learner a, learner b)."""
    out: dict[tuple[str, str, str], Known] = {}
    for path in study_files(TRUTH_FILE):
        out.update(read_known(path))
    return out


def _label_bool(v: object) -> bool | None:
    if v is None:
        return None
    if isinstance(v, str):
        return {"true": True, "1": True, "false": False, "0": False}.get(v.strip().lower())
    return bool(v)


def truth(cell: Cell, study: Study | None = None) -> tuple[bool | None, float | None]:
    """``(h0, true_diff)`` of a cell: H0 true / false / unknown (None), and the true
    difference of error rates, learner a minus learner b, when known (see the module doc).

    ``study`` is accepted for studies that may one day declare truth study-wide
    (``study.meta["truth"]``: cell id -> (h0, true_diff)); cell labels win over it.
    """
    labels = dict(cell.labels)
    h0 = _label_bool(labels.get("h0"))
    diff = labels.get("true_diff")
    diff = None if diff is None or (isinstance(diff, float) and math.isnan(diff)) else float(diff)
    if h0 is not None or diff is not None:
        if h0 is None:
            h0 = diff == 0.0
        return h0, (0.0 if h0 and diff is None else diff)
    if study is not None:
        declared = (study.meta or {}).get("truth", {}).get(cell.id)
        if declared is not None:
            return bool(declared[0]), None if declared[1] is None else float(declared[1])
    if len(cell.learners) >= 2 and len(set(cell.learners)) == 1:
        return True, 0.0
    known = known_truth()
    hit = known.get((cell.source, ANY, ANY))
    if hit is not None:
        return hit.h0, hit.true_diff
    if len(cell.learners) == 2:
        hit = known.get((cell.source, *cell.learners))
        if hit is not None:
            return hit.h0, hit.true_diff
        hit = known.get((cell.source, cell.learners[1], cell.learners[0]))
        if hit is not None:
            return hit.h0, -hit.true_diff
    return None, None


def truth_text(h0: bool | None, true_diff: float | None) -> str:
    """``"H0"``, ``"H1 (Δ=+0.021)"``, ``"H1"`` or ``"unknown"`` (for tables)."""
    if h0 is None:
        return "unknown"
    if h0:
        return "H0"
    return "H1" if true_diff is None else f"H1 (Δ={true_diff:+.3f})"


def truth_labels(study: Study) -> dict[str, dict[str, object]]:
    """Cell id -> ``{"truth": text, "h0": ..., "true_diff": ...}`` for every cell."""
    out = {}
    for c in study.cells:
        h0, d = truth(c, study)
        out[c.id] = {"truth": truth_text(h0, d), "h0": h0, "true_diff": d}
    return out


# --- computing a truth (fits learners; never called by report or card) --------------------

def gaussian_true_diff(source: str, learners: Sequence[str], *, n_test: int = 10000,
                       runs: int = 10, design: str = "5x2", seed: int = 16) -> tuple[float, float]:
    """Mean and Monte-Carlo SE of e_a - e_b, each model scored on an independent test set.

    ``source`` is a Gaussian spec without ``n_test`` (e.g. ``wang-case3``); the runner fits
    ``runs`` x folds models per learner on fresh n-samples and scores them on ``n_test``
    independent cases (the source's independent test set; see :func:`simstudy.trialdata.trial_block`).
    """
    from .planning import Chunk
    from .runner import compute_chunk
    from .spec import format_spec, parse_spec

    name, params = parse_spec(source)
    spec = format_spec(name, {**params, "n_test": str(int(n_test))})
    cell = Cell(spec, tuple(learners), design, ())
    recs = compute_chunk(Chunk("truth", cell, tuple(range(runs)), seed, 0.05))
    d = np.concatenate([(r.losses.errors[0] - r.losses.errors[1]).ravel() for r in recs])
    return float(d.mean()), float(d.std(ddof=1) / np.sqrt(d.size))
