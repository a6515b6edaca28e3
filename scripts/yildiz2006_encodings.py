"""Why NMC and 1-NN miss Yıldız & Alpaydın (2006) Table 1 on nominal data: the encoding check.

Runs :func:`simstudy.studies.yildiz2006.encodings.check` (NMC and 1-NN under three input
encodings on the same random 5×2 halves, beside the paper's Table 1) and prints the table;
``--out`` also writes it (the study's page reads
``figures/multitest/table1_encoding_check.md``).  From the repository's root::

    python scripts/yildiz2006_encodings.py --runs 10 [--sets car,nursery] [--out FILE.md]  (and FILE.csv)

A bad argument is one line on stderr and exit status 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's simstudy

from simstudy.cli import guarded  # noqa: E402
from simstudy.cli.args import ArgumentParser, arg_type  # noqa: E402
from simstudy.errors import SimstudyError  # noqa: E402
from simstudy.params import POSITIVE_INT  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    from simstudy.studies.yildiz2006.encodings import check, markdown
    from simstudy.studies.yildiz2006.grid import DATASETS

    ap = ArgumentParser(prog="python scripts/yildiz2006_encodings.py",
                        description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=arg_type("runs", POSITIVE_INT), default=10)
    ap.add_argument("--sets", default=None, help="comma-separated paper names (default: all)")
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args(argv)
    sets = a.sets.split(",") if a.sets else list(DATASETS)
    bad = [s for s in sets if s not in DATASETS]
    if bad:
        raise SimstudyError(f"unknown --sets {bad!r}; valid choices: {', '.join(DATASETS)}")
    df = check(a.runs, sets)
    text = markdown(df, a.runs)
    print(text)
    if a.out:  # the table beside its page, so the page's numbers are read from a CSV
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text)
        df.to_csv(a.out.with_suffix(".csv"), index=False)
    return 0


if __name__ == "__main__":
    raise SystemExit(guarded(main))
