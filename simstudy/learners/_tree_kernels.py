"""Numba kernels for the batched tree learners (rf, ab, rt) in :mod:`simstudy.learners.trees`.

The kernels re-implement, step for step, what scikit-learn 1.9 does when it fits a
``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` (best splitter, depth-first
builder), a ``RandomForestClassifier`` (bootstrap as integer sample weights) and an
``AdaBoostClassifier`` (discrete SAMME), *including its random number streams*:

* ``np.random.RandomState(seed)`` (MT19937, ``mt19937_seed`` seeding) and its legacy
  masked-rejection ``randint``: the forest's per-tree seeds, the bootstrap indices, the
  boosting rounds' per-stump seeds and each splitter's initial state;
* the splitter's own xorshift ``our_rand_r`` that draws features in a Fisher-Yates order
  (``sklearn/tree/_splitter.pyx::node_split_best``), with the same bookkeeping of constant
  features, so that ties *between features* are broken exactly as scikit-learn breaks them
  for the same ``random_state``;
* float32 feature values, ``FEATURE_THRESHOLD = 1e-7`` (a float32 addition), thresholds
  at ``x[p-1]/2 + x[p]/2``, strict ``>`` on the proxy improvement (so the first candidate
  in visiting order wins a tie), the criterion's forward/backward update rule and the
  exact floating-point formulas of the Gini and MSE proxies.

With integer sample weights (rt: all 1; rf: bootstrap counts) every sum is exact, so the
trees are identical to scikit-learn's.  The one known source of difference is AdaBoost:
its weights are real numbers updated with ``np.exp(np.log(w) + ...)``; numpy's SIMD
exp/log differ from libm's in the last bit for a few percent of arguments, and the
order in which tied feature values are summed depends on scikit-learn's introsort.  Both
only matter when two candidate stumps are equally good to the last bit.

Speed (issue 7).  Each batch kernel is a small ``prange`` over models calling a plain
per-model function (short parallel regions compile faster), with work arrays allocated
once per model.  The random forest transposes and presorts the training features once per
model; each tree filters those orders by its bootstrap counts and keeps one sorted sample
list per feature, stably partitioned at every split, so no node sorts anything (integer
weights make the order of tied values irrelevant), and the test rows are partitioned
alongside, so each leaf adds its class proportions to the rows that reach it.  Class sums
of a child come from its parent's split; two-class scans keep their sums in scalars.
AdaBoost sorts each feature once per model and scans the sorted lists with each round's
weights (:func:`best_stump`).  The generators' seeding -- a 624-step (397 for a
splitter) dependency chain -- is run for 8 trees, or for all boosting rounds, side by
side.

Everything here is plain arrays; validation lives in ``trees.py``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

FEATURE_THRESHOLD = np.float32(1e-7)  # sklearn/tree/_partitioner.pxd (a float32 const)
EPSILON = float(np.finfo(np.float64).eps)  # sklearn/tree/_tree.pyx
RAND_R_MAX = 2147483647  # sklearn/tree/_utils.pxd
MAX_INT32 = 2147483647  # np.iinfo(np.int32).max, the bound for per-estimator seeds
_SEED_CHUNK = 8  # random forests seed this many trees' generators side by side
INF = np.inf
M32 = 0xFFFFFFFF
# IEEE division, as in scikit-learn's trees (Cython, cdivision=True): x / 0.0 is inf or
# nan, never an exception.  AdaBoost needs it: with real weights a candidate split can
# leave a child of weight exactly 0.0 in floating point (the weights there are clipped
# at machine epsilon and absorbed by the node total), its Gini proxy is nan there and
# `nan > best` simply rejects it.  Under numba's default ("python") error model that
# division raised ZeroDivisionError, which inside a prange loop silently abandoned the
# rest of that thread's block of models (their predictions stayed unwritten).
_JIT = {"cache": True, "error_model": "numpy"}

# ---------------------------------------------------------------------------------------
# np.random.RandomState (legacy MT19937) -- only what scikit-learn draws from it
# ---------------------------------------------------------------------------------------


@njit(**_JIT)
def mt_seed(mt: np.ndarray, seed: int) -> None:
    """numpy's ``mt19937_seed`` (what ``RandomState(int)`` does); mt: (625,) int64, mt[624]=pos."""
    s = seed & M32
    for pos in range(624):
        mt[pos] = s
        s = (1812433253 * (s ^ (s >> 30)) + pos + 1) & M32
    mt[624] = 624


@njit(**_JIT)
def _mt_gen(mt: np.ndarray) -> None:
    # the standard MT19937 twist of the whole block (numpy's mt19937_gen); split at the
    # wrap-around of i + 397 and branch-free so that the compiler can vectorise it
    for i in range(227):
        y = (mt[i] & 0x80000000) | (mt[i + 1] & 0x7FFFFFFF)
        mt[i] = mt[i + 397] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    for i in range(227, 623):
        y = (mt[i] & 0x80000000) | (mt[i + 1] & 0x7FFFFFFF)
        mt[i] = mt[i - 227] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    y = (mt[623] & 0x80000000) | (mt[0] & 0x7FFFFFFF)
    mt[623] = mt[396] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    mt[624] = 0


@njit(**_JIT)
def mt_seed_many(mts: np.ndarray, seeds: np.ndarray, lo: int, n: int) -> None:
    """``mt_seed(mts[j], seeds[lo + j])`` for ``j < n``, the chains run side by side.

    Seeding is a 624-step dependency chain; interleaving independent seeds lets the
    CPU (and the vectoriser) overlap them, about 4x faster than one after another.
    """
    for j in range(n):
        mts[j, 0] = seeds[lo + j] & M32
    for pos in range(1, 624):
        for j in range(n):
            x = mts[j, pos - 1]
            mts[j, pos] = (1812433253 * (x ^ (x >> 30)) + pos) & M32
    for j in range(n):
        mts[j, 624] = 624


