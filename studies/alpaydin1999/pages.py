"""Alpaydın (1999): the results pages, written from the committed tables alone
(:mod:`simstudy.report.prose` splices these sections into ``figures/<study>/RESULTS.md``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simstudy.report.prose import (
    BAND_CAPTION,
    Claim,
    Section,
    band_checks,
    band_flags,
    claims_markdown,
    fmt_list,
    read_table,
)
from simstudy.report.style import runs_range

from .calibration import odr_rows
from .claims import (
    _runs_of_shares,
    cell_name,
    claims_numerator,
    claims_type1,
    claims_type2,
    ok_rows,
)
from .grid import (
    DATASETS,
    NUMERATOR_HIDDEN,
    REF,
    SIZES,
    VARIANTS,
    odr_size_epochs,
    paper_epochs,
    paper_table3,
)

T3_CAPTION = "In band: " + BAND_CAPTION + "."
PILOT_STEM = "pilot_table3_hidden"

VARIANT_NOTE = {
    "default": "default learners: L-BFGS to convergence, L2 (alpha 0.01 LP, 1.0 MLP), tanh",
    "paper": "paper variant: online backprop, logistic hidden units, eta 0.02, no momentum, "
             "U(-0.01, 0.01) init, epochs per data set calibrated on Table 2 only",
}

ODR_SIZE_NOTE = (
    "hypothesis: the paper's ODR (\"available from the author\") had about as many cases as "
    "Table 2's sds imply, not UCI optdigits' 5620; the first N cases of optdigits, paper-variant "
    "learners with epochs calibrated again at that size on Table 2 only")


def _band_row(t: pd.DataFrame) -> dict[str, tuple[int, int, int]]:
    """Per test ('t', 'F'): (strict, half-digit, checked) in-band counts of a Table 3 half."""
    ok = ok_rows(t)
    return {s: band_checks(ok[f"paper_{s}"], ok[f"ours_{s}"], ok["runs"]) for s in ("t", "F")}


def _cells_line(t: pd.DataFrame) -> str:
    ok = ok_rows(t)
    missing = t[t["status"] != "ok"]
    why = ", ".join(f"{r.dataset} {int(r.hidden)} {r.status}" for r in missing.itertuples())
    runs = runs_range(ok["runs"]) or "0"
    return (f"Cells run: {len(ok)} of {len(t)}" + (f" ({why})" if why else "")
            + f". Runs per cell: {runs} (the paper: 1000).")


def _band_table(first: str, tables: dict[str, pd.DataFrame]) -> list[str]:
    """Markdown rows: per table, cells run, runs per cell and the in-band counts of t and F,
    strict beside half-digit (the rule: :data:`T3_CAPTION`)."""
    lines = [f"| {first} | cells run | runs per cell | 5×2cv t in 99 % band: strict | half-digit "
             "| combined F in band: strict | half-digit |", "|---|---|---|---|---|---|---|"]
    for name, t in tables.items():
        ok = ok_rows(t)
        c = _band_row(t)
        n = len(ok)
        runs = runs_range(ok["runs"]) if n else "-"
        lines.append(f"| {name} | {n} of {len(t)} | {runs} | {c['t'][0]}/{n} | {c['t'][1]}/{n} "
                     f"| {c['F'][0]}/{n} | {c['F'][1]}/{n} |")
    return lines


def _outside(t: pd.DataFrame) -> list[str]:
    """Per test, the cells whose paper value lies outside our band (strict), with the numbers;
    a cell inside only with half a digit of slack says so."""
    ok = ok_rows(t)
    lines = []
    for s, name in (("t", "5×2cv t"), ("F", "combined F")):
        strict = band_flags(ok[f"paper_{s}"], ok[f"ours_{s}"], ok["runs"], slack=0.0)
        half = band_flags(ok[f"paper_{s}"], ok[f"ours_{s}"], ok["runs"])
        out = [f"{cell_name(r)} (ours {r[f'ours_{s}']:.3f} {r[f'ci99_{s}']}, paper "
               f"{r[f'paper_{s}']:.3f}{'; inside with half a digit' if h else ''})"
               for (_, r), st, h in zip(ok.iterrows(), strict, half, strict=True) if st is False]
        lines.append(f"- {name}: {len(out)} of {len(ok)} outside"
                     + (": " + "; ".join(out) if out else ""))
    return lines


def _title(kind: str, name: str, extra: str = "") -> str:
    what = "type I error" if kind == "type1" else "LP vs MLP"
    return f"# {name}: Alpaydın (1999) Table 3, {what}{extra}"


def _claims_block(claims: list[Claim | str]) -> str:
    return claims_markdown(claims)


def page_type1(out: Path) -> list[Section]:
    """The generated sections of figures/type1/RESULTS.md, from ``table3_type1.csv``."""
    return _page_single(out, "type1", "table3_type1")


def page_type2(out: Path) -> list[Section]:
    """The generated sections of figures/type2/RESULTS.md, from ``table3_type2.csv``."""
    return _page_single(out, "type2", "table3_type2")


def _page_single(out: Path, kind: str, stem: str) -> list[Section]:
    t = read_table(out, stem)
    claims = claims_type1(t) if kind == "type1" else claims_type2(t)
    summary = [_title(kind, kind), "", _cells_line(t), "",
               "Paper's value inside our 99 % Wilson band, strict and half-digit:", "",
               *_band_table("test pair", {kind: t}),
               "", T3_CAPTION, "", "Cells outside the band (strict):", "", *_outside(t)]
    return [("summary", "\n".join(summary)),
            ("claims", "## The paper's claims\n\n" + _claims_block(claims))]


def _variant_tables(out: Path, kind: str) -> dict[str, pd.DataFrame]:
    return {v: read_table(out, f"table3_{kind}_{v}") for v in VARIANTS}


def _variants_intro(kind: str, name: str, tables: dict[str, pd.DataFrame]) -> list[str]:
    epochs = paper_epochs()
    return [_title(kind, name, ", two variants"), "",
            "Two variants of the learners, same data, designs, tests and seeds:", "",
            *[f"- **{v}**: {VARIANT_NOTE[v]}" for v in tables], "",
            "Calibrated epochs (studies/alpaydin1999/calibration.py, against Table 2 only): "
            + ", ".join(f"{k} {v}" for k, v in epochs.items()) + ".", "",
            "Paper's value inside our 99 % Wilson band, strict and half-digit:", "",
            *_band_table("variant", tables), "", T3_CAPTION]


def _page_variants(out: Path, kind: str, name: str) -> list[Section]:
    tables = _variant_tables(out, kind)
    outside = ["## Cells outside the band (strict), by variant", ""]
    claims = ["## The paper's claims under each variant", ""]
    for v, t in tables.items():
        outside += [f"### {v}", "", *_outside(t), ""]
        cl = (claims_type1(t, converged=(v == "default")) if kind == "type1"
              else claims_type2(t))
        claims += [f"### {v}", "", _claims_block(cl), ""]
    return [("variants", "\n".join(_variants_intro(kind, name, tables))),
            ("outside", "\n".join(outside)), ("claims", "\n".join(claims))]


def page_type1_paper(out: Path) -> list[Section]:
    """figures/type1-paper/RESULTS.md: both variants of Table 3 (type I)."""
    return _page_variants(out, "type1", "type1-paper")


def page_type2_paper(out: Path) -> list[Section]:
    """figures/type2-paper/RESULTS.md: both variants of Table 3 (LP vs MLP), and ODR's rows."""
    sections = _page_variants(out, "type2", "type2-paper")
    tables = _variant_tables(out, "type2")
    paper = paper_table3().set_index(["dataset", "hidden_units"])
    lines = ["| ODR | " + " | ".join(f"LP vs MLP-{h}: {s}" for h in DATASETS["ODR"][1]
                                      for s in ("5×2cv t", "combined F")) + " |",
             "|---|" + "---|" * (2 * len(DATASETS["ODR"][1]))]
    row = ["paper (Table 3)"]
    for h in DATASETS["ODR"][1]:
        row += [f"{paper.loc[('ODR', h), f'reject_LP_vs_MLP_{s}']:.3f}"
                for s in ("t5x2cv", "F5x2cv")]
    lines.append("| " + " | ".join(row) + " |")
    for v, t in tables.items():
        o = ok_rows(t)
        o = o[o["dataset"] == "ODR"].set_index("hidden")
        row = [f"{v} variant ({runs_range(o['runs']) or 0} runs)"]
        for h in DATASETS["ODR"][1]:
            row += ([f"{o.loc[h, f'ours_{s}']:.3f} {o.loc[h, f'ci99_{s}']}" for s in ("t", "F")]
                    if h in o.index else ["-", "-"])
        lines.append("| " + " | ".join(row) + " |")
    gaps = []
    t2 = pd.read_csv(REF / "alpaydin1999_table2.csv")
    pe = {(None if pd.isna(r.hidden_units) else int(r.hidden_units)): r.error_mean_pct
          for r in t2[t2["dataset"] == "ODR"].itertuples()}
    for v, t in tables.items():
        o = ok_rows(t)
        for r in o[o["dataset"] == "ODR"].itertuples():
            gaps.append(f"{v} variant, LP − MLP-{int(r.hidden)}: ours "
                        f"{100 * (r.lp_error - r.mlp_error):+.2f} points (LP "
                        f"{100 * r.lp_error:.2f} %, MLP {100 * r.mlp_error:.2f} %, z {r.z:+.2f}); "
                        f"paper {pe[None] - pe[int(r.hidden)]:+.2f} ({pe[None]:.2f} vs "
                        f"{pe[int(r.hidden)]:.2f}, Table 2)")
    odr = ["ODR's LP vs MLP cells (ours with the 99 % Wilson interval):", "", *lines, "",
           "Mean test-fold errors behind them:", "", *[f"- {g}" for g in gaps]]
    return sections + [("odr", "\n".join(odr))]


