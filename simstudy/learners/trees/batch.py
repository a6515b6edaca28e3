"""Batch kernels: one model per (train, test) pair, ``prange`` over models.

Each batch kernel is a small ``prange`` loop calling a plain per-model function (short
parallel regions compile faster), with work arrays allocated once per model.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from .consts import _SEED_CHUNK, ENTROPY, EPSILON, GINI, JIT, MAX_INT32, MSE
from .growers import _alloc, grow_presorted, grow_tree
from .numeric import _argsort_rows, filter_presorted, pairwise_sum
from .predict import _argmax_first, _leaf, _leaf_pruned, _present
from .pruners import prune_rep
from .sampler import (
    _bootstrap_counts,
    _first_rand_r_seed,
    mt_randint,
    mt_seed,
    mt_seed_many,
    splitter_state,
    splitter_states,
)
from .splitter import best_stump


@njit(**JIT)
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


@njit(**JIT)
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


@njit(**JIT)
def _labels(y, idx, lo, hi):
    # class codes of rows idx[lo:hi], in that order (the model's local indices)
    yc = np.empty(hi - lo, np.int64)
    for r in range(hi - lo):
        yc[r] = y[idx[lo + r]]
    return yc


@njit(**JIT)
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
    yc = _labels(y, tr_idx, lo, hi)
    order = _argsort_rows(XT)
    # two classes: two-valued features are counted, not kept in lists (grow_presorted)
    rank = np.zeros((d, m + 1), np.int64)
    uvals = np.zeros((d, 2), np.float32)
    counted = False
    for f in range(d):
        U = 0
        prev = XT[f, order[f, 0]]
        for q in range(m):
            i = order[f, q]
            v = XT[f, i]
            if q == 0 or v != prev:
                U += 1
                if U <= 2:
                    uvals[f, U - 1] = v
                prev = v
            rank[f, 1 + i] = U - 1
        if U == 2 and C == 2:
            rank[f, 0] = U
            counted = True
    # sample and test row numbers as uint32 (and the class codes): unsigned indices need
    # no negative-index fix-up, which keeps the grower's inner loops short
    ycu = yc.astype(np.uint32)
    lists = np.empty((d + 1, m), np.uint32)
    w = np.empty(m + 1, np.float64)  # w[m]: _bootstrap_counts' scratch
    flag = np.zeros(m, np.bool_)
    tmp = np.empty(m, np.uint32)
    feats = np.empty(d, np.int64)
    constf = np.empty(d, np.int64)
    sums = np.empty((5, C), np.float64)
    st_i = np.empty((m + 3, 8), np.int64)
    st_f = np.empty(m + 3, np.float64)
    st_c = np.empty((m + 3, C), np.float64)
    tidx = np.empty(nte, np.uint32)
    ttmp = np.empty(nte, np.uint32)
    proba = np.zeros((nte, C), np.float64)
    cap = 2 * m + 1  # the trees' node arrays (recorded, not needed: rows are routed)
    nf = np.empty(cap, np.int64)
    nt = np.empty(cap, np.float64)
    nl = np.empty(cap, np.int64)
    nr = np.empty(cap, np.int64)
    ncnt = np.empty((cap, C), np.float64)
    no_tab = np.zeros(1, np.float64)
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
            if rank[f, 0] > 0:
                continue
            k = 0
            for r in range(m):
                i = order[f, r]
                lists[f, k] = i
                k += 1 if w[i] != 0.0 else 0  # branch-free filter
            ns = k
        if counted:
            k = 0
            for i in range(m):
                lists[d, k] = i
                k += 1 if w[i] != 0.0 else 0
            ns = k
        for r in range(nte):
            tidx[r] = r
        grow_presorted(XT, ycu, w, GINI, no_tab, max_features, max_depth, rstate, lists,
                       ns, nf, nt, nl, nr, ncnt, XtT, tidx, ttmp, proba, feats, constf,
                       sums, flag, tmp, st_i, st_f, st_c, rank, uvals)
    for r in range(nte):
        best = 0
        bv = proba[r, 0] / n_trees
        for c in range(1, C):
            v = proba[r, c] / n_trees
            if v > bv:
                bv = v
                best = c
        out[b, te_idx[tlo + r]] = best


@njit(parallel=True, **JIT)
def rf_batch(X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
             n_trees, max_features, max_depth, bootstrap, out):
    """RandomForestClassifier(n_estimators=n_trees, max_features, bootstrap) per model.

    Per model: features transposed and presorted once; per tree: one ``RandomState``
    seeding for the bootstrap counts and the splitter's seed, then
    :func:`.growers.grow_presorted` (Gini), the test rows routed down each tree.  Work
    arrays are allocated once per model.
    """
    for b in prange(seeds.shape[0]):
        _rf_one(b, X32, fill, has_nan, y, C, tr_ptr, tr_idx, te_ptr, te_idx, seeds,
                n_trees, max_features, max_depth, bootstrap, out)
    return out


@njit(**JIT)
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
    yc = _labels(y, tr_idx, lo, hi)
    yf = yc.astype(np.float64)
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


@njit(parallel=True, **JIT)
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


@njit(**JIT)
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
    yc = _labels(y, tr_idx, lo, hi)
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
    grow_tree(Xl, yc, yr, w, MSE, K, d, max_depth, rstate, samples, m,
              nf, nt, nl, nr, nv, work, feats, constf, sums[0], sums[1], st, stf)
    for r in range(thi - tlo):
        leaf = _leaf(nf, nt, nl, nr, Xt[r])
        if K == 1:
            out[b, te_idx[tlo + r]] = pc[1] if nv[leaf, 0] > 0.5 else pc[0]
        else:
            out[b, te_idx[tlo + r]] = pc[_argmax_first(nv[leaf], K)]


@njit(parallel=True, **JIT)
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


@njit(**JIT)
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
    yc = _labels(y, g_idx, lo, hi)
    loc = np.full(X32.shape[0], -1, np.int64)
    for r in range(m):
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
    sums = np.empty((5, C), np.float64)
    flag = np.zeros(m, np.bool_)
    st_i = np.empty((m + 3, 8), np.int64)
    st_f = np.empty(m + 3, np.float64)
    st_c = np.empty((m + 3, C), np.float64)
    rstate = np.empty(1, np.int64)
    rstate[0] = splitter_state(seeds[b])
    no_rows = np.empty(0, np.int64)  # no test rows routed: the tree is pruned first
    n_nodes = grow_presorted(XT, yc, w, ENTROPY, tab, d, MAX_INT32, rstate, lists, m,
                             nf, nt, nl, nr, ncnt, np.empty((d, 0), np.float32), no_rows,
                             no_rows, np.empty((0, C), np.float64), feats, constf,
                             sums, flag, tmp, st_i, st_f, st_c, np.zeros((d, 1), np.int64),
                             np.empty((d, 0), np.float32))
    major = np.empty(n_nodes, np.int64)
    for j in range(n_nodes):
        major[j] = _argmax_first(ncnt[j], C)
    pruned = np.zeros(n_nodes, np.bool_)
    if do_prune[b]:
        Xh = _gather(X32, fill, b, has_nan, h_idx, h_ptr[b], h_ptr[b + 1])
        yh = _labels(y, h_idx, h_ptr[b], h_ptr[b + 1])
        err_leaf = np.empty(n_nodes, np.int64)
        err_sub = np.empty(n_nodes, np.int64)
        prune_rep(nf, nt, nl, nr, n_nodes, major, Xh, yh, err_leaf, err_sub, pruned)
    Xt = _gather(X32, fill, b, has_nan, te_idx, tlo, thi)
    for r in range(thi - tlo):
        out[b, te_idx[tlo + r]] = major[_leaf_pruned(nf, nt, nl, nr, pruned, Xt[r])]


@njit(parallel=True, **JIT)
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