@njit(**_JIT)
def _temper(y: int) -> int:
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & M32


@njit(**_JIT)
def mt_next32(mt: np.ndarray) -> int:
    """Next raw 32-bit output (numpy's ``mt19937_next32``)."""
    if mt[624] >= 624:
        _mt_gen(mt)
    pos = mt[624]
    mt[624] = pos + 1
    return _temper(mt[pos])


@njit(**_JIT)
def _gen_mask(rng: int) -> int:
    mask = rng
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    return mask


@njit(**_JIT)
def mt_randint(mt: np.ndarray, high: int) -> int:
    """``RandomState.randint(0, high)`` for ``high <= 2**32`` (legacy masked rejection)."""
    rng = high - 1
    if rng == 0:
        return 0
    mask = _gen_mask(rng)
    while True:
        v = mt_next32(mt) & mask
        if v <= rng:
            return v


@njit(**_JIT)
def splitter_state(seed: int) -> int:
    """Initial ``rand_r_state`` of a tree fitted with ``random_state=seed``.

    scikit-learn's ``Splitter.init`` draws ``RandomState(seed).randint(0, RAND_R_MAX)``:
    the first MT output masked to 31 bits (rejected only if it equals 2**31 - 1).  Only
    ``mt[0], mt[1], mt[397]`` of the seeded block are needed for the first output, so
    seed just that far (the rare rejection falls back to the full generator).
    """
    s = seed & M32
    m0 = s
    m1 = 0
    for pos in range(397):
        s = (1812433253 * (s ^ (s >> 30)) + pos + 1) & M32
        if pos == 0:
            m1 = s
    m397 = s
    y = (m0 & 0x80000000) | (m1 & 0x7FFFFFFF)
    v = _temper(m397 ^ (y >> 1) ^ (0x9908B0DF if (y & 1) else 0)) & 0x7FFFFFFF
    if v <= RAND_R_MAX - 1:
        return v
    mt = np.empty(625, np.int64)
    mt_seed(mt, seed)
    return mt_randint(mt, RAND_R_MAX)


@njit(**_JIT)
def _rand_r(state: np.ndarray) -> int:
    # sklearn/utils/_random.pxd::our_rand_r (xorshift on uint32, result mod 2**31)
    s = state[0]
    if s == 0:
        s = 1
    s ^= (s << 13) & M32
    s ^= s >> 17
    s ^= (s << 5) & M32
    state[0] = s
    return s % 2147483648


# ---------------------------------------------------------------------------------------
# numpy's pairwise summation (np.sum / np.average over a contiguous float64 vector)
# ---------------------------------------------------------------------------------------


@njit(**_JIT)
def _pw_block(a: np.ndarray, lo: int, n: int) -> float:
    # numpy's pairwise_sum for n <= 128: plain loop below 8, else 8 running sums
    if n < 8:
        res = 0.0
        for i in range(lo, lo + n):
            res += a[i]
        return res
    r0 = a[lo]
    r1 = a[lo + 1]
    r2 = a[lo + 2]
    r3 = a[lo + 3]
    r4 = a[lo + 4]
    r5 = a[lo + 5]
    r6 = a[lo + 6]
    r7 = a[lo + 7]
    i = 8
    stop = n - (n % 8)
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@njit(**_JIT)
def pairwise_sum(a: np.ndarray, lo: int, n: int) -> float:
    """``np.add.reduce`` of ``a[lo:lo+n]`` with numpy's blocked pairwise algorithm.

    Above 128 elements numpy returns ``sum(first n2) + sum(rest)`` with ``n2 = n // 2``
    rounded down to a multiple of 8.  Written with an explicit stack because numba's
    on-disk cache cannot reload recursive functions reliably.
    """
    if n <= 128:
        return _pw_block(a, lo, n)
    s_lo = np.empty(64, np.int64)
    s_n = np.empty(64, np.int64)
    s_stage = np.empty(64, np.int64)
    s_acc = np.empty(64, np.float64)
    s_lo[0] = lo
    s_n[0] = n
    s_stage[0] = 0
    top = 1
    ret = 0.0
    while True:
        f = top - 1
        nn = s_n[f]
        if nn <= 128:
            ret = _pw_block(a, s_lo[f], nn)
            top -= 1
        else:
            n2 = nn // 2
            n2 -= n2 % 8
            if s_stage[f] == 0:
                s_stage[f] = 1
                s_lo[top] = s_lo[f]
                s_n[top] = n2
                s_stage[top] = 0
                top += 1
                continue
            if s_stage[f] == 1:
                s_acc[f] = ret
                s_stage[f] = 2
                s_lo[top] = s_lo[f] + n2
                s_n[top] = nn - n2
                s_stage[top] = 0
                top += 1
                continue
            ret = s_acc[f] + ret
            top -= 1
        if top == 0:
            return ret


# ---------------------------------------------------------------------------------------
# sorting samples by one feature (order among equal values does not matter for
# integer weights; see module docstring)
# ---------------------------------------------------------------------------------------


@njit(**_JIT)
def _insertion(v: np.ndarray, s: np.ndarray, lo: int, hi: int) -> None:
    for i in range(lo + 1, hi):
        tv = v[i]
        ts = s[i]
        j = i - 1
        while j >= lo and v[j] > tv:
            v[j + 1] = v[j]
            s[j + 1] = s[j]
            j -= 1
        v[j + 1] = tv
        s[j + 1] = ts


