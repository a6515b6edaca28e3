"""What a change of the data moved in ``figures/replicability``: compares the committed
``summary.csv`` and ``table1.csv`` of a git revision (before) with the ones in the working
tree (after) and writes ``figures/replicability/domains_moved.csv``
(:func:`simstudy.studies.bouckaert2004.tables.moved`), which the results page turns into
its "moved" section.

Usage: ``python scripts/replicability_moved.py REV`` (REV: the commit whose tables are the
"before", e.g. the last one before the sets were read over their declared domains).
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pandas as pd
from simstudy.studies.bouckaert2004.tables import moved

ROOT = Path(__file__).resolve().parents[1]
FIG = ROOT / "figures" / "replicability"


def _at(rev: str, name: str) -> pd.DataFrame:
    text = subprocess.run(["git", "show", f"{rev}:figures/replicability/{name}"], cwd=ROOT,
                          capture_output=True, text=True, check=True).stdout
    return pd.read_csv(io.StringIO(text))


def main(rev: str) -> int:
    df = moved(_at(rev, "summary.csv"), pd.read_csv(FIG / "summary.csv"),
               _at(rev, "table1.csv"), pd.read_csv(FIG / "table1.csv"))
    df.to_csv(FIG / "domains_moved.csv", index=False)
    s, t = df[df["kind"] == "summary"], df[df["kind"] == "table1"]
    print(f"summary: {int(s['changed'].sum())} of {len(s)} changed on the first seed; "
          f"table 1: {int(t['changed'].sum())} of {len(t)}")
    return 0


if __name__ == "__main__":
    from argparse import ArgumentParser

    ap = ArgumentParser(prog="python scripts/replicability_moved.py",
                        description=__doc__.splitlines()[0])
    ap.add_argument("rev", help="the commit whose tables are the 'before'")
    sys.exit(main(ap.parse_args().rev))
