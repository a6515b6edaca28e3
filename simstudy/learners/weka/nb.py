"""``wnb``: Weka 3.6's ``NaiveBayes`` with its default options, batched and compiled."""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from ...errors import SimstudyError
from ..base import Learner, frozen
from ..registry import register_learner
from ._nominal import NOMINAL, Attribute, layout, to_codes
from ._wmath import normal_probability

#: Weka's precision for a numeric attribute with fewer than two distinct training values
DEFAULT_PRECISION = 0.01


def check_inputs(X: Any, y: Any, train: Any, test: Any):
    """Contiguous float64 ``X``, int64 ``y``, bool ``(B, n)`` masks; SimstudyError if the
    shapes disagree."""
    X = frozen(X, np.float64)
    y = frozen(y, np.int64)
    train = np.ascontiguousarray(train, dtype=bool)
    test = np.ascontiguousarray(test, dtype=bool)
    if X.ndim != 2 or y.shape != (X.shape[0],):
        raise SimstudyError(f"X must be (n, d) and y (n,); got X {X.shape!r}, y {y.shape!r}")
    if train.ndim != 2 or train.shape != test.shape or train.shape[1] != X.shape[0]:
        raise SimstudyError(
            f"masks must be (B, n) with n = {X.shape[0]}; got train {train.shape!r}, "
            f"test {test.shape!r}"
        )
    if y.size and (y.min() < 0):
        raise SimstudyError(f"class codes must be 0..C-1, got {int(y.min())!r}")
    return X, y, train, test


@functools.lru_cache(maxsize=64)
def _layout_cached(groups: tuple[tuple[int, ...], ...], d: int) -> tuple[Attribute, ...]:
    return tuple(layout(groups, d))


@numba.njit(cache=True)
def _cswap(vals, idx, i, j):  # pragma: no cover - compiled
    """Utils.conditionalSwap: order idx[i], idx[j] by value (a strict > swaps)."""
    if vals[idx[i]] > vals[idx[j]]:
        t = idx[i]
        idx[i] = idx[j]
        idx[j] = t


@numba.njit(cache=True)
def weka_sort(vals, idx, stack):  # pragma: no cover - compiled
    """``weka.core.Utils.sortWithNoMissingValues`` (Weka 3.6.14): ``idx`` receives the
    order of ``vals`` that Weka's quicksort produces -- median of three, Weka's partition,
    small ranges by conditional swaps.  It is not stable, so equal values come out in
    Weka's order, which fixes the order NaiveBayes adds its instances in.  Weka recurses;
    here a stack of (left, right) ranges (disjoint, so the order of work does not matter).
    ``stack`` needs ``2 * len(vals) + 2`` slots."""
    n = vals.shape[0]
    for i in range(n):
        idx[i] = i
    if n <= 1:
        return
    stack[0] = 0
    stack[1] = n - 1
    top = 2
    while top > 0:
        right = stack[top - 1]
        left = stack[top - 2]
        top -= 2
        diff = right - left
        if diff <= 0:
            continue
        if diff == 1:
            _cswap(vals, idx, left, right)
            continue
        if diff == 2:
            _cswap(vals, idx, left, left + 1)
            _cswap(vals, idx, left, right)
            _cswap(vals, idx, left + 1, right)
            continue
        c = (left + right) // 2  # sortLeftRightAndCenter
        _cswap(vals, idx, left, c)
        _cswap(vals, idx, left, right)
        _cswap(vals, idx, c, right)
        t = idx[c]
        idx[c] = idx[right - 1]
        idx[right - 1] = t
        pivot = vals[idx[right - 1]]
        lo = left
        hi = right - 1
        while True:  # partition
            lo += 1
            while vals[idx[lo]] < pivot:
                lo += 1
            hi -= 1
            while vals[idx[hi]] > pivot:
                hi -= 1
            if lo >= hi:
                break
            t = idx[lo]
            idx[lo] = idx[hi]
            idx[hi] = t
        t = idx[lo]
        idx[lo] = idx[right - 1]
        idx[right - 1] = t
        stack[top] = left
        stack[top + 1] = lo - 1
        stack[top + 2] = lo + 1
        stack[top + 3] = right
        top += 4


