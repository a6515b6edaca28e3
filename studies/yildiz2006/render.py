"""Yıldız & Alpaydın (2006): a study's rendering -- Tables 1-3 (:mod:`.tables`), Figs. 3-4
and the results page (:mod:`.pages`)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simstudy.report import write_table
from simstudy.report.compare import savefig
from simstudy.report.prose import write_page
from simstudy.report.style import figure_style, runs_caption, runs_range

from .grid import FIG_SETS, NAMES, REF, RUNS
from .pages import page
from .tables import (
    _errors_by_dataset,
    multitest_graphs,
    table1,
    table1_layout,
    table2,
    table2_layout,
    table3,
    table3_layout,
)


def _draw_graph(ax, edges, title: str) -> None:
    k = len(NAMES)
    ang = np.pi / 2 - 2 * np.pi * np.arange(k) / k
    xy = np.c_[np.cos(ang), np.sin(ang)]
    from matplotlib.patches import Circle

    for i, j in edges:  # edge i -> j: H0 mu_i <= mu_j rejected, j better than i
        u = (xy[j] - xy[i]) / np.linalg.norm(xy[j] - xy[i])
        ax.annotate("", xy=xy[j] - 0.17 * u, xytext=xy[i] + 0.17 * u,
                    arrowprops=dict(arrowstyle="-|>", lw=1.1, color="k", shrinkA=0, shrinkB=0))
    for k_, (x, y) in enumerate(xy):
        ax.add_patch(Circle((x, y), 0.15, fc="white", ec="k", lw=1.4, zorder=3))
        ax.text(x, y, f"{k_ + 1}\n{NAMES[k_]}", ha="center", va="center", fontsize=7, zorder=4)
    ax.set(xlim=(-1.35, 1.35), ylim=(-1.35, 1.35), aspect="equal", title=title)
    ax.axis("off")


@figure_style()
def figure3(result, out: Path, sets=FIG_SETS) -> tuple[list[Path], dict]:
    """The most frequent MultiTest graph on each data set of ``sets`` (the paper's Fig. 3
    for hepatitis; Fig. 4's graph for pendigits)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simstudy.stats import multitest_order

    errs = _errors_by_dataset(result)
    have = [s for s in sets if s in errs]
    info = {}
    if not have:
        return [], info
    fig, axes = plt.subplots(1, len(have), figsize=(4.2 * len(have), 4.4), squeeze=False)
    for ax, name in zip(axes[0], have, strict=True):
        graphs = multitest_graphs(errs[name], result.study.alpha)
        edges, n = graphs.most_common(1)[0]
        r = np.zeros((len(NAMES), len(NAMES)), dtype=bool)
        for i, j in edges:
            r[i, j] = True
        order = multitest_order(r)
        T = errs[name].shape[0]
        info[name] = {"edges": edges, "count": n, "runs": T, "order": order}
        _draw_graph(ax, edges, f"{name}: {100 * n / T:.1f} % of {T} runs\n"
                    + " < ".join(str(o + 1) for o in order))
    fig.suptitle("Most frequent MultiTest graph (edge i→j: H0 μi ≤ μj rejected at α/10)",
                 y=1.06, fontsize=10)
    runs = [v["runs"] for v in info.values()]
    return savefig(fig, out, "figure3_multitest_graph",
                   runs=runs_caption(runs_range(runs), RUNS,
                                unit="runs per data set")), info


@figure_style()
def figure4(result, out: Path, sets=FIG_SETS) -> list[Path]:
    """Distributions of the fold error rates of the five learners (hepatitis, pendigits),
    with the paper's mean ± sd (Table 1) beside each box."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    errs = _errors_by_dataset(result)
    have = [s for s in sets if s in errs]
    if not have:
        return []
    paper = pd.read_csv(REF / "yildiz2006_table1.csv")
    fig, axes = plt.subplots(1, len(have), figsize=(4.8 * len(have), 4.0), squeeze=False)
    for ax, name in zip(axes[0], have, strict=True):
        e = 100.0 * errs[name]
        data = [e[:, k].ravel() for k in range(len(NAMES))]
        pos = np.arange(1, len(NAMES) + 1)
        ax.boxplot(data, positions=pos, widths=0.45, showfliers=False)
        p = paper[paper["dataset"] == name].set_index("algorithm").reindex(list(NAMES))
        ax.errorbar(pos + 0.35, p["error_mean_pct"], yerr=p["error_sd_pct"], fmt="s", ms=4,
                    color="C3", lw=1, label="paper mean ± sd")
        ax.plot(pos, [d.mean() for d in data], "o", color="C0", ms=4, label="ours: mean")
        ax.set_xticks(pos, [f"{k + 1} {n}" for k, n in enumerate(NAMES)], fontsize=8)
        ax.set(ylabel="fold error rate (%)", title=f"{name} ({e.shape[0]} runs × 10 folds)")
        ax.legend(fontsize=7)
    fig.suptitle("Error distributions of the five learners (boxes: ours)")
    runs = [errs[n].shape[0] for n in have]
    return savefig(fig, out, "figure4_error_distributions",
                   runs=runs_caption(runs_range(runs), RUNS,
                                unit="runs per data set"))


def render(result, out: Path) -> list[Path]:
    """Tables 1–3 (long and paper layout), Figs. 3–4 and RESULTS.md."""
    t1, t2, t3 = table1(result), table2(result), table3(result)
    paths = write_table(t1, out, "table1", digits=2, caption=(
        "Yildiz & Alpaydin 2006 Table 1: mean and sd (%) of the 10 fold error rates over all "
        "runs, per data set and learner; paper beside ours"))
    paths += write_table(table1_layout(t1), out, "table1_paper_layout", digits=2,
                         caption="Table 1 as printed: ours mean±sd (paper mean±sd), %")
    paths += write_table(t2, out, "table2", digits=1, caption=(
        "Table 2: most and second most chosen best (% of runs); not_found = the paper's *"))
    paths += write_table(table2_layout(t2), out, "table2_paper_layout", caption=(
        "Table 2 as printed: ours (%) [paper (%)]; * = no best found"))
    paths += write_table(t3, out, "table3", digits=2, caption=(
        "Table 3: how often each method picks each learner or none, all data sets x runs"))
    paths += write_table(table3_layout(t3), out, "table3_paper_layout", caption=(
        "Table 3 as printed: ours count (%) [paper count (%)]"))
    fig3, graphs = figure3(result, out)
    paths += fig3 + figure4(result, out)
    return paths + [write_page(out, page(out, result, graphs))]
