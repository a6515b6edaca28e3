"""The runs of ci-synthetic, ci-real and ci-ncv-reps, phase by phase, as they ran.

Each phase is one ``python -m simstudy run`` (``--jobs`` local worker processes, one BLAS
thread each) in a child process, so that its CPU seconds include its workers'.  The runner
is resumable, so a phase stopped at any point leaves whole chunks stored and a second call
adds only the missing trials; two invocations of one phase on one store share its work
units (each logs its own row).  Wall and CPU seconds of each phase are appended to
``--log`` (CSV) with the commit; the store's ``runs`` table keeps each invocation.

Stores: ``--stores``/STUDY.sqlite (not committed; the shipped trials are exported from them).
"""

from __future__ import annotations

import csv
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pilot import commit, parser  # noqa: E402

from simstudy.cli import guarded  # noqa: E402

#: (study, filter, runs, chunk, store) in the order they ran.  ci-synthetic's whole-study
#: phase was stopped at 20,700 trials: with two workers, each recomputed the truths of the
#: runs its chunks held (a k-NN truth at n = 1600 takes 2.5 s), so Friedman #1 at n = 1600 ran
#: in its own store, serial, beside the rest of the study (merged with ``simstudy merge``)
PLAN: list[tuple[str, str, int, int, str]] = [
    ("ci-real", "*", 1000, 50, "ci-real"),
    ("ci-synthetic", "*", 1000, 50, "ci-synthetic"),
    ("ci-synthetic", "friedman1[[]n=1600]*", 1000, 50, "ci-synthetic-f1600"),
    ("ci-synthetic", "friedman1[[]n=400]*", 1000, 50, "ci-synthetic"),
    ("ci-synthetic", "logistic*", 1000, 50, "ci-synthetic"),
    ("ci-ncv-reps", "*", 200, 10, "ci-ncv-reps"),
    ("ci-ncv-reps", "*", 500, 10, "ci-ncv-reps"),
]


def _children_cpu() -> float:
    """CPU seconds of the finished child processes (a phase's run and, through it, its
    workers)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> int:
    ap = parser("ci_runs.py", __doc__)
    ap.add_argument("--stores", type=Path, default=Path("out"),
                    help="directory of the two stores (default out)")
    ap.add_argument("--log", type=Path, default=Path("out/ci_runs.csv"),
                    help="CSV of each phase's wall and CPU seconds (default out/ci_runs.csv)")
    ap.add_argument("--first", type=int, default=0, help="first phase to run (default 0)")
    ap.add_argument("--only", choices=sorted({p[0] for p in PLAN}),
                    help="run this study's phases only")
    ap.add_argument("--phases", default=None, help="comma-separated phase numbers to run")
    ap.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    args = ap.parse_args()
    args.stores.mkdir(parents=True, exist_ok=True)
    at = commit()
    new = not args.log.exists()
    with args.log.open("a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["phase", "study", "filter", "runs", "trials_computed", "wall_s", "cpu_s",
                        "started", "commit"])
        wanted = None if args.phases is None else {int(x) for x in args.phases.split(",")}
        for i, (study, filt, runs, chunk, store) in enumerate(PLAN):
            if i < args.first or args.only not in (None, study) or (
                    wanted is not None and i not in wanted):
                continue
            w0, c0, t0 = time.perf_counter(), _children_cpu(), time.time()
            cmd = [sys.executable, "-m", "simstudy", "run", study, "--runs", str(runs),
                   "--filter", filt, "--chunk", str(chunk), "--jobs", str(args.jobs),
                   "--store", str(args.stores / f"{store}.sqlite"), "--no-render",
                   "--no-progress"]
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
            text, _ = proc.communicate()
            cpu = _children_cpu() - c0
            done = re.search(r"(\d+) trials computed", text)
            w.writerow([i, study, filt, runs, int(done.group(1)) if done else "",
                        round(time.perf_counter() - w0, 1), round(cpu, 1),
                        time.strftime("%H:%M:%S", time.localtime(t0)), at])
            fh.flush()
            print(f"phase {i} {study} {filt} {runs}: {(text.strip() or '?').splitlines()[-1]}; "
                  f"{cpu:.0f} s CPU", flush=True)
            if proc.returncode:
                return proc.returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(guarded(main))
