"""The fidelity page's rows for Bouckaert & Frank (2004), Tables 1–5, from the committed
tables (:mod:`simstudy.report.prose_fidelity`)."""

from __future__ import annotations

from pathlib import Path

from simstudy.report.prose import band_checks, band_flags, read_table
from simstudy.report.prose_fidelity import Row
from simstudy.report.prose_fidelity import runs_text as _runs
from simstudy.report.prose_fidelity import worst as _worst

from .ban.claims import claims as ban_claims
from .claims import claims as replicability_claims
from .grid import MEASURE_LABEL


def rows(figures: Path, variants: bool) -> list[Row]:
    """The fidelity page's rows of Bouckaert & Frank (2004)'s tables (no variants)."""
    rows: list[Row] = []
    if variants:
        return rows
    paper = "Bouckaert & Frank 2004"
    d = figures / "replicability"
    if d.is_dir():
        long = read_table(d, "summary")
        claims = replicability_claims(long, read_table(d, "directions"), read_table(d, "table1"))
        ok = long[(long["status"] == "ok") & long["paper"].notna()]
        for table in dict.fromkeys(long["table"]):
            g = ok[ok["table"] == table]
            strict = (g["ours_min"] <= g["paper"]) & (g["paper"] <= g["ours_max"])
            half = g["paper_in_spread"].astype(bool)
            checks = [(f"{r['pair']} {r['column']} {MEASURE_LABEL[r['measure']]}",
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
        long, acc = read_table(d, "table5_long"), read_table(d, "accuracy")
        ok = long[(long["status"] == "ok") & long["paper"].notna()]
        s, h, n = band_checks(ok["paper"] / 100, ok["ours"] / 100, ok["sets"])
        flags = band_flags(ok["paper"] / 100, ok["ours"] / 100, ok["sets"], slack=0.0)
        checks = [(f"{r['row']} {r['source']}", r["ours"], r["paper"], f)
                  for (_, r), f in zip(ok.iterrows(), flags, strict=True)]
        gap, key = _worst(checks, "{:.1f} %")  # percentages, as the paper prints them
        rows.append(Row(paper, "Table 5", "ban", f"{len(ok)} of 20", _runs(ok["sets"]) + " sets",
                        "99 % Wilson band on the sets", s, h, n, ban_claims(long, acc), gap, key))
    return rows
