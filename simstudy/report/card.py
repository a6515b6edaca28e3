"""Writing a report card (:class:`simstudy.testcard.Card`): ``card.md`` (the verdict and the
one-screen summary first), one CSV per frame, PNG figures and ``card.html``."""

from __future__ import annotations

import html as _html_mod
import re
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .tables import beside, write_text

if TYPE_CHECKING:
    from ..testcard import Card

_FRAMES = ("summary", "studies", "matched", "paired", "intervals", "size", "calibration",
           "power", "replicability")


def write_card(c: Card, out: Path, *, figures: bool = True, html: bool = True) -> list[Path]:
    """``card.md``, ``card_<frame>.csv`` for every frame, PNG figures and ``card.html``
    under ``out``; returns the paths written, ``card.md`` first.

    What a reader sees holds no machine-local path (:func:`local_paths_out`), no timing
    (it would differ on every run) and counts written one way (``508,000``)."""
    from ..testcard import MATCHING, POOLED, POWER, UNKNOWN
    from . import to_markdown

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for stem in _FRAMES:
        df = getattr(c, stem)
        if stem in ("studies", "paired", "intervals", "matched") and df.empty:
            continue
        p = out / f"card_{stem}.csv"
        with beside(p) as tmp:
            df.to_csv(tmp, index=False)
        paths.append(p)
    figs = _figures(c, out) if figures else []
    paths += figs
    lines = [f"# Report card: `{c.name}` (alpha = {c.alpha})", "",
             f"**{c.verdict}**", "",
             f"{c.trials:,} stored trials read ({c.pairs:,} pairs of learners evaluated); "
             "no learner fitted.", ""]
    if len(c.studies):
        lines += ["## Studies", "", to_markdown(_studies_screen(c)), ""]
    if len(c.matched):
        lines += ["## Matched size: the new test against each baseline on the same trials", "",
                  f"Power is compared by {MATCHING}. " + _MATCHED_TEXT, "",
                  to_markdown(_matched_screen(c)), ""]
    lines += ["## Summary (ranks: 1 = best)", "", _SUMMARY_TEXT, "",
              to_markdown(summary_screen(c)), ""]
    zeros = _zeros_screen(c)
    if zeros:
        lines += ["Zeros and missing ranks:", "", *[f"- `{t}`: {w}" for t, w in zeros], ""]
    if len(c.paired):
        pooled = c.paired[c.paired["cell"] == POOLED]
        lines += ["## Paired differences: new − baseline on the same trials, at alpha", "",
                  f"diff: the new test's reject rate minus the baseline's, both at alpha; "
                  f"[ci_low, ci_high]: Tango's (1998) paired score 95 % interval; "
                  f"unpaired_width: Newcombe's (1998) interval width had the rates come from "
                  f"independent trials; runs_to_resolve: runs for a ±{c.resolve} interval at "
                  "the discordance seen (paired, and unpaired). Pooled rows pool the trials "
                  "of the cells both tests read. On H1 cells these are differences at the "
                  "nominal alpha, not at matched size (for that, the matched-size table).", "",
                  *_h0_ratios(c),
                  to_markdown(_paired_screen(pooled)), "",
                  "Per cell:", "", to_markdown(_paired_screen(c.paired[c.paired["cell"] != POOLED])),
                  ""]
    if len(c.intervals):
        lines += ["## Interval coverage on cells of known truth", "",
                  "coverage: share of trials whose interval holds the true difference in error "
                  "(Wilson 95 % interval); mean_width: mean interval width (Schulz-Kümpel et "
                  "al. 2024). The corrected t's interval (Nadeau & Bengio 2003) is computed "
                  "from the same fold errors.", "",
                  to_markdown(_intervals_screen(c.intervals)), ""]
    most = _most_runs(c)
    if len(c.size):
        lines += ["## Size (H0 cells)", "", to_markdown(_wide(c.size, c.name, most=most)), ""]
    if len(c.power):
        h1 = c.power[c.power["measure"] == POWER]
        unk = c.power[c.power["measure"] == UNKNOWN]
        if len(h1):
            lines += ["## Power (H1 cells of known difference)", "",
                      "At alpha, not at matched size. x: |true difference of error rates| "
                      "where known (truth column), else |z| = |ē_a − ē_b| / s_b from the "
                      "stored errors (Alpaydın 1999, Fig. 2).",
                      "", to_markdown(_wide(h1, c.name, extra=["x_kind", "x"], most=most)), ""]
        if len(unk):
            lines += ["## Reject rate, truth unknown (not power)", "",
                      "Which learner is better is not known in these cells; |z| = "
                      "|ē_a − ē_b| / s_b from the stored errors (Alpaydın 1999, Fig. 2) says "
                      "how far apart they are (|z| near 0: effectively a null cell).", "",
                      to_markdown(_wide(unk, c.name, extra=["x"], most=most)
                                  .rename(columns={"x": "|z|"})),
                      ""]
    if len(c.replicability):
        lines += ["## Replicability", "",
                  to_markdown(_commas(c.replicability.drop(columns=["new"]))), ""]
    if c.notes:
        lines += ["## Notes", "", *[f"- {n}" for n in c.notes], ""]
    if figs:
        lines += ["## Figures", "", *[f"![{p.stem}]({p.name})" for p in figs], ""]
    md = out / "card.md"
    write_text(md, local_paths_out("\n".join(lines)))
    paths.insert(0, md)
    if html:
        paths.append(_html(c, out, paths))
    return paths


