"""Generators for interval studies: a linear-Gaussian regression, Friedman #1 and a
low-dimensional logistic model, each a fresh sample of ``n`` per trial from the trial's rng.

``lingauss[n=100,p=20,signal=1,noise=1]``
    ``X ~ N(0, I_p)``, ``Y = X β + noise · ε``, ``ε ~ N(0, 1)``, ``β_j = signal / sqrt(p)``
    (so ``Var(X β) = signal²``): the homoscedastic Gaussian linear model of Bates, Hastie &
    Tibshirani (2024, sec. 2), whose OLS fits their theory and experiments are about.
``friedman1[n=100,p=10,noise=1]``
    Friedman (1991)'s first function, as ``sklearn.datasets.make_friedman1``: ``X ~ U[0,
    1]^p`` (``p >= 5``; the last ``p - 5`` columns are noise),
    ``Y = 10 sin(π x1 x2) + 20 (x3 - 1/2)² + 10 x4 + 5 x5 + noise · ε`` -- drawn from the
    trial's rng, not scikit-learn's global ``RandomState``.
``logistic[n=100,p=2,signal=2]``
    two classes, ``X ~ N(0, I_p)``, ``P(Y = 1 | x) = 1 / (1 + exp(-x β))``,
    ``β_j = signal / sqrt(p)``: a low-dimensional logistic model (classification).

Every generator takes ``n_test`` (default 0): an independent sample of that size from the
same distribution, drawn after the data (``X_test``/``y_test``; a cell then tests every fold
on it instead of the fold's own test set).  Regression sources have ``task =
"regression"``: a real response and no classes.

Run ``r`` of every cell of one source spec sees the same data set (``runs_per_draw = 1``:
the runner seeds the draw by source and run, :func:`simstudy.seeding.source_seed`), so
designs, learner pairs and interval methods are compared on the same data sets, and a
trial's truth (:mod:`simstudy.interval_truth`) is shared by every cell of its source.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import Dataset
from ..errors import SimstudyError
from ..spec import format_spec
from .base import SOURCES, Source
from .gaussian import _int_param

__all__ = ["Friedman1Source", "LinearGaussianSource", "LogisticSource"]


def _float_param(name: str, key: str, v: str, lo: float) -> float:
    try:
        x = float(v)
    except ValueError:
        raise SimstudyError(f"source {name!r}: {key}={v!r} is not a number") from None
    if not (math.isfinite(x) and x >= lo):
        raise SimstudyError(f"source {name!r}: {key}={v!r} must be a finite number >= {lo}")
    return x


class _Generator(Source):
    """A seeded generator of ``n`` instances (and ``n_test`` more for the truth)."""

    fixed = False
    task = "regression"
    runs_per_draw = 1  # run r of every cell of this source: the same data set
    defaults: dict[str, str] = {}
    ints = frozenset({"n", "p", "n_test"})
    min_p = 1

    def __init__(self, base: str, params: dict[str, str]) -> None:
        bad = sorted(set(params) - set(self.defaults))
        if bad:
            raise SimstudyError(f"source {base!r}: unknown parameter {bad[0]!r}; valid "
                                f"parameters: {', '.join(sorted(self.defaults))}")
        p = {**self.defaults, **params}
        self.n = _int_param(base, "n", p["n"], 2)
        self.p = _int_param(base, "p", p["p"], self.min_p)
        self.n_test = _int_param(base, "n_test", p["n_test"], 0)
        self.values = {k: _float_param(base, k, v, 0.0) for k, v in p.items()
                       if k not in self.ints}
        shown = {k: v for k, v in params.items() if v != self.defaults[k]}
        self.name = format_spec(base, shown)

    def draw(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        raise NotImplementedError

    def truth_sample(self, data: Dataset, size: int,
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``size`` fresh instances, independent of ``data`` (the truth's test set)."""
        return self.draw(size, rng)

    def sample(self, rng: np.random.Generator) -> Dataset:
        X, y = self.draw(self.n, rng)
        Xt = yt = None
        if self.n_test:
            Xt, yt = self.draw(self.n_test, rng)
        return Dataset(name=self.name, X=X, y=y,
                       classes=() if self.task == "regression" else ("0", "1"),
                       feature_names=tuple(f"x{i + 1}" for i in range(self.p)),
                       X_test=Xt, y_test=yt,
                       meta={"source": self.name.split("[")[0], "task": self.task})


