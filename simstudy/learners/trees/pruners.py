"""Pruning a grown tree: reduced-error pruning on a hold-out (``c45``)."""

from __future__ import annotations

from numba import njit

from .consts import JIT


@njit(**JIT)
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
