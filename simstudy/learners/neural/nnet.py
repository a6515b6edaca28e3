"""``solver=nnet``: R's ``nnet`` for ``lp`` / ``mlp-<h>`` (the paper variants), its objective and BFGS.

``solver=nnet`` -- ``nnet::nnet(y ~ ., size = h)`` of R's package nnet (Venables & Ripley,
*Modern Applied Statistics with S*, 4th ed., 2002, §8.10), which the Wang group's public R
code calls with ``maxit = 200``: logistic hidden units (``sigmoid`` clipped to 0/1 beyond
±15, as nnet.c does), for C > 2 classes linear outputs with softmax and the summed
log-likelihood; for 2 classes one logistic output with the entropy criterion; no weight
decay (``alpha=0``, nnet's ``decay``); initial weights U(−0.7, 0.7) (``init``, nnet's
``rang``); minimised by R's ``vmmin`` BFGS (Nash 1990, *Compact Numerical Methods*,
Algorithm 21: backtracking ×0.2 from a unit step, Armijo constant 1e-4, restart on an
uphill direction or every 2P gradient evaluations without progress) for at most ``maxit``
iterations, stopping when the objective falls below ``abstol`` = 1e-4 or changes by less
than ``reltol`` = 1e-8 relatively.  nnet does not scale inputs: hence ``scale=none`` in the
studies (with ``scale=z`` inputs are z-scored as above).  ``h = 0`` (``lp``) is the linear
softmax model without a hidden layer (nnet's ``size = 0, skip = TRUE``).  R's own random
numbers cannot be reproduced: ours come from the model's seed, so the match to R is in
distribution, not run by run.

Compiled (numba), float64; one model at a time.  :func:`_vmmin` is R's vmmin rearranged for
speed; the same algorithm written loop for loop is a test oracle (``tests/oracles/nnet_plain.py``).
The fast one changes only where work happens, never the order of any sum, so its weights are
bitwise the plain one's (``tests/test_nnet_kernel.py``):
the forward pass goes a layer at a time over all rows (rows innermost, so the products
vectorise; each unit's sum still starts at its bias and adds the inputs in order); the
inverse-Hessian approximation is stored transposed, so that ``B g``, ``B c`` and the rank-2
update also run over contiguous memory in the inner loop (the plain row-times-vector sums are
one long dependency chain each); the gradient reuses the forward pass of the accepted
line-search point (the plain kernel recomputes it); and ``-B g`` for the next direction is
accumulated during the update.  Per fit on Wang et al.'s six data sets (half of each as the
training fold, nets of 15-541 weights): 2.7-3.8x faster than the plain kernel.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._layers import _sigmoid_nnet


@njit(cache=True, error_model="numpy")
def _nnet_forward(w, XT, yr, d, h, C, decay, A, Z, mx, sm):  # pragma: no cover - compiled
    """nnet's objective at ``w`` (the plain kernel's ``_nnet_fg`` without the gradient), a
    layer at a time with the rows innermost: ``XT`` (d, r) holds the inputs by column; the hidden
    activations go to ``A`` (h, r) and the output errors (p − t) to ``Z`` (K, r), for
    :func:`_nnet_backward`.  Each value is summed in the plain ``_nnet_fg``'s order (bias first,
    then the inputs in order; the objective over the rows in order), so it is bitwise the
    same; ``mx``, ``sm`` (r,) are scratch."""
    K = 1 if C == 2 else C
    r = XT.shape[1]
    n1 = (d + 1) * h
    W1 = w[:n1].reshape((d + 1, h)) if h > 0 else w[:0].reshape((0, 0))
    m = h if h > 0 else d
    W2 = w[n1:].reshape((m + 1, K))
    if h > 0:
        for j in range(h):
            bj = W1[d, j]
            for i in range(r):
                A[j, i] = bj
        for k in range(d):
            for j in range(h):
                wkj = W1[k, j]
                for i in range(r):
                    A[j, i] += wkj * XT[k, i]
        for j in range(h):
            for i in range(r):
                A[j, i] = _sigmoid_nnet(A[j, i])
        U = A
    else:
        U = XT
    for c in range(K):
        bc = W2[m, c]
        for i in range(r):
            Z[c, i] = bc
    for j in range(m):
        for c in range(K):
            wjc = W2[j, c]
            for i in range(r):
                Z[c, i] += wjc * U[j, i]
    f = 0.0
    if K == 1:
        for i in range(r):
            p = _sigmoid_nnet(Z[0, i])
            t = 1.0 if yr[i] == 1 else 0.0
            # nnet.c E(): entropy with EPS = 1e-80 inside the logs
            if t > 0:
                f -= np.log(p + 1e-80)
            else:
                f -= np.log(1.0 - p + 1e-80)
            Z[0, i] = p - t
    else:
        for i in range(r):
            mx[i] = Z[0, i]
        for c in range(1, K):
            for i in range(r):
                mx[i] = max(mx[i], Z[c, i])
        for i in range(r):
            sm[i] = 0.0
        for c in range(K):
            for i in range(r):
                Z[c, i] = np.exp(Z[c, i] - mx[i])
                sm[i] += Z[c, i]
        for c in range(K):
            for i in range(r):
                Z[c, i] /= sm[i]
        for i in range(r):
            pc = Z[yr[i], i]
            f += -np.log(pc) if pc > 0 else 1000.0
            Z[yr[i], i] -= 1.0
    if decay > 0.0:
        for p_ in range(w.shape[0]):
            f += decay * w[p_] * w[p_]
    return f


@njit(cache=True, error_model="numpy")
def _nnet_backward(w, XT, d, h, C, decay, A, Z, g):  # pragma: no cover - compiled
    """The gradient (into ``g``) at the ``w`` of the last :func:`_nnet_forward` call, summed
    over the rows in order as the plain ``_nnet_fg`` does."""
    K = 1 if C == 2 else C
    r = XT.shape[1]
    n1 = (d + 1) * h
    m = h if h > 0 else d
    W2 = w[n1:].reshape((m + 1, K))
    g[:] = 0.0
    G1 = g[:n1].reshape((d + 1, h)) if h > 0 else g[:0].reshape((0, 0))
    G2 = g[n1:].reshape((m + 1, K))
    dh = np.empty(max(h, 1))
    U = A if h > 0 else XT
    for i in range(r):
        if h > 0:
            for j in range(h):
                s = 0.0
                for c in range(K):
                    s += W2[j, c] * Z[c, i]
                dh[j] = s * A[j, i] * (1.0 - A[j, i])
        for j in range(m):
            uj = U[j, i]
            for c in range(K):
                G2[j, c] += uj * Z[c, i]
        for c in range(K):
            G2[m, c] += Z[c, i]
        if h > 0:
            for k in range(d):
                xk = XT[k, i]
                for j in range(h):
                    G1[k, j] += xk * dh[j]
            for j in range(h):
                G1[d, j] += dh[j]
    if decay > 0.0:
        for p_ in range(w.shape[0]):
            g[p_] += 2.0 * decay * w[p_]


@njit(cache=True, error_model="numpy")
def _vmmin(b, Xz, yr, d, h, C, decay, maxit, abstol, reltol):  # pragma: no cover
    """R's ``vmmin`` on nnet's objective, the plain kernel (``tests/oracles/nnet_plain.py``)
    rearranged for speed, bitwise the same (see the module docstring).

    ``BT[j, i]`` holds B[i, j].  ``b`` (the weights) is updated in place; returns the number
    of iterations.
    """
    stepredn, acctol, reltest = 0.2, 0.0001, 10.0
    n = b.shape[0]
    K = 1 if C == 2 else C
    g = np.empty(n)
    t = np.empty(n)
    tn = np.empty(n)  # -B g of the next direction, computed with the update of B
    X = np.empty(n)
    c = np.empty(n)
    BT = np.empty((n, n))
    r = Xz.shape[0]
    XT = np.ascontiguousarray(Xz.T)  # inputs by column: the forward pass runs over rows
    A = np.empty((max(h, 1), r))
    Z = np.empty((K, r))
    mx = np.empty(r)
    sm = np.empty(r)
    fresh = False
    f = _nnet_forward(b, XT, yr, d, h, C, decay, A, Z, mx, sm)
    if not np.isfinite(f):
        return 0
    fmin = f
    gradcount = 1
    _nnet_backward(b, XT, d, h, C, decay, A, Z, g)
    it = 1
    ilast = gradcount
    count = 0
    while True:
        if ilast == gradcount:
            for i in range(n):
                for j in range(n):
                    BT[i, j] = 0.0
                BT[i, i] = 1.0
        for i in range(n):
            X[i] = b[i]
            c[i] = g[i]
        if fresh and ilast != gradcount:  # B not reset since tn was computed
            for i in range(n):
                t[i] = tn[i]
        else:
            for i in range(n):
                t[i] = 0.0
            for j in range(n):  # t = -B g; each t[i] summed over j in order
                gj = g[j]
                for i in range(n):
                    t[i] -= BT[j, i] * gj
        fresh = False
        gradproj = 0.0
        for i in range(n):
            gradproj += t[i] * g[i]
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
                    f = _nnet_forward(b, XT, yr, d, h, C, decay, A, Z, mx, sm)
                    accpoint = np.isfinite(f) and f <= fmin + gradproj * steplength * acctol
                    if not accpoint:
                        steplength *= stepredn
                if count == n or accpoint:
                    break
            enough = f > abstol and abs(f - fmin) > reltol * (abs(fmin) + reltol)
            if not enough:  # small value or small relative change: stop
                count = n
                fmin = f
            if count < n:  # progress: the last forward pass was at b (accepted)
                fmin = f
                _nnet_backward(b, XT, d, h, C, decay, A, Z, g)
                gradcount += 1
                it += 1
                D1 = 0.0
                for i in range(n):
                    t[i] = steplength * t[i]
                    c[i] = g[i] - c[i]
                    D1 += t[i] * c[i]
                if D1 > 0:
                    for i in range(n):
                        X[i] = 0.0
                    for j in range(n):  # X = B c
                        cj = c[j]
                        for i in range(n):
                            X[i] += BT[j, i] * cj
                    D2 = 0.0
                    for i in range(n):
                        D2 += X[i] * c[i]
                    D2 = 1.0 + D2 / D1
                    for i in range(n):
                        tn[i] = 0.0
                    for j in range(n):  # the BFGS update, and -B g with the updated B
                        tj = t[j]
                        Xj = X[j]
                        gj = g[j]
                        for i in range(n):
                            BT[j, i] += (D2 * t[i] * tj - X[i] * tj - t[i] * Xj) / D1
                            tn[i] -= BT[j, i] * gj
                    fresh = True
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
