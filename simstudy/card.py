"""A new test's report card: size, power and replicability beside every baseline (issue 16).

Everything is computed from stored trials; no learner is fitted.  For each study asked for,
the new test ``f`` is evaluated on every stored trial of every cell whose design it fits
(the same fold error rates, and per-instance losses when ``f.needs == "losses"``), and
set beside the stored p-values of the baseline tests of the same cells:

* **size** -- per H0 cell (:mod:`simstudy.truth`), the reject proportion with its Wilson
  95 % interval (Wilson 1927; :func:`simstudy.aggregate.wilson`), and the calibration curve:
  the reject proportion at every alpha of a grid, from the stored p-values, against the
  diagonal (a calibrated test's P(p < alpha) = alpha under H0);
* **power** -- per H1 cell, the reject proportion against |true difference| where the source
  makes it known, else against |z| of Alpaydın (1999) §4, Fig. 2:
  z = (ē_a − ē_b) / s_b, the mean fold errors of the two learners over the cell's trials and
  the sd of learner b's fold errors, all from the stored errors;
* **replicability** -- where the study repeats each data set (``meta["runs_per_set"]``, as
  ``ban``; or Bouckaert & Frank's ``replicability``, whose runs are the repetitions of one
  data set per cell): consistency, almost-consistency and R of Bouckaert & Frank (2004) §2
  (:mod:`simstudy.stats.replicability`);
* **summary** -- one line per test: mean size excess over alpha on H0 cells, mean power at
  matched size (each test judged at its own size-adjusted level alpha*: the largest level
  at which its pooled H0 reject proportion does not exceed alpha; the level found on the
  H0 cells of all studies asked for applies to every H1 cell), and mean R.  Baselines may
  read other cells than the new test (each of Wang et al.'s tests has its own design), so
  power is ranked like for like: each baseline's power minus the new test's on the
  baseline's own cells (``power_minus_new``).

The user's function is ``f(d, *, n_train, n_test)`` as for ``bench`` (d the (R, F) array of
error differences of learner a minus learner b; returns ``.pvalue`` or ``(statistic,
pvalue)``), called once per trial (a Python loop: 30-47 µs per trial for the pooled t of
``examples/pooled_t.py`` on the shared development machine).  With ``f.vectorized = True`` it is called once per cell with d of shape
(T, R, F) and n_train, n_test of shape (T,) (each trial's mean fold size), and returns
arrays of T statistics and p-values: no Python loop per trial.  With
``f.needs = "losses"`` it also gets ``losses``: int8 (2, R, F, n) per-instance 0/1 losses of
the pair, −1 off the fold's test positions ((T, 2, R, F, n) when vectorised), decoded from
the store's packed bits; cells whose trials did not keep them are skipped with a note.
"""

from __future__ import annotations

import itertools
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .bench import _fits, _pvalue
from .errors import SimstudyError
from .store import Store
from .study import Study
from .truth import truth, truth_text

#: default alpha grid of the calibration curves
ALPHA_GRID: tuple[float, ...] = tuple(sorted({*np.round(np.linspace(0.005, 0.2, 40), 4),
                                              0.001, 0.01, 0.05, 0.1}))
_BRACKETS = str.maketrans("[],", "   ")


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


# --- reading stored trials fast ------------------------------------------------------------

def _floats(texts: Sequence[str], per: int) -> np.ndarray | None:
    """Parse JSON arrays of numbers (all the same size) in one pass; None if they are not."""
    if not texts:
        return np.zeros((0, per))
    flat = np.fromstring(" ".join(texts).translate(_BRACKETS), sep=" ")
    if flat.size != per * len(texts):
        return None
    return flat.reshape(len(texts), per)


def _floats_same(texts: Sequence[str], per: int) -> np.ndarray | None:
    """As :func:`_floats`; parsed once when every text is the same (fixed fold sizes)."""
    if texts and len(set(texts)) == 1:
        one = _floats(texts[:1], per)
        return None if one is None else np.repeat(one, len(texts), axis=0)
    return _floats(texts, per)


