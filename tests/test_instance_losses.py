"""Per-instance 0/1 losses: packed with the trial, consistent with the fold errors, and read
by tests that need them (McNemar, difference of proportions) without a refit."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simstudy import runner as runner_mod
from simstudy.catalog import get_study
from simstudy.core import pack_losses, unpack_losses
from simstudy.runner import run_study
from simstudy.stats import mcnemar
from simstudy.store import Store


@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 40),
       st.integers(0, 2**32 - 1))
def test_pack_unpack_round_trip(K, R, F, n, seed):
    rng = np.random.default_rng(seed)
    test = rng.random((R, F, n)) < 0.5
    L = np.where(test[None], (rng.random((K, R, F, n)) < 0.3).astype(np.int8), np.int8(-1))
    assert np.array_equal(unpack_losses(pack_losses(L)), L)


def _study(tests, keep=False, source="iris"):
    s = get_study("demo", runs=4).select(f"{source}/nmc~1nn")
    cells = [c.__class__(c.source, c.learners, c.design, tuple(tests)) for c in s.cells]
    return s.replace(cells=cells, meta={"keep_losses": keep})


@pytest.mark.parametrize("source", ["iris", "wang-case1"])  # fixed and generated sources
def test_kept_losses_agree_with_fold_errors(tmp_path, source):
    study = get_study("demo", runs=4)
    cell = study.cells[0].__class__(source, ("nmc", "1nn"), "5x2", ("t5x2cv",))
    study = study.replace(cells=[cell], meta={"keep_losses": True}, chunk=3)
    with Store(tmp_path / "s.sqlite") as s:
        run_study(study, s, backend="serial", progress=False)
        trials = s.trials(losses=True)
    for tr in trials.itertuples():
        L = tr.losses
        assert L.shape[:3] == (2, 5, 2)
        on = L >= 0
        assert np.array_equal(on.sum(-1)[0], tr.n_test)
        assert np.allclose((L == 1).sum(-1) / on.sum(-1), tr.errors)


def test_mcnemar_on_stored_losses_without_refit(tmp_path, monkeypatch):
    path = tmp_path / "s.sqlite"
    with Store(path) as s:
        run_study(_study(["t5x2cv"], keep=True), s, backend="serial", progress=False)
    monkeypatch.setattr(runner_mod, "compute_chunk",
                        lambda c: (_ for _ in ()).throw(AssertionError("fitted")))
    with Store(path) as s:
        out = run_study(_study(["t5x2cv", "mcnemar"]), s, backend="serial", progress=False)
        res, trials = s.results(), s.trials(losses=True)
    assert out.trials_computed == 0 and out.results_recomputed == 4
    for tr in trials.itertuples():
        la, lb = tr.losses[0, 0, 0], tr.losses[1, 0, 0]
        want = mcnemar(la[la >= 0], lb[lb >= 0]).pvalue
        got = res[(res.run == tr.run) & (res.test == "mcnemar")]["pvalue"].item()
        assert got == pytest.approx(want, rel=1e-12)


def test_trials_without_losses_are_recomputed_identically_for_mcnemar(tmp_path):
    path = tmp_path / "s.sqlite"
    with Store(path) as s:
        run_study(_study(["t5x2cv"]), s, backend="serial", progress=False)
        before = s.trials()
        out = run_study(_study(["t5x2cv", "mcnemar"]), s, backend="serial", progress=False)
        after = s.trials()
    assert before["losses"].isna().all() and out.trials_computed == 4
    assert all(np.array_equal(a, b) for a, b in zip(before["errors"], after["errors"], strict=True))
    assert after["losses"].notna().all()
