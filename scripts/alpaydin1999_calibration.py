"""Calibrate the epochs of Alpaydın (1999)'s paper variant against Table 2 (error rates only).

Runs :func:`simstudy.studies.alpaydin1999.calibration.calibrate_alpaydin` and writes the
table of candidates the studies read: ``studies/reference/alpaydin1999_calibration.csv``
(``--odr-rows``: ODR alone on its first ``odr_rows()`` cases, the ``odr-size`` hypothesis,
``alpaydin1999_calibration_odr_rows.csv``).  From the repository's root::

    python scripts/alpaydin1999_calibration.py [--runs 10] [--out CSV]
    python scripts/alpaydin1999_calibration.py --odr-rows [--runs 5]

A bad argument is one line on stderr and exit status 2.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's simstudy

from simstudy.cli import guarded  # noqa: E402
from simstudy.cli.args import ArgumentParser, arg_type  # noqa: E402
from simstudy.params import POSITIVE_INT  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    from simstudy.studies.alpaydin1999.calibration import (
        OUT,
        OUT_ODR_ROWS,
        calibrate_alpaydin,
        odr_source,
    )

    ap = ArgumentParser(prog="python scripts/alpaydin1999_calibration.py",
                        description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=arg_type("runs", POSITIVE_INT), default=10,
                    help="5x2 runs per data set (ODR: a third; with --odr-rows: all of them)")
    ap.add_argument("--out", default=None, help=f"default {OUT.name}, with --odr-rows "
                    f"{OUT_ODR_ROWS.name}")
    ap.add_argument("--odr-rows", action="store_true",
                    help="calibrate ODR alone on its first odr_rows() cases (study odr-size)")
    a = ap.parse_args(argv)
    if a.odr_rows:
        t = calibrate_alpaydin({"ODR": a.runs}, datasets=("ODR",),
                               sources={"ODR": odr_source()}, max_epochs={})
    else:
        runs = {"ODR": max(1, a.runs // 3)}
        runs.update({k: a.runs for k in ("IRIS", "WINE", "GLASS", "VOWEL")})
        t = calibrate_alpaydin(runs)
    t.to_csv(a.out or (OUT_ODR_ROWS if a.odr_rows else OUT), index=False)
    print(t[t["chosen"]][["dataset", "source", "epochs", "mad_pct"]].to_string(index=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(guarded(main))