def _trials_of(store: Store, study: Study, cells: list[str]) -> dict[str, dict]:
    """Cell -> runs (T,), errors (T, K, R, F), n_train / n_test per trial (T,) (mean over
    folds), losses blobs; one SQL read, arrays parsed per cell in one pass each."""
    q = ("SELECT cell, run, errors, n_train, n_test, losses IS NOT NULL FROM trials "
         "WHERE seed=? AND run<? ORDER BY cell, run")
    rows = store.con.execute(q, (int(study.seed), int(study.runs))).fetchall()
    want = set(cells)
    by: dict[str, list] = {}
    for r in rows:
        if r[0] in want:
            by.setdefault(r[0], []).append(r)
    out = {}
    for cid, rs in by.items():
        first = np.asarray(json.loads(rs[0][2]), dtype=float)
        K, R, F = first.shape
        E = _floats([r[2] for r in rs], K * R * F)
        ntr = _floats_same([r[3] for r in rs], R * F)
        nte = _floats_same([r[4] for r in rs], R * F)
        if E is None or ntr is None or nte is None:  # ragged: parse row by row
            E = np.stack([np.asarray(json.loads(r[2]), dtype=float).ravel() for r in rs])
            ntr = np.stack([np.asarray(json.loads(r[3]), dtype=float).ravel() for r in rs])
            nte = np.stack([np.asarray(json.loads(r[4]), dtype=float).ravel() for r in rs])
        out[cid] = {"runs": np.array([r[1] for r in rs], dtype=np.int64),
                    "errors": E.reshape(len(rs), K, R, F),
                    "n_train": ntr.mean(1), "n_test": nte.mean(1),
                    "has_losses": np.array([bool(r[5]) for r in rs])}
    return out


def _losses_of(store: Store, study: Study, cell: str) -> list[np.ndarray | None]:
    """Per-instance losses (K, R, F, n) of a cell's trials, in run order (None if not kept)."""
    from .core import unpack_losses

    rows = store.con.execute("SELECT losses FROM trials WHERE cell=? AND seed=? AND run<? "
                             "ORDER BY run", (cell, int(study.seed), int(study.runs))).fetchall()
    return [None if r[0] is None else unpack_losses(r[0]) for r in rows]


# --- evaluating the new test ---------------------------------------------------------------

def _needs_losses(fn: Callable) -> bool:
    need = getattr(fn, "needs", None)
    if need is None:
        return False
    if need != "losses":
        raise SimstudyError(f"test function declares needs={need!r}; the only valid value "
                            "is 'losses' (or leave it unset)")
    return True


def _check_signature(fn: Callable, name: str, needs: bool) -> None:
    """``fn`` must accept ``fn(d, *, n_train=..., n_test=...[, losses=...])``."""
    import inspect

    kw = {"n_train": 1.0, "n_test": 1.0, **({"losses": np.zeros((2, 5, 2, 1))} if needs else {})}
    try:
        inspect.signature(fn).bind(np.zeros((5, 2)), **kw)
    except TypeError as e:
        raise SimstudyError(f"test function {name!r} cannot be called as "
                            f"f(d, *, {', '.join(kw)}): {e}") from None
    except ValueError:
        pass  # no signature available (a builtin): find out when calling it


def _vector_out(out: object, T: int, where: str) -> tuple[np.ndarray, np.ndarray]:
    if hasattr(out, "pvalue"):
        stat, p = getattr(out, "statistic", np.full(T, np.nan)), out.pvalue
    elif isinstance(out, tuple) and len(out) == 2:
        stat, p = out
    else:
        raise SimstudyError(f"the vectorised test function returned {out!r:.80} on {where}; "
                            "it must return (statistics, pvalues) arrays or an object with "
                            ".statistic and .pvalue")
    try:
        p = np.asarray(p, dtype=float).reshape(-1)
        stat = np.asarray(stat if stat is not None else np.full(T, np.nan), dtype=float)
        stat = np.broadcast_to(stat, (T,)).copy() if stat.size in (1, T) else stat.reshape(-1)
    except (TypeError, ValueError):
        raise SimstudyError(f"the vectorised test function returned non-numeric p-values on "
                            f"{where}") from None
    if p.shape != (T,) or stat.shape != (T,):
        raise SimstudyError(f"the vectorised test function returned {p.shape[0]} p-values for "
                            f"{T} trials on {where}; it must return one per trial")
    bad = ~((p >= 0) & (p <= 1))
    if bad.any():
        i = int(np.argmax(bad))
        raise SimstudyError(f"the vectorised test function returned p = {p[i]!r} for trial "
                            f"{i} on {where}; a p-value must be a number in [0, 1] (use p = 1 "
                            "for an undefined statistic)")
    return stat, p


