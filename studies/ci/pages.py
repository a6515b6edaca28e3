"""The interval studies' tables, figure and results pages: ``coverage.csv``/``.md``,
``cost.csv``, ``phases.csv`` and ``coverage_width.png`` from stored or shipped trials
(:func:`write_tables`, run by ``scripts/ci_tables.py``), and the generated sections of each
study's ``RESULTS.md`` from those committed tables."""

from __future__ import annotations

from .grid import NCV_DESIGNS

#: the methods the claims are about
NAIVE = ("naive-cv", "cv-clt[variance=naive]")
ROBUST = ("corrected-t", "conservative-z", "ncv")
#: a method is "near its level" in a row when its coverage is within this of the level
NEAR = 0.05


def write_tables(reader, study, out, phases=None) -> list:
    """``coverage.csv``/``.md`` (:func:`simstudy.interval_aggregate.coverage_table` of every
    cell the reader holds: a store or the shipped trials), ``cost.csv`` (runs and worker
    seconds per cell; with ``phases``, the run log of ``scripts/pilots/ci_runs.py``,
    ``phases.csv``) and the figure ``coverage_width.png`` in ``out``."""
    from pathlib import Path

    import pandas as pd

    from simstudy.interval_aggregate import LEVEL, coverage_counts, coverage_table
    from simstudy.report.tables import to_markdown

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    df = coverage_table(coverage_counts(reader, study))
    df.insert(0, "level", LEVEL)
    df.to_csv(out / "coverage.csv", index=False)
    show = df[["cell", "method", "target", "runs", "coverage", "coverage_low", "coverage_high",
               "coverage_unconditional", "below_share", "above_share", "width"]]
    (out / "coverage.md").write_text(
        f"# {study.name}: coverage at level {LEVEL} per cell, method and target\n\n"
        "Coverage of the conditional truth with its Wilson 95 % interval, of the "
        "unconditional truth, the shares missed below and above, the mean width.\n\n"
        + to_markdown(show, 3))
    hold = reader.holdings([c.id for c in study.cells])
    manifest = getattr(reader, "manifest", None)
    paths = [out / "coverage.csv", out / "coverage.md"]
    if manifest is not None:  # shipped trials: the worker seconds each cell recorded
        c = pd.DataFrame([{"cell": g["cell"], "trials": g["trials"],
                           "seconds": g["worker_seconds"]} for g in manifest["groups"]])
    else:
        c = reader.cost()
        c = c[c["study"] == study.name][["cell", "trials", "seconds"]]
    c = c.merge(hold[["cell", "runs"]], on="cell", how="left")
    c["seconds_per_trial"] = c["seconds"] / c["trials"]
    c.to_csv(out / "cost.csv", index=False)
    paths.append(out / "cost.csv")
    if phases is not None:
        p = pd.read_csv(phases)
        p[p["study"] == study.name].to_csv(out / "phases.csv", index=False)
        paths.append(out / "phases.csv")
    paths.append(_figure(df, study.name, out / "coverage_width.png"))
    return paths


