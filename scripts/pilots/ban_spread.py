"""Pilot: what drives Table 5's consistency in our BAN sources (Bouckaert & Frank 2004 §4.4),
measured on the shipped trials, beside what the paper says about its sources.

The gap: 3 of Table 5's 20 consistency cells are inside our 99 % band, with gaps up to 33
points (10 × resampling on source 4: ours 81.5 %, paper 48.8 %).  Our four sources are
reconstructions: the paper did not publish its networks, and ours were found by a search
whose only target was the accuracy row (``simstudy/sources/data/PROVENANCE.md``).  A test's
consistency on a training set depends on how surely it rejects there, i.e. on that set's
accuracy difference against the noise of its estimate -- neither of which the paper states
beyond the row's mean.  This pilot measures both in ours, no learner refitted for the
tests (the decisions are the shipped trials' ``figures/ban/trials``, p-values recomputed
from their fold errors):

* per training set, exactly under the source (each of NB and C4.5 trained on the set's 300
  cases, predicting all 512 attribute patterns, weighted by the joint, as the study's
  accuracy row): the accuracy difference δ = acc(NB) − acc(C4.5) in points, the
  disagreement rate (the probability that NB and C4.5 predict different classes for a new
  case; a test's noise grows with it) and the share of that probability on which C4.5 is
  right;
* per set and Table 5 row: rejections out of the 10 runs (k), so consistency = share of
  sets with k = 0 or 10, split into all-accept and all-reject; the row's cross-validated
  difference per run, its spread between sets (sd of the set means) and within a set (sd
  over the 10 runs);
* consistency by |δ| band, per source.

    python scripts/pilots/ban_spread.py

writes ``figures/pilots/ban_spread.csv`` (per source and row), ``ban_spread_bands.csv``
(per source, row and |δ| band) and ``ban_spread.md``.  About 20 s CPU.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from _pilot import ROOT, commit, parser, write_md

from simstudy.cli import guarded
from simstudy.errors import SimstudyError
from simstudy.learners import get_learner
from simstudy.report.tables import to_markdown
from simstudy.seeding import draw_seed
from simstudy.sources import get_source
from simstudy.study import Cell
from simstudy.trials import ShippedTrials

NAME = "ban_spread"
TRIALS = ROOT / "figures" / "ban" / "trials"
REF = ROOT / "studies" / "reference" / "bouckaert2004_table5.csv"
SEED, SETS, REPS, ALPHA = 2004, 1000, 10, 0.05  # the ban study's
LEARNERS = ("wnb", "j48")  # NB first: δ = acc(NB) − acc(C4.5)
SOURCES = tuple(f"ban[src={k}]" for k in range(1, 5))
#: Table 5's rows: (label, design, test), as the ban study runs them
ROWS = (("5x2 cv", "5x2cv", "t5x2cv"),
        ("10 x resampling", "resample", "corrected-resampled-t"),
        ("100 x resampling", "resample[r=100]", "corrected-resampled-t"),
        ("10-fold cv", "1x10cv", "cv-t"),
        ("corrected 10x10 fold cv", "10x10cv", "corrected-rxk-t"))
BANDS = (0.0, 0.5, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0, np.inf)


def exact_per_set(spec: str, sets: int, block: int = 50) -> pd.DataFrame:
    """Per training set: δ (points), disagreement rate (%), C4.5's share of it (%)."""
    src = get_source(spec)
    pat = src.patterns_dataset()
    joint = src.net.joint  # (2, 512)
    px = joint.sum(axis=0)
    rows = []
    for lo in range(0, sets, block):
        idx = range(lo, min(sets, lo + block))
        data = [src.sample(np.random.default_rng(draw_seed(SEED, spec, i))) for i in idx]
        m, B = data[0].n, len(data)
        X = np.vstack([d.X for d in data] + [pat.X])
        y = np.concatenate([d.y for d in data] + [np.zeros(pat.n, dtype=np.int64)])
        train = np.zeros((B, X.shape[0]), dtype=bool)
        for b in range(B):
            train[b, b * m:(b + 1) * m] = True
        test = np.zeros_like(train)
        test[:, B * m:] = True
        seeds = [np.random.SeedSequence(SEED, spawn_key=(i,)) for i in idx]  # both learners
        pred = [get_learner(ln).prepare(data[0]).fit_predict(X, y, train, test, seeds)[:, B * m:]
                for ln in LEARNERS]  # are deterministic: the seeds are not used
        cols = np.arange(pat.n)
        for b, i in enumerate(idx):
            nb, c45 = pred[0][b], pred[1][b]
            acc_nb, acc_c45 = joint[nb, cols].sum(), joint[c45, cols].sum()
            differ = nb != c45
            dis = px[differ].sum()
            c45_right = joint[c45[differ], cols[differ]].sum()
            rows.append((spec, i, 100 * (acc_nb - acc_c45), 100 * dis,
                         100 * c45_right / dis if dis > 0 else np.nan))
    return pd.DataFrame(rows, columns=["source", "set", "delta", "disagree", "c45_share"])


