"""``python -m simstudy compare``: the command line of :func:`simstudy.yourmodels.compare`.

Kept apart from :mod:`simstudy.yourmodels` so that building the parser imports nothing heavy.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..params import ALPHA, JOBS, SEED
from .args import arg_type


def add_compare_parser(sub) -> None:
    c = sub.add_parser(
        "compare", help="compare your models on your data: every test on one set of fits",
        description="Fit each model once per fold of a design, compute the tests on the same "
                    "fold losses, and show each verdict beside the test's size and power "
                    "measured on the shipped trials of that design.")
    c.add_argument("--data", required=True,
                   help="a data file (ARFF, CSV) or a bundled data set's name (see 'list')")
    c.add_argument("--models", nargs="+", required=True, metavar="MODEL",
                   help="two or more registered learners (j48, mlp-10, ...) or import paths "
                        "(sklearn.svm:SVC[C=10])")
    c.add_argument("--design", default="5x2cv", help="design (see 'list'; default 5x2cv)")
    c.add_argument("--tests", nargs="+", default=None,
                   help="test names, or 'all' (default: the design's recommended tests)")
    c.add_argument("--scoring", default=None,
                   help="a scikit-learn scorer name (loss = -score; default: 0/1 loss)")
    c.add_argument("--alpha", type=arg_type("alpha", ALPHA), default=0.05,
                   help="significance level (0.05)")
    c.add_argument("--seed", type=arg_type("seed", SEED), default=0, help="root seed (0)")
    c.add_argument("--jobs", type=arg_type("jobs", JOBS), default=1,
                   help="processes fitting folds of scikit-learn estimators (1; capped at "
                        "this machine's cores)")
    c.add_argument("--store", default=None,
                   help="keep the fold losses in this store; asked again, nothing is refitted")
    c.add_argument("--no-measured", action="store_true",
                   help="skip the size and power measured on the shipped trials")
    c.add_argument("--out", type=Path, help="also write compare.md, compare.csv, compare.html "
                                            "there")


def cmd_compare(args: argparse.Namespace) -> None:
    from ..api import out_dir
    from ..yourmodels import compare

    out = out_dir(args.out) if args.out is not None else None  # a bad path fails first
    tests = args.tests
    if tests == ["all"]:
        tests = "all"
    r = compare(args.models, args.data, design=args.design, tests=tests, seed=args.seed,
                scoring=args.scoring,
                jobs=args.jobs, alpha=args.alpha, store=args.store,
                measured=not args.no_measured)
    md = r.to_markdown()
    print(md, end="")
    print(f"{r.fits} models fitted, {r.seconds:.1f} s", file=sys.stderr)
    if out is not None:
        from ..report.html import markdown_to_html

        paths = [out / "compare.md", out / "compare.csv", out / "compare.html"]
        paths[0].write_text(md, encoding="utf-8")
        r.table.to_csv(paths[1], index=False)
        paths[2].write_text("<!doctype html><meta charset='utf-8'><title>compare</title>\n"
                            + markdown_to_html(md), encoding="utf-8")
        for p in paths:
            print(f"wrote {p}")
