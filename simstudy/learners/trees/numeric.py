"""Sums and sorts the tree kernels need: numpy's pairwise summation, sorting samples by a
feature, and per-feature sample orders (presorted lists).

With integer sample weights the order of tied values within a sorted list is immaterial
(every weighted sum is exact), so any sort will do; see :mod:`.kernels`.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .consts import JIT


@njit(**JIT)
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


@njit(**JIT)
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


@njit(**JIT)
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


@njit(**JIT)
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


@njit(**JIT)
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


@njit(**JIT)
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
