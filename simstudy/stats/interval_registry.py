"""Named interval methods over a trial's stored losses: the generalization-error counterpart
of the named tests (:mod:`simstudy.stats.registry`).

An interval method wraps a pure function of :mod:`simstudy.stats.intervals` and says which
designs it can read.  It is called on a trial's :class:`~simstudy.core.FoldLosses` and the
design that produced them, for one learner's error (``b=None``) or for the difference of
two (learner ``a`` minus learner ``b``), and returns an
:class:`~simstudy.stats.intervals.IntervalResult` whose ``confidence_interval(level)`` is
``(low, high)``.  Adding a method is one decorated function, as for a test (the first
docstring paragraph is what ``python -m simstudy list`` prints)::

    @register_interval("naive-cv", fits=is_kfold, params={"dist": ("t", "z")})
    def _naive_cv(fl, design, a, b, dist="t"):
        \"\"\"naive cv interval on the fold means (Bates, Hastie & Tibshirani 2024 sec. 3)\"\"\"
        return IV.naive_cv_interval(_errors(fl, a, b).ravel(), dist=dist)

Specs go through the one parser and :class:`simstudy.registry.Registry`
(``get_interval("ncv[bias=authors]")``); an unknown name or value gets the one error shape.

Pure: no I/O here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from ..core import FoldLosses, loss_sums, nested_sums
from ..errors import SimstudyError
from ..registry import Registry
from . import intervals as IV
from .intervals import IntervalResult
from .registry import (
    _describe,
    _factory,
    _halves,
    _kind,
    _partitions,
    _shape,
    is_nested,
    is_resample,
)

__all__ = [
    "INTERVALS",
    "IntervalMethod",
    "check_intervals_fit",
    "describe_intervals",
    "get_interval",
    "list_intervals",
    "register_interval",
]


@dataclass(frozen=True)
class IntervalMethod:
    """A named interval method: ``fn(fold_losses, design, a, b) -> IntervalResult``.

    ``fits(design) -> bool`` says which designs it reads; ``needs_losses`` asks for
    per-instance losses.  Calling it on a design it cannot read is a one-line
    :class:`~simstudy.errors.SimstudyError` naming both.
    """

    name: str
    fits: Callable[[object], bool]
    fn: Callable[..., IntervalResult]
    description: str = ""
    needs_losses: bool = False

    def __call__(self, fl: FoldLosses, design: object, a: int = 0, b: int | None = None
                 ) -> IntervalResult:
        d = _as_design(design)
        if not self.fits(d):
            raise _no_fit(self.name, d)
        if self.needs_losses and fl.losses is None:
            raise SimstudyError(f"interval method {self.name!r} needs per-instance losses, "
                                f"which the trial did not keep")
        return self.fn(fl, d, a, b)


#: every named interval method: ``INTERVALS.get("ncv[bias=authors]")``
INTERVALS: Registry[IntervalMethod] = Registry("interval method")


def register_interval(name: str, *, fits: Callable[[object], bool],
                      params: Mapping[str, Iterable[str]] | None = None,
                      needs_losses: bool = False, description: str | None = None):
    """Decorator: register ``fn(fold_losses, design, a, b, **params) -> IntervalResult`` as
    interval method ``name`` (``b`` None: learner ``a``'s error; else the difference
    ``a - b``).  ``fits``, ``params``, ``needs_losses`` as for
    :func:`simstudy.stats.registry.register_test`.

    Examples
    --------
    >>> @register_interval("example-mean", fits=lambda d: True)
    ... def _example(fl, design, a, b):
    ...     \"\"\"mean of the fold errors, no spread\"\"\"
    ...     return IntervalResult(float(fl.errors[a].mean()), 0.0, None, "example-mean")
    >>> get_interval("example-mean").description
    'mean of the fold errors, no spread'
    >>> _ = INTERVALS.unregister("example-mean")
    """
    params = dict(params or {})

    def add(fn: Callable) -> Callable:
        INTERVALS.register(name, _factory(IntervalMethod, name, fn, fits, params,
                                          _describe(fn, description, {}), needs_losses,
                                          registry=INTERVALS),
                           description=_describe(fn, description, params))
        return fn

    return add


def get_interval(spec: str) -> IntervalMethod:
    """The interval method named by ``spec`` (``name`` or ``name[k=v]``).

    Examples
    --------
    >>> get_interval("corrected-t").name
    'corrected-t'
    """
    return INTERVALS.get(spec)


def list_intervals() -> list[str]:
    """Registered interval method names (a parametrised one once, by its base name)."""
    return sorted(INTERVALS.names())


def describe_intervals() -> list[tuple[str, str]]:
    """(name, one-line description with its paper) of every interval method."""
    return sorted(INTERVALS.describe())


def check_intervals_fit(methods: tuple[str, ...], design: object) -> None:
    """Raise if a named interval method cannot read this design (a mistake in a grid)."""
    d = _as_design(design)
    for m in methods:
        if not get_interval(m).fits(d):
            raise _no_fit(m, d)


def _as_design(design: object) -> object:
    # the stats package stays below the designs: the caller resolves a spec string
    if not hasattr(design, "shape") or not hasattr(design, "name"):
        raise SimstudyError(f"interval methods read a design object, got {design!r}; pass "
                            f"simstudy.designs.get_design({design!r})")
    return design


def _no_fit(name: str, design: object) -> SimstudyError:
    ok = sorted(e.name for e in INTERVALS if get_interval(e.name).fits(design))
    return SimstudyError(f"interval method {name!r} cannot read design "
                         f"{getattr(design, 'name', design)!r}; methods that read it: "
                         f"{', '.join(ok) or 'none'}")


# --- what the methods read ------------------------------------------------------------------

def _errors(fl: FoldLosses, a: int, b: int | None) -> np.ndarray:
    """(R, F) fold error rates of learner a, or the differences a - b."""
    return fl.errors[a] if b is None else fl.diff(a, b)


def _sums(fl: FoldLosses, a: int, b: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(count, S, Q)`` of learner a's losses (or the differences a - b): count and sum per
    fold and block ``(R, F, F)``, sum of squares per fold ``(R, F)``
    (:class:`simstudy.core.LossSums`; the stored per-instance losses or their sums)."""
    return loss_sums(fl.losses).of(a, b)


