"""Split criteria, with scikit-learn's exact floating-point formulas (``sklearn/tree/_criterion.pyx``).

A criterion is a code -- :data:`~.consts.GINI`, :data:`~.consts.ENTROPY` (classification:
weighted class sums ``sum_total`` / ``sum_left``) or :data:`~.consts.MSE` (squared error on
indicator outputs ``yr``) -- that the growers and the splitter pass down; every function
here evaluates one of them exactly as scikit-learn does, operation for operation, so that
ties between candidate splits fall the same way:

* ``Criterion.init`` (:func:`node_sums`) and ``Criterion.update`` (:func:`update_left`,
  with its forward/backward rule);
* ``node_impurity`` (:func:`class_node_impurity`, :func:`mse_node_impurity`);
* ``children_impurity`` (:func:`class_children`, two classes in scalars
  :func:`class_children2`, :func:`mse_children`);
* ``proxy_impurity_improvement`` (:func:`proxy_improvement`, :func:`gini_proxy`) -- what the splitter
  maximises -- and ``impurity_improvement`` (:func:`impurity_improvement`).

Entropy is ``-sum p log2 p`` with sklearn's ``log(x) = ln(x) / ln(2)``; with integer
weights its terms come from a table (:func:`entropy_table`) holding the same values.

Gain ratio (:func:`c45_info_gain`, :func:`c45_gain_ratio`, :func:`xlog2x`) is C4.5's
criterion with Weka 3.6's J48 formulas (``weka.classifiers.trees.j48``), for ``j48``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .consts import GINI, JIT, LN2, MSE, WEKA_SMALL


@njit(inline="always", **JIT)
def node_sums(yc, yr, w, crit, K, samples, start, end, sum_total):
    """``Criterion.init`` over ``samples[start:end]`` in their order: (weight, sum w y^2)."""
    for k in range(K):
        sum_total[k] = 0.0
    wn = 0.0
    sq = 0.0
    for p in range(start, end):
        i = samples[p]
        wi = w[i]
        if crit != MSE:
            sum_total[yc[i]] += wi
        else:
            for k in range(K):
                yik = yr[i, k]
                wy = wi * yik
                sum_total[k] += wy
                sq += wy * yik
        wn += wi
    return wn, sq


@njit(inline="always", **JIT)
def update_left(yc, yr, w, crit, K, samples, pos, new_pos, end, sum_total, wn, sum_left, wl):
    """``Criterion.update``: move ``samples[pos:new_pos]`` to the left child; returns its weight.

    Forward (add the moved samples) or backward (restart from the node total and remove
    ``samples[new_pos:end]``), whichever touches fewer samples -- scikit-learn's rule, which
    fixes the order of every floating-point sum.
    """
    if (new_pos - pos) <= (end - new_pos):
        for p in range(pos, new_pos):
            i = samples[p]
            wi = w[i]
            if crit != MSE:
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
            if crit != MSE:
                sum_left[yc[i]] -= wi
            else:
                for k in range(K):
                    sum_left[k] -= wi * yr[i, k]
            wl -= wi
    return wl


# --------------------------------------------------------------------------- Gini


@njit(inline="always", **JIT)
def gini_children(K, sum_left, sum_total, wl, wr):
    """``Gini.children_impurity``: ``1 - sum_k (n_k / n)^2`` of each child."""
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


@njit(inline="always", **JIT)
def gini_children2(s0, s1, r0, r1, wl, wr):
    """:func:`gini_children` for two classes held in scalars (the same operations)."""
    gl = 0.0 + (1.0 - (s0 * s0 + s1 * s1) / (wl * wl))
    gr = 0.0 + (1.0 - (r0 * r0 + r1 * r1) / (wr * wr))
    return gl, gr


@njit(inline="always", **JIT)
def gini_proxy(K, sl, st, wl, wr):
    """``Criterion.proxy_impurity_improvement`` of Gini (what the splitter maximises)."""
    gl, gr = gini_children(K, sl, st, wl, wr)
    return -(wr * gr) - wl * gl


# ------------------------------------------------------------------------ entropy


@njit(**JIT)
def xlogx(c, w):
    """One term of ``Entropy``: ``count_k = c / w``; ``count_k * log(count_k)``, base 2."""
    p = c / w
    return p * (math.log(p) / LN2)


@njit(parallel=True, **JIT)
def entropy_table(W):
    """``tab[w (w + 1) / 2 + c] = xlogx(c, w)`` for ``0 <= c <= w <= W`` (0 at ``c = 0``).

    With integer weights every class count and child size is an integer, so the entropy
    terms of a whole batch come from this one table instead of four logarithms per
    candidate split; the entries are the very same float64 values (same formula), so the
    trees cannot change.
    """
    tab = np.zeros((W + 1) * (W + 2) // 2, np.float64)
    for w in prange(1, W + 1):
        base = w * (w + 1) // 2
        for c in range(1, w + 1):
            tab[base + c] = xlogx(float(c), float(w))
    return tab


@njit(inline="always", **JIT)
def _entropy_term(c, w, base, tab):
    # xlogx(c, w), from the table when (c, w) is in it (integer weights only)
    if base + int(w) < tab.shape[0]:
        return tab[base + int(c)]
    if c > 0.0:
        return xlogx(c, w)
    return 0.0


@njit(inline="always", **JIT)
def entropy_children(K, sl, st, wl, wr, tab):
    """``Entropy.children_impurity``: ``-sum_k p_k log2 p_k`` of each child."""
    el = 0.0
    er = 0.0
    il = int(wl)
    ir = int(wr)
    bl = il * (il + 1) // 2
    br = ir * (ir + 1) // 2
    for c in range(K):
        el -= _entropy_term(sl[c], wl, bl, tab)
        er -= _entropy_term(st[c] - sl[c], wr, br, tab)
    return el, er


@njit(inline="always", **JIT)
def entropy_children2(s0, s1, r0, r1, wl, wr, tab):
    """:func:`entropy_children` for two classes held in scalars (the same operations)."""
    il = int(wl)
    ir = int(wr)
    bl = il * (il + 1) // 2
    br = ir * (ir + 1) // 2
    el = 0.0
    el -= _entropy_term(s0, wl, bl, tab)
    el -= _entropy_term(s1, wl, bl, tab)
    er = 0.0
    er -= _entropy_term(r0, wr, br, tab)
    er -= _entropy_term(r1, wr, br, tab)
    return el, er


# ------------------------------------------------------------- classification
# The Gini formulas and the dispatchers are inlined into the splitter's loops at numba's
# IR level (``inline="always"``): a call per candidate split costs the forests' small trees
# ~15 %, and LLVM's own inlining cannot be relied on -- a caller compiled against callees
# loaded from numba's cache sees only their machine code (see kernels.py).  So are the
# entropy terms and ``proxy_improvement`` (c45's scan: ~10 % of its kernel as calls).


@njit(inline="always", **JIT)
def class_children(crit, K, sl, st, wl, wr, tab):
    """``children_impurity`` of Gini or Entropy; the right child's sums are ``st - sl``."""
    if crit == GINI:
        return gini_children(K, sl, st, wl, wr)
    return entropy_children(K, sl, st, wl, wr, tab)


