"""The baselines table of a study: the tests proposed since 1998 beside the classic ones.

One tidy table per study, computed from the stored trials (fold error rates and, where
kept, per-instance losses); no learner is fitted.  A row per (cell, learner pair, test):

* ``measure``: ``size`` on H0 cells, ``power`` on H1 cells of known truth, ``reject rate``
  where the truth is unknown (:func:`simstudy.truth.truth`); ``rejects`` of ``runs``,
  ``proportion`` with its Wilson 95 % interval, decisions ``p < alpha`` (the study's alpha);
* the Bayesian correlated t's shares of trials that declare a difference, declare
  equivalence or stay undecided (``difference``, ``equivalence``, ``undecided``), from its
  three posterior probabilities per trial, which are a pure function of the stored fold
  errors and sizes and are derived again here on every read;
* where the study repeats a data set (:func:`simstudy.aggregate.repetitions`): Bouckaert &
  Frank's replicability of the test's decisions over the repetitions (``rep_units``
  repetition units, ``consistent_pct``, ``almost_consistent_pct``, ``R``);
* ``measure = choice`` rows for K-learner cells: the share of trials in which each choice
  method (the stored classic ones, and the model confidence set) picks each learner
  (``chosen``; ``*`` = no best found).

The new tests are the registry's baselines (:func:`simstudy.stats.registry.baselines`) whose design fits
the cell (per-instance tests only where the trials kept losses); the classic ones are the
stored p-values of the tests each cell asks for.  The Monte Carlo permutation and bootstrap
tests draw from keys derived from each trial's seed
(:func:`simstudy.seeding.trial_seed`, :func:`simstudy.stats.instances.resampling_key`), so a
table computed twice is the same table.

Command line::

    python -m simstudy baselines STUDY --store STORE [--out DIR]
    python -m simstudy perf baselines --trials 500000

The first writes ``DIR/baselines.{csv,md,tex}`` (default ``figures/STUDY``;
:func:`baselines_table`, :func:`write_baselines`); the second times every new test on
synthetic trials of the stored shape (:func:`benchmark`; docs/baselines.md).
"""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from ..aggregate import pair_cell, pair_name, rejects_per_unit, repetitions, wilson
from ..designs import get_design
from ..errors import SimstudyError
from ..seeding import trial_seed
from ..stats import consistency_from_counts
from ..stats.baselines import Trials, choose, evaluate
from ..stats.bayes import decision_shares
from ..stats.registry import baselines, declaration, get_test
from ..store import open_reader
from ..study import Study
from ..truth import truth, truth_text

__all__ = ["COLUMNS", "baselines_table", "benchmark", "write_baselines"]

COLUMNS = ["study", "cell", "pair", "design", "truth", "measure", "test", "new", "source",
           "rejects", "runs", "proportion", "ci_low", "ci_high", "difference", "equivalence",
           "undecided", "rep_units", "consistent_pct", "almost_consistent_pct", "R", "chosen"]


def _source(spec: str) -> str:
    """The citation the test's registry entry declares (the ``source`` column; empty for
    a name no longer registered)."""
    try:
        return declaration(spec).source
    except SimstudyError:
        return ""


def _scoped(study: Study | str, reader, runs: int | None, seed: int | None) -> Study:
    from ..catalog import get_study
    from ..scope import stored_scope

    if isinstance(study, str):
        return stored_scope(get_study(study), reader, runs, seed, asked=study)
    if runs is not None or seed is not None:
        return stored_scope(study, reader, runs, seed)
    return study


def _row(study: Study, cell, pair: str, truth_label: str, measure: str, test: str, new: bool,
         rejects: int, n: int, **extra) -> dict:
    lo, hi = wilson(rejects, n)
    return {"study": study.name, "cell": cell.id, "pair": pair, "design": cell.design,
            "truth": truth_label, "measure": measure, "test": test, "new": new,
            "source": _source(test), "rejects": int(rejects), "runs": int(n),
            "proportion": rejects / n if n else float("nan"), "ci_low": lo, "ci_high": hi,
            **extra}


def _replicability(runs: np.ndarray, p: np.ndarray, alpha: float, mode) -> dict:
    if mode is None:
        return {}
    units = rejects_per_unit(runs, p, alpha, mode)
    if units.size == 0:
        return {"rep_units": 0}
    c = consistency_from_counts(units, mode[1])
    return {"rep_units": int(units.size), "consistent_pct": 100.0 * c.consistent / units.size,
            "almost_consistent_pct": 100.0 * c.almost_consistent / units.size, "R": c.R}


