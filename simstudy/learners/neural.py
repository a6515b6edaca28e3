"""Batched gradient-trained softmax learners: ``lp``, ``lgc`` and ``mlp-<h>``.

A whole batch of ``B`` models (one per train mask) is fitted in one call.  With the default
L-BFGS solver the batch goes to one compiled (numba) function that trains the models one
after another, each on its own rows with the same code, so a model's arithmetic never sees
its batch-mates and its predictions are bitwise identical alone or inside any batch
(tested).  With ``solver="rprop"`` the batch is one stacked network in numpy (a leading
model axis, one small gemm per model per ``np.matmul``), equally batch-independent.

Models
------
* ``lp``  -- Alpaydın (1999)'s *linear perceptron*: one layer of ``C`` softmax outputs on
  the ``d`` inputs, trained on cross-entropy (Alpaydın, *Introduction to Machine Learning*,
  sec. "Linear discrimination / softmax").  ``C(d+1)`` parameters.
* ``lgc`` -- Yıldız & Alpaydın (2006)'s LGC, "LoGistic Classification with a linear model,
  gradient descent, discrete features 1-of-n encoded, c(d+1) parameters".  That is the same
  model and objective as ``lp`` (the 1-of-n coding of nominal attributes is already done by
  the source, see :class:`simstudy.core.Dataset`), so :class:`LogisticGD` *is* the linear
  perceptron under its other name; the two differ only in ``name``.  For two classes we keep
  two softmax outputs (``c(d+1)`` parameters, as the paper counts them).
* ``mlp-<h>`` -- one hidden layer of ``h`` **tanh** units (Alpaydın's MLPs use a sigmoid
  hidden layer; tanh is the same function class, ``tanh(a) = 2·sigmoid(2a) - 1``, and trains
  better centred) and a softmax output layer, cross-entropy loss.

Objective, per model on its ``n_tr`` training rows (the one of scikit-learn's
``MLPClassifier`` times ``n_tr``, and of ``LogisticRegression(C=1/alpha)``)::

    J(θ) = Σ_i  -log softmax(f_θ(x_i))[y_i]  +  alpha/2 · ||weights||²      (biases unpenalised)

with a small ``alpha`` (default 1e-2 for lp/lgc, 1.0 for mlp; see :data:`DEFAULTS`) so the
optimum exists on separable folds (iris, wine halves are often separable).  The MLP value was
chosen against Alpaydın (1999) Table 2 (tried 0.1 and 1.0): 1.0 is closer on iris/wine/vowel,
equal on glass; for lp 0.01 is closer than 1.0 on iris/glass/ODR.

Preprocessing, per model on its training rows only: ``nan`` → training mean, then
standardise with the training mean/sd (sd 0 → 1); so an imputed value becomes exactly 0.

Optimiser (``solver="lbfgs"``, default): full-batch **L-BFGS** per model (Nocedal & Wright
2006, Alg. 7.4-7.5; memory 10, Armijo backtracking from the unit step, the first step scaled
as scipy's L-BFGS-B).  It is what scikit-learn's reference uses, and it needs 2-8x fewer
gradient evaluations than Rprop here (iris MLP-10: ~120 vs ~220).  Per-model stop:
``max|∇J| <= gtol · n_tr`` (scikit-learn's ``tol`` on the mean loss; 1e-4 for MLPs, 1e-6 for
the convex linear models so they land on LogisticRegression's optimum), a relative decrease
``<= tol`` in one iteration, or no Armijo step (optimum up to float precision);
``max_epochs`` caps iterations.  The compiled network runs transposed (features × rows, rows
padded with zeros to 16) so its loops vectorise; in float32 ``tanh`` and the softmax ``exp``
are vectorisable polynomial/rational forms accurate to a few float32 ulp (tested against
numpy), L-BFGS state and ``J`` are float64.  ``solver="rprop"`` is full-batch **iRprop−** (Igel & Hüsken
2000): sign-based per-weight steps (×1.2 / ×0.5), purely elementwise, stopped when ``J`` fell
by less than ``tol · check · J`` over ``check`` epochs.  Initial weights: Glorot-uniform as in
scikit-learn's MLP, drawn from ``np.random.default_rng(seeds[b])`` for model ``b``; the
linear models start at 0 (their objective is strictly convex, as in ``LogisticRegression``).
The rprop path runs BLAS single-threaded (``blas_threads``): parallelism belongs to the
runner, and threaded tiny gemms stall on a busy machine; the compiled path calls no BLAS.

Training uses only a model's own training rows, gathered into a compact array; rprop groups
models by training-set size so that no model's arrays carry padding that depends on its
batch-mates (the compiled path's padding depends only on the model's own row count).
The network runs in float32 by default (``dtype="float64"`` to check: exact ``tanh``/``exp``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numba import njit

from ..errors import SimstudyError, unknown
from .base import Learner

ACTIVATIONS = ("tanh", "logistic")
SOLVERS = ("lbfgs", "rprop")

#: Default options.  ``alpha`` is the L2 weight on the *summed* cross-entropy (sklearn MLP's
#: ``alpha``, ``1/C`` of LogisticRegression).  ``max_bytes`` bounds the per-chunk working set
#: of the rprop path (the compiled L-BFGS path holds one model's arrays at a time).
DEFAULTS: dict[str, object] = {
    "alpha": None,  # None: 1e-2 for linear models, 1.0 for MLPs (closest to Alpaydın Table 2)
    "activation": "tanh",
    "max_epochs": 1000,
    # None: relative decrease per iteration 1e-10 (linear) / 1e-7 (MLP) for lbfgs; 1e-4 for rprop
    "tol": None,
    "check": 10,
    "dtype": "float32",
    "solver": "lbfgs",
    "memory": 10,
    "gtol": None,  # None: 1e-6 for linear models (convex, cheap: match the optimum), 1e-4 MLP
    "max_bytes": 4 * 2**20,
    # BLAS threads inside rprop's fit_predict; the runner parallelises over processes, and
    # threaded small gemms stall badly on a busy machine (measured 100x slower).  None =
    # leave as is.  The L-BFGS path calls no BLAS and skips threadpoolctl (~5 ms a call).
    "blas_threads": 1,
}

_ETA_PLUS, _ETA_MINUS = 1.2, 0.5
_STEP0, _STEP_MIN, _STEP_MAX = 0.05, 1e-7, 5.0


def _check_opts(opts: dict) -> dict:
    bad = set(opts) - set(DEFAULTS)
    if bad:
        raise unknown("option", sorted(bad)[0], DEFAULTS)
    out = {**DEFAULTS, **opts}
    if out["activation"] not in ACTIVATIONS:
        raise unknown("activation", out["activation"], ACTIVATIONS)
    if out["solver"] not in SOLVERS:
        raise unknown("solver", out["solver"], SOLVERS)
    if out["dtype"] not in ("float32", "float64"):
        raise unknown("dtype", out["dtype"], ("float32", "float64"))
    ints = ("max_epochs", "check", "max_bytes", "memory")
    for key in ints + (("blas_threads",) if out["blas_threads"] is not None else ()):
        v = out[key]
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise SimstudyError(f"option {key} must be a positive integer, got {v!r}")
    for key in tuple(k for k in ("alpha", "tol", "gtol") if out[k] is not None):
        v = out[key]
        if isinstance(v, bool) or not isinstance(v, (int, float)) or not v >= 0:
            raise SimstudyError(f"option {key} must be a number >= 0, got {v!r}")
    return out


def standardize_batch(X: np.ndarray, train: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-model training mean and scale for impute-then-standardise.

    Returns ``(mean, scale)``, each ``(B, d)`` float64: ``mean`` over a model's non-missing
    training values (0 if none), ``scale`` their population sd with 0 → 1 (as
    ``SimpleImputer(strategy="mean")`` + ``StandardScaler``: imputed values add nothing to
    the sum of squares).  Compiled, one model at a time (no BLAS, batch-independent).
    """
    X = np.ascontiguousarray(X, dtype=np.float64)
    train = np.ascontiguousarray(train, dtype=bool)
    return _standardize_kernel(X, train)


