"""The result object every test in :mod:`simstudy.stats` returns (scipy-style)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TestResult:
    """Outcome of one hypothesis test.

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
    """

    __test__ = False  # not a pytest test class

    statistic: float
    pvalue: float
    df: float | tuple[float, float] | None = None
    alternative: str | None = None

    def reject(self, alpha: float = 0.05) -> bool:
        """True when ``pvalue < alpha``."""
        return bool(self.pvalue < alpha)
