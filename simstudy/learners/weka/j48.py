"""``j48``: Weka 3.6's J48 (C4.5 release 8) with ``-C 0.25 -M 2``, many trees per call.

Bouckaert & Frank (2004) ran Weka's J48 with its defaults; replicability is a property of
that exact learner, so this reproduces Weka 3.6.14 (``weka.classifiers.trees.J48``,
package ``weka.classifiers.trees.j48``), read from its source and bytecode:

* split selection (``C45ModelSelection``): a node with total weight < 2·M or a single
  class is a leaf; among attributes with a valid split and information gain ≥ the average
  gain − 1e-3 (the average over valid splits, leaving out nominal attributes with ≥ 0.3 N
  values unless all are such), the largest gain ratio wins (first attribute on ties);
* nominal attributes split multiway over their declared domain (valid if ≥ 2 branches
  hold ≥ M = 2 weight); numeric ones binary at the cut with the largest gain among cuts
  between distinct values (> 1e-5 apart) leaving ≥ minSplit = clamp(0.1·W/#classes, M, 25)
  weight on each side, corrected by log2(#cuts)/N (MDL) and moved to the largest training
  value ≤ the midpoint (``C45Split``); gains and ratios weighted by the known fraction
  (``InfoGainSplitCrit``, ``GainRatioSplitCrit``);
* missing values: an instance goes to every branch with weight × the branch's share of the
  known weight (training), and prediction sums the branches' class distributions with
  those shares; an empty branch predicts its parent's distribution;
* the tree is collapsed (a subtree that does not lower training error becomes a leaf),
  then pruned bottom-up by C4.5's upper confidence bound at CF = 0.25 (``Stats.addErrs``)
  with subtree raising of the largest branch (``C45PruneableClassifierTree``);
* a leaf predicts its class distribution; the class is the first maximum (Weka's
  ``classifyInstance``, which ``-p`` prints).

Known differences from Weka, none of which has shown up on the fixtures: sums are
accumulated in another order (so a comparison that Weka decides inside its 1e-6
tolerances by a last-bit difference could go the other way); where several training
values lie within 1e-6 of a cut, Weka's ``setSplitPoint`` keeps the first in data order,
we the largest; Weka's ``Statistics.normalInverse(0.75)`` is taken as the constant it
prints.  Not reproduced: Weka's other options (``-U`` is ``prune=False``; no ``-B``,
``-R``, ``-S``, ``-A``).

Checked against Weka 3.6.14 itself (``tests/test_learners_j48.py``): 4725 of 4725 test
predictions of the oracle fixtures (12 sets × 3 splits, ``tests/weka/fixtures``), the
printed tree (``tests/oracles/j48_tree_text.py``: attributes, split points, leaf weights
and errors) identical on all 36 training sets, pruned and ``-U``, and Quinlan's weather
data with Weka's predictions for every combination of values and missing values.

The gain-ratio criterion and the split evaluation are the tree engine's
(``trees/criteria.py``: ``c45_info_gain``, ``c45_gain_ratio``; ``trees/splitter.py``:
``c45_*``); growing, pruning and prediction are J48's own (``_j48_kernels.py``).

Cost: per fit against Weka 3.6.14 itself in ``figures/perf-weka.md`` (``nox -s perf-weka``),
against scikit-learn's entropy tree in the ``perf`` row ``j48``; ``docs/performance.md``
says where a fit's time goes.  Models are fitted in parallel over numba's threads
(``prange``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import SimstudyError
from ..base import Learner, frozen
from ..registry import register_learner
from ._nominal import NUMERIC, Attribute, layout, to_codes


def _ranks(A: np.ndarray, numeric: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per numeric attribute: sorted distinct values (concatenated, ``uoff`` offsets) and the
    rank of every row's value (-1 missing or nominal)."""
    n, m = A.shape
    rank = np.full((m, n), -1, dtype=np.int64)  # attribute-major: the kernels scan one attribute
    parts = []
    uoff = np.zeros(m + 1, dtype=np.int64)
    for a in range(m):
        if numeric[a]:
            col = A[:, a]
            ok = ~np.isnan(col)
            u, inv = np.unique(col[ok], return_inverse=True)
            rank[a, ok] = inv
            parts.append(u)
            uoff[a + 1] = uoff[a] + u.size
        else:
            uoff[a + 1] = uoff[a]
    uvals = np.concatenate(parts) if parts else np.zeros(0)
    return rank, uvals, uoff


@register_learner("j48", description="Weka 3.6.14 J48 -C 0.25 -M 2 (Bouckaert & Frank 2004)")
class J48(Learner):
    """Weka 3.6 J48 ``-C 0.25 -M 2`` (see the module docstring for what is reproduced).

    Nominal attributes come from the data set's one-hot groups (:meth:`prepare` or the
    constructor); every other column is numeric.  ``prune=False`` is Weka's ``-U``: the
    tree is grown and collapsed but not pruned.
    """

    impl_id = 'simstudy.learners.weka.j48:J48'

    name = "j48"
    preprocess = "none"
    stack_trials = True

    def __init__(self, nominal_groups: Sequence[Sequence[int]] = (), prune: bool = True) -> None:
        if not isinstance(prune, bool):
            raise SimstudyError(f"j48: prune must be True or False, got {prune!r}")
        self.nominal_groups = tuple(tuple(int(j) for j in g) for g in nominal_groups)
        self.prune = prune
        if not prune:
            self.name = "j48[prune=False]"

    def prepare(self, data: Any) -> J48:
        groups = tuple(getattr(data, "nominal_groups", ()) or ())
        return J48(groups, self.prune)

    def attributes(self, n_columns: int) -> list[Attribute]:
        return layout(self.nominal_groups, n_columns)

    def _arrays(self, X: np.ndarray) -> tuple:
        attrs = self.attributes(X.shape[1])
        A = np.ascontiguousarray(to_codes(X, attrs), dtype=np.float64)
        numeric = np.array([a.kind == NUMERIC for a in attrs], dtype=bool)
        nval = np.array([a.n_values for a in attrs], dtype=np.int64)
        rank, uvals, uoff = _ranks(A, numeric)
        return A, nval, rank, uvals, uoff, numeric

    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        from ._j48_kernels import fit_predict_batch

        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        train = np.atleast_2d(np.asarray(train, dtype=bool))
        test = np.atleast_2d(np.asarray(test, dtype=bool))
        if X.ndim != 2 or y.shape != (X.shape[0],) or train.shape != test.shape or train.shape[1] != X.shape[0]:
            raise SimstudyError(
                f"j48: need X (n, d), y (n,), train/test (B, n); got X {X.shape!r}, y {y.shape!r}, "
                f"train {train.shape!r}, test {test.shape!r}"
            )
        if y.size and y.min() < 0:
            raise SimstudyError(f"j48: class codes must be >= 0, got {int(y.min())!r}")
        A, nval, rank, uvals, uoff, numeric = self._arrays(X)
        C = int(y.max()) + 1 if y.size else 1
        # one set of argument types (C order, fixed dtypes): one compiled specialisation
        return fit_predict_batch(A, nval, rank, uvals, uoff, numeric, frozen(y, np.int64), C,
                                 np.ascontiguousarray(train), np.ascontiguousarray(test), bool(self.prune))
