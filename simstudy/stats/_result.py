"""The result objects of :mod:`simstudy.stats` (scipy-style): one trial's
:class:`TestResult`, and a batch of trials' :class:`Outcome`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class TestResult:
    """Outcome of one hypothesis test, unpackable as ``statistic, pvalue`` (as scipy's).

    Attributes
    ----------
    statistic : float
        The test statistic (``nan`` when it is undefined, e.g. 0/0; see each test).
    pvalue : float
        The p-value in [0, 1]; ``1.0`` when the statistic is undefined, so it never rejects.
    df : float or tuple of float or None
        Degrees of freedom of the reference distribution (a pair for F tests).
    alternative : str or None
        ``'two-sided'``, ``'less'`` or ``'greater'`` where the test has a direction.
    estimate, standard_error : float or None
        What a t or z statistic standardises (``statistic = estimate / standard_error``),
        set by the tests that have a :meth:`confidence_interval`.

    Examples
    --------
    >>> from simstudy.stats import ttest_kfold
    >>> t, p = ttest_kfold([0.02, 0.01, 0.03, 0.00, 0.02])
    >>> r = ttest_kfold([0.02, 0.01, 0.03, 0.00, 0.02])
    >>> (round(t, 4), r.df, r.alternative)
    (3.1379, 4.0, 'two-sided')
    >>> [round(x, 4) for x in r.confidence_interval(0.95)]
    [0.0018, 0.0302]
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    df: float | tuple[float, float] | None = None
    alternative: str | None = None
    estimate: float | None = field(default=None, kw_only=True)
    standard_error: float | None = field(default=None, kw_only=True)

    def __iter__(self) -> Iterator[float]:
        # scipy's results unpack as (statistic, pvalue); so do these
        return iter((self.statistic, self.pvalue))

    def reject(self, alpha: float = 0.05) -> bool:
        """True when ``pvalue < alpha``."""
        return bool(self.pvalue < alpha)

    def confidence_interval(self, confidence_level: float = 0.95) -> tuple[float, float]:
        """The two-sided interval of the expected difference that the test inverts:
        ``estimate -/+ q * standard_error``, ``q`` the ``(1 + confidence_level) / 2``
        quantile of t(df) (of N(0, 1) when ``df`` is None); ``(nan, nan)`` when the
        statistic is undefined.  Tests without an interval raise
        :class:`~simstudy.errors.SimstudyError`."""
        from scipy import special

        from ..errors import SimstudyError

        if self.estimate is None or self.standard_error is None:
            raise SimstudyError("this test gives no confidence interval (only the t and z "
                                "tests of a mean difference do)")
        if not 0.0 < confidence_level < 1.0:
            raise SimstudyError(f"confidence_level must lie in (0, 1), got "
                                f"{confidence_level!r}")
        if not np.isfinite(self.statistic):
            return float("nan"), float("nan")
        q = (1.0 + confidence_level) / 2.0
        crit = float(special.ndtri(q) if self.df is None else special.stdtrit(self.df, q))
        return (self.estimate - crit * self.standard_error,
                self.estimate + crit * self.standard_error)


@dataclass(frozen=True)
class Outcome:
    """A test on T trials at once (a registry entry's batch form): ``statistic``,
    ``pvalue`` (T,), unpackable as ``statistic, pvalue``; per-trial ``extra`` arrays (the
    Bayesian test's ``p_left``, ``p_rope``, ``p_right``).  Trial ``i`` holds what the
    test gives on that trial alone (bit for bit: tests/test_stats_registry.py)."""

    statistic: np.ndarray
    pvalue: np.ndarray
    extra: dict[str, np.ndarray] = field(default_factory=dict)

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.statistic, self.pvalue))