_MATCHED_TEXT = (
    "h0_trials: the H0 trials both tests read (new_size, base_size: each test's reject "
    "proportion on them at alpha); new_alpha_matched, base_alpha_matched: each test's level "
    "on them; h1_trials: the H1 trials both read; new_power, base_power: each test's reject "
    "proportion on them at its matched level; diff = new_power − base_power with Tango's "
    "(1998) paired 95 % interval [ci_low, ci_high]; n10, n01: trials only the new test, only "
    "the baseline rejected. matched = False: no H0 trial read by both, both at alpha.")
_SUMMARY_TEXT = (
    "Pooled over cells, each cell weighted by its runs, each test over its own cells. "
    "mean_size: pooled H0 reject proportion at alpha; cells_over_alpha: H0 cells whose "
    "Wilson 95 % interval lies above alpha; mean_power: H1 cells of known difference only, "
    "at alpha; alpha_matched, mean_power_matched: the test's own size-adjusted level (its "
    "pooled H0 reject proportion ≤ alpha) and its power there; mean_reject_unknown: cells "
    "of unknown truth, never counted as power; h1_trials_same, power_matched_same, "
    "new_power_matched_same: the matched-size comparison above (that test, the new test, on "
    "the H1 trials both read); power_minus_new: their difference; mean_R: Bouckaert & "
    "Frank's (2004) replicability. Ranks: rank_size by the distance of mean_size from alpha, every "
    "test over alpha after every test at or under it; rank_power by power_minus_new (only "
    "size-matched comparisons ranked); rank_R by mean_R.")


def _commas(df: pd.DataFrame) -> pd.DataFrame:
    """Integer columns as text with thousands separators (``508,000``), NaN as blank."""
    df = df.copy()
    for col in df.columns:
        v = df[col]
        if pd.api.types.is_bool_dtype(v):
            continue
        if pd.api.types.is_integer_dtype(v):
            df[col] = ["" if pd.isna(x) else f"{int(x):,}" for x in v]
    return df


_ROOT = Path(__file__).resolve().parents[2]


def local_paths_out(text: str) -> str:
    """``text`` without machine-local absolute paths: the checkout's and the working
    directory's prefixes dropped, any other absolute path cut to its last part.

    >>> local_paths_out("store '/home/me/runs/s.sqlite'")
    "store 's.sqlite'"
    """
    for root in (Path.cwd().resolve(), _ROOT):
        text = text.replace(f"{root}/", "")
    return re.sub(r"(?<![\w.~])/(?:[\w.+@-]+/)+([\w.+@-]+)", r"\1", text)


def _studies_screen(c: Card) -> pd.DataFrame:
    """The studies read, counts with thousands separators, no local paths."""
    df = _commas(c.studies)
    df["read_from"] = [local_paths_out(str(x)) for x in df["read_from"]]
    return df


