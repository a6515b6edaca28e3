"""Batched tree learners (rf, ab, rt) against scikit-learn, model by model.

The fast paths replay scikit-learn's algorithms and random streams, so for the same
``random_state`` the predictions must be *identical* -- not merely similarly accurate.
Reference fits here call scikit-learn directly (not simstudy's reference path) so the
test does not depend on other modules.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_iris, load_wine
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
from sklearn.impute import SimpleImputer
from sklearn.tree import DecisionTreeRegressor

from simstudy.errors import SimstudyError
from simstudy.learners import _tree_kernels as K
from simstudy.learners.trees import (
    AdaBoost,
    RandomForest,
    RegressionTree,
    ThresholdedRegressionTree,
    seed_ints,
)

# ----------------------------------------------------------------------------- data


def gaussian(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Wang et al.'s two-class Gaussian case: mu0=(0,0), mu1=(1,1), identity covariances."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    return rng.normal(size=(n, 2)) + y[:, None], y


def integer_features(n: int = 150, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Few distinct values per feature: many exactly tied splits within and across features."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 6)).astype(float)
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 2, n)) > 2).astype(np.int64)
    return X, y


def wine_with_nan(seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_wine(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    return X, y


def half_masks(n: int, B: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """B random half/half partitions (2-fold cv style)."""
    rng = np.random.default_rng(seed)
    train = np.zeros((B, n), dtype=bool)
    for b in range(B):
        train[b, rng.permutation(n)[: n // 2]] = True
    return train, ~train


def seeds_for(B: int, root: int = 7) -> list[np.random.SeedSequence]:
    return [np.random.SeedSequence(root, spawn_key=(b,)) for b in range(B)]


def reference_predictions(est, X, y, train, test, seeds) -> np.ndarray:
    """One scikit-learn fit per model with random_state = the model's seed integer."""
    out = np.full(train.shape, -1, dtype=np.int64)
    for b, s in enumerate(seed_ints(seeds)):
        tr, te = np.flatnonzero(train[b]), np.flatnonzero(test[b])
        Xtr, Xte = X[tr], X[te]
        if np.isnan(X).any():
            imp = SimpleImputer(strategy="mean").fit(Xtr)
            Xtr, Xte = imp.transform(Xtr), imp.transform(Xte)
        model = est.set_params(random_state=int(s)).fit(Xtr, y[tr])
        out[b, te] = model.predict(Xte)
    return out


DATA = {
    "gaussian": gaussian,
    "iris": lambda: load_iris(return_X_y=True),
    "integer_ties": integer_features,
    "wine_nan": wine_with_nan,
}

# ------------------------------------------------------- the random streams we replay


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), high=st.integers(1, 2**31 - 1))
def test_randint_stream_matches_randomstate(seed: int, high: int) -> None:
    mt = np.empty(625, np.int64)
    K.mt_seed(mt, seed)
    ours = [K.mt_randint(mt, high) for _ in range(700)]  # > 624: crosses a twist
    assert ours == np.random.RandomState(seed).randint(0, high, size=700).tolist()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_splitter_state_matches_sklearn_draw(seed: int) -> None:
    # sklearn's Splitter.init: random_state.randint(0, RAND_R_MAX)
    assert K.splitter_state(seed) == np.random.RandomState(seed).randint(0, 2**31 - 1)


@settings(max_examples=25, deadline=None)
@given(seeds=st.lists(st.integers(0, 2**31 - 2), min_size=1, max_size=11))
def test_interleaved_seeding_matches_one_at_a_time(seeds: list[int]) -> None:
    # the forest seeds 8 trees' generators side by side, AdaBoost all rounds' splitters
    arr = np.array(seeds, dtype=np.int64)
    mts = np.empty((len(seeds), 625), np.int64)
    K.mt_seed_many(mts, arr, 0, len(seeds))
    states = np.empty(len(seeds), np.int64)
    K.splitter_states(arr, states)
    for j, s in enumerate(seeds):
        one = np.empty(625, np.int64)
        K.mt_seed(one, s)
        np.testing.assert_array_equal(mts[j], one)
        assert states[j] == np.random.RandomState(s).randint(0, 2**31 - 1)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31 - 2), m=st.integers(1, 700))
