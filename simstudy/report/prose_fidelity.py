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

from .compare import HALF_DIGIT
from .prose import (
    BAND_CAPTION,
    VERDICTS,
    Claim,
    band_checks,
    band_flags,
    generated,
    read_table,
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


def _mod(name: str):
    return importlib.import_module(f"simstudy.studies.{name}")


def _runs(s) -> str:
    from .style import runs_range

    return runs_range(pd.Series(s).dropna()) or "—"


def _worst(rows: list[tuple[str, float, float, bool | None]],
           fmt: str = "{:.3f}") -> tuple[str, str]:
    """(text, key) of the largest |ours − paper| among the checks outside (strict)."""
    out = [(k, o, p) for k, o, p, inside in rows if inside is False]
    if not out:
        return "", ""
    k, o, p = max(out, key=lambda x: abs(x[1] - x[2]))
    return f"{k}: ours {fmt.format(o)}, paper {fmt.format(p)}", k


# --- Alpaydın 1999 ----------------------------------------------------------------------------

def _alpaydin(figures: Path, variants: bool) -> list[Row]:
    A = _mod("alpaydin1999")
    rows: list[Row] = []
    paper = "Alpaydın 1999"
    if not variants:
        d = figures / "numerator"
        if d.is_dir():
            t1 = read_table(d, "table1_numerator")
            dist = read_table(d, "numerator_count_distribution")
            ok = t1[t1["status"] == "ok"]
            rows.append(Row(paper, "Table 1", "numerator", f"{len(ok)} of {len(t1)}",
                            str(A._runs_of_shares(dist.drop(columns="dataset").to_numpy().ravel())),
                            "the printed row occurs in our runs (a claim below)",
                            claims=A.claims_numerator(t1, dist)))
        d = figures / "errors"
        if d.is_dir():
            rows.append(_table2_row(A, paper, "errors", read_table(d, "table2_errors")))
    for study, kind, stem, variant in (("type1", "type1", "table3_type1", None),
                                       ("type2", "type2", "table3_type2", None),
                                       ("type1-paper", "type1", "table3_type1_paper", "paper"),
                                       ("type2-paper", "type2", "table3_type2_paper", "paper")):
        if (variant is not None) != variants or not (figures / study).is_dir():
            continue
        t = read_table(figures / study, stem)
        rows.append(_t3_row(A, paper, study, kind, t, variant))
    if variants and (figures / "errors-paper").is_dir():
        rows.append(_table2_row(A, paper, "errors-paper",
                                read_table(figures / "errors-paper", "table2_errors_paper"),
                                "paper variant"))
    if variants and (figures / "odr-size").is_dir():
        t = pd.concat([read_table(figures / "odr-size", f"table3_{k}_odr")
                       for k in ("type1", "type2")])
        r = _t3_row(A, paper, "odr-size", None, t, "hypothesis: ODR of 900 cases")
        r.table = "Table 3, ODR rows"
        rows.append(r)
    return rows


def _t3_row(A, paper: str, study: str, kind: str | None, t: pd.DataFrame,
            variant: str | None) -> Row:
    ok = t[t["status"] == "ok"]
    s = h = n = 0
    checks = []
    for short in ("t", "F"):
        a, b, c = band_checks(ok[f"paper_{short}"], ok[f"ours_{short}"], ok["runs"])
        s, h, n = s + a, h + b, n + c
        flags = band_flags(ok[f"paper_{short}"], ok[f"ours_{short}"], ok["runs"], slack=0.0)
        checks += [(f"{r['dataset']} {int(r['hidden'])} {short}", r[f"ours_{short}"],
                    r[f"paper_{short}"], f) for (_, r), f in zip(ok.iterrows(), flags, strict=True)]
    gap, key = _worst(checks)
    table = A.KIND_TABLE.get(kind or "", "Table 3")
    claims = (A.claims_type1(t, converged=variant is None) if kind == "type1"
              else A.claims_type2(t) if kind == "type2" else [])
    check = "99 % Wilson band, t and F" + (f" ({variant})" if variant else "")
    return Row(paper, table, study, f"{len(ok)} of {len(t)}", _runs(ok["runs"]), check,
               s, h, n, claims, gap, key)


def _table2_row(A, paper: str, study: str, t2: pd.DataFrame, variant: str = "") -> Row:
    ok = t2[t2["status"] == "ok"]
    diff = (ok["ours_mean_pct"] - ok["paper_mean_pct"]).abs()
    within = int((diff <= 2 * ok["paper_sd_pct"]).sum())
    gap = key = ""
    out = diff[diff > 2 * ok["paper_sd_pct"]]
    if len(out):
        r = ok.loc[out.idxmax()]
        key = f"{r['dataset']} {r['model']}" + ("" if pd.isna(r["hidden"])
                                                else f"-{int(r['hidden'])}")
        gap = f"{key}: ours {r['ours_mean_pct']:.2f} %, paper {r['paper_mean_pct']:.2f} %"
    return Row(paper, "Table 2", study, f"{len(ok)} of {len(t2)} rows", "1000",
               "mean error within 2 paper sd" + (f" ({variant})" if variant else ""),
               within, within, len(ok), [], gap, key)


# --- Wang, Li & Li 2016 -------------------------------------------------------------------------

def _wang_row(study: str, table: str, t: pd.DataFrame, ids: list[str], claims: list,
              check: str = "99 % Wilson band") -> Row:
    ok = t[t["status"] == "ok"]
    s, h, n = band_checks(ok["paper"], ok["ours"], ok["runs"])
    flags = band_flags(ok["paper"], ok["ours"], ok["runs"], slack=0.0)
    checks = [(" ".join(str(r[c]) for c in ids) + f" {r['test']}", r["ours"], r["paper"], f)
              for (_, r), f in zip(ok.iterrows(), flags, strict=True)]
    gap, key = _worst(checks)
    return Row("Wang, Li & Li 2016", table, study, f"{len(ok)} of {len(t)}", _runs(ok["runs"]),
               check, s, h, n, [c for c in claims if getattr(c, "table", table) == table],
               gap, key)


def _wang(figures: Path, variants: bool) -> list[Row]:
    W = _mod("wang2016")
    rows: list[Row] = []
    if not variants:
        if (figures / "gaussian").is_dir():
            t3 = read_table(figures / "gaussian", "table3")
            rows.append(_wang_row("gaussian", "Table 3", t3, ["comparison", "case"],
                                  W.gaussian_claims(t3)))
        if (figures / "wang-real").is_dir():
            t4, t5 = (read_table(figures / "wang-real", s) for s in ("table4", "table5"))
            cl = W.real_claims(t4, t5)
            rows.append(_wang_row("wang-real", "Table 4", t4, ["block", "dataset", "hidden"], cl))
            rows.append(_wang_row("wang-real", "Table 5", t5, ["comparison", "dataset"], cl))
        return rows
    d = figures / "gaussian-paper"
    if d.is_dir():
        for name, _, _, hyp in W.GAUSS_SCENARIOS[1:]:
            t3 = read_table(d, f"table3_{W._slug(name)}")
            rows.append(_wang_row("gaussian-paper", "Table 3", t3, ["comparison", "case"],
                                  W.gaussian_claims(t3), _scenario(name, hyp)))
    d = figures / "wang-real-paper"
    if d.is_dir():
        for name, _, _, hyp in W.REAL_SCENARIOS[1:]:
            t4 = read_table(d, f"table4_{W._slug(name)}")
            t5 = read_table(d, f"table5_{W._slug(name)}")
            cl = W.real_claims(t4, t5)
            rows.append(_wang_row("wang-real-paper", "Table 4", t4,
                                  ["block", "dataset", "hidden"], cl, _scenario(name, hyp)))
            rows.append(_wang_row("wang-real-paper", "Table 5", t5, ["comparison", "dataset"],
                                  cl, _scenario(name, hyp)))
    d = figures / "wang-ab-weka-defaults"
    if d.is_dir():
        t3 = read_table(d, "table3_ab_rows")
        r = _wang_row("wang-ab-weka-defaults", "Table 3", t3, ["comparison", "case"], [],
                      "99 % Wilson band (AB = RWeka AdaBoostM1 defaults, a priori)")
        r.table = "Table 3, AB rows"
        rows.append(r)
    return rows


def _scenario(name: str, hyp: bool) -> str:
    return f"99 % Wilson band ({'hypothesis' if hyp else 'a priori'}: {name})"


# --- Yıldız & Alpaydın 2006 ---------------------------------------------------------------------

def _yildiz(figures: Path) -> list[Row]:
    d = figures / "multitest"
    if not d.is_dir():
        return []
    Y = _mod("yildiz2006")
    t1, t2, t3 = (read_table(d, s) for s in ("table1", "table2", "table3"))
    claims = Y.claims_tables(t1, t2, t3) + committed_claims(
        (d / "RESULTS.md").read_text() if (d / "RESULTS.md").is_file() else "", "claims-runs",
        Y.RUN_CLAIM_TABLES)
    paper = "Yıldız & Alpaydın 2006"
    ok1 = t1[t1["runs"] > 0]
    w = int(ok1["within"].astype(bool).sum())
    worst = ok1.loc[ok1["z"].abs().idxmax()] if len(ok1) else None
    rows = [Row(paper, "Table 1", "multitest", f"{len(ok1)} of {len(t1)}", _runs(ok1["runs"]),
                "mean error within 2 paper sd (MAX: 0.5 points)", w, w, len(ok1),
                [c for c in claims if c.table == "Table 1"],
                "" if worst is None else f"{worst['dataset']} {worst['learner']}: ours "
                f"{worst['mean']:.2f} %, paper {worst['paper_mean']:.2f} % (z {worst['z']:+.1f})",
                "" if worst is None else f"{worst['dataset']} {worst['learner']}")]
    ok2 = t2[t2["method"].isin(Y.PAPER_METHODS) & (t2["runs"] > 0)]
    same = int(ok2["same_first"].astype(bool).sum())
    nf = []
    for r in ok2.itertuples():
        o = r.first_pct if r.first == Y.NONE else (r.second_pct if r.second == Y.NONE else 0.0)
        p = (r.paper_first_pct if r.paper_first == Y.NONE else
             (r.paper_second_pct if r.paper_second == Y.NONE else 0.0))
        nf.append((abs(o - p), f"{r.dataset} {r.method}", o, p))
    g = max(nf) if nf else None
    rows.append(Row(paper, "Table 2", "multitest", f"{len(ok2)} of {len(t2[t2['method'].isin(Y.PAPER_METHODS)])}",
                    _runs(ok2["runs"]), "same most-chosen best as the paper", same, same,
                    len(ok2), [c for c in claims if c.table == "Table 2"],
                    "" if g is None else f"{g[1]}, share of runs with no best: ours {g[2]:.0f} %, "
                    f"paper {g[3]:.0f} %", "" if g is None else g[1]))
    p3 = pd.read_csv(Y.REF / "yildiz2006_table3.csv").set_index(["method", "best_algorithm"])
    t3p = t3[t3["method"].isin(Y.PAPER_METHODS)]
    paper_pct = p3.reindex(list(zip(t3p["method"], t3p["best"], strict=True)))["pct"].to_numpy()
    s, h, n = band_checks(paper_pct / 100, t3p["pct"] / 100, t3p["total"], slack=5e-5)
    flags = band_flags(paper_pct / 100, t3p["pct"] / 100, t3p["total"], slack=0.0)
    checks = [(f"{r.method} {r.best}", r.pct / 100, p / 100, f) for r, p, f in
              zip(t3p.itertuples(), paper_pct, flags, strict=True)]
    gap, key = _worst(checks)
    rows.append(Row(paper, "Table 3", "multitest", f"{len(t3p)} of 24",
                    _runs(t3p["total"]) + " (all data sets)", "99 % Wilson band", s, h, n,
                    [c for c in claims if c.table in ("Table 3", "Fig. 3", "Fig. 4")],
                    gap, key))
    return rows


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


# --- Bouckaert & Frank 2004 -----------------------------------------------------------------------

def _bouckaert(figures: Path) -> list[Row]:
    rows: list[Row] = []
    paper = "Bouckaert & Frank 2004"
    d = figures / "replicability"
    if d.is_dir():
        B = _mod("bouckaert2004.claims")
        long = read_table(d, "summary")
        claims = B.claims(long, read_table(d, "directions"), read_table(d, "table1"))
        ok = long[(long["status"] == "ok") & long["paper"].notna()]
        for table in dict.fromkeys(long["table"]):
            g = ok[ok["table"] == table]
            strict = (g["ours_min"] <= g["paper"]) & (g["paper"] <= g["ours_max"])
            half = g["paper_in_spread"].astype(bool)
            checks = [(f"{r['pair']} {r['column']} {B.MEASURE_LABEL[r['measure']]}",
                       r["ours_mean"], r["paper"], bool(s))
                      for (_, r), s in zip(g.iterrows(), strict, strict=True)]
            out = [c for c in checks if c[3] is False]
            gap = key = ""
            if out:  # relative to the measure's scale: R in [0, 1], counts out of 27
                k, o, p, _ = max(out, key=lambda c: abs(c[1] - c[2]) / (1 if "(R)" in c[0]
                                                                       else 27))
                fmt = "{:.3f}" if "(R)" in k else "{:.1f}"
                gap, key = f"{k}: our seed mean {fmt.format(o)}, paper {fmt.format(p)}", k
            seeds = int(g["seeds"].max()) if len(g) else 0
            rows.append(Row(paper, table, "replicability",
                            f"{len(g)} summary rows", _runs(g["runs"]),
                            f"inside the min–max of our {seeds} seeds", int(strict.sum()),
                            int(half.sum()), len(g),
                            [c for c in claims if getattr(c, "table", None) == table], gap, key))
    d = figures / "ban"
    if d.is_dir():
        S = _mod("bouckaert2004.ban.claims")
        long, acc = read_table(d, "table5_long"), read_table(d, "accuracy")
        ok = long[(long["status"] == "ok") & long["paper"].notna()]
        s, h, n = band_checks(ok["paper"] / 100, ok["ours"] / 100, ok["sets"])
        flags = band_flags(ok["paper"] / 100, ok["ours"] / 100, ok["sets"], slack=0.0)
        checks = [(f"{r['row']} {r['source']}", r["ours"], r["paper"], f)
                  for (_, r), f in zip(ok.iterrows(), flags, strict=True)]
        gap, key = _worst(checks, "{:.1f} %")  # percentages, as the paper prints them
        rows.append(Row(paper, "Table 5", "ban", f"{len(ok)} of 20", _runs(ok["sets"]) + " sets",
                        "99 % Wilson band on the sets", s, h, n, S.claims(long, acc), gap, key))
    return rows


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
    rows = _alpaydin(figures, variants) + _wang(figures, variants)
    if not variants:
        rows += _bouckaert(figures) + _yildiz(figures)
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
        "The same checks under the scenarios the `*-paper` studies and `odr-size` add (their "
        "RESULTS.md say which are fixed a priori and which are hypotheses read off the "
        "paper's tables).", "", _md(var)]
    return HEADER + "\n\n" + generated("fidelity", "\n".join(body)) + "\n"


