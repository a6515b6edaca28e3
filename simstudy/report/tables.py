"""Plain table writers (no optional dependencies): Markdown, LaTeX, CSV.

Numbers stay raw floats in the DataFrame; formatting happens only here.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd


def _fmt(v: object, digits: int) -> str:
    if v is None or v is pd.NA or v is pd.NaT:
        return ""
    if isinstance(v, (float, np.floating)):
        return "" if np.isnan(v) else f"{v:.{digits}f}"
    return str(v)


def to_markdown(df: pd.DataFrame, digits: int = 3) -> str:
    cols = [str(c) for c in df.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in df.itertuples(index=False):
        lines.append("| " + " | ".join(_fmt(v, digits) for v in row) + " |")
    return "\n".join(lines) + "\n"


def _tex_escape(s: str) -> str:
    for a, b in (("\\", r"\textbackslash{}"), ("&", r"\&"), ("%", r"\%"), ("_", r"\_"),
                 ("#", r"\#"), ("~", r"\textasciitilde{}"), ("$", r"\$")):
        s = s.replace(a, b)
    return s


def to_latex(df: pd.DataFrame, digits: int = 3, caption: str | None = None) -> str:
    cols = [_tex_escape(str(c)) for c in df.columns]
    out = [r"\begin{table}[ht]", r"\centering", r"\begin{tabular}{" + "l" * len(cols) + "}",
           r"\hline", " & ".join(cols) + r" \\", r"\hline"]
    for row in df.itertuples(index=False):
        out.append(" & ".join(_tex_escape(_fmt(v, digits)) for v in row) + r" \\")
    out += [r"\hline", r"\end{tabular}"]
    if caption:
        out.append(r"\caption{" + _tex_escape(caption) + "}")
    out.append(r"\end{table}")
    return "\n".join(out) + "\n"


def write_table(df: pd.DataFrame, out_dir: Path, stem: str, *, digits: int = 3,
                caption: str | None = None) -> list[Path]:
    """Write ``stem.md``, ``stem.csv`` (raw floats) and ``stem.tex`` under ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.md", out_dir / f"{stem}.csv", out_dir / f"{stem}.tex"]
    paths[0].write_text(to_markdown(df, digits))
    df.to_csv(paths[1], index=False)
    paths[2].write_text(to_latex(df, digits, caption))
    return paths
