"""Choosing the best of K learners from one trial's fold errors (Yıldız & Alpaydın 2006).

Each method is a pure function ``fn(errors, alpha) -> (best, order)``:

* ``errors`` — the trial's (K, R, F) fold error rates (e.g. (K, 5, 2) for 5×2 cv), learners
  in **decreasing prior preference** (index 0 = simplest / most preferred, the paper's 1);
* ``best`` — the chosen learner's index, or ``None`` when the method finds no best (the
  paper's ``*``);
* ``order`` — a full ordering, best first, where the method defines one, else ``None``.

The four methods of the paper's §4.2–4.4 (and two variants), registered under these names by
:mod:`.registry`:

=====================  ==========================================================================
``anova``              ANOVA (eqs. 9–11) at ``alpha``; accepts → the simplest learner (index 0)
                       and the prior order; rejects → no best (§4.2, §4.4: "Anova can find the
                       best algorithm only if it accepts ... it will select the simplest")
``newman-keuls``       Newman–Keuls (eq. 12, df K(L−1)) at ``alpha``, uncorrected; best by the
                       four rules of §4.2 (:func:`simstudy.stats.newman_keuls`)
``multitest``          MultiTest (Fig. 1): one-sided 5×2 cv t for every i < j, Bonferroni
                       alpha / (K(K−1)/2) (α/10 for K = 5); best and the full ordering
``multitest[holm=1]``  the same with Holm's step-down correction (§3.2 names it as the option)
``testfirst``          TestFirst (§4.2): the smallest-mean learner must beat every simpler one
                       by the one-sided test, Bonferroni over its K − 1 comparisons
``testfirst[family=pairs]``  TestFirst at MultiTest's per-test level alpha / (K(K−1)/2)
``mcs``                the model confidence set of Hansen, Lunde & Nason (2011) at ``alpha``
                       (:mod:`.mcs`): the most preferred learner in the set, the set then the
                       eliminated learners as the order; ``mcs[stat=max]`` with T_max
=====================  ==========================================================================

ANOVA, Newman–Keuls and the MCS read the R·F folds as L error samples per learner (the
paper's (K, L) layout; the MCS resamples whole replications).  An undefined statistic (zero variance) has p = 1: an accepted
hypothesis.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import SimstudyError
from ..params import ALPHA, check
from .mcs import mcs_choice
from .multiple import anova, multitest, newman_keuls, testfirst

__all__ = [
    "ChoiceFn",
    "anova_choice",
    "multitest_choice",
    "newman_keuls_choice",
    "testfirst_choice",
]

Choice = tuple["int | None", "tuple[int, ...] | None"]
ChoiceFn = Callable[[np.ndarray, float], Choice]


def _errors(errors: object) -> np.ndarray:
    try:
        a = np.asarray(errors, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise SimstudyError(f"errors must be a numeric (K, R, F) array, got {errors!r}") from exc
    if a.ndim != 3 or a.shape[0] < 2 or a.shape[1] * a.shape[2] < 2:
        raise SimstudyError(
            f"errors must have shape (K >= 2, R, F) with R*F >= 2, e.g. (5, 5, 2); "
            f"got shape {a.shape!r}")
    if not np.isfinite(a).all():
        raise SimstudyError(f"errors must be finite, got {a!r}")
    return a


def anova_choice(errors: object, alpha: float = 0.05) -> Choice:
    """ANOVA as a chooser (Yıldız & Alpaydın 2006 §2.4.1, §4.2, §4.4).

    "The result of Anova can be used to choose the best one only when it accepts and in this
    case, we choose the simplest algorithm": accept (p >= alpha) → ``(0, (0, 1, .., K-1))``,
    the prior order; reject → ``(None, None)``.
    """
    a = _errors(errors)
    alpha = check("alpha", alpha, ALPHA)
    k = a.shape[0]
    p = anova(a.reshape(k, -1)).pvalue
    if p < alpha:
        return None, None
    return 0, tuple(range(k))


def newman_keuls_choice(errors: object, alpha: float = 0.05) -> Choice:
    """Newman–Keuls as a chooser (§2.4.2 eq. 12; the four rules of §4.2).

    The range test at ``alpha`` (no correction: it controls its own family), df = K(L − 1);
    ``best`` by :func:`simstudy.stats.newman_keuls` (the first learner if not underlined,
    else the simplest of its underline unless an overlapping underline holds a simpler one).
    Newman–Keuls gives groups, not an ordering: ``order`` is None.
    """
    a = _errors(errors)
    alpha = check("alpha", alpha, ALPHA)
    r = newman_keuls(a.reshape(a.shape[0], -1), alpha=alpha)
    return r.best, None


def multitest_choice(errors: object, alpha: float = 0.05, *,
                     correction: str = "bonferroni") -> Choice:
    """MultiTest (§3.2, Fig. 1) with the one-sided 5×2 cv t test (eq. 7, ``alternative=
    'greater'``) on every pair i < j at ``alpha / (K(K-1)/2)`` (Bonferroni) or Holm.

    Always finds a best; ``order`` is the topological sort of Fig. 1 (best first).
    """
    a = _errors(errors)
    r = multitest(a, alpha=alpha, correction=correction)
    return r.best, r.ordering


def testfirst_choice(errors: object, alpha: float = 0.05, *, family: int | None = None) -> Choice:
    """TestFirst (§4.2): the learner c with the smallest mean error is the best if the
    one-sided 5×2 cv t test rejects H0: mu_j <= mu_c for every simpler learner j < c (more
    complex learners lose to c without a test: larger mean and less preferred).

    Each test at ``alpha / family`` (Bonferroni); ``family`` defaults to K − 1, the number of
    comparisons TestFirst makes (the paper says only "Bonferroni"); ``family = K(K−1)/2``
    gives MultiTest's per-test level (α/10 for K = 5).  ``order`` is None.
    """
    a = _errors(errors)
    alpha = check("alpha", alpha, ALPHA)
    k = a.shape[0]
    m = k - 1 if family is None else int(family)
    if m < 1:
        raise SimstudyError(f"family must be a positive integer, got {family!r}")
    r = testfirst(a, alpha=alpha)  # its p-values; the decision at alpha / m is ours
    ok = all(p < alpha / m for p in r.pvalues.values())
    return (r.candidate if ok else None), None


def _testfirst_pairs(errors: object, alpha: float = 0.05) -> Choice:
    k = np.shape(errors)[0]
    return testfirst_choice(errors, alpha, family=k * (k - 1) // 2)


def _multitest_holm(errors: object, alpha: float = 0.05) -> Choice:
    return multitest_choice(errors, alpha, correction="holm")


def _mcs_max(errors: object, alpha: float = 0.05) -> Choice:
    return mcs_choice(errors, alpha, method="max")


testfirst_choice.__test__ = False  # type: ignore[attr-defined]  # pytest: a name, not a test
