"""``solver=online``: per-pattern online backprop for ``lp`` / ``mlp-<h>`` (the paper variants).

``solver=online`` -- Alpaydın (1999, §4) trains his LP and MLPs "using backpropagation"
(Rumelhart, Hinton & Williams 1986) without giving the regime; this is the textbook one of
his own book (Alpaydın, *Introduction to Machine Learning*, ch. "Multilayer perceptrons",
online backprop pseudo-code): per pattern, in an order reshuffled each epoch,

    w ← w − η ∂E_t/∂w,   E_t = −log softmax(f_w(x_t))[y_t]  (+ alpha/2 ||weights||², biases free)

with logistic hidden units (``activation=logistic``; ``tanh`` allowed), softmax outputs,
no momentum, initial weights and biases U(−init, init), inputs z-scored with the training
fold's mean and population sd (``nan`` → training mean; ``scale=none`` leaves inputs raw)
and a fixed number of ``epochs`` (no early stop).  Model ``b`` draws its initial weights and
then one permutation per epoch from ``np.random.default_rng(seeds[b])`` only.

Compiled (numba), float64.  Models of equal training size train side by side, 8 "lanes" at a
time with the model axis innermost (the loops over lanes vectorise); each lane runs exactly
the one-model kernel's operations in the same order, so a model's weights are bitwise those
it gets alone, whatever its batch-mates (tested).  Most of the time goes to ``exp`` (13 calls
per pattern for a 4-10-3 network), which numba does not vectorise without SVML.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._layers import _hidden, _outputs


@njit(cache=True, error_model="numpy")
def _softmax_inplace(z):  # pragma: no cover - compiled
    mx = z[0]
    for c in range(1, z.shape[0]):
        mx = max(mx, z[c])
    s = 0.0
    for c in range(z.shape[0]):
        z[c] = np.exp(z[c] - mx)
        s += z[c]
    for c in range(z.shape[0]):
        z[c] /= s


@njit(cache=True, error_model="numpy")
def _online_train(Xz, yr, order, W1, W2, eta, alpha, logistic):  # pragma: no cover
    """Per-pattern backprop over ``order`` (epochs × rows); ``W1``/``W2`` updated in place.

    ``W1`` is ``(d+1, h)`` (unused, shape (0, 0), when there is no hidden layer); ``W2`` is
    ``(m+1, C)`` with m = h, or m = d for the linear model.  The gradient of a pattern is
    computed with the weights before its update (standard backprop).
    """
    h = W1.shape[1]
    d = Xz.shape[1]
    C = W2.shape[1]
    m = W2.shape[0] - 1
    a = np.empty(max(h, 1))
    z = np.empty(C)
    dh = np.empty(max(h, 1))
    for e in range(order.shape[0]):
        for t in range(order.shape[1]):
            i = order[e, t]
            x = Xz[i]
            u = x
            if h > 0:
                _hidden(x, W1, a, logistic)
                u = a[:h]
            _outputs(u, W2, z)
            _softmax_inplace(z)
            z[yr[i]] -= 1.0  # dE/dlogits = p - onehot
            if h > 0:
                for j in range(h):
                    s = 0.0
                    for c in range(C):
                        s += W2[j, c] * z[c]
                    aj = a[j]
                    dh[j] = s * (aj * (1.0 - aj) if logistic else 1.0 - aj * aj)
            for j in range(m):
                uj = u[j]
                for c in range(C):
                    W2[j, c] -= eta * (uj * z[c] + alpha * W2[j, c])
            for c in range(C):
                W2[m, c] -= eta * z[c]
            if h > 0:
                for k in range(d):
                    xk = x[k]
                    for j in range(h):
                        W1[k, j] -= eta * (xk * dh[j] + alpha * W1[k, j])
                for j in range(h):
                    W1[d, j] -= eta * dh[j]


@njit(cache=True, error_model="numpy")
def _online_train_lanes(Xz, yr, order, W1, W2, eta, alpha, logistic):  # pragma: no cover
    """:func:`_online_train` for ``L`` models at once, the model axis last ("lanes").

    ``Xz`` (L, r, d), ``yr`` (L, r), ``order`` (L, E, r), ``W1`` (d+1, h, L), ``W2``
    (m+1, C, L).  Every lane runs exactly the operations of :func:`_online_train` in the
    same order (no sum runs across lanes), so each model's weights are bitwise those of the
    one-model kernel (tested); the innermost loops over lanes are what vectorises.
    """
    L, r, d = Xz.shape
    E = order.shape[1]
    h = W1.shape[1]
    C = W2.shape[1]
    m = W2.shape[0] - 1
    x = np.empty((d, L))
    a = np.empty((max(h, 1), L))
    z = np.empty((C, L))
    dh = np.empty((max(h, 1), L))
    mx = np.empty(L)
    sm = np.empty(L)
    yi = np.empty(L, np.int64)
    for e in range(E):
        for t in range(r):
            for ln in range(L):
                i = order[ln, e, t]
                yi[ln] = yr[ln, i]
                for k in range(d):
                    x[k, ln] = Xz[ln, i, k]
            if h > 0:
                for j in range(h):
                    for ln in range(L):
                        a[j, ln] = W1[d, j, ln]
                for k in range(d):
                    for j in range(h):
                        for ln in range(L):
                            a[j, ln] += W1[k, j, ln] * x[k, ln]
                if logistic:  # branch outside the lane loops, so that they vectorise
                    for j in range(h):
                        for ln in range(L):
                            a[j, ln] = 1.0 / (1.0 + np.exp(-a[j, ln]))
                else:
                    for j in range(h):
                        for ln in range(L):
                            a[j, ln] = np.tanh(a[j, ln])
            u = a if h > 0 else x
            for c in range(C):
                for ln in range(L):
                    z[c, ln] = W2[m, c, ln]
            for j in range(m):
                for c in range(C):
                    for ln in range(L):
                        z[c, ln] += W2[j, c, ln] * u[j, ln]
            for ln in range(L):
                mx[ln] = z[0, ln]
            for c in range(1, C):
                for ln in range(L):
                    mx[ln] = max(mx[ln], z[c, ln])
            for ln in range(L):
                sm[ln] = 0.0
            for c in range(C):
                for ln in range(L):
                    z[c, ln] = np.exp(z[c, ln] - mx[ln])
                    sm[ln] += z[c, ln]
            for c in range(C):
                for ln in range(L):
                    z[c, ln] /= sm[ln]
            for ln in range(L):
                z[yi[ln], ln] -= 1.0
            if h > 0:
                for j in range(h):
                    for ln in range(L):
                        dh[j, ln] = 0.0
                    for c in range(C):
                        for ln in range(L):
                            dh[j, ln] += W2[j, c, ln] * z[c, ln]
                    if logistic:
                        for ln in range(L):
                            aj = a[j, ln]
                            dh[j, ln] = dh[j, ln] * (aj * (1.0 - aj))
                    else:
                        for ln in range(L):
                            aj = a[j, ln]
                            dh[j, ln] = dh[j, ln] * (1.0 - aj * aj)
            for j in range(m):
                for c in range(C):
                    for ln in range(L):
                        W2[j, c, ln] -= eta * (u[j, ln] * z[c, ln] + alpha * W2[j, c, ln])
            for c in range(C):
                for ln in range(L):
                    W2[m, c, ln] -= eta * z[c, ln]
            if h > 0:
                for k in range(d):
                    for j in range(h):
                        for ln in range(L):
                            W1[k, j, ln] -= eta * (x[k, ln] * dh[j, ln] + alpha * W1[k, j, ln])
                for j in range(h):
                    for ln in range(L):
                        W1[d, j, ln] -= eta * dh[j, ln]