@njit(**_JIT)
def _sort2(v: np.ndarray, s: np.ndarray, lo: int, hi: int) -> None:
    """Sort v[lo:hi] ascending, permuting s alongside.

    Quicksort (median of three) with insertion sort below 17 elements; an explicit stack
    (the larger part is pushed, so depth <= log2 n) instead of recursion, because numba's
    on-disk cache cannot reload recursive functions reliably.
    """
    if hi - lo <= 16:
        _insertion(v, s, lo, hi)
        return
    stack = np.empty((64, 2), np.int64)
    top = 0
    while True:
        while hi - lo > 16:
            mid = (lo + hi) >> 1
            a = v[lo]
            b = v[mid]
            c = v[hi - 1]
            if a < b:
                if b < c:
                    piv = b
                elif a < c:
                    piv = c
                else:
                    piv = a
            else:
                if a < c:
                    piv = a
                elif b < c:
                    piv = c
                else:
                    piv = b
            i = lo
            j = hi - 1
            while i <= j:
                while v[i] < piv:
                    i += 1
                while v[j] > piv:
                    j -= 1
                if i <= j:
                    tv = v[i]
                    v[i] = v[j]
                    v[j] = tv
                    ts = s[i]
                    s[i] = s[j]
                    s[j] = ts
                    i += 1
                    j -= 1
            # push the larger part, continue with the smaller
            if j + 1 - lo < hi - i:
                stack[top, 0] = i
                stack[top, 1] = hi
                hi = j + 1
            else:
                stack[top, 0] = lo
                stack[top, 1] = j + 1
                lo = i
            top += 1
        _insertion(v, s, lo, hi)
        if top == 0:
            return
        top -= 1
        lo = stack[top, 0]
        hi = stack[top, 1]


# ---------------------------------------------------------------------------------------
# one tree: sklearn's DepthFirstTreeBuilder + BestSplitter, Gini or MSE
# ---------------------------------------------------------------------------------------


@njit(**_JIT)
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


@njit(**_JIT)
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


@njit(**_JIT)
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


@njit(**_JIT)
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


@njit(**_JIT)
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
            # ---- node_split_best ----
            f_i = d
            n_visited = 0
            n_found = 0
            n_drawn = 0
            best_proxy = -INF
            while f_i > n_total and (
                n_visited < max_features or n_visited <= n_found + n_drawn
            ):
                n_visited += 1
                f_j = n_drawn + _rand_r(rstate) % (f_i - n_found - n_drawn)
                if f_j < n_known:
                    t = feats[n_drawn]
                    feats[n_drawn] = feats[f_j]
                    feats[f_j] = t
                    n_drawn += 1
                    continue
                f_j += n_found
                f = feats[f_j]
                for p in range(start, end):
                    work_f32[p] = Xl[samples[p], f]
                _sort2(work_f32, samples, start, end)
                if work_f32[end - 1] <= work_f32[start] + FEATURE_THRESHOLD:
                    t = feats[f_j]
                    feats[f_j] = feats[n_total]
                    feats[n_total] = t
                    n_found += 1
                    n_total += 1
                    continue
                f_i -= 1
                t = feats[f_i]
                feats[f_i] = feats[f_j]
                feats[f_j] = t
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
            # constant-feature invariant for siblings and children
            for q in range(n_known):
                feats[q] = constf[q]
            for q in range(n_known, n_total):
                constf[q] = feats[q]
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


@njit(**_JIT)
def _leaf(nf, nt, nl, nr, x):
    node = 0
    while nf[node] >= 0:
        if x[nf[node]] <= nt[node]:
            node = nl[node]
        else:
            node = nr[node]
    return node


@njit(**_JIT)
def _gather(X32, fill, b, has_nan, idx, lo, hi):
    # rows idx[lo:hi] of X as float32, nan -> this model's training-fold mean
    d = X32.shape[1]
    out = np.empty((hi - lo, d), np.float32)
    for r in range(hi - lo):
        i = idx[lo + r]
        for f in range(d):
            v = X32[i, f]
            if has_nan and v != v:
                v = fill[b, f]
            out[r, f] = v
    return out


@njit(**_JIT)
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


# ---------------------------------------------------------------------------------------
# random forest: Gini trees on presorted per-feature sample lists
# ---------------------------------------------------------------------------------------


@njit(**_JIT)
def _first_rand_r_seed(mt: np.ndarray, seed: int) -> int:
    """``splitter_state(seed)`` from an already seeded (untwisted) state ``mt``.

    The first output of ``RandomState(seed)`` depends on ``mt[0], mt[1], mt[397]`` only;
    the forest seeds one state per tree for its bootstrap and the splitter's first draw
    comes from the same seed, so the 397-step seeding is not repeated.
    """
    y = (mt[0] & 0x80000000) | (mt[1] & 0x7FFFFFFF)
    v = _temper(mt[397] ^ (y >> 1) ^ (0x9908B0DF if (y & 1) else 0)) & 0x7FFFFFFF
    if v <= RAND_R_MAX - 1:
        return v
    return splitter_state(seed)  # rejected (p = 2**-31): the general path


@njit(**_JIT)
def _bootstrap_counts(mt: np.ndarray, m: int, w: np.ndarray) -> None:
    """``w[i]`` = how often ``RandomState.randint(0, m, m)`` drew ``i`` (seeded ``mt``)."""
    for r in range(m):
        w[r] = 0.0
    rng = m - 1
    if rng == 0:
        w[0] = float(m)
        return
    mask = _gen_mask(rng)
    k = 0
    pos = mt[624]
    while k < m:
        if pos >= 624:
            _mt_gen(mt)
            pos = 0
        v = _temper(mt[pos]) & mask
        pos += 1
        if v <= rng:
            w[v] += 1.0
            k += 1
    mt[624] = pos


