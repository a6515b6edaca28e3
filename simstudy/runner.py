"""Execute a study's trials: serial, joblib (local cores) or Dask distributed.

One trial = source -> design masks -> learner predictions -> fold losses -> every test
of the cell.  Work is handed out in *chunks*: a block of one cell's runs, so a batched
learner fits ``runs x folds`` models in one call.  Chunks are canonical blocks
(``run // study.chunk``) and every model draws only from its own seed, so the numbers never
depend on the backend, the number of workers or the order chunks finish in.  The main process
writes each chunk to the store in one transaction as soon as it arrives; rerunning computes
only the runs that are missing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from dataclasses import dataclass, field
from functools import cache

import numpy as np

from .core import Dataset, FoldLosses
from .errors import SimstudyError
from .seeding import ModelSeeds, design_seed, source_seed, trial_seed
from .store import ResultRow, Store, TrialRecord
from .study import Cell, Study


@dataclass(frozen=True)
class Chunk:
    """A work unit: some runs of one cell."""

    study: str
    cell: Cell
    runs: tuple[int, ...]
    seed: int
    alpha: float
    keep_losses: bool = False  # keep per-instance losses (0/1 as packed bits) with the trial
    truth: bool = False  # store each trial's numeric truth with its losses (interval studies)


@dataclass
class RunSummary:
    study: str
    trials_total: int
    trials_done_before: int
    trials_computed: int
    seconds: float
    store: str
    results_recomputed: int = 0  # test results computed from stored losses (no refit)
    # what else happened: trials other runs stored, Dask workers lost, units retried, ...
    execution: dict = field(default_factory=dict)


class TrialError(SimstudyError):
    """A learner or test failed inside a trial: names the cell, run, fold and the cause."""


# --- resolving names (cached per process: workers resolve each name once) ------------------

@cache
def _source(spec: str):
    from .sources import get_source

    return get_source(spec)


@cache
def _design(spec: str):
    from .designs import get_design

    return get_design(spec)


@cache
def _learner(spec: str):
    from .learners import get_learner

    return get_learner(spec)


def _tests(names: tuple[str, ...]):
    from .stats.registry import get_test

    return [get_test(t) for t in names]


def learner_impl(learner) -> str:
    """Which implementation fits a learner: ``module:Class`` (recorded with every trial)."""
    inner = getattr(learner, "learner", None)  # ReferenceOf wraps the fast learner
    cls = type(learner)
    tag = f"{cls.__module__}:{cls.__qualname__}"
    if inner is not None:
        tag += f"({type(inner).__qualname__})"
    return tag


def check_folds(cell_id: str, y: np.ndarray, train: np.ndarray, test: np.ndarray) -> None:
    """Every fold needs a test instance and at least two classes with >= 2 training instances.

    (Requiring two instances of *every* class would refuse the papers' own data sets, where
    some classes have a single member, e.g. audiology and primary-tumor.)
    """
    R, F, _ = train.shape
    C = int(y.max()) + 1
    for r in range(R):
        for f in range(F):
            nte = int(test[r, f].sum())
            counts = np.bincount(y[train[r, f]], minlength=C)
            if nte == 0 or int((counts >= 2).sum()) < 2:
                raise SimstudyError(
                    f"cell {cell_id!r}: the data set (n={y.shape[0]}) is too small for its "
                    f"design: replication {r}, fold {f} has {nte} test instance(s) and "
                    f"training class counts {counts.tolist()}; each fold needs at least one "
                    "test instance and two classes with at least 2 training instances")


def validate(study: Study) -> None:
    """Resolve every name and check every cell can run, before anything is written.

    Unknown names, tests that do not fit a design and data sets too small for a design all
    raise :class:`SimstudyError` here, so a bad grid never leaves a half-written store.  A
    study validated once (``study.is_valid``) is not checked again.
    """
    from .learners.base import check_task
    from .stats.registry import check_tests_fit

    if study.is_valid:
        return
    if not study.cells:
        raise SimstudyError(f"study {study.name!r} has no cells; give it at least one "
                            "(simstudy.cells(sources, learner pairs, designs, tests))")
    for cell in study.cells:
        src, des = _source(cell.source), _design(cell.design)
        for ln in cell.learners:
            check_task(_learner(ln), getattr(src, "task", "classification"), src.name)
        if len(cell.learners) < 2:
            raise SimstudyError(f"cell {cell.id!r} needs at least two learners")
        _tests(cell.tests)
        check_tests_fit(cell.tests, des)
        # one throwaway sample checks the data set against the design (too small, …)
        data = src.sample(np.random.default_rng(0))
        train = des.masks(data.y, np.random.default_rng(0))
        if getattr(src, "task", "classification") == "regression":  # no classes to count
            if getattr(des, "strat", False):
                raise SimstudyError(f"cell {cell.id!r}: design {des.name!r} stratifies by "
                                    f"class and source {src.name!r} is a regression source; "
                                    f"write the design with [strat=0]")
            test = des.test_masks(train)
            if (test.sum(axis=2) < 1).any() or (train.sum(axis=2) < 2).any():
                raise SimstudyError(f"cell {cell.id!r}: the data set (n={data.n}) is too "
                                    f"small for its design: each fold needs a test instance "
                                    f"and at least 2 training instances")
        else:
            check_folds(cell.id, data.y, train, des.test_masks(train))
    study.is_valid = True


# --- one chunk -----------------------------------------------------------------------------

def _trial_data(chunk: Chunk, run: int) -> tuple[Dataset, np.ndarray, np.ndarray]:
    cid = chunk.cell.id
    src = _source(chunk.cell.source)
    data = src.sample(np.random.default_rng(source_seed(
        chunk.seed, cid, chunk.cell.source, run, getattr(src, "runs_per_draw", None))))
    des = _design(chunk.cell.design)
    train = des.masks(data.y, np.random.default_rng(design_seed(chunk.seed, cid, run)))
    test = des.test_masks(train)
    return data, train, test


def _trial_block(d: Dataset, tr: np.ndarray, te: np.ndarray, m: int):
    """(X, y, train, test) of one trial; an independent test set is appended to X."""
    tr, te = tr.reshape(m, -1), te.reshape(m, -1)
    if d.X_test is None:
        return d.X, d.y, tr, te
    nt = d.X_test.shape[0]
    X = np.concatenate([d.X, d.X_test])
    y = np.concatenate([d.y, d.y_test])
    train = np.concatenate([tr, np.zeros((m, nt), dtype=bool)], axis=1)
    test = np.concatenate([np.zeros_like(tr), np.ones((m, nt), dtype=bool)], axis=1)
    return X, y, train, test


def _stack(blocks, shared: bool):
    """All trials' blocks as one (X, y, train, test), masks pointing at their own rows."""
    if shared:  # same X: just stack the masks
        return (blocks[0][0], blocks[0][1], np.concatenate([b[2] for b in blocks]),
                np.concatenate([b[3] for b in blocks]))
    if len(blocks) == 1:
        return blocks[0]
    X = np.concatenate([b[0] for b in blocks])
    y = np.concatenate([b[1] for b in blocks])
    B = sum(b[2].shape[0] for b in blocks)
    train = np.zeros((B, X.shape[0]), dtype=bool)
    test = np.zeros((B, X.shape[0]), dtype=bool)
    r = c = 0
    for _, _, tr, te in blocks:
        train[r:r + tr.shape[0], c:c + tr.shape[1]] = tr
        test[r:r + tr.shape[0], c:c + tr.shape[1]] = te
        r, c = r + tr.shape[0], c + tr.shape[1]
    return X, y, train, test


