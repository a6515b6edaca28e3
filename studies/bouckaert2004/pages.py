"""Bouckaert & Frank (2004), Tables 1-4: the results page, written from the committed
tables (:mod:`simstudy.report.prose`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from simstudy.report.prose import Section, claims_markdown, read_table

from .claims import claims, strat_claims
from .grid import LEARNERS, RUNS, WEKA


def _learners_line(learners: Sequence[str]) -> str:
    if tuple(learners) == WEKA:
        return ("Learners: `wnb`, `j48`, `ib1` (our re-implementations of Weka's NaiveBayes, "
                "J48 and IB1 with default settings; the paper used Weka 3.3).")
    return (f"Learners: `{'`, `'.join(learners)}` — STAND-INS for Weka's NaiveBayes, J48, IB1; "
            "these numbers are not the paper's learners and are not a reproduction.")


def _seed_text(out: Path) -> str:
    """The seeds line the render wrote into ``summary.tex``'s caption."""
    tex = Path(out) / "summary.tex"
    m = re.search(r"(root seed\(s\) [^;]*; 'ours' is seed \d+, \[min–max\] over the seeds|"
                  r"nothing run)", tex.read_text() if tex.is_file() else "")
    return m.group(1) if m else "seeds not recorded"


def _seeds_caption(seeds: list[int]) -> str:
    return (f"root seed(s) {', '.join(str(s) for s in seeds)}; 'ours' is seed {seeds[0]}, "
            "[min–max] over the seeds" if seeds else "nothing run")


def _str_table(out: Path, stem: str) -> pd.DataFrame:
    return pd.read_csv(Path(out) / f"{stem}.csv", dtype=str, keep_default_na=False)


LAYOUTS = (("Table 1", "table1_summary", "Table 1 summary rows (5×2 cv t)"),
           ("Table 2", "table2", "Table 2: corrected resampled t, 90/10 splits, by runs"),
           ("Table 3", "table3", "Table 3: corrected r×10 cv t, by r"),
           ("Table 4", "table4", "Table 4: corrected 10×10 cv t, by alpha"),
           ("§4.3", "text43", "§4.3: standard t on 1×10 cv; uncorrected t on 10×10 cv (the "
                              "paper gives only 'consistent')"))


STRAT_LAYOUTS = (("Table 2", "table2", "Table 2: corrected resampled t, unstratified 90/10 "
                                       "splits, by runs"),
                 ("stratified", "table2_stratified", "The same on stratified 90/10 splits "
                                                     "(§4.3)"))


READING = [
    "## Reading the numbers", "",
    "- Every count is a random variable: on a data set where a test rejects with "
    "probability p, the number of rejections in 10 repetitions is Binomial(10, p), so a set "
    "with p = 0.3 is consistent only with probability 0.7^10 + 0.3^10 = 2.8 %.  The summary "
    "rows move by a few sets between root seeds (the [min–max] columns); the paper's "
    "numbers are one such draw, made with Weka 3.3's own random partitions.",
    "- Were the paper's value one more draw from our distribution, it would lie inside the "
    "range of s seeds with probability (s − 1)/(s + 1) (0.5 for 3 seeds; more with tied "
    "counts).  A difference is a finding only when it is systematic (same sign across "
    "rows and tables) or far outside the spread.",
    "- Systematic differences can come from the learners (our re-implementations of Weka "
    "3.6.14's NaiveBayes, J48 and IB1, checked against Weka 3.6.14's predictions, while "
    "the paper ran Weka 3.3, whose differences from 3.6 we have not checked), from the data "
    "versions (see the module docstring: vowel with 13 attributes, horse-colic's class, "
    "...) and from choices the paper leaves open (df n − 1 for the resampled t; "
    "independent partitions per column; an undefined t accepts).",
    "- Counts 'out of 27' are only comparable with the paper when all 27 sets ran "
    "(the 'datasets' column of `summary.csv`)."]


