"""The fidelity page's rows and the numbers page's lines for Alpaydın (1999), from the
committed tables (:mod:`simstudy.report.prose_fidelity`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simstudy.report.compare import HALF_DIGIT
from simstudy.report.prose import band_checks, band_flags, read_table
from simstudy.report.prose_fidelity import Row
from simstudy.report.prose_fidelity import runs_text as _runs
from simstudy.report.prose_fidelity import worst as _worst

from .claims import KIND_TABLE, _runs_of_shares, claims_numerator, claims_type1, claims_type2
from .grid import VARIANTS


def rows(figures: Path, variants: bool) -> list[Row]:
    """The fidelity page's rows of Alpaydın (1999)'s tables (``variants``: the -paper
    studies and odr-size)."""
    rows: list[Row] = []
    paper = "Alpaydın 1999"
    if not variants:
        d = figures / "numerator"
        if d.is_dir():
            t1 = read_table(d, "table1_numerator")
            dist = read_table(d, "numerator_count_distribution")
            ok = t1[t1["status"] == "ok"]
            rows.append(Row(paper, "Table 1", "numerator", f"{len(ok)} of {len(t1)}",
                            str(_runs_of_shares(dist.drop(columns="dataset").to_numpy().ravel())),
                            "the printed row occurs in our runs (a claim below)",
                            claims=claims_numerator(t1, dist)))
        d = figures / "errors"
        if d.is_dir():
            rows.append(_table2_row(paper, "errors", read_table(d, "table2_errors")))
    for study, kind, stem, variant in (("type1", "type1", "table3_type1", None),
                                       ("type2", "type2", "table3_type2", None),
                                       ("type1-paper", "type1", "table3_type1_paper", "paper"),
                                       ("type2-paper", "type2", "table3_type2_paper", "paper")):
        if (variant is not None) != variants or not (figures / study).is_dir():
            continue
        t = read_table(figures / study, stem)
        rows.append(_t3_row(paper, study, kind, t, variant))
    if variants and (figures / "errors-paper").is_dir():
        rows.append(_table2_row(paper, "errors-paper",
                                read_table(figures / "errors-paper", "table2_errors_paper"),
                                "paper variant"))
    if variants and (figures / "odr-size").is_dir():
        t = pd.concat([read_table(figures / "odr-size", f"table3_{k}_odr")
                       for k in ("type1", "type2")])
        r = _t3_row(paper, "odr-size", None, t, "hypothesis: ODR of 900 cases")
        r.table = "Table 3, ODR rows"
        rows.append(r)
    return rows


def _t3_row(paper: str, study: str, kind: str | None, t: pd.DataFrame,
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
    table = KIND_TABLE.get(kind or "", "Table 3")
    claims = (claims_type1(t, converged=variant is None) if kind == "type1"
              else claims_type2(t) if kind == "type2" else [])
    check = "99 % Wilson band, t and F" + (f" ({variant})" if variant else "")
    return Row(paper, table, study, f"{len(ok)} of {len(t)}", _runs(ok["runs"]), check,
               s, h, n, claims, gap, key)


def _table2_row(paper: str, study: str, t2: pd.DataFrame, variant: str = "") -> Row:
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


def numbers(figures: Path) -> list[str]:
    """The numbers page's lines about Alpaydın (1999)'s tables."""
    lines: list[str] = []
    d = figures / "type1-paper"
    if d.is_dir():
        for v in VARIANTS:
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
                 "their in-band flags test.")
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
    return lines
