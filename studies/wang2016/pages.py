"""Wang, Li & Li (2016): the results pages, written from the committed tables alone
(:mod:`simstudy.report.prose` splices these sections into ``figures/<study>/RESULTS.md``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simstudy.report.prose import (
    BAND_CAPTION,
    Section,
    band_checks,
    band_flags,
    claims_markdown,
    read_table,
    strict_half,
)
from simstudy.report.style import runs_range

from .claims import count_between, gaussian_claims, real_claims, wide
from .grid import ALPHA, GAUSS_SCENARIOS, REAL_SCENARIOS, RUNS, TESTS, TYPE2
from .tables import T4_NOTE


def _group_count(ok: pd.DataFrame, mask) -> str:
    s, h, n = band_checks(ok.loc[mask, "paper"], ok.loc[mask, "ours"], ok.loc[mask, "runs"])
    return f"{s}/{n}" + ("" if s == h else f" ({h} half-digit)")


def _band_summary(t: pd.DataFrame, by: str, ids: list[str]) -> list[str]:
    """In-band counts of one table (strict and half-digit), by group and test, and the
    largest gaps outside the band (strict)."""
    ok = t[t["status"] == "ok"]
    s, h, n = band_checks(ok["paper"], ok["ours"], ok["runs"])
    lines = [f"Paper's value inside our 99 % Wilson band, cells run: {strict_half(s, h, n)} "
             f"({len(t)} in the paper's table)."]
    for key in (by, "test"):
        parts = [f"{k} {_group_count(ok, ok[key] == k)}" for k in dict.fromkeys(ok[key])]
        lines.append(f"- by {key}: " + ", ".join(parts))
    strict = band_flags(ok["paper"], ok["ours"], ok["runs"], slack=0.0)
    out = ok[[f is False for f in strict]]
    if len(out):
        worst = out.assign(gap=(out["ours"] - out["paper"]).abs()).nlargest(5, "gap")
        lines.append("- largest gaps outside the band: " + "; ".join(
            ", ".join(f"{c} {r[c]}" for c in ids) + f", {r['test']}: ours "
            f"{r['ours']:.3f}, paper {r['paper']:.3f}" for _, r in worst.iterrows()))
    return lines


def _runs_span(*tables: pd.DataFrame) -> str:
    """Runs per cell over the tables' cells that ran: "5000", or "1000 to 5000" when they
    differ (a study run in stages, or a scenario mixing shared cells with its own); "" if
    none ran."""
    return runs_range(pd.concat([t.loc[t["status"] == "ok", "runs"] for t in tables]), " to ")


def _runs_line(t: pd.DataFrame) -> str:
    span = _runs_span(t)
    return f"Runs per cell: {span} (the paper: {RUNS})." if span else "Runs per cell: none run."


BAND_NOTE = "In band: " + BAND_CAPTION + "."

DESIGNS_NOTE = ("Each test on its own design: F5x2cv on the poor 5×2 partition, tB3x2cv on "
                "blocked 3×2 cv, FB5x2cv on balanced 5×2 cv.")


def page_gaussian(out: Path) -> list[Section]:
    """figures/gaussian/RESULTS.md from ``table3.csv``."""
    t3 = read_table(out, "table3")
    summary = ["# gaussian: Wang, Li & Li (2016) Table 3", "",
               f"{DESIGNS_NOTE}  Numbers are P(reject H0) at alpha {ALPHA}.", "",
               _runs_line(t3), *_band_summary(t3, "comparison", ["comparison", "case"]), "",
               BAND_NOTE]
    return [("summary", "\n".join(summary)),
            ("claims", "## The paper's claims (counts compare numbers at 3 dp, as printed)\n\n"
             + claims_markdown(gaussian_claims(t3))),
            ("files", "Tables: `table3.md` (long: 96 rows with CI, band check, mean test-fold "
                      "errors err_a / err_b of the two learners), `table3_paper_layout.md`; "
                      "figure: `figure_table3.png`."),
            ("pilot-case2", _pilot_case2(out, t3))]


def _pilot_case2(out: Path, t3: pd.DataFrame) -> str | None:
    """The SVM-vs-RF pilot's case 2 (``pilots/wang_svm_rf.csv`` beside ``out``) beside this
    page's cells; None (the committed text stays) where the pilot is not at hand."""
    path = Path(out).parent / "pilots" / "wang_svm_rf.csv"
    if not path.is_file():
        return None
    p = pd.read_csv(path)
    c2 = p[p["data"] == "case 2"]
    tests = list(dict.fromkeys(c2["test"]))
    by = {s: g.set_index("test") for s, g in c2.groupby("scenario")}
    ours = t3[(t3["comparison"] == "SVM vs RF") & (t3["case"] == 2)].set_index("test")

    def vals(df, col="ours"):
        return ", ".join(f"{df.loc[t, col]:.3f}" for t in tests)

    moved = max((by["current"][c] - by["R defaults"][c]).abs().max()
                for c in ("err_svm", "err_rf"))
    err = {c: (c2[c].min(), c2[c].max()) for c in ("err_svm", "err_rf")}
    return (f"{', '.join(tests)} ({int(c2['runs'].max())} runs each, "
            f"`figures/pilots/wang_svm_rf.csv`): current {vals(by['current'])} (this page at "
            f"{runs_range(ours['runs'])} runs: {vals(ours)}); R's defaults "
            f"{vals(by['R defaults'])}; paper {vals(by['current'], 'paper')}.  Mean test-fold "
            f"errors: SVM {err['err_svm'][0]:.3f}–{err['err_svm'][1]:.3f}, RF "
            f"{err['err_rf'][0]:.3f}–{err['err_rf'][1]:.3f} under both; no learner's error "
            f"moves by more than {moved:.3f}.")


