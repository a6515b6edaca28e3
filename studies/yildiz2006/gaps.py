"""The fidelity page's account of Yıldız & Alpaydın (2006)'s largest gaps, read from the
committed tables, the paper's Table 1 and the NMC encoding pilot
(:class:`simstudy.report.prose_fidelity.Gap`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simstudy.report.prose import read_table
from simstudy.report.prose_fidelity import A_PRIORI, Gap

from .grid import REF


def _nursery_nmc(figures: Path):
    p = pd.read_csv(figures / "pilots" / "yildiz_nmc_encodings.csv").set_index("dataset")
    enc = [c for c in p.columns if c not in ("paper_NMC", "paper_NMC_sd", "paper_MAX", "MAX",
                                             "closest", "closest_z")]
    z = {d: (p.loc[d, enc] - p.loc[d, "paper_NMC"]) / p.loc[d, "paper_NMC_sd"] for d in p.index}
    near = {d: z[d].abs().idxmin() for d in p.index}
    parts = [f"{d}: closest '{near[d]}' {p.loc[d, near[d]]:.2f} % against the paper's "
             f"{p.loc[d, 'paper_NMC']:.2f} % (z {z[d][near[d]]:+.1f})" for d in p.index]
    within = [d for d in p.index if abs(z[d][near[d]]) <= 2]
    return "nursery" in within, (
        f"{len(enc)} encodings of the nominal inputs, each fixed before any error was seen "
        "(figures/pilots/yildiz_nmc_encodings.md): " + "; ".join(parts) + "; within 2 paper "
        f"sds: {', '.join(within) or 'none'}, a reading of one data set, not an explanation")


def _nursery_testfirst(figures: Path):
    t1 = read_table(figures / "multitest", "table1")
    ours = t1[t1["dataset"] == "nursery"].set_index("learner")
    paper = pd.read_csv(REF / "yildiz2006_table1.csv")
    paper = paper[paper["dataset"] == "nursery"].set_index("algorithm")
    ob, pb = ours["mean"].idxmin(), paper["error_mean_pct"].idxmin()
    o2 = ours["mean"].drop(ob).idxmin()
    p2 = paper["error_mean_pct"].drop(pb).idxmin()
    return None, (
        "TestFirst finds a best only when the smallest-mean learner is significantly better "
        f"than the simpler ones; the smallest mean is {ob} in ours ({ours.loc[ob, 'mean']:.2f} "
        f"% against {o2}'s {ours.loc[o2, 'mean']:.2f} %) and {pb} in the paper's Table 1 "
        f"({paper.loc[pb, 'error_mean_pct']:.2f} % against {p2}'s "
        f"{paper.loc[p2, 'error_mean_pct']:.2f} %): the "
        "paper's smallest mean is much nearer its next; whether that is why it finds no best "
        "in most runs is not checked")


GAPS = (
    Gap("multitest", "Table 1", "nursery NMC", A_PRIORI, _nursery_nmc),
    Gap("multitest", "Table 2", "nursery TestFirst", A_PRIORI, _nursery_testfirst),
)
