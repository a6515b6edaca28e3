"""Bouckaert & Frank (2004), Tables 1-4 and §4.3: counting -- per seed, data set and pair,
how often each test rejects -- and the summary tables, the paper beside ours."""

from __future__ import annotations

import numpy as np
import pandas as pd

from simstudy.aggregate import StudyResult, reject_table
from simstudy.designs import get_design
from simstudy.stats import consistency_from_counts
from simstudy.study import Study

from .grid import (
    DATASETS,
    MEASURE_LABEL,
    MEASURES,
    PAIR_NAMES,
    PAIRS,
    REF,
    TEXT43,
    Row,
    summary_rows,
)


def paper_summary() -> pd.DataFrame:
    """The paper's summary numbers: (table, column key, pair, measure) -> value."""
    out = []
    t1 = pd.read_csv(REF / "bouckaert2004_table1_summary.csv")
    for _, r in t1.iterrows():
        out.append(("table1", None, r["pair"], r["measure"], float(r["value"])))
    for name, col in (("table2", "runs"), ("table3", "runs"), ("table4", "significance_level_pct")):
        t = pd.read_csv(REF / f"bouckaert2004_{name}.csv")
        for _, r in t.iterrows():
            out.append((name, float(r[col]), r["pair"], r["measure"], float(r["value"])))
    for test, vals in TEXT43.items():
        for pair, v in zip(PAIR_NAMES, vals, strict=True):
            out.append(("text", test, pair, "consistent", float(v)))
    return pd.DataFrame(out, columns=["ref", "key", "pair", "measure", "value"])


def _paper_value(paper: pd.DataFrame, row: Row, pair: str, measure: str) -> float:
    if row.paper_key is None:
        return float("nan")
    ref, key = row.paper_key
    p = paper[(paper["ref"] == ref) & (paper["pair"] == pair) & (paper["measure"] == measure)]
    if key is not None:
        p = p[p["key"].map(lambda k: k == key if isinstance(key, str) else
                           (not isinstance(k, str) and k is not None and
                            abs(float(k) - float(key)) < 1e-9))]
    return float(p["value"].iloc[0]) if len(p) else float("nan")


def _cells_frame(study: Study) -> pd.DataFrame:
    return pd.DataFrame([{"cell": c.id, "dataset": c.label("dataset"), "design": c.design}
                         for c in study.cells])


def counts(result: StudyResult, row: Row) -> pd.DataFrame:
    """Per (seed, data set, pair): runs n, rejections k and their directions for one row.

    Decisions are recomputed from the stored p-values at ``row.alpha``
    (:func:`simstudy.aggregate.reject_table`); ``k_pos`` counts rejections with a positive
    statistic (A's error larger than B's), ``k_neg`` with a negative one.
    """
    cols = ["seed", "dataset", "pair", "n", "k", "k_pos", "k_neg"]
    res = result.results
    if res is None or res.empty:
        return pd.DataFrame(columns=cols)
    cf = _cells_frame(result.study)
    cf = cf[cf["design"] == row.design]
    res = res[res["cell"].isin(cf["cell"]) & (res["test"] == row.test)]
    if res.empty:
        return pd.DataFrame(columns=cols)
    out = []
    for seed, rs in res.groupby("seed", sort=True):
        rt = reject_table(rs, alpha=row.alpha)
        rej = rs[rs["pvalue"] < row.alpha]
        pos = rej[rej["statistic"] > 0].groupby(["cell", "a", "b"]).size()
        neg = rej[rej["statistic"] < 0].groupby(["cell", "a", "b"]).size()
        for _, t in rt.iterrows():
            key = (t["cell"], int(t["a"]), int(t["b"]))
            out.append((int(seed), cf.loc[cf["cell"] == t["cell"], "dataset"].iloc[0],
                        PAIRS[(key[1], key[2])], int(t["runs"]), int(t["rejects"]),
                        int(pos.get(key, 0)), int(neg.get(key, 0))))
    return pd.DataFrame(out, columns=cols)


def summarise(c: pd.DataFrame) -> pd.DataFrame:
    """Consistent / almost consistent / R per (seed, pair) from per-data-set counts."""
    out = []
    for (seed, pair), g in c.groupby(["seed", "pair"], sort=False):
        # a data set whose cell has fewer runs (an interrupted run) is left out of the row,
        # which the 'datasets' column then shows; R(k, n) needs one n for all
        n = int(g["n"].max())
        g = g[g["n"] == n]
        if n < 2:
            continue
        cr = consistency_from_counts(g["k"].to_numpy(), n)
        out.append((seed, pair, n, len(g), cr.consistent, cr.almost_consistent, cr.R))
    return pd.DataFrame(out, columns=["seed", "pair", "runs", "datasets", *MEASURES])


