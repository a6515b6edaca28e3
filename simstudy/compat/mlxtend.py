"""mlxtend's model-comparison functions as drop-ins: same signatures, defaults and numbers.

``from simstudy.compat.mlxtend import paired_ttest_5x2cv`` replaces
``from mlxtend.evaluate import paired_ttest_5x2cv``.  Each function splits the data as
mlxtend 0.23-0.25 does for the same ``random_seed`` (a ``numpy.random.RandomState`` drawing
one ``randint(0, 32767)`` per split for scikit-learn's ``train_test_split``; ``KFold`` for
the k-fold t), fits the two estimators given (in mlxtend's order, so estimators holding
their own random state give the same fits), scores them with the same scorer (``accuracy``
for classifiers, ``r2`` for regressors by default) and computes the statistic with the
test of :mod:`simstudy.stats.pairwise` that defines it, on the differences of scores
(model 1 minus model 2).  tests/test_compat_mlxtend.py checks the numbers against mlxtend
itself to 1e-12 on several hundred seeded cases per function.

Where the numbers differ (documented in docs/compare.md):

* **both models score alike** (every difference zero, or the spread of the differences zero
  up to rounding, 1e-12 of the largest difference): mlxtend returns ``nan`` (0/0), ``inf``
  with p = 0 (c/0: a reject), or raises ``ZeroDivisionError`` (``combined_ftest_5x2cv``);
  here the statistic is undefined: ``(nan, 1.0)``, never a reject (the convention of
  :mod:`simstudy.stats.pairwise`);
* **McNemar without discordant pairs** (``b + c = 0``): mlxtend's corrected chi-squared is
  1/0 = inf with p = 0, its uncorrected one 0/0 = nan; here ``(nan, 1.0)``;
* an estimator that is neither classifier nor regressor (with ``scoring=None``) raises
  :class:`~simstudy.errors.SimstudyError` (a ``ValueError``) instead of ``AttributeError``.

Examples
--------
>>> import numpy as np
>>> y = np.array([0, 1, 1, 0, 1, 0, 1, 1, 0, 1])
>>> tb = mcnemar_table(y, np.array([0, 1, 1, 0, 1, 0, 0, 0, 0, 1]),
...                    np.array([1, 0, 0, 1, 1, 0, 1, 0, 1, 1]))
>>> tb.tolist(), mcnemar(tb)
([[3, 5], [1, 1]], (1.5, 0.22067136191984324))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from ..errors import SimstudyError
from ..stats import pairwise as P

__all__ = ["combined_ftest_5x2cv", "mcnemar", "mcnemar_table", "paired_ttest_5x2cv",
           "paired_ttest_kfold_cv", "paired_ttest_resampled"]

#: mlxtend draws each split's seed as ``RandomState(random_seed).randint(0, 32767)``
_SEED_HIGH = 32767


def estimator_type(estimator: Any) -> str | None:
    """``'classifier'``, ``'regressor'`` or None, as scikit-learn's tags say."""
    try:
        from sklearn.utils import get_tags

        return get_tags(estimator).estimator_type
    except Exception:  # noqa: BLE001 - an object sklearn's tags cannot read
        return getattr(estimator, "_estimator_type", None)


def _scorer(estimator: Any, scoring: str | Callable | None) -> Callable:
    """mlxtend's default: accuracy for classifiers, r2 for regressors; a name through
    scikit-learn's ``get_scorer``; a callable ``scorer(estimator, X, y)`` as given."""
    from sklearn.metrics import get_scorer, get_scorer_names

    if scoring is None:
        kind = estimator_type(estimator)
        if kind not in ("classifier", "regressor"):
            raise SimstudyError(f"estimator {estimator!r} is neither a classifier nor a "
                                "regressor; give scoring")
        scoring = "accuracy" if kind == "classifier" else "r2"
    if isinstance(scoring, str):
        if scoring not in get_scorer_names():
            raise SimstudyError(f"unknown scoring {scoring!r}; valid choices: "
                                f"{', '.join(sorted(get_scorer_names()))}")
        return get_scorer(scoring)
    return scoring


def _take(a: Any, idx: np.ndarray) -> Any:
    if isinstance(a, np.ndarray):
        return a[idx]
    from sklearn.utils import _safe_indexing  # a DataFrame, a list, a sparse matrix

    return _safe_indexing(a, idx)


def _split_seeds(random_seed: int | None, rounds: int) -> list[int]:
    rng = np.random.RandomState(random_seed)
    return [int(rng.randint(low=0, high=_SEED_HIGH)) for _ in range(rounds)]