def numbers_page(figures: Path | str = "figures") -> str:
    """``figures/NUMBERS.md``: sentences the README and docs may quote, each computed from
    the committed tables (so a quote can be checked against its source)."""
    figures = Path(figures)
    A = _mod("alpaydin1999")
    lines = ["# Numbers for the README and docs", "",
             "Each line is written from the committed tables named in it; quote them rather "
             "than retyping the numbers.", ""]
    d = figures / "type1-paper"
    if d.is_dir():
        for v in A.VARIANTS:
            t = read_table(d, f"table3_type1_{v}")
            ok = t[t["status"] == "ok"]
            for short, name in (("F", "combined F"), ("t", "5×2cv t")):
                strict = band_flags(ok[f"paper_{short}"], ok[f"ours_{short}"], ok["runs"],
                                    slack=0.0)
                half = band_flags(ok[f"paper_{short}"], ok[f"ours_{short}"], ok["runs"],
                                  slack=HALF_DIGIT)
                out = [f"{r['dataset']} {int(r['hidden'])}" for (_, r), f in
                       zip(ok.iterrows(), strict, strict=True) if f is False]
                lines.append(
                    f"- Alpaydın Table 3, type I, {v} variant: the paper's {name} outside our "
                    f"99 % band in {len(out)} of {len(ok)} cells ({', '.join(out) or 'none'}); "
                    f"inside {sum(bool(x) for x in strict)}/{len(ok)} strict, "
                    f"{sum(bool(x) for x in half)}/{len(ok)} half-digit "
                    f"(figures/type1-paper/table3_type1_{v}.csv).")
            le = int((ok["ours_F"] <= ok["ours_t"]).sum())
            share = ok["share_d_all_zero"]
            pos = share[share > 0]
            lines.append(
                f"- Alpaydın Table 3, type I, {v} variant: F ≤ t in {le} of {len(ok)} cells at "
                f"{_runs(ok['runs'])} runs; runs with identical MLPs (d = 0) "
                + (f"{pos.min():.3f}–{pos.max():.3f} in the {len(pos)} cells that have any"
                   if len(pos) else "none")
                + f" (figures/type1-paper/table3_type1_{v}.csv).")
    lines.append("- Intervals: the Alpaydın tables (type1, type2, their -paper variants, "
                 "odr-size) print the 99 % Wilson interval (`ci99_t`, `ci99_F`), the interval "
                 "their in-band flags test; the Wang tables print the 95 % interval "
                 "(`ci95_low`, `ci95_high`) beside the 99 % in-band flag (`paper_in_99`).")
    for study, stem, what in (("type2", "table3_type2", "Alpaydın Table 3, LP vs MLP"),
                              ("type1", "table3_type1", "Alpaydın Table 3, type I")):
        if (figures / study).is_dir():
            t = read_table(figures / study, stem)
            ok = t[t["status"] == "ok"]
            for short, name in (("t", "5×2cv t"), ("F", "combined F")):
                s, h, n = band_checks(ok[f"paper_{short}"], ok[f"ours_{short}"], ok["runs"])
                lines.append(f"- {what} (default learners), {name}: the paper inside our 99 % "
                             f"band in {s}/{n} cells strict, {h}/{n} with half a digit "
                             f"(figures/{study}/{stem}.csv).")
    d = figures / "wang-real-paper"
    if d.is_dir():
        W = _mod("wang2016")
        parts = []
        for name, _, _, hyp in W.REAL_SCENARIOS:
            for table in ("table4", "table5"):
                t = read_table(d, f"{table}_{W._slug(name)}")
                ok = t[t["status"] == "ok"]
                s, h, n = band_checks(ok["paper"], ok["ours"], ok["runs"])
                parts.append(f"{name} ({'hypothesis' if hyp else 'a priori'}), Table "
                             f"{table[-1]}: {s}/{n} strict, {h}/{n} half-digit")
        lines.append("- Wang Tables 4–5 at the paper's runs per cell, the paper inside our 99 % "
                     "band: " + "; ".join(parts) + " (figures/wang-real-paper).")
    return HEADER + "\n\n" + generated("numbers", "\n".join(lines)) + "\n"
