"""Numba kernels of Weka 3.6's J48 (C4.5 release 8 as Weka implements it), many trees per call.

The algorithm follows Weka 3.6.14's ``weka.classifiers.trees.j48`` package
(``C45ModelSelection``, ``C45Split``, ``Distribution``, ``InfoGainSplitCrit``,
``GainRatioSplitCrit``, ``Stats.addErrs``, ``C45PruneableClassifierTree``,
``ClassifierTree``) with ``-C 0.25 -M 2`` and Weka's defaults (subtree raising on, tree
collapsed before pruning, MDL-corrected numeric splits).  Written from a reading of that
code; the data structures are ours:

* a model's training data is a list of *entries* ``(row, weight)`` (an instance with a
  missing split value is copied into every branch with a fractional weight, as Weka does);
  a node owns a contiguous *segment* of the entry buffer;
* a tree is a set of flat node arrays; the children of a node are contiguous;
* every row's attribute values are integer codes, computed once per call: a nominal
  value's index, a numeric value's rank among the distinct values of the call's rows; a
  numeric split keeps, beside Weka's split point, the largest rank that goes left (the
  values ``v`` with ``v - splitPoint <= 1e-6`` are a prefix of the sorted values), so
  routing a row down a tree compares integers;
* with missing values a node counts its entries per rank (or sorts the ranks when the
  node is small next to the rank range), so the cut scan runs over distinct values only
  -- the same cuts and the same sums as Weka's scan over sorted instances;
* with no missing value in the training rows (all weights 1; :func:`_grow_unit`) the
  branches of a split partition their node's rows, so the entry buffer is the training
  rows themselves, each node's segment partitioned stably in place among its branches
  (also when subtree raising re-distributes a node's rows).  Nominal attributes and
  numeric ones with at most ``LOW_CARD`` distinct values are counted per node (an integer
  table of values x classes, from each row's table cells computed once per call; the
  largest branch's table is its parent's minus the other branches' rows when that is
  cheaper; a table lives in a slot that is reused once its node is split, so the tables
  in use stay few and in cache), and every other numeric attribute keeps its rows in
  sorted order down the tree (sorted once per call, partitioned stably at each split into
  the other half of a double buffer), so no node sorts anything;
* the node's class counts, minimum split and entropy are computed once for all its
  attributes;
* models run in parallel (``prange``); each allocates its own work arrays.

Weka compares floats with ``Utils`` tolerances (``SMALL = 1e-6``): ``gr(a, b)`` is
``a - b > 1e-6``, ``grOrEq(a, b)`` is ``b - a < 1e-6``, ``sm(a, b)`` is ``b - a > 1e-6``,
``smOrEq(a, b)`` is ``a - b < 1e-6``, ``eq`` both; they are reproduced where Weka uses them.

The gain-ratio criterion and the split evaluation (multiway nominal, binary numeric) are
the tree engine's (``trees/criteria.py``: ``c45_info_gain``, ``c45_gain_ratio``,
``xlog2x``; ``trees/splitter.py``: ``c45_*``); this module holds what is J48's own: the
entry buffer with fractional weights, model selection (average-gain rule), collapsing,
error-based pruning with subtree raising, and prediction.

Per-node and per-row helpers take whole arrays and an index rather than a row view: a view
made in a loop costs numba two atomic reference-count operations.

Buffers have fixed capacities; a fit that would overflow sets a flag and is re-run by
the driver with larger buffers (results never depend on capacities).
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..trees.consts import C45_MIN_OBJ as MIN_NO_OBJ
from ..trees.consts import WEKA_SMALL as SMALL
from ..trees.criteria import XLOG2X
from ..trees.splitter import (
    c45_min_split,
    c45_node_ent,
    c45_nominal_ent,
    c45_nominal_split,
    c45_numeric_counts,
    c45_numeric_entries,
    c45_numeric_presorted,
)

#: Weka 3.6.14 ``Statistics.normalInverse(1 - 0.25)`` (printed by Weka itself)
Z_075 = 0.6744897501960816
CF = 0.25
#: numeric attributes with at most this many distinct values are counted per node like
#: nominal ones when nothing is missing (see _grow_unit)
LOW_CARD = 64


@njit(cache=True, inline="always")
def _add_errs_ge1(N, e):
    # Stats.addErrs for e >= 1
    if e + 0.5 >= N:
        return max(N - e, 0.0)
    z = Z_075
    f = (e + 0.5) / N
    r = (f + (z * z) / (2.0 * N) + z * np.sqrt((f / N) - (f * f / N) + (z * z / (4.0 * N * N)))) / (
        1.0 + (z * z) / N
    )
    return r * N - e


@njit(cache=True, inline="always")
def _add_errs(N, e):
    if e < 1.0:
        base = N * (1.0 - CF ** (1.0 / N))
        if e == 0.0:
            return base
        return base + e * (_add_errs_ge1(N, 1.0) - base)
    return _add_errs_ge1(N, e)


@njit(cache=True)
def add_errs(N, e):
    """Stats.addErrs(N, e, 0.25): extra errors of C4.5's upper confidence bound on the
    error rate (exact binomial at e = 0, linear between 0 and 1, normal approximation
    with continuity correction above; Weka's z = normalInverse(0.75))."""
    return _add_errs(N, e)


@njit(cache=True, _nrt=False)
def _max_class(cw, k):
    # Distribution.maxClass of row k of cw: first class strictly above the running max
    # (tolerance)
    best = 0.0
    idx = 0
    for c in range(cw.shape[1]):
        if cw[k, c] - best > SMALL:
            best = cw[k, c]
            idx = c
    return idx


@njit(cache=True, _nrt=False)
def _est_dist(cw, k, tot):
    # getEstimatedErrorsForDistribution of row k of cw
    if abs(tot) < SMALL:
        return 0.0
    e = tot - cw[k, _max_class(cw, k)]
    return e + _add_errs(tot, e)


@njit(cache=True, _nrt=False)
def _seg_dist(y, e_idx, e_w, s0, sn, cw, k):
    # class weights of a segment into row k of cw; returns their sum
    for c in range(cw.shape[1]):
        cw[k, c] = 0.0
    tot = 0.0
    for t in range(s0, s0 + sn):
        w = e_w[t]
        cw[k, y[e_idx[t]]] += w
        tot += w
    return tot


@njit(cache=True, _nrt=False)
def _seg_count(y, e_idx, s0, sn, cw, k):
    """:func:`_seg_dist` for unit weights (exact: integer counts, in any order)."""
    for c in range(cw.shape[1]):
        cw[k, c] = 0.0
    for t in range(s0, s0 + sn):
        cw[k, y[e_idx[t]]] += 1.0
    return float(sn)


# ---------------------------------------------------------------------------------------
# split evaluation: the counts here, the criterion (gain ratio) and the split kinds in
# the tree engine (trees/criteria.py, trees/splitter.py: c45_*)


@njit(cache=True, inline="always")
def _nominal_counts(codes, noms, noff, y, C, e_idx, e_w, s0, sn, cnt):
    """Class weights per value of every nominal attribute, one pass over the segment
    (``codes`` (n, m) int, -1 missing; attribute ``noms[q]``'s block starts at ``noff[q]``)."""
    cnt[: noff[noms.shape[0]]] = 0.0
    for t in range(s0, s0 + sn):
        i = e_idx[t]
        w = e_w[t]
        c = y[i]
        for q in range(noms.shape[0]):
            v = codes[i, noms[q]]
            if v >= 0:
                cnt[noff[q] + v * C + c] += w


@njit(cache=True, _nrt=False)
def _split_point(uvals, lo, hi, cut, present):
    """C45Split.setSplitPoint: the largest training value <= the cut (``-inf`` if none),
    and the largest rank whose value goes left of it (``v - splitPoint <= 1e-6``: a prefix
    of the sorted values, since the difference does not decrease with ``v``; -1 if none)."""
    x = cut + SMALL
    a = lo  # the values uvals[lo:hi] <= x are uvals[lo:a]
    b = hi
    while a < b:
        mid = (a + b) // 2
        if uvals[mid] <= x:
            a = mid + 1
        else:
            b = mid
    r = a - lo - 1
    while r >= 0:
        if present[lo + r]:
            sp = uvals[lo + r]
            while lo + r + 1 < hi and uvals[lo + r + 1] - sp < SMALL:
                r += 1
            return sp, r
        r -= 1
    return -np.inf, -1


@njit(cache=True, _nrt=False)
def _chosen_split(best, nval, uvals, uoff, cuts, present):
    """The split of attribute ``best``: ``(V, branches, split point, largest rank going
    left)`` (V = 0: numeric, two branches)."""
    V = nval[best]
    if V > 0:
        return V, V, 0.0, np.int64(-1)
    sp, thr = _split_point(uvals, uoff[best], uoff[best + 1], cuts[best], present)
    return V, np.int64(2), sp, thr


@njit(cache=True, _nrt=False)
def _set_split(k, best, sp, thr, nsub, c0, n_leaf, n_attr, n_sp, n_thr, n_nsub, n_child):
    """Node ``k`` splits on ``best``; its ``nsub`` children start at node ``c0``."""
    n_leaf[k] = False
    n_attr[k] = best
    n_sp[k] = sp
    n_thr[k] = thr
    n_nsub[k] = nsub
    n_child[k] = c0


# ---------------------------------------------------------------------------------------
# splitting a segment of entries by a node's test


@njit(cache=True, inline="always")
def _branch(code, V, thr):
    """C45Split.whichSubset from a row's code of the split attribute: its branch (-1 if the
    value is missing); a numeric test compares the row's rank with the split's largest
    rank going left."""
    c = np.int64(code)
    if V > 0 or c < 0:
        return c
    if c <= thr:
        return np.int64(0)
    return np.int64(1)


@njit(cache=True, _nrt=False)
def _split_segment(codes, attr, V, thr, nsub, e_idx, e_w, s0, sn, st, ecap, offs, lens, probs):
    """Split a segment into ``nsub`` new segments at the top of the entry buffer
    (ClassifierSplitModel.split after C45Split.resetDistribution): known values go to their
    branch; a missing value goes to every branch whose share of the known weight is
    > 1e-6, with its weight times that share.  Returns False on buffer overflow."""
    for j in range(nsub):
        probs[j] = 0.0
        lens[j] = 0
    known = 0.0
    nmiss = 0
    for t in range(s0, s0 + sn):
        j = _branch(codes[e_idx[t], attr], V, thr)
        if j >= 0:
            probs[j] += e_w[t]
            known += e_w[t]
            lens[j] += 1
        else:
            nmiss += 1
    # Distribution.addInstWithUnknown: shares of the known weight (1/k if none)
    for j in range(nsub):
        if abs(known) < SMALL:
            probs[j] = 1.0 / nsub
        else:
            probs[j] = probs[j] / known
    if nmiss > 0:
        for j in range(nsub):
            if probs[j] > SMALL:
                lens[j] += nmiss
    top = st[0]
    total = 0
    for j in range(nsub):
        offs[j] = top + total
        total += lens[j]
    if top + total > ecap:
        st[2] = 1
        return False
    for j in range(nsub):
        lens[j] = 0
    for t in range(s0, s0 + sn):
        i = e_idx[t]
        j = _branch(codes[i, attr], V, thr)
        if j >= 0:
            p = offs[j] + lens[j]
            e_idx[p] = i
            e_w[p] = e_w[t]
            lens[j] += 1
        else:
            for k in range(nsub):
                if probs[k] > SMALL:
                    p = offs[k] + lens[k]
                    e_idx[p] = i
                    e_w[p] = e_w[t] * probs[k]
                    lens[k] += 1
    st[0] = top + total
    return True


@njit(cache=True, _nrt=False)
def _partition_unit(codesT, attr, V, thr, nsub, y, C, e_idx, tmp, s0, sn, offs, lens, childof, ccnt):
    """:func:`_split_segment` when no value is missing (unit weights): the branches
    partition the segment, so it is partitioned stably in place (``offs``/``lens``: the
    branches' sub-segments), noting on the way each row's branch (``childof``) and the
    branches' class counts (``ccnt``, integers).  ``codesT``: the codes attribute by
    attribute (one attribute's codes of all rows are contiguous)."""
    for u in range(nsub * C):
        ccnt[u] = 0
    for u in range(sn):
        i = e_idx[s0 + u]
        j = _branch(codesT[attr, i], V, thr)
        childof[i] = j
        tmp[u] = i
        ccnt[j * C + y[i]] += 1
    p = s0
    for j in range(nsub):
        offs[j] = p
        for c in range(C):
            p += ccnt[j * C + c]
        lens[j] = 0
    if nsub == 2:
        # two branches: the write positions in registers, no branch on the row's side
        p0 = offs[0]
        p1 = offs[1]
        for u in range(sn):
            i = tmp[u]
            j = childof[i]
            e_idx[p1 if j else p0] = i
            p0 += 1 - j
            p1 += j
        lens[0] = p0 - offs[0]
        lens[1] = p1 - offs[1]
        return
    for u in range(sn):
        i = tmp[u]
        j = childof[i]
        e_idx[offs[j] + lens[j]] = i
        lens[j] += 1


# ---------------------------------------------------------------------------------------
# one tree


@njit(cache=True)
def _count_layout(nval, uoff, is_num, C, nomiss):
    """The attributes whose class weights are counted per node (``cnt``, one block of
    values x classes each): the nominal ones by code and, when nothing is missing, the
    numeric ones with at most LOW_CARD distinct values by rank -- their cut scan runs over
    the node's distinct values from the counts (c45_numeric_counts: the same cuts and sums
    as the scan over sorted rows) and they need no sorted order.  Returns ``(lowcard,
    noms, noff, blk)``: the counted attributes ``noms`` in order, block ``q`` starting at
    ``noff[q]``, and per attribute its block's start (``blk``, -1 if not counted)."""
    m = nval.shape[0]
    lowcard = np.zeros(m, dtype=np.bool_)
    nnom = 0
    for a in range(m):
        if is_num[a] and nomiss and uoff[a + 1] - uoff[a] <= LOW_CARD:
            lowcard[a] = True
        if not is_num[a] or lowcard[a]:
            nnom += 1
    noms = np.empty(nnom, dtype=np.int64)
    noff = np.zeros(nnom + 1, dtype=np.int64)
    blk = np.full(m, -1, dtype=np.int64)
    q = 0
    for a in range(m):
        if not is_num[a] or lowcard[a]:
            noms[q] = a
            blk[a] = noff[q]
            noff[q + 1] = noff[q] + (nval[a] if not is_num[a] else uoff[a + 1] - uoff[a]) * C
            q += 1
    return lowcard, noms, noff, blk


@njit(cache=True)
def _unit_slots(codes, y, C, noms, noff):
    """Per row and counted attribute (the layout with nothing missing), the cell of the
    count table its class falls in: ``noff[q] + value*C + y`` (-1 where the value is
    missing: such rows never train a model counted this way)."""
    n = codes.shape[0]
    out = np.full((n, noms.shape[0]), -1, dtype=np.int32)
    for i in range(n):
        for q in range(noms.shape[0]):
            v = codes[i, noms[q]]
            if v >= 0:
                out[i, q] = noff[q] + v * C + y[i]
    return out


@njit(cache=True, _nrt=False)
def _count_rows(slots, e_idx, s0, sn, tab, base, step):
    """Add ``step`` to the table at ``tab[base:]`` for every counted attribute of the rows
    of a segment (their cells: :func:`_unit_slots`)."""
    nq = slots.shape[1]
    for t in range(s0, s0 + sn):
        i = e_idx[t]
        for q in range(nq):  # (an index loop: a row view per row costs reference counting)
            tab[base + slots[i, q]] += step


@njit(cache=True, _nrt=False)
def _take_slot(free, ss):
    """A table slot (``ss``: slots handed out so far, slots free; ``free[:ss[1]]`` the free
    ones); -1 if all ``free.shape[0]`` slots are in use (a buffer overflow)."""
    if ss[1] > 0:
        ss[1] -= 1
        return free[ss[1]]
    s = ss[0]
    if s == free.shape[0]:
        return -1
    ss[0] = s + 1
    return s


@njit(cache=True, _nrt=False)
def _give_slot(free, ss, s):
    free[ss[1]] = s
    ss[1] += 1


@njit(cache=True, _nrt=False)
def _table_set(tab, b, T, v):
    t = tab[b:b + T]  # (a view: the loop index is provably >= 0, so the loop is vectorised)
    for u in range(T):
        t[u] = v


@njit(cache=True, _nrt=False)
def _table_sub(tab, dst, src, T):
    d = tab[dst:dst + T]
    s = tab[src:src + T]
    for u in range(T):
        d[u] -= s[u]


@njit(cache=True, _nrt=False)
def _select_unit(pool, tb, blk, lowcard, gapok, is_num, numq, nnum, pk, S, rank, uvals, uoff, nval, count_avg, y, C,
                 cw, s0, sn, tot, intw, left, right, pres, valid, gains, ratios, cuts):
    """C45ModelSelection.selectModel at a node with nothing missing (class counts ``cw``,
    count table at ``pool[tb:]``, sorted rows in half ``pk`` of ``S``): every attribute's
    split evaluated, then the largest gain ratio among the splits whose gain is at least
    the average less 1e-3 (first attribute on near-ties).  Returns the attribute (-1: the
    node is a leaf); a numeric one's cut is in ``cuts``.

    What every evaluation shares is computed once (minimum split, the node's entropy in the
    numeric scans' and the nominal split's order).  The split kinds are inlined here, in a
    function compiled without reference counting: called one by one, each call passed
    every array as its fields, which cost more than some of the scans."""
    min_split = c45_min_split(tot, C)
    node_ent = c45_node_ent(cw, C, tot)
    nom_ent = c45_nominal_ent(cw, C, tot, intw)
    m = nval.shape[0]
    avg = 0.0
    nvalid = 0
    for a in range(m):
        if lowcard[a]:
            # the cut scan over the node's distinct values, from the count block
            lo = uoff[a]
            ok, g, r, cut = c45_numeric_counts(pool, tb + blk[a], uoff[a + 1] - lo, uvals, lo, C, cw, tot,
                                               min_split, node_ent, gapok[a], left, right, intw, pres)
            cuts[a] = cut
        elif is_num[a]:
            ok, g, r, cut = c45_numeric_presorted(a, S, pk * nnum + numq[a], rank, uvals, uoff[a], y, C, cw, s0, sn,
                                                  tot, min_split, node_ent, left, right, intw)
            cuts[a] = cut
        else:
            ok, g, r = c45_nominal_split(pool, tb + blk[a], nval[a], C, tot, intw, nom_ent)
        valid[a] = ok
        gains[a] = g
        ratios[a] = r
        if ok and count_avg[a]:
            avg += g
            nvalid += 1
    return _best_ratio(valid, gains, ratios, avg, nvalid)


@njit(cache=True, inline="always")
def _best_ratio(valid, gains, ratios, avg, nvalid):
    """The end of C45ModelSelection.selectModel: among the valid splits with gain >= the
    average gain - 1e-3, the first largest gain ratio (-1 if none, or if it is 0)."""
    if nvalid == 0:
        return -1
    avg = avg / nvalid
    best = -1
    best_r = 0.0
    for a in range(valid.shape[0]):
        if valid[a] and gains[a] >= avg - 1e-3 and ratios[a] - best_r > SMALL:
            best = a
            best_r = ratios[a]
    if abs(best_r) < SMALL:
        return -1
    return best


@njit(cache=True, _nrt=False)
def _nominal_all(cnt, blk, nval, is_num, C, tot, valid, gains, ratios):
    """Every nominal attribute's split from the counts of a node with fractional weights."""
    for a in range(nval.shape[0]):
        if not is_num[a]:
            ok, g, r = c45_nominal_split(cnt, blk[a], nval[a], C, tot, False, np.nan)
            valid[a] = ok
            gains[a] = g
            ratios[a] = r


@njit(cache=True)
def _selection_arrays(m, ncap):
    """Per attribute: valid split, gain, gain ratio, numeric cut; and the node stack."""
    return (np.zeros(m, dtype=np.bool_), np.zeros(m), np.zeros(m), np.zeros(m),
            np.empty(ncap, dtype=np.int64))


@njit(cache=True)
def _gapok(is_num, uvals, uoff):
    """Per numeric attribute: are consecutive distinct values all more than 1e-5 apart
    (then every cut between present values is a candidate: c45_numeric_counts)."""
    m = is_num.shape[0]
    gapok = np.zeros(m, dtype=np.bool_)
    for a in range(m):
        if is_num[a]:
            gapok[a] = True
            for r in range(uoff[a] + 1, uoff[a + 1]):
                if not uvals[r - 1] + 1e-5 < uvals[r]:
                    gapok[a] = False
    return gapok


@njit(cache=True)
def _grow_unit(codes, codesT, slots, nval, rank, uvals, uoff, order, nknown, present, is_num, count_avg, y, C, rows, e_idx,
               n_attr, n_sp, n_thr, n_nsub, n_child, n_leaf, n_empty, n_s0, n_sn, n_cw, n_tot, ncap, st, root_all,
               others, gapok):
    """ClassifierTree.buildTree with C45ModelSelection.selectModel, depth first from the
    root, when no training row has a missing value (all weights 1).  ``e_idx[:nr]`` holds
    the training rows and is partitioned in place.  Returns False on node overflow.

    Count tables (int32, ``T`` cells per slot) belong to the nodes still to be split; the
    largest branch takes over its parent's slot, minus the other branches' rows, when
    that counts fewer rows than counting the growing branches directly.  The numeric
    attributes not counted keep each node's rows in increasing order (``S``: two halves,
    a node's orders in half ``par[k]``, its branches' in the other, partitioned stably;
    only for branches that grow).  ``root_all``: the count table of every row of the call
    (or empty), from which the root's is made by subtracting ``others``, the rows this
    model does not train on.  ``gapok``: :func:`_gapok`."""
    m = nval.shape[0]
    nr = rows.shape[0]
    Vmax = 2
    for a in range(m):
        if nval[a] > Vmax:
            Vmax = nval[a]
    lowcard, noms, noff, blk = _count_layout(nval, uoff, is_num, C, True)
    nnom = noms.shape[0]
    T = noff[nnom]
    intw = nr < XLOG2X.shape[0]
    numq = np.full(m, -1, dtype=np.int64)
    nnum = 0
    for a in range(m):
        if is_num[a] and not lowcard[a]:
            numq[a] = nnum
            nnum += 1
    S = np.empty((2 * nnum, nr), dtype=np.int32)
    par = np.empty(ncap, dtype=np.int64)
    par[0] = 0
    childof = np.empty(codes.shape[0], dtype=np.int64)
    tmp = np.empty(nr, dtype=np.int64)
    if nnum > 0:
        # the root's rows in increasing order of each numeric attribute
        childof[:] = -1
        for q in range(nr):
            childof[rows[q]] = 0
        for a in range(m):
            qa = numq[a]
            if qa >= 0:
                u = 0
                for p in range(nknown[a]):
                    r = order[a, p]
                    if childof[r] == 0:
                        S[qa, u] = r
                        u += 1
    # the root's class counts
    for c in range(C):
        n_cw[0, c] = 0.0
    for q in range(nr):
        n_cw[0, y[rows[q]]] += 1.0
    n_tot[0] = float(nr)
    # table slots: a node waiting to be split holds >= 4 rows, so at most nr / 4 + 1 hold
    # one at a time; with large tables fewer are allocated (a depth-first tree keeps few
    # waiting), growing with the node capacity when a fit runs out and is re-run
    n_tab = np.empty(ncap, dtype=np.int64)
    n_tab[0] = -1
    ss = np.zeros(2, dtype=np.int64)
    nslot = min(nr // 4 + 2, max(16, 1_000_000 // max(T, 1)) + ncap // 64)
    pool = np.empty(nslot * T if T > 0 else 1, dtype=np.int32)
    free = np.empty(nslot, dtype=np.int64)
    nq = slots.shape[1]
    if T > 0:
        s = _take_slot(free, ss)
        n_tab[0] = s
        b = s * T
        if root_all.shape[0] == T and others.shape[0] < nr:
            # every row's table minus the rows this model does not train on
            for u in range(T):
                pool[b + u] = root_all[u]
            for i in others:
                for q in range(nq):
                    c = slots[i, q]
                    if c >= 0:  # (a row not trained on may miss a value)
                        pool[b + c] -= 1
        else:
            _table_set(pool, b, T, 0)
            _count_rows(slots, e_idx, 0, nr, pool, b, 1)
    left = np.empty(C)
    right = np.empty(C)
    cwk = np.empty(C)
    pres = np.empty(LOW_CARD + 1, dtype=np.int64)
    offs = np.empty(Vmax, dtype=np.int64)
    lens = np.empty(Vmax, dtype=np.int64)
    wp = np.empty(Vmax, dtype=np.int64)
    ccnt = np.empty(Vmax * C, dtype=np.int64)
    grows = np.empty(Vmax, dtype=np.bool_)
    valid, gains, ratios, cuts, stack = _selection_arrays(m, ncap)
    sp_ = 1
    stack[0] = 0
    while sp_ > 0:
        sp_ -= 1
        k = stack[sp_]
        s0 = n_s0[k]
        sn = n_sn[k]
        tot = n_tot[k]
        n_leaf[k] = True
        n_empty[k] = abs(tot) < SMALL
        n_attr[k] = -1
        n_nsub[k] = 0
        tk = n_tab[k]
        if 2.0 * MIN_NO_OBJ - tot > SMALL or abs(tot - n_cw[k, _max_class(n_cw, k)]) < SMALL:
            if tk >= 0:
                _give_slot(free, ss, tk)
            continue
        for c in range(C):
            cwk[c] = n_cw[k, c]
        tb = tk * T
        best = _select_unit(pool, tb, blk, lowcard, gapok, is_num, numq, nnum, par[k], S, rank, uvals, uoff, nval,
                            count_avg, y, C, cwk, s0, sn, tot, intw, left, right, pres, valid, gains, ratios, cuts)
        if best < 0:
            if tk >= 0:
                _give_slot(free, ss, tk)
            continue
        V, nsub, sp, thr = _chosen_split(best, nval, uvals, uoff, cuts, present)
        if st[1] + nsub > ncap:
            st[2] = 1
            return False
        _partition_unit(codesT, best, V, thr, nsub, y, C, e_idx, tmp, s0, sn, offs, lens, childof, ccnt)
        c0 = st[1]
        st[1] += nsub
        _set_split(k, best, sp, thr, nsub, c0, n_leaf, n_attr, n_sp, n_thr, n_nsub, n_child)
        pk = par[k]
        for j in range(nsub - 1, -1, -1):
            n_s0[c0 + j] = offs[j]
            n_sn[c0 + j] = lens[j]
            n_tab[c0 + j] = -1
            par[c0 + j] = 1 - pk
            stack[sp_] = c0 + j
            sp_ += 1
        # the branches' class counts, and which will be split further (>= 4 instances,
        # not pure: the test at the top of this loop)
        for j in range(nsub):
            mj = 0
            for c in range(C):
                x = ccnt[j * C + c]
                if x > mj:
                    mj = x
                n_cw[c0 + j, c] = float(x)
            tj = float(lens[j])  # (exact: the sum of the integer counts)
            grows[j] = not (2.0 * MIN_NO_OBJ - tj > SMALL or abs(tj - mj) < SMALL)
            n_tot[c0 + j] = tj
        # the stable partition of every order, for the branches that grow
        for qa in range(nnum):
            src = pk * nnum + qa
            dst = (1 - pk) * nnum + qa
            if nsub == 2:
                # (a row of a branch that does not grow is written at that branch's
                # start and overwritten: no branch on the row's side)
                g0 = np.int64(grows[0])
                g1 = np.int64(grows[1])
                p0 = offs[0]
                p1 = offs[1]
                for u in range(s0, s0 + sn):
                    i = S[src, u]
                    j = childof[i]
                    S[dst, p1 if j else p0] = i
                    p0 += g0 * (1 - j)
                    p1 += g1 * j
                continue
            for j in range(nsub):
                wp[j] = offs[j]
            for u in range(s0, s0 + sn):
                i = S[src, u]
                j = childof[i]
                if grows[j]:
                    S[dst, wp[j]] = i
                    wp[j] += 1
        if T > 0:
            # count tables of the growing branches only (the others become leaves and
            # never read theirs)
            jl = 0
            for j in range(nsub):
                if lens[j] > lens[jl]:
                    jl = j
            # the largest branch's table is the node's minus the other branches' (exact:
            # integer counts) when that counts fewer rows than the growing branches' own
            direct = 0
            for j in range(nsub):
                if grows[j]:
                    direct += lens[j]
            by_sub = grows[jl] and sn - lens[jl] < direct
            if by_sub:
                n_tab[c0 + jl] = tk
            for j in range(nsub):
                if by_sub and (j == jl or lens[j] == 0):
                    continue
                if grows[j]:
                    # a table of its own, counted from the branch's rows
                    s = _take_slot(free, ss)
                    if s < 0:
                        st[2] = 1
                        return False
                    n_tab[c0 + j] = s
                    b = s * T
                    _table_set(pool, b, T, 0)
                    _count_rows(slots, e_idx, offs[j], lens[j], pool, b, 1)
                    if by_sub:
                        _table_sub(pool, tb, b, T)
                elif by_sub:
                    _count_rows(slots, e_idx, offs[j], lens[j], pool, tb, -1)
            if not by_sub:
                _give_slot(free, ss, tk)
    return True


@njit(cache=True)
def _grow(A, codes, nval, rank, uvals, uoff, present, is_num, count_avg, y, C, e_idx, e_w, ecap,
          n_attr, n_sp, n_thr, n_nsub, n_child, n_leaf, n_empty, n_s0, n_sn, n_cw, n_tot, ncap, st):
    """ClassifierTree.buildTree with C45ModelSelection.selectModel, depth first from the
    root segment (node 0, already set up), with fractional weights (some training row has
    a missing value).  Returns False on overflow."""
    m = nval.shape[0]
    Vmax = 2
    Rmax = 1
    for a in range(m):
        if nval[a] > Vmax:
            Vmax = nval[a]
        if is_num[a]:
            R = uoff[a + 1] - uoff[a]
            if R > Rmax:
                Rmax = R
    noms, noff, blk = _count_layout(nval, uoff, is_num, C, False)[1:]
    nnom = noms.shape[0]
    cnt = np.zeros(noff[nnom] + 1)
    bcnt = np.zeros(Rmax, dtype=np.int64)
    bw = np.zeros(Rmax * C)
    nroot = n_sn[0]
    gval = np.empty(nroot + 1)
    gcnt = np.empty(nroot + 1, dtype=np.int64)
    gw = np.empty((nroot + 1) * C)
    keys = np.empty(ecap, dtype=np.int64)
    left = np.empty(C)
    right = np.empty(C)
    offs = np.empty(Vmax, dtype=np.int64)
    lens = np.empty(Vmax, dtype=np.int64)
    probs = np.empty(Vmax)
    valid, gains, ratios, cuts, stack = _selection_arrays(m, ncap)
    sp_ = 0
    stack[sp_] = 0
    sp_ += 1
    while sp_ > 0:
        sp_ -= 1
        k = stack[sp_]
        s0 = n_s0[k]
        sn = n_sn[k]
        tot = _seg_dist(y, e_idx, e_w, s0, sn, n_cw, k)
        n_tot[k] = tot
        n_leaf[k] = True
        n_empty[k] = abs(tot) < SMALL
        n_attr[k] = -1
        n_nsub[k] = 0
        if 2.0 * MIN_NO_OBJ - tot > SMALL or abs(tot - n_cw[k, _max_class(n_cw, k)]) < SMALL:
            continue
        if sn > gval.shape[0]:
            gval = np.empty(sn + 1)
            gcnt = np.empty(sn + 1, dtype=np.int64)
            gw = np.empty((sn + 1) * C)
        if nnom > 0:
            _nominal_counts(codes, noms, noff, y, C, e_idx, e_w, s0, sn, cnt)
            _nominal_all(cnt, blk, nval, is_num, C, tot, valid, gains, ratios)
        for a in range(m):
            if is_num[a]:
                ok, g, r, cut = c45_numeric_entries(a, A, rank, uvals[uoff[a]:uoff[a + 1]], y, C, e_idx, e_w,
                                                    s0, sn, tot, bcnt, bw, gval, gcnt, gw, keys, left, right)
                cuts[a] = cut
                valid[a] = ok
                gains[a] = g
                ratios[a] = r
        # the average gain summed in attribute order
        avg = 0.0
        nvalid = 0
        for a in range(m):
            if valid[a] and count_avg[a]:
                avg += gains[a]
                nvalid += 1
        best = _best_ratio(valid, gains, ratios, avg, nvalid)
        if best < 0:
            continue
        V, nsub, sp, thr = _chosen_split(best, nval, uvals, uoff, cuts, present)
        if st[1] + nsub > ncap:
            st[2] = 1
            return False
        if not _split_segment(codes, best, V, thr, nsub, e_idx, e_w, s0, sn, st, ecap, offs, lens, probs):
            return False
        c0 = st[1]
        st[1] += nsub
        _set_split(k, best, sp, thr, nsub, c0, n_leaf, n_attr, n_sp, n_thr, n_nsub, n_child)
        for j in range(nsub - 1, -1, -1):
            n_s0[c0 + j] = offs[j]
            n_sn[c0 + j] = lens[j]
            stack[sp_] = c0 + j
            sp_ += 1
    return True


@njit(cache=True)
def _collapse(n_leaf, n_nsub, n_child, n_cw, n_tot, nn, reach, te):
    """C45PruneableClassifierTree.collapse from the root: a subtree that does not lower
    the training error by more than 1e-3 becomes a leaf.  The subtrees' training errors
    (getTrainingErrors: sums over the sons in order) are summed once, bottom-up; collapsing
    a node does not change them for the nodes still to be decided (its descendants).  A
    grown tree's ``nn`` nodes are numbered so that sons come after their parent, so index
    order is top-down and its reverse bottom-up (no traversal stack)."""
    for k in range(nn - 1, -1, -1):
        if n_leaf[k]:
            te[k] = n_tot[k] - n_cw[k, _max_class(n_cw, k)]
        else:
            e = 0.0
            for j in range(n_nsub[k]):
                e += te[n_child[k] + j]
            te[k] = e
    reach[:nn] = False
    reach[0] = True
    for k in range(nn):
        if not reach[k] or n_leaf[k]:
            continue
        if te[k] >= n_tot[k] - n_cw[k, _max_class(n_cw, k)] - 1e-3:
            n_leaf[k] = True
            continue
        for j in range(n_nsub[k]):
            reach[n_child[k] + j] = True


@njit(cache=True)
def _est_branch(k, s0, sn, codes, nval, y, e_idx, e_w, ecap, st,
                n_attr, n_thr, n_nsub, n_child, n_leaf, stack, ss0, ssn, cw, offs, lens, probs):
    """getEstimatedErrorsForBranch: estimated errors of subtree ``k`` when it classifies
    another segment (temporary entries at the buffer top, released on return)."""
    top = st[0]
    e = 0.0
    h = 1
    stack[0] = k
    ss0[0] = s0
    ssn[0] = sn
    while h > 0:
        h -= 1
        q = stack[h]
        a0 = ss0[h]
        an = ssn[h]
        if n_leaf[q]:
            tot = _seg_dist(y, e_idx, e_w, a0, an, cw, 0)
            e += _est_dist(cw, 0, tot)
            continue
        nsub = n_nsub[q]
        a = n_attr[q]
        if not _split_segment(codes, a, nval[a], n_thr[q], nsub, e_idx, e_w, a0, an, st, ecap, offs, lens, probs):
            return 0.0
        for j in range(nsub):
            stack[h] = n_child[q] + j
            ss0[h] = offs[j]
            ssn[h] = lens[j]
            h += 1
    st[0] = top
    return e


@njit(cache=True)
def _new_distribution(k, codes, codesT, nval, y, C, e_idx, e_w, tmp, childof, ecap, st,
                      n_attr, n_thr, n_nsub, n_child, n_leaf, n_empty, n_s0, n_sn, n_cw, n_tot,
                      stack, offs, lens, probs, ccnt, unit):
    """newDistribution: re-distribute node ``k``'s segment down its (new) subtree.  With
    unit weights (``unit``) the segment is partitioned in place (the segments of the nodes
    it replaced are not read again), else copied to the buffer top."""
    h = 1
    stack[0] = k
    while h > 0:
        h -= 1
        q = stack[h]
        if unit:
            n_tot[q] = _seg_count(y, e_idx, n_s0[q], n_sn[q], n_cw, q)
        else:
            n_tot[q] = _seg_dist(y, e_idx, e_w, n_s0[q], n_sn[q], n_cw, q)
        if n_leaf[q]:
            if abs(n_tot[q]) >= SMALL:
                n_empty[q] = False
            continue
        nsub = n_nsub[q]
        a = n_attr[q]
        if unit:
            _partition_unit(codesT, a, nval[a], n_thr[q], nsub, y, C, e_idx, tmp, n_s0[q], n_sn[q], offs, lens,
                            childof, ccnt)
        elif not _split_segment(codes, a, nval[a], n_thr[q], nsub, e_idx, e_w, n_s0[q], n_sn[q], st, ecap,
                                offs, lens, probs):
            return
        for j in range(nsub):
            ch = n_child[q] + j
            n_s0[ch] = offs[j]
            n_sn[ch] = lens[j]
            stack[h] = ch
            h += 1


@njit(cache=True)
def _max_bag(k, codes, nval, e_idx, e_w, n_attr, n_thr, n_nsub, n_s0, n_sn, known):
    """Distribution.maxBag of node ``k``'s split: the LAST branch among (near-)ties.
    Branch weights include missing-value instances shared out by known weight."""
    nsub = n_nsub[k]
    a = n_attr[k]
    V = nval[a]
    known[:nsub] = 0.0
    kt = 0.0
    miss = 0.0
    for t in range(n_s0[k], n_s0[k] + n_sn[k]):
        j = _branch(codes[e_idx[t], a], V, n_thr[k])
        if j >= 0:
            known[j] += e_w[t]
            kt += e_w[t]
        else:
            miss += e_w[t]
    best = 0.0
    idx = -1
    for j in range(nsub):
        p = 1.0 / nsub if abs(kt) < SMALL else known[j] / kt
        pb = known[j] + p * miss
        if best - pb < SMALL:  # grOrEq
            best = pb
            idx = j
    return idx


@njit(cache=True, _nrt=False)
def _est_raised(k, jbig, codes, nval, y, C, e_idx, n_attr, n_thr, n_nsub, n_child, n_leaf,
                n_s0, n_sn, n_cw, n_tot, extra, touched, se, cw, mark, stamp):
    """``_est_branch(son jbig of k, segment of k)`` when no value is missing: the son's
    leaves already hold the son's own entries (``n_cw``, estimated errors ``se``), so only
    the other sons' entries are routed down the son's subtree, and only the leaves they
    reach are re-estimated (``mark[q] == stamp``: leaf q reached in this call)."""
    big = n_child[k] + jbig
    nt = 0
    for j in range(n_nsub[k]):
        if j == jbig:
            continue
        ch = n_child[k] + j
        for t in range(n_s0[ch], n_s0[ch] + n_sn[ch]):
            i = e_idx[t]
            q = big
            while not n_leaf[q]:
                a = n_attr[q]
                q = n_child[q] + _branch(codes[i, a], nval[a], n_thr[q])
            if mark[q] != stamp:
                mark[q] = stamp
                touched[nt] = q
                nt += 1
            extra[q, y[i]] += 1.0
    e = se[big]
    for u in range(nt):
        q = touched[u]
        tot = n_tot[q]
        for c in range(C):
            cw[0, c] = n_cw[q, c] + extra[q, c]
            tot += extra[q, c]
            extra[q, c] = 0.0
        e += _est_dist(cw, 0, tot) - se[q]
    return e


@njit(cache=True)
def _prune(codes, codesT, nval, y, C, e_idx, e_w, tmp, childof, ecap, st,
           n_attr, n_sp, n_thr, n_nsub, n_child, n_leaf, n_empty, n_s0, n_sn, n_cw, n_tot, ncap, Vmax, nomiss):
    """C45PruneableClassifierTree.prune from the root: error-based pruning with subtree
    raising, bottom-up.  Weka's recursion ``prune(k)`` = prune the sons, then decide at
    ``k``; after raising, ``prune(k)`` again -- here a stack of frames (node, phase)."""
    fr = np.empty(ncap, dtype=np.int64)
    ph = np.empty(ncap, dtype=np.int64)
    stack = np.empty(ncap, dtype=np.int64)
    ss0 = np.empty(ncap if not nomiss else 0, dtype=np.int64)
    ssn = np.empty(ncap if not nomiss else 0, dtype=np.int64)
    cw = np.empty((1, C))
    offs = np.empty(Vmax, dtype=np.int64)
    lens = np.empty(Vmax, dtype=np.int64)
    probs = np.empty(Vmax)
    ccnt = np.empty(Vmax * C, dtype=np.int64)
    extra = np.zeros((ncap, C))
    mark = np.zeros(ncap, dtype=np.int64)
    stamp = 0
    se = np.zeros(ncap)  # estimated errors of each pruned subtree (getEstimatedErrors)
    h = 1
    fr[0] = 0
    ph[0] = 0
    while h > 0:
        if st[2]:
            return
        k = fr[h - 1]
        if n_leaf[k]:
            se[k] = _est_dist(n_cw, k, n_tot[k])
            h -= 1
            continue
        if ph[h - 1] == 0:
            ph[h - 1] = 1
            for j in range(n_nsub[k] - 1, -1, -1):  # sons in order 0, 1, ...
                fr[h] = n_child[k] + j
                ph[h] = 0
                h += 1
            continue
        if nomiss:
            # the branches partition the node's entries: maxBag from the sons' weights
            jbig = -1
            best = 0.0
            for j in range(n_nsub[k]):
                pb = n_tot[n_child[k] + j]
                if best - pb < SMALL:  # grOrEq: the last of near-ties
                    best = pb
                    jbig = j
            big = n_child[k] + jbig
            stamp += 1
            err_branch = _est_raised(k, jbig, codes, nval, y, C, e_idx, n_attr, n_thr, n_nsub, n_child,
                                     n_leaf, n_s0, n_sn, n_cw, n_tot, extra, stack, se, cw, mark, stamp)
        else:
            big = n_child[k] + _max_bag(k, codes, nval, e_idx, e_w, n_attr, n_thr, n_nsub, n_s0, n_sn, probs)
            err_branch = _est_branch(big, n_s0[k], n_sn[k], codes, nval, y, e_idx, e_w, ecap, st,
                                     n_attr, n_thr, n_nsub, n_child, n_leaf, stack, ss0, ssn, cw,
                                     offs, lens, probs)
        err_leaf = _est_dist(n_cw, k, n_tot[k])
        # the sons are pruned: their estimates are final (summed in order, as Weka's
        # recursive getEstimatedErrors does)
        err_tree = 0.0
        for j in range(n_nsub[k]):
            err_tree += se[n_child[k] + j]
        if st[2]:
            return
        if err_leaf - (err_tree + 0.1) < SMALL and err_leaf - (err_branch + 0.1) < SMALL:
            n_leaf[k] = True
            se[k] = err_leaf
            h -= 1
            continue
        if err_branch - (err_tree + 0.1) < SMALL:
            # raise the largest branch into this node, re-distribute this node's data
            # down it, and prune this node again
            n_attr[k] = n_attr[big]
            n_sp[k] = n_sp[big]
            n_thr[k] = n_thr[big]
            n_nsub[k] = n_nsub[big]
            n_child[k] = n_child[big]
            n_leaf[k] = n_leaf[big]
            _new_distribution(k, codes, codesT, nval, y, C, e_idx, e_w, tmp, childof, ecap, st,
                              n_attr, n_thr, n_nsub, n_child, n_leaf, n_empty, n_s0, n_sn, n_cw, n_tot,
                              stack, offs, lens, probs, ccnt, nomiss)
            ph[h - 1] = 0
            continue
        se[k] = err_tree
        h -= 1


@njit(cache=True)
def _fit_one(A, codes, slots, nval, rank, uvals, uoff, order, nknown, is_num, y, C, rows, ecap, ncap, prune):
    """Grow (and prune) one tree on ``rows``; returns the node arrays and a status flag
    (1 = a buffer overflowed: call again with larger ``ecap``/``ncap``)."""
    nomiss = True
    for q in range(rows.shape[0]):
        for a in range(nval.shape[0]):
            if codes[rows[q], a] < 0:
                nomiss = False
    return _fit_rows(A, codes, np.ascontiguousarray(codes.T), slots, nval, rank, uvals, uoff, order, nknown, is_num,
                     y, C, rows, ecap, ncap, prune, nomiss, np.zeros(0, dtype=np.int32), np.zeros(0, dtype=np.int64),
                     np.zeros(0, dtype=np.int64), _gapok(is_num, uvals, uoff))


@njit(cache=True)
def _fit_rows(A, codes, codesT, slots, nval, rank, uvals, uoff, order, nknown, is_num, y, C, rows, ecap, ncap, prune,
              nomiss, root_all, vcnt_all, others, gapok):
    """:func:`_fit_one` given whether any training row has a missing value (``not nomiss``).
    ``root_all``/``vcnt_all``: the count table and the per-value counts of every row of the
    call (or empty), ``others`` the rows this model does not train on: the root's table and
    the values present come from them by subtraction when that is cheaper.  Without missing
    values the entry buffer is the training rows (``ecap`` unused).  ``codesT``: ``codes``
    attribute by attribute (C-contiguous), which the in-place partitions read; ``gapok``:
    :func:`_gapok` (the same for every model of a call)."""
    nr = rows.shape[0]
    if nomiss:
        ecap = nr
    e_idx = np.empty(ecap, dtype=np.int64)
    e_w = np.empty(ecap if not nomiss else 0)
    n_attr = np.empty(ncap, dtype=np.int64)
    n_sp = np.zeros(ncap)
    n_thr = np.full(ncap, -1, dtype=np.int64)
    n_nsub = np.zeros(ncap, dtype=np.int64)
    n_child = np.zeros(ncap, dtype=np.int64)
    n_leaf = np.ones(ncap, dtype=np.bool_)
    n_empty = np.zeros(ncap, dtype=np.bool_)
    n_s0 = np.zeros(ncap, dtype=np.int64)
    n_sn = np.zeros(ncap, dtype=np.int64)
    n_cw = np.zeros((ncap, C))
    n_tot = np.zeros(ncap)
    st = np.zeros(3, dtype=np.int64)  # entry top, node count, overflow flag
    # C45ModelSelection: nominal attributes with >= 0.3 N values do not count toward the
    # average gain, unless every attribute is such
    m = nval.shape[0]
    multi = True
    for a in range(m):
        if is_num[a] or nval[a] < 0.3 * nr - SMALL:
            multi = False
    count_avg = np.empty(m, dtype=np.bool_)
    for a in range(m):
        count_avg[a] = is_num[a] or multi or nval[a] < 0.3 * nr - SMALL
    # training values present per numeric attribute (for the split-point relocation)
    present = np.zeros(uvals.shape[0], dtype=np.bool_)
    if vcnt_all.shape[0] == uvals.shape[0] and others.shape[0] < nr:
        vc = vcnt_all.copy()
        for a in range(nval.shape[0]):
            if is_num[a]:
                for i in others:
                    r = rank[a, i]
                    if r >= 0:
                        vc[uoff[a] + r] -= 1
        for u in range(vc.shape[0]):
            present[u] = vc[u] > 0
    else:
        for a in range(nval.shape[0]):
            if is_num[a]:
                for q in range(nr):
                    r = rank[a, rows[q]]
                    if r >= 0:
                        present[uoff[a] + r] = True
    tmp = np.empty(nr if nomiss else 0, dtype=np.int64)
    childof = np.empty(codes.shape[0] if nomiss else 0, dtype=np.int64)
    if nr > ecap:
        st[2] = 1
    else:
        for q in range(nr):
            e_idx[q] = rows[q]
        if not nomiss:
            for q in range(nr):
                e_w[q] = 1.0
        st[0] = nr
        st[1] = 1
        n_s0[0] = 0
        n_sn[0] = nr
        if nomiss:
            ok = _grow_unit(codes, codesT, slots, nval, rank, uvals, uoff, order, nknown, present, is_num, count_avg, y, C,
                            rows, e_idx, n_attr, n_sp, n_thr, n_nsub, n_child, n_leaf, n_empty, n_s0, n_sn, n_cw,
                            n_tot, ncap, st, root_all, others, gapok)
        else:
            ok = _grow(A, codes, nval, rank, uvals, uoff, present, is_num, count_avg, y, C, e_idx, e_w, ecap,
                       n_attr, n_sp, n_thr, n_nsub, n_child, n_leaf, n_empty, n_s0, n_sn, n_cw, n_tot, ncap, st)
        if ok:
            _collapse(n_leaf, n_nsub, n_child, n_cw, n_tot, st[1], np.empty(ncap, dtype=np.bool_), np.empty(ncap))
        if ok and prune:
            Vmax = 2
            for a in range(m):
                if nval[a] > Vmax:
                    Vmax = nval[a]
            _prune(codes, codesT, nval, y, C, e_idx, e_w, tmp, childof, ecap, st,
                   n_attr, n_sp, n_thr, n_nsub, n_child, n_leaf, n_empty, n_s0, n_sn, n_cw, n_tot, ncap, Vmax,
                   nomiss)
    # the missing-value shares of every split node's branches (Distribution after
    # resetDistribution: perBag / total), stored at the child
    n_share = np.zeros(ncap)
    if st[2] == 0:
        stack = np.empty(ncap, dtype=np.int64)
        known = np.empty(ncap)
        h = 1
        stack[0] = 0
        while h > 0:
            h -= 1
            k = stack[h]
            if n_leaf[k]:
                continue
            nsub = n_nsub[k]
            a = n_attr[k]
            if nomiss:
                # the branches partition the node's instances: shares are their weights
                for j in range(nsub):
                    n_share[n_child[k] + j] = n_tot[n_child[k] + j] / n_tot[k]
                    stack[h] = n_child[k] + j
                    h += 1
                continue
            known[:nsub] = 0.0
            kt = 0.0
            miss = 0.0
            for t in range(n_s0[k], n_s0[k] + n_sn[k]):
                j = _branch(codes[e_idx[t], a], nval[a], n_thr[k])
                if j >= 0:
                    known[j] += e_w[t]
                    kt += e_w[t]
                else:
                    miss += e_w[t]
            for j in range(nsub):
                p = 1.0 / nsub if abs(kt) < SMALL else known[j] / kt
                n_share[n_child[k] + j] = (known[j] + p * miss) / (kt + miss)
                stack[h] = n_child[k] + j
                h += 1
    return (st[2], n_attr, n_sp, n_nsub, n_child, n_leaf, n_empty, n_cw, n_tot, n_share, n_thr, st[1])


@njit(cache=True, _nrt=False)
def _predict_row(codes, i, nval, n_attr, n_thr, n_nsub, n_child, n_leaf, n_empty, n_cw, n_tot, n_share,
                 C, probs, stack_k, stack_w):
    """ClassifierTree.classifyInstance: class scores summed over the leaves an instance
    reaches (weighted by branch shares where its value is missing); the first class whose
    score beats the running maximum by more than 1e-6."""
    for c in range(C):
        probs[c] = 0.0
    h = 1
    stack_k[0] = 0
    stack_w[0] = 1.0
    while h > 0:
        h -= 1
        k = stack_k[h]
        w = stack_w[h]
        if n_leaf[k]:
            tot = n_tot[k]
            if abs(tot) >= SMALL:
                for c in range(C):
                    probs[c] += w * n_cw[k, c] / tot
            continue
        a = n_attr[k]
        j = _branch(codes[i, a], nval[a], n_thr[k])
        if j < 0:
            for jj in range(n_nsub[k] - 1, -1, -1):
                ch = n_child[k] + jj
                if not n_empty[ch]:
                    stack_k[h] = ch
                    stack_w[h] = w * n_share[ch]
                    h += 1
            continue
        ch = n_child[k] + j
        if n_empty[ch]:
            # empty leaf: this node's class distribution (C45Split.classProb)
            tot = n_tot[k]
            if abs(tot) >= SMALL:
                for c in range(C):
                    probs[c] += w * n_cw[k, c] / tot
            continue
        stack_k[h] = ch
        stack_w[h] = w
        h += 1
    best = -1.0
    idx = 0
    for c in range(C):
        if probs[c] - best > SMALL:
            best = probs[c]
            idx = c
    return idx


@njit(cache=True)
def _fit_predict_one(A, codes, codesT, slots, nval, rank, uvals, uoff, order, nknown, is_num, y, C, rows, test_rows, prune,
                     rowmiss, out_row, root_all, vcnt_all, others, gapok):
    nr = rows.shape[0]
    ecap = 8 * nr + 64
    ncap = 2 * nr + 64
    nomiss = True
    for q in range(nr):
        if rowmiss[rows[q]]:
            nomiss = False
            break
    while True:
        res = _fit_rows(A, codes, codesT, slots, nval, rank, uvals, uoff, order, nknown, is_num, y, C, rows, ecap,
                        ncap, prune, nomiss, root_all, vcnt_all, others, gapok)
        if res[0] == 0:
            break
        ecap *= 2
        ncap *= 2
    _, n_attr, n_sp, n_nsub, n_child, n_leaf, n_empty, n_cw, n_tot, n_share, n_thr, nn = res
    probs = np.empty(C)
    stack_k = np.empty(nn + 1, dtype=np.int64)
    stack_w = np.empty(nn + 1)
    for q in range(test_rows.shape[0]):
        i = test_rows[q]
        out_row[i] = _predict_row(codes, i, nval, n_attr, n_thr, n_nsub, n_child, n_leaf, n_empty,
                                  n_cw, n_tot, n_share, C, probs, stack_k, stack_w)
    return nn


@njit(cache=True)
def _prepare(A, nval, rank, uoff, is_num, y, C):
    """Per call: nominal codes (int, -1 missing; for a numeric attribute its ranks), per
    numeric attribute the rows with a known value in increasing order of value
    (``order[a, :nknown[a]]``), and each row's count-table cells (:func:`_unit_slots`)."""
    n, m = A.shape
    codes = np.full((n, m), -1, dtype=np.int32)
    order = np.zeros((m, n), dtype=np.int64)
    nknown = np.zeros(m, dtype=np.int64)
    for a in range(m):
        if not is_num[a]:
            for i in range(n):
                if not np.isnan(A[i, a]):
                    codes[i, a] = int(A[i, a])
        else:
            for i in range(n):
                codes[i, a] = rank[a, i]  # counted by rank when the attribute has few values
            # a stable counting sort by rank (the rows of a rank in increasing order)
            start = np.zeros(uoff[a + 1] - uoff[a] + 1, dtype=np.int64)
            for i in range(n):
                r = rank[a, i]
                if r >= 0:
                    start[r + 1] += 1
            for r in range(start.shape[0] - 1):
                start[r + 1] += start[r]
            for i in range(n):
                r = rank[a, i]
                if r >= 0:
                    order[a, start[r]] = i
                    start[r] += 1
            nknown[a] = start[start.shape[0] - 1]
    noms, noff = _count_layout(nval, uoff, is_num, C, True)[1:3]
    return codes, order, nknown, _unit_slots(codes, y, C, noms, noff)


@njit(cache=True)
def _row_missing(codes):
    """Per row: does any attribute have a missing value."""
    n, m = codes.shape
    out = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        for a in range(m):
            if codes[i, a] < 0:
                out[i] = True
                break
    return out


@njit(cache=True)
def _fold_rows(train, test, b):
    """The training rows, test rows and rows not trained on of fold ``b`` (increasing)."""
    n = train.shape[1]
    nr = 0
    nt = 0
    for i in range(n):
        nr += train[b, i]
        nt += test[b, i]
    rows = np.empty(nr, dtype=np.int64)
    trows = np.empty(nt, dtype=np.int64)
    others = np.empty(n - nr, dtype=np.int64)
    p = 0
    q = 0
    o = 0
    for i in range(n):
        if train[b, i]:
            rows[p] = i
            p += 1
        else:
            others[o] = i
            o += 1
        if test[b, i]:
            trows[q] = i
            q += 1
    return rows, trows, others


@njit(cache=True, parallel=True)
def fit_predict_batch(A, nval, rank, uvals, uoff, is_num, y, C, train, test, prune):
    """Fit one J48 per row of the ``(B, n)`` masks ``train`` and predict the rows of ``test``.

    ``A`` (n, m): nominal codes (as floats) or numeric values, ``nan`` missing;
    ``nval`` (m,): number of values of a nominal attribute, 0 for numeric;
    ``rank`` (m, n): index of the value in the attribute's sorted distinct values
    ``uvals[uoff[a]:uoff[a+1]]`` (numeric attributes; -1 missing or nominal);
    ``is_num`` (m,): numeric attribute."""
    B, n = train.shape
    codes, order, nknown, slots = _prepare(A, nval, rank, uoff, is_num, y, C)
    codesT = np.ascontiguousarray(codes.T)
    rowmiss = _row_missing(codes)
    gapok = _gapok(is_num, uvals, uoff)
    out = np.full((B, n), -1, dtype=np.int64)
    # counts of every row, once for all models: each model's root table and the values its
    # rows hold are these minus the rows it does not train on (see _grow_unit, _fit_rows)
    noff = _count_layout(nval, uoff, is_num, C, True)[2]
    root_all = np.zeros(noff[noff.shape[0] - 1], dtype=np.int32)
    vcnt_all = np.zeros(uvals.shape[0], dtype=np.int64)
    for i in range(n):
        for q in range(slots.shape[1]):
            c = slots[i, q]
            if c >= 0:
                root_all[c] += 1
        for a in range(nval.shape[0]):
            if is_num[a] and rank[a, i] >= 0:
                vcnt_all[uoff[a] + rank[a, i]] += 1
    # models in parallel (numba threads); each allocates its own work arrays
    for b in prange(B):
        rows, trows, others = _fold_rows(train, test, b)
        _fit_predict_one(A, codes, codesT, slots, nval, rank, uvals, uoff, order, nknown, is_num, y, C, rows, trows, prune,
                         rowmiss, out[b], root_all, vcnt_all, others, gapok)
    return out


@njit(cache=True)
def fit_tree(A, nval, rank, uvals, uoff, is_num, y, C, rows, prune):
    """One tree's node arrays (for inspection and tests): ``(attr, split, n_sub, child,
    leaf, empty, class_weights, total, share, n_nodes)``; node 0 is the root."""
    codes, order, nknown, slots = _prepare(A, nval, rank, uoff, is_num, y, C)
    nr = rows.shape[0]
    ecap = 8 * nr + 64
    ncap = 2 * nr + 64
    while True:
        res = _fit_one(A, codes, slots, nval, rank, uvals, uoff, order, nknown, is_num, y, C, rows, ecap, ncap, prune)
        if res[0] == 0:
            break
        ecap *= 2
        ncap *= 2
    return res[1:10] + (res[11],)
