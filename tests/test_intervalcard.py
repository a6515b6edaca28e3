"""The interval card: coverage counts against a hand computation on a small store, every
bad input, ``ss.card`` with an interval method, the command line's exit 2 messages."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as sps

import simstudy as ss
from simstudy.catalog import get_study
from simstudy.cli import main
from simstudy.errors import SimstudyError
from simstudy.interval_truth import conditional_truth
from simstudy.intervalcard import POOLED, _matched_level, _Series, interval_card
from simstudy.store import Store

CELLS = "population[[]data=nursery,n=100]/*"
RESAMPLE = "population[data=nursery,n=100]/nmc~1nn/resample[r=15]"
RUNS = 6


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("ic") / "s.sqlite")
    ss.run("ci-real", runs=RUNS, store=path, filter=CELLS, progress=False, render="none")
    return path


def mean_pm(fl, design, a, b):
    """The plain t interval of the fold means, at 0.9 (no correction)."""
    e = fl.errors[a] if b is None else fl.errors[a] - fl.errors[b]
    x = e.ravel()
    return sps.t.interval(0.9, x.size - 1, loc=x.mean(), scale=x.std(ddof=1) / np.sqrt(x.size))


mean_pm.designs = {"resample"}
mean_pm.confidence = 0.9


def test_coverage_counts_are_the_hand_computed_ones(store):
    c = interval_card(mean_pm, ["ci-real"], store)
    assert c.trials == RUNS
    study = get_study("ci-real")
    cell = next(x for x in study.cells if x.id == RESAMPLE)
    with Store(store, readonly=True) as st:
        tr = st.fold_errors([RESAMPLE], study.seed)[RESAMPLE]
    truth = np.array([conditional_truth(cell, study.seed, int(r)).error for r in tr.runs])
    cov = c.coverage.set_index(["cell", "target", "method"])
    for target, e, t in (("error of nmc", tr.errors[:, 0], truth[:, 0]),
                         ("nmc - 1nn", tr.errors[:, 0] - tr.errors[:, 1],
                          truth[:, 0] - truth[:, 1])):
        x = e.reshape(RUNS, -1)
        J = x.shape[1]
        m, s = x.mean(1), x.std(1, ddof=1)
        q = sps.t.ppf(0.95, J - 1)
        # the new method: the plain t interval; the registry's corrected-t by its formula
        # (Nadeau & Bengio 2003): s sqrt(1/J + n_test/n_train)
        ntr, nte = tr.n_train.mean((1, 2)), tr.n_test.mean((1, 2))
        for method, half in (("mean_pm", q * s / np.sqrt(J)),
                             ("corrected-t", q * s * np.sqrt(1 / J + nte / ntr))):
            lo, hi = m - half, m + half
            r = cov.loc[(RESAMPLE, target, method)]
            assert r["runs"] == RUNS
            assert r["covered"] == int(((lo <= t) & (t <= hi)).sum())
            assert r["below"] == int((t < lo).sum()) and r["above"] == int((t > hi).sum())
            assert r["covered_unconditional"] == int(((lo <= t.mean()) & (t.mean() <= hi)).sum())
            assert r["mean_width"] == pytest.approx(np.mean(hi - lo))
        assert cov.loc[(RESAMPLE, target, "mean_pm"), "unconditional"] == pytest.approx(t.mean())
    # the cells of other designs are skipped by the declared designs, and said so
    assert any("not in g.designs" in n for n in c.notes)
    pooled = c.coverage[(c.coverage["cell"] == POOLED) & c.coverage["new"]].iloc[0]
    assert pooled["runs"] == 2 * RUNS  # the first learner's error and the difference
    assert c.verdict.startswith("`mean_pm` ") and f"against {c.comparator} " in c.verdict
    # the comparator: of the baselines on the most shared trials, coverage nearest the level
    m = c.matched[c.matched["runs"] == c.matched["runs"].max()]
    gap = (m["base_coverage"] - 0.9).abs()
    assert c.comparator in set(m.loc[gap == gap.min(), "baseline"])


def test_the_paired_rows_count_discordant_trials(store):
    c = interval_card(mean_pm, ["ci-real"], store, baselines=["corrected-t"])
    p = c.paired.iloc[0]
    cov = c.coverage.set_index(["cell", "target", "method"])
    new = cov.loc[(p["cell"], p["target"], "mean_pm")]
    base = cov.loc[(p["cell"], p["target"], "corrected-t")]
    # the corrected interval holds the plain one: every trial the new covers, it covers
    assert p["n10"] == 0 and p["n01"] == base["covered"] - new["covered"]
    assert p["width_ratio"] == pytest.approx(new["mean_width"] / base["mean_width"])
    assert p["width_ratio"] < 1


def test_matched_level_is_the_smallest_level_that_covers_as_often():
    # z intervals 0 ± se around a truth at 1, 2, 3, 4 standard errors
    s = _Series(np.empty(0), np.empty(0), np.zeros(4), np.ones(4), np.full(4, np.nan),
                np.full(4, np.nan), np.full(4, np.nan))
    cond = np.array([1.0, 2.0, 3.0, 4.0])
    star = _matched_level(s, cond, 0.5)  # cover 2 of 4: q = 2
    assert star == pytest.approx(2 * sps.norm.cdf(2.0) - 1, abs=1e-9)
    assert np.isnan(_matched_level(s, np.array([1.0, 2.0, 3.0, np.inf]), 1.0))


# --- bad input ---------------------------------------------------------------------------

@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, -0.1, "x"])
def test_a_level_outside_zero_one_is_one_line(store, level):
    def g(fl, design, a, b):
        return 0.0, 1.0

    with pytest.raises(SimstudyError, match=r"confidence level .* must be strictly between 0 "
                                            r"and 1"):
        interval_card(g, ["ci-real"], store, level=level)


@pytest.mark.parametrize("bounds, said", [
    ((0.3, 0.1), r"returned low 0\.3 > high 0\.1"),
    ((float("nan"), 0.1), r"returned a non-finite bound \(nan, 0\.1\)"),
    ((0.0, float("inf")), r"returned a non-finite bound \(0\.0, inf\)"),
    (("a", 0.1), r"must return \(low, high\), two numbers"),
])
def test_a_bad_interval_names_the_method_cell_and_run(store, bounds, said):
    def bad(fl, design, a, b):
        return bounds

    bad.designs = {"5x2"}
    with pytest.raises(SimstudyError, match=said) as e:
        interval_card(bad, ["ci-real"], store)
    msg = str(e.value)
    assert "'bad'" in msg and "population[data=nursery,n=100]/nmc~1nn/5x2" in msg
    assert "run 0" in msg and "\n" not in msg


def test_a_design_the_method_cannot_read_is_skipped_with_the_reason(store):
    def only_halves(fl, design, a, b):
        if design.shape[1] != 2:
            raise ValueError(f"needs r x 2 halves, got {design.name}")
        return 0.0, 1.0

    c = interval_card(only_halves, ["ci-real"], store)
    assert set(c.coverage.loc[~c.coverage["cell"].eq(POOLED), "design"]) == {"5x2"}
    said = " ".join(c.notes)
    assert "the interval function raised ValueError: needs r x 2 halves, got 1x10cv[strat=0]" \
        in said
    assert c.studies.iloc[0]["status"] == "partly covered"


def test_an_error_after_the_first_trial_is_not_a_skip(store):
    calls = []

    def flaky(fl, design, a, b):
        calls.append(1)
        if len(calls) > 1:
            raise ValueError("boom")
        return 0.0, 1.0

    flaky.designs = {"5x2"}
    with pytest.raises(SimstudyError, match=r"the interval function raised on cell .*5x2', "
                                            r"target 'error of nmc', run 1: ValueError: boom"):
        interval_card(flaky, ["ci-real"], store)


def test_a_wrong_signature_and_a_declared_level_clash(store):
    def one(d):
        return 0.0, 1.0

    with pytest.raises(SimstudyError, match=r"interval function 'one' cannot be called as "
                                            r"g\(fold_losses, design, a, b\)"):
        interval_card(one, ["ci-real"], store)
    with pytest.raises(SimstudyError, match="differs from the interval function's declared"):
        interval_card(mean_pm, ["ci-real"], store, level=0.95)
    with pytest.raises(SimstudyError, match="interval method 'nope'"):
        interval_card(mean_pm, ["ci-real"], store, baselines=["nope"])


# --- the one door ---------------------------------------------------------------------------

def test_ss_card_takes_an_interval_method(store):
    c = ss.card(mean_pm, ["ci-real"], store, kind="interval")
    assert c.name == "mean_pm" and c.trials == RUNS

    def declared(fl, design, a, b):
        return mean_pm(fl, design, a, b)

    declared.kind = "interval"
    declared.designs = {"resample"}
    c2 = ss.card(declared, "ci-real", store, level=0.9)
    assert c2.coverage["covered"].sum() == c.coverage["covered"].sum()
    with pytest.raises(SimstudyError, match=r"card kind 'ci'; valid choices: test, interval"):
        ss.card(mean_pm, ["ci-real"], store, kind="ci")


# --- the command line ---------------------------------------------------------------------

def test_cli_interval_card_writes_it_and_exits_2_on_bad_input(store, tmp_path, capsys):
    mod = tmp_path / "mine.py"
    mod.write_text("def g(fl, design, a, b):\n    return 0.0, 1.0\n"
                   "g.designs = {'5x2'}\n")
    out = tmp_path / "card"
    assert main(["card", "--interval", f"{mod}:g", "--studies", "ci-real", "--store", store,
                 "--out", str(out)]) == 0
    said = capsys.readouterr()
    assert said.out.startswith("`g` ") and (out / "card.md").is_file()
    assert (out / "card_coverage.csv").is_file()
    for argv, msg in (
            (["--interval", f"{mod}:g", "--level", "1.5"],
             "argument --level: level must be a number in (0, 1), got '1.5'"),
            (["--interval", f"{tmp_path}/none.py:g"],
             f"cannot import module '{tmp_path}/none.py' for --interval"),
            (["--interval", "nocolon"], "--interval expects MODULE:FUNCTION"),
            (["--test", f"{mod}:g", "--level", "0.9"],
             "--level 0.9 is for an interval method's card (--interval)"),
            (["--interval", f"{mod}:g", "--studies", "nosuch"], "nosuch")):
        assert main(["card", *argv, "--store", store, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert msg in err and "Traceback" not in err


# --- the .632+ bootstrap -------------------------------------------------------------------

def test_632plus_agrees_with_a_hand_computation():
    from simstudy.stats.intervals import oob_632plus_interval

    nan = np.nan
    # 3 bootstrap samples of 4 instances; nan: in the sample (not out of bag)
    oob = [[nan, 1, 0, nan], [0, nan, nan, 1], [1, 0, nan, nan]]
    apparent = [0, 0, 0, 1]
    # E_i = 0.5, 0.5, 0, 1 -> Err1 = 0.5; err = 0.25; Err.632 = .368 .25 + .632 .5 = 0.408
    # gamma 0.75: Err1' = 0.5, R' = 0.25 / 0.5 = 0.5,
    # Err.632+ = 0.408 + 0.25 * .368 * .632 * .5 / (1 - .368 * .5)
    r = oob_632plus_interval(oob, apparent, 0.75)
    want = 0.408 + 0.25 * 0.368 * 0.632 * 0.5 / (1 - 0.184)
    assert r.statistic == pytest.approx(want, abs=1e-12)
    se = np.std([0.5, 0.5, 0, 1], ddof=1) / 2
    assert r.standard_error == pytest.approx(se * want / 0.5)
    lo, hi = r.confidence_interval(0.9)
    assert (lo, hi) == pytest.approx((want - 1.6448536269514722 * se * want / 0.5,
                                      want + 1.6448536269514722 * se * want / 0.5))
    # gamma at Err1: R' = 1, the estimate is .632 Err1 + .368 gamma
    assert oob_632plus_interval(oob, apparent, 0.5).statistic == pytest.approx(
        0.632 * 0.5 + 0.368 * 0.5)
    # no overfitting (Err1 <= err): R' = 0, the plain .632 estimate
    assert oob_632plus_interval(oob, [1, 1, 0, 1], 0.9).statistic == pytest.approx(
        0.368 * 0.75 + 0.632 * 0.5)
    # Err1 above gamma: clipped, Err.632 + (gamma - err) .368
    assert oob_632plus_interval(oob, apparent, 0.4).statistic == pytest.approx(
        0.408 + (0.4 - 0.25) * 0.368)
    with pytest.raises(SimstudyError, match="no instance is out of bag"):
        oob_632plus_interval([[nan, nan]], [0, 1], 0.5)


def test_list_shows_interval_methods_generators_and_regression_learners_with_papers(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out

    def section(title: str) -> dict[str, str]:
        body = out.split(f"\n{title}:\n", 1)[1].split(":\n", 1)[0]
        return {ln.split()[0]: ln for ln in body.splitlines() if ln.startswith("  ")}

    iv, ln, ds = section("intervals"), section("learners"), section("data sets")
    for name, paper in (("holdout", "Schulz-Kümpel et al. 2024"), ("naive-cv", "Bates"),
                        ("cv-clt", "Bayle, Bayle, Janson & Mackey 2020"),
                        ("corrected-t", "Nadeau & Bengio 2003"),
                        ("conservative-z", "Nadeau & Bengio 2003"),
                        ("t5x2cv", "Dietterich 1998"), ("ncv", "Bates, Hastie & Tibshirani")):
        assert paper in iv[name], name
    for name, paper in (("ols", "Bates, Hastie & Tibshirani 2024"), ("ridge", "Hoerl & Kennard"),
                        ("rf-reg", "Breiman 2001"), ("knn-reg", "KNeighborsRegressor")):
        assert paper in ln[name], name
    for name, paper in (("lingauss", "Bates, Hastie & Tibshirani 2024"),
                        ("friedman1", "Friedman 1991"), ("logistic", "logistic model"),
                        ("population", "Schulz-Kumpel et al. 2024")):
        assert paper in ds[name], name
