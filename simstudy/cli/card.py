"""``python -m simstudy card``: the command line of :mod:`simstudy.testcard`.

Kept apart from :mod:`simstudy.testcard` so that building the parser imports nothing heavy.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path

from ..errors import SimstudyError
from ..params import ALPHA, RUNS, SEED
from .args import arg_type


def note_local_store() -> None:
    """With no --store, one line when a store in the current folder is not read."""
    from ..usertest import local_store_hint

    hint = local_store_hint()
    if hint:
        print(f"note: {hint}", file=sys.stderr, flush=True)


def add_card_parser(sub) -> None:
    c = sub.add_parser(
        "card", help="a new test's report card: size, power, replicability vs the baselines",
        description="Evaluate a new test on stored trials (no learner is fitted) and write its "
                    "report card (md, csv, png, html): size on H0 cells with a calibration "
                    "plot, power on H1 cells, replicability where data sets are repeated, and "
                    "a summary ranking it among the baselines.")
    what = c.add_mutually_exclusive_group(required=True)
    what.add_argument("--test",
                      help="MODULE:FUNCTION or path/to/file.py:FUNCTION, called as "
                           "f(d, *, n_train, n_test[, losses])")
    what.add_argument("--interval",
                      help="an interval method's card instead: MODULE:FUNCTION or "
                           "path/to/file.py:FUNCTION, called as g(fold_losses, design, a, b) "
                           "-> (low, high); coverage and width beside every baseline "
                           "interval method on the interval studies' trials")
    c.add_argument("--studies", default=None,
                   help="comma-separated registered studies (default: every study whose "
                        "trials ship; with --interval: the interval studies)")
    c.add_argument("--level", type=arg_type("level", ALPHA), default=None,
                   help="--interval: the intervals' level (default: the function's declared "
                        "g.confidence, else 0.9)")
    c.add_argument("--store", action="append", default=None,
                   help="store file (repeat, or separate with commas, for several; each study "
                        "is read from the first that holds it; default: the shipped trials "
                        "alone -- a store is read only when named, never picked up from the "
                        "current folder)")
    c.add_argument("--out", type=Path, help="output directory (default out/card-FUNCTION)")
    c.add_argument("--alpha", type=arg_type("alpha", ALPHA), default=0.05, help="significance level (0.05)")
    c.add_argument("--name", help="the new test's name in the card (default: FUNCTION)")
    c.add_argument("--runs", type=arg_type("runs", RUNS), help="use the first RUNS runs per cell")
    c.add_argument("--seed", type=arg_type("seed", SEED), help="root seed (default: the one the store holds)")
    c.add_argument("--no-figures", action="store_true", help="skip the png figures")


def cmd_card(args: argparse.Namespace) -> None:
    if args.interval is not None:
        cmd_interval_card(args)
        return
    if args.level is not None:
        raise SimstudyError(f"--level {args.level!r} is for an interval method's card "
                            "(--interval); a test's card takes --alpha")
    from ..trials import shipped_studies

    studies, store = _located(args, args.test, shipped_studies)
    from ..api import card, output_folder
    from ..report.card import summary_screen, write_card

    # a bad --out fails before the card is computed
    with contextlib.nullcontext() if args.out is None else output_folder(args.out):
        c = card(args.test, studies, store, name=args.name, alpha=args.alpha, runs=args.runs,
                 seed=args.seed, log=lambda line: print(line, file=sys.stderr, flush=True))
        out = args.out or Path("out") / f"card-{c.name}"
        written = write_card(c, out, figures=not args.no_figures)
    print(c.verdict)
    print(f"report card of {c.name!r} at alpha={c.alpha}: {c.trials:,} stored trials "
          f"({c.pairs:,} pairs of learners evaluated), no learner fitted, "
          f"{c.seconds['total']:.1f} s")
    _print_rest(c, summary_screen(c), written)


def _located(args: argparse.Namespace, what: str, default) -> tuple[list[str], list | None]:
    """The studies asked for (``default()`` without --studies) and the stores named (None:
    the shipped trials alone), after one line at once, before the trials are located: a
    card over a million trials takes a while, and a pipe or a log gets no progress bar."""
    if args.studies is None:
        studies = list(default())
    else:
        studies = [s.strip() for s in args.studies.split(",") if s.strip()]
        if not studies:
            raise SimstudyError(f"--studies {args.studies!r} names no study")
    source = ", ".join(args.store) if args.store else "the shipped trials"
    print(f"card {what}: locating the trials of {', '.join(studies)} in {source} ...",
          file=sys.stderr, flush=True)
    if not args.store:
        note_local_store()
    # no --store: the shipped trials alone
    store = None if args.store is None else [p for arg in args.store for p in arg.split(",") if p]
    return studies, store


def cmd_interval_card(args: argparse.Namespace) -> None:
    """``card --interval file.py:g``: the interval card, written to --out."""
    from ..intervalcard import interval_studies

    studies, store = _located(args, args.interval, interval_studies)
    from ..api import card, output_folder
    from ..report.intervalcard import coverage_screen, write_interval_card

    # a bad --out fails before the card is computed
    with contextlib.nullcontext() if args.out is None else output_folder(args.out):
        c = card(args.interval, studies, store, kind="interval", name=args.name,
                 level=args.level, runs=args.runs, seed=args.seed,
                 log=lambda line: print(line, file=sys.stderr, flush=True))
        written = write_interval_card(c, args.out or Path("out") / f"card-{c.name}")
    print(c.verdict)
    print(f"interval card of {c.name!r} at level {c.level:g}: {c.trials:,} stored trials, "
          f"no learner fitted, {c.seconds['total']:.1f} s")
    _print_rest(c, coverage_screen(c), written)


def _print_rest(c, screen, written) -> None:
    """What either card prints after its verdict and headline: each study's status (and
    where it was read from), the card's screen table, its notes (stderr), the files."""
    from ..report import to_markdown

    for r in c.studies.itertuples(index=False):
        where = f" from {r.read_from}" if getattr(r, "read_from", "") else ""
        why = f": {r.reason}" if r.reason else ""
        print(f"  {r.study}: {r.status}{where}{why}")
    print(to_markdown(screen), end="")
    for n in c.notes:
        print(f"note: {n}", file=sys.stderr)
    for p in written:
        print(f"wrote {p}")
