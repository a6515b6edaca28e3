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
from ._wmath import _SQRTH, _erf, _erfc

#: Weka's precision for a numeric attribute with fewer than two distinct training values
DEFAULT_PRECISION = 0.01
#: unit roundoff of float64
_U = 2.0 ** -53
#: safety factor on every error bound of the fast path (a larger bound only sends more
#: models the exact way; it never changes a prediction)
_SLACK = 1.01
#: relative error of Weka's Φ in its erfc branches (Cephes' erfc is within ~3e-15; the
#: rounding of -x² before exp adds up to x² u ≈ 2.4e-13 before underflow), and the absolute
#: error where it forms 0.5 + 0.5 erf or 1 - y
_PHI_REL = 1e-12
_PHI_ABS = 1e-15
#: the normal density's maximum, 1/sqrt(2 pi), rounded up
_PHI_MAX = 0.3989422804014328
#: twice the smallest subnormal: the most one product can gain by rounding in underflow
_TINY = 2.0 ** -1073


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
def _rank_numeric(codes, num):  # pragma: no cover - compiled
    """Per numeric slot ``k``: every row's rank among the attribute's distinct non-missing
    values (``rank[k, i]``, -1 missing) and those values ascending (``uvals[uoff[k]:uoff[k+1]]``).
    Distinct as Weka's ``!=`` says (so -0.0 and 0.0 are one value)."""
    n = codes.shape[0]
    Am = num.shape[0]
    rank = np.full((Am, n), -1, dtype=np.int64)
    uvals = np.empty(max(1, Am * n))
    uoff = np.zeros(Am + 1, dtype=np.int64)
    rows = np.empty(n, dtype=np.int64)
    vals = np.empty(n)
    u = 0
    for k in range(Am):
        m = 0
        for i in range(n):
            v = codes[i, num[k]]
            if not math.isnan(v):
                rows[m] = i
                vals[m] = v
                m += 1
        order = np.argsort(vals[:m])
        last = 0.0
        for j in range(m):
            v = vals[order[j]]
            if j == 0 or v != last:
                uvals[u] = v
                u += 1
                last = v
            rank[k, rows[order[j]]] = u - 1 - uoff[k]
        uoff[k + 1] = u
    return rank, uvals[:u], uoff


@numba.njit(cache=True)
def _exact_moments(codes, num, y, C, tr, ntr, prec, mean, sd, perm, perm2, vals, idx, stack):  # pragma: no cover - compiled
    """Weka's own way, for one model: ``m_Instances`` sorted by each numeric attribute in
    turn (Weka's unstable quicksort, missing values last as Double.MAX_VALUE), the precision
    summed from the gaps in that order, then ``NormalEstimator.addValue`` one training
    instance at a time in the order the sorts leave.  Weka recomputes the sd after every
    value but keeps it only while it exceeds 1e-10; the final sums decide it unless the
    last value leaves it at or below 1e-10, and only then is the class's sequence replayed
    to find the last sd that was kept."""
    Am = num.shape[0]
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
    sw = np.zeros(C)
    s1 = np.zeros(C)
    s2 = np.zeros(C)
    for k in range(Am):
        a = num[k]
        p = prec[k]
        sw[:] = 0.0
        s1[:] = 0.0
        s2[:] = 0.0
        for m in range(ntr):
            i = perm[m]
            v = codes[i, a]
            if math.isnan(v):
                continue
            c = y[i]
            r = np.rint(v / p) * p
            sw[c] += 1.0
            s1[c] += r
            s2[c] += r * r
        for c in range(C):
            sd[k, c] = p / 6.0
            mean[k, c] = 0.0
            if sw[c] == 0.0:
                continue
            mu = s1[c] / sw[c]
            mean[k, c] = mu
            s = math.sqrt(abs(s2[c] - mu * s1[c]) / sw[c])
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


@numba.njit(cache=True, fastmath={"reassoc"}, _nrt=False)
def _class_sums(codesT, a, rows, start, stop, p):  # pragma: no cover - compiled
    """Count, sum, sum of squares, sum of absolute values, least and largest of the rounded
    values ``rint(x/p)·p`` of ``codesT[a, rows[start:stop]]`` (missing skipped).
    Reassociation is allowed (vectorised): the fast path bounds any summation order."""
    w = 0.0
    s1 = 0.0
    s2 = 0.0
    a1 = 0.0
    lo = np.inf
    hi = -np.inf
    for m in range(start, stop):
        v = codesT[a, rows[m]]
        if v == v:
            r = np.rint(v / p) * p
            w += 1.0
            s1 += r
            s2 += r * r
            a1 += abs(r)
            lo = min(lo, r)
            hi = max(hi, r)
    return w, s1, s2, a1, lo, hi