def _type2_reading(t4: pd.DataFrame) -> str:
    """How many right-half paper values fit 1 − ours (the paper's 'type II' label taken literally)."""
    ok = t4[(t4["status"] == "ok") & (t4["block"] == TYPE2)]
    if ok.empty:
        return "- right half read as type II error (1 − P(reject)): no cell run."
    lit = band_checks(1.0 - ok["paper"], ok["ours"], ok["runs"])
    asis = band_checks(ok["paper"], ok["ours"], ok["runs"])
    return (f"- right half with the paper's label taken literally (paper = 1 − P(reject)): "
            f"paper inside our 99 % band: {strict_half(*lit)} (as reject probabilities: "
            f"{strict_half(*asis)}).")


T4_RIGHT_HALF = (
    "**Table 4's right half.** The paper calls it 'probabilities of type II error', but it is "
    "Alpaydın's LP vs MLP experiment, whose numbers are reject probabilities.  Ours are reject "
    "probabilities; they are compared with the paper's numbers as printed (if the paper's "
    "numbers were type II errors, 1 − ours would be the thing to compare).")


def page_real(out: Path) -> list[Section]:
    """figures/wang-real/RESULTS.md from ``table4.csv`` and ``table5.csv``."""
    t4, t5 = read_table(out, "table4"), read_table(out, "table5")
    summary = ["# wang-real: Wang, Li & Li (2016) Tables 4 and 5", "",
               f"{DESIGNS_NOTE}  All numbers are P(reject H0) at alpha {ALPHA}.", "",
               T4_RIGHT_HALF, "", BAND_NOTE]
    tab4 = ["## Table 4", "", _runs_line(t4),
            *_band_summary(t4, "block", ["block", "dataset", "hidden"]), _type2_reading(t4)]
    tab5 = ["## Table 5", "", _runs_line(t5),
            *_band_summary(t5, "comparison", ["comparison", "dataset"])]
    return [("summary", "\n".join(summary)), ("table4", "\n".join(tab4)),
            ("table5", "\n".join(tab5)),
            ("claims", "## The paper's claims (counts compare numbers at 3 dp, as printed)\n\n"
             "A 'k of n' claim counts as reproduced when our count is on the same side of n/2 "
             "as the paper's k; the paper's own tables are counted the same way.\n\n"
             + claims_markdown(real_claims(t4, t5))),
            ("files", "Tables: `table4.md`, `table5.md` (long, with CI, band check and mean "
                      "test-fold errors err_a / err_b), `table4_paper_layout.md`, "
                      "`table5_paper_layout.md`; figure: `figure_tables45.png`.")]


