"""``python -m simstudy perf [ACTION]``: the benchmarks, each a function of
:mod:`simstudy.perf` (or :func:`simstudy.report.baselines.benchmark`) that ``noxfile.py``
calls the same way.

With no action, the learner benchmark (:func:`simstudy.perf.learners.benchmark`): each fast
learner path beside its reference.  The actions write their results with the commit:

* ``card`` -- a report card over every shipped trial (:mod:`simstudy.perf.card`);
* ``startup`` -- README's command 1 through a terminal; a one-cell run's fixed overhead
  (:mod:`simstudy.perf.startup`);
* ``cluster`` -- shards + merge against one run, cooperating runs against independent ones
  (:mod:`simstudy.perf.cluster`);
* ``weka`` -- Weka 3.6.14 itself beside ``wnb``, ``j48``, ``ib1`` (:mod:`simstudy.perf.weka_peer`);
* ``compare`` -- ``compare``'s one set of fits against mlxtend's calls (:mod:`simstudy.perf.compare`);
* ``baselines`` -- every new test of the baselines table on synthetic trials.

Parsing only: each command imports what it runs when it runs.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import SimstudyError
from ..params import POSITIVE_INT
from .args import ArgumentParser, arg_type

ACTIONS = ("card", "startup", "cluster", "weka", "compare", "baselines")


def add_perf_parser(sub) -> None:
    pf = sub.add_parser(
        "perf", help="benchmarks: fast learner paths against scikit-learn (no action), or "
                     "ACTION: " + ", ".join(ACTIONS),
        description="With no action: time each fast learner path beside its scikit-learn "
                    "reference, in one process on the same masks.  An action runs another "
                    "benchmark and writes its .json and .md with the commit.")
    pf.add_argument("--quick", dest="learners_quick", action="store_true",
                    help="(no action) 100 models per entry, fewer reference fits")
    pf.add_argument("--json", dest="json_path", default=None,
                    help="(no action) write the entries as JSON here")
    acts = pf.add_subparsers(dest="perf_command", metavar="ACTION",
                             parser_class=ArgumentParser)

    c = acts.add_parser("card", help="a report card over every shipped trial: wall, CPU, "
                                     "first output")
    c.add_argument("--cases", default=None,
                   help="comma-separated cases (default all: pooled_t, pooled_t-per-trial, "
                        "corrected_t, corrected_t-per-trial)")
    c.add_argument("--repeat", type=arg_type("repeat", POSITIVE_INT), default=3,
                   help="runs per case (median; default 3)")
    c.add_argument("--no-figures", action="store_true", help="time the card without figures")
    c.add_argument("--out", type=Path, default=None,
                   help="where perf-card.json and perf-card.md go (default figures/)")

    def stem_and_repeats(p: argparse.ArgumentParser, name: str, repeats: int,
                         what: str) -> None:
        """``--out STEM`` (STEM.json and STEM.md) and ``--repeats N`` (the medians' count)."""
        p.add_argument("--out", default=f"figures/perf-{name}",
                       help=f"output stem: OUT.json and OUT.md (figures/perf-{name})")
        p.add_argument("--repeats", type=arg_type("repeats", POSITIVE_INT), default=repeats,
                       help=f"{what} ({repeats})")

    s = acts.add_parser("startup", help="README's command 1 through a terminal, numba's cache "
                                        "warm and cold; a one-cell run's fixed overhead")
    stem_and_repeats(s, "startup", 3, "repetitions (medians reported)")

    cl = acts.add_parser("cluster", help="shards + merge against one run; cooperating runs "
                                         "against independent ones")
    stem_and_repeats(cl, "cluster", 2, "cooperation repeats")
    cl.add_argument("--study", default="type1", help="the sharded study (default type1)")
    cl.add_argument("--runs", type=arg_type("runs", POSITIVE_INT), default=100,
                    help="runs of the sharded study")
    cl.add_argument("--coop-runs", type=arg_type("coop-runs", POSITIVE_INT), default=3000,
                    help="runs of demo per run")

    w = acts.add_parser("weka", help="JIT-warm Weka 3.6.14 beside wnb, j48 and ib1 on the "
                                     "same credit-g splits, per fit and per cell")
    stem_and_repeats(w, "weka", 3, "repetitions (Weka, ours on 1 thread, ours on all); "
                                   "medians reported")
    w.add_argument("--quick", action="store_true",
                   help="2 runs of the cell, short warm-up (a smoke test)")
    w.add_argument("--weka", default=None, help="weka.jar (default: $WEKA_JAR, then Debian's)")

    cp = acts.add_parser("compare", help="compare's one set of fits against mlxtend's two "
                                         "calls, wall and CPU apart")
    stem_and_repeats(cp, "compare", 5, "repeats")

    b = acts.add_parser("baselines", help="time every new test of the baselines table on "
                                          "synthetic trials of the stored shape")
    b.add_argument("--trials", type=arg_type("trials", POSITIVE_INT), default=500_000,
                   help="synthetic 5x2 trials (500000)")


def cmd_perf(args: argparse.Namespace) -> int:
    action = args.perf_command
    if action is not None and (args.learners_quick or args.json_path is not None):
        raise SimstudyError(f"--quick and --json belong to the learner benchmark (perf with "
                            f"no action), not to perf {action!r}")
    if action is None:
        from ..perf.learners import benchmark

        benchmark(quick=args.learners_quick, json_path=args.json_path)
    elif action == "card":
        from ..perf import card

        cases = list(card.CASES) if args.cases is None else \
            [c.strip() for c in args.cases.split(",") if c.strip()]
        res = card.measure(cases, args.repeat, figures=not args.no_figures)
        out = card.write(res) if args.out is None else card.write(res, args.out)
        print("wrote " + " and ".join(map(str, out)))
    elif action == "startup":
        from ..perf import startup

        res = startup.measure(args.repeats)
        startup.write(res, args.out)
        print(startup.render(res))
    elif action == "cluster":
        from ..perf import cluster

        res = cluster.measure(args.study, args.runs, args.coop_runs, args.repeats)
        cluster.write(res, args.out)
        print(cluster.render(res))
    elif action == "weka":
        from ..perf import weka_peer

        out = Path(args.out)
        if not out.parent.is_dir():  # before minutes of measuring, not after
            raise SimstudyError(f"--out {args.out!r}: directory {str(out.parent)!r} does not "
                                "exist")
        js, md = weka_peer.write(weka_peer.measure(args.repeats, args.quick, args.weka), out)
        print(md.read_text())
        print(f"wrote {js} and {md}")
    elif action == "compare":
        from ..perf.compare import write

        print(*write(args.out, repeats=args.repeats), sep="\n")
    else:
        from ..report.baselines import benchmark

        print(benchmark(args.trials).to_string(index=False))
    sys.stdout.flush()
    return 0