def page_numerator(out: Path) -> list[Section]:
    """figures/numerator/RESULTS.md, from ``table1_numerator.csv`` and the count distribution."""
    t1 = read_table(out, "table1_numerator")
    dist = read_table(out, "numerator_count_distribution")
    runs = _runs_of_shares(dist.drop(columns="dataset").to_numpy().ravel())
    ran = t1["P(F rejects)"].notna()
    ok = t1[ran]
    head = ["# numerator: Alpaydın (1999) Table 1", "",
            f"Data sets run: {len(ok)} of {len(t1)} ("
            + fmt_list([f"{r.dataset} {r.status if r.status != 'ok' else 'not run'}"
                        for r in t1[~ran].itertuples()])
            + f"). Runs per data set: {runs} (the count of runs the committed shares are whole "
            f"multiples of). Learners: LP vs MLP-{NUMERATOR_HIDDEN}."]
    sections = [("summary", "\n".join(head)),
                ("claims", "## The paper's claims\n\n"
                 + claims_markdown(claims_numerator(t1, dist)))]
    if (Path(out) / f"{PILOT_STEM}.csv").is_file():
        sections.append(("pilot", _pilot_md(t1, dist, read_table(out, PILOT_STEM))))
    return sections


def _share(row, dist_row, k: int, f: str) -> tuple[float, float]:
    """Shares of runs with ``k`` rejecting numerators and with F's decision ``f``."""
    pf = float(row["P(F rejects)"])
    return float(dist_row[str(k)]), pf if f == "yes" else 1 - pf


