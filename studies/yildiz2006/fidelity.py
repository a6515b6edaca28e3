"""The fidelity page's rows for Yıldız & Alpaydın (2006), from the committed tables
(:mod:`simstudy.report.prose_fidelity`)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simstudy.report.prose import band_checks, band_flags, read_table
from simstudy.report.prose_fidelity import Row, committed_claims
from simstudy.report.prose_fidelity import runs_text as _runs
from simstudy.report.prose_fidelity import worst as _worst

from .claims import RUN_CLAIM_TABLES, claims_tables
from .grid import NONE, PAPER_METHODS, REF


def rows(figures: Path, variants: bool) -> list[Row]:
    """The fidelity page's rows of Yıldız & Alpaydın (2006)'s tables (no variants)."""
    d = figures / "multitest"
    if variants or not d.is_dir():
        return []
    t1, t2, t3 = (read_table(d, s) for s in ("table1", "table2", "table3"))
    claims = claims_tables(t1, t2, t3) + committed_claims(
        (d / "RESULTS.md").read_text() if (d / "RESULTS.md").is_file() else "", "claims-runs",
        RUN_CLAIM_TABLES)
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
    ok2 = t2[t2["method"].isin(PAPER_METHODS) & (t2["runs"] > 0)]
    same = int(ok2["same_first"].astype(bool).sum())
    nf = []
    for r in ok2.itertuples():
        o = r.first_pct if r.first == NONE else (r.second_pct if r.second == NONE else 0.0)
        p = (r.paper_first_pct if r.paper_first == NONE else
             (r.paper_second_pct if r.paper_second == NONE else 0.0))
        nf.append((abs(o - p), f"{r.dataset} {r.method}", o, p))
    g = max(nf) if nf else None
    rows.append(Row(paper, "Table 2", "multitest", f"{len(ok2)} of {len(t2[t2['method'].isin(PAPER_METHODS)])}",
                    _runs(ok2["runs"]), "same most-chosen best as the paper", same, same,
                    len(ok2), [c for c in claims if c.table == "Table 2"],
                    "" if g is None else f"{g[1]}, share of runs with no best: ours {g[2]:.0f} %, "
                    f"paper {g[3]:.0f} %", "" if g is None else g[1]))
    p3 = pd.read_csv(REF / "yildiz2006_table3.csv").set_index(["method", "best_algorithm"])
    t3p = t3[t3["method"].isin(PAPER_METHODS)]
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
