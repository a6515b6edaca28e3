"""``python -m simstudy merge OUT IN...``: combine stores (:func:`simstudy.api.merge`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def add_merge_parser(sub) -> None:
    """The ``merge`` command's arguments (``python -m simstudy merge OUT IN...``)."""
    m = sub.add_parser("merge", help="combine stores (e.g. the shards of a job array) into "
                                     "a new store: same definitions, identical overlaps")
    m.add_argument("out", type=Path, help="the new store (must not exist)")
    m.add_argument("inputs", nargs="+", type=Path, help="stores to combine")


def cmd_merge(args: argparse.Namespace) -> int:
    """``python -m simstudy merge OUT IN...``: merge, then one line per input and study."""
    from ..api import merge

    s = merge(args.out, args.inputs, argv=sys.argv)
    for name, held, new in s.per_input:
        print(f"{name}: {held} trials, {new} new")
    for line in s.studies + s.notes:
        print(line)
    print(f"wrote {s.out}: {s.trials} trials, {s.results} results"
          + (f" ({s.overlapping} trials were in two inputs, identical)" if s.overlapping else ""))
    return 0