@njit(inline="always", **JIT)
def class_children2(crit, s0, s1, r0, r1, wl, wr, tab):
    """:func:`class_children` for two classes in scalars (left ``s0, s1``, right ``r0, r1``)."""
    if crit == GINI:
        return gini_children2(s0, s1, r0, r1, wl, wr)
    return entropy_children2(s0, s1, r0, r1, wl, wr, tab)


@njit(**JIT)
def class_node_impurity(crit, K, st, wn):
    """``node_impurity`` of Gini or Entropy (scikit-learn computes it at the root only)."""
    if crit == GINI:
        sqc = 0.0
        for c in range(K):
            sqc += st[c] * st[c]
        return 1.0 - sqc / (wn * wn)
    e = 0.0
    for c in range(K):
        ck = st[c]
        if ck > 0.0:
            e -= xlogx(ck, wn)
    return e


# ---------------------------------------------------------------- squared error


@njit(inline="always", **JIT)
def mse_node_impurity(K, st, wn, sq):
    """``MSE.node_impurity``: ``sum w y^2 / w - sum_k mean_k^2``, averaged over outputs."""
    impurity = sq / wn
    for k in range(K):
        impurity -= (st[k] / wn) ** 2.0
    return impurity / K


@njit(inline="always", **JIT)
def mse_children(K, sl, st, wl, wr, sql, sqr):
    """``MSE.children_impurity`` given each child's ``sum w y^2`` (``sql``, ``sqr``)."""
    imp_l = sql / wl
    imp_r = sqr / wr
    for k in range(K):
        imp_l -= (sl[k] / wl) ** 2.0
        imp_r -= ((st[k] - sl[k]) / wr) ** 2.0
    return imp_l / K, imp_r / K


