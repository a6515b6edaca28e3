"""Split criteria, with scikit-learn's exact floating-point formulas (``sklearn/tree/_criterion.pyx``).

Gini and entropy (classification, class sums ``sum_total``/``sum_left``) and the squared
error (``MSE``, regression on indicator outputs): node impurity, children impurity,
the proxy improvement maximised by the splitter, and ``Criterion.update``'s rule for
moving samples to the left child.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .consts import GINI, JIT, LN2


@njit(**JIT)
def _node_stats(yc, yr, w, is_gini, K, samples, start, end, sum_total):
    # criterion.init over samples[start:end] in their current order
    for k in range(K):
        sum_total[k] = 0.0
    wn = 0.0
    sq = 0.0
    for p in range(start, end):
        i = samples[p]
        wi = w[i]
        if is_gini:
            sum_total[yc[i]] += wi
        else:
            for k in range(K):
                yik = yr[i, k]
                wy = wi * yik
                sum_total[k] += wy
                sq += wy * yik
        wn += wi
    return wn, sq


@njit(**JIT)
def _update(yc, yr, w, is_gini, K, samples, pos, new_pos, end, sum_total, wn, sum_left, wl):
    """Criterion.update: move samples[pos:new_pos] to the left child; returns new wl."""
    if (new_pos - pos) <= (end - new_pos):
        for p in range(pos, new_pos):
            i = samples[p]
            wi = w[i]
            if is_gini:
                sum_left[yc[i]] += wi
            else:
                for k in range(K):
                    sum_left[k] += wi * yr[i, k]
            wl += wi
    else:
        # reverse_reset, then remove samples[new_pos:end] from the full node
        for k in range(K):
            sum_left[k] = sum_total[k]
        wl = wn
        for p in range(end - 1, new_pos - 1, -1):
            i = samples[p]
            wi = w[i]
            if is_gini:
                sum_left[yc[i]] -= wi
            else:
                for k in range(K):
                    sum_left[k] -= wi * yr[i, k]
            wl -= wi
    return wl


@njit(**JIT)
def _gini_children(K, sum_left, sum_total, wl, wr):
    sql = 0.0
    sqr = 0.0
    for c in range(K):
        cl = sum_left[c]
        sql += cl * cl
        cr = sum_total[c] - cl
        sqr += cr * cr
    gl = 0.0 + (1.0 - sql / (wl * wl))
    gr = 0.0 + (1.0 - sqr / (wr * wr))
    return gl, gr


@njit(**JIT)
def _proxy(is_gini, K, sum_left, sum_total, wl, wr):
    if is_gini:
        gl, gr = _gini_children(K, sum_left, sum_total, wl, wr)
        return -(wr * gr) - wl * gl
    pl = 0.0
    pr = 0.0
    for k in range(K):
        sl = sum_left[k]
        pl += sl * sl
        sr = sum_total[k] - sl
        pr += sr * sr
    return pl / wl + pr / wr


@njit(**JIT)
def _gini_proxy(K, sl, st, wl, wr):
    # ClassificationCriterion Gini: proxy_impurity_improvement, same operation order
    sql = 0.0
    sqr = 0.0
    for c in range(K):
        cl = sl[c]
        sql += cl * cl
        cr = st[c] - cl
        sqr += cr * cr
    gl = 0.0 + (1.0 - sql / (wl * wl))
    gr = 0.0 + (1.0 - sqr / (wr * wr))
    return -(wr * gr) - wl * gl


@njit(**JIT)
def _xlogx(c, w):
    # one term of sklearn's Entropy: count_k = c / w; count_k * log(count_k), log base 2
    p = c / w
    return p * (math.log(p) / LN2)


@njit(parallel=True, **JIT)
def entropy_table(W):
    """``tab[w (w + 1) / 2 + c] = _xlogx(c, w)`` for ``0 <= c <= w <= W`` (0 at ``c = 0``).

    With unit weights every class count and child size is an integer, so the entropy terms
    of a whole batch come from this one table instead of four logarithms per candidate
    split; the entries are the very same float64 values (same formula), so the trees
    cannot change.
    """
    tab = np.zeros((W + 1) * (W + 2) // 2, np.float64)
    for w in prange(1, W + 1):
        base = w * (w + 1) // 2
        for c in range(1, w + 1):
            tab[base + c] = _xlogx(float(c), float(w))
    return tab


@njit(**JIT)
def _class_children(crit, K, sl, st, wl, wr, tab):
    """``ClassificationCriterion.children_impurity`` (Gini or Entropy), sklearn's formulas.

    The right child's sums are ``st - sl`` (as ``Criterion.update`` forms them).  Entropy
    terms come from ``tab`` (:func:`entropy_table`) when both children fit in it.
    """
    if crit == GINI:
        return _gini_children(K, sl, st, wl, wr)
    el = 0.0
    er = 0.0
    W2 = tab.shape[0]
    il = int(wl)
    ir = int(wr)
    bl = il * (il + 1) // 2
    br = ir * (ir + 1) // 2
    if bl + il < W2 and br + ir < W2:
        for c in range(K):
            el -= tab[bl + int(sl[c])]
            er -= tab[br + int(st[c] - sl[c])]
        return el, er
    for c in range(K):
        cl = sl[c]
        if cl > 0.0:
            el -= _xlogx(cl, wl)
        cr = st[c] - sl[c]
        if cr > 0.0:
            er -= _xlogx(cr, wr)
    return el, er


@njit(**JIT)
def _class_node_impurity(crit, K, st, wn):
    # Criterion.node_impurity of a classification node (used at the root only)
    if crit == GINI:
        sqc = 0.0
        for c in range(K):
            sqc += st[c] * st[c]
        return 1.0 - sqc / (wn * wn)
    e = 0.0
    for c in range(K):
        ck = st[c]
        if ck > 0.0:
            ck /= wn
            e -= ck * (math.log(ck) / LN2)
    return e