@njit(**_JIT)
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


@njit(**_JIT)
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
            f_i = d
            n_visited = 0
            n_found = 0
            n_drawn = 0
            best_proxy = -INF
            while f_i > n_total and (
                n_visited < max_features or n_visited <= n_found + n_drawn
            ):
                n_visited += 1
                f_j = n_drawn + _rand_r(rstate) % (f_i - n_found - n_drawn)
                if f_j < n_known:
                    t = feats[n_drawn]
                    feats[n_drawn] = feats[f_j]
                    feats[f_j] = t
                    n_drawn += 1
                    continue
                f_j += n_found
                f = feats[f_j]
                if XT[f, lists[f, end - 1]] <= XT[f, lists[f, start]] + FEATURE_THRESHOLD:
                    t = feats[f_j]
                    feats[f_j] = feats[n_total]
                    feats[n_total] = t
                    n_found += 1
                    n_total += 1
                    continue
                f_i -= 1
                t = feats[f_i]
                feats[f_i] = feats[f_j]
                feats[f_j] = t
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
            # constant-feature invariant for siblings and children
            for q in range(n_known):
                feats[q] = constf[q]
            for q in range(n_known, n_total):
                constf[q] = feats[q]
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


@njit(**_JIT)
def _argsort_rows(XT):
    # (d, m) sample orders by each feature (ties in index order: irrelevant, see above)
    d, m = XT.shape
    order = np.empty((d, m), np.int64)
    work = np.empty(m, np.float32)
    for f in range(d):
        for i in range(m):
            work[i] = XT[f, i]
            order[f, i] = i
        _sort2(work, order[f], 0, m)
    return order


@njit(**_JIT)
def _gather_T(X32, fill, b, has_nan, idx, lo, hi):
    # rows idx[lo:hi] of X transposed to (d, rows) float32, nan -> training-fold mean
    d = X32.shape[1]
    out = np.empty((d, hi - lo), np.float32)
    for r in range(hi - lo):
        i = idx[lo + r]
        for f in range(d):
            v = X32[i, f]
            if has_nan and v != v:
                v = fill[b, f]
            out[f, r] = v
    return out


@njit(**_JIT)
def _rf_one(b, X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
            n_trees, max_features, max_depth, bootstrap, out):
    # model b of :func:`rf_batch` (a plain function: the parallel loop stays small,
    # which keeps numba's compile time down)
    d = X32.shape[1]
    lo = tr_ptr[b]
    hi = tr_ptr[b + 1]
    m = hi - lo
    tlo = te_ptr[b]
    thi = te_ptr[b + 1]
    nte = thi - tlo
    if m == 0 or nte == 0:
        return
    XT = _gather_T(X32, fill, b, has_nan, tr_idx, lo, hi)
    XtT = _gather_T(X32, fill, b, has_nan, te_idx, tlo, thi)
    yc = np.empty(m, np.int64)
    for r in range(m):
        yc[r] = y[tr_idx[lo + r]]
    order = _argsort_rows(XT)
    lists = np.empty((d, m), np.int64)
    w = np.empty(m, np.float64)
    flag = np.zeros(m, np.bool_)
    tmp = np.empty(m, np.int64)
    feats = np.empty(d, np.int64)
    constf = np.empty(d, np.int64)
    sums = np.empty((2, C), np.float64)
    st_i = np.empty((m + 3, 7), np.int64)
    st_f = np.empty(m + 3, np.float64)
    st_c = np.empty((m + 3, C), np.float64)
    tidx = np.empty(nte, np.int64)
    ttmp = np.empty(nte, np.int64)
    proba = np.zeros((nte, C), np.float64)
    forest = np.empty(625, np.int64)
    mt_seed(forest, seeds[b])
    # the trees' seeds: one RandomState.randint(MAX_INT32) each from the forest's
    # stream (sklearn's _set_random_states), independent of the data: draw them all
    tseeds = np.empty(n_trees, np.int64)
    for t in range(n_trees):
        tseeds[t] = mt_randint(forest, MAX_INT32)
    mts = np.empty((_SEED_CHUNK, 625), np.int64)
    rstate = np.empty(1, np.int64)
    for t in range(n_trees):
        tseed = tseeds[t]
        if bootstrap:
            # _generate_sample_indices: RandomState(tseed).randint(0, m, m) -> counts;
            # the tree's splitter draws its seed from a fresh RandomState(tseed)
            j = t % _SEED_CHUNK
            if j == 0:
                mt_seed_many(mts, tseeds, t, min(_SEED_CHUNK, n_trees - t))
            mt = mts[j]
            rstate[0] = _first_rand_r_seed(mt, tseed)
            _bootstrap_counts(mt, m, w)
        else:
            rstate[0] = splitter_state(tseed)
            for r in range(m):
                w[r] = 1.0
        ns = 0
        for f in range(d):
            k = 0
            for r in range(m):
                i = order[f, r]
                lists[f, k] = i
                k += 1 if w[i] != 0.0 else 0  # branch-free filter
            ns = k
        for r in range(nte):
            tidx[r] = r
        grow_gini_presorted(XT, yc, w, C, max_features, max_depth, rstate, lists, ns,
                            XtT, tidx, ttmp, nte, proba, feats, constf, sums[0], sums[1],
                            flag, tmp, st_i, st_f, st_c)
    for r in range(nte):
        best = 0
        bv = proba[r, 0] / n_trees
        for c in range(1, C):
            v = proba[r, c] / n_trees
            if v > bv:
                bv = v
                best = c
        out[b, te_idx[tlo + r]] = best