def _new_pvalues(fn: Callable, cell, tr: dict, a: int, b: int, losses, skipped: list
                 ) -> np.ndarray | None:
    """p-values of the new test on one cell's trials (T,), or None when it does not fit."""
    d = tr["errors"][:, a] - tr["errors"][:, b]
    T = d.shape[0]
    fits = _fits(fn, cell.design)
    where = f"cell {cell.id!r}"
    lp = None
    if losses is not None:
        lp = [None if L is None else L[[a, b]] for L in losses]
    if getattr(fn, "vectorized", False):
        kw = {"n_train": tr["n_train"], "n_test": tr["n_test"]}
        if lp is not None:
            if len({x.shape for x in lp}) != 1:
                raise SimstudyError(f"{where}: trials hold per-instance losses of different "
                                    "sizes; a vectorised function cannot take them stacked "
                                    "(drop f.vectorized to get them trial by trial)")
            kw["losses"] = np.stack(lp)
        try:
            out = fn(d, **kw)
        except (ValueError, IndexError) as e:
            if fits is None:
                skipped.append((cell.design, f"{type(e).__name__}: {e}"))
                return None
            raise SimstudyError(f"the test function raised on {where}: "
                                f"{type(e).__name__}: {e}") from None
        except Exception as e:  # noqa: BLE001 - the user's code: one line
            raise SimstudyError(f"the test function raised on {where}: "
                                f"{type(e).__name__}: {e}") from None
        return _vector_out(out, T, where)[1]
    p = np.empty(T)
    for i in range(T):  # a scalar function: one call per trial (stated in the docs)
        kw = {"n_train": float(tr["n_train"][i]), "n_test": float(tr["n_test"][i])}
        if lp is not None:
            kw["losses"] = lp[i]
        w = f"{where}, run {int(tr['runs'][i])}"
        try:
            out = fn(d[i], **kw)
        except (ValueError, IndexError) as e:
            if i == 0 and fits is None:
                skipped.append((cell.design, f"{type(e).__name__}: {e}"))
                return None
            raise SimstudyError(f"the test function raised on {w}: "
                                f"{type(e).__name__}: {e}") from None
        except Exception as e:  # noqa: BLE001 - the user's code: one line
            raise SimstudyError(f"the test function raised on {w}: {type(e).__name__}: {e}") from None
        p[i] = _pvalue(out, w)[1]
    return p


# --- the pieces of the card ---------------------------------------------------------------

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


def repetitions(study: Study) -> tuple[str, int] | None:
    """How a study repeats a data set: ``("sets", k)`` (runs k*i .. k*i+k-1 of a cell share
    training set i: ``meta["runs_per_set"]``), ``("cell", runs)`` (every run of a cell
    re-partitions one fixed data set: Bouckaert & Frank's ``replicability``), or None."""
    k = (study.meta or {}).get("runs_per_set")
    if k:
        return "sets", int(k)
    if (study.meta or {}).get("paper") == "bouckaert2004" and study.runs >= 2:
        return "cell", int(study.runs)
    return None


def _rep_units(runs: np.ndarray, p: np.ndarray, alpha: float, mode: tuple[str, int]
               ) -> np.ndarray:
    """Rejections per complete repetition unit (a training set, or the whole cell)."""
    rej = (np.where(np.isnan(p), np.inf, p) < alpha).astype(np.int64)
    kind, k = mode
    if kind == "cell":
        return np.array([int(rej.sum())]) if rej.size == k else np.zeros(0, dtype=np.int64)
    sets = runs // k
    n = np.bincount(sets)
    c = np.bincount(sets, weights=rej).astype(np.int64)
    return c[n == k]


