"""Pilot: Wang, Li & Li (2016) SVM vs RF under R's documented defaults and the paper's sampling.

The gaps: Table 3 case 2 (F5x2cv ours 0.099 at 5000 runs, paper 0.433) and Table 5 Thyroid
gland and Balance (tB3x2cv ours 0.005 and 0.990, paper 0.986 and 0.060).  Every setting
below is fixed before any reject rate of this pilot is seen, from what the paper, its
authors' code or the R packages' documentation say:

* ``current``: the studies' learners, ``svm`` (libsvm RBF, C 1, gamma 'scale', inputs
  standardised with the ddof-0 sd) and ``rf`` (scikit-learn's forest: 100 trees,
  ``max_features = floor(sqrt(p))``, fully grown, bootstrap, mean of the trees' leaf
  proportions).
* ``R defaults``: ``e1071::svm`` with every default (radial, ``scale = TRUE``: R's
  ``scale()`` with the training mean and the ddof-1 sd, gamma = 1/p with p the number of
  input columns, cost 1, tolerance 0.001) = ``svm[gamma=auto,scale=e1071]``, and
  ``randomForest`` with its defaults for classification (ntree 500, mtry floor(sqrt(p)),
  nodesize 1, bootstrap samples of size n, majority vote) = ``rf[n_estimators=500]``.  A
  majority vote equals the mean of leaf proportions when every leaf is pure: nodesize 1
  grows each tree until its leaves are pure unless two training rows share their inputs
  but not their class, which no row of the three data does (checked below); exact vote
  ties (randomForest breaks them at random, ours go to the first class) are counted below.
* ``... + sampled with replacement`` (Tables 4-5 only): each run draws n cases with
  replacement from the data set (n = its size) and partitions that sample.  The paper's
  §3.1 says "the replicated experiments are drawn by independent sampling with
  replacement"; the group's public R code (HaojieTing/RegularizedCrossValidation,
  ``R/datasets/data_loader.R``: ``ResampleObservantsFromPopulationWithAdvancement``,
  ``sample.replace <- TRUE`` unless configured) draws a real data set's replications so.
  That code is later than the paper (2017), so this is a reading, not the paper's code.

Each test runs on its own design as in the studies (F5x2cv on poor5x2, tB3x2cv on b3x2,
FB5x2cv on b5x2), root seed 2016: the ``current`` cells are the committed studies' cells,
so their runs are the first runs of the committed tables.  Case 2 runs all three tests;
Thyroid gland and Balance run tB3x2cv only (the gaps named above; every test of Table 5's
SVM vs RF row is as far from the paper there, and b3x2 fits 6 models per run where poor5x2
and b5x2 fit 10: CPU is scarce).

    python scripts/pilots/wang_svm_rf.py --runs 500 --jobs 1

writes ``figures/pilots/wang_svm_rf.csv`` and ``.md`` (the store goes to ``--store``,
default ``/tmp/pilots/wang_svm_rf.sqlite``; a rerun reuses its trials).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from _pilot import ROOT, commit, parser, write_md

from simstudy.cli import guarded
from simstudy.errors import SimstudyError
from simstudy.report.compare import in_band
from simstudy.report.tables import to_markdown
from simstudy.sources import SOURCES, get_source
from simstudy.sources.base import Source
from simstudy.study import Cell, Study

NAME = "wang_svm_rf"
SEED = 2016  # the Wang studies' root seed
REF = ROOT / "studies" / "reference"
TEST_DESIGN = (("F5x2cv", "poor5x2"), ("tB3x2cv", "b3x2"), ("FB5x2cv", "b5x2"))
LEARNERS = {
    "current": ("svm", "rf"),
    "R defaults": ("svm[gamma=auto,scale=e1071]", "rf[n_estimators=500]"),
}
REAL = {"Thyroid gland": "new-thyroid", "Balance": "balance-scale"}
CASE = 2


class WithReplacement(Source):
    """A bundled data set's n cases drawn with replacement, a fresh draw per run."""

    fixed = False

    def __init__(self, of: str) -> None:
        self.base = get_source(of)
        if not self.base.fixed:
            raise SimstudyError(f"boot: {of!r} is not a fixed data set")
        self.name = f"boot[of={of}]"
        self.content_hash = getattr(self.base, "content_hash", None)

    def sample(self, rng: np.random.Generator):
        d = self.base.sample(None)
        idx = rng.integers(0, d.n, d.n)
        return dataclasses.replace(d, name=self.name, X=d.X[idx], y=d.y[idx])


def _boot(spec: str, params: dict[str, str]) -> WithReplacement:
    """n cases of a bundled data set drawn with replacement: boot[of=NAME]"""
    SOURCES.check_params(spec, params, {"of"})
    if "of" not in params:
        raise SimstudyError(f"source {spec!r}: give the data set, boot[of=NAME]")
    return WithReplacement(params["of"])


def register_source() -> None:
    if "boot" not in SOURCES:
        SOURCES.register("boot", _boot)


def cells() -> list[Cell]:
    out = []
    for scen, pair in LEARNERS.items():
        for test, design in TEST_DESIGN:
            out.append(Cell(f"wang-case{CASE}", pair, design, (test,),
                            (("table", "Table 3"), ("data", f"case {CASE}"),
                             ("scenario", scen))))
        for name, src in REAL.items():
            for sampling, s in (("", src), (" + sampled with replacement", f"boot[of={src}]")):
                for test, design in TEST_DESIGN[1:2]:  # tB3x2cv on b3x2
                    out.append(Cell(s, pair, design, (test,),
                                    (("table", "Table 5"), ("data", name),
                                     ("scenario", scen + sampling))))
    return out


