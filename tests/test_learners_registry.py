"""Registry, reference path (SklearnLearner), reference estimators, preprocessing."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from sklearn.datasets import load_iris
from sklearn.ensemble import RandomForestClassifier
from sklearn.naive_bayes import CategoricalNB, GaussianNB
from sklearn.svm import SVC

from simstudy.errors import SimstudyError
from simstudy.learners import (
    Learner,
    SklearnLearner,
    get_learner,
    list_learners,
    register,
    registry,
)
from simstudy.learners.bayes import FastNB
from simstudy.learners.linear import FastNMC
from simstudy.learners.neighbours import Fast1NN
from simstudy.learners.preprocess import (
    apply_stats,
    fold_stats,
    make_preprocessor,
    model_stats,
)
from simstudy.learners.reference import (
    LeastSquaresClassifier,
    MixedNB,
    PrunedTree,
    ThresholdTreeRegressor,
)

X_IRIS, Y_IRIS = load_iris(return_X_y=True)


def _seeds(k: int, root: int = 0) -> list[np.random.SeedSequence]:
    return np.random.SeedSequence(root).spawn(k)


def _halves(n: int, k: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.array([rng.permutation(n) < n // 2 for _ in range(k)])


# ---------------------------------------------------------------- registry


def test_list_learners_has_the_papers_names() -> None:
    names = list_learners()
    for n in ("max", "nmc", "lgc", "c45", "1nn", "nb", "lp", "mlp-<h>", "rt", "ls", "svm", "rf", "ab", "lda"):
        assert n in names


def test_fast_paths_by_name() -> None:
    assert isinstance(get_learner("nmc"), FastNMC)
    assert isinstance(get_learner("1nn[scale=none]"), Fast1NN)
    assert get_learner("1nn[scale=none]").scale == "none"
    ref = get_learner("nmc", reference=True)
    assert isinstance(ref, SklearnLearner) and ref.name == "nmc"
    assert ref.preprocess == "standardize"


def test_mlp_spellings_agree() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = get_learner("mlp-10"), get_learner("mlp[h=10]")
    assert a.name == b.name == "mlp-10"
    for bad in ("mlp-0", "mlp[h=x]", "mlp-5[h=5]", "mlp"):
        with pytest.raises(SimstudyError):
            get_learner(bad)


def test_unknown_name_lists_choices() -> None:
    with pytest.raises(SimstudyError) as e:
        get_learner("nmcc")
    msg = str(e.value)
    assert "'nmcc'" in msg and "1nn" in msg and "mlp-<h>" in msg
    with pytest.raises(SimstudyError, match="scale"):
        get_learner("nmc[scale=minmax]")
    with pytest.raises(SimstudyError, match="bad parameters"):
        get_learner("lda[foo=1]")
    with pytest.raises(SimstudyError, match="cannot import"):
        get_learner("sklearn.svm:NoSuchSVC")


def test_sklearn_import_paths_and_objects() -> None:
    for spec in ("sklearn.svm:SVC[C=10]", "sklearn.svm.SVC[C=10]"):
        lr = get_learner(spec)
        assert isinstance(lr, SklearnLearner) and isinstance(lr.estimator, SVC)
        assert lr.estimator.C == 10 and lr.name == spec
    obj = get_learner(GaussianNB())
    assert isinstance(obj, SklearnLearner) and obj.name == "GaussianNB"
    svm = get_learner("svm[C=2.5]")  # the libsvm fast path; its reference is SVC(C=2.5)
    ref = svm.reference_estimator()
    assert ref.C == 2.5 and ref.kernel == "rbf" and svm.name == "svm[C=2.5]"
    assert get_learner("svm[C=2.5]", reference=True).estimator.C == 2.5


def test_register_user_factory() -> None:
    class Const(Learner):
        name = "const"

        def __init__(self, c: int = 0) -> None:
            self.c = c

        def fit_predict(self, X, y, train, test, seeds):
            return np.full(train.shape, self.c, dtype=np.int64)

    register("const", Const)
    try:
        assert "const" in list_learners()
        assert get_learner("const[c=2]").c == 2
    finally:
        registry.LEARNERS.unregister("const")
    with pytest.raises(SimstudyError):
        register("bad[name]", Const)


def test_missing_fast_module_is_an_error_not_a_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fast path that cannot load never silently becomes another model."""
    monkeypatch.setattr(registry, "LEARNERS", registry.Registry("learner"))  # nothing yet
    monkeypatch.setattr(registry, "FAMILIES", ("simstudy.learners.no_such_module",))
    monkeypatch.setattr(registry, "_loaded", {})
    with pytest.raises(SimstudyError, match="'rf'.*rf@sklearn"):
        get_learner("rf")


