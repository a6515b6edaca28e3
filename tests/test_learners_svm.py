"""``svm`` (libsvm called directly) gives scikit-learn's SVC predictions exactly."""

import numpy as np
import pytest
from sklearn.datasets import load_iris, load_wine

from simstudy.errors import SimstudyError
from simstudy.learners import get_learner


def _masks(n, B, rng):
    train = np.zeros((B, n), dtype=bool)
    for b in range(B):
        train[b, rng.permutation(n)[: n // 2]] = True
    return train


def _seeds(B):
    return [np.random.SeedSequence(7, spawn_key=(b,)) for b in range(B)]


@pytest.mark.parametrize("loader", [load_iris, load_wine])
def test_equals_sklearn_svc_pipeline(loader):
    X, y = loader(return_X_y=True)
    rng = np.random.default_rng(0)
    train = _masks(len(y), 30, rng)
    fast = get_learner("svm")
    ref = get_learner("svm", reference=True)
    a = fast.fit_predict(X, y, train, ~train, _seeds(30))
    b = ref.fit_predict(X, y, train, ~train, _seeds(30))
    assert np.array_equal(a, b)
    assert np.all(a[train] == -1) and np.all(a[~train] >= 0)


def test_gaussian_two_class_with_missing_values_and_parameters():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 2))
    y = (rng.random(200) < 0.5).astype(np.int64)
    X[y == 1] += 1.0
    X[rng.random(X.shape) < 0.05] = np.nan  # imputed with the training-fold mean
    train = _masks(200, 40, rng)
    for spec in ("svm", "svm[C=10,gamma=0.5]"):
        fast, ref = get_learner(spec), get_learner(spec, reference=True)
        assert np.array_equal(fast.fit_predict(X, y, train, ~train, _seeds(40)),
                              ref.fit_predict(X, y, train, ~train, _seeds(40)))


def test_single_class_fold_and_bad_parameters():
    X = np.arange(12, dtype=float).reshape(6, 2)
    y = np.array([0, 0, 0, 1, 1, 1])
    train = np.array([[True, True, True, False, False, False]])
    p = get_learner("svm").fit_predict(X, y, train, ~train, _seeds(1))
    assert list(p[0, 3:]) == [0, 0, 0]
    with pytest.raises(SimstudyError, match="C=-1"):
        get_learner("svm[C=-1]")
    with pytest.raises(SimstudyError, match="'wide'"):
        get_learner("svm[gamma=wide]")


def test_libsvm_stays_quiet(capfd):
    X, y = load_iris(return_X_y=True)
    train = _masks(len(y), 2, np.random.default_rng(3))
    get_learner("svm").fit_predict(X, y, train, ~train, _seeds(2))
    out, err = capfd.readouterr()
    assert "optimization finished" not in out + err
