"""Batched gradient-trained softmax learners: ``lp``, ``lgc`` and ``mlp-<h>``.

A whole batch of ``B`` models (one per train mask) is trained at once as one batched
network: every array carries a leading model axis, every matrix product is an
``np.matmul`` over that stacked axis (one small gemm per model), and everything else is
elementwise.  So a model's arithmetic is the same whichever other models share its batch,
and its predictions are bitwise identical alone or inside any batch (tested).

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

Optimiser (``solver="lbfgs"``, default): full-batch **L-BFGS** run as one batch
(Nocedal & Wright 2006, Alg. 7.4-7.5; memory 10, Armijo backtracking, each model with its
own history, step length and stop test).  It is what scikit-learn's reference uses, and it
needs 2-8x fewer gradient evaluations than Rprop here (iris MLP-10: ~120 vs ~220).  Per-model
stop: ``max|∇J| <= gtol · n_tr`` (scikit-learn's ``tol`` on the mean loss; 1e-4 for MLPs,
1e-6 for the convex linear models so they land on LogisticRegression's optimum) or a relative
decrease ``<= tol`` in one iteration; a model that stops is frozen and dropped from the batch;
``max_epochs`` caps iterations.  ``solver="rprop"`` is full-batch **iRprop−** (Igel & Hüsken
2000): sign-based per-weight steps (×1.2 / ×0.5), purely elementwise, stopped when ``J`` fell
by less than ``tol · check · J`` over ``check`` epochs.  Initial weights: Glorot-uniform as in
scikit-learn's MLP, drawn from ``np.random.default_rng(seeds[b])`` for model ``b``; the
linear models start at 0 (their objective is strictly convex, as in ``LogisticRegression``).
BLAS runs single-threaded inside ``fit_predict`` (``blas_threads``): parallelism belongs to
the runner, and threaded tiny gemms stall on a busy machine.

Training uses only a model's own training rows, gathered into a compact array; models are
grouped by training-set size so that no model's arrays carry padding that depends on its
batch-mates.  Floats are float32 by default (``dtype="float64"`` to check).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..errors import SimstudyError, unknown
from .base import Learner

ACTIVATIONS = ("tanh", "logistic")
SOLVERS = ("lbfgs", "rprop")

#: Default options.  ``alpha`` is the L2 weight on the *summed* cross-entropy (sklearn MLP's
#: ``alpha``, ``1/C`` of LogisticRegression).  ``max_bytes`` bounds the per-chunk working set.
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
    # BLAS threads inside fit_predict; the runner parallelises over processes, and threaded
    # small gemms stall badly on a busy machine (measured 100x slower).  None = leave as is.
    "blas_threads": 1,  # ~L2-sized chunks: faster than one huge batch (measured)
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
    """Per-model training mean and scale for impute-then-standardise, as masked sums.

    Returns ``(mean, scale)``, each ``(B, d)`` float64: ``mean`` over a model's non-missing
    training values (0 if none), ``scale`` their population sd with 0 → 1 (as
    ``SimpleImputer(strategy="mean")`` + ``StandardScaler``: imputed values add nothing to
    the sum of squares).
    """
    obs = ~np.isnan(X)
    X0 = np.where(obs, X, 0.0)
    w = train.astype(np.float64)
    cnt = w @ obs.astype(np.float64)  # (B, d) non-missing training values per column
    s1 = w @ X0
    mean = np.divide(s1, cnt, out=np.zeros_like(s1), where=cnt > 0)
    # second pass about the mean (no cancellation): Σ_i w_bi · obs_ij (x_ij - m_bj)^2
    B = train.shape[0]
    var = np.empty_like(mean)
    for b in range(B):  # per model so a model's statistics never depend on its batch
        r = train[b]
        D = np.where(obs[r], X0[r] - mean[b], 0.0)
        var[b] = np.einsum("ij,ij->j", D, D)
    # divide by all training rows: imputed values sit at the mean and count in the denominator
    var /= np.maximum(train.sum(axis=1), 1)[:, None]
    scale = np.sqrt(var)
    scale[scale == 0.0] = 1.0
    return mean, scale


def _apply_standardize(X: np.ndarray, mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``(x - mean)/scale`` with ``nan`` → 0 (= the imputed training mean), float64."""
    Z = (X - mean) / scale
    return np.where(np.isnan(Z), 0.0, Z)


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
        and objective; scikit-learn optimises it with L-BFGS instead of batched iRprop−, so
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
        if limit is None:
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
        solve = self._lbfgs if self.opts["solver"] == "lbfgs" else self._rprop
        return solve(Xa, Y, yr, theta, pen, d, C)

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

    def _lbfgs(
        self,
        Xa: np.ndarray,
        Y: np.ndarray,
        yr: np.ndarray,
        theta0: np.ndarray,
        pen: np.ndarray,
        d: int,
        C: int,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Batched L-BFGS (Nocedal & Wright 2006, Alg. 7.4/7.5) with Armijo backtracking.

        Every model keeps its own history of the last ``memory`` pairs ``(s, y)`` (a pair with
        ``sᵀy <= 0`` is stored as zeros, which drops out of the two-loop recursion), its own
        step length and its own stop test: ``max|∇J| <= gtol · n_tr`` (scikit-learn's ``tol``
        on the mean loss) or a relative decrease ``<= tol`` in one iteration, or no Armijo step
        found in 30 halvings.  Parameters are kept in float64, the network runs in ``dtype``.
        """
        A, P = theta0.shape
        r = Xa.shape[1]
        m = int(self.opts["memory"])  # type: ignore[arg-type]
        linear = self.hidden == 0
        tol = (
            float(self.opts["tol"]) if self.opts["tol"] is not None else (1e-10 if linear else 1e-7)
        )  # type: ignore[arg-type]
        gtol = (
            float(self.opts["gtol"])
            if self.opts["gtol"] is not None
            else (1e-6 if linear else 1e-4)
        )  # type: ignore[arg-type]
        gtol *= r  # on the mean loss, as scikit-learn's tol

        def fg(th: np.ndarray, sel: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
            # sel: rows of the working arrays to evaluate (None = all, no copy)
            if sel is None:
                g, f = self._grad(Xa, Y, yr, th.astype(self.dtype), pen, d, C, True)
            else:
                g, f = self._grad(Xa[sel], Y[sel], yr[sel], th.astype(self.dtype), pen, d, C, True)
            return f, g.astype(np.float64)

        out = theta0.astype(np.float64)
        iters = np.full(A, int(self.opts["max_epochs"]), dtype=np.int64)  # type: ignore[arg-type]
        ids = np.arange(A)
        theta = out.copy()
        f, g = fg(theta, None)
        S = np.zeros((m, A, P))  # slot-major so each slot is one contiguous (A, P) block
        Yh = np.zeros((m, A, P))
        rho = np.zeros((m, A))
        gamma = np.ones(A)
        first = True
        for it in range(1, int(self.opts["max_epochs"]) + 1):  # type: ignore[arg-type]
            # two-loop recursion, newest pair first; slots are shared, so order is global
            q = -g
            a = np.zeros((m, len(ids)))
            order = [(it - 2 - j) % m for j in range(min(it - 1, m))]  # filled slots only
            for j in order:
                a[j] = rho[j] * np.einsum("ap,ap->a", S[j], q)
                q -= a[j, :, None] * Yh[j]
            q *= gamma[:, None]
            for j in reversed(order):
                bj = rho[j] * np.einsum("ap,ap->a", Yh[j], q)
                q += (a[j] - bj)[:, None] * S[j]
            p = q
            gp = np.einsum("ap,ap->a", g, p)
            bad = ~(gp < 0)  # not a descent direction: restart from steepest descent
            if bad.any():
                p[bad] = -g[bad]
                gp[bad] = -np.einsum("ap,ap->a", g[bad], g[bad])
                rho[:, bad] = 0.0
                gamma[bad] = 1.0
            if first:  # scale the first step like scipy's L-BFGS-B: |t·p| = 1
                t = 1.0 / np.maximum(np.sqrt(-gp), 1.0)
                first = False
            else:
                t = np.ones(len(ids))
            # Armijo backtracking, evaluating only the models still searching
            theta_new = theta.copy()
            f_new = np.full(len(ids), np.inf)
            g_new = np.zeros_like(g)
            search = np.arange(len(ids))
            for _ in range(30):
                cand = theta[search] + t[search, None] * p[search]
                fc, gc = fg(cand, None if search.size == len(ids) else search)
                ok = np.isfinite(fc) & (fc <= f[search] + 1e-4 * t[search] * gp[search])
                acc = search[ok]
                theta_new[acc], f_new[acc], g_new[acc] = cand[ok], fc[ok], gc[ok]
                search = search[~ok]
                if search.size == 0:
                    break
                t[search] *= 0.5
            stuck = np.zeros(len(ids), dtype=bool)
            stuck[search] = True  # no acceptable step: at the optimum up to float precision
            s = theta_new - theta
            yv = g_new - g
            sy = np.einsum("ap,ap->a", s, yv)
            good = (sy > 1e-12) & ~stuck
            slot = (it - 1) % m
            S[slot] = np.where(good[:, None], s, 0.0)
            Yh[slot] = np.where(good[:, None], yv, 0.0)
            rho[slot] = np.where(good, 1.0 / np.where(good, sy, 1.0), 0.0)
            yy = np.einsum("ap,ap->a", yv, yv)
            gamma = np.where(good, sy / np.where(good, yy, 1.0), gamma)
            dec = f - f_new
            theta = np.where(stuck[:, None], theta, theta_new)
            f = np.where(stuck, f, f_new)
            g = np.where(stuck[:, None], g, g_new)
            done = (
                stuck
                | (np.abs(g).max(axis=1) <= gtol)
                | (dec <= tol * np.maximum(np.maximum(np.abs(f), np.abs(f + dec)), 1.0))
            )
            if done.any():
                out[ids[done]] = theta[done]
                iters[ids[done]] = it
                keep = ~done
                ids, theta, f, g = ids[keep], theta[keep], f[keep], g[keep]
                S, Yh, rho, gamma = S[:, keep], Yh[:, keep], rho[:, keep], gamma[keep]
                Xa, Y, yr = Xa[keep], Y[keep], yr[keep]
                if ids.size == 0:
                    break
        out[ids] = theta
        return out.astype(self.dtype), iters

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
