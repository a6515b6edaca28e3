"""``python -m simstudy.perf.card``: how long a report card over all shipped trials takes.

Each case runs ``python -m simstudy card --test TEST --studies <every shipped study> --out
TMP`` in a fresh process, as a user types it (no ``--store``: the shipped trials; figures and
the HTML page written), and measures

* **wall** -- from starting the process to its exit;
* **CPU** -- the process's user + system time (all its threads), from the kernel's
  accounting of the finished child: on a shared machine the wall time is what was left to
  it, the CPU time is what the card cost;
* **first output** -- from starting the process to the first byte on stdout or stderr;
* **trials** -- the stored trials the new test read (the card's count) and the pairs of
  learners it was called on (a 3-learner cell's trial is three pairs, a 5-learner one ten);
* the load average before and after.

The cases (median of ``--repeat`` runs each):

``pooled_t``
    ``examples/pooled_t.py:pooled_t`` as shipped: vectorised, reads the 5x2 designs.
``pooled_t-per-trial``
    the same function called once per trial (:func:`pooled_t_scalar`).
``corrected_t``
    the corrected resampled t (Nadeau & Bengio 2003, eq. 9) on every design, vectorised
    (:func:`corrected_t`): the card over every shipped trial.
``corrected_t-per-trial``
    the same, a scalar numpy function (:func:`corrected_t_scalar`).

The paired-interval ratio -- how much narrower Tango's paired interval for the difference in
reject rate is than Newcombe's unpaired one, pooled over the H0 cells, against the 5x2cv
t -- is read from each case's ``card_paired.csv`` (see :func:`simstudy.card.h0_width_ratio`),
and measured for two more tests beside it: the 5x2cv t against t(6) (:func:`t5x2cv_t6`, a
near twin of the baseline) and :func:`corrected_t`.

Results go to ``figures/perf-card.json`` and ``figures/perf-card.md`` with the commit.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import resource
import selectors
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy import special

ROOT = Path(__file__).resolve().parents[2]
#: the targets the benchmark judges (seconds, or trials)
TARGETS = {"trials": 1_500_000, "vectorised_s": 10.0, "scalar_s": 120.0, "first_output_s": 2.0}

_EXAMPLES: dict[str, Any] = {}


def _example(name: str):
    """``examples/<name>.py:<name>`` of the checkout (the examples are not installed)."""
    f = _EXAMPLES.get(name)
    if f is None:
        import importlib.util

        spec = importlib.util.spec_from_file_location(f"_perf_example_{name}",
                                                      ROOT / "examples" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
        f = _EXAMPLES[name] = getattr(mod, name)
    return f


# --- the functions timed -------------------------------------------------------------------

def pooled_t_scalar(d, *, n_train, n_test):
    """``examples/pooled_t.py``'s test called once per trial (``d`` of shape (5, 2))."""
    return _example("pooled_t")(d, n_train=n_train, n_test=n_test)


