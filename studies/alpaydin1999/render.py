"""Alpaydın (1999): a study's rendering -- its tables (:mod:`.tables`), figures 1-2 and
the results page (:mod:`.pages`) written into the output directory."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simstudy.report import write_table
from simstudy.report.compare import savefig
from simstudy.report.prose import write_page
from simstudy.report.style import figure_style, runs_caption, runs_range

from .calibration import implied_sizes, odr_rows
from .grid import SIZES, VARIANTS
from .pages import (
    PILOT_STEM,
    page_errors,
    page_errors_paper,
    page_numerator,
    page_odr_size,
    page_type1,
    page_type1_paper,
    page_type2,
    page_type2_paper,
)
from .tables import (
    numerator_table,
    pilot_table,
    side_by_side,
    table2,
    table3,
    table3_type2,
)


def _runs_text(ok: pd.DataFrame) -> str:
    return runs_caption(runs_range(ok["runs"]) or "0", 1000)


@figure_style()
def _fig1(t3: pd.DataFrame, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = t3[t3["status"] == "ok"]
    fig, ax = plt.subplots(figsize=(4.6, 4.6))
    ax.scatter(t3["paper_t"], t3["paper_F"], marker="x", color="grey", label="paper")
    ax.scatter(ok["ours_t"], ok["ours_F"], marker="o", facecolors="none", edgecolors="C0",
               label="ours")
    hi = max(0.08, float(np.nanmax(np.r_[t3["paper_t"], ok["ours_t"], ok["ours_F"]])) * 1.1)
    ax.plot([0, hi], [0, hi], "k-", lw=0.8, label="y = x")
    ax.axhline(0.05, ls=":", color="k", lw=0.8)
    ax.axvline(0.05, ls=":", color="k", lw=0.8, label="0.05")
    ax.set(xlim=(0, hi), ylim=(0, hi), xlabel="type I error, 5×2 cv t (proportion of runs)",
           ylabel="type I error, combined 5×2 cv F (proportion of runs)",
           title="Fig. 1: type I error, MLP vs MLP")
    ax.legend(loc="upper left", fontsize=8)
    return savefig(fig, out, "figure1", runs=_runs_text(ok))


@figure_style()
def _fig2(t3: pd.DataFrame, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ok = t3[t3["status"] == "ok"].sort_values("z")
    fig, axes = plt.subplots(1, 2, figsize=(9, 4))
    for ax, zoom in zip(axes, (True, False), strict=True):
        d = ok[ok["z"].abs() <= 1.0] if zoom else ok
        ax.plot(d["z"], d["ours_t"], "o", mfc="none", label="5×2 cv t")
        ax.plot(d["z"], d["ours_F"], "s", mfc="none", label="combined 5×2 cv F")
        ax.axhline(0.05, ls=":", color="k", lw=0.8)
        ax.set(xlabel="z (sd of MLP error)", ylabel="P(reject H0) (proportion of runs)",
               title=("(a) small z (|z| ≤ 1)" if zoom else "(b) all experiments"))
        ax.legend(fontsize=8)
    fig.suptitle("Fig. 2: LP vs MLP, reject probability against the normalised difference\n"
                 "z = (mean LP error − mean MLP error) / sd of MLP error", fontsize=10)
    fig.tight_layout()
    return savefig(fig, out, "figure2", runs=_runs_text(ok))


def render_type1(result, out: Path) -> list[Path]:
    t3 = table3(result, "type1")
    paths = write_table(t3, out, "table3_type1",
                        caption="Alpaydin 1999 Table 3, MLP vs MLP (type I error): paper and ours")
    paths += _fig1(t3, out)
    return paths + [write_page(out, page_type1(out))]


def render_type2(result, out: Path) -> list[Path]:
    t3 = table3_type2(result)
    paths = write_table(t3, out, "table3_type2",
                        caption="Alpaydin 1999 Table 3, LP vs MLP (reject probability): paper and ours")
    paths += _fig2(t3, out)
    return paths + [write_page(out, page_type2(out))]


def render_type1_paper(result, out: Path) -> list[Path]:
    """type1-paper: Table 3 (type I) under the default and the paper variant, side by side."""
    return _render_variants({v: table3(result, "type1", v) for v in VARIANTS}, out, "type1",
                            "MLP vs MLP", "type I", _fig1, page_type1_paper)


def render_type2_paper(result, out: Path) -> list[Path]:
    """type2-paper: Table 3 (LP vs MLP) under the default and the paper variant."""
    return _render_variants({v: table3_type2(result, v) for v in VARIANTS}, out, "type2",
                            "LP vs MLP", "LP vs MLP", _fig2, page_type2_paper)


def _render_variants(tables: dict, out: Path, kind: str, pair: str, label: str, fig,
                     page) -> list[Path]:
    """A variant study's pages: Table 3 per variant, the variants side by side, the figure
    of the paper variant, the results page."""
    paths = []
    for v, t in tables.items():
        paths += write_table(t, out, f"table3_{kind}_{v}",
                             caption=f"Alpaydin 1999 Table 3, {pair}: paper and ours ({v})")
    paths += write_table(side_by_side(tables), out, f"table3_{kind}_variants",
                         caption=f"Alpaydin 1999 Table 3 {label}: paper, default and paper "
                                 "variant")
    paths += fig(tables["paper"], out)
    return paths + [write_page(out, page(out))]


def render_numerator(result, out: Path) -> list[Path]:
    t1, dist = numerator_table(result)
    paths = write_table(t1, out, "table1_numerator",
                        caption="Alpaydin 1999 Table 1: rejects out of 10 numerators (paper, ours)")
    paths += write_table(dist, out, "numerator_count_distribution",
                         caption="distribution over runs of how many of the 10 numerators reject")
    return paths + [write_page(out, page_numerator(out))]


def render_numerator_pilot(result, out: Path) -> list[Path]:
    """``pilot_table3_hidden.*`` beside the numerator tables, and the numerator page again."""
    paths = write_table(pilot_table(result), out, PILOT_STEM, caption=(
        "Pilot: Alpaydin 1999 Table 1 rows with the hidden units the paper's Table 3 makes "
        "consistent with the row's F decision; count distribution over runs"))
    return paths + [write_page(out, page_numerator(out))]


def render_errors(result, out: Path) -> list[Path]:
    t2 = table2(result)
    paths = write_table(t2, out, "table2_errors", digits=2,
                        caption="Alpaydin 1999 Table 2: test-fold error (%) of LP and MLPs")
    return paths + [write_page(out, page_errors(out))]


def render_errors_paper(result, out: Path) -> list[Path]:
    """errors-paper: Table 2 under the default and the paper variant."""
    paths: list[Path] = []
    for v in VARIANTS:
        paths += write_table(table2(result, v), out, f"table2_errors_{v}", digits=2,
                             caption=f"Alpaydin 1999 Table 2: test-fold error (%) ({v})")
    return paths + [write_page(out, page_errors_paper(out))]


def render_odr_size(result, out: Path) -> list[Path]:
    """odr-size: Table 2's implied sizes, then ODR's rows of Tables 2 and 3 under the hypothesis."""
    sizes, rows = implied_sizes(known=SIZES), odr_rows()
    paths = write_table(sizes, out, "table2_implied_sizes", digits=3,
                        caption="Alpaydin 1999 Table 2: data-set size implied by each row's sd "
                                "(binomial sd of a test half) beside the documented size")
    t2 = table2(result)
    t2 = t2[t2["dataset"] == "ODR"].reset_index(drop=True)
    paths += write_table(t2, out, "table2_errors_odr", digits=2,
                         caption=f"Alpaydin 1999 Table 2, ODR rows: paper and ours on the first "
                                 f"{rows} cases of optdigits")
    t3 = {"type1": table3(result, "type1"), "type2": table3_type2(result)}
    for kind, t in t3.items():
        t3[kind] = t[t["dataset"] == "ODR"].reset_index(drop=True)
        what = "MLP vs MLP (type I error)" if kind == "type1" else "LP vs MLP (reject probability)"
        paths += write_table(t3[kind], out, f"table3_{kind}_odr",
                             caption=f"Alpaydin 1999 Table 3, ODR rows, {what}: paper and ours")
    return paths + [write_page(out, page_odr_size(out))]
