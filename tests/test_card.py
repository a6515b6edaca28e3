"""The report card: size / power / replicability of a new test from stored trials,
no learner fitted; truth labels; the shipped examples; the command line."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

from simstudy import runner as runner_mod
from simstudy.catalog import get_study
from simstudy.cli import main
from simstudy.errors import SimstudyError
from simstudy.report.card import write_card
from simstudy.runner import run_study
from simstudy.stats import consistency_from_counts, mcnemar
from simstudy.stats.registry import baselines
from simstudy.store import Store
from simstudy.study import Cell
from simstudy.testcard import _matched_alpha, _reject_rate, card
from simstudy.truth import ANY, known_truth, truth, truth_text

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def _example(name):
    spec = importlib.util.spec_from_file_location(f"_ex_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


pooled_t = _example("pooled_t")
mcnemar_first_fold = _example("mcnemar_first_fold")


def dietterich_scalar(d, *, n_train, n_test):
    """Dietterich's 5x2 cv t written out by hand (Alpaydın 1999 eq. 2.1), per trial."""
    d = np.asarray(d, dtype=float)
    s2 = ((d - d.mean(1, keepdims=True)) ** 2).sum()
    if s2 == 0:
        return np.nan, 1.0
    t = d[0, 0] / np.sqrt(s2 / 5)
    return t, float(2 * sps.t.sf(abs(t), 5))


