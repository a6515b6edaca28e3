"""Bouckaert & Frank (2004), Table 5: the results page, written from the committed tables
(:mod:`simstudy.report.prose`), with the cost table when the stored trials are at hand."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from simstudy.report.prose import (
    Section,
    band_checks,
    band_flags,
    claims_markdown,
    fmt_list,
    read_table,
    strict_half,
)

from .claims import claims
from .grid import ALPHA, LEARNERS, REPS, SEED, SETS, WEKA
from .tables import cost_table


def _band(long: pd.DataFrame) -> tuple[tuple[int, int, int], pd.DataFrame]:
    """In-band counts of Table 5's cells (the paper's consistency % inside our 99 % Wilson
    interval on consistent sets out of sets) and the cells outside, largest gap first."""
    ok = long[(long["status"] == "ok") & long["paper"].notna()]
    counts = band_checks(ok["paper"] / 100, ok["ours"] / 100, ok["sets"])
    strict = band_flags(ok["paper"] / 100, ok["ours"] / 100, ok["sets"], slack=0.0)
    o = ok[[s is False for s in strict]]
    o = o.assign(gap=(o["ours"] - o["paper"])).sort_values("gap", key=abs, ascending=False)
    return counts, o


def page(out: Path, result=None) -> list[Section]:
    """figures/ban/RESULTS.md from ``table5.csv``, ``table5_long.csv`` and ``accuracy.csv``.

    The cost table comes from the stored trials: with ``result`` it is written, without it
    (the committed tables alone) the committed section is kept."""
    out = Path(out)
    # the study as built, when no result says otherwise
    study = None if result is None else result.study
    long = read_table(out, "table5_long")
    acc = read_table(out, "accuracy")
    lay = pd.read_csv(out / "table5.csv", dtype=str, keep_default_na=False)
    ok = long[long["status"] == "ok"]
    sets = (int(ok["sets"].min()) if not ok.empty else
            SETS if study is None else study.runs // REPS)
    learners = tuple(LEARNERS if study is None else study.cells[0].learners)
    alpha, seed = (ALPHA, SEED) if study is None else (study.alpha, study.seed)
    (strict, half, n), o = _band(long)
    head = [
        "# ban: Bouckaert & Frank (2004) Table 5", "",
        f"Four BAN sources, {sets} training sets of 300 cases each (paper: 1000), every test "
        f"run {REPS} times per set on new partitions; learners {' and '.join(learners)} "
        f"({'Weka re-implementations' if learners == WEKA else 'STAND-INS, not the paper learners'}); "
        f"alpha {alpha}, two-sided; root seed {seed}."]
    t5 = ["## Table 5: ours (paper)", "", _md(lay), "",
          "Consistency = % of training sets on which the test's 10 decisions agree.  Monte-Carlo "
          "SE of a cell ≤ " + (f"{float(ok['mcse'].max()):.1f}" if not ok.empty else "-")
          + " points (see `table5_long.md`).", "",
          f"The paper's value inside our 99 % Wilson interval (consistent sets of {sets}), of "
          f"its {n} cells: {strict_half(strict, half, n)} (*strict*: the paper's percentage as "
          "printed, to 0.1 points; *half-digit*: within 0.05 points, half its last digit).  "
          "Outside, largest gap first: " + fmt_list(
              [f"{r.row} on {r.source} {r.ours:.1f} vs {r.paper:.1f} ({r.gap:+.1f})"
               for r in o.itertuples()]) + "."]
    accuracy = [
        "## The accuracy row: a calibration target", "",
        "Exact accuracy of each trained model under the source (all 512 attribute patterns "
        "weighted by the joint), averaged over the same training sets; the paper used a "
        "20,000-case test set and prints magnitudes.  The sources were searched to match these "
        "differences (simstudy/sources/data/PROVENANCE.md): the row checks that search on the "
        "study's training sets; it is not evidence that Table 5 is reproduced.", "",
        _md(acc, 4)]
    sections = [("summary", "\n".join(head)), ("table5", "\n".join(t5)),
                ("accuracy", "\n".join(accuracy)),
                ("claims", "## The paper's claims\n\nEach claim is checked by the rule it "
                           "states, on our numbers and on the paper's own Table 5.\n\n"
                 + claims_markdown(claims(long, acc)))]
    cost = None if result is None else "\n".join([
        "## Cost", "",
        "Worker wall seconds stored with the trials (they include numba loading in each "
        "worker's first chunk and any load from other processes on the machine):", "",
        _md(cost_table(result), 1)])
    return sections + [("cost", cost),
                       ("files", "Files: `table5.md` (paper layout), `table5_long.md`, "
                                 "`accuracy.md` (each also .csv, .tex).")]


def _md(df: pd.DataFrame, digits: int = 2) -> str:
    from simstudy.report import to_markdown

    return to_markdown(df, digits).rstrip("\n")
