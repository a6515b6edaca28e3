"""Writing an interval card (:class:`simstudy.intervalcard.IntervalCard`): ``card.md`` (the
verdict first, the rule it follows, the pooled coverage of every method and the comparison
with each baseline) and one CSV per frame."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from .card import local_paths_out
from .tables import beside, write_text

if TYPE_CHECKING:
    from ..intervalcard import IntervalCard

_FRAMES = ("coverage", "paired", "matched", "studies")


def coverage_screen(c: IntervalCard) -> pd.DataFrame:
    """One line per method, pooled over every cell and target: coverage of the
    conditional truth (Wilson interval), of the unconditional truth, shares missed below
    and above, intervals read and undefined."""
    from ..intervalcard import POOLED

    p = c.coverage[c.coverage["cell"] == POOLED]
    return p[["method", "runs", "undefined", "coverage", "coverage_low", "coverage_high",
              "coverage_unconditional", "share_below", "share_above"]].reset_index(drop=True)


def write_interval_card(c: IntervalCard, out: Path) -> list[Path]:
    """``card.md`` and ``card_<frame>.csv`` under ``out``; the paths written, ``card.md``
    first.  No timing and no machine-local path in what a reader sees."""
    from ..intervalcard import MATCHING, RULE
    from . import to_markdown

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for stem in _FRAMES:
        df = getattr(c, stem)
        p = out / f"card_{stem}.csv"
        with beside(p) as tmp:
            df.to_csv(tmp, index=False)
        paths.append(p)
    lines = [f"# Interval card: `{c.name}` (level {c.level:g})", "", f"**{c.verdict}**", "",
             f"{c.trials:,} stored trials read; no learner fitted.  Verdict rule: {RULE}.",
             "", "## Studies", "",
             to_markdown(c.studies.drop(columns=["read_from"]).assign(
                 reason=lambda d: d["reason"].map(local_paths_out))), "",
             "## Coverage, pooled over every cell and target", "",
             to_markdown(coverage_screen(c)), "",
             "## Against each baseline, on the same trials", "",
             f"Widths are compared by {MATCHING}.", "", to_markdown(c.matched), ""]
    if c.notes:
        lines += ["## Notes", "", *[f"- {local_paths_out(n)}" for n in c.notes], ""]
    md = out / "card.md"
    write_text(md, "\n".join(lines))
    return [md, *paths]
