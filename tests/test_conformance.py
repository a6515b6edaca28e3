"""Every registered learner and test against the conformance checks of
:mod:`simstudy.testing` (the batch contract; p-values, swaps, undefined statistics and
alternatives), parametrised from the registries: a learner or test registered later is
checked without editing this file."""

from __future__ import annotations

import pytest

from simstudy.testing import check_learner, check_test, learner_specs, test_specs

# spec variants the descriptions do not list with values: rpart's pruned regression tree
EXTRA_LEARNERS = ["rt[cp=0.01]"]
# whose reference path is another model: rt[cp=...]@sklearn is the unpruned tree
NO_REFERENCE = {"rt[cp=0.01]"}


@pytest.mark.parametrize("spec", learner_specs() + EXTRA_LEARNERS)
def test_learner_conforms(spec: str) -> None:
    check_learner(spec, reference=spec not in NO_REFERENCE)


@pytest.mark.xfail(strict=True, reason="rt[cp=...]@sklearn ignores cp (reference_estimator "
                   "falls back to the unpruned tree); 18 of 99 predictions differ")
def test_rpart_tree_agrees_with_its_reference() -> None:
    check_learner("rt[cp=0.01]")


@pytest.mark.parametrize("name", test_specs())
def test_test_conforms(name: str) -> None:
    check_test(name)


def test_every_registered_name_is_covered() -> None:
    from simstudy.learners import list_learners
    from simstudy.stats.registry import list_tests

    learners = {s.split("[")[0] for s in learner_specs()}
    assert {n.replace("<h>", "3") for n in list_learners()} <= learners
    assert set(list_tests()) <= set(test_specs())


def test_a_learner_that_peeks_at_the_batch_fails() -> None:
    from simstudy.learners.base import Learner

    class Peeking(Learner):
        name = "peeking"

        def fit_predict(self, X, y, train, test, seeds):
            import numpy as np

            out = np.full(train.shape, -1, np.int64)
            out[test] = len(train) % 2  # depends on the batch size
            return out

    from simstudy.learners import register

    register("peeking-conformance", Peeking)
    try:
        with pytest.raises(AssertionError, match="differently"):
            check_learner("peeking-conformance")
    finally:
        from simstudy.learners.registry import LEARNERS

        LEARNERS.unregister("peeking-conformance")


# --- check_test and check_learner take objects, specs and functions -------------------------

def test_check_test_takes_a_registry_object_and_a_users_function(tmp_path) -> None:
    from simstudy.errors import SimstudyError
    from simstudy.stats import ttest_5x2cv
    from simstudy.stats.registry import get_test

    check_test(get_test("tB3x2cv[crit=one-sided]"))

    def my_t(d, *, n_train, n_test):
        return ttest_5x2cv(d)

    check_test(my_t)  # undeclared designs: probed, as card probes a cell
    my_t.designs = {"5x2cv"}
    check_test(my_t)
    path = tmp_path / "mine.py"
    path.write_text("from simstudy.stats import ttest_5x2cv\n"
                    "def t(d, *, n_train, n_test):\n    return ttest_5x2cv(d)\n")
    check_test(f"{path}:t")

    def nan_is_not_undefined(d, *, n_train, n_test):
        return float("nan"), 0.5  # an undefined statistic must give p = 1

    with pytest.raises(AssertionError, match="undefined statistic but p = 0.5"):
        check_test(nan_is_not_undefined)
    calls = []

    def counted(d, *, n_train, n_test):
        calls.append(1)
        return 0.0, 1.0

    check_test(counted, call=False)  # the declarations alone: not called
    assert calls == []
    with pytest.raises(SimstudyError, match="cannot be called as f"):
        check_test(lambda d: 0.5, call=False)

    def best_first(errors, *, alpha):
        return 0

    check_test(best_first, kind="choice")

    def out_of_range(errors, *, alpha):
        return 7

    with pytest.raises(SimstudyError, match="learner index 0..2 or None, got 7"):
        check_test(out_of_range, kind="choice")
    with pytest.raises(SimstudyError, match="unknown test 'no-such-test'"):
        check_test("no-such-test")


def test_variants_come_from_the_declared_parameters() -> None:
    from simstudy.stats.registry import declaration

    specs = test_specs()
    assert {"tB3x2cv[crit=one-sided]", "cv-clt[alternative=less]", "multitest[holm=1]",
            "mcs[stat=max]", "paired-bootstrap[resamples=exact]"} <= set(specs)
    assert declaration("cv-clt").params["alternative"] == ("two-sided", "greater", "less")
    assert declaration("testfirst").specs == ("testfirst", "testfirst[family=pairs]")


def test_check_learner_takes_a_learner_object() -> None:
    from simstudy.learners import get_learner

    check_learner(get_learner("nmc"))