def baselines_table(store: object, study: Study | str, *, alpha: float | None = None,
                    runs: int | None = None, seed: int | None = None,
                    tests: Sequence[str] | None = None, choices: Sequence[str] | None = None,
                    classic: bool = True) -> pd.DataFrame:
    """The study's baselines table (module doc) from the trials ``store`` holds.

    ``store``: a path or an open store; ``study``: a registered name (scoped to the runs
    and seed the store holds, as ``report`` does) or a :class:`~simstudy.study.Study`
    (its own runs and seed).  ``tests``/``choices``: the new methods to compute (default
    the registry's :func:`~simstudy.stats.registry.baselines` of each kind); ``classic``: also the stored p-values and choices of the tests each cell asks for.

    Examples
    --------
    >>> import tempfile, os
    >>> from simstudy.catalog import get_study
    >>> from simstudy.runner import run_study
    >>> from simstudy.store import Store
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> with Store(path) as store:
    ...     _ = run_study(get_study("demo", runs=4).select("iris/nmc"), store, jobs=1,
    ...                   progress=False)
    >>> t = baselines_table(path, "demo")
    >>> sorted(t.loc[t["new"], "test"].unique())[:3]
    ['bayes-correlated-t', 'combined-t5x2cv', 'conservative-z']
    >>> set(t["measure"])
    {'reject rate'}
    """
    tests = baselines() if tests is None else tests
    choices = baselines("choice") if choices is None else choices
    reader = open_reader(store)
    study = _scoped(study, reader, runs, seed)
    alpha = study.alpha if alpha is None else float(alpha)
    mode = repetitions(study)
    held = reader.fold_errors([c.id for c in study.cells], study.seed, study.runs)
    pv = reader.pvalues(study.cells, study.seed, study.runs) if classic else None
    stored: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}
    if pv is not None and len(pv):
        for (cid, t, a, b), g in pv.groupby(["cell", "test", "a", "b"], sort=False):
            stored[(cid, t, int(a), int(b))] = (g["run"].to_numpy(), g["pvalue"].to_numpy())
    ch = reader.choices(study.cells, study.seed, study.runs) if classic else None
    rows: list[dict] = []
    for cell in study.cells:
        ct = held.get(cell.id)
        if ct is None:
            continue
        design = get_design(cell.design)
        fitting = [t for t in tests if get_test(t).fits(design)]
        with_losses = bool(ct.has_losses.all())
        need_losses = [t for t in fitting if getattr(get_test(t), "needs_losses", False)]
        losses = reader.losses(cell.id, study.seed, study.runs) if need_losses and \
            with_losses else None
        if losses is None:
            fitting = [t for t in fitting if t not in need_losses]
        seeds = None
        if any(t.startswith(("paired-permutation", "paired-bootstrap")) and "exact" not in t
               for t in fitting):
            seeds = [trial_seed(study.seed, cell.id, int(r)) for r in ct.runs]
        tr = Trials(ct.errors, ct.n_train, ct.n_test, losses=losses, seeds=seeds)
        K = ct.errors.shape[1]
        for a, b in itertools.combinations(range(K), 2):
            sub = cell if K == 2 else pair_cell(cell, a, b)
            h0, diff = truth(sub, study)
            label = truth_text(h0, diff)
            measure = "size" if h0 else ("power" if h0 is False else "reject rate")
            pair = pair_name(cell.learners, a, b)
            for t in fitting:
                out = evaluate(t, tr, a, b)
                p = out.pvalue
                extra = _replicability(ct.runs, p, alpha, mode)
                if "p_left" in out.extra:
                    s = decision_shares(out.extra["p_left"], out.extra["p_rope"],
                                        out.extra["p_right"])
                    extra.update(difference=s["difference"], equivalence=s["equivalence"],
                                 undecided=s["undecided"])
                rows.append(_row(study, cell, pair, label, measure, t, True,
                                 int(np.sum(p < alpha)), p.size, **extra))
            for t in cell.tests if classic else ():
                got = stored.get((cell.id, t, a, b))
                if got is None:
                    continue
                r_, p = got
                p = np.where(np.isnan(p), 1.0, p)
                rows.append(_row(study, cell, pair, label, measure, t, False,
                                 int(np.sum(p < alpha)), p.size,
                                 **_replicability(r_, p, alpha, mode)))
        if K >= 3:
            picks = [(m, True, choose(m, tr, alpha)) for m in choices]
            if ch is not None and len(ch):
                for t, g in ch[ch["cell"] == cell.id].groupby("test", sort=False):
                    # stored at the study's alpha; another alpha is simstudy.aggregate's job
                    picks.append((t, False, g["best"].to_numpy()))
            for m, new, best in picks:
                for k in [*range(K), -1]:
                    rows.append(_row(study, cell, "", "", "choice", m, new,
                                     int(np.sum(best == k)), best.size,
                                     chosen=cell.learners[k] if k >= 0 else "*"))
    return pd.DataFrame(rows, columns=COLUMNS)


def write_baselines(table: pd.DataFrame, out: str | Path) -> list[Path]:
    """``baselines.md``, ``baselines.csv`` (raw floats) and ``baselines.tex`` under ``out``."""
    from . import write_table

    name = table["study"].iloc[0] if len(table) else "study"
    return write_table(table, Path(out), "baselines", digits=3,
                       caption=f"{name}: the tests proposed since 1998 beside the classic "
                               "tests (size, power, reject rate, replicability)")