def _pilot_md(t1: pd.DataFrame, dist: pd.DataFrame, pilot: pd.DataFrame) -> str:
    """The pilot's finding: does the paper's row occur with Table 3's hidden units?"""
    lines = ["## Pilot: Table 1's rows with the hidden units the paper's Table 3 allows", "",
             "Setting (from the paper only): for each row whose F decision the paper's own "
             f"Table 3 makes unlikely (< 0.05) with our MLP-{NUMERATOR_HIDDEN}, the hidden "
             "units under which Table 3 makes that decision most likely; our reject rates are "
             "never read. Same seed as this study (`build_numerator_pilot()` in "
             "studies/alpaydin1999/__init__.py; table `pilot_table3_hidden.csv`).", ""]
    paper, ours, d = t1.set_index("dataset"), t1.set_index("dataset"), dist.set_index("dataset")
    for _, r in pilot.iterrows():
        name = r["dataset"]
        k, f = int(paper.loc[name, "t_rejects_out_of_10"]), str(paper.loc[name,
                                                                          "combined_F_rejects"])
        pk, pf = _share(r, r, k, f)
        ok, of = _share(ours.loc[name], d.loc[name], k, f)
        occurs = min(pk, pf) > 0
        lines.append(
            f"- **Finding ({'the row occurs' if occurs else 'the row still never occurs'})**: "
            f"{name}, LP vs MLP-{int(r['hidden'])}, {int(r['runs'])} runs: {k} of 10 numerators "
            f"reject in {pk:.2f} of runs and F {f} in {pf:.2f} (the paper's row: {k}, F {f}); "
            f"mean count {r['mean_t_rejects']:.2f}, some but not all numerators reject in "
            f"{r['P(some but not all numerators reject)']:.2f} of runs. With MLP-"
            f"{NUMERATOR_HIDDEN}: {ok:.2f} and {of:.2f}.")
    return "\n".join(lines)


