"""Two-class Gaussian generator of Wang, Li & Li (2016) §3.1.

``Z = (X, Y)`` with ``P(Y=1) = P(Y=0) = 1/2``, ``X | Y=0 ~ N(mu0, Sigma0)``,
``X | Y=1 ~ N(mu1, Sigma1)``, ``n = 200``.  The paper draws each replicated experiment "by
independent sampling", so each instance's class is an independent fair coin and the class
counts are Binomial(n, 1/2) (``balanced=1`` fixes them at ``n//2`` and ``n - n//2`` instead).
A fresh sample is drawn from the trial's rng every trial (``fixed = False``); ``n_test > 0``
adds an independent test set of that size from the same distribution (``X_test``/``y_test``).

Spec syntax (canonical id leaves defaults out)::

    gauss[mu1=(1,1),s1=1/6]                 # Sigma1 = 1/6 * I
    gauss[mu0=(0,0),s0=1,mu1=(2,2),s1=(1,0.5;0.5,1),n=200,n_test=20000,balanced=0]

Vectors are ``(a,b,...)``; a covariance is a scalar ``c`` (``c * I``) or a matrix with rows
separated by ``;``.  Numbers may be fractions (``-3/2``).  Defaults: ``mu0=(0,0)``,
``s0=1``, ``mu1=(1,1)``, ``s1=1``, ``n=200``, ``n_test=0``, ``balanced=0``.

``wang-case1`` ... ``wang-case8`` are the eight cases of Wang, Li & Li (2016) Table 3
(``mu0 = (0,0)``, ``Sigma0 = I``, ``mu1`` and ``Sigma1 = c I`` as printed there), and take
the same ``n``, ``n_test``, ``balanced`` parameters.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np

from ..core import Dataset
from ..errors import SimstudyError
from ..spec import format_spec
from .base import SOURCES, Source

# Wang, Li & Li (2016) Table 3: case -> (mu1 as printed, Sigma1 multiplier of I2 as printed).
# Checked against studies/reference/wang2016_table3.csv by the tests.
WANG2016_CASES: dict[int, tuple[str, str]] = {
    1: ("(-3/2,-3/2)", "1/2"),
    2: ("(-1/2,-1/2)", "1/6"),
    3: ("(1,1)", "1/6"),
    4: ("(1,1)", "1/3"),
    5: ("(1,1)", "1/2"),
    6: ("(1,1)", "7/3"),  # the only multiplier above 1, as printed
    7: ("(2,2)", "1/6"),
    8: ("(2,2)", "1/2"),
}

_DEFAULTS = {
    "mu0": "(0,0)",
    "s0": "1",
    "mu1": "(1,1)",
    "s1": "1",
    "n": "200",
    "n_test": "0",
    "balanced": "0",
}


def _num(text: str, what: str) -> float:
    try:
        return float(Fraction(text.strip()))
    except (ValueError, ZeroDivisionError):
        raise SimstudyError(f"gauss: {what} has a bad number {text!r}") from None


def parse_vector(text: str, what: str = "vector") -> np.ndarray:
    """``"(1,-3/2)"`` -> ``array([1., -1.5])``."""
    t = text.strip()
    if not (t.startswith("(") and t.endswith(")")):
        raise SimstudyError(f"gauss: {what}={text!r} must look like (a,b,...)")
    parts = [p for p in t[1:-1].split(",")]
    if not parts or any(not p.strip() for p in parts):
        raise SimstudyError(f"gauss: {what}={text!r} must look like (a,b,...)")
    return np.array([_num(p, what) for p in parts])


def parse_cov(text: str, d: int, what: str = "covariance") -> np.ndarray:
    """A scalar ``c`` (``c * I_d``) or ``(a,b;c,d)``; must be symmetric positive definite."""
    t = text.strip()
    if t.startswith("("):
        if not t.endswith(")"):
            raise SimstudyError(f"gauss: {what}={text!r} must look like (a,b;c,d)")
        rows = [[_num(v, what) for v in r.split(",")] for r in t[1:-1].split(";")]
        if any(len(r) != len(rows) for r in rows):
            raise SimstudyError(f"gauss: {what}={text!r} is not a square matrix")
        S = np.array(rows, dtype=np.float64)
    else:
        S = _num(t, what) * np.eye(d)
    if S.shape != (d, d):
        raise SimstudyError(
            f"gauss: {what}={text!r} is {S.shape[0]}x{S.shape[0]}, expected {d}x{d}"
        )
    if not np.allclose(S, S.T):
        raise SimstudyError(f"gauss: {what}={text!r} is not symmetric")
    try:
        np.linalg.cholesky(S)
    except np.linalg.LinAlgError:
        raise SimstudyError(f"gauss: {what}={text!r} is not positive definite") from None
    return S


class GaussianSource(Source):
    """Two Gaussian classes, a fresh sample of ``n`` each trial (Wang, Li & Li 2016 §3.1)."""

    fixed = False

    def __init__(
        self,
        mu0: np.ndarray,
        sigma0: np.ndarray,
        mu1: np.ndarray,
        sigma1: np.ndarray,
        n: int = 200,
        n_test: int = 0,
        balanced: bool = False,
        name: str = "gauss",
    ) -> None:
        self.mu = np.array([mu0, mu1], dtype=np.float64)
        self.sigma = np.array([sigma0, sigma1], dtype=np.float64)
        self.n, self.n_test, self.balanced, self.name = int(n), int(n_test), bool(balanced), name
        self._chol = np.linalg.cholesky(self.sigma)  # (2, d, d)
        if self.n < 2 or self.n_test < 0:
            raise SimstudyError(f"source {name!r}: need n >= 2 and n_test >= 0")

    def _draw(
        self, m: int, rng: np.random.Generator, balanced: bool
    ) -> tuple[np.ndarray, np.ndarray]:
        if balanced:
            y = np.zeros(m, dtype=np.int64)
            y[m // 2 :] = 1
        else:
            y = (rng.random(m) < 0.5).astype(np.int64)  # P(Y=1) = 1/2, independently
        z = rng.standard_normal((m, self.mu.shape[1]))
        # take: the rows y, as mu[y] gives them, at a twentieth of fancy indexing's overhead
        X = self.mu.take(y, axis=0) + np.einsum("nij,nj->ni", self._chol.take(y, axis=0), z)
        return X, y

    def sample(self, rng: np.random.Generator) -> Dataset:
        X, y = self._draw(self.n, rng, self.balanced)
        Xt = yt = None
        if self.n_test:
            Xt, yt = self._draw(self.n_test, rng, self.balanced)
        d = self.mu.shape[1]
        return Dataset(
            name=self.name,
            X=X,
            y=y,
            classes=("0", "1"),
            feature_names=tuple(f"x{i + 1}" for i in range(d)),
            X_test=Xt,
            y_test=yt,
            meta={"source": "gauss", "mu": self.mu.tolist(), "sigma": self.sigma.tolist()},
        )


def _canon(text: str) -> str:
    return re.sub(r"[^(),;\s]+", lambda m: str(Fraction(m.group(0))), text.replace(" ", ""))


def _int_param(name: str, key: str, v: str, lo: int) -> int:
    try:
        x = int(v)
    except ValueError:
        raise SimstudyError(f"source {name!r}: {key}={v!r} is not an integer") from None
    if x < lo:
        raise SimstudyError(f"source {name!r}: {key}={v!r} must be >= {lo}")
    return x


def _bool_param(name: str, key: str, v: str) -> bool:
    if v.strip() in ("0", "1"):
        return v.strip() == "1"
    raise SimstudyError(f"source {name!r}: {key}={v!r} must be 0 or 1")


def make_gauss(spec_name: str, params: dict[str, str]) -> GaussianSource:
    """Build a Gaussian source from a parsed ``gauss[...]`` or ``wang-caseK[...]`` spec."""
    if spec_name.startswith("wang-case"):
        allowed = {"n", "n_test", "balanced"}
        try:
            case = int(spec_name[len("wang-case") :])
            mu1, c1 = WANG2016_CASES[case]
        except (ValueError, KeyError):
            raise SimstudyError(
                f"unknown source {spec_name!r}; the Wang et al. (2016) cases are "
                f"wang-case1 ... wang-case8"
            ) from None
        fixed = {"mu0": "(0,0)", "s0": "1", "mu1": mu1, "s1": c1}
    else:
        allowed = set(_DEFAULTS)
        fixed = {}
    bad = sorted(set(params) - allowed)
    if bad:
        raise SimstudyError(
            f"source {spec_name!r}: unknown parameter {bad[0]!r}; valid parameters: "
            f"{', '.join(sorted(allowed))}"
        )
    p = {**_DEFAULTS, **fixed, **params}
    mu0, mu1 = parse_vector(p["mu0"], "mu0"), parse_vector(p["mu1"], "mu1")
    if mu0.shape != mu1.shape:
        raise SimstudyError(f"source {spec_name!r}: mu0 and mu1 have different lengths")
    d = mu0.shape[0]
    s0, s1 = parse_cov(p["s0"], d, "s0"), parse_cov(p["s1"], d, "s1")
    n = _int_param(spec_name, "n", p["n"], 2)
    n_test = _int_param(spec_name, "n_test", p["n_test"], 0)
    balanced = _bool_param(spec_name, "balanced", p["balanced"])
    # canonical id: non-default parameters, keys sorted, numbers as exact fractions (0.5 and
    # 1/2 give the same id)
    shown = {k: _canon(v) for k, v in params.items() if _canon(v) != _canon(_DEFAULTS[k])}
    return GaussianSource(mu0, s0, mu1, s1, n, n_test, balanced, name=format_spec(spec_name, shown))


@SOURCES.register("gauss", choices=("gauss[...]",))
def _gauss(spec: str, params: dict[str, str]) -> GaussianSource:
    """two Gaussian classes, e.g. gauss[mu1=(1,1),s1=1/2,n=200] (Wang 2016 sec. 3.1)"""
    return make_gauss("gauss", params)


@SOURCES.register("wang-case{k}", choices=tuple(f"wang-case{k}" for k in WANG2016_CASES))
def _wang_case(spec: str, params: dict[str, str], k: str) -> GaussianSource:
    """Gaussian case k = 1..8 of Wang, Li & Li 2016 Table 3 (e.g. wang-case3[n=200])"""
    return make_gauss(f"wang-case{k}", params)