def summary_table(result: StudyResult, rows: list[Row]) -> pd.DataFrame:
    """Long table: one line per (row, pair, measure); paper, ours (first seed), seed spread."""
    paper = paper_summary()
    out = []
    for row in rows:
        s = summarise(counts(result, row))
        for pair in PAIR_NAMES:
            sp = s[s["pair"] == pair].sort_values("seed")
            for m in MEASURES:
                if row.paper_key and row.paper_key[0] == "text" and m != "consistent":
                    pv = float("nan")  # §4.3 gives only the consistent counts
                else:
                    pv = _paper_value(paper, row, pair, m)
                d = {"table": row.table, "column": row.column, "design": row.design,
                     "test": row.test, "alpha": row.alpha, "pair": pair, "measure": m,
                     "paper": pv}
                if sp.empty:
                    d.update(status="not run")
                else:
                    v = sp[m].astype(float).to_numpy()
                    d.update(status="ok", datasets=int(sp["datasets"].iloc[0]),
                             runs=int(sp["runs"].iloc[0]), seeds=len(v), ours=float(v[0]),
                             ours_min=float(v.min()), ours_max=float(v.max()),
                             ours_mean=float(v.mean()),
                             per_seed=" / ".join(f"{x:.3f}" if m == "replicability_R"
                                                 else f"{x:.0f}" for x in v),
                             paper_in_spread=(None if np.isnan(pv) else
                                              bool(v.min() - 5e-4 <= pv <= v.max() + 5e-4)))
                out.append(d)
    cols = ["table", "column", "design", "test", "alpha", "pair", "measure", "paper", "status",
            "datasets", "runs", "seeds", "ours", "ours_min", "ours_max", "ours_mean", "per_seed",
            "paper_in_spread"]
    df = pd.DataFrame(out).reindex(columns=cols)
    for c in ("datasets", "runs", "seeds"):
        df[c] = pd.Series([None if pd.isna(v) else int(v) for v in df[c]], dtype=object)
    return df


def paper_layout(long: pd.DataFrame, table: str) -> pd.DataFrame:
    """The paper's layout of one table: rows pair × measure, one column per run count / alpha;
    each entry 'ours [min–max] (paper)'."""
    t = long[long["table"] == table]
    rows = []
    for pair in PAIR_NAMES:
        for m in MEASURES:
            g = t[(t["pair"] == pair) & (t["measure"] == m)]
            if g.empty:
                continue
            d = {"pair": pair, "measure": MEASURE_LABEL[m]}
            for _, r in g.iterrows():
                d[r["column"]] = _entry(r, m)
            rows.append(d)
    return pd.DataFrame(rows)


def _entry(r: pd.Series, m: str) -> str:
    f = (lambda x: f"{x:.3f}") if m == "replicability_R" else (lambda x: f"{x:.0f}")
    paper = "" if pd.isna(r["paper"]) else f" ({f(r['paper'])})"
    if r["status"] != "ok":
        return "-" + paper
    spread = "" if r["seeds"] == 1 else f" [{f(r['ours_min'])}–{f(r['ours_max'])}]"
    return f"{f(r['ours'])}{spread}{paper}"


def table1(result: StudyResult) -> pd.DataFrame:
    """Table 1's data rows: draws (non-rejections) out of 10 per data set and pair, paper
    beside ours (first seed) and ours on every seed."""
    ref = pd.read_csv(REF / "bouckaert2004_table1.csv")
    row = summary_rows()[0]
    c = counts(result, row)
    seeds = sorted(set(c["seed"])) if not c.empty else []
    out = []
    for _, p in ref.iterrows():
        name = p["dataset"]
        d = {"dataset": name, "source": DATASETS[name], "inst": int(p["n_instances"]),
             "atts": int(p["n_attributes"]), "cl": int(p["n_classes"])}
        for pair in PAIR_NAMES:
            col = f"nonrejections_{pair.replace(' ', '_').replace('.', '')}_of_10"
            d[f"{pair} paper"] = int(p[col])
            g = c[(c["dataset"] == name) & (c["pair"] == pair)].sort_values("seed")
            draws = [int(r["n"] - r["k"]) for _, r in g.iterrows()]
            d[f"{pair} ours"] = draws[0] if draws else None
            if len(seeds) > 1:
                d[f"{pair} seeds"] = "/".join(str(x) for x in draws) if draws else ""
        out.append(d)
    df = pd.DataFrame(out)
    for c in df.columns:
        if c.endswith(" ours"):  # whole counts (None where not run), not floats
            df[c] = pd.Series([None if pd.isna(v) else int(v) for v in df[c]], dtype=object)
    return df