class LinearGaussianSource(_Generator):
    """``Y = X β + noise · ε`` with Gaussian ``X`` (Bates, Hastie & Tibshirani 2024 sec. 2).

    Examples
    --------
    >>> s = LinearGaussianSource("lingauss", {"n": "50"})
    >>> d = s.sample(np.random.default_rng(0))
    >>> s.name, d.X.shape, d.y.dtype.kind
    ('lingauss[n=50]', (50, 20), 'f')
    """

    defaults = {"n": "100", "p": "20", "signal": "1", "noise": "1", "n_test": "0"}

    def draw(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        X = rng.standard_normal((m, self.p))
        beta = np.full(self.p, self.values["signal"] / math.sqrt(self.p))
        return X, X @ beta + self.values["noise"] * rng.standard_normal(m)


class Friedman1Source(_Generator):
    """Friedman #1 (Friedman 1991, Annals of Statistics 19(1), the first test function;
    ``sklearn.datasets.make_friedman1``).

    Examples
    --------
    >>> d = Friedman1Source("friedman1", {"noise": "0"}).sample(np.random.default_rng(1))
    >>> x = d.X[0]
    >>> bool(np.isclose(d.y[0], 10 * np.sin(np.pi * x[0] * x[1]) + 20 * (x[2] - 0.5) ** 2
    ...                 + 10 * x[3] + 5 * x[4]))
    True
    """

    defaults = {"n": "100", "p": "10", "noise": "1", "n_test": "0"}
    min_p = 5

    def draw(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        X = rng.random((m, self.p))
        y = (10.0 * np.sin(np.pi * X[:, 0] * X[:, 1]) + 20.0 * (X[:, 2] - 0.5) ** 2
             + 10.0 * X[:, 3] + 5.0 * X[:, 4])
        return X, y + self.values["noise"] * rng.standard_normal(m)


class LogisticSource(_Generator):
    """Two classes with ``P(Y = 1 | x)`` logistic in ``x β``, Gaussian ``X``.

    Examples
    --------
    >>> d = LogisticSource("logistic", {}).sample(np.random.default_rng(0))
    >>> d.classes, sorted(set(d.y.tolist()))
    (('0', '1'), [0, 1])
    """

    task = "classification"
    defaults = {"n": "100", "p": "2", "signal": "2", "n_test": "0"}

    def draw(self, m: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        X = rng.standard_normal((m, self.p))
        eta = X @ np.full(self.p, self.values["signal"] / math.sqrt(self.p))
        return X, (rng.random(m) < 1.0 / (1.0 + np.exp(-eta))).astype(np.int64)


@SOURCES.register("lingauss", choices=("lingauss[...]",))
def _lingauss(spec: str, params: dict[str, str]) -> Source:
    """linear-Gaussian regression (Bates, Hastie & Tibshirani 2024 sec. 2): [n=100,p=20,signal=1,noise=1,n_test=0]"""
    return LinearGaussianSource("lingauss", params)


@SOURCES.register("friedman1", choices=("friedman1[...]",))
def _friedman1(spec: str, params: dict[str, str]) -> Source:
    """Friedman #1 regression (Friedman 1991; as sklearn make_friedman1): [n=100,p=10,noise=1,n_test=0]"""
    return Friedman1Source("friedman1", params)


@SOURCES.register("logistic", choices=("logistic[...]",))
def _logistic(spec: str, params: dict[str, str]) -> Source:
    """low-dimensional logistic model, two classes: [n=100,p=2,signal=2,n_test=0]"""
    return LogisticSource("logistic", params)
