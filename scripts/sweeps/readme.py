"""Combine the sweeps' tables into figures/sweeps/ and write its README from them.

    python scripts/sweeps/readme.py --faults PART.csv [PART.csv ...] --inputs inputs.csv

Each part's JSON (written beside it by faults.py / inputs.py) gives its commit, wall and
CPU time and load.  The "before" column of the closing table is the issue's text, kept in
figures/sweeps/before.csv; the "after" column is read from the sweeps' rows.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "figures" / "sweeps"
ORDER = ("signal", "kill", "full", "readonly", "truncated", "reads", "shipped", "create")
WHAT = {
    "signal": "SIGINT/SIGTERM/SIGHUP/SIGKILL to a run's parent (serial, forked, loky, Dask "
              "workers), a card's Ctrl-C",
    "kill": "a worker (forked, loky, Dask), all workers, the Dask scheduler; merge, "
            "snapshot, trials export killed",
    "full": "a 2 MiB tmpfs mounted for the case and filled",
    "readonly": "a store chmod 444, a folder chmod 555 (CAP_DAC_OVERRIDE dropped with "
                "setpriv), a tmpfs remounted read-only",
    "truncated": "stores cut to 100 bytes, one page, half, one page short; a foreign file; "
                 "a newer schema",
    "reads": "report, snapshot, bench, card, merge, trials export while a run writes",
    "shipped": "damaged copies of figures/STUDY/trials under $SIMSTUDY_TRIALS: verify, "
               "info, card",
    "create": "600 opens (24 processes x 25 new stores) at the same moment",
    "cli": "python -m simstudy with bad values",
    "python": "import simstudy as ss with the same bad values",
}


def _bool(s: pd.Series) -> pd.Series:
    return s.astype(str).str.lower().eq("true")


def _md(df: pd.DataFrame) -> str:
    cols = list(df.columns)
    lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for r in df.itertuples(index=False):
        lines.append("| " + " | ".join(str(x).replace("|", "\\|") for x in r) + " |")
    return "\n".join(lines)


def totals(df: pd.DataFrame, key: str) -> pd.DataFrame:
    df = df.assign(tb=_bool(df["traceback"]), ok=_bool(df["named"]),
                   lost=pd.to_numeric(df["lost"], errors="coerce").fillna(0),
                   ident=df["resumed_identical"].astype(str))
    g = df.groupby(key, sort=False)
    t = pd.DataFrame({
        "cases": g.size(),
        "tracebacks": g["tb"].sum(),
        "not as expected": g["ok"].apply(lambda s: int((~s).sum())),
        "trials lost": g["lost"].sum().astype(int),
        "resumed byte-identical": g["ident"].apply(
            lambda s: f"{int((s.str.lower() == 'true').sum())} of "
                      f"{int(s.str.lower().isin(['true', 'false']).sum())}"
            if s.str.lower().isin(["true", "false"]).any() else ""),
    })
    t = t.reset_index()
    t.insert(1, "what", t[key].map(WHAT).fillna(""))
    return t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--faults", nargs="+", required=True)
    ap.add_argument("--inputs", nargs="+", required=True)
    ap.add_argument("--rerun", nargs="*", default=[],
                    help="fault parts whose categories replace those rows of --faults")
    a = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    parts = [pd.read_csv(p, keep_default_na=False) for p in a.faults]
    # a category run again (--rerun, after a fix of the sweep) replaces its earlier rows
    again = [pd.read_csv(p, keep_default_na=False) for p in a.rerun]
    redone = {c for r in again for c in r["category"].unique()}
    faults = pd.concat([*(part[~part["category"].isin(redone)] for part in parts), *again],
                       ignore_index=True)
    faults["_o"] = faults["category"].map({c: i for i, c in enumerate(ORDER)})
    faults = faults.sort_values("_o", kind="stable").drop(columns="_o")
    faults.to_csv(OUT / "faults.csv", index=False)
    inputs = pd.concat([pd.read_csv(p, keep_default_na=False) for p in a.inputs],
                       ignore_index=True)
    inputs["_o"] = inputs["category"].map({"cli": 0, "python": 1})
    inputs = inputs.sort_values("_o", kind="stable").drop(columns="_o")
    inputs.to_csv(OUT / "inputs.csv", index=False)
    def meta(p: str) -> dict:
        """The part's run record; a part stopped before its end (at a deadline) has none:
        its table holds the cases it finished."""
        j = Path(p).with_suffix(".json")
        if j.is_file():
            return json.loads(j.read_text())
        n = len(pd.read_csv(p, keep_default_na=False))
        return {"stopped": f"{Path(p).name}: stopped before its end after {n} cases; no "
                           "time recorded", "argv": []}

    metas = {"faults": [meta(p) for p in [*a.faults, *a.rerun]],
             "inputs": [meta(p) for p in a.inputs]}
    for m in (*metas["faults"], *metas["inputs"]):
        argv = m.pop("argv", [])
        m["parts"] = [f"{x} {y}" for x, y in zip(argv, argv[1:], strict=False)
                      if x in ("--only", "--part")]
    (OUT / "runs.json").write_text(json.dumps(metas, indent=1) + "\n")

    ft, it = totals(faults, "category"), totals(inputs, "category")
    shipped = faults[faults["category"] == "shipped"]
    verify = shipped[shipped["case"].str.startswith("verify:")]
    detected = int(_bool(verify["named"]).sum())
    before = pd.read_csv(OUT / "before.csv", keep_default_na=False)
    rows = []
    for b in before.itertuples(index=False):
        t = faults if b.table == "faults" else inputs
        hit = t[t["case"].str.contains(b.match, regex=False)]
        if hit.empty:
            rows.append((b.issue_case, b.before, "not swept", ""))
            continue
        r = hit.iloc[0]
        said = r["error_line"] or ("(nothing on stderr)" if str(r["rc"]) != "0" else "")
        extra = []
        if str(r["leftovers"]):
            extra.append(f"left: {r['leftovers']}")
        if str(r["resumed_identical"]).lower() == "true":
            extra.append("resumed byte-identical")
        rows.append((b.issue_case, b.before,
                     f"exit {r['rc']}: {said[:160]}" + (f" ({'; '.join(extra)})" if extra
                                                        else ""),
                     "yes" if str(r["named"]).lower() == "true" and
                     str(r["traceback"]).lower() != "true" else "NO"))
    closing = pd.DataFrame(rows, columns=["case (issue's Why)", "before", "after (sweep row)",
                                          "as expected"])

    def wall(ms: dict) -> float:
        import datetime as dt

        spans = [(dt.datetime.fromisoformat(m["started_utc"].rstrip("Z")).timestamp(),
                  m["wall_seconds"]) for v in ms.values() for m in v if "stopped" not in m]
        return max(s + w for s, w in spans) - min(s for s, _ in spans)

    def runline(m: dict) -> str:
        if "stopped" in m:
            return m["stopped"]
        import subprocess

        # the library as the part started (its record's commit is the one at its end)
        lib = subprocess.run(["git", "log", "-1", f"--before={m['started_utc']}",
                              "--format=%h", "--", "simstudy"], cwd=ROOT,
                             capture_output=True, text=True).stdout.strip()
        return (f"simstudy/ at {lib} when it started, {' '.join(m['parts'])}, started "
                f"{m['started_utc']}, {m['cases']} cases, wall "
                f"{m['wall_seconds']:.0f} s, CPU {m['cpu_seconds']:.0f} s, load "
                f"{m['load_before'][0]:.1f} before / {m['load_after'][0]:.1f} after "
                f"(1-min average, {m['cores']} cores shared)")

    fb = faults.assign(tb=_bool(faults["traceback"]), ok=_bool(faults["named"]))
    ib = inputs.assign(tb=_bool(inputs["traceback"]), ok=_bool(inputs["named"]))
    lost = int(pd.to_numeric(faults["lost"], errors="coerce").fillna(0).sum())
    bk = OUT / "blas-kernels.csv"
    if bk.is_file():
        b = pd.read_csv(bk)
        g = b.groupby(["learner", "kernel"], sort=False).agg(
            sources=("source", "nunique"), folds=("folds", "sum"),
            folds_changed=("folds_changed", "sum"),
            largest_share=("max_share", "max")).reset_index()
        blas = ("`trials verify` allows a bounded difference only for learners whose kernel "
                "may differ across CPUs (`simstudy.trials.CPU_KERNELS`); nmc and ls compute "
                "with BLAS products too.  The same folds of the data sets their shipped trials "
                "use, predicted under OpenBLAS's kernel for this CPU "
                f"({b['native'].iloc[0]}) and under kernels forced with OPENBLAS_CORETYPE "
                "(`scripts/sweeps/blas_kernels.py`, [blas-kernels.csv](blas-kernels.csv)):\n\n"
                + _md(g) + "\n\n" + (
                    "No prediction moved, so verify needs no bound for them: a difference "
                    "there is reported as a difference." if g["folds_changed"].sum() == 0 else
                    "Predictions moved: verify needs a bound for them in CPU_KERNELS."))
    else:
        blas = "Not measured."
    text = f"""# Fault and bad-input sweeps

