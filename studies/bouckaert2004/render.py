"""Bouckaert & Frank (2004), Tables 1-4: a study's rendering -- the summary tables in the
paper's layouts, the directions, the R figure, the cost tables and the results page."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simstudy.aggregate import StudyResult
from simstudy.report import write_table
from simstudy.report.compare import savefig
from simstudy.report.prose import write_page
from simstudy.report.style import figure_style, runs_caption

from .grid import CV_RUNS, LEARNERS, PAIR_NAMES, RESAMPLE_RUNS, RUNS, T4_ALPHAS, summary_rows
from .pages import LAYOUTS, STRAT_LAYOUTS, _seeds_caption, page
from .tables import cost_table, directions, outside, paper_layout, summary_table, table1

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")  # colour-blind safe


@figure_style()
def figure(long: pd.DataFrame, out: Path, stem: str = "figure_R") -> list[Path]:
    """R per test/design, one line per learner pair: ours (min–max over seeds) vs paper.

    Lines join only the columns of one table (runs of Table 2, r of Table 3, alpha of
    Table 4); single tests are points.  The §4.3 tests have no R in the paper (it gives only
    'consistent'), so only ours is drawn there.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    r = long[long["measure"] == "replicability_R"]
    groups = [
        [("Table 1", "5x2 cv", "5×2cv t")],
        [("Table 2", str(k), f"resample\n{k}") for k in RESAMPLE_RUNS],
        [("§4.3", "1x10 cv, standard t", "1×10cv\nstd t")],
        [("Table 3", str(k), f"corr.\n{k}×10cv") for k in CV_RUNS],
        [("§4.3", "10x10 cv, uncorrected t", "10×10cv\nuncorr. t")],
    ]
    alphas = [[("Table 4", f"{a * 100:g} %", f"{a * 100:g} %") for a in T4_ALPHAS]]
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.6), gridspec_kw={"width_ratios": [11, 4]},
                             sharey=True)
    runs = seeds = n_sets = None
    for ax, grp, title in ((axes[0], groups, "by test and design (alpha 5 %)"),
                           (axes[1], alphas, "corrected 10×10 cv t, by alpha")):
        x0, ticks, labels = 0, [], []
        for gi, cols in enumerate(grp):
            xs = np.arange(len(cols)) + x0
            ticks += list(xs)
            labels += [c[2] for c in cols]
            for i, pair in enumerate(PAIR_NAMES):
                ours, lo, hi, paper = [], [], [], []
                for table, col, _ in cols:
                    g = r[(r["table"] == table) & (r["column"] == col) & (r["pair"] == pair)]
                    okg = g[g["status"] == "ok"]
                    ours.append(float(okg["ours"].iloc[0]) if len(okg) else np.nan)
                    lo.append(float(okg["ours_min"].iloc[0]) if len(okg) else np.nan)
                    hi.append(float(okg["ours_max"].iloc[0]) if len(okg) else np.nan)
                    paper.append(float(g["paper"].iloc[0]) if len(g) else np.nan)
                    if len(okg):
                        runs, seeds = okg["runs"].iloc[0], okg["seeds"].iloc[0]
                        n_sets = okg["datasets"].iloc[0]
                x = xs + (i - 1) * 0.09
                o, lo_, hi_ = np.array(ours), np.array(lo), np.array(hi)
                first = gi == 0
                ax.errorbar(x, o, yerr=[o - lo_, hi_ - o], fmt="-o", color=OKABE_ITO[i],
                            lw=1.5, ms=5, capsize=2, label=f"{pair}: ours" if first else None)
                ax.plot(x, paper, "--s", color=OKABE_ITO[i], mfc="white", lw=1.0, ms=5,
                        label=f"{pair}: paper" if first else None)
            x0 += len(cols)
            if gi < len(grp) - 1:
                ax.axvline(x0 - 0.5, color="grey", lw=0.5)
        ax.set_xticks(ticks)
        ax.set_xticklabels(labels, fontsize=8)
        ax.set_title(title, fontsize=10)
        ax.axhline(0.9, color="grey", lw=0.6, ls=":")
        ax.grid(axis="y", lw=0.3)
    axes[0].set_ylabel("replicability R = mean over data sets of R(k, n)")
    axes[0].legend(fontsize=7, ncol=2, loc="lower right")
    fig.suptitle("Bouckaert & Frank 2004, replicability R per test and design: ours (solid; "
                 f"bars: min–max over {seeds} root seed(s)) vs the paper (dashed)\n"
                 f"{n_sets} data sets × {runs} runs (repetitions, each a new random partition)"
                 " per data set and design; the paper: 27 × 10", fontsize=9)
    fig.tight_layout()
    return savefig(fig, out, stem, runs=runs_caption(
        runs if runs is not None else 0, RUNS, unit="runs per data set and design",
        seeds=None if seeds is None else int(seeds)))


def render(result: StudyResult, out: Path) -> list[Path]:
    """Tables 1–4 and §4.3 (paper beside ours), the directions table, the R figure,
    the cost table and RESULTS.md."""
    strat = bool(result.study.meta.get("strat"))
    rows = summary_rows(strat)
    long = summary_table(result, rows)
    seeds = sorted(set(result.results["seed"])) if not result.results.empty else []
    seed_txt = _seeds_caption(seeds)
    paths = write_table(long, out, "summary", caption=(
        "Bouckaert & Frank 2004 Tables 1-4 and 4.3: consistent / almost consistent (number of "
        "data sets) and R per pair; paper beside ours; " + seed_txt))
    if strat:
        for table, stem, cap in STRAT_LAYOUTS:
            paths += write_table(paper_layout(long, table), out, stem,
                                 caption=cap + ": ours [min-max over seeds] (the paper's "
                                 "unstratified Table 2); " + seed_txt)
    else:
        paths += write_table(table1(result), out, "table1", caption=(
            "Bouckaert & Frank 2004 Table 1: number of non-rejections (draws) out of 10 "
            "repetitions of the 5x2 cv t test per data set and pair; paper beside ours; "
            + seed_txt))
        for table, stem, cap in LAYOUTS:
            paths += write_table(paper_layout(long, table), out, stem,
                                 caption=cap + ": ours [min-max] (paper); " + seed_txt)
        paths += write_table(directions(result, rows), out, "directions", caption=(
            "Rejections in both directions (sign of the statistic; A = first learner of the "
            "pair), per table column, seed, data set and pair"))
        paths += write_table(outside(long), out, "outside", caption=(
            "Summary rows where the paper's value lies outside the min-max of our seeds"))
        paths += figure(long, out)
    cost = cost_table(result)
    if len(cost):
        paths += write_table(cost, out, "cost", caption=(
            "Seconds stored with the trials (summed over workers and seeds), by design"))
        paths += write_table(cost_table(result, "dataset"), out, "cost_datasets", caption=(
            "Seconds stored with the trials (summed over workers and seeds), by data set"))
    learners = result.study.cells[0].learners if result.study.cells else LEARNERS
    return paths + [write_page(out, page(out, strat, learners))]
