"""The fidelity page's rows and the numbers page's lines for Wang, Li & Li (2016), from the
committed tables (:mod:`simstudy.report.prose_fidelity`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simstudy.report.prose import band_checks, band_flags, read_table
from simstudy.report.prose_fidelity import Row
from simstudy.report.prose_fidelity import runs_text as _runs
from simstudy.report.prose_fidelity import worst as _worst

from .claims import gaussian_claims, real_claims
from .grid import GAUSS_SCENARIOS, REAL_SCENARIOS
from .pages import _slug


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


def rows(figures: Path, variants: bool) -> list[Row]:
    """The fidelity page's rows of Wang, Li & Li (2016)'s tables (``variants``: the
    -paper studies and the AB-rows pilot)."""
    rows: list[Row] = []
    if not variants:
        if (figures / "gaussian").is_dir():
            t3 = read_table(figures / "gaussian", "table3")
            rows.append(_wang_row("gaussian", "Table 3", t3, ["comparison", "case"],
                                  gaussian_claims(t3)))
        if (figures / "wang-real").is_dir():
            t4, t5 = (read_table(figures / "wang-real", s) for s in ("table4", "table5"))
            cl = real_claims(t4, t5)
            rows.append(_wang_row("wang-real", "Table 4", t4, ["block", "dataset", "hidden"], cl))
            rows.append(_wang_row("wang-real", "Table 5", t5, ["comparison", "dataset"], cl))
        return rows
    d = figures / "gaussian-paper"
    if d.is_dir():
        for name, _, _, hyp in GAUSS_SCENARIOS[1:]:
            t3 = read_table(d, f"table3_{_slug(name)}")
            rows.append(_wang_row("gaussian-paper", "Table 3", t3, ["comparison", "case"],
                                  gaussian_claims(t3), _scenario(name, hyp)))
    d = figures / "wang-real-paper"
    if d.is_dir():
        for name, _, _, hyp in REAL_SCENARIOS[1:]:
            t4 = read_table(d, f"table4_{_slug(name)}")
            t5 = read_table(d, f"table5_{_slug(name)}")
            cl = real_claims(t4, t5)
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


def numbers(figures: Path) -> list[str]:
    """The numbers page's lines about Wang, Li & Li (2016)'s tables."""
    lines = ["- Intervals: the Wang tables print the 95 % interval (`ci95_low`, `ci95_high`) "
             "beside the 99 % in-band flag (`paper_in_99`)."]
    d = figures / "wang-real-paper"
    if d.is_dir():
        parts = []
        for name, _, _, hyp in REAL_SCENARIOS:
            for table in ("table4", "table5"):
                t = read_table(d, f"{table}_{_slug(name)}")
                ok = t[t["status"] == "ok"]
                s, h, n = band_checks(ok["paper"], ok["ours"], ok["runs"])
                parts.append(f"{name} ({'hypothesis' if hyp else 'a priori'}), Table "
                             f"{table[-1]}: {s}/{n} strict, {h}/{n} half-digit")
        lines.append("- Wang Tables 4–5 at the paper's runs per cell, the paper inside our 99 % "
                     "band: " + "; ".join(parts) + " (figures/wang-real-paper).")
    return lines