def _matched_screen(c: Card) -> pd.DataFrame:
    """The matched-size comparison, one row per baseline (``card_matched.csv`` keeps the
    nominal-level powers too)."""
    df = c.matched.drop(columns=["new_power_nominal", "base_power_nominal"])
    return _commas(df)


def _zeros_screen(c: Card) -> list[tuple[str, str]]:
    """(test, why) for every test with a count of 0 or a missing rank."""
    if c.summary.empty or "why_zero" not in c.summary.columns:
        return []
    return [(t, w) for t, w in zip(c.summary["test"], c.summary["why_zero"], strict=True) if w]


def summary_screen(c: Card) -> pd.DataFrame:
    """The summary on one screen: the new test marked, empty and secondary columns left out
    (``card_summary.csv`` keeps them all)."""
    df = c.summary.copy()
    if df.empty:
        return df
    df["test"] = [f"{t} (new)" if n else t for t, n in zip(df["test"], df["new"], strict=True)]
    df = df.drop(columns=["new", "max_size", "rep_groups", "why_zero"], errors="ignore")
    df = df.rename(columns={"new_mean_size_same_cells": "new_size_same_cells"})
    keep = [col for col in df.columns if not df[col].isna().all()
            and not (col.endswith("_cells") and (df[col] == 0).all())]
    return _commas(df[keep])


def _paired_screen(df: pd.DataFrame) -> pd.DataFrame:
    cols = ["study", "cell", "pair", "truth", "baseline", "runs", "new_rate", "base_rate",
            "diff", "ci_low", "ci_high", "paired_width", "unpaired_width", "width_ratio",
            "runs_to_resolve", "runs_to_resolve_unpaired"]
    out = df[[c for c in cols if c in df.columns]].copy()
    if "pair" in out.columns and (out["pair"] == "").all():
        out = out.drop(columns=["pair"])
    return _commas(out)


def _h0_ratios(c: Card) -> list[str]:
    """One line: per baseline, how many times narrower the paired interval is than the
    unpaired one over all H0 cells of the card (:func:`simstudy.testcard.h0_width_ratio`)."""
    from ..testcard import POOLED, SIZE, h0_width_ratio

    h0 = c.paired[(c.paired["measure"] == SIZE) & (c.paired["cell"] != POOLED)]
    if h0.empty:
        return []
    parts = []
    for b in dict.fromkeys(h0["baseline"]):
        n = int(h0.loc[h0["baseline"] == b, "runs"].sum())
        parts.append(f"{b} {h0_width_ratio(c.paired, b):.2f}x ({n:,} trials)")
    return [f"Pooled over every H0 cell, the paired interval is narrower than the unpaired "
            f"one by: {'; '.join(parts)}.", ""]


def _intervals_screen(df: pd.DataFrame) -> pd.DataFrame:
    cols = ["study", "cell", "pair", "truth", "method", "runs", "coverage", "coverage_low",
            "coverage_high", "mean_width", "undefined"]
    out = df[cols].copy()
    if (out["pair"] == "").all():
        out = out.drop(columns=["pair"])
    if (out["undefined"] == 0).all():
        out = out.drop(columns=["undefined"])
    return _commas(out)


def _wide(df: pd.DataFrame, name: str, extra: Sequence[str] = (),
          most: dict | None = None, ci: bool = True) -> pd.DataFrame:
    """One row per cell (and pair): each test's reject proportion [Wilson interval]; the
    new test's ``runs``, flagged ``(mixed)`` when below the most runs of the study's cells
    (``most``: study -> runs, over every frame of the card)."""
    idx = ["study", "cell", "pair", "truth", *extra]
    rows: dict[tuple, dict] = {}
    for r in df.itertuples(index=False):
        key = tuple(getattr(r, c) for c in idx)
        d = rows.setdefault(key, dict(zip(idx, key, strict=True)))
        d[r.test] = (f"{r.proportion:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]" if ci
                     else f"{r.proportion:.3f}")
        if r.new:
            d["runs"] = int(r.runs)
    tests = list(dict.fromkeys([name, *df["test"]]))
    w = pd.DataFrame(list(rows.values())).reindex(columns=[*idx, "runs", *tests])
    most = most or {}
    w["runs"] = [("" if pd.isna(v) else f"{int(v):,} (mixed)" if v < most.get(s, v)
                  else f"{int(v):,}") for s, v in zip(w["study"], w["runs"], strict=True)]
    if (w["pair"] == "").all():
        w = w.drop(columns=["pair"])
    return w


