"""Named tests over fold losses (simstudy.stats.registry) on the one registry idiom."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import simstudy.stats as S
from simstudy.core import FoldLosses
from simstudy.designs import get_design
from simstudy.errors import SimstudyError
from simstudy.stats.registry import (
    TESTS,
    ChoiceMethod,
    StatTest,
    check_tests_fit,
    describe_tests,
    get_test,
    is_choice,
    list_tests,
    register_choice,
    register_test,
)
from simstudy.store import stats_version

STATS = Path(S.__file__).resolve().parent


def _fl(R: int, F: int, seed: int = 0) -> FoldLosses:
    rng = np.random.default_rng(seed)
    e = rng.uniform(0.05, 0.4, size=(3, R, F))
    return FoldLosses(e, np.full((R, F), 90), np.full((R, F), 60))


def test_every_entry_has_a_description_and_the_baselines_are_there():
    rows = dict(describe_tests())
    for name in ("t5x2cv", "F5x2cv", "FB5x2cv", "tB3x2cv", "cv-t", "resampled-t",
                 "corrected-resampled-t", "corrected-rxk-t", "rxk-t", "mcnemar", "proportions",
                 "anova", "newman-keuls", "multitest", "testfirst"):
        assert rows.get(name, "").strip(), name
    assert set(rows) == set(list_tests()) == set(TESTS.names())
    assert "[crit=two-sided|one-sided]" in rows["tB3x2cv"]
    assert "multitest[holm=1]" in rows["multitest"]


@pytest.mark.parametrize("name, fn, R, F", [
    ("t5x2cv", lambda d, fl: S.ttest_5x2cv(d), 5, 2),
    ("F5x2cv", lambda d, fl: S.ftest_5x2cv(d), 5, 2),
    ("cv-t", lambda d, fl: S.ttest_kfold(d[0]), 1, 10),
    ("rxk-t", lambda d, fl: S.ttest_repeated_kfold(d), 10, 10),
    ("corrected-rxk-t", lambda d, fl: S.ttest_corrected_repeated_kfold(
        d, n_train=90.0, n_test=60.0), 10, 10),
    ("corrected-resampled-t", lambda d, fl: S.ttest_corrected_resampled(
        d[:, 0], n_train=90.0, n_test=60.0), 15, 1),
])
def test_a_named_test_is_its_pure_function_on_the_pair(name, fn, R, F):
    fl = _fl(R, F)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        got = get_test(name)(fl, a, b)
        want = fn(fl.errors[a] - fl.errors[b], fl)
        assert (got.statistic, got.pvalue, got.df) == (want.statistic, want.pvalue, want.df)


def test_corrected_resampled_t_against_a_hand_computation():
    # Nadeau & Bengio: t = mean / sqrt((1/n + n2/n1) s^2), df n - 1
    fl = _fl(15, 1, seed=3)
    d = fl.errors[0, :, 0] - fl.errors[1, :, 0]
    t = d.mean() / np.sqrt((1 / 15 + 60 / 90) * d.var(ddof=1))
    r = get_test("corrected-resampled-t")(fl, 0, 1)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.pvalue == pytest.approx(2 * stats.t.sf(abs(t), 14), rel=1e-10)


def test_parameters_go_through_the_one_spec_parser():
    one = get_test("tB3x2cv[crit=one-sided]")
    assert isinstance(one, StatTest) and one.name == "tB3x2cv[crit=one-sided]"
    assert get_test("tB3x2cv[crit=two-sided]").name == "tB3x2cv[crit=two-sided]"
    fl = _fl(3, 2)
    assert get_test("tB3x2cv[crit=two-sided]")(fl).pvalue == get_test("tB3x2cv")(fl).pvalue
    holm = get_test("multitest[holm=1]")
    assert isinstance(holm, ChoiceMethod) and holm.name == "multitest[holm=1]"
    assert is_choice("testfirst[family=pairs]") and not is_choice("t5x2cv")


@pytest.mark.parametrize("spec, needles", [
    ("nosuch", ["unknown test 'nosuch'", "valid choices", "t5x2cv", "multitest"]),
    ("tB3x2cv[crit=left]", ["'left'", "one-sided, two-sided"]),
    ("t5x2cv[alpha=1]", ["'alpha'", "t5x2cv"]),
    ("tB3x2cv[ crit=one-sided]", ["canonical form 'tB3x2cv[crit=one-sided]'"]),
    ("multitest[holm=2]", ["'multitest[holm=2]'", "multitest[holm=1]"]),
    ("testfirst[famly=pairs]", ["'famly'", "family"]),
])
def test_bad_names_get_one_error_shape(spec, needles):
    with pytest.raises(SimstudyError) as e:
        get_test(spec)
    for n in needles:
        assert n in str(e.value), str(e.value)


def test_adding_a_test_is_one_decorated_function():
    @register_test("sign-test-demo", fits=lambda d: True, params={"side": ("two", "one")})
    def _sign(fl, a, b, side="two"):
        """binomial sign test on the fold differences (a demo)"""
        d = (fl.errors[a] - fl.errors[b]).ravel()
        k, n = int((d > 0).sum()), int((d != 0).sum())
        alt = "two-sided" if side == "two" else "greater"
        return S.TestResult(float(k), float(stats.binomtest(k, n, alternative=alt).pvalue),
                            None, alt)

    @register_choice("first-demo", fits=lambda d: True)
    def _first(errors, alpha):
        """always the simplest learner (a demo)"""
        return 0, None

    try:
        assert ("sign-test-demo", "binomial sign test on the fold differences (a demo); "
                "[side=two|one]") in describe_tests()
        fl = _fl(5, 2, seed=1)
        d = (fl.errors[0] - fl.errors[1]).ravel()
        r = get_test("sign-test-demo[side=one]")(fl, 0, 1)
        assert r.pvalue == stats.binomtest(int((d > 0).sum()), 10, alternative="greater").pvalue
        assert get_test("first-demo")(fl.errors, 0.05) == (0, None)
        assert is_choice("first-demo")
    finally:
        TESTS.unregister("sign-test-demo")
        TESTS.unregister("first-demo")
    with pytest.raises(SimstudyError, match="sign-test-demo"):
        get_test("sign-test-demo")


def test_check_tests_fit_names_the_tests_that_fit():
    check_tests_fit(("t5x2cv", "F5x2cv", "anova", "multitest"), get_design("5x2"))
    with pytest.raises(SimstudyError) as e:
        check_tests_fit(("t5x2cv",), get_design("10x10cv"))
    msg = str(e.value)
    assert "'t5x2cv'" in msg and "rxk-t" in msg and "corrected-rxk-t" in msg
    assert "F5x2cv" not in msg.split("fit it:")[1]


def test_stats_version_hashes_the_statistics_code_where_it_now_lives():
    h = hashlib.sha256()
    for f in sorted(STATS.glob("*.py")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    assert stats_version() == h.hexdigest()[:12]
    assert (STATS / "registry.py").is_file() and not (STATS.parent / "stattests.py").exists()


def test_the_stats_package_stays_pure():
    # no file, process, network or database access in simstudy/stats: only numeric imports
    allowed = {"__future__", "math", "functools", "dataclasses", "typing", "collections.abc",
               "numpy", "scipy", "errors", "core", "registry", "spec", "params", ""}
    for f in sorted(STATS.glob("*.py")):
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""]
            else:
                if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open":
                    pytest.fail(f"{f.name} calls open()")
                continue
            for m in mods:
                assert m in allowed or m.split(".")[0] in {"numpy", "scipy"} or (
                    isinstance(node, ast.ImportFrom) and node.level == 1), (f.name, m)


# --- one entry per test: the batch form is the scalar form, trial by trial -------------------

_BATCH_DESIGNS = ("5x2cv", "b5x2", "b3x2", "1x10cv", "2x5cv", "10x10cv", "resample", "ncv")


def _batch_trials(design, T: int = 12):
    """T synthetic trials of ``design`` (fold sizes varying with n; the last two with
    identical learners, so undefined statistics) as FoldLosses and stacked."""
    from simstudy.seeding import trial_seed
    from simstudy.stats.baselines import Trials
    from simstudy.testing import fold_losses

    fls = [fold_losses(design, n=57 + 3 * i, seed=i, learners=3, same=i >= T - 2)
           for i in range(T)]
    fls = [dataclasses.replace(fl, seed=trial_seed(7, "c", i)) for i, fl in enumerate(fls)]
    tr = Trials(np.stack([fl.errors for fl in fls]), np.stack([fl.n_train for fl in fls]),
                np.stack([fl.n_test for fl in fls]), losses=[fl.losses for fl in fls],
                seeds=[fl.seed for fl in fls])
    return fls, tr


def _bits(x) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    return np.where(np.isnan(x), np.nan, x).view(np.uint64)  # every nan one pattern


def test_every_batch_form_is_its_scalar_form_bit_for_bit():
    from simstudy.testing import test_specs

    checked = set()
    for dname in _BATCH_DESIGNS:
        design = get_design(dname)
        fls, tr = _batch_trials(design)
        for spec in test_specs():
            test = get_test(spec)
            if isinstance(test, ChoiceMethod) or test.batch is None or not test.fits(design):
                continue
            for a, b in ((0, 1), (2, 0)):
                out = test.batch(tr, a, b)
                one = [test(fl, a, b) for fl in fls]
                assert np.array_equal(_bits(out.pvalue), _bits([r.pvalue for r in one])), \
                    (spec, dname, a, b)
                assert np.array_equal(_bits(out.statistic), _bits([r.statistic for r in one])), \
                    (spec, dname, a, b)
            checked.add(spec)
    # every test with a batch form was checked on some design, the classic ones included
    batched = {s for s in test_specs() if not isinstance(get_test(s), ChoiceMethod)
               and get_test(s).batch is not None}
    assert checked == batched
    assert {"t5x2cv", "F5x2cv", "FB5x2cv", "tB3x2cv", "tB3x2cv[crit=one-sided]", "cv-t",
            "resampled-t", "corrected-resampled-t", "corrected-rxk-t", "rxk-t"} <= checked


def test_the_choice_batch_is_the_choice_trial_by_trial():
    from simstudy.stats.baselines import choose

    fls, tr = _batch_trials(get_design("5x2cv"), T=6)
    for spec in ("mcs", "mcs[stat=max]"):
        want = [get_test(spec)(fl.errors, 0.05)[0] for fl in fls]
        assert choose(spec, tr).tolist() == [-1 if w is None else w for w in want]


def test_baselines_are_the_tagged_entries_in_registration_order():
    from simstudy.stats.registry import baselines, declaration

    card = baselines(fold_errors_only=True)
    table = baselines()
    assert card == ("bayes-correlated-t", "conservative-z", "combined-t5x2cv", "wilcoxon",
                    "sign-test")
    assert table[:5] == card and "cv-clt[alternative=greater]" in table
    assert all("baseline" in declaration(s).tags for s in table)
    assert not any(get_test(s).needs_losses for s in card)
    assert baselines("choice") == ("mcs", "mcs[stat=max]")
    assert "t5x2cv" not in table and not declaration("t5x2cv").tags
    # the source column of the baselines tables: every entry cites where it comes from
    assert all(declaration(n).source for n in list_tests())
    assert declaration("mcs[stat=max]").source == declaration("mcs").source

    # a newly tagged entry joins the tables by its declaration alone
    @register_test("tagged-example", fits=lambda d: True, tags=("baseline",),
                   batch=lambda tr, a, b: None)
    def _tagged(fl, a, b):
        """an example"""
        return S.TestResult(0.0, 1.0)

    try:
        assert baselines(fold_errors_only=True)[-1] == "tagged-example"
    finally:
        TESTS.unregister("tagged-example")


def test_results_unpack_scipy_style_with_an_interval_where_one_exists():
    d = np.array([0.02, 0.01, 0.03, 0.00, 0.02])
    r = S.ttest_kfold(d)
    t, p = r
    ref = stats.ttest_1samp(d, 0.0)
    assert (t, p) == (r.statistic, r.pvalue)
    assert np.isclose(t, ref.statistic) and np.isclose(p, ref.pvalue)
    assert np.allclose(r.confidence_interval(0.9), tuple(ref.confidence_interval(0.9)))
    with pytest.raises(SimstudyError, match="no confidence interval"):
        S.ftest_5x2cv(np.arange(10).reshape(5, 2) / 10).confidence_interval()
    stat, pv = get_test("t5x2cv")(_fl(5, 2))
    assert 0 <= pv <= 1 and np.isfinite(stat)