# --------------------------------------------------------------------- any of them


@njit(inline="always", **JIT)
def proxy_improvement(crit, K, sl, st, wl, wr, tab):
    """``proxy_impurity_improvement``: ``-wr·imp_r - wl·imp_l`` (Gini, Entropy), or MSE's
    ``sum_k sl_k^2 / wl + sr_k^2 / wr``."""
    if crit != MSE:
        gl, gr = class_children(crit, K, sl, st, wl, wr, tab)
        return -(wr * gr) - wl * gl
    pl = 0.0
    pr = 0.0
    for k in range(K):
        s = sl[k]
        pl += s * s
        sr = st[k] - s
        pr += sr * sr
    return pl / wl + pr / wr


@njit(inline="always", **JIT)
def impurity_improvement(wn, wtot, impurity, wl, wr, imp_l, imp_r):
    """``Criterion.impurity_improvement`` of a split (weighted by the node's share)."""
    return (wn / wtot) * (impurity - wr / wn * imp_r - wl / wn * imp_l)


# ------------------------------------------------------------------ gain ratio (C4.5)
# C4.5's criterion as Weka 3.6's J48 computes it (weka.classifiers.trees.j48:
# EntropyBasedSplitCrit, InfoGainSplitCrit, GainRatioSplitCrit): entropies in weight form
# (sums of x log2 x of class weights, not of proportions), the gain scaled by the share of
# instances whose value is known.  Unlike the criteria above it is not a per-candidate
# proxy: J48 picks each numeric attribute's cut by information gain and compares
# attributes by gain ratio (the split kinds ``c45_*`` in splitter.py).


def _xlog2x_table(k_max: int) -> np.ndarray:
    return np.array([0.0] + [k * math.log(k) / math.log(2.0) for k in range(1, k_max)])


#: x log2 x for the integer weights 0..8191 (with no missing values every weight is an
#: integer count)
XLOG2X = _xlog2x_table(8192)


@njit(inline="always", **JIT)
def xlog2x(x):
    """Weka's ``EntropyBasedSplitCrit.logFunc``: ``x log2 x`` of a class weight, 0 below
    1e-6; integer weights below 8192 from :data:`XLOG2X` (the same values)."""
    if x < 1e-6:
        return 0.0
    if x < 8192.0:
        k = int(x)
        if k == x:
            return XLOG2X[k]
    return x * np.log(x) / LN2


@njit(inline="always", **JIT)
def c45_info_gain(old_ent, new_ent, known, sumW):
    """``InfoGainSplitCrit.splitCritValue``: the information gain of a split,
    ``(1 - unknown share) (old_ent - new_ent) / known`` (Quinlan 1993, sec. 2.3 and 3.1:
    the gain on the instances with a known value, scaled by their share), where the
    entropies are in weight form (``old_ent = logf(known) - sum_c logf(w_c)``, ``new_ent =
    sum_bags (logf(w_bag) - sum_c logf(w_bag,c))``); 0 when the numerator is within 1e-6
    of 0."""
    unknown_rate = (sumW - known) / sumW
    num = (1.0 - unknown_rate) * (old_ent - new_ent)
    if abs(num) < WEKA_SMALL:
        return 0.0
    return num / known


@njit(inline="always", **JIT)
def c45_gain_ratio(gain, split_ent_bags, known, sumW):
    """``GainRatioSplitCrit.splitCritValue``: ``gain / split info`` (Quinlan 1993, sec. 2.2),
    the split info counting the unknown-value instances as a bag of their own;
    ``split_ent_bags = -sum_bags logf(w_bag)``.  0 when the split info is within 1e-6 of
    0."""
    den = 0.0
    if known > WEKA_SMALL:
        den = split_ent_bags - xlog2x(sumW - known) + xlog2x(sumW)
    if abs(den) < WEKA_SMALL:
        return 0.0
    return gain / (den / sumW)
