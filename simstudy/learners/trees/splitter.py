"""The splitter: scikit-learn's ``BestSplitter.node_split_best`` for one node.

Features are visited in the Fisher-Yates order drawn by :mod:`.sampler`; each is scanned
in ascending order of its values and every boundary between distinct values
(``x[p] > x[p-1] + FEATURE_THRESHOLD``) is a candidate, scored by a criterion of
:mod:`.criteria`; the first best candidate (strict ``>``) wins.  Three forms, by how the
samples are kept sorted:

* :func:`scan_presorted` -- one feature of a node owning a range of presorted per-feature
  lists (integer weights, any classification criterion; ``c45``, and written out for
  Gini in :func:`.growers.grow_presorted` for ``rf``);
* :func:`split_sorting` -- a whole node, sorting its samples by each drawn feature (any
  weights, any criterion, ``Criterion.update``'s summation order; ``rt``);
* :func:`best_stump` -- the root of a depth-1 Gini tree on features sorted once per model,
  with real weights (``ab``).

C4.5's split kinds as Weka's J48 evaluates them (``j48``; gain ratio, Weka's tolerances):
:func:`c45_nominal_split` (multiway over a nominal attribute's values, from class-weight
counts), :func:`c45_numeric_presorted` (binary cut, presorted rows of unit weight) and
:func:`c45_numeric_entries` / :func:`c45_numeric_scan` (binary cut, weighted instances) and
:func:`c45_numeric_counts` (binary cut, from per-value class counts).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .consts import C45_MIN_OBJ, EPSILON, FEATURE_THRESHOLD, INF, JIT, LN2, MSE, WEKA_SMALL
from .criteria import (
    XLOG2X,
    c45_gain_ratio,
    c45_info_gain,
    class_children,
    class_children2,
    gini_children,
    gini_children2,
    gini_proxy,
    impurity_improvement,
    mse_children,
    proxy_improvement,
    update_left,
    xlog2x,
)
from .numeric import _sort2
from .predict import _argmax_first
from .sampler import draw_constant, draw_end, draw_keep, draw_next


@njit(**JIT)
def best_stump(vs, order, yc, yf, sw, K, rstate, feats, sum_total, sum_left, samples,
               goes_left, res):
    """Depth-1 Gini tree (scikit-learn's best splitter, all features) on presorted data.

    ``vs[f]`` are feature ``f``'s float32 values sorted ascending, ``order[f]`` the
    matching samples; ``yc`` class codes (``yf`` as floats); ``sw`` real sample weights.  Visits the features in the splitter's
    random order (``rstate``), scans each with ``Criterion.update``'s exact rule (add
    ``samples[pos:new_pos]`` forward, or restart from the node total and subtract
    backwards, whichever touches fewer samples) so that every weighted sum is formed in
    scikit-learn's order, up to the order of tied values.  The children are summed in
    the order scikit-learn leaves them: sorted by the last feature visited, then
    ``partition_samples_final``'s swaps.  ``res`` receives (feature or -1, threshold,
    left class, right class) as float64; ``samples``, ``goes_left`` are (m,) work arrays.
    """
    d = vs.shape[0]
    m = vs.shape[1]
    for f in range(d):
        feats[f] = f
    for k in range(K):
        sum_total[k] = 0.0
    wn = 0.0
    for i in range(m):
        wi = sw[i]
        sum_total[yc[i]] += wi
        wn += wi
    sqc = 0.0
    for c in range(K):
        sqc += sum_total[c] * sum_total[c]
    impurity = 1.0 - sqc / (wn * wn)
    best_pos = m
    best_feat = -1
    best_thr = 0.0
    last = -1
    if not (m < 2 or impurity <= EPSILON):
        # the root: no constants known
        f_i, n_visited, n_found, n_drawn, n_total = d, 0, 0, 0, 0
        best_proxy = -INF
        while True:
            f_j, n_visited, n_drawn = draw_next(feats, rstate, d, f_i, n_visited, n_found,
                                                n_drawn, 0, n_total)
            if f_j < 0:
                break
            f = feats[f_j]
            v = vs[f]
            o = order[f]
            last = f  # sklearn sorted samples by this feature
            if v[m - 1] <= v[0] + FEATURE_THRESHOLD:
                draw_constant(feats, f_j, n_total)
                n_found += 1
                n_total += 1
                continue
            f_i -= 1
            draw_keep(feats, f_i, f_j)
            if K == 2:
                # two classes in scalars; adding w * 0.0 leaves a sum unchanged, so the
                # sums are formed exactly as with sum_left[y[i]] += w
                t0c = sum_total[0]
                t1c = sum_total[1]
                s0 = 0.0
                s1 = 0.0
                wl = 0.0
                pos = 0
                p = 0
                while p < m:
                    p += 1
                    while p < m and v[p] <= v[p - 1] + FEATURE_THRESHOLD:
                        p += 1
                    if p == m:
                        continue
                    if (p - pos) <= (m - p):
                        for q in range(pos, p):
                            i = o[q]
                            wi = sw[i]
                            c = yf[i]
                            s0 += wi * (1.0 - c)
                            s1 += wi * c
                            wl += wi
                    else:
                        s0 = t0c
                        s1 = t1c
                        wl = wn
                        for q in range(m - 1, p - 1, -1):
                            i = o[q]
                            wi = sw[i]
                            c = yf[i]
                            s0 -= wi * (1.0 - c)
                            s1 -= wi * c
                            wl -= wi
                    pos = p
                    wr = wn - wl
                    gl, gr = gini_children2(s0, s1, t0c - s0, t1c - s1, wl, wr)
                    proxy = -(wr * gr) - wl * gl
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_pos = p
                        best_feat = f
                        best_thr = v[p - 1] / 2.0 + v[p] / 2.0
                continue
            for k in range(K):
                sum_left[k] = 0.0
            wl = 0.0
            pos = 0
            p = 0
            while p < m:
                p += 1
                while p < m and v[p] <= v[p - 1] + FEATURE_THRESHOLD:
                    p += 1
                if p == m:
                    continue
                if (p - pos) <= (m - p):
                    for q in range(pos, p):
                        i = o[q]
                        wi = sw[i]
                        sum_left[yc[i]] += wi
                        wl += wi
                else:
                    for k in range(K):
                        sum_left[k] = sum_total[k]
                    wl = wn
                    for q in range(m - 1, p - 1, -1):
                        i = o[q]
                        wi = sw[i]
                        sum_left[yc[i]] -= wi
                        wl -= wi
                pos = p
                proxy = gini_proxy(K, sum_left, sum_total, wl, wn - wl)
                if proxy > best_proxy:
                    best_proxy = proxy
                    best_pos = p
                    best_feat = f
                    best_thr = v[p - 1] / 2.0 + v[p] / 2.0
    if best_pos < m:
        # samples as sklearn leaves them, then partition_samples_final's swaps
        o = order[last]
        for q in range(m):
            samples[q] = o[q]
        # x <= threshold iff the sample's rank in best_feat's order is < best_pos (the
        # values are sorted, the threshold lies strictly between two of them)
        ob = order[best_feat]
        for q in range(m):
            goes_left[ob[q]] = q < best_pos
        ps = 0
        pe = m
        while ps < pe:
            if goes_left[samples[ps]]:
                ps += 1
            else:
                pe -= 1
                t = samples[ps]
                samples[ps] = samples[pe]
                samples[pe] = t
        # criterion.reset(); update(best_pos); children_impurity; impurity_improvement
        for k in range(K):
            sum_left[k] = 0.0
        wl = 0.0
        if best_pos <= m - best_pos:
            for q in range(best_pos):
                i = samples[q]
                sum_left[yc[i]] += sw[i]
                wl += sw[i]
        else:
            for k in range(K):
                sum_left[k] = sum_total[k]
            wl = wn
            for q in range(m - 1, best_pos - 1, -1):
                i = samples[q]
                sum_left[yc[i]] -= sw[i]
                wl -= sw[i]
        wr = wn - wl
        imp_l, imp_r = gini_children(K, sum_left, sum_total, wl, wr)
        if impurity_improvement(wn, wn, impurity, wl, wr, imp_l, imp_r) + EPSILON < 0.0:
            best_pos = m
    if best_pos >= m:
        # a single leaf: its value sum_total / wn
        for k in range(K):
            sum_left[k] = sum_total[k] / wn
        c = _argmax_first(sum_left, K)
        res[0] = -1.0
        res[1] = 0.0
        res[2] = c
        res[3] = c
        return
    # the two leaves: criterion.init over each child's samples, in order
    res[0] = best_feat
    res[1] = best_thr
    for side in range(2):
        lo = 0 if side == 0 else best_pos
        hi = best_pos if side == 0 else m
        for k in range(K):
            sum_left[k] = 0.0
        wc = 0.0
        for q in range(lo, hi):
            i = samples[q]
            sum_left[yc[i]] += sw[i]
            wc += sw[i]
        for k in range(K):
            sum_left[k] = sum_left[k] / wc
        res[2 + side] = _argmax_first(sum_left, K)


# ---------------------------------------------------------------------------------------
# node_split_best for the growers: one feature of presorted lists (rf, c45), or a whole
# node sorting its samples per feature (rt)
# ---------------------------------------------------------------------------------------


@njit(inline="always", **JIT)
def scan_presorted(XT, f, lists, start, end, w, yc, K, crit, tab, wn, sum_total, sum_left,
                   best_proxy):
    """Scan feature ``f`` of a node that owns ``lists[:, start:end]`` (presorted lists).

    ``lists[f, start:end]`` holds the node's samples by increasing ``XT[f]``; every
    boundary ``x[p] > x[p-1] + FEATURE_THRESHOLD`` is a candidate (left = ``[start, p)``),
    scored by the criterion's proxy (:func:`.criteria.proxy_improvement`; integer weights
    ``w``, so the class sums are exact in any order).  Returns ``(proxy, pos, threshold)``
    of the first candidate better than ``best_proxy`` (strict ``>``, scikit-learn's rule),
    ``pos = -1`` if none.  :func:`.growers.grow_presorted` runs Gini's instance of this scan
    written out in its own loop.
    """
    best_pos = -1
    best_thr = 0.0
    vprev = XT[f, lists[f, start]]
    if K == 2:
        # two classes in scalars
        s1 = 0.0
        wl = 0.0
        c0 = sum_total[0]
        c1 = sum_total[1]
        for p in range(start + 1, end):
            i = lists[f, p - 1]
            wi = w[i]
            s1 += wi * yc[i]
            wl += wi
            v = XT[f, lists[f, p]]
            if v <= vprev + FEATURE_THRESHOLD:
                vprev = v
                continue
            s0 = wl - s1
            wr = wn - wl
            gl, gr = class_children2(crit, s0, s1, c0 - s0, c1 - s1, wl, wr, tab)
            proxy = -(wr * gr) - wl * gl
            if proxy > best_proxy:
                best_proxy = proxy
                best_pos = p
                best_thr = vprev / 2.0 + v / 2.0
            vprev = v
        return best_proxy, best_pos, best_thr
    for k in range(K):
        sum_left[k] = 0.0
    wl = 0.0
    for p in range(start + 1, end):
        i = lists[f, p - 1]
        wi = w[i]
        sum_left[yc[i]] += wi
        wl += wi
        v = XT[f, lists[f, p]]
        if v <= vprev + FEATURE_THRESHOLD:
            vprev = v
            continue
        proxy = proxy_improvement(crit, K, sum_left, sum_total, wl, wn - wl, tab)
        if proxy > best_proxy:
            best_proxy = proxy
            best_pos = p
            best_thr = vprev / 2.0 + v / 2.0
        vprev = v
    return best_proxy, best_pos, best_thr


@njit(inline="always", **JIT)
def split_sorting(Xl, yc, yr, w, K, crit, tab, samples, start, end, wn, sq_total,
                  sum_total, sum_left, work_f32, feats, constf, rstate, max_features,
                  n_known, wtot, impurity):
    """``node_split_best`` that sorts the node's samples by each drawn feature (any weights).

    Scans with ``Criterion.update``'s forward/backward rule (:func:`.criteria.update_left`),
    so that real-valued weighted sums are formed in scikit-learn's order; ``crit`` is any
    criterion (MSE for regression on indicator outputs ``yr``).  On a split the samples
    are left as ``partition_samples_final`` leaves them.  Returns ``(pos, feature,
    threshold, imp_left, imp_right, n_constants)``; ``pos == end`` means no split (none
    found, or its improvement below ``-EPSILON``); ``sum_left`` holds the left child's sums.
    """
    d = Xl.shape[1]
    best_pos = end
    best_feat = -1
    best_thr = 0.0
    f_i, n_visited, n_found, n_drawn, n_total = d, 0, 0, 0, n_known
    best_proxy = -INF
    while True:
        f_j, n_visited, n_drawn = draw_next(feats, rstate, max_features, f_i, n_visited,
                                            n_found, n_drawn, n_known, n_total)
        if f_j < 0:
            break
        f = feats[f_j]
        for p in range(start, end):
            work_f32[p] = Xl[samples[p], f]
        _sort2(work_f32, samples, start, end)
        if work_f32[end - 1] <= work_f32[start] + FEATURE_THRESHOLD:
            draw_constant(feats, f_j, n_total)
            n_found += 1
            n_total += 1
            continue
        f_i -= 1
        draw_keep(feats, f_i, f_j)
        # criterion.reset()
        for k in range(K):
            sum_left[k] = 0.0
        wl = 0.0
        pos = start
        p = start
        while p < end:
            p += 1
            while p < end and work_f32[p] <= work_f32[p - 1] + FEATURE_THRESHOLD:
                p += 1
            if p == end:
                continue
            wl = update_left(yc, yr, w, crit, K, samples, pos, p, end, sum_total, wn,
                             sum_left, wl)
            pos = p
            proxy = proxy_improvement(crit, K, sum_left, sum_total, wl, wn - wl, tab)
            if proxy > best_proxy:
                best_proxy = proxy
                best_pos = p
                best_feat = f
                best_thr = work_f32[p - 1] / 2.0 + work_f32[p] / 2.0
    imp_l = 0.0
    imp_r = 0.0
    if best_pos < end:
        # partition_samples_final (same swaps as sklearn)
        ps = start
        pe = end
        while ps < pe:
            if Xl[samples[ps], best_feat] <= best_thr:
                ps += 1
            else:
                pe -= 1
                t = samples[ps]
                samples[ps] = samples[pe]
                samples[pe] = t
        for k in range(K):
            sum_left[k] = 0.0
        wl = update_left(yc, yr, w, crit, K, samples, start, best_pos, end, sum_total, wn,
                         sum_left, 0.0)
        wr = wn - wl
        if crit == MSE:
            sql = 0.0
            for p in range(start, best_pos):
                i = samples[p]
                for k in range(K):
                    yik = yr[i, k]
                    sql += w[i] * yik * yik
            imp_l, imp_r = mse_children(K, sum_left, sum_total, wl, wr, sql, sq_total - sql)
        else:
            imp_l, imp_r = class_children(crit, K, sum_left, sum_total, wl, wr, tab)
        if impurity_improvement(wn, wtot, impurity, wl, wr, imp_l, imp_r) + EPSILON < 0.0:
            best_pos = end
    draw_end(feats, constf, n_known, n_total)
    return best_pos, best_feat, best_thr, imp_l, imp_r, n_total

# ---------------------------------------------------------------------------------------
# C4.5's split kinds as Weka 3.6's J48 evaluates them (C45Split), scored by gain ratio
# (criteria.c45_*): a multiway split of a nominal attribute over its declared values, and
# a binary cut of a numeric attribute -- the cut with the largest information gain among
# those between values more than 1e-5 apart that leave >= minSplit weight on each side,
# MDL-corrected by log2(#cuts)/N.  Weka's tolerances (``WEKA_SMALL``) are kept where it
# uses them.  Forms of the numeric scan, by how the node's instances are held: presorted
# rows with unit weights (c45_numeric_presorted), weighted instances grouped by distinct
# value (c45_numeric_entries, which calls c45_numeric_scan), per-value class counts
# (c45_numeric_counts).  The per-node scans (c45_numeric_presorted, c45_numeric_counts,
# c45_nominal_split) allocate nothing and are inlined into a caller compiled without
# reference counting (``_nrt=False``; j48's node evaluation): inlined into a counting
# caller, numba counts a reference to every array argument at each node and attribute
# (atomic operations, a fifth of j48's time once), and called one by one, every array is
# passed as its fields; array slices as arguments are views, hence the offsets (``q``,
# ``uo``).
# ---------------------------------------------------------------------------------------


@njit(inline="always", **JIT)
def c45_min_split(known, C):
    """C45Split.handleNumericAttribute's minimum weight on each side of a binary cut:
    0.1 × known weight / #classes, clamped to [minNoObj, 25] (Weka's tolerances)."""
    min_split = 0.1 * known / C
    if min_split - C45_MIN_OBJ < WEKA_SMALL:
        return C45_MIN_OBJ
    if min_split - 25.0 > WEKA_SMALL:
        return 25.0
    return min_split


@njit(inline="always", **JIT)
def c45_node_ent(cw, C, known):
    """``known`` × the entropy of class weights ``cw`` in weight form (``logf(known) −
    Σ_c logf(w_c)``), in the order the numeric scans sum it."""
    e = xlog2x(known)
    for c in range(C):
        e -= xlog2x(cw[c])
    return e


@njit(inline="always", **JIT)
def c45_nominal_ent(cw, C, known, intw):
    """:func:`c45_node_ent` in the order :func:`c45_nominal_split` sums it (the class terms
    first), for a node whose attribute values are all known."""
    e = 0.0
    if intw:
        for c in range(C):
            e -= XLOG2X[int(cw[c])]
        return e + XLOG2X[int(known)]
    for c in range(C):
        e -= xlog2x(cw[c])
    return e + xlog2x(known)


@njit(inline="always", **JIT)
def c45_nominal_split(cnt, off, V, C, sumW, intw, node_ent):
    """C45Split.handleEnumeratedAttribute from the counts: (valid, infoGain, gainRatio).
    ``intw``: all counts are integers below the x log2 x table's size.  ``node_ent``: the
    node's :func:`c45_nominal_ent` when no value of the attribute is missing (the column
    sums are then the node's class counts), else ``nan`` (summed from the counts)."""
    nbig = 0
    known = 0.0
    new_ent = 0.0
    split_ent = 0.0
    for i in range(V):
        pb = 0.0
        if intw:
            for c in range(C):
                x = cnt[off + i * C + c]
                pb += x
                new_ent -= XLOG2X[int(x)]
            lp = XLOG2X[int(pb)]
        else:
            for c in range(C):
                x = cnt[off + i * C + c]
                pb += x
                new_ent -= xlog2x(x)
            lp = xlog2x(pb)
        new_ent += lp
        split_ent -= lp
        known += pb
        if C45_MIN_OBJ - pb < WEKA_SMALL:  # Distribution.check: grOrEq(perBag, minNoObj)
            nbig += 1
    if nbig <= 1:
        return False, 0.0, 0.0
    if node_ent == node_ent:
        old_ent = node_ent
    else:
        old_ent = 0.0
        for c in range(C):
            x = 0.0
            for i in range(V):
                x += cnt[off + i * C + c]
            old_ent -= XLOG2X[int(x)] if intw else xlog2x(x)
        old_ent += XLOG2X[int(known)] if intw else xlog2x(known)
    gain = c45_info_gain(old_ent, new_ent, known, sumW)
    ratio = c45_gain_ratio(gain, split_ent, known, sumW)
    return True, gain, ratio


@njit(inline="always", **JIT)
def c45_split_ent(lw, rw, left, right, C, intw):
    """Σ_sides w log2 w − Σ_{side,class} w log2 w of a binary cut (``known`` × its weighted
    entropy, in bits): the quantity every C4.5 numeric scan minimises.  ``intw``: all weights
    are integers below the x log2 x table's size, so the table replaces the logarithms."""
    if intw:
        e = XLOG2X[int(lw)] + XLOG2X[int(rw)]
        for c in range(C):
            e -= XLOG2X[int(left[c])] + XLOG2X[int(right[c])]
    else:
        e = xlog2x(lw) + xlog2x(rw)
        for c in range(C):
            e -= xlog2x(left[c]) + xlog2x(right[c])
    return e


@njit(inline="always", **JIT)
def c45_ent2(lwi, n_all, li0, ri0, li1, ri1):
    """:func:`c45_split_ent` for two classes with integer counts below the table's size
    (left ``li0 + li1 = lwi`` of ``n_all``): the same table entries in the same order."""
    e = XLOG2X[lwi] + XLOG2X[n_all - lwi]
    e -= XLOG2X[li0] + XLOG2X[ri0]
    e -= XLOG2X[li1] + XLOG2X[ri1]
    return e


@njit(inline="always", **JIT)
def c45_accept(new_ent, best_ent, best_gain, default_ent, known, sumW):
    """Weka's choice of a numeric cut in scan order: the gain of a cut whose weighted entropy
    is ``new_ent`` if it beats the best so far by more than 1e-6, else -1.0.  Its gain is
    computed only when ``new_ent`` is below the best's (the gain does not increase with
    ``new_ent``, also in floating point: a difference, then a division by a positive
    number), one division fewer per candidate."""
    if new_ent < best_ent:
        gain = c45_info_gain(default_ent, new_ent, known, sumW)
        if gain - best_gain > WEKA_SMALL:
            return gain
    return -1.0


@njit(inline="always", **JIT)
def c45_take(new_ent, lo, hi, lw, best_gain, best_ent, best_lo, best_hi, best_lw, default_ent, known, sumW):
    """:func:`c45_accept` applied to the best cut so far ``(gain, new_ent, lo, hi, lw)``:
    the candidate's if accepted, else the best unchanged."""
    gain = c45_accept(new_ent, best_ent, best_gain, default_ent, known, sumW)
    if gain >= 0.0:
        return gain, new_ent, lo, hi, lw
    return best_gain, best_ent, best_lo, best_hi, best_lw


#: log2(k) for the numbers of cuts 0..8191 (``math.log`` is the C library's log, as is
#: numba's ``np.log``: the same values as computing them)
LOG2_CUTS = np.array([0.0] + [math.log(k) / LN2 for k in range(1, 8192)])


@njit(inline="always", **JIT)
def c45_log2_cuts(n_cuts):
    """log2 of a number of cuts (the MDL correction's numerator)."""
    if n_cuts < LOG2_CUTS.shape[0]:
        return LOG2_CUTS[n_cuts]
    return np.log(n_cuts) / LN2


@njit(inline="always", **JIT)
def c45_numeric_finish(n_cuts, best_gain, best_lw, best_lo, best_hi, known, sumW):
    """End of C45Split.handleNumericAttribute: the MDL correction log2(#cuts)/N, Weka's
    smOrEq(gain, 0) test, the split point (the midpoint, or the lower value where the midpoint
    rounds to the upper one) and the gain ratio; ``(ok, gain, ratio, cut)``."""
    if n_cuts == 0:
        return False, 0.0, 0.0, 0.0
    gain = best_gain - c45_log2_cuts(n_cuts) / sumW
    if gain < WEKA_SMALL or best_lw < 0.0:  # smOrEq(gain, 0)
        return False, 0.0, 0.0, 0.0
    cut = (best_lo + best_hi) / 2.0
    if cut == best_hi:
        cut = best_lo
    ratio = c45_gain_ratio(gain, -xlog2x(best_lw) - xlog2x(known - best_lw), known, sumW)
    return True, gain, ratio, cut


@njit(**JIT)
def c45_numeric_entries(a, A, rank, uvals, y, C, e_idx, e_w, s0, sn, sumW, bcnt, bw, gval, gcnt, gw, keys, left, right):
    """C45Split.handleNumericAttribute: (valid, infoGain (MDL-corrected), gainRatio, cut).

    ``cut`` is the midpoint of the best adjacent distinct values (before Weka relocates it
    to a training value).  The segment's known values are grouped by distinct value with
    a counting pass over their ranks, or by sorting when the rank range is wide."""
    rmin = 1 << 62
    rmax = -1
    nk = 0
    for t in range(s0, s0 + sn):
        r = rank[a, e_idx[t]]
        if r >= 0:
            nk += 1
            if r < rmin:
                rmin = r
            if r > rmax:
                rmax = r
    if nk == 0:
        return False, 0.0, 0.0, 0.0
    G = 0
    if rmax - rmin + 1 <= 4 * nk:
        for t in range(s0, s0 + sn):
            i = e_idx[t]
            r = rank[a, i]
            if r >= 0:
                bcnt[r] += 1
                bw[r * C + y[i]] += e_w[t]
        for r in range(rmin, rmax + 1):
            if bcnt[r] > 0:
                gval[G] = uvals[r]
                gcnt[G] = bcnt[r]
                for c in range(C):
                    gw[G * C + c] = bw[r * C + c]
                    bw[r * C + c] = 0.0
                bcnt[r] = 0
                G += 1
    else:
        m = 0
        for t in range(s0, s0 + sn):
            r = rank[a, e_idx[t]]
            if r >= 0:
                keys[m] = r * (sn + 1) + (t - s0)
                m += 1
        ks = np.sort(keys[:m])
        prev = -1
        for q in range(m):
            r = ks[q] // (sn + 1)
            t = s0 + ks[q] % (sn + 1)
            if r != prev:
                gval[G] = uvals[r]
                gcnt[G] = 0
                for c in range(C):
                    gw[G * C + c] = 0.0
                G += 1
                prev = r
            gcnt[G - 1] += 1
            gw[(G - 1) * C + y[e_idx[t]]] += e_w[t]
    return c45_numeric_scan(gval, gw, G, C, nk, sumW, left, right, False)


@njit(inline="always", **JIT)
def c45_numeric_presorted(a, S, q, rank, uvals, uo, y, C, cw, s0, sn, sumW, min_split, default_ent, left, right,
                          intw):
    """:func:`c45_numeric_entries` for a segment without missing values (all weights 1) whose rows
    ``S[q, s0:s0+sn]`` are in increasing order of attribute ``a`` (its distinct values
    ``uvals[uo:]``, ranks ``rank[a]``) and whose class counts are
    ``cw``: Weka's scan over the sorted instances in one pass -- a cut is considered where
    the value changes by more than 1e-5 from the previous instance's.

    A candidate's gain is computed only if its weighted entropy ``new_ent`` is below that
    of the best so far (below the node's for the first): the gain is a non-increasing
    function of ``new_ent`` (also in floating point: a difference, then a division by a
    positive number), so no other candidate can beat the best by more than 1e-6 -- the
    same cut as Weka's, one division fewer per candidate.  Two classes with integer
    weights (``intw``) run on integer counters.  ``min_split`` and ``default_ent`` are the
    node's :func:`c45_min_split` and :func:`c45_node_ent` (the same for every attribute)."""
    known = 0.0
    for c in range(C):
        left[c] = 0.0
        right[c] = cw[c]
        known += cw[c]
    if 2.0 * min_split - sn > WEKA_SMALL:
        return False, 0.0, 0.0, 0.0
    best_gain = 0.0
    best_ent = default_ent  # new_ent of the best cut so far (see above)
    best_lo = 0.0
    best_hi = 0.0
    best_lw = -1.0
    n_cuts = 0
    prev_r = rank[a, S[q, s0]]
    prev_v = uvals[uo + prev_r]
    if intw and C == 2:
        # the loop below with the class counts in integer scalars: the same table entries,
        # summed in the same order
        lo_n = int(min_split - WEKA_SMALL) + 1  # lw >= lo_n  <=>  min_split - lw < 1e-6
        n_all = int(known)
        li0 = 0
        li1 = 0
        ri0 = int(cw[0])
        ri1 = int(cw[1])
        lwi = 0
        for u in range(s0, s0 + sn):
            i = S[q, u]
            r = rank[a, i]
            if r != prev_r:
                v = uvals[uo + r]
                if lwi >= lo_n and n_all - lwi >= lo_n and prev_v + 1e-5 < v:
                    n_cuts += 1
                    new_ent = c45_ent2(lwi, n_all, li0, ri0, li1, ri1)
                    best_gain, best_ent, best_lo, best_hi, best_lw = c45_take(
                        new_ent, prev_v, v, float(lwi), best_gain, best_ent, best_lo, best_hi, best_lw,
                        default_ent, known, sumW)
                prev_r = r
                prev_v = v
            yi = y[i]  # (0 or 1: no branch on the class)
            li1 += yi
            ri1 -= yi
            li0 += 1 - yi
            ri0 -= 1 - yi
            lwi += 1
    else:
        lw = 0.0
        rw = known
        for u in range(s0, s0 + sn):
            i = S[q, u]
            r = rank[a, i]
            if r != prev_r:
                v = uvals[uo + r]
                if prev_v + 1e-5 < v and min_split - lw < WEKA_SMALL and min_split - rw < WEKA_SMALL:
                    n_cuts += 1
                    new_ent = c45_split_ent(lw, rw, left, right, C, intw)
                    best_gain, best_ent, best_lo, best_hi, best_lw = c45_take(
                        new_ent, prev_v, v, lw, best_gain, best_ent, best_lo, best_hi, best_lw,
                        default_ent, known, sumW)
                prev_r = r
                prev_v = v
            c = y[i]
            left[c] += 1.0
            right[c] -= 1.0
            lw += 1.0
            rw -= 1.0
    return c45_numeric_finish(n_cuts, best_gain, best_lw, best_lo, best_hi, known, sumW)


@njit(inline="always", **JIT)
def c45_numeric_scan(gval, gw, G, C, nk, sumW, left, right, intw):
    """The cut scan of C45Split.handleNumericAttribute over ``G`` groups of distinct values
    (increasing) with class weights ``gw``; ``nk`` instances have a known value.
    ``intw``: all weights are integers below the x log2 x table's size."""
    known = 0.0
    for c in range(C):
        left[c] = 0.0
        right[c] = 0.0
    for g in range(G):
        for c in range(C):
            right[c] += gw[g * C + c]
    for c in range(C):
        known += right[c]
    min_split = c45_min_split(known, C)
    if 2.0 * min_split - nk > WEKA_SMALL:  # too few instances with known values
        return False, 0.0, 0.0, 0.0
    default_ent = c45_node_ent(right, C, known)
    best_gain = 0.0
    best_ent = default_ent  # new_ent of the best cut so far (see c45_numeric_presorted)
    best_g = -1
    n_cuts = 0
    lw = 0.0
    rw = known
    for g in range(G - 1):
        for c in range(C):
            x = gw[g * C + c]
            left[c] += x
            right[c] -= x
            lw += x
            rw -= x
        if not (gval[g] + 1e-5 < gval[g + 1]):
            continue  # Weka: no cut between values closer than 1e-5
        if min_split - lw < WEKA_SMALL and min_split - rw < WEKA_SMALL:
            n_cuts += 1
            new_ent = c45_split_ent(lw, rw, left, right, C, intw)
            gain = c45_accept(new_ent, best_ent, best_gain, default_ent, known, sumW)
            if gain >= 0.0:
                best_gain = gain
                best_ent = new_ent
                best_g = g
    if n_cuts == 0:
        return False, 0.0, 0.0, 0.0
    gain = best_gain - c45_log2_cuts(n_cuts) / sumW
    if gain < WEKA_SMALL:  # smOrEq(gain, 0)
        return False, 0.0, 0.0, 0.0
    lo = gval[best_g]
    hi = gval[best_g + 1]
    cut = (lo + hi) / 2.0
    if cut == hi:
        cut = lo
    lw = 0.0
    for g in range(best_g + 1):
        for c in range(C):
            lw += gw[g * C + c]
    rw = known - lw
    ratio = c45_gain_ratio(gain, -xlog2x(lw) - xlog2x(rw), known, sumW)
    return True, gain, ratio, cut


@njit(inline="always", **JIT)
def c45_numeric_counts(cnt, b0, R, uv, uo, C, cw, sumW, min_split, default_ent, gapok, left, right, intw, pres):
    """:func:`c45_numeric_scan` over the class counts of a numeric attribute's ``R`` distinct
    values (``cnt[b0 + r*C + c]``, value ``uv[uo + r]``; most are absent from a node), read in
    place: the same candidate cuts (between consecutive values present), the same sums
    (absent values add 0.0) and the same result, without gathering the groups first.

    Unit weights and no missing value in the node, so the per-class totals are the node's
    class counts ``cw`` (exact: integer sums).  ``gapok``: consecutive distinct values of
    the attribute are all more than 1e-5 apart, so every pair of consecutive present values
    is a candidate.  Two classes with ``intw`` run on integer counters over the values
    present, listed first without a branch per value (``pres``: room for ``R``), and stop
    once the right side is below the minimum split (no candidate after it).  ``min_split`` and
    ``default_ent``: as in :func:`c45_numeric_presorted`."""
    known = 0.0
    for c in range(C):
        left[c] = 0.0
        right[c] = cw[c]
        known += cw[c]
    if 2.0 * min_split - known > WEKA_SMALL:  # too few instances
        return False, 0.0, 0.0, 0.0
    best_gain = 0.0
    best_ent = default_ent  # new_ent of the best cut so far (see c45_numeric_presorted)
    best_lo = 0.0
    best_hi = 0.0
    best_lw = -1.0
    n_cuts = 0
    have_prev = False
    prev_v = 0.0
    if intw and C == 2:
        lo_n = int(min_split - WEKA_SMALL) + 1  # lw >= lo_n  <=>  min_split - lw < 1e-6
        n_all = int(known)
        hi_n = n_all - lo_n  # rw >= lo_n  <=>  lw <= hi_n
        li0 = 0
        li1 = 0
        ri0 = int(right[0])
        ri1 = int(right[1])
        lwi = 0
        prev_r = -1
        npres = 0
        for r in range(R):
            pres[npres] = r
            npres += cnt[b0 + 2 * r] + cnt[b0 + 2 * r + 1] != 0
        for p in range(npres):
            r = pres[p]
            k0 = int(cnt[b0 + 2 * r])
            k1 = int(cnt[b0 + 2 * r + 1])
            # lwi >= lo_n >= 2 implies a present value before this one
            if lwi >= lo_n:
                if lwi > hi_n:
                    break  # lw only grows: no candidate from here on
                if gapok or uv[uo + prev_r] + 1e-5 < uv[uo + r]:
                    n_cuts += 1
                    new_ent = c45_ent2(lwi, n_all, li0, ri0, li1, ri1)
                    best_gain, best_ent, best_lo, best_hi, best_lw = c45_take(
                        new_ent, uv[uo + prev_r], uv[uo + r], float(lwi), best_gain, best_ent, best_lo, best_hi, best_lw,
                        default_ent, known, sumW)
            li0 += k0
            ri0 -= k0
            li1 += k1
            ri1 -= k1
            lwi += k0 + k1
            prev_r = r
    else:
        lw = 0.0
        rw = known
        for r in range(R):
            wv = 0.0
            for c in range(C):
                wv += cnt[b0 + r * C + c]
            if not wv > 0.0:
                continue
            v = uv[uo + r]
            if have_prev and prev_v + 1e-5 < v and min_split - lw < WEKA_SMALL and min_split - rw < WEKA_SMALL:
                n_cuts += 1
                new_ent = c45_split_ent(lw, rw, left, right, C, intw)
                best_gain, best_ent, best_lo, best_hi, best_lw = c45_take(
                    new_ent, prev_v, v, lw, best_gain, best_ent, best_lo, best_hi, best_lw,
                    default_ent, known, sumW)
            for c in range(C):
                x = cnt[b0 + r * C + c]
                left[c] += x
                right[c] -= x
                lw += x
                rw -= x
            have_prev = True
            prev_v = v
    return c45_numeric_finish(n_cuts, best_gain, best_lw, best_lo, best_hi, known, sumW)
