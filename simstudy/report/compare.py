"""Paper-versus-ours helpers shared by the studies' renderings."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..aggregate import wilson


def band(k: int, n: int, confidence: float = 0.99) -> tuple[float, float]:
    """Our Wilson interval at ``confidence`` (0.99 by default: the 'paper within band' check)."""
    return wilson(k, n, confidence)


def in_band(paper: float, k: int, n: int, confidence: float = 0.99) -> bool | None:
    """Whether the paper's proportion lies in our ``confidence`` Wilson band (None if no paper value)."""
    if paper is None or (isinstance(paper, float) and np.isnan(paper)) or n == 0:
        return None
    lo, hi = band(k, n, confidence)
    # the paper prints 3 decimals: give it half a unit of its last digit
    return bool(lo - 5e-4 <= float(paper) <= hi + 5e-4)


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


def savefig(fig, out: Path, stem: str) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{stem}.png", out / f"{stem}.pdf"]
    for p in paths:
        fig.savefig(p, dpi=150, bbox_inches="tight")
    import matplotlib.pyplot as plt

    plt.close(fig)
    return paths