# --- timing ----------------------------------------------------------------------------------

def synthetic_trials(T: int, *, seed: int = 0, K: int = 2, R: int = 5, F: int = 2,
                     n_test: int = 150) -> Trials:
    """T trials shaped as stored ones (K learners, R x F folds of ``n_test`` test instances,
    per-fold loss counts n01, n10, n of every pair), with learners of similar, correlated
    errors; each trial seeded as a stored trial of a cell ``synthetic``."""
    rng = np.random.default_rng(seed)
    base = rng.uniform(0.05, 0.35, size=(T, 1, 1, 1, 1))
    # each instance: hard with probability base; a learner errs on hard instances mostly
    hard = rng.binomial(n_test, base[..., 0], size=(T, 1, R, F))
    lean = rng.uniform(0.8, 0.95, size=(T, K, 1, 1))
    slip = rng.uniform(0.0, 0.08, size=(T, K, 1, 1))
    wrong_hard = rng.binomial(hard, lean)
    wrong_easy = rng.binomial(n_test - hard, slip)
    errors = (wrong_hard + wrong_easy) / n_test
    counts = {}
    for a, b in itertools.combinations(range(K), 2):
        # overlap of two learners' mistakes among hard and easy instances (hypergeometric)
        both = (rng.hypergeometric(wrong_hard[:, a], hard[:, 0] - wrong_hard[:, a],
                                   wrong_hard[:, b])
                + rng.hypergeometric(wrong_easy[:, a], n_test - hard[:, 0] - wrong_easy[:, a],
                                     wrong_easy[:, b]))
        wa = wrong_hard[:, a] + wrong_easy[:, a]
        wb = wrong_hard[:, b] + wrong_easy[:, b]
        counts[(a, b)] = np.stack([wa - both, wb - both, np.full_like(wa, n_test)], axis=-1)
    sizes = np.full((T, R, F), float(n_test))
    seeds = [trial_seed(seed, "synthetic", r) for r in range(T)]
    return Trials(errors, sizes * (F - 1) if F > 1 else sizes, sizes, counts=counts,
                  seeds=seeds)


def benchmark(trials: int = 500_000, *, seed: int = 0, mc_trials: int | None = None,
              mcs_trials: int | None = None, out=sys.stdout) -> pd.DataFrame:
    """Wall and CPU seconds of every new test over ``trials`` synthetic 5x2 trials.

    The closed-form and exact tests run on all ``trials``; the Monte Carlo permutation and
    bootstrap (B = 9999) on ``mc_trials`` (default all), the model confidence set (K = 5,
    B = 1000) on ``mcs_trials`` (default trials / 50) — their cost is per resample, and the
    table gives each one's seconds per trial too.
    """
    mc_trials = trials if mc_trials is None else int(mc_trials)
    mcs_trials = max(1, trials // 50) if mcs_trials is None else int(mcs_trials)
    rows = []

    def timed(name: str, n: int, fn) -> None:
        w, c = time.perf_counter(), time.process_time()
        fn()
        w, c = time.perf_counter() - w, time.process_time() - c
        rows.append({"test": name, "trials": n, "wall_s": w, "cpu_s": c,
                     "us_per_trial": 1e6 * w / n})
        print(f"{name:40s} {n:>8d} trials  wall {w:7.2f} s  cpu {c:7.2f} s", file=out,
              flush=True)

    w0 = time.perf_counter()
    tr = synthetic_trials(trials, seed=seed)
    print(f"synthetic trials: {trials} in {time.perf_counter() - w0:.1f} s (not timed below)",
          file=out, flush=True)
    closed = [t for t in baselines() if not (t.startswith(("paired-permutation",
                                                         "paired-bootstrap"))
                                           and "exact" not in t)]
    w, c = time.perf_counter(), time.process_time()
    for t in closed:
        timed(t, trials, lambda t=t: evaluate(t, tr, 0, 1))
    rows.append({"test": "all closed-form and exact tests", "trials": trials,
                 "wall_s": time.perf_counter() - w, "cpu_s": time.process_time() - c,
                 "us_per_trial": 1e6 * (time.perf_counter() - w) / trials})
    sub = tr if mc_trials == trials else Trials(
        tr.errors[:mc_trials], tr.n_train[:mc_trials], tr.n_test[:mc_trials],
        counts={k: v[:mc_trials] for k, v in tr.counts.items()}, seeds=tr.seeds[:mc_trials])
    timed("per-trial keys (SeedSequence)", mc_trials, lambda: sub.keys(0, 0, 1))
    for t in ("paired-permutation", "paired-bootstrap"):
        timed(f"{t} (B = 9999)", mc_trials, lambda t=t: evaluate(t, sub, 0, 1))
    five = synthetic_trials(mcs_trials, seed=seed + 1, K=5)
    for m in baselines("choice"):
        timed(f"{m} (K = 5, B = 1000)", mcs_trials, lambda m=m: choose(m, five))
    return pd.DataFrame(rows)

