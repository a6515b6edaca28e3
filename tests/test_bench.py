"""bench (two learners and K learners) and the adapter every user's test goes through."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from simstudy.benchmark import bench, bench_choice
from simstudy.catalog import get_study
from simstudy.errors import SimstudyError
from simstudy.runner import run_study
from simstudy.stats import ftest_5x2cv, mcnemar
from simstudy.store import Store
from simstudy.study import Cell
from simstudy.usertest import UserTest, load_function

ROOT = Path(__file__).resolve().parents[1]


def _example(name):
    spec = importlib.util.spec_from_file_location(f"_ex_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """demo's iris cells and a 3-learner cell, 6 runs, per-instance losses kept."""
    s = get_study("demo", runs=6).select("iris")
    s = s.replace(cells=[*s.cells, Cell("iris", ("lp", "lp", "nmc"), "5x2", ("t5x2cv",))],
                  meta={"keep_losses": True})
    path = tmp_path_factory.mktemp("bench") / "s.sqlite"
    with Store(path) as st:
        run_study(s, st, backend="serial", progress=False)
    return path, s


def F_scalar(d, *, n_train, n_test):
    return ftest_5x2cv(d)


def F_vec(d, *, n_train, n_test):
    d = np.asarray(d, dtype=float)
    s2 = ((d - d.mean(2, keepdims=True)) ** 2).sum((1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        f = (d ** 2).sum((1, 2)) / (2 * s2)
    return f, np.where(s2 > 0, sps.f.sf(f, 10, 5), 1.0)


F_vec.vectorized = True


def test_bench_honours_vectorized(store):
    path, s = store
    a = bench(F_scalar, s, path, name="F")
    b = bench(F_vec, s, path, name="F")
    pd.testing.assert_frame_equal(a, b)
    np.testing.assert_allclose(a.dropna(subset=["F5x2cv"])["F"],
                               a.dropna(subset=["F5x2cv"])["F5x2cv"])


def test_bench_honours_needs_losses(store):
    path, s = store
    mc = _example("mcnemar_first_fold")
    t = bench(mc, s.select("iris/nmc~1nn"), path, name="mc")
    with Store(path, readonly=True) as st:
        tr = st.trials(["iris/nmc~1nn/5x2"], seed=s.seed, runs=s.runs, losses=True)
    p = [mcnemar(*(L[k, 0, 0][L[k, 0, 0] >= 0] for k in (0, 1))).pvalue for L in tr["losses"]]
    assert t["mc"].item() == np.mean(np.asarray(p) < s.alpha)


def test_bench_names_the_pair_of_a_three_learner_cell(store):
    path, s = store
    t = bench(F_vec, s, path, name="F")
    three = t[t["cell"] == "iris/lp~lp~nmc/5x2"]
    assert three["pair"].tolist() == ["lp#1~lp#2", "lp#1~nmc#3", "lp#2~nmc#3"]
    assert set(t[t["cell"] != "iris/lp~lp~nmc/5x2"]["pair"]) == {"nmc~1nn", "lda~nmc",
                                                                   "max~nmc"}


def test_bench_skips_a_design_with_a_note(store):
    path, s = store

    def f(d, *, n_train, n_test):
        return 0.0, 0.5

    f.designs = {"b5x2"}
    with pytest.raises(SimstudyError, match="fits no design.*'5x2'.*not list it"):
        bench(f, s, path)


@pytest.mark.parametrize("spec", ["tests/test_bench.py:F_scalar", "test_bench:F_scalar"])
def test_load_function_forms(spec, monkeypatch):
    monkeypatch.chdir(ROOT)
    monkeypatch.syspath_prepend(str(ROOT / "tests"))
    f = load_function(spec)
    assert f.__name__ == "F_scalar"
    assert UserTest.of(spec).name == "F_scalar"


@pytest.mark.parametrize("attr, value, needle", [
    ("needs", "folds", "needs='folds'"),
    ("vectorized", "yes", "f.vectorized must be True or False, got 'yes'"),
    ("designs", 5, "f.designs must be design names"),
    ("confidence", 95, "f.confidence must be a number in (0, 1), got 95"),
])
def test_bad_declarations_are_one_line(attr, value, needle):
    def f(d, *, n_train, n_test):
        return 0.0, 0.5

    setattr(f, attr, value)
    with pytest.raises(SimstudyError) as e:
        UserTest.of(f)
    assert needle in str(e.value) and "\n" not in str(e.value)


def test_signature_names_the_call_with_losses():
    def f(d, *, n_train, n_test):
        return 0.0, 0.5

    f.needs = "losses"
    with pytest.raises(SimstudyError, match=r"f\(d, \*, n_train, n_test, losses\)"):
        UserTest.of(f)


def test_one_error_ladder():
    t = UserTest.of(F_scalar)
    runs = np.arange(3)
    d = np.zeros((3, 5, 2))
    n = np.ones(3)
    # a probe's ValueError skips the cell (undeclared designs), with the reason
    skipped = []

    def bad(d, *, n_train, n_test):
        raise ValueError("not my design")

    assert UserTest.of(bad).pvalues(d, n, n, runs=runs, where="cell 'x'",
                                    skipped=skipped) is None
    assert skipped == ["ValueError: not my design"]
    # declared designs: the same ValueError is an error naming the cell and run
    bad.designs = {"5x2"}
    with pytest.raises(SimstudyError, match="cell 'x', run 0: ValueError: not my design"):
        UserTest.of(bad).pvalues(d, n, n, runs=runs, where="cell 'x'")
    out = t.pvalues(d, n, n, runs=runs, where="cell 'x'")
    assert out.pvalue.tolist() == [1.0, 1.0, 1.0]  # undefined statistic: p = 1

    def nan_p(d, *, n_train, n_test):
        return 0.0, float("nan")

    with pytest.raises(SimstudyError, match="p = nan on cell 'x', run 0"):
        UserTest.of(nan_p).pvalues(d, n, n, runs=runs, where="cell 'x'")


def test_a_returned_interval_is_read_in_every_form():
    d, n, runs = np.zeros((2, 5, 2)), np.ones(2), np.arange(2)

    def three(d, *, n_train, n_test):
        return 0.0, 0.5, (-0.1, 0.1)

    class R:
        statistic, pvalue, ci = 0.0, 0.5, (-0.2, 0.2)

    def attr(d, *, n_train, n_test):
        return R()

    def scipy_like(d, *, n_train, n_test):
        return sps.ttest_1samp(np.r_[d.ravel(), 1.0], 0.0)

    scipy_like.confidence = 0.9
    assert UserTest.of(three).pvalues(d, n, n, runs=runs, where="w").ci_high.tolist() == [.1, .1]
    assert UserTest.of(attr).pvalues(d, n, n, runs=runs, where="w").ci_low.tolist() == [-.2, -.2]
    got = UserTest.of(scipy_like).pvalues(d, n, n, runs=runs, where="w")
    want = sps.ttest_1samp(np.r_[np.zeros(10), 1.0], 0.0).confidence_interval(0.9)
    assert (got.ci_low[0], got.ci_high[0]) == pytest.approx((want.low, want.high))


def test_the_output_protocol_is_one_reading_for_scalar_and_vectorised_functions():
    """A result of simstudy's tests (scipy's shape), a tuple, or the p-value alone: the same
    numbers whether the function is called per trial or once per cell."""
    from simstudy.stats import ttest_5x2cv

    rng = np.random.default_rng(4)
    d, n, runs = rng.normal(0, 0.02, (3, 5, 2)), np.full(3, 90.0), np.arange(3)
    from simstudy.stats.baselines import Outcome

    def both(x):
        return np.array([list(ttest_5x2cv(y)) for y in x]).T

    forms = {
        "result": (lambda x: ttest_5x2cv(x), lambda x: Outcome(*both(x))),
        "tuple": (lambda x: tuple(ttest_5x2cv(x)), lambda x: tuple(both(x))),
        "p only": (lambda x: ttest_5x2cv(x).pvalue, lambda x: both(x)[1]),
    }
    want = [ttest_5x2cv(x).pvalue for x in d]
    for name, (one, many) in forms.items():
        def f(x, *, n_train, n_test, _one=one):
            return _one(x)

        def g(x, *, n_train, n_test, _many=many):
            return _many(x)

        g.vectorized = True
        a = UserTest.of(f).pvalues(d, n, n, runs=runs, where="w")
        b = UserTest.of(g).pvalues(d, n, n, runs=runs, where="w")
        assert a.pvalue.tolist() == b.pvalue.tolist() == want, name
        assert np.isnan(a.statistic).all() == (name == "p only"), name
    # simstudy's t results carry the interval they invert (scipy's confidence_interval());
    # an F result has none, and gives no interval rather than an error
    got = UserTest.of(lambda x, *, n_train, n_test: ttest_5x2cv(x)).pvalues(
        d, n, n, runs=runs, where="w")
    lo, hi = ttest_5x2cv(d[0]).confidence_interval(0.95)
    assert (got.ci_low[0], got.ci_high[0]) == (lo, hi) and lo < d[0, 0, 0] < hi
    assert UserTest.of(lambda x, *, n_train, n_test: ftest_5x2cv(x)).pvalues(
        d, n, n, runs=runs, where="w").ci_low is None
    with pytest.raises(SimstudyError, match="returned 'p' on w, run 0; it must return a result "
                                            "with .statistic and .pvalue"):
        UserTest.of(lambda x, *, n_train, n_test: "p").pvalues(d, n, n, runs=runs, where="w")


# --- K learners ------------------------------------------------------------------------------

def test_choice_functions_go_through_the_same_adapter(tmp_path):
    s = get_study("demo", runs=4).select("iris/nmc~1nn")
    s = s.replace(cells=[Cell("iris", ("nmc", "1nn", "lda"), "5x2", ("multitest",))])
    with Store(tmp_path / "k.sqlite") as st:
        run_study(s, st, backend="serial", progress=False)

    def first(errors, *, alpha):
        return 0

    def first_vec(errors, *, alpha):
        assert errors.shape == (4, 3, 5, 2)
        return np.zeros(len(errors), dtype=int)

    first_vec.vectorized = True
    a = bench_choice(first, s, tmp_path / "k.sqlite", name="first")
    b = bench_choice(first_vec, s, str(tmp_path / "k.sqlite"), name="first")
    pd.testing.assert_frame_equal(a, b)
    assert (a[a["method"] == "first"]["nmc"] == 100.0).all()

    # undeclared designs are probed, as for pairwise tests: a ValueError skips the cell
    def picky(errors, *, alpha):
        raise ValueError("10x10 only")

    with pytest.raises(SimstudyError, match="fits no design.*it raised ValueError: 10x10 only"):
        bench_choice(picky, s, tmp_path / "k.sqlite")


def test_bench_shows_progress_over_trials(store, capsys):
    path, s = store
    bench(F_scalar, s.select("iris/nmc~1nn"), path, name="F", progress=True)
    err = capsys.readouterr().err
    assert "bench F" in err and "6/6" in err


@pytest.mark.parametrize("module", ["usertest", "benchmark", "testcard", "aggregate", "store"])
def test_docstring_examples_run(module, tmp_path, monkeypatch):
    import doctest
    import importlib

    monkeypatch.chdir(tmp_path)
    mod = importlib.import_module(f"simstudy.{module}")
    assert doctest.testmod(mod, optionflags=doctest.ELLIPSIS).failed == 0
