"""Writing a report card (:class:`simstudy.card.Card`): ``card.md`` (the verdict and the
one-screen summary first), one CSV per frame, PNG figures and ``card.html``."""

from __future__ import annotations

import html as _html_mod
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from .tables import beside, write_text

if TYPE_CHECKING:
    from ..card import Card

_FRAMES = ("summary", "studies", "paired", "intervals", "size", "calibration", "power",
           "replicability")


def write_card(c: Card, out: Path, *, figures: bool = True, html: bool = True) -> list[Path]:
    """``card.md``, ``card_<frame>.csv`` for every frame, PNG figures and ``card.html``
    under ``out``; returns the paths written, ``card.md`` first."""
    from ..card import POOLED, POWER, UNKNOWN
    from . import to_markdown

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for stem in _FRAMES:
        df = getattr(c, stem)
        if stem in ("studies", "paired", "intervals") and df.empty:
            continue
        p = out / f"card_{stem}.csv"
        with beside(p) as tmp:
            df.to_csv(tmp, index=False)
        paths.append(p)
    figs = _figures(c, out) if figures else []
    paths += figs
    lines = [f"# Report card: `{c.name}` (alpha = {c.alpha})", "",
             f"**{c.verdict}**", "",
             f"{c.trials} stored trials read; no learner fitted; "
             f"{c.seconds.get('total', float('nan')):.1f} s.", ""]
    if len(c.studies):
        lines += ["## Studies", "", to_markdown(c.studies), ""]
    lines += ["## Summary (ranks: 1 = best)", "",
              "Pooled over cells, each cell weighted by its runs. mean_size_excess: pooled H0 "
              "reject proportion − alpha; cells_over_alpha: H0 cells whose Wilson 95 % interval "
              "lies above alpha; mean_power (H1 cells of known difference only) and "
              "mean_power_matched at the test's own size-adjusted level alpha_matched (pooled "
              "H0 reject proportion ≤ alpha); mean_reject_unknown: cells of unknown truth, "
              "never counted as power; new_*_same_cells: the new test on that test's cells; "
              "power_minus_new: that test's power minus the new test's on the same cells, both "
              "at matched size (ranks power); mean_R: Bouckaert & Frank's replicability.", "",
              to_markdown(summary_screen(c)), ""]
    if len(c.paired):
        pooled = c.paired[c.paired["cell"] == POOLED]
        lines += ["## Paired differences: new − baseline on the same trials", "",
                  f"diff: the new test's reject rate minus the baseline's; [ci_low, ci_high]: "
                  f"Tango's (1998) paired score 95 % interval; unpaired_width: Newcombe's (1998) "
                  f"interval width had the rates come from independent trials; "
                  f"runs_to_resolve: runs for a ±{c.resolve} interval at the discordance seen "
                  "(paired, and unpaired). Pooled rows pool the trials of the cells both "
                  "tests read.", "",
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
                      "x: |true difference of error rates| where known (truth column), else "
                      "|z| = |ē_a − ē_b| / s_b from the stored errors (Alpaydın 1999, Fig. 2).",
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
                  to_markdown(c.replicability.drop(columns=["new"])), ""]
    if c.notes:
        lines += ["## Notes", "", *[f"- {n}" for n in c.notes], ""]
    if figs:
        lines += ["## Figures", "", *[f"![{p.stem}]({p.name})" for p in figs], ""]
    md = out / "card.md"
    write_text(md, "\n".join(lines))
    paths.insert(0, md)
    if html:
        paths.append(_html(c, out, paths))
    return paths


def summary_screen(c: Card) -> pd.DataFrame:
    """The summary on one screen: the new test marked, empty and secondary columns left out
    (``card_summary.csv`` keeps them all)."""
    df = c.summary.copy()
    if df.empty:
        return df
    df["test"] = [f"{t} (new)" if n else t for t, n in zip(df["test"], df["new"], strict=True)]
    df = df.drop(columns=["new", "max_size", "rep_groups"])
    df = df.rename(columns={"new_mean_size_same_cells": "new_size_same_cells",
                            "new_mean_power_same_cells": "new_power_same_cells"})
    keep = [col for col in df.columns if not df[col].isna().all()
            and not (col.endswith("_cells") and (df[col] == 0).all())]
    return df[keep]