@numba.njit(cache=True)
def _fast_moments(codesT, num, byc, coff, uvals, uoff, htot, small, hcls, C, prec, mean, sd, emu, esd,
                  w, s1, s2, a1, nt, rlo, rhi):  # pragma: no cover - compiled
    """Precision, mean and sd of every numeric attribute without Weka's sorts, with bounds
    ``emu``/``esd`` on how far Weka's mean and sd (summed in its own instance order) can be
    from these; False if an sd cannot be bounded away from Weka's 1e-10 rule (the caller
    then fits the model Weka's way).

    The precision needs only the distinct training values in ascending order, which the
    per-value counts ``htot`` give: it is Weka's, to the bit.  A class whose values all
    round to one ``r`` has the same sums in any order: computed as Weka does (its replay
    included), bound 0.  Otherwise the sums run in any order: over the training rows
    ``byc[coff[c]:coff[c+1]]`` of each class (:func:`_class_sums`), or, for an attribute
    with few distinct values (``small``), over its values with the model's per-value class
    counts ``hcls`` (a product and a sum per value); recursive summation of ``w``
    terms in any order is within ``(w - 1) u sum|x|`` of the exact sum (``u = 2**-53``), so
    Weka's and these are within ``2 (w - 1) u sum|x|`` of each other, and the bounds follow
    Weka's operations through the mean, the variance and the square root, each with its
    own rounding."""
    Am = num.shape[0]
    u = _U
    for k in range(Am):
        a = num[k]
        p = DEFAULT_PRECISION
        first = True
        last = 0.0
        delta = 0.0
        distinct = 0
        for g in range(uoff[k], uoff[k + 1]):  # NaiveBayes.buildClassifier's precision
            if htot[g] == 0:
                continue
            v = uvals[g]
            if first:
                last = v
                first = False
            else:
                delta += v - last
                last = v
                distinct += 1
        if distinct > 0:
            p = delta / distinct
        prec[k] = p
        if small[k]:  # few distinct values: from the model's per-value class counts
            for c in range(C):
                w[c] = 0.0
                s1[c] = 0.0
                s2[c] = 0.0
                a1[c] = 0.0
                nt[c] = 0.0
                rlo[c] = np.inf
                rhi[c] = -np.inf
            for g in range(uoff[k], uoff[k + 1]):
                if htot[g] == 0:
                    continue
                r = np.rint(uvals[g] / p) * p
                rr = r * r
                for c in range(C):
                    h = hcls[g, c]
                    if h == 0:
                        continue
                    fh = float(h)
                    w[c] += fh
                    s1[c] += fh * r
                    s2[c] += fh * rr
                    a1[c] += fh * abs(r)
                    nt[c] += 1.0
                    rlo[c] = min(rlo[c], r)
                    rhi[c] = max(rhi[c], r)
        else:
            for c in range(C):
                w[c], s1[c], s2[c], a1[c], rlo[c], rhi[c] = _class_sums(codesT, a, byc, coff[c], coff[c + 1], p)
                nt[c] = 0.0
        for c in range(C):
            sd[k, c] = p / 6.0
            mean[k, c] = 0.0
            emu[k, c] = 0.0
            esd[k, c] = 0.0
            wc = w[c]
            if wc == 0.0:
                continue
            if rlo[c] == rhi[c]:  # one value: Weka's sequence, exactly
                r = rlo[c]
                t1 = 0.0
                t2 = 0.0
                cnt = 0.0
                mu = 0.0
                while cnt < wc:
                    cnt += 1.0
                    t1 += r
                    t2 += r * r
                    mu = t1 / cnt
                    s = math.sqrt(abs(t2 - mu * t1) / cnt)
                    if s > 1e-10:
                        sd[k, c] = max(p / 6.0, s)
                mean[k, c] = mu
                continue
            mu = s1[c] / wc
            t = mu * s1[c]
            D = s2[c] - t
            v = abs(D) / wc
            s = math.sqrt(v)
            # Weka's w - 1 additions; these: as many, or one product and one addition per
            # distinct value
            gam = (2.0 * wc + 2.0 * nt[c] + 4.0) * u * _SLACK
            e1 = gam * a1[c]
            e2 = gam * s2[c]
            em = e1 / wc * (1.0 + 2.0 * u) + 2.0 * u * _SLACK * abs(mu)
            et = (abs(mu) + em) * e1 + abs(s1[c]) * em + 2.0 * u * _SLACK * abs(t)
            ed = (e2 + et) * (1.0 + 2.0 * u) + 2.0 * u * _SLACK * abs(D)
            ev = ed / wc * (1.0 + 2.0 * u) + 2.0 * u * _SLACK * v
            if v - ev <= 0.0:
                return False
            es = ev / (math.sqrt(v - ev) + s) * _SLACK + 2.0 * u * _SLACK * s
            if s - es <= 1e-10 * _SLACK:
                return False  # Weka's last sd might be <= 1e-10 (or replayed): Weka's way
            mean[k, c] = mu
            emu[k, c] = em
            sd[k, c] = max(p / 6.0, s)
            # max(p/6, .) is 1-Lipschitz; when p/6 exceeds every possible s, both sides
            # take p/6 itself
            esd[k, c] = 0.0 if p / 6.0 > s + es else es
    return True


