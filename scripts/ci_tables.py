"""Tables, figure and results page of ci-synthetic, ci-real or ci-ncv-reps from stored or shipped trials.

``python scripts/ci_tables.py ci-synthetic --trials out/ci-synthetic.sqlite`` reads a store
(or a shipped-trials directory, ``figures/ci-synthetic/trials``) and writes
``figures/<study>/coverage.csv``/``.md``, ``cost.csv`` (a store only), ``phases.csv``
(``--phases``: the log of ``scripts/pilots/ci_runs.py``) and ``coverage_width.png``
(``studies/ci/pages.py``: ``write_tables``); then ``python -m simstudy pages`` writes RESULTS.md
from them.
"""

from __future__ import annotations

import sys
import time
from argparse import ArgumentParser
from pathlib import Path

from simstudy.cli import guarded


def main() -> int:
    ap = ArgumentParser(prog="python scripts/ci_tables.py", description=__doc__.splitlines()[0])
    ap.add_argument("study", choices=("ci-synthetic", "ci-real", "ci-ncv-reps"))
    ap.add_argument("--trials", type=Path, required=True,
                    help="a store (.sqlite) or a shipped-trials directory")
    ap.add_argument("--out", type=Path, default=None, help="default figures/STUDY")
    ap.add_argument("--phases", type=Path, default=None, help="the run log (CSV) to copy")
    args = ap.parse_args()
    from simstudy.studies.ci.pages import write_tables

    from simstudy.catalog import get_study
    from simstudy.store import open_reader
    from simstudy.trials import ShippedTrials

    t0, c0 = time.perf_counter(), time.process_time()
    reader = ShippedTrials(args.trials) if args.trials.is_dir() else open_reader(args.trials)
    out = args.out or Path("figures") / args.study
    for p in write_tables(reader, get_study(args.study), out, args.phases):
        print(p)
    print(f"{time.perf_counter() - t0:.1f} s wall, {time.process_time() - c0:.1f} s CPU",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(guarded(main))
