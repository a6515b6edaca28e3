"""Fast (batched) learners give the reference (scikit-learn) predictions on random masks."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits, load_iris, load_wine

from simstudy.core import Dataset
from simstudy.learners import get_learner
from simstudy.learners.fast import Fast1NN, FastMax, FastNB, FastNMC


def _seeds(k: int) -> list[np.random.SeedSequence]:
    return np.random.SeedSequence(1).spawn(k)


def mixed_dataset(n: int = 150, seed: int = 3) -> Dataset:
    """Numeric + one-hot nominal columns, with missing values in both kinds."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    num = rng.normal(size=(n, 3)) + y[:, None] * np.array([1.0, 0.5, 0.0])
    num[:, 2] *= 100.0  # a column on another scale
    num[rng.random(n) < 0.1, 0] = np.nan
    a = (y + rng.integers(0, 2, n)) % 3  # nominal with 3 values, related to y
    b = rng.integers(0, 2, n)  # nominal with 2 values, noise
    A = np.eye(3)[a]
    Bm = np.eye(2)[b]
    A[rng.random(n) < 0.1] = np.nan  # a missing nominal value: nan in all its columns
    X = np.hstack([num, A, Bm])
    return Dataset(
        "mixed", X, y, ("a", "b", "c"), nominal_groups=((3, 4, 5), (6, 7))
    )


def _data(name: str) -> Dataset:
    if name == "iris":
        X, y = load_iris(return_X_y=True)
    elif name == "wine":
        X, y = load_wine(return_X_y=True)
    elif name == "digits":  # d = 64: the BLAS kernel of 1-NN, constant pixel columns
        X, y = load_digits(return_X_y=True)
        X, y = X[:400], y[:400]
    else:
        return mixed_dataset()
    return Dataset(name, np.asarray(X, float), np.asarray(y, np.int64), tuple(map(str, set(y))))


def _masks(n: int, rng: np.random.Generator, halves: int = 10) -> np.ndarray:
    rows = []
    for _ in range(halves):  # 5x2-style random halves
        m = rng.permutation(n) < n // 2
        rows += [m, ~m]
    for _ in range(4):  # 90/10 resamples
        rows.append(rng.permutation(n) < int(0.9 * n))
    return np.array(rows)


CASES = [
    (learner, data)
    for data in ("iris", "wine", "mixed", "digits")
    for learner in ("max", "nmc", "1nn", "lda", "ls", "nb")
    # LDA equivalence is claimed for full-rank covariances only (see FastLDA); the mixed
    # set's one-hot groups make it singular, digits has constant pixels in a fold
    if not (learner == "lda" and data in ("mixed", "digits"))
]


@pytest.mark.parametrize(("learner", "data"), CASES)
def test_fast_equals_reference(learner: str, data: str) -> None:
    ds = _data(data)
    rng = np.random.default_rng(zlib.crc32(f"{learner}-{data}".encode()))
    train = _masks(ds.n, rng)
    test = ~train
    seeds = np.random.SeedSequence(7).spawn(len(train))
    fast = get_learner(learner).prepare(ds)
    ref = get_learner(learner, reference=True).prepare(ds)
    pf = fast.fit_predict(ds.X, ds.y, train, test, seeds)
    pr = ref.fit_predict(ds.X, ds.y, train, test, seeds)
    assert pf.shape == pr.shape == train.shape
    assert np.array_equal(pf[test], pr[test])
    assert np.all(pf[~test] == -1)
    # and the learner is not trivial where it should not be
    err = np.mean(pf[test] != np.broadcast_to(ds.y, train.shape)[test])
    assert err < (0.95 if learner == "max" else 0.5)


def test_iris_error_rates_match_yildiz_table1() -> None:
    """Yıldız & Alpaydın 2006 Table 1: iris NMC 13.59 ± 3.53 %, NN 6.51 ± 2.38 % (5x2 cv,
    1000 runs).  With standardised inputs we are within 2 standard errors of 100 folds."""
    ds = _data("iris")
    train = _masks(ds.n, np.random.default_rng(11), halves=50)[:100]
    test = ~train
    Y = np.broadcast_to(ds.y, train.shape)
    for name, mean, sd in (("nmc", 13.59, 3.53), ("1nn", 6.51, 2.38)):
        p = get_learner(name).fit_predict(ds.X, ds.y, train, test, _seeds(100))
        err = 100 * np.array([np.mean(p[b][test[b]] != Y[b][test[b]]) for b in range(100)])
        assert abs(err.mean() - mean) < 2 * sd / np.sqrt(100) + 0.5


