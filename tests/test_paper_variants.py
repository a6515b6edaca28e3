"""The paper variants of the Alpaydın and Wang studies and their calibration."""

from __future__ import annotations

import builtins
import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from simstudy.studies import alpaydin1999 as A
from simstudy.studies import wang2016 as W
from simstudy.studies.alpaydin1999 import calibration as PC

from simstudy.aggregate import collect
from simstudy.catalog import get_study
from simstudy.learners import get_learner
from simstudy.planning import validate
from simstudy.report import prose
from simstudy.runner import run_study
from simstudy.store import Store


def test_calibration_reads_only_the_error_table(monkeypatch):
    """The calibration may read Table 2 (errors) and data; never a reject table."""
    opened: list[str] = []
    real_open, real_csv = builtins.open, pd.read_csv

    def spy_open(file, *a, **k):
        opened.append(str(file))
        return real_open(file, *a, **k)

    def spy_csv(path, *a, **k):
        opened.append(str(path))
        return real_csv(path, *a, **k)

    monkeypatch.setattr(builtins, "open", spy_open)
    monkeypatch.setattr(pd, "read_csv", spy_csv)
    t = PC.calibrate_alpaydin(runs=1, grid=(3, 5), datasets=("IRIS",))
    papers = {Path(p).name for p in opened if "reference" in Path(p).parts}
    assert papers == {"alpaydin1999_table2.csv"}
    assert set(t["dataset"]) == {"IRIS"} and set(t["epochs"]) == {3, 5}
    assert t["chosen"].sum() >= 1
    # the module names no reject table at all
    src = inspect.getsource(PC)
    assert "table3" not in src and "table4" not in src and "table5" not in src


def test_committed_calibration_choice_is_the_minimum_per_data_set():
    t = pd.read_csv(PC.OUT)
    for name, g in t.groupby("dataset"):
        best = g.loc[g["mad_pct"].idxmin(), "epochs"]
        assert PC.chosen_epochs(t)[name] == best
    assert set(PC.chosen_epochs()) == {n for n, (s, _) in A.DATASETS.items() if s is not None}


def test_type1_paper_keeps_default_cells_and_adds_online_ones():
    default = {c.id for c in get_study("type1").cells}
    study = get_study("type1-paper")
    ids = [c.id for c in study.cells]
    assert len(ids) == len(set(ids)) == 2 * len(default)
    d = [c for c in study.cells if c.label("variant") == "default"]
    p = [c for c in study.cells if c.label("variant") == "paper"]
    assert {c.id for c in d} == default
    epochs = PC.chosen_epochs()
    for c in p:
        for spec in c.learners:
            assert "solver=online" in spec and f"epochs={epochs[c.label('dataset')]}" in spec
            assert get_learner(spec).name == spec  # canonical: the cell id says everything
    validate(study)


def test_wang_paper_variants_keep_default_ids_and_add_hypotheses():
    g = get_study("gaussian-paper")
    assert {c.id for c in get_study("gaussian").cells} <= {c.id for c in g.cells}
    assert all(W.ONE_SIDED in c.tests for c in g.cells if c.design == "b3x2")
    mx = [c for c in g.cells if c.label("variant") == "ab=max"]
    rp = [c for c in g.cells if c.label("variant") == "rt=rpart"]
    assert len(rp) == 8 * 3 and all(W.RPART in c.learners for c in rp)
    assert len(mx) == 8 * 2 * 3 and all("max" in c.learners and "ab" not in c.learners for c in mx)
    gb = [c for c in g.cells if c.label("variant") == "ab=gbm"]
    assert len(gb) == 8 * 2 * 3 and all(W.GBM_OLD in c.learners for c in gb)
    r = get_study("wang-real-paper")
    assert {c.id for c in get_study("wang-real").cells} <= {c.id for c in r.cells}
    for c in r.cells:
        if c.label("variant") == "nnet":
            assert all(get_learner(s).name == s and "solver=nnet" in s for s in c.learners)
    validate(g)
    validate(r)


