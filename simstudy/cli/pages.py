"""``python -m simstudy pages``: write (or check) every generated page from the committed
tables (:mod:`simstudy.report.pages`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..errors import SimstudyError


def add_pages_parser(sub) -> None:
    p = sub.add_parser(
        "pages", help="write every generated page (RESULTS.md, FIDELITY.md, NUMBERS.md, "
                      "report.html, README's performance section) from the committed tables",
        description="Write every generated page of the repository from its committed CSVs "
                    "and benchmark files; --check writes nothing and exits 1 when a "
                    "committed page differs, or a hand-written page states a number no "
                    "committed CSV holds.")
    p.add_argument("--root", type=Path, default=None,
                   help="the repository (default: the one simstudy is installed from)")
    what = p.add_mutually_exclusive_group()
    what.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 when a page differs from its generation")
    what.add_argument("--out", type=Path,
                      help="write every page under this directory instead (same relative paths)")
    p.add_argument("--cards", action="store_true",
                   help="also the example report cards under examples/cards (seconds each)")


def cmd_pages(args: argparse.Namespace) -> int:
    from ..report import pages

    root = args.root or pages.ROOT
    if args.check and args.cards:
        raise SimstudyError("--check does not compare the example cards (each states the "
                            "seconds it took); drop --cards, or write them without --check")
    if args.check:
        stale = pages.check(root)
        for p in stale:
            print(f"differs from its generation: {p}")
        copies = pages.copies_differ(root)
        for c in copies:
            print(f"a copy differs from its source: {c}")
        unsourced = pages.unsourced_numbers(root)
        for page, line, num in unsourced:
            print(f"{page}:{line}: {num} is in no committed CSV")
        return 1 if stale or copies or unsourced else 0
    for p in pages.write(root, args.out, cards=args.cards):
        print(f"wrote {p}", file=sys.stderr)
    return 0