def _slug(name: str) -> str:
    return "".join(ch if ch.isalnum() else "_" for ch in name.lower()).strip("_").replace("__", "_")


def _by_test(t: pd.DataFrame) -> str:
    ok = t[t["status"] == "ok"]
    return ", ".join(f"{k} {_group_count(ok, ok['test'] == k)}" for k in TESTS)


def _rho_line(t: pd.DataFrame) -> str:
    ok = t[t["status"] == "ok"]
    if ok.empty or "rho1" not in ok:
        return "ρ̂1, ρ̂2: no cell run."
    g = ok.groupby(["design"], sort=False)[["rho1", "rho2"]].median()
    return ("median ρ̂1 / ρ̂2 of the differences by design: " + "; ".join(
        f"{d} {r.rho1:.2f} / {r.rho2:.2f}" for d, r in g.iterrows())
        + " (the paper's analysis assumes 0 ≤ ρ1 ≤ ρ2 < 0.5; per-cell values in the tables)")


def _between(tabs: dict[str, pd.DataFrame]) -> str:
    parts = []
    for name, t in tabs.items():
        if name == "Table 4":
            parts.append(t.assign(key=t["block"] + t["dataset"] + t["hidden"].astype(str)))
        elif name == "Table 5":
            parts.append(t.assign(key=t["comparison"] + t["dataset"]))
        else:
            parts.append(t.assign(key=t["comparison"] + t["case"].astype(str)))
    both = pd.concat(parts)
    wo = wide(both[both["status"] == "ok"], ["key"], "ours")
    return f"{count_between(wo)}/{len(wo)}" if len(wo) else "-"


def _scenario_sections(title: str, scenarios, blocks: list[tuple[str, dict]], claims_fn,
                       notes: list[str]) -> list[Section]:
    names = list(blocks[0][1])
    lines = [f"# {title}", "", *notes, "",
             "In-band counts depend on the runs (fewer runs, wider 99 % bands, more cells in "
             "band): compare scenarios with each other, and with the default study's "
             "tables, only at the same runs per cell.", "",
             "| scenario | hypothesis about the paper? | runs per cell | " + " | ".join(
                 f"{b} in 99 % band: strict | half-digit" for b in names)
             + " | tB3x2cv between F5x2cv and FB5x2cv |",
             "|---|---|---|" + "---|---|" * len(names) + "---|"]
    detail = []
    for (name, _, _, hyp), (_, tabs) in zip(scenarios, blocks, strict=True):
        cells = []
        for t in tabs.values():
            ok = t[t["status"] == "ok"]
            s, h, n = band_checks(ok["paper"], ok["ours"], ok["runs"])
            cells += [f"{s}/{n}", f"{h}/{n}"]
        lines.append(f"| {name} | {'yes' if hyp else 'no'} | {_runs_span(*tabs.values()) or '-'} | "
                     + " | ".join(cells) + f" | {_between(tabs)} |")
        detail += [f"## {name}", ""]
        detail += [f"- {b}: by test {_by_test(t)}; {_rho_line(t)}" for b, t in tabs.items()]
        detail += ["", claims_markdown(claims_fn(tabs)), ""]
    lines += ["", BAND_NOTE]
    return [("summary", "\n".join(lines)), ("scenarios", "\n".join(detail).rstrip("\n"))]


GAUSS_NOTES = [
    "Scenarios.  'default' is the `gaussian` study's cells; 'R defaults' replaces RT by rpart's "
    "pruned tree (rt[cp=0.01,minsplit=20]: the group's R code grows rpart trees; fixed a "
    "priori; SVM: e1071's radial default equals ours, γ = 1/p on scaled inputs); AB = majority "
    "class replaces AdaBoost by a training-fold majority-class learner (`max`) in the SVM vs "
    "AB and AB vs RF rows -- a HYPOTHESIS about what the paper's AB did, not AdaBoost; AB = "
    "old-default gbm is R's gbm with its old defaults (100 stumps, shrinkage 0.001, bag "
    "fraction 0.5, n.minobsinnode 10; our batched gbm, simstudy.learners.gbm), again a "
    "hypothesis, not AdaBoost; the one-sided scenarios judge tB3x2cv's |t| against "
    "t_{0.95}(5) = 2.015 (another hypothesis).  The hypotheses were found by looking at the "
    "paper's reject tables, so agreement under them is not independent evidence.  The paper "
    "gives no error rates, so no scenario is calibrated."]


