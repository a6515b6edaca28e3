"""Why NMC and 1-NN miss Yıldız & Alpaydın (2006) Table 1 on nominal data: an encoding check.

The study ``multitest`` z-scores every input column on the training half, one-hot indicator
columns included (so a rare nominal value weighs more).  The paper says only that LGC uses
"1-of-n encoding" (§4.1).  This check runs NMC and 1-NN on the same random 5×2 halves under
three input encodings and prints them beside the paper's Table 1:

* ``z-all``   the study's inputs: every column z-scored (per training half);
* ``hamming`` numeric columns z-scored, 1-of-n indicators left 0/1 (squared Euclidean
  distance on them = 2 × the number of differing nominal attributes);
* ``codes``   each nominal attribute as one integer code (order of first appearance in the
  file), z-scored like a numeric column;

and, for balance (four integer attributes 1..5), ``hamming`` treats them as nominal (1-of-5
each); for balance LGC is checked too (a linear model on 1-of-5 inputs can represent the
balance rule a1·a2 vs a3·a4, which is additive in per-attribute terms).

It is a check, not part of the study: ``hamming`` z-scores the numeric columns with
whole-data statistics and runs the learners with ``scale=none`` (per-fold statistics would
differ in the third decimal).  ``scripts/yildiz2006_encodings.py`` runs it and writes the
Markdown table the study's page reads (``figures/multitest/table1_encoding_check.md``)::

    python scripts/yildiz2006_encodings.py --runs 10 [--sets car,nursery] [--out FILE.md]
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simstudy.core import Dataset
from simstudy.designs import get_design
from simstudy.learners import get_learner
from simstudy.seeding import MODEL, trial_seed
from simstudy.sources import get_source
from simstudy.sources.bundled import DATA_DIR

from .grid import DATASETS, NAMES, REF


def _codes(name: str, src: str, base: Dataset) -> np.ndarray:
    """Each nominal attribute as one integer code; numeric columns as they are."""
    df = pd.read_csv(DATA_DIR / f"{src.split('[')[0]}.csv.gz", dtype=str, keep_default_na=False)
    cols = [c for c in df.columns if c != "class"]
    X = np.empty((len(df), len(cols)))
    for j, c in enumerate(cols):
        v = df[c].to_numpy()
        try:
            X[:, j] = [np.nan if s in ("", "?") else float(s) for s in v]
            continue
        except ValueError:
            pass
        lev = list(dict.fromkeys(s for s in v if s not in ("", "?")))
        X[:, j] = [np.nan if s in ("", "?") else lev.index(s) for s in v]
    return X


def _zscore(X: np.ndarray, cols: list[int]) -> np.ndarray:
    X = X.copy()
    if cols:
        m, s = np.nanmean(X[:, cols], 0), np.nanstd(X[:, cols], 0)
        s[s == 0] = 1.0
        X[:, cols] = (X[:, cols] - m) / s
    return X


def check(runs: int, sets: list[str]) -> pd.DataFrame:
    """NMC and 1-NN (and LGC on balance) on ``runs`` × 5×2 cv halves of each data set of
    ``sets`` under each encoding, beside the paper's Table 1 (mean fold error, %)."""
    des = get_design("5x2")
    paper = pd.read_csv(REF / "yildiz2006_table1.csv").replace({"Z00": "zoo"})
    rows = []
    for name in sets:
        src = DATASETS[name]
        base = get_source(src).sample(None)
        nom = sorted({c for g in base.nominal_groups for c in g})
        num = [j for j in range(base.X.shape[1]) if j not in nom]
        variants = {"z-all": (base.X, "")}
        if name == "balance":  # integer attributes 1..5 read as nominal: 1-of-5, 0/1
            oh = pd.get_dummies(pd.DataFrame(base.X).astype(int).astype(str)).to_numpy(float)
            variants["hamming"] = (oh, "[scale=none]")
        elif nom:
            variants["hamming"] = (_zscore(base.X, num), "[scale=none]")
            variants["codes"] = (_codes(name, src, base), "")
        if len(variants) == 1:
            continue
        rng = np.random.default_rng(2006)
        tr = np.concatenate([des.masks(base.y, rng).reshape(10, -1) for _ in range(runs)])
        learners = [(1, "nmc"), (4, "1nn")] + ([(2, "lgc")] if name == "balance" else [])
        for k, ln in learners:
            p = paper[(paper["dataset"] == name) & (paper["algorithm"] == NAMES[k])].iloc[0]
            seeds = [trial_seed(2006, name, r, MODEL, k, m) for r in range(runs)
                     for m in range(10)]
            row = {"dataset": name, "learner": NAMES[k],
                   "paper": float(p["error_mean_pct"]), "paper_sd": float(p["error_sd_pct"])}
            for v, (X, opt) in variants.items():
                d = Dataset(name, X, base.y, base.classes)
                spec = ln + opt if ln != "lgc" else ln  # lgc standardises its inputs itself
                pred = get_learner(spec).prepare(d).fit_predict(X, base.y, tr, ~tr, seeds)
                row[v] = 100 * float(((pred != base.y) & ~tr).sum(1).sum() / (~tr).sum())
            rows.append(row)
    df = pd.DataFrame(rows).reindex(columns=["dataset", "learner", "paper", "paper_sd",
                                             "z-all", "hamming", "codes"])
    enc = ["z-all", "hamming", "codes"]
    df["closest"] = [min((e for e in enc if not np.isnan(r[e])),
                         key=lambda e, r=r: abs(r[e] - r["paper"])) for _, r in df.iterrows()]
    return df


def markdown(df: pd.DataFrame, runs: int) -> str:
    """The check's table as ``table1_encoding_check.md`` keeps it."""
    from simstudy.report.tables import to_markdown

    return (f"Encoding check, {runs} runs of 5x2 cv (mean fold error, %): NMC and 1-NN "
            "under three input encodings beside Yildiz & Alpaydin 2006 Table 1.\n\n"
            + to_markdown(df, 2))
