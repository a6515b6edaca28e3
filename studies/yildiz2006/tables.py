"""Yıldız & Alpaydın (2006): Tables 1-3 beside ours, from a study's stored trials and
choice rows; the MultiTest graphs (recomputed from the stored errors: a graph is not a
stored row)."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pandas as pd

from .grid import DATASETS, METHODS, NAMES, NONE, NOTES, PAPER_METHODS, REF


def _dataset_of(result) -> dict[str, str]:
    return {c.id: c.label("dataset") for c in result.study.cells}


def choices(result) -> pd.DataFrame:
    """The stored choice rows: one per trial × method, with dataset, best and order.

    ``best`` is the learner index (-1 for none: the stored statistic is NaN); ``order`` the
    stored ordering (a tuple) or None.
    """
    res = result.results
    cols = ["dataset", "cell", "run", "test", "best", "order"]
    if res.empty:
        return pd.DataFrame(columns=cols)
    res = res[(res["a"] < 0) & res["test"].isin(METHODS)]
    ds = _dataset_of(result)
    stat = res["statistic"].astype(float).to_numpy()
    best = np.where(np.isnan(stat), -1, np.nan_to_num(stat, nan=-1)).astype(int)
    extra = res["extra"] if "extra" in res.columns else pd.Series([None] * len(res))

    def order(v):
        if v is None or (isinstance(v, float) and np.isnan(v)):
            return None
        o = json.loads(v) if isinstance(v, str) else v
        return None if o is None else tuple(int(i) for i in o)

    return pd.DataFrame({
        "dataset": res["cell"].map(ds).to_numpy(), "cell": res["cell"].to_numpy(),
        "run": res["run"].to_numpy(), "test": res["test"].to_numpy(), "best": best,
        "order": [order(v) for v in extra],
    }, columns=cols)


def _label(best: int) -> str:
    return NONE if best < 0 else NAMES[best]


def _errors_by_dataset(result) -> dict[str, np.ndarray]:
    """dataset -> (T, K, R, F) stored fold errors (T trials)."""
    ds = _dataset_of(result)
    out = {}
    for cell, g in result.trials.groupby("cell", sort=False):
        out[ds[cell]] = np.stack(list(g["errors"]))
    return out


def table1(result) -> pd.DataFrame:
    """Mean ± sd (%) of all fold error rates per data set and learner, paper beside ours.

    ``diff`` = ours − paper (points); ``z`` = diff / paper_sd (the fold-level sd): the
    issue's yardstick is 0.5 points for MAX (it depends only on the data and the halves)
    and 2 sd for the other learners.
    """
    paper = pd.read_csv(REF / "yildiz2006_table1.csv")
    errs = _errors_by_dataset(result)
    rows = []
    for _, p in paper.iterrows():
        name, alg = p["dataset"], p["algorithm"]
        name = "zoo" if name == "Z00" else name
        k = NAMES.index(alg)
        row = {"dataset": name, "learner": alg, "mean": np.nan, "sd": np.nan,
               "paper_mean": float(p["error_mean_pct"]), "paper_sd": float(p["error_sd_pct"]),
               "runs": 0, "diff": np.nan, "z": np.nan, "within": None,
               "note": NOTES.get(name, "")}
        if name in errs:
            e = 100.0 * errs[name][:, k].ravel()
            row.update(mean=float(e.mean()), sd=float(e.std(ddof=1)) if e.size > 1 else np.nan,
                       runs=int(errs[name].shape[0]))
            row["diff"] = row["mean"] - row["paper_mean"]
            row["z"] = row["diff"] / row["paper_sd"] if row["paper_sd"] > 0 else np.nan
            row["within"] = bool(abs(row["diff"]) <= 0.5) if alg == "MAX" else bool(
                abs(row["diff"]) <= 2 * row["paper_sd"])
        rows.append(row)
    df = pd.DataFrame(rows)
    df["runs"] = df["runs"].astype(int)
    return df


def table1_layout(t1: pd.DataFrame) -> pd.DataFrame:
    """The paper's layout: one row per data set, 'ours ± sd (paper ± sd)' per learner."""
    def text(r):
        ours = "-" if np.isnan(r["mean"]) else f"{r['mean']:.2f}±{r['sd']:.2f}"
        return f"{ours} ({r['paper_mean']:.2f}±{r['paper_sd']:.2f})"
    d = t1.assign(text=t1.apply(text, axis=1))
    w = d.pivot_table(index="dataset", columns="learner", values="text", aggfunc="first",
                      sort=False)
    return w.reindex(columns=list(NAMES)).reset_index()


def _top2(best: pd.Series) -> list[tuple[str, float]]:
    """The most and second most chosen labels with % of runs (ties: the simpler first,
    'not found' last)."""
    n = len(best)
    c = Counter(int(b) for b in best)
    ranked = sorted(c.items(), key=lambda kv: (-kv[1], kv[0] if kv[0] >= 0 else 99))
    return [(_label(b), 100.0 * k / n) for b, k in ranked[:2]]


