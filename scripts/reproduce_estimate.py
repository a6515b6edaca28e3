"""What a reproduction would cost now, from a sample of each default study's runs.

``nox -s reproduce`` runs every default study at the papers' run counts (hours); this runs the
same studies, in the same order, into one new store at a fraction of their runs (the first
``k`` runs of every cell, ``k = ceil(fraction x runs)``; seeds and cells as at full scale),
each invocation timed with its workers (user + system CPU, wall), and scales each study's
CPU to the trials ``figures/REPRODUCE.md`` lists for it.  The fixed cost of an invocation
(start, reading the store) is measured by the same command again, when everything is stored,
and counted once:

    estimated CPU = fixed + (sampled CPU - fixed) x full trials / sampled trials

CPU time, not the trials' recorded seconds: those are wall time in the worker and grow with
the machine's load.

It is an estimate, labelled as one: the full reproduction's own figures stay in
``figures/REPRODUCE.md``.  Usage::

    python scripts/reproduce_estimate.py --fraction 0.02 --out figures/reproduce-estimate.md
"""

from __future__ import annotations

import argparse
import ast
import math
import os
import sqlite3
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def reproduce_studies() -> list[str]:
    """The studies ``nox -s reproduce`` runs, in its order (noxfile.py's REPRODUCE)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "REPRODUCE"
                                                for t in node.targets):
            return list(ast.literal_eval(node.value))
    raise SystemExit("noxfile.py has no REPRODUCE list")


def full_trials() -> dict[str, int]:
    """Trials per study of the committed full reproduction (figures/REPRODUCE.md)."""
    out = {}
    text = (ROOT / "figures" / "REPRODUCE.md").read_text()
    rows = text.split("| study | cells | trials |", 1)[1].splitlines()[2:]
    for row in rows:
        if not row.startswith("|"):
            break
        cells = [c.strip() for c in row.strip("|").split("|")]
        out[cells[0].strip("`")] = int(cells[2].replace(",", ""))
    return out


def runs_of(study: str) -> int:
    from simstudy.catalog import get_study

    return int(get_study(study).runs)


def timed(args: list[str]) -> tuple[float, float]:
    """Wall and CPU (user + system, with its workers) of one ``python -m simstudy`` command;
    a failed one ends the script with its stderr's tail."""
    from simstudy.perf.process import timed as run_timed

    try:
        return run_timed(args)
    except RuntimeError as e:
        raise SystemExit(str(e)) from None


def stored_trials(store: Path, study: str) -> int:
    if not store.exists():
        return 0
    con = sqlite3.connect(store)
    n = con.execute("SELECT count(*) FROM trials WHERE study=?", (study,)).fetchone()[0]
    con.close()
    return int(n)


def first_source(study: str) -> str:
    from simstudy.catalog import get_study

    return get_study(study).cells[0].source


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fraction", type=float, default=0.02, help="of each study's runs")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", default="figures/reproduce-estimate.md")
    a = ap.parse_args(argv)
    if not 0 < a.fraction <= 1:
        ap.error(f"--fraction must be in (0, 1], got {a.fraction!r}")
    from simstudy.perf.provenance import checkout

    commit = (checkout()["commit"] or "unknown")[:7]
    full = full_trials()
    load0 = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp, "sample.sqlite")
        for study in reproduce_studies():
            # numba compiles a kernel on its first call when its cache is cold: one run of
            # one data set first, in this process's cache, so the sample times no compiling
            timed(["run", study, "--runs", "1", "--filter", first_source(study) + "/",
                   "--store", str(Path(tmp, "warm.sqlite")), "--render", "none",
                   "--no-progress"])
        for study in reproduce_studies():
            k = max(1, math.ceil(a.fraction * runs_of(study)))
            before = stored_trials(store, study)
            cmd = ["run", study, "--runs", str(k), "--jobs", str(a.jobs), "--store",
                   str(store), "--render", "none", "--no-progress"]
            wall, cpu = timed(cmd)
            n = stored_trials(store, study) - before
            fixed = timed(cmd)[1]  # nothing left to compute
            if study not in full or n == 0:  # reuses another study's trials
                rows.append((study, k, n, wall, cpu, fixed, 0, cpu))
                continue
            est = fixed + max(0.0, cpu - fixed) * full[study] / n
            rows.append((study, k, n, wall, cpu, fixed, full[study], est))
            print(f"{study}: {n} trials sampled, {cpu:.1f} s CPU, estimated {est:,.0f} s",
                  flush=True)
    load1 = os.getloadavg()
    total = sum(r[7] for r in rows)
    sampled_cpu = sum(r[4] for r in rows)
    sampled_wall = sum(r[3] for r in rows)
    lines = [
        "# What a reproduction costs now: an estimate from a sample of runs", "",
        f"Measured at commit `{commit}` by `python scripts/reproduce_estimate.py --fraction "
        f"{a.fraction:g} --jobs {a.jobs}` on {os.cpu_count()} cores (numba's cache warmed "
        "first by one run of each study's first data set), load average "
        f"{load0[0]:.1f} at the start and {load1[0]:.1f} at the end.  Each default study (the "
        "order of `nox -s reproduce`) ran the first k runs of every cell into one store; its "
        "CPU less its fixed cost (the same command again, nothing left to compute) is scaled "
        "to the trials of the full reproduction in REPRODUCE.md, the fixed cost counted once.  "
        "An estimate, not a measured reproduction.", "",
        "| study | runs sampled | trials sampled | wall (s) | CPU (s) | fixed CPU (s) | "
        "full trials | estimated CPU at full scale |",
        "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for st, k, n, wall, cpu, fixed, nf, est in rows:
        lines.append(f"| `{st}` | {k} | {n:,} | {wall:.1f} | {cpu:.1f} | {fixed:.1f} | "
                     f"{nf:,} | {est / 3600:.2f} h ({est:,.0f} s) |")
    lines += ["", f"Sample: {sampled_wall / 60:.1f} min wall, {sampled_cpu:,.0f} s CPU.  "
              f"**Estimated full reproduction: {total / 3600:.2f} CPU-hours**, so at least "
              f"**{total / 3600 / a.jobs:.2f} h** of wall time on {a.jobs} cores kept busy "
              "(target ≤ 2 h).", ""]
    Path(a.out).write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
