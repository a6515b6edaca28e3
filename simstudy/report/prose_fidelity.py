"""The fidelity page (``figures/FIDELITY.md``) and the numbers page (``figures/NUMBERS.md``),
written from the committed tables of every study by :mod:`simstudy.report.prose`.

One row per paper table: the cells we ran, the runs per cell, how many of the paper's values
agree with ours under the table's check (strict beside half-a-digit), the verdicts of the
claims about that table, the largest remaining gap and the row's status, which
:func:`status` gives by the rules of :data:`STATUS_RULES` (printed on the page).  A study
accounts for a gap with a :class:`Gap` (declared in ``FIDELITY_GAPS`` of
``studies/__init__.py``), whose evidence is read from committed CSVs each time the page is
written; a gap that moves to another cell after a new run has no account until one is
declared.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

import simstudy.studies as _studies

from .prose import (
    BAND_CAPTION,
    VERDICTS,
    Claim,
    generated,
    verdict_counts,
)

HEADER = ("<!-- Written by `python -m simstudy pages` from the committed tables; the "
          "suite checks it (tests/test_pages.py). Do not edit by hand. -->")

REPRODUCED, EXPLAINED, HYPOTHESIS, PARTLY, OPEN = (
    "reproduced", "explained", "hypothesis", "partly", "open")
#: how a gap's evidence was chosen: before the paper's numbers were compared, or from them
A_PRIORI, READ_OFF = "a priori", "read off the paper"

#: each status and the rule that gives it; the first rule that holds applies
STATUS_RULES: tuple[tuple[str, str], ...] = (
    (REPRODUCED, "every value of the row passes the row's check strictly (the 99 % band "
                 "without the half digit; replicability: inside the min–max over all our "
                 "seeds)"),
    (EXPLAINED, "not all pass, and the largest gap's cell passes the same check under a "
                "setting fixed a priori (from the paper's text or its authors' code, before "
                "its numbers were compared), read from a committed table or pilot CSV"),
    (HYPOTHESIS, "as *explained*, but the setting was read off the paper's own numbers"),
    (PARTLY, "neither, and at least half of the row's values pass strictly"),
    (OPEN, "fewer than half pass, and nothing committed puts the gap's cell inside the check"),
)


@dataclass(frozen=True)
class Gap:
    """A study's account of a fidelity row's largest gap.

    ``study``, ``table``, ``cell``: the row and the gap's cell as the page names them;
    ``kind``: :data:`A_PRIORI` or :data:`READ_OFF`, how the setting of the evidence was
    chosen; ``evidence(figures) -> (inside, text)``: whether the gap's cell passes the row's
    check under that setting (None: the evidence is not a check of that cell), and the
    sentence the page prints, both read from committed CSVs under ``figures``.

    >>> g = Gap("s", "Table 1", "x", A_PRIORI, lambda f: (True, "a setting puts it in band"))
    >>> g.evidence(Path("."))
    (True, 'a setting puts it in band')
    """

    study: str
    table: str
    cell: str
    kind: str
    evidence: Callable[[Path], tuple[bool | None, str]]


def declared_gaps() -> dict[tuple[str, str, str], Gap]:
    """The gaps the studies account for, by (study, table, cell)."""
    out = {}
    for path in _studies.FIDELITY_GAPS:
        mod, attr = path.split(":")
        for g in getattr(importlib.import_module(mod), attr):
            out[(g.study, g.table, g.cell)] = g
    return out


def status(strict: int | None, n: int | None, gap: Gap | None,
           figures: Path) -> tuple[str, str]:
    """(status, the evidence's sentence) of a row by :data:`STATUS_RULES`.

    >>> status(19, 19, None, Path("."))
    ('reproduced', '')
    >>> status(5, 28, None, Path(".")), status(14, 28, None, Path("."))
    (('open', ''), ('partly', ''))
    """
    if n is None or n == 0:
        return "", ""
    if strict == n:
        return REPRODUCED, ""
    inside, text = gap.evidence(figures) if gap is not None else (None, "")
    if inside:
        return (EXPLAINED if gap.kind == A_PRIORI else HYPOTHESIS), text
    return (PARTLY if 2 * strict >= n else OPEN), text


@dataclass
class Row:
    """One paper table (or one variant's view of it) on the fidelity page."""

    paper: str
    table: str
    study: str
    cells: str
    runs: str
    check: str
    strict: int | None = None
    half: int | None = None
    n: int | None = None
    claims: list = field(default_factory=list)
    gap: str = ""
    gap_key: str = ""
    state: tuple[str, str] = ("", "")

    def cells_md(self) -> list[str]:
        agree = ("—" if self.n is None else f"{self.strict}/{self.n}",
                 "—" if self.n is None else f"{self.half}/{self.n}")
        v = verdict_counts(self.claims)
        verdicts = " / ".join(str(v[k]) for k in VERDICTS)
        status, why = self.state
        return [self.paper, self.table, f"`{self.study}`", self.cells, self.runs, self.check,
                *agree, verdicts, self.gap or "—",
                (f"**{status}**" + (f": {why}" if why else "")) if status else "—"]


def runs_text(s) -> str:
    """Runs per cell of a table's column as a range ('1000', '500–1000'), '—' if none."""
    from .style import runs_range

    return runs_range(pd.Series(s).dropna()) or "—"


def worst(rows: list[tuple[str, float, float, bool | None]],
          fmt: str = "{:.3f}") -> tuple[str, str]:
    """(text, key) of the largest |ours − paper| among the checks outside (strict)."""
    out = [(k, o, p) for k, o, p, inside in rows if inside is False]
    if not out:
        return "", ""
    k, o, p = max(out, key=lambda x: abs(x[1] - x[2]))
    return f"{k}: ours {fmt.format(o)}, paper {fmt.format(p)}", k


def _declared(name: str) -> list[Callable]:
    """The functions a declaration of ``studies/__init__.py`` names (``module:function``)."""
    out = []
    for path in getattr(_studies, name):
        mod, fn = path.split(":")
        out.append(getattr(importlib.import_module(mod), fn))
    return out


def committed_claims(text: str, section: str,
                     tables: tuple[tuple[str, str], ...]) -> list[Claim]:
    """The claims of a committed generated section that only a store can write, as Claims
    carrying their committed verdict (``tables``: claim text prefix -> paper table)."""
    from .prose import parse

    body = next((b for k, n, b in parse(text) if k == "gen" and n == section), "")
    out = []
    for m in re.finditer(r"^- \*\*(?P<v>[^*]+)\*\*: (?P<t>.*)$", body, re.M):
        table = next((t for p, t in tables if m["t"].startswith(p)), "")
        out.append(_Committed(m["t"], "", "", True, table=table, committed=m["v"]))
    return out


@dataclass(frozen=True)
class _Committed(Claim):
    committed: str = ""

    @property
    def verdict(self) -> str:
        return self.committed


# --- the pages ------------------------------------------------------------------------------

COLUMNS = ["paper", "table", "study", "cells run", "runs per cell", "check",
           "agree: strict", "half-digit",
           "claims: reproduced / partly / NOT / rule fails on the paper's numbers / not checked",
           "largest remaining gap", "status"]


def _md(rows: list[Row]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r.cells_md()) + " |"
              for r in rows]
    return "\n".join(lines)


def fidelity_rows(figures: Path | str = "figures", variants: bool = False) -> list[Row]:
    figures = Path(figures)
    rows = [r for f in _declared("FIDELITY_ROWS") for r in f(figures, variants)]
    gaps = declared_gaps()
    for r in rows:
        r.state = status(r.strict, r.n, gaps.get((r.study, r.table, r.gap_key)), figures)
    return rows


def fidelity_page(figures: Path | str = "figures") -> str:
    """``figures/FIDELITY.md``: one row per paper table, then the variants and hypotheses."""
    figures = Path(figures)
    main, var = fidelity_rows(figures), fidelity_rows(figures, variants=True)
    body = [
        "# Fidelity: every paper table, how close", "",
        "One row per paper table, from the committed tables under `figures/` (the default "
        "learners and settings), then the paper variants and hypotheses.  *agree* counts the "
        "paper's values that pass the row's check; for the 99 % Wilson band: "
        + BAND_CAPTION + "; for the other checks strict and half-digit coincide.  The claims "
        "are the ones each study's RESULTS.md checks about that table, each by its stated "
        "rule on ours and on the paper's own numbers.  The largest remaining gap is the check "
        "farthest from the paper among those that fail strictly.  A row's status is the first "
        "of these rules that holds (applied by code, `simstudy.report.prose_fidelity.status`; "
        "the evidence a study gives for a gap is read from the committed tables and pilot "
        "CSVs each time this page is written):", "",
        *[f"- **{k}**: {rule}" for k, rule in STATUS_RULES], "",
        "## The paper tables", "", _md(main), "",
        "## Paper variants and hypotheses", "",
        _studies.FIDELITY_VARIANTS, "", _md(var)]
    return HEADER + "\n\n" + generated("fidelity", "\n".join(body)) + "\n"


def numbers_page(figures: Path | str = "figures") -> str:
    """``figures/NUMBERS.md``: sentences the README and docs may quote, each computed from
    the committed tables (so a quote can be checked against its source)."""
    figures = Path(figures)
    lines = ["# Numbers for the README and docs", "",
             "Each line is written from the committed tables named in it; quote them rather "
             "than retyping the numbers.", ""]
    for f in _declared("NUMBERS_LINES"):
        lines += f(figures)
    return HEADER + "\n\n" + generated("numbers", "\n".join(lines)) + "\n"
