"""The uncorrected repeated k-fold cv t test (Bouckaert & Frank 2004 §3.3, §4.3): ``rxk-t``."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from simstudy.core import FoldLosses
from simstudy.designs import get_design
from simstudy.errors import SimstudyError
from simstudy.stats import ttest_corrected_repeated_kfold, ttest_kfold, ttest_repeated_kfold
from simstudy.stats.registry import get_test


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("seed", range(5))
def test_equals_scipy_one_sample_t_on_all_differences(seed: int, alternative: str) -> None:
    rng = np.random.default_rng(seed)
    d = rng.normal(0.01 * (seed - 2), 0.05, size=(10, 10))
    r = ttest_repeated_kfold(d, alternative=alternative)
    ref = stats.ttest_1samp(d.ravel(), 0.0, alternative=alternative)
    assert r.df == 99
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10, abs=1e-300)


def test_hand_computed_2x2() -> None:
    d = np.array([[0.1, 0.2], [0.0, 0.3]])
    # m = 0.15, s^2 = (0.0025 + 0.0025 + 0.0225 + 0.0225) / 3 = 0.05/3, t = m / sqrt(s^2 / 4)
    t = 0.15 / np.sqrt((0.05 / 3) / 4)
    r = ttest_repeated_kfold(d)
    assert r.statistic == pytest.approx(t, rel=1e-12)
    assert r.df == 3
    assert r.pvalue == pytest.approx(2 * stats.t.sf(t, 3), rel=1e-10)


def test_one_run_is_the_kfold_t_and_correction_only_shrinks_t() -> None:
    rng = np.random.default_rng(7)
    d = rng.normal(0.02, 0.04, size=(1, 10))
    assert ttest_repeated_kfold(d).statistic == pytest.approx(ttest_kfold(d[0]).statistic, rel=1e-12)
    d = rng.normal(0.02, 0.04, size=(10, 10))
    corr = ttest_corrected_repeated_kfold(d, n_train=90, n_test=10)
    unc = ttest_repeated_kfold(d)
    # the correction replaces 1/(rk) by 1/(rk) + n2/n1: t shrinks by sqrt(1 + rk n2/n1)
    assert corr.statistic == pytest.approx(unc.statistic / np.sqrt(1 + 100 / 9), rel=1e-12)
    assert corr.pvalue > unc.pvalue


def test_zero_variance_never_rejects_and_bad_input_raises() -> None:
    r = ttest_repeated_kfold(np.full((10, 10), 0.03))
    assert np.isnan(r.statistic) and r.pvalue == 1.0
    with pytest.raises(SimstudyError, match="alternative"):
        ttest_repeated_kfold(np.zeros((2, 2)) + [[0.1, 0.2], [0.0, 0.1]], alternative="both")
    with pytest.raises(SimstudyError):
        ttest_repeated_kfold([0.1, 0.2, 0.3])  # 1-d: not an (r, k) array


def test_registered_for_kfold_designs_with_df_rk_minus_1() -> None:
    t = get_test("rxk-t")
    assert t.fits(get_design("10x10cv")) and t.fits(get_design("1x10cv"))
    assert not t.fits(get_design("resample[r=10]"))
    rng = np.random.default_rng(3)
    errors = rng.uniform(0.1, 0.3, size=(2, 10, 10))
    fl = FoldLosses(errors, np.full((10, 10), 90), np.full((10, 10), 10))
    r = t(fl, 0, 1)
    ref = stats.ttest_1samp((errors[0] - errors[1]).ravel(), 0.0)
    assert r.df == 99
    assert r.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert r.pvalue == pytest.approx(ref.pvalue, rel=1e-10)
