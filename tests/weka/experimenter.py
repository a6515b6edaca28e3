"""Our Weka learners against Weka 3.6.14's Experimenter, side by side: mean accuracy and the
corrected repeated k-fold cv t's decisions over independent 10x10 cv experiments.

Weka: ``WekaCV.java``, one JVM per data set, 10-fold cv as ``CrossValidationResultProducer``
runs it (randomize with ``new Random(run)``, stratify, ``trainCV(k, f, random)`` -- which
shuffles every training fold -- and ``testCV``) for runs 1 .. 10 E; experiment e is runs
10e + 1 .. 10e + 10.  Learners: NaiveBayes, J48 ``-C 0.25 -M 2``, IB1.

Ours: the project's own trial code (:func:`simstudy.runner.compute_chunk`) on the cell
``SET/wnb~j48~ib1~ib1[ties=order]/10x10cv`` with the test ``corrected-rxk-t``, E runs from
root seed :data:`SEED` -- what a replicability cell computes.  ``ib1`` is the default
(``ties="random"``, Weka's shuffled training folds), ``ib1[ties=order]`` the file-order tie
rule, for contrast; both are compared with Weka's one IB1.

Per data set and learner: the mean over experiments of the mean fold accuracy (%), its
standard deviation over experiments, and ``z = (ours - Weka) / sqrt(s_o^2/E + s_w^2/E)``.
Per learner pair: in how many of the E experiments the corrected repeated k-fold cv t
(Bouckaert & Frank 2004 sec. 3.3: Nadeau & Bengio's variance correction, t(99)) rejects at
0.05, and the two-proportion z of the two counts.

Two exact checks beside the statistics:

* replay -- for Weka's runs 1 .. R, our ``wnb``, ``j48`` and ``ib1[ties=order]`` fed each
  fold's rows in Weka's order (:func:`make_fixtures.weka_cv_folds`) and Weka: folds with
  the same number of correct predictions;
* order -- our ``wnb`` and ``j48`` (and ``ib1[ties=order]``, whose ties depend on it) on each
  training fold of one 10x10 cv and on a random permutation of that fold: predictions that
  change, and for ``wnb`` test rows whose posterior changes in any bit.

And one about the folds themselves: our ``wnb``, ``j48`` and ``ib1`` over 10-fold cv runs
1 .. 10 E with Weka's fold memberships (:func:`make_fixtures.weka_cv_folds`), with our
stratified design, and with our design after relabelling the classes at random in each run
(our design orders the classes by code before its round-robin, Weka by first appearance in
the shuffled data): mean accuracy and its standard error over runs.

Writes ``results.csv`` and ``meta.json`` into ``--out`` (``figures/weka-experimenter``) and
renders ``RESULTS.md`` from them alone (``--render`` only re-renders).

Usage: ``python tests/weka/experimenter.py [--sets vote,breast-cancer,...] [--experiments 100]
[--replay 100] [--weka /usr/share/java/weka.jar] [--out DIR] [--render]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = ROOT / "figures" / "weka-experimenter"
SETS = ("vote", "breast-cancer", "lymphography", "primary-tumor", "audiology", "credit-g")
#: our learners; position -> Weka's learner key
OURS = ("wnb", "j48", "ib1", "ib1[ties=order]")
WEKA_OF = {"wnb": "wnb", "j48": "j48", "ib1": "ib1", "ib1[ties=order]": "ib1"}
PAIRS = ((0, 1), (0, 2), (1, 2), (0, 3), (1, 3))
K = 10  # folds
REPS = 10  # cv repetitions per experiment
SEED = 3614  # our root seed
ALPHA = 0.05
TEST = "corrected-rxk-t"

_spec = importlib.util.spec_from_file_location("weka_make_fixtures", HERE / "make_fixtures.py")
mf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mf)


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    c = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime + c.ru_utime + c.ru_stime


def weka_runs(jar: str, data, runs: int) -> tuple[dict, float, float]:
    """Weka's correct counts and fold sizes: ``{learner: (runs, K) correct}``, ``n_test``,
    ``n_train`` arrays under keys ``"_test"``, ``"_train"``; wall and CPU seconds."""
    from simstudy.perf.arff import to_arff

    t0, c0 = time.perf_counter(), _cpu()
    with tempfile.TemporaryDirectory() as tmp:
        arff = Path(tmp) / "data.arff"
        arff.write_text(to_arff(data), encoding="utf-8")
        lines = mf.run_weka_cv(jar, arff, K, f"1-{runs}", "acc", "wnb,j48,ib1", timeout=6 * 3600)
    out: dict[str, np.ndarray] = {k: np.zeros((runs, K), dtype=np.int64)
                                  for k in ("wnb", "j48", "ib1", "_train", "_test")}
    for ln in lines:
        if ln[0] != "A":
            continue
        r, f = int(ln[1]) - 1, int(ln[2])
        out[ln[3]][r, f] = int(ln[6])
        out["_train"][r, f], out["_test"][r, f] = int(ln[4]), int(ln[5])
    return out, time.perf_counter() - t0, _cpu() - c0


def our_runs(name: str, experiments: int) -> tuple[np.ndarray, dict, float, float]:
    """Our fold accuracies ``(E, learner, REPS, K)`` and the corrected t's rejects per pair
    (``{(a, b): (E,) bool}``), through the runner's own trial code; wall and CPU seconds."""
    from simstudy.planning import Chunk
    from simstudy.runner import compute_chunk
    from simstudy.study import Cell

    cell = Cell(name, OURS, f"{REPS}x{K}cv", (TEST,))
    t0, c0 = time.perf_counter(), _cpu()
    acc = np.empty((experiments, len(OURS), REPS, K))
    rej = {p: np.zeros(experiments, dtype=bool) for p in PAIRS}
    step = 25
    for lo in range(0, experiments, step):
        runs = tuple(range(lo, min(lo + step, experiments)))
        for rec in compute_chunk(Chunk("weka-experimenter", cell, runs, SEED, ALPHA)):
            acc[rec.run] = 1.0 - rec.losses.errors
            for r in rec.results:
                if r.test == TEST and (r.a, r.b) in rej:
                    rej[(r.a, r.b)][rec.run] = r.pvalue < ALPHA
    return acc, rej, time.perf_counter() - t0, _cpu() - c0