def test_bootstrap_counts_and_splitter_seed_from_one_state(seed: int, m: int) -> None:
    # sklearn: RandomState(seed).randint(0, m, m) for the bootstrap, and the tree's own
    # RandomState(seed).randint(0, 2**31 - 1) for its splitter
    mt = np.empty(625, np.int64)
    K.mt_seed(mt, seed)
    assert K._first_rand_r_seed(mt, seed) == np.random.RandomState(seed).randint(0, 2**31 - 1)
    w = np.empty(m, np.float64)
    K._bootstrap_counts(mt, m, w)
    draws = np.random.RandomState(seed).randint(0, m, m)
    np.testing.assert_array_equal(w, np.bincount(draws, minlength=m).astype(float))


@pytest.mark.parametrize("n", [0, 1, 7, 8, 9, 127, 128, 129, 300, 1001, 10_007])
def test_pairwise_sum_is_numpys_sum(n: int) -> None:
    a = np.random.default_rng(n).random(n) * 10.0 ** np.random.default_rng(1).integers(-8, 8, n)
    assert K.pairwise_sum(a, 0, n) == np.sum(a)  # bit for bit, not approximately


def test_seed_ints_follow_reference_path_convention() -> None:
    ss = seeds_for(3)
    assert seed_ints(ss).tolist() == [int(s.generate_state(1)[0]) for s in ss]
    assert seed_ints([0, 5]).tolist() == [0, 5]
    with pytest.raises(SimstudyError, match="-1"):
        seed_ints([-1])


# ---------------------------------------------------------- identical to scikit-learn


@pytest.mark.parametrize("data", list(DATA))
def test_rt_identical_to_sklearn(data: str) -> None:
    X, y = DATA[data]()
    train, test = half_masks(len(y), 12, seed=3)
    seeds = seeds_for(12)
    ours = RegressionTree().fit_predict(X, y, train, test, seeds)
    ref = reference_predictions(ThresholdedRegressionTree(), X, y, train, test, seeds)
    np.testing.assert_array_equal(ours, ref)
    assert set(np.unique(ours[test])) <= set(np.unique(y))


def test_rt_reference_is_a_plain_regression_tree_on_the_label() -> None:
    # independent of our wrapper: DecisionTreeRegressor on 0/1, thresholded at 0.5
    X, y = gaussian(seed=5)
    train, test = half_masks(len(y), 4, seed=4)
    seeds = seeds_for(4)
    ours = RegressionTree().fit_predict(X, y, train, test, seeds)
    for b, s in enumerate(seed_ints(seeds)):
        reg = DecisionTreeRegressor(random_state=int(s)).fit(X[train[b]], y[train[b]] * 1.0)
        np.testing.assert_array_equal(ours[b, test[b]], (reg.predict(X[test[b]]) > 0.5) * 1)


@pytest.mark.parametrize("data", list(DATA))
def test_ab_identical_to_sklearn(data: str) -> None:
    # AdaBoost weights are real numbers; identity holds unless two stumps tie to the last
    # bit (module docstring) -- it does hold on these data sets, so any change is a bug
    X, y = DATA[data]()
    train, test = half_masks(len(y), 8, seed=6)
    seeds = seeds_for(8)
    ours = AdaBoost().fit_predict(X, y, train, test, seeds)
    ref = reference_predictions(AdaBoostClassifier(), X, y, train, test, seeds)
    np.testing.assert_array_equal(ours, ref)


@pytest.mark.parametrize("data", ["gaussian", "integer_ties", "wine_nan"])
def test_rf_identical_to_sklearn(data: str) -> None:
    X, y = DATA[data]()
    train, test = half_masks(len(y), 6, seed=8)
    seeds = seeds_for(6)
    ours = RandomForest().fit_predict(X, y, train, test, seeds)
    ref = reference_predictions(RandomForestClassifier(), X, y, train, test, seeds)
    np.testing.assert_array_equal(ours, ref)


def test_rf_options_identical_to_sklearn() -> None:
    X, y = load_iris(return_X_y=True)
    train, test = half_masks(len(y), 4, seed=9)
    seeds = seeds_for(4)
    rf = RandomForest(n_estimators=7, max_features=None, bootstrap=False, max_depth=3)
    assert rf.name == "rf[bootstrap=False,max_depth=3,max_features=None,n_estimators=7]"
    ours = rf.fit_predict(X, y, train, test, seeds)
    ref = reference_predictions(rf.reference_estimator(), X, y, train, test, seeds)
    np.testing.assert_array_equal(ours, ref)