def _halves(n: int, test_size: float | int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(train, test) indices of ``train_test_split(..., random_state=seed)``."""
    from sklearn.model_selection import train_test_split

    return tuple(train_test_split(np.arange(n), test_size=test_size, random_state=seed))


def _score_diff(e1: Any, e2: Any, scorer: Callable, X: Any, y: Any, train: np.ndarray,
                test: np.ndarray) -> float:
    """Score of model 1 minus model 2 on ``test``, both fitted on ``train`` (1 then 2)."""
    Xtr, ytr, Xte, yte = _take(X, train), _take(y, train), _take(X, test), _take(y, test)
    e1.fit(Xtr, ytr)
    e2.fit(Xtr, ytr)
    return scorer(e1, Xte, yte) - scorer(e2, Xte, yte)


def _five_by_two(e1: Any, e2: Any, X: Any, y: Any, scoring, random_seed) -> np.ndarray:
    """(5, 2) score differences of mlxtend's 5x2 cv: fold 0 trains on the first half."""
    scorer = _scorer(e1, scoring)
    n = len(y)
    d = np.empty((5, 2))
    for i, seed in enumerate(_split_seeds(random_seed, 5)):
        a, b = _halves(n, 0.5, seed)
        d[i, 0] = _score_diff(e1, e2, scorer, X, y, a, b)
        d[i, 1] = _score_diff(e1, e2, scorer, X, y, b, a)
    return d


def _pair(r) -> tuple[float, float]:
    return float(r.statistic), float(r.pvalue)


def paired_ttest_5x2cv(estimator1: Any, estimator2: Any, X: Any, y: Any,
                       scoring: str | Callable | None = None,
                       random_seed: int | None = None) -> tuple[float, float]:
    """mlxtend's ``paired_ttest_5x2cv``: Dietterich's 5x2 cv paired t (Dietterich 1998;
    Alpaydın 1999 eq. 2.1), t(5), on score differences model 1 minus model 2.

    Returns ``(t, pvalue)``; ``(nan, 1.0)`` when the differences have no spread (mlxtend:
    nan or inf).  See the module docstring.

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.naive_bayes import GaussianNB
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> tree = DecisionTreeClassifier(max_depth=3, random_state=1)
    >>> t, p = paired_ttest_5x2cv(GaussianNB(), tree, X, y, random_seed=2)
    >>> round(t, 3), round(p, 4)
    (2.88, 0.0346)
    """
    return _pair(P.ttest_5x2cv(_five_by_two(estimator1, estimator2, X, y, scoring,
                                            random_seed)))


def combined_ftest_5x2cv(estimator1: Any, estimator2: Any, X: Any, y: Any,
                         scoring: str | Callable | None = None,
                         random_seed: int | None = None) -> tuple[float, float]:
    """mlxtend's ``combined_ftest_5x2cv``: Alpaydın's combined 5x2 cv F (Alpaydın 1999
    eq. 3.1), F(10, 5).

    Returns ``(f, pvalue)``; ``(nan, 1.0)`` when the differences have no spread (mlxtend:
    ``ZeroDivisionError``, nan or inf).

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from sklearn.naive_bayes import GaussianNB
    >>> X, y = load_iris(return_X_y=True)
    >>> combined_ftest_5x2cv(GaussianNB(), GaussianNB(), X, y, random_seed=0)
    (nan, 1.0)
    """
    return _pair(P.ftest_5x2cv(_five_by_two(estimator1, estimator2, X, y, scoring,
                                            random_seed)))


def paired_ttest_kfold_cv(estimator1: Any, estimator2: Any, X: Any, y: Any, cv: int = 10,
                          scoring: str | Callable | None = None, shuffle: bool = False,
                          random_seed: int | None = None) -> tuple[float, float]:
    """mlxtend's ``paired_ttest_kfold_cv``: the k-fold cv paired t (Yıldız & Alpaydın 2006
    eq. 4-5), t(k-1), over scikit-learn's ``KFold(cv, shuffle, random_state)`` (unshuffled
    by default, as mlxtend; ``random_seed`` is read only when shuffling).

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.linear_model import LinearRegression, Ridge
    >>> X, y = load_diabetes(return_X_y=True)
    >>> t, p = paired_ttest_kfold_cv(LinearRegression(), Ridge(alpha=10.0), X, y, cv=5)
    >>> t > 0
    True
    """
    from sklearn.model_selection import KFold

    kf = (KFold(n_splits=cv, random_state=random_seed, shuffle=True) if shuffle
          else KFold(n_splits=cv, shuffle=False))
    scorer = _scorer(estimator1, scoring)
    d = np.array([_score_diff(estimator1, estimator2, scorer, X, y, tr, te)
                  for tr, te in kf.split(X)])
    return _pair(P.ttest_kfold(d))


def paired_ttest_resampled(estimator1: Any, estimator2: Any, X: Any, y: Any,
                           num_rounds: int = 30, test_size: float | int = 0.3,
                           scoring: str | Callable | None = None,
                           random_seed: int | None = None) -> tuple[float, float]:
    """mlxtend's ``paired_ttest_resampled``: the resampled paired t (Dietterich 1998;
    Bouckaert & Frank 2004 sec. 3.1), t(n-1), over ``num_rounds`` random splits.

    Examples
    --------
    >>> from sklearn.datasets import load_diabetes
    >>> from sklearn.linear_model import LinearRegression, Ridge
    >>> X, y = load_diabetes(return_X_y=True)  # scored by r2, model 1 minus model 2
    >>> t, p = paired_ttest_resampled(LinearRegression(), Ridge(), X, y, num_rounds=10,
    ...                               random_seed=0)
    >>> round(t, 2), p < 0.001
    (7.02, True)
    """
    if not isinstance(test_size, (int, float)):
        raise SimstudyError(f"test_size must be an int or a float, got {test_size!r}")
    scorer = _scorer(estimator1, scoring)
    n = len(y)
    d = np.array([_score_diff(estimator1, estimator2, scorer, X, y, *_halves(n, test_size, s))
                  for s in _split_seeds(random_seed, num_rounds)])
    return _pair(P.ttest_resampled(d))


def _labels(a: Any, name: str) -> np.ndarray:
    x = np.asarray(a)
    if x.ndim != 1:
        raise SimstudyError(f"{name} must be 1-dimensional, got shape {x.shape!r}")
    return x


def mcnemar_table(y_target: Any, y_model1: Any, y_model2: Any) -> np.ndarray:
    """mlxtend's ``mcnemar_table``: the 2x2 table of McNemar's test, ``int``.

    ``tb[0, 0]``: both models right; ``tb[0, 1]``: model 1 right, model 2 wrong;
    ``tb[1, 0]``: model 2 right, model 1 wrong; ``tb[1, 1]``: both wrong.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0, 0, 1, 1, 1])
    >>> mcnemar_table(y, np.array([0, 1, 1, 1, 0]), np.array([0, 0, 1, 0, 0]))
    array([[2, 1],
           [1, 1]])
    """
    t, m1, m2 = (_labels(a, n) for a, n in ((y_target, "y_target"), (y_model1, "y_model1"),
                                            (y_model2, "y_model2")))
    if not (t.shape[0] == m1.shape[0] == m2.shape[0]):
        raise SimstudyError(f"y_target, y_model1 and y_model2 must have the same length, got "
                            f"{t.shape[0]}, {m1.shape[0]} and {m2.shape[0]}")
    r1, r2 = t == m1, t == m2
    return np.array([[np.sum(r1 & r2), np.sum(r1 & ~r2)],
                     [np.sum(~r1 & r2), np.sum(~r1 & ~r2)]], dtype=int)


def mcnemar(ary: Any, corrected: bool = True, exact: bool = False
            ) -> tuple[float | None, float]:
    """mlxtend's ``mcnemar`` on a 2x2 table (:func:`mcnemar_table`): McNemar's chi2(1)
    (McNemar 1947; Dietterich 1998; Yıldız & Alpaydın 2006 eq. 13), with Edwards'
    continuity correction by default; ``exact=True``: the two-sided exact binomial test of
    ``b`` of ``b + c`` at 1/2, statistic None (as mlxtend).

    Returns ``(chi2, pvalue)``; no discordant pair (``b + c = 0``): ``(nan, 1.0)`` (mlxtend:
    inf with p = 0 corrected, nan uncorrected), and ``(None, 1.0)`` exact (as mlxtend).

    Examples
    --------
    >>> import numpy as np
    >>> chi2, p = mcnemar(np.array([[101, 121], [59, 33]]))
    >>> round(chi2, 4), round(p, 6)
    (20.6722, 5e-06)
    """
    a = np.asarray(ary)
    if a.shape != (2, 2):
        raise SimstudyError(f"ary must be a 2x2 array, got shape {a.shape!r}")
    b, c = a[0, 1], a[1, 0]
    if exact:
        return None, float(min(special.bdtr(min(b, c), b + c, 0.5) * 2.0, 1.0))
    if b + c == 0:
        return float("nan"), 1.0
    # model 1 is learner A: A wrong and B right c times, A right and B wrong b times
    errors_1 = np.r_[np.ones(int(c), bool), np.zeros(int(b), bool)]
    return _pair(P.mcnemar(errors_1, ~errors_1, correction=bool(corrected)))
