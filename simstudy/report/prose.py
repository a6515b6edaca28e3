"""Prose from data: the generated sections of ``figures/<study>/RESULTS.md``.

Every number a results page states about a committed table is written by code from that
table.  A page is hand-written explanation with *generated sections* between markers::

    <!-- generated: NAME -->
    ...text written by the study's page function from the committed CSVs...
    <!-- end generated -->

A study's page function (``page_<study>(out) -> list[Section]``) reads only the CSVs its
``render`` wrote to ``out`` (and the paper's reference CSVs), so the same text comes out of
``report`` (from a store) and of :func:`render_docs` (from the committed tables alone, in
the test suite).  :func:`splice` replaces the generated sections of an existing page and
keeps everything outside the markers as it is; a section the page function returns as
``None`` is kept as committed (a section only the store can write, such as run times).

Claims are :class:`Claim` objects: the rule applied, the numbers on both sides and whether
the paper's own numbers pass the same rule, so a reader can check every verdict.

``python -m simstudy pages [--check]`` rewrites (or checks) every page, ``FIDELITY.md`` and
``NUMBERS.md`` included (:mod:`simstudy.report.pages`).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

import simstudy.studies as _studies

from .compare import HALF_DIGIT, band_rule, in_band

START = "<!-- generated: {name} -->"
END = "<!-- end generated -->"
_START_RE = re.compile(r"^<!-- generated: (?P<name>[\w.\-]+) -->$")

#: (name, markdown) of one generated section; markdown None keeps the committed section
Section = tuple[str, "str | None"]

# --- verdicts -----------------------------------------------------------------------------

REPRODUCED = "reproduced"
PARTLY = "partly reproduced"
NOT_REPRODUCED = "NOT reproduced"
PAPER_FAILS = "rule fails on the paper's own numbers"
NOT_CHECKED = "not checked"
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, PAPER_FAILS, NOT_CHECKED)


@dataclass(frozen=True)
class Claim:
    """A claim of the paper checked by a stated rule on ours and on the paper's own numbers.

    ``held``: True, False, ``"partly"`` or None (not checked) -- ours under ``rule``;
    ``paper_held``: the paper's own printed numbers under the same rule (None: the paper
    prints nothing the rule can read).  ``table`` names the paper table the claim is about
    (the fidelity page counts verdicts per table).

    >>> c = Claim("F rejects less than t", "F < t in every cell", "ours 3/4 cells",
    ...           False, "4/4 cells", True, table="Table 3")
    >>> c.verdict
    'NOT reproduced'
    """

    text: str
    rule: str
    ours: str
    held: bool | str | None
    paper: str | None = None
    paper_held: bool | None = None
    note: str = ""
    table: str = ""

    @property
    def verdict(self) -> str:
        if self.held is None:
            return NOT_CHECKED
        if self.paper_held is False:
            return PAPER_FAILS
        if self.held == "partly":
            return PARTLY
        return REPRODUCED if self.held else NOT_REPRODUCED

    def markdown(self) -> str:
        """One bullet: verdict, claim, rule, our numbers, the paper's numbers under the rule."""
        s = f"- **{self.verdict}**: {self.text} — rule: {self.rule}. Ours: {self.ours}."
        if self.paper is not None:
            passes = ("" if self.paper_held is None else
                      " — passes the rule" if self.paper_held else " — fails the rule")
            s += f" The paper's own numbers: {self.paper}{passes}."
        if self.note:
            s += f" {self.note}"
        return s


def claims_markdown(claims: Sequence[Claim | str]) -> str:
    """The claims as bullets; a plain string is a context line (not a claim)."""
    return "\n".join(c.markdown() if isinstance(c, Claim) else f"- {c}" for c in claims)


def verdict_counts(claims: Sequence[Claim | str]) -> dict[str, int]:
    """How many claims carry each verdict (context lines are not counted)."""
    out = dict.fromkeys(VERDICTS, 0)
    for c in claims:
        if isinstance(c, Claim):
            out[c.verdict] += 1
    return out


