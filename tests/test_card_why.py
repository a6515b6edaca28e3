"""What a new user hit when judging a new test, each caught by a test here or named below.

One test per way the card, bench or their hints failed a user following the README (the
rest are in tests/test_card_never_misleads.py, tests/test_card.py and tests/test_bench.py;
docs/new-test.md, "What the tests hold the card to", maps each to its test):

* the trials at the papers' run counts ship, within their size budget, and a card with no
  store reads them and says so (bench too);
* a study no design of ``f.designs`` fits is named on the command line, not dropped;
* type2's cells (truth unknown) are never power, on the shipped trials themselves;
* a long card prints a first line at once, and its progress bar gives an estimate;
* the hinted commands run as printed (a .gz snapshot; a study file);
* ``run``'s table names each pair of a 3-learner cell;
* the paired interval's gain over the unpaired one, pooled over the H0 cells, is in the
  verdict and the card;
* the fast paths the card's speed depends on give the numbers of the slow ones.
"""

import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps
from test_card_never_misleads import pooled_t, t5x2

from simstudy.aggregate import newcombe_unpaired, tango_paired
from simstudy.catalog import get_study
from simstudy.cli import main
from simstudy.report.card import write_card
from simstudy.runner import run_study
from simstudy.store import Store
from simstudy.testcard import POOLED, POWER, SIZE, UNKNOWN, card, h0_width_ratio

ROOT = Path(__file__).resolve().parents[1]
trials_mod = pytest.importorskip("simstudy.trials")


#: what the card judges a new test on, at the papers' run counts: study -> (runs per cell,
#: root seeds); ban's 10,000 runs are 1000 training sets x 10 runs each
PAPERS = {"type1": (1000, 1), "type2": (1000, 1), "gaussian": (5000, 1), "ban": (10000, 1),
          "replicability": (10, 3), "multitest": (1000, 1), "wang-real": (5000, 1)}
SHIPPED = trials_mod.shipped_dirs()


# --- the shipped trials ----------------------------------------------------------------------

@pytest.mark.parametrize("study", list(PAPERS))
def test_the_studies_a_test_is_judged_on_ship_at_the_papers_run_counts(study):
    assert study in SHIPPED, f"no shipped trials of {study!r} (figures/{study}/trials)"
    runs, seeds = PAPERS[study]
    with trials_mod.ShippedTrials(SHIPPED[study]) as r:
        h = r.holdings()
    assert h["seed"].nunique() == seeds
    assert h["trials"].max() == runs


def test_the_shipped_trials_keep_to_their_budget():
    files = [f for d in SHIPPED.values() for f in d.iterdir() if f.is_file()]
    assert files and max(f.stat().st_size for f in files) <= 25_000_000
    assert sum(f.stat().st_size for f in files) <= 60_000_000


@pytest.mark.parametrize("study", ["type1", "type2"])
def test_alpaydins_studies_ship_every_cell_at_1000_runs(study):
    """The four optdigits (ODR) cells too, which a 1000-run store once lacked."""
    s = get_study(study)
    with trials_mod.ShippedTrials(SHIPPED[study]) as r:
        h = r.holdings([c.id for c in s.cells]).set_index("cell")["trials"]
    assert {c.id: int(h.get(c.id, 0)) for c in s.cells} == {c.id: 1000 for c in s.cells}


def test_with_no_store_card_and_bench_read_the_shipped_trials_and_say_so(tmp_path,
                                                                        monkeypatch):
    from simstudy.benchmark import bench

    monkeypatch.chdir(tmp_path)  # no simstudy-store.sqlite here
    where = trials_mod.ShippedTrials(SHIPPED["type1"]).describe()
    assert where.startswith("shipped trials ")
    c = card(pooled_t, ["type1"], runs=3, baselines=())
    assert c.studies["read_from"].tolist() == [where]
    t = bench(pooled_t, "type1", runs=3)
    assert t.attrs["read_from"] == where
    assert t.attrs["notes"][0] == f"trials read from {t.attrs['read_from']}"