def test_reference_path_is_an_explicit_learner_name() -> None:
    lr = get_learner("rf@sklearn")
    assert isinstance(lr, SklearnLearner) and isinstance(lr.estimator, RandomForestClassifier)
    assert lr.preprocess == "impute"
    with pytest.raises(SimstudyError, match="'nosuch'"):
        get_learner("nosuch@sklearn")


def test_every_learner_is_registered_in_a_listed_family_with_a_description() -> None:
    """The decorator is the only registration: every built-in entry comes from a module of
    FAMILIES (so the first lookup loads it) and carries the line ``simstudy list`` prints."""
    names = list_learners()
    rows = dict(registry.describe_learners())
    for entry in registry.LEARNERS:
        # an entry not built yet names its family; a built one is its decorated object
        mod = getattr(entry.factory, "module", None) or entry.factory.obj.__module__
        assert any(mod == f or mod.startswith(f + ".") for f in registry.FAMILIES), mod
        assert entry.description.strip(), entry.name
    for name in names:
        assert rows[name].strip(), name
    assert len(names) == len(registry.LEARNERS.names()) >= 17


def test_a_new_learner_file_is_found_without_a_list(tmp_path) -> None:
    """One file, one decorator: public modules and packages of the learners directory are
    the families; private and infrastructure modules are not."""
    for f in ("mine.py", "_kernels.py", "base.py", "registry.py", "pkg/__init__.py", "notes.txt"):
        (tmp_path / f).parent.mkdir(exist_ok=True)
        (tmp_path / f).write_text("")
    mods = registry._family_modules(tmp_path)
    assert mods[:2] == ("simstudy.learners.mine", "simstudy.learners.pkg")
    assert mods[2:] == registry._SUBMODULES


def test_a_decorated_learner_is_built_from_its_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registry, "LEARNERS", registry.LEARNERS.copy())

    @registry.register_learner("const-{k}", description="predicts class k")
    class Const(Learner):
        def __init__(self, k: str, shift: int = 0) -> None:
            self.c = int(k) + shift
            self.name = f"const-{self.c}"

        def fit_predict(self, X, y, train, test, seeds):
            return np.where(test, self.c, -1).astype(np.int64)

    assert get_learner("const-2").c == 2
    assert get_learner("const-2[shift=3]").c == 5  # values parsed as literals
    assert ("const-<k>", "predicts class k") in registry.describe_learners()
    with pytest.raises(SimstudyError, match=r"unknown parameter 'zz'; valid parameters: shift"):
        get_learner("const-2[zz=1]")
    with pytest.raises(SimstudyError, match="'k' is given twice"):
        get_learner("const-2[k=1]")


def test_reference_path_of_a_learner_whose_family_cannot_load(monkeypatch) -> None:
    """'rf@sklearn', which the error message suggests, still works without the fast path."""
    monkeypatch.setattr(registry, "LEARNERS", registry.Registry("learner"))
    monkeypatch.setattr(registry, "FAMILIES", ("simstudy.learners.no_such_module",))
    monkeypatch.setattr(registry, "_loaded", {})
    lr = get_learner("rf@sklearn")
    assert isinstance(lr, SklearnLearner) and isinstance(lr.estimator, RandomForestClassifier)
    assert lr.name == "rf@sklearn" and lr.preprocess == "impute"
    with pytest.raises(SimstudyError, match="'nosuch'"):
        get_learner("nosuch@sklearn")


# ---------------------------------------------------------------- SklearnLearner