def _figure(df, name: str, path):
    """Coverage of the conditional truth against mean width (log), one point per cell and
    target, one colour per method; a panel per source family and kind of target."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    from matplotlib import ticker

    fam = df["source"].str.replace(r"\[.*", "", regex=True)
    fam = np.where(fam == "population", "population data", fam)
    kind = np.where(df["target"].str.startswith("difference"), "difference", "one learner")
    fams, kinds = sorted(set(fam)), ["one learner", "difference"]
    methods = sorted(df["method"].unique())
    colours = plt.get_cmap("tab10")
    # one panel column still needs the legend's width
    fig, axes = plt.subplots(2, len(fams), figsize=(max(3.6 * len(fams), 7.5), 6.4),
                             squeeze=False, sharey=True)
    for (r, k), (c, f) in ((rk, cf) for rk in enumerate(kinds) for cf in enumerate(fams)):
        ax = axes[r][c]
        sel = (fam == f) & (kind == k)
        for i, m in enumerate(methods):
            s = df[sel & (df["method"] == m)]
            if len(s):
                ax.scatter(s["width"], s["coverage"], s=14, color=colours(i % 10),
                           label=m, alpha=0.8)
        ax.axhline(df["level"].iloc[0], color="k", lw=0.8, ls="--")
        ax.set_xscale("log")
        # plainly written decades (and their 2 and 5 where a panel spans under two
        # decades); no labels on the minor ticks, which overlapped
        lo, hi = ax.get_xlim()
        subs = (1.0, 2.0, 5.0) if np.log10(hi / lo) < 2 else (1.0,)
        ax.xaxis.set_major_locator(ticker.LogLocator(base=10, subs=subs))
        ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.xaxis.set_minor_formatter(ticker.NullFormatter())
        ax.set_title(f"{f}: {k}", fontsize=9)
        ax.set_xlabel("mean width")
    for row in axes:
        row[0].set_ylabel("coverage of the conditional truth")
    handles = {h.get_label(): h for ax in axes.ravel() for h in ax.collections}
    fig.legend(handles.values(), handles.keys(), fontsize=7, loc="lower center",
               ncol=min(len(handles), 5))
    fig.subplots_adjust(bottom=0.2)
    fig.suptitle(f"{name}: coverage against width per method", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=110, metadata={"Software": None})
    plt.close(fig)
    return path


def _method_summary(df):
    """Per method: rows, mean coverage of each truth, rows under-covering (the Wilson
    upper bound below the level), rows near the level (within :data:`NEAR`)."""
    import pandas as pd

    level = float(df["level"].iloc[0])
    g = df.assign(under=df["coverage_high"] < level,
                  near=(df["coverage"] - level).abs() <= NEAR,
                  under_u=df["coverage_unconditional"] < level - NEAR)
    rows = []
    for m, s in g.groupby("method", sort=True):
        rows.append({"method": m, "rows": len(s), "runs": f"{s['runs'].min()}-{s['runs'].max()}",
                     "coverage": s["coverage"].mean(),
                     "coverage_unconditional": s["coverage_unconditional"].mean(),
                     "under": int(s["under"].sum()), "near": int(s["near"].sum()),
                     "not_below_level": float((s["coverage"] >= level - NEAR).mean()),
                     "width": s["width"].median()})
    return pd.DataFrame(rows)


def _page(out, title: str) -> list:
    from pathlib import Path

    import pandas as pd

    from simstudy.report.tables import to_markdown

    out = Path(out)
    if not (out / "coverage.csv").is_file():
        return [("summary", f"# {title}\n\nNo committed tables yet (coverage.csv).")]
    df = pd.read_csv(out / "coverage.csv")
    level = float(df["level"].iloc[0])
    runs = df.groupby("cell")["runs"].first()
    head = (f"# {title}\n\n{len(runs)} cells, {int(runs.min())} to {int(runs.max())} runs per "
            f"cell ({int(runs.sum())} trials); intervals at level {level}; targets: each "
            "learner's error and the difference of the two.  Truths: each trial's fitted "
            "models' errors on fresh data, stored with the trial (conditional), and their "
            "mean over the cell's runs (unconditional).  Tables: `coverage.csv` (every "
            "cell, method and target, with Wilson 95 % intervals), `coverage.md`; figure "
            "`coverage_width.png`; cost `cost.csv`" +
            (", `phases.csv`" if (out / "phases.csv").is_file() else "") + ".")
    summ = _method_summary(df)
    sections = [("summary", head),
                ("methods", "## Per method\n\n"
                 f"Over its (cell, target) rows: mean coverage of the conditional and the "
                 f"unconditional truth; `under`: rows whose coverage's Wilson upper bound is "
                 f"below {level}; `near`: rows within {NEAR} of {level}; `not_below_level`: "
                 f"share of rows with coverage at least {level - NEAR:.2f}; median width.\n\n"
                 + to_markdown(summ, 3))]
    sections.append(("claims", "## The papers' claims, checked\n\n" + _claims(df, summ, level)))
    if (out / "cost.csv").is_file():
        c = pd.read_csv(out / "cost.csv")
        txt = (f"## Cost\n\nWorker seconds stored with the trials (wall time inside the "
               f"runner's chunk, truth included): {c['seconds'].sum():.0f} s for "
               f"{int(c['trials'].sum())} trials.")
        if (out / "phases.csv").is_file():
            p = pd.read_csv(out / "phases.csv")
            computed = int(pd.to_numeric(p["trials_computed"], errors="coerce").sum())
            start = pd.to_timedelta(p["started"]).dt.total_seconds()
            span = float((start + p["wall_s"]).max() - start.min())  # phases may overlap
            commits = list(dict.fromkeys(p["commit"].astype(str)))
            txt += (f"  The run's phases (`phases.csv`, commit{'s' * (len(commits) > 1)} "
                    f"{', '.join(commits)}): "
                    f"{computed} trials computed in {p['cpu_s'].sum():.0f} s CPU (the runs "
                    f"and their workers) and {span:.0f} s wall from the first phase's start "
                    f"to the last one's end, on 2 cores"
                    + (" (the other trials' were computed by earlier, stopped invocations, "
                       "whose time counts in the worker seconds only)"
                       if computed < int(c["trials"].sum()) else "") + ".")
        sections.append(("cost", txt))
    return sections


def _claims(df, summ, level: float) -> str:
    lines = []
    naive = df[df["method"].isin(NAIVE)]
    if len(naive):
        u = naive[naive["coverage_high"] < level]
        worst = naive.sort_values("coverage").head(3)
        lines.append(
            f"**Naive cv under-covers** (Bates, Hastie & Tibshirani 2024: \"the standard "
            f"confidence intervals for prediction error derived from cross-validation may "
            f"have coverage far below the desired level\").  Rule: a row under-covers when "
            f"the Wilson upper bound of its coverage of the conditional truth is below "
            f"{level}.  Naive cv ({', '.join(NAIVE)}) under-covers in {len(u)} of "
            f"{len(naive)} rows; lowest: " + "; ".join(
                f"{r.method} on {r.cell} ({r.target}) {r.coverage:.3f} "
                f"[{r.coverage_low:.3f}, {r.coverage_high:.3f}]"
                for r in worst.itertuples()) + ".")
    ncv = df[df["method"].str.startswith("ncv")]
    if len(ncv):
        near = ncv[(ncv["coverage"] - level).abs() <= NEAR]
        lines.append(
            f"**Nested cv is near its level** (Bates et al.: \"intervals with approximately "
            f"correct coverage in many examples where traditional cross-validation intervals "
            f"fail\").  Rule: coverage of the conditional truth within {NEAR} of {level}.  "
            f"Nested cv is near its level in {len(near)} of {len(ncv)} rows, above it in "
            f"{int((ncv['coverage'] > level + NEAR).sum())} (conservative) and below it in "
            f"{int((ncv['coverage'] < level - NEAR).sum())} (mean coverage "
            f"{ncv['coverage'].mean():.3f}, range {ncv['coverage'].min():.3f} to "
            f"{ncv['coverage'].max():.3f}).")
    if len(summ):
        share = summ.set_index("method")["not_below_level"]
        mine = [m for m in share.index if m.split("[")[0] in ROBUST]
        others = [m for m in share.index if m not in mine]
        if mine and others:
            holds = share[mine].min() >= share[others].max()
            lines.append(
                f"**Corrected t, conservative Z and nested cv are the robust ones** "
                f"(Schulz-Kümpel et al. 2024).  Rule: a method is robust by its share of rows "
                f"with coverage of the conditional truth at least {level - NEAR:.2f}; the "
                f"claim holds when each of the three (all their variants) has a share at "
                f"least that of every other method.  Shares: " + ", ".join(
                    f"{m} {share[m]:.3f}" for m in share.sort_values(ascending=False).index)
                + f".  The claim {'holds' if holds else 'does not hold'} here.")
            if not holds:
                lines.append(_why(df, [m for m in mine if share[m] < share[others].max()],
                                  level))
    return "\n\n".join(lines) if lines else "No rows."


def _why(df, short: list[str], level: float) -> str:
    """Where a method falls short, on which side its misses fall."""
    out = []
    for m in short:
        s = df[(df["method"] == m) & (df["coverage"] < level - NEAR)]
        if not len(s):
            continue
        below, above = float(s["below"].sum()), float(s["above"].sum())
        side = ("below: the truth lies under the interval, whose centre is the error of models "
                "fitted on fewer than n instances (the design's training sets), larger than "
                "the error of the model fitted on all n" if below > above else
                "above: the interval lies under the truth")
        out.append(f"{m} falls short of {level - NEAR:.2f} in {len(s)} rows; of their misses "
                   f"{below / max(below + above, 1):.2f} are {side}.")
    return ("**Where we differ.**  " + " ".join(out)) if out else ""


def page_synthetic(out) -> list:
    """figures/ci-synthetic/RESULTS.md's generated sections from its committed tables."""
    return _page(out, "ci-synthetic: intervals for the generalization error on generated data")