<!-- generated: python scripts/sweeps/readme.py (from faults.csv, inputs.csv, before.csv, runs.json); do not edit -->

Faults injected from outside into small runs of the `demo` study and into copies of the
shipped trials (`scripts/sweeps/faults.py`), and bad values given to the command line and to
the Python API (`scripts/sweeps/inputs.py`).  One row per case in [faults.csv](faults.csv)
and [inputs.csv](inputs.csv): exit status, first stderr line and error line, traceback or
not, whether the fault or value was named as expected, trials stored before and after, the
resumed table compared byte for byte with an uninterrupted run's, what was left behind.

## Totals

- faults: {len(faults)} cases, {int(fb['tb'].sum())} tracebacks, {int((~fb['ok']).sum())} not
  as expected, {lost} committed trials lost; damaged shipped trials detected by `trials
  verify`: {detected} of {len(verify)}
- inputs: {len(inputs)} cases ({int((inputs['category'] == 'cli').sum())} command line,
  {int((inputs['category'] == 'python').sum())} Python), {int(ib['tb'].sum())} tracebacks,
  {int((~ib['ok']).sum())} not as expected

{_md(ft)}

{_md(it)}

Runs, each a process (parts of one category ran side by side):

{chr(10).join('- faults: ' + runline(m) for m in metas['faults'])}
{chr(10).join('- inputs: ' + runline(m) for m in metas['inputs'])}
- all: wall {wall(metas):.0f} s from the first start to the last end, CPU
  {sum(m.get('cpu_seconds', 0) for v in metas.values() for m in v):.0f} s (of the parts that
  ran to their end)