_EPS64 = float(np.finfo(np.float64).eps)


@njit(cache=True, error_model="numpy")
def _standardize_kernel(X, train):  # pragma: no cover - compiled
    B, n = train.shape
    d = X.shape[1]
    mean = np.zeros((B, d))
    scale = np.ones((B, d))
    cnt = np.zeros(d)
    acc = np.zeros(d)
    for b in range(B):
        rows = np.flatnonzero(train[b])
        cnt[:] = 0.0
        acc[:] = 0.0
        for i in rows:
            for k in range(d):
                v = X[i, k]
                if not np.isnan(v):
                    cnt[k] += 1.0
                    acc[k] += v
        for k in range(d):
            mean[b, k] = acc[k] / cnt[k] if cnt[k] > 0 else 0.0
        # second pass about the mean (no cancellation); imputed values sit at the mean, add
        # nothing to the sum of squares and count in the denominator (all training rows)
        acc[:] = 0.0
        for i in rows:
            for k in range(d):
                v = X[i, k]
                if not np.isnan(v):
                    acc[k] += (v - mean[b, k]) ** 2
        nb = max(rows.shape[0], 1)
        for k in range(d):
            var = acc[k] / nb
            # StandardScaler's _is_constant_feature: variance at rounding level -> scale 1
            # (a constant 0.1 column leaves var ~1e-34 from the rounded mean)
            bound = nb * _EPS64 * var + (nb * mean[b, k] * _EPS64) ** 2
            scale[b, k] = 1.0 if var <= bound else np.sqrt(var)
    return mean, scale