@numba.njit(cache=True, inline="always")
def _phi_y(a):  # pragma: no cover - compiled
    """Weka's Φ(a), the operations of :func:`~._wmath.normal_probability` (the same double),
    and the ``y`` it returns ``1 - y`` of (right of ``a = 1``; else -1)."""
    x = a * _SQRTH
    z = abs(x)
    if z < _SQRTH:
        return 0.5 + 0.5 * _erf(x), -1.0
    y = 0.5 * _erfc(z)
    if x > 0.0:
        return 1.0 - y, y
    return y, -1.0


@numba.njit(cache=True, inline="always")
def _phi_shift(z, P, y, dz):  # pragma: no cover - compiled
    """A bound on ``|Φ(z') - Φ(z)|`` as Weka computes Φ (``P``, ``y``: :func:`_phi_y` at
    ``z``), for any ``z'`` within ``dz`` of ``z``; 0 when the two are certainly the same double.

    The tail mass ``T`` (Φ for ``z < 0``, else 1 - Φ) is within ``_PHI_REL`` relative (erfc
    branches) plus ``_PHI_ABS`` absolute (where Weka forms 0.5 + 0.5 erf or 1 - y) of the
    computed one.  The density is largest at the end nearest 0, ``a = |z| - dz``; for
    ``a > 1`` the Mills-ratio bound ``phi(a) <= T(a) (1 + a²) / a`` gives it, and
    ``T(a) <= T(|z|) / (1 - dz (1 + a²) / a)`` from the same bound.  Right of ``z = 1``
    Weka returns ``1 - y`` with ``y = erfc(z/√2)/2``: rounding ``1 - y`` is monotone in ``y``,
    so when both ends of ``y``'s possible range round to the same double, so does ``y``."""
    tail = (P if z < 0.0 else 1.0 - P) * (1.0 + 2.0 * _PHI_REL)
    near = z + dz > -1.5  # the erf branch or 1 - y possible
    if near:
        tail += _PHI_ABS
    a = abs(z) - dz
    slope = _PHI_MAX
    ta = tail + _PHI_MAX * dz
    if a > 1.0:
        q = dz * (1.0 + a * a) / a
        if q < 0.5:
            ta = tail / (1.0 - q)
            slope = min(_PHI_MAX, ta * (1.0 + a * a) / a * _SLACK)
    err = 2.0 * _PHI_REL * ta + 1e-300
    if y >= 0.0 and z - dz > 1.001:  # 1 - y on either side
        dy = (slope * dz + 2.0 * _PHI_REL * y) * _SLACK + 1e-300
        if 1.0 - (y + dy) == 1.0 - max(0.0, y - dy):
            return 0.0
    if near:
        err += _PHI_ABS
    return (slope * dz + 2.0 * err) * _SLACK


