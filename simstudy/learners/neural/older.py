"""The older training regimes of ``lp`` and ``mlp-<h>``: :class:`OnlineLP`, :class:`OnlineMLP`.

The default ``lp`` / ``mlp-<h>`` (:mod:`.net`) are trained to convergence with L-BFGS and an
L2 penalty.  The papers trained theirs otherwise, and say little about it; these solvers are
the two readings the paper variants calibrate against the papers' error tables.  Each is selected by
an option in the canonical spec, so each variant is its own learner id and cell id (the
registrations in :mod:`simstudy.learners.neural` route ``solver=online`` /
``solver=nnet`` here)::

    mlp-10[activation=logistic,alpha=0,epochs=300,eta=0.02,init=0.01,solver=online]
    lp[alpha=0,epochs=300,eta=0.02,init=0.01,solver=online]
    mlp-5[scale=none,solver=nnet]

The solvers: :mod:`.online` (per-pattern backprop) and :mod:`.nnet` (R's nnet); the layers
they share: :mod:`._layers`.  Inputs are z-scored per model with the training fold's mean and
population sd (:func:`~simstudy.learners.preprocess.model_stats`; ``nan`` -> training mean;
``scale=none`` leaves inputs raw, only imputed).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...errors import SimstudyError, unknown
from ...spec import format_spec
from ..base import Learner, frozen
from ..preprocess import model_stats
from ._layers import _nnet_prob1, _predict_softmax_net, _raw_rows, _z_rows
from .nnet import _vmmin
from .online import _online_train, _online_train_lanes

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
        X = frozen(X, np.float64)
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
        mean, scale = model_stats(X, train)  # scale=none: only the means (imputation)
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
                                        np.ascontiguousarray(np.stack([p[4] for p in parts])),
                                        W1s, W2s,
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


class OnlineLP(_OldNet):
    """``lp[solver=online|nnet, ...]``: the linear perceptron under an older regime."""

    impl_id = 'simstudy.learners.neural.older:OnlineLP'

    def __init__(self, solver: str = "online", **opts: object) -> None:
        opts.pop("activation", None) if solver == "nnet" else None
        super().__init__(0, "lp", solver, **opts)


class OnlineMLP(_OldNet):
    """``mlp-<h>[solver=online|nnet, ...]``: one hidden layer under an older regime."""

    impl_id = 'simstudy.learners.neural.older:OnlineMLP'

    def __init__(self, hidden: int, solver: str = "online", **opts: object) -> None:
        if isinstance(hidden, bool) or not isinstance(hidden, (int, np.integer)) or hidden < 1:
            raise SimstudyError(f"mlp needs hidden units >= 1, got {hidden!r}")
        super().__init__(int(hidden), f"mlp-{int(hidden)}", solver, **opts)
