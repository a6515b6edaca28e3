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

A study may name Gaussian sources of fixed means and covariances in a
``gaussian_sources.json`` of its folder (:func:`declared_gaussians`): ``wang-case1`` ...
``wang-case8`` are the eight cases of Wang, Li & Li (2016) Table 3 (``mu0 = (0,0)``,
``Sigma0 = I``, ``mu1`` and ``Sigma1 = c I`` as printed there), declared by that study; a
named source takes the same ``n``, ``n_test``, ``balanced`` parameters.
"""

from __future__ import annotations

import functools
import json
import re
from fractions import Fraction

import numpy as np

from ..core import Dataset
from ..errors import SimstudyError
from ..registry import study_files
from ..spec import format_spec
from .base import SOURCES, Source

#: the file in which a study's folder declares named Gaussian sources (:func:`declared_gaussians`)
DECLARED_FILE = "gaussian_sources.json"

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


def make_gauss(spec_name: str, params: dict[str, str],
               fixed: dict[str, str] | None = None) -> GaussianSource:
    """Build a Gaussian source from a parsed ``gauss[...]`` spec, or a named one whose
    means and covariances are ``fixed`` (only ``n``, ``n_test``, ``balanced`` left free)."""
    if fixed is not None:
        allowed = {"n", "n_test", "balanced"}
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


@functools.cache
def declared_gaussians() -> dict[str, dict]:
    """The named Gaussian sources the studies declare (each ``gaussian_sources.json`` in
    their folders): name template (``"name{k}"``) -> ``description``, the parameters every
    case fixes (``fixed``) and each case's own (``cases``: k -> parameters).

    >>> fam = declared_gaussians()["wang-case{k}"]
    >>> fam["fixed"], fam["cases"]["3"]
    ({'mu0': '(0,0)', 's0': '1'}, {'mu1': '(1,1)', 's1': '1/6'})
    """
    out: dict[str, dict] = {}
    for path in study_files(DECLARED_FILE):
        out.update(json.loads(path.read_text(encoding="utf-8")))
    return out


def _named(template: str, spec: str, params: dict[str, str], **groups: str) -> GaussianSource:
    cases = declared_gaussians()[template]["cases"]
    case = cases.get(",".join(str(int(v)) for v in groups.values()))
    if case is None:
        raise SimstudyError(f"unknown source {spec!r}; valid: "
                            + ", ".join(template.format(k=k) for k in cases))
    return make_gauss(template.format(**groups), params,
                      {**declared_gaussians()[template].get("fixed", {}), **case})


for _template, _family in declared_gaussians().items():
    SOURCES.register(_template, functools.partial(_named, _template),
                     description=_family["description"],
                     choices=tuple(_template.format(k=k) for k in _family["cases"]))
