"""Wang, Li & Li (2016): a study's rendering -- Tables 3-5 (:mod:`.tables`), the
ours-against-the-paper figures and the results page (:mod:`.pages`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simstudy.report import write_table
from simstudy.report.compare import savefig
from simstudy.report.prose import write_page
from simstudy.report.style import figure_style, runs_caption, runs_range

from .grid import GAUSS_SCENARIOS, REAL_SCENARIOS, RUNS, TESTS, TYPE1, TYPE2
from .pages import _slug, page_gaussian, page_gaussian_paper, page_real, page_real_paper
from .tables import T4_NOTE, paper_layout, scenario_rows, table3, table4, table5


@figure_style()
def _scatter(panels: list[tuple[str, pd.DataFrame, str]], out: Path, stem: str,
             title: str) -> list[Path]:
    """Ours (with 95 % CI) against the paper's value, one panel per entry, y = x."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.4), squeeze=False)
    markers = dict(zip(TESTS, ("o", "s", "^"), strict=True))
    for ax, (name, df, hue) in zip(axes[0], panels, strict=True):
        ok = df[df["status"] == "ok"]
        for i, (key, g) in enumerate(ok.groupby(hue, sort=False)):
            for j, (test, gt) in enumerate(g.groupby("test", sort=False)):
                ax.errorbar(gt["paper"], gt["ours"],
                            yerr=[gt["ours"] - gt["ci95_low"], gt["ci95_high"] - gt["ours"]],
                            fmt=markers.get(test, "o"), mfc="none", color=f"C{i}", ms=5,
                            lw=0.8, label=str(key) if j == 0 else None)
        ax.plot([0, 1], [0, 1], "k-", lw=0.7)
        ax.axhline(0.05, ls=":", color="grey", lw=0.7)
        ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02),
               xlabel="paper: P(reject H0) (proportion of runs)",
               ylabel="ours: P(reject H0) (proportion of runs)",
               title=name)
        if len(ok):
            several = ok["test"].nunique() > 1  # say which marker is which test
            ax.legend(fontsize=7, loc="best", title_fontsize=7,
                      title="○ F5x2cv  □ tB3x2cv  △ FB5x2cv" if several else None)
    fig.suptitle(title)
    runs = pd.concat([df.loc[df["status"] == "ok", "runs"] for _, df, _ in panels])
    return savefig(fig, out, stem, runs=runs_caption(runs_range(runs) or "0", RUNS))


def render_gaussian(result, out: Path) -> list[Path]:
    """Table 3 (long and paper layout), the ours-vs-paper figure and RESULTS.md."""
    t3 = table3(result)
    cap = ("Wang, Li & Li 2016 Table 3: P(reject H0), simulated Gaussian data, n = 200; "
           "paper beside ours (Wilson 95 % CI; paper inside our 99 % band)")
    paths = write_table(t3, out, "table3", caption=cap)
    lay = paper_layout(t3.assign(case=t3["case"].map(lambda c: f"case {c}")),
                       ["comparison", "test"], "case")
    paths += write_table(lay, out, "table3_paper_layout",
                         caption="Table 3 as printed: ours (paper)")
    panels = [(test, t3[t3["test"] == test], "comparison") for test in TESTS]
    paths += _scatter(panels, out, "figure_table3",
                      "Wang et al. 2016 Table 3: ours vs paper (95 % CI)")
    return paths + [write_page(out, page_gaussian(out))]


def render_real(result, out: Path) -> list[Path]:
    """Tables 4 and 5 (long and paper layout), the ours-vs-paper figure and RESULTS.md."""
    t4, t5 = table4(result), table5(result)
    paths = write_table(t4, out, "table4", caption=(
        "Wang, Li & Li 2016 Table 4, paper beside ours (Wilson 95 % CI; paper inside our 99 % "
        "band). " + T4_NOTE))
    lay4 = paper_layout(t4.assign(col=t4["block"].map({TYPE1: "typeI", TYPE2: "rejectLPvsMLP"})
                                  + " " + t4["test"]), ["dataset", "hidden"], "col")
    paths += write_table(lay4, out, "table4_paper_layout",
                         caption="Table 4 as printed: ours (paper). " + T4_NOTE)
    paths += write_table(t5, out, "table5", caption=(
        "Wang, Li & Li 2016 Table 5: P(reject H0) on real data, paper beside ours (Wilson 95 % "
        "CI; paper inside our 99 % band)"))
    lay5 = paper_layout(t5, ["comparison", "test"], "dataset")
    paths += write_table(lay5, out, "table5_paper_layout", caption="Table 5 as printed: ours (paper)")
    paths += _scatter([("Table 4", t4, "block"), ("Table 5", t5, "comparison")], out,
                      "figure_tables45", "Wang et al. 2016 Tables 4-5: ours vs paper (95 % CI)")
    return paths + [write_page(out, page_real(out))]


def render_gaussian_paper(result, out: Path) -> list[Path]:
    """gaussian-paper: Table 3 under the default and the hypothesis scenarios, side by side."""
    paths: list[Path] = []
    for name, choose, crit, _ in GAUSS_SCENARIOS:
        t3 = table3(result, scenario_rows(result, choose, crit))
        paths += write_table(t3, out, f"table3_{_slug(name)}",
                             caption=f"Wang et al. 2016 Table 3 under scenario: {name}")
    return paths + [write_page(out, page_gaussian_paper(out))]


def render_real_paper(result, out: Path) -> list[Path]:
    """wang-real-paper: Tables 4-5 under the default, R-default and hypothesis scenarios."""
    paths: list[Path] = []
    for name, choose, crit, _ in REAL_SCENARIOS:
        rows = scenario_rows(result, choose, crit)
        t4, t5 = table4(result, rows), table5(result, rows)
        paths += write_table(t4, out, f"table4_{_slug(name)}",
                             caption=f"Wang et al. 2016 Table 4 under scenario: {name}. " + T4_NOTE)
        paths += write_table(t5, out, f"table5_{_slug(name)}",
                             caption=f"Wang et al. 2016 Table 5 under scenario: {name}")
    return paths + [write_page(out, page_real_paper(out))]