def _sizes(fl: FoldLosses) -> dict[str, float]:
    return {"n_train": float(np.mean(fl.n_train)), "n_test": float(np.mean(fl.n_test))}


def _plain_folds(design: object) -> bool:
    """Resampled or cross-validated folds (not nested cv's outer and inner fits)."""
    return (is_resample(design) or _partitions(design)) and _shape(design)[0] * _shape(design)[1] >= 2


# --- the baseline interval methods -------------------------------------------------------------

@register_interval("holdout", fits=lambda d: not is_bootstrap(d), needs_losses=True,
                   params={"dist": ("normal", "binomial")})
def _holdout(fl: FoldLosses, design: object, a: int, b: int | None,
             dist: str = "normal") -> IntervalResult:
    """holdout interval on the first fold's test losses, Wald (Schulz-Kümpel et al. 2024) or
    exact binomial for 0/1 loss (Clopper & Pearson 1934)"""
    if dist == "binomial" and b is not None:
        raise SimstudyError("interval method 'holdout[dist=binomial]' is for one learner's "
                            "0/1 error; a difference of two takes dist=normal")
    c, S, Q = _sums(fl, a, b)
    return IV.holdout_interval_sums(int(c[0, 0].sum()), float(S[0, 0].sum()), float(Q[0, 0]),
                                    dist=dist)


@register_interval("naive-cv", fits=_plain_folds, params={"dist": ("t", "z")})
def _naive_cv(fl: FoldLosses, design: object, a: int, b: int | None,
              dist: str = "t") -> IntervalResult:
    """naive cv interval on the R x k fold means, t(Rk-1) or z (Dietterich 1998 sec. 3.4;
    under-covers: Bates, Hastie & Tibshirani 2024 sec. 3)"""
    return IV.naive_cv_interval(_errors(fl, a, b).ravel(), dist=dist)


@register_interval("cv-clt", fits=_partitions, needs_losses=True,
                   params={"variance": ("within", "all", "naive")})
def _cv_clt(fl: FoldLosses, design: object, a: int, b: int | None,
            variance: str = "within") -> IntervalResult:
    """cross-validation CLT interval on replication 0's per-instance losses (Bayle, Bayle,
    Janson & Mackey 2020); [variance=naive] is Bates, Hastie & Tibshirani 2024's naive cv"""
    c, S, Q = _sums(fl, a, b)  # replication 0: each instance tested in one fold
    return IV.cv_clt_interval_sums(c[0].sum(axis=1), S[0].sum(axis=1), Q[0], variance=variance)