def card(fn: Callable, studies: Sequence[Study | str], store: Store | Sequence[Store], *,
         name: str = "new", alpha: float = 0.05, alphas: Sequence[float] = ALPHA_GRID,
         swap: bool = False, runs: int | None = None, seed: int | None = None) -> Card:
    """The report card of test ``fn`` on the stored trials of ``studies`` (no refit).

    ``studies``: Study objects (scoped to the stored runs and seed) or registered names
    (scoped to what the store holds, as ``report`` does).  ``store``: one store or several;
    each study is read from the first store that holds it.  ``swap=True`` evaluates the new
    test on (learner b, learner a): a two-sided test's card must not change.
    """
    needs = _needs_losses(fn)
    _check_signature(fn, name, needs)
    stores = [store] if isinstance(store, Store) else list(store)
    alphas = np.asarray(sorted({float(x) for x in alphas} | {float(alpha)}))
    t0 = time.perf_counter()
    size_rows, cal_rows, pow_rows, rep_rows, notes = [], [], [], [], []
    h0_pvals: dict[str, list[np.ndarray]] = {}
    h1_pvals: dict[str, list[tuple[tuple[str, str, str], np.ndarray]]] = {}
    n_trials = 0
    secs = {"read": 0.0, "new test": 0.0, "aggregate": 0.0}
    for st in studies:
        t = time.perf_counter()
        study, sstore = _scope(st, stores, runs, seed, alpha)
        ids = [c.id for c in study.cells]
        trials = _trials_of(sstore, study, ids)
        by_cell = _baselines(study, sstore)
        secs["read"] += time.perf_counter() - t
        mode = repetitions(study)
        skipped: list[tuple[str, str]] = []
        rep_acc: dict[tuple, list[np.ndarray]] = {}
        for cell in study.cells:
            tr = trials.get(cell.id)
            if tr is None or _fits(fn, cell.design) is False:
                continue
            losses = None
            if needs:
                if not tr["has_losses"].all():
                    notes.append(f"{study.name}: {cell.id}: skipped, its trials did not keep "
                                 "per-instance losses (meta keep_losses)")
                    continue
                losses = _losses_of(sstore, study, cell.id)
            K = tr["errors"].shape[1]
            n_trials += tr["errors"].shape[0]
            bc = by_cell.get(cell.id, {})
            for a, b in itertools.combinations(range(K), 2):
                t = time.perf_counter()
                pa, pb = (b, a) if swap else (a, b)
                p_new = _new_pvalues(fn, cell, tr, pa, pb, losses, skipped)
                secs["new test"] += time.perf_counter() - t
                if p_new is None:  # the test does not fit this cell's design
                    break
                t = time.perf_counter()
                tests = {name: (tr["runs"], p_new)}
                tests.update(bc.get((a, b), {}))
                sub = cell if K == 2 else _pair_cell(cell, a, b)
                h0, diff = truth(sub, study)
                pair = "" if K == 2 else _pair_name(cell.learners, a, b)
                key = dict(study=study.name, cell=cell.id, pair=pair, design=cell.design,
                           truth=truth_text(h0, diff))
                z = _z(tr["errors"][:, a], tr["errors"][:, b])
                for tname, (truns, p) in tests.items():
                    k = int(np.sum(np.where(np.isnan(p), np.inf, p) < alpha))
                    n = int(p.size)
                    lo, hi = _wilson(k, n)
                    row = {**key, "test": tname, "new": tname == name, "rejects": k,
                           "runs": n, "proportion": k / n if n else float("nan"),
                           "ci_low": lo, "ci_high": hi}
                    if h0:
                        size_rows.append(row)
                        h0_pvals.setdefault(tname, []).append(p)
                        for al, pr in zip(alphas, _reject_rate(p, alphas), strict=True):
                            cal_rows.append({**key, "test": tname, "alpha": float(al),
                                             "proportion": float(pr)})
                    elif h0 is False or h0 is None:
                        x_kind = "abs(true diff)" if diff is not None else "abs(z)"
                        x = abs(diff) if diff is not None else abs(z)
                        pow_rows.append({**row, "true_diff": diff, "z": z,
                                         "x_kind": x_kind, "x": x})
                        h1_pvals.setdefault(tname, []).append(((study.name, cell.id, pair), p))
                    if mode is not None:
                        rk = (cell.design, pair, tname)
                        rep_acc.setdefault(rk, []).append(_rep_units(truns, p, alpha, mode))
                secs["aggregate"] += time.perf_counter() - t
        by_design: dict[str, list[str]] = {}
        for des, why in skipped:
            by_design.setdefault(des, []).append(why)
        for des, whys in by_design.items():
            notes.append(f"{study.name}: {len(whys)} cell(s) of design {des!r} skipped, the "
                         f"test raised {whys[0]}")
        missing = [c.id for c in study.cells if c.id not in trials]
        if missing:
            notes.append(f"{study.name}: {len(missing)} of {len(study.cells)} cells have no "
                         f"stored trials: {', '.join(missing[:4])}"
                         + (", ..." if len(missing) > 4 else ""))
        rep_rows += _replicability_rows(study.name, rep_acc, mode, name)
    if not size_rows and not pow_rows:
        raise SimstudyError(f"the test {name!r} fits no stored cell of "
                            f"{[getattr(s, 'name', s) for s in studies]!r}"
                            + (f"; {notes[0]}" if notes else ""))
    if not size_rows and pow_rows:
        notes.append("no H0 cell among the studies: power is at the nominal alpha, not at "
                     "matched size (add type1 to judge size and match it)")
    t = time.perf_counter()
    size = pd.DataFrame(size_rows, columns=_SIZE_COLS)
    power = pd.DataFrame(pow_rows, columns=_SIZE_COLS + ["true_diff", "z", "x_kind", "x"])
    cal = pd.DataFrame(cal_rows, columns=["study", "cell", "pair", "design", "truth", "test",
                                          "alpha", "proportion"])
    rep = pd.DataFrame(rep_rows, columns=_REP_COLS)
    summary = _summary(name, alpha, size, h0_pvals, h1_pvals, rep)
    secs["aggregate"] += time.perf_counter() - t
    secs["total"] = time.perf_counter() - t0
    return Card(name, float(alpha), size, cal, power, rep, summary, notes, secs, n_trials)