def test_readmes_card_command_needs_no_run_first(tmp_path):
    """README's walkthrough starts from the shipped trials: its card command, with no
    `run` before it and no --store, reads them (here its first 5 runs per cell)."""
    import subprocess
    import sys

    section = (ROOT / "README.md").read_text().split("## Judging a new test")[1].split("\n## ")[0]
    cmd = next(line.strip() for line in section.splitlines()
               if line.startswith("python -m simstudy card"))
    assert "--store" not in cmd and "simstudy run" not in section.split(cmd)[0]
    r = subprocess.run([sys.executable, *shlex.split(cmd)[1:], "--runs", "5", "--out",
                        str(tmp_path / "c"), "--no-figures"], cwd=ROOT, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    for study in ("type1", "type2", "gaussian"):
        assert any(x.startswith(f"  {study}: ") and "from shipped trials" in x for x in lines)


# --- every study asked for is named ------------------------------------------------------------

K_STUDY = """from simstudy.catalog import get_study
from simstudy.study import Cell


def build():
    return get_study("demo", runs=2).replace(
        name="kfold", meta={}, cells=[Cell("iris", ("nmc", "1nn"), "1x5cv", ("cv-t",))])
"""


def test_the_command_line_names_a_study_no_design_fits(tmp_path, capsys, monkeypatch):
    """--studies A,B with f.designs fitting none of B's designs: B is on the screen."""
    monkeypatch.chdir(ROOT)
    k = tmp_path / "kfold.py"
    k.write_text(K_STUDY)
    store = tmp_path / "s.sqlite"
    with Store(store) as s:
        run_study(get_study("demo", runs=2).select("iris/nmc~1nn"), s, backend="serial",
                  progress=False)
        run_study(get_study(str(k)), s, backend="serial", progress=False)
    assert main(["card", "--test", "tests/test_card_never_misleads.py:t5x2", "--studies", f"demo,{k}",
                 "--store", str(store), "--out", str(tmp_path / "c"), "--no-figures"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith(f"{k}:"))
    assert "skipped" in line and "design '1x5cv' not in f.designs" in line
    assert f"skipped: {k}" in out.splitlines()[0]  # the verdict says it too


# --- truth drives the words, on the shipped trials -----------------------------------------------

def test_type2_is_never_power_on_the_shipped_trials():
    """Alpaydın's type II cells: which learner is better is not known (IRIS LP vs MLP is
    effectively a null cell), so their reject rate is never called power."""
    c = card(pooled_t, ["type2"], runs=20, baselines=())
    assert set(c.power["measure"]) == {UNKNOWN} and c.size.empty
    assert (c.summary["power_cells"] == 0).all() and "power not judged" in c.verdict.lower()
    assert c.power["x_kind"].eq("abs(z)").all() and c.power["x"].notna().all()
    iris = c.power[c.power["cell"].str.startswith("iris/lp~mlp")]
    assert (iris["x"] < 0.5).any()  # a near-null cell, shown with its |z|


# --- signs of life ------------------------------------------------------------------------------

def test_a_long_card_says_what_it_reads_before_the_first_trial(capsys, tmp_path):
    events = []

    def slow(d, *, n_train, n_test):
        events.append("call")
        return 0.0, 0.5

    c = card(slow, ["type1"], runs=4, baselines=(), progress=True,
             log=lambda line: events.append(line))
    where = trials_mod.ShippedTrials(SHIPPED["type1"]).describe()
    n = 4 * len(get_study("type1").cells)  # runs=4 of every shipped type1 cell
    assert events[0] == (f"card 'slow': up to {n} trials x learner pairs of type1 to evaluate, "
                         f"from {where}; no learner is fitted")
    assert events[1:] == ["call"] * c.pairs
    err = capsys.readouterr().err
    # tqdm's bar: trials done of the total, elapsed<left (the estimate), and the rate
    assert re.search(rf"card slow: .*{n}/{n} \[\d\d:\d\d<\d\d:\d\d, .*trial/s\]", err)


def test_the_command_line_prints_a_first_line_before_locating_anything(capsys, monkeypatch,
                                                                       tmp_path):
    import simstudy.testcard as card_mod

    seen = {}

    def fake(test, studies, store=None, **kw):
        seen["err"] = capsys.readouterr().err  # what was printed before the card began
        raise card_mod.SimstudyError("stop here")

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(card_mod, "card", fake)
    assert main(["card", "--test", "x.py:f", "--studies", "type1,type2"]) == 2
    assert seen["err"] == ("card x.py:f: locating the trials of type1, type2 in the shipped "
                           "trials ...\n")


# --- hints that run -----------------------------------------------------------------------------

MY_STUDY = """from simstudy.catalog import get_study


def build():
    return get_study("demo", runs=2).select("wine/nmc~1nn").replace(name="mine")
"""


def _commands(reason):
    """The ``python -m simstudy ...`` commands a reason names, as argument lists."""
    return [shlex.split(m)[3:] for m in re.findall(r"python -m simstudy [^()]*?(?=\)|$| \()",
                                                    reason)]


def test_the_hinted_commands_run_as_printed(tmp_path, monkeypatch):
    """A study file missing from a .gz snapshot: the card's hint is run word for word (with
    --runs 2 to keep it short), then its snapshot command, and the card reads the study."""
    monkeypatch.chdir(tmp_path)
    f = tmp_path / "mystudy.py"
    f.write_text(MY_STUDY)
    with Store(tmp_path / "s.sqlite") as s:
        run_study(get_study("demo", runs=2).select("iris/nmc~1nn"), s, backend="serial",
                  progress=False)
        s.snapshot(tmp_path / "s.sqlite.gz")
    gz = str(tmp_path / "s.sqlite.gz")
    c = card(t5x2, ["demo", str(f)], [gz])
    reason = c.studies.set_index("study").loc[str(f), "reason"]
    cmds = _commands(reason)
    assert main([*cmds[0], "--runs", "2", "--render", "none", "--no-progress"]) == 0
    assert [c[0] for c in cmds] == ["run", "snapshot"]  # run into a plain store, snapshot it
    assert main(cmds[1]) == 0
    c = card(t5x2, ["demo", str(f)], [gz])
    st = c.studies.set_index("study")
    assert st.loc[str(f), "status"] == "covered" and st.loc[str(f), "trials"] == 2


# --- run's reject table names the pair -------------------------------------------------------------

THREE = """from simstudy.catalog import get_study
from simstudy.study import Cell


def build():
    return get_study("demo", runs=2).replace(
        name="three", meta={}, cells=[Cell("iris", ("lp", "lp", "nmc"), "5x2", ("t5x2cv",))])
"""


def test_runs_printed_table_names_each_pair_of_a_three_learner_cell(tmp_path, capsys,
                                                                    monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "three.py").write_text(THREE)
    assert main(["run", "three.py", "--store", "s.sqlite", "--render", "none",
                 "--no-progress"]) == 0
    rows = [x for x in capsys.readouterr().out.splitlines() if x.startswith("| iris/")]
    assert [x.split("|")[3].strip() for x in rows] == ["lp#1~lp#2", "lp#1~nmc#3",
                                                      "lp#2~nmc#3"]


# --- the paired interval's gain -----------------------------------------------------------------

def test_the_h0_width_ratio_pools_every_h0_cell_and_is_in_the_verdict(tmp_path):
    c = card(pooled_t, ["type1", "type2"], runs=40, baselines=())
    p = c.paired
    h0 = p[(p["measure"] == SIZE) & (p["cell"] != POOLED) & (p["baseline"] == "t5x2cv")]
    n = int(h0["runs"].sum())
    lo, hi = tango_paired(int(h0["n10"].sum()), int(h0["n01"].sum()), n)
    ulo, uhi = newcombe_unpaired(int(h0["new_rejects"].sum()), n, int(h0["base_rejects"].sum()), n)
    ratio = h0_width_ratio(p, "t5x2cv")
    assert ratio == pytest.approx((uhi - ulo) / (hi - lo))
    assert n == c.size.loc[c.size["test"] == "pooled_t", "runs"].sum()
    # the pooled H0 row of the card says the same
    row = p[(p["cell"] == POOLED) & (p["measure"] == SIZE) & (p["baseline"] == "t5x2cv")]
    assert row["width_ratio"].item() == pytest.approx(ratio)
    assert f", paired interval {ratio:.1f}x narrower than an unpaired one" in c.verdict
    md = write_card(c, tmp_path / "c", figures=False, html=False)[0].read_text()
    assert f"t5x2cv {ratio:.2f}x ({n:,} trials)" in md
    # and from the CSV the card wrote
    assert h0_width_ratio(pd.read_csv(tmp_path / "c" / "card_paired.csv"), "t5x2cv") == \
        pytest.approx(ratio)
    assert np.isnan(h0_width_ratio(p, "no such test"))


def test_power_rows_are_not_in_the_h0_ratio():
    c = card(pooled_t, ["gaussian"], runs=30, baselines=())
    assert set(c.paired["measure"]) == {POWER}
    assert np.isnan(h0_width_ratio(c.paired, "F5x2cv"))


# --- the fast paths give the slow paths' numbers ------------------------------------------------

@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_wilcoxon_batch_is_the_per_trial_test_to_the_bit(alternative):
    """The batch computes one exact null distribution per tie pattern over many trials;
    every trial's p-value must be the one the trial gets alone."""
    from simstudy.stats import folds

    rng = np.random.default_rng(7)
    for shape in ((700, 5, 2), (400, 3, 2), (300, 1, 12)):
        d = rng.integers(-3, 4, shape) / 40  # ties and zeros, as fold error counts give
        stat, p = folds.wilcoxon_signed_rank_batch(d, alternative=alternative)
        for i in range(0, shape[0], 7):
            s1, p1 = folds.wilcoxon_signed_rank_batch(d[i:i + 1], alternative=alternative)
            assert (stat[i], p[i]) == (s1[0], p1[0])


def test_the_benchmarks_functions_are_the_corrected_t():
    from simstudy.perf import card as perf

    rng = np.random.default_rng(3)
    d = rng.normal(0.01, 0.03, (5, 10, 1))
    ntr, nte = np.full(5, 90.0), np.full(5, 10.0)
    t, p = perf.corrected_t(d, n_train=ntr, n_test=nte)
    for i in range(5):
        ts, ps = perf.corrected_t_scalar(d[i], n_train=90.0, n_test=10.0)
        x = d[i].ravel()
        want = x.mean() / np.sqrt((1 / 10 + 10 / 90) * x.var(ddof=1))
        assert ts == pytest.approx(want) and t[i] == pytest.approx(want)
        assert ps == pytest.approx(2 * sps.t.sf(abs(want), 9)) and p[i] == pytest.approx(ps)
    e = rng.integers(0, 5, (4, 5, 2)) / 20
    tv, pv = pooled_t(e, n_train=None, n_test=None)
    for i in range(4):
        ts, ps = perf.pooled_t_scalar(e[i], n_train=1.0, n_test=1.0)
        assert (float(ts), float(ps)) == pytest.approx((tv[i], pv[i]), nan_ok=True)
    # the t(6) twin decides as the 5x2cv t but for trials near its critical value
    t6, p6 = perf.t5x2cv_t6(e, n_train=None, n_test=None)
    t5, p5 = t5x2(e, n_train=None, n_test=None)
    np.testing.assert_allclose(t6, t5)
    assert (p6 <= p5 + 1e-12).all()


def test_the_benchmark_renders_its_results():
    from simstudy.perf import card as perf

    run = {"wall_s": 9.0, "cpu_s": 4.0, "first_output_s": 0.5, "first_output_cpu_s": 0.3,
           "trials": 10, "pairs": 12, "load_before": 1.0, "load_after": 2.0,
           "first_line": "card x", "verdict": "v."}
    res = {"studies": ["type1"], "shipped_trials": 10, "repeat": 1, "figures": False,
           "targets": perf.TARGETS, "runs": {"corrected_t": [run]},
           "summary": {"corrected_t": {"test": "t", "kind": "vectorised", **run,
                                       "width_ratio_h0": {}}},
           "paired_ratio": {"pooled_t": {"ratio": 1.63, "h0_runs": 12600, "discordant": 60}},
           "cpu": "cpu", "cores": 2, "commit": "abc", "date": "now"}
    md = perf.render(res)
    assert "| `corrected_t` | vectorised | 10 | 12 | 9.00 | 4.00 | 0.50 | 0.30 |" in md
    assert "| `pooled_t` | 1.63 | 12,600 | 60 |" in md
    assert "fewer than the 1,500,000 of the target" in md
