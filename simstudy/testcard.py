"""A new test's report card: size, power, paired differences and replicability beside every
baseline, from stored trials (no learner is fitted).

For each study asked for, the new test ``f`` is evaluated on every stored trial of every
cell whose design it fits (the same fold error rates, and per-instance losses when
``f.needs == "losses"``; the call is :class:`simstudy.usertest.UserTest`'s), and set beside
the stored p-values of the baseline tests of the same cells.  The truth of each cell
(:mod:`simstudy.truth`) decides what its reject rate is called:

* **size** -- on H0 cells: the reject proportion with its Wilson 95 % interval (Wilson 1927;
  :func:`simstudy.aggregate.wilson`), and the calibration curve: the reject proportion at
  every alpha of a grid against the diagonal (a calibrated test's P(p < alpha) = alpha);
* **power** -- only on H1 cells (a known difference: Gaussian and BAN sources, or a study's
  declared label), against |true difference| where known, else |z|;
* **reject rate, truth unknown** -- every other cell (Alpaydın 1999's type II cells: which
  learner is better is not known), shown against |z| = |ē_a − ē_b| / s_b (Alpaydın 1999
  §4, Fig. 2) and never pooled into power;
* **paired differences** -- per baseline, per cell and pooled: the new test's reject rate
  minus the baseline's *on the same trials*, with Tango's (1998) paired score interval
  (:func:`simstudy.aggregate.tango_paired`), its width beside the width the two rates would
  have from independent trials (Newcombe 1998's hybrid score interval), and the runs
  needed to resolve a given difference;
* **intervals** -- when ``f`` returns a confidence interval for the difference in error:
  coverage and mean width (the metrics of Schulz-Kümpel et al. 2024) on cells of known
  truth, beside the corrected resampled t's interval (Nadeau & Bengio 2003; the registry's
  ``corrected-t``, :data:`INTERVAL_BASELINES`) on the same fold errors (an interval
  method's own card: :mod:`simstudy.intervalcard`);
* **matched size** -- per baseline, power compared at matched size (:data:`MATCHING`):
  each of the two tests at the level where it rejects at most alpha of the H0 trials both
  read, then both on the same H1 trials, with Tango's paired interval (``Card.matched``);
* **replicability** -- where the study repeats each data set: Bouckaert & Frank (2004) §2;
* **summary** -- one line per test with ranks (size by its distance from alpha, over-size
  last; power at matched size; R) and why any count is 0, and a one-sentence verdict that
  names one baseline (:func:`comparator`) for its size and its power claims.

Pooled figures weight each cell by its runs (pooled trials), so a 40-run cell counts 1/25
of a 1000-run one; cells of one study holding different run counts are flagged.  Every
study asked for appears in ``Card.studies``: covered, or skipped with the reason.

The user's function: see :mod:`simstudy.usertest` (``f(d, *, n_train, n_test)``, scalar
or ``f.vectorized``; a small scalar numpy function costs about 10 µs per call, measured by
``python -m simstudy perf card``).
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .aggregate import (
    newcombe_unpaired,
    pair_name,
    repetitions,
    runs_to_resolve,
    runs_to_resolve_unpaired,
    tango_paired,
    wilson,
)
from .aggregate import pair_cell as _pair_cell
from .aggregate import rejects as _rejects
from .aggregate import rejects_per_unit as _rep_units
from .core import FoldLosses
from .designs import get_design
from .errors import Interrupted, SimstudyError
from .stats.baselines import Trials, evaluate
from .stats.interval_registry import get_interval
from .stats.registry import baselines as registered_baselines
from .stats.registry import get_test
from .store import TrialReader
from .study import Study
from .testing import check_test
from .trials import ShippedTrials
from .truth import truth, truth_text
from .usertest import (
    UserTest,
    locate,
    no_trials,
    open_readers,
    progress_bar,
    settle_study,
    study_list,
)

#: default alpha grid of the calibration curves
ALPHA_GRID: tuple[float, ...] = tuple(sorted({*np.round(np.linspace(0.005, 0.2, 40), 4),
                                              0.001, 0.01, 0.05, 0.1}))
SIZE, POWER, UNKNOWN = "size", "power", "reject rate, truth unknown"
POOLED = "(pooled)"
#: interval methods (specs of :mod:`simstudy.stats.interval_registry`) set beside an
#: interval the new test returns, computed from the same stored fold errors where they read
#: the cell's design
INTERVAL_BASELINES: tuple[str, ...] = ("corrected-t",)


@dataclass
class Card:
    """A new test's report card: tidy frames (one row per study x cell x test [x alpha])."""

    name: str
    alpha: float
    size: pd.DataFrame
    calibration: pd.DataFrame
    power: pd.DataFrame
    replicability: pd.DataFrame
    summary: pd.DataFrame
    notes: list[str] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    trials: int = 0
    studies: pd.DataFrame = field(default_factory=pd.DataFrame)
    paired: pd.DataFrame = field(default_factory=pd.DataFrame)
    intervals: pd.DataFrame = field(default_factory=pd.DataFrame)
    verdict: str = ""
    resolve: float = 0.01
    pairs: int = 0
    #: the new test against each baseline on the trials both read, power at matched size
    #: (:data:`MATCHING`)
    matched: pd.DataFrame = field(default_factory=pd.DataFrame)


# --- small pieces ------------------------------------------------------------------------

def _reject_rate(p: np.ndarray, alphas: np.ndarray) -> np.ndarray:
    """P(p < alpha) at each alpha, an undefined (NaN) p-value never rejecting."""
    q = np.sort(np.where(np.isnan(p), np.inf, p))
    return np.searchsorted(q, alphas, side="left") / max(len(q), 1)


def _matched_alpha(p: np.ndarray, alpha: float) -> float:
    """alpha*: the largest level at which the pooled H0 reject proportion is <= alpha."""
    q = np.sort(np.where(np.isnan(p), np.inf, p))
    if q.size == 0:
        return float("nan")
    k = int(math.floor(alpha * q.size + 1e-9))
    return float(min(q[k], 1.0)) if k < q.size else 1.0


def _z(ea: np.ndarray, eb: np.ndarray) -> float:
    """Alpaydın (1999) §4 / Fig. 2: z = (mean error a − mean error b) / sd of b's errors."""
    s = float(np.std(eb, ddof=1)) if eb.size > 1 else float("nan")
    if not s > 0:
        return float("nan")
    return float((ea.mean() - eb.mean()) / s)