@numba.njit(cache=True, _nrt=False)
def _factors(x, k, C, prec, mean, sd, emu, esd, certify, gout, rout, gq):  # pragma: no cover - compiled
    """NormalEstimator.getProbability of value ``x`` under every class (floored at 1e-75,
    as NaiveBayes does) into ``gout[gq]``; with ``certify``, into ``rout[gq]`` a bound on the
    relative difference from Weka's own factor (0: the same double; ``inf``: no bound).

    Compiled without reference counting and called with the row index rather than row
    views: inlined, numba counted a reference to each array argument per call (atomic
    operations, a quarter of a fit)."""
    p = prec[k]
    r = np.rint(x / p) * p
    u = _U
    for c in range(C):
        m = mean[k, c]
        s = sd[k, c]
        d = r - m
        elo = d - p / 2.0
        ehi = d + p / 2.0
        zlo = elo / s
        zhi = ehi / s
        plo, ylo = _phi_y(zlo)
        phi, yhi = _phi_y(zhi)
        f = phi - plo
        g = max(1e-75, f)
        gout[gq, c] = g
        if not certify:
            continue
        em = emu[k, c]
        es = esd[k, c]
        if em == 0.0 and es == 0.0:
            rout[gq, c] = 0.0  # Weka's mean and sd to the bit: the same factor
            continue
        if s <= 2.0 * es:
            rout[gq, c] = np.inf
            continue
        # how far Weka's z can be from these: its mean within em, its sd within es, and
        # the roundings of r - mean, -+ p/2 and the division on either side
        smin = s - es
        dd = em * (1.0 + u) + 2.0 * u * abs(d)
        dlo = dd * (1.0 + u) + 2.0 * u * abs(elo)
        dhi = dd * (1.0 + u) + 2.0 * u * abs(ehi)
        zl = ((dlo / smin + abs(elo) * es / (s * smin)) * (1.0 + 2.0 * u) + 2.0 * u * abs(zlo)) * _SLACK
        zh = ((dhi / smin + abs(ehi) * es / (s * smin)) * (1.0 + 2.0 * u) + 2.0 * u * abs(zhi)) * _SLACK
        if zhi + zh < -38.0:
            rout[gq, c] = 0.0  # Φ is 0.0 exactly at both ends on either side
            continue
        shift = _phi_shift(zlo, plo, ylo, zl) + _phi_shift(zhi, phi, yhi, zh)
        if shift == 0.0:
            rout[gq, c] = 0.0  # both probabilities the same doubles: the same difference
            continue
        rout[gq, c] = (shift + 2.0 * u * abs(f) + 1e-300) * _SLACK / g


