"""Recompute the known truths the gaussian and ban studies declare, and write them.

The H1 cells of ``gaussian`` (Wang, Li & Li 2016 §3.1) and ``ban`` (Bouckaert & Frank 2004
§4.4) have a true difference of error rates that can be computed ahead of time (it fits
learners: minutes), never at report time; :mod:`simstudy.truth` reads it from the
``truth.csv`` of each study's folder:

* ``studies/wang2016/truth.csv``: per Gaussian case and compared pair, ``runs`` x 5x2 models
  per learner, each trained on 100 of a fresh n = 200 sample and scored on 10,000
  independent cases (:func:`simstudy.truth.gaussian_true_diff`, seed 16; the committed file
  is of 20 runs);
* ``studies/bouckaert2004/ban/truth.csv``: sources 2-4, error(NB) - error(C4.5) = mean over
  the study's first ``sets`` training sets of acc(C4.5) - acc(NB), exact accuracies (the
  paper's accuracy row, in points: 2.77, 5.83, 11.27); source 1 is pure noise, where H0
  holds exactly for any two learners.

From the repository's root::

    python scripts/known_truth.py [RUNS [SETS]]     (defaults 20 and 100)
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's simstudy

from simstudy.truth import ANY, TRUTH_FILE, Known, gaussian_true_diff, write_known  # noqa: E402

#: sources under which H0 holds exactly for any two learners (checked in the tests with
#: random predictions of the 512 patterns)
EXACT_H0 = {
    "ban[src=1]": "the class is independent of the attributes, P(class) = 1/2: every "
                  "prediction has exact accuracy 0.5 (the paper's accuracy row: 0.0)",
}


def gaussian_known(runs: int) -> dict[tuple[str, str, str], Known]:
    from simstudy.studies.wang2016 import CASES, SIM_COMPARISONS

    out = {}
    for case in CASES:
        for pair in SIM_COMPARISONS.values():
            m, se = gaussian_true_diff(f"wang-case{case}", pair, runs=runs)
            out[(f"wang-case{case}", *pair)] = Known(
                False, m, se, f"gauss n_test=10000, {runs}x5x2 models, n_train=100")
            print(f"wang-case{case} {pair}: {m!r} (SE {se!r})", flush=True)
    return out


def ban_known(sets: int) -> dict[tuple[str, str, str], Known]:
    from simstudy.studies.bouckaert2004.ban import SEED, SOURCES, WEKA, exact_accuracies

    out = {(src, ANY, ANY): Known(True, 0.0, math.nan, why) for src, why in EXACT_H0.items()}
    for src in (s for s in SOURCES if s not in EXACT_H0):
        acc = exact_accuracies(src, list(WEKA), SEED, sets)
        d = acc[1] - acc[0]  # error(a) - error(b) = acc(b) - acc(a)
        m, se = float(d.mean()), float(d.std(ddof=1) / math.sqrt(sets))
        out[(src, *WEKA)] = Known(False, m, se, f"exact accuracy, {sets} training sets of 300")
        print(f"{src} {WEKA}: {m!r} (SE {se!r})", flush=True)
    return out


def main(argv: list[str]) -> int:
    from argparse import ArgumentParser

    ap = ArgumentParser(prog="python scripts/known_truth.py",
                        description=(__doc__ or "").splitlines()[0])
    ap.add_argument("runs", type=int, nargs="?", default=20,
                    help="runs of the Gaussian cases' truths (default 20)")
    ap.add_argument("sets", type=int, nargs="?", default=100,
                    help="training sets of the BAN sources' truths (default 100)")
    args = ap.parse_args(argv)
    runs, sets = args.runs, args.sets
    write_known(ROOT / "studies" / "bouckaert2004" / "ban" / TRUTH_FILE, ban_known(sets))
    write_known(ROOT / "studies" / "wang2016" / TRUTH_FILE, gaussian_known(runs))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
