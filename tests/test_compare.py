"""ss.compare: each model fitted once per fold, every test on the same fold losses, checked
against hand computation, scipy and statsmodels; the store; bad input, one line each."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import simstudy as ss
from simstudy.errors import SimstudyError


def _data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] + 0.7 * rng.normal(size=n) > 0).astype(int)
    return X, y


class Counting:
    """A classifier that counts its fits (class attribute: clones share it)."""

    fits = 0
    _estimator_type = "classifier"

    def __init__(self, col: int = 0) -> None:
        self.col = col

    def get_params(self, deep=True):
        return {"col": self.col}

    def set_params(self, **p):
        self.col = p.get("col", self.col)
        return self

    def __sklearn_tags__(self):
        from sklearn.utils import ClassifierTags, Tags, TargetTags

        return Tags(estimator_type="classifier", target_tags=TargetTags(required=True),
                    classifier_tags=ClassifierTags())

    def fit(self, X, y):
        type(self).fits += 1
        self.t_ = float(np.median(X[:, self.col]))
        return self

    def predict(self, X):
        return (X[:, self.col] > self.t_).astype(int)


def test_each_model_once_per_fold_and_the_tests_by_hand():
    X, y = _data()
    Counting.fits = 0
    r = ss.compare([Counting(0), Counting(1)], X, y, tests=["t5x2cv", "F5x2cv"],
                   measured=False)
    assert Counting.fits == 20 == r.fits  # 2 models x 5 x 2 folds, shared by both tests
    # the fold losses by hand: each fold's 0/1 error of a model refitted on its training half
    from simstudy.designs import get_design

    train = get_design("5x2cv").masks(y, np.random.default_rng(np.random.SeedSequence(0)))
    for k, col in enumerate((0, 1)):
        for i in range(5):
            for j in range(2):
                tr = train[i, j]
                t = np.median(X[tr, col])
                assert r.losses[k, i, j] == np.mean((X[~tr, col] > t).astype(int) != y[~tr])
    d = r.losses[0] - r.losses[1]
    s2 = ((d - d.mean(1, keepdims=True)) ** 2).sum()
    t = d[0, 0] / np.sqrt(s2 / 5)
    f = (d ** 2).sum() / (2 * s2)
    row = r.table.set_index("test")
    assert row.loc["t5x2cv", "statistic"] == pytest.approx(t, rel=1e-12)
    assert row.loc["t5x2cv", "pvalue"] == pytest.approx(2 * stats.t.sf(abs(t), 5), rel=1e-10)
    assert row.loc["F5x2cv", "pvalue"] == pytest.approx(stats.f.sf(f, 10, 5), rel=1e-10)
    # the t's interval inverts the test: it excludes 0 exactly when p < alpha
    lo, hi = row.loc["t5x2cv", ["ci_low", "ci_high"]]
    assert (lo > 0 or hi < 0) == (row.loc["t5x2cv", "pvalue"] < 0.05)
    assert r.conclusion.count("t5x2cv") == 1 and r.to_markdown().count("\n| ") >= 3


def test_regressors_squared_error_and_recommended_tests():
    from sklearn.linear_model import LinearRegression, Ridge

    rng = np.random.default_rng(3)
    X = rng.normal(size=(60, 2))
    y = X @ [1.0, -2.0] + rng.normal(size=60)
    r = ss.compare([LinearRegression(), Ridge(alpha=30.0)], X, y, design="2x5cv",
                   measured=False)
    assert r.loss == "squared error"
    assert r.table["test"].tolist() == ["corrected-rxk-t", "bayes-correlated-t"]
    from simstudy.designs import get_design

    train = get_design("2x5cv").masks(np.zeros(60), np.random.default_rng(
        np.random.SeedSequence(0)))
    tr = train[1, 3]
    pred = LinearRegression().fit(X[tr], y[tr]).predict(X[~tr])
    assert r.losses[0, 1, 3] == pytest.approx(np.mean((pred - y[~tr]) ** 2), rel=1e-12)


def test_three_models_holm_order_and_mcs():
    from statsmodels.stats.multitest import multipletests

    X, y = _data(120, 1)
    r = ss.compare([Counting(0), Counting(1), Counting(2)], X, y, tests=["combined-t5x2cv"],
                   measured=False)
    assert len(r.table) == 3 and r.ordering is not None and set(r.ordering) == set(r.models)
    assert r.mcs and set(r.mcs) <= set(r.models)
    holm = multipletests(r.table["pvalue"], alpha=0.05, method="holm")[0]
    assert (r.table["decision"] == "differ").tolist() == holm.tolist()
    assert r.ordering[0] == r.models[int(np.argmin(r.losses.mean((1, 2))))] or \
        not holm.any()


def test_registered_learners_batched():
    X, y = _data(90, 2)
    r = ss.compare(["nmc", "1nn"], X, y, tests="all", measured=False)
    assert r.fits == 20 and r.models == ["nmc", "1nn"]
    assert {"t5x2cv", "F5x2cv", "mcnemar"} <= set(r.table["test"])


def test_store_refits_nothing(tmp_path):
    X, y = _data(70, 4)
    path = tmp_path / "c.sqlite"
    Counting.fits = 0
    a = ss.compare([Counting(0), Counting(1)], X, y, store=path, measured=False)
    assert Counting.fits == 20 and any("kept" in n for n in a.notes)
    b = ss.compare([Counting(0), Counting(1)], X, y, store=path, tests="all", alpha=0.1,
                   measured=False)
    assert Counting.fits == 20 and b.fits == 0
    assert any("no model refitted" in n for n in b.notes)
    np.testing.assert_array_equal(a.losses, b.losses)
    same = b.table.set_index("test").loc[a.table["test"], "pvalue"].to_numpy()
    np.testing.assert_array_equal(same, a.table["pvalue"].to_numpy())


def test_measured_size_is_the_committed_baselines_table():
    """Size of t5x2cv on design 5x2 (the type1 study's H0 cells), computed from the shipped
    trials, against the committed figures/type1/baselines.csv."""
    from pathlib import Path

    from simstudy.trials import shipped_dirs

    if "type1" not in shipped_dirs():
        pytest.skip("no shipped trials (installed without the checkout)")
    from simstudy.yourmodels import measured_size_power

    m = measured_size_power("5x2", ["t5x2cv"], 0.05)
    csv = Path(__file__).resolve().parents[1] / "figures" / "type1" / "baselines.csv"
    b = pd.read_csv(csv)
    b = b[(b["test"] == "t5x2cv") & (b["measure"] == "size")]
    row = m.set_index("test").loc["t5x2cv"]
    assert row["size_worst"] == pytest.approx(b["proportion"].max(), abs=1e-12)
    assert row["size_trials"] == b["runs"].sum()


@pytest.mark.parametrize("call, message", [
    (lambda X, y: ss.compare([object(), "nmc"], X, y), "has no fit/predict"),
    (lambda X, y: ss.compare(["nmc", "1nn"], X, y[:-1]), "different lengths: 60 and 59"),
    (lambda X, y: ss.compare(["nmc", "1nn"], X, np.r_[y[:-2].astype(float), np.nan, np.nan]),
     "y has NaN in 2 of 60 rows"),
    (lambda X, y: ss.compare(["nmc"], X, y), "at least two models, got 1"),
    (lambda X, y: ss.compare(["nmc", "1nn"], X, np.r_[np.zeros(59, int), 1]),
     "class 1 has 1 member"),
    (lambda X, y: ss.compare(["nmc", "1nn"], X, y, scoring="acuracy"),
     "unknown scoring 'acuracy'; valid choices: "),
])
def test_bad_input_one_line(call, message):
    X, y = _data(60, 5)
    with pytest.raises(SimstudyError, match=message) as e:
        call(X, y)
    assert "\n" not in str(e.value)


def test_bad_input_nan_in_x_and_classification_loss_for_regressors():
    from sklearn.linear_model import LinearRegression, Ridge

    X, y = _data(60, 6)
    X[[3, 7], 1] = np.nan
    df = pd.DataFrame(X, columns=["a", "b", "c"])
    with pytest.raises(SimstudyError, match="cannot take NaN in X, found in columns b;"):
        ss.compare([LinearRegression(), Ridge()], df, y.astype(float))
    assert ss.compare(["nmc", "1nn"], X, y, measured=False).fits == 20  # learners impute
    with pytest.raises(SimstudyError, match="'accuracy' is a classification score"):
        ss.compare([LinearRegression(), Ridge()], X[:, [0, 2]], y.astype(float),
                   scoring="accuracy")


def test_cli_writes_md_csv_html(tmp_path, capsys):
    from simstudy.cli import main

    out = tmp_path / "o"
    assert main(["compare", "--data", "iris", "--models", "nmc", "1nn", "--tests", "t5x2cv",
                 "F5x2cv", "--no-measured", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "| nmc vs 1nn | t5x2cv |" in printed
    table = pd.read_csv(out / "compare.csv")
    assert table["test"].tolist() == ["t5x2cv", "F5x2cv"]
    assert (out / "compare.md").read_text() in printed
    assert "<table" in (out / "compare.html").read_text()


@pytest.mark.parametrize("argv, message", [
    (["--models", "nmc"], "at least two models, got 1"),
    (["--models", "nmc", "nosuchlearner"], "unknown learner 'nosuchlearner'"),
    (["--models", "nmc", "1nn", "--scoring", "acuracy"], "unknown scoring 'acuracy'"),
    (["--models", "nmc", "1nn", "--tests", "FB5x2cv"], "does not read design '5x2cv'"),
])
def test_cli_bad_input_exit_2_one_line(argv, message, capsys):
    from simstudy.cli import main

    assert main(["compare", "--data", "iris", "--no-measured", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_docs_example_runs():
    import doctest
    from pathlib import Path

    page = Path(__file__).resolve().parents[1] / "docs" / "compare.md"
    res = doctest.testfile(str(page), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert res.attempted >= 3 and res.failed == 0


@pytest.mark.parametrize("module", ["simstudy.yourmodels", "simstudy.compat.mlxtend",
                                    "simstudy.cli.compare"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert res.failed == 0


def test_parallel_folds_give_the_serial_losses():
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X, y = _data(60, 7)
    models = [GaussianNB(), DecisionTreeClassifier(random_state=0)]
    one = ss.compare(models, X, y, tests=["F5x2cv"], measured=False)
    two = ss.compare(models, X, y, tests=["F5x2cv"], measured=False, jobs=2)
    np.testing.assert_array_equal(one.losses, two.losses)


def test_alike_models_never_differ_and_have_no_interval():
    X, y = _data(50, 8)
    r = ss.compare([Counting(0), Counting(0)], X, y, tests="all", measured=False)
    assert (r.table["decision"] == "no difference shown").all()
    t = r.table.set_index("test")
    assert np.isnan(t.loc["t5x2cv", "statistic"]) and t.loc["t5x2cv", "pvalue"] == 1.0
    assert np.isnan(t.loc[["t5x2cv", "combined-t5x2cv", "corrected-rxk-t"],
                          ["ci_low", "ci_high"]].to_numpy()).all()