@numba.njit(cache=True)
def _predict(b, rows, nrows, token, certify, envelope, keep, codesT, icodes, is_nom, slot, rank, uoff, C,
             prior, ptab, pmin, prec, mean, sd, emu, esd, safe, stamp, gcache, rcache, gmin, probs, rsum,
             hi, lo, out, proba, redo, deep):  # pragma: no cover - compiled
    """NaiveBayes.distributionForInstance + classifyInstance for test rows ``rows[:nrows]``
    of model ``b`` into ``out[b]``.  The numeric factors of a distinct value are computed
    once per model (``stamp == token``).  Weka checks after every attribute whether the
    largest product fell below 1e-75; a running lower bound on it (each factor is at least
    its smallest over the classes, ``pmin``/``gmin``) skips the checks that cannot fire.

    With ``certify``: a row whose class is not certainly the one Weka's own sums give goes
    to ``redo``, one whose products come near the subnormal range (relative bounds fail
    there) to ``deep`` (returns both counts).  Certain when every factor is Weka's to the
    bit (then so is every operation after), or when each class's product, within the
    relative bounds of its factors (``rsum``, their sum; each below 1e-3) and one rounding
    per operation, cannot reach the winner's, and Weka rescales where this does.

    With ``envelope`` too (for the ``deep`` rows): ``hi``/``lo`` follow each class's product
    with its factors' bounds, a rounding per operation and an absolute 2**-1073 per
    operation (underflow), so Weka's product lies between them; certain when Weka rescales
    on the steps this does and the winner's ``lo`` exceeds every other class's ``hi``."""
    A = is_nom.shape[0]
    nredo = 0
    ndeep = 0
    rnd = 4.0 * (A + 2) * _U
    for j in range(nrows):
        i = rows[j]
        exact = True
        sure = True
        tiny = False
        bound = 0.0
        for c in range(C):
            probs[c] = prior[c]
            rsum[c] = 0.0
            hi[c] = prior[c]
            lo[c] = prior[c]
            bound = max(bound, prior[c])
        if safe:
            for k in range(icodes.shape[1]):
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
                bound *= pmin[k, v]
                if envelope:
                    for c in range(C):
                        hi[c] = hi[c] * ptab[k, c, v] * (1.0 + 2.0 * _U) + _TINY
                        lo[c] = lo[c] * ptab[k, c, v] * (1.0 - 2.0 * _U) - _TINY
            else:
                q = rank[k, i]
                if q < 0:
                    continue
                gq = uoff[k] + q
                if stamp[gq] != token:
                    _factors(codesT[a, i], k, C, prec, mean, sd, emu, esd, certify, gcache, rcache, gq)
                    lo_g = 1.0
                    for c in range(C):
                        lo_g = min(lo_g, gcache[gq, c])
                    gmin[gq] = lo_g
                    stamp[gq] = token
                for c in range(C):
                    probs[c] *= gcache[gq, c]
                bound *= gmin[gq]
                if certify:
                    for c in range(C):
                        rho = rcache[gq, c]
                        if rho != 0.0:
                            exact = False
                            rsum[c] += rho
                        if envelope:
                            # Weka's factor is a difference of two probabilities floored at 1e-75
                            g = gcache[gq, c]
                            hi[c] = hi[c] * min(1.0, g * (1.0 + rho)) * (1.0 + 3.0 * _U) + _TINY
                            lo[c] = lo[c] * max(1e-75, g * (1.0 - rho)) * (1.0 - 3.0 * _U) - _TINY
            if bound >= 1e-60 and not envelope:
                continue  # the largest product is >= 1e-60 here, on Weka's side too
            mx = 0.0
            for c in range(C):
                if probs[c] > mx:
                    mx = probs[c]
            bound = mx
            if certify:
                rescale = mx > 0.0 and mx < 1e-75
                if envelope:
                    hmax = 0.0
                    lmax = 0.0
                    for c in range(C):
                        hmax = max(hmax, hi[c])
                        lmax = max(lmax, lo[c])
                    weka_same = lmax > 0.0 and hmax < 1e-75 if rescale else lmax >= 1e-75
                else:
                    r = 0.0
                    for c in range(C):
                        r = max(r, rsum[c])
                        if rescale and probs[c] < 1e-280:
                            tiny = True
                    weka_same = r < 1e-3 and (mx * (1.0 + 2.0 * r + rnd) < 1e-75 if rescale
                                              else mx * (1.0 - 2.0 * r - rnd) >= 1e-75)
                if not weka_same:
                    sure = False  # Weka might rescale where this does not, or the other way
            if mx > 0.0 and mx < 1e-75:  # Weka rescales against underflow
                for c in range(C):
                    probs[c] *= 1e75
                    hi[c] *= 1e75 * (1.0 + _U)
                    lo[c] *= 1e75 * (1.0 - _U)
                bound = mx * 1e75
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
        if not certify or exact:
            continue
        if envelope:
            if sure:
                floor = lo[best] * (1.0 - 4.0 * _U)
                for c in range(C):
                    if c != best and not floor > hi[c] * (1.0 + 4.0 * _U) + 1e-300:
                        sure = False
                        break
        else:
            for c in range(C):
                if probs[c] < 1e-280:
                    tiny = True
            if tiny:
                deep[ndeep] = i
                ndeep += 1
                continue
            if sure:
                rb = rsum[best]
                floor = probs[best] * (1.0 - rb - rnd) if rb < 1e-3 else -1.0
                for c in range(C):
                    if c == best:
                        continue
                    rc = rsum[c]
                    if not (rc < 1e-3 and floor > probs[c] * (1.0 + rc * (1.0 + 2.0 * rc) + rnd)):
                        sure = False
                        break
        if not sure:
            redo[nredo] = i
            nredo += 1
    return nredo, ndeep