def weka_rejects(w: dict, a: str, b: str, experiments: int) -> np.ndarray:
    """The corrected repeated k-fold cv t on Weka's folds, one decision per experiment."""
    from simstudy.stats.pairwise import ttest_corrected_repeated_kfold

    err = {k: 1.0 - w[k] / w["_test"] for k in ("wnb", "j48", "ib1")}
    out = np.zeros(experiments, dtype=bool)
    for e in range(experiments):
        s = slice(REPS * e, REPS * (e + 1))
        r = ttest_corrected_repeated_kfold(err[a][s] - err[b][s],
                                           n_train=float(np.mean(w["_train"][s])),
                                           n_test=float(np.mean(w["_test"][s])))
        out[e] = r.pvalue < ALPHA
    return out


def replay(data, w: dict, runs: int) -> dict[str, tuple[int, int]]:
    """Our learners on Weka's own folds and row orders: (folds, folds with Weka's correct
    count) per learner."""
    from simstudy.learners import get_learner
    from simstudy.learners.base import frozen

    learners = {key: get_learner(mf.SPEC[key]).prepare(data) for key in ("wnb", "j48", "ib1")}
    same = dict.fromkeys(learners, 0)
    for r in range(runs):
        for f, (tr, te) in enumerate(mf.weka_cv_folds(data.y, K, r + 1)):
            rows = np.array(tr + te)
            m = np.zeros((1, data.n), dtype=bool)
            m[0, : len(tr)] = True
            X, y = frozen(data.X[rows]), frozen(data.y[rows])
            for key, lr in learners.items():
                pred = lr.fit_predict(X, y, m, ~m)[0, len(tr):]
                same[key] += int(np.sum(pred == y[len(tr):]) == w[key][r, f])
    return {key: (runs * K, v) for key, v in same.items()}


