"""Paper-versus-ours helpers shared by the studies' renderings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..aggregate import wilson
from .tables import beside


def band(k: int, n: int, confidence: float = 0.99) -> tuple[float, float]:
    """Our Wilson interval at ``confidence`` (0.99 by default: the 'paper within band' check)."""
    return wilson(k, n, confidence)


#: half a unit of the last digit the papers print (3 decimals): the slack :func:`in_band`
#: gives the paper's value by default, so a value printed as 0.018 counts as inside a band
#: that ends at 0.0178 (it may have been 0.0177 before rounding)
HALF_DIGIT = 5e-4


def in_band(paper: float, k: int, n: int, confidence: float = 0.99, *,
            slack: float = HALF_DIGIT) -> bool | None:
    """Whether the paper's proportion lies in our ``confidence`` Wilson band (None if no paper value).

    ``slack`` widens the band on both sides: half a unit of the paper's last printed digit
    by default (the ``*_in_99`` flags of the committed tables); ``slack=0`` is the strict test.

    >>> in_band(0.018, 7, 1000), in_band(0.018, 7, 1000, slack=0)  # band [0.0027, 0.0178]
    (True, False)
    """
    if paper is None or (isinstance(paper, float) and np.isnan(paper)) or n == 0:
        return None
    lo, hi = band(k, n, confidence)
    return bool(lo - slack <= float(paper) <= hi + slack)


def band_rule(confidence: float = 0.99, *, unit: str = "0.001") -> str:
    """The in-band rule in words, for the caption of every in-band count: strict beside
    half-a-digit (``unit``: the paper's last printed digit)."""
    half = {"0.001": "0.0005", "0.1": "0.05", "0.01": "0.005"}.get(unit, f"half of {unit}")
    return (f"the paper's printed value lies inside our {100 * confidence:g} % Wilson interval "
            f"(*strict*), or within {half} of it, half a unit of the paper's last printed digit "
            f"{unit} (*half-digit*: the rule of the tables' `*_in_99` flags)")


def wide_by_test(table: pd.DataFrame, index: list[str]) -> pd.DataFrame:
    """One row per cell with columns ``<test>_k``, ``<test>_n``, ``<test>_p`` and CI bounds."""
    rows = {}
    for _, r in table.iterrows():
        key = tuple(r[c] for c in index)
        d = rows.setdefault(key, dict(zip(index, key, strict=True)))
        t = r["test"]
        d[f"{t}_k"], d[f"{t}_n"], d[f"{t}_p"] = int(r["rejects"]), int(r["runs"]), r["proportion"]
        d[f"{t}_lo"], d[f"{t}_hi"] = r["ci_low"], r["ci_high"]
    return pd.DataFrame(list(rows.values()))


def figure_title(fig) -> str:
    """The figure's suptitle, else its axes' titles joined (one line)."""
    sup = getattr(fig, "_suptitle", None)
    text = sup.get_text() if sup is not None else ""
    if not text.strip():
        text = " / ".join(a.get_title() for a in fig.axes if a.get_title())
    return " ".join(text.split())


def savefig(fig, out: Path, stem: str, *, runs: int | str | None = None) -> list[Path]:
    """``stem.png`` and ``stem.pdf``; ``runs`` (a count or a
    :func:`simstudy.report.style.runs_caption`) is printed under the figure.

    The title and the runs caption are also stored in the files' metadata (PNG ``Title`` /
    ``Description``, PDF ``Title`` / ``Subject``): the HTML report reads them for the
    caption and the alt text.
    """
    from .style import runs_caption

    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.png", out / f"{stem}.pdf"]
    caption = runs_caption(runs) if isinstance(runs, int) else runs
    if caption:
        fig.text(0.5, 0.0, caption, ha="center", va="top", fontsize=8, style="italic")
    title = figure_title(fig) or stem
    for p in paths:
        key = "Description" if p.suffix == ".png" else "Subject"
        meta = {"Title": title, **({key: caption} if caption else {})}
        with beside(p) as tmp:
            fig.savefig(tmp, dpi=150, bbox_inches="tight", metadata=meta)
    import matplotlib.pyplot as plt

    plt.close(fig)
    return paths