def directions(result: StudyResult, rows: list[Row]) -> pd.DataFrame:
    """Every (row, seed, data set, pair) whose rejections go both ways, with its draws."""
    out = []
    for row in rows:
        c = counts(result, row)
        both = c[(c["k_pos"] > 0) & (c["k_neg"] > 0)]
        for _, r in both.iterrows():
            out.append({"table": row.table, "column": row.column, "seed": int(r["seed"]),
                        "dataset": r["dataset"], "pair": r["pair"], "runs": int(r["n"]),
                        "draws": int(r["n"] - r["k"]), "rejects A worse": int(r["k_pos"]),
                        "rejects B worse": int(r["k_neg"])})
    return pd.DataFrame(out, columns=["table", "column", "seed", "dataset", "pair", "runs",
                                      "draws", "rejects A worse", "rejects B worse"])


def cost_table(result: StudyResult, by: str = "design") -> pd.DataFrame:
    """Seconds stored with the trials, summed over workers and seeds, by ``design`` or
    ``dataset``.  A trial's seconds are its work unit's wall time divided by its runs, so
    on a loaded machine they include waiting for the CPU."""
    cols = [by, "trials", "splits", "seconds", "share", "ms_per_split"]
    t = result.trials
    if t is None or t.empty or "seconds" not in t.columns:
        return pd.DataFrame(columns=cols)
    cf = _cells_frame(result.study)[["cell", "design", "dataset"]]
    t = t.drop(columns=[c for c in ("design", "dataset") if c in t.columns]).merge(cf, on="cell")
    t = t.assign(splits=[int(np.prod(get_design(d).shape)) for d in t["design"]])
    g = t.groupby(by, sort=False).agg(trials=("cell", "size"), splits=("splits", "sum"),
                                      seconds=("seconds", "sum")).reset_index()
    g["share"] = g["seconds"] / g["seconds"].sum()
    g["ms_per_split"] = 1000 * g["seconds"] / g["splits"]
    return g.sort_values("seconds", ascending=False).reset_index(drop=True)[cols]


def outside(long: pd.DataFrame) -> pd.DataFrame:
    """Summary rows whose paper value lies outside our seed spread, with the gap."""
    ok = long[(long["status"] == "ok") & long["paper"].notna()]
    o = ok[~ok["paper_in_spread"].astype(bool)]
    o = o.assign(paper_minus_mean=o["paper"] - o["ours_mean"])
    return o[["table", "column", "pair", "measure", "paper", "ours", "ours_min", "ours_max",
              "per_seed", "paper_minus_mean"]].reset_index(drop=True)


#: the summary row's key, and the columns compared before and after a change of the data
MOVED_KEY = ("table", "column", "pair", "measure")


def moved(before_summary: pd.DataFrame, after_summary: pd.DataFrame,
          before_table1: pd.DataFrame, after_table1: pd.DataFrame) -> pd.DataFrame:
    """Every summary row and every Table 1 draw count before and after a change, on the
    first seed (``ours``) and per seed (``per_seed``), with ``changed`` (first seed) and
    ``changed_any`` (any seed).  ``kind`` is ``summary`` or ``table1`` (key: data set and
    pair in ``column`` and ``pair``)."""
    cols = [*MOVED_KEY, "paper", "ours_before", "ours_after", "seeds_before", "seeds_after"]
    b = before_summary.set_index(list(MOVED_KEY))
    out = []
    for _, r in after_summary.iterrows():
        k = tuple(r[c] for c in MOVED_KEY)
        old = b.loc[k] if k in b.index else None
        out.append(("summary", *k, r["paper"], None if old is None else old["ours"], r["ours"],
                    None if old is None else str(old["per_seed"]), str(r["per_seed"])))
    bt = before_table1.set_index("dataset")
    for _, r in after_table1.iterrows():
        for pair in PAIR_NAMES:
            old = bt.loc[r["dataset"]] if r["dataset"] in bt.index else None
            out.append(("table1", "Table 1", r["dataset"], pair, "draws", r[f"{pair} paper"],
                        None if old is None else old[f"{pair} ours"], r[f"{pair} ours"],
                        None if old is None else str(old.get(f"{pair} seeds", "")),
                        str(r.get(f"{pair} seeds", ""))))
    df = pd.DataFrame(out, columns=["kind", *cols])
    df["changed"] = [a != b for a, b in zip(df["ours_before"], df["ours_after"], strict=True)]
    df["changed_any"] = df["seeds_before"] != df["seeds_after"]
    return df