REAL_NOTES = [
    "Scenarios.  'default' is the `wang-real` study's cells.  'R defaults' trains LP and MLP "
    "as R's nnet(size = h, maxit = 200) on unscaled inputs (BFGS, U(-0.7, 0.7) initial "
    "weights, no decay): the group's public R code calls it so, fixed before looking at any "
    "reject proportion (Table 5's SVM/RF/LDA stay ours: e1071's radial SVM equals ours up to "
    "the sd's ddof).  Hypotheses found by looking at the paper's reject tables: e1071's "
    "sigmoid-kernel SVM (svm[kernel=sigmoid]) and the one-sided tB3x2cv; agreement under them "
    "is not independent evidence.  Wang et al. print no error rates: nothing is calibrated.",
    "", T4_NOTE]


def page_gaussian_paper(out: Path) -> list[Section]:
    """figures/gaussian-paper/RESULTS.md from ``table3_<scenario>.csv``."""
    blocks = [(name, {"Table 3": read_table(out, f"table3_{_slug(name)}")})
              for name, *_ in GAUSS_SCENARIOS]
    return _scenario_sections("gaussian-paper: Wang, Li & Li (2016) Table 3 under scenarios",
                              GAUSS_SCENARIOS, blocks,
                              lambda tabs: gaussian_claims(tabs["Table 3"]), GAUSS_NOTES)


def page_real_paper(out: Path) -> list[Section]:
    """figures/wang-real-paper/RESULTS.md from ``table4_<scenario>.csv``, ``table5_<...>.csv``."""
    blocks = [(name, {"Table 4": read_table(out, f"table4_{_slug(name)}"),
                      "Table 5": read_table(out, f"table5_{_slug(name)}")})
              for name, *_ in REAL_SCENARIOS]
    return _scenario_sections("wang-real-paper: Wang, Li & Li (2016) Tables 4-5 under scenarios",
                              REAL_SCENARIOS, blocks,
                              lambda tabs: real_claims(tabs["Table 4"], tabs["Table 5"]),
                              REAL_NOTES)


def page_ab_weka_defaults(out: Path, intro: str | None = None) -> list[Section]:
    """figures/wang-ab-weka-defaults/RESULTS.md (examples/wang_ab_weka_defaults.py) from
    ``table3_ab_rows.csv``; ``intro`` (the example's description) None keeps the committed."""
    t3 = read_table(out, "table3_ab_rows")
    ok = t3[t3["status"] == "ok"]
    s, h, n = band_checks(ok["paper"], ok["ours"], ok["runs"])
    ab = [r.err_b if r.comparison == "SVM vs AB" else r.err_a for r in ok.itertuples()]
    other = [r.err_a if r.comparison == "SVM vs AB" else r.err_b for r in ok.itertuples()]
    lines = [_runs_line(t3), "",
             f"Paper's value inside our 99 % Wilson band: {s}/{n} cells strict, {h}/{n} "
             "half-digit.", BAND_NOTE]
    if len(ok):
        gap = max(abs(a - b) for a, b in zip(ab, other, strict=True))
        lines += [f"Our reject proportions {ok['ours'].min():.3f}–{ok['ours'].max():.3f}; the "
                  f"paper's {ok['paper'].min():.3f}–{ok['paper'].max():.3f}.",
                  f"Mean test-fold errors: AB {min(ab):.3f}–{max(ab):.3f}, at most {gap:.3f} "
                  "from SVM's or RF's."]
    return [("title", "# Wang et al. (2016) Table 3's AB rows, AB = RWeka AdaBoostM1 defaults"),
            ("intro", intro), ("counts", "\n".join(lines))]