def _apply_standardize(X: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``(x - mean)/scale`` with ``nan`` → 0 (= the imputed training mean), float64."""
    Z = (X - mean) / scale
    return np.where(np.isnan(Z), 0.0, Z)


# ---------------------------------------------------------------------------------------
# numba L-BFGS kernels: one model at a time, the whole batch in one compiled call.
#
# Each model is trained by the same compiled code on its own rows only, so its result is
# bitwise independent of its batch-mates, of batch order and of chunking by construction.
# Per model the network is tiny (iris: 75 rows, 4 inputs, 10 hidden units), so the work is
# laid out transposed -- features × rows -- and every inner loop runs over the contiguous
# row axis, where it vectorises.  ``fastmath`` allows only reassociation, contraction (FMA)
# and signed-zero freedom, so the row sums vectorise; nan/inf checks keep their meaning.

_FM = {"reassoc", "contract", "nsz"}
_PAD = 16  # row padding: one AVX-512 vector of float32

# Constants in the network's float type travel in one array ``K`` (numba would promote a
# float32 expression to float64 on meeting a Python float literal).
_K_ZERO, _K_ONE, _K_HALF, _K_CLIP = 0, 1, 2, 3
# Eigen's float32 tanh (rational minimax 13/6 on [-7.905, 7.905], a few ulp; |x| < 4e-4
# returns x): Eigen/src/Core/MathFunctionsImpl.h, generic_fast_tanh_float.
_K_ALPHA = 4  # 7 numerator coefficients alpha_1 .. alpha_13, then 4 denominator beta_0 .. beta_6
_TANH_ALPHA = (
    4.89352455891786e-03,
    6.37261928875436e-04,
    1.48572235717979e-05,
    5.12229709037114e-08,
    -8.60467152213735e-11,
    2.00018790482477e-13,
    -2.76076847742355e-16,
)
_TANH_BETA = (
    4.89352518554385e-03,
    2.26843463243900e-03,
    1.18534705686654e-04,
    1.19825839466702e-06,
)
_K_TINY = _K_ALPHA + 11


def _consts(dtype: np.dtype) -> np.ndarray:
    return np.array(
        (0.0, 1.0, 0.5, 7.90531110763549805) + _TANH_ALPHA + _TANH_BETA + (4e-4,), dtype=dtype
    )


@njit(cache=True, fastmath=_FM, error_model="numpy")
def _tanh_rows(Z, K, fast):  # pragma: no cover - compiled
    """``Z = tanh(Z)`` in place on a 2-D array; ``fast``: the vectorisable rational form."""
    if not fast:
        for j in range(Z.shape[0]):
            for i in range(Z.shape[1]):
                Z[j, i] = np.tanh(Z[j, i])
        return
    clip = K[_K_CLIP]
    a1, a3, a5, a7 = K[_K_ALPHA], K[_K_ALPHA + 1], K[_K_ALPHA + 2], K[_K_ALPHA + 3]
    a9, a11, a13 = K[_K_ALPHA + 4], K[_K_ALPHA + 5], K[_K_ALPHA + 6]
    b0, b2, b4, b6 = K[_K_ALPHA + 7], K[_K_ALPHA + 8], K[_K_ALPHA + 9], K[_K_ALPHA + 10]
    tiny = K[_K_TINY]
    for j in range(Z.shape[0]):
        for i in range(Z.shape[1]):
            z = Z[j, i]
            x = min(max(z, -clip), clip)
            x2 = x * x
            p = x2 * a13 + a11
            p = x2 * p + a9
            p = x2 * p + a7
            p = x2 * p + a5
            p = x2 * p + a3
            p = x2 * p + a1
            p = x * p
            q = x2 * b6 + b4
            q = x2 * q + b2
            q = x2 * q + b0
            Z[j, i] = z if abs(z) < tiny else p / q


@njit(cache=True, fastmath=_FM, error_model="numpy")
def _exp_nonpos(z, kb):  # pragma: no cover - compiled
    """``z = exp(z)`` in place for float32 ``z <= 0`` (softmax after the max shift).

    Cephes ``expf``: ``exp(x) = 2^k · exp(x - k ln2)``, Cody-Waite split of ln2, degree-6
    polynomial (2-3 ulp; checked against numpy in the tests); ``2^k`` is assembled in the
    exponent bits of ``kb`` (int32 scratch).  ``x < -87`` is clamped (``exp(-87) ≈ 1.6e-38``,
    negligible beside the softmax sum >= 1).  Vectorises, unlike a call to libm per value.
    """
    kf = kb.view(np.float32)
    for i in range(z.shape[0]):
        x = max(z[i], np.float32(-87.0))
        k = np.floor(x * np.float32(1.44269504088896341) + np.float32(0.5))
        r = x - k * np.float32(0.693359375) - k * np.float32(-2.12194440e-4)
        p = np.float32(1.9875691500e-4) * r + np.float32(1.3981999507e-3)
        p = p * r + np.float32(8.3334519073e-3)
        p = p * r + np.float32(4.1665795894e-2)
        p = p * r + np.float32(1.6666665459e-1)
        p = p * r + np.float32(5.0000001201e-1)
        p = p * r * r + r + np.float32(1.0)
        kb[i] = (np.int32(k) + np.int32(127)) << np.int32(23)
        z[i] = p
    for i in range(z.shape[0]):
        z[i] *= kf[i]


@njit(cache=True, fastmath=_FM, error_model="numpy")
def _logits(W, Xt, H, Z, d, h, C, logistic, K, fast):  # pragma: no cover - compiled
    """Forward pass, transposed: ``H`` (h, r) hidden outputs, ``Z`` (C, r) logits.

    ``W`` holds the flat parameters in the layout of :meth:`_SoftmaxNet._views`.
    """
    r = Xt.shape[1]
    if h == 0:
        for c in range(C):
            b = W[d * C + c]
            for i in range(r):
                Z[c, i] = b
            for k in range(d):
                w = W[k * C + c]
                for i in range(r):
                    Z[c, i] += w * Xt[k, i]
        return
    half = K[_K_HALF]
    for j in range(h):
        b = W[d * h + j]
        for i in range(r):
            H[j, i] = b
        for k in range(d):
            w = W[k * h + j]
            for i in range(r):
                H[j, i] += w * Xt[k, i]
        if logistic:  # logistic(a) = (1 + tanh(a/2)) / 2, exact identity, no overflow
            for i in range(r):
                H[j, i] *= half
    _tanh_rows(H, K, fast)
    if logistic:
        for j in range(h):
            for i in range(r):
                H[j, i] = half * H[j, i] + half
    o = (d + 1) * h
    for c in range(C):
        b = W[o + h * C + c]
        for i in range(r):
            Z[c, i] = b
        for j in range(h):
            w = W[o + j * C + c]
            for i in range(r):
                Z[c, i] += w * H[j, i]


@njit(cache=True, fastmath=_FM, error_model="numpy")
def _objective(
    theta, pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, W, H, Z, Dh, mx, S, kb, G, g
):  # pragma: no cover - compiled
    """``J(θ)`` (float64) and its gradient into ``g`` (float64, flat); network in K's dtype.

    J = Σ_i -log softmax(z_i)[y_i] + alpha/2 Σ pen·θ², the objective of the module docstring.
    """
    P = theta.shape[0]
    r = Xt.shape[1]  # padded to a multiple of _PAD with zero columns
    nr = yr.shape[0]  # the real rows
    for p in range(P):
        W[p] = theta[p]
    _logits(W, Xt, H, Z, d, h, C, logistic, K, fast)
    # softmax by columns: running max and sum over the C rows, vectorised over rows
    for i in range(r):
        mx[i] = Z[0, i]
    for c in range(1, C):
        for i in range(r):
            mx[i] = max(mx[i], Z[c, i])
    f = 0.0
    for i in range(nr):
        f -= Z[yr[i], i] - mx[i]
    for c in range(C):
        for i in range(r):
            Z[c, i] -= mx[i]
        if fast:
            _exp_nonpos(Z[c], kb)
        else:
            for i in range(r):
                Z[c, i] = np.exp(Z[c, i])
    for i in range(r):
        S[i] = Z[0, i]
    for c in range(1, C):
        for i in range(r):
            S[i] += Z[c, i]
    # Σ_i log S_i as the logs of float64 products of 32 terms (each S_i in [1, C]): 32x
    # fewer log calls, and no overflow for C < 4e9
    for i0 in range(0, nr, 32):
        prod = 1.0
        for i in range(i0, min(i0 + 32, nr)):
            prod *= S[i]
        f += np.log(prod)
    for i in range(r):
        S[i] = K[_K_ONE] / S[i]
    for c in range(C):  # dJ/dz = softmax - one-hot
        for i in range(r):
            Z[c, i] = Z[c, i] * S[i] - Yt[c, i]
        for i in range(nr, r):  # padding rows carry no loss: zero gradient
            Z[c, i] = K[_K_ZERO]
    if h == 0:
        for c in range(C):
            acc = K[_K_ZERO]
            for i in range(r):
                acc += Z[c, i]
            G[d * C + c] = acc
            for k in range(d):
                acc = K[_K_ZERO]
                for i in range(r):
                    acc += Xt[k, i] * Z[c, i]
                G[k * C + c] = acc
    else:
        o = (d + 1) * h
        one = K[_K_ONE]
        for c in range(C):
            acc = K[_K_ZERO]
            for i in range(r):
                acc += Z[c, i]
            G[o + h * C + c] = acc
        for j in range(h):
            for c in range(C):
                acc = K[_K_ZERO]
                for i in range(r):
                    acc += H[j, i] * Z[c, i]
                G[o + j * C + c] = acc
            # back through the hidden layer: Dh = (D W2ᵀ) ⊙ act'(H)
            for i in range(r):
                Dh[j, i] = K[_K_ZERO]
            for c in range(C):
                w = W[o + j * C + c]
                for i in range(r):
                    Dh[j, i] += w * Z[c, i]
            if logistic:
                for i in range(r):
                    Dh[j, i] *= H[j, i] * (one - H[j, i])
            else:
                for i in range(r):
                    Dh[j, i] *= one - H[j, i] * H[j, i]
            acc = K[_K_ZERO]
            for i in range(r):
                acc += Dh[j, i]
            G[d * h + j] = acc
            for k in range(d):
                acc = K[_K_ZERO]
                for i in range(r):
                    acc += Xt[k, i] * Dh[j, i]
                G[k * h + j] = acc
    reg = 0.0
    for p in range(P):
        wp = pen[p] * theta[p]
        reg += wp * theta[p]
        g[p] = G[p] + alpha * wp
    return f + 0.5 * alpha * reg


@njit(cache=True, error_model="numpy")
def _dot(a, b):  # pragma: no cover - compiled
    # plain sequential sum (no fastmath): the L-BFGS scalars are float64 and cheap
    s = 0.0
    for p in range(a.shape[0]):
        s += a[p] * b[p]
    return s


@njit(cache=True, error_model="numpy")
def _lbfgs_one(
    theta, pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, m, max_it, tol, gtol
):  # pragma: no cover - compiled
    """L-BFGS (Nocedal & Wright 2006, Alg. 7.4 two-loop recursion, Alg. 7.5) on one model.

    Armijo backtracking (c1 = 1e-4, halving, at most 30 trials) from the unit step; the first
    step is scaled like scipy's L-BFGS-B (``|t·p| = 1``).  A pair with ``sᵀy <= 1e-12`` is not
    stored; a non-descent direction restarts from steepest descent with the memory cleared.
    Stops when ``max|∇J| <= gtol``, when one iteration decreased ``J`` by ``<= tol`` relative
    to ``max(|J|, 1)``, or when no Armijo step is found (optimum up to float precision).
    Updates ``theta`` in place; returns the iterations run.
    """
    P = theta.shape[0]
    r = Xt.shape[1]
    dt = K.dtype
    W = np.empty(P, dt)
    H = np.empty((max(h, 1), r), dt)
    Z = np.empty((C, r), dt)
    Dh = np.empty((max(h, 1), r), dt)
    mx = np.empty(r, dt)
    Sr = np.empty(r, dt)
    kb = np.empty(r, np.int32)
    G = np.empty(P, dt)
    g = np.empty(P)
    gc = np.empty(P)
    cand = np.empty(P)
    q = np.empty(P)
    sv = np.empty(P)
    yv = np.empty(P)
    Sm = np.zeros((m, P))
    Ym = np.zeros((m, P))
    rho = np.zeros(m)
    a = np.zeros(m)
    f = _objective(
        theta, pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, W, H, Z, Dh, mx, Sr, kb, G, g
    )
    gamma = 1.0
    stored = 0
    head = 0  # slot of the next pair
    for it in range(1, max_it + 1):
        for p in range(P):
            q[p] = -g[p]
        for jj in range(stored):  # newest pair first
            j = (head - 1 - jj) % m
            a[j] = rho[j] * _dot(Sm[j], q)
            for p in range(P):
                q[p] -= a[j] * Ym[j, p]
        for p in range(P):
            q[p] *= gamma
        for jj in range(stored - 1, -1, -1):
            j = (head - 1 - jj) % m
            bj = rho[j] * _dot(Ym[j], q)
            for p in range(P):
                q[p] += (a[j] - bj) * Sm[j, p]
        gp = _dot(g, q)
        if not gp < 0.0:  # not a descent direction: restart from steepest descent
            for p in range(P):
                q[p] = -g[p]
            gp = -_dot(g, g)
            stored = 0
            gamma = 1.0
        t = 1.0 / max(np.sqrt(-gp), 1.0) if it == 1 else 1.0
        found = False
        fc = np.inf
        for _ in range(30):
            for p in range(P):
                cand[p] = theta[p] + t * q[p]
            fc = _objective(
                cand,
                pen,
                alpha,
                Xt,
                Yt,
                yr,
                d,
                h,
                C,
                logistic,
                K,
                fast,
                W,
                H,
                Z,
                Dh,
                mx,
                Sr,
                kb,
                G,
                gc,
            )
            if np.isfinite(fc) and fc <= f + 1e-4 * t * gp:
                found = True
                break
            t *= 0.5
        if not found:
            return it
        sy = 0.0
        yy = 0.0
        for p in range(P):
            sv[p] = cand[p] - theta[p]
            yv[p] = gc[p] - g[p]
            sy += sv[p] * yv[p]
            yy += yv[p] * yv[p]
        if sy > 1e-12:  # curvature pair kept (it replaces the oldest when memory is full)
            for p in range(P):
                Sm[head, p] = sv[p]
                Ym[head, p] = yv[p]
            rho[head] = 1.0 / sy
            gamma = sy / yy
            head = (head + 1) % m
            stored = min(stored + 1, m)
        dec = f - fc
        gmax = 0.0
        for p in range(P):
            theta[p] = cand[p]
            g[p] = gc[p]
            gmax = max(gmax, abs(gc[p]))
        f = fc
        if gmax <= gtol or dec <= tol * max(abs(f), abs(f + dec), 1.0):
            return it
    return max_it


@njit(cache=True, error_model="numpy")
def _standardized_t(X, rows, mean, scale, dt_arr):  # pragma: no cover - compiled
    """Rows ``rows`` of ``X``, ``(x - mean)/scale`` with nan -> 0, transposed ``(d, r)``.

    The row axis is padded with zeros to a multiple of ``_PAD``: the compiled loops then run
    whole SIMD vectors with no scalar remainder (iris halves: 75 -> 80 rows, ~25 % faster).
    """
    d = X.shape[1]
    rp = -(-rows.shape[0] // _PAD) * _PAD
    out = np.zeros((d, rp), dt_arr.dtype)
    for i in range(rows.shape[0]):
        for k in range(d):
            v = (X[rows[i], k] - mean[k]) / scale[k]
            out[k, i] = 0.0 if np.isnan(v) else v
    return out


@njit(cache=True, error_model="numpy")
def _fit_predict_lbfgs(
    X, y, train, test, mean, scale, theta, pen, alpha, h, C, logistic, K, fast, m, max_it, tol, gtol
):  # pragma: no cover - compiled
    """Train every model (row of ``theta``, updated in place) and predict its test rows.

    Returns ``(pred (B, n) int64 with -1 off test, iterations (B,))``.  ``gtol`` is per
    training row (scikit-learn's ``tol`` on the mean loss), scaled by each model's size.
    """
    B, n = train.shape
    d = X.shape[1]
    pred = np.full((B, n), -1, np.int64)
    iters = np.zeros(B, np.int64)
    dt = K.dtype
    P = theta.shape[1]
    for b in range(B):
        rows = np.flatnonzero(train[b])
        r = rows.shape[0]
        Xt = _standardized_t(X, rows, mean[b], scale[b], K)
        yr = y[rows]
        Yt = np.zeros((C, Xt.shape[1]), dt)
        for i in range(r):
            Yt[yr[i], i] = K[_K_ONE]
        iters[b] = _lbfgs_one(
            theta[b], pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, m, max_it, tol, gtol * r
        )
        # predict: argmax of the logits (first maximum on ties, as np.argmax)
        te = np.flatnonzero(test[b])
        if te.shape[0] == 0:
            continue
        Xs = _standardized_t(X, te, mean[b], scale[b], K)
        W = np.empty(P, dt)
        for p in range(P):
            W[p] = theta[b, p]
        H = np.empty((max(h, 1), Xs.shape[1]), dt)
        Z = np.empty((C, Xs.shape[1]), dt)
        _logits(W, Xs, H, Z, d, h, C, logistic, K, fast)
        for i in range(te.shape[0]):
            best = 0
            for c in range(1, C):
                if Z[c, i] > Z[best, i]:
                    best = c
            pred[b, te[i]] = best
    return pred, iters


class _SoftmaxNet(Learner):
    """Shared engine: ``hidden == 0`` is the linear softmax model, else a 1-hidden-layer MLP."""

    hidden: int = 0

    def __init__(self, hidden: int = 0, **opts: object) -> None:
        if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)) or hidden < 0:
            raise SimstudyError(f"hidden units must be an integer >= 0, got {hidden!r}")
        self.hidden = int(hidden)
        self.opts = _check_opts(dict(opts))
        if self.opts["alpha"] is None:
            self.opts["alpha"] = 1.0 if self.hidden else 1e-2
        self.alpha = float(self.opts["alpha"])  # type: ignore[arg-type]
        self.dtype = np.dtype(str(self.opts["dtype"]))

    # ------------------------------------------------------------------ reference
    def reference_estimator(self):
        """The scikit-learn configuration this batched learner reproduces.

        To be wrapped with per-fold ``SimpleImputer(mean)`` + ``StandardScaler``.  Same model
        and objective, both optimised with L-BFGS (scipy's L-BFGS-B there, ours here), so
        linear models agree up to optimiser tolerance and MLPs in distribution (different
        random initial weights and local optima).
        """
        if self.hidden == 0:
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression(C=1.0 / self.alpha, max_iter=5000, tol=1e-8)
        from sklearn.neural_network import MLPClassifier

        return MLPClassifier(
            hidden_layer_sizes=(self.hidden,),
            activation=str(self.opts["activation"]),
            solver="lbfgs",
            alpha=self.alpha,
            max_iter=int(self.opts["max_epochs"]),  # type: ignore[arg-type]
            max_fun=100_000,
        )

    # ------------------------------------------------------------------ batch API
    def fit_predict(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        seeds: Sequence[np.random.SeedSequence],
    ) -> np.ndarray:
        """Train one model per row of ``train`` (batched) and predict the ``test`` rows.

        See :meth:`simstudy.learners.base.Learner.fit_predict`.  Non-test positions are -1.
        """
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        train = np.asarray(train, dtype=bool)
        test = np.asarray(test, dtype=bool)
        if X.ndim != 2 or y.shape != (X.shape[0],):
            raise SimstudyError(f"X must be (n, d) and y (n,), got {X.shape!r} and {y.shape!r}")
        if train.ndim != 2 or train.shape != test.shape or train.shape[1] != X.shape[0]:
            raise SimstudyError(
                f"train/test masks must both be (B, n={X.shape[0]}), "
                f"got {train.shape!r} and {test.shape!r}"
            )
        if len(seeds) != train.shape[0]:
            raise SimstudyError(
                f"need one seed per model: {train.shape[0]} masks, {len(seeds)} seeds"
            )
        if np.any(train.sum(axis=1) == 0):
            raise SimstudyError("every model needs at least one training instance")
        n_classes = int(y.max()) + 1
        limit = self.opts["blas_threads"]
        # the compiled L-BFGS path calls no BLAS; threadpoolctl's library scan costs ~5 ms
        if limit is None or self.opts["solver"] == "lbfgs":
            return self._fit_predict(X, y, train, test, seeds, n_classes)
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=int(limit), user_api="blas"):  # type: ignore[arg-type]
            return self._fit_predict(X, y, train, test, seeds, n_classes)

    def _fit_predict(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        seeds: Sequence[np.random.SeedSequence],
        n_classes: int,
    ) -> np.ndarray:
        B = train.shape[0]
        pred = np.full((B, X.shape[0]), -1, dtype=np.int64)
        if B == 0:
            return pred
        mean, scale = standardize_batch(X, train)
        thetas = self._init_params(X.shape[1], n_classes, seeds)
        if self.opts["solver"] == "lbfgs":
            return self._fit_predict_lbfgs(X, y, train, test, mean, scale, thetas, n_classes)
        self.n_epochs_ = np.zeros(B, dtype=np.int64)  # epochs each model trained (diagnostic)
        counts = train.sum(axis=1)
        for c in np.unique(counts):  # equal sizes → no padding that depends on batch-mates
            idx = np.flatnonzero(counts == c)
            for chunk in self._chunks(idx, int(c), X.shape[1], n_classes):
                thetas[chunk], self.n_epochs_[chunk] = self._train(
                    X, y, train, mean, scale, thetas[chunk], chunk, n_classes
                )
        self.params_ = thetas  # (B, P) trained parameters (diagnostic; layout: _views)
        for chunk in self._chunks(np.arange(B), X.shape[0], X.shape[1], n_classes):
            Xs = self._augment(_apply_standardize(X[None], mean[chunk, None], scale[chunk, None]))
            out = self._forward(Xs, thetas[chunk], X.shape[1], n_classes)[-1]
            pred[chunk] = np.where(test[chunk], np.argmax(out, axis=2), -1)
        return pred

    def _fit_predict_lbfgs(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        mean: np.ndarray,
        scale: np.ndarray,
        thetas: np.ndarray,
        C: int,
    ) -> np.ndarray:
        """The compiled L-BFGS path: every model trained and predicted in one numba call."""
        d = X.shape[1]
        linear = self.hidden == 0
        tol = self.opts["tol"]
        tol = float(tol) if tol is not None else (1e-10 if linear else 1e-7)  # type: ignore[arg-type]
        gtol = self.opts["gtol"]
        gtol = float(gtol) if gtol is not None else (1e-6 if linear else 1e-4)  # type: ignore[arg-type]
        theta = np.ascontiguousarray(thetas, dtype=np.float64)
        pen = (self._penalty_mask(d, C)[0] > 0).astype(np.float64)
        fast = self.dtype == np.float32  # the rational tanh is accurate to float32 only
        pred, iters = _fit_predict_lbfgs(
            X,
            y,
            np.ascontiguousarray(train),
            np.ascontiguousarray(test),
            mean,
            scale,
            theta,
            pen,
            self.alpha,
            self.hidden,
            C,
            self.opts["activation"] == "logistic",
            _consts(self.dtype),
            fast,
            int(self.opts["memory"]),  # type: ignore[arg-type]
            int(self.opts["max_epochs"]),  # type: ignore[arg-type]
            tol,
            gtol,
        )
        self.params_ = theta.astype(self.dtype)  # (B, P) trained parameters (layout: _views)
        self.n_epochs_ = iters  # iterations each model ran (diagnostic)
        return pred

    def fit_predict_masks(
        self, X: np.ndarray, y: np.ndarray, train: np.ndarray, seed: int = 0
    ) -> np.ndarray:
        """Convenience for exploration: test = complement of train, seeds spawned from ``seed``."""
        seeds = np.random.SeedSequence(seed).spawn(train.shape[0])
        return self.fit_predict(X, y, train, ~train, seeds)

    # ------------------------------------------------------------------ internals
    def _n_params(self, d: int, C: int) -> int:
        h = self.hidden
        return (d + 1) * C if h == 0 else (d + 1) * h + (h + 1) * C

    def _chunks(self, idx: np.ndarray, rows: int, d: int, C: int) -> list[np.ndarray]:
        width = (d + 1) + 3 * (self.hidden + 1) + 4 * C  # floats per row per model, roughly
        per_model = max(1, rows * width * self.dtype.itemsize + 6 * self._n_params(d, C) * 8)
        size = max(1, int(self.opts["max_bytes"]) // per_model)  # type: ignore[arg-type]
        return [idx[i : i + size] for i in range(0, len(idx), size)]

    def _init_params(self, d: int, C: int, seeds: Sequence[np.random.SeedSequence]) -> np.ndarray:
        """Glorot-uniform weights and biases as scikit-learn's MLP (``_init_coef``)."""
        P = self._n_params(d, C)
        theta = np.zeros((len(seeds), P), dtype=self.dtype)
        h = self.hidden
        if h == 0:
            return theta  # convex: start at 0 like LogisticRegression
        factor = 2.0 if self.opts["activation"] == "logistic" else 6.0
        b1 = np.sqrt(factor / (d + h))
        b2 = np.sqrt(factor / (h + C))
        for b, s in enumerate(seeds):
            rng = np.random.default_rng(s)
            w1 = rng.uniform(-b1, b1, size=(d + 1, h))  # rows 0..d-1 weights, row d bias
            w2 = rng.uniform(-b2, b2, size=(h + 1, C))
            theta[b] = np.concatenate([w1.ravel(), w2.ravel()])
        return theta

    def _views(self, theta: np.ndarray, d: int, C: int) -> list[np.ndarray]:
        A, h = theta.shape[0], self.hidden
        if h == 0:
            return [theta.reshape(A, d + 1, C)]
        k = (d + 1) * h
        return [theta[:, :k].reshape(A, d + 1, h), theta[:, k:].reshape(A, h + 1, C)]

    def _penalty_mask(self, d: int, C: int) -> np.ndarray:
        """1 for weights, 0 for biases (the last row of each layer's matrix)."""
        m = np.ones((1, self._n_params(d, C)), dtype=self.dtype)
        for v in self._views(m, d, C):
            v[:, -1, :] = 0.0
        return m

    def _augment(self, Xs: np.ndarray) -> np.ndarray:
        """Append the bias input 1 and cast: ``(A, r, d)`` → ``(A, r, d+1)``."""
        A, r, d = Xs.shape
        out = np.ones((A, r, d + 1), dtype=self.dtype)
        out[:, :, :d] = Xs
        return out

    def _act(self, Z: np.ndarray) -> np.ndarray:
        if self.opts["activation"] == "tanh":
            return np.tanh(Z, out=Z)
        # logistic via tanh: exact identity, avoids overflow in exp
        Z *= 0.5
        np.tanh(Z, out=Z)
        Z *= 0.5
        Z += 0.5
        return Z

    def _forward(self, Xa: np.ndarray, theta: np.ndarray, d: int, C: int) -> list[np.ndarray]:
        """Layer outputs; the last is the logits ``(A, r, C)``; hidden ones carry a 1 column."""
        W = self._views(theta, d, C)
        if self.hidden == 0:
            return [np.matmul(Xa, W[0])]
        A, r = Xa.shape[:2]
        Ha = np.ones((A, r, self.hidden + 1), dtype=self.dtype)
        Ha[:, :, : self.hidden] = self._act(np.matmul(Xa, W[0]))
        return [Ha, np.matmul(Ha, W[1])]

    def _train(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        mean: np.ndarray,
        scale: np.ndarray,
        theta: np.ndarray,
        models: np.ndarray,
        C: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Train the models ``models`` (all with the same training-set size).

        Returns the trained parameters ``(A, P)`` and the iterations each model ran.
        """
        d = X.shape[1]
        rows = np.stack([np.flatnonzero(train[b]) for b in models])  # (A, r)
        Xa = self._augment(_apply_standardize(X[rows], mean[models, None], scale[models, None]))
        yr = y[rows]
        Y = np.zeros((len(models), rows.shape[1], C), dtype=self.dtype)
        np.put_along_axis(Y, yr[:, :, None], 1.0, axis=2)
        pen = self._penalty_mask(d, C) * self.dtype.type(self.alpha)
        return self._rprop(Xa, Y, yr, theta, pen, d, C)

    def _rprop(
        self,
        Xa: np.ndarray,
        Y: np.ndarray,
        yr: np.ndarray,
        theta: np.ndarray,
        pen: np.ndarray,
        d: int,
        C: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Full-batch iRprop− (Igel & Hüsken 2000) with the per-model stop rule of ``tol``."""
        models = np.arange(theta.shape[0])
        out = theta.copy()
        theta = theta.copy()
        step = np.full_like(theta, _STEP0)
        g_prev = np.zeros_like(theta)
        f_last = np.full(len(models), np.inf)
        ids = np.arange(len(models))  # which models the working arrays hold (the active ones)
        epochs = np.full(len(models), int(self.opts["max_epochs"]), dtype=np.int64)  # type: ignore[arg-type]
        tol = 1e-4 if self.opts["tol"] is None else float(self.opts["tol"])  # type: ignore[arg-type]
        check = int(self.opts["check"])  # type: ignore[arg-type]
        up = self.dtype.type(_ETA_PLUS)
        down = self.dtype.type(_ETA_MINUS)
        for epoch in range(1, int(self.opts["max_epochs"]) + 1):  # type: ignore[arg-type]
            want_f = epoch % check == 0
            g, f = self._grad(Xa, Y, yr, theta, pen, d, C, want_f)
            # iRprop−: sign kept → grow step, sign flipped → shrink step and skip this weight
            sgn = np.sign(g)
            agree = sgn * g_prev  # g_prev holds signs
            step *= np.where(agree > 0, up, np.where(agree < 0, down, self.dtype.type(1.0)))
            np.clip(step, _STEP_MIN, _STEP_MAX, out=step)
            sgn[agree < 0] = 0.0
            theta -= sgn * step
            g_prev = sgn
            if want_f:
                # f is J before this epoch's update: good enough for a stop rule
                done = (f_last - f < tol * check * np.maximum(f, 1e-3)) | (
                    np.abs(g).max(axis=1) < 1e-6
                )
                f_last = f
                if done.any():
                    out[ids[done]] = theta[done]
                    epochs[ids[done]] = epoch
                    keep = ~done
                    ids, theta, step, g_prev, f_last = (
                        ids[keep],
                        theta[keep],
                        step[keep],
                        g_prev[keep],
                        f_last[keep],
                    )
                    Xa, Y, yr = Xa[keep], Y[keep], yr[keep]
                    if ids.size == 0:
                        break
        out[ids] = theta
        return out, epochs

    def _grad(
        self,
        Xa: np.ndarray,
        Y: np.ndarray,
        yr: np.ndarray,
        theta: np.ndarray,
        pen: np.ndarray,
        d: int,
        C: int,
        want_f: bool,
    ) -> tuple[np.ndarray, np.ndarray | None]:
        """Gradient of ``J`` (flat ``(A, P)``) and, if asked, ``J`` itself (float64 ``(A,)``)."""
        outs = self._forward(Xa, theta, d, C)
        Z = outs[-1]
        E, S = _softmax_parts(Z)  # E = exp(Z - max), S = Σ_c E; Z is shifted in place
        f = None
        if want_f:
            # Σ_i (log S_i - z_{i,y_i}); summed by matmul against ones to stay per-model
            nll = np.log(S) - np.take_along_axis(Z, yr[:, :, None], axis=2)[:, :, 0]
            ones = np.ones((nll.shape[0], nll.shape[1], 1), dtype=self.dtype)
            f = np.matmul(nll[:, None, :], ones)[:, 0, 0].astype(np.float64)
            w = theta.astype(np.float64) * (pen > 0)
            f += 0.5 * self.alpha * np.einsum("ap,ap->a", w, w)
        E /= S[:, :, None]
        E -= Y  # dJ/dlogits
        D = E
        G = np.empty_like(theta)
        GV = self._views(G, d, C)
        if self.hidden == 0:
            np.matmul(Xa.transpose(0, 2, 1), D, out=GV[0])
        else:
            Ha = outs[0]
            np.matmul(Ha.transpose(0, 2, 1), D, out=GV[1])
            W2 = self._views(theta, d, C)[1]
            H = Ha[:, :, : self.hidden]
            Dh = np.matmul(D, W2[:, : self.hidden, :].transpose(0, 2, 1))
            if self.opts["activation"] == "tanh":
                Dh *= 1.0 - H * H
            else:
                Dh *= H * (1.0 - H)
            np.matmul(Xa.transpose(0, 2, 1), Dh, out=GV[0])
        G += pen * theta
        return G, f


def _softmax_parts(Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Z -= max_c Z`` in place; return ``exp(Z)`` and its sum over the last axis.

    For few classes the max and sum run as elementwise ops over columns: numpy's reductions
    over a short last axis are ~30x slower, and a fixed column order keeps it per-row exact.
    """
    C = Z.shape[-1]
    if C <= 32:
        m = Z[..., 0].copy()
        for c in range(1, C):
            np.maximum(m, Z[..., c], out=m)
        Z -= m[..., None]
        E = np.exp(Z)
        S = E[..., 0].copy()
        for c in range(1, C):
            S += E[..., c]
        return E, S
    Z -= Z.max(axis=-1, keepdims=True)
    E = np.exp(Z)
    return E, E.sum(axis=-1)


class LinearPerceptron(_SoftmaxNet):
    """``lp``: Alpaydın (1999)'s linear perceptron (linear softmax, cross-entropy), batched."""

    name = "lp"

    def __init__(self, **opts: object) -> None:
        super().__init__(0, **opts)


class LogisticGD(_SoftmaxNet):
    """``lgc``: Yıldız & Alpaydın (2006)'s linear logistic classifier -- the ``lp`` model."""

    name = "lgc"

    def __init__(self, **opts: object) -> None:
        super().__init__(0, **opts)


class MLP(_SoftmaxNet):
    """``mlp-<h>``: one hidden layer of ``h`` tanh units + softmax, batched (Alpaydın 1999)."""

    def __init__(self, hidden: int, **opts: object) -> None:
        if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)) or hidden < 1:
            raise SimstudyError(f"mlp needs hidden units >= 1, got {hidden!r}")
        super().__init__(int(hidden), **opts)
        self.name = f"mlp-{self.hidden}"


# ---------------------------------------------------------------------------------------
# names: ``solver=online|nnet`` routes lp / mlp-<h> to the older regimes (issue 18)

from . import neural_online as _older  # noqa: E402  (it imports standardize_batch from here)
from .registry import register_learner  # noqa: E402

_NET_PARAMS = {"solver", *DEFAULTS, *(k for d in _older.DEFAULTS.values() for k in d)}


@register_learner("lp", params=_NET_PARAMS, description="linear perceptron, softmax outputs "
                  "(Alpaydın 1999); [solver=online|nnet]: older training regimes")
def _lp(solver: str = "lbfgs", **opts: object) -> Learner:
    if solver in _older.SOLVERS:
        return _older.OnlineLP(solver, **opts)
    return LinearPerceptron(solver=solver, **opts)


@register_learner("lgc", params=set(DEFAULTS), description="linear logistic classifier, "
                  "gradient descent (Yıldız & Alpaydın 2006)")
def _lgc(**opts: object) -> Learner:
    return LogisticGD(**opts)


@register_learner("mlp-{h}", params=_NET_PARAMS, description="one-hidden-layer perceptron with "
                  "h hidden units (Alpaydın 1999); mlp[h=10]; [solver=online|nnet]")
def _mlp(h: str, solver: str = "lbfgs", **opts: object) -> Learner:
    if solver in _older.SOLVERS:
        return _older.OnlineMLP(int(h), solver, **opts)
    return MLP(int(h), solver=solver, **opts)
