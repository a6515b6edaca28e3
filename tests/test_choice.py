"""The choice methods of Yıldız & Alpaydın (2006) as wrappers ``fn(errors (K,5,2), alpha)``.

Checked on hand-made error arrays whose pairwise one-sided 5×2 cv t statistics are known,
on the paper's Fig. 2 example and on its pendigits / hepatitis examples (§4.3), with
scipy as the independent reference for every p-value a decision depends on.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from simstudy.errors import SimstudyError
from simstudy.stats.choice import (
    anova_choice,
    multitest_choice,
    newman_keuls_choice,
    testfirst_choice,
)
from simstudy.stats.registry import TESTS, ChoiceMethod, declaration, get_test

#: every choice method the registry declares, each variant as its own spec
CHOICE_SPECS = sorted(s for e in TESTS for s in declaration(e.name).specs
                      if isinstance(get_test(e.name), ChoiceMethod))


def get_choice(name):
    """The registered choice method's function (``fn(errors, alpha) -> (best, order)``)."""
    return get_test(name).fn

REF = Path(__file__).resolve().parents[1] / "studies" / "reference"
EX = json.loads((REF / "yildiz2006_fig2_example.json").read_text())

# fixed (5, 2) noise patterns (seeded once; the learners' errors are mean + eps * pattern)
_PAT = np.random.default_rng(2006).standard_normal((6, 5, 2))
_PAT -= _PAT.mean(axis=(1, 2), keepdims=True)  # mean 0: a learner's mean error is exact
_PAT /= np.sqrt((_PAT**2).mean(axis=(1, 2), keepdims=True))  # sum of squares 10 each


def _errors(means, eps=0.002):
    """(K, 5, 2) errors: learner k = means[k] + eps * its own noise pattern."""
    return np.stack([m + eps * _PAT[k] for k, m in enumerate(means)])