def _table2_lines(t2: pd.DataFrame) -> list[str]:
    ok = t2[t2["status"] == "ok"]
    if ok.empty:
        return ["Rows compared: none run."]
    diff = (ok["ours_mean_pct"] - ok["paper_mean_pct"]).abs()

    def name(r) -> str:
        return f"{r.dataset} {r.model}{'' if pd.isna(r.hidden) else int(r.hidden)}"

    return [f"Rows compared: {len(ok)} of {len(t2)}; mean |ours − paper| = {diff.mean():.2f} "
            f"percentage points, max {diff.max():.2f} ({name(ok.loc[diff.idxmax()])}); "
            f"within 1.5 points: {int((diff <= 1.5).sum())}/{len(ok)}.",
            "", "Rows with |difference| > 2 sd of the paper: " + (", ".join(
                name(r) for r in ok[diff > 2 * ok["paper_sd_pct"]].itertuples()) or "none")]


def page_errors(out: Path) -> list[Section]:
    """figures/errors/RESULTS.md, from ``table2_errors.csv``."""
    t2 = read_table(out, "table2_errors")
    return [("summary", "\n".join(["# errors: Alpaydın (1999) Table 2", "", *_table2_lines(t2)]))]


def page_errors_paper(out: Path) -> list[Section]:
    """figures/errors-paper/RESULTS.md: Table 2 under both variants, ODR's rows spelled out."""
    lines = ["# errors-paper: Alpaydın (1999) Table 2, two variants", "",
             "The paper variant's epochs were chosen on these numbers (studies/"
             "alpaydin1999/calibration.py, on its own seeds and runs); this table checks the "
             "choice "
             "on the study's trials.", ""]
    for v in VARIANTS:
        t2 = read_table(out, f"table2_errors_{v}")
        odr = t2[(t2["dataset"] == "ODR") & (t2["status"] == "ok")]
        lines += [f"## {v}: {VARIANT_NOTE[v]}", "", *_table2_lines(t2), "",
                  "ODR, ours (sd) against the paper's: " + (", ".join(
                      f"{r.model}{'' if pd.isna(r.hidden) else '-' + str(int(r.hidden))} "
                      f"{r.ours_mean_pct:.2f} ({r.ours_sd_pct:.2f}) vs {r.paper_mean_pct:.2f} "
                      f"({r.paper_sd_pct:.2f})" for r in odr.itertuples()) or "not run") + ".", ""]
    return [("summary", "\n".join(lines).rstrip("\n"))]