@numba.njit(cache=True)
def _wnb_kernel(codes, icodes, is_nom, nvals, slot, y, C, train, test, out, proba, weka_way):  # pragma: no cover - compiled
    """One NaiveBayes per row of ``train``; predictions (and, when ``proba`` has B rows, the
    normalised class probabilities) for the rows of ``test``.  Returns how many models were
    fitted Weka's way (all of them with ``weka_way``).

    ``icodes[:, slot[a]]`` holds nominal attribute ``a``'s value codes (-1 = missing),
    ``codes[:, a]`` the numeric values (nan = missing).

    Counts for all models at once: class, value and per-distinct-value counts of all rows
    once per call, a model's by subtracting the rows it does not train on (integers: exact).
    Numeric attributes the fast way (:func:`_fast_moments`, no sort), every prediction
    certified against Weka's own summation order (:func:`_predict`); a model with any
    uncertain prediction, or whose probabilities are asked for, is fitted Weka's way
    (:func:`_exact_moments`: its sorts and order) and those predictions recomputed.
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
    rank, uvals, uoff = _rank_numeric(codes, num)
    U = max(uvals.shape[0], 1)
    codesT = np.ascontiguousarray(codes.T)  # one attribute's values contiguous
    # every row's counts, once per call; a model's by subtracting the rows it does not
    # train on (or by counting its own when fewer)
    ncls_all = np.zeros(C, dtype=np.int64)
    cnt_all = np.zeros((An, C, V), dtype=np.int64)
    htot_all = np.zeros(U, dtype=np.int64)
    # per-value class counts, kept per model for attributes with few distinct values
    small = np.empty(Am, dtype=np.bool_)
    for k in range(Am):
        small[k] = (uoff[k + 1] - uoff[k]) * C <= n // 2
    hcls_all = np.zeros((U, C), dtype=np.int64)
    hcls = np.zeros((U, C), dtype=np.int64)
    for i in range(n):
        c = y[i]
        ncls_all[c] += 1
        for k in range(An):
            v = icodes[i, k]
            if v >= 0:
                cnt_all[k, c, v] += 1
        for k in range(Am):
            q = rank[k, i]
            if q >= 0:
                htot_all[uoff[k] + q] += 1
                hcls_all[uoff[k] + q, c] += 1
    ncls = np.empty(C, dtype=np.int64)
    cnt = np.empty((An, C, V), dtype=np.int64)
    htot = np.empty(U, dtype=np.int64)
    prior = np.empty(C)
    ptab = np.empty((An, C, V))
    prec = np.empty(Am)
    mean = np.empty((Am, C))
    sd = np.empty((Am, C))
    emu = np.zeros((Am, C))
    esd = np.zeros((Am, C))
    w = np.empty(C)
    s1 = np.empty(C)
    s2 = np.empty(C)
    a1 = np.empty(C)
    nt = np.empty(C)
    rlo = np.empty(C)
    rhi = np.empty(C)
    probs = np.empty(C)
    hi = np.empty(C)
    lo = np.empty(C)
    rsum = np.empty(C)
    pmin = np.empty((An, V))
    gmin = np.empty(U)
    deep = np.empty(n, dtype=np.int64)
    stamp = np.full(U, -1, dtype=np.int64)
    gcache = np.empty((U, C))
    rcache = np.empty((U, C))
    tr = np.empty(n, dtype=np.int64)
    te = np.empty(n, dtype=np.int64)
    byc = np.empty(n, dtype=np.int64)
    coff = np.empty(C + 1, dtype=np.int64)
    fill = np.empty(C, dtype=np.int64)
    redo = np.empty(n, dtype=np.int64)
    perm = np.empty(n, dtype=np.int64)
    perm2 = np.empty(n, dtype=np.int64)
    vals = np.empty(n)
    idx = np.empty(n, dtype=np.int64)
    stack = np.empty(2 * n + 4, dtype=np.int64)
    token = 0
    n_exact = 0
    for b in range(B):
        ntr = 0
        nte = 0
        for i in range(n):
            if train[b, i]:
                tr[ntr] = i
                ntr += 1
            if test[b, i]:
                te[nte] = i
                nte += 1
            else:
                out[b, i] = -1
        sub = 2 * ntr > n
        if sub:
            ncls[:] = ncls_all
            cnt[:] = cnt_all
            htot[:] = htot_all
        else:
            ncls[:] = 0
            cnt[:] = 0
            htot[:] = 0
        for k in range(Am):
            if small[k]:
                for g in range(uoff[k], uoff[k + 1]):
                    for c in range(C):
                        hcls[g, c] = hcls_all[g, c] if sub else 0
        sign = -1 if sub else 1
        for i in range(n):
            if train[b, i] == sub:
                continue
            c = y[i]
            ncls[c] += sign
            for k in range(An):
                v = icodes[i, k]
                if v >= 0:
                    cnt[k, c, v] += sign
            for k in range(Am):
                q = rank[k, i]
                if q >= 0:
                    htot[uoff[k] + q] += sign
                    if small[k]:
                        hcls[uoff[k] + q, c] += sign
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
            for v in range(nv):
                lo_v = 1.0
                for c in range(C):
                    lo_v = min(lo_v, ptab[k, c, v])
                pmin[k, v] = lo_v
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
        exact = keep or weka_way
        if not exact:
            # the training rows grouped by class (counting sort)
            coff[0] = 0
            for c in range(C):
                coff[c + 1] = coff[c] + ncls[c]
            for c in range(C):
                fill[c] = coff[c]
            for m in range(ntr):
                c = y[tr[m]]
                byc[fill[c]] = tr[m]
                fill[c] += 1
            exact = not _fast_moments(codesT, num, byc, coff, uvals, uoff, htot, small, hcls, C, prec, mean,
                                      sd, emu, esd, w, s1, s2, a1, nt, rlo, rhi)
        rows = te
        nrows = nte
        if not exact:
            token += 1
            nrows, ndeep = _predict(b, te, nte, token, True, False, False, codesT, icodes, is_nom, slot, rank,
                                    uoff, C, prior, ptab, pmin, prec, mean, sd, emu, esd, safe, stamp, gcache,
                                    rcache, gmin, probs, rsum, hi, lo, out, proba, redo, deep)
            if ndeep > 0:  # the factors are cached: only the products again
                nrows += _predict(b, deep, ndeep, token, True, True, False, codesT, icodes, is_nom, slot, rank,
                                  uoff, C, prior, ptab, pmin, prec, mean, sd, emu, esd, safe, stamp, gcache,
                                  rcache, gmin, probs, rsum, hi, lo, out, proba, redo[nrows:], deep)[0]
            if nrows == 0:
                continue
            rows = redo
        # Weka's way: its sorts, its summation order
        n_exact += 1
        _exact_moments(codes, num, y, C, tr, ntr, prec, mean, sd, perm, perm2, vals, idx, stack)
        token += 1
        _predict(b, rows, nrows, token, False, False, keep, codesT, icodes, is_nom, slot, rank, uoff, C, prior,
                 ptab, pmin, prec, mean, sd, emu, esd, safe, stamp, gcache, rcache, gmin, probs, rsum, hi, lo,
                 out, proba, redo, deep)
    return n_exact


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
      (``Instances.sort`` by each numeric attribute in turn, an unstable quicksort), and with
      large offsets or tiny spreads the variance is mostly rounding error, so the order of
      the sums can decide a prediction (summing in row order and trusting it changed 166 of
      4,878 test predictions on 300 random tables like those of ``tests/weka/fixtures_edge``,
      measured once against Weka).  :func:`weka_sort` reproduces that quicksort.

    Missing values are skipped in training and prediction.  Nominal attributes come from
    the data set's one-hot groups (:meth:`prepare`); every other column is numeric.

    Batched and compiled, and certified: the class, value and per-value counts of every row
    once per call, a model's by subtracting the rows it does not train on (integers, exact);
    the precision from the distinct training values (exact: it needs no instance order);
    the moments summed in any order with a rigorous bound on how far Weka's order can move
    them (:func:`_fast_moments`), carried through Weka's operations to every factor and
    product (:func:`_factors`, :func:`_predict`).  A prediction stands only when the bounds
    prove it is the one Weka's own sums give; a model with any other prediction (or whose
    probabilities are asked for) is fitted Weka's way, its sorts and summation order
    included (:func:`_exact_moments`), and those predictions recomputed.  On the 27 data
    sets of Bouckaert & Frank's Table 1, 10×10 cv, no model needed that (1 in 100 on glass);
    on small random tables built to be ill-conditioned about half do.  So the predictions
    are Weka's to the bit either way; a model's depend on its own rows only.

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

    impl_id = 'simstudy.learners.weka.nb:WekaNaiveBayes'

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

    def _run(self, X, y, train, test, keep: bool,
             weka_way: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
        """Predictions, probabilities (when ``keep``) and how many models were fitted
        Weka's way (sorts and its summation order; all of them with ``weka_way``)."""
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
        n_exact = _wnb_kernel(codes, icodes, is_nom, nvals, slot, y, C, train, test, out, proba,
                              bool(weka_way))
        return out, proba, int(n_exact)