def test_replication_correlations_recover_a_known_structure():
    """ρ̂1, ρ̂2 of simulated differences with the paper's covariance (Σ of its appendix)."""
    rng = np.random.default_rng(0)
    rho1, rho2, R, F, runs = 0.1, 0.3, 5, 2, 20000
    S = np.full((R * F, R * F), rho2)
    for i in range(R):
        S[2 * i:2 * i + 2, 2 * i:2 * i + 2] = rho1
    np.fill_diagonal(S, 1.0)
    D = rng.multivariate_normal(np.zeros(R * F), S, size=runs).reshape(runs, R, F)
    E = np.stack([D, np.zeros_like(D)], axis=1)  # learner b's errors 0: d = e_a
    res = type("R", (), {"trials": pd.DataFrame({"cell": ["c"] * runs, "errors": list(E)})})
    out = W.replication_correlations(res)
    assert out.loc[0, "rho1"] == pytest.approx(rho1, abs=0.02)
    assert out.loc[0, "rho2"] == pytest.approx(rho2, abs=0.02)


def test_gaussian_paper_end_to_end_small(tmp_path):
    """Case 1 of gaussian-paper at 3 runs: every scenario renders a full Table 3 selection."""
    study = get_study("gaussian-paper", runs=3)
    study = study.replace(cells=[c for c in study.cells if c.label("case") == 1])
    with Store(tmp_path / "s.sqlite") as store:
        run_study(study, store, backend="serial", progress=False)
        result = collect(study, store)
    for _name, choose, crit, _ in W.GAUSS_SCENARIOS:
        t3 = W.table3(result, W.scenario_rows(result, choose, crit))
        ok = t3[t3["status"] == "ok"]
        assert len(ok) == 12  # case 1: 4 comparisons x 3 tests, one cell each
        learners = set(ok["learners"])
        assert ("svm~max" in learners) == (choose.get("SVM vs AB") == "ab=max")
        assert (f"svm~{W.GBM_OLD}" in learners) == (choose.get("SVM vs AB") == "ab=gbm")
        assert (f"{W.RPART}~ls" in learners) == ("RT vs LS" in choose)
        assert ok["rho1"].notna().any()
    one = W.scenario_rows(result, {}, "one-sided")
    two = W.scenario_rows(result, {}, "two-sided")
    a = one[one["test"] == "tB3x2cv"].set_index("cell")["proportion"]
    b = two[two["test"] == "tB3x2cv"].set_index("cell")["proportion"]
    assert (a >= b.reindex(a.index)).all()  # one-sided critical value rejects at least as often
    paths = W.render_gaussian_paper(result, tmp_path / "out")
    text = (tmp_path / "out" / "RESULTS.md").read_text()
    assert "AB = majority class" in text and "hypothesis" in text
    assert all(p.exists() for p in paths)


def test_scenario_table_prints_each_scenarios_runs_per_cell(tmp_path):
    """A staged run leaves shared default cells ahead of a scenario's own cells: the summary
    table says so per scenario ("5" vs "3 to 5") instead of comparing counts silently."""
    study = get_study("gaussian-paper", runs=3)
    case1 = [c for c in study.cells if c.label("case") == 1]
    default_ids = {c.id for c in get_study("gaussian").cells}
    with Store(tmp_path / "s.sqlite") as store:
        run_study(study.replace(cells=case1), store, backend="serial", progress=False)
        more = study.replace(cells=[c for c in case1 if c.id in default_ids], runs=5)
        run_study(more, store, backend="serial", progress=False)
        result = collect(study.replace(cells=case1, runs=5), store)
    W.render_gaussian_paper(result, tmp_path / "out")
    rows = {}
    for line in (tmp_path / "out" / "RESULTS.md").read_text().splitlines():
        parts = [x.strip() for x in line.strip("|").split("|")]
        if line.startswith("| ") and len(parts) == 6 and parts[1] in ("yes", "no"):
            rows[parts[0]] = parts[2]
    assert len(rows) == len(W.GAUSS_SCENARIOS)
    assert rows["default"] == "5"  # only shared default cells, all at 5 runs
    assert rows["R defaults (rpart RT)"] == "3 to 5"  # its rpart cells have 3
    assert rows["R defaults + AB = majority class"] == "3 to 5"