_SIZE_COLS = ["study", "cell", "pair", "design", "truth", "test", "new", "rejects", "runs",
              "proportion", "ci_low", "ci_high"]
_REP_COLS = ["study", "design", "pair", "test", "new", "units", "repetitions", "consistent",
             "consistent_pct", "almost_consistent_pct", "R", "mean_reject"]


def _scope(st, stores: list[Store], runs, seed, alpha) -> tuple[Study, Store]:
    from .scope import stored_scope

    name = st if isinstance(st, str) else st.name
    last = None
    for s in stores:
        held = s.holdings()
        if isinstance(st, str):
            from .catalog import get_study

            study = get_study(st, alpha=alpha)
        else:
            study = st if alpha is None else st.replace(alpha=float(alpha))
        if held["cell"].isin([c.id for c in study.cells]).any():
            if isinstance(st, str) or runs is not None or seed is not None:
                study = stored_scope(study, s, runs, seed)
            return study, s
        last = s
    paths = ", ".join(repr(str(s.path)) for s in stores)
    raise SimstudyError(f"no store ({paths}) holds trials of study {name!r}; run it first: "
                        f"python -m simstudy run {name} --store "
                        f"{last.path if last else 'STORE'}")


def _baselines(study: Study, store: Store) -> dict[str, dict[tuple[int, int], dict]]:
    """cell -> (a, b) -> test -> (runs, p-values) of the tests each cell asks for (as
    :func:`simstudy.aggregate.asked_results`), in the cell's test order; one SQL read and
    one grouping pass (no per-row Python)."""
    q = ("SELECT cell, test, a, b, run, pvalue FROM results WHERE seed=? AND run<? AND a>=0")
    rows = store.con.execute(q, (int(study.seed), int(study.runs))).fetchall()
    out: dict[str, dict[tuple[int, int], dict]] = {}
    if not rows:
        return out
    cell_c, cells = pd.factorize(pd.Series([r[0] for r in rows]), sort=False)
    test_c, tests = pd.factorize(pd.Series([r[1] for r in rows]), sort=False)
    num = np.array([r[2:6] for r in rows], dtype=float)  # a, b, run, pvalue (NULL -> nan)
    a, b, runs, p = num[:, 0].astype(np.int64), num[:, 1].astype(np.int64), num[:, 2], num[:, 3]
    K = int(max(a.max(), b.max())) + 1
    key = ((cell_c.astype(np.int64) * len(tests) + test_c) * K + a) * K + b
    order = np.argsort(key, kind="stable")
    ks = key[order]
    starts = np.flatnonzero(np.r_[True, ks[1:] != ks[:-1]])
    ends = np.r_[starts[1:], len(ks)]
    asked = {(c.id, t): j for c in study.cells for j, t in enumerate(c.tests)}
    found = []
    for s0, e0 in zip(starts, ends, strict=True):
        i = order[s0]
        c, t = cells[cell_c[i]], tests[test_c[i]]
        if (c, t) not in asked:
            continue
        sel = order[s0:e0]
        found.append((asked[(c, t)], c, (int(a[i]), int(b[i])), t,
                      runs[sel].astype(np.int64), p[sel]))
    for _, c, ab, t, r, pv in sorted(found, key=lambda x: x[0]):
        out.setdefault(c, {}).setdefault(ab, {})[t] = (r, pv)
    return out