# --- the card ------------------------------------------------------------------------------

def card(fn: Callable | str | UserTest, studies: Sequence[Study | str] | None = None,
         store=None, *,
         name: str | None = None, alpha: float = 0.05, alphas: Sequence[float] = ALPHA_GRID,
         swap: bool = False, runs: int | None = None, seed: int | None = None,
         resolve: float = 0.01, progress: bool | None = None,
         baselines: Sequence[str] | None = None,
         log: Callable[[str], None] | None = None) -> Card:
    """The report card of test ``fn`` on the stored trials of ``studies`` (no refit).

    ``fn``: a function, or ``"MODULE:FUNCTION"`` / ``"path.py:FUNCTION"``.  ``studies``:
    registered names or study files (scoped to what the store holds, as ``report`` does)
    or Study objects (read as given); None for every study whose trials ship
    (:func:`simstudy.trials.shipped_studies`).  ``store``: a path, an open store, a list of
    them (each study is read from the first that holds it), or None for the shipped trials;
    a store is read only when named here.
    ``swap=True`` evaluates the new test on (learner b, learner a): a two-sided test's card
    must not change.  ``resolve``: the difference in reject rate whose runs-to-resolve the
    paired table gives.  ``progress``: a bar over trials on stderr (default: when stderr
    is a terminal).  ``baselines``: tests computed from the same stored fold errors and
    ranked beside the stored classic tests of each cell (default: the registry's baselines
    that read only fold errors, ``simstudy.stats.registry.baselines(fold_errors_only=True)``,
    the tests proposed since 1998; ``()`` for the stored tests only).
    ``log``: called with one line once the trials are located, before any is evaluated
    (how many, from where): the command line prints it at once, so a long card shows
    what it is doing from its first seconds.

    Examples
    --------
    >>> import simstudy as ss, tempfile, os
    >>> from simstudy.stats import ttest_5x2cv
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = ss.run("demo", runs=4, store=path, filter="iris/nmc", progress=False)
    >>> def t(d, *, n_train, n_test):
    ...     return ttest_5x2cv(d)
    >>> c = card(t, ["demo"], path)  # one of demo's six cells is stored
    >>> c.studies["status"].tolist(), c.trials
    (['partly covered'], 4)
    """
    test = UserTest.of(fn, name=name)
    # the conformance check's declarations part first (name, signature, declarations);
    # its calls are left to the stored trials, whose errors name the cell and the run
    check_test(test, call=False)
    name = test.name
    if not (isinstance(resolve, (int, float)) and 0 < resolve < 1):
        raise SimstudyError(f"resolve must be a difference in (0, 1), got {resolve!r}")
    from .trials import shipped_studies

    studies = study_list(studies, shipped_studies)
    t0 = time.perf_counter()
    readers, opened = open_readers(store, [s for s in studies if isinstance(s, str)])
    if baselines is None:
        baselines = registered_baselines(fold_errors_only=True)
    try:
        for b in baselines:
            get_test(b)  # an unknown name fails here, naming the valid ones
        return _card(test, studies, readers, alpha=float(alpha), alphas=alphas, swap=swap,
                     runs=runs, seed=seed, resolve=float(resolve), progress=progress, t0=t0,
                     baselines=tuple(baselines), log=log)
    finally:
        for r in opened:
            r.close()


class _Acc:
    """What the card accumulates over studies."""

    def __init__(self) -> None:
        self.size: list[dict] = []
        self.cal: list[dict] = []
        self.power: list[dict] = []
        self.rep: list[dict] = []
        self.paired: list[dict] = []
        self.intervals: list[dict] = []
        # test -> [((study, cell, pair), runs, p-values)] on H0 and on H1 cells: the trials
        # two tests both read are aligned by run for the comparisons at matched size
        self.h0p: dict[str, list[tuple[tuple, np.ndarray, np.ndarray]]] = {}
        self.h1p: dict[str, list[tuple[tuple, np.ndarray, np.ndarray]]] = {}
        self.notes: list[str] = []
        self.studies: list[dict] = []
        self.trials = 0
        self.pairs = 0
        self.baselines: tuple[str, ...] = ()