@njit(parallel=True, **_JIT)
def rf_batch(X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
             n_trees, max_features, max_depth, bootstrap, out):
    """RandomForestClassifier(n_estimators=n_trees, max_features, bootstrap) per model.

    Per model: features transposed and presorted once; per tree: one ``RandomState``
    seeding for the bootstrap counts and the splitter's seed, then
    :func:`grow_gini_presorted`.  Work arrays are allocated once per model.
    """
    for b in prange(seeds.shape[0]):
        _rf_one(b, X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
                n_trees, max_features, max_depth, bootstrap, out)
    return out


# ---------------------------------------------------------------------------------------
# batch kernels: one model per (train, test) pair, prange over models
# ---------------------------------------------------------------------------------------


@njit(**_JIT)
def _present(yc, C):
    cnt = np.zeros(C, np.int64)
    for r in range(yc.shape[0]):
        cnt[yc[r]] += 1
    K = 0
    for c in range(C):
        if cnt[c] > 0:
            K += 1
    pc = np.empty(K, np.int64)
    k = 0
    for c in range(C):
        if cnt[c] > 0:
            pc[k] = c
            k += 1
    return pc


@njit(**_JIT)
def _argmax_first(v, K):
    best = 0
    bv = v[0]
    for k in range(1, K):
        if v[k] > bv:
            bv = v[k]
            best = k
    return best


@njit(**_JIT)
def splitter_states(seeds: np.ndarray, out: np.ndarray) -> None:
    """``out[j] = splitter_state(seeds[j])`` for many seeds at once.

    The 397-step seeding recurrence is one long dependency chain per seed; running the
    chains side by side (inner loop over seeds) lets the CPU overlap them.
    """
    n = seeds.shape[0]
    s = np.empty(n, np.int64)
    m0 = np.empty(n, np.int64)
    m1 = np.empty(n, np.int64)
    for j in range(n):
        s[j] = seeds[j] & M32
        m0[j] = s[j]
    for pos in range(397):
        for j in range(n):
            x = s[j]
            s[j] = (1812433253 * (x ^ (x >> 30)) + pos + 1) & M32
        if pos == 0:
            for j in range(n):
                m1[j] = s[j]
    for j in range(n):
        y = (m0[j] & 0x80000000) | (m1[j] & 0x7FFFFFFF)
        v = _temper(s[j] ^ (y >> 1) ^ (0x9908B0DF if (y & 1) else 0)) & 0x7FFFFFFF
        out[j] = v if v <= RAND_R_MAX - 1 else splitter_state(seeds[j])


@njit(**_JIT)
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
        f_i = d
        n_visited = 0
        n_found = 0
        n_drawn = 0
        n_total = 0
        best_proxy = -INF
        while f_i > n_total and (n_visited < d or n_visited <= n_found + n_drawn):
            n_visited += 1
            f_j = n_drawn + _rand_r(rstate) % (f_i - n_found - n_drawn)
            f_j += n_found
            f = feats[f_j]
            v = vs[f]
            o = order[f]
            last = f  # sklearn sorted samples by this feature
            if v[m - 1] <= v[0] + FEATURE_THRESHOLD:
                t = feats[f_j]
                feats[f_j] = feats[n_total]
                feats[n_total] = t
                n_found += 1
                n_total += 1
                continue
            f_i -= 1
            t = feats[f_i]
            feats[f_i] = feats[f_j]
            feats[f_j] = t
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