def page_odr_size(out: Path) -> list[Section]:
    """figures/odr-size/RESULTS.md: why the hypothesis, ODR's rows of Tables 2 and 3 at the
    implied size, and (when the sibling pages' tables are there) the same rows on all 5620."""
    out = Path(out)
    sizes = read_table(out, "table2_implied_sizes")
    t2 = read_table(out, "table2_errors_odr")
    t3 = {k: read_table(out, f"table3_{k}_odr") for k in ("type1", "type2")}
    rows = odr_rows()
    ratio = sizes.dropna(subset=["sd_ratio"]).groupby("dataset", sort=False)["sd_ratio"]
    others = sizes[(sizes["dataset"] != "ODR") & sizes["sd_ratio"].notna()]["sd_ratio"]
    odr = sizes[sizes["dataset"] == "ODR"]
    head = ["# odr-size: Alpaydın (1999), a hypothesis about ODR's size", "",
            f"**{ODR_SIZE_NOTE}.** A hypothesis about the paper, not a reproduction."]
    why = ["## Why", "",
           "Table 2's sd of a learner's test-fold error is close to the binomial sd of a test "
           "half, sqrt(p(1 − p)/(N/2)), on every data set whose size is documented: paper sd / "
           f"binomial sd {others.min():.2f}–{others.max():.2f} outside ODR, but "
           f"{odr['sd_ratio'].min():.2f}–{odr['sd_ratio'].max():.2f} for ODR against UCI "
           f"optdigits' {SIZES['ODR']} cases. Inverting the relation (N = 2 p(1 − p)/sd², "
           f"table2_implied_sizes) gives {odr['n_implied'].min():.0f}–"
           f"{odr['n_implied'].max():.0f} cases for ODR's three rows; this study uses "
           f"{rows} (their mean to the hundred), the first cases of optdigits "
           f"(UCI's optdigits.tra order), and {odr_size_epochs()} epochs of online backprop "
           "(scripts/alpaydin1999_calibration.py --odr-rows: the epochs whose mean errors are "
           "closest to Table 2's ODR rows; Table 3 is never read).", "",
           "Per data set (min–max over its rows): " + ", ".join(
               f"{d} {g.min():.2f}–{g.max():.2f}" for d, g in ratio) + "."]
    ok2 = t2[t2["status"] == "ok"]
    diff = (ok2["ours_mean_pct"] - ok2["paper_mean_pct"]).abs()
    tab2 = ["## Table 2, ODR rows", "",
            *([f"- {r.model}{'' if pd.isna(r.hidden) else '-' + str(int(r.hidden))}: ours "
               f"{r.ours_mean_pct:.2f} % (sd {r.ours_sd_pct:.2f}), paper {r.paper_mean_pct:.2f} % "
               f"(sd {r.paper_sd_pct:.2f})" for r in ok2.itertuples()] or ["- not run"]),
            "", f"Means within 1.5 points of the paper: {int((diff <= 1.5).sum())}/{len(ok2)} "
            "(|Δ| " + ", ".join(f"{x:.2f}" for x in diff) + ")."]
    tab3 = ["## Table 3, ODR rows", "", *_band_table("half", t3), "", T3_CAPTION, ""]
    for kind, t in t3.items():
        for _, r in ok_rows(t).iterrows():
            tab3.append(f"- {kind} ODR {int(r['hidden'])}: t {r['ours_t']:.3f} {r['ci99_t']} "
                        f"(paper {r['paper_t']:.3f}), F {r['ours_F']:.3f} {r['ci99_F']} (paper "
                        f"{r['paper_F']:.3f})")
    paper_pct = {(0 if pd.isna(h) else int(h)): p
                 for h, p in zip(t2["hidden"], t2["paper_mean_pct"], strict=True)}
    for _, r in ok_rows(t3["type2"]).iterrows():
        h = int(r["hidden"])
        tab3.append(f"- LP − MLP-{h} mean test-fold error: ours "
                    f"{100 * (r['lp_error'] - r['mlp_error']):+.2f} points, paper "
                    f"{paper_pct[0] - paper_pct[h]:+.2f} (Table 2)")
    sections = [("summary", "\n".join(head)), ("why", "\n".join(why)),
                ("table2", "\n".join(tab2)), ("table3", "\n".join(tab3))]
    return sections + [("full-size", _odr_full_size(out, t2, t3))]