def _card(test: UserTest, studies: list, readers: list[TrialReader], *, alpha: float, alphas, swap: bool,
          runs, seed, resolve: float, progress, t0: float, baselines: tuple = (),
          log: Callable[[str], None] | None = None) -> Card:
    name = test.name
    alphas = np.asarray(sorted({float(x) for x in alphas} | {alpha}))
    # wall seconds of the main thread per phase ("read": waiting for the trials), and the
    # CPU seconds of reading them, in whichever thread read them
    secs = {"read": 0.0, "read cpu": 0.0, "baselines": 0.0, "new test": 0.0, "aggregate": 0.0}
    acc = _Acc()
    acc.baselines = baselines
    located = []
    for st in studies:
        t = time.perf_counter()
        study, reader = locate(st, readers, runs, seed, alpha)
        secs["read"] += time.perf_counter() - t
        located.append((st, study, reader))
    total = 0
    for _, study, reader in located:
        if reader is None:
            continue
        held = reader.holdings([c.id for c in study.cells])
        held = held[held["seed"] == study.seed].set_index("cell")["trials"]
        for c in study.cells:
            if c.id in held.index and test.fits(c.design) is not False:
                k = len(c.learners)
                total += min(int(held[c.id]), study.runs) * (k * (k - 1) // 2)
    if log is not None:
        where = list(dict.fromkeys(r.describe() for _, _, r in located if r is not None))
        held = [label if isinstance(label, str) else s.name
                for label, s, r in located if r is not None]
        log(f"card {name!r}: up to {total:,} trials x learner pairs of "
            f"{', '.join(held) or 'no study'} to evaluate, from "
            f"{'; '.join(where) or 'nowhere'}; no learner is fitted")
    bar = progress_bar(progress, total, f"card {name}")
    # the next study's shipped trials are read (decompressed) in a second thread while this
    # one is evaluated: one study ahead, so at most two studies' trials are in memory; a
    # store's connection stays in the thread that opened it
    ahead = [_reads_ahead(study, reader) for _, study, reader in located]
    pool = ThreadPoolExecutor(1) if any(ahead) else None
    pending: dict[int, Future] = {}

    def prefetch(i: int) -> None:
        if pool is not None and i < len(located) and ahead[i]:
            pending[i] = pool.submit(_read_study, *located[i][1:])

    try:
        prefetch(0)
        for i, (st, study, reader) in enumerate(located):
            prefetch(i + 1)
            _study(test, st, study, reader, readers, acc, alpha, alphas, swap, resolve, bar,
                   secs, pending.pop(i, None))
    except KeyboardInterrupt as e:  # a card stores nothing: say so, not "rerun to resume"
        at = f" {e.where}" if hasattr(e, "where") else ""
        raise Interrupted(
            f"card {name!r} stopped{at} after {acc.pairs + getattr(e, 'done', 0):,} of "
            f"{total:,} trials x learner pairs evaluated ({len(acc.studies)} of "
            f"{len(located)} studies begun); a card stores nothing and wrote nothing: rerun "
            "it to start again") from None
    finally:
        if pool is not None:
            for f in pending.values():
                f.cancel()
            pool.shutdown(wait=True)
        if bar is not None:
            bar.close()
    if not acc.size and not acc.power:
        why = "; ".join(f"{r['study']}: {r['reason']}" for r in acc.studies if r["reason"])
        raise SimstudyError(f"the test {name!r} fits no stored cell of "
                            f"{[r['study'] for r in acc.studies]!r}" + (f" ({why})" if why else ""))
    t = time.perf_counter()
    size = _frame(acc.size, _SIZE_COLS)
    power = _frame(acc.power, _POWER_COLS)
    cal = pd.DataFrame(acc.cal, columns=["study", "cell", "pair", "design", "truth", "test",
                                         "alpha", "proportion"])
    rep = pd.DataFrame(acc.rep, columns=_REP_COLS)
    if not len(size) and len(power):
        acc.notes.append("no H0 cell among the studies: power is at the nominal alpha, not at "
                         "matched size (add a study with H0 cells to judge size and match it)")
    mixed = sorted({int(x) for x in pd.concat([size["runs"], power["runs"]])})
    if len(mixed) > 1:
        acc.notes.append(f"cells hold different run counts ({mixed[0]:,}–{mixed[-1]:,}): pooled "
                         "figures weight each cell by its runs (they pool trials)")
    tests = list(dict.fromkeys([name, *size["test"], *power["test"], *rep["test"]]))
    matched = _matched_frame(name, tests, alpha, acc.h0p, acc.h1p)
    summary = _summary(name, alpha, size, power, acc.h0p, acc.h1p, rep, matched)
    paired = _paired_frame(acc.paired, resolve)
    intervals = _interval_frame(acc.intervals)
    studies_df = pd.DataFrame(acc.studies, columns=_STUDY_COLS)
    verdict = _verdict(name, alpha, size, power, paired, studies_df, matched, summary)
    secs["aggregate"] += time.perf_counter() - t
    secs["total"] = time.perf_counter() - t0
    return Card(name, alpha, size, cal, power, rep, summary, acc.notes, secs, acc.trials,
                studies_df, paired, intervals, verdict, resolve, acc.pairs, matched)


_SIZE_COLS = ["study", "cell", "pair", "design", "truth", "test", "new", "rejects", "runs",
              "proportion", "ci_low", "ci_high"]
_POWER_COLS = _SIZE_COLS + ["measure", "true_diff", "z", "x_kind", "x"]
_REP_COLS = ["study", "design", "pair", "test", "new", "units", "repetitions", "consistent",
             "consistent_pct", "almost_consistent_pct", "R", "mean_reject"]
_TRUTH_OF = {SIZE: "H0", POWER: "H1", UNKNOWN: "unknown"}
_STUDY_COLS = ["study", "status", "cells", "cells_read", "trials", "runs", "read_from", "reason"]


def _frame(rows: list[dict], cols: list[str]) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=cols)
    if len(df):
        lo, hi = wilson(df["rejects"].to_numpy(), df["runs"].to_numpy())
        df["ci_low"], df["ci_high"] = lo, hi
    return df