# --- in-band counts from a committed table ------------------------------------------------

def band_checks(paper, ours, runs, confidence: float = 0.99,
                slack: float = HALF_DIGIT) -> tuple[int, int, int]:
    """(strict, half-digit, checked) counts of the paper's values inside our Wilson band.

    ``ours`` are proportions over ``runs`` runs (the committed tables keep proportions, so
    the count of rejects is ``round(ours * runs)``); a row without a paper value or a run
    is not a check.  ``slack``: half a unit of the paper's last printed digit, as a
    proportion.
    """
    strict = half = n = 0
    for p, o, r in zip(paper, ours, runs, strict=True):
        if _missing(p) or _missing(o) or _missing(r) or int(r) == 0:
            continue
        k = int(round(float(o) * float(r)))
        n += 1
        strict += bool(in_band(float(p), k, int(r), confidence, slack=0.0))
        half += bool(in_band(float(p), k, int(r), confidence, slack=slack))
    return strict, half, n


def band_flags(paper, ours, runs, confidence: float = 0.99,
               slack: float = HALF_DIGIT) -> list[bool | None]:
    """Per row: the paper's value inside our band (None where nothing is checked)."""
    out = []
    for p, o, r in zip(paper, ours, runs, strict=True):
        if _missing(p) or _missing(o) or _missing(r) or int(r) == 0:
            out.append(None)
            continue
        out.append(bool(in_band(float(p), int(round(float(o) * float(r))), int(r), confidence,
                                slack=slack)))
    return out


def strict_half(strict: int, half: int, n: int) -> str:
    """'3/14 strict, 5/14 half-digit': an in-band count under both rules."""
    return f"{strict}/{n} strict, {half}/{n} half-digit"


BAND_CAPTION = band_rule()


def _missing(v) -> bool:
    return v is None or v is pd.NA or (isinstance(v, float | np.floating) and np.isnan(v))


# --- reading committed tables ---------------------------------------------------------------

def read_table(out: Path, stem: str) -> pd.DataFrame:
    """A committed table (``stem.csv`` under ``out``) as the page functions read it.

    Flag columns come back as True/False/None, whatever pandas guessed for them.
    """
    df = pd.read_csv(Path(out) / f"{stem}.csv")
    for c in df.columns:
        if re.search(r"_in_(99|band|spread)$|^same_first$|^within$", str(c)):
            df[c] = [None if _missing(v) else (str(v).strip().lower() in ("true", "1", "yes"))
                     for v in df[c]]
    return df


def fmt_list(items: Sequence[str], empty: str = "none") -> str:
    return ", ".join(items) if items else empty


# --- markers --------------------------------------------------------------------------------

def generated(name: str, body: str) -> str:
    """``body`` between the markers of section ``name``."""
    return f"{START.format(name=name)}\n{body.rstrip(chr(10))}\n{END}"


def parse(text: str) -> list[tuple[str, str | None, str]]:
    """The page as ``(kind, name, text)`` parts: ``("text", None, s)`` for hand-written text,
    ``("gen", name, body)`` for a generated section (body without its markers)."""
    parts: list[tuple[str, str | None, str]] = []
    lines = text.split("\n")
    buf: list[str] = []
    i = 0
    while i < len(lines):
        m = _START_RE.match(lines[i])
        if not m:
            buf.append(lines[i])
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j] != END:
            if _START_RE.match(lines[j]):
                raise ValueError(f"generated section {m['name']!r} is not closed before "
                                 f"{lines[j]!r}")
            j += 1
        if j == len(lines):
            raise ValueError(f"generated section {m['name']!r} has no {END!r}")
        if buf:
            parts.append(("text", None, "\n".join(buf)))
            buf = []
        parts.append(("gen", m["name"], "\n".join(lines[i + 1:j])))
        i = j + 1
    if buf:
        parts.append(("text", None, "\n".join(buf)))
    return parts