@register_interval("corrected-t", fits=_plain_folds)
def _corrected_t(fl: FoldLosses, design: object, a: int, b: int | None) -> IntervalResult:
    """corrected resampled t interval, t(J-1), on resampling or repeated cv (Nadeau & Bengio
    2003; Bouckaert & Frank 2004 sec. 3.2-3.3)"""
    return IV.corrected_t_interval(_errors(fl, a, b).ravel(), **_sizes(fl))


@register_interval("conservative-z", fits=_halves)
def _conservative_z(fl: FoldLosses, design: object, a: int, b: int | None) -> IntervalResult:
    """conservative Z interval on r x 2 complementary halves (Nadeau & Bengio 2003)"""
    return IV.conservative_z_interval(_errors(fl, a, b))


@register_interval("t5x2cv", fits=_halves)
def _t5x2cv(fl: FoldLosses, design: object, a: int, b: int | None) -> IntervalResult:
    """interval of Dietterich's 5x2cv t, centred on p_1^(1), t(r) (Dietterich 1998 sec. 3.5)"""
    return IV.t5x2cv_interval(_errors(fl, a, b))


@register_interval("ncv", fits=is_nested, needs_losses=True, params={"bias": IV.NCV_BIAS})
def _ncv(fl: FoldLosses, design: object, a: int, b: int | None,
         bias: str = "linear") -> IntervalResult:
    """nested cv interval with bias correction, on the ncv[k=..,reps=..] design (Bates,
    Hastie & Tibshirani 2024 Algorithm 1)"""
    ns = nested_sums(fl.losses, design.pairs)  # per-instance, LossSums or NestedSums
    return IV.nested_cv_interval_sums(*ns.of(a, b), ns.n, bias=bias)


def ncv_losses(h: np.ndarray, pairs: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    """Split an ``ncv`` trial's (R, F, n) per-instance losses (nan off test) into the
    ``outer`` (R, k, n) and ``inner`` (R, k, k, n) arrays of
    :func:`simstudy.stats.intervals.nested_cv_interval`; ``pairs`` is the design's fold
    pair of each inner column (``NestedCV.pairs``), the first ``k`` columns the outer fits.

    A fold's instances are the test positions of its outer column; the pair column of
    folds ``(i, j)`` gives ``inner[:, i, j]`` on fold j and ``inner[:, j, i]`` on fold i.
    """
    R, F, n = h.shape
    k = F - len(pairs)
    if k < 3 or len(pairs) != k * (k - 1) // 2:
        raise SimstudyError(f"losses with {F} columns per repetition are not those of a "
                            f"nested cv with {len(pairs)} fold pairs")
    outer = h[:, :k]
    member = ~np.isnan(outer)  # (R, k, n): instance in fold
    inner = np.full((R, k, k, n), np.nan)
    for c, (i, j) in enumerate(pairs, start=k):
        inner[:, i, j] = np.where(member[:, j], h[:, c], np.nan)
        inner[:, j, i] = np.where(member[:, i], h[:, c], np.nan)
    return outer, inner



def is_bootstrap(design: object) -> bool:
    """The out-of-bag bootstrap design (``boot[r=..]``): an apparent fit, a no-information
    fit and bootstrap samples, not train/test splits the other methods read."""
    return _kind(design) == "boot"


@register_interval("oob-632plus", fits=is_bootstrap, needs_losses=True)
def _oob_632plus(fl: FoldLosses, design: object, a: int, b: int | None) -> IntervalResult:
    """.632+ bootstrap estimate of one learner's error, out of bag, on the boot[r=..] design
    (Efron & Tibshirani 1997 eq. 32)"""
    if b is not None:
        raise SimstudyError("interval method 'oob-632plus' is for one learner's error; a "
                            "difference of two has no .632+ estimate")
    L = fl.losses
    if not isinstance(L, np.ndarray):
        raise SimstudyError("interval method 'oob-632plus' reads per-instance losses (the "
                            "out-of-bag losses of each instance), not their sums")
    h = np.asarray(L[a], dtype=np.float64)[:, 0]  # (R, n)
    h = np.where(h < 0, np.nan, h)
    apparent = h[0]
    err, off = float(apparent.mean()), float(np.nanmean(h[1]))
    n = apparent.size
    # no-information error (1/n^2) sum_i sum_j L(y_i, f(x_j)): the diagonal is the apparent
    # error, the off-diagonal mean is estimated by the design's shifted pairs
    gamma = ((n - 1) * off + err) / n
    return IV.oob_632plus_interval(h[2:], apparent, gamma)
