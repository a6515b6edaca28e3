"""simstudy.compat.mlxtend against mlxtend itself: the same numbers for the same seeds.

Each function runs on >= 200 seeded cases (classifiers and regressors on small generated
data, default and named scorers, the functions' parameters varied); wherever mlxtend's
result is finite, ours agrees to 1e-12 (statistic relative to max(1, |statistic|),
p-value absolute).  Where mlxtend has no defined result (both models score alike: nan, inf
or ZeroDivisionError; McNemar without discordant pairs) ours is the documented
``(nan, 1.0)``.  ``python tests/test_compat_mlxtend.py`` prints the agreement table.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

mlx = pytest.importorskip("mlxtend.evaluate")

from simstudy.compat import mlxtend as ours  # noqa: E402
from simstudy.errors import SimstudyError  # noqa: E402

CASES = 200
TOL = 1e-12
CV_FUNCTIONS = ("paired_ttest_5x2cv", "combined_ftest_5x2cv", "paired_ttest_kfold_cv",
                "paired_ttest_resampled")


class _Centroid:
    """A nearest-centroid classifier on some columns: a real estimator that fits in
    microseconds, so hundreds of seeded cases of both libraries run in seconds."""

    _estimator_type = "classifier"

    def __init__(self, cols: int = 1, shrink: float = 0.0) -> None:
        self.cols, self.shrink = cols, shrink

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags())

    def fit(self, X, y):
        self.classes_, codes = np.unique(y, return_inverse=True)
        x = X[:, :self.cols]
        m = np.array([x[codes == c].mean(0) for c in range(self.classes_.size)])
        self.means_ = (1 - self.shrink) * m + self.shrink * x.mean(0)
        return self

    def predict(self, X):
        d = ((X[:, None, :self.cols] - self.means_[None]) ** 2).sum(-1)
        return self.classes_[d.argmin(1)]


class _Linear:
    """Ridge regression on some columns, by the normal equations (microseconds)."""

    _estimator_type = "regressor"

    def __init__(self, cols: int = 1, lam: float = 0.0) -> None:
        self.cols, self.lam = cols, lam

    def __sklearn_tags__(self):
        from sklearn.utils import RegressorTags, Tags, TargetTags

        return Tags(estimator_type="regressor", target_tags=TargetTags(required=True),
                    regressor_tags=RegressorTags())

    def fit(self, X, y):
        A = np.c_[np.ones(len(X)), X[:, :self.cols]]
        self.coef_ = np.linalg.solve(A.T @ A + self.lam * np.eye(A.shape[1]), A.T @ y)
        return self

    def predict(self, X):
        return np.c_[np.ones(len(X)), X[:, :self.cols]] @ self.coef_


def _accuracy(est, X, y):
    return float(np.mean(est.predict(X) == y))


def _neg_mse(est, X, y):
    return -float(np.mean((est.predict(X) - y) ** 2))


def _models(rng: np.random.Generator, regression: bool, d: int):
    from sklearn.linear_model import LinearRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    s = int(rng.integers(1000))
    if regression:
        pool = [_Linear(int(rng.integers(1, d + 1)), float(rng.uniform(0, 5))),
                _Linear(int(rng.integers(1, d + 1)), float(rng.uniform(0, 50)))]
        if rng.random() < 0.1:  # now and then scikit-learn's own
            pool[int(rng.integers(2))] = [LinearRegression(), DecisionTreeRegressor(
                max_depth=2, random_state=s)][int(rng.integers(2))]
    else:
        pool = [_Centroid(int(rng.integers(1, d + 1)), float(rng.uniform(0, 0.5))),
                _Centroid(int(rng.integers(1, d + 1)), float(rng.uniform(0, 0.9)))]
        if rng.random() < 0.1:
            pool[int(rng.integers(2))] = [GaussianNB(), DecisionTreeClassifier(
                max_depth=2, random_state=s)][int(rng.integers(2))]
    if rng.random() < 0.05:
        pool[1] = pool[0]  # the same model twice: every difference zero
    return pool


def _case(fn: str, k: int):
    """The k-th seeded case of ``fn``: (estimator1, estimator2, X, y, kwargs)."""
    from sklearn.datasets import make_classification, make_regression

    rng = np.random.default_rng([CV_FUNCTIONS.index(fn), k])
    regression = k % 2 == 1
    n = int(rng.integers(30, 61))
    d = int(rng.integers(2, 5))
    seed = int(rng.integers(2**31))
    if regression:
        X, y = make_regression(n_samples=n, n_features=d, noise=float(rng.uniform(1, 30)),
                               random_state=seed)
        scoring = [None, "neg_mean_squared_error", *[_neg_mse] * 6]
    else:
        X, y = make_classification(n_samples=n, n_features=d, n_informative=2, n_redundant=0,
                                   n_classes=int(rng.integers(2, 4)), n_clusters_per_class=1,
                                   flip_y=float(rng.uniform(0, 0.3)), random_state=seed)
        scoring = [None, "balanced_accuracy", *[_accuracy] * 6]
    kw = {"scoring": scoring[int(rng.integers(len(scoring)))],
          "random_seed": int(rng.integers(10**6))}
    if fn == "paired_ttest_kfold_cv":
        kw.update(cv=int(rng.integers(2, 6)), shuffle=bool(rng.random() < 0.7))
    elif fn == "paired_ttest_resampled":
        kw["num_rounds"] = int(rng.integers(2, 6))
        kw["test_size"] = (float(rng.uniform(0.2, 0.5)) if rng.random() < 0.7
                           else int(rng.integers(8, n // 2)))
    e1, e2 = _models(rng, regression, d)
    return e1, e2, X, y, kw


def _run(f, *args, **kw):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return f(*args, **kw)
    except ZeroDivisionError:
        return "ZeroDivisionError"


def _finite(r) -> bool:
    return not isinstance(r, str) and all(x is None or math.isfinite(x) for x in r)


def _compare(fn: str, theirs, mine, rows: list) -> None:
    if _finite(theirs) and not math.isnan(mine[0] if mine[0] is not None else 0.0):
        ds = (0.0 if theirs[0] is None else
              abs(theirs[0] - mine[0]) / max(1.0, abs(theirs[0])))
        rows.append((fn, "agree", max(ds, abs(theirs[1] - mine[1]))))
    else:
        # mlxtend has no defined result, or ours calls the spread zero: (nan, 1.0), and
        # then mlxtend's is nan, inf, an error, or a statistic blown up by rounding noise
        assert math.isnan(mine[0]) and mine[1] == 1.0, (fn, theirs, mine)
        assert isinstance(theirs, str) or not math.isfinite(theirs[0]) \
            or abs(theirs[0]) > 1e9, (fn, theirs, mine)
        rows.append((fn, "mlxtend undefined", float("nan")))


def agreement(cases: int = CASES) -> list[tuple[str, str, float]]:
    rows: list[tuple[str, str, float]] = []
    for fn in CV_FUNCTIONS:
        for k in range(cases):
            e1, e2, X, y, kw = _case(fn, k)
            theirs = _run(getattr(mlx, fn), e1, e2, X, y, **kw)
            e1, e2, X, y, kw = _case(fn, k)  # fresh estimators: the same starting state
            mine = _run(getattr(ours, fn), e1, e2, X, y, **kw)
            _compare(fn, theirs, mine, rows)
    rng = np.random.default_rng(46)
    for k in range(cases):
        n, c = int(rng.integers(1, 60)), int(rng.integers(2, 5))
        y = rng.integers(c, size=n)
        m1 = np.where(rng.random(n) < rng.uniform(0.3, 1), y, rng.integers(c, size=n))
        m2 = m1.copy() if k % 10 == 0 else np.where(rng.random(n) < rng.uniform(0.3, 1), y,
                                                    rng.integers(c, size=n))
        tb = mlx.mcnemar_table(y, m1, m2)
        mine_tb = ours.mcnemar_table(y, m1, m2)
        assert mine_tb.dtype == tb.dtype and mine_tb.shape == (2, 2)
        rows.append(("mcnemar_table", "agree", float(np.abs(tb - mine_tb).max())))
        for corrected, exact in ((True, False), (False, False), (True, True)):
            theirs = _run(mlx.mcnemar, tb, corrected=corrected, exact=exact)
            mine = ours.mcnemar(tb, corrected=corrected, exact=exact)
            if exact:
                assert mine[0] is None and theirs[0] is None
                rows.append(("mcnemar", "agree", abs(theirs[1] - mine[1])))
            else:
                _compare("mcnemar", theirs, mine, rows)
    return rows


@pytest.fixture(scope="module")
def rows():
    return agreement()


@pytest.mark.parametrize("fn", [*CV_FUNCTIONS, "mcnemar_table", "mcnemar"])
def test_same_numbers_as_mlxtend(rows, fn):
    mine = [r for r in rows if r[0] == fn]
    agree = [r[2] for r in mine if r[1] == "agree"]
    assert len(mine) >= CASES and len(agree) >= CASES // 2
    assert max(agree) <= TOL


def test_alike_models_give_the_defined_result_where_mlxtend_fails():
    from sklearn.datasets import make_classification
    from sklearn.naive_bayes import GaussianNB

    X, y = make_classification(n_samples=40, n_features=3, n_informative=2, n_redundant=0,
                               random_state=0)
    with pytest.raises(ZeroDivisionError):
        mlx.combined_ftest_5x2cv(GaussianNB(), GaussianNB(), X, y, random_seed=1)
    for fn in CV_FUNCTIONS:
        assert getattr(ours, fn)(GaussianNB(), GaussianNB(), X, y, random_seed=1) \
            == pytest.approx((float("nan"), 1.0), nan_ok=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert mlx.mcnemar(np.array([[5, 0], [0, 3]]))[1] == 0.0  # 1/0: a "reject"
    assert ours.mcnemar(np.array([[5, 0], [0, 3]])) == pytest.approx((float("nan"), 1.0),
                                                                    nan_ok=True)


def test_same_signatures_and_defaults():
    import inspect

    for fn in [*CV_FUNCTIONS, "mcnemar_table", "mcnemar"]:
        a, b = inspect.signature(getattr(mlx, fn)), inspect.signature(getattr(ours, fn))
        assert [(p.name, p.default, p.kind) for p in a.parameters.values()] == \
            [(p.name, p.default, p.kind) for p in b.parameters.values()]


def test_bad_input_is_one_line():
    from sklearn.naive_bayes import GaussianNB

    X, y = np.zeros((10, 2)), np.r_[np.zeros(5), np.ones(5)]
    with pytest.raises(SimstudyError, match="unknown scoring 'acuracy'; valid choices:"):
        ours.paired_ttest_5x2cv(GaussianNB(), GaussianNB(), X, y, scoring="acuracy")
    with pytest.raises(SimstudyError, match="neither a classifier nor a regressor"):
        ours.paired_ttest_5x2cv(object(), GaussianNB(), X, y)
    with pytest.raises(SimstudyError, match="2x2"):
        ours.mcnemar(np.zeros((3, 2)))


if __name__ == "__main__":  # the agreement table
    import collections

    table: dict = collections.defaultdict(list)
    for fn, kind, d in agreement():
        table[fn].append((kind, d))
    print("| function | cases | alike: ours (nan, 1.0) | max abs difference where mlxtend is finite |")
    print("|---|---:|---:|---:|")
    for fn, r in table.items():
        agree = [d for k, d in r if k == "agree"]
        print(f"| {fn} | {len(r)} | {len(r) - len(agree)} | {max(agree):.1e} |")
