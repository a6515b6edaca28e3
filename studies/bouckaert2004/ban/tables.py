"""Bouckaert & Frank (2004), Table 5: consistency per source from the stored p-values, the
accuracy row from the trained models' exact accuracies, the paper beside ours."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from simstudy.aggregate import rejects_per_unit
from simstudy.designs import get_design
from simstudy.errors import SimstudyError
from simstudy.seeding import MODEL, draw_seed, trial_seed
from simstudy.sources import get_source
from simstudy.sources.ban import BanSource
from simstudy.stats import consistency_from_counts
from simstudy.study import Study

from .grid import REF, REPS, ROWS, SOURCE_LABEL, SOURCES


def set_counts(results: pd.DataFrame, cell_id: str, test: str, alpha: float,
               reps: int = REPS) -> np.ndarray:
    """Rejections out of ``reps`` per complete training set (runs ``reps*i .. reps*i+reps-1``).

    A decision is ``pvalue < alpha`` (an undefined p-value accepts); a set with fewer than
    ``reps`` stored runs is left out.
    """
    r = results[(results["cell"] == cell_id) & (results["test"] == test)]
    if r.empty:
        return np.zeros(0, dtype=np.int64)
    if r["run"].duplicated().any():
        raise SimstudyError(f"cell {cell_id!r}, test {test!r}: several rows per run "
                            "(more than one seed or pair in the results?)")
    return rejects_per_unit(r["run"].to_numpy(), r["pvalue"].astype(float).to_numpy(), alpha,
                            ("sets", reps))


def table5_long(result, alpha: float | None = None) -> pd.DataFrame:
    """One line per (row, source): consistency % (ours), paper, sets, counts, R."""
    study = result.study
    alpha = study.alpha if alpha is None else alpha
    paper = paper_table5()
    res = result.results
    if res is not None and not res.empty:
        res = res[res["seed"] == study.seed] if "seed" in res.columns else res
    out = []
    for label, design, test, in_paper in ROWS:
        for src in SOURCES:
            cell = next((c for c in study.cells if c.source == src and c.design == design),
                        None)
            d = {"row": label, "source": SOURCE_LABEL[src], "design": design, "test": test,
                 "paper": paper.get((label, SOURCE_LABEL[src]), float("nan"))
                 if in_paper else float("nan")}
            k = set_counts(res, cell.id, test, alpha) if (cell is not None and res is not None
                                                          and not res.empty) else np.zeros(0)
            if k.size == 0:
                d["status"] = "not run"
            else:
                c = consistency_from_counts(k, REPS)
                pct = 100.0 * c.consistent / k.size
                se = 100.0 * np.sqrt(pct / 100 * (1 - pct / 100) / k.size)
                d.update(status="ok", sets=int(k.size), consistent=c.consistent,
                         ours=pct, mcse=se, almost_pct=100.0 * c.almost_consistent / k.size,
                         R=c.R, mean_reject=float(k.mean() / REPS))
            out.append(d)
    cols = ["row", "source", "design", "test", "paper", "status", "sets", "consistent", "ours",
            "mcse", "almost_pct", "R", "mean_reject"]
    df = pd.DataFrame(out).reindex(columns=cols)
    df["sets"] = pd.Series([None if pd.isna(v) else int(v) for v in df["sets"]], dtype=object)
    df["consistent"] = pd.Series([None if pd.isna(v) else int(v) for v in df["consistent"]],
                                 dtype=object)
    return df


def paper_table5() -> dict[tuple[str, str], float]:
    t = pd.read_csv(REF / "bouckaert2004_table5.csv")
    out = {}
    for _, r in t.iterrows():
        for k in range(1, 5):
            out[(r["row_label"], f"source {k}")] = float(r[f"source{k}"])
        if not pd.isna(r["min_over_sources"]):
            out[(r["row_label"], "min.")] = float(r["min_over_sources"])
    return out


def mins(long: pd.DataFrame) -> dict[str, float]:
    """The min column: smallest consistency over the four sources, per row (all run)."""
    out = {}
    for label, g in long.groupby("row", sort=False):
        if (g["status"] == "ok").all() and len(g) == len(SOURCES):
            out[label] = float(g["ours"].min())
    return out


def exact_accuracies(source: str, learners: Sequence[str], root_seed: int, sets: int,
                     block: int = 50) -> np.ndarray:
    """``(len(learners), sets)`` exact accuracies of each learner trained on each of the
    first ``sets`` training sets of ``source`` -- the very sets the study's cells use
    (:func:`simstudy.seeding.draw_seed`).

    A model is trained on its 300 cases and predicts the 512 attribute patterns; its
    accuracy is sum_x P(x, class = pred(x)) under the source's joint.  ``block`` training
    sets share one learner call (their rows stacked above the 512 patterns).
    """
    from simstudy.learners import get_learner

    src = get_source(source)
    if not isinstance(src, BanSource):
        raise SimstudyError(f"{source!r} is not a BAN source (ban[src=K])")
    pat = src.patterns_dataset()
    out = np.empty((len(learners), sets))
    for lo in range(0, sets, block):
        idx = range(lo, min(sets, lo + block))
        data = [src.sample(np.random.default_rng(draw_seed(root_seed, source, i))) for i in idx]
        m = data[0].n
        X = np.vstack([d.X for d in data] + [pat.X])
        y = np.concatenate([d.y for d in data] + [np.zeros(pat.n, dtype=np.int64)])
        B = len(data)
        train = np.zeros((B, X.shape[0]), dtype=bool)
        test = np.zeros_like(train)
        for b in range(B):
            train[b, b * m:(b + 1) * m] = True
        test[:, B * m:] = True
        for k, ln in enumerate(learners):
            learner = get_learner(ln).prepare(data[0])
            seeds = [trial_seed(root_seed, "accuracy:" + source, i, MODEL, k) for i in idx]
            pred = learner.fit_predict(X, y, train, test, seeds)[:, B * m:]
            for b, i in enumerate(idx):
                out[k, i] = src.exact_accuracy(pred[b])
    return out


def accuracy_table(study: Study, sets: int) -> pd.DataFrame:
    """The accuracy row per source: mean acc(NB), acc(C4.5), their difference (points)."""
    paper = paper_table5()
    learners = study.cells[0].learners
    rows = []
    for src in SOURCES:
        acc = exact_accuracies(src, learners, study.seed, sets)
        d = 100.0 * (acc[0] - acc[1])
        lab = SOURCE_LABEL[src]
        pv = paper[("accuracy", lab)]
        rows.append({"source": lab, "sets": int(sets), "acc_nb": float(acc[0].mean()),
                     "acc_c45": float(acc[1].mean()), "diff_pts": float(d.mean()),
                     "sd_pts": float(d.std(ddof=1)) if sets > 1 else float("nan"),
                     "se_pts": float(d.std(ddof=1) / np.sqrt(sets)) if sets > 1
                     else float("nan"),
                     "paper_abs_pts": pv, "abs_gap_pts": abs(float(d.mean())) - pv})
    df = pd.DataFrame(rows)
    df["sets"] = df["sets"].astype(object)
    return df


def cost_table(result) -> pd.DataFrame:
    """Worker seconds stored with the trials (wall time inside the worker, summed), by design:
    per split (both learners) and per fit."""
    cols = ["design", "trials", "splits", "seconds", "ms_per_split", "us_per_fit"]
    t = result.trials
    if t is None or t.empty or "seconds" not in t.columns:
        return pd.DataFrame(columns=cols)
    design = {c.id: c.design for c in result.study.cells}
    t = t.assign(design=t["cell"].map(design))
    K = len(result.study.cells[0].learners)
    out = []
    for d, g in t.groupby("design", sort=False):
        R, F = get_design(d).shape
        splits = len(g) * R * F
        sec = float(g["seconds"].sum())
        out.append((d, len(g), splits, sec, 1e3 * sec / splits, 1e6 * sec / (K * splits)))
    return pd.DataFrame(out, columns=cols)


def paper_layout(long: pd.DataFrame, acc: pd.DataFrame) -> pd.DataFrame:
    """Table 5 as printed: 'ours (paper)' per source and the min column."""
    paper = paper_table5()
    cols = [SOURCE_LABEL[s] for s in SOURCES]
    rows = [{"row": "accuracy (NB - C4.5, points)",
             **{r["source"]: f"{r['diff_pts']:.2f} ({paper[('accuracy', r['source'])]:.2f})"
                for _, r in acc.iterrows()}, "min.": ""}]
    mn = mins(long)
    for label in dict.fromkeys(long["row"]):
        g = long[long["row"] == label].set_index("source")
        d = {"row": label}
        for c in cols:
            r = g.loc[c]
            ours = "-" if r["status"] != "ok" else f"{r['ours']:.1f}"
            d[c] = ours + ("" if pd.isna(r["paper"]) else f" ({r['paper']:.1f})")
        pm = paper.get((label, "min."))
        d["min."] = (f"{mn[label]:.1f}" if label in mn else "-") + \
            ("" if pm is None else f" ({pm:.1f})")
        rows.append(d)
    return pd.DataFrame(rows, columns=["row", *cols, "min."])