def dietterich_vec(d, *, n_train, n_test):
    d = np.asarray(d, dtype=float)
    assert d.ndim == 3 and n_train.shape == (d.shape[0],)
    s2 = ((d - d.mean(2, keepdims=True)) ** 2).sum((1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d[:, 0, 0] / np.sqrt(s2 / 5)
    return t, np.where(s2 > 0, 2 * sps.t.sf(np.abs(t), 5), 1.0)


dietterich_vec.vectorized = True


def _demo_h0():
    """demo + an H0 cell (LP vs LP: the same stochastic learner), per-instance losses kept."""
    s = get_study("demo", runs=20)
    h0 = Cell("iris", ("lp", "lp"), "5x2", ("t5x2cv", "F5x2cv"))
    return s.replace(cells=[*s.cells, h0], meta={"keep_losses": True})


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("card") / "demo.sqlite"
    with Store(path) as s:
        run_study(_demo_h0(), s, backend="serial", progress=False)
    return path


@pytest.fixture
def no_fits(monkeypatch):
    """Count every way a learner could be fitted or a trial computed; the card must do none."""
    calls = {"compute_chunk": 0, "fit_predict": 0, "get_learner": 0}

    def counting(name, orig):
        def f(*a, **k):
            calls[name] += 1
            return orig(*a, **k)
        return f

    monkeypatch.setattr(runner_mod, "compute_chunk",
                        counting("compute_chunk", runner_mod.compute_chunk))
    monkeypatch.setattr(runner_mod, "_fit_predict",
                        counting("fit_predict", runner_mod._fit_predict))
    import simstudy.learners as L
    monkeypatch.setattr(L, "get_learner", counting("get_learner", L.get_learner))
    from simstudy.trialdata import learner_of

    learner_of.cache_clear()  # a learner resolved earlier would not pass get_learner again
    return calls


def test_card_fits_nothing_and_matches_the_stored_t(demo_store, no_fits):
    study = _demo_h0()
    with Store(demo_store, readonly=True) as s:
        c = card(dietterich_vec, [study], s, name="mine")
        base = s.results([x.id for x in study.cells], seed=0, runs=20)
    assert no_fits == {"compute_chunk": 0, "fit_predict": 0, "get_learner": 0}
    assert c.trials == 7 * 20
    # the H0 cell is a size cell; the six demo cells have no known truth: power vs |z|
    assert set(c.size["cell"]) == {"iris/lp~lp/5x2"}
    assert set(c.size["truth"]) == {"H0"}
    assert len(set(c.power["cell"])) == 6 and set(c.power["x_kind"]) == {"abs(z)"}
    # the hand-written t reproduces the stored t5x2cv decisions cell by cell
    for frame in (c.size, c.power):
        w = frame.pivot_table(index="cell", columns="test", values="rejects")
        assert (w["mine"] == w["t5x2cv"]).all()
    # and the stored baseline counts are the store's own p-values at 0.05
    t = base[base["test"] == "F5x2cv"].groupby("cell")["pvalue"].apply(lambda p: int((p < .05).sum()))
    got = pd.concat([c.size, c.power]).query("test == 'F5x2cv'").set_index("cell")["rejects"]
    assert got.sort_index().tolist() == t.sort_index().tolist()


def test_wilson_and_calibration_are_the_reject_proportions(demo_store):
    with Store(demo_store, readonly=True) as s:
        c = card(pooled_t, [_demo_h0()], s, name="pooled")
    for r in c.size.itertuples():
        ci = sps.binomtest(r.rejects, r.runs).proportion_ci(method="wilson")
        assert (r.ci_low, r.ci_high) == pytest.approx((ci.low, ci.high))
    cal = c.calibration
    for (cell, test), g in cal.groupby(["cell", "test"]):
        assert np.all(np.diff(g.sort_values("alpha")["proportion"].to_numpy()) >= 0)
        at = g[np.isclose(g["alpha"], 0.05)]["proportion"].item()
        want = c.size[(c.size["cell"] == cell) & (c.size["test"] == test)]["proportion"].item()
        assert at == pytest.approx(want)


def test_scalar_and_vectorised_functions_give_the_same_card(demo_store):
    with Store(demo_store, readonly=True) as s:
        a = card(dietterich_scalar, [_demo_h0()], s, name="mine")
        b = card(dietterich_vec, [_demo_h0()], s, name="mine")
    pd.testing.assert_frame_equal(a.size, b.size)
    pd.testing.assert_frame_equal(a.power, b.power)
    pd.testing.assert_frame_equal(a.calibration, b.calibration)


def test_per_instance_test_reads_the_stored_losses(demo_store, no_fits):
    """McNemar on the first fold: the example (scipy chi2) agrees with simstudy.stats.mcnemar
    applied to the store's decoded losses, trial by trial."""
    study = _demo_h0()
    with Store(demo_store, readonly=True) as s:
        c = card(mcnemar_first_fold, [study], s, name="mc", baselines=())
        trials = s.trials([x.id for x in study.cells], seed=0, runs=20, losses=True)
    assert sum(no_fits.values()) == 0
    for cell, g in trials.groupby("cell"):
        p = [mcnemar(*(L[k, 0, 0][L[k, 0, 0] >= 0] for k in (0, 1))).pvalue for L in g["losses"]]
        want = int(np.sum(np.asarray(p) < 0.05))
        both = pd.concat([c.size, c.power])
        got = both[(both["test"] == "mc") & (both["cell"] == cell)]["rejects"]
        assert got.item() == want


def test_per_instance_test_skips_cells_without_losses(tmp_path):
    study = get_study("demo", runs=3).select("iris/nmc~1nn")
    with Store(tmp_path / "s.sqlite") as s:
        run_study(study, s, backend="serial", progress=False)
        with pytest.raises(SimstudyError, match="did not keep per-instance losses"):
            card(mcnemar_first_fold, [study], s, name="mc")


def test_swapping_learners_leaves_a_two_sided_card_unchanged(demo_store):
    with Store(demo_store, readonly=True) as s:
        for fn in (pooled_t, mcnemar_first_fold, dietterich_vec):
            a = card(fn, [_demo_h0()], s, name="x")
            b = card(fn, [_demo_h0()], s, name="x", swap=True)
            for f in ("size", "power", "calibration", "summary"):
                pd.testing.assert_frame_equal(getattr(a, f), getattr(b, f))


@given(st.integers(0, 2**32 - 1), st.integers(1, 6))
def test_pooled_t_is_two_sided_and_vectorised(seed, T):
    d = np.random.default_rng(seed).normal(0, 0.05, (T, 5, 2))
    ta, pa = pooled_t(d, n_train=None, n_test=None)
    tb, pb = pooled_t(-d, n_train=None, n_test=None)
    assert np.allclose(pa, pb) and np.allclose(ta, -tb)
    one = [pooled_t(x, n_train=None, n_test=None)[1] for x in d]
    assert np.allclose(pa, one)
    # against scipy: t = d11 / s with s the sd of all ten, t(9)
    s = d.reshape(T, 10).std(axis=1, ddof=1)
    assert np.allclose(pa, 2 * sps.t.sf(np.abs(d[:, 0, 0] / s), 9))


def test_matched_alpha_and_reject_rate():
    p = np.array([0.001, 0.01, 0.02, np.nan, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9])
    assert _reject_rate(p, np.array([0.015, 0.5, 1.0])).tolist() == [0.2, 0.4, 0.9]
    # alpha 0.2 of 10 p-values: at most 2 rejections -> alpha* = the 3rd smallest p
    a = _matched_alpha(p, 0.2)
    assert a == 0.02 and np.mean(np.nan_to_num(p, nan=2) < a) <= 0.2


def test_replicability_on_repeated_sets(tmp_path):
    """A study with runs_per_set: consistency per training set, as Bouckaert & Frank."""
    s = get_study("demo", runs=20).select("iris/nmc~1nn")
    s = s.replace(meta={"runs_per_set": 5})
    with Store(tmp_path / "s.sqlite") as st_:
        run_study(s, st_, backend="serial", progress=False)
        c = card(pooled_t, [s], st_, name="pooled", baselines=())
        res = st_.results()
    r = c.replicability.set_index("test")
    assert set(r.index) == {"pooled", "t5x2cv", "F5x2cv"}
    t = res[res["test"] == "t5x2cv"].sort_values("run")
    k = (t["pvalue"].to_numpy() < 0.05).reshape(4, 5).sum(1)
    want = consistency_from_counts(k, 5)
    assert r.loc["t5x2cv", "units"] == 4 and r.loc["t5x2cv", "R"] == pytest.approx(want.R)
    assert r.loc["t5x2cv", "consistent"] == want.consistent


def test_truth_labels():
    t1 = get_study("type1")
    assert all(truth(c, t1) == (True, 0.0) for c in t1.cells)
    t2 = get_study("type2")
    assert all(truth(c, t2) == (None, None) for c in t2.cells)
    c = Cell("iris", ("nmc", "1nn"), "5x2", (), (("true_diff", 0.02),))
    assert truth(c) == (False, 0.02) and truth_text(*truth(c)) == "H1 (Δ=+0.020)"
    assert truth(Cell("iris", ("a", "b"), "5x2", (), (("h0", True),))) == (True, 0.0)
    known = known_truth()
    assert len(known) == 36  # 32 Gaussian cells, 3 BAN sources, 1 exact H0 (ban source 1)
    for (src, a, b), k in known.items():
        if a == ANY:
            assert k.h0 and truth(Cell(src, ("nb", "j48"), "5x2", ())) == (True, 0.0)
            continue
        assert truth(Cell(src, (a, b), "5x2", ())) == (False, k.true_diff)
        assert truth(Cell(src, (b, a), "5x2", ())) == (False, -k.true_diff)


def test_report_shows_truth(demo_store, capsys):
    assert main(["report", "demo", "--store", str(demo_store), "--format", "csv"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.endswith(",truth")


def test_cli_card_writes_the_card(demo_store, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    out = tmp_path / "card"
    assert main(["card", "--test", "examples/pooled_t.py:pooled_t", "--studies", "demo",
                 "--store", str(demo_store), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "pooled_t" in printed and "no learner fitted" in printed
    for f in ("card.md", "card_summary.csv", "card_size.csv", "card_calibration.csv",
              "card_power.csv", "card_replicability.csv", "card_power.png", "card.html"):
        assert (out / f).stat().st_size > 0
    summary = pd.read_csv(out / "card_summary.csv")
    assert summary["test"].tolist()[0] == "pooled_t"
    # the classic tests the cells store, and the fold-error tests proposed since 1998
    assert set(summary["test"]) == {"pooled_t", "t5x2cv", "F5x2cv", *baselines(fold_errors_only=True)}


def test_cli_card_bad_input(demo_store, capsys):
    assert main(["card", "--test", "examples/pooled_t.py:pooled_t", "--studies", "nope",
                 "--store", str(demo_store)]) == 2
    assert "'nope'" in capsys.readouterr().err
    assert main(["card", "--test", "examples/pooled_t.py:nothing", "--studies", "demo",
                 "--store", str(demo_store)]) == 2
    assert "'nothing'" in capsys.readouterr().err


def test_needs_must_be_losses(demo_store):
    def f(d, *, n_train, n_test):
        return 0.0, 0.5
    f.needs = "folds"
    with Store(demo_store, readonly=True) as s, pytest.raises(SimstudyError, match="'folds'"):
        card(f, [_demo_h0()], s)


def test_tiny_type1_slice_keeps_losses_by_default(tmp_path, no_fits):
    """type1 keeps per-instance losses (meta keep_losses), so McNemar's card runs on it."""
    study = get_study("type1", runs=3).select("iris/mlp-3~mlp-3")
    assert study.meta.get("keep_losses") is True
    path = tmp_path / "t1.sqlite"
    with Store(path) as s:
        run_study(study, s, backend="serial", progress=False)
    fitted = no_fits["fit_predict"]
    assert fitted > 0  # the run fitted (sanity of the counter) ...
    with Store(path, readonly=True) as s:
        c = card(mcnemar_first_fold, [study], s, name="mc", baselines=())
        paths = write_card(c, tmp_path / "out", figures=False)
    assert no_fits["fit_predict"] == fitted  # ... the card did not
    assert c.size["truth"].tolist() == ["H0"] * 3 and c.size["runs"].tolist() == [3] * 3
    assert (tmp_path / "out" / "card.md") in paths


def test_vectorised_per_instance_function_gets_stacked_losses(demo_store):
    seen = []

    def mc_vec(d, *, n_train, n_test, losses):
        seen.append(losses.shape)
        L = losses[:, :, 0, 0]  # (T, 2, n): first fold
        on = L[:, 0] >= 0
        n01 = ((L[:, 0] == 1) & (L[:, 1] == 0) & on).sum(1)
        n10 = ((L[:, 0] == 0) & (L[:, 1] == 1) & on).sum(1)
        n = n01 + n10
        with np.errstate(divide="ignore", invalid="ignore"):
            chi2 = (np.abs(n01 - n10) - 1.0) ** 2 / n
        return chi2, np.where(n > 0, sps.chi2.sf(chi2, 1), 1.0)

    mc_vec.vectorized = True
    mc_vec.needs = "losses"
    with Store(demo_store, readonly=True) as s:
        a = card(mc_vec, [_demo_h0()], s, name="mc")
        b = card(mcnemar_first_fold, [_demo_h0()], s, name="mc")
    assert len(seen) == 7 and all(sh[:3] == (20, 2, 5) and sh[3] == 2 for sh in seen)
    pd.testing.assert_frame_equal(a.size, b.size)
    pd.testing.assert_frame_equal(a.power, b.power)


def test_three_learners_one_row_per_pair_with_its_own_truth(tmp_path):
    """K = 3 (as Bouckaert & Frank's cells): each pair is judged on its own; LP vs LP is an
    H0 pair, the pairs with NMC are not."""
    s = get_study("demo", runs=6)
    s = s.replace(cells=[Cell("iris", ("lp", "lp", "nmc"), "5x2", ("t5x2cv",))],
                  meta={"runs_per_set": 3})
    with Store(tmp_path / "s.sqlite") as st_:
        run_study(s, st_, backend="serial", progress=False)
        c = card(dietterich_vec, [s], st_, name="mine", baselines=())
        res = st_.results()
    assert c.size["pair"].unique().tolist() == ["lp#1~lp#2"]
    assert set(c.size["truth"]) == {"H0"} and set(c.power["truth"]) == {"unknown"}
    assert sorted(set(c.power["pair"])) == ["lp#1~nmc#3", "lp#2~nmc#3"]
    # every pair's stored t decisions are reproduced by the hand-written t
    both = pd.concat([c.size, c.power])
    for pair, g in both.groupby("pair"):
        w = g.set_index("test")["rejects"]
        assert w["mine"] == w["t5x2cv"], pair
    rep = c.replicability
    assert len(rep) == 6 and set(rep["pair"]) == set(both["pair"])
    assert (rep["units"] == 2).all() and (rep["repetitions"] == 3).all()
    assert len(res) == 6 * 3


def test_known_truth_covers_the_gaussian_and_ban_cells():
    gauss = get_study("gaussian")
    got = {truth(c, gauss) for c in gauss.cells}
    assert all(h0 is False and d is not None for h0, d in got)
    assert len({d for _, d in got}) == 32  # 8 cases x 4 pairs, the 3 designs share a value
    ban = get_study("ban")
    diffs = {c.source: truth(c, ban)[1] for c in ban.cells}
    # sources 2-4 were made with C4.5 ahead (studies/bouckaert2004/ban/): NB errs more,
    # by about the paper's accuracy row (2.77, 5.83, 11.27 points; 100 of its 1000 sets)
    for k, paper in ((2, 2.77), (3, 5.83), (4, 11.27)):
        assert diffs[f"ban[src={k}]"] > 0
        assert abs(100 * diffs[f"ban[src={k}]"] - paper) < 0.5
    assert {truth(c, ban) for c in ban.cells if c.source == "ban[src=1]"} == {(True, 0.0)}


def test_ban_source_1_is_exactly_h0():
    """Any prediction of the 512 attribute patterns has exact accuracy 1/2 under source 1,
    so every pair of learners has the same error: H0 whatever the training size."""
    from simstudy.sources import get_source

    src = get_source("ban[src=1]")
    rng = np.random.default_rng(16)
    acc = [src.exact_accuracy(rng.integers(0, 2, 512)) for _ in range(50)]
    assert np.allclose(acc, 0.5, atol=1e-12)
    other = get_source("ban[src=2]")  # a source with signal: predictions differ in accuracy
    assert np.ptp([other.exact_accuracy(rng.integers(0, 2, 512)) for _ in range(5)]) > 0.1


def test_a_known_gaussian_difference_is_reproduced_on_other_seeds():
    """Recompute one declared truth on an independent seed: within 4 combined SEs."""
    from simstudy.truth import gaussian_true_diff

    _, m0, se0, _ = known_truth()[("wang-case3", "svm", "ab")]
    m1, se1 = gaussian_true_diff("wang-case3", ("svm", "ab"), runs=4, seed=99)
    assert abs(m1 - m0) < 4 * np.hypot(se0, se1)


def test_card_inside_an_html_report_is_linked_from_its_index(demo_store, tmp_path):
    from simstudy.report.html import report_all

    site = tmp_path / "site"
    with Store(demo_store, readonly=True) as s:
        report_all(s, site)
        c = card(pooled_t, ["demo"], s, name="pooled")
    before = (site / "index.html").read_text()
    write_card(c, site / "card-pooled", figures=False)
    write_card(c, site / "card-pooled", figures=False)  # twice: still one link
    after = (site / "index.html").read_text()
    assert 'href="card-pooled/card.html"' not in before
    assert after.count('href="card-pooled/card.html"') == 1
    assert (site / "card-pooled" / "card.html").read_text().count("<table") >= 2


def test_card_html_links_a_long_table_instead_of_inlining_it(demo_store, tmp_path, monkeypatch):
    import simstudy.report.card as report_card

    monkeypatch.chdir(ROOT)
    monkeypatch.setattr(report_card, "HTML_ROWS", 3)
    out = tmp_path / "card"
    assert main(["card", "--test", "examples/pooled_t.py:pooled_t", "--studies", "demo",
                 "--store", str(demo_store), "--out", str(out), "--no-figures"]) == 0
    page = (out / "card.html").read_text()
    rows = len(pd.read_csv(out / "card_paired.csv"))
    assert rows > 3
    assert f'card_paired: {rows} rows, in <a href="card_paired.csv">' in page
    assert 'id="card_paired"' not in page
