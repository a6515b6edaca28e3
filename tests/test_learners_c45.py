"""c45 (Yıldız & Alpaydın 2006, §4.1): entropy tree, reduced-error pruned on a 20 % hold-out.

The batched kernel grows the tree on presorted lists and prunes it in one bottom-up pass;
the reference (:class:`RepTree`) grows scikit-learn's ``DecisionTreeClassifier`` and
prunes its ``tree_`` arrays in Python.  For the same seed they hold out the same rows,
so their predictions must be *identical*.  Pruning itself is checked against a hand
computation and against a brute-force search over all prunings.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.tree import DecisionTreeClassifier

from simstudy.errors import SimstudyError
from simstudy.learners import get_learner
from simstudy.learners.reference import PrunedTree, RepTree, SklearnLearner
from simstudy.learners.trees import C45, seed_ints
from simstudy.learners.trees import kernels as K
from simstudy.sources import get_source

# ----------------------------------------------------------------------------- data


def wine_with_nan(seed: int = 2) -> tuple[np.ndarray, np.ndarray]:
    X, y = load_wine(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    return X, y


def integer_features(n: int = 160, seed: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Few distinct values: many tied splits within and across features, noisy labels."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n, 6)).astype(float)
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 2, n)) > 2).astype(np.int64)
    return X, y


def bundled(name: str):
    def load() -> tuple[np.ndarray, np.ndarray]:
        ds = get_source(name).sample(np.random.default_rng(0))
        return ds.X, ds.y

    return load


DATA = {
    "iris": lambda: load_iris(return_X_y=True),
    "wine_nan": wine_with_nan,
    "breast_cancer": lambda: load_breast_cancer(return_X_y=True),
    "integer_ties": integer_features,
    "crx_nan_onehot": bundled("crx"),  # Yıldız's "credit": missing values, nominal one-hot
}


def half_masks(n: int, B: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    train = np.zeros((B, n), dtype=bool)
    for b in range(B):
        train[b, rng.permutation(n)[: n // 2]] = True
    return train, ~train


def seeds_for(B: int, root: int = 11) -> list[np.random.SeedSequence]:
    return [np.random.SeedSequence(root, spawn_key=(b,)) for b in range(B)]


def reference(X, y, train, test, seeds, **kw) -> np.ndarray:
    """The per-fit reference: impute on the training fold, then RepTree per model."""
    return SklearnLearner(RepTree(**kw), preprocess="impute").fit_predict(
        X, y, train, test, seeds
    )


# ---------------------------------------------------- one pass == per-fit reference


@pytest.mark.parametrize("data", list(DATA))
def test_c45_identical_to_per_fit_rep_reference(data: str) -> None:
    X, y = DATA[data]()
    train, test = half_masks(len(y), 10, seed=3)
    seeds = seeds_for(10)
    ours = C45().fit_predict(X, y, train, test, seeds)
    ref = reference(X, y, train, test, seeds)
    np.testing.assert_array_equal(ours[test], ref[test])
    assert (ours[~test] == -1).all()
    # and it learned something
    assert np.mean(ours[test] != np.broadcast_to(y, test.shape)[test]) < 0.5


@pytest.mark.parametrize("frac", [0.1, 0.35])
def test_other_prune_fractions_identical_to_reference(frac: float) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    train, test = half_masks(len(y), 6, seed=5)
    seeds = seeds_for(6, root=4)
    ours = C45(prune_fraction=frac).fit_predict(X, y, train, test, seeds)
    np.testing.assert_array_equal(
        ours[test], reference(X, y, train, test, seeds, prune_fraction=frac)[test]
    )


def test_registry_reference_path_is_rep_and_agrees() -> None:
    X, y = wine_with_nan(seed=9)
    train, test = half_masks(len(y), 4, seed=8)
    seeds = seeds_for(4, root=2)
    fast = get_learner("c45")
    assert isinstance(fast, C45)
    ref = get_learner("c45", reference=True)
    assert isinstance(ref.estimator, RepTree) and ref.preprocess == "impute"
    np.testing.assert_array_equal(
        fast.fit_predict(X, y, train, test, seeds)[test],
        ref.fit_predict(X, y, train, test, seeds)[test],
    )


def test_ccp_variant_is_the_per_level_prunedtree() -> None:
    X, y = load_iris(return_X_y=True)
    train, test = half_masks(len(y), 2, seed=1)
    seeds = seeds_for(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = get_learner("c45[pruning=ccp]")
    assert c.name == "c45[pruning=ccp]" and isinstance(c.reference_estimator(), PrunedTree)
    ours = c.fit_predict(X, y, train, test, seeds)
    ref = SklearnLearner(PrunedTree(), preprocess="impute").fit_predict(X, y, train, test, seeds)
    np.testing.assert_array_equal(ours[test], ref[test])


# -------------------------------------------------------------- the pruning itself


def test_rep_kernel_on_a_hand_built_tree() -> None:
    # node 0: x0 <= .5 ? node 1 : node 4 (leaf, class 1); majority of node 0: class 1
    # node 1: x1 <= .5 ? node 2 (leaf, class 0) : node 3 (leaf, class 1); majority 0
    nf = np.array([0, 1, -1, -1, -1])
    nt = np.array([0.5, 0.5, 0.0, 0.0, 0.0])
    nl = np.array([1, 2, -1, -1, -1])
    nr = np.array([4, 3, -1, -1, -1])
    major = np.array([1, 0, 0, 1, 1])
    Xh = np.array([[0, 0], [0, 1], [0, 1], [0, 1], [1, 0], [1, 0]], dtype=np.float32)
    yh = np.array([0, 0, 0, 1, 1, 0])
    # by hand: leaf errors per node = 4, 1, 0, 2, 1.  Node 1: subtree 0 + 2 = 2 > 1 -> prune
    # (errors 1).  Node 0: subtree 1 + 1 = 2 < 4 -> keep.
    err_leaf = np.empty(5, np.int64)
    err_sub = np.empty(5, np.int64)
    pruned = np.empty(5, np.bool_)
    K.prune_rep(nf, nt, nl, nr, 5, major, Xh, yh, err_leaf, err_sub, pruned)
    assert err_leaf.tolist() == [4, 1, 0, 2, 1]
    assert pruned.tolist() == [False, True, False, False, False]
    assert err_sub[0] == 2
    # x = (0, 1) now stops at node 1 (class 0); the grown tree said class 1
    assert K._leaf_pruned(nf, nt, nl, nr, pruned, np.array([0, 1], np.float32)) == 1
    assert K._leaf_pruned(nf, nt, nl, nr, pruned, np.array([1, 1], np.float32)) == 4

    # a tie prunes (the smaller tree): node 1's leaf errors 1 == its subtree's 0 + 1
    yh2 = np.array([0, 1, 0, 1])
    Xh2 = np.array([[0, 0], [0, 1], [0, 1], [1, 0]], dtype=np.float32)
    K.prune_rep(nf, nt, nl, nr, 5, major, Xh2, yh2, err_leaf, err_sub, pruned)
    assert err_leaf.tolist() == [2, 1, 0, 1, 0]
    assert pruned.tolist() == [False, True, False, False, False]

    # no hold-out row reaches node 1's subtree: 0 <= 0, pruned; and a helpful split stays
    Xh3 = np.array([[1, 0], [1, 1]], dtype=np.float32)
    K.prune_rep(nf, nt, nl, nr, 5, major, Xh3, np.array([1, 1]), err_leaf, err_sub, pruned)
    assert pruned.tolist() == [True, True, False, False, False]  # root: 0 <= 0 as well
    Xh4 = np.array([[0, 0], [0, 1], [1, 1]], dtype=np.float32)
    K.prune_rep(nf, nt, nl, nr, 5, major, Xh4, np.array([0, 1, 1]), err_leaf, err_sub, pruned)
    assert err_leaf.tolist() == [1, 1, 0, 0, 0]
    assert pruned.tolist() == [False, False, False, False, False]  # 1 > 0 at both splits


def _all_prunings(tree, pruned_err, node):
    """Every pruning of the subtree at ``node``: a list of (hold-out errors, leaves)."""
    left, right = tree.children_left[node], tree.children_right[node]
    here = [(pruned_err[node], 1)]
    if left < 0:
        return here
    L = _all_prunings(tree, pruned_err, left)
    R = _all_prunings(tree, pruned_err, right)
    return here + [(a + c, b + d) for a, b in L for c, d in R]


@pytest.mark.parametrize("seed", range(6))
def test_rep_gives_the_smallest_pruning_of_least_holdout_error(seed: int) -> None:
    # Esposito, Malerba & Semeraro (1997): bottom-up REP returns the smallest subtree of
    # minimal error on the pruning set.  Checked by enumerating every pruning.
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(45, 2))
    y = (X[:, 0] + 0.9 * rng.normal(size=45) > 0).astype(np.int64)  # noisy
    rep = RepTree(random_state=seed).fit(X, y)
    t = rep.tree_model_
    tree = t.tree_
    assert 3 <= tree.node_count <= 31  # small enough to enumerate
    hold = rep.hold_
    assert hold.sum() == 9
    major = t.classes_[np.argmax(tree.value[:, 0, :], axis=1)]
    reach = t.decision_path(X[hold]).toarray().astype(bool)  # (hold rows, nodes)
    leaf_err = np.array([np.sum(y[hold][reach[:, j]] != major[j])
                         for j in range(tree.node_count)])
    options = _all_prunings(tree, leaf_err, 0)
    best_err = min(e for e, _ in options)
    best_leaves = min(n for e, n in options if e == best_err)
    assert np.sum(rep.predict(X[hold]) != y[hold]) == best_err
    assert rep.n_leaves() == best_leaves
    assert rep.n_leaves() < t.get_n_leaves()  # noisy labels: REP must prune something


def test_pure_noise_prunes_to_few_leaves_and_fast_path_agrees() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(400, 4))
    y = rng.integers(0, 2, 400)  # labels independent of X
    train, test = half_masks(400, 6, seed=2)
    seeds = seeds_for(6)
    full, pruned = [], []
    for b, s in enumerate(seed_ints(seeds)):
        rep = RepTree(random_state=int(s)).fit(X[train[b]], y[train[b]])
        full.append(rep.tree_model_.get_n_leaves())
        pruned.append(rep.n_leaves())
    assert max(pruned) < min(full) / 2 and sum(pruned) < sum(full) / 4
    ours = C45().fit_predict(X, y, train, test, seeds)
    np.testing.assert_array_equal(ours[test], reference(X, y, train, test, seeds)[test])


# ------------------------------------------------------------------ batching, edges


def test_batch_invariance_and_stacked_trials() -> None:
    X, y = wine_with_nan(seed=4)
    n = len(y)
    train, test = half_masks(n, 6, seed=6)
    seeds = seeds_for(6, root=3)
    batch = C45().fit_predict(X, y, train, test, seeds)
    for b in range(6):
        alone = C45().fit_predict(X, y, train[b:b + 1], test[b:b + 1], seeds[b:b + 1])
        np.testing.assert_array_equal(alone[0], batch[b])
    # two trials stacked into one X with block masks: the same as each alone (a model's
    # rows keep their order: the hold-out is drawn over the training rows in order)
    X2 = np.vstack([X, X])
    y2 = np.concatenate([y, y])
    tr2 = np.zeros((6, 2 * n), bool)
    te2 = np.zeros((6, 2 * n), bool)
    tr2[:3, :n], te2[:3, :n] = train[:3], test[:3]
    tr2[3:, n:], te2[3:, n:] = train[3:], test[3:]
    stacked = C45().fit_predict(X2, y2, tr2, te2, seeds)
    np.testing.assert_array_equal(stacked[:3, :n], batch[:3])
    np.testing.assert_array_equal(stacked[3:, n:], batch[3:])


def test_nan_is_the_training_fold_mean() -> None:
    # a value missing in a test row goes where the training-fold mean goes
    X, y = load_iris(return_X_y=True)
    train, test = half_masks(150, 4, seed=0)
    seeds = seeds_for(4)
    Xn = X.copy()
    Xn[test[0] & (np.arange(150) % 3 == 0), 2] = np.nan
    ours = C45().fit_predict(Xn, y, train[:1], test[:1], seeds[:1])
    filled = Xn.copy()
    filled[np.isnan(Xn[:, 2]), 2] = X[train[0], 2].mean()
    plain = C45().fit_predict(filled, y, train[:1], test[:1], seeds[:1])
    np.testing.assert_array_equal(ours, plain)
    np.testing.assert_array_equal(ours[test[:1]], reference(Xn, y, train[:1], test[:1], seeds[:1])[test[:1]])


def test_tiny_single_class_and_missing_class_folds() -> None:
    X, y = load_iris(return_X_y=True)
    n = len(y)
    train = np.zeros((5, n), bool)
    train[0, [0, 60]] = True  # 2 rows: nothing held out, nothing pruned
    train[1, [0, 60, 120]] = True  # 3 rows: one held out
    train[2, :40] = True  # one class
    train[3, :100] = True  # classes 0 and 1 only; class 2 is never predicted
    train[4, 50:] = True  # classes 1 and 2: global codes
    test = ~train
    seeds = seeds_for(5, root=8)
    ours = C45().fit_predict(X, y, train, test, seeds)
    np.testing.assert_array_equal(ours[test], reference(X, y, train, test, seeds)[test])
    assert (ours[2][test[2]] == 0).all()
    assert set(ours[3][test[3]]) <= {0, 1} and set(ours[4][test[4]]) <= {1, 2}
    # the 2-row model is sklearn's unpruned tree on both rows
    s0 = int(seed_ints(seeds[:1])[0])
    t = DecisionTreeClassifier(criterion="entropy", random_state=s0).fit(X[[0, 60]], y[[0, 60]])
    np.testing.assert_array_equal(ours[0][test[0]], t.predict(X[test[0]]))


def test_holdout_is_stratified_and_sized_as_the_reference() -> None:
    y = np.repeat([0, 1, 2], [50, 30, 20])
    train = np.ones((3, 100), bool)
    train[2, ::2] = False
    s = np.array([1, 2, 3])
    grow, hold, do_prune = C45().holdout(y, train, s)
    assert do_prune.all()
    assert (grow | hold).tolist() == train.tolist() and not (grow & hold).any()
    assert hold[0].sum() == 20 and np.bincount(y[hold[0]]).tolist() == [10, 6, 4]
    assert hold[2].sum() == 10
    for b in range(3):
        rep = RepTree(random_state=int(s[b])).fit(np.zeros((train[b].sum(), 1)), y[train[b]])
        np.testing.assert_array_equal(rep.hold_, hold[b][train[b]])
    assert not np.array_equal(hold[0], hold[1])  # the seed decides


@pytest.mark.parametrize(
    ("kw", "bad"),
    [
        ({"prune_fraction": 1.0}, "1.0"),
        ({"prune_fraction": "lots"}, "'lots'"),
        ({"prune_fraction": True}, "True"),
        ({"pruning": "pessimistic"}, "'pessimistic'"),
    ],
)
def test_bad_parameters_raise_simstudy_error(kw, bad: str) -> None:
    with pytest.raises(SimstudyError, match=bad):
        C45(**kw)


def test_spec_names() -> None:
    assert get_learner("c45").name == "c45"
    assert get_learner("c45[prune_fraction=0.3]").name == "c45[prune_fraction=0.3]"


def test_kernel_cache_is_dropped_when_any_kernel_source_changes(tmp_path) -> None:
    # numba re-validates a cached function against its own file only; the kernels span
    # several files, so the package stamps its cache with a hash of all of them
    from simstudy.learners.trees._cache import ensure_coherent_cache

    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    stale = [cache / "b.caller-3.py311.nbi", cache / "b.caller-3.py311.1.nbc"]
    for f in stale:
        f.write_bytes(b"old")
    assert ensure_coherent_cache(tmp_path) is True  # no stamp yet: dropped
    assert not any(f.exists() for f in stale)
    for f in stale:
        f.write_bytes(b"new")
    assert ensure_coherent_cache(tmp_path) is False  # sources unchanged: kept
    assert all(f.exists() for f in stale)
    (tmp_path / "a.py").write_text("x = 100\n")  # a callee's file changes
    assert ensure_coherent_cache(tmp_path) is True
    assert not any(f.exists() for f in stale)
