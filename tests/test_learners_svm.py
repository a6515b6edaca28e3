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


def test_e1071_radial_equals_sklearn_on_r_scaled_inputs():
    # svm[gamma=auto,scale=e1071]: e1071::svm's defaults (radial, gamma 1/p, R's scale())
    from sklearn.svm import SVC

    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 3)) * [1.0, 5.0, 0.2]
    X[:, 2] = 3.0  # constant column: e1071 leaves it unscaled
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(np.int64)
    train = _masks(60, 4, rng)
    spec = "svm[gamma=auto,scale=e1071]"
    pred = get_learner(spec).fit_predict(X, y, train, ~train, _seeds(4))
    for b in range(4):
        tr = train[b]
        mu, sd = X[tr].mean(0), X[tr].std(0, ddof=1)
        const = sd == 0
        mu[const], sd[const] = 0.0, 1.0
        ref = SVC(kernel="rbf", gamma=1 / 3, C=1.0).fit((X[tr] - mu) / sd, y[tr])
        np.testing.assert_array_equal(pred[b, ~tr], ref.predict((X[~tr] - mu) / sd))
    assert get_learner(spec).name == spec
    with pytest.raises(SimstudyError, match="'minmax'"):
        get_learner("svm[scale=minmax]")
