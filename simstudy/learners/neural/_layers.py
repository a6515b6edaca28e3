"""Compiled pieces of the small networks that both older solvers share (:mod:`.online`,
:mod:`.nnet`): input rows, the hidden and output layers, and prediction.

Kept in one file with their callers' package: numba re-validates a cached function against
its own file only, so the package's sources are hashed at import (``__init__``) and the
cache dropped when they change.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy")
def _z_rows(X, rows, mean, scale):  # pragma: no cover - compiled
    """Rows ``rows`` of ``X`` as ``(x - mean)/scale`` with nan -> 0, ``(r, d)`` float64."""
    d = X.shape[1]
    out = np.empty((rows.shape[0], d))
    for i in range(rows.shape[0]):
        for k in range(d):
            v = (X[rows[i], k] - mean[k]) / scale[k]
            out[i, k] = 0.0 if np.isnan(v) else v
    return out


@njit(cache=True, error_model="numpy")
def _raw_rows(X, rows, mean):  # pragma: no cover - compiled
    """Rows of ``X`` unscaled, nan -> training mean."""
    d = X.shape[1]
    out = np.empty((rows.shape[0], d))
    for i in range(rows.shape[0]):
        for k in range(d):
            v = X[rows[i], k]
            out[i, k] = mean[k] if np.isnan(v) else v
    return out


@njit(cache=True, error_model="numpy")
def _hidden(x, W1, a, logistic):  # pragma: no cover - compiled
    """``a = act(W1[:d]ᵀ x + W1[d])``; ``W1`` is ``(d+1, h)`` (last row: biases)."""
    d, h = x.shape[0], W1.shape[1]
    for j in range(h):
        a[j] = W1[d, j]
    for k in range(d):
        xk = x[k]
        for j in range(h):
            a[j] += W1[k, j] * xk
    for j in range(h):
        a[j] = 1.0 / (1.0 + np.exp(-a[j])) if logistic else np.tanh(a[j])


@njit(cache=True, error_model="numpy")
def _sigmoid_nnet(s):  # pragma: no cover - compiled
    """nnet.c's ``sigmoid``: 0 below -15, 1 above 15."""
    if s < -15.0:
        return 0.0
    if s > 15.0:
        return 1.0
    return 1.0 / (1.0 + np.exp(-s))


@njit(cache=True, error_model="numpy")
def _hidden_nnet(x, W1, a):  # pragma: no cover - compiled
    d, h = x.shape[0], W1.shape[1]
    for j in range(h):
        s = W1[d, j]
        for k in range(d):
            s += W1[k, j] * x[k]
        a[j] = _sigmoid_nnet(s)


@njit(cache=True, error_model="numpy")
def _outputs(u, W2, z):  # pragma: no cover - compiled
    """Logits ``z = W2[:m]ᵀ u + W2[m]`` (``W2`` is ``(m+1, C)``)."""
    m, C = u.shape[0], W2.shape[1]
    for c in range(C):
        z[c] = W2[m, c]
    for j in range(m):
        uj = u[j]
        for c in range(C):
            z[c] += W2[j, c] * uj


@njit(cache=True, error_model="numpy")
def _predict_softmax_net(Xz, W1, W2, logistic, clip):  # pragma: no cover - compiled
    """argmax of the logits (first maximum on ties) for each row of ``Xz``."""
    h = W1.shape[1]
    C = W2.shape[1]
    a = np.empty(max(h, 1))
    z = np.empty(C)
    out = np.empty(Xz.shape[0], np.int64)
    for i in range(Xz.shape[0]):
        x = Xz[i]
        u = x
        if h > 0:
            if clip:
                _hidden_nnet(x, W1, a)
            else:
                _hidden(x, W1, a, logistic)
            u = a[:h]
        _outputs(u, W2, z)
        best = 0
        for c in range(1, C):
            if z[c] > z[best]:
                best = c
        out[i] = best
    return out


@njit(cache=True, error_model="numpy")
def _nnet_prob1(Xz, W1, W2):  # pragma: no cover - compiled
    h = W1.shape[1]
    a = np.empty(max(h, 1))
    z = np.empty(1)
    out = np.empty(Xz.shape[0])
    for i in range(Xz.shape[0]):
        u = Xz[i]
        if h > 0:
            _hidden_nnet(Xz[i], W1, a)
            u = a[:h]
        _outputs(u, W2, z)
        out[i] = _sigmoid_nnet(z[0])
    return out