def test_sklearn_learner_seeds_and_global_codes() -> None:
    X, y = X_IRIS, Y_IRIS
    train = _halves(len(y), 4)
    train[3] &= y != 1  # a training fold without class 1
    lr = SklearnLearner(RandomForestClassifier(n_estimators=5), preprocess="impute")
    a = lr.fit_predict(X, y, train, ~train, _seeds(4, 1))
    b = lr.fit_predict(X, y, train, ~train, _seeds(4, 1))
    c = lr.fit_predict(X, y, train, ~train, _seeds(4, 2))
    assert np.array_equal(a, b)  # model b depends only on its seed
    assert not np.array_equal(a, c)
    assert set(np.unique(a[3][~train[3]])) <= {0, 2}  # global codes; absent class never predicted
    assert np.all(a[~train.astype(bool)] >= 0) and np.all(a[train] == -1)
    # model 0 alone, with its own seed, gives the same predictions as inside the batch
    alone = lr.fit_predict(X, y, train[:1], ~train[:1], _seeds(4, 1)[:1])
    assert np.array_equal(alone[0], a[0])
    par = SklearnLearner(RandomForestClassifier(n_estimators=5), preprocess="impute", n_jobs=2)
    assert np.array_equal(par.fit_predict(X, y, train, ~train, _seeds(4, 1)), a)


def test_sklearn_learner_rejects_non_estimators() -> None:
    with pytest.raises(SimstudyError):
        SklearnLearner(object())
    with pytest.raises(SimstudyError, match="preprocess"):
        SklearnLearner(GaussianNB(), preprocess="zscore")


# ---------------------------------------------------------------- preprocessing


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, (12, 3), elements=st.one_of(st.floats(-1e3, 1e3), st.just(np.nan))),
    arrays(bool, (4, 12)),
)
def test_batched_preprocessing_matches_pipeline(X: np.ndarray, train: np.ndarray) -> None:
    train[:, 0] = True  # at least one training row
    mean, scale = fold_stats(X, train)
    Z = apply_stats(X, mean, scale)
    for b in range(4):
        pipe = make_preprocessor("standardize").fit(X[train[b]])
        np.testing.assert_allclose(Z[b], pipe.transform(X), rtol=1e-9, atol=1e-9)
        imp = make_preprocessor("impute").fit(X[train[b]])
        np.testing.assert_allclose(np.where(np.isnan(X), mean[b], X), imp.transform(X), rtol=1e-12, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    arrays(np.float64, (12, 3), elements=st.one_of(st.floats(-1e3, 1e3), st.just(np.nan))),
    arrays(bool, (4, 12)),
)
def test_model_stats_agree_with_fold_stats_and_do_not_depend_on_the_batch(X, train) -> None:
    """The per-model form (neural learners) equals the batched one to rounding, and each
    model's values are bitwise those it gets alone."""
    train[:, 0] = True
    mean, scale = model_stats(X, train)
    m2, s2 = fold_stats(X, train)
    np.testing.assert_allclose(mean, m2, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(scale, s2, rtol=1e-9, atol=1e-9)
    for b in range(4):
        mb, sb = model_stats(X, train[b : b + 1])
        assert np.array_equal(mb[0], mean[b]) and np.array_equal(sb[0], scale[b])


def test_preprocessing_hand_values() -> None:
    X = np.array([[1.0, np.nan, 5.0], [3.0, np.nan, 5.0], [np.nan, 2.0, 5.0]])
    mean, scale = fold_stats(X, np.array([[True, True, False]]))
    # column 0: mean 2, sd 1; column 1: all missing in training -> 0, scale 1; column 2 constant
    np.testing.assert_allclose(mean[0], [2.0, 0.0, 5.0])
    np.testing.assert_allclose(scale[0], [1.0, 1.0, 1.0])
    Z = apply_stats(X, mean, scale)[0]
    np.testing.assert_allclose(Z, [[-1, 0, 0], [1, 0, 0], [0, 2, 0]])


# ---------------------------------------------------------------- reference estimators


def test_mixed_nb_is_gaussian_nb_on_numeric() -> None:
    tr = _halves(150, 1)[0]
    a = MixedNB().fit(X_IRIS[tr], Y_IRIS[tr]).predict(X_IRIS[~tr])
    b = GaussianNB().fit(X_IRIS[tr], Y_IRIS[tr]).predict(X_IRIS[~tr])
    assert np.array_equal(a, b)


def test_mixed_nb_is_categorical_nb_on_nominal() -> None:
    rng = np.random.default_rng(4)
    n = 200
    y = rng.integers(0, 2, n)
    a = (y + rng.integers(0, 3, n)) % 4
    b = rng.integers(0, 3, n)
    X = np.hstack([np.eye(4)[a], np.eye(3)[b]])
    groups = ((0, 1, 2, 3), (4, 5, 6))
    m = MixedNB(groups).fit(X[:100], y[:100])
    c = CategoricalNB(alpha=1.0, min_categories=[4, 3]).fit(np.c_[a, b][:100], y[:100])
    np.testing.assert_allclose(m.joint_log_likelihood(X[100:]), c.predict_joint_log_proba(np.c_[a, b][100:]), rtol=1e-12)
    assert np.array_equal(m.predict(X[100:]), c.predict(np.c_[a, b][100:]))
    fast = FastNB(groups).fit_predict(X, y, np.arange(n)[None] < 100, np.arange(n)[None] >= 100, _seeds(1))
    assert np.array_equal(fast[0, 100:], m.predict(X[100:]))


def test_least_squares_binary_threshold_by_hand() -> None:
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    # OLS of y on x: slope 0.4, intercept -0.1 -> fitted 0.5 at x = 1.5
    ls = LeastSquaresClassifier().fit(X, y)
    np.testing.assert_allclose(ls.coef_[:, 1], [-0.1, 0.4], atol=1e-12)
    # (x = 1.5 is a float tie: the fitted value is 0.5 up to rounding, so not asserted)
    assert list(ls.predict(np.array([[1.4], [1.6], [-5.0], [9.0]]))) == [0, 1, 0, 1]


def test_threshold_tree_and_pruned_tree() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] + 0.8 * rng.normal(size=300) > 0).astype(int)  # noisy labels
    rt = ThresholdTreeRegressor(random_state=0).fit(X, y)
    assert np.array_equal(rt.predict(X), y)  # fully grown: fits the training data
    pt = PrunedTree(random_state=0).fit(X, y)
    assert pt.ccp_alpha_ > 0
    full = pt.tree_model_.get_n_leaves()
    from sklearn.tree import DecisionTreeClassifier

    assert full < DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y).get_n_leaves()
    assert np.mean(pt.predict(X) == y) > 0.7
    # reproducible for a seed
    assert np.array_equal(PrunedTree(random_state=3).fit(X, y).predict(X), PrunedTree(random_state=3).fit(X, y).predict(X))


