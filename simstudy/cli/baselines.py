"""``python -m simstudy baselines STUDY --store STORE``: the baselines table of a study
(:func:`simstudy.report.baselines.baselines_table`, written by
:func:`~simstudy.report.baselines.write_baselines`)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from ..params import ALPHA, RUNS, SEED
from .args import arg_type


def add_baselines_parser(sub) -> None:
    p = sub.add_parser(
        "baselines", help="the baselines table of a study: the tests proposed since 1998 "
                          "beside the classic ones, from its stored trials (no refit)",
        description="Write DIR/baselines.{md,csv,tex}: per cell, learner pair and test, the "
                    "size, power or reject rate with its Wilson interval, the Bayesian "
                    "shares and the replicability, from the stored trials.")
    p.add_argument("study", help="study name (python -m simstudy list)")
    p.add_argument("--store", required=True, help="store path (.sqlite or .sqlite.gz)")
    p.add_argument("--out", type=Path, help="output directory (default figures/STUDY)")
    p.add_argument("--alpha", type=arg_type("alpha", ALPHA), default=None)
    p.add_argument("--runs", type=arg_type("runs", RUNS), default=None)
    p.add_argument("--seed", type=arg_type("seed", SEED), default=None)


def cmd_baselines(args: argparse.Namespace) -> int:
    from ..report.baselines import baselines_table, write_baselines

    t0 = time.perf_counter()
    table = baselines_table(args.store, args.study, alpha=args.alpha, runs=args.runs,
                            seed=args.seed)
    for path in write_baselines(table, args.out or Path("figures") / args.study):
        print(f"wrote {path}")
    print(f"{len(table)} rows in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0