def page_real(out) -> list:
    """figures/ci-real/RESULTS.md's generated sections from its committed tables."""
    return _page(out, "ci-real: intervals for the generalization error on data sets as "
                      "populations")


def page_ncv_reps(out) -> list:
    """figures/ci-ncv-reps/RESULTS.md's generated sections from its committed tables: per
    generator, target and nested-cv method, coverage and width under each design, and the
    difference the study's cut makes against the authors' setting."""
    from pathlib import Path

    import pandas as pd

    from simstudy.aggregate import newcombe_unpaired
    from simstudy.report.tables import to_markdown

    out = Path(out)
    title = "ci-ncv-reps: nested cv's folds and repetitions against the authors' setting"
    if not (out / "coverage.csv").is_file():
        return [("summary", f"# {title}\n\nNo committed tables yet (coverage.csv).")]
    df = pd.read_csv(out / "coverage.csv")
    level = float(df["level"].iloc[0])
    study, paper = NCV_DESIGNS[0], NCV_DESIGNS[-1]
    runs = df.groupby("cell")["runs"].first()
    head = (f"# {title}\n\n{len(runs)} cells, {int(runs.min())} to {int(runs.max())} runs per "
            f"cell: the three generators of `ci-synthetic` at n = 100 under `{study}` (the "
            f"design `ci-synthetic` and `ci-real` run), `{NCV_DESIGNS[1]}` and `{paper}` (the "
            "authors' package defaults).  Run r of every cell of a generator sees the same "
            f"data set, so the designs are compared on the same draws.  Intervals at level "
            f"{level}; tables `coverage.csv` (with Wilson 95 % intervals), `coverage.md`, "
            "`cost.csv`.")
    key = ["source", "target", "method"]
    wide = df.pivot_table(index=key, columns="design", values=["coverage", "width"],
                          aggfunc="first")
    rows = []
    for idx, _ in wide.iterrows():
        sel = df.set_index(key).loc[idx]
        mine, theirs = sel[sel["design"] == study].iloc[0], sel[sel["design"] == paper].iloc[0]
        lo, hi = newcombe_unpaired(int(mine["covered"]), int(mine["runs"]),
                                   int(theirs["covered"]), int(theirs["runs"]))
        row = dict(zip(key, idx, strict=True))
        for d in NCV_DESIGNS:
            row[f"coverage {d}"] = float(wide.loc[idx, ("coverage", d)])
        row["difference"] = float(mine["coverage"] - theirs["coverage"])
        row["difference_low"], row["difference_high"] = float(lo), float(hi)
        row["width ratio"] = float(mine["width"] / theirs["width"])
        rows.append(row)
    t = pd.DataFrame(rows)
    moved = t[(t["difference_low"] > 0) | (t["difference_high"] < 0)]
    worst = t.loc[t["difference"].abs().idxmax()]
    means = df.groupby("design")[["coverage", "width"]].mean().reindex(list(NCV_DESIGNS))
    verdict = (f"Rule: the cut moves a row's coverage when the Newcombe (1998) 95 % interval "
               f"of the difference (`{study}` minus `{paper}`; unpaired, so conservative for "
               f"designs run on the same data) excludes 0.  It does in {len(moved)} of "
               f"{len(t)} rows.  The largest difference is {worst['difference']:+.3f} "
               f"[{worst['difference_low']:+.3f}, {worst['difference_high']:+.3f}] "
               f"({worst['method']} on {worst['source']}, {worst['target']}).  Mean coverage "
               "per design: " + ", ".join(f"`{d}` {means.loc[d, 'coverage']:.3f}"
                                         for d in NCV_DESIGNS) +
               f"; the study's intervals are {t['width ratio'].median():.2f} times as wide as "
               "the authors' setting's (median over rows).")
    cost = ""
    if (out / "cost.csv").is_file():
        c = pd.read_csv(out / "cost.csv")
        c["design"] = c["cell"].str.rsplit("/", n=1).str[-1]
        per = c.groupby("design")["seconds_per_trial"].mean().reindex(list(NCV_DESIGNS))
        cost = ("\n\n## Cost\n\nWorker seconds per trial (truth included where the cell "
                "computed it), mean over generators: " + ", ".join(
                    f"`{d}` {per[d]:.2f} s" for d in NCV_DESIGNS) + ".")
    return [("summary", head),
            ("rows", "## Per generator, target and method\n\nCoverage of the conditional "
             "truth under each design; the difference of the study's design from the "
             "authors' setting with its Newcombe 95 % interval; the ratio of their mean "
             "widths.\n\n" + to_markdown(t, 3)),
            ("verdict", "## The cut, judged\n\n" + verdict + cost)]
