"""Every test and choice method of a cell on one trial's fold losses, as result rows.

The runner evaluates each trial it computes; a rerun re-evaluates stored losses whose
results are missing or stamped by other statistics code; ``collect`` re-decides choice
methods at another alpha -- all through :func:`evaluate`, so a stored result and a
recomputed one are the same numbers.
"""

from __future__ import annotations

import numpy as np

from .core import FoldLosses
from .errors import SimstudyError
from .store import ResultRow
from .study import Cell


class TrialError(SimstudyError):
    """A learner or test failed inside a trial: names the cell, run, fold and the cause."""


def resolve_tests(names: tuple[str, ...]) -> list:
    """The registered tests and choice methods named ``names``, in order.

    >>> [t.name for t in resolve_tests(("t5x2cv",))]
    ['t5x2cv']
    """
    from .stats.registry import get_test

    return [get_test(t) for t in names]


def evaluate(cell: Cell, fl: FoldLosses, alpha: float, run: int | None = None,
             names: tuple[str, ...] | None = None) -> list[ResultRow]:
    """Every test (each learner pair) and choice method of a cell on one trial's losses
    (only ``names`` when given), stamped with :func:`simstudy.store.stats_version`.

    A test's own failure raises :class:`TrialError` naming the cell, the run and the test.

    >>> import numpy as np
    >>> from simstudy.study import cells
    >>> cell = cells(["iris"], [("nmc", "1nn")], ["5x2cv"], ["t5x2cv"])[0]
    >>> e = np.random.default_rng(0).uniform(0.1, 0.3, (2, 5, 2))
    >>> [(r.test, r.a, r.b) for r in evaluate(cell, FoldLosses(e, np.full((5, 2), 75.0),
    ...                                                           np.full((5, 2), 75.0)), 0.05)]
    [('t5x2cv', 0, 1)]
    """
    from .stats.registry import ChoiceMethod
    from .store import stats_version  # looked up per call: tests patch it

    version = stats_version()
    K = fl.errors.shape[0]
    pairs = [(a, b) for a in range(K) for b in range(a + 1, K)]
    res: list[ResultRow] = []
    for st in resolve_tests(cell.tests if names is None else names):
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