@pytest.mark.parametrize("name", ["c45", "svm", "rt", "ab", "lgc"])
def test_reference_learners_run(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lr = get_learner(name, reference=True)
    X = np.c_[X_IRIS, np.where(np.arange(150) % 7 == 0, np.nan, 1.0)]
    train = _halves(150, 2)
    p = lr.fit_predict(X, Y_IRIS, train, ~train, _seeds(2))
    err = np.mean(p[~train] != np.broadcast_to(Y_IRIS, train.shape)[~train])
    assert err < 0.2


def test_frozen_is_a_read_only_contiguous_view() -> None:
    from simstudy.learners.base import frozen

    a = np.arange(6, dtype=np.int64)
    v = frozen(a, np.int64)
    assert np.shares_memory(a, v) and not v.flags.writeable and a.flags.writeable
    f = frozen(np.asfortranarray(np.ones((3, 2))))
    assert f.flags.c_contiguous and not f.flags.writeable


@pytest.mark.parametrize("name, kernel", [
    ("j48", "simstudy.learners.weka._j48_kernels:fit_predict_batch"),
    ("wnb", "simstudy.learners.weka.nb:_wnb_kernel"),
])
def test_read_only_and_writable_inputs_share_one_compiled_kernel(name, kernel) -> None:
    # a data set's arrays are read-only, a user's are not: one compile serves both
    import importlib

    mod, fn = kernel.split(":")
    disp = getattr(importlib.import_module(mod), fn)
    X = np.random.default_rng(0).normal(size=(40, 3))
    y = np.tile([0, 1], 20)
    train = np.zeros((2, 40), bool)
    train[:, :30] = True
    ro_X, ro_y = X.copy(), y.copy()
    ro_X.flags.writeable = ro_y.flags.writeable = False
    learner = get_learner(name)
    seeds = np.random.SeedSequence(0).spawn(2)
    a = learner.fit_predict(ro_X, ro_y, train, ~train, seeds)
    b = learner.fit_predict(X, y, train, ~train, seeds)
    np.testing.assert_array_equal(a, b)
    assert len(disp.signatures) == 1, disp.signatures
