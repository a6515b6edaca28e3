"""Older training regimes for ``lp`` and ``mlp-<h>``: per-pattern online backprop and R's nnet.

The default ``lp`` / ``mlp-<h>`` (:mod:`simstudy.learners.neural`) are trained to
convergence with L-BFGS and an L2 penalty.  The papers trained theirs otherwise, and say
little about it; these solvers are the two readings issue 18 calibrates against the papers'
error tables.  Each is selected by an option in the canonical spec, so each variant is its
own learner id and cell id (the registry routes ``solver=online`` / ``solver=nnet`` here)::

    mlp-10[activation=logistic,alpha=0,epochs=300,eta=0.02,init=0.01,solver=online]
    lp[alpha=0,epochs=300,eta=0.02,init=0.01,solver=online]
    mlp-5[scale=none,solver=nnet]

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

Both are compiled (numba), float64 throughout.  nnet trains one model at a time.  Online
backprop trains models of equal training size side by side, 8 "lanes" at a time with the model
axis innermost (the loops over lanes vectorise); each lane runs exactly the one-model kernel's
operations in the same order, so a model's weights are bitwise those it gets alone, whatever
its batch-mates (tested).  Most of the time goes to ``exp`` (13 calls per pattern for a
4-10-3 network), which numba does not vectorise without SVML.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from ..errors import SimstudyError, unknown
from ..spec import format_spec
from .base import Learner
from .neural import standardize_batch

SOLVERS = ("online", "nnet")
SCALES = ("z", "none")
ACTIVATIONS = ("logistic", "tanh")

#: defaults per solver; every option appears in the learner's canonical name
DEFAULTS: dict[str, dict[str, object]] = {
    "online": {"epochs": 100, "eta": 0.02, "init": 0.01, "alpha": 0.0,
               "activation": "logistic", "scale": "z"},
    "nnet": {"maxit": 200, "init": 0.7, "alpha": 0.0, "scale": "z",
             "abstol": 1e-4, "reltol": 1e-8},
}


def _num(key: str, v: object, *, positive: bool) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float, np.integer, np.floating)):
        raise SimstudyError(f"option {key} must be a number, got {v!r}")
    if not (v > 0 if positive else v >= 0):
        raise SimstudyError(f"option {key} must be {'> 0' if positive else '>= 0'}, got {v!r}")
    return float(v)


def _int(key: str, v: object) -> int:
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
        raise SimstudyError(f"option {key} must be a positive integer, got {v!r}")
    return int(v)


def _fmt(v: object) -> str:
    """Canonical text of an option value (``0.0`` -> ``0``, ``0.02`` -> ``0.02``)."""
    if isinstance(v, float):
        return repr(int(v)) if v.is_integer() else repr(v)
    return str(v)


# ---------------------------------------------------------------------------------------
# online backprop

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
            for l in range(L):
                i = order[l, e, t]
                yi[l] = yr[l, i]
                for k in range(d):
                    x[k, l] = Xz[l, i, k]
            if h > 0:
                for j in range(h):
                    for l in range(L):
                        a[j, l] = W1[d, j, l]
                for k in range(d):
                    for j in range(h):
                        for l in range(L):
                            a[j, l] += W1[k, j, l] * x[k, l]
                if logistic:  # branch outside the lane loops, so that they vectorise
                    for j in range(h):
                        for l in range(L):
                            a[j, l] = 1.0 / (1.0 + np.exp(-a[j, l]))
                else:
                    for j in range(h):
                        for l in range(L):
                            a[j, l] = np.tanh(a[j, l])
            u = a if h > 0 else x
            for c in range(C):
                for l in range(L):
                    z[c, l] = W2[m, c, l]
            for j in range(m):
                for c in range(C):
                    for l in range(L):
                        z[c, l] += W2[j, c, l] * u[j, l]
            for l in range(L):
                mx[l] = z[0, l]
            for c in range(1, C):
                for l in range(L):
                    mx[l] = max(mx[l], z[c, l])
            for l in range(L):
                sm[l] = 0.0
            for c in range(C):
                for l in range(L):
                    z[c, l] = np.exp(z[c, l] - mx[l])
                    sm[l] += z[c, l]
            for c in range(C):
                for l in range(L):
                    z[c, l] /= sm[l]
            for l in range(L):
                z[yi[l], l] -= 1.0
            if h > 0:
                for j in range(h):
                    for l in range(L):
                        dh[j, l] = 0.0
                    for c in range(C):
                        for l in range(L):
                            dh[j, l] += W2[j, c, l] * z[c, l]
                    if logistic:
                        for l in range(L):
                            aj = a[j, l]
                            dh[j, l] = dh[j, l] * (aj * (1.0 - aj))
                    else:
                        for l in range(L):
                            aj = a[j, l]
                            dh[j, l] = dh[j, l] * (1.0 - aj * aj)
            for j in range(m):
                for c in range(C):
                    for l in range(L):
                        W2[j, c, l] -= eta * (u[j, l] * z[c, l] + alpha * W2[j, c, l])
            for c in range(C):
                for l in range(L):
                    W2[m, c, l] -= eta * z[c, l]
            if h > 0:
                for k in range(d):
                    for j in range(h):
                        for l in range(L):
                            W1[k, j, l] -= eta * (x[k, l] * dh[j, l] + alpha * W1[k, j, l])
                for j in range(h):
                    for l in range(L):
                        W1[d, j, l] -= eta * dh[j, l]


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


# ---------------------------------------------------------------------------------------
# nnet: R's vmmin BFGS on nnet's objective

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
def _vmmin(b, Xz, yr, d, h, C, decay, maxit, abstol, reltol):  # pragma: no cover
    """R's ``vmmin`` (variable-metric BFGS, Nash 1990 Alg. 21) on nnet's objective.

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