def test_1nn_ties_lowest_index_like_sklearn() -> None:
    # duplicated training points with different labels: sklearn keeps the lowest index
    X = np.array([[0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [0.0, 0.0], [0.9, 1.1], [0.1, 0.0]])
    y = np.array([0, 1, 0, 1, 0, 1])
    train = np.array([[True, True, True, True, False, False], [False, True, True, True, True, False]])
    test = ~train
    for kernel in ("loop", "blas"):
        p = Fast1NN(kernel=kernel).fit_predict(X, y, train, test, _seeds(2))
        r = get_learner("1nn", reference=True).fit_predict(X, y, train, test, _seeds(2))
        assert np.array_equal(p[test], r[test])
        # fold 0: test row 4 is nearest to rows 1 == 2 (label 1 first), row 5 to 0 == 3
        assert p[0, 4] == 1 and p[0, 5] == 0


def test_max_ties_lowest_code() -> None:
    y = np.array([2, 2, 1, 1, 0])
    X = np.zeros((5, 1))
    train = np.array([[True, True, True, True, False]])
    p = FastMax().fit_predict(X, y, train, ~train, _seeds(1))
    assert p[0, 4] == 1  # classes 1 and 2 tie with 2 each: lowest code


def test_single_class_fold_predicts_it() -> None:
    ds = _data("iris")
    train = np.zeros((1, ds.n), bool)
    train[0, :40] = True  # iris rows 0..49 are all class 0
    for name in ("nmc", "1nn", "lda", "ls", "nb", "max"):
        p = get_learner(name).fit_predict(ds.X, ds.y, train, ~train, _seeds(1))
        r = get_learner(name, reference=True).fit_predict(ds.X, ds.y, train, ~train, _seeds(1))
        assert np.all(p[0, 40:] == 0) and np.array_equal(p, r)


def test_scale_none_is_raw_euclidean() -> None:
    from sklearn.neighbors import KNeighborsClassifier, NearestCentroid

    ds = _data("wine")
    train = _masks(ds.n, np.random.default_rng(5), halves=2)
    for learner, est in ((Fast1NN(scale="none"), KNeighborsClassifier(1)), (FastNMC(scale="none"), NearestCentroid())):
        p = learner.fit_predict(ds.X, ds.y, train, ~train, _seeds(len(train)))
        for b in range(len(train)):
            q = est.fit(ds.X[train[b]], ds.y[train[b]]).predict(ds.X[~train[b]])
            assert np.array_equal(p[b][~train[b]], q)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(0, 11), min_size=1, max_size=6), st.sampled_from(["nmc", "1nn", "lda", "ls", "nb", "max"]))
def test_model_does_not_depend_on_batch(rows: list[int], name: str) -> None:
    ds = _data("iris")
    train = _masks(ds.n, np.random.default_rng(0), halves=6)[:12]
    learner = get_learner(name)
    full = learner.fit_predict(ds.X, ds.y, train, ~train, _seeds(12))
    part = learner.fit_predict(ds.X, ds.y, train[rows], ~train[rows], _seeds(len(rows)))
    assert np.array_equal(part, full[rows])


def test_nb_without_groups_is_gaussian_nb() -> None:
    from sklearn.naive_bayes import GaussianNB

    ds = _data("wine")
    train = _masks(ds.n, np.random.default_rng(2), halves=3)
    p = FastNB().fit_predict(ds.X, ds.y, train, ~train, _seeds(len(train)))
    for b in range(len(train)):
        q = GaussianNB().fit(ds.X[train[b]], ds.y[train[b]]).predict(ds.X[~train[b]])
        assert np.array_equal(p[b][~train[b]], q)


def test_chunking_does_not_change_predictions() -> None:
    ds = mixed_dataset()
    train = _masks(ds.n, np.random.default_rng(9), halves=5)
    for name in ("nmc", "1nn", "ls", "nb"):
        a = get_learner(name).prepare(ds)
        full = a.fit_predict(ds.X, ds.y, train, ~train, _seeds(len(train)))
        a.memory_budget = 1.0  # one model per chunk
        assert np.array_equal(a.fit_predict(ds.X, ds.y, train, ~train, _seeds(len(train))), full)
