"""Wang, Li & Li (2016): Tables 3-5 in long form, the paper beside ours, computed from a
study's result (and, for the ``-paper`` studies, from one scenario's choice of cells)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from simstudy.report.compare import in_band

from .grid import (
    BLOCK_PREFIX,
    CASE_SETUP,
    DESIGN_OF,
    ONE_SIDED,
    REAL_COMPARISONS,
    SIM_COMPARISONS,
    TESTS,
    TYPE1,
)

REF = Path(__file__).parents[1] / "reference"

T4_NOTE = ("Right half: the paper labels these 'probabilities of type II error', but the setup "
           "is Alpaydin's LP vs MLP experiment; our numbers are reject probabilities "
           "P(reject H0), compared with the paper's numbers as printed.")


def _ours(result) -> pd.DataFrame:
    """One row per run cell: its labels, test, rejects, runs, proportion, CI, mean errors."""
    t = result.table
    if t.empty:
        return pd.DataFrame(columns=["cell", "test", "rejects", "runs", "proportion",
                                     "ci_low", "ci_high", "err_a", "err_b"])
    me = result.mean_errors()
    err = me.pivot(index="cell", columns="learner", values="error_mean")
    err = err.rename(columns={0: "err_a", 1: "err_b"})[["err_a", "err_b"]].reset_index()
    return t.merge(err, on="cell", how="left").merge(replication_correlations(result),
                                                     on="cell", how="left")


def replication_correlations(result) -> pd.DataFrame:
    """Per cell ρ̂1, ρ̂2 of the differences d = e_a − e_b (Wang, Li & Li 2016, Proposition).

    ρ1 is the group-in correlation, between the two folds' differences of one replication
    (Cov(μ̂_B1^(i), μ̂_B2^(i)) = σ²ρ1); ρ2 the group-out correlation, between differences of
    different replications (i ≠ i').  Estimated over the cell's runs: the R·F positions'
    correlation matrix across runs, ρ̂1 the mean of its within-replication entries, ρ̂2 the
    mean of its between-replication entries.  NaN where d does not vary (e.g. d ≡ 0).
    """
    rows = []
    for cell, g in result.trials.groupby("cell", sort=False):
        E = np.stack(list(g["errors"]))  # (runs, K, R, F)
        D = (E[:, 0] - E[:, 1]).reshape(E.shape[0], -1)
        R, F = E.shape[2], E.shape[3]
        rho1 = rho2 = np.nan
        if D.shape[0] > 2:
            with np.errstate(invalid="ignore", divide="ignore"):
                C = np.corrcoef(D, rowvar=False)
            rep = np.repeat(np.arange(R), F)
            off = ~np.eye(R * F, dtype=bool)
            same = (rep[:, None] == rep[None, :]) & off
            diff = rep[:, None] != rep[None, :]
            if np.isfinite(C).all():
                rho1 = float(C[same].mean()) if same.any() else np.nan
                rho2 = float(C[diff].mean()) if diff.any() else np.nan
        rows.append((cell, rho1, rho2))
    return pd.DataFrame(rows, columns=["cell", "rho1", "rho2"])


def _compare_row(row: dict, paper: float, o: pd.DataFrame) -> dict:
    """Fill ours / CI / 99 %-band columns of one paper value from the matching result row."""
    row["paper"] = float(paper)
    if o.empty:
        row.update(status="not run")
        return row
    r = o.iloc[0]
    row.update(status="ok", runs=int(r["runs"]), ours=float(r["proportion"]),
               ci95_low=float(r["ci_low"]), ci95_high=float(r["ci_high"]),
               paper_in_99=in_band(paper, int(r["rejects"]), int(r["runs"])),
               err_a=float(r["err_a"]), err_b=float(r["err_b"]),
               rho1=float(r.get("rho1", np.nan)), rho2=float(r.get("rho2", np.nan)),
               learners=str(r["cell"]).split("/")[1])  # the learners actually run
    return row


def _finish(rows: list[dict], cols: list[str]) -> pd.DataFrame:
    df = pd.DataFrame(rows).reindex(columns=cols)
    # run counts stay integers (None when not run) so the tables print "5000", not "5000.000"
    df["runs"] = pd.Series([None if pd.isna(v) else int(v) for v in df["runs"]], dtype=object)
    return df


LONG_COLS = ["status", "runs", "paper", "ours", "ci95_low", "ci95_high", "paper_in_99",
             "err_a", "err_b", "rho1", "rho2"]


def table3(result, ours: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 3 in long form (96 rows): paper, ours, Wilson 95 % CI, paper inside our 99 % band.

    ``ours``: the result rows to use (a scenario's selection, :func:`scenario_rows`)."""
    paper = pd.read_csv(REF / "wang2016_table3.csv")
    ours = _ours(result) if ours is None else ours
    rows = []
    for _, p in paper.iterrows():
        case, comp, test = int(p["case"]), p["comparison"], p["test"]
        row = {"case": case, "mu1": CASE_SETUP[case][0], "sigma1": CASE_SETUP[case][1] + " I",
               "comparison": comp, "learners": "~".join(SIM_COMPARISONS[comp]),
               "test": test, "design": DESIGN_OF[test]}
        o = ours[(ours["case"] == case) & (ours["comparison"] == comp) & (ours["test"] == test)] \
            if not ours.empty else ours
        rows.append(_compare_row(row, p["reject_prob"], o))
    cols = ["case", "mu1", "sigma1", "comparison", "learners", "test", "design"] + LONG_COLS
    return _finish(rows, cols)


def table4(result, ours: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 4 in long form (15 rows × 2 blocks × 3 tests = 90 rows)."""
    paper = pd.read_csv(REF / "wang2016_table4.csv")
    ours = _ours(result) if ours is None else ours
    if not ours.empty:
        ours = ours[ours["table"] == 4]
    rows = []
    for _, p in paper.iterrows():
        name, h = p["dataset"], int(p["hidden_units"])
        for block, prefix in BLOCK_PREFIX.items():
            for test in TESTS:
                row = {"dataset": name, "hidden": h, "block": block,
                       "learners": f"mlp-{h}~mlp-{h}" if block == TYPE1 else f"lp~mlp-{h}",
                       "test": test, "design": DESIGN_OF[test]}
                o = ours[(ours["dataset"] == name) & (ours["hidden"] == h)
                         & (ours["block"] == block) & (ours["test"] == test)] \
                    if not ours.empty else ours
                rows.append(_compare_row(row, p[prefix + test], o))
    cols = ["dataset", "hidden", "block", "learners", "test", "design"] + LONG_COLS
    return _finish(rows, cols)


def table5(result, ours: pd.DataFrame | None = None) -> pd.DataFrame:
    """Table 5 in long form (3 comparisons × 3 tests × 6 data sets = 54 rows)."""
    paper = pd.read_csv(REF / "wang2016_table5.csv")
    ours = _ours(result) if ours is None else ours
    if not ours.empty:
        ours = ours[ours["table"] == 5]
    rows = []
    for _, p in paper.iterrows():
        comp, test, name = p["comparison"], p["test"], p["dataset"]
        row = {"comparison": comp, "learners": "~".join(REAL_COMPARISONS[comp]),
               "test": test, "design": DESIGN_OF[test], "dataset": name}
        o = ours[(ours["dataset"] == name) & (ours["comparison"] == comp)
                 & (ours["test"] == test)] if not ours.empty else ours
        rows.append(_compare_row(row, p["reject_prob"], o))
    cols = ["comparison", "learners", "test", "design", "dataset"] + LONG_COLS
    return _finish(rows, cols)


def _cell_text(r: pd.Series) -> str:
    """'ours (paper)' for the paper-layout tables; '- (paper)' when not run."""
    ours = "-" if r["status"] != "ok" else f"{r['ours']:.3f}"
    return f"{ours} ({r['paper']:.3f})"


def paper_layout(long: pd.DataFrame, index: list[str], columns: str) -> pd.DataFrame:
    """The paper's layout: one row per ``index``, one column per ``columns``; 'ours (paper)'."""
    d = long.assign(text=long.apply(_cell_text, axis=1))
    order = list(dict.fromkeys(d[columns]))
    w = d.pivot_table(index=index, columns=columns, values="text", aggfunc="first", sort=False)
    rows = list(dict.fromkeys(zip(*(d[c] for c in index), strict=True)))  # the paper's order
    w = w.reindex(index=pd.MultiIndex.from_tuples(rows, names=index) if len(index) > 1
                  else [r[0] for r in rows])
    return w.reindex(columns=order).reset_index()


def scenario_rows(result, choose: dict, crit: str) -> pd.DataFrame:
    """Our result rows under one scenario: per row the chosen variant's cell and tB3x2cv's
    criterion (the one-sided rows renamed ``tB3x2cv`` so the paper's column matches)."""
    o = _ours(result)
    if o.empty:
        return o
    if "variant" not in o.columns:
        o = o.assign(variant="default")

    def want(r: pd.Series) -> str:
        comp = r.get("comparison")
        if isinstance(comp, str) and comp in choose:
            return choose[comp]
        tab = r.get("table")
        return choose.get(int(tab), "default") if pd.notna(tab) and tab == tab else "default"

    o = o[o["variant"] == o.apply(want, axis=1)]
    if crit == "one-sided":
        o = o[o["test"] != "tB3x2cv"].copy()
        o.loc[o["test"] == ONE_SIDED, "test"] = "tB3x2cv"
    else:
        o = o[o["test"] != ONE_SIDED]
    return o
