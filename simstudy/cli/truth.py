"""``python -m simstudy truth``: recompute the known true differences
(:func:`simstudy.truth.compute_known`; fits learners, minutes), printed as the entries of
:data:`simstudy.truth.KNOWN`."""

from __future__ import annotations

import argparse

from ..params import POSITIVE_INT
from .args import arg_type


def add_truth_parser(sub) -> None:
    p = sub.add_parser(
        "truth", help="recompute the known true error differences of the H1 cells (minutes)",
        description="Fit the learners of the Gaussian and ban studies' H1 cells and print "
                    "each cell's true error difference, its Monte-Carlo standard error and "
                    "how it was computed, one line per entry of simstudy.truth.KNOWN.")
    p.add_argument("--gaussian-runs", type=arg_type("gaussian-runs", POSITIVE_INT), default=10,
                   help="runs x 5x2 models per learner on each Gaussian cell (10)")
    p.add_argument("--ban-sets", type=arg_type("ban-sets", POSITIVE_INT), default=100,
                   help="training sets per ban source (100)")


def cmd_truth(args: argparse.Namespace) -> int:
    from ..truth import compute_known

    compute_known(gaussian_runs=args.gaussian_runs, ban_sets=args.ban_sets)
    return 0
