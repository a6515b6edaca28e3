"""Benchmark a newly proposed test on a study's stored trials (no learner is fitted).

Two kinds of function, both called through :class:`simstudy.usertest.UserTest` (the same
loading, declarations -- ``f.designs``, ``f.needs = "losses"``, ``f.vectorized`` -- and
errors as ``card``):

* :func:`bench` -- a pairwise test ``f(d, *, n_train, n_test)``: its reject proportions
  beside the stored baselines', cell by cell (and pair by pair in cells of more than two
  learners);
* :func:`bench_choice` -- a best-of-K method ``g(errors, *, alpha)`` on a K-learner study
  (errors (K, R, F), learners in the cell's order; for Yıldız & Alpaydın 2006: decreasing
  prior preference, index 0 the simplest), returning the index of the best learner or
  ``None``: how often it picks each learner or none, beside the study's stored choice
  methods (re-decided from the stored errors when ``alpha`` differs from the stored one),
  per cell and over all cells (the layout of Yıldız & Alpaydın 2006, Table 3).

``study`` may be a :class:`~simstudy.study.Study` (read as given: its seed and runs) or a
registered name (scoped to what the store holds); ``store`` a path, an open store, a list
of them, or None for the shipped trials.  Where the trials were read from is the returned
frame's ``attrs["read_from"]`` and first note; skipped cells (a design the function does
not read, no per-instance losses kept) are listed in ``attrs["notes"]`` too.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from .aggregate import pair_name
from .errors import SimstudyError
from .store import CellTrials, TrialReader
from .study import Study
from .usertest import UserTest, load_function, locate, no_trials, open_readers, progress_bar

NONE = "not_found"
ALL = "(all cells)"


def _open(fn, study, store, runs, seed, alpha, name, kind):
    test = UserTest.of(fn, name=name, kind=kind)
    names = [study] if isinstance(study, str) else []
    readers, opened = open_readers(store, names)
    try:
        st, reader = locate(study, readers, runs, seed, alpha)
        if reader is None:
            raise SimstudyError(no_trials(study, st, readers))
    except BaseException:
        for r in opened:
            r.close()
        raise
    return test, st, reader, opened


def bench(fn: Callable | str, study: Study | str, store=None, *, name: str | None = None,
          alpha: float | None = None, runs: int | None = None, seed: int | None = None,
          progress: bool | None = None) -> pd.DataFrame:
    """Reject proportions of ``fn`` beside the stored baselines, cell by cell.

    Decisions are ``p < alpha`` (default: the study's alpha) for the new test and the
    baselines alike, from stored p-values.  Returns one row per cell (and pair, when a cell
    has more than two learners: column ``pair``), one column per test, the baselines in
    the cells' test order and the new test last.  A cell the function does not read is
    left out and named in ``attrs["notes"]``.  ``progress``: a bar over trials on stderr
    (default: when stderr is a terminal).

    Examples
    --------
    >>> import simstudy as ss, tempfile, os
    >>> from simstudy.stats import ftest_5x2cv
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = ss.run("demo", runs=3, store=path, filter="iris/nmc", progress=False)
    >>> def f(d, *, n_train, n_test):
    ...     return ftest_5x2cv(d)
    >>> bench(f, "demo", path).columns.tolist()
    ['cell', 't5x2cv', 'F5x2cv', 'f']
    """
    test, study, reader, opened = _open(fn, study, store, runs, seed, alpha, name, "pairwise")
    try:
        table = _bench(test, study, reader, progress)
        _say_where(table, reader)
        return table
    finally:
        for r in opened:
            r.close()


def _bench(test: UserTest, study: Study, reader: TrialReader, progress: bool | None) -> pd.DataFrame:
    trials = reader.fold_errors([c.id for c in study.cells], study.seed, study.runs)
    base = reader.pvalues(study.cells, study.seed, study.runs)
    rows, notes, skipped_designs = [], [], {}
    multi = any(len(c.learners) > 2 for c in study.cells)
    K = {cid: tr.errors.shape[1] for cid, tr in trials.items()}
    total = sum(tr.T * K[cid] * (K[cid] - 1) // 2 for cid, tr in trials.items())
    bar = progress_bar(progress, total, f"bench {test.name}")
    try:
        _bench_cells(test, study, reader, trials, base, rows, notes, skipped_designs, bar)
    finally:
        if bar is not None:
            bar.close()
    _skips(study, skipped_designs, notes, bool(rows), "test")
    df = pd.DataFrame(rows, columns=["cell", "pair", "test", "proportion"])
    tests = list(dict.fromkeys([*(t for t in df["test"] if t != test.name), test.name]))
    index = ["cell", "pair"] if multi else ["cell"]
    wide = df.pivot_table(index=index, columns="test", values="proportion", sort=False)
    wide = wide.reindex(columns=tests).reset_index()
    wide.columns.name = None
    wide.attrs["notes"] = notes
    return wide


def _bench_cells(test: UserTest, study: Study, reader: TrialReader, trials: dict, base: pd.DataFrame,
                 rows: list, notes: list, skipped_designs: dict, bar) -> None:
    alpha = study.alpha
    for cell, tr in _readable(test, study, trials, skipped_designs):
        losses = _losses(test, reader, study, cell, tr, notes)
        if losses is False:
            continue
        K = tr.errors.shape[1]
        b_cell = base[base["cell"] == cell.id]
        for a in range(K):
            for b in range(a + 1, K):
                skipped: list[str] = []
                out = test.pvalues(tr.errors[:, a] - tr.errors[:, b], tr.n_train.mean((1, 2)),
                                   tr.n_test.mean((1, 2)), runs=tr.runs,
                                   where=f"cell {cell.id!r}",
                                   losses=None if losses is None
                                   else [None if L is None else L[[a, b]] for L in losses],
                                   skipped=skipped, progress=bar)
                if out is None:
                    skipped_designs.setdefault(cell.design, f"it raised {skipped[0]}")
                    break
                pair = pair_name(cell.learners, a, b)
                g = b_cell[(b_cell["a"] == a) & (b_cell["b"] == b)]
                for t, gt in g.groupby("test", sort=False):
                    rows.append((cell.id, pair, t, _rate(gt["pvalue"].to_numpy(), alpha)))
                rows.append((cell.id, pair, test.name, _rate(out.pvalue, alpha)))
            else:
                continue
            break


def _say_where(table: pd.DataFrame, reader: TrialReader) -> None:
    """Where the trials came from, as the table's first note (``read_from`` too): with no
    store given they are the shipped trials, and the reader should know."""
    table.attrs["read_from"] = reader.describe()
    table.attrs["notes"] = [f"trials read from {reader.describe()}",
                            *table.attrs.get("notes", [])]


def _readable(test: UserTest, study: Study, trials: dict, skipped_designs: dict):
    """(cell, its trials) of the stored cells whose design the function may read; a design
    ``f.designs`` leaves out is noted in ``skipped_designs``."""
    for cell in study.cells:
        tr = trials.get(cell.id)
        if tr is None:
            continue
        if test.fits(cell.design) is False:
            skipped_designs.setdefault(cell.design, "f.designs does not list it")
            continue
        yield cell, tr


def _skips(study: Study, skipped_designs: dict, notes: list, read: bool, what: str) -> None:
    """The skipped designs as notes; nothing read at all is an error naming them."""
    for des, why in skipped_designs.items():
        notes.append(f"cells of design {des!r} skipped: {why}")
    if not read:
        why = f"; {notes[0]}" if notes else ""
        raise SimstudyError(f"the {what} fits no design of study {study.name!r} "
                            f"(designs: {sorted({c.design for c in study.cells})}){why}")


def _rate(p: np.ndarray, alpha: float) -> float:
    """Reject proportion at ``alpha``; an undefined (NaN) p-value never rejects."""
    return float(np.mean(np.where(np.isnan(p), np.inf, p) < alpha)) if p.size else np.nan


def _losses(test: UserTest, reader: TrialReader, study: Study, cell, tr: CellTrials, notes: list):
    """Per-trial losses when the test needs them; False (with a note) when not kept."""
    if not test.needs_losses:
        return None
    if not tr.has_losses.all():
        notes.append(f"{cell.id}: skipped, its trials did not keep per-instance losses "
                     "(meta keep_losses)")
        return False
    return reader.losses(cell.id, study.seed, study.runs)


# --- K learners: a best-of-K choice method ------------------------------------------------

def bench_choice(fn: Callable | str, study: Study | str, store=None, *,
                 name: str | None = None, alpha: float | None = None,
                 runs: int | None = None, seed: int | None = None) -> pd.DataFrame:
    """Choice frequencies (%) of ``fn`` beside the study's stored choice methods.

    Returns one row per (cell, method) plus one per method over all cells (cell
    ``"(all cells)"``): ``runs``, ``not_found`` and one column per learner (the cells'
    learner names when every cell has the same learners, else ``L0``, ``L1``, ...), each the
    percentage of runs; ``count_*`` columns hold the counts.
    """
    test, study, reader, opened = _open(fn, study, store, runs, seed, alpha, name, "choice")
    try:
        table = _bench_choice(test, study, reader, study.alpha if alpha is None else float(alpha))
        _say_where(table, reader)
        return table
    finally:
        for r in opened:
            r.close()


def _stored_choices(study: Study, reader: TrialReader, alpha: float, trials: dict) -> pd.DataFrame:
    """Stored choice rows of the study, re-decided from the stored errors where they were
    decided at another alpha (no refit)."""
    from .stats.registry import get_test

    res = reader.choices(study.cells, study.seed, study.runs)
    if res.empty:
        return pd.DataFrame(columns=["cell", "run", "method", "best"])
    redo = res["alpha"].to_numpy() != alpha
    if redo.any():
        best = res["best"].to_numpy().copy()
        for (cid, t), g in res[redo].groupby(["cell", "test"], sort=False):
            tr = trials[cid]
            at = {int(r): i for i, r in enumerate(tr.runs)}
            method = get_test(t)
            for i, run in zip(g.index, g["run"], strict=True):
                b, _ = method(tr.errors[at[int(run)]], alpha)
                best[i] = -1 if b is None else int(b)
        res = res.assign(best=best)
    return res.rename(columns={"test": "method"})[["cell", "run", "method", "best"]]


def _bench_choice(test: UserTest, study: Study, reader: TrialReader, alpha: float) -> pd.DataFrame:
    trials = reader.fold_errors([c.id for c in study.cells], study.seed, study.runs)
    cells = {c.id: c for c in study.cells}
    parts, notes, skipped_designs = [], [], {}
    for c, tr in _readable(test, study, trials, skipped_designs):
        skipped: list[str] = []
        best = test.choose(tr.errors, alpha, runs=tr.runs, where=f"cell {c.id!r}",
                           skipped=skipped)
        if best is None:
            skipped_designs.setdefault(c.design, f"it raised {skipped[0]}")
            continue
        parts.append(pd.DataFrame({"cell": c.id, "run": tr.runs, "method": test.name,
                                   "best": best}))
    _skips(study, skipped_designs, notes, bool(parts), "function")
    new = pd.concat(parts, ignore_index=True)
    base = _stored_choices(study, reader, alpha, trials)
    base = base[base["cell"].isin(new["cell"].unique())]
    both = pd.concat([base, new], ignore_index=True)

    learner_sets = {cells[c].learners for c in new["cell"].unique()}
    K = max(len(ls) for ls in learner_sets)
    names = list(next(iter(learner_sets))) if len(learner_sets) == 1 else [
        f"L{k}" for k in range(K)]
    methods = list(dict.fromkeys([*base["method"], test.name]))
    out = []

    def row(cell: str, method: str, b: np.ndarray) -> dict:
        n = len(b)
        counts = [int((b == -1).sum())] + [int((b == k).sum()) for k in range(K)]
        d = {"cell": cell, "method": method, "runs": n}
        for col, c in zip([NONE, *names], counts, strict=True):
            d[col] = 100.0 * c / n if n else np.nan
        for col, c in zip([NONE, *names], counts, strict=True):
            d[f"count_{col}"] = c
        return d

    for cid in [c.id for c in study.cells if c.id in set(new["cell"])]:
        g = both[both["cell"] == cid]
        for m in methods:
            b = g.loc[g["method"] == m, "best"].to_numpy()
            if len(b):
                out.append(row(cid, m, b))
    for m in methods:
        out.append(row(ALL, m, both.loc[both["method"] == m, "best"].to_numpy()))
    table = pd.DataFrame(out)
    table.attrs["notes"] = notes
    return table


__all__ = ["ALL", "NONE", "bench", "bench_choice", "load_function", "locate", "no_trials",
           "pair_name"]