def compute_chunk(chunk: Chunk) -> list[TrialRecord]:
    """Compute every trial of a chunk: fit each learner once per fold, then all tests."""
    from .interval_truth import conditional_truth
    from .learners.base import instance_losses

    t0 = time.perf_counter()
    cell, cid = chunk.cell, chunk.cell.id
    src = _source(cell.source)
    des = _design(cell.design)
    R, F = des.shape
    T = len(chunk.runs)
    trials = [_trial_data(chunk, r) for r in chunk.runs]

    # One group of models per learner call.  A fixed source shares one X across the chunk:
    # one call for all runs x folds.  Generated samples (or independent test sets) differ per
    # trial: learners that work from index sets (trees, the scikit-learn loop) take the
    # trials stacked into one X; dense batched learners, whose cost grows with the rows of X,
    # are called once per trial.
    shared = src.fixed and all(d.X_test is None for d, _, _ in trials)
    if shared:
        X0, y0 = trials[0][0].X, trials[0][0].y
        per_trial = [(X0, y0, tr.reshape(R * F, -1), te.reshape(R * F, -1))
                     for _, tr, te in trials]
    else:
        per_trial = [_trial_block(d, tr, te, R * F) for d, tr, te in trials]

    K = len(cell.learners)
    keep = chunk.keep_losses or any(getattr(t, "needs_losses", False) for t in _tests(cell.tests))
    widths = [g[2].shape[1] for g in per_trial]
    # regression learners score real-valued losses (squared, absolute), kept as floats
    real = [getattr(_learner(ln), "task", "classification") == "regression"
            for ln in cell.learners]
    kept = np.float64 if any(real) else np.int8
    losses = [np.full((K, R * F, w), -1, dtype=kept) for w in widths] if keep else None
    errors = np.empty((K, T * R * F))
    n_train = np.concatenate([g[2].sum(1) for g in per_trial])
    n_test = np.concatenate([g[3].sum(1) for g in per_trial])
    if np.any(n_test == 0) or np.any(n_train == 0):
        raise SimstudyError(
            f"design {des.name!r} produced an empty train or test fold on {cell.source!r}")
    stacked = None  # the trials stacked into one group, built once for every learner
    positions: dict[int, tuple] = {}  # id of a group's test mask (alive all chunk) -> positions
    for k, ln in enumerate(cell.learners):
        seeds = ModelSeeds(chunk.seed, cid, chunk.runs, k, R * F)  # built when a learner asks
        learner = _learner(ln).prepare(trials[0][0])  # data-set facts, e.g. nominal groups
        if shared or getattr(learner, "stack_trials", False):
            stacked = [_stack(per_trial, shared)] if stacked is None else stacked
            groups = stacked
        else:
            groups = per_trial
        at = 0
        for X, y, train, test in groups:
            B = train.shape[0]
            # the test positions of a group, found once for every learner: stacked masks are
            # mostly False, so errors are counted at these positions only
            if id(test) not in positions:
                positions[id(test)] = _test_positions(test)
            flat, row, col, count = positions[id(test)]
            pred = _fit_predict(learner, ln, X, y, train, test, flat, seeds[at:at + B],
                                chunk, at, R * F)
            if real[k]:
                loss_at = instance_losses(pred.ravel()[flat], y[col], learner.loss)
                errors[k, at:at + B] = np.bincount(row, weights=loss_at, minlength=B) / count
                if keep:
                    wrong = np.zeros(pred.shape)
                    wrong.ravel()[flat] = loss_at
                    _keep_losses(losses, k, at, B, wrong, test, widths, R * F,
                                 stacked=len(groups) == 1 and not shared and len(per_trial) > 1)
                at += B
                continue
            wrong_at = pred.ravel()[flat] != y[col]
            errors[k, at:at + B] = np.bincount(row[wrong_at], minlength=B) / count
            if keep:
                wrong = (pred != y[None, :]) & test
                _keep_losses(losses, k, at, B, wrong, test, widths, R * F, stacked=len(groups) == 1
                             and not shared and len(per_trial) > 1)
            at += B
    errors = errors.reshape(K, T, R, F)
    n_train = n_train.reshape(T, R, F)
    n_test = n_test.reshape(T, R, F)

    # the fitted models' errors on fresh data, kept with the losses (an interval's target);
    # timed with the trial
    truths = [conditional_truth(cell, chunk.seed, run) if chunk.truth and keep else None
              for run in chunk.runs]
    elapsed = (time.perf_counter() - t0) / T
    impl = tuple(learner_impl(_learner(ln)) for ln in cell.learners)
    source_hash = getattr(src, "content_hash", None)
    out = []
    for t, run in enumerate(chunk.runs):
        per = None if losses is None else losses[t].reshape(K, R, F, -1)
        ts = trial_seed(chunk.seed, cid, run)
        fl = FoldLosses(errors[:, t], n_train[t], n_test[t], per, ts, truths[t])
        res = evaluate(cell, fl, chunk.alpha, run)
        out.append(TrialRecord(
            cell=cid, seed=chunk.seed, run=run, study=chunk.study, source=cell.source,
            learners=cell.learners, design=cell.design,
            trial_seed=f"SeedSequence({chunk.seed}, spawn_key={ts.spawn_key})",
            losses=fl, results=res, seconds=elapsed, impl=impl, source_hash=source_hash))
    return out


