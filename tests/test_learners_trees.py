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
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from simstudy.errors import SimstudyError
from simstudy.learners.trees import (
    AdaBoost,
    RandomForest,
    RegressionTree,
    ThresholdedRegressionTree,
    seed_ints,
)
from simstudy.learners.trees import kernels as K

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


def two_valued(n: int = 160, seed: int = 3, classes: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """One-hot-like 0/1 features beside continuous ones (with two classes the forest counts
    two-valued features instead of keeping sorted lists of them), ties everywhere."""
    rng = np.random.default_rng(seed)
    B = rng.integers(0, 2, size=(n, 7)).astype(float)
    B[:, 6] = 2.5 * B[:, 6] - 1.0  # two values other than 0 and 1
    Z = np.round(rng.normal(size=(n, 2)), 1)
    X = np.column_stack([B[:, :3], Z[:, 0], B[:, 3:], Z[:, 1]])
    score = B[:, 0] + B[:, 1] - B[:, 4] + Z[:, 0] + rng.normal(scale=0.7, size=n)
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y.astype(np.int64)


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
    "two_valued": two_valued,
    "two_valued_3": lambda: two_valued(classes=3),
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
    w = np.empty(m + 1, np.float64)  # w[m]: the rejections' scratch
    K._bootstrap_counts(mt, m, w)
    rs = np.random.RandomState(seed)
    draws = rs.randint(0, m, m)
    np.testing.assert_array_equal(w[:m], np.bincount(draws, minlength=m).astype(float))
    # the generator stops right after the last accepted draw
    assert K.mt_randint(mt, 1000) == rs.randint(0, 1000)


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


@pytest.mark.parametrize("data", ["gaussian", "integer_ties", "wine_nan", "two_valued",
                                  "two_valued_3"])
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
# (a model depends only on its own masks and seed: tests/test_conformance.py)


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



# ------------------------------------------- zero-weight children (IEEE division, issue)


def test_stump_skips_a_split_whose_child_weight_rounds_to_zero() -> None:
    # x <= 2.5 leaves sample 3 (weight 1e-17) alone on the right: its weight is absorbed
    # by the others' sum, so wr = wn - wl is exactly 0.0 and the Gini proxy is 0/0.
    # scikit-learn (cdivision) gets nan and `nan > best` rejects the split; the kernel
    # raised ZeroDivisionError here before it used IEEE division.
    X = np.array([[0.0, 3.0], [1.0, 2.0], [2.0, 1.0], [3.0, 0.0]])
    y = np.array([0, 0, 1, 1])
    w = np.array([0.25, 0.25, 0.5, 1e-17])
    vs = np.ascontiguousarray(np.sort(X.T, axis=1), dtype=np.float32)
    order = np.argsort(X.T, axis=1, kind="stable").astype(np.int64)
    for seed in (0, 1, 2, 3):
        res = np.empty(4)
        K.best_stump(vs, order, y, y.astype(float), w, 2, np.array([K.splitter_state(seed)]),
                     np.empty(2, np.int64), np.empty(2), np.empty(2), np.empty(4, np.int64),
                     np.empty(4, np.bool_), res)
        tree = DecisionTreeClassifier(max_depth=1, random_state=seed).fit(X, y, sample_weight=w)
        t = tree.tree_
        left, right = t.children_left[0], t.children_right[0]
        assert (int(res[0]), res[1]) == (t.feature[0], t.threshold[0])
        assert (res[2], res[3]) == (t.value[left].argmax(), t.value[right].argmax())
        assert res[1] == 1.5  # the perfect split, not the one with a weightless child


def stacked_blocks(n_blocks: int = 25, n: int = 200, d: int = 5, shift: float = 3.0,
                   seed: int = 20) -> tuple[np.ndarray, ...]:
    """The runner's stacking: independent two-class Gaussian samples one below the other,
    two models per block (its two halves, 2-fold cv), masks inside the model's own block.

    Well separated classes (every feature shifted by ``shift`` for class 1): boosting drives
    most weights down to ~1e-15, where splits with a child of zero weight (in floating
    point) occur; with the defaults the kernel before the fix failed in 29 of 50 models.
    """
    rng = np.random.default_rng(seed)
    Xs, ys = [], []
    train = np.zeros((2 * n_blocks, n_blocks * n), dtype=bool)
    for k in range(n_blocks):
        yk = rng.permutation(np.repeat([0, 1], n // 2))
        Xs.append(rng.normal(size=(n, d)) + shift * yk[:, None])
        ys.append(yk)
        half = np.zeros(n, dtype=bool)
        half[rng.permutation(n)[: n // 2]] = True
        train[2 * k, k * n:(k + 1) * n] = half
        train[2 * k + 1, k * n:(k + 1) * n] = ~half
    test = np.zeros_like(train)
    test[0::2], test[1::2] = train[1::2], train[0::2]
    return np.concatenate(Xs), np.concatenate(ys), train, test


def test_ab_stacked_blocks_same_as_each_block_alone_and_as_sklearn() -> None:
    # regression: one model's ZeroDivisionError inside the prange loop silently left the
    # rest of its thread's models unwritten (-1: test error 1.0) in the stacked batch
    X, y, train, test = stacked_blocks()
    n = 200
    seeds = seeds_for(train.shape[0], root=21)
    ab = AdaBoost()
    stacked = ab.fit_predict(X, y, train, test, seeds)
    assert np.all(stacked[test] >= 0) and np.all(stacked[~test] == -1)
    assert np.mean(ab.last_n_used == 50) > 0.9  # boosting runs on while weights shrink
    ref = reference_predictions(AdaBoostClassifier(), X, y, train, test, seeds)
    np.testing.assert_array_equal(stacked, ref)
    for b in range(train.shape[0]):
        rows = slice((b // 2) * n, (b // 2 + 1) * n)
        alone = ab.fit_predict(X[rows], y[rows], train[b:b + 1, rows], test[b:b + 1, rows],
                               seeds[b:b + 1])
        np.testing.assert_array_equal(alone[0], stacked[b, rows])
    assert 0.0 < (stacked != y)[test].mean() < 0.05


def test_unwritten_predictions_raise_instead_of_scoring_as_errors(monkeypatch) -> None:
    # the guard after each batch kernel: a model with training rows whose test rows were
    # left at -1 (a failed kernel) is an error, never a silent test error of 1.0
    X, y = gaussian(n=40)
    train, test = half_masks(40, 3, seed=0)

    real = K.ab_batch

    def abandon_model_1(*args):
        out = real(*args)
        out[1] = -1  # as if model 1's part of the prange loop had been abandoned
        return out

    monkeypatch.setattr(K, "ab_batch", abandon_model_1)
    with pytest.raises(RuntimeError, match="model 1"):
        AdaBoost(n_estimators=3).fit_predict(X, y, train, test, [1, 2, 3])


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
