"""Pilot of ci-synthetic / ci-real: a few cells at a few runs, in memory, timed per trial.

Each cell of the study (``--study``, ``studies/ci/``) chosen by ``--filter`` runs ``--runs`` trials
through the runner's own chunk computation (:func:`simstudy.runner.compute_chunk`, per-instance
losses kept), then every interval method of the cell (its ``intervals`` label) is computed
at level 0.90 (Bates, Hastie & Tibshirani 2024's level) for learner 0's error and for the
difference learner 0 - learner 1, and checked against the conditional truth of the trial
(:func:`simstudy.interval_truth.conditional_truth`, 100 000 fresh instances) and against the
unconditional truth (the mean of the conditional truths over the pilot's runs).

Measured per trial, with one BLAS thread as in the runner's workers: wall and CPU seconds
of the fits (compute_chunk) and of the truth; the number of model fits.  Written to ``figures/pilots/NAME.md``, ``NAME_cost.csv``, ``NAME_coverage.csv``.  A cost, not a
result: at 20 runs a coverage has a standard error near 0.07.
"""

from __future__ import annotations

import fnmatch
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pilot import commit, parser, write_md  # noqa: E402

from simstudy.cli import guarded  # noqa: E402
from simstudy.designs import get_design  # noqa: E402
from simstudy.interval_truth import N_TRUTH, conditional_truth  # noqa: E402
from simstudy.planning import Chunk  # noqa: E402
from simstudy.runner import compute_chunk  # noqa: E402
from simstudy.stats.interval_registry import get_interval  # noqa: E402

LEVEL = 0.90
DEFAULT_FILTER = "lingauss[[]n=100]/*,logistic[[]n=100]/*,friedman1[[]n=100]/*/1x10cv*"


def _interval(method: str, rec, design, b: int | None, cell: str) -> tuple[float, float]:
    """One trial's interval at LEVEL; a bad one names the method, cell and run."""
    from simstudy.errors import SimstudyError

    try:
        return get_interval(method)(rec.losses, design, 0, b).confidence_interval(LEVEL)
    except SimstudyError as e:
        raise SimstudyError(f"cell {cell!r}, run {rec.run}: {e}") from None


def main() -> int:
    ap = parser("ci_pilot.py", __doc__, runs=20)
    ap.add_argument("--filter", default=DEFAULT_FILTER,
                    help="comma-separated globs of cell ids (default: the n=100 cells of "
                         "lingauss and logistic, friedman1's 1x10cv)")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--study", default="ci-synthetic", choices=("ci-synthetic", "ci-real"))
    ap.add_argument("--name", default="ci_pilot", help="output file stem (default ci_pilot)")
    args = ap.parse_args()
    from simstudy.blas import one_thread_for_good
    from simstudy.catalog import get_study

    one_thread_for_good()  # as the runner's workers (simstudy.execute): one BLAS thread
    at = commit()  # the code measured: read before the run, not after it
    study = get_study(args.study)
    pats = args.filter.split(",")
    cells = [c for c in study.cells if any(fnmatch.fnmatchcase(c.id, p) for p in pats)]
    if not cells:
        from simstudy.errors import SimstudyError

        raise SimstudyError(f"--filter {args.filter!r} matches no cell of {args.study}")
    runs = tuple(range(args.runs))
    cost, cover = [], []
    truths: dict[tuple[str, tuple[str, ...], int], object] = {}
    for cell in cells:
        design = get_design(cell.design)
        w0, c0 = time.perf_counter(), time.process_time()
        recs = compute_chunk(Chunk(study.name, cell, runs, args.seed, 0.05, keep_losses=True))
        w1, c1 = time.perf_counter(), time.process_time()
        for run in runs:
            key = (cell.source, cell.learners, run)
            if key not in truths:
                truths[key] = conditional_truth(cell, args.seed, run)
        w2, c2 = time.perf_counter(), time.process_time()
        T = len(runs)
        cost.append((cell.id, T, (w1 - w0) / T, (c1 - c0) / T, (w2 - w1) / T, (c2 - c1) / T,
                     len(cell.learners) * design.shape[0] * design.shape[1]))
        tr = [truths[(cell.source, cell.learners, r)] for r in runs]
        for target, b in (("error of learner 0", None), ("difference 0 - 1", 1)):
            cond = np.array([t.error[0] if b is None else t.diff(0, 1) for t in tr])
            uncond = float(cond.mean())
            for m in cell.label("intervals"):
                if b is not None and "binomial" in m:  # one learner's 0/1 error only
                    continue
                ci = np.array([_interval(m, r, design, b, cell.id) for r in recs])
                lo, hi = ci[:, 0], ci[:, 1]
                cover.append((cell.id, m, target, T, int(((lo <= cond) & (cond <= hi)).sum()),
                              int(((lo <= uncond) & (uncond <= hi)).sum()),
                              float((hi - lo).mean()), uncond))
        print(f"{cell.id}: {(w1 - w0) / T:.3f} s wall, {(c1 - c0) / T:.3f} s CPU per trial",
              flush=True)
    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    import pandas as pd

    from simstudy.report import to_markdown

    cdf = pd.DataFrame(cost, columns=["cell", "runs", "fit_wall_s", "fit_cpu_s", "truth_wall_s",
                                      "truth_cpu_s", "fits_per_trial"])
    vdf = pd.DataFrame(cover, columns=["cell", "method", "target", "runs", "covers_conditional",
                                       "covers_unconditional", "mean_width", "unconditional"])
    cdf.to_csv(out / f"{args.name}_cost.csv", index=False)
    vdf.to_csv(out / f"{args.name}_coverage.csv", index=False)
    load = os.getloadavg()
    # the whole page is this script's output: marked generated for the pages' number check
    lines = [f"# {args.study} pilot: {len(runs)} runs per cell, level {LEVEL}",
             "", "<!-- generated: ci_pilot.py -->", "",
             f"Commit {at}, root seed {args.seed}, truth on {N_TRUTH} fresh instances; "
             f"load average at the end {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f} "
             f"(1 / 5 / 15 min) on {os.cpu_count()} cores: wall times are inflated by "
             "other processes, CPU times less so.  Generated by scripts/pilots/ci_pilot.py.",
             "", "## Cost per trial (seconds)", "",
             "A truth is shared by the cells of its source and learner pair (one draw per "
             "source and run): it is computed, and timed, with the first such cell.", "",
             to_markdown(cdf, 4),
             "", "## Coverage (counts of runs) and mean width", "",
             to_markdown(vdf, 4), "", "<!-- end generated -->"]
    write_md(out, args.name, lines)
    return 0


if __name__ == "__main__":
    raise SystemExit(guarded(main))