def corrected_t(d, *, n_train, n_test):
    """The corrected resampled t (Nadeau & Bengio 2003, eq. 9) on every design, vectorised:
    ``t = mean / sqrt((1/k + n_test/n_train) s^2)`` over the k = R F fold differences of
    each trial, t(k - 1); ``d`` (T, R, F), ``n_train``, ``n_test`` (T,)."""
    d = np.asarray(d, dtype=float)
    x = d.reshape(d.shape[0], -1)
    k = x.shape[1]
    if k < 2:
        raise ValueError(f"needs at least two fold differences, got {k}")
    se = np.sqrt((1.0 / k + n_test / n_train) * x.var(axis=1, ddof=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = x.mean(axis=1) / se
    return t, np.where(se > 0, 2.0 * special.stdtr(k - 1, -np.abs(t)), 1.0)


corrected_t.vectorized = True


def corrected_t_scalar(d, *, n_train, n_test):
    """:func:`corrected_t` for one trial (``d`` (R, F), ``n_train``, ``n_test`` floats)."""
    x = np.asarray(d, dtype=float).ravel()
    k = x.size
    if k < 2:
        raise ValueError(f"needs at least two fold differences, got {k}")
    se = math.sqrt((1.0 / k + n_test / n_train) * x.var(ddof=1))
    if not se > 0:
        return 0.0, 1.0
    t = float(x.mean()) / se
    return t, float(2.0 * special.stdtr(k - 1, -abs(t)))


def t5x2cv_t6(d, *, n_train, n_test):
    """Dietterich's 5x2cv t (Alpaydın 1999, eq. 2.1) judged against t(6) instead of t(5):
    a test almost always deciding as the 5x2cv t (the paired interval's best case)."""
    d = np.asarray(d, dtype=float)
    if d.shape[-2:] != (5, 2):
        raise ValueError(f"needs 5x2 folds, got {d.shape[-2:]}")
    s2 = ((d - d.mean(-1, keepdims=True)) ** 2).sum((-2, -1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d[..., 0, 0] / np.sqrt(s2 / 5)
    return t, np.where(s2 > 0, 2.0 * special.stdtr(6, -np.abs(t)), 1.0)


t5x2cv_t6.vectorized = True

#: case -> (--test argument, kind)
CASES: dict[str, tuple[str, str]] = {
    "pooled_t": ("examples/pooled_t.py:pooled_t", "vectorised"),
    "pooled_t-per-trial": ("simstudy.perf.card:pooled_t_scalar", "scalar"),
    "corrected_t": ("simstudy.perf.card:corrected_t", "vectorised"),
    "corrected_t-per-trial": ("simstudy.perf.card:corrected_t_scalar", "scalar"),
}


# --- measuring -----------------------------------------------------------------------------

def shipped_studies() -> list[str]:
    """Every study of tests this checkout ships trials of, in the card's usual order first."""
    from ..trials import shipped_studies as studies_of_tests

    found = studies_of_tests()
    first = ["type1", "type2", "gaussian", "ban", "replicability", "multitest", "wang-real"]
    return [s for s in first if s in found] + [s for s in found if s not in first]


def shipped_trials(studies: list[str]) -> int:
    """Stored trials shipped for ``studies`` (from the manifests: nothing is read)."""
    from ..trials import open_shipped

    return sum(int(r.manifest["trials"]) for r in open_shipped(studies))


_TRIALS = re.compile(r"report card of .*?: (\d[\d,]*) stored trials(?: \((\d[\d,]*) pairs)?")


def run_once(test: str, studies: list[str], out: Path, *, figures: bool = True,
             timeout: float = 1800.0, root: Path = ROOT) -> dict[str, Any]:
    """One ``python -m simstudy card`` process: wall, CPU, first output, trials, load.
    ``root``: the checkout whose code runs (another one: a copy of an earlier commit, read
    beside this one), always on this checkout's shipped trials."""
    cmd = [sys.executable, "-m", "simstudy", "card", "--test", test, "--studies",
           ",".join(studies), "--out", str(out)] + ([] if figures else ["--no-figures"])
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONPATH": str(root),
           "SIMSTUDY_TRIALS": str(ROOT / "figures")}
    load0 = os.getloadavg()
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env)
    first = first_cpu = None
    buf = {"stdout": b"", "stderr": b""}
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, "stdout")  # type: ignore[arg-type]
    sel.register(proc.stderr, selectors.EVENT_READ, "stderr")  # type: ignore[arg-type]
    open_ = 2
    while open_:
        if time.perf_counter() - t0 > timeout:
            proc.kill()
            raise RuntimeError(f"{' '.join(cmd)} took more than {timeout} s")
        for key, _ in sel.select(timeout=1.0):
            chunk = os.read(key.fileobj.fileno(), 65536)  # type: ignore[union-attr]
            if not chunk:
                sel.unregister(key.fileobj)
                open_ -= 1
                continue
            if first is None:
                first = time.perf_counter() - t0
                first_cpu = _proc_cpu(proc.pid)
            buf[key.data] += chunk
    rc = proc.wait()
    wall = time.perf_counter() - t0
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out_text, err_text = buf["stdout"].decode(), buf["stderr"].decode()
    if rc != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited {rc}: {err_text.strip()[-500:]}")
    m = _TRIALS.search(out_text)
    return {"wall_s": wall, "cpu_s": (ru1.ru_utime - ru0.ru_utime) + (ru1.ru_stime - ru0.ru_stime),
            "first_output_s": first, "first_output_cpu_s": first_cpu, "trials": int(m.group(1).replace(",", "")) if m else None,
            "pairs": int(m.group(2).replace(",", "")) if m and m.group(2) else None,
            "load_before": load0[0], "load_after": os.getloadavg()[0],
            "first_line": (err_text or out_text).splitlines()[0] if (err_text or out_text) else "",
            "verdict": out_text.splitlines()[0] if out_text else ""}


def _proc_cpu(pid: int) -> float | None:
    """CPU seconds (user + system) a running process has used so far (Linux's /proc)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def width_ratios(paired_csv: Path) -> dict[str, float]:
    """Paired-interval ratios of one card (:func:`simstudy.card.h0_width_ratio`) against
    each baseline, pooled over the H0 cells of every study."""
    import pandas as pd

    from ..card import h0_width_ratio

    df = pd.read_csv(paired_csv)
    return {b: h0_width_ratio(df, b) for b in dict.fromkeys(df["baseline"])}


def paired_ratio_extra(studies: list[str]) -> dict[str, dict[str, Any]]:
    """The H0 width ratio against the 5x2cv t for :func:`t5x2cv_t6` and the examples, in
    this process (type1 and type2: the Alpaydın study's H0 and unknown-truth cells)."""
    from ..card import card, h0_width_ratio

    out = {}
    for label, f in (("pooled_t", _example("pooled_t")), ("t5x2cv_t6", t5x2cv_t6),
                     ("t5x2cv_interval", _example("t5x2cv_interval")),
                     ("corrected_t", corrected_t)):
        c = card(f, studies, name=label, progress=False, baselines=())
        r = c.paired[(c.paired["baseline"] == "t5x2cv")]
        h0 = r[(r["cell"] != "(pooled)") & (r["measure"] == "size")]
        out[label] = {"ratio": h0_width_ratio(c.paired, "t5x2cv"),
                      "h0_runs": int(h0["runs"].sum()), "discordant": int((h0["n10"] + h0["n01"]).sum())}
    return out


def decode_all(studies: list[str]) -> dict[str, float]:
    """Reading every shipped trial of ``studies`` as the card reads them (fold errors and
    the stored p-values), in this thread, with nothing evaluated: wall and CPU seconds."""
    from ..catalog import get_study
    from ..trials import open_shipped

    w, c = time.perf_counter(), time.process_time()
    for r in open_shipped(studies):
        st = get_study(r.study)
        r.fold_errors([x.id for x in st.cells], st.seed, st.runs)
        r.pvalues(st.cells, st.seed, st.runs)
    return {"wall_s": time.perf_counter() - w, "cpu_s": time.process_time() - c}


def phases(case: str = "pooled_t") -> dict[str, Any]:
    """Where a card's time goes, in this process: the card's own per-phase seconds
    (:attr:`simstudy.card.Card.seconds`), then writing its tables and page, then its
    figures, each with wall and CPU seconds; beside :func:`decode_all` of the same studies."""
    from ..card import card
    from ..report import card as report_card

    studies = shipped_studies()
    test = CASES[case][0]
    f = (_example(test.split(":")[1]) if test.startswith("examples/")
         else globals()[test.split(":")[1]])
    decode = decode_all(studies)
    w, c = time.perf_counter(), time.process_time()
    crd = card(f, studies, name=case, progress=False)
    card_s = {"wall_s": time.perf_counter() - w, "cpu_s": time.process_time() - c}
    with tempfile.TemporaryDirectory(prefix="perf-card-") as tmp:
        w, c = time.perf_counter(), time.process_time()
        report_card.write_card(crd, Path(tmp), figures=False)
        write_s = {"wall_s": time.perf_counter() - w, "cpu_s": time.process_time() - c}
        w, c = time.perf_counter(), time.process_time()
        report_card._figures(crd, Path(tmp))
        fig_s = {"wall_s": time.perf_counter() - w, "cpu_s": time.process_time() - c}
    return {"case": case, "trials": crd.trials, "decode_all": decode, "card": card_s,
            "card_phases": dict(crd.seconds), "write": write_s, "figures": fig_s,
            "load": os.getloadavg()[0]}


def _commit() -> dict[str, Any]:
    """The commit measured and the files of ``simstudy`` with local changes then."""
    from .provenance import checkout

    c = checkout()
    return {"commit": c["commit"], "changed": c["changed"]}


def measure(cases: list[str], repeat: int = 3, figures: bool = True,
            echo: bool = True, against: tuple[Path, str] | None = None) -> dict[str, Any]:
    """Every case ``repeat`` times, in turn (case 1, 2, ..., then again), so a change of
    load hits every case alike; medians per case.  ``against``: (a checkout of other code,
    its commit): each run of a case is followed by the same run of that code, and the
    medians of both are kept (``summary_against``) for their ratio."""
    studies = shipped_studies()
    shipped = shipped_trials(studies)
    at_start = _commit()  # others may commit while it runs: the end's is kept too
    runs: dict[str, list[dict]] = {c: [] for c in cases}
    other: dict[str, list[dict]] = {c: [] for c in cases}
    ratios: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="perf-card-") as tmp:
        for r in range(repeat):
            for c in cases:
                for side in ("this", "against") if against else ("this",):
                    out = Path(tmp) / f"{r}-{c}-{side}"
                    res = run_once(CASES[c][0], studies, out, figures=figures,
                                   root=ROOT if side == "this" else against[0])
                    (runs if side == "this" else other)[c].append(res)
                    if r == 0 and side == "this":
                        ratios[c] = width_ratios(out / "card_paired.csv")
                    if echo:
                        print(f"{c} {side} [{r + 1}/{repeat}]: wall {res['wall_s']:.1f} s, CPU "
                              f"{res['cpu_s']:.1f} s, first output "
                              f"{res['first_output_s']:.2f} s, {res['trials']} trials, load "
                              f"{res['load_before']:.1f}-{res['load_after']:.1f}",
                              file=sys.stderr, flush=True)
    summary = {}
    for c, rs in runs.items():
        summary[c] = {"test": CASES[c][0], "kind": CASES[c][1],
                      **{k: _median([x[k] for x in rs])
                         for k in ("wall_s", "cpu_s", "first_output_s", "first_output_cpu_s")},
                      "trials": rs[0]["trials"], "pairs": rs[0]["pairs"],
                      "first_line": rs[0]["first_line"], "verdict": rs[0]["verdict"],
                      "width_ratio_h0": ratios.get(c, {})}
    summary_against = {c: {k: _median([x[k] for x in rs]) for k in ("wall_s", "cpu_s")}
                       for c, rs in other.items() if rs}
    extra = paired_ratio_extra(["type1", "type2"])
    where = phases(cases[0]) if cases else None
    return {"studies": studies, "shipped_trials": shipped, "repeat": repeat, "figures": figures,
            "targets": TARGETS, "summary": summary, "runs": runs, "paired_ratio": extra,
            "phases": where, "summary_against": summary_against, "runs_against": other,
            "against": against[1] if against else None,
            "cpu": _cpu(), "cores": os.cpu_count(), **at_start,
            "commit_at_end": _commit()["commit"],
            "date": time.strftime("%Y-%m-%d %H:%M:%S %z")}


def _median(xs: list) -> float | None:
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def _cpu() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform

    return platform.processor()


# --- writing -------------------------------------------------------------------------------

def _s(x: float | None) -> str:
    return "" if x is None else f"{x:.1f}" if x >= 10 else f"{x:.2f}"


def _render_against(res: dict[str, Any]) -> list[str]:
    """This code beside the earlier commit's, run after run in the same session."""
    other = res.get("summary_against") or {}
    if not other:
        return []
    out = ["## Beside the earlier code", "",
           f"Each run above was followed by the same command on the code of commit "
           f"`{res['against'][:12]}` (a copy of that commit's `simstudy/` and `examples/`, on "
           "the same shipped trials); medians of the same number of runs. Ratio: earlier "
           "over this.", "",
           "| case | wall s: this | wall s: earlier | wall ratio | CPU s: this | CPU s: earlier "
           "| CPU ratio |", "|---|---:|---:|---:|---:|---:|---:|"]
    for c, o in other.items():
        t = res["summary"][c]
        out.append(f"| `{c}` | {_s(t['wall_s'])} | {_s(o['wall_s'])} | "
                   f"×{o['wall_s'] / t['wall_s']:.2f} | {_s(t['cpu_s'])} | {_s(o['cpu_s'])} | "
                   f"×{o['cpu_s'] / t['cpu_s']:.2f} |")
    return out + [""]


def write(res: dict[str, Any], out: Path = ROOT / "figures") -> list[Path]:
    """``perf-card.json`` and ``perf-card.md`` under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "perf-card.json").write_text(json.dumps(res, indent=1) + "\n")
    (out / "perf-card.md").write_text(render(res))
    return [out / "perf-card.json", out / "perf-card.md"]


#: what each phase of :attr:`simstudy.card.Card.seconds` is
_PHASES = {
    "read": "waiting for the stored trials (fold errors, stored p-values; the next study's are "
            "read in a second thread while one is evaluated)",
    "read cpu": "CPU of that reading, in whichever thread",
    "baselines": "the fold-error baselines (Bayesian correlated t, conservative Z, combined "
                 "5x2cv t, Wilcoxon, sign test) computed from the same fold errors",
    "new test": "the new test's calls",
    "aggregate": "reject counts, paired counts, calibration grid, summary, matched-size frame",
}


def _render_phases(ph: dict[str, Any] | None) -> list[str]:
    """"Where the time goes" from :func:`phases`."""
    if not ph:
        return []
    cs = ph["card_phases"]
    out = ["## Where the time goes", "",
           f"`{ph['case']}` over the same studies in one process (load {ph['load']:.1f} at the "
           f"end; {ph['trials']:,} trials read). Reading every shipped trial of these "
           f"studies (fold errors and stored p-values), nothing evaluated: "
           f"{_s(ph['decode_all']['wall_s'])} s wall, {_s(ph['decode_all']['cpu_s'])} s CPU.",
           "", "| phase | wall s | what |", "|---|---:|---|"]
    for k, what in _PHASES.items():
        if k in cs:
            out.append(f"| card: {k} | {_s(cs[k])} | {what} |")
    out += [f"| card: total | {_s(cs['total'])} | CPU {_s(ph['card']['cpu_s'])} s (all threads) |",
            f"| write: tables, card.md, card.html | {_s(ph['write']['wall_s'])} | CPU "
            f"{_s(ph['write']['cpu_s'])} s |",
            f"| write: figures | {_s(ph['figures']['wall_s'])} | CPU "
            f"{_s(ph['figures']['cpu_s'])} s (matplotlib) |", ""]
    return out


def render(res: dict[str, Any]) -> str:
    """``perf-card.md`` from the JSON."""
    t = res["targets"]
    at = f"`{(res.get('commit') or 'unknown')[:12]}`"
    end = (res.get("commit_at_end") or "")[:12]
    if end and end != (res.get("commit") or "")[:12]:
        at += f" (HEAD was `{end}` at the end: the code measured may differ between runs)"
    if res.get("changed"):
        at += f" with local changes to {', '.join(f'`{c}`' for c in res['changed'])}"
    loads = [x for part in ("runs", "runs_against") for rs in (res.get(part) or {}).values()
             for r in rs for x in (r["load_before"], r["load_after"])]
    lines = [
        "# A report card over the shipped trials: time",
        "",
        f"Measured by `simstudy.perf.card` (`measure`, `write`) at commit {at}, {res['date']}; "
        f"{res['cores']} cores ({res['cpu']}); load average {min(loads):.1f}–{max(loads):.1f} "
        "during the runs (other jobs share the machine: the CPU time is what the card cost, "
        "the wall time what was left to it).",
        "",
        f"Each case is `python -m simstudy card --test TEST --studies {','.join(res['studies'])}` "
        "in a fresh process with no `--store` (the shipped trials: "
        f"{res['shipped_trials']:,} stored trials), writing the card "
        f"{'with its figures and HTML page' if res['figures'] else 'without figures'}; "
        f"median of {res['repeat']} runs, the cases in turn.",
        "",
        "| case | kind | trials read | learner pairs evaluated | wall s | CPU s | first output: "
        "wall s | first output: CPU s |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for c, s in res["summary"].items():
        lines.append(f"| `{c}` | {s['kind']} | {s['trials'] or 0:,} | {s['pairs'] or 0:,} | "
                     f"{_s(s['wall_s'])} | {_s(s['cpu_s'])} | {_s(s['first_output_s'])} | "
                     f"{_s(s['first_output_cpu_s'])} |")
    lines += ["", "Targets: a card over at least "
              f"{t['trials']:,} trials in under {t['vectorised_s']:.0f} s for a vectorised "
              f"function and {t['scalar_s']:.0f} s for a scalar numpy one, first output within "
              f"{t['first_output_s']:.0f} s.", ""]
    verdicts = []
    for c, s in res["summary"].items():
        limit = t["vectorised_s"] if s["kind"] == "vectorised" else t["scalar_s"]
        verdicts.append(f"- `{c}`: CPU {_s(s['cpu_s'])} s {'<' if s['cpu_s'] < limit else '>='} "
                        f"{limit:.0f} s, wall {_s(s['wall_s'])} s; first output "
                        f"{_s(s['first_output_s'])} s ({s['first_line'][:100]!r}).")
    if res["shipped_trials"] < t["trials"]:
        verdicts.append(f"- The shipped trials number {res['shipped_trials']:,}, fewer than "
                        f"the {t['trials']:,} of the target.")
    lines += verdicts + [""]
    lines += _render_against(res)
    lines += _render_phases(res.get("phases"))
    lines += ["## The paired interval against the unpaired one", "",
              "`width_ratio`: the width of Newcombe's (1998) unpaired interval for the "
              "difference in reject rate over the width of Tango's (1998) paired interval, "
              "the new test against the 5x2cv t on the same trials, pooled over the H0 cells "
              "(type1; type2's cells are of unknown truth). Measured by "
              "`simstudy.card.h0_width_ratio` on each test's card over type1 and type2.", "",
              "| test | width_ratio | H0 trials | discordant trials |", "|---|---:|---:|---:|"]
    for k, v in res["paired_ratio"].items():
        lines.append(f"| `{k}` | {v['ratio']:.2f} | {v['h0_runs']:,} | {v['discordant']:,} |")
    lines += ["", "`t5x2cv_t6` is the 5x2cv t judged against t(6): it decides as the 5x2cv t "
              "on all but a few trials, the paired interval's best case; the fewer trials on "
              "which two tests disagree, the narrower the paired interval.", "",
              "Raw numbers: `perf-card.json`.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m simstudy.perf.card",
                                description="Time a report card over all shipped trials.")
    p.add_argument("--cases", default=",".join(CASES),
                   help=f"comma-separated cases (default all: {', '.join(CASES)})")
    p.add_argument("--repeat", type=int, default=3, help="runs per case (median; default 3)")
    p.add_argument("--no-figures", action="store_true", help="time the card without figures")
    p.add_argument("--out", type=Path, default=ROOT / "figures",
                   help="where perf-card.json and perf-card.md go (default figures/)")
    args = p.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    bad = [c for c in cases if c not in CASES]
    if bad or args.repeat < 1:
        print(f"error: unknown case {bad[0]!r}; valid: {', '.join(CASES)}" if bad else
              f"error: --repeat must be >= 1, got {args.repeat!r}", file=sys.stderr)
        return 2
    res = measure(cases, args.repeat, figures=not args.no_figures)
    print("wrote " + " and ".join(map(str, write(res, args.out))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