@njit(**_JIT)
def _ab_one(b, X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
            n_rounds, learning_rate, out, n_used):
    # model b of :func:`ab_batch` (a plain function: the parallel loop stays small,
    # which keeps numba's compile time down)
    d = X32.shape[1]
    lo = tr_ptr[b]
    hi = tr_ptr[b + 1]
    m = hi - lo
    tlo = te_ptr[b]
    thi = te_ptr[b + 1]
    if m == 0 or thi == tlo:
        return
    XT = _gather_T(X32, fill, b, has_nan, tr_idx, lo, hi)
    Xt = _gather(X32, fill, b, has_nan, te_idx, tlo, thi)
    yc = np.empty(m, np.int64)
    yf = np.empty(m, np.float64)
    for r in range(m):
        yc[r] = y[tr_idx[lo + r]]
        yf[r] = yc[r]
    pc = _present(yc, C)
    K = pc.shape[0]
    order = _argsort_rows(XT)
    vs = np.empty((d, m), np.float32)
    for f in range(d):
        for q in range(m):
            vs[f, q] = XT[f, order[f, q]]
    feats = np.empty(d, np.int64)
    sums = np.empty((2, C), np.float64)
    samples = np.empty(m, np.int64)
    goes_left = np.empty(m, np.bool_)
    res = np.empty(4, np.float64)
    sw = np.empty(m, np.float64)
    tmp = np.empty(m, np.float64)
    wrong = np.empty(m, np.bool_)
    s_feat = np.full(n_rounds, -1, np.int64)
    s_thr = np.zeros(n_rounds, np.float64)
    s_cl = np.zeros(n_rounds, np.int64)
    s_cr = np.zeros(n_rounds, np.int64)
    alpha = np.zeros(n_rounds, np.float64)
    ada = np.empty(625, np.int64)
    mt_seed(ada, seeds[b])
    rseeds = np.empty(n_rounds, np.int64)
    for it in range(n_rounds):
        rseeds[it] = mt_randint(ada, MAX_INT32)
    rstates = np.empty(n_rounds, np.int64)
    splitter_states(rseeds, rstates)
    rstate = np.empty(1, np.int64)
    for r in range(m):
        sw[r] = 1.0
    tot = pairwise_sum(sw, 0, m)
    for r in range(m):
        sw[r] = sw[r] / tot
    n_est = 0
    for it in range(n_rounds):
        for r in range(m):
            if sw[r] < EPSILON:  # np.clip(sample_weight, a_min=eps)
                sw[r] = EPSILON
        rstate[0] = rstates[it]
        best_stump(vs, order, yc, yf, sw, C, rstate, feats, sums[0], sums[1], samples,
                   goes_left, res)
        f = int(res[0])
        thr = res[1]
        s_feat[it] = f
        s_thr[it] = thr
        s_cl[it] = int(res[2])
        s_cr[it] = int(res[3])
        for r in range(m):
            if f < 0 or XT[f, r] <= thr:
                pred = s_cl[it]
            else:
                pred = s_cr[it]
            wrong[r] = pred != yc[r]
            tmp[r] = sw[r] if wrong[r] else 0.0
        err = pairwise_sum(tmp, 0, m) / pairwise_sum(sw, 0, m)
        if err <= 0.0:
            alpha[it] = 1.0
            n_est = it + 1
            break
        if err >= 1.0 - 1.0 / K:
            if it == 0:
                # sklearn raises here (a stump no better than chance on the
                # training data); keep that stump alone rather than failing the batch
                alpha[0] = 1.0
                n_est = 1
            break
        a = learning_rate * (math.log((1.0 - err) / err) + math.log(K - 1.0))
        alpha[it] = a
        n_est = it + 1
        if it != n_rounds - 1:
            for r in range(m):
                inc = a if (wrong[r] and sw[r] > 0.0) else 0.0
                sw[r] = math.exp(math.log(sw[r]) + inc)
        tot = pairwise_sum(sw, 0, m)
        if not np.isfinite(tot) or tot <= 0.0:
            break
        if it < n_rounds - 1:
            for r in range(m):
                sw[r] = sw[r] / tot
    n_used[b] = n_est
    S = pairwise_sum(alpha, 0, n_rounds)
    neg = -1.0 / (K - 1.0) if K > 1 else -1.0
    score = np.empty(C, np.float64)
    for r in range(thi - tlo):
        x = Xt[r]
        if K == 1:
            out[b, te_idx[tlo + r]] = pc[0]
            continue
        if K == 2:
            # decision = -(p0/S) + p1/S with p0 == -p1 exactly: only the sign of p1
            p1 = 0.0
            for t in range(n_est):
                h = s_cl[t] if (s_feat[t] < 0 or x[s_feat[t]] <= s_thr[t]) else s_cr[t]
                p1 += alpha[t] if h == pc[1] else -alpha[t]
            out[b, te_idx[tlo + r]] = pc[1] if p1 > 0.0 else pc[0]
            continue
        for k in range(K):
            score[k] = 0.0
        for t in range(n_est):
            h = s_cl[t] if (s_feat[t] < 0 or x[s_feat[t]] <= s_thr[t]) else s_cr[t]
            for k in range(K):
                score[k] += alpha[t] if h == pc[k] else neg * alpha[t]
        for k in range(K):
            score[k] = score[k] / S
        out[b, te_idx[tlo + r]] = pc[_argmax_first(score, K)]



@njit(parallel=True, **_JIT)
def ab_batch(X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
             n_rounds, learning_rate, out, n_used):
    """AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), SAMME) per model.

    Zhu, Zou, Rosset & Hastie (2009), SAMME: alpha_t = lr * (log((1 - e_t) / e_t)
    + log(K - 1)), w_i <- w_i * exp(alpha_t * [h_t(x_i) != y_i]); the control flow
    (early stops, weight clipping at machine epsilon, normalisation) follows
    ``sklearn.ensemble.AdaBoostClassifier.fit`` / ``_boost``.  The features are sorted
    once per model (:func:`best_stump` scans the sorted lists with each round's
    weights) and the rounds' splitter seeds are drawn up front (they do not depend on
    the data).  ``n_used[b]`` receives the number of stumps kept.
    """
    for b in prange(seeds.shape[0]):
        _ab_one(b, X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
                n_rounds, learning_rate, out, n_used)
    return out


@njit(**_JIT)
def _rt_one(b, X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
            max_depth, out):
    # model b of :func:`rt_batch` (a plain function: the parallel loop stays small,
    # which keeps numba's compile time down)
    d = X32.shape[1]
    lo = tr_ptr[b]
    hi = tr_ptr[b + 1]
    m = hi - lo
    tlo = te_ptr[b]
    thi = te_ptr[b + 1]
    if m == 0 or thi == tlo:
        return
    Xl = _gather(X32, fill, b, has_nan, tr_idx, lo, hi)
    Xt = _gather(X32, fill, b, has_nan, te_idx, tlo, thi)
    yc = np.empty(m, np.int64)
    for r in range(m):
        yc[r] = y[tr_idx[lo + r]]
    pc = _present(yc, C)
    Kp = pc.shape[0]
    if Kp == 1:
        for r in range(thi - tlo):
            out[b, te_idx[tlo + r]] = pc[0]
        return
    K = 1 if Kp == 2 else Kp
    yr = np.zeros((m, K), np.float64)
    for r in range(m):
        if Kp == 2:
            yr[r, 0] = 1.0 if yc[r] == pc[1] else 0.0
        else:
            for k in range(Kp):
                if yc[r] == pc[k]:
                    yr[r, k] = 1.0
    nf, nt, nl, nr, nv, work, feats, constf, st, stf, sums = _alloc(m, d, K)
    samples = np.arange(m)
    w = np.ones(m, np.float64)
    rstate = np.empty(1, np.int64)
    rstate[0] = splitter_state(seeds[b])
    grow_tree(Xl, yc, yr, w, False, K, d, max_depth, rstate, samples, m,
              nf, nt, nl, nr, nv, work, feats, constf, sums[0], sums[1], st, stf)
    for r in range(thi - tlo):
        leaf = _leaf(nf, nt, nl, nr, Xt[r])
        if K == 1:
            out[b, te_idx[tlo + r]] = pc[1] if nv[leaf, 0] > 0.5 else pc[0]
        else:
            out[b, te_idx[tlo + r]] = pc[_argmax_first(nv[leaf], K)]



