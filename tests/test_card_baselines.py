"""The card ranks a user's test among the tests proposed since 1998 as well as the classic ones."""

import numpy as np
import pytest

import simstudy as ss
from simstudy.errors import SimstudyError
from simstudy.stats import ttest_5x2cv
from simstudy.stats.baselines import Trials, evaluate
from simstudy.stats.registry import baselines
from simstudy.store import Store
from simstudy.testcard import card


def _t(d, *, n_train, n_test):
    return ttest_5x2cv(d)


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    path = tmp_path_factory.mktemp("cb") / "s.sqlite"
    ss.run("demo", runs=6, store=path, filter="iris/nmc", progress=False)
    return path


def test_new_baselines_are_ranked_beside_the_classic_tests(demo):
    c = card(_t, ["demo"], demo)
    tests = c.summary["test"].tolist()
    assert tests[0] == "_t"  # the new test first
    assert {"t5x2cv", "F5x2cv"} <= set(tests)
    assert set(baselines(fold_errors_only=True)) <= set(tests)  # every fold-error baseline fits 5x2


def test_a_baseline_reject_rate_is_its_own_decisions_on_the_same_trials(demo):
    c = card(_t, ["demo"], demo)
    with Store(demo, readonly=True) as st:
        held = st.holdings()
        (tr,) = st.fold_errors(held["cell"].tolist(), int(held["seed"].iloc[0])).values()
    p = evaluate("combined-t5x2cv", Trials(tr.errors, tr.n_train, tr.n_test)).pvalue
    row = c.summary.set_index("test").loc["combined-t5x2cv"]
    assert row["mean_reject_unknown"] == pytest.approx(np.mean(p < 0.05))


def test_classic_only_and_unknown_names(demo):
    tests = card(_t, ["demo"], demo, baselines=()).summary["test"].tolist()
    assert not set(baselines(fold_errors_only=True)) & set(tests)
    with pytest.raises(SimstudyError, match="no-such-test"):
        card(_t, ["demo"], demo, baselines=("no-such-test",))
