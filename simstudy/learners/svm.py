"""``svm``: scikit-learn's SVC (libsvm C-SVC, Gaussian kernel) without its per-call overhead.

Wang, Li & Li (2016) §3.1 compare "SVM with Gaussian kernel" without further settings; we use
scikit-learn's defaults (C = 1, gamma = 'scale' = 1 / (d · Var(X_train)), tol = 1e-3) on inputs
imputed and standardised on each training fold.

``svm[kernel=sigmoid]`` is R's ``e1071::svm(..., kernel = "sigmoid")`` with its defaults, the
reading of Wang et al.'s SVM that the paper variants test (their group's R code calls e1071): libsvm
C-SVC with K(u, v) = tanh(γ uᵀv + coef0), γ = 1/p (p = number of input columns), coef0 = 0,
C = 1, tol = 1e-3, on inputs scaled as e1071 does (R's ``scale``: training mean and sample
sd, ``ddof = 1``; a column constant on the training fold is left unscaled and uncentred).

``svm[gamma=auto,scale=e1071]`` is ``e1071::svm`` with every default, radial kernel included:
γ = 1/p on inputs scaled as above (``scale=e1071``; the default ``scale=standardize`` divides
by the ``ddof = 0`` sd, and γ = 'scale' is then 1/p up to that factor).

Why not batched: an SVM's dual problem has no closed form or shared structure across
training sets, so there is no matrix trick as for nearest means or least squares.  But at the
sizes of the Gaussian study (100 training points, 2 features) a ``SVC().fit`` spends most of its
~1–4 ms in input validation, label encoding and estimator bookkeeping.  This learner calls
the same compiled libsvm routines scikit-learn calls (``sklearn.svm._libsvm.fit`` /
``predict``, with the arguments ``SVC._dense_fit`` / ``_dense_predict`` pass), once per model,
so the predictions are scikit-learn's and the overhead is gone.  What is per batch is done
once for all its models: the row indices of every mask, each model's classes and labels, its
imputed and scaled inputs (per element the same ``(x - mean) / scale`` as model by model) and
gamma; only the two libsvm calls are made per model.  ``_libsvm`` is private scikit-learn API:
the equivalence test against ``SVC`` guards it on every upgrade.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import SimstudyError
from .base import Learner
from .preprocess import chunk_size, fold_stats
from .registry import register_learner


@register_learner("svm", variants=("kernel=sigmoid",), description="SVC with a Gaussian kernel, scikit-learn defaults "
                  "(Wang et al. 2016); [kernel=sigmoid]: e1071's; "
                  "[gamma=auto,scale=e1071]: e1071's radial")
class FastSVC(Learner):
    """C-SVC with an RBF kernel, libsvm called directly; equals ``SVC(C, gamma, tol)``."""

    impl_id = 'simstudy.learners.svm:FastSVC'

    preprocess = "standardize"
    stack_trials = True  # per-model work on the model's own rows only

    def __init__(self, C: float = 1.0, gamma: str | float | None = None, tol: float = 1e-3,
                 cache_size: float = 200.0, kernel: str = "rbf", scale: str | None = None
                 ) -> None:
        if kernel not in ("rbf", "sigmoid"):
            raise SimstudyError(f"svm: unknown kernel {kernel!r}; valid choices: rbf, sigmoid")
        self.kernel = kernel
        # input scaling per training fold: ddof-0 standardisation (rbf's default) or R's
        # scale() as e1071 applies it (sigmoid's default)
        scale_default = "standardize" if kernel == "rbf" else "e1071"
        if scale is None:
            scale = scale_default
        if scale not in ("standardize", "e1071"):
            raise SimstudyError(f"svm: unknown scale {scale!r}; valid choices: standardize, "
                                "e1071")
        self.scale = scale
        # defaults: scikit-learn's for rbf; e1071's (gamma = 1/p) for sigmoid
        gamma_default = "scale" if kernel == "rbf" else "auto"
        if gamma is None:
            gamma = gamma_default
        try:
            self.C, self.tol, self.cache_size = float(C), float(tol), float(cache_size)
        except (TypeError, ValueError):
            raise SimstudyError(f"svm: C, tol and cache_size must be numbers, got "
                                f"C={C!r}, tol={tol!r}, cache_size={cache_size!r}") from None
        if not (self.C > 0 and self.tol > 0):
            raise SimstudyError(f"svm: C and tol must be > 0, got C={C!r}, tol={tol!r}")
        if isinstance(gamma, str) and gamma not in ("scale", "auto"):
            try:
                gamma = float(gamma)
            except ValueError:
                raise SimstudyError(f"svm: gamma must be 'scale', 'auto' or a number > 0, "
                                    f"got {gamma!r}") from None
        self.gamma = gamma
        params = {}
        if self.C != 1.0:
            params["C"] = C
        if gamma != gamma_default:
            params["gamma"] = gamma
        if kernel != "rbf":
            params["kernel"] = kernel
        if scale != scale_default:
            params["scale"] = scale
        if self.tol != 1e-3:
            params["tol"] = tol
        from ..spec import format_spec

        self.name = format_spec("svm", params)

    def reference_estimator(self) -> Any:
        from sklearn.svm import SVC

        return SVC(C=self.C, gamma=self.gamma, tol=self.tol, cache_size=self.cache_size,
                   kernel=self.kernel, coef0=0.0)

    def _gammas(self, Xtr: np.ndarray, off: np.ndarray) -> np.ndarray:
        """Each model's gamma; model ``b``'s scaled training rows are ``Xtr[off[b]:off[b+1]]``.

        'scale' is ``1 / (d · Xtr_b.var())`` (1 where the variance is 0), as SVC computes it:
        the variance of models of equal size is taken as rows of one ``(k, m·d)`` array, the
        same pairwise sums as ``Xtr_b.var()`` over its own ``(m, d)`` block, bit for bit.
        """
        B, d = off.size - 1, Xtr.shape[1]
        if self.gamma == "auto":
            return np.full(B, 1.0 / d)
        if self.gamma != "scale":
            return np.full(B, float(self.gamma))
        g = np.ones(B)
        size = np.diff(off)
        for m in np.unique(size):
            if m == 0:
                continue
            models = np.flatnonzero(size == m)
            rows = off[models][:, None] + np.arange(m)
            v = Xtr[rows].reshape(models.size, m * d).var(axis=1)
            with np.errstate(divide="ignore"):
                g[models] = np.where(v != 0, 1.0 / (d * v), 1.0)
        return g

    def fit_predict(self, X: np.ndarray, y: np.ndarray, train: np.ndarray, test: np.ndarray,
                    seeds: Sequence[np.random.SeedSequence]) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        train = np.asarray(train, dtype=bool)
        test = np.asarray(test, dtype=bool)
        out = np.full(train.shape, -1, dtype=np.int64)
        imp, scale = fold_stats(X, train)
        mean = imp  # imputation and centring means coincide, except for e1071's scaling
        if self.scale == "e1071":
            mean, scale = _e1071_scale(X, train, imp)
        # a model's classes, np.unique(y[its rows]), are the present ones among the sorted
        # labels of the whole y; libsvm gets their ranks 0..k-1 as labels
        labels, code = np.unique(y, return_inverse=True)
        code = code.reshape(-1)
        # models in chunks: each chunk's inputs are scaled in one pass (per element the
        # same (x - mean) / scale as model by model)
        per_model = 16.0 * X.shape[1] * X.shape[0] + 64.0
        step = chunk_size(per_model, 64e6)
        for b0 in range(0, train.shape[0], step):
            b1 = min(b0 + step, train.shape[0])
            self._chunk(X, code, labels, train[b0:b1], test[b0:b1], imp[b0:b1], mean[b0:b1],
                        scale[b0:b1], out[b0:b1])
        return out

    def _chunk(self, X, code, labels, train, test, imp, mean, scale, out) -> None:
        """Fit and predict the models of one chunk into ``out`` (their rows of the result)."""
        from sklearn.svm import _libsvm

        B, n = train.shape
        tr_row, tr_col = _rows_cols(train)
        te_row, te_col = _rows_cols(test)
        tr_off = np.searchsorted(tr_row, np.arange(B + 1))
        te_off = np.searchsorted(te_row, np.arange(B + 1))
        present = np.zeros((B, labels.size), dtype=bool)
        present[tr_row, code[tr_col]] = True
        rank = np.cumsum(present, axis=1) - 1
        n_class = present.sum(axis=1)
        cls = np.zeros((B, labels.size), dtype=np.int64)  # rank -> code, per model
        mb, mc = np.nonzero(present)
        cls[mb, rank[mb, mc]] = mc
        yf = rank[tr_row, code[tr_col]].astype(np.float64)
        Xtr = _scaled(X, tr_row, tr_col, imp, mean, scale)
        Xte = _scaled(X, te_row, te_col, imp, mean, scale)
        gammas = self._gammas(Xtr, tr_off)
        pred = np.zeros(te_row.size)  # rank 0: a one-class model predicts its class
        ones = [np.ones(k) for k in range(labels.size + 1)]
        empty = np.empty(0, dtype=np.float64)
        _libsvm.set_verbosity_wrap(0)  # libsvm prints each fit otherwise (SVC does the same)
        for b in np.flatnonzero((n_class >= 2) & (te_off[1:] > te_off[:-1])).tolist():
            t0, t1, e0, e1 = tr_off[b], tr_off[b + 1], te_off[b], te_off[b + 1]
            g = float(gammas[b])
            sup, sv, nsv, dual, intercept, pa, pb, _status, _it = _libsvm.fit(
                Xtr[t0:t1], yf[t0:t1], svm_type=0, sample_weight=empty,
                class_weight=ones[n_class[b]], kernel=self.kernel, C=self.C, nu=0.5,
                probability=0, degree=3, shrinking=1, tol=self.tol,
                cache_size=self.cache_size, coef0=0.0, gamma=g, epsilon=0.1, max_iter=-1,
                random_seed=0)  # the seed only matters for probability estimates
            pred[e0:e1] = _libsvm.predict(
                Xte[e0:e1], sup, sv, nsv, dual, intercept, pa, pb, svm_type=0,
                kernel=self.kernel, degree=3, coef0=0.0, gamma=g, cache_size=self.cache_size)
        out[te_row, te_col] = labels[cls[te_row, pred.astype(np.int64)]]
        out[(n_class == 0)[:, None] & test] = 0  # no training rows: predict 0


def _rows_cols(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row and column of each True of a ``(B, n)`` mask, row by row (one flat pass)."""
    flat = np.flatnonzero(mask)
    row = flat // mask.shape[1]
    return row, flat - row * mask.shape[1]


def _scaled(X: np.ndarray, row: np.ndarray, col: np.ndarray, imp: np.ndarray,
            mean: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Rows ``X[col]`` imputed and scaled with model ``row``'s statistics, C-contiguous."""
    Z = X[col]
    miss = np.isnan(Z)
    if miss.any():
        Z = np.where(miss, imp[row], Z)
    Z -= mean[row]
    Z /= scale[row]
    return Z


def _e1071_scale(X: np.ndarray, train: np.ndarray, mean: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """e1071's input scaling per training fold: R's ``scale`` (mean, sample sd with
    ``ddof = 1``) on the imputed columns; a column constant on the fold (sd 0) is left as
    it is (centre 0, scale 1), as ``svm.default`` excludes constant columns from scaling."""
    center = np.zeros_like(mean)
    sd = np.ones_like(mean)
    for b in range(train.shape[0]):
        Z = X[train[b]]
        Z = np.where(np.isnan(Z), mean[b], Z)
        s = Z.std(axis=0, ddof=1) if Z.shape[0] > 1 else np.zeros(Z.shape[1])
        ok = s > 0
        center[b, ok] = Z[:, ok].mean(axis=0)
        sd[b, ok] = s[ok]
    return center, sd