@numba.njit(cache=True)
def _wnb_kernel(codes, icodes, is_nom, nvals, slot, y, C, train, test, out, proba):  # pragma: no cover - compiled
    """One NaiveBayes per row of ``train``; predictions (and, when ``proba`` has B rows, the
    normalised class probabilities) for the rows of ``test``.

    ``icodes[:, slot[a]]`` holds nominal attribute ``a``'s value codes (-1 = missing),
    ``codes[:, a]`` the numeric values (nan = missing).
    """
    n, A = codes.shape
    B = train.shape[0]
    An = icodes.shape[1]
    Am = A - An
    keep = proba.shape[0] > 0
    V = 1
    for a in range(A):
        if nvals[a] > V:
            V = nvals[a]
    nom = np.empty(An, dtype=np.int64)  # attribute index of each nominal slot
    num = np.empty(Am, dtype=np.int64)
    for a in range(A):
        if is_nom[a]:
            nom[slot[a]] = a
        else:
            num[slot[a]] = a
    tr = np.empty(n, dtype=np.int64)
    ncls = np.empty(C)
    prior = np.empty(C)
    cnt = np.empty((An, C, V))
    ptab = np.empty((An, C, V))
    prec = np.empty(Am)
    sw = np.empty((Am, C))
    s1 = np.empty((Am, C))
    s2 = np.empty((Am, C))
    mean = np.empty((Am, C))
    sd = np.empty((Am, C))
    probs = np.empty(C)
    perm = np.empty(n, dtype=np.int64)  # Weka's current instance order (m_Instances)
    perm2 = np.empty(n, dtype=np.int64)
    vals = np.empty(n)
    idx = np.empty(n, dtype=np.int64)
    stack = np.empty(2 * n + 4, dtype=np.int64)
    for b in range(B):
        ntr = 0
        for i in range(n):
            if train[b, i]:
                tr[ntr] = i
                ntr += 1
        ncls[:] = 0.0
        cnt[:] = 0.0
        # counts, one training instance at a time (integers: exact in any order)
        for m in range(ntr):
            i = tr[m]
            c = y[i]
            ncls[c] += 1.0
            for k in range(An):
                v = icodes[i, k]
                if v >= 0:
                    cnt[k, c, v] += 1.0
        total = 0.0
        for c in range(C):
            total += ncls[c]
        for c in range(C):
            prior[c] = (ncls[c] + 1.0) / (total + C)
        # DiscreteEstimator (Laplace): (count + 1) / (non-missing count + |values|)
        for k in range(An):
            nv = nvals[nom[k]]
            for c in range(C):
                t = 0.0
                for v in range(nv):
                    t += cnt[k, c, v]
                for v in range(nv):
                    ptab[k, c, v] = max(1e-75, (cnt[k, c, v] + 1.0) / (t + nv))
        # precision of each numeric attribute (NaiveBayes.buildClassifier): m_Instances is
        # sorted by the attribute (Weka's unstable quicksort, missing values last as
        # Double.MAX_VALUE), then the gaps between adjacent distinct values are summed in
        # that order; the mean gap is the precision (0.01 with fewer than two values).  The
        # sorts also leave the instance order the estimators are fed in below.
        for m in range(ntr):
            perm[m] = tr[m]
        for k in range(Am):
            a = num[k]
            for m in range(ntr):
                v = codes[perm[m], a]
                vals[m] = 1.7976931348623157e308 if math.isnan(v) else v
            weka_sort(vals[:ntr], idx, stack)
            for m in range(ntr):
                perm2[m] = perm[idx[m]]
            for m in range(ntr):
                perm[m] = perm2[m]
            p = DEFAULT_PRECISION
            if ntr > 0 and not math.isnan(codes[perm[0], a]):
                last = codes[perm[0], a]
                delta = 0.0
                distinct = 0
                for m in range(1, ntr):
                    v = codes[perm[m], a]
                    if math.isnan(v):
                        break
                    if v != last:
                        delta += v - last
                        last = v
                        distinct += 1
                if distinct > 0:
                    p = delta / distinct
            prec[k] = p
        # NormalEstimator.addValue, one training instance at a time in Weka's order.  Weka
        # recomputes the sd after every value but keeps it only while it exceeds 1e-10; the
        # final sums decide it unless the last value leaves it at or below 1e-10, and only
        # then is the class's sequence replayed to find the last sd that was kept
        for k in range(Am):
            a = num[k]
            p = prec[k]
            for c in range(C):
                sw[k, c] = 0.0
                s1[k, c] = 0.0
                s2[k, c] = 0.0
            for m in range(ntr):
                i = perm[m]
                v = codes[i, a]
                if math.isnan(v):
                    continue
                c = y[i]
                r = np.rint(v / p) * p
                sw[k, c] += 1.0
                s1[k, c] += r
                s2[k, c] += r * r
            for c in range(C):
                sd[k, c] = p / 6.0
                mean[k, c] = 0.0
                if sw[k, c] == 0.0:
                    continue
                mu = s1[k, c] / sw[k, c]
                mean[k, c] = mu
                s = math.sqrt(abs(s2[k, c] - mu * s1[k, c]) / sw[k, c])
                if s > 1e-10:
                    sd[k, c] = max(p / 6.0, s)
                    continue
                w = 0.0
                t1 = 0.0
                t2 = 0.0
                for m in range(ntr):  # replay: the last sd above 1e-10, if any
                    i = perm[m]
                    v = codes[i, a]
                    if y[i] != c or math.isnan(v):
                        continue
                    r = np.rint(v / p) * p
                    w += 1.0
                    t1 += r
                    t2 += r * r
                    mu = t1 / w
                    s = math.sqrt(abs(t2 - mu * t1) / w)
                    if s > 1e-10:
                        sd[k, c] = max(p / 6.0, s)
        # all nominal and no product can come near 1e-75: Weka's underflow rescaling never
        # fires (every factor is <= 1, so each partial product is >= this bound), skip it
        safe = Am == 0
        if safe:
            bound = 1.0
            for c in range(C):
                bound = min(bound, prior[c])
            for k in range(An):
                lo_k = 1.0
                for c in range(C):
                    for v in range(nvals[nom[k]]):
                        lo_k = min(lo_k, ptab[k, c, v])
                bound *= lo_k
            safe = bound > 1e-70
        # distributionForInstance + classifyInstance
        for i in range(n):
            if not test[b, i]:
                out[b, i] = -1
                continue
            for c in range(C):
                probs[c] = prior[c]
            if safe:
                for k in range(An):
                    v = icodes[i, k]
                    if v >= 0:
                        for c in range(C):
                            probs[c] *= ptab[k, c, v]
            for a in range(A if not safe else 0):
                k = slot[a]
                if is_nom[a]:
                    v = icodes[i, k]
                    if v < 0:
                        continue
                    for c in range(C):
                        probs[c] *= ptab[k, c, v]
                else:
                    x = codes[i, a]
                    if math.isnan(x):
                        continue
                    p = prec[k]
                    r = np.rint(x / p) * p
                    for c in range(C):
                        lo = (r - mean[k, c] - p / 2.0) / sd[k, c]
                        hi = (r - mean[k, c] + p / 2.0) / sd[k, c]
                        probs[c] *= max(1e-75, normal_probability(hi) - normal_probability(lo))
                mx = 0.0
                for c in range(C):
                    if probs[c] > mx:
                        mx = probs[c]
                if mx > 0.0 and mx < 1e-75:  # Weka rescales against underflow
                    for c in range(C):
                        probs[c] *= 1e75
            s = 0.0
            for c in range(C):
                s += probs[c]
            best = 0
            top = 0.0
            for c in range(C):
                q = probs[c] / s
                if keep:
                    proba[b, i, c] = q
                if q > top:
                    top = q
                    best = c
            out[b, i] = best


