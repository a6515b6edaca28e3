"""Bouckaert & Frank (2004), Table 5: a study's rendering -- Table 5 in the paper's layout
and long, the accuracy row and the results page."""

from __future__ import annotations

from pathlib import Path

from simstudy.report import write_table
from simstudy.report.prose import write_page

from .grid import REPS
from .pages import page
from .tables import accuracy_table, paper_layout, table5_long


def render(result, out: Path) -> list[Path]:
    """Table 5 (paper layout and long form), the accuracy row and RESULTS.md."""
    out = Path(out)
    study = result.study
    long = table5_long(result)
    ok = long[long["status"] == "ok"]
    sets = int(ok["sets"].min()) if not ok.empty else study.runs // REPS
    acc = accuracy_table(study, sets)
    lay = paper_layout(long, acc)
    learners = " and ".join(study.cells[0].learners)
    cap = (f"Bouckaert & Frank 2004 Table 5: % of training sets whose {REPS} outcomes agree "
           f"(alpha {study.alpha}), ours (paper); accuracy row = mean exact acc(NB) - acc(C4.5) "
           f"over the same training sets, points; learners {learners}")
    paths = write_table(lay, out, "table5", caption=cap, digits=2)
    paths += write_table(long, out, "table5_long", digits=3, caption=(
        "Table 5 in long form: consistency % with Monte-Carlo SE, almost consistent %, R, "
        "mean reject rate"))
    paths += write_table(acc, out, "accuracy", digits=4, caption=(
        "Accuracy row: exact accuracy over the 512 attribute patterns, mean over training sets"))
    return paths + [write_page(out, page(out, result))]