def order_check(data) -> dict[str, tuple[int, int, int]]:
    """Each training fold of one stratified 10x10 cv, as is and randomly permuted:
    (predictions, predictions that change, wnb: test rows whose posterior changes in any
    bit) per learner."""
    from simstudy.designs import get_design
    from simstudy.learners import get_learner
    from simstudy.learners.base import frozen

    rng = np.random.default_rng(SEED)
    masks = get_design(f"{REPS}x{K}cv").masks(data.y, rng).reshape(REPS * K, data.n)
    out = {}
    for spec in ("wnb", "j48", "ib1[ties=order]"):
        lr = get_learner(spec).prepare(data)
        total = changed = bits = 0
        for tr_mask in masks:
            tr, te = np.flatnonzero(tr_mask), np.flatnonzero(~tr_mask)
            m = np.zeros((1, data.n), dtype=bool)
            m[0, : tr.size] = True
            res = []
            for rows in (np.r_[tr, te], np.r_[rng.permutation(tr), te]):
                X, y = frozen(data.X[rows]), frozen(data.y[rows])
                res.append(lr.predict_proba(X, y, m, ~m)[0, tr.size:] if spec == "wnb"
                           else lr.fit_predict(X, y, m, ~m)[0, tr.size:])
            if spec == "wnb":
                bits += int(np.sum(np.any(res[0] != res[1], axis=1)))
                res = [p.argmax(axis=1) for p in res]
            total += te.size
            changed += int(np.sum(res[0] != res[1]))
        out[spec] = (total, changed, bits)
    return out


