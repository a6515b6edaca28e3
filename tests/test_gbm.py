"""``gbm``: R gbm's bernoulli boosting with old defaults (simstudy.learners.gbm).

Checked against hand computations (one tree, with and without missing values) and against
scikit-learn's GradientBoostingClassifier, which runs the same algorithm: with all rows in
the bag, and with gbm's bags fed to scikit-learn in place of its own draws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from simstudy.errors import SimstudyError
from simstudy.learners.gbm import GBM

OLD = "gbm[bag_fraction=0.5,interaction_depth=1,n_minobsinnode=10,n_trees=100,shrinkage=0.001]"


def _one(X, y, Xtest, **opts):
    """Raw scores of one model trained on (X, y), on Xtest."""
    Xa = np.vstack([X, Xtest])
    ya = np.concatenate([y, np.zeros(len(Xtest), np.int64)])
    n, m = len(X), len(Xtest)
    train = np.zeros((1, n + m), bool)
    train[0, :n] = True
    test = ~train
    F = GBM(**opts).decision_function(Xa, ya, train, test, [np.random.SeedSequence(1)])
    return F[0, n:]


def test_one_tree_by_hand():
    # F0 = log(3/3) = 0, z = y - 1/2; the split after 2 rows and after 4 rows tie at
    # 2*4*(0.75)^2/6 = 0.75, the first wins: split at 2.5.  Left {0, 0}: -1 / (2/4) = -2;
    # right {1, 0, 1, 1}: 1 / (4/4) = 1; missing node (no bagged rows): the average
    # (2*(-2) + 4*1)/6 = 0
    X = np.arange(1.0, 7.0)[:, None]
    y = np.array([0, 0, 1, 0, 1, 1])
    Xt = np.array([[0.0], [2.5], [10.0], [np.nan]])
    F = _one(X, y, Xt, n_trees=1, shrinkage=1.0, bag_fraction=1.0, n_minobsinnode=1)
    np.testing.assert_allclose(F, [-2.0, 1.0, 1.0, 0.0], atol=1e-15)


def test_one_tree_with_missing_values_by_hand():
    # x = (nan, nan, 1, 2, 3, 4), y = (1, 1, 0, 0, 1, 1): F0 = log 2, z = y - 2/3.
    # Three-way improvements (gbm's CNode::Improvement): split 1.5 -> 2/3, 2.5 -> 4/3,
    # 3.5 -> 2/3; left {0, 0}: (-4/3)/(4/9) = -3, right {1, 1} and missing {1, 1}:
    # (2/3)/(4/9) = 1.5 (the missing node keeps its own value: 2 bagged rows >= 1)
    X = np.array([[np.nan], [np.nan], [1.0], [2.0], [3.0], [4.0]])
    y = np.array([1, 1, 0, 0, 1, 1])
    Xt = np.array([[0.0], [2.4], [2.5], [np.nan]])
    F = _one(X, y, Xt, n_trees=1, shrinkage=1.0, bag_fraction=1.0, n_minobsinnode=1)
    ln2 = math.log(2.0)
    np.testing.assert_allclose(F, [ln2 - 3, ln2 - 3, ln2 + 1.5, ln2 + 1.5], rtol=1e-13)


def _gauss(rng, n, d, shift):
    """Two-class Gaussian data, features exactly representable in float32 (scikit-learn's
    trees split float32 copies)."""
    y = (rng.random(n) < 0.5).astype(np.int64)
    X = rng.normal(size=(n, d)) + shift * y[:, None]
    return X.astype(np.float32).astype(np.float64), y


@pytest.mark.parametrize("shrinkage,n_trees,d", [(0.001, 100, 2), (0.1, 60, 3), (1.0, 20, 2)])
def test_equals_sklearn_without_subsampling(shrinkage, n_trees, d):
    from sklearn.ensemble import GradientBoostingClassifier

    rng = np.random.default_rng(7)
    X, y = _gauss(rng, 160, d, 1.0)
    Xt = _gauss(rng, 80, d, 1.0)[0]
    ours = _one(X, y, Xt, n_trees=n_trees, shrinkage=shrinkage, bag_fraction=1.0)
    sk = GradientBoostingClassifier(learning_rate=shrinkage, n_estimators=n_trees, max_depth=1,
                                    min_samples_leaf=10, subsample=1.0, random_state=0)
    ref = sk.fit(X, y).decision_function(Xt)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-12)
    assert ((ours > 0) == (ref > 0)).all()


def _gbm_bags(U: np.ndarray, n_bag: int) -> list[np.ndarray]:
    """gbm's sequential selection (CGBM::iterate), written out plainly."""
    n = U.shape[1]
    out = []
    for u in U:
        got, m = 0, np.zeros(n, bool)
        for i in range(n):
            if u[i] * (n - i) < n_bag - got:
                m[i] = True
                got += 1
        out.append(m)
    return out