def _most_runs(c: Card) -> dict:
    """study -> the most runs of its cells, when its cells hold different run counts."""
    both = pd.concat([c.size[["study", "runs"]], c.power[["study", "runs"]]])
    g = both.groupby("study")["runs"]
    lo, hi = g.min(), g.max()
    return {s: int(hi[s]) for s in hi.index if lo[s] != hi[s]}


def _figures(c: Card, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection

    from ..testcard import POWER
    from .style import figure_style, runs_caption, runs_range

    paths = []
    runs = pd.concat([c.size["runs"], c.power["runs"]])
    caption = runs_caption(runs_range(runs, "-") or "0")

    def save(fig, stem: str, title: str) -> Path:
        fig.text(0.5, 0.0, caption, ha="center", va="top", fontsize=8, style="italic")
        p = out / f"{stem}.png"
        with beside(p) as tmp:
            fig.savefig(tmp, dpi=120, bbox_inches="tight",
                        metadata={"Title": title, "Description": caption})
        plt.close(fig)
        return p

    with figure_style():
        if len(c.matched) and (c.matched["h1_trials"] > 0).any():
            paths.append(save(_matched_figure(c, plt), "card_matched",
                              f"{c.name} against each baseline on the same trials"))
        if len(c.calibration):
            tests = list(dict.fromkeys([c.name, *c.calibration["test"]]))
            tests = [t for t in tests if t in set(c.calibration["test"])]
            fig, axes = plt.subplots(1, len(tests), figsize=(3.2 * len(tests), 3.2),
                                     squeeze=False, sharey=True)
            top = float(c.calibration["alpha"].max())
            for ax, t in zip(axes[0], tests, strict=True):
                g = c.calibration[c.calibration["test"] == t]
                # one artist for all the cells' lines: drawing hundreds of lines one by one
                # was most of the card's figure time
                grid = np.unique(c.calibration["alpha"].to_numpy())
                xy = g[["alpha", "proportion"]].to_numpy()
                # each cell's grid is a run of consecutive rows (the card appends them so)
                segs = (xy.reshape(-1, grid.size, 2) if len(g) % grid.size == 0 else
                        [gc[["alpha", "proportion"]].to_numpy()
                         for _, gc in g.groupby(["study", "cell", "pair"], sort=False)])
                ax.add_collection(LineCollection(segs, colors="C0" if t == c.name else "C1",
                                                 linewidths=0.7, alpha=0.5))
                m = g.groupby("alpha")["proportion"].mean()
                ax.plot(m.index, m.values, color="black", lw=1.6, label="mean over cells")
                ax.plot([0, top], [0, top], color="black", lw=0.8, ls="--", label="y = alpha")
                ax.axvline(c.alpha, color="black", lw=0.6, ls=":")
                ax.set_title(t + (" (new)" if t == c.name else ""))
                ax.set_xlabel("alpha")
            axes[0][0].set_ylabel("reject proportion under H0")
            axes[0][0].legend(loc="upper left")
            fig.suptitle(f"calibration: one line per H0 cell ({c.name} and baselines)", y=1.0)
            paths.append(save(fig, "card_calibration", f"calibration of {c.name} under H0"))
        if len(c.power):
            panels = list(dict.fromkeys(zip(c.power["measure"], c.power["x_kind"], strict=True)))
            fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 3.4),
                                     squeeze=False)
            for ax, (measure, kind) in zip(axes[0], panels, strict=True):
                g = c.power[(c.power["measure"] == measure) & (c.power["x_kind"] == kind)]
                for j, t in enumerate(dict.fromkeys([c.name, *g["test"]])):
                    gt = g[g["test"] == t].sort_values("x")
                    if gt.empty:
                        continue
                    ax.plot(gt["x"], gt["proportion"], "o-" if t == c.name else ".-",
                            lw=1.6 if t == c.name else 0.9, color=f"C{j % 8}",
                            label=t + (" (new)" if t == c.name else ""))
                ax.axhline(c.alpha, color="black", lw=0.6, ls=":")
                ax.set_xlabel(kind.replace("abs(", "|").replace(")", "|"))
                ax.set_ylabel("power" if measure == POWER else "reject rate (truth unknown)")
                ax.set_title("H1 of known difference" if measure == POWER
                             else "truth unknown: not power")
                ax.set_ylim(-0.02, 1.02)
                ax.legend(loc="upper left")
            fig.suptitle(f"reject rate off H0: one curve per test (alpha = {c.alpha})", y=1.02)
            paths.append(save(fig, "card_power", f"power of {c.name} and the baselines"))
    return paths


