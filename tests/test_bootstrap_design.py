"""The out-of-bag bootstrap design: training sets that repeat instances, built as rows by the
runner, and the .632+ interval method that reads it."""

from __future__ import annotations

import numpy as np
import pytest

import simstudy as ss
from simstudy.core import FoldLosses
from simstudy.designs import get_design
from simstudy.errors import SimstudyError
from simstudy.seeding import design_seed, source_seed
from simstudy.sources import get_source
from simstudy.stats.interval_registry import get_interval, list_intervals
from simstudy.stats.intervals import oob_632plus_interval
from simstudy.store import Store
from simstudy.study import Cell, Study

SEED, R = 5, 12
CELL = Cell("breast-cancer", ("max", "nmc"), f"boot[r={R}]", (),
            (("intervals", ("oob-632plus",)),))


@pytest.fixture(scope="module")
def stored(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("boot") / "s.sqlite")
    ss.run(Study("boot", [CELL], runs=2, seed=SEED, meta={"keep_losses": True}), store=path,
           progress=False, render="none")
    with Store(path, readonly=True) as st:
        return st.fold_errors([CELL.id], SEED)[CELL.id], st.losses(CELL.id, SEED)


def test_the_majority_learner_is_fitted_on_each_bootstrap_multiset(stored):
    tr, losses = stored
    src = get_source(CELL.source)
    for t, run in enumerate(tr.runs):
        y = src.sample(np.random.default_rng(source_seed(SEED, CELL.id, CELL.source, int(run),
                                                         None))).y
        n = y.size
        counts, shift = get_design(CELL.design)._draw(n, np.random.default_rng(
            design_seed(SEED, CELL.id, int(run))))
        L = losses[t][0, :, 0]  # learner 'max': (R + 2, n), -1 off test
        majority = np.argmax(np.bincount(y))  # the full fits (ties: lowest code)
        assert (L[0] == (y != majority)).all()  # apparent: every instance tested
        assert (L[1] == (np.roll(y, -shift) != majority)).all()  # x_j against y_(j+s)
        for b in range(R):  # the class counts of the multiset, not of its distinct members
            cls = np.argmax(np.bincount(np.repeat(y, counts[b]), minlength=y.max() + 1))
            oob = counts[b] == 0
            assert (L[2 + b][oob] == (y[oob] != cls)).all() and (L[2 + b][~oob] == -1).all()
        assert (tr.n_train[t] == n).all()  # every fit on n rows, repeats included
        assert (tr.n_test[t, 2:, 0] == (counts == 0).sum(1)).all()


def test_the_632plus_method_reads_the_stored_trial_as_by_hand(stored):
    tr, losses = stored
    fl = FoldLosses(tr.errors[0], tr.n_train[0], tr.n_test[0], losses[0])
    r = get_interval("oob-632plus")(fl, get_design(CELL.design), 1)
    h = np.where(losses[0][1, :, 0] < 0, np.nan, losses[0][1, :, 0].astype(float))
    n = h.shape[1]
    err, off = h[0].mean(), np.nanmean(h[1])
    want = oob_632plus_interval(h[2:], h[0], ((n - 1) * off + err) / n)
    assert (r.statistic, r.standard_error) == pytest.approx((want.statistic,
                                                              want.standard_error))
    assert tr.errors[0, 1, 0, 0] == pytest.approx(err)  # fold 0: the apparent error
    with pytest.raises(SimstudyError, match="for one learner's error"):
        get_interval("oob-632plus")(fl, get_design(CELL.design), 0, 1)


def test_only_the_632plus_method_reads_the_bootstrap_design():
    d = get_design("boot[r=20]")
    assert d.name == "boot[r=20]" and get_design("boot").name == "boot" and d.shape == (22, 1)
    fit = [m for m in list_intervals() if get_interval(m).fits(d)]
    assert fit == ["oob-632plus"]
    assert not get_interval("oob-632plus").fits(get_design("1x10cv"))
    with pytest.raises(SimstudyError, match=r"design 'boot\[r=1\]': parameter r=.* must be in"):
        get_design("boot[r=1]")


def test_the_interval_card_reads_a_bootstrap_cell_for_one_learners_error(stored, tmp_path):
    from simstudy.intervalcard import interval_card

    def narrow(fl, design, a, b):  # oob-632plus at 80 %, declared as a 90 % interval
        return get_interval("oob-632plus")(fl, design, a, b).confidence_interval(0.8)

    narrow.confidence = 0.9
    cell = Cell("population[data=nursery,n=100]", ("max", "nmc"), f"boot[r={R}]", ())
    study = Study("boot", [cell], runs=2, seed=SEED, meta={"keep_losses": True})
    path = str(tmp_path / "s.sqlite")
    ss.run(study, store=path, progress=False, render="none")
    c = interval_card(narrow, [study], path)
    assert set(c.coverage["target"]) - {""} == {"error of max"}
    assert set(c.coverage["method"]) == {"narrow", "oob-632plus"}
    assert any("read for one learner's error only, differences not read" in n
               and "for one learner's error" in n for n in c.notes)
    p = c.paired.iloc[0]
    assert p["width_ratio"] == pytest.approx(1.2815515655446004 / 1.6448536269514722)
