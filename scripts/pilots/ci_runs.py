"""The run plan of ci-synthetic and ci-real on a shared machine: phases, cheapest first.

Each phase is one call of the normal runner (:func:`simstudy.run`, serial, one BLAS
thread): a study, a cell filter and a run count.  The runner is resumable, so a later phase
with more runs of the same cells only adds the missing trials, and a run stopped at any
point leaves whole chunks stored.  The phases go from every cheap cell at a few runs to
1000 runs, with the costly random-forest cells (rf-reg in nested cv costs about 40 s of CPU
per trial at n = 100) at few runs; wall and CPU seconds of each phase are appended to
``--log`` (CSV), the store's ``runs`` table keeps each invocation.

Stores: ``--stores``/ci-synthetic.sqlite and ci-real.sqlite (not committed; the shipped
trials are exported from them).
"""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pilot import commit, parser  # noqa: E402

from simstudy.errors import guarded  # noqa: E402

F100 = "friedman1[[]n=100]/*/"
PLAIN = ("holdout*", "1x10cv*", "resample*", "5x2")  # every design but nested cv
#: (study, filter, runs, chunk) in the order they run.  The shipped trials must keep the
#: wheel under 40 MB (about 12 MB for both studies): a shipped regression nested-cv trial
#: is 4.7 kB (float64 sums of 50 outer folds), so those cells stop at 200 runs (1000 runs
#: of the three lingauss sizes would add 14 MB); a 0/1 cell's five designs take about
#: 0.5 kB per run, so ci-real stops at 500 runs
PLAN: list[tuple[str, str, int, int]] = [
    ("ci-synthetic", "lingauss*", 200, 20),
    ("ci-synthetic", "logistic*", 200, 20),
    ("ci-real", "population*", 200, 20),
    *[("ci-synthetic", F100 + d, 50, 5) for d in PLAIN],
    *[("ci-synthetic", "lingauss*/" + d, 1000, 50) for d in PLAIN],
    ("ci-synthetic", "lingauss*/ncv*", 200, 50),
    ("ci-synthetic", "logistic*", 1000, 50),
    ("ci-real", "population*", 500, 50),
    ("ci-synthetic", F100 + "ncv*", 10, 1),
    *[("ci-synthetic", F100 + d, 100, 5) for d in PLAIN],
]


def main() -> int:
    ap = parser("ci_runs.py", __doc__)
    ap.add_argument("--stores", type=Path, default=Path("out"),
                    help="directory of the two stores (default out)")
    ap.add_argument("--log", type=Path, default=Path("out/ci_runs.csv"),
                    help="CSV of each phase's wall and CPU seconds (default out/ci_runs.csv)")
    ap.add_argument("--first", type=int, default=0, help="first phase to run (default 0)")
    args = ap.parse_args()
    import simstudy as ss
    from simstudy.blas import one_thread_for_good

    one_thread_for_good()  # as the runner's workers: one BLAS thread
    args.stores.mkdir(parents=True, exist_ok=True)
    at = commit()
    new = not args.log.exists()
    with args.log.open("a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["phase", "study", "filter", "runs", "trials_computed", "wall_s", "cpu_s",
                        "started", "commit"])
        for i, (study, filt, runs, chunk) in enumerate(PLAN):
            if i < args.first:
                continue
            w0, c0, t0 = time.perf_counter(), time.process_time(), time.time()
            r = ss.run(study, runs=runs, filter=filt, chunk=chunk, backend="serial",
                       store=args.stores / f"{study}.sqlite", progress=False, render="none")
            w.writerow([i, study, filt, runs, r.trials_computed,
                        round(time.perf_counter() - w0, 1), round(time.process_time() - c0, 1),
                        time.strftime("%H:%M:%S", time.localtime(t0)), at])
            fh.flush()
            print(f"phase {i} {study} {filt} {runs}: {r.trials_computed} trials, "
                  f"{time.process_time() - c0:.0f} s CPU", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(guarded(main))
