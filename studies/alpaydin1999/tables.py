"""Alpaydın (1999): the paper's tables beside ours, computed from a study's result.

Each function takes a :class:`simstudy.aggregate.StudyResult` and returns one table: Table 3
(either half, either variant) with our 99 % Wilson band, Table 2's error rates, Table 1's
numerator counts.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from simstudy.report.compare import band, in_band, wide_by_test

from .grid import DATASETS, NUMERATOR_SETS, REF, paper_table3


def _variant_ids(result, variant: str | None, kind: str | None = None) -> set[str] | None:
    """Cell ids of one variant and, in studies holding both halves of Table 3 (``odr-size``),
    of one ``kind`` (None: every cell -- the unlabelled default studies)."""
    if variant is None and kind is None:
        return None
    return {c.id for c in result.study.cells
            if (variant is None or c.label("variant", "default") == variant)
            and (kind is None or c.label("kind", kind) == kind)}


def _identical_share(result, variant: str | None = None,
                     kind: str | None = None) -> dict[tuple[str, int], float]:
    """Share of runs in which the two learners made the same error on every fold (d = 0).

    Then both tests are undefined (0/0) and do not reject.  Two MLPs trained to convergence
    often end in the same classifier; the paper's MLPs evidently did not (see RESULTS.md).
    """
    labels = {c.id: (c.label("dataset"), c.label("hidden")) for c in result.study.cells}
    keep = _variant_ids(result, variant, kind)
    out = {}
    for cell, g in result.trials.groupby("cell", sort=False):
        if keep is not None and cell not in keep:
            continue
        E = np.stack(list(g["errors"]))
        out[labels[cell]] = float(np.mean(np.all(E[:, 0] == E[:, 1], axis=(1, 2))))
    return out


def table3(result, kind: str, variant: str | None = None) -> pd.DataFrame:
    """Table 3 (one half), paper beside ours, with our 99 % Wilson band and whether the paper is in it.

    ``ci99_*`` is the interval ``paper_*_in_99`` tests, so a reader can check each flag.

    ``variant``: only that variant's cells (studies with both variants)."""
    table = result.table
    keep = _variant_ids(result, variant, kind)
    if keep is not None and not table.empty:
        table = table[table["cell"].isin(keep)]
    ours = (wide_by_test(table, ["dataset", "hidden"]) if not table.empty
            else pd.DataFrame(columns=["dataset", "hidden"]))
    same = _identical_share(result, variant, kind)
    paper = paper_table3()
    pc = ("typeI_" if kind == "type1" else "reject_LP_vs_MLP_")
    rows = []
    for _, p in paper.iterrows():
        src = DATASETS[p["dataset"]][0]
        row = {"dataset": p["dataset"], "hidden": int(p["hidden_units"]),
               "paper_t": p[pc + "t5x2cv"], "paper_F": p[pc + "F5x2cv"]}
        o = ours[(ours["dataset"] == p["dataset"]) & (ours["hidden"] == p["hidden_units"])]
        if src is None or o.empty:
            row.update(status="not available" if src is None else "not run")
        else:
            o = o.iloc[0]
            row.update(status="ok", runs=o["t5x2cv_n"],
                       share_d_all_zero=same.get((p["dataset"], int(p["hidden_units"]))))
            for t, short in (("t5x2cv", "t"), ("F5x2cv", "F")):
                row[f"ours_{short}"] = o[f"{t}_p"]
                lo, hi = band(o[f"{t}_k"], o[f"{t}_n"])
                row[f"ci99_{short}"] = f"[{lo:.3f}, {hi:.3f}]"
                row[f"paper_{short}_in_99"] = in_band(row[f"paper_{short}"], o[f"{t}_k"], o[f"{t}_n"])
        rows.append(row)
    cols = ["dataset", "hidden", "status", "runs", "paper_t", "ours_t", "ci99_t", "paper_t_in_99",
            "paper_F", "ours_F", "ci99_F", "paper_F_in_99", "share_d_all_zero"]
    t3 = pd.DataFrame(rows).reindex(columns=cols)
    t3["runs"] = t3["runs"].astype("Int64")
    return t3


def z_table(result) -> pd.DataFrame:
    """Normalised difference z of the paper's §4 per cell, from our trials' fold errors."""
    rows = []
    for cell, g in result.trials.groupby("cell", sort=False):
        E = np.stack(list(g["errors"]))  # (runs, K, 5, 2)
        lp, mlp = E[:, 0].ravel(), E[:, 1].ravel()
        rows.append((cell, lp.mean(), mlp.mean(), mlp.std(ddof=1),
                     (lp.mean() - mlp.mean()) / mlp.std(ddof=1)))
    return pd.DataFrame(rows, columns=["cell", "lp_error", "mlp_error", "mlp_sd", "z"])


def table3_type2(result, variant: str | None = None) -> pd.DataFrame:
    t3 = table3(result, "type2", variant)
    z = z_table(result)
    keep = _variant_ids(result, variant, "type2")
    if keep is not None:
        z = z[z["cell"].isin(keep)]
    cellz = {c.id: (c.label("dataset"), c.label("hidden")) for c in result.study.cells}
    z["dataset"] = [cellz[c][0] for c in z["cell"]]
    z["hidden"] = [cellz[c][1] for c in z["cell"]]
    return t3.merge(z[["dataset", "hidden", "lp_error", "mlp_error", "z"]],
                    on=["dataset", "hidden"], how="left")