def _keep_losses(out, k, at, B, wrong, test, widths, per_trial, stacked: bool) -> None:
    """Copy a group's per-instance losses (0/1, or real for a regression learner) into
    each trial's (K, R*F, n_t) array.

    Rows ``at .. at+B`` of the group are models ``at // per_trial ..`` of consecutive trials.
    Stacked generated trials sit side by side in the columns; otherwise a trial's columns
    are the group's own.
    """
    offsets = np.concatenate([[0], np.cumsum(widths)])
    for row in range(0, B, per_trial):
        t = (at + row) // per_trial
        cols = slice(offsets[t], offsets[t + 1]) if stacked else slice(0, widths[t])
        w = wrong[row:row + per_trial, cols]
        te = test[row:row + per_trial, cols]
        out[t][k] = np.where(te, w.astype(out[t].dtype), out[t].dtype.type(-1))


def _test_positions(test: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Flat index, row and column of each True of a group's ``(B, n)`` test mask, in the
    order of ``pred[test]``, and each row's count (``test.sum(1)``)."""
    flat = np.flatnonzero(test)
    row = flat // test.shape[1]
    return flat, row, flat - row * test.shape[1], np.bincount(row, minlength=test.shape[0])


def _fit_predict(learner, ln: str, X, y, train, test, flat, seeds, chunk: Chunk, at: int,
                 per_trial: int) -> np.ndarray:
    """One learner call, with its failures and bad predictions named by cell, run and fold."""
    cid = chunk.cell.id

    def where(m: int) -> str:
        g = at + m
        return f"run {chunk.runs[g // per_trial]}, fold {g % per_trial}"

    try:
        pred = np.asarray(learner.fit_predict(X, y, train, test, seeds))
    except SimstudyError:
        raise
    except Exception as e:  # noqa: BLE001 - a learner's own failure: find the model, one line
        bad = where(0)
        for m in range(train.shape[0]):  # which model fails on its own?
            try:
                learner.fit_predict(X, y, train[m:m + 1], test[m:m + 1], seeds[m:m + 1])
            except Exception:  # noqa: BLE001
                bad = where(m)
                break
        raise TrialError(f"learner {ln!r} failed in cell {cid!r}, {bad}: "
                         f"{type(e).__name__}: {e}") from None
    if pred.shape != train.shape:
        raise TrialError(f"learner {ln!r} returned predictions of shape {pred.shape} for "
                         f"{train.shape} masks in cell {cid!r}")
    vals = pred.ravel()[flat]  # pred[test]; flat: the test mask's flat positions
    if getattr(learner, "task", "classification") == "regression":
        bad = ~np.isfinite(vals)
        if bad.any():
            raise TrialError(f"learner {ln!r} returned {vals[bad][0].item()!r} at a test "
                             f"position in cell {cid!r}, "
                             f"{where(int(flat[bad][0] // test.shape[1]))}; a regression "
                             "learner's predictions must be finite at every test position")
        return pred.astype(np.float64, copy=False)
    C = int(y.max()) + 1
    if pred.dtype.kind == "f":
        ok = np.isfinite(vals) & (vals == np.round(vals))
    elif pred.dtype.kind in "iu":
        ok = np.ones(vals.shape, dtype=bool)
    else:
        raise TrialError(f"learner {ln!r} returned predictions of dtype {pred.dtype} in cell "
                         f"{cid!r}; predictions must be integer class codes 0..{C - 1}")
    ok &= (vals >= 0) & (vals <= C - 1)
    if not ok.all():
        rows = flat[~ok] // test.shape[1]
        v = vals[~ok][0].item()
        raise TrialError(
            f"learner {ln!r} returned {v!r} at a test position in cell {cid!r}, "
            f"{where(int(rows[0]))}; predictions must be integer class codes 0..{C - 1} "
            "at every test position (no NaN, no -1)")
    return pred.astype(np.int64, copy=False)


def evaluate(cell: Cell, fl: FoldLosses, alpha: float, run: int | None = None,
             names: tuple[str, ...] | None = None) -> list[ResultRow]:
    """Every test (each learner pair) and choice method of a cell on one trial's losses."""
    from .stats.registry import ChoiceMethod
    from .store import stats_version  # looked up per call: tests patch it

    version = stats_version()
    K = fl.errors.shape[0]
    pairs = [(a, b) for a in range(K) for b in range(a + 1, K)]
    res: list[ResultRow] = []
    for st in _tests(cell.tests if names is None else names):
        try:
            if isinstance(st, ChoiceMethod):
                best, order = st(fl.errors, alpha)
                res.append(ResultRow(st.name, -1, -1, np.nan if best is None else int(best),
                                     np.nan, None, alpha,
                                     None if order is None else [int(i) for i in order],
                                     version))
                continue
            for a, b in pairs:
                r = st(fl, a, b)
                df = list(r.df) if isinstance(r.df, tuple) else r.df
                res.append(ResultRow(st.name, a, b, float(r.statistic), float(r.pvalue), df,
                                     alpha, getattr(r, "extra", None), version))
        except SimstudyError:
            raise
        except Exception as e:  # noqa: BLE001 - name the trial, one line
            at = "" if run is None else f", run {run}"
            raise TrialError(f"test {st.name!r} failed in cell {cell.id!r}{at}: "
                             f"{type(e).__name__}: {e}") from None
    return res


# --- planning and executing ----------------------------------------------------------------

def _needs_losses(cell: Cell) -> bool:
    """A cell with a per-instance test needs stored losses: a trial stored without them is
    recomputed (same seeds, same numbers) rather than answered wrongly.  (A study's
    ``meta["keep_losses"]`` only keeps them for new trials; it never forces a refit.)"""
    return any(getattr(t, "needs_losses", False) for t in _tests(cell.tests))


def stored_runs(study: Study, store: Store) -> dict[str, set[int]]:
    """Cell id -> the runs the store holds at the study's seed (for a cell whose tests need
    per-instance losses, only trials that kept them): read once per run, used by
    :func:`plan` and :func:`plan_results`."""
    return {c.id: store.done_runs(c.id, study.seed, with_losses=_needs_losses(c))
            for c in study.cells}


def plan(study: Study, store: Store,
         stored: dict[str, set[int]] | None = None) -> tuple[list[Chunk], int, int]:
    """The chunks still to compute, and the counts of total / already stored trials
    (``stored``: :func:`stored_runs`, read here if not given)."""
    stored = stored_runs(study, store) if stored is None else stored
    chunks, total, done_n = [], 0, 0
    runs, step = study.runs, study.chunk
    keep = bool(study.meta.get("keep_losses", False))
    truth = bool(study.meta.get("interval_truth", False))
    for cell in study.cells:
        done = np.fromiter((r for r in stored[cell.id] if r < runs), dtype=np.int64)
        total += runs
        done_n += done.size
        # whole blocks of runs at once: a million runs of a cell are planned in a fraction
        # of a second, not one run at a time
        missing = np.setdiff1d(np.arange(runs, dtype=np.int64), done, assume_unique=True)
        cut = [0, *(np.flatnonzero(np.diff(missing // step)) + 1).tolist(), missing.size]
        m = missing.tolist()
        chunks += [Chunk(study.name, cell, tuple(m[a:b]), study.seed, study.alpha, keep, truth)
                   for a, b in zip(cut[:-1], cut[1:], strict=True) if b > a]
    return chunks, total, done_n


def plan_results(study: Study, store: Store, stored: dict[str, set[int]] | None = None
                 ) -> list[tuple[Cell, list[int], tuple[str, ...]]]:
    """Stored trials whose test results are missing or were computed by other stats code.

    Completeness is tracked per (cell, run, test, pair): adding a test to a study, or
    changing the statistics code, leaves such gaps, filled from the stored fold losses.
    ``stored``: :func:`stored_runs`, read here if not given.
    """
    from .stats.registry import is_choice
    from .store import stats_version

    stored = stored_runs(study, store) if stored is None else stored
    version = stats_version()
    todo = []
    for cell in study.cells:
        runs = {r for r in stored[cell.id] if r < study.runs}
        if not runs:
            continue
        K = len(cell.learners)
        npairs = K * (K - 1) // 2
        keys = store.result_keys(cell.id, study.seed, study.runs)
        keys = keys[keys["stats_version"] == version]
        have: dict[tuple[str, int], int] = {}
        for t, r in zip(keys["test"], keys["run"], strict=True):
            have[(t, int(r))] = have.get((t, int(r)), 0) + 1
        need_runs: set[int] = set()
        need_tests: set[str] = set()
        for t in cell.tests:
            want = 1 if is_choice(t) else npairs
            miss = {r for r in runs if have.get((t, r), 0) < want}
            if miss:
                need_runs |= miss
                need_tests.add(t)
        if need_runs:
            todo.append((cell, sorted(need_runs), tuple(t for t in cell.tests if t in need_tests)))
    return todo


def recompute_results(study: Study, store: Store, todo, progress: bool = False) -> int:
    """Compute the planned results from stored fold losses (no learner is fitted)."""
    from tqdm.auto import tqdm

    n = 0
    total = sum(len(runs) for _, runs, _ in todo)
    with tqdm(total=total, unit="trial", desc=f"{study.name}: tests from stored losses",
              disable=not progress or total == 0, dynamic_ncols=True) as bar:
        for cell, runs, names in todo:
            trials = store.trials([cell.id], seed=study.seed, runs=study.runs)
            trials = trials[trials["run"].isin(runs)]
            rows = []
            for tr in trials.itertuples(index=False):
                # the trial's seed: tests that draw at random key their draws by it
                fl = dataclasses.replace(store.fold_losses(tr),
                                         seed=trial_seed(study.seed, cell.id, int(tr.run)))
                rows.append((cell.id, study.seed, int(tr.run),
                             evaluate(cell, fl, study.alpha, int(tr.run), names)))
            n += store.write_results(rows)
            bar.update(len(rows))
    return n


def check_source_content(study: Study, store: Store) -> None:
    """Refuse to mix trials of one cell computed on different data (a changed data file)."""
    for cell in study.cells:
        h = getattr(_source(cell.source), "content_hash", None)
        if h is None:
            continue
        stored = store.source_hashes(cell.id, study.seed) - {h}
        if stored:
            raise SimstudyError(
                f"store {str(store.path)!r} holds trials of cell {cell.id!r} computed on data "
                f"with sha256 {sorted(stored)[0][:12]}…, but the data now has {h[:12]}…; "
                "use another --store (the stored trials are kept)")


def run_study(
    study: Study,
    store: Store,
    *,
    jobs: int = 1,
    backend: str = "joblib",
    scheduler: str | None = None,
    progress: bool = True,
    args: dict | None = None,
    shard: tuple[int, int] | None = None,
    costs: str | None = None,
) -> RunSummary:
    """Compute every missing trial of ``study`` into ``store``; return a summary.

    ``shard=(i, n)`` computes only shard ``i`` of ``n`` of the work units (:mod:`.shard`;
    ``costs``: a store whose measured seconds balance them).  Runs sharing ``store`` split
    the work units between them (:mod:`.lease`).
    """
    from .params import BACKEND, JOBS, check, check_shard

    backend = check("backend", backend, BACKEND)
    jobs = check("jobs", jobs, JOBS)
    shard = check_shard(shard)
    study = study.keyed()
    validate(study)
    check_source_content(study, store)
    stored = stored_runs(study, store)  # read once, planned once
    chunks, total, done_before = plan(study, store, stored)
    from .execute import Execution
    from .merge import definition

    facts = {"definition": definition(study)}
    if shard is not None:  # a deterministic 1/N of the work units
        from .shard import shard_chunks

        chunks, total, done_before, more = shard_chunks(study, chunks, shard, costs)
        facts.update(more)
    todo = plan_results(study, store, stored)
    t0 = time.perf_counter()
    run_id = store.start_run(study.name, {**(args or {}), **facts})
    computed = recomputed = 0
    from .progress import Progress

    ex = Execution(study, store, run_id, chunks, backend=backend, jobs=int(jobs),
                   scheduler=scheduler, compute=compute_chunk, needs_losses=_needs_losses)

    try:
        recomputed = recompute_results(study, store, todo, progress)
        # counted in cost units (measured or estimated seconds), not trials: progress.py
        with Progress(study, store, chunks, total, done_before, enabled=progress,
                      jobs=1 if backend == "serial" else int(jobs)) as bar:
            ex.progress = bar.others  # trials a cooperating run stored
            for records in ex:
                computed += store.write(records)
                bar.update(records)
    except KeyboardInterrupt as e:
        store.note_run(run_id, "execution", ex.close())
        store.finish_run(run_id, computed, "interrupted", str(e) or "interrupted by the user")
        raise
    except Exception as e:
        with contextlib.suppress(Exception):  # the failure, not the accounting, is the news
            store.note_run(run_id, "execution", ex.close())
        store.finish_run(run_id, computed, "failed", f"{type(e).__name__}: {e}")
        raise
    done = ex.close()
    store.note_run(run_id, "execution", done)
    store.finish_run(run_id, computed)
    return RunSummary(study.name, total, done_before, computed, time.perf_counter() - t0,
                      str(store.path), recomputed, done)