def _wilson(k: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """Wilson (1927) score interval, closed form (the same as scipy's binomtest(...)
    .proportion_ci(method="wilson"), which :func:`simstudy.aggregate.wilson` calls; the
    closed form is ~1000 times faster, which matters over thousands of cells)."""
    if n == 0:
        return float("nan"), float("nan")
    ph = k / n
    den = 1.0 + z * z / n
    mid = (ph + z * z / (2 * n)) / den
    half = z * math.sqrt(ph * (1 - ph) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def _pair_name(learners: Sequence[str], a: int, b: int) -> str:
    """``nb~j48``; positions added when a spec repeats (``lp#1~lp#2``, ``lp#1~nmc#3``)."""
    if len(set(learners)) == len(learners):
        return f"{learners[a]}~{learners[b]}"
    return f"{learners[a]}#{a + 1}~{learners[b]}#{b + 1}"


def _pair_cell(cell, a: int, b: int):
    import dataclasses

    return dataclasses.replace(cell, learners=(cell.learners[a], cell.learners[b]))


def _z(ea: np.ndarray, eb: np.ndarray) -> float:
    """Alpaydın (1999) §4 / Fig. 2: z = (mean error a − mean error b) / sd of b's errors."""
    s = float(np.std(eb, ddof=1)) if eb.size > 1 else float("nan")
    if not s > 0:
        return float("nan")
    return float((ea.mean() - eb.mean()) / s)


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


def _summary(name: str, alpha: float, size: pd.DataFrame, h0p: dict, h1p: dict,
             rep: pd.DataFrame) -> pd.DataFrame:
    """One line per test, ranked: size excess, power at matched size, replicability R.

    Baselines often cover other cells than the new test (Wang et al.'s tests each read
    their own design), so each baseline's line also gives the new test's means over *that
    baseline's* cells (``new_*_same_cells``): the like-for-like comparison.
    """
    tests = list(dict.fromkeys([name, *size["test"], *[t for t in h1p], *rep["test"]]))

    def rate(p: np.ndarray, level: float) -> float:
        return float(np.mean(np.where(np.isnan(p), np.inf, p) < level))

    a_star = {}
    for t in tests:
        p0 = np.concatenate(h0p[t]) if h0p.get(t) else np.zeros(0)
        a_star[t] = _matched_alpha(p0, alpha) if p0.size else float("nan")
    new_size = {(r.study, r.cell, r.pair): r.proportion
                for r in size[size["test"] == name].itertuples(index=False)}
    new_h1 = dict(h1p.get(name, []))
    rows = []
    for t in tests:
        s = size[size["test"] == t]
        h1 = h1p.get(t, [])
        raw = [rate(p, alpha) for _, p in h1]
        matched = [rate(p, a_star[t]) for _, p in h1] if not math.isnan(a_star[t]) else []
        same_s = [new_size[k] for k in zip(s["study"], s["cell"], s["pair"], strict=True)
                  if k in new_size]
        same_p = [rate(new_h1[k], alpha if math.isnan(a_star[name]) else a_star[name])
                  for k, _ in h1 if k in new_h1]
        # like for like: this test's power minus the new test's on the same cells, each at
        # its matched level (both at alpha when either has no H0 cell to match on)
        both = not (math.isnan(a_star[t]) or math.isnan(a_star[name]))
        vs_new = [rate(p, a_star[t] if both else alpha)
                  - rate(new_h1[k], a_star[name] if both else alpha)
                  for k, p in h1 if k in new_h1]
        r = rep[rep["test"] == t]
        rows.append({
            "test": t, "new": t == name,
            "size_cells": len(s),
            "mean_size": float(s["proportion"].mean()) if len(s) else float("nan"),
            "mean_size_excess": float((s["proportion"] - alpha).mean()) if len(s) else float("nan"),
            "max_size": float(s["proportion"].max()) if len(s) else float("nan"),
            "cells_over_alpha": int((s["ci_low"] > alpha).sum()) if len(s) else 0,
            "power_cells": len(h1),
            "mean_power": float(np.mean(raw)) if raw else float("nan"),
            "alpha_matched": a_star[t],
            "mean_power_matched": float(np.mean(matched)) if matched else float("nan"),
            "rep_groups": len(r),
            "mean_R": float(r["R"].mean()) if len(r) else float("nan"),
            "new_mean_size_same_cells": (float(np.mean(same_s)) if same_s and t != name
                                         else float("nan")),
            "new_mean_power_same_cells": (float(np.mean(same_p)) if same_p and t != name
                                          else float("nan")),
            "power_minus_new": float(np.mean(vs_new)) if vs_new else float("nan"),
        })
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    # ranks (1 = best): size by the excess over alpha (under-size is not penalised here);
    # power by power_minus_new, each baseline against the new test on the baseline's own
    # cells (baselines of Wang et al. read different designs, so their plain means are
    # over different cells and not comparable); R
    excess = out["mean_size_excess"].clip(lower=0)
    out["rank_size"] = excess.rank(method="min", na_option="keep").astype("Int64")
    out["rank_power"] = out["power_minus_new"].rank(ascending=False, method="min",
                                                    na_option="keep").astype("Int64")
    out["rank_R"] = out["mean_R"].rank(ascending=False, method="min",
                                       na_option="keep").astype("Int64")
    return out


# --- writing ---------------------------------------------------------------------------------

def write_card(c: Card, out: Path, *, figures: bool = True, html: bool = True) -> list[Path]:
    """``card.md`` (the one-screen summary first), one CSV per frame, PNG figures and
    ``card.html`` under ``out``."""
    from .report import to_markdown

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for stem, df in (("summary", c.summary), ("size", c.size), ("calibration", c.calibration),
                     ("power", c.power), ("replicability", c.replicability)):
        p = out / f"card_{stem}.csv"
        df.to_csv(p, index=False)
        paths.append(p)
    figs = _figures(c, out) if figures else []
    paths += figs
    lines = [f"# Report card: `{c.name}` (alpha = {c.alpha})", "",
             f"{c.trials} stored trials read; no learner fitted; "
             f"{c.seconds.get('total', float('nan')):.1f} s.", "",
             "## Summary (ranks: 1 = best)", "",
             "mean_size_excess: mean over H0 cells of (reject proportion − alpha); "
             "cells_over_alpha: H0 cells whose Wilson 95 % interval lies above alpha; "
             "mean_power_matched: mean power over H1 cells at the test's own size-adjusted "
             "level alpha_matched (pooled H0 reject proportion ≤ alpha); new_*_same_cells: "
             "the new test on that test's cells; power_minus_new: that test's power minus the "
             "new test's on the same cells, both at matched size (ranks power); mean_R: "
             "Bouckaert & Frank's replicability.", "",
             to_markdown(summary_screen(c)), ""]
    if len(c.size):
        lines += ["## Size (H0 cells)", "", to_markdown(_wide(c.size, c.name)), ""]
    if len(c.power):
        pw = _wide(c.power, c.name, extra=["x_kind", "x"])
        lines += ["## Power (H1 cells)", "",
                  "x: |true difference of error rates| where known (truth column), else "
                  "|z| = |ē_a − ē_b| / s_b from the stored errors (Alpaydın 1999, Fig. 2).",
                  "", to_markdown(pw), ""]
    if len(c.replicability):
        lines += ["## Replicability", "",
                  to_markdown(c.replicability.drop(columns=["new"])), ""]
    if c.notes:
        lines += ["## Notes", "", *[f"- {n}" for n in c.notes], ""]
    if figs:
        lines += ["## Figures", "", *[f"![{p.stem}]({p.name})" for p in figs], ""]
    md = out / "card.md"
    md.write_text("\n".join(lines))
    paths.insert(0, md)
    if html:
        paths.append(_html(c, out, paths))
    return paths


def summary_screen(c: Card) -> pd.DataFrame:
    """The summary on one screen: the new test marked, empty and secondary columns left out
    (``card_summary.csv`` keeps them all)."""
    df = c.summary.copy()
    if df.empty:
        return df
    df["test"] = [f"{t} (new)" if n else t for t, n in zip(df["test"], df["new"], strict=True)]
    df = df.drop(columns=["new", "max_size", "rep_groups"])
    df = df.rename(columns={"new_mean_size_same_cells": "new_size_same_cells",
                            "new_mean_power_same_cells": "new_power_same_cells"})
    keep = [col for col in df.columns if not df[col].isna().all()
            and not (col.endswith("_cells") and (df[col] == 0).all())]
    return df[keep]


def _wide(df: pd.DataFrame, name: str, extra: Sequence[str] = ()) -> pd.DataFrame:
    """One row per cell (and pair): each test's reject proportion [Wilson interval]."""
    idx = ["study", "cell", "pair", "truth", *extra]
    rows: dict[tuple, dict] = {}
    for r in df.itertuples(index=False):
        key = tuple(getattr(r, c) for c in idx)
        rows.setdefault(key, dict(zip(idx, key, strict=True)))[r.test] = (
            f"{r.proportion:.3f} [{r.ci_low:.3f}, {r.ci_high:.3f}]")
    tests = list(dict.fromkeys([name, *df["test"]]))
    w = pd.DataFrame(list(rows.values())).reindex(columns=[*idx, *tests])
    if (w["pair"] == "").all():
        w = w.drop(columns=["pair"])
    return w


def _figures(c: Card, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .report.style import figure_style, runs_caption, runs_range

    paths = []
    runs = pd.concat([c.size["runs"], c.power["runs"]])
    caption = runs_caption(runs_range(runs, "-") or "0")

    def save(fig, stem: str, title: str) -> Path:
        fig.text(0.5, 0.0, caption, ha="center", va="top", fontsize=8, style="italic")
        p = out / f"{stem}.png"
        fig.savefig(p, dpi=120, bbox_inches="tight",
                    metadata={"Title": title, "Description": caption})
        plt.close(fig)
        return p

    with figure_style():
        if len(c.calibration):
            tests = list(dict.fromkeys([c.name, *c.calibration["test"]]))
            tests = [t for t in tests if t in set(c.calibration["test"])]
            fig, axes = plt.subplots(1, len(tests), figsize=(3.2 * len(tests), 3.2),
                                     squeeze=False, sharey=True)
            top = float(c.calibration["alpha"].max())
            for ax, t in zip(axes[0], tests, strict=True):
                g = c.calibration[c.calibration["test"] == t]
                for _, gc in g.groupby(["study", "cell", "pair"], sort=False):
                    ax.plot(gc["alpha"], gc["proportion"], color="C0" if t == c.name else "C1",
                            lw=0.7, alpha=0.5)
                m = g.groupby("alpha")["proportion"].mean()
                ax.plot(m.index, m.values, color="black", lw=1.6, label="mean over cells")
                ax.plot([0, top], [0, top], color="black", lw=0.8, ls="--", label="y = alpha")
                ax.axvline(c.alpha, color="black", lw=0.6, ls=":")
                ax.set_title(t + (" (new)" if t == c.name else ""))
                ax.set_xlabel("alpha")
            axes[0][0].set_ylabel("reject proportion under H0")
            axes[0][0].legend(loc="upper left")
            fig.suptitle(f"calibration: one line per H0 cell ({c.name} and baselines)", y=1.0)
            paths.append(save(fig, "card_calibration", f"calibration of {c.name} under H0"))
        if len(c.power):
            kinds = list(dict.fromkeys(c.power["x_kind"]))
            fig, axes = plt.subplots(1, len(kinds), figsize=(4.5 * len(kinds), 3.4),
                                     squeeze=False)
            for ax, kind in zip(axes[0], kinds, strict=True):
                g = c.power[c.power["x_kind"] == kind]
                for j, t in enumerate(dict.fromkeys([c.name, *g["test"]])):
                    gt = g[g["test"] == t].sort_values("x")
                    if gt.empty:
                        continue
                    ax.plot(gt["x"], gt["proportion"], "o-" if t == c.name else ".-",
                            lw=1.6 if t == c.name else 0.9, color=f"C{j % 8}",
                            label=t + (" (new)" if t == c.name else ""))
                ax.axhline(c.alpha, color="black", lw=0.6, ls=":")
                ax.set_xlabel(kind)
                ax.set_ylabel("reject proportion")
                ax.set_ylim(-0.02, 1.02)
                ax.legend(loc="upper left")
            fig.suptitle(f"power: one curve per test (alpha = {c.alpha})", y=1.0)
            paths.append(save(fig, "card_power", f"power of {c.name} and the baselines"))
    return paths


def _html(c: Card, out: Path, paths: Sequence[Path]) -> Path:
    """``card.html``: the card's md and CSVs and figures on one page, in the HTML report's
    look (:mod:`simstudy.report.html`)."""
    from .report import html as H

    body = [H.markdown_to_html((out / "card.md").read_text().split("## Size")[0]
                               .split("## Power")[0].split("## Replicability")[0])]
    for p in paths:
        # the calibration table is long (the figure shows it); empty frames are left out
        if p.suffix == ".csv" and p.stem != "card_calibration" and len(pd.read_csv(p)):
            body.append(H.csv_table_html(p, table_id=p.stem, caption=p.stem)[0])
    for p in paths:
        if p.suffix == ".png":
            body.append(H.figure_html(p, f"card {c.name}"))
    page = out / "card.html"
    page.write_text(H._page(f"report card: {c.name}", "\n".join(body)))
    _link_from_site(c, out)
    return page


def _link_from_site(c: Card, out: Path) -> None:
    """When the card is written inside an HTML report (``report --all``: ``out/..`` holds
    its ``index.html``), the index gets one link to the card (once; rewriting the index
    with ``report --all`` drops it, as it rebuilds the page)."""
    import html

    index = out.parent / "index.html"
    if not index.is_file():
        return
    text = index.read_text()
    href = f"{out.name}/card.html"
    if f'href="{html.escape(href)}"' in text or "</body>" not in text:
        return
    link = (f'<p class="card">Report card of a new test: <a href="{html.escape(href)}">'
            f"{html.escape(c.name)}</a></p>")
    # before the page's closing script (the last one, at the end of the body)
    head, sep, tail = text.rpartition("<script>" if "<script>" in text else "</body>")
    index.write_text(head + link + sep + tail)
