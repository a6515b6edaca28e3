"""Tree growers: scikit-learn's ``DepthFirstTreeBuilder`` around the splitter.

:func:`grow_tree` sorts each node's samples per feature (general weights, any criterion
of :mod:`.criteria`; used by ``rt``); :func:`grow_gini_presorted` and
:func:`grow_presorted` keep one sorted list per feature, partitioned stably at every split
(integer weights; ``rf``, ``c45``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .consts import EPSILON, FEATURE_THRESHOLD, INF, JIT
from .criteria import (
    _class_children,
    _class_node_impurity,
    _gini_children,
    _gini_proxy,
    _node_stats,
    _proxy,
    _update,
)
from .numeric import _sort2
from .sampler import draw_constant, draw_end, draw_keep, draw_next, draw_start


@njit(**JIT)
def grow_tree(
    Xl, yc, yr, w, is_gini, K, max_features, max_depth, rstate, samples, m,
    nf, nt, nl, nr, nv, work_f32, feats, constf, sum_total, sum_left,
    st_i, st_f,
):
    """Grow one tree exactly as scikit-learn's depth-first builder does.

    ``samples[:m]`` are the (local) indices of the positively weighted samples in
    increasing order; ``Xl`` is float32 (m_all, d).  Node arrays (feature ``nf``,
    threshold ``nt``, children ``nl``/``nr``, value ``nv`` (nodes, K)) are filled in
    sklearn's node order; returns the number of nodes.  Leaves have ``nf = -1``.
    ``st_i`` (cap, 6) int64 / ``st_f`` (cap,) float64 hold the builder's stack.
    """
    d = Xl.shape[1]
    fs = np.empty(7, np.int64)  # the feature draw's state (sampler.draw_*)
    for f in range(d):
        feats[f] = f
    wtot = 0.0
    for p in range(m):
        wtot += w[samples[p]]
    n_nodes = 0
    top = 0
    # stack record: start, end, depth, parent, is_left, n_constant ; impurity
    st_i[0, 0] = 0
    st_i[0, 1] = m
    st_i[0, 2] = 0
    st_i[0, 3] = -1
    st_i[0, 4] = 0
    st_i[0, 5] = 0
    st_f[0] = INF
    top = 1
    first = True
    while top > 0:
        top -= 1
        start = st_i[top, 0]
        end = st_i[top, 1]
        depth = st_i[top, 2]
        parent = st_i[top, 3]
        is_left = st_i[top, 4]
        n_known = st_i[top, 5]
        impurity = st_f[top]
        n_node = end - start
        wn, sq_total = _node_stats(yc, yr, w, is_gini, K, samples, start, end, sum_total)
        is_leaf = depth >= max_depth or n_node < 2
        if first:
            if is_gini:
                sqc = 0.0
                for c in range(K):
                    sqc += sum_total[c] * sum_total[c]
                impurity = 1.0 - sqc / (wn * wn)
            else:
                impurity = sq_total / wn
                for k in range(K):
                    impurity -= (sum_total[k] / wn) ** 2.0
                impurity /= K
            first = False
        is_leaf = is_leaf or impurity <= EPSILON
        best_pos = end
        best_feat = -1
        best_thr = 0.0
        imp_l = 0.0
        imp_r = 0.0
        n_total = n_known
        if not is_leaf:
            # ---- node_split_best: features in the sampler's order ----
            draw_start(fs, d, n_known)
            best_proxy = -INF
            while True:
                f = draw_next(fs, feats, rstate, max_features)
                if f < 0:
                    break
                for p in range(start, end):
                    work_f32[p] = Xl[samples[p], f]
                _sort2(work_f32, samples, start, end)
                if work_f32[end - 1] <= work_f32[start] + FEATURE_THRESHOLD:
                    draw_constant(fs, feats)
                    continue
                draw_keep(fs, feats)
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
                    wl = _update(yc, yr, w, is_gini, K, samples, pos, p, end,
                                 sum_total, wn, sum_left, wl)
                    pos = p
                    wr = wn - wl
                    proxy = _proxy(is_gini, K, sum_left, sum_total, wl, wr)
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_pos = p
                        best_feat = f
                        best_thr = work_f32[p - 1] / 2.0 + work_f32[p] / 2.0
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
                wl = _update(yc, yr, w, is_gini, K, samples, start, best_pos, end,
                             sum_total, wn, sum_left, 0.0)
                wr = wn - wl
                if is_gini:
                    imp_l, imp_r = _gini_children(K, sum_left, sum_total, wl, wr)
                else:
                    sql = 0.0
                    for p in range(start, best_pos):
                        i = samples[p]
                        for k in range(K):
                            yik = yr[i, k]
                            sql += w[i] * yik * yik
                    sqr = sq_total - sql
                    imp_l = sql / wl
                    imp_r = sqr / wr
                    for k in range(K):
                        imp_l -= (sum_left[k] / wl) ** 2.0
                        imp_r -= ((sum_total[k] - sum_left[k]) / wr) ** 2.0
                    imp_l /= K
                    imp_r /= K
                improvement = (wn / wtot) * (impurity - wr / wn * imp_r - wl / wn * imp_l)
                if improvement + EPSILON < 0.0:
                    best_pos = end
            n_total = draw_end(fs, feats, constf)
            is_leaf = best_pos >= end
        node = n_nodes
        n_nodes += 1
        if parent >= 0:
            if is_left:
                nl[parent] = node
            else:
                nr[parent] = node
        for k in range(K):
            nv[node, k] = sum_total[k] / wn
        if is_leaf:
            nf[node] = -1
            nt[node] = 0.0
            nl[node] = -1
            nr[node] = -1
        else:
            nf[node] = best_feat
            nt[node] = best_thr
            # push right, then left (left is processed first)
            st_i[top, 0] = best_pos
            st_i[top, 1] = end
            st_i[top, 2] = depth + 1
            st_i[top, 3] = node
            st_i[top, 4] = 0
            st_i[top, 5] = n_total
            st_f[top] = imp_r
            top += 1
            st_i[top, 0] = start
            st_i[top, 1] = best_pos
            st_i[top, 2] = depth + 1
            st_i[top, 3] = node
            st_i[top, 4] = 1
            st_i[top, 5] = n_total
            st_f[top] = imp_l
            top += 1
    return n_nodes


@njit(**JIT)
def _alloc(m, d, K):
    cap = 2 * m + 1
    nf = np.empty(cap, np.int64)
    nt = np.empty(cap, np.float64)
    nl = np.empty(cap, np.int64)
    nr = np.empty(cap, np.int64)
    nv = np.empty((cap, K), np.float64)
    work = np.empty(max(m, 1), np.float32)
    feats = np.empty(d, np.int64)
    constf = np.empty(d, np.int64)
    st = np.empty((m + 3, 6), np.int64)
    stf = np.empty(m + 3, np.float64)
    sums = np.empty((2, K), np.float64)
    return nf, nt, nl, nr, nv, work, feats, constf, st, stf, sums


@njit(**JIT)
def grow_gini_presorted(
    XT, yc, w, K, max_features, max_depth, rstate, lists, ns, XtT, tidx, ttmp, nte, proba,
    feats, constf, sum_total, sum_left, flag, tmp, st_i, st_f, st_c,
):
    """One classification tree (scikit-learn's best splitter + depth-first builder, Gini),
    grown on presorted lists, its leaf class proportions added to ``proba`` of test rows.

    ``XT`` (d, m) float32 training features; ``w`` integer-valued weights (bootstrap
    counts), so every weighted sum is exact and its order is irrelevant.  ``lists[f, :ns]``
    hold the samples with ``w > 0`` sorted by feature ``f``; each node owns the same
    range ``[start, end)`` of every list, kept sorted by stable partitioning at each split
    (no per-node sorting).  The features are drawn exactly as in
    ``sklearn/tree/_splitter.pyx::node_split_best`` (Fisher-Yates order from ``rstate``,
    known-constant bookkeeping), candidates scanned in ascending order with the strict
    ``>`` on the Gini proxy, so ties are broken as scikit-learn breaks them.  Test rows
    ``tidx[:nte]`` (columns of ``XtT`` (d, n_test)) follow the splits down to their leaf,
    where ``proba[row] += value`` (the tree's ``predict_proba``).  Returns the node count.
    """
    d = XT.shape[0]
    fs = np.empty(7, np.int64)  # the feature draw's state (sampler.draw_*)
    for f in range(d):
        feats[f] = f
    wtot = 0.0
    for p in range(ns):
        wtot += w[lists[0, p]]
    n_nodes = 0
    # stack record: start, end, depth, is_left (unused), n_constant, test start, test end
    st_i[0, 0] = 0
    st_i[0, 1] = ns
    st_i[0, 2] = 0
    st_i[0, 3] = 0
    st_i[0, 4] = 0
    st_i[0, 5] = 0
    st_i[0, 6] = nte
    st_f[0] = INF
    top = 1
    first = True
    while top > 0:
        top -= 1
        start = st_i[top, 0]
        end = st_i[top, 1]
        depth = st_i[top, 2]
        n_known = st_i[top, 4]
        t0 = st_i[top, 5]
        t1 = st_i[top, 6]
        impurity = st_f[top]
        n_node = end - start
        # class sums: the root's by summation, a child's from its parent's split (exact:
        # integer weights); lists of known-constant features are not kept partitioned
        if first:
            for k in range(K):
                sum_total[k] = 0.0
            wn = 0.0
            for p in range(start, end):
                i = lists[0, p]
                wi = w[i]
                sum_total[yc[i]] += wi
                wn += wi
        else:
            wn = 0.0
            for k in range(K):
                sum_total[k] = st_c[top, k]
                wn += sum_total[k]
        if first:
            sqc = 0.0
            for c in range(K):
                sqc += sum_total[c] * sum_total[c]
            impurity = 1.0 - sqc / (wn * wn)
            first = False
        is_leaf = depth >= max_depth or n_node < 2 or impurity <= EPSILON
        best_pos = end
        best_feat = -1
        best_thr = 0.0
        imp_l = 0.0
        imp_r = 0.0
        n_total = n_known
        if not is_leaf:
            # ---- node_split_best: features in the sampler's order ----
            draw_start(fs, d, n_known)
            best_proxy = -INF
            while True:
                f = draw_next(fs, feats, rstate, max_features)
                if f < 0:
                    break
                if XT[f, lists[f, end - 1]] <= XT[f, lists[f, start]] + FEATURE_THRESHOLD:
                    draw_constant(fs, feats)
                    continue
                draw_keep(fs, feats)
                # the scan: left = [start, p) for each p with x[p] > x[p-1] + threshold
                vprev = XT[f, lists[f, start]]
                if K == 2:
                    # two classes in scalars (sums of integers: exact in any order)
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
                        r0 = c0 - s0
                        r1 = c1 - s1
                        gl = 0.0 + (1.0 - (s0 * s0 + s1 * s1) / (wl * wl))
                        gr = 0.0 + (1.0 - (r0 * r0 + r1 * r1) / (wr * wr))
                        proxy = -(wr * gr) - wl * gl
                        if proxy > best_proxy:
                            best_proxy = proxy
                            best_pos = p
                            best_feat = f
                            best_thr = vprev / 2.0 + v / 2.0
                        vprev = v
                    continue
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
                    proxy = _gini_proxy(K, sum_left, sum_total, wl, wn - wl)
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_pos = p
                        best_feat = f
                        best_thr = vprev / 2.0 + v / 2.0
                    vprev = v
            if best_pos < end:
                for k in range(K):
                    sum_left[k] = 0.0
                wl = 0.0
                for p in range(start, best_pos):
                    i = lists[best_feat, p]
                    wi = w[i]
                    sum_left[yc[i]] += wi
                    wl += wi
                wr = wn - wl
                sql = 0.0
                sqr = 0.0
                for c in range(K):
                    cl = sum_left[c]
                    sql += cl * cl
                    cr = sum_total[c] - cl
                    sqr += cr * cr
                imp_l = 0.0 + (1.0 - sql / (wl * wl))
                imp_r = 0.0 + (1.0 - sqr / (wr * wr))
                improvement = (wn / wtot) * (impurity - wr / wn * imp_r - wl / wn * imp_l)
                if improvement + EPSILON < 0.0:
                    best_pos = end
            n_total = draw_end(fs, feats, constf)
            is_leaf = best_pos >= end
        n_nodes += 1
        if is_leaf:
            for r in range(t0, t1):
                row = tidx[r]
                for k in range(K):
                    proba[row, k] += sum_total[k] / wn
            continue
        # stable partition of the other lists (known-constant ones are never scanned
        # again below this node: skip them), then of the test rows
        for p in range(start, best_pos):
            flag[lists[best_feat, p]] = True
        for p in range(best_pos, end):
            flag[lists[best_feat, p]] = False
        for f in range(d):
            if f == best_feat:
                continue
            skip = False
            for q in range(n_total):
                if feats[q] == f:
                    skip = True
            if skip:
                continue
            # branch-free: both destinations written, one of the counters advances
            a = start
            bcount = 0
            for p in range(start, end):
                i = lists[f, p]
                g = 1 if flag[i] else 0
                lists[f, a] = i
                tmp[bcount] = i
                a += g
                bcount += 1 - g
            for q in range(bcount):
                lists[f, a + q] = tmp[q]
        a = t0
        bcount = 0
        for r in range(t0, t1):
            row = tidx[r]
            g = 1 if XtT[best_feat, row] <= best_thr else 0
            tidx[a] = row
            ttmp[bcount] = row
            a += g
            bcount += 1 - g
        for q in range(bcount):
            tidx[a + q] = ttmp[q]
        # push right, then left (left is processed first: sklearn's node order)
        st_i[top, 0] = best_pos
        st_i[top, 1] = end
        st_i[top, 2] = depth + 1
        st_i[top, 3] = 0
        st_i[top, 4] = n_total
        st_i[top, 5] = a
        st_i[top, 6] = t1
        st_f[top] = imp_r
        for k in range(K):
            st_c[top, k] = sum_total[k] - sum_left[k]
        top += 1
        st_i[top, 0] = start
        st_i[top, 1] = best_pos
        st_i[top, 2] = depth + 1
        st_i[top, 3] = 1
        st_i[top, 4] = n_total
        st_i[top, 5] = t0
        st_i[top, 6] = a
        st_f[top] = imp_l
        for k in range(K):
            st_c[top, k] = sum_left[k]
        top += 1
    return n_nodes


@njit(**JIT)
def grow_presorted(
    XT, yc, w, K, crit, tab, max_features, max_depth, rstate, lists, ns,
    nf, nt, nl, nr, ncnt, feats, constf, sum_total, sum_left, flag, tmp, st_i, st_f, st_c,
):
    """One classification tree (scikit-learn's best splitter + depth-first builder) grown on
    presorted per-feature sample lists, Gini (``crit=0``) or entropy (``crit=1``).

    As :func:`grow_gini_presorted` (same feature draws, same scan, same ties; integer
    weights ``w`` so every sum is exact), but the tree is *recorded*: node arrays in
    scikit-learn's node order -- feature ``nf`` (-1 at a leaf), threshold ``nt``, children
    ``nl``/``nr`` and the weighted class counts ``ncnt`` (nodes, K).  Returns the node count.
    ``tab``: :func:`entropy_table` (unit weights only; any array for Gini).
    """
    d = XT.shape[0]
    fs = np.empty(7, np.int64)  # the feature draw's state (sampler.draw_*)
    for f in range(d):
        feats[f] = f
    wtot = 0.0
    unit = True
    for p in range(ns):
        wtot += w[lists[0, p]]
        unit = unit and w[lists[0, p]] == 1.0
    n_nodes = 0
    # stack record: start, end, depth, parent, is_left, n_constant ; impurity ; class sums
    st_i[0, 0] = 0
    st_i[0, 1] = ns
    st_i[0, 2] = 0
    st_i[0, 3] = -1
    st_i[0, 4] = 0
    st_i[0, 5] = 0
    st_f[0] = INF
    top = 1
    first = True
    while top > 0:
        top -= 1
        start = st_i[top, 0]
        end = st_i[top, 1]
        depth = st_i[top, 2]
        parent = st_i[top, 3]
        is_left = st_i[top, 4]
        n_known = st_i[top, 5]
        impurity = st_f[top]
        n_node = end - start
        if first:
            for k in range(K):
                sum_total[k] = 0.0
            wn = 0.0
            for p in range(start, end):
                i = lists[0, p]
                wi = w[i]
                sum_total[yc[i]] += wi
                wn += wi
            impurity = _class_node_impurity(crit, K, sum_total, wn)
            first = False
        else:
            wn = 0.0
            for k in range(K):
                sum_total[k] = st_c[top, k]
                wn += sum_total[k]
        is_leaf = depth >= max_depth or n_node < 2 or impurity <= EPSILON
        best_pos = end
        best_feat = -1
        best_thr = 0.0
        imp_l = 0.0
        imp_r = 0.0
        n_total = n_known
        if not is_leaf:
            # ---- node_split_best: features in the sampler's order ----
            draw_start(fs, d, n_known)
            best_proxy = -INF
            while True:
                f = draw_next(fs, feats, rstate, max_features)
                if f < 0:
                    break
                if XT[f, lists[f, end - 1]] <= XT[f, lists[f, start]] + FEATURE_THRESHOLD:
                    draw_constant(fs, feats)
                    continue
                draw_keep(fs, feats)
                vprev = XT[f, lists[f, start]]
                if K == 2 and unit:
                    # two classes, unit weights: counts in scalars (exact integers), the
                    # children's impurities by the criterion's own formula
                    s1 = 0.0
                    wl = 0.0
                    for p in range(start + 1, end):
                        i = lists[f, p - 1]
                        s1 += yc[i]
                        wl += 1.0
                        v = XT[f, lists[f, p]]
                        if v <= vprev + FEATURE_THRESHOLD:
                            vprev = v
                            continue
                        sum_left[0] = wl - s1
                        sum_left[1] = s1
                        wr = wn - wl
                        gl, gr = _class_children(crit, K, sum_left, sum_total, wl, wr, tab)
                        proxy = -(wr * gr) - wl * gl
                        if proxy > best_proxy:
                            best_proxy = proxy
                            best_pos = p
                            best_feat = f
                            best_thr = vprev / 2.0 + v / 2.0
                        vprev = v
                    continue
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
                    wr = wn - wl
                    gl, gr = _class_children(crit, K, sum_left, sum_total, wl, wr, tab)
                    proxy = -(wr * gr) - wl * gl
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_pos = p
                        best_feat = f
                        best_thr = vprev / 2.0 + v / 2.0
                    vprev = v
            if best_pos < end:
                for k in range(K):
                    sum_left[k] = 0.0
                wl = 0.0
                for p in range(start, best_pos):
                    i = lists[best_feat, p]
                    wi = w[i]
                    sum_left[yc[i]] += wi
                    wl += wi
                wr = wn - wl
                imp_l, imp_r = _class_children(crit, K, sum_left, sum_total, wl, wr, tab)
                improvement = (wn / wtot) * (impurity - wr / wn * imp_r - wl / wn * imp_l)
                if improvement + EPSILON < 0.0:
                    best_pos = end
            n_total = draw_end(fs, feats, constf)
            is_leaf = best_pos >= end
        node = n_nodes
        n_nodes += 1
        if parent >= 0:
            if is_left:
                nl[parent] = node
            else:
                nr[parent] = node
        for k in range(K):
            ncnt[node, k] = sum_total[k]
        if is_leaf:
            nf[node] = -1
            nt[node] = 0.0
            nl[node] = -1
            nr[node] = -1
            continue
        nf[node] = best_feat
        nt[node] = best_thr
        # stable partition of the other lists (known-constant ones are never scanned
        # again below this node: skip them)
        for p in range(start, best_pos):
            flag[lists[best_feat, p]] = True
        for p in range(best_pos, end):
            flag[lists[best_feat, p]] = False
        for f in range(d):
            if f == best_feat:
                continue
            skip = False
            for q in range(n_total):
                if feats[q] == f:
                    skip = True
            if skip:
                continue
            a = start
            bcount = 0
            for p in range(start, end):
                i = lists[f, p]
                g = 1 if flag[i] else 0
                lists[f, a] = i
                tmp[bcount] = i
                a += g
                bcount += 1 - g
            for q in range(bcount):
                lists[f, a + q] = tmp[q]
        # push right, then left (left is processed first: sklearn's node order)
        st_i[top, 0] = best_pos
        st_i[top, 1] = end
        st_i[top, 2] = depth + 1
        st_i[top, 3] = node
        st_i[top, 4] = 0
        st_i[top, 5] = n_total
        st_f[top] = imp_r
        for k in range(K):
            st_c[top, k] = sum_total[k] - sum_left[k]
        top += 1
        st_i[top, 0] = start
        st_i[top, 1] = best_pos
        st_i[top, 2] = depth + 1
        st_i[top, 3] = node
        st_i[top, 4] = 1
        st_i[top, 5] = n_total
        st_f[top] = imp_l
        for k in range(K):
            st_c[top, k] = sum_left[k]
        top += 1
    return n_nodes