@njit(parallel=True, **_JIT)
def rt_batch(X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
             max_depth, out):
    """Least-squares regression tree on class indicators (DecisionTreeRegressor) per model.

    Two classes present: one output, the indicator of the larger class code, predicted
    class = larger code iff the leaf mean > 0.5 (Wang et al. 2016, sec. 3.1: a regression
    tree on the 0/1 label thresholded at 0.5).  Three or more: one output per present
    class (one-hot), predicted class = argmax of the leaf means (first on ties).
    """
    for b in prange(seeds.shape[0]):
        _rt_one(b, X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
                max_depth, out)
    return out


# ---------------------------------------------------------------------------------------
# C4.5 as Yildiz & Alpaydin (2006, sec. 4.1): an entropy tree grown on presorted lists,
# reduced-error pruned on a hold-out in one bottom-up pass
# ---------------------------------------------------------------------------------------

LN2 = math.log(2.0)  # sklearn/tree/_utils.pyx::log(x) = ln(x) / ln(2.0)
GINI = 0
ENTROPY = 1


@njit(**_JIT)
def _xlogx(c, w):
    # one term of sklearn's Entropy: count_k = c / w; count_k * log(count_k), log base 2
    p = c / w
    return p * (math.log(p) / LN2)


@njit(parallel=True, **_JIT)
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


@njit(**_JIT)
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


@njit(**_JIT)
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


@njit(**_JIT)
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
            f_i = d
            n_visited = 0
            n_found = 0
            n_drawn = 0
            best_proxy = -INF
            while f_i > n_total and (
                n_visited < max_features or n_visited <= n_found + n_drawn
            ):
                n_visited += 1
                f_j = n_drawn + _rand_r(rstate) % (f_i - n_found - n_drawn)
                if f_j < n_known:
                    t = feats[n_drawn]
                    feats[n_drawn] = feats[f_j]
                    feats[f_j] = t
                    n_drawn += 1
                    continue
                f_j += n_found
                f = feats[f_j]
                if XT[f, lists[f, end - 1]] <= XT[f, lists[f, start]] + FEATURE_THRESHOLD:
                    t = feats[f_j]
                    feats[f_j] = feats[n_total]
                    feats[n_total] = t
                    n_found += 1
                    n_total += 1
                    continue
                f_i -= 1
                t = feats[f_i]
                feats[f_i] = feats[f_j]
                feats[f_j] = t
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
            # constant-feature invariant for siblings and children
            for q in range(n_known):
                feats[q] = constf[q]
            for q in range(n_known, n_total):
                constf[q] = feats[q]
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


@njit(**_JIT)
def prune_rep(nf, nt, nl, nr, n_nodes, major, Xh, yh, err_leaf, err_sub, pruned):
    """Reduced-error pruning (Quinlan 1987, sec. 2.3) in one bottom-up pass.

    Every hold-out row ``Xh[r]`` (label ``yh[r]``) is passed down the grown tree; a node's
    ``err_leaf`` counts the rows reaching it that its majority class ``major`` misclassifies,
    i.e. its hold-out errors were it a leaf.  Nodes are visited children first (scikit-learn
    numbers a node before its children, so by decreasing id); a node's subtree errors are
    its children's after their own pruning, and the node becomes a leaf (``pruned``) when
    ``err_leaf <= err_sub`` -- ties prune, giving the smaller tree.  The result is the
    smallest subtree of minimal hold-out error (Esposito, Malerba & Semeraro 1997,
    sec. 3.2).  Nodes that no hold-out row reaches are pruned (0 <= 0).
    """
    for j in range(n_nodes):
        err_leaf[j] = 0
        pruned[j] = False
    for r in range(Xh.shape[0]):
        x = Xh[r]
        yr = yh[r]
        node = 0
        while True:
            if major[node] != yr:
                err_leaf[node] += 1
            f = nf[node]
            if f < 0:
                break
            node = nl[node] if x[f] <= nt[node] else nr[node]
    for j in range(n_nodes - 1, -1, -1):
        if nf[j] < 0:
            err_sub[j] = err_leaf[j]
            continue
        sub = err_sub[nl[j]] + err_sub[nr[j]]
        if err_leaf[j] <= sub:
            pruned[j] = True
            err_sub[j] = err_leaf[j]
        else:
            err_sub[j] = sub


@njit(**_JIT)
def _leaf_pruned(nf, nt, nl, nr, pruned, x):
    # the node where x stops: a leaf of the grown tree or a pruned node
    node = 0
    while nf[node] >= 0 and not pruned[node]:
        if x[nf[node]] <= nt[node]:
            node = nl[node]
        else:
            node = nr[node]
    return node


