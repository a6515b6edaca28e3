"""``demo``: a tiny study for trying the tool and for the test suite.

Iris and wine, three learner pairs of fast deterministic learners, random 5x2 cv, the
5x2cv t test and the combined 5x2cv F test.  20 runs per cell by default.
"""

from __future__ import annotations

from pathlib import Path

from simstudy.catalog import register_study
from simstudy.study import Study, cells

DESCRIPTION = "tiny built-in study: iris and wine, 3 learner pairs, 5x2cv t and combined F"


def render(result, out: Path) -> list[Path]:
    from simstudy.report import write_table

    cols = ["cell", "test", "rejects", "runs", "proportion", "ci_low", "ci_high", "mcse"]
    return write_table(result.table[cols], out, "demo", caption="demo study reject proportions")


@register_study("demo",
                description="tiny: iris and wine, 3 learner pairs, 5x2cv t and combined F (seconds)")
def build() -> Study:
    grid = cells(
        sources=["iris", "wine"],
        learners=[("nmc", "1nn"), ("lda", "nmc"), ("max", "nmc")],
        designs=["5x2"],
        tests=["t5x2cv", "F5x2cv"],
    )
    return Study("demo", grid, runs=20, seed=0, alpha=0.05, chunk=10,
                 description=DESCRIPTION, render=render)