# ---------------------------------------------------------------------------------------

class _OldNet(Learner):
    """Shared plumbing of the online and nnet solvers (``hidden == 0``: the linear model)."""

    def __init__(self, hidden: int, base: str, solver: str, **opts: object) -> None:
        if solver not in SOLVERS:
            raise unknown("solver", solver, SOLVERS)
        if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)) or hidden < 0:
            raise SimstudyError(f"hidden units must be an integer >= 0, got {hidden!r}")
        self.hidden, self.solver = int(hidden), solver
        defaults = DEFAULTS[solver]
        bad = set(opts) - set(defaults)
        if bad:
            raise unknown(f"option of solver={solver}", sorted(bad)[0], defaults)
        o = {**defaults, **opts}
        if o["scale"] not in SCALES:
            raise unknown("scale", o["scale"], SCALES)
        if "activation" in o and o["activation"] not in ACTIVATIONS:
            raise unknown("activation", o["activation"], ACTIVATIONS)
        if solver == "online":
            o["epochs"] = _int("epochs", o["epochs"])
            o["eta"] = _num("eta", o["eta"], positive=True)
        else:
            o["maxit"] = _int("maxit", o["maxit"])
            o["abstol"] = _num("abstol", o["abstol"], positive=False)
            o["reltol"] = _num("reltol", o["reltol"], positive=False)
        o["init"] = _num("init", o["init"], positive=False)
        o["alpha"] = _num("alpha", o["alpha"], positive=False)
        self.opts = o
        #: models trained side by side by the online kernel (1: one at a time; same results)
        self.lanes = 8
        shown = {k: _fmt(v) for k, v in o.items()
                 if solver == "online" or k not in ("abstol", "reltol") or v != defaults[k]}
        if hidden == 0 and "activation" in shown:
            del shown["activation"]  # no hidden units: the activation plays no part
        self.name = format_spec(base, {**shown, "solver": solver})

    def reference_estimator(self):
        """scikit-learn's closest configuration (the perf comparison; not the same RNG)."""
        if self.solver != "online":
            return None
        from sklearn.neural_network import MLPClassifier

        o = self.opts
        if self.hidden == 0:
            return None
        return MLPClassifier(
            hidden_layer_sizes=(self.hidden,), activation=str(o["activation"]), solver="sgd",
            alpha=0.0, batch_size=1, learning_rate="constant", learning_rate_init=o["eta"],
            momentum=0.0, nesterovs_momentum=False, max_iter=o["epochs"], shuffle=True,
            tol=0.0, n_iter_no_change=int(o["epochs"]) + 1, early_stopping=False)

    def _init(self, rng: np.random.Generator, d: int, C: int) -> tuple[np.ndarray, np.ndarray]:
        """Initial ``W1`` (d+1, h) and ``W2`` (m+1, K), U(−init, init), W1 drawn first."""
        r = float(self.opts["init"])
        h = self.hidden
        K = 1 if (self.solver == "nnet" and C == 2) else C
        W1 = rng.uniform(-r, r, size=(d + 1, h)) if h else np.zeros((0, 0))
        W2 = rng.uniform(-r, r, size=((h if h else d) + 1, K))
        return W1, W2

    def fit_predict(self, X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                    seeds: Sequence[np.random.SeedSequence]) -> np.ndarray:
        """One model per row of ``train``; see :meth:`Learner.fit_predict`."""
        X = np.ascontiguousarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        train = np.asarray(train, dtype=bool)
        test = np.asarray(test, dtype=bool)
        if train.shape != test.shape or train.ndim != 2 or train.shape[1] != X.shape[0]:
            raise SimstudyError(f"train/test masks must both be (B, n={X.shape[0]}), "
                                f"got {train.shape!r} and {test.shape!r}")
        if len(seeds) != train.shape[0]:
            raise SimstudyError(f"need one seed per model: {train.shape[0]} masks, "
                                f"{len(seeds)} seeds")
        B, n = train.shape
        d = X.shape[1]
        C = int(y.max()) + 1
        pred = np.full((B, n), -1, dtype=np.int64)
        if B == 0:
            return pred
        mean, scale = standardize_batch(X, train)  # scale=none: only the means (imputation)
        o = self.opts
        logistic = o.get("activation", "logistic") == "logistic"
        self.iterations_ = np.zeros(B, dtype=np.int64)  # epochs / BFGS iterations (diagnostic)
        self.weights_: list[tuple[np.ndarray, np.ndarray]] = [None] * B  # trained (W1, W2)

        def start(b: int):
            rows = np.flatnonzero(train[b])
            if rows.size == 0:
                raise SimstudyError("every model needs at least one training instance")
            Xz = (_raw_rows(X, rows, mean[b]) if o["scale"] == "none"
                  else _z_rows(X, rows, mean[b], scale[b]))
            rng = np.random.default_rng(seeds[b])
            W1, W2 = self._init(rng, d, C)  # drawn first, then the epochs' orders
            order = None
            if self.solver == "online":
                E = int(o["epochs"])
                order = rng.permuted(np.broadcast_to(np.arange(rows.size), (E, rows.size)),
                                     axis=1)
            return Xz, y[rows], W1, W2, order

        if self.solver == "online" and self.lanes > 1:
            # models of equal training size train side by side, LANES at a time; a lane's
            # arithmetic is the one-model kernel's, so grouping never changes a result
            sizes = train.sum(axis=1)
            for size in np.unique(sizes):
                idx = np.flatnonzero(sizes == size)
                for i0 in range(0, idx.size, self.lanes):
                    blk = idx[i0:i0 + self.lanes]
                    parts = [start(b) for b in blk]
                    W1s = np.ascontiguousarray(np.stack([p[2] for p in parts], axis=-1))
                    W2s = np.ascontiguousarray(np.stack([p[3] for p in parts], axis=-1))
                    _online_train_lanes(np.stack([p[0] for p in parts]),
                                        np.stack([p[1] for p in parts]),
                                        np.stack([p[4] for p in parts]), W1s, W2s,
                                        float(o["eta"]), float(o["alpha"]), logistic)
                    for q, b in enumerate(blk):
                        self.weights_[b] = (W1s[..., q].copy(), W2s[..., q].copy())
                        self.iterations_[b] = int(o["epochs"])
        else:
            for b in range(B):
                Xz, yr, W1, W2, order = start(b)
                if self.solver == "online":
                    _online_train(Xz, yr, order, W1, W2, float(o["eta"]), float(o["alpha"]),
                                  logistic)
                    self.iterations_[b] = order.shape[0]
                else:
                    w = np.concatenate([W1.ravel(), W2.ravel()])
                    self.iterations_[b] = _vmmin(w, Xz, yr, d, self.hidden, C,
                                                 float(o["alpha"]), int(o["maxit"]),
                                                 float(o["abstol"]), float(o["reltol"]))
                    W1 = w[:W1.size].reshape(W1.shape)
                    W2 = w[W1.size:].reshape(W2.shape)
                self.weights_[b] = (W1, W2)
        for b in range(B):
            W1, W2 = self.weights_[b]
            te = np.flatnonzero(test[b])
            if te.size == 0:
                continue
            Xt = (_raw_rows(X, te, mean[b]) if self.opts["scale"] == "none"
                  else _z_rows(X, te, mean[b], scale[b]))
            if self.solver == "nnet" and W2.shape[1] == 1:
                # one logistic output: class 1 when p > 0.5 (nnet's predict.nnet, type="class")
                p = _nnet_prob1(Xt, W1, W2)
                pred[b, te] = (p > 0.5).astype(np.int64)
            else:
                pred[b, te] = _predict_softmax_net(Xt, W1, W2, logistic, self.solver == "nnet")
        return pred


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


class OnlineLP(_OldNet):
    """``lp[solver=online|nnet, ...]``: the linear perceptron under an older regime."""

    def __init__(self, solver: str = "online", **opts: object) -> None:
        opts.pop("activation", None) if solver == "nnet" else None
        super().__init__(0, "lp", solver, **opts)


class OnlineMLP(_OldNet):
    """``mlp-<h>[solver=online|nnet, ...]``: one hidden layer under an older regime."""

    def __init__(self, hidden: int, solver: str = "online", **opts: object) -> None:
        if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)) or hidden < 1:
            raise SimstudyError(f"mlp needs hidden units >= 1, got {hidden!r}")
        super().__init__(int(hidden), f"mlp-{int(hidden)}", solver, **opts)
