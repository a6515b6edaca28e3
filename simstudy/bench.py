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
from collections.abc import Callable

import numpy as np
import pandas as pd

from .aggregate import reject_table
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
    fn = getattr(mod, fn_name, None)
    if not callable(fn):
        raise SimstudyError(f"module {mod_name!r} has no function {fn_name!r} (--test {path!r})")
    return fn


def _pvalue(out: object) -> tuple[float, float]:
    if hasattr(out, "pvalue"):
        return float(getattr(out, "statistic", np.nan)), float(out.pvalue)
    if isinstance(out, tuple) and len(out) == 2:
        return float(out[0]), float(out[1])
    raise SimstudyError(
        f"a test function must return an object with .pvalue or a (statistic, pvalue) tuple, "
        f"got {out!r}")


def _fits(fn: Callable, design: str) -> bool | None:
    declared = getattr(fn, "designs", None)
    if declared is None:
        return None
    return design in declared or parse_spec(design)[0] in declared


def bench(fn: Callable, study: Study, store: Store, *, name: str = "new",
          alpha: float | None = None) -> pd.DataFrame:
    """Reject proportions of ``fn`` beside the stored baselines, cell by cell."""
    alpha = study.alpha if alpha is None else alpha
    ids = [c.id for c in study.cells]
    trials = store.trials(ids, seed=study.seed, runs=study.runs)
    if trials.empty:
        raise SimstudyError(
            f"store {str(store.path)!r} has no trials of study {study.name!r} (seed "
            f"{study.seed}); run it first: python -m simstudy run {study.name} --store {store.path}")
    rows = []
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
                    try:
                        stat, p = _pvalue(fn(d, **kw))
                    except (ValueError, TypeError, IndexError):
                        if i == 0 and fits is None:
                            break  # the function does not fit this design: skip the cell
                        raise
                    rows.append((cell.id, tr.seed, tr.run, name, a, b, stat, p, None, alpha,
                                 int(p < alpha)))
    if not rows:
        raise SimstudyError(f"the test fits no design of study {study.name!r} "
                            f"(designs: {sorted({c.design for c in study.cells})})")
    new = pd.DataFrame(rows, columns=["cell", "seed", "run", "test", "a", "b", "statistic",
                                      "pvalue", "df", "alpha", "reject"])
    base = store.results(ids, seed=study.seed, runs=study.runs)
    base = base[base["cell"].isin(new["cell"].unique())]
    table = reject_table(pd.concat([base, new], ignore_index=True), alpha=alpha)
    wide = table.pivot_table(index="cell", columns="test", values="proportion", sort=False)
    return wide.reset_index()