def _matched_figure(c: Card, plt):
    """Two panels, one row per baseline: the new test's size minus the baseline's on the
    H0 trials both read (at alpha), and its power minus the baseline's at matched size on
    the H1 trials both read, each with Tango's paired 95 % interval."""
    from ..aggregate import tango_paired
    from ..testcard import POOLED, SIZE

    m = c.matched
    bases = m["baseline"].tolist()
    h0 = c.paired[(c.paired["cell"] != POOLED) & (c.paired["measure"] == SIZE)]
    size = []
    for b in bases:
        g = h0[h0["baseline"] == b]
        n = int(g["runs"].sum())
        if n:
            b10, b01 = int(g["n10"].sum()), int(g["n01"].sum())
            lo, hi = tango_paired(b10, b01, n)
            size.append(((b10 - b01) / n, lo, hi, n))
        else:
            size.append((float("nan"),) * 3 + (0,))
    power = [(r.diff, r.ci_low, r.ci_high, int(r.h1_trials)) if r.h1_trials else
             (float("nan"),) * 3 + (0,) for r in m.itertuples(index=False)]
    fig, axes = plt.subplots(1, 2, figsize=(10, 0.45 * len(bases) + 1.6), sharey=True)
    y = list(range(len(bases)))[::-1]
    for ax, vals, title in ((axes[0], size, f"size − baseline's, H0 trials, at alpha = {c.alpha}"),
                            (axes[1], power, "power − baseline's, H1 trials, at matched size\n"
                             "(orange: not size-matched, at alpha)")):
        for yi, (d, lo, hi, n), ok in zip(y, vals, m["matched"], strict=True):
            if not n:
                ax.text(0, yi, "no trials in common", ha="center", va="center", fontsize=8,
                        color="0.4")
                continue
            ax.errorbar([d], [yi], xerr=[[d - lo], [hi - d]], fmt="o", color="C0" if ok else "C1",
                        capsize=3, ms=4)
            ax.text(1.01, yi, f"{d:+.3f} ({n:,})", transform=ax.get_yaxis_transform(),
                    va="center", fontsize=8)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel(f"{c.name} − baseline")
    axes[0].set_yticks(y, bases)
    fig.suptitle(f"{c.name} against each baseline on the same trials (trials in brackets)",
                 y=1.02)
    fig.subplots_adjust(wspace=0.45)
    return fig


#: tables longer than this are linked from card.html, not inlined
HTML_ROWS = 1000


#: the card page's own rules, on top of the HTML report's look: tables take the page's
#: width and wrap their cells instead of running off it
CARD_CSS = """
table.card{width:100%;font-size:12px}table.card td{overflow-wrap:break-word}
table.card th,table.card td{padding:.15rem .3rem}table.card th{overflow-wrap:anywhere}
table.card td.num{text-align:right;white-space:nowrap}tr.new td{font-weight:700}
p.verdict-box{border-left:5px solid #333;background:#f4f4f4;padding:.7rem 1rem;font-size:16px}
"""
#: the summary's columns on the page (``card_summary.csv`` and card.md keep them all)
HTML_SUMMARY = ("test", "size_cells", "mean_size", "cells_over_alpha", "rank_size",
                "power_cells", "mean_power", "h1_trials_same", "power_matched_same",
                "new_power_matched_same", "power_minus_new", "rank_power", "mean_R", "rank_R")


