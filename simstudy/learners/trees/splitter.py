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
"""

from __future__ import annotations

from numba import njit

from .consts import EPSILON, FEATURE_THRESHOLD, INF, JIT, MSE
from .criteria import (
    class_children,
    class_children2,
    gini_children,
    gini_children2,
    gini_proxy,
    impurity_improvement,
    mse_children,
    proxy_improvement,
    update_left,
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


@njit(**JIT)
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
