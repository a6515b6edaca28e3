"""``gbm``: R's gbm (Ridgeway) with its old defaults, bernoulli deviance, batched and compiled.

A hypothesis about Wang, Li & Li (2016)'s "AdaBoost" (a paper-variant hypothesis): R's ``gbm`` up to 2.1
defaulted to ``n.trees = 100, shrinkage = 0.001, interaction.depth = 1, bag.fraction = 0.5,
n.minobsinnode = 10``; with that shrinkage the model barely leaves the prior log-odds, so it
behaves almost like a training-fold majority-class learner.  The canonical name shows every
option (gbm's defaults changed between versions, so the id must say which ones we mean)::

    gbm[bag_fraction=0.5,interaction_depth=1,n_minobsinnode=10,n_trees=100,shrinkage=0.001]

Algorithm (Friedman 2001, *Greedy function approximation*, Ann. Statist. 29, Algorithm 5
"LK_TreeBoost" with J = 2 terminal nodes; Friedman 2002, *Stochastic gradient boosting*,
CSDA 38, the subsample per tree), in the details of R gbm's C++ sources (gbm-developers/gbm:
``bernoulli.cpp``, ``gbm_engine.cpp`` ``CGBM::iterate``, ``tree.cpp``, ``node_search.cpp``,
``node_nonterminal.cpp``; read to get the details right, not copied).  For one model on its
training rows (``y`` in {0, 1}, all weights 1):

1. ``F0 = log(Σy / (n − Σy))`` (``CBernoulli::InitF`` without offset).
2. For each of ``n_trees`` trees:

   a. the bag: exactly ``⌊bag_fraction·n⌋`` rows, drawn by gbm's sequential selection
      (row ``i`` joins iff ``u_i·(n − i) < still needed``, one uniform ``u_i`` per row);
   b. working response ``z = y − 1/(1 + exp(−F))`` on every training row;
   c. one split (interaction.depth 1) on the bag: every attribute in order, its values in
      ascending order, missing values first (R's ``order(na.last = FALSE)``); a candidate
      between two distinct consecutive values, at their midpoint, where left and right each
      hold ≥ ``n_minobsinnode`` bagged rows; improvement ``wL·wR·(z̄L − z̄R)²/(wL + wR)``
      (with bagged missing rows the three-way form of ``CNode::Improvement``); the first
      strictly largest improvement wins, none > 0 means no split;
   d. three terminal nodes, ``x < split`` left, ``x ≥ split`` right, missing in a third node;
      each node's value is one Newton step on the bagged rows in it,
      ``Σz / Σ(y − z)(1 − y + z)`` (0 where the denominator is 0: ``FitBestConstant``);
      a missing node with fewer than ``n_minobsinnode`` bagged rows takes the
      bagged-weight average of the left and right values (``CNodeNonterminal::Adjust``);
   e. ``F += shrinkage · tree(x)`` on every training row (bagged or not), and likewise
      on the test rows.

3. Class 1 iff ``F > 0`` (``predict(type = "response") > 0.5``; class 0 at exactly 0.5).

Known differences from R gbm:

* Randomness: R draws the bag with its own ``unif_rand``; ours come from
  ``np.random.default_rng(seeds[b]).random((n_trees, n))`` (tree t's uniforms are row t),
  fed to gbm's selection rule.  Same algorithm, same distribution, not the same bags.
* Only ``interaction_depth = 1`` (stumps, the old default) is implemented; gbm's deeper
  trees split the best terminal node repeatedly, which this kernel does not do.
* Only two classes (bernoulli); a data set with more raises :class:`SimstudyError`.
* gbm's input check is kept: it stops when ``n·bag_fraction ≤ 2·n_minobsinnode + 1``;
  so do we (SimstudyError naming the training size).
* A training fold of one class gives ``F0 = ±inf`` in gbm as here; every later step then
  adds 0 and the prediction is that class.
* Nominal attributes arrive one-hot (``Dataset``), so they are split as 0/1 numbers, not by
  gbm's categorical split on group means.

Where it coincides with scikit-learn: ``GradientBoostingClassifier(learning_rate=shrinkage,
n_estimators=n_trees, max_depth=1, min_samples_leaf=n_minobsinnode, subsample=bag_fraction)``
runs the same algorithm (log-odds start, least-squares stump on the negative gradient over
the bagged rows, one Newton step per leaf on the bagged rows, shrunken update of all rows);
with the same bags, on data without missing values and with features exactly representable
in float32 (scikit-learn's trees split float32 copies), its decision function equals ours to
rounding (tested, with scikit-learn's bags replaced by ours).

Cost: one compiled call per batch, models one after another (no threads: the runner's
workers are the parallelism); per model, attributes are sorted once and each tree is a
linear scan of the bagged rows per attribute.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numba import njit

from ..errors import SimstudyError
from ..spec import format_spec
from .base import Learner
from .registry import register_learner

#: R gbm <= 2.1 defaults (``gbm.fit``'s still are), under our option names
DEFAULTS: dict[str, Any] = {"n_trees": 100, "shrinkage": 0.001, "interaction_depth": 1,
                            "bag_fraction": 0.5, "n_minobsinnode": 10}


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return repr(int(v)) if v.is_integer() else repr(v)
    return str(v)


@njit(cache=True, error_model="numpy")
def _node_order(Xm):  # pragma: no cover - compiled
    """Per attribute, the row order gbm scans: missing rows first (in row order), then the
    others by ascending value, ties in row order (R's ``order(na.last = FALSE)``)."""
    n, d = Xm.shape
    order = np.empty((d, n), np.int64)
    for k in range(d):
        col = Xm[:, k]
        m = 0
        for i in range(n):
            if np.isnan(col[i]):
                order[k, m] = i
                m += 1
        vals = np.empty(n - m)
        idx = np.empty(n - m, np.int64)
        q = 0
        for i in range(n):
            if not np.isnan(col[i]):
                vals[q] = col[i]
                idx[q] = i
                q += 1
        srt = np.argsort(vals, kind="mergesort")  # stable: ties keep row order
        for q in range(n - m):
            order[k, m + q] = idx[srt[q]]
    return order


@njit(cache=True, error_model="numpy")
def _improvement(wl, wr, wm, sl, sr, sm):  # pragma: no cover - compiled
    """gbm's ``CNode::Improvement`` (two-way, or three-way with a missing node)."""
    if wm == 0.0:
        t = sl / wl - sr / wr
        return wl * wr * t * t / (wl + wr)
    t = sl / wl - sr / wr
    r = wl * wr * t * t
    t = sl / wl - sm / wm
    r += wl * wm * t * t
    t = sr / wr - sm / wm
    r += wr * wm * t * t
    return r / (wl + wr + wm)


@njit(cache=True, error_model="numpy")
def _gbm_one(Xm, yf, Xt, U, n_trees, shrinkage, minobs, n_bag, Ft):  # pragma: no cover
    """Fit one model on ``Xm`` (n, d), ``yf`` (n,) in {0., 1.}; add its raw score on the
    test rows ``Xt`` to ``Ft`` (which the caller zeroes).  ``U`` (n_trees, n): the uniforms
    of the bag draws.  Returns F0 (also added to ``Ft``)."""
    n, d = Xm.shape
    s = 0.0
    for i in range(n):
        s += yf[i]
    F0 = np.log(s / (n - s))
    F = np.full(n, F0)
    for j in range(Xt.shape[0]):
        Ft[j] += F0
    order = _node_order(Xm)
    inbag = np.zeros(n, np.bool_)
    z = np.empty(n)
    node = np.empty(n, np.int64)  # 0 left (or root), 1 right, 2 missing
    num = np.empty(3)
    den = np.empty(3)
    val = np.empty(3)
    for t in range(n_trees):
        got = 0
        for i in range(n):  # gbm's sequential selection: exactly n_bag rows
            inbag[i] = U[t, i] * (n - i) < n_bag - got
            if inbag[i]:
                got += 1
        for i in range(n):
            z[i] = yf[i] - 1.0 / (1.0 + np.exp(-F[i]))
        S = 0.0
        W = 0.0
        for i in range(n):
            if inbag[i]:
                S += z[i]
                W += 1.0
        best = 0.0
        bvar = -1
        bsplit = 0.0
        bWL = 0.0
        bWR = 0.0
        bNM = 0
        for k in range(d):
            sl = 0.0
            wl = 0.0
            cl = 0
            sr = S
            wr = W
            cr = got
            sm = 0.0
            wm = 0.0
            cm = 0
            last = -np.inf
            found = False
            for o in range(n):
                i = order[k, o]
                if not inbag[i]:
                    continue
                x = Xm[i, k]
                zi = z[i]
                if np.isnan(x):
                    sm += zi
                    wm += 1.0
                    cm += 1
                    sr -= zi
                    wr -= 1.0
                    cr -= 1
                    continue
                # the split before this row (it is still on the right)
                if last != x and cl >= minobs and cr >= minobs:
                    imp = _improvement(wl, wr, wm, sl, sr, sm)
                    if imp > best:
                        best = imp
                        bvar = k
                        bsplit = 0.5 * (last + x)
                        bWL = wl
                        bWR = wr
                        found = True
                sl += zi
                wl += 1.0
                cl += 1
                sr -= zi
                wr -= 1.0
                cr -= 1
                last = x
            if found:
                bNM = cm  # bagged missing rows of the best attribute
        # terminal nodes and their Newton steps over the bagged rows
        for q in range(3):
            num[q] = 0.0
            den[q] = 0.0
        for i in range(n):
            if bvar < 0:
                node[i] = 0
            else:
                x = Xm[i, bvar]
                node[i] = 2 if np.isnan(x) else (0 if x < bsplit else 1)
            if inbag[i]:
                q = node[i]
                num[q] += z[i]
                den[q] += (yf[i] - z[i]) * (1.0 - yf[i] + z[i])
        for q in range(3):
            val[q] = 0.0 if den[q] == 0.0 else num[q] / den[q]
        if bvar >= 0 and bNM < minobs:  # Adjust: a thin missing node takes the average
            val[2] = (bWL * val[0] + bWR * val[1]) / (bWL + bWR)
        for i in range(n):
            F[i] += shrinkage * val[node[i]]
        for j in range(Xt.shape[0]):
            if bvar < 0:
                q = 0
            else:
                x = Xt[j, bvar]
                q = 2 if np.isnan(x) else (0 if x < bsplit else 1)
            Ft[j] += shrinkage * val[q]
    return F0


@njit(cache=True, error_model="numpy")
def _gbm_batch(X, y, tr_ptr, tr_idx, te_ptr, te_idx, U, u_ptr, n_trees, shrinkage, minobs,
               bag_fraction, Ft):  # pragma: no cover - compiled
    """All models of a batch, one after another; model b's raw test scores into
    ``Ft[te_ptr[b]:te_ptr[b+1]]``."""
    d = X.shape[1]
    for b in range(tr_ptr.shape[0] - 1):
        rows = tr_idx[tr_ptr[b]:tr_ptr[b + 1]]
        tes = te_idx[te_ptr[b]:te_ptr[b + 1]]
        n = rows.shape[0]
        Xm = np.empty((n, d))
        yf = np.empty(n)
        for i in range(n):
            yf[i] = float(y[rows[i]])
            for k in range(d):
                Xm[i, k] = X[rows[i], k]
        Xt = np.empty((tes.shape[0], d))
        for j in range(tes.shape[0]):
            for k in range(d):
                Xt[j, k] = X[tes[j], k]
        n_bag = int(bag_fraction * n)  # gbm: (unsigned long)(dBagFraction*cTrain)
        Ub = U[u_ptr[b]:u_ptr[b + 1]].reshape((n_trees, n))
        _gbm_one(Xm, yf, Xt, Ub, n_trees, shrinkage, minobs, n_bag,
                 Ft[te_ptr[b]:te_ptr[b + 1]])


def _check_int(key: str, v: object, low: int) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < low:
        raise SimstudyError(f"gbm: {key} must be an integer >= {low}, got {v!r}")
    return int(v)


def _check_float(key: str, v: object, lo: float, hi: float) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise SimstudyError(f"gbm: {key} must be a number in ({lo}, {hi}], got {v!r}")
    f = float(v)
    if not (lo < f <= hi):
        raise SimstudyError(f"gbm: {key} must be in ({lo}, {hi}], got {v!r}")
    return f


@register_learner("gbm", params=set(DEFAULTS), description="R gbm, bernoulli, old defaults: "
                  "100 stumps, shrinkage 0.001, bag 0.5 (hypothesis for the AB of Wang et al. 2016)")
class GBM(Learner):
    """R gbm's bernoulli boosting with its old defaults (see the module docstring).

    Parameters (R's names with ``_``): ``n_trees`` (100), ``shrinkage`` (0.001),
    ``interaction_depth`` (1; the only one implemented), ``bag_fraction`` (0.5),
    ``n_minobsinnode`` (10).
    """

    impl_id = 'simstudy.learners.gbm:GBM'

    preprocess = "impute"  # the reference path: scikit-learn's trees need no scaling
    stack_trials = True  # each model works from its own rows only

    def __init__(self, **opts: object) -> None:
        bad = set(opts) - set(DEFAULTS)
        if bad:
            raise SimstudyError(f"gbm: unknown option {sorted(bad)[0]!r}; valid options: "
                                f"{', '.join(sorted(DEFAULTS))}")
        o = {**DEFAULTS, **opts}
        self.n_trees = _check_int("n_trees", o["n_trees"], 1)
        self.shrinkage = _check_float("shrinkage", o["shrinkage"], 0.0, np.inf)
        self.interaction_depth = _check_int("interaction_depth", o["interaction_depth"], 1)
        if self.interaction_depth != 1:
            raise SimstudyError(f"gbm: only interaction_depth=1 (stumps) is implemented, got "
                                f"{o['interaction_depth']!r}")
        self.bag_fraction = _check_float("bag_fraction", o["bag_fraction"], 0.0, 1.0)
        self.n_minobsinnode = _check_int("n_minobsinnode", o["n_minobsinnode"], 1)
        self.name = format_spec("gbm", {k: _fmt(getattr(self, k)) for k in DEFAULTS})
        self.init_: np.ndarray | None = None  # F0 per model of the last batch (diagnostic)

    def reference_estimator(self) -> Any:
        """scikit-learn's same algorithm (see the module docstring; its own bags)."""
        from sklearn.ensemble import GradientBoostingClassifier

        return GradientBoostingClassifier(
            learning_rate=self.shrinkage, n_estimators=self.n_trees, max_depth=1,
            min_samples_leaf=self.n_minobsinnode, subsample=self.bag_fraction)

    def bag_uniforms(self, seed: Any, n: int) -> np.ndarray:
        """The (n_trees, n) uniforms of one model's bag draws, from its seed only."""
        return np.random.default_rng(seed).random((self.n_trees, n))

    def decision_function(self, X: np.ndarray, y: np.ndarray, train: np.ndarray,
                          test: np.ndarray, seeds: Sequence[Any]) -> np.ndarray:
        """Raw scores ``F`` (B, n) on the test rows (``nan`` elsewhere)."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.int64)
        train = np.asarray(train, dtype=bool)
        test = np.asarray(test, dtype=bool)
        if train.shape != test.shape or train.ndim != 2 or train.shape[1] != X.shape[0]:
            raise SimstudyError(f"train/test masks must both be (B, n={X.shape[0]}), "
                                f"got {train.shape!r} and {test.shape!r}")
        B, n = train.shape
        if len(seeds) != B:
            raise SimstudyError(f"need one seed per model: {B} masks, {len(seeds)} seeds")
        if y.size and (y.min() < 0 or y.max() > 1):
            raise SimstudyError(f"gbm (bernoulli) needs two classes coded 0/1, got class "
                                f"codes {sorted(set(np.unique(y).tolist()))!r}")
        sizes = train.sum(axis=1)
        small = sizes * self.bag_fraction <= 2 * self.n_minobsinnode + 1
        if small.any():  # gbm.fit's own check
            raise SimstudyError(
                f"gbm: training set of {int(sizes[small][0])!r} rows too small for "
                f"bag_fraction={self.bag_fraction!r} and n_minobsinnode="
                f"{self.n_minobsinnode!r} (R gbm requires n*bag_fraction > "
                f"2*n_minobsinnode + 1)")
        tr_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        te_ptr = np.concatenate([[0], np.cumsum(test.sum(axis=1))]).astype(np.int64)
        tr_idx = np.nonzero(train)[1].astype(np.int64)  # row-major: model b's rows in order
        te_idx = np.nonzero(test)[1].astype(np.int64)
        u_ptr = tr_ptr * self.n_trees
        U = np.empty(int(u_ptr[-1]))
        for b in range(B):
            U[u_ptr[b]:u_ptr[b + 1]] = self.bag_uniforms(seeds[b], int(sizes[b])).ravel()
        Ft = np.zeros(int(te_ptr[-1]))
        with np.errstate(divide="ignore"):
            _gbm_batch(X, y, tr_ptr, tr_idx, te_ptr, te_idx, U, u_ptr, self.n_trees,
                       self.shrinkage, self.n_minobsinnode, self.bag_fraction, Ft)
        out = np.full((B, n), np.nan)
        out[test] = Ft  # row-major order, as te_idx
        return out

    def fit_predict(self, X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                    seeds: Sequence[Any]) -> np.ndarray:
        """Class 1 iff ``F > 0`` on the test rows; see :meth:`Learner.fit_predict`."""
        F = self.decision_function(X, y, train, test, seeds)
        pred = np.full(F.shape, -1, dtype=np.int64)
        t = np.asarray(test, dtype=bool)
        pred[t] = (F[t] > 0).astype(np.int64)
        return pred
