"""A card that never misleads: each way a card could mislead a reader, caught by a test.

Every asked study appears; mixed run counts are flagged and pooled by runs; the truth of a
cell decides whether its reject rate is called size, power or "truth unknown"; paired
differences with Tango's interval; interval coverage; the Python API takes paths; the hints
name commands that work; the card module holds no SQL."""

import importlib.util
import inspect
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize, special
from scipy import stats as sps

from simstudy import testcard as card_mod
from simstudy.aggregate import (
    named_pairs,
    newcombe_unpaired,
    runs_to_resolve,
    tango_paired,
    wilson,
)
from simstudy.catalog import get_study
from simstudy.errors import SimstudyError
from simstudy.report.card import write_card
from simstudy.runner import run_study
from simstudy.store import Store, run_hint
from simstudy.study import Cell
from simstudy.testcard import POOLED, POWER, SIZE, UNKNOWN, card

ROOT = Path(__file__).resolve().parents[1]


def _example(name):
    spec = importlib.util.spec_from_file_location(f"_ex_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


pooled_t = _example("pooled_t")


def t5x2(d, *, n_train, n_test):
    """Dietterich's 5x2 cv t, vectorised (Alpaydın 1999 eq. 2.1)."""
    d = np.asarray(d, dtype=float)
    s2 = ((d - d.mean(2, keepdims=True)) ** 2).sum((1, 2))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d[:, 0, 0] / np.sqrt(s2 / 5)
    return t, np.where(s2 > 0, 2 * sps.t.sf(np.abs(t), 5), 1.0)


t5x2.vectorized = True
t5x2.designs = {"5x2"}


def _study(name, cells, runs):
    return get_study("demo", runs=runs).replace(name=name, cells=cells, meta={})


H0 = Cell("iris", ("lp", "lp"), "5x2", ("t5x2cv", "F5x2cv"))
UNK = Cell("iris", ("nmc", "1nn"), "5x2", ("t5x2cv", "F5x2cv"))
H1 = Cell("iris", ("lda", "nmc"), "5x2", ("t5x2cv", "F5x2cv"), (("true_diff", 0.02),))
KFOLD = Cell("iris", ("nmc", "1nn"), "1x5cv", ("cv-t",))


@pytest.fixture(scope="module")
def stores(tmp_path_factory):
    """One store: H0 and unknown-truth cells at 12 runs, a declared-H1 cell at 6 runs (mixed
    run counts), and a k-fold study no 5x2 test reads; plus a gzip'd snapshot of it."""
    d = tmp_path_factory.mktemp("never")
    path = d / "s.sqlite"
    with Store(path) as s:
        run_study(_study("A", [H0, UNK], 12), s, backend="serial", progress=False)
        run_study(_study("A", [H1], 6), s, backend="serial", progress=False)
        run_study(_study("K", [KFOLD], 4), s, backend="serial", progress=False)
        s.snapshot(d / "s.sqlite.gz")
    return path, d / "s.sqlite.gz"


A = _study("A", [H0, UNK, H1], 12)
K = _study("K", [KFOLD], 4)


# --- every asked study appears -----------------------------------------------------------

def test_a_study_no_design_fits_is_listed_with_the_reason(stores, tmp_path):
    c = card(t5x2, [A, K], stores[0], name="t")
    st = c.studies.set_index("study")
    assert st.loc["A", "status"] == "covered" and st.loc["K", "status"] == "skipped"
    assert "'1x5cv' not in f.designs" in st.loc["K", "reason"]
    assert any(n.startswith("K: 1 of 1 cells skipped") for n in c.notes)
    md = write_card(c, tmp_path / "c", figures=False, html=False)[0].read_text()
    studies = md.split("## Studies")[1].split("##")[0]
    assert "| K | skipped |" in studies and "1x5cv" in studies
    assert "skipped: K" in c.verdict


def test_an_undeclared_function_that_raises_on_a_design_is_a_reason_too(stores):
    def only5x2(d, *, n_train, n_test):
        if np.shape(d) != (5, 2):
            raise ValueError(f"needs 5x2 folds, got {np.shape(d)}")
        return 0.0, 0.5

    c = card(only5x2, [A, K], stores[0])
    r = c.studies.set_index("study").loc["K", "reason"]
    assert "the test raised ValueError: needs 5x2 folds, got (1, 5)" in r


def test_a_study_without_trials_is_skipped_with_a_command_that_works(stores):
    c = card(t5x2, [A, "type1"], stores[0], name="t")
    row = c.studies.set_index("study").loc["type1"]
    assert row["status"] == "skipped"
    assert f"python -m simstudy run type1 --store {stores[0]}" in row["reason"]
    with pytest.raises(SimstudyError, match="no trials of study 'type1'"):
        card(t5x2, ["type1"], stores[0])


# --- run counts ---------------------------------------------------------------------------

def test_mixed_run_counts_are_flagged_and_pooled_by_runs(stores, tmp_path):
    c = card(t5x2, [A], stores[0], name="t")
    assert c.studies["runs"].tolist() == ["6–12"]
    assert any("cells hold 6 to 12 runs" in n for n in c.notes)
    # pooled figures pool trials: a 6-run cell weighs half a 12-run one
    unk = c.power[(c.power["measure"] == UNKNOWN) & (c.power["test"] == "t")]
    s = c.summary.set_index("test")
    assert s.loc["t", "mean_reject_unknown"] == unk["rejects"].sum() / unk["runs"].sum()
    md = write_card(c, tmp_path / "c", figures=False, html=False)[0].read_text()
    assert "6 (mixed)" in md.split("## Power")[1]


# --- truth drives the words -------------------------------------------------------------

def test_unknown_truth_is_never_power(stores, tmp_path):
    c = card(t5x2, [A], stores[0], name="t")
    assert set(c.size["cell"]) == {H0.id}
    m = dict(zip(c.power["cell"], c.power["measure"], strict=True))
    assert m[UNK.id] == UNKNOWN and m[H1.id] == POWER
    s = c.summary.set_index("test")
    assert s.loc["t", "power_cells"] == 1 and s.loc["t", "unknown_cells"] == 1
    h1 = c.power[(c.power["cell"] == H1.id) & (c.power["test"] == "t")]
    assert s.loc["t", "mean_power"] == pytest.approx(h1["proportion"].item())
    md = write_card(c, tmp_path / "c", figures=False, html=False)[0].read_text()
    power = md.split("## Power (H1 cells of known difference)")[1].split("##")[0]
    assert H1.id in power and UNK.id not in power
    unknown = md.split("## Reject rate, truth unknown (not power)")[1].split("##")[0]
    assert UNK.id in unknown and "|z|" in unknown


def test_without_a_known_h1_the_verdict_says_power_is_not_judged(stores):
    c = card(t5x2, [_study("A", [H0, UNK], 12)], stores[0], name="t")
    assert "power not judged" in c.verdict
    assert c.verdict.count(".") >= 1 and "\n" not in c.verdict
    assert (c.summary["power_cells"] == 0).all()


# --- the Python API takes paths ------------------------------------------------------------

@pytest.mark.parametrize("how", ["str", "path", "list", "gz", "store"])
def test_card_takes_paths_or_stores(stores, how):
    path, gz = stores
    arg = {"str": str(path), "path": path, "list": [str(path)], "gz": [str(gz)]}.get(how)
    if how == "store":
        with Store(path, readonly=True) as s:
            c = card(t5x2, [A], s, name="t")
            s.count()  # the caller's store stays open
    else:
        c = card("tests/test_card_never_misleads.py:t5x2" if how == "str" else t5x2, [A], arg,
                 name="t")
    assert c.trials == 12 + 12 + 6


def test_bench_takes_paths_too(stores):
    from simstudy.benchmark import bench

    t = bench(t5x2, A, str(stores[1]), name="t")
    assert t.columns.tolist() == ["cell", "t5x2cv", "F5x2cv", "t"]
    np.testing.assert_allclose(t["t"], t["t5x2cv"])


def test_no_store_reads_the_default_store_then_the_shipped_trials(stores, monkeypatch):
    import sys
    import types

    import simstudy

    try:
        import simstudy.trials as trials_mod
    except ImportError:  # a tree without shipped trials: the hook is what is tested
        trials_mod = types.ModuleType("simstudy.trials")
        monkeypatch.setitem(sys.modules, "simstudy.trials", trials_mod)
        monkeypatch.setattr(simstudy, "trials", trials_mod, raising=False)
    path, _ = stores
    monkeypatch.chdir(path.parent)  # simstudy-store.sqlite is absent here
    monkeypatch.setattr(trials_mod, "open_shipped",
                        lambda studies=None: [Store(path, readonly=True)], raising=False)
    c = card(t5x2, [A], name="t")
    assert c.studies["read_from"].tolist() == [f"store {str(path)!r}"]


# --- hints ------------------------------------------------------------------------------------

def test_hints_name_commands_that_work(tmp_path):
    # a .gz snapshot is read-only: the hint runs into a plain store
    h = run_hint("type1", "figs/x.sqlite.gz")
    assert h.startswith("python -m simstudy run type1 --store figs/x.sqlite ")
    assert "snapshot --store figs/x.sqlite figs/x.sqlite.gz" in h
    with pytest.raises(SimstudyError) as e:
        Store(tmp_path / "none.sqlite.gz", readonly=True)
    assert f"--store {tmp_path / 'none.sqlite'} " in str(e.value)
    # a study file is run by its path, not by the name its build() gives it
    f = tmp_path / "mystudy.py"
    f.write_text("from simstudy.catalog import get_study\n"
                 "def build():\n    return get_study('demo').select('wine').replace(name='mine')\n")
    with Store(tmp_path / "s.sqlite") as s:
        run_study(_study("A", [UNK], 2), s, backend="serial", progress=False)
    c = card(t5x2, [A.replace(cells=[UNK], runs=2), str(f)], tmp_path / "s.sqlite")
    reason = c.studies.set_index("study").loc[str(f), "reason"]
    assert f"python -m simstudy run {f} --store" in reason
    # report's scoping says the same
    from simstudy.scope import stored_scope

    with Store(tmp_path / "s.sqlite", readonly=True) as s, pytest.raises(SimstudyError) as e:
        stored_scope(get_study(str(f)), s, None, None, asked=str(f))
    assert f"python -m simstudy run {f} --store" in str(e.value)


# --- paired differences -------------------------------------------------------------------

def _tango_oracle(b, c, n, z=1.959963984540054):
    """Tango (1998): the score statistic and its roots, by scipy's brentq."""
    def T(d0):
        A, B, C = 2 * n, -b - c + (2 * n - b + c) * d0, -c * d0 * (1 - d0)
        q = (np.sqrt(B * B - 4 * A * C) - B) / (2 * A)
        num = b - c - n * d0
        return 0.0 if num == 0 else num / np.sqrt(n * (2 * q + d0 * (1 - d0)))
    lo = -1.0 if b - c == -n else optimize.brentq(lambda x: T(x) - z, -1 + 1e-12, 1 - 1e-12,
                                                  xtol=1e-14)
    hi = 1.0 if b - c == n else optimize.brentq(lambda x: T(x) + z, -1 + 1e-12, 1 - 1e-12,
                                                xtol=1e-14)
    return lo, hi


def test_tango_interval_against_the_book_and_a_root_finder():
    # Fagerland, Lydersen & Laake (2017), Table 8.3 (Cavo et al. 2012): -0.1240 to -0.0054
    lo, hi = tango_paired(6, 16, 161)
    assert (round(lo, 4), round(hi, 4)) == (-0.1240, -0.0054)
    rng = np.random.default_rng(34)
    for _ in range(40):
        n = int(rng.integers(1, 400))
        b = int(rng.integers(0, n + 1))
        c = int(rng.integers(0, n - b + 1))
        assert tango_paired(b, c, n) == pytest.approx(_tango_oracle(b, c, n), abs=1e-9)
    # no discordant trial: the bound is z^2 / (n + z^2)
    z2 = 1.959963984540054 ** 2
    assert tango_paired(0, 0, 420)[1] == pytest.approx(z2 / (420 + z2), abs=1e-9)


def test_newcombe_unpaired_against_the_paper_and_statsmodels():
    from statsmodels.stats.proportion import confint_proportions_2indep

    assert tuple(round(x, 4) for x in newcombe_unpaired(56, 70, 48, 80)) == (0.0524, 0.3339)
    for k1, n1, k2, n2 in ((9, 10, 3, 10), (0, 40, 2, 40), (30, 1000, 31, 1000)):
        want = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff")
        assert newcombe_unpaired(k1, n1, k2, n2) == pytest.approx(want, abs=1e-12)


def test_wilson_is_scipys_to_the_bit():
    for n in (1, 7, 30, 1000):
        ks = np.arange(n + 1)
        lo, hi = wilson(ks, n)
        for k in range(0, n + 1, max(1, n // 17)):
            ci = sps.binomtest(int(k), n).proportion_ci(method="wilson")
            assert (lo[k], hi[k]) == (ci.low, ci.high)


def test_paired_rows_count_the_same_trials(stores):
    c = card(pooled_t, [A], stores[0], name="pooled", baselines=())
    with Store(stores[0], readonly=True) as s:
        base = s.pvalues(A.cells, A.seed, A.runs)
        fe = s.fold_errors([x.id for x in A.cells], A.seed, A.runs)
    p = c.paired
    for cell in A.cells:
        tr = fe[cell.id]
        _, pn = pooled_t(tr.errors[:, 0] - tr.errors[:, 1], n_train=None, n_test=None)
        x = pn < 0.05
        for test in ("t5x2cv", "F5x2cv"):
            y = base[(base["cell"] == cell.id) & (base["test"] == test)]["pvalue"].to_numpy() < .05
            r = p[(p["cell"] == cell.id) & (p["baseline"] == test)].iloc[0]
            assert (r["n10"], r["n01"], r["runs"]) == ((x & ~y).sum(), (~x & y).sum(), x.size)
            assert r["diff"] == pytest.approx(x.mean() - y.mean())
            assert (r["ci_low"], r["ci_high"]) == pytest.approx(
                tango_paired(r["n10"], r["n01"], r["runs"]))
            assert r["runs_to_resolve"] == runs_to_resolve(r["n10"], r["n01"], r["runs"], 0.01)
    pooled = p[(p["cell"] == POOLED) & (p["measure"] == SIZE)]
    assert set(pooled["baseline"]) == {"t5x2cv", "F5x2cv"} and (pooled["runs"] == 12).all()


def test_a_test_equal_to_a_baseline_has_a_zero_width_difference_and_a_narrow_interval(stores):
    c = card(t5x2, [A], stores[0], name="t")
    r = c.paired[(c.paired["baseline"] == "t5x2cv")]
    assert (r["diff"] == 0).all() and (r["n10"] + r["n01"] == 0).all()
    # identical decisions: paired width is z^2-small, never wider than the unpaired one
    assert (r["paired_width"] <= r["unpaired_width"] + 1e-12).all()


# --- interval methods -----------------------------------------------------------------------

def t_with_ci(d, *, n_train, n_test):
    """The corrected resampled t's interval, written out by a user, at 90 %."""
    d = np.asarray(d, dtype=float).reshape(len(d), -1)
    k = d.shape[1]
    m, s2 = d.mean(1), d.var(1, ddof=1)
    half = special.stdtrit(k - 1, 0.95) * np.sqrt((1 / k + n_test / n_train) * s2)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = m / np.sqrt((1 / k + n_test / n_train) * s2)
    p = np.where(s2 > 0, 2 * special.stdtr(k - 1, -np.abs(t)), 1.0)
    return t, p, (m - half, m + half)


t_with_ci.vectorized = True
t_with_ci.confidence = 0.90


def test_interval_coverage_on_cells_of_known_truth(stores):
    c = card(t_with_ci, [A], stores[0], name="ci")
    iv = c.intervals
    assert set(iv["truth"]) == {"H0", "H1 (Δ=+0.020)", "known"}
    assert UNK.id not in set(iv["cell"])  # unknown truth: no coverage to count
    with Store(stores[0], readonly=True) as s:
        tr = s.fold_errors([H1.id], A.seed, A.runs)[H1.id]
    d = tr.errors[:, 0] - tr.errors[:, 1]
    lo, hi = t_with_ci(d, n_train=tr.n_train.mean((1, 2)), n_test=tr.n_test.mean((1, 2)))[2]
    r = iv[(iv["cell"] == H1.id) & iv["new"]].iloc[0]
    assert r["coverage"] == np.mean((lo <= 0.02) & (0.02 <= hi))
    assert r["mean_width"] == pytest.approx(np.mean(hi - lo))
    # the baseline's interval is the same formula at the same (declared) level
    b = iv[(iv["cell"] == H1.id) & (iv["method"] == "corrected-t")].iloc[0]
    assert (b["coverage"], b["mean_width"]) == pytest.approx((r["coverage"], r["mean_width"]))
    pooled = iv[(iv["cell"] == POOLED) & iv["new"]].iloc[0]
    assert pooled["runs"] == 12 + 6


def test_the_registry_corrected_t_beside_a_tests_interval_is_scipys_t_interval_scaled():
    from simstudy.store import CellTrials
    from simstudy.testcard import _registry_interval

    rng = np.random.default_rng(3)
    e = rng.normal(0.2, 0.03, (4, 2, 10, 1))
    tr = CellTrials("c", 0, np.arange(4), e, np.full((4, 10, 1), 90.0),
                    np.full((4, 10, 1), 10.0), np.zeros(4, bool))
    lo, hi = _registry_interval("corrected-t", "resample", tr, 0, 1, 0.95)
    for i in range(4):
        x = (e[i, 0] - e[i, 1]).ravel()
        se = np.sqrt((1 / 10 + 10 / 90) * x.var(ddof=1))
        want = sps.t.interval(0.95, 9, loc=x.mean(), scale=se)
        assert (lo[i], hi[i]) == pytest.approx(want)
    assert _registry_interval("corrected-t", "ncv[k=3]", tr, 0, 1, 0.95) is None


# --- progress, verdict, the pair's name -----------------------------------------------------

def test_a_scalar_function_shows_progress_over_trials(stores, capsys):
    def slow(d, *, n_train, n_test):
        return 0.0, 0.5

    card(slow, [A], stores[0], progress=True)
    err = capsys.readouterr().err
    assert "card slow" in err and "30/30" in err and "trial" in err


def test_the_verdict_is_one_sentence_at_the_top(stores, tmp_path):
    c = card(t5x2, [A], stores[0], name="t")
    assert re.match(r"^`t` (is liberal|is conservative|holds its size) at alpha = 0\.05: "
                    r"size \d\.\d{3} \[", c.verdict)
    # one baseline for both claims (size on the H0 trials, power at matched size on the H1
    # trials), each with its count of trials
    comp = card_mod.comparator(c.matched, c.paired)
    assert set(re.findall(r"against ([\w-]+)'s", c.verdict)) == {comp}
    assert len(re.findall(rf"against {comp}'s \d\.\d{{3}} on the same [\d,]+ trials", c.verdict)) == 2
    md = write_card(c, tmp_path / "c", figures=False, html=False)[0].read_text().splitlines()
    assert md[2] == f"**{c.verdict}**"


def test_the_reject_table_of_a_three_learner_cell_names_the_pair(tmp_path):
    from simstudy.aggregate import collect

    s = _study("three", [Cell("iris", ("lp", "lp", "nmc"), "5x2", ("t5x2cv",))], 2)
    with Store(tmp_path / "s.sqlite") as st:
        run_study(s, st, backend="serial", progress=False)
        t = named_pairs(collect(s, st))
    assert t.columns.tolist()[:3] == ["cell", "test", "pair"]
    assert t["pair"].tolist() == ["lp#1~lp#2", "lp#1~nmc#3", "lp#2~nmc#3"]


def test_card_holds_no_sql():
    src = inspect.getsource(card_mod)
    assert not re.search(r"\bSELECT\b|\.con\b|sqlite3|\.execute\(", src)


def test_card_frames_are_the_same_from_a_store_and_its_snapshot(stores):
    a = card(t5x2, [A], stores[0], name="t")
    b = card(t5x2, [A], stores[1], name="t")
    for f in ("size", "power", "paired", "summary"):
        pd.testing.assert_frame_equal(getattr(a, f), getattr(b, f))


def test_the_interval_example_is_the_5x2cv_t_with_its_interval(stores):
    f = _example("t5x2cv_interval")
    c = card(f, [A], stores[0])
    r = c.paired[(c.paired["baseline"] == "t5x2cv")]
    assert (r["n10"] + r["n01"] == 0).all()  # the same decisions as the stored t
    iv = c.intervals
    assert set(iv["method"]) == {"t5x2cv_interval (new)", "corrected-t"}
    d = np.random.default_rng(1).normal(0, 0.02, (3, 5, 2))
    t, p, (lo, hi) = f(d, n_train=None, n_test=None)
    s = np.sqrt(((d - d.mean(2, keepdims=True)) ** 2).sum((1, 2)) / 5)
    want = [sps.t.interval(0.95, 5, loc=x, scale=y) for x, y in zip(d[:, 0, 0], s, strict=True)]
    assert np.allclose(np.c_[lo, hi], want)


def test_a_card_from_shipped_trials_is_the_card_from_their_store(tmp_path):
    """The shipped form implements the store's readers: the same card, frame for frame."""
    trials = pytest.importorskip("simstudy.trials")
    s = get_study("demo", runs=4).select("iris/nmc~1nn").replace(meta={"keep_losses": True})
    path = tmp_path / "s.sqlite"
    with Store(path) as st:
        run_study(s, st, backend="serial", progress=False)
        trials.export(st, "demo", tmp_path / "ship")
    mc = _example("mcnemar_first_fold")
    for f in (pooled_t, mc):
        a = card(f, ["demo"], path)
        b = card(f, ["demo"], tmp_path / "ship")
        for frame in ("size", "power", "paired", "calibration", "summary"):
            pd.testing.assert_frame_equal(getattr(a, frame), getattr(b, frame))
        assert b.studies["read_from"].str.startswith("shipped trials").all()


def test_several_root_seeds_read_the_studys_own_and_say_so(tmp_path):
    s = get_study("demo", runs=2).select("iris/nmc~1nn")
    with Store(tmp_path / "s.sqlite") as st:
        for seed in (0, 7):
            run_study(s.replace(seed=seed), st, backend="serial", progress=False)
    c = card(t5x2, ["demo"], tmp_path / "s.sqlite")
    assert c.trials == 2
    assert "demo: read at root seed 0; also stored at 7 (--seed to read another)" in c.notes
    assert card(t5x2, ["demo"], tmp_path / "s.sqlite", seed=7).trials == 2