def _baselines(pv: pd.DataFrame) -> dict[str, dict[tuple[int, int], dict]]:
    """cell -> (a, b) -> test -> (runs, p-values), in the reader's order (the cells' test
    order: :meth:`simstudy.store.Store.pvalues`)."""
    out: dict[str, dict[tuple[int, int], dict]] = {}
    if pv.empty:
        return out
    cells, cu = pd.factorize(pv["cell"], sort=False)
    tests, tu = pd.factorize(pv["test"], sort=False)
    a, b = pv["a"].to_numpy(np.int64), pv["b"].to_numpy(np.int64)
    run, p = pv["run"].to_numpy(), pv["pvalue"].to_numpy()
    K = int(max(a.max(), b.max())) + 1
    key = ((cells.astype(np.int64) * len(tu) + tests) * K + a) * K + b
    # rows come grouped (the reader's order); a stable sort keeps that and each run order
    order = np.argsort(key, kind="stable")
    ks = key[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    groups = sorted(zip(order[starts], starts, np.r_[starts[1:], len(ks)], strict=True))
    for first, s0, e0 in groups:  # in the order the reader gave (the cells' test order)
        sel = order[s0:e0]
        c, t = cu[cells[first]], tu[tests[first]]
        out.setdefault(c, {}).setdefault((int(a[first]), int(b[first])), {})[t] = (run[sel],
                                                                                   p[sel])
    return out


def _with_baselines(stored: dict, names: tuple, design: str, tr, K: int) -> dict:
    """The cell's stored baselines, (a, b) -> test -> (runs, p-values), plus the tests
    ``names`` that fit the design and read only fold errors, computed from ``tr``."""
    d = get_design(design)
    fitting = [n for n in names if get_test(n).fits(d)
               and not getattr(get_test(n), "needs_losses", False)]
    if not fitting:
        return stored
    out = {k: dict(v) for k, v in stored.items()}
    trials = Trials(tr.errors, tr.n_train, tr.n_test)
    for a, b in itertools.combinations(range(K), 2):
        for n in fitting:
            out.setdefault((a, b), {})[n] = (tr.runs, evaluate(n, trials, a, b).pvalue)
    return out


def _reads_ahead(study: Study, reader: TrialReader) -> bool:
    """Whether the study's trials may be read in another thread: shipped trials only (each
    study its own files and reader)."""
    return isinstance(reader, ShippedTrials)


def _read_study(study: Study, reader: TrialReader) -> tuple:
    """What :func:`_study` reads of a study: its holdings, fold errors and stored baselines,
    and the CPU seconds of the thread that read them."""
    t = time.thread_time()
    ids = [c.id for c in study.cells]
    return (reader.holdings(ids), reader.fold_errors(ids, study.seed, study.runs),
            _baselines(reader.pvalues(study.cells, study.seed, study.runs)),
            time.thread_time() - t)


def _study(test: UserTest, st, study: Study, reader: TrialReader | None,
           readers: list[TrialReader], acc: _Acc, alpha: float,
           alphas: np.ndarray, swap: bool, resolve: float, bar, secs: dict,
           ahead: Future | None = None) -> None:
    name = test.name
    label = st if isinstance(st, str) else study.name
    row = {"study": label, "status": "skipped", "cells": len(study.cells), "cells_read": 0,
           "trials": 0, "runs": "", "read_from": "" if reader is None else reader.describe(),
           "reason": ""}
    acc.studies.append(row)
    if reader is None:
        row["reason"] = no_trials(st, study, readers)
        acc.notes.append(f"{label}: skipped: {row['reason']}")
        return
    t = time.perf_counter()
    held, trials, base, cpu = (ahead.result() if ahead is not None
                               else _read_study(study, reader))
    secs["read cpu"] += cpu
    others = sorted(int(x) for x in set(held["seed"]) - {study.seed})
    if others:
        acc.notes.append(f"{label}: read at root seed {study.seed}; also stored at "
                         f"{', '.join(map(str, others))} (--seed to read another)")
    secs["read"] += time.perf_counter() - t
    mode = repetitions(study)
    why: dict[str, list[str]] = {}  # reason -> cell ids
    rep_acc: dict[tuple, list[np.ndarray]] = {}
    cell_runs: list[int] = []
    for cell in study.cells:
        tr = trials.get(cell.id)
        if tr is None:
            why.setdefault("no stored trials", []).append(cell.id)
            continue
        if test.fits(cell.design) is False:
            why.setdefault(f"design {cell.design!r} not in f.designs", []).append(cell.id)
            continue
        losses = None
        if test.needs_losses:
            if not tr.has_losses.all():
                why.setdefault("its trials did not keep per-instance losses, which f.needs "
                               "(the study's meta keep_losses)",
                               []).append(cell.id)
                continue
            t = time.perf_counter()
            losses = reader.losses(cell.id, study.seed, study.runs)
            secs["read"] += time.perf_counter() - t
        K = tr.errors.shape[1]
        ntr, nte = tr.n_train.mean((1, 2)), tr.n_test.mean((1, 2))
        t = time.perf_counter()
        bc = _with_baselines(base.get(cell.id, {}), acc.baselines, cell.design, tr, K)
        secs["baselines"] += time.perf_counter() - t
        read = False
        for a, b in itertools.combinations(range(K), 2):
            t = time.perf_counter()
            pa, pb = (b, a) if swap else (a, b)
            skipped: list[str] = []
            out = test.pvalues(tr.errors[:, pa] - tr.errors[:, pb], ntr, nte, runs=tr.runs,
                               where=f"cell {cell.id!r}",
                               losses=None if losses is None
                               else [None if L is None else L[[pa, pb]] for L in losses],
                               skipped=skipped, progress=bar)
            secs["new test"] += time.perf_counter() - t
            if out is None:  # a probe: the test does not read this cell's design
                why.setdefault(f"design {cell.design!r}: the test raised {skipped[0]}",
                               []).append(cell.id)
                break
            read = True
            acc.pairs += tr.T
            t = time.perf_counter()
            _pair_rows(test, study, cell, tr, a, b, K, out, bc.get((a, b), {}), acc, alpha,
                       alphas, swap, mode, rep_acc)
            secs["aggregate"] += time.perf_counter() - t
        if read:
            row["cells_read"] += 1
            row["trials"] += tr.T
            acc.trials += tr.T
            cell_runs.append(tr.T)
    acc.rep += _replicability_rows(label, rep_acc, mode, name)
    if cell_runs:
        lo, hi = min(cell_runs), max(cell_runs)
        row["runs"] = f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"
        if lo != hi:
            acc.notes.append(f"{label}: cells hold {lo:,} to {hi:,} runs (flagged 'runs' in the "
                             "tables); pooled figures weight each cell by its runs")
    settle_study(row, why, label, len(study.cells), acc.notes)


def _pair_rows(test: UserTest, study: Study, cell, tr, a: int, b: int, K: int, out, bc: dict,
               acc: _Acc, alpha: float, alphas: np.ndarray, swap: bool, mode,
               rep_acc: dict) -> None:
    name = test.name
    tests = {name: (tr.runs, out.pvalue)}
    tests.update(bc)
    sub = cell if K == 2 else _pair_cell(cell, a, b)
    h0, diff = truth(sub, study)
    measure = SIZE if h0 else POWER if h0 is False else UNKNOWN
    pair = "" if K == 2 else pair_name(cell.learners, a, b)
    key = dict(study=study.name, cell=cell.id, pair=pair, design=cell.design,
               truth=truth_text(h0, diff))
    z = _z(tr.errors[:, a], tr.errors[:, b])
    rej_new = _rejects(out.pvalue, alpha)
    for tname, (truns, p) in tests.items():
        k = int(_rejects(p, alpha).sum())
        n = int(p.size)
        row = {**key, "test": tname, "new": tname == name, "rejects": k, "runs": n,
               "proportion": k / n if n else float("nan"), "ci_low": np.nan, "ci_high": np.nan}
        if measure == SIZE:
            acc.size.append(row)
            acc.h0p.setdefault(tname, []).append(((study.name, cell.id, pair), truns, p))
            for al, pr in zip(alphas, _reject_rate(p, alphas), strict=True):
                acc.cal.append({**key, "test": tname, "alpha": float(al),
                                "proportion": float(pr)})
        else:
            x_kind = "abs(true diff)" if diff is not None else "abs(z)"
            acc.power.append({**row, "measure": measure, "true_diff": diff, "z": z,
                              "x_kind": x_kind, "x": abs(diff) if diff is not None else abs(z)})
            if measure == POWER:
                acc.h1p.setdefault(tname, []).append(((study.name, cell.id, pair), truns, p))
        if mode is not None:
            rep_acc.setdefault((cell.design, pair, tname), []).append(
                _rep_units(truns, p, alpha, mode))
        if tname != name:
            # the same trials: align the baseline's runs with the new test's (most often
            # already the same runs in the same order)
            if truns is tr.runs or np.array_equal(truns, tr.runs):
                x, y = rej_new, _rejects(p, alpha)
            else:
                _, i_new, i_base = np.intersect1d(tr.runs, truns, return_indices=True)
                x, y = rej_new[i_new], _rejects(p, alpha)[i_base]
            acc.paired.append({**key, "measure": measure, "baseline": tname,
                               "runs": int(x.size), "new_rejects": int(x.sum()),
                               "base_rejects": int(y.sum()), "n10": int((x & ~y).sum()),
                               "n01": int((~x & y).sum())})
    if out.ci_low is not None and h0 is not None and diff is not None:
        target = -diff if swap else diff
        methods = {f"{name} (new)": (out.ci_low, out.ci_high)}
        for m in INTERVAL_BASELINES:
            got = _registry_interval(m, cell.design, tr, a, b, test.confidence)
            if got is not None:
                lo, hi = got
                methods[m] = (-hi, -lo) if swap else (lo, hi)
        for m, (lo, hi) in methods.items():
            ok = np.isfinite(lo) & np.isfinite(hi)
            acc.intervals.append({**key, "true_diff": target, "method": m,
                                  "new": m.endswith("(new)"), "runs": int(ok.sum()),
                                  "covered": int(((lo <= target) & (target <= hi) & ok).sum()),
                                  "width_sum": float(np.sum((hi - lo)[ok])),
                                  "undefined": int((~ok).sum())})


def _registry_interval(spec: str, design: str, tr, a: int, b: int, confidence: float
                       ) -> tuple[np.ndarray, np.ndarray] | None:
    """Interval method ``spec`` of the registry on each trial's fold errors (difference
    a - b) at ``confidence``, nan where undefined; None when it does not read the design
    or needs per-instance losses."""
    method, d = get_interval(spec), get_design(design)
    if not method.fits(d) or method.needs_losses:
        return None
    lo, hi = np.full(tr.T, np.nan), np.full(tr.T, np.nan)
    for i in range(tr.T):
        fl = FoldLosses(tr.errors[i], tr.n_train[i], tr.n_test[i])
        try:
            lo[i], hi[i] = method(fl, d, a, b).confidence_interval(confidence)
        except SimstudyError:  # no spread (one fold): undefined, counted as such
            pass
    return lo, hi


def _paired_frame(rows: list[dict], resolve: float) -> pd.DataFrame:
    """Per cell and pooled (per study and measure, and over every study): the new test's
    reject rate minus each baseline's on the same trials, Tango's paired interval, the
    unpaired (independent-trials) interval's width, and runs to resolve ``resolve``."""
    cols = ["study", "cell", "pair", "truth", "measure", "baseline", "runs", "new_rate",
            "base_rate", "diff", "ci_low", "ci_high", "paired_width", "unpaired_width",
            "width_ratio", "n10", "n01", "new_rejects", "base_rejects", "runs_to_resolve",
            "runs_to_resolve_unpaired"]
    if not rows:
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(rows)
    pooled = []
    cnt = ["runs", "new_rejects", "base_rejects", "n10", "n01"]
    studies = list(dict.fromkeys(df["study"]))
    groups = [(["study", "measure", "baseline"], None)]
    if len(studies) > 1:
        groups.append((["measure", "baseline"], "(all)"))
    for keys, label in groups:
        for k, g in df.groupby(keys, sort=False):
            k = dict(zip(keys, k, strict=True))
            if label is not None and g["study"].nunique() < 2:
                continue  # the one study's pooled row says it already
            pooled.append({"study": k.get("study", label), "cell": POOLED, "pair": "",
                           "truth": _TRUTH_OF[k["measure"]],
                           "measure": k["measure"], "baseline": k["baseline"],
                           **{c: int(g[c].sum()) for c in cnt},
                           "cells": len(g)})
    df = pd.concat([df, pd.DataFrame(pooled)], ignore_index=True)
    n = df["runs"].to_numpy(float)
    k1, k2 = df["new_rejects"].to_numpy(float), df["base_rejects"].to_numpy(float)
    b, c = df["n10"].to_numpy(float), df["n01"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["new_rate"], df["base_rate"] = k1 / n, k2 / n
        df["diff"] = (b - c) / n
    lo, hi = tango_paired(b, c, n)
    ulo, uhi = newcombe_unpaired(k1, n, k2, n)
    df["ci_low"], df["ci_high"] = lo, hi
    df["paired_width"] = hi - lo
    df["unpaired_width"] = uhi - ulo
    with np.errstate(divide="ignore", invalid="ignore"):
        df["width_ratio"] = df["unpaired_width"] / df["paired_width"]
    df["runs_to_resolve"] = runs_to_resolve(b, c, n, resolve)
    df["runs_to_resolve_unpaired"] = runs_to_resolve_unpaired(k1, k2, n, resolve)
    df = df.drop(columns=["design"], errors="ignore")
    return df[cols + (["cells"] if "cells" in df.columns else [])]


def h0_width_ratio(paired: pd.DataFrame, baseline: str, confidence: float = 0.95) -> float:
    """How many times narrower the paired interval for the new test's reject rate minus
    ``baseline``'s is than the unpaired one, pooled over every H0 cell of a card.

    ``paired`` is :attr:`Card.paired` (or its ``card_paired.csv``); the trials of all its
    H0 cells (``measure == "size"``) against ``baseline`` are pooled and the ratio is the
    width of Newcombe's (1998) unpaired interval over the width of Tango's (1998) paired
    one on those counts -- the pooled H0 row's ``width_ratio``.  The more often the two
    tests decide alike, the larger it is.  NaN when no H0 cell has that baseline.

    >>> import pandas as pd
    >>> p = pd.DataFrame({"cell": ["c1", "c2"], "measure": ["size", "size"],
    ...                   "baseline": ["t5x2cv"] * 2, "runs": [1000, 1000],
    ...                   "new_rejects": [30, 20], "base_rejects": [28, 22],
    ...                   "n10": [4, 1], "n01": [2, 3]})
    >>> round(h0_width_ratio(p, "t5x2cv"), 2)
    2.7
    """
    r = paired[(paired["cell"] != POOLED) & (paired["measure"] == SIZE)
               & (paired["baseline"] == baseline)]
    n = int(r["runs"].sum())
    if not n:
        return float("nan")
    lo, hi = tango_paired(int(r["n10"].sum()), int(r["n01"].sum()), n, confidence)
    ulo, uhi = newcombe_unpaired(int(r["new_rejects"].sum()), n, int(r["base_rejects"].sum()),
                                 n, confidence)
    return float((uhi - ulo) / (hi - lo))


def _interval_frame(rows: list[dict]) -> pd.DataFrame:
    """Coverage (with its Wilson interval) and mean width of each interval method per cell
    of known truth, and pooled over those cells (weighted by runs)."""
    cols = ["study", "cell", "pair", "truth", "true_diff", "method", "new", "runs", "coverage",
            "coverage_low", "coverage_high", "mean_width", "undefined"]
    if not rows:
        return pd.DataFrame(columns=cols)
    df = pd.DataFrame(rows)
    pooled = []
    for m, g in df.groupby("method", sort=False):
        pooled.append({"study": "(all)", "cell": POOLED, "pair": "", "truth": "known",
                       "true_diff": np.nan, "method": m, "new": bool(g["new"].iloc[0]),
                       "runs": int(g["runs"].sum()), "covered": int(g["covered"].sum()),
                       "width_sum": float(g["width_sum"].sum()),
                       "undefined": int(g["undefined"].sum())})
    df = pd.concat([df, pd.DataFrame(pooled)], ignore_index=True)
    n = df["runs"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        df["coverage"] = df["covered"] / n
        df["mean_width"] = df["width_sum"] / n
    df["coverage_low"], df["coverage_high"] = wilson(df["covered"].to_numpy(), n)
    return df[cols]


def _replicability_rows(study: str, acc: dict, mode, name: str) -> list[dict]:
    from .stats import consistency_from_counts

    rows = []
    for (design, pair, test), parts in acc.items():
        k = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
        if k.size == 0:
            continue
        n = mode[1]
        c = consistency_from_counts(k, n)
        rows.append({"study": study, "design": design, "pair": pair, "test": test,
                     "new": test == name, "units": int(k.size), "repetitions": n,
                     "consistent": c.consistent, "consistent_pct": 100.0 * c.consistent / k.size,
                     "almost_consistent_pct": 100.0 * c.almost_consistent / k.size, "R": c.R,
                     "mean_reject": float(k.mean() / n)})
    return rows


def _pooled(frame: pd.DataFrame) -> float:
    """Pooled reject proportion: rejects over runs (each cell weighted by its runs)."""
    n = frame["runs"].sum()
    return float(frame["rejects"].sum() / n) if n else float("nan")


#: how the card compares power, stated on the card
MATCHING = ("size-adjusted power: for each pair (new test, baseline), each test at the largest "
            "level at which it rejects at most alpha of the H0 trials both read, then both "
            "on the same H1 trials")
_MATCHED_COLS = ["baseline", "matched", "h0_cells", "h0_trials", "new_size", "base_size",
                 "new_alpha_matched", "base_alpha_matched", "h1_cells", "h1_trials",
                 "new_power", "base_power", "diff", "ci_low", "ci_high", "n10", "n01",
                 "new_power_nominal", "base_power_nominal"]


def _aligned(a: list, b: list) -> tuple[np.ndarray, np.ndarray, int]:
    """The p-values of two tests on the trials both read (cells in common, runs aligned):
    ``a`` and ``b`` are lists of ``(key, runs, p-values)``; returns (pa, pb, cells)."""
    bd = {k: (r, p) for k, r, p in b}
    xa, xb = [], []
    for k, ra, pa in a:
        if k not in bd:
            continue
        rb, pb = bd[k]
        if ra is rb or np.array_equal(ra, rb):
            xa.append(pa)
            xb.append(pb)
            continue
        _, ia, ib = np.intersect1d(ra, rb, assume_unique=True, return_indices=True)
        if ia.size:
            xa.append(pa[ia])
            xb.append(pb[ib])
    if not xa:
        return np.zeros(0), np.zeros(0), 0
    return np.concatenate(xa), np.concatenate(xb), len(xa)


def _rate(v: np.ndarray) -> float:
    """The mean of decisions, NaN for none."""
    return float(v.mean()) if v.size else float("nan")


def _matched_frame(name: str, tests: list[str], alpha: float, h0p: dict,
                   h1p: dict) -> pd.DataFrame:
    """One row per baseline: the new test against it on the trials both read, power
    compared at matched size (:data:`MATCHING`), with the paired counts and Tango's (1998)
    interval for the difference new − baseline; ``matched`` False (both at alpha) when no
    H0 trial is read by both."""
    rows = []
    for t in tests:
        if t == name:
            continue
        n0, b0, c0 = _aligned(h0p.get(name, []), h0p.get(t, []))
        n1, b1, c1 = _aligned(h1p.get(name, []), h1p.get(t, []))
        matched = n0.size > 0
        an = _matched_alpha(n0, alpha) if matched else alpha
        ab = _matched_alpha(b0, alpha) if matched else alpha
        x, y = _rejects(n1, an), _rejects(b1, ab)
        n = int(x.size)
        n10, n01 = int((x & ~y).sum()), int((~x & y).sum())
        lo, hi = tango_paired(n10, n01, n) if n else (float("nan"), float("nan"))
        rows.append({"baseline": t, "matched": matched, "h0_cells": c0, "h0_trials": int(n0.size),
                     "new_size": _rate(_rejects(n0, alpha)), "base_size": _rate(_rejects(b0, alpha)),
                     "new_alpha_matched": an if matched else float("nan"),
                     "base_alpha_matched": ab if matched else float("nan"),
                     "h1_cells": c1, "h1_trials": n, "new_power": _rate(x), "base_power": _rate(y),
                     "diff": (n10 - n01) / n if n else float("nan"),
                     "ci_low": float(lo), "ci_high": float(hi), "n10": n10, "n01": n01,
                     "new_power_nominal": _rate(_rejects(n1, alpha)),
                     "base_power_nominal": _rate(_rejects(b1, alpha))})
    return pd.DataFrame(rows, columns=_MATCHED_COLS)


def _size_key(size: pd.Series, alpha: float) -> pd.Series:
    """Size ranked by its distance from alpha, every over-size test after every other."""
    d = size - alpha
    return pd.Series(np.where(d > 0, 1.0 + d, -d), index=size.index).where(size.notna())


def _summary(name: str, alpha: float, size: pd.DataFrame, power: pd.DataFrame, h0p: dict,
             h1p: dict, rep: pd.DataFrame, matched: pd.DataFrame) -> pd.DataFrame:
    """One line per test, ranked (1 = best): size by its distance from alpha (over-size
    worst), power at matched size against the new test on the trials both read
    (``matched``, :func:`_matched_frame`), replicability R.

    Means over cells are pooled (weighted by each cell's runs), each test over its own
    cells.  Power is over H1 cells of known truth only; cells of unknown truth have their
    own pooled reject rate.  Baselines often cover other cells than the new test (Wang et
    al.'s tests each read their own design), so the power comparison and its rank are on
    the trials each baseline and the new test both read (``h1_trials_same``), at matched
    size; ``why_zero`` says why a count is 0 or a rank is missing.
    """
    h1 = power[power["measure"] == POWER] if len(power) else power
    unk = power[power["measure"] == UNKNOWN] if len(power) else power
    tests = list(dict.fromkeys([name, *size["test"], *power["test"], *rep["test"]]))

    def rate(p: np.ndarray, level: float) -> float:
        return float(np.mean(_rejects(p, level)))

    def wmean(vals: list[float], w: list[int]) -> float:
        return float(np.average(vals, weights=w)) if vals and sum(w) else float("nan")

    a_star = {}
    for t in tests:
        p0 = np.concatenate([p for _, _, p in h0p[t]]) if h0p.get(t) else np.zeros(0)
        a_star[t] = _matched_alpha(p0, alpha) if p0.size else float("nan")
    new_size = {(r.study, r.cell, r.pair): (r.rejects, r.runs)
                for r in size[size["test"] == name].itertuples(index=False)}
    m = matched.set_index("baseline") if len(matched) else matched
    new_h1 = sum(p.size for _, _, p in h1p.get(name, []))
    rows = []
    for t in tests:
        s = size[size["test"] == t]
        ht = h1[h1["test"] == t]
        ut = unk[unk["test"] == t]
        ps = h1p.get(t, [])
        w = [p.size for _, _, p in ps]
        raw = wmean([rate(p, alpha) for _, _, p in ps], w)
        own = (wmean([rate(p, a_star[t]) for _, _, p in ps], w)
               if not math.isnan(a_star[t]) else float("nan"))
        same = [new_size[k] for k in zip(s["study"], s["cell"], s["pair"], strict=True)
                if k in new_size]
        if t == name:
            same_trials = new_h1
            new_same = base_same = float("nan")
            minus = 0.0 if new_h1 else float("nan")
        elif len(m) and t in m.index and m.loc[t, "h1_trials"] > 0:
            r = m.loc[t]
            same_trials = int(r["h1_trials"])
            new_same, base_same = float(r["new_power"]), float(r["base_power"])
            minus = -float(r["diff"])
        else:
            same_trials, new_same, base_same, minus = 0, float("nan"), float("nan"), float("nan")
        r = rep[rep["test"] == t]
        rows.append({
            "test": t, "new": t == name,
            "size_cells": len(s),
            "mean_size": _pooled(s) if len(s) else float("nan"),
            "mean_size_excess": _pooled(s) - alpha if len(s) else float("nan"),
            "max_size": float(s["proportion"].max()) if len(s) else float("nan"),
            "cells_over_alpha": int((s["ci_low"] > alpha).sum()) if len(s) else 0,
            "power_cells": len(ht),
            "mean_power": raw,
            "alpha_matched": a_star[t],
            "mean_power_matched": own,
            "unknown_cells": len(ut),
            "mean_reject_unknown": _pooled(ut) if len(ut) else float("nan"),
            "rep_groups": len(r),
            "mean_R": float(r["R"].mean()) if len(r) else float("nan"),
            "new_mean_size_same_cells": (sum(k for k, _ in same) / sum(n for _, n in same)
                                         if same and t != name else float("nan")),
            "h1_trials_same": same_trials,
            "power_matched_same": base_same,
            "new_power_matched_same": new_same,
            "power_minus_new": minus,
        })
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["rank_size"] = _size_key(out["mean_size"], alpha).rank(
        method="min", na_option="keep").astype("Int64")
    # ranked at matched size only; at alpha when no baseline shares an H0 trial with it
    ranked = out["power_minus_new"]
    if len(matched) and matched["matched"].any():
        ok = {name, *matched.loc[matched["matched"], "baseline"]}
        ranked = ranked.where(out["test"].isin(ok))
    out["rank_power"] = ranked.rank(ascending=False, method="min",
                                    na_option="keep").astype("Int64")
    out["rank_R"] = out["mean_R"].rank(ascending=False, method="min",
                                       na_option="keep").astype("Int64")
    out["why_zero"] = _why_zero(out, name, size, power, rep)
    return out


def _studies_text(studies: list[str]) -> str:
    return ", ".join(studies) if studies else "no study"


def _why_zero(summary: pd.DataFrame, name: str, size: pd.DataFrame, power: pd.DataFrame,
              rep: pd.DataFrame) -> list[str]:
    """Per test: why each of its cell counts that is 0 is 0, and why its power has no rank
    (empty when nothing is 0 or missing)."""
    def where(frame: pd.DataFrame, t: str | None = None) -> list[str]:
        f = frame if t is None else frame[frame["test"] == t]
        return list(dict.fromkeys(f["study"])) if len(f) else []

    h1 = power[power["measure"] == POWER] if len(power) else power
    unk = power[power["measure"] == UNKNOWN] if len(power) else power
    kinds = (("size_cells", "H0 cell", "H0 cells", size),
             ("power_cells", "H1 cell of known difference", "H1 cells", h1),
             ("unknown_cells", "cell of unknown truth", "cells of unknown truth", unk),
             ("rep_groups", "replicability group", "studies repeating a data set", rep))
    out = []
    for r in summary.itertuples(index=False):
        t = r.test
        read = list(dict.fromkeys([*where(size, t), *where(power, t), *where(rep, t)]))
        why = []
        for col, what, whats, frame in kinds:
            if getattr(r, col) != 0:
                continue
            there = where(frame)
            if not there:
                why.append(f"{col} 0: no {whats} among the studies read")
            elif t == name:
                why.append(f"{col} 0: the new test read none of the {whats} (in "
                           f"{_studies_text(there)})")
            else:
                why.append(f"{col} 0: no {what} holds its p-values ({whats}: "
                           f"{_studies_text(there)}; its p-values: {_studies_text(read)})")
        if t != name and r.power_cells and pd.isna(r.rank_power):
            why.append("no power rank: no H1 trial read by both it and the new test"
                       if not r.h1_trials_same else
                       "no power rank: not size-matched (no H0 trial read by both it and the "
                       "new test), its power_minus_new is at alpha")
        out.append("; ".join(why))
    return out


def _n(k: int, noun: str) -> str:
    return f"{k:,} {noun}" + ("" if k == 1 else "s")


def _ordinal(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def comparator(matched: pd.DataFrame, paired: pd.DataFrame) -> str | None:
    """The one baseline the verdict sets the new test against, for size and for power: of
    the baselines read on the most H1 trials in common with the new test, the most
    powerful at matched size (the strongest rival, not the weakest); with no H1 trial in
    common, the baseline read on the most H0 trials.

    >>> import pandas as pd
    >>> m = pd.DataFrame({"baseline": ["a", "b", "c"], "matched": [True] * 3,
    ...                   "h1_trials": [100, 100, 40], "base_power": [0.3, 0.5, 0.9]})
    >>> comparator(m, pd.DataFrame())
    'b'
    """
    m = matched[matched["h1_trials"] > 0] if len(matched) else matched
    if len(m) and m["matched"].any():
        m = m[m["matched"]]
    if len(m):
        top = m[m["h1_trials"] == m["h1_trials"].max()]
        return str(top.sort_values("base_power", ascending=False, kind="stable")
                   .iloc[0]["baseline"])
    h0 = paired[(paired["cell"] != POOLED) & (paired["measure"] == SIZE)] if len(paired) else paired
    if not len(h0):
        return None
    runs = h0.groupby("baseline", sort=False)["runs"].sum()
    return str(runs.idxmax())


def _verdict(name: str, alpha: float, size: pd.DataFrame, power: pd.DataFrame,
             paired: pd.DataFrame, studies: pd.DataFrame, matched: pd.DataFrame,
             summary: pd.DataFrame) -> str:
    """One sentence: the new test's pooled size against alpha, then one baseline
    (:func:`comparator`) for both claims, each with its counts: size on the same H0
    trials, power at matched size on the same H1 trials, and the new test's rank by power
    at matched size (or why power is not judged)."""
    comp = comparator(matched, paired)
    parts = []
    s = size[size["test"] == name] if len(size) else size
    if len(s):
        k, n = int(s["rejects"].sum()), int(s["runs"].sum())
        lo, hi = wilson(k, n)
        word = ("is liberal" if lo > alpha else "is conservative" if hi < alpha
                else "holds its size")
        claim = (f"`{name}` {word} at alpha = {alpha}: size {k / n:.3f} "
                 f"[{lo:.3f}, {hi:.3f}] over {_n(len(s), 'H0 cell')} ({n:,} trials)")
        h0 = (paired[(paired["cell"] != POOLED) & (paired["measure"] == SIZE)
                     & (paired["baseline"] == comp)] if len(paired) else paired)
        n0 = int(h0["runs"].sum()) if len(h0) else 0
        if n0:
            b10, b01 = int(h0["n10"].sum()), int(h0["n01"].sum())
            dlo, dhi = tango_paired(b10, b01, n0)
            ratio = h0_width_ratio(paired, comp)
            gain = ("" if not math.isfinite(ratio) else
                    f", paired interval {ratio:.1f}x narrower than an unpaired one"
                    if ratio >= 1.05 else ", paired interval no narrower than an unpaired one")
            claim += (f", against {comp}'s {int(h0['base_rejects'].sum()) / n0:.3f} on the "
                      f"same {n0:,} trials: {(b10 - b01) / n0:+.3f} [{dlo:+.3f}, {dhi:+.3f}]"
                      f"{gain}")
        parts.append(claim)
    h1 = power[(power["test"] == name) & (power["measure"] == POWER)] if len(power) else power
    row = (matched[matched["baseline"] == comp].iloc[0]
           if comp is not None and len(matched) and (matched["baseline"] == comp).any() else None)
    if len(h1) and row is not None and row["h1_trials"] > 0:
        how = (f"at matched size (levels {row['new_alpha_matched']:.3f} and "
               f"{row['base_alpha_matched']:.3f}, where each rejects at most alpha of the "
               f"{int(row['h0_trials']):,} H0 trials both read)" if row["matched"] else
               f"at alpha = {alpha}, not size-matched (no H0 trial read by both)")
        of = (f" of its {_n(len(h1), 'H1 cell')}" if int(row["h1_cells"]) < len(h1) else "")
        claim = (f"power {how} {row['new_power']:.3f} against {comp}'s "
                 f"{row['base_power']:.3f} on the same {int(row['h1_trials']):,} trials of "
                 f"{_n(int(row['h1_cells']), 'H1 cell')}{of}: {row['diff']:+.3f} "
                 f"[{row['ci_low']:+.3f}, {row['ci_high']:+.3f}]")
        ranked = summary["rank_power"].dropna() if len(summary) else pd.Series(dtype=float)
        mine = summary.loc[summary["new"], "rank_power"] if len(summary) else ranked
        if len(mine) and not pd.isna(mine.iloc[0]):
            claim += (f", {_ordinal(int(mine.iloc[0]))} of {len(ranked)} tests by power at "
                      "matched size")
        parts.append(claim)
    elif len(h1):
        k, n = int(h1["rejects"].sum()), int(h1["runs"].sum())
        parts.append(f"power {k / n:.3f} at alpha = {alpha} over "
                     f"{_n(len(h1), 'H1 cell')} ({n:,} trials), no baseline read on the "
                     "same trials")
    else:
        parts.append("power not judged (no H1 cell of known difference read)")
    unk = power[(power["test"] == name) & (power["measure"] == UNKNOWN)] if len(power) else power
    if len(unk):
        parts.append(f"{_n(len(unk), 'cell')} of unknown truth "
                     f"{'is' if len(unk) == 1 else 'are'} reported apart")
    skipped = studies[studies["status"] == "skipped"]["study"].tolist() if len(studies) else []
    if skipped:
        parts.append(f"skipped: {', '.join(skipped)}")
    sentence = "; ".join(parts)
    return (sentence[0].upper() + sentence[1:] if sentence[0] != "`" else sentence) + "."