def paper_values() -> dict[tuple[str, str, str], float]:
    t3 = pd.read_csv(REF / "wang2016_table3.csv")
    t5 = pd.read_csv(REF / "wang2016_table5.csv")
    out = {("Table 3", f"case {r.case}", r.test): float(r.reject_prob)
           for r in t3[(t3["comparison"] == "SVM vs RF")].itertuples()}
    out.update({("Table 5", r.dataset, r.test): float(r.reject_prob)
                for r in t5[(t5["comparison"] == "SVM vs RF")].itertuples()})
    return out


def data_checks() -> pd.DataFrame:
    """Per data set: rows sharing inputs but not class (impure leaves), and the share of
    test rows whose 500-tree vote is an exact tie (20 random halves, scikit-learn's forest)."""
    from sklearn.ensemble import RandomForestClassifier

    rows = []
    rng = np.random.default_rng(0)
    for label, spec in [(f"case {CASE}", f"wang-case{CASE}"), *REAL.items()]:
        src = get_source(spec)
        ties = total = 0
        conflicts = 0
        for b in range(20):
            d = src.sample(rng)
            if b == 0:
                _, inv = np.unique(d.X, axis=0, return_inverse=True)
                inv = inv.ravel()
                conflicts = int(sum(np.unique(d.y[inv == k]).size > 1 for k in np.unique(inv)))
            tr = np.zeros(d.n, bool)
            tr[rng.permutation(d.n)[: d.n // 2]] = True
            f = RandomForestClassifier(n_estimators=500, random_state=b).fit(d.X[tr], d.y[tr])
            votes = np.stack([t.predict(d.X[~tr]) for t in f.estimators_]).astype(int)
            counts = np.stack([np.bincount(v, minlength=d.n_classes) for v in votes.T])
            top = np.sort(counts, axis=1)
            ties += int((top[:, -1] == top[:, -2]).sum())
            total += int((~tr).sum())
        rows.append({"data": label, "input_duplicates_with_different_class": conflicts,
                     "vote_ties_per_1000_test_rows": round(1000 * ties / total, 2)})
    return pd.DataFrame(rows)


def summarise(result) -> pd.DataFrame:
    t = result.table
    me = result.mean_errors().pivot(index="cell", columns="learner", values="error_mean")
    paper = paper_values()
    rows = []
    for r in t.itertuples():
        p = paper.get((r.table, r.data, r.test), np.nan)
        rows.append({"table": r.table, "data": r.data, "scenario": r.scenario, "test": r.test,
                     "learners": str(r.cell).split("/")[1], "runs": int(r.runs),
                     "rejects": int(r.rejects), "ours": round(float(r.proportion), 4),
                     "ci95_low": round(float(r.ci_low), 4),
                     "ci95_high": round(float(r.ci_high), 4), "paper": p,
                     "paper_in_99_strict": in_band(p, int(r.rejects), int(r.runs), slack=0.0),
                     "err_svm": round(float(me.loc[r.cell, 0]), 4),
                     "err_rf": round(float(me.loc[r.cell, 1]), 4)})
    order = {c.id: i for i, c in enumerate(cells())}
    df = pd.DataFrame(rows)
    df["_o"] = [order.get(c, 0) for c in t["cell"]]
    return df.sort_values("_o").drop(columns="_o").reset_index(drop=True)


def main(argv: list[str] | None = None) -> int:
    ap = parser("wang_svm_rf.py", __doc__, runs=500)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--store", default="/tmp/pilots/wang_svm_rf.sqlite")
    a = ap.parse_args(argv)
    if a.jobs != 1:
        # the boot[...] source is registered in this process only
        raise SimstudyError(f"--jobs must be 1 (the pilot's source lives in this process), "
                            f"got {a.jobs!r}")
    import simstudy as ss

    register_source()
    Path(a.store).parent.mkdir(parents=True, exist_ok=True)
    study = Study("pilot-wang-svm-rf", cells(), runs=a.runs, seed=SEED, chunk=25,
                  description="Wang 2016 SVM vs RF: current, R defaults, with-replacement "
                              "sampling (pilot)")
    r = ss.run(study, store=a.store, jobs=1, backend="serial", progress=sys.stderr.isatty())
    df = summarise(r.result)
    checks = data_checks()
    a.out.mkdir(parents=True, exist_ok=True)
    df.to_csv(a.out / f"{NAME}.csv", index=False)
    checks.to_csv(a.out / f"{NAME}_checks.csv", index=False)
    head = ["# Pilot: Wang, Li & Li (2016) SVM vs RF, current settings and R's documented "
            "defaults", "",
            f"Written by `python scripts/pilots/{NAME}.py --runs {a.runs} --jobs 1` at commit "
            f"{commit()}; {a.runs} runs per cell, root seed {SEED}; P(reject H0) at alpha "
            "0.05 with the Wilson 95 % interval; *paper_in_99_strict*: the paper's value "
            "inside our 99 % Wilson interval.  err_svm / err_rf: mean test-fold errors.  "
            "Settings and their sources: the script's docstring.", "",
            to_markdown(df, 4), "",
            "Majority vote against mean leaf proportions (R defaults' RF): rows sharing "
            "inputs but not class, and exact 500-tree vote ties per 1000 test rows (20 "
            "random halves each).", "", to_markdown(checks, 2)]
    write_md(a.out, NAME, head)
    return 0


if __name__ == "__main__":
    raise SystemExit(guarded(main))