def _odr_full_size(out: Path, t2: pd.DataFrame, t3: dict[str, pd.DataFrame]) -> str:
    """ODR at the implied size beside ODR on all of optdigits (the -paper pages' tables,
    when they are beside this page)."""
    root = Path(out).parent
    cols = [("odr-size (first 900 cases)", None), ("paper variant (5620 cases)", "paper"),
            ("default (5620 cases)", "default")]
    have = {v: (root / "type2-paper" / f"table3_type2_{v}.csv").is_file()
            and (root / "errors-paper" / f"table2_errors_{v}.csv").is_file() for v in VARIANTS}
    if not all(have.values()):
        return "(the -paper pages' tables are not beside this page: no full-size comparison)"
    t3s = {None: t3["type2"]} | {v: read_table(root / "type2-paper", f"table3_type2_{v}")
                                 for v in VARIANTS}
    t2s = {None: t2} | {v: read_table(root / "errors-paper", f"table2_errors_{v}")
                        for v in VARIANTS}
    paper3 = paper_table3().set_index(["dataset", "hidden_units"])
    lines = ["| ODR | paper | " + " | ".join(c for c, _ in cols) + " |",
             "|---|---|" + "---|" * len(cols)]
    for h in DATASETS["ODR"][1]:
        for s, name in (("t", "5×2cv t"), ("F", "combined F")):
            key = "t5x2cv" if s == "t" else "F5x2cv"
            vals = []
            for _, src in cols:
                t = t3s[src]
                r = t[(t["dataset"] == "ODR") & (t["hidden"] == h) & (t["status"] == "ok")]
                vals.append(f"{r[f'ours_{s}'].iloc[0]:.3f}" if len(r) else "-")
            lines.append(f"| LP vs MLP-{h}, {name} | "
                         f"{paper3.loc[('ODR', h), f'reject_LP_vs_MLP_{key}']:.3f} | "
                         + " | ".join(vals) + " |")
    for model, h in (("LP", None), *(("MLP", h) for h in DATASETS["ODR"][1])):
        vals, pv = [], None
        for _, src in cols:
            t = t2s[src]
            r = t[(t["dataset"] == "ODR") & (t["model"] == model) & (t["status"] == "ok")
                  & ((t["hidden"].isna()) if h is None else (t["hidden"] == h))]
            vals.append(f"{r['ours_sd_pct'].iloc[0]:.2f}" if len(r) else "-")
            pv = r["paper_sd_pct"].iloc[0] if len(r) else pv
        name = model if h is None else f"MLP-{h}"
        lines.append(f"| sd of {name}'s test-fold error (%) | "
                     + ("-" if pv is None else f"{pv:.2f}") + " | " + " | ".join(vals) + " |")
    return ("ODR at the implied size beside ODR on all of optdigits (figures/type2-paper and "
            "figures/errors-paper), reject proportions and fold-error sds:\n\n" + "\n".join(lines))
