"""Benchmark a newly proposed test on the stored fold losses of a study (no retraining).

The user's function is ``f(d, *, n_train, n_test)``, with ``d`` the design's (R, F) array of
differences of error rates (learner a minus learner b), returning an object with
``.pvalue`` or a ``(statistic, pvalue)`` tuple.  It may declare ``f.designs`` (design names
or kinds it fits); otherwise a cell is skipped when ``f`` raises ``ValueError``,
``TypeError`` or ``IndexError`` on that cell's first trial.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
from collections.abc import Callable

import numpy as np
import pandas as pd

from .aggregate import asked_results, reject_table
from .errors import SimstudyError
from .spec import parse_spec
from .store import Store
from .study import Study


def load_function(path: str) -> Callable:
    """Import ``package.module:function`` (a ``.py`` file path also works for the module)."""
    if ":" not in path:
        raise SimstudyError(f"--test expects MODULE:FUNCTION, got {path!r}")
    mod_name, fn_name = path.rsplit(":", 1)
    try:
        if mod_name.endswith(".py"):
            spec = importlib.util.spec_from_file_location("_simstudy_user_test", mod_name)
            if spec is None or spec.loader is None:
                raise ImportError(mod_name)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
        else:
            mod = importlib.import_module(mod_name)
    except (ImportError, FileNotFoundError) as e:
        raise SimstudyError(f"cannot import module {mod_name!r} for --test {path!r}: {e}") from None
    except Exception as e:  # noqa: BLE001 - the user's module failed while importing
        raise SimstudyError(f"module {mod_name!r} (--test {path!r}) raised while importing: "
                            f"{type(e).__name__}: {e}") from None
    fn = getattr(mod, fn_name, None)
    if not callable(fn):
        raise SimstudyError(f"module {mod_name!r} has no function {fn_name!r} (--test {path!r})")
    return fn


def _pvalue(out: object, where: str) -> tuple[float, float]:
    if hasattr(out, "pvalue"):
        stat, p = getattr(out, "statistic", np.nan), out.pvalue
    elif isinstance(out, tuple) and len(out) == 2:
        stat, p = out
    else:
        raise SimstudyError(
            f"the test function returned {out!r:.80} on {where}; it must return an object "
            "with .pvalue or a (statistic, pvalue) tuple")
    try:
        p = float(p)
        stat = float(stat) if stat is not None else np.nan
    except (TypeError, ValueError):
        raise SimstudyError(f"the test function returned a p-value {p!r} on {where}; "
                            "it must be a number in [0, 1]") from None
    if not 0.0 <= p <= 1.0:  # also catches NaN
        raise SimstudyError(f"the test function returned p = {p!r} on {where}; a p-value must "
                            "be a number in [0, 1] (use p = 1 for an undefined statistic)")
    return stat, p


def _fits(fn: Callable, design: str) -> bool | None:
    declared = getattr(fn, "designs", None)
    if declared is None:
        return None
    return design in declared or parse_spec(design)[0] in declared


def check_signature(fn: Callable, name: str) -> None:
    """``fn`` must accept ``fn(d, *, n_train=..., n_test=...)``; say so in one line if not."""
    try:
        inspect.signature(fn).bind(np.zeros((5, 2)), n_train=1.0, n_test=1.0)
    except TypeError as e:
        raise SimstudyError(f"test function {name!r} cannot be called as "
                            f"f(d, *, n_train, n_test): {e}") from None
    except ValueError:
        pass  # no signature available (a builtin): find out when calling it


def stored_trials(study: Study, store: Store) -> pd.DataFrame:
    """The study's stored trials (its seed, runs below its run count); none is an error."""
    trials = store.trials([c.id for c in study.cells], seed=study.seed, runs=study.runs)
    if trials.empty:
        raise SimstudyError(
            f"store {str(store.path)!r} has no trials of study {study.name!r} (seed "
            f"{study.seed}); run it first: python -m simstudy run {study.name} --store {store.path}")
    return trials


def bench(fn: Callable, study: Study, store: Store, *, name: str = "new",
          alpha: float | None = None) -> pd.DataFrame:
    """Reject proportions of ``fn`` beside the stored baselines, cell by cell.

    Decisions are ``p < alpha`` (default: the study's alpha) for the new test and the
    baselines alike, from stored p-values.  A cell is skipped when ``fn.designs`` does not
    list its design, or (when ``fn`` declares no designs) when ``fn`` raises ``ValueError``
    or ``IndexError`` on the cell's first trial.  Any other failure, a p-value outside
    [0, 1] or NaN, or a wrong return type is an error naming the cell and the run.
    """
    alpha = study.alpha if alpha is None else alpha
    check_signature(fn, name)
    ids = [c.id for c in study.cells]
    trials = stored_trials(study, store)
    rows, skipped = [], []
    for cell in study.cells:
        g = trials[trials["cell"] == cell.id]
        if g.empty:
            continue
        fits = _fits(fn, cell.design)
        if fits is False:
            continue
        K = g["errors"].iloc[0].shape[0]
        for a in range(K):
            for b in range(a + 1, K):
                for i, tr in enumerate(g.itertuples(index=False)):
                    d = tr.errors[a] - tr.errors[b]
                    kw = {"n_train": float(np.mean(tr.n_train)), "n_test": float(np.mean(tr.n_test))}
                    where = f"cell {cell.id!r}, run {tr.run}"
                    try:
                        out = fn(d, **kw)
                    except (ValueError, IndexError) as e:
                        if i == 0 and fits is None:
                            skipped.append(f"{cell.design}: {type(e).__name__}: {e}")
                            break  # the function does not fit this design: skip the cell
                        raise SimstudyError(f"the test function raised on {where}: "
                                            f"{type(e).__name__}: {e}") from None
                    except Exception as e:  # noqa: BLE001 - the user's code: one line
                        raise SimstudyError(f"the test function raised on {where}: "
                                            f"{type(e).__name__}: {e}") from None
                    stat, p = _pvalue(out, where)
                    rows.append((cell.id, tr.seed, tr.run, name, a, b, stat, p, None, alpha,
                                 int(p < alpha)))
    if not rows:
        why = f"; it raised {skipped[0]}" if skipped else ""
        raise SimstudyError(f"the test fits no design of study {study.name!r} "
                            f"(designs: {sorted({c.design for c in study.cells})}){why}")
    new = pd.DataFrame(rows, columns=["cell", "seed", "run", "test", "a", "b", "statistic",
                                      "pvalue", "df", "alpha", "reject"])
    base = store.results(ids, seed=study.seed, runs=study.runs)
    base = asked_results(study, base[base["cell"].isin(new["cell"].unique()) & (base["a"] >= 0)])
    table = reject_table(pd.concat([base, new], ignore_index=True), alpha=alpha)
    wide = table.pivot_table(index="cell", columns="test", values="proportion", sort=False)
    return wide.reset_index()