def _html_table(df: pd.DataFrame, table_id: str, caption: str = "",
                new: Sequence[bool] | None = None) -> str:
    """A screen frame as a page-wide table: numbers right-aligned (3 decimals), text
    wrapped; ``new`` marks the new test's rows."""
    from .tables import _fmt

    e = _html_mod.escape
    # a column name breaks after its underscores, not inside a word
    head = "".join(f'<th scope="col">{e(str(col)).replace("_", "_<wbr>")}</th>'
                   for col in df.columns)
    rows = []
    for i, r in enumerate(df.itertuples(index=False)):
        tds = []
        for v in r:
            num = isinstance(v, (int, float)) or (isinstance(v, str) and re.fullmatch(
                r"[-+]?[\d,]+(\.\d+)?( \[.*\])?|[\d,]+ \(mixed\)", v) is not None)
            cls = ' class="num"' if num else ""
            text = e(_fmt(v, 3))
            if not num:  # a cell id breaks after its separators when the column is narrow
                text = re.sub(r"([/~_,])(?=\S)", r"\1<wbr>", text)
            tds.append(f"<td{cls}>{text}</td>")
        cls = ' class="new"' if new is not None and new[i] else ""
        rows.append(f"<tr{cls}>{''.join(tds)}</tr>")
    cap = f"<caption>{e(caption)}</caption>" if caption else ""
    return (f'<table class="data card sortable" id="{e(table_id)}">{cap}<thead><tr>{head}'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _link(p: Path, rows: int) -> str:
    e = _html_mod.escape
    return f'<p>{e(p.stem)}: {rows:,} rows, in <a href="{e(p.name)}">{e(p.name)}</a></p>'


def _html(c: Card, out: Path, paths: Sequence[Path]) -> Path:
    """``card.html``: a page a person reads, in the HTML report's look
    (:mod:`simstudy.report.html`): the verdict first, then the matched-size comparison as
    a table and a figure, the summary and why any count is 0, the studies, the paired
    differences pooled, the per-cell tables (folded), the notes and the figures; every
    table fits the page width; the CSVs are linked by their file names."""
    from ..testcard import MATCHING, POOLED, POWER, UNKNOWN
    from . import html as H

    e = _html_mod.escape
    body = [f"<h1>Report card: <code>{e(c.name)}</code> (alpha = {c.alpha})</h1>",
            f'<p class="verdict-box">{H._inline(local_paths_out(c.verdict))}</p>',
            f"<p>{c.trials:,} stored trials read ({c.pairs:,} pairs of learners evaluated); "
            "no learner fitted.</p>"]
    figs = {p.stem: p for p in paths if p.suffix == ".png"}
    csvs = {p.stem: p for p in paths if p.suffix == ".csv"}
    if len(c.matched):
        body += ["<h2>Matched size: the new test against each baseline on the same trials</h2>",
                 f"<p>Power is compared by {e(MATCHING)}. {e(_MATCHED_TEXT)}</p>",
                 _html_table(_matched_screen(c), "matched")]
        if "card_matched" in figs:
            body.append(H.figure_html(figs.pop("card_matched"), f"card {c.name}"))
    if len(c.summary):
        scr = summary_screen(c)
        body += ["<h2>Summary (ranks: 1 = best)</h2>", f"<p>{e(_SUMMARY_TEXT)}</p>",
                 _html_table(scr[[x for x in HTML_SUMMARY if x in scr.columns]], "summary",
                             new=c.summary["new"].tolist())]
        zeros = _zeros_screen(c)
        if zeros:
            body.append("<p>Zeros and missing ranks:</p><ul>" + "".join(
                f"<li><code>{e(t)}</code>: {e(w)}</li>" for t, w in zeros) + "</ul>")
    if len(c.studies):
        body += ["<h2>Studies</h2>", _html_table(_studies_screen(c), "studies")]
    if len(c.paired):
        pooled = _paired_screen(c.paired[c.paired["cell"] == POOLED])
        keep = ["study", "truth", "baseline", "runs", "new_rate", "base_rate", "diff",
                "ci_low", "ci_high", "width_ratio"]
        body += ["<h2>Paired differences at alpha, pooled over cells</h2>",
                 "<p>The new test's reject rate minus the baseline's on the same trials, both "
                 "at alpha, with Tango's (1998) paired 95 % interval; width_ratio: how many "
                 "times narrower it is than Newcombe's (1998) unpaired one. On H1 cells these "
                 "are at the nominal alpha; the matched-size table above compares power.</p>",
                 *[f"<p>{e(x)}</p>" for x in _h0_ratios(c) if x],
                 _html_table(pooled[[x for x in keep if x in pooled.columns]], "paired")]
        per_cell = c.paired[c.paired["cell"] != POOLED]
        if len(per_cell) > HTML_ROWS:
            body.append(_link(csvs["card_paired"], len(c.paired)))
        else:
            body.append(_folded("Per cell", _html_table(_paired_screen(per_cell)[
                [x for x in ["study", "cell", "pair", "truth", "baseline", *keep[3:]]
                 if x in _paired_screen(per_cell).columns]], "card_paired")))
    if len(c.intervals):
        body += ["<h2>Interval coverage on cells of known truth</h2>",
                 _html_table(_intervals_screen(c.intervals), "intervals")]
    most = _most_runs(c)
    for title, frame, extra in (
            ("Size on H0 cells, at alpha", c.size, []),
            ("Power on H1 cells of known difference, at alpha (not matched)",
             c.power[c.power["measure"] == POWER] if len(c.power) else c.power, ["x"]),
            ("Reject rate on cells of unknown truth (not power)",
             c.power[c.power["measure"] == UNKNOWN] if len(c.power) else c.power, ["x"])):
        if not len(frame):
            continue
        w = _wide(frame, c.name, extra=extra, most=most, ci=False)
        if "x" in w.columns:
            w = w.rename(columns={"x": "|z|" if frame is not c.size and (
                frame["x_kind"] == "abs(z)").all() else "x"})
        body.append(f"<h2>{e(title)}</h2>")
        if len(w) > HTML_ROWS:
            stem = "card_size" if frame is c.size else "card_power"
            body.append(_link(csvs[stem], len(getattr(c, stem[5:]))))
        else:
            body.append(_folded(f"{len(w):,} rows: each test's reject proportion "
                                "(Wilson intervals in card.md and the CSVs)",
                                _html_table(w, "size" if frame is c.size else
                                            f"power-{title.split()[0].lower()}")))
    if len(c.replicability):
        rep = c.replicability[["study", "design", "pair", "test", "units", "consistent_pct",
                               "almost_consistent_pct", "R", "mean_reject"]]
        if (rep["pair"] == "").all() or rep["pair"].isna().all():
            rep = rep.drop(columns=["pair"])
        body += ["<h2>Replicability</h2>",
                 _html_table(_commas(rep), "replicability", new=c.replicability["new"].tolist())]
    if c.notes:
        body += ["<h2>Notes</h2>", "<ul>" + "".join(
            f"<li>{H._inline(local_paths_out(n))}</li>" for n in c.notes) + "</ul>"]
    if figs:
        body += ["<h2>Figures</h2>", *[H.figure_html(p, f"card {c.name}") for p in figs.values()]]
    body += ["<h2>Files</h2>", "<p>" + " · ".join(
        f'<a href="{e(p.name)}">{e(p.name)}</a>' for p in paths
        if p.suffix in (".csv", ".md")) + "</p>"]
    page = out / "card.html"
    write_text(page, H._page(f"report card: {c.name}", "\n".join(body), css=CARD_CSS))
    _link_from_site(c, out)
    return page


def _folded(summary: str, inner: str) -> str:
    return (f'<details class="table"><summary>{_html_mod.escape(summary)}</summary>'
            f"{inner}</details>")


def _link_from_site(c: Card, out: Path) -> None:
    """When the card is written inside an HTML report (``report --all``: ``out/..`` holds
    its ``index.html``), the index gets one link to the card (once; rewriting the index
    with ``report --all`` drops it, as it rebuilds the page)."""
    index = out.parent / "index.html"
    if not index.is_file():
        return
    text = index.read_text()
    href = f"{out.name}/card.html"
    if f'href="{_html_mod.escape(href)}"' in text or "</body>" not in text:
        return
    link = (f'<p class="card">Report card of a new test: <a href="{_html_mod.escape(href)}">'
            f"{_html_mod.escape(c.name)}</a></p>")
    # before the page's closing script (the last one, at the end of the body)
    head, sep, tail = text.rpartition("<script>" if "<script>" in text else "</body>")
    write_text(index, head + link + sep + tail)


__all__ = ["local_paths_out", "summary_screen", "write_card"]