def _t5x2_one_sided_p(d):
    """Independent one-sided 5×2 cv t p-value (Yıldız & Alpaydın 2006 eq. 7), by scipy."""
    s2 = ((d - d.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
    t = d[0, 0] / np.sqrt(s2.mean())
    return float(stats.t.sf(t, 5))


def _edges(e, level):
    k = e.shape[0]
    return sorted((i + 1, j + 1) for i in range(k) for j in range(i + 1, k)
                  if _t5x2_one_sided_p(e[i] - e[j]) < level)


# ------------------------------------------------------------------------ Fig. 2 (K = 4)
def test_multitest_choice_on_fig2():
    # 1 worse than 2, 3, 4; 2 worse than 3; 2 and 4, 3 and 4 not: the edges of Fig. 2a
    e = _errors([0.40, 0.20, 0.10, 0.25])
    assert _edges(e, 0.05 / 6) == sorted(map(tuple, EX["edges"]))  # precondition, by scipy
    best, order = multitest_choice(e, 0.05)
    assert best + 1 == EX["best"] == 3
    assert [o + 1 for o in order] == EX["ordering"] == [3, 2, 4, 1]
    # 3 has the smallest mean and beats both simpler learners: TestFirst picks it too
    assert testfirst_choice(e, 0.05) == (2, None)
    # tiny noise: every range differs, nothing underlined, the first (3) is NK's best
    assert newman_keuls_choice(e, 0.05) == (2, None)
    assert anova_choice(e, 0.05) == (None, None)


# ------------------------------------------------------------ pendigits and hepatitis (K = 5)
PEN_MEANS = [0.9005, 0.1570, 0.0624, 0.0745, 0.0074]  # Table 1, pendigits


def test_pendigits_example_5_3_4_2_1():
    pen = EX["other_examples_from_text"][0]
    e = _errors(PEN_MEANS)
    assert _edges(e, 0.05 / 10) == sorted(map(tuple, pen["edges_list"]))  # all but (3, 4)
    best, order = multitest_choice(e, 0.05)
    assert [o + 1 for o in order] == pen["ordering"] == [5, 3, 4, 2, 1]
    assert best == 4
    # "TestFirst also selects 5"; NK "does not underline any: 5 3 4 2 1" -> 5; Anova rejects
    assert testfirst_choice(e, 0.05) == (4, None)
    assert newman_keuls_choice(e, 0.05) == (4, None)
    assert anova_choice(e, 0.05) == (None, None)
    # Holm rejects at least what Bonferroni rejects; here the same graph
    assert get_choice("multitest[holm=1]")(e, 0.05) == (best, order)


def test_hepatitis_example_no_edges():
    # equal expected errors, noise far larger than the differences of means (§4.3, Fig. 3)
    hep = EX["other_examples_from_text"][1]
    e = _errors([0.2065, 0.1903, 0.1725, 0.2124, 0.1878], eps=0.035)
    assert _edges(e, 0.05 / 10) == hep["edges_list"] == []
    best, order = multitest_choice(e, 0.05)
    assert (best, [o + 1 for o in order]) == (0, hep["ordering"])
    assert stats.f_oneway(*e.reshape(5, -1)).pvalue >= 0.05  # precondition: Anova accepts
    assert anova_choice(e, 0.05) == (0, (0, 1, 2, 3, 4))
    assert newman_keuls_choice(e, 0.05) == (0, None)  # all five underlined
    # "TestFirst cannot find the best algorithm because 3 (LGC) has the smallest average
    # error but it is not the simplest"
    assert int(np.argmin(e.reshape(5, -1).mean(1))) == 2
    assert testfirst_choice(e, 0.05) == (None, None)


# ------------------------------------------------------------------------------- ANOVA
@pytest.mark.parametrize("seed", range(12))
def test_anova_choice_accepts_iff_scipy_accepts(seed):
    rng = np.random.default_rng(seed)
    e = 0.2 + rng.normal(0, 0.03, (5, 5, 2)) + rng.normal(0, 0.012, (5, 1, 1))
    p = stats.f_oneway(*e.reshape(5, -1)).pvalue
    best, order = anova_choice(e, 0.05)
    if p >= 0.05:
        assert (best, order) == (0, (0, 1, 2, 3, 4))
    else:
        assert (best, order) == (None, None)


def test_anova_choice_both_outcomes_occur_in_the_seeds_above():
    ps = []
    for seed in range(12):
        rng = np.random.default_rng(seed)
        e = 0.2 + rng.normal(0, 0.03, (5, 5, 2)) + rng.normal(0, 0.012, (5, 1, 1))
        ps.append(stats.f_oneway(*e.reshape(5, -1)).pvalue)
    assert min(ps) < 0.05 <= max(ps)


# --------------------------------------------------------------------------- TestFirst
def _tf_case(t0):
    """K = 5, NMC (index 1) has the smallest mean; d = MAX - NMC has one-sided t = t0."""
    a = 0.01
    c = t0 * a * np.sqrt(2.0) - a  # d[i] = (c + a, c - a): s_i^2 = 2a^2, t = (c + a)/(a sqrt 2)
    d = np.tile([c + a, c - a], (5, 1))
    nmc = 0.2 + 0.001 * _PAT[1]
    e = np.stack([nmc + d, nmc, nmc + 0.3, nmc + 0.3, nmc + 0.3])
    return e, _t5x2_one_sided_p(e[0] - e[1])


def test_testfirst_family_k_minus_1_versus_pairs():
    e, p = _tf_case(3.5)
    assert 0.05 / 10 < p < 0.05 / 4  # precondition, by scipy
    assert testfirst_choice(e, 0.05) == (1, None)  # Bonferroni over K - 1 = 4 rejects
    assert get_choice("testfirst[family=pairs]")(e, 0.05) == (None, None)  # alpha/10 does not
    assert testfirst_choice(e, 0.05, family=10) == (None, None)
    e2, p2 = _tf_case(6.0)
    assert p2 < 0.05 / 10
    assert get_choice("testfirst[family=pairs]")(e2, 0.05) == (1, None)
    # MultiTest on the same errors: edge MAX -> NMC only at alpha/10 -> best NMC
    assert multitest_choice(e2, 0.05)[0] == 1
    assert multitest_choice(e, 0.05)[0] == 0  # no edge at alpha/10: MAX, the simplest


def test_testfirst_simplest_smallest_mean_needs_no_test():
    e = _errors([0.10, 0.30, 0.30, 0.30, 0.30], eps=0.05)
    assert testfirst_choice(e, 0.05) == (0, None)


# ------------------------------------------------------------------------- Newman–Keuls
def test_newman_keuls_choice_reads_all_ten_folds():
    # Newman–Keuls on (K, L = 10): the wrapper must pass every fold, not the first replication
    from simstudy.stats import newman_keuls

    rng = np.random.default_rng(7)
    for _ in range(20):
        e = 0.2 + rng.normal(0, 0.03, (5, 5, 2)) + rng.normal(0, 0.02, (5, 1, 1))
        assert newman_keuls_choice(e, 0.05)[0] == newman_keuls(e.reshape(5, 10)).best


def test_newman_keuls_choice_can_find_none():
    # the paper's counter-example: sorted 5 4 2 1 3 with underlines {5,4,2} and {2,1}.
    # With mean-0 patterns of sum of squares 10, MSE = eps^2 10/9 and sqrt(MSE/L) = eps/3:
    # eps = 0.08 accepts 5..2 (0.05 < 3.43 s), rejects 4..1 (0.10 > 3.43 s), accepts 2..1
    # (0.07 < 2.85 s), with q_{.05, P, 45} = 2.85 (P = 2), 3.43 (P = 3).
    from simstudy.stats import newman_keuls

    e = _errors([0.22, 0.15, 0.40, 0.12, 0.10], eps=0.08)
    r = newman_keuls(e.reshape(5, 10))
    assert r.order == (4, 3, 1, 0, 2)
    assert r.groups == ((4, 3, 1), (1, 0))
    assert newman_keuls_choice(e, 0.05) == (None, None)
    # the same errors: MultiTest always finds a best
    assert multitest_choice(e, 0.05)[0] is not None


# ------------------------------------------------------------------------------- input
@pytest.mark.parametrize("name", CHOICE_SPECS)
def test_bad_input(name):
    fn = get_choice(name)
    with pytest.raises(SimstudyError, match="shape"):
        fn(np.zeros((5, 10)), 0.05)
    with pytest.raises(SimstudyError, match="shape"):
        fn(np.zeros((1, 5, 2)), 0.05)
    with pytest.raises(SimstudyError, match="alpha"):
        fn(np.full((5, 5, 2), 0.1), 1.5)
    with pytest.raises(SimstudyError, match="finite"):
        fn(np.full((5, 5, 2), np.nan), 0.05)


def test_unknown_choice_lists_the_names():
    with pytest.raises(SimstudyError, match="multitest"):
        get_choice("multi-test")


def test_equal_errors_every_method_prefers_the_simplest_or_none():
    e = np.full((5, 5, 2), 0.2)  # zero variance: every statistic undefined, p = 1
    assert multitest_choice(e, 0.05) == (0, (0, 1, 2, 3, 4))
    assert anova_choice(e, 0.05) == (0, (0, 1, 2, 3, 4))
    assert newman_keuls_choice(e, 0.05) == (0, None)
    assert testfirst_choice(e, 0.05) == (0, None)