@register_learner("wnb", description="Weka 3.6.14 NaiveBayes, defaults (Bouckaert & Frank 2004)")
class WekaNaiveBayes(Learner):
    """Weka 3.6.14 ``weka.classifiers.bayes.NaiveBayes`` with default options (no kernel
    estimator, no discretisation), as Bouckaert & Frank (2004) ran it.

    What it computes (read from Weka 3.6.14's byte code: ``NaiveBayes``, ``NormalEstimator``,
    ``DiscreteEstimator``, ``Statistics.normalProbability``, ``Classifier.classifyInstance``):

    * class prior ``(n_c + 1)/(n + K)``; nominal attribute ``(count + 1)/(n_c,a + |values|)``
      where ``n_c,a`` counts class-``c`` training instances whose value is not missing;
    * numeric attribute: precision ``p`` = mean gap between adjacent distinct training values
      (sum of the gaps in ascending order / (#distinct − 1); 0.01 with fewer than two
      distinct values); values rounded to ``rint(x/p)·p``; per class the mean and
      ``sqrt(|Σr² − mean·Σr| / w)`` accumulated one instance at a time, the sd replaced by
      ``max(p/6, ·)`` only after an instance leaves it above 1e-10 (so ``p/6`` when a class has
      no spread); probability = ``Φ((r − μ + p/2)/σ) − Φ((r − μ − p/2)/σ)`` with Weka's own
      Cephes-port ``Φ`` (:mod:`._wmath`);
    * prediction: the prior times each non-missing attribute's probability, each floored at
      1e-75, in attribute order; all classes × 1e75 whenever the largest product falls
      below 1e-75; normalised; the first class with the largest value wins;
    * order: Weka feeds the estimators in the order its precision pass leaves the instances
      (``Instances.sort`` by each numeric attribute in turn, an unstable quicksort);
      :func:`weka_sort` reproduces that quicksort, so the moments are summed in Weka's order
      and agree to the last bit.  (Summing in row order instead changed 166 of 4,878 test
      predictions on 300 random tables like those of ``tests/weka/fixtures_edge``, measured
      once against Weka: with large offsets or tiny spreads the variance is mostly rounding
      error, so the order of the sums decides it.)

    Missing values are skipped in training and prediction.  Nominal attributes come from
    the data set's one-hot groups (:meth:`prepare`); every other column is numeric.

    Batched and compiled: per model one pass over its own training rows (counts), one sort
    per numeric attribute, one pass per numeric attribute (moments), one over its test rows;
    a model's predictions depend on its own rows only.

    Checked against Weka 3.6.14: every test prediction of the committed fixtures (12 sets ×
    3 random 66/34 splits, 4,725 predictions, ``tests/weka``), of 40 small random edge-case
    tables (``tests/weka/fixtures_edge``), and, once, of all 27 sets of Bouckaert & Frank's
    Table 1 × 3 splits (12,033 of 12,033; ``make_fixtures.py SET`` redoes it); Weka's
    ``normalProbability`` bit for bit at 1,432 points.

    Known differences from Weka (none shows in any of those comparisons):

    * ``exp`` inside Φ is the C library's, not Java's; they agree at all 1,432 points of
      ``tests/weka/normal_probability.json``, and a 1-ulp difference elsewhere could only
      flip a near-exact tie.
    * A fold without training instances predicts class 0 (Weka refuses to build).
    * Instance weights are all 1 (Weka accepts weighted instances).
    * Not the learner but the data: ``|values|`` is the size of the attribute's one-hot
      group, i.e. the values our data set declares.  A bundled CSV declares the values that
      occur; Weka's own ARFF copy of a UCI set may declare more (values that never occur),
      and then Weka's Laplace denominators are larger.  The fixtures write our domains into
      the ARFF, so they cannot show this.
    """

    name = "wnb"
    preprocess = "none"
    stack_trials = True  # per-model work on the model's own rows only

    def __init__(self, nominal_groups: Sequence[Sequence[int]] = (), n_classes: int = 0) -> None:
        self.nominal_groups = tuple(tuple(int(j) for j in g) for g in nominal_groups)
        # Weka's K in the prior (n_c + 1)/(n + K) is the class attribute's number of values,
        # which can exceed the classes present in y (a generated sample may miss one)
        self.n_classes = int(n_classes)

    def prepare(self, data: Any) -> WekaNaiveBayes:
        return WekaNaiveBayes(tuple(getattr(data, "nominal_groups", ()) or ()),
                              len(getattr(data, "classes", ())))

    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        return self._run(X, y, train, test, False)[0]

    def predict_proba(self, X: Any, y: Any, train: Any, test: Any) -> np.ndarray:
        """``(B, n, C)`` class probabilities of every model (Weka's normalised
        ``distributionForInstance``), ``nan`` outside the test rows."""
        return self._run(X, y, train, test, True)[1]

    def _run(self, X, y, train, test, keep: bool) -> tuple[np.ndarray, np.ndarray]:
        X, y, train, test = check_inputs(X, y, train, test)
        attrs = _layout_cached(self.nominal_groups, X.shape[1])
        codes = np.ascontiguousarray(to_codes(X, attrs))
        is_nom = np.array([a.kind == NOMINAL for a in attrs], dtype=np.bool_)
        nvals = np.array([a.n_values for a in attrs], dtype=np.int64)
        nominal, numeric = np.flatnonzero(is_nom), np.flatnonzero(~is_nom)
        slot = np.zeros(len(attrs), dtype=np.int64)
        slot[nominal] = np.arange(len(nominal))
        slot[numeric] = np.arange(len(numeric))
        icodes = np.ascontiguousarray(np.nan_to_num(codes[:, nominal], nan=-1.0).astype(np.int64))
        C = max(int(y.max()) + 1 if y.size else 1, self.n_classes)
        out = np.empty(train.shape, dtype=np.int64)
        proba = np.full((*train.shape, C) if keep else (0, 0, 0), np.nan)
        _wnb_kernel(codes, icodes, is_nom, nvals, slot, y, C, train, test, out, proba)
        return out, proba