## The issue's cases, before and after

"Before" is the issue's text; "after" is the first sweep row matching the case.

{_md(closing)}

## Not as expected

{_md(pd.concat([faults, inputs])[lambda d: ~_bool(d['named']) | _bool(d['traceback'])]
     [['category', 'case', 'rc', 'error_line', 'leftovers']]) if
 (~fb['ok'] | fb['tb']).any() or (~ib['ok'] | ib['tb']).any() else 'None.'}

## nmc and ls under other BLAS kernels

{blas}

## Notes

- The full disk and the read-only mount are real tmpfs mounts (the sweep runs as root);
  read-only files and folders are enforced by dropping CAP_DAC_OVERRIDE with `setpriv`.
- A SIGKILLed writer leaves SQLite's -wal/-shm beside the store (its committed trials are
  in the -wal; the next open takes them over): not counted as a leftover.
- Ctrl-C in the first moments of `python -m simstudy`, while the interpreter itself starts
  (site imports, before simstudy's code runs), prints Python's own traceback: the signal
  cases send theirs once the run is recorded ("early") or has stored a trial ("mid").
- A part's library is the last commit touching `simstudy/` before it started; a change to
  `simstudy/runner.py` (SIGTERM from the run's record on) landed while the two parts started
  first ran: they send no SIGTERM to a run.
- Not swept: shards of another package version merged (tests/test_merge_notes.py), the
  CPU used by `--jobs 1`.

Re-run: `python scripts/sweeps/faults.py --out F.csv` (or `--only CATEGORY,...` for parts),
`python scripts/sweeps/inputs.py --out I.csv`, then `python scripts/sweeps/readme.py
--faults F.csv --inputs I.csv`.
"""
    (OUT / "README.md").write_text(text)
    print(f"wrote {OUT / 'README.md'}, faults.csv ({len(faults)}), inputs.csv ({len(inputs)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
