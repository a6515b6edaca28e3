"""Execute a run's plan (:mod:`.planning`): serial, joblib (local cores) or Dask distributed.

One trial = source -> design masks -> learner predictions -> fold losses -> every test
of the cell.  Work is handed out in *chunks*: a block of one cell's runs, so a batched
learner fits ``runs x folds`` models in one call.  Chunks are canonical blocks
(``run // study.chunk``) and every model draws only from its own seed, so the numbers never
depend on the backend, the number of workers or the order chunks finish in.  The main process
writes each chunk to the store in one transaction as soon as it arrives; rerunning plans
only the runs that are missing.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from .core import FoldLosses
from .errors import SimstudyError
from .evaluation import TrialError, evaluate, resolve_tests
from .planning import Chunk, Plan, make_plan
from .provenance import learner_impl
from .seeding import ModelSeeds, trial_seed
from .store import Store, TrialRecord
from .study import Study
from .trialdata import (
    design_of,
    instance_columns,
    learner_of,
    source_of,
    trial_block,
    trial_data,
)


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


# --- one chunk -----------------------------------------------------------------------------

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
    src = source_of(cell.source)
    des = design_of(cell.design)
    R, F = des.shape
    T = len(chunk.runs)
    trials = [trial_data(chunk.cell, chunk.seed, r) for r in chunk.runs]

    # One group of models per learner call.  A fixed source shares one X across the chunk:
    # one call for all runs x folds.  Generated samples (or independent test sets) differ per
    # trial: learners that work from index sets (trees, the scikit-learn loop) take the
    # trials stacked into one X; dense batched learners, whose cost grows with the rows of X,
    # are called once per trial.
    shared = (src.fixed and all(d.X_test is None for d, _, _ in trials)
              and not hasattr(des, "rows"))  # a design's own rows differ per trial
    if shared:
        X0, y0 = trials[0][0].X, trials[0][0].y
        per_trial = [(X0, y0, tr.reshape(R * F, -1), te.reshape(R * F, -1))
                     for _, tr, te in trials]
    else:
        per_trial = [trial_block(d, tr, te, R * F) for d, tr, te in trials]

    K = len(cell.learners)
    keep = chunk.keep_losses or any(getattr(t, "needs_losses", False)
                                    for t in resolve_tests(cell.tests))
    widths = [g[2].shape[1] for g in per_trial]
    # regression learners score real-valued losses (squared, absolute), kept as floats
    real = [getattr(learner_of(ln), "task", "classification") == "regression"
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
        learner = learner_of(ln).prepare(trials[0][0])  # data-set facts, e.g. nominal groups
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
    impl = tuple(learner_impl(learner_of(ln)) for ln in cell.learners)
    source_hash = getattr(src, "content_hash", None)
    out = []
    for t, run in enumerate(chunk.runs):
        per = (None if losses is None
               else instance_columns(losses[t], trials[t][0]).reshape(K, R, F, -1))
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


# --- executing a plan ----------------------------------------------------------------------

def recompute_results(plan: Plan, store: Store, progress: bool = False) -> int:
    """Compute the plan's test results from stored fold losses (no learner is fitted)."""
    from tqdm.auto import tqdm

    study = plan.study
    n = 0
    total = sum(len(runs) for _, runs, _ in plan.results)
    with tqdm(total=total, unit="trial", desc=f"{study.name}: tests from stored losses",
              disable=not progress or total == 0, dynamic_ncols=True) as bar:
        for cell, runs, names in plan.results:
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


def run_study(
    plan: Plan | Study,
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
    """Execute ``plan`` (:func:`simstudy.planning.make_plan`) on ``store``: compute its
    work units and its results from stored losses; return a summary.

    A :class:`Study` is planned here on ``store`` (``shard=(i, n)``: only shard ``i`` of
    ``n`` of the work units, :mod:`.shard`; ``costs``: a store whose measured seconds
    balance them).  Runs sharing ``store`` split the work units between them
    (:mod:`.lease`): a unit another run stored meanwhile is not computed again.
    """
    from .execute import Execution, sigterm_interrupts
    from .params import BACKEND, JOBS, check
    from .progress import Progress

    backend = check("backend", backend, BACKEND)
    jobs = check("jobs", jobs, JOBS)
    if isinstance(plan, Plan):
        if shard is not None or costs is not None:
            raise SimstudyError("shard and costs are the plan's: give them to make_plan")
        if plan.store != str(store.path):
            raise SimstudyError(f"the plan was made on store {plan.store!r}, not "
                                f"{str(store.path)!r}: plan on the store the run writes to "
                                "(make_plan(plan, store))")
    else:
        plan = make_plan(plan, store, shard=shard, costs=costs)
    study = plan.study
    t0 = time.perf_counter()
    # SIGTERM from the moment the run is recorded ends it as Ctrl-C does (recorded as
    # interrupted, said in one line), not silently
    with sigterm_interrupts():
        run_id = store.start_run(study.name, {**(args or {}), **plan.facts})
        computed = recomputed = 0
        ex = Execution(plan, store, run_id, backend=backend, jobs=int(jobs),
                       scheduler=scheduler, compute=compute_chunk)

        try:
            recomputed = recompute_results(plan, store, progress)
            # counted in cost units (measured or estimated seconds), not trials: progress.py
            with Progress(plan, enabled=progress,
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
        return RunSummary(study.name, plan.total, plan.done_before, computed,
                          time.perf_counter() - t0, str(store.path), recomputed, done)