def page(out: Path, strat: bool | None = None,
         learners: Sequence[str] = LEARNERS) -> list[Section]:
    """figures/replicability/RESULTS.md from ``summary.csv``, the layout tables, ``table1.csv``,
    ``directions.csv`` and the cost tables (``strat``: the replicability-strat page)."""
    out = Path(out)
    long = read_table(out, "summary")
    strat = bool((long["table"] == "stratified").any()) if strat is None else strat
    ok = long[long["status"] == "ok"]
    runs = int(ok["runs"].max()) if len(ok) else 0
    name = "replicability-strat" if strat else "replicability"
    head = [f"# {name}: Bouckaert & Frank (2004) "
            + ("stratified resampling (§4.3)" if strat else "Tables 1–4 and §4.3"), "",
            _learners_line(learners), "",
            f"Runs (repetitions, each a new random partition) per data set and design: {runs} "
            f"(the paper: {RUNS}); {_seed_text(out)}.  Two-sided tests; decisions recomputed "
            "from the stored p-values at each table's alpha; an undefined statistic accepts."]
    body: list[str] = []
    if strat:
        for _, stem, cap in STRAT_LAYOUTS:
            body += [f"## {cap}", "", "Entries: ours [min–max over seeds] (paper's Table 2).", "",
                     _md(_str_table(out, stem)), ""]
        cl = strat_claims(long)
    else:
        body += ["## Table 1 (5×2 cv t): draws out of the runs, per data set", "",
                 _md(_str_table(out, "table1")), ""]
        for _, stem, cap in LAYOUTS:
            body += [f"## {cap}", "", "Entries: ours [min–max over seeds] (paper).", "",
                     _md(_str_table(out, stem)), ""]
        dirs = read_table(out, "directions")
        cl = claims(long, dirs, read_table(out, "table1"))
    sections = [("summary", "\n".join(head)), ("tables", "\n".join(body).rstrip("\n")),
                ("claims", "## The paper's claims\n\nEach claim is checked by the rule it "
                           "states, on our numbers and on the paper's own tables.\n\n"
                 + claims_markdown(cl)),
                ("reading", "\n".join(READING))]
    if (out / "cost.csv").is_file() and (out / "cost_datasets.csv").is_file():
        cost, cost_sets = read_table(out, "cost"), read_table(out, "cost_datasets")
        top = cost_sets.head(5)
        sections.append(("cost", "\n".join([
            "## Where the time goes", "",
            f"{cost['seconds'].sum():.1f} s summed over workers and seeds (each trial's share "
            "of its work unit's wall time: on a loaded machine this includes waiting for the "
            f"CPU).  The five dearest data sets take {100 * top['share'].sum():.0f} %: "
            + ", ".join(f"{r['dataset']} {100 * r['share']:.0f} %" for _, r in top.iterrows())
            + " (`cost_datasets.md`).  By design:", "", _md(cost).rstrip("\n")])))
    if (out / "domains_moved.csv").is_file():
        sections.append(("moved", _moved_text(read_table(out, "domains_moved"))))
    sections.append(("files", "Files: `summary.*` (every row long: paper, ours, min/max/mean "
                     "over seeds, per seed, paper inside the spread), "
                     + ("`table2.*`, `table2_stratified.*`" if strat else
                        "`table1.*`, `table1_summary.*`, `table2.*`, `table3.*`, `table4.*`, "
                        "`text43.*`, `directions.*`, `outside.*`, `figure_R.png/pdf`"
                        + (", `domains_moved.csv`" if (out / "domains_moved.csv").is_file()
                           else ""))
                     + ", `cost.*`, `cost_datasets.*`."))
    return sections


def _moved_text(mv: pd.DataFrame) -> str:
    """What reading the sets over their ARFF's declared domains moved (``domains_moved.csv``,
    written by ``scripts/replicability_moved.py`` from the tables before and after)."""
    s, t = mv[mv["kind"] == "summary"], mv[mv["kind"] == "table1"]
    ch = s[s["changed"]]
    d = (ch["ours_after"] - ch["ours_before"]).abs()
    lines = [
        "## What reading the sets as Weka reads them moved", "",
        "Every table here was recomputed, all three root seeds, with each set read over the "
        "declared nominal domains (unused values included) and class order of the ARFF file "
        "Weka runs on (`[domains=declared]`; `simstudy/sources/data/PROVENANCE.md` says per "
        "set what that changes), instead of the values the bundled CSV holds, sorted.  "
        f"Against the tables before: {int(s['changed'].sum())} of {len(s)} summary entries "
        f"changed on the first seed ({int(s['changed_any'].sum())} on some seed), and "
        f"{int(t['changed'].sum())} of {len(t)} Table 1 draw counts ({int(t['changed_any'].sum())} "
        "on some seed)"
        + (f"; the largest move of a summary entry is {d.max():g}." if len(d) else ".")]
    if len(ch):
        show = ch[["table", "column", "pair", "measure", "paper", "ours_before", "ours_after",
                   "seeds_before", "seeds_after"]].rename(columns={
                       "ours_before": "before", "ours_after": "after",
                       "seeds_before": "seeds before", "seeds_after": "seeds after"})
        lines += ["", "Summary entries that changed on the first seed (`domains_moved.csv` "
                  "holds every entry and the Table 1 counts):", "", _md(show).rstrip("\n")]
    return "\n".join(lines)


def _md(df: pd.DataFrame) -> str:
    from simstudy.report import to_markdown

    return to_markdown(df) if len(df) else "(nothing run)\n"