def side_by_side(tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per Table 3 cell: the paper, then each variant's t and F with the band check."""
    base = None
    for v, t in tables.items():
        cols = {c: f"{v}_{c}" for c in ("status", "runs", "ours_t", "paper_t_in_99", "ours_F",
                                         "paper_F_in_99", "share_d_all_zero")}
        part = t[["dataset", "hidden", "paper_t", "paper_F", *cols]].rename(columns=cols)
        base = part if base is None else base.merge(part.drop(columns=["paper_t", "paper_F"]),
                                                   on=["dataset", "hidden"], how="left")
    return base


def numerator_counts(result) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per cell: run 0's count of rejecting numerators and F decision, the shares over runs
    (``ours``); the distribution of the count over runs (``dist``)."""
    from simstudy.stats import ftest_5x2cv, ttest_5x2cv

    alpha = result.study.alpha
    src_of = {c.id: c.label("dataset") for c in result.study.cells}
    rows, dist = [], []
    for cell, g in result.trials.groupby("cell", sort=False):
        counts, fs = [], []
        for E in g["errors"]:
            d = E[0] - E[1]
            counts.append(sum(ttest_5x2cv(d, numerator=(i, j)).pvalue < alpha
                              for i in range(5) for j in range(2)))
            fs.append(ftest_5x2cv(d).pvalue < alpha)
        counts = np.array(counts)
        fs = np.array(fs)
        rows.append({"dataset": src_of[cell], "run0_t_rejects_out_of_10": int(counts[0]),
                     "run0_F_rejects": "yes" if fs[0] else "no",
                     "mean_t_rejects": counts.mean(),
                     "P(some but not all numerators reject)": np.mean((counts > 0) & (counts < 10)),
                     "P(F rejects)": fs.mean()})
        hist = np.bincount(counts, minlength=11) / len(counts)
        dist.append({"dataset": src_of[cell], **{str(k): hist[k] for k in range(11)}})
    return pd.DataFrame(rows), pd.DataFrame(dist)


def table2(result, variant: str | None = None) -> pd.DataFrame:
    """Table 2: paper beside our mean test-fold error (%) per data set and learner."""
    from simstudy.spec import parse_spec

    paper = pd.read_csv(REF / "alpaydin1999_table2.csv")
    me = result.mean_errors()
    cells = {c.id: c for c in result.study.cells}
    keep = _variant_ids(result, variant)
    ours = {}
    for _, r in me.iterrows():
        if keep is not None and r["cell"] not in keep:
            continue
        c = cells[r["cell"]]
        ln = parse_spec(c.learners[int(r["learner"])])[0]  # "mlp-10[...]" -> "mlp-10"
        key = (c.label("dataset"), "LP" if ln == "lp" else "MLP",
               None if ln == "lp" else int(ln.split("-")[1]))
        ours.setdefault(key, []).append((r["error_mean"], r["error_sd"]))
    rows = []
    for _, p in paper.iterrows():
        h = None if pd.isna(p["hidden_units"]) else int(p["hidden_units"])
        vals = ours.get((p["dataset"], p["model"], h))
        row = {"dataset": p["dataset"], "model": p["model"], "hidden": h,
               "paper_mean_pct": p["error_mean_pct"], "paper_sd_pct": p["error_sd_pct"]}
        if vals:  # LP appears in several cells: average them
            row["ours_mean_pct"] = 100 * float(np.mean([v[0] for v in vals]))
            row["ours_sd_pct"] = 100 * float(np.mean([v[1] for v in vals]))
        row["status"] = "ok" if vals else ("not available" if DATASETS[p["dataset"]][0] is None
                                           else "not run")
        rows.append(row)
    t2 = pd.DataFrame(rows)
    t2["hidden"] = t2["hidden"].astype("Int64")
    return t2


def numerator_table(result) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 1, the paper's rows beside ours, and the count distribution over runs."""
    paper = pd.read_csv(REF / "alpaydin1999_table1.csv")
    ours, dist = numerator_counts(result)
    t1 = paper.merge(ours, on="dataset", how="left")
    t1.insert(1, "status", ["ok" if NUMERATOR_SETS[d] else "not available" for d in t1["dataset"]])
    t1["run0_t_rejects_out_of_10"] = t1["run0_t_rejects_out_of_10"].astype("Int64")
    return t1, dist


def pilot_table(result) -> pd.DataFrame:
    """The pilot's cells: Table 1's columns and the count distribution, one row per data set."""
    ours, dist = numerator_counts(result)
    hidden = {c.label("dataset"): c.label("hidden") for c in result.study.cells}
    runs = result.trials.groupby("cell").size()
    t = ours.merge(dist, on="dataset")
    t.insert(1, "hidden", [hidden[d] for d in t["dataset"]])
    t.insert(2, "runs", [int(runs.min())] * len(t))
    return t
