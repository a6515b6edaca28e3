"""R's ``vmmin`` on nnet's objective written loop for loop: the oracle of the fast kernel
:func:`simstudy.learners.neural.nnet._vmmin`, which must give bitwise the same weights and
iteration counts (``tests/test_nnet_kernel.py``).  Compiled only for that test.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simstudy.learners.neural._layers import _hidden_nnet, _outputs, _sigmoid_nnet


@njit(cache=True, error_model="numpy")
def _nnet_fg(w, Xz, yr, d, h, C, decay, want_g, g):  # pragma: no cover - compiled
    """nnet's objective (and gradient into ``g`` if ``want_g``) at the flat weights ``w``.

    Layout: ``W1`` = w[:(d+1)h] as (d+1, h), then ``W2`` (m+1, K) with m = h (or d if
    h = 0) and K = C outputs (softmax) or K = 1 output (C = 2: logistic + entropy).
    """
    K = 1 if C == 2 else C
    n1 = (d + 1) * h
    W1 = w[:n1].reshape((d + 1, h)) if h > 0 else w[:0].reshape((0, 0))
    m = h if h > 0 else d
    W2 = w[n1:].reshape((m + 1, K))
    if want_g:
        g[:] = 0.0
    G1 = g[:n1].reshape((d + 1, h)) if h > 0 else g[:0].reshape((0, 0))
    G2 = g[n1:].reshape((m + 1, K))
    a = np.empty(max(h, 1))
    z = np.empty(K)
    dh = np.empty(max(h, 1))
    f = 0.0
    for i in range(Xz.shape[0]):
        x = Xz[i]
        u = x
        if h > 0:
            _hidden_nnet(x, W1, a)
            u = a[:h]
        _outputs(u, W2, z)
        if K == 1:
            p = _sigmoid_nnet(z[0])
            t = 1.0 if yr[i] == 1 else 0.0
            # nnet.c E(): entropy with EPS = 1e-80 inside the logs
            if t > 0:
                f -= np.log(p + 1e-80)
            else:
                f -= np.log(1.0 - p + 1e-80)
            z[0] = p - t
        else:
            mx = z[0]
            for c in range(1, K):
                mx = max(mx, z[c])
            s = 0.0
            for c in range(K):
                z[c] = np.exp(z[c] - mx)
                s += z[c]
            for c in range(K):
                z[c] /= s
            pc = z[yr[i]]
            f += -np.log(pc) if pc > 0 else 1000.0
            z[yr[i]] -= 1.0
        if not want_g:
            continue
        if h > 0:
            for j in range(h):
                s = 0.0
                for c in range(K):
                    s += W2[j, c] * z[c]
                dh[j] = s * a[j] * (1.0 - a[j])
        for j in range(m):
            for c in range(K):
                G2[j, c] += u[j] * z[c]
        for c in range(K):
            G2[m, c] += z[c]
        if h > 0:
            for k in range(d):
                for j in range(h):
                    G1[k, j] += x[k] * dh[j]
            for j in range(h):
                G1[d, j] += dh[j]
    if decay > 0.0:  # nnet: decay on every weight, biases included
        for p_ in range(w.shape[0]):
            f += decay * w[p_] * w[p_]
            if want_g:
                g[p_] += 2.0 * decay * w[p_]
    return f


@njit(cache=True, error_model="numpy")
def _vmmin_plain(b, Xz, yr, d, h, C, decay, maxit, abstol, reltol):  # pragma: no cover
    """R's ``vmmin`` (variable-metric BFGS, Nash 1990 Alg. 21) on nnet's objective, loop for
    loop: the reference :func:`_vmmin` must equal bitwise (tested).

    ``b`` (the weights) is updated in place; returns the number of iterations.
    """
    stepredn, acctol, reltest = 0.2, 0.0001, 10.0
    n = b.shape[0]
    g = np.empty(n)
    t = np.empty(n)
    X = np.empty(n)
    c = np.empty(n)
    B = np.empty((n, n))
    f = _nnet_fg(b, Xz, yr, d, h, C, decay, False, g)
    if not np.isfinite(f):
        return 0
    fmin = f
    gradcount = 1
    _nnet_fg(b, Xz, yr, d, h, C, decay, True, g)
    it = 1
    ilast = gradcount
    count = 0
    while True:
        if ilast == gradcount:
            for i in range(n):
                for j in range(n):
                    B[i, j] = 0.0
                B[i, i] = 1.0
        for i in range(n):
            X[i] = b[i]
            c[i] = g[i]
        gradproj = 0.0
        for i in range(n):
            s = 0.0
            for j in range(n):
                s -= B[i, j] * g[j]
            t[i] = s
            gradproj += s * g[i]
        if gradproj < 0.0:  # downhill: backtrack from a unit step
            steplength = 1.0
            accpoint = False
            while True:
                count = 0
                for i in range(n):
                    b[i] = X[i] + steplength * t[i]
                    if reltest + X[i] == reltest + b[i]:
                        count += 1
                if count < n:
                    f = _nnet_fg(b, Xz, yr, d, h, C, decay, False, g)
                    accpoint = np.isfinite(f) and f <= fmin + gradproj * steplength * acctol
                    if not accpoint:
                        steplength *= stepredn
                if count == n or accpoint:
                    break
            enough = f > abstol and abs(f - fmin) > reltol * (abs(fmin) + reltol)
            if not enough:  # small value or small relative change: stop
                count = n
                fmin = f
            if count < n:  # progress: BFGS update of the inverse-Hessian approximation
                fmin = f
                _nnet_fg(b, Xz, yr, d, h, C, decay, True, g)
                gradcount += 1
                it += 1
                D1 = 0.0
                for i in range(n):
                    t[i] = steplength * t[i]
                    c[i] = g[i] - c[i]
                    D1 += t[i] * c[i]
                if D1 > 0:
                    D2 = 0.0
                    for i in range(n):
                        s = 0.0
                        for j in range(n):
                            s += B[i, j] * c[j]
                        X[i] = s
                        D2 += s * c[i]
                    D2 = 1.0 + D2 / D1
                    for i in range(n):
                        for j in range(n):
                            B[i, j] += (D2 * t[i] * t[j] - X[i] * t[j] - t[i] * X[j]) / D1
                else:
                    ilast = gradcount
            else:  # no progress: restart unless just restarted
                if ilast < gradcount:
                    count = 0
                    ilast = gradcount
        else:  # uphill direction: restart unless just restarted
            count = 0
            if ilast == gradcount:
                count = n
            else:
                ilast = gradcount
        if it >= maxit:
            break
        if gradcount - ilast > 2 * n:
            ilast = gradcount  # periodic restart
        if count == n and ilast == gradcount:
            break
    return it