def test_ab_weka_defaults_pilot_covers_table3s_ab_rows_and_counts_its_own_table(tmp_path):
    """examples/wang_ab_weka_defaults.py: the 48 AB cells of Table 3 with ab[n_estimators=10]
    (RWeka AdaBoostM1's 10 rounds), and a RESULTS count that is its table's."""
    path = str(Path(__file__).parents[1] / "examples" / "wang_ab_weka_defaults.py")
    study = get_study(path, runs=2)
    assert len(study.cells) == 48
    assert {c.learners for c in study.cells} == {("svm", "ab[n_estimators=10]"),
                                                 ("ab[n_estimators=10]", "rf")}
    assert {(c.tests[0], c.design) for c in study.cells} == set(W.TEST_DESIGN)
    assert get_learner("ab[n_estimators=10]").n_estimators == 10
    small = study.replace(cells=[c for c in study.cells if c.label("case") == 7])
    with Store(tmp_path / "s.sqlite") as store:
        run_study(small, store, backend="serial", progress=False)
        result = collect(small, store)
    paths = study.render(result, tmp_path / "out")
    t = pd.read_csv(tmp_path / "out" / "table3_ab_rows.csv")
    assert len(t) == 48 and (t["status"] == "ok").sum() == 6  # case 7 only
    inside = int(t.loc[t["status"] == "ok", "paper_in_99"].astype(bool).sum())
    text = (tmp_path / "out" / "RESULTS.md").read_text()
    assert "inside our 99 % Wilson band: " in text and f"{inside}/6 half-digit" in text
    assert "Runs per cell: 2 (the paper: 5000)." in text
    assert all(Path(q).exists() for q in paths)


# --- odr-size: ODR's size implied by Table 2's sds (a hypothesis) ---------------------------

def test_implied_sizes_by_hand():
    """N = 2 p (1 - p) / sd^2 per row; the binomial sd of a half at the documented size."""
    t = PC.implied_sizes(known=A.SIZES)
    odr_lp = t[(t["dataset"] == "ODR") & (t["model"] == "LP")].iloc[0]
    assert odr_lp["n_implied"] == pytest.approx(2 * 0.0531 * 0.9469 / 0.0108**2)  # 862.15
    assert odr_lp["binomial_sd_pct"] == pytest.approx(100 * np.sqrt(0.0531 * 0.9469 / 2810))
    iris = t[(t["dataset"] == "IRIS") & (t["model"] == "LP")].iloc[0]
    assert iris["sd_ratio"] == pytest.approx(2.05 / (100 * np.sqrt(0.0375 * 0.9625 / 75)))
    # the evidence the hypothesis rests on: ODR's sds alone are far from binomial
    odr = t["dataset"] == "ODR"
    assert t.loc[odr, "sd_ratio"].min() > 2.3
    assert t.loc[~odr, "sd_ratio"].between(0.8, 1.35).all()
    assert PC.odr_rows() == 900  # mean of 862, 852, 1006 to the hundred
    assert PC.odr_source() == "optdigits[rows=900]"


def test_documented_sizes_are_our_sources_sizes():
    from simstudy.sources import get_source

    for name, (src, _) in A.DATASETS.items():
        if src is not None:
            assert get_source(src).sample(None).n == A.SIZES[name], name


def test_odr_size_calibration_reads_only_table2_and_picks_the_minimum(monkeypatch):
    opened: list[str] = []
    real_csv = pd.read_csv

    def spy_csv(path, *a, **k):
        opened.append(str(path))
        return real_csv(path, *a, **k)

    monkeypatch.setattr(pd, "read_csv", spy_csv)
    t = PC.calibrate_alpaydin({"ODR": 1}, grid=(2, 4), datasets=("ODR",),
                              sources={"ODR": "optdigits[rows=200]"}, max_epochs={})
    assert {Path(p).name for p in opened if "reference" in Path(p).parts} == {
        "alpaydin1999_table2.csv"}
    assert set(t["source"]) == {"optdigits[rows=200]"} and list(t["epochs"]) == [2, 4]
    assert (t["lp_sd_pct"] > 0).all()
    monkeypatch.undo()
    committed = pd.read_csv(PC.OUT_ODR_ROWS)
    assert set(committed["source"]) == {PC.odr_source()}
    assert A.odr_size_epochs() == int(committed.loc[committed["mad_pct"].idxmin(), "epochs"])


def test_odr_size_cells():
    study = get_study("odr-size")
    ep = A.odr_size_epochs()
    pairs = {(c.label("kind"), c.label("hidden")): c.learners for c in study.cells}
    assert {c.source for c in study.cells} == {"optdigits[rows=900]"}
    assert pairs == {("type1", h): (PC.online_spec(f"mlp-{h}", ep),) * 2 for h in (10, 20)} | {
        ("type2", h): (PC.online_spec("lp", ep), PC.online_spec(f"mlp-{h}", ep))
        for h in (10, 20)}
    from simstudy.sources import get_source

    ds = get_source("optdigits[rows=900]").sample(None)
    assert ds.n == 900 and np.bincount(ds.y).min() >= 80  # every class, 81-95 cases each


