"""The splitter: scikit-learn's ``BestSplitter.node_split_best`` for one node.

Features are visited in the Fisher-Yates order drawn by :mod:`.sampler`; each is scanned
in ascending order of its values and every boundary between distinct values
(``x[p] > x[p-1] + FEATURE_THRESHOLD``) is a candidate, scored by a criterion of
:mod:`.criteria`; the first best candidate (strict ``>``) wins.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .consts import EPSILON, FEATURE_THRESHOLD, INF, JIT
from .criteria import _gini_proxy
from .predict import _argmax_first
from .sampler import draw_constant, draw_keep, draw_next, draw_start


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
        fs = np.empty(7, np.int64)
        draw_start(fs, d, 0)  # the root: no constants known
        best_proxy = -INF
        while True:
            f = draw_next(fs, feats, rstate, d)
            if f < 0:
                break
            v = vs[f]
            o = order[f]
            last = f  # sklearn sorted samples by this feature
            if v[m - 1] <= v[0] + FEATURE_THRESHOLD:
                draw_constant(fs, feats)
                continue
            draw_keep(fs, feats)
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
                    r0 = t0c - s0
                    r1 = t1c - s1
                    gl = 0.0 + (1.0 - (s0 * s0 + s1 * s1) / (wl * wl))
                    gr = 0.0 + (1.0 - (r0 * r0 + r1 * r1) / (wr * wr))
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
                proxy = _gini_proxy(K, sum_left, sum_total, wl, wn - wl)
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
        sql = 0.0
        sqr = 0.0
        for c in range(K):
            cl = sum_left[c]
            sql += cl * cl
            cr = sum_total[c] - cl
            sqr += cr * cr
        imp_l = 0.0 + (1.0 - sql / (wl * wl))
        imp_r = 0.0 + (1.0 - sqr / (wr * wr))
        improvement = (wn / wn) * (impurity - wr / wn * imp_r - wl / wn * imp_l)
        if improvement + EPSILON < 0.0:
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