def table2(result) -> pd.DataFrame:
    """Most and second most chosen best per data set and method (%), paper beside ours."""
    paper = pd.read_csv(REF / "yildiz2006_table2.csv", keep_default_na=False)
    paper["dataset"] = paper["dataset"].replace({"Z00": "zoo"})
    ch = choices(result)
    rows = []
    for name in DATASETS:
        for test, label in METHODS.items():
            if label == "Anova":
                continue  # the paper's Table 2 has no Anova column (Table 3 has)
            g = ch[(ch["dataset"] == name) & (ch["test"] == test)]
            top = _top2(g["best"]) if len(g) else []
            row = {"dataset": name, "method": label, "runs": len(g),
                   "first": top[0][0] if top else None, "first_pct": top[0][1] if top else np.nan,
                   "second": top[1][0] if len(top) > 1 else None,
                   "second_pct": top[1][1] if len(top) > 1 else np.nan}
            p = paper[(paper["dataset"] == name) & (paper["method"] == label)]
            if len(p):
                p = p.iloc[0]
                row.update(paper_first=p["first_algorithm"],
                           paper_first_pct=float(p["first_pct"]),
                           paper_second=p["second_algorithm"] or None,
                           paper_second_pct=float(p["second_pct"]) if p["second_pct"] else np.nan)
                row["same_first"] = (row["first"] == row["paper_first"]) if top else None
            rows.append(row)
    cols = ["dataset", "method", "runs", "first", "first_pct", "second", "second_pct",
            "paper_first", "paper_first_pct", "paper_second", "paper_second_pct", "same_first"]
    df = pd.DataFrame(rows).reindex(columns=cols)
    df["runs"] = df["runs"].astype(int)
    return df


def _star(label) -> str:
    return "*" if label == NONE else str(label)


def table2_layout(t2: pd.DataFrame) -> pd.DataFrame:
    """As printed: 'ours (paper)' for (1) and (2) of TestFirst, Newman–Keuls, MultiTest."""
    def one(lab, pct):
        return "-" if lab is None or (isinstance(lab, float) and np.isnan(lab)) or lab == "" \
            else f"{_star(lab)} ({pct:.0f})"
    d = t2[t2["method"].isin(PAPER_METHODS)].copy()
    d["(1)"] = [f"{one(a, b)} [{one(c, e)}]" for a, b, c, e in
                zip(d["first"], d["first_pct"], d["paper_first"], d["paper_first_pct"],
                    strict=True)]
    d["(2)"] = [f"{one(a, b)} [{one(c, e)}]" for a, b, c, e in
                zip(d["second"], d["second_pct"], d["paper_second"], d["paper_second_pct"],
                    strict=True)]
    long = d.melt(id_vars=["dataset", "method"], value_vars=["(1)", "(2)"], var_name="rank")
    long["col"] = long["method"] + " " + long["rank"]
    w = long.pivot_table(index="dataset", columns="col", values="value", aggfunc="first",
                         sort=False)
    order = [f"{m} {r}" for m in ("TestFirst", "Newman-Keuls", "MultiTest") for r in ("(1)", "(2)")]
    return w.reindex(index=list(DATASETS), columns=order).reset_index()


def table3(result) -> pd.DataFrame:
    """How often each method picks each learner or none, over all stored runs × data sets."""
    paper = pd.read_csv(REF / "yildiz2006_table3.csv")
    ch = choices(result)
    rows = []
    for test, label in METHODS.items():
        g = ch[ch["test"] == test]
        n = len(g)
        c = Counter(int(b) for b in g["best"])
        for b in (-1, *range(len(NAMES))):
            lab = _label(b)
            p = paper[(paper["method"] == label) & (paper["best_algorithm"] == lab)]
            rows.append({"method": label, "best": lab, "count": c.get(b, 0), "total": n,
                         "pct": 100.0 * c.get(b, 0) / n if n else np.nan,
                         "paper_count": int(p["count"].iloc[0]) if len(p) else None,
                         "paper_pct": float(p["pct"].iloc[0]) if len(p) else np.nan})
    df = pd.DataFrame(rows)
    df["paper_count"] = pd.Series([None if pd.isna(v) else int(v) for v in df["paper_count"]],
                                  dtype=object)
    return df


def table3_layout(t3: pd.DataFrame) -> pd.DataFrame:
    d = t3.assign(text=[f"{c} ({p:.2f}%)" + ("" if pc is None else f" [{pc} ({pp:.2f}%)]")
                        for c, p, pc, pp in zip(t3["count"], t3["pct"], t3["paper_count"],
                                                t3["paper_pct"], strict=True)])
    w = d.pivot_table(index="method", columns="best", values="text", aggfunc="first", sort=False)
    return w.reindex(columns=[NONE, *NAMES]).reset_index()


def multitest_graphs(errors: np.ndarray, alpha: float) -> Counter:
    """Counter of MultiTest edge sets (tuples of 0-based (i, j)) over a (T, K, R, F) array."""
    from simstudy.stats import multitest

    return Counter(multitest(e, alpha=alpha).edges for e in errors)