def fold_check(data, runs: int) -> dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per learner: accuracy per run of 10-fold cv (%) with Weka's fold memberships (runs
    1 .. ``runs``), with our stratified design, and with our design on classes relabelled at
    random per run."""
    from simstudy.designs import get_design
    from simstudy.learners import get_learner

    n = data.n
    weka = np.ones((runs * K, n), dtype=bool)
    for r in range(runs):
        for f, (_, te) in enumerate(mf.weka_cv_folds(data.y, K, r + 1)):
            weka[r * K + f, te] = False
    rng = np.random.default_rng(SEED + 1)
    ours = get_design(f"{runs}x{K}cv").masks(data.y, rng).reshape(-1, n)
    relabelled = np.empty_like(ours)
    one = get_design(f"1x{K}cv")
    C = int(data.y.max()) + 1
    for r in range(runs):
        relabelled[r * K:(r + 1) * K] = one.masks(rng.permutation(C)[data.y], rng).reshape(K, n)
    out = {}
    for spec in ("wnb", "j48", "ib1"):
        lr = get_learner(spec).prepare(data)
        accs = []
        for masks in (weka, ours, relabelled):
            seeds = [np.random.SeedSequence([SEED, 2, b]) for b in range(masks.shape[0])]
            pred = lr.fit_predict(data.X, data.y, masks, ~masks, seeds)
            fold = ((pred == data.y) & ~masks).sum(axis=1) / (~masks).sum(axis=1)
            accs.append(100 * fold.reshape(runs, K).mean(axis=1))
        out[spec] = tuple(accs)
    return out


def _z_means(o: np.ndarray, w: np.ndarray) -> float:
    se = math.sqrt(o.var(ddof=1) / o.size + w.var(ddof=1) / w.size)
    return (o.mean() - w.mean()) / se if se > 0 else 0.0


def _z_props(ko: int, kw: int, n: int) -> float:
    p = (ko + kw) / (2 * n)
    return (ko - kw) / n / math.sqrt(p * (1 - p) * 2 / n) if 0 < p < 1 else 0.0


def compare(name: str, jar: str, experiments: int, replay_runs: int, log=print) -> list[dict]:
    from simstudy.sources.bundled import load_bundled

    data = load_bundled(name)
    w, w_wall, w_cpu = weka_runs(jar, data, REPS * experiments)
    log(f"{name}: Weka {REPS * experiments} runs of {K}-fold cv in {w_wall:.0f} s "
        f"({w_cpu:.0f} s CPU)")
    acc, rej, o_wall, o_cpu = our_runs(name, experiments)
    log(f"{name}: ours {experiments} x {REPS}x{K}cv in {o_wall:.0f} s ({o_cpu:.0f} s CPU)")
    rows = []
    for j, spec in enumerate(OURS):
        wk = WEKA_OF[spec]
        wa = 100 * (w[wk] / w["_test"]).reshape(experiments, REPS * K).mean(axis=1)
        oa = 100 * acc[:, j].reshape(experiments, -1).mean(axis=1)
        rows.append(dict(dataset=name, quantity="accuracy", item=spec, n=experiments,
                         weka=wa.mean(), ours=oa.mean(), weka_sd=wa.std(ddof=1),
                         ours_sd=oa.std(ddof=1), z=_z_means(oa, wa)))
    for a, b in PAIRS:
        kw = int(weka_rejects(w, WEKA_OF[OURS[a]], WEKA_OF[OURS[b]], experiments).sum())
        ko = int(rej[(a, b)].sum())
        rows.append(dict(dataset=name, quantity="rejects", item=f"{OURS[a]} vs {OURS[b]}",
                         n=experiments, weka=kw, ours=ko, z=_z_props(ko, kw, experiments)))
    if replay_runs:
        for key, (folds, same) in replay(data, w, replay_runs).items():
            rows.append(dict(dataset=name, quantity="replay", item=mf.SPEC[key], n=folds,
                             weka=folds, ours=same))
    for spec, (wf, of, rf) in fold_check(data, REPS * experiments).items():
        for quantity, a in (("folds", of), ("folds-relabelled", rf)):
            rows.append(dict(dataset=name, quantity=quantity, item=spec, n=wf.size,
                             weka=wf.mean(), ours=a.mean(), weka_sd=wf.std(ddof=1),
                             ours_sd=a.std(ddof=1), z=_z_means(a, wf)))
    for spec, (total, changed, bits) in order_check(data).items():
        rows.append(dict(dataset=name, quantity="order", item=spec, n=total, ours=changed,
                         ours_sd=bits if spec == "wnb" else np.nan))
    rows.append(dict(dataset=name, quantity="seconds", item="weka", weka=w_wall, ours=w_cpu))
    rows.append(dict(dataset=name, quantity="seconds", item="ours", weka=o_wall, ours=o_cpu))
    return rows


COLUMNS = ("dataset", "quantity", "item", "n", "weka", "ours", "weka_sd", "ours_sd", "z")


def _git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True).stdout.strip()


def meta(jar: str, experiments: int, replay_runs: int, sets: list[str], started: str) -> dict:
    java = subprocess.run(["java", "-version"], capture_output=True, text=True).stderr
    dirty = _git("status", "--porcelain", "--", "simstudy", "tests/weka")
    return {"commit": _git("rev-parse", "--short", "HEAD"), "dirty": bool(dirty),
            "weka_version": mf.weka_version(jar), "java": java.splitlines()[0] if java else "",
            "python": platform.python_version(), "experiments": experiments, "reps": REPS,
            "folds": K, "replay_runs": replay_runs, "seed": SEED, "alpha": ALPHA,
            "test": TEST, "sets": sets, "started": started,
            "cores": os.cpu_count(), "load_at_start": os.getloadavg()[0]}


# --- RESULTS.md, from results.csv and meta.json alone --------------------------------------

def _f(v: float, d: int = 2) -> str:
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{d}f}"


def fmt_sets(rows: pd.DataFrame) -> str:
    return ", ".join(f"{r.dataset} (the number correct differs in {int(r.n - r.ours)} of "
                     f"{int(r.n)} folds)" for r in rows.itertuples())


def render(out: Path) -> str:
    t = pd.read_csv(out / "results.csv")
    m = json.loads((out / "meta.json").read_text())
    E = m["experiments"]
    acc = t[t.quantity == "accuracy"]
    rej = t[t.quantity == "rejects"]
    rep = t[t.quantity == "replay"]
    order = t[t.quantity == "order"]
    secs = t[t.quantity == "seconds"]
    L = ["<!-- Written by `python tests/weka/experimenter.py` (or `--render`) from results.csv "
         "and meta.json. Do not edit by hand. -->", "",
         "# Our Weka learners against Weka's Experimenter", "",
         f"Measured at commit `{m['commit']}`{' (with uncommitted changes)' if m['dirty'] else ''}"
         f", Weka {m['weka_version']} ({m['java']}), {m['started']}.", "",
         f"Weka: {m['reps']} x {m['folds']}-fold cv per experiment as its Experimenter runs "
         f"it (`CrossValidationResultProducer`: randomize, stratify, `trainCV(k, f, random)` "
         f"shuffles each training fold), runs 1 .. {m['reps'] * E}, experiment e = runs "
         f"10e+1 .. 10e+10 (`tests/weka/WekaCV.java`). Ours: the runner's trial code on the "
         f"cell `SET/{'~'.join(OURS)}/{m['reps']}x{m['folds']}cv`, {E} runs from root seed "
         f"{m['seed']}. Both: {E} independent experiments per data set.", "",
         "## Mean accuracy (%)", "",
         f"Mean over {E} experiments of the mean fold accuracy; sd over experiments; "
         "z = (ours - Weka) / sqrt(sd_o^2/E + sd_w^2/E). `ib1` breaks distance ties in a "
         "random order of each training fold (Weka's Experimenter), `ib1[ties=order]` by "
         "row order; both are compared with Weka's one IB1.", "",
         "| data set | learner | Weka | sd | ours | sd | z |", "|---|---|---:|---:|---:|---:|---:|"]
    for r in acc.itertuples():
        L.append(f"| {r.dataset} | `{r.item}` | {_f(r.weka)} | {_f(r.weka_sd)} | {_f(r.ours)} "
                 f"| {_f(r.ours_sd)} | {_f(r.z, 1)} |")
    z_ib1 = acc[acc.item == "ib1"].z.abs()
    z_ord = acc[acc.item == "ib1[ties=order]"].z.abs()
    z_oth = acc[acc.item.isin(["wnb", "j48"])].z.abs()
    L += ["", f"Largest |z|: `ib1` {_f(z_ib1.max(), 1)}, `ib1[ties=order]` "
          f"{_f(z_ord.max(), 1)}, `wnb` and `j48` {_f(z_oth.max(), 1)} "
          f"({len(z_ib1)} data sets).", "",
          f"## Corrected 10x10 cv t: rejections of {E} (alpha = {m['alpha']})", "",
          "The corrected repeated k-fold cv t (Bouckaert & Frank 2004 sec. 3.3; Nadeau & "
          "Bengio's variance correction, t(99)) on each experiment's 100 fold differences; "
          "Weka's from its folds' accuracies with the same function. z: two-proportion z "
          "of the counts.", "",
          "| data set | pair | Weka | ours | z |", "|---|---|---:|---:|---:|"]
    for r in rej.itertuples():
        L.append(f"| {r.dataset} | `{r.item}` | {int(r.weka)} | {int(r.ours)} | {_f(r.z, 1)} |")
    nb_ib1 = rej[rej.item == "wnb vs ib1"]
    nb_ord = rej[rej.item == "wnb vs ib1[ties=order]"]
    L += ["", f"NB vs IB1, summed over the data sets: Weka {int(nb_ib1.weka.sum())}, ours "
          f"(`ib1`) {int(nb_ib1.ours.sum())}, ours (`ib1[ties=order]`) "
          f"{int(nb_ord.ours.sum())} of {E * len(nb_ib1)}.", ""]
    if len(rep):
        L += ["## Exact replay on Weka's own folds", "",
              f"Weka's runs 1 .. {m['replay_runs']}: each fold's rows fed to our learner in "
              "Weka's order (training fold as `trainCV` shuffled it, test fold in Weka's "
              "order; the folds re-derived by `make_fixtures.weka_cv_folds`); folds whose "
              "number of correct predictions equals Weka's.", "",
              "| data set | learner | folds | same correct count |", "|---|---|---:|---:|"]
        for r in rep.itertuples():
            L.append(f"| {r.dataset} | `{r.item}` | {int(r.n)} | {int(r.ours)} |")
        L += ["", f"All equal: {'yes' if (rep.ours == rep.n).all() else 'no'} "
              f"({int(rep.ours.sum())} of {int(rep.n.sum())}).", ""]
        j48 = rep[(rep.item == "j48") & (rep.ours != rep.n)]
        if len(j48):
            L += [f"`j48` differs on {fmt_sets(j48)}: it predicts as J48's `classifyInstance` "
                  "(Weka's `-p 0`; a class must beat the best so far by more than 1e-6), while "
                  "the Experimenter's `Evaluation` takes the first maximum of "
                  "`distributionForInstance`; the two disagree on near-ties "
                  "(docs/weka-fidelity.md).", ""]
    folds = t[t.quantity == "folds"]
    relab = t[t.quantity == "folds-relabelled"]
    if len(folds):
        runs = int(folds.n.iloc[0])
        L += ["## Fold construction", "",
              f"Our learners over {runs} runs of {m['folds']}-fold cv: with Weka's fold "
              f"memberships (its runs 1 .. {runs}, re-derived by `weka_cv_folds`), with our "
              "stratified design, and with our design after relabelling the classes at random "
              "in each run. Our design makes the order of the instances class-major with the "
              "classes in code order before its round-robin; Weka's `stratify` groups them "
              "in the order the classes first appear in the shuffled data. Mean accuracy (%); "
              "z against Weka's folds, from the runs' accuracies.", "",
              "| data set | learner | Weka's folds | our design | z | our design, classes "
              "relabelled | z |", "|---|---|---:|---:|---:|---:|---:|"]
        for r, q in zip(folds.itertuples(), relab.itertuples(), strict=True):
            L.append(f"| {r.dataset} | `{r.item}` | {_f(r.weka)} | {_f(r.ours)} | "
                     f"{_f(r.z, 1)} | {_f(q.ours)} | {_f(q.z, 1)} |")
        L += ["", f"Largest |z|: our design {_f(folds.z.abs().max(), 1)}, relabelled "
              f"{_f(relab.z.abs().max(), 1)}.", ""]
    L += ["## Order dependence", "",
          f"Each of the {m['reps'] * m['folds']} training folds of one stratified "
          f"{m['reps']}x{m['folds']} cv per data set, as is and randomly permuted (test rows "
          "unchanged): predictions that change; for `wnb` also test rows whose posterior "
          "changes in any bit (the sums run in another order).", "",
          "| data set | learner | predictions | changed | posteriors changed (any bit) |",
          "|---|---|---:|---:|---:|"]
    for r in order.itertuples():
        L.append(f"| {r.dataset} | `{r.item}` | {int(r.n)} | {int(r.ours)} | "
                 f"{'' if pd.isna(r.ours_sd) else int(r.ours_sd)} |")
    L += ["", "## Time", "",
          f"Wall and CPU seconds per data set (2 shared cores; load {m['load_at_start']:.1f} "
          "at the start): Weka's runs in one JVM, ours through the runner.", "",
          "| data set | Weka wall | Weka CPU | ours wall | ours CPU |", "|---|---:|---:|---:|---:|"]
    for name, g in secs.groupby("dataset", sort=False):
        wk, us = g[g.item == "weka"].iloc[0], g[g.item == "ours"].iloc[0]
        L.append(f"| {name} | {wk.weka:.0f} | {wk.ours:.0f} | {us.weka:.0f} | {us.ours:.0f} |")
    return "\n".join(L) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--experiments", type=int, default=100)
    ap.add_argument("--replay", type=int, default=100, help="Weka runs replayed exactly")
    ap.add_argument("--weka", default="/usr/share/java/weka.jar")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--render", action="store_true", help="only re-render RESULTS.md")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if not args.render:
        if not Path(args.weka).exists():
            print(f"Weka not found at {args.weka!r}; install Debian's 'weka' package",
                  file=sys.stderr)
            return 2
        if args.experiments < 2:
            print(f"--experiments must be at least 2, got {args.experiments!r}", file=sys.stderr)
            return 2
        started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
        sets = [s for s in args.sets.split(",") if s]
        info = meta(args.weka, args.experiments, args.replay, sets, started)
        rows = []
        for name in sets:
            rows += compare(name, args.weka, args.experiments, args.replay,
                            log=lambda s: print(s, flush=True))
            pd.DataFrame(rows, columns=list(COLUMNS)).to_csv(args.out / "results.csv",
                                                             index=False, float_format="%.6g")
        (args.out / "meta.json").write_text(json.dumps(info, indent=1) + "\n")
    (args.out / "RESULTS.md").write_text(render(args.out))
    print(f"wrote {args.out / 'RESULTS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