def test_odr_size_render_keeps_the_two_halves_apart(tmp_path):
    """Both halves of Table 3 live in one study: each table row reads only its own cells."""
    study = get_study("odr-size", runs=2)
    cheap = [dataclasses.replace(c, learners=tuple(PC.online_spec(s.split("[")[0], 2) for s in c.learners))
             for c in study.cells]  # 2 epochs: the rendering, not the learners, is under test
    study = study.replace(cells=cheap)
    with Store(tmp_path / "s.sqlite") as store:
        run_study(study, store, backend="serial", progress=False)
        result = collect(study, store)
    paths = A.render_odr_size(result, tmp_path / "out")
    assert all(p.exists() for p in paths)
    t1 = pd.read_csv(tmp_path / "out" / "table3_type1_odr.csv")
    t2 = pd.read_csv(tmp_path / "out" / "table3_type2_odr.csv")
    assert list(t1["hidden"]) == list(t2["hidden"]) == [10, 20]
    assert (t1["status"] == "ok").all() and (t2["status"] == "ok").all()
    for kind, t in (("type1", t1), ("type2", t2)):
        for r in t.itertuples():
            cell = next(c for c in study.cells
                        if c.label("kind") == kind and c.label("hidden") == r.hidden)
            rows = result.table[(result.table["cell"] == cell.id)
                                & (result.table["test"] == "t5x2cv")]
            assert r.ours_t == pytest.approx(float(rows["proportion"].iloc[0]))
    lp = [c for c in study.cells if c.label("kind") == "type2"]
    E = np.stack(list(result.trials[result.trials["cell"] == lp[0].id]["errors"]))
    assert t2.loc[0, "lp_error"] == pytest.approx(E[:, 0].mean())
    text = (tmp_path / "out" / "RESULTS.md").read_text()
    assert "hypothesis" in text and "852–1006" in text
    assert "LP − MLP-10 mean test-fold error: ours" in text


def test_type1_paper_render_counts_match_its_tables(tmp_path):
    """RESULTS.md's in-band row of each variant counts the True cells of that variant's table."""
    study = get_study("type1-paper", runs=2)
    study = study.replace(cells=[c for c in study.cells if c.label("dataset") == "IRIS"])
    with Store(tmp_path / "s.sqlite") as store:
        run_study(study, store, backend="serial", progress=False)
        result = collect(study, store)
    A.render_type1_paper(result, tmp_path)
    text = (tmp_path / "RESULTS.md").read_text()
    for v in A.VARIANTS:
        t = pd.read_csv(tmp_path / f"table3_type1_{v}.csv")
        ok = t[t["status"] == "ok"]
        assert len(ok) == 3  # IRIS 3, 10, 20
        n_t, n_F = int(ok["paper_t_in_99"].sum()), int(ok["paper_F_in_99"].sum())
        s_t = prose.band_checks(ok["paper_t"], ok["ours_t"], ok["runs"], slack=0.0)[0]
        s_F = prose.band_checks(ok["paper_F"], ok["ours_F"], ok["runs"], slack=0.0)[0]
        # strict beside half-digit; the half-digit counts are the tables' flags
        assert f"| {v} | 3 of {len(t)} | 2 | {s_t}/3 | {n_t}/3 | {s_F}/3 | {n_F}/3 |" in text


def test_calibration_script_rejects_runs_below_one(capsys):
    import importlib.util

    from simstudy.cli import guarded
    from simstudy.errors import SimstudyError

    path = Path(__file__).resolve().parents[1] / "scripts" / "alpaydin1999_calibration.py"
    spec = importlib.util.spec_from_file_location("_alpaydin1999_calibration", path)
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    with pytest.raises(SimstudyError, match="runs must be a positive integer, got '0'"):
        script.main(["--odr-rows", "--runs", "0"])
    # as `python scripts/alpaydin1999_calibration.py` runs it: one line, exit status 2
    assert guarded(lambda: script.main(["--runs", "-3"])) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["simstudy: error: argument --runs: runs must be a positive integer, got '-3'"]