def per_set_decisions(reader: ShippedTrials, spec: str, design: str, test: str
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(k, d): rejections of the 10 runs per set, and the cross-validated difference
    acc(NB) − acc(C4.5) in points per run, shape (sets, 10)."""
    cell = Cell(spec, LEARNERS, design, (test,))
    ct = reader.fold_errors([cell.id], SEED).get(cell.id)
    if ct is None:
        raise SimstudyError(f"{reader.describe()} holds no cell {cell.id!r}")
    E = ct.errors  # (runs, K, R, F)
    d = 100 * (E[:, 1] - E[:, 0]).reshape(E.shape[0], -1).mean(axis=1)
    pv = reader.pvalues([cell], SEED)
    pv = pv[pv["test"] == test].sort_values("run")
    if not np.array_equal(pv["run"].to_numpy(), ct.runs):
        raise SimstudyError(f"cell {cell.id!r}: runs of the p-values and fold errors differ")
    rej = (pv["pvalue"].astype(float).to_numpy() < ALPHA).astype(np.int64)
    n = (len(rej) // REPS) * REPS
    return rej[:n].reshape(-1, REPS).sum(axis=1), d[:n].reshape(-1, REPS)


def measure(reader: ShippedTrials) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    paper = pd.read_csv(REF).set_index("row_label")
    exact = pd.concat([exact_per_set(s, SETS) for s in SOURCES], ignore_index=True)
    summary, by_row, bands = [], [], []
    for k, spec in enumerate(SOURCES, 1):
        e = exact[exact["source"] == spec]
        dl = e["delta"].to_numpy()
        summary.append({"source": f"source {k}",
                        "paper_delta_abs": float(paper.at["accuracy", f"source{k}"]),
                        "delta_mean": dl.mean(), "delta_sd": dl.std(ddof=1),
                        "delta_q05": np.quantile(dl, 0.05), "delta_q95": np.quantile(dl, 0.95),
                        "share_nb_ahead_pct": 100 * float((dl > 0).mean()),
                        "disagree_pct": e["disagree"].mean(),
                        "c45_share_of_disagreement_pct": e["c45_share"].mean()})
        band = pd.cut(np.abs(dl), BANDS, right=False)
        for label, design, test in ROWS:
            kk, d = per_set_decisions(reader, spec, design, test)
            sets = kk.size
            cons = (kk == 0) | (kk == REPS)
            by_row.append({"source": f"source {k}", "row": label, "sets": sets,
                           "paper_consistent_pct": float(paper.at[label, f"source{k}"]),
                           "consistent_pct": 100 * cons.mean(),
                           "all_accept_pct": 100 * (kk == 0).mean(),
                           "all_reject_pct": 100 * (kk == REPS).mean(),
                           "reject_rate_pct": 100 * kk.sum() / (REPS * sets),
                           "cv_diff_mean": d.mean(),
                           "cv_diff_between_set_sd": d.mean(axis=1).std(ddof=1),
                           "cv_diff_within_set_sd": d.std(axis=1, ddof=1).mean()})
            g = pd.DataFrame({"band": band[:sets], "cons": cons})
            for b, gg in g.groupby("band", observed=True):
                bands.append({"source": f"source {k}", "row": label,
                              "abs_delta_band": f"[{b.left:g}, {b.right:g})",
                              "sets": len(gg), "consistent_pct": 100 * gg["cons"].mean()})
    return pd.DataFrame(summary), pd.DataFrame(by_row), pd.DataFrame(bands)


def main(argv: list[str] | None = None) -> int:
    ap = parser("ban_spread.py", __doc__)
    ap.add_argument("--trials", type=Path, default=TRIALS,
                    help="the ban study's shipped trials (default figures/ban/trials)")
    a = ap.parse_args(argv)
    reader = ShippedTrials(a.trials)
    if reader.study != "ban":
        raise SimstudyError(f"--trials {str(a.trials)!r} holds study {reader.study!r}; "
                            "give the ban study's shipped trials")
    summary, by_row, bands = measure(reader)
    a.out.mkdir(parents=True, exist_ok=True)
    by_row.round(3).to_csv(a.out / f"{NAME}.csv", index=False)
    bands.round(3).to_csv(a.out / f"{NAME}_bands.csv", index=False)
    summary.round(3).to_csv(a.out / f"{NAME}_sources.csv", index=False)
    wide = bands.pivot_table(index=["row", "abs_delta_band"], columns="source",
                             values="consistent_pct", sort=False).reset_index()
    n = bands.drop_duplicates(["source", "abs_delta_band"]).pivot_table(
        index="abs_delta_band", columns="source", values="sets", sort=False)
    text = [
        "# Pilot: what drives Table 5's consistency in our BAN sources", "",
        f"Written by `python scripts/pilots/{NAME}.py` at commit {commit()} from the "
        f"shipped trials `figures/ban/trials` ({SETS} training sets per source, {REPS} runs "
        "each; decisions at alpha 0.05 from p-values recomputed from the fold errors) and "
        "each set's exact accuracies under its source (NB = wnb, C4.5 = j48 trained on the "
        "set's 300 cases).  Definitions: the script's docstring.", "",
        "## The sources, per training set (exact)", "",
        "δ = acc(NB) − acc(C4.5), points; *disagree*: P(NB and C4.5 predict different "
        "classes), %; *c45_share*: the part of it on which C4.5 is right, %.  The paper "
        "states only |mean δ| (*paper_delta_abs*).", "", to_markdown(summary, 2), "",
        "## Consistency per row: ours beside the paper, and what it is made of", "",
        "*all_accept* + *all_reject* = *consistent*; *cv_diff*: the row's cross-validated "
        "δ per run (points), its sd between sets (of the set means) and within a set "
        "(over the 10 runs).", "", to_markdown(by_row, 2), "",
        "## Consistency (%) by the set's exact |δ| (points)", "",
        "Sets per band and source:", "", to_markdown(n.reset_index(), 0), "",
        to_markdown(wide, 1)]
    write_md(a.out, NAME, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(guarded(main))
