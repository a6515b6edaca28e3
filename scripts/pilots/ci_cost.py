"""CPU seconds per trial of every cell of ci-synthetic and ci-real, truth included.

Each cell runs a few trials (``--runs``; 1 for the random-forest cells of nested cv and
n = 1600, whose trials take minutes) through the runner's chunk computation
(:func:`simstudy.runner.compute_chunk`, losses and truth kept as the studies keep them),
with one BLAS thread as in the runner's workers.  Runs start at ``--first`` so that the
truths (cached per process, shared by the cells of a source) are computed inside the timed
cell of each source's first design and charged to it, as a study run charges them.
Written to ``figures/pilots/ci_cost.csv``.  A cost, not a result.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _pilot import commit, parser  # noqa: E402

from simstudy.cli import guarded  # noqa: E402


def main() -> int:
    ap = parser("ci_cost.py", __doc__, runs=2)
    ap.add_argument("--first", type=int, default=5000, help="first run index (default 5000)")
    args = ap.parse_args()
    import pandas as pd

    from simstudy.blas import one_thread_for_good
    from simstudy.catalog import get_study
    from simstudy.planning import Chunk
    from simstudy.runner import compute_chunk

    one_thread_for_good()
    at = commit()
    rows = []
    for name in ("ci-synthetic", "ci-real"):
        study = get_study(name)
        for cell in study.cells:
            slow = "rf-reg" in cell.learners and ("ncv" in cell.design or "1600" in cell.source)
            runs = tuple(range(args.first, args.first + (1 if slow else args.runs)))
            w0, c0 = time.perf_counter(), time.process_time()
            compute_chunk(Chunk(name, cell, runs, study.seed, 0.05, True, True))
            w1, c1 = time.perf_counter(), time.process_time()
            rows.append((name, cell.id, len(runs), (w1 - w0) / len(runs), (c1 - c0) / len(runs)))
            print(f"{name} {cell.id}: {(c1 - c0) / len(runs):.3f} s CPU per trial", flush=True)
            out = args.out
            out.mkdir(parents=True, exist_ok=True)
            pd.DataFrame(rows, columns=["study", "cell", "runs", "wall_s", "cpu_s"]).assign(
                commit=at).to_csv(out / "ci_cost.csv", index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(guarded(main))