def test_ab_options_and_early_stop_identical_to_sklearn() -> None:
    # separable data: the first stump is perfect, boosting stops after one round
    X, y = gaussian(seed=10)
    X[:, 0] += 6.0 * y
    train, test = half_masks(len(y), 4, seed=11)
    seeds = seeds_for(4)
    ab = AdaBoost(n_estimators=5, learning_rate=0.5)
    ours = ab.fit_predict(X, y, train, test, seeds)
    assert ab.last_n_used.tolist() == [1, 1, 1, 1]
    ref = reference_predictions(ab.reference_estimator(), X, y, train, test, seeds)
    np.testing.assert_array_equal(ours, ref)


# --------------------------------------------------------------------- batch contract


@pytest.mark.parametrize("learner", [RandomForest(n_estimators=10), AdaBoost(), RegressionTree()])
def test_model_depends_only_on_its_own_seed(learner) -> None:
    X, y = gaussian(seed=12)
    train, test = half_masks(len(y), 6, seed=13)
    seeds = seeds_for(6)
    full = learner.fit_predict(X, y, train, test, seeds)
    order = [4, 1, 5]
    part = learner.fit_predict(X, y, train[order], test[order], [seeds[i] for i in order])
    np.testing.assert_array_equal(part, full[order])
    assert np.all(full[~test] == -1) and np.all(full[test] >= 0)


def test_predictions_do_not_depend_on_the_number_of_threads() -> None:
    import numba

    X, y = load_iris(return_X_y=True)
    train, test = half_masks(len(y), 5, seed=16)
    seeds = seeds_for(5)
    before = numba.get_num_threads()
    try:
        for learner in (RandomForest(n_estimators=20), AdaBoost()):
            numba.set_num_threads(1)
            one = learner.fit_predict(X, y, train, test, seeds)
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
            many = learner.fit_predict(X, y, train, test, seeds)
            np.testing.assert_array_equal(one, many)
    finally:
        numba.set_num_threads(before)


def test_global_class_codes_when_a_fold_misses_classes() -> None:
    X, y = load_iris(return_X_y=True)
    train = np.zeros((2, len(y)), dtype=bool)
    train[:, y > 0] = True  # classes 1 and 2 only
    train[1, y == 1] = False  # class 2 only in model 1
    test = ~train
    for learner in (RandomForest(n_estimators=5), AdaBoost(), RegressionTree()):
        p = learner.fit_predict(X, y, train, test, [3, 4])
        assert set(np.unique(p[0, test[0]])) <= {1, 2}
        assert set(np.unique(p[1, test[1]])) == {2}


def test_large_stacked_batch_runs_and_is_accurate() -> None:
    # many trials stacked in one X: index lists per mask, no dense copies per model
    X, y = gaussian(n=2000, seed=14)
    train, test = half_masks(len(y), 40, seed=15)
    err = (AdaBoost().fit_predict(X, y, train, test, seeds_for(40)) != y)[test].mean()
    # Bayes error for mu1 - mu0 = (1, 1), identity covariance: Phi(-sqrt(2)/2) = 0.240
    assert 0.23 < err < 0.27


# ------------------------------------------------------------------------- user input


@pytest.mark.parametrize(
    ("factory", "bad"),
    [
        (lambda: RandomForest(n_estimators=0), "0"),
        (lambda: RandomForest(max_features="half"), "'half'"),
        (lambda: RandomForest(bootstrap="yes"), "'yes'"),
        (lambda: AdaBoost(learning_rate=-1), "-1"),
        (lambda: AdaBoost(n_estimators="many"), "'many'"),
        (lambda: RegressionTree(max_depth=0), "0"),
    ],
)
def test_bad_parameters_raise_simstudy_error(factory, bad: str) -> None:
    with pytest.raises(SimstudyError, match=bad):
        factory()


def test_bad_batches_raise_simstudy_error() -> None:
    X, y = gaussian(n=20)
    train, test = half_masks(20, 3, seed=0)
    with pytest.raises(SimstudyError, match="one seed per model"):
        RegressionTree().fit_predict(X, y, train, test, [1, 2])
    with pytest.raises(SimstudyError, match="bool mask"):
        RegressionTree().fit_predict(X, y, train.astype(int), test, [1, 2, 3])
    with pytest.raises(SimstudyError, match="max_features=5"):
        RandomForest(max_features=5).fit_predict(X, y, train, test, [1, 2, 3])


def test_string_parameters_from_spec_ids_are_accepted() -> None:
    assert RandomForest(n_estimators="10").n_estimators == 10
    assert AdaBoost(learning_rate="0.5").name == "ab[learning_rate=0.5]"
    assert RegressionTree(max_depth="None").name == "rt"
