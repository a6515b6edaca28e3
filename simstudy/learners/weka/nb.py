"""``wnb``: Weka 3.6's ``NaiveBayes`` with its default options, batched and compiled."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from ...errors import SimstudyError
from ..base import Learner
from ._nominal import NOMINAL, layout, to_codes
from ._wmath import normal_probability

#: Weka's precision for a numeric attribute with fewer than two distinct training values
DEFAULT_PRECISION = 0.01


def check_inputs(X: Any, y: Any, train: Any, test: Any):
    """Contiguous float64 ``X``, int64 ``y``, bool ``(B, n)`` masks; SimstudyError if the
    shapes disagree."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.int64)
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


def sorted_rows(codes: np.ndarray, numeric: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per numeric attribute ``k`` (column ``numeric[k]`` of ``codes``): the rows with a value,
    in ascending order of value, and how many there are."""
    n = codes.shape[0]
    order = np.zeros((len(numeric), n), dtype=np.int64)
    count = np.zeros(len(numeric), dtype=np.int64)
    for k, a in enumerate(numeric):
        col = codes[:, a]
        ok = np.flatnonzero(~np.isnan(col))
        o = ok[np.argsort(col[ok], kind="stable")]
        order[k, : len(o)] = o
        count[k] = len(o)
    return order, count


@numba.njit(cache=True)
def _wnb_kernel(codes, is_nom, nvals, num_slot, order, count, y, C, train, test, out):  # pragma: no cover - compiled
    n, A = codes.shape
    B = train.shape[0]
    V = 1
    for a in range(A):
        if nvals[a] > V:
            V = nvals[a]
    tr = np.empty(n, dtype=np.int64)
    ncls = np.empty(C)
    prior = np.empty(C)
    cnt = np.empty((A, C, V))
    tot = np.empty((A, C))
    prec = np.empty(A)
    sw = np.empty((A, C))
    s1 = np.empty((A, C))
    s2 = np.empty((A, C))
    mean = np.empty((A, C))
    sd = np.empty((A, C))
    probs = np.empty(C)
    for b in range(B):
        ntr = 0
        for i in range(n):
            if train[b, i]:
                tr[ntr] = i
                ntr += 1
        ncls[:] = 0.0
        cnt[:] = 0.0
        tot[:] = 0.0
        sw[:] = 0.0
        s1[:] = 0.0
        s2[:] = 0.0
        mean[:] = 0.0
        # precision of each numeric attribute: mean gap between adjacent distinct training
        # values, the gaps summed in ascending order (NaiveBayes.buildClassifier)
        for a in range(A):
            prec[a] = 0.01
            k = num_slot[a]
            if k < 0:
                continue
            first = True
            last = 0.0
            delta = 0.0
            distinct = 0
            for m in range(count[k]):
                i = order[k, m]
                if not train[b, i]:
                    continue
                v = codes[i, a]
                if first:
                    last = v
                    first = False
                elif v != last:
                    delta += v - last
                    last = v
                    distinct += 1
            if distinct > 0:
                prec[a] = delta / distinct
        for a in range(A):
            for c in range(C):
                sd[a, c] = prec[a] / 6.0
        # counts and moments, one training instance at a time (updateClassifier)
        for m in range(ntr):
            i = tr[m]
            c = y[i]
            ncls[c] += 1.0
            for a in range(A):
                v = codes[i, a]
                if math.isnan(v):
                    continue
                if is_nom[a]:
                    cnt[a, c, int(v)] += 1.0
                    tot[a, c] += 1.0
                else:
                    p = prec[a]
                    r = np.rint(v / p) * p
                    sw[a, c] += 1.0
                    s1[a, c] += r
                    s2[a, c] += r * r
                    mu = s1[a, c] / sw[a, c]
                    mean[a, c] = mu
                    s = math.sqrt(abs(s2[a, c] - mu * s1[a, c]) / sw[a, c])
                    if s > 1e-10:
                        sd[a, c] = max(p / 6.0, s)
        total = 0.0
        for c in range(C):
            total += ncls[c]
        for c in range(C):
            prior[c] = (ncls[c] + 1.0) / (total + C)
        for i in range(n):
            if not test[b, i]:
                out[b, i] = -1
                continue
            for c in range(C):
                probs[c] = prior[c]
            for a in range(A):
                v = codes[i, a]
                if math.isnan(v):
                    continue
                mx = 0.0
                for c in range(C):
                    if is_nom[a]:
                        p = (cnt[a, c, int(v)] + 1.0) / (tot[a, c] + nvals[a])
                    else:
                        pa = prec[a]
                        r = np.rint(v / pa) * pa
                        lo = (r - mean[a, c] - pa / 2.0) / sd[a, c]
                        hi = (r - mean[a, c] + pa / 2.0) / sd[a, c]
                        p = normal_probability(hi) - normal_probability(lo)
                    probs[c] *= max(1e-75, p)
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
                if q > top:
                    top = q
                    best = c
            out[b, i] = best


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
      below 1e-75; normalised; the first class with the largest value wins.

    Missing values are skipped in training and prediction.  Nominal attributes come from
    the data set's one-hot groups (:meth:`prepare`); every other column is numeric.

    Batched and compiled: one pass per model over its own training rows (counts, moments),
    one over its test rows; a model's predictions depend on its own rows only.

    Known differences from Weka:

    * Summation order of the numeric moments.  Weka adds the instances in the order its
      precision pass left them (``Instances.sort`` by the last numeric attribute, an
      unstable quicksort); we add them in ascending row order.  The sums can differ in the
      last bit, which changes a prediction only if two classes' products agree to about
      1e-15 -- never in the fixtures (``tests/weka``).
    * ``exp`` inside Φ is the C library's, not Java's (both within 1 ulp); same caveat.
    * A fold without training instances predicts class 0 (Weka refuses to build).
    * Instance weights are all 1 (Weka accepts weighted instances).
    """

    name = "wnb"
    preprocess = "none"
    stack_trials = True  # per-model work on the model's own rows only

    def __init__(self, nominal_groups: Sequence[Sequence[int]] = ()) -> None:
        self.nominal_groups = tuple(tuple(int(j) for j in g) for g in nominal_groups)

    def prepare(self, data: Any) -> WekaNaiveBayes:
        return WekaNaiveBayes(tuple(getattr(data, "nominal_groups", ()) or ()))

    def fit_predict(self, X, y, train, test, seeds: Sequence[Any] = ()) -> np.ndarray:
        X, y, train, test = check_inputs(X, y, train, test)
        attrs = layout(self.nominal_groups, X.shape[1])
        codes = np.ascontiguousarray(to_codes(X, attrs))
        is_nom = np.array([a.kind == NOMINAL for a in attrs], dtype=np.bool_)
        nvals = np.array([a.n_values for a in attrs], dtype=np.int64)
        numeric = np.flatnonzero(~is_nom)
        num_slot = np.full(len(attrs), -1, dtype=np.int64)
        num_slot[numeric] = np.arange(len(numeric))
        order, count = sorted_rows(codes, numeric)
        C = int(y.max()) + 1 if y.size else 1
        out = np.empty(train.shape, dtype=np.int64)
        _wnb_kernel(codes, is_nom, nvals, num_slot, order, count, y, C, train, test, out)
        return out