def test_equals_sklearn_given_the_same_bags(monkeypatch):
    import sklearn.ensemble._gb as gb
    from sklearn.ensemble import GradientBoostingClassifier

    rng = np.random.default_rng(11)
    X, y = _gauss(rng, 101, 2, 0.8)  # odd n: the bag is floor(0.5 * 101) = 50 rows
    Xt = _gauss(rng, 60, 2, 0.8)[0]
    lrn = GBM(shrinkage=0.05, n_trees=80)
    seed = np.random.SeedSequence(1)  # the seed _one gives its model
    bags = iter(_gbm_bags(lrn.bag_uniforms(seed, 101), 50))
    assert all(m.sum() == 50 for m in _gbm_bags(lrn.bag_uniforms(seed, 101), 50))

    def fed(n_samples, n_inbag, random_state):
        assert (n_samples, n_inbag) == (101, 50)
        return next(bags)

    monkeypatch.setattr(gb, "_random_sample_mask", fed)
    sk = GradientBoostingClassifier(learning_rate=0.05, n_estimators=80, max_depth=1,
                                    min_samples_leaf=10, subsample=0.5, random_state=0)
    ref = sk.fit(X, y).decision_function(Xt)
    ours = _one(X, y, Xt, shrinkage=0.05, n_trees=80)
    np.testing.assert_allclose(ours, ref, rtol=1e-9, atol=1e-12)
    # the bags matter: without them (all rows) the scores differ
    assert not np.allclose(_one(X, y, Xt, shrinkage=0.05, n_trees=80, bag_fraction=1.0), ref)


def test_batch_independent_and_seeded():
    rng = np.random.default_rng(3)
    X, y = _gauss(rng, 200, 2, 1.0)
    masks = rng.random((6, 200)) < 0.5
    seeds = np.random.SeedSequence(5).spawn(6)
    lrn = GBM(shrinkage=0.1)
    F = lrn.decision_function(X, y, masks, ~masks, seeds)
    for b in (0, 3, 5):
        Fb = lrn.decision_function(X, y, masks[b:b + 1], ~masks[b:b + 1], [seeds[b]])
        np.testing.assert_array_equal(F[b], Fb[0])
    P = lrn.fit_predict(X, y, masks, ~masks, seeds)
    np.testing.assert_array_equal(P[~masks], (F[~masks] > 0).astype(np.int64))
    assert (P[masks] == -1).all()
    # another seed, other bags: other scores
    F2 = lrn.decision_function(X, y, masks[:1], ~masks[:1], [np.random.SeedSequence(99)])
    assert not np.array_equal(F[0][~masks[0]], F2[0][~masks[0]])


def test_old_defaults_stay_near_the_prior():
    # shrinkage 0.001 x 100 trees: F moves little from the log-odds of the training mean
    # (here 1.73), so with a clear majority every test row gets the majority class -- the
    # near-majority-class behaviour a paper-variant hypothesis suspects in Wang et al.'s AB -- though the
    # trees did move F
    rng = np.random.default_rng(4)
    X, y = _gauss(rng, 100, 2, 0.5)
    y[:70] = 1
    F = _one(X, y, X, **{})
    F0 = math.log(y.sum() / (100 - y.sum()))
    assert (F > 0).all()
    assert np.ptp(F) > 0 and np.abs(F - F0).max() < F0 / 2


def test_one_class_training_fold_predicts_it():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(80, 2))
    for cls in (0, 1):
        y = np.full(80, cls)
        F = _one(X[:60], y[:60], X[60:])
        assert np.isinf(F).all() and ((F > 0) == bool(cls)).all()


def test_canonical_name_and_registry():
    from simstudy.learners import get_learner

    assert GBM().name == OLD
    assert get_learner("gbm").name == OLD
    assert get_learner(OLD).name == OLD
    assert get_learner("gbm[shrinkage=0.1]").name == OLD.replace("0.001", "0.1")


@pytest.mark.parametrize("opts,msg", [
    ({"depth": 1}, "unknown option 'depth'"),
    ({"interaction_depth": 2}, "interaction_depth=1"),
    ({"shrinkage": 0}, "shrinkage"),
    ({"bag_fraction": 1.5}, "bag_fraction"),
    ({"n_trees": 0}, "n_trees"),
])
def test_bad_options(opts, msg):
    with pytest.raises(SimstudyError, match=msg):
        GBM(**opts)


def test_bad_data():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(60, 2))
    train = np.zeros((1, 60), bool)
    train[0, :40] = True
    with pytest.raises(SimstudyError, match="0/1"):
        GBM().fit_predict(X, np.arange(60) % 3, train, ~train, [1])
    small = np.zeros((1, 60), bool)
    small[0, :42] = True  # 42 * 0.5 = 21 <= 2*10 + 1: R's gbm.fit stops
    with pytest.raises(SimstudyError, match="42"):
        GBM().fit_predict(X, np.arange(60) % 2, small, ~small, [1])
