"""Tree growers: scikit-learn's ``DepthFirstTreeBuilder`` around the splitter.

Both growers pop nodes from a stack (right child pushed first, so nodes are numbered as
scikit-learn numbers them: a node before its children, left subtree first), make a node a
leaf at ``max_depth``, below two samples or when its impurity is ``<= EPSILON``, and
otherwise ask the splitter (:mod:`.splitter`) for the best split.

* :func:`grow_tree` sorts each node's samples per drawn feature (any weights, any
  criterion; ``rt`` with the squared error);
* :func:`grow_presorted` keeps one sorted list per feature, partitioned stably at every
  split, so that no node sorts anything (integer weights; ``rf`` with Gini, ``c45`` with
  entropy), and can pass test rows down alongside (``rf`` adds each leaf's class
  proportions to the rows that reach it).  Its node loop runs the splitter itself (the
  feature draw of :mod:`.sampler`, then :func:`.splitter.scan_presorted` per feature), with
  the Gini scan written out: the forests' trees are small (a node costs ~200 ns), and a
  call per feature made ``rf`` ~20 % slower (measured).  It is inlined into its callers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .consts import EPSILON, FEATURE_THRESHOLD, GINI, INF, JIT, MSE
from .criteria import (
    class_node_impurity,
    entropy_children,
    gini_children,
    gini_children2,
    gini_proxy,
    impurity_improvement,
    mse_node_impurity,
    node_sums,
)
from .sampler import draw_constant, draw_end, draw_keep, draw_next
from .splitter import scan_presorted, split_sorting


@njit(**JIT)
def grow_tree(
    Xl, yc, yr, w, crit, K, max_features, max_depth, rstate, samples, m,
    nf, nt, nl, nr, nv, work_f32, feats, constf, sum_total, sum_left,
    st_i, st_f,
):
    """Grow one tree exactly as scikit-learn's depth-first builder does.

    ``samples[:m]`` are the (local) indices of the positively weighted samples in
    increasing order; ``Xl`` is float32 (m_all, d); ``crit`` a criterion code (class codes
    ``yc`` for Gini/entropy, outputs ``yr`` (m, K) for MSE).  Node arrays (feature ``nf``,
    threshold ``nt``, children ``nl``/``nr``, value ``nv`` (nodes, K)) are filled in
    sklearn's node order; returns the number of nodes.  Leaves have ``nf = -1``.
    ``st_i`` (cap, 6) int64 / ``st_f`` (cap,) float64 hold the builder's stack.
    """
    d = Xl.shape[1]
    tab = np.zeros(1, np.float64)  # no entropy table: general weights
    for f in range(d):
        feats[f] = f
    wtot = 0.0
    for p in range(m):
        wtot += w[samples[p]]
    n_nodes = 0
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
        wn, sq_total = node_sums(yc, yr, w, crit, K, samples, start, end, sum_total)
        if first:
            if crit == MSE:
                impurity = mse_node_impurity(K, sum_total, wn, sq_total)
            else:
                impurity = class_node_impurity(crit, K, sum_total, wn)
            first = False
        is_leaf = depth >= max_depth or n_node < 2 or impurity <= EPSILON
        best_pos = end
        n_total = n_known
        if not is_leaf:
            best_pos, best_feat, best_thr, imp_l, imp_r, n_total = split_sorting(
                Xl, yc, yr, w, K, crit, tab, samples, start, end, wn, sq_total,
                sum_total, sum_left, work_f32, feats, constf, rstate, max_features,
                n_known, wtot, impurity)
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
            continue
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


@njit(inline="always", **JIT)
def grow_presorted(
    XT, yc, w, crit, tab, max_features, max_depth, rstate, lists, ns,
    nf, nt, nl, nr, ncnt, XtT, tidx, ttmp, proba,
    feats, constf, sums, flag, tmp, st_i, st_f, st_c, rank, uvals,
):
    """One classification tree (scikit-learn's best splitter + depth-first builder) grown on
    presorted per-feature sample lists; Gini or entropy (``crit``, :mod:`.criteria`).

    ``XT`` (d, m) float32 training features; ``w`` integer-valued weights (1, or bootstrap
    counts), so every weighted sum is exact and its order is irrelevant.  ``lists[f, :ns]``
    hold the samples with ``w > 0`` sorted by feature ``f``; each node owns the same range
    ``[start, end)`` of every list, kept sorted by stable partitioning at each split (no
    per-node sorting; lists of features known to be constant in a node are left alone, and
    the range of a child that will be a leaf is never read, so its sibling's samples are
    only compacted and nothing moves when both are leaves).
    A child's class sums come from its parent's split.  ``tab``: the entropy table
    (:func:`.criteria.entropy_table`; any array for Gini).

    The tree is recorded in scikit-learn's node order -- feature ``nf`` (-1 at a leaf),
    threshold ``nt``, children ``nl``/``nr``, weighted class counts ``ncnt`` (nodes, K) --
    and the test rows ``tidx[:nte]`` (columns of ``XtT`` (d, n_test)) follow the splits:
    at its leaf each gets ``proba[row] += value`` (the tree's ``predict_proba``; ``rf``).
    ``st_i`` (cap, 8) / ``st_f`` (cap,) / ``st_c`` (cap, K) hold the builder's stack;
    ``sums`` (5, K) the node's and a left child's class sums, the best candidate's, and
    the values of a split's children that will be leaves (K = ``ncnt.shape[1]``).

    Counted features (Gini, two classes only): a feature ``f`` with ``rank[f, 0] = 2``
    takes two values ``uvals[f, :2]`` in the model, sample ``i`` the ``rank[f, 1 + i]``-th
    (0 or 1).  It has no list: its scan sums the upper value's class weights over the
    node's samples in ``lists[d]`` (kept partitioned like the other lists, in any order) --
    the one candidate of the sorted scan, with the same sums, proxy and threshold (integer
    sums are exact in any order) -- so a split does not partition a list for it.
    ``rank`` (d, 1) of zeros: no counted feature.
    """
    d = XT.shape[0]
    K = ncnt.shape[1]
    nte = tidx.shape[0]
    sum_total = sums[0]
    sum_left = sums[1]
    best_left = sums[2]  # (Gini) the best candidate's left class sums, from its scan
    leafv = sums[3:5]  # the values of a split's children that will be leaves (right, left)
    counted = False
    for f in range(d):
        if rank[f, 0] > 0:
            counted = True
    mrow = d if counted else 0  # a list that holds every node's samples
    for f in range(d):
        feats[f] = f
    wtot = 0.0
    for p in range(ns):
        wtot += w[lists[mrow, p]]
    n_nodes = 0
    # stack record: start, end, depth, parent, is_left, n_constant, test start, test end ;
    # impurity ; class sums
    st_i[0, 0] = 0
    st_i[0, 1] = ns
    st_i[0, 2] = 0
    st_i[0, 3] = -1
    st_i[0, 4] = 0
    st_i[0, 5] = 0
    st_i[0, 6] = 0
    st_i[0, 7] = nte
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
        t0 = st_i[top, 6]
        t1 = st_i[top, 7]
        impurity = st_f[top]
        n_node = end - start
        if first:
            for k in range(K):
                sum_total[k] = 0.0
            wn = 0.0
            for p in range(start, end):
                i = lists[mrow, p]
                wi = w[i]
                sum_total[yc[i]] += wi
                wn += wi
            impurity = class_node_impurity(crit, K, sum_total, wn)
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
        best_wl = 0.0  # (Gini) the best candidate's left weight
        imp_l = 0.0
        imp_r = 0.0
        n_total = n_known
        if not is_leaf:
            # ---- the splitter (node_split_best) on the node's ranges of the lists ----
            f_i, n_visited, n_found, n_drawn = d, 0, 0, 0
            best_proxy = -INF
            while True:
                f_j, n_visited, n_drawn = draw_next(feats, rstate, max_features, f_i,
                                                    n_visited, n_found, n_drawn, n_known,
                                                    n_total)
                if f_j < 0:
                    break
                f = feats[f_j]
                n1 = 0
                w1 = 0.0
                y1 = 0.0
                if rank[f, 0] > 0:
                    # a two-valued feature: the upper value's sums (the left child is the
                    # lower value's samples), in scalars
                    for p in range(start, end):
                        i = lists[d, p]
                        r = rank[f, 1 + i]
                        wr1 = w[i] * r
                        w1 += wr1
                        y1 += wr1 * yc[i]
                        n1 += r
                    const = n1 == 0 or n1 == n_node or uvals[f, 1] <= uvals[f, 0] + FEATURE_THRESHOLD
                else:
                    const = XT[f, lists[f, end - 1]] <= XT[f, lists[f, start]] + FEATURE_THRESHOLD
                if const:
                    draw_constant(feats, f_j, n_total)
                    n_found += 1
                    n_total += 1
                    continue
                f_i -= 1
                draw_keep(feats, f_i, f_j)
                if rank[f, 0] > 0:
                    wl = wn - w1
                    wr = wn - wl
                    s1 = sum_total[1] - y1
                    s0 = wl - s1
                    gl, gr = gini_children2(s0, s1, sum_total[0] - s0, sum_total[1] - s1, wl, wr)
                    proxy = -(wr * gr) - wl * gl
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_pos = end - n1
                        best_feat = f
                        best_thr = uvals[f, 0] / 2.0 + uvals[f, 1] / 2.0
                        best_left[0] = s0
                        best_left[1] = s1
                        best_wl = wl
                    continue
                # the scan: left = [start, p) for each p with x[p] > x[p-1] + threshold
                if crit != GINI:
                    # any other criterion: the splitter's general scan (a call per feature)
                    bp, pos, thr = scan_presorted(XT, f, lists, start, end, w, yc, K, crit,
                                                  tab, wn, sum_total, sum_left, best_proxy)
                    if pos >= 0:
                        best_proxy = bp
                        best_pos = pos
                        best_feat = f
                        best_thr = thr
                    continue
                # Gini: splitter.scan_presorted written out (no call per feature)
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
                        gl, gr = gini_children2(s0, s1, c0 - s0, c1 - s1, wl, wr)
                        proxy = -(wr * gr) - wl * gl
                        if proxy > best_proxy:
                            best_proxy = proxy
                            best_pos = p
                            best_feat = f
                            best_thr = vprev / 2.0 + v / 2.0
                            best_left[0] = s0
                            best_left[1] = s1
                            best_wl = wl
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
                    proxy = gini_proxy(K, sum_left, sum_total, wl, wn - wl)
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_pos = p
                        best_feat = f
                        best_thr = vprev / 2.0 + v / 2.0
                        for k in range(K):
                            best_left[k] = sum_left[k]
                        best_wl = wl
                    vprev = v
            if best_pos < end:
                # the best split's left child: sums, children impurities, improvement
                for k in range(K):
                    sum_left[k] = 0.0
                wl = 0.0
                if crit == GINI:
                    # recorded by the scan (integer sums: the same values)
                    for k in range(K):
                        sum_left[k] = best_left[k]
                    wl = best_wl
                else:
                    for p in range(start, best_pos):
                        i = lists[best_feat, p]
                        wi = w[i]
                        sum_left[yc[i]] += wi
                        wl += wi
                wr = wn - wl
                if crit == GINI:
                    imp_l, imp_r = gini_children(K, sum_left, sum_total, wl, wr)
                else:
                    imp_l, imp_r = entropy_children(K, sum_left, sum_total, wl, wr, tab)
                if impurity_improvement(wn, wtot, impurity, wl, wr, imp_l, imp_r) + EPSILON < 0.0:
                    best_pos = end
            draw_end(feats, constf, n_known, n_total)
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
            for k in range(K):
                sum_left[k] = sum_total[k] / wn  # the leaf's value
            for r in range(t0, t1):
                row = tidx[r]
                for k in range(K):
                    proba[row, k] += sum_left[k]
            continue
        nf[node] = best_feat
        nt[node] = best_thr
        # the other lists: a child that will be a leaf (the builder's test, known now: its
        # size, its impurity, the depth) never reads its range, so with one such child the
        # other child's samples are only compacted (in order), with two nothing is moved;
        # otherwise a stable partition.  Known-constant features are never scanned again
        # below this node: their lists are skipped.
        leaf_l = depth + 1 >= max_depth or best_pos - start < 2 or imp_l <= EPSILON
        leaf_r = depth + 1 >= max_depth or end - best_pos < 2 or imp_r <= EPSILON
        if not (leaf_l and leaf_r):
            if rank[best_feat, 0] > 0:
                for p in range(start, end):
                    i = lists[d, p]
                    flag[i] = rank[best_feat, 1 + i] == 0
            else:
                for p in range(start, best_pos):
                    flag[lists[best_feat, p]] = True
                for p in range(best_pos, end):
                    flag[lists[best_feat, p]] = False
            for f in range(d + 1 if counted else d):
                if f == best_feat:
                    continue
                skip = False
                if f < d:
                    skip = rank[f, 0] > 0  # counted: no list
                    for q in range(n_total):
                        if feats[q] == f:
                            skip = True
                if skip:
                    continue
                if leaf_l:
                    # the right child's samples to [best_pos, end), from the back (each
                    # write lands on a position already read)
                    a = end
                    for p in range(end - 1, start - 1, -1):
                        i = lists[f, p]
                        lists[f, a - 1] = i
                        a -= 0 if flag[i] else 1
                elif leaf_r:
                    # the left child's samples to [start, best_pos)
                    a = start
                    for p in range(start, end):
                        i = lists[f, p]
                        lists[f, a] = i
                        a += 1 if flag[i] else 0
                else:
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
        # the test rows: those of a child that will be a leaf get its value here (the
        # leaf's own rows stay empty), the others are partitioned (or only compacted)
        a = t0
        ra = t0  # the right child's test rows: [ra, rb)
        rb = t1
        if leaf_l or leaf_r:
            wnl = 0.0
            wnr = 0.0
            for k in range(K):
                wnl += sum_left[k]
                wnr += sum_total[k] - sum_left[k]
            for k in range(K):
                # the values the children compute as leaves (same sums, same order)
                leafv[0, k] = (sum_total[k] - sum_left[k]) / wnr if leaf_r else 0.0
                leafv[1, k] = sum_left[k] / wnl if leaf_l else 0.0
            for r in range(t0, t1):
                row = tidx[r]
                g = 1 if XtT[best_feat, row] <= best_thr else 0
                for k in range(K):
                    proba[row, k] += leafv[g, k]  # + 0.0 on a side that is not a leaf
                tidx[a] = row
                if leaf_l and leaf_r:
                    pass
                elif leaf_l:
                    a += 1 - g  # keep the right child's rows
                else:
                    a += g  # keep the left child's rows
            if leaf_l:
                ra = t0
                rb = a
                a = t0
            else:
                ra = a
                rb = a
        else:
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
            ra = a
        # push right, then left (left is processed first: sklearn's node order)
        st_i[top, 0] = best_pos
        st_i[top, 1] = end
        st_i[top, 2] = depth + 1
        st_i[top, 3] = node
        st_i[top, 4] = 0
        st_i[top, 5] = n_total
        st_i[top, 6] = ra
        st_i[top, 7] = rb
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
        st_i[top, 6] = t0
        st_i[top, 7] = a
        st_f[top] = imp_l
        for k in range(K):
            st_c[top, k] = sum_left[k]
        top += 1
    return n_nodes
