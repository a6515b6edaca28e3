"""``python -m simstudy trials export|verify|info``: the shipped trials
(:func:`simstudy.trials.export`, :func:`simstudy.trials.verify`,
:func:`simstudy.trials.info_text`)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

from ..errors import SimstudyError


def add_trials_parser(sub) -> None:
    """The ``trials`` subcommand and its three actions (imports nothing heavy)."""
    t = sub.add_parser("trials", help="shipped trials: export a store, verify, describe",
                       description="The shipped trials: a study's stored trials in the "
                                   "compact form kept in the repository (figures/STUDY/"
                                   "trials), read by card and bench when no store is given.")
    ts = t.add_subparsers(dest="trials_command", metavar="ACTION")
    ex = ts.add_parser("export", help="write a store's trials of one study in the shipped form")
    ex.add_argument("store", help="result store (.sqlite or .sqlite.gz)")
    ex.add_argument("--study", required=True, help="the study to export (as the store names it)")
    ex.add_argument("--out", help="directory to write (default figures/STUDY/trials)")
    ex.add_argument("--max-file-mb", default="5", help="largest file in MB (5)")
    ex.add_argument("--no-check", action="store_true",
                    help="skip reading the export back and comparing it with the store")
    ex.add_argument("--no-progress", action="store_true", help="no progress bar")
    ve = ts.add_parser("verify", help="recompute a random sample of shipped trials from their "
                                      "seeds and compare bit for bit")
    ve.add_argument("--study", help="comma-separated studies (default: every shipped study)")
    ve.add_argument("--dir", action="append", help="a shipped-trials directory (repeatable)")
    ve.add_argument("--sample", default="0.001", help="fraction of each study's trials (0.001)")
    ve.add_argument("--seed", default="0", help="seed of the sample (0)")
    ve.add_argument("--out", help="also write one row per trial to this CSV file")
    ve.add_argument("--no-progress", action="store_true", help="no progress bar")
    inf = ts.add_parser("info", help="what is shipped: trials, cells, bytes, provenance")
    inf.add_argument("--study", help="comma-separated studies (default: every shipped study)")
    inf.add_argument("--dir", action="append", help="a shipped-trials directory (repeatable)")


def _number(name: str, text: str, kind: type, ok, want: str):
    try:
        v = kind(text)
    except (TypeError, ValueError):
        v = None
    if v is None or (isinstance(v, float) and not math.isfinite(v)) or not ok(v):
        raise SimstudyError(f"{name} must be {want}, got {text!r}")
    return v


def _readers(args: argparse.Namespace) -> list:
    from ..trials import ENV_DIRS, MANIFEST, ShippedTrials, open_path, shipped_dirs

    if args.dir:
        readers = []
        for d in args.dir:
            r = open_path(d)
            if r is None:
                raise SimstudyError(f"--dir {d!r} holds no shipped trials (no {MANIFEST})")
            readers.append(r)
        return readers
    found = shipped_dirs()
    if args.study:
        names = [s.strip() for s in args.study.split(",") if s.strip()]
        missing = [s for s in names if s not in found]
        if missing:
            raise SimstudyError(f"no shipped trials of study {missing[0]!r}; shipped: "
                       f"{', '.join(found) or 'none'}")
        return [ShippedTrials(found[s]) for s in names]
    if not found:
        raise SimstudyError("no shipped trials found (figures/STUDY/trials of this checkout, or "
                   f"${ENV_DIRS}); export one: python -m simstudy trials export STORE "
                   "--study NAME")
    return [ShippedTrials(d) for d in found.values()]


def cmd_trials(args: argparse.Namespace) -> int:
    """Run ``python -m simstudy trials ACTION``; returns the exit status."""
    from ..trials import export, info_text, verify

    action = getattr(args, "trials_command", None)
    if action is None:
        raise SimstudyError("trials needs an action; valid choices: export, info, verify")
    if action == "export":
        mb = _number("--max-file-mb", args.max_file_mb, float, lambda v: v >= 0.1,
                     "a number of megabytes >= 0.1")
        out = Path(args.out) if args.out else Path("figures") / args.study / "trials"
        s = export(args.store, args.study, out, max_file_bytes=int(mb * 1_000_000),
                   check=not args.no_check, progress=not args.no_progress)
        print(s.line())
        bad = s.checks.get("pvalues", {})
        if bad and bad.get("identical") != bad.get("compared"):
            print(f"simstudy: note: {bad['compared'] - bad['identical']:,} recomputed "
                  "p-values differ from the store's (the statistics code changed since the "
                  f"run?), e.g. {bad['differing'][:1]}", file=sys.stderr)
        return 0
    if action == "verify":
        frac = _number("--sample", args.sample, float, lambda v: 0 < v <= 1,
                       "a fraction in (0, 1]")
        seed = _number("--seed", args.seed, int, lambda v: 0 <= v < 2**63,
                       "an integer in [0, 2**63 - 1]")
        readers = _readers(args)
        rep = verify(readers, frac, seed, progress=not args.no_progress)
        files = sum(len(r.manifest["files"]) for r in readers)
        print(f"checked {files} files of {len(readers)} studies (sha256, counts, cell labels); "
              f"recomputed {int((rep.rows['status'] != 'damaged').sum()):,} trials in "
              f"{rep.seconds:.1f} s on compile target "
              f"{rep.here['compile_target']!r}, BLAS {rep.here['blas']!r}")
        from ..report import to_markdown

        print(to_markdown(rep.summary()))
        for r in rep.rows[rep.rows["status"] != "identical"].itertuples(index=False):
            at = f"seed {r.seed} run {r.run}" if r.run >= 0 else ""
            print(f"  {r.status}: {r.study} {r.cell} {at}: {r.detail}".replace(" :", ":"))
        if args.out:
            rep.rows.to_csv(args.out, index=False)
            print(f"wrote {args.out}")
        st = rep.rows["status"]
        why = ("damaged files or manifest entries" if (st == "damaged").any() else
               "trials that differ beyond what a CPU-dependent kernel explains")
        print("verify: " + ("passed" if rep.ok else f"FAILED: {why}"))
        return 0 if rep.ok else 1
    damaged = 0
    for r in _readers(args):
        print(info_text(r))
        damaged += bool(r.problems())
    return 2 if damaged else 0
