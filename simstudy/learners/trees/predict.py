"""Prediction helpers: the leaf a row reaches, class arg-max with scikit-learn's ties."""

from __future__ import annotations

import numpy as np
from numba import njit

from .consts import JIT


@njit(**JIT)
def _leaf(nf, nt, nl, nr, x):
    node = 0
    while nf[node] >= 0:
        if x[nf[node]] <= nt[node]:
            node = nl[node]
        else:
            node = nr[node]
    return node


@njit(**JIT)
def _leaf_pruned(nf, nt, nl, nr, pruned, x):
    # the node where x stops: a leaf of the grown tree or a pruned node
    node = 0
    while nf[node] >= 0 and not pruned[node]:
        if x[nf[node]] <= nt[node]:
            node = nl[node]
        else:
            node = nr[node]
    return node


@njit(**JIT)
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


@njit(**JIT)
def _argmax_first(v, K):
    best = 0
    bv = v[0]
    for k in range(1, K):
        if v[k] > bv:
            bv = v[k]
            best = k
    return best
