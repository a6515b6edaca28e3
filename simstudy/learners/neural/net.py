"""The softmax networks ``lp``, ``lgc`` and ``mlp-<h>``: their options, initial weights and
reference configuration; the solvers are :mod:`.lbfgs` (default) and :mod:`.rprop`.

``hidden == 0`` is the linear softmax model (``lp``, ``lgc``), else one hidden layer
(``mlp-<h>``); see :mod:`simstudy.learners.neural` for the models and the objective.
Initial weights: Glorot-uniform as in scikit-learn's MLP, drawn from
``np.random.default_rng(seeds[b])`` for model ``b``; the linear models start at 0 (their
objective is strictly convex, as in ``LogisticRegression``).  Inputs: per model on its
training rows only, ``nan`` -> training mean, then standardised with the training mean and
sd (:func:`~simstudy.learners.preprocess.model_stats`, batch-independent); an imputed value
becomes exactly 0.  The network runs in float32 by default (``dtype="float64"`` to check).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import SimstudyError, unknown
from ..base import Learner
from ..preprocess import model_stats
from .layout import n_params
from .lbfgs import fit_predict as lbfgs_fit_predict
from .rprop import fit_predict as rprop_fit_predict

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
        if train.shape[0] == 0:
            return np.full((0, X.shape[0]), -1, dtype=np.int64)
        mean, scale = model_stats(X, train)
        thetas = self._init_params(X.shape[1], n_classes, seeds)
        solver = lbfgs_fit_predict if self.opts["solver"] == "lbfgs" else rprop_fit_predict
        pred, params, epochs = solver(
            self, X, y, train, test, mean, scale, thetas, n_classes
        )
        self.params_ = params  # (B, P) trained parameters (diagnostic; see .layout)
        self.n_epochs_ = epochs  # iterations / epochs each model ran (diagnostic)
        return pred

    def fit_predict_masks(
        self, X: np.ndarray, y: np.ndarray, train: np.ndarray, seed: int = 0
    ) -> np.ndarray:
        """Convenience for exploration: test = complement of train, seeds spawned from ``seed``."""
        seeds = np.random.SeedSequence(seed).spawn(train.shape[0])
        return self.fit_predict(X, y, train, ~train, seeds)

    # ------------------------------------------------------------------ internals
    def _init_params(self, d: int, C: int, seeds: Sequence[np.random.SeedSequence]) -> np.ndarray:
        """Glorot-uniform weights and biases as scikit-learn's MLP (``_init_coef``)."""
        P = n_params(self.hidden, d, C)
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


class LinearPerceptron(_SoftmaxNet):
    """``lp``: Alpaydın (1999)'s linear perceptron (linear softmax, cross-entropy), batched."""

    impl_id = 'simstudy.learners.neural.net:LinearPerceptron'

    name = "lp"

    def __init__(self, **opts: object) -> None:
        super().__init__(0, **opts)


class LogisticGD(_SoftmaxNet):
    """``lgc``: Yıldız & Alpaydın (2006)'s linear logistic classifier -- the ``lp`` model."""

    impl_id = 'simstudy.learners.neural.net:LogisticGD'

    name = "lgc"

    def __init__(self, **opts: object) -> None:
        super().__init__(0, **opts)


class MLP(_SoftmaxNet):
    """``mlp-<h>``: one hidden layer of ``h`` tanh units + softmax, batched (Alpaydın 1999)."""

    impl_id = 'simstudy.learners.neural.net:MLP'

    def __init__(self, hidden: int, **opts: object) -> None:
        if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)) or hidden < 1:
            raise SimstudyError(f"mlp needs hidden units >= 1, got {hidden!r}")
        super().__init__(int(hidden), **opts)
        self.name = f"mlp-{self.hidden}"