@njit(**_JIT)
def filter_presorted(gorder, X32, fill, b, has_nan, loc, lists, tmp):
    """Per-feature sorted lists of one model's rows, from one sort of the whole data set.

    ``gorder[f]`` holds all rows of ``X32`` by increasing feature ``f`` (``nan`` last, as
    ``np.argsort`` puts them); ``loc[i]`` is row ``i``'s local index in the model (``-1``:
    not its row).  The model's rows are kept in that order, and its rows missing ``f``
    (which take the model's fill value) are inserted as one block where that value goes.
    The order among equal values is immaterial with integer weights (see module doc).
    """
    d, n = gorder.shape
    for f in range(d):
        nn = 0
        end = n
        if has_nan:
            while end > 0:
                i = gorder[f, end - 1]
                v = X32[i, f]
                if v == v:
                    break
                if loc[i] >= 0:
                    tmp[nn] = loc[i]
                    nn += 1
                end -= 1
        fv = fill[b, f] if has_nan else np.float32(0.0)
        inserted = nn == 0
        k = 0
        for p in range(end):
            i = gorder[f, p]
            li = loc[i]
            if li < 0:
                continue
            if not inserted and X32[i, f] > fv:
                for q in range(nn):
                    lists[f, k] = tmp[q]
                    k += 1
                inserted = True
            lists[f, k] = li
            k += 1
        if not inserted:
            for q in range(nn):
                lists[f, k] = tmp[q]
                k += 1


@njit(**_JIT)
def _c45_one(b, X32, fill, has_nan, gorder, tab, y, C, g_ptr, g_idx, h_ptr, h_idx, te_ptr,
             te_idx, seeds, do_prune, out):
    # model b of :func:`c45_batch`
    d = X32.shape[1]
    lo = g_ptr[b]
    hi = g_ptr[b + 1]
    m = hi - lo
    tlo = te_ptr[b]
    thi = te_ptr[b + 1]
    if m == 0 or thi == tlo:
        return
    XT = _gather_T(X32, fill, b, has_nan, g_idx, lo, hi)
    yc = np.empty(m, np.int64)
    loc = np.full(X32.shape[0], -1, np.int64)
    for r in range(m):
        yc[r] = y[g_idx[lo + r]]
        loc[g_idx[lo + r]] = r
    lists = np.empty((d, m), np.int64)
    tmp = np.empty(m, np.int64)
    filter_presorted(gorder, X32, fill, b, has_nan, loc, lists, tmp)
    w = np.ones(m, np.float64)
    cap = 2 * m + 1
    nf = np.empty(cap, np.int64)
    nt = np.empty(cap, np.float64)
    nl = np.empty(cap, np.int64)
    nr = np.empty(cap, np.int64)
    ncnt = np.empty((cap, C), np.float64)
    feats = np.empty(d, np.int64)
    constf = np.empty(d, np.int64)
    sums = np.empty((2, C), np.float64)
    flag = np.zeros(m, np.bool_)
    st_i = np.empty((m + 3, 6), np.int64)
    st_f = np.empty(m + 3, np.float64)
    st_c = np.empty((m + 3, C), np.float64)
    rstate = np.empty(1, np.int64)
    rstate[0] = splitter_state(seeds[b])
    n_nodes = grow_presorted(XT, yc, w, C, ENTROPY, tab, d, MAX_INT32, rstate, lists, m,
                             nf, nt, nl, nr, ncnt, feats, constf, sums[0], sums[1],
                             flag, tmp, st_i, st_f, st_c)
    major = np.empty(n_nodes, np.int64)
    for j in range(n_nodes):
        major[j] = _argmax_first(ncnt[j], C)
    pruned = np.zeros(n_nodes, np.bool_)
    if do_prune[b]:
        Xh = _gather(X32, fill, b, has_nan, h_idx, h_ptr[b], h_ptr[b + 1])
        yh = np.empty(Xh.shape[0], np.int64)
        for r in range(Xh.shape[0]):
            yh[r] = y[h_idx[h_ptr[b] + r]]
        err_leaf = np.empty(n_nodes, np.int64)
        err_sub = np.empty(n_nodes, np.int64)
        prune_rep(nf, nt, nl, nr, n_nodes, major, Xh, yh, err_leaf, err_sub, pruned)
    Xt = _gather(X32, fill, b, has_nan, te_idx, tlo, thi)
    for r in range(thi - tlo):
        out[b, te_idx[tlo + r]] = major[_leaf_pruned(nf, nt, nl, nr, pruned, Xt[r])]


@njit(parallel=True, **_JIT)
def c45_batch(X32, fill, has_nan, gorder, tab, y, C, g_ptr, g_idx, h_ptr, h_idx, te_ptr,
              te_idx, seeds, do_prune, out):
    """Entropy tree on rows ``g`` + reduced-error pruning on rows ``h``, per model.

    Model ``b`` grows ``DecisionTreeClassifier(criterion="entropy",
    random_state=seeds[b])`` on its grow rows (:func:`grow_presorted`, lists from the
    batch's one sort ``gorder`` by :func:`filter_presorted`, entropy terms from ``tab``),
    prunes it with :func:`prune_rep` on its hold-out rows when ``do_prune[b]``, and
    predicts its test rows with the majority class of the node where each stops (first
    class on ties).
    """
    for b in prange(seeds.shape[0]):
        _c45_one(b, X32, fill, has_nan, gorder, tab, y, C, g_ptr, g_idx, h_ptr, h_idx,
                 te_ptr, te_idx, seeds, do_prune, out)
    return out
