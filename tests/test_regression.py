"""Generators (linear-Gaussian, Friedman #1, logistic) and regression learners (ols, ridge,
rf-reg, knn-reg) against independent computations: scikit-learn's make_friedman1 response,
least squares / ridge closed forms in numpy, k nearest neighbours by hand, losses by hand;
and the one-line refusal of a learner on a source of the other task."""

from __future__ import annotations

import numpy as np
import pytest

from simstudy.errors import SimstudyError
from simstudy.learners import get_learner
from simstudy.learners.base import check_task, instance_losses
from simstudy.planning import validate
from simstudy.sources import get_source
from simstudy.study import Cell, Study


def _fit(spec, X, y, train, seed=0):
    test = ~train
    seeds = np.random.SeedSequence(seed).spawn(train.shape[0])
    return get_learner(spec).fit_predict(X, y, train, test, seeds)


def _data(n=60, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p)) * [1.0, 3.0, 0.5, 2.0][:p] + 1.0
    y = X @ np.arange(1.0, p + 1) + rng.standard_normal(n)
    train = np.zeros((2, n), bool)
    train[0, : 2 * n // 3] = True
    train[1, n // 3:] = True
    return X, y, train


# --- generators ---------------------------------------------------------------------------------

def test_friedman1_response_is_sklearns():
    from sklearn.datasets import make_friedman1

    Xs, ys = make_friedman1(n_samples=50, n_features=7, noise=0.0, random_state=3)
    src = get_source("friedman1[p=7,noise=0]")
    # the same function of X: our draw, given sklearn's X through a generator that returns it
    class Fixed:
        def random(self, shape):
            return Xs

        def standard_normal(self, m):
            return np.zeros(m)

    X, y = src.draw(50, Fixed())
    np.testing.assert_allclose(y, ys, rtol=1e-12)
    d = get_source("friedman1[n=500]").sample(np.random.default_rng(0))
    assert d.X.shape == (500, 10) and d.X.min() >= 0 and d.X.max() < 1


def test_lingauss_recovers_its_coefficients_and_noise():
    d = get_source("lingauss[n=20000,p=4,signal=2,noise=0.5]").sample(np.random.default_rng(1))
    A = np.c_[np.ones(d.n), d.X]
    beta, res, *_ = np.linalg.lstsq(A, d.y, rcond=None)
    np.testing.assert_allclose(beta[1:], 2 / np.sqrt(4), atol=0.01)
    assert abs(beta[0]) < 0.01
    assert np.sqrt(res[0] / d.n) == pytest.approx(0.5, rel=0.02)


def test_logistic_recovers_its_coefficients():
    from sklearn.linear_model import LogisticRegression

    d = get_source("logistic[n=40000,p=2,signal=2]").sample(np.random.default_rng(2))
    m = LogisticRegression(C=1e6).fit(d.X, d.y)
    np.testing.assert_allclose(m.coef_[0], 2 / np.sqrt(2), atol=0.05)
    assert d.classes == ("0", "1")


def test_generators_are_seeded_and_draw_an_independent_test_sample():
    src = get_source("lingauss[n=30,n_test=1000]")
    a, b = src.sample(np.random.default_rng(7)), src.sample(np.random.default_rng(7))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y_test, b.y_test)
    assert a.X_test.shape == (1000, 20) and not np.isin(a.y, a.y_test).any()
    assert src.task == "regression" and get_source("logistic").task == "classification"


@pytest.mark.parametrize("spec,match", [("friedman1[p=3]", "p='3' must be >= 5"),
                                        ("lingauss[noise=-1]", "noise='-1'"),
                                        ("lingauss[rho=1]", "unknown parameter 'rho'"),
                                        ("logistic[n=x]", "n='x' is not an integer")])
def test_generator_bad_parameters(spec, match):
    with pytest.raises(SimstudyError, match=match):
        get_source(spec)


def test_canonical_names_leave_defaults_out():
    assert get_source("lingauss[p=20,n=50]").name == "lingauss[n=50]"
    assert get_source("friedman1").name == "friedman1"


# --- learners -----------------------------------------------------------------------------------

def test_ols_is_least_squares_with_an_intercept():
    X, y, train = _data()
    p = _fit("ols", X, y, train)
    for b in range(2):
        A = np.c_[np.ones(len(y)), X]
        beta = np.linalg.lstsq(A[train[b]], y[train[b]], rcond=None)[0]
        np.testing.assert_allclose(p[b, ~train[b]], (A @ beta)[~train[b]], rtol=1e-9)
        assert np.isnan(p[b, train[b]]).all()


def test_ridge_is_the_closed_form_on_standardised_inputs():
    X, y, train = _data()
    p = _fit("ridge[alpha=5]", X, y, train)
    for b in range(2):
        Xt, yt = X[train[b]], y[train[b]]
        m, s = Xt.mean(0), Xt.std(0)
        Z = (Xt - m) / s
        w = np.linalg.solve(Z.T @ Z + 5 * np.eye(X.shape[1]), Z.T @ (yt - yt.mean()))
        want = ((X - m) / s) @ w + yt.mean()
        np.testing.assert_allclose(p[b, ~train[b]], want[~train[b]], rtol=1e-9)


def test_knn_reg_is_the_mean_of_the_k_nearest():
    X, y, train = _data(n=40)
    p = _fit("knn-reg[k=3]", X, y, train)
    tr = np.flatnonzero(train[0])
    m, s = X[tr].mean(0), X[tr].std(0)
    Z = (X - m) / s
    for i in np.flatnonzero(~train[0]):
        dist = ((Z[tr] - Z[i]) ** 2).sum(1)
        assert p[0, i] == pytest.approx(y[tr[np.argsort(dist)[:3]]].mean())


def test_knn_reg_agrees_with_scikit_learn():
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.preprocessing import StandardScaler

    rng = np.random.default_rng(7)
    for _ in range(20):
        n, p, k = int(rng.integers(20, 200)), int(rng.integers(1, 12)), int(rng.integers(1, 8))
        X = rng.normal(size=(n, p)) * rng.uniform(0.1, 5.0, p)
        y = rng.normal(size=n)
        train = rng.random((3, n)) < 0.7
        got = _fit(f"knn-reg[k={k}]", X, y, train)
        for b in range(3):
            sc = StandardScaler().fit(X[train[b]])
            want = KNeighborsRegressor(n_neighbors=k).fit(
                sc.transform(X[train[b]]), y[train[b]]).predict(sc.transform(X[~train[b]]))
            np.testing.assert_allclose(got[b, ~train[b]], want, rtol=1e-12, atol=1e-12)


def test_knn_reg_with_more_neighbours_than_training_rows_is_refused():
    X, y, train = _data(n=12)
    with pytest.raises(ValueError, match="k=9 neighbours, but 8 training"):
        _fit("knn-reg[k=9]", X, y, train)


def test_rf_reg_is_seeded_per_model():
    X, y, train = _data()
    a, b = _fit("rf-reg[trees=10]", X, y, train, 1), _fit("rf-reg[trees=10]", X, y, train, 1)
    np.testing.assert_array_equal(a, b)
    c = _fit("rf-reg[trees=10]", X, y, train, 2)
    assert not np.array_equal(a[~train], c[~train])


def test_losses_by_hand():
    pred, y = np.array([1.0, 2.5, -1.0]), np.array([2.0, 2.0, 1.0])
    assert instance_losses(pred, y, "squared").tolist() == [1.0, 0.25, 4.0]
    assert instance_losses(pred, y, "absolute").tolist() == [1.0, 0.5, 2.0]
    assert get_learner("ols[loss=absolute]").loss == "absolute"
    assert get_learner("knn-reg").loss == "squared"
    with pytest.raises(SimstudyError, match="unknown loss of learner 'ols': 'hinge'"):
        get_learner("ols[loss=hinge]")


# --- a learner on a source of the other task ---------------------------------------------------

@pytest.mark.parametrize("source,learners,match", [
    ("iris", ("ols", "ridge"), "learner 'ols' is a regression learner and cannot learn "
     "source 'iris', a classification source"),
    ("lingauss[n=40]", ("nmc", "ols"), "learner 'nmc' is a classification learner and cannot "
     "learn source 'lingauss\\[n=40\\]', a regression source"),
])
def test_learner_on_the_other_task_is_one_line(source, learners, match):
    study = Study("t", [Cell(source, learners, "5x2", ("t5x2cv",))], runs=2)
    with pytest.raises(SimstudyError, match=match) as e:
        validate(study)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("design,ok", [("1x10cv", False), ("1x10cv[strat=0]", True),
                                       ("5x2", True), ("holdout[strat=1]", False),
                                       ("ncv[k=5,reps=2]", True)])
def test_regression_cells_refuse_stratified_designs(design, ok):
    study = Study("t", [Cell("lingauss[n=40]", ("ols", "ridge"), design, ())], runs=2)
    if ok:
        validate(study)
        return
    with pytest.raises(SimstudyError, match=r"stratifies by class .* \[strat=0\]"):
        validate(study)


def test_check_task_accepts_the_matching_task():
    check_task(get_learner("ols"), "regression", "lingauss")
    check_task(get_learner("nmc"), "classification", "iris")


# --- through the runner: real-valued fold losses -----------------------------------------------

@pytest.mark.parametrize("loss", ["squared", "absolute"])
def test_runner_fold_losses_of_a_regression_cell_by_hand(loss):
    from simstudy.planning import Chunk
    from simstudy.runner import compute_chunk
    from simstudy.trialdata import trial_data

    ols = "ols" if loss == "squared" else "ols[loss=absolute]"
    cell = Cell("lingauss[n=40,p=3]", (ols, "knn-reg"), "2x4cv", ())
    chunk = Chunk("t", cell, (0, 1), 5, 0.05, keep_losses=True)
    recs = compute_chunk(chunk)
    for rec in recs:
        d, train, test = trial_data(cell, chunk.seed, rec.run)
        fl = rec.losses
        for r in range(2):
            for f in range(4):
                A = np.c_[np.ones(d.n), d.X]
                beta = np.linalg.lstsq(A[train[r, f]], d.y[train[r, f]], rcond=None)[0]
                e = (A @ beta - d.y)[test[r, f]]
                want = e ** 2 if loss == "squared" else np.abs(e)
                np.testing.assert_allclose(fl.losses[0, r, f][test[r, f]], want, rtol=1e-9)
                assert (fl.losses[0, r, f][~test[r, f]] == -1).all()
                assert fl.errors[0, r, f] == pytest.approx(want.mean(), rel=1e-12)


def test_real_valued_losses_pack_as_floats_not_bits():
    from simstudy.core import LOSS_MAGIC, pack_losses, unpack_losses

    real = np.array([[[[0.5, -1.0]]]])
    assert pack_losses(real)[:4] == LOSS_MAGIC  # the extended format, not bits
    assert np.array_equal(unpack_losses(pack_losses(real)), real)
    assert pack_losses(np.array([[[[1.0, -1.0, 0.0]]]]))[:4] != LOSS_MAGIC  # 0/1 floats: bits


# --- the numeric truth ------------------------------------------------------------------------

def test_truth_of_ols_is_its_closed_form_error():
    """With X ~ N(0, I) and noise sd s, a fitted line's error is
    s^2 + b0^2 + ||b - beta||^2 (the Gaussian linear model's prediction error)."""
    from simstudy.interval_truth import conditional_truth
    from simstudy.seeding import source_seed

    cell = Cell("lingauss[n=30,p=4,signal=2,noise=0.5]", ("ols", "ridge"), "1x5cv", ())
    for run in (0, 1):
        t = conditional_truth(cell, 9, run, n_truth=200_000)
        src = get_source(cell.source)
        d = src.sample(np.random.default_rng(source_seed(9, cell.id, cell.source, run,
                                                         src.runs_per_draw)))
        A = np.c_[np.ones(d.n), d.X]
        b = np.linalg.lstsq(A, d.y, rcond=None)[0]
        closed = 0.25 + b[0] ** 2 + ((b[1:] - 1.0) ** 2).sum()
        assert abs(t.error[0] - closed) < 4 * t.mc_se[0]
        assert t.mc_se[0] < 0.01 and t.diff(0, 1) == pytest.approx(t.error[0] - t.error[1])


def test_truth_needs_a_generator():
    from simstudy.interval_truth import conditional_truth

    with pytest.raises(SimstudyError, match="'iris' cannot draw an independent sample"):
        conditional_truth(Cell("iris", ("nmc", "lda"), "5x2", ()), 0, 0)


def test_cells_of_one_generator_share_data_and_truth_per_run():
    from simstudy.interval_truth import conditional_truth
    from simstudy.trialdata import trial_data

    a = Cell("lingauss[n=30,p=3]", ("ols", "ridge"), "1x5cv", ())
    b = Cell("lingauss[n=30,p=3]", ("knn-reg", "ols"), "ncv[k=3,reps=1]", ())
    for run in (0, 3):
        da = trial_data(a, 1, run)[0]
        db = trial_data(b, 1, run)[0]
        np.testing.assert_array_equal(da.y, db.y)
        assert (conditional_truth(a, 1, run, 5000).error[0]
                == conditional_truth(b, 1, run, 5000).error[1])
    assert not np.array_equal(trial_data(a, 1, 0)[0].y, da.y)


def test_ci_synthetic_declares_runnable_cells_with_their_interval_methods():
    from simstudy.catalog import get_study
    from simstudy.designs import get_design
    from simstudy.stats.interval_registry import check_intervals_fit

    study = get_study("ci-synthetic")
    assert len(study.cells) == 3 * 3 * 5 and study.meta["keep_losses"]
    validate(study)  # every name resolves, tasks match, no stratified regression design
    for c in study.cells:
        check_intervals_fit(c.label("intervals"), get_design(c.design))


# --- a bundled data set as a population ------------------------------------------------------------

def test_population_draws_n_rows_and_the_rest_is_the_truth():
    from simstudy.interval_truth import conditional_truth

    src = get_source("population[data=spambase,n=80]")
    full = src.full
    d = src.sample(np.random.default_rng(4))
    rows = d.meta["rows"]
    assert d.n == 80 and len(set(rows.tolist())) == 80
    np.testing.assert_array_equal(d.X, full.X[rows])
    Xt, yt = src.truth_sample(d)
    assert Xt.shape[0] == full.n - 80
    t = conditional_truth(Cell(src.name, ("nmc", "1nn"), "5x2", ()), 0, 1)
    assert t.n_truth == full.n - 80 and 0 < t.error[0] < 0.5


@pytest.mark.parametrize("spec,match", [
    ("population[data=spambase,n=4000]", r"has 4601 rows, too few for n=4000.*n <= 3601"),
    ("population[data=nosuch,n=10]", "'nosuch'"),
    ("population[n=10]", "needs data=NAME"),
    ("population[data=iris,n=10]", "150 rows, too few"),
])
def test_population_too_small_or_unknown(spec, match):
    with pytest.raises(SimstudyError, match=match):
        get_source(spec)


def test_ci_real_declares_runnable_cells():
    from simstudy.catalog import get_study

    study = get_study("ci-real")
    assert len(study.cells) == 5 * 2 * 5
    validate(study)
