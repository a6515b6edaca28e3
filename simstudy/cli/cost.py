"""``python -m simstudy cost STORE... --commit REV``: ``figures/REPRODUCE.md``, what a
reproduction cost, from its stores (:func:`simstudy.report.reproduce.write`)."""

from __future__ import annotations

import argparse


def add_cost_parser(sub) -> None:
    p = sub.add_parser(
        "cost", help="what a reproduction cost (figures/REPRODUCE.md): worker time per "
                     "study, learner and data set, from its stores",
        description="Write figures/REPRODUCE.md from a reproduction's stores: each trial's "
                    "worker seconds and each invocation's wall time.")
    p.add_argument("stores", nargs="+", help="the reproduction's stores")
    p.add_argument("--commit", required=True, help="the commit the stores were computed at")
    p.add_argument("--note", default="", help="a paragraph under the first")
    p.add_argument("--out", default="figures/REPRODUCE.md", help="the page to write")
    p.add_argument("--title", default=None, help="the page's heading (default 'What a "
                   "reproduction costs')")


def cmd_cost(args: argparse.Namespace) -> int:
    from ..report.reproduce import write

    out = write(args.stores, args.out, commit=args.commit, note=args.note, title=args.title)
    print(f"wrote {out}")
    return 0