def _paired_screen(df: pd.DataFrame) -> pd.DataFrame:
    cols = ["study", "cell", "pair", "truth", "baseline", "runs", "new_rate", "base_rate",
            "diff", "ci_low", "ci_high", "paired_width", "unpaired_width", "width_ratio",
            "runs_to_resolve", "runs_to_resolve_unpaired"]
    out = df[[c for c in cols if c in df.columns]].copy()
    if "pair" in out.columns and (out["pair"] == "").all():
        out = out.drop(columns=["pair"])
    return out


def _h0_ratios(c: Card) -> list[str]:
    """One line: per baseline, how many times narrower the paired interval is than the
    unpaired one over all H0 cells of the card (:func:`simstudy.card.h0_width_ratio`)."""
    from ..card import POOLED, SIZE, h0_width_ratio

    h0 = c.paired[(c.paired["measure"] == SIZE) & (c.paired["cell"] != POOLED)]
    if h0.empty:
        return []
    parts = []
    for b in dict.fromkeys(h0["baseline"]):
        n = int(h0.loc[h0["baseline"] == b, "runs"].sum())
        parts.append(f"{b} {h0_width_ratio(c.paired, b):.2f}x ({n} trials)")
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
    return out


def _wide(df: pd.DataFrame, name: str, extra: Sequence[str] = (),
          most: dict | None = None) -> pd.DataFrame:
    """One row per cell (and pair): each test's reject proportion [Wilson interval]; the
    new test's ``runs``, flagged ``(mixed)`` when below the most runs of the study's cells
    (``most``: study -> runs, over every frame of the card)."""
    idx = ["study", "cell", "pair", "truth", *extra]
    rows: dict[tuple, dict] = {}
    for r in df.itertuples(index=False):
        key = tuple(getattr(r, c) for c in idx)
        d = rows.setdefault(key, dict(zip(idx, key, strict=True)))
        d[r.test] = f"{r.proportion:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]"
        if r.new:
            d["runs"] = int(r.runs)
    tests = list(dict.fromkeys([name, *df["test"]]))
    w = pd.DataFrame(list(rows.values())).reindex(columns=[*idx, "runs", *tests])
    if most:
        w["runs"] = [("" if pd.isna(v) else f"{int(v)} (mixed)" if v < most.get(s, v)
                      else str(int(v))) for s, v in zip(w["study"], w["runs"], strict=True)]
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

    from ..card import POWER
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
        if len(c.calibration):
            tests = list(dict.fromkeys([c.name, *c.calibration["test"]]))
            tests = [t for t in tests if t in set(c.calibration["test"])]
            fig, axes = plt.subplots(1, len(tests), figsize=(3.2 * len(tests), 3.2),
                                     squeeze=False, sharey=True)
            top = float(c.calibration["alpha"].max())
            for ax, t in zip(axes[0], tests, strict=True):
                g = c.calibration[c.calibration["test"] == t]
                for _, gc in g.groupby(["study", "cell", "pair"], sort=False):
                    ax.plot(gc["alpha"], gc["proportion"], color="C0" if t == c.name else "C1",
                            lw=0.7, alpha=0.5)
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


#: tables longer than this are linked from card.html, not inlined
HTML_ROWS = 1000


def _html(c: Card, out: Path, paths: Sequence[Path]) -> Path:
    """``card.html``: the card's md and CSVs and figures on one page, in the HTML report's
    look (:mod:`simstudy.report.html`)."""
    from . import html as H

    head = (out / "card.md").read_text()
    for cut in ("## Paired differences", "## Interval coverage", "## Size", "## Power",
                "## Reject rate", "## Replicability"):
        head = head.split(cut)[0]
    body = [H.markdown_to_html(head)]
    for p in paths:
        # studies and summary are in the md part above, the calibration points in their
        # figure; empty frames are left out; a long table (every cell x baseline of a card
        # over many studies) is linked, not inlined: the md's pooled rows summarise it
        if p.suffix != ".csv" or p.stem in ("card_calibration", "card_studies", "card_summary"):
            continue
        rows = len(pd.read_csv(p))
        if rows > HTML_ROWS:
            body.append(f'<p>{_html_mod.escape(p.stem)}: {rows} rows, in '
                        f'<a href="{_html_mod.escape(p.name)}">{_html_mod.escape(p.name)}</a></p>')
        elif rows:
            body.append(H.csv_table_html(p, table_id=p.stem, caption=p.stem)[0])
    for p in paths:
        if p.suffix == ".png":
            body.append(H.figure_html(p, f"card {c.name}"))
    page = out / "card.html"
    write_text(page, H._page(f"report card: {c.name}", "\n".join(body)))
    _link_from_site(c, out)
    return page


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


__all__ = ["summary_screen", "write_card"]
