"""Plain table writers (no optional dependencies): Markdown, LaTeX, CSV.

Numbers stay raw floats in the DataFrame; formatting happens only here.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
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


@contextlib.contextmanager
def beside(path: Path) -> Iterator[Path]:
    """A temporary name beside ``path`` (same suffix, so writers that go by it still do) to
    write to; renamed over ``path`` when the block ends normally, removed when it fails.
    So a full disk or a killed process leaves ``path`` as it was or complete, never a
    half-written (or 0-byte) file.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "t.md"
    >>> with beside(p) as tmp:
    ...     _ = tmp.write_text("x")
    >>> p.read_text(), sorted(q.name for q in p.parent.iterdir())
    ('x', ['t.md'])
    """
    path = Path(path)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp{path.suffix}")
    try:
        yield tmp
        os.replace(tmp, path)
    except OSError as e:  # a full disk or a read-only folder: name the file asked for
        if e.filename in (None, str(tmp)):
            e.filename = str(path)
        raise
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: Path, text: str, encoding: str | None = None) -> Path:
    """``path.write_text(text)`` through :func:`beside`."""
    with beside(path) as tmp:
        tmp.write_text(text, encoding=encoding)
    return Path(path)


def write_table(df: pd.DataFrame, out_dir: Path, stem: str, *, digits: int = 3,
                caption: str | None = None) -> list[Path]:
    """Write ``stem.md``, ``stem.csv`` (raw floats) and ``stem.tex`` under ``out_dir``, each
    whole or not at all (:func:`beside`)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = [out_dir / f"{stem}.md", out_dir / f"{stem}.csv", out_dir / f"{stem}.tex"]
    write_text(paths[0], to_markdown(df, digits))
    with beside(paths[1]) as tmp:
        df.to_csv(tmp, index=False)
    write_text(paths[2], to_latex(df, digits, caption))
    return paths