def _join(parts: list[tuple[str, str | None, str]]) -> str:
    return "\n".join(p[2] if p[0] == "text" else generated(p[1], p[2]) for p in parts)


def splice(old: str | None, sections: Sequence[Section]) -> str:
    """The page with ``sections`` in place: each section replaces the committed section of
    its name; text outside the markers stays; a section new to the page goes after the
    section that precedes it in ``sections`` (first: at the top); a committed section no
    longer produced is dropped; a section given as None keeps its committed text."""
    names = [n for n, _ in sections]
    if len(set(names)) != len(names):
        raise ValueError(f"generated section names repeat: {names!r}")
    new = dict(sections)
    if not old:
        return "\n\n".join(generated(n, b) for n, b in sections if b is not None) + "\n"
    parts = [p for p in parse(old.rstrip("\n")) if p[0] == "text" or p[1] in new]
    present = {p[1] for p in parts if p[0] == "gen"}
    parts = [("gen", p[1], p[2] if new[p[1]] is None else new[p[1]].rstrip("\n"))
             if p[0] == "gen" else p for p in parts]
    for k, (name, body) in enumerate(sections):
        if name in present or body is None:
            continue
        prev = next((n for n, _ in reversed(sections[:k]) if n in present), None)
        gen = ("gen", name, body.rstrip("\n"))
        if prev is None:  # at the top, a blank line after it
            parts[0:0] = [gen, ("text", None, "")]
        else:  # after its predecessor, a blank line before it
            at = 1 + next(i for i, p in enumerate(parts) if p[0] == "gen" and p[1] == prev)
            parts[at:at] = [("text", None, ""), gen]
        present.add(name)
    return _join(parts) + "\n"


def write_page(out: Path, sections: Sequence[Section], name: str = "RESULTS.md") -> Path:
    """Write ``out/name`` with ``sections`` spliced into the committed page (if any)."""
    p = Path(out) / name
    old = p.read_text() if p.is_file() else None
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(splice(old, sections))
    return p


# --- the pages ------------------------------------------------------------------------------

#: figures directory -> the page function ``f(out: Path) -> list[Section]``, as the studies
#: declare them (lazy "module:function" strings, so the report package imports no study)
PAGES: dict[str, str] = dict(_studies.RESULTS_PAGES)

#: whole pages under the figures root, each ``f(figures: Path) -> str``
SUMMARY_PAGES: dict[str, str] = {
    "FIDELITY.md": "simstudy.report.prose_fidelity:fidelity_page",
    "NUMBERS.md": "simstudy.report.prose_fidelity:numbers_page",
}


def _resolve(path: str) -> Callable:
    mod, fn = path.split(":")
    return getattr(importlib.import_module(mod), fn)


def page_sections(name: str, out: Path) -> list[Section]:
    """The generated sections of page ``name`` from the tables in ``out``."""
    if name not in PAGES:
        raise KeyError(f"no results page {name!r}; pages: {', '.join(PAGES)}")
    return _resolve(PAGES[name])(Path(out))


def render_docs(figures: Path | str = "figures",
                names: Sequence[str] | None = None) -> dict[Path, str]:
    """What every results page under ``figures`` should read, from the committed tables.

    Returns ``{path: text}`` for each ``figures/<name>/RESULTS.md`` whose directory exists
    (``names``: only these) and for the summary pages.  Nothing is written.
    """
    figures = Path(figures)
    out: dict[Path, str] = {}
    for name in (names or PAGES):
        d = figures / name
        if not d.is_dir():
            continue
        p = d / "RESULTS.md"
        old = p.read_text() if p.is_file() else None
        out[p] = splice(old, page_sections(name, d))
    if names is None:
        for fname, fn in SUMMARY_PAGES.items():
            out[figures / fname] = _resolve(fn)(figures)
    return out
