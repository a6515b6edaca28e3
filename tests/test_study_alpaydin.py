"""Alpaydın (1999) studies at a few runs: grids, rendering, the paper's numbers beside ours."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from simstudy.aggregate import collect
from simstudy.catalog import get_study
from simstudy.runner import run_study
from simstudy.store import Store


def test_type1_grid_matches_table3():
    s = get_study("type1")
    g = s.grid()
    assert len(g) == 14  # 15 experiments of Table 3 less THYROID, which we do not have
    assert s.runs == 1000 and s.alpha == 0.05
    assert all(a == b for a, b in (ln.split("~") for ln in g["learners"]))
    assert set(g["design"]) == {"5x2"} and set(g["tests"]) == {"t5x2cv,F5x2cv"}
    t2 = get_study("type2").grid()
    assert all(ln.startswith("lp~mlp-") for ln in t2["learners"])


def test_errors_study_shares_trials_with_type1_and_type2():
    ids = {c.id for c in get_study("errors").cells}
    assert ids == {c.id for c in get_study("type1").cells} | {c.id for c in get_study("type2").cells}
    assert {c.id for c in get_study("numerator").cells} - ids == {
        c.id for c in get_study("numerator").cells if c.source == "pendigits"}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    path = tmp_path_factory.mktemp("alp") / "s.sqlite"
    with Store(path) as s:
        for name in ("type1", "type2"):
            run_study(get_study(name, runs=3).select("iris/"), s, backend="serial",
                      progress=False)
        yield s


def test_type1_renders_table3_and_figure1(store, tmp_path):
    study = get_study("type1", runs=3).select("iris/")
    paths = study.render(collect(study, store), tmp_path)
    names = {p.name for p in paths}
    assert {"table3_type1.md", "table3_type1.csv", "table3_type1.tex", "figure1.png",
            "figure1.pdf", "RESULTS.md"} <= names
    t = pd.read_csv(tmp_path / "table3_type1.csv")
    assert len(t) == 15
    assert t.loc[t["dataset"] == "THYROID", "status"].item() == "not available"
    iris = t[t["dataset"] == "IRIS"]
    assert list(iris["status"]) == ["ok"] * 3 and list(iris["runs"]) == [3] * 3
    assert list(iris["paper_t"]) == [0.032, 0.040, 0.029]  # Table 3, as printed
    # the printed interval is the 99 % band the in-band flag tests (scipy's Wilson interval)
    for r in iris.itertuples():
        for short in ("t", "F"):
            k = round(getattr(r, f"ours_{short}") * r.runs)
            ci = binomtest(k, int(r.runs)).proportion_ci(0.99, method="wilson")
            assert getattr(r, f"ci99_{short}") == f"[{ci.low:.3f}, {ci.high:.3f}]"
            paper = getattr(r, f"paper_{short}")
            assert getattr(r, f"paper_{short}_in_99") == (ci.low - 5e-4 <= paper <= ci.high + 5e-4)
    assert (tmp_path / "figure1.png").stat().st_size > 10_000
    text = (tmp_path / "RESULTS.md").read_text()
    assert "combined F type I error" in text and "99 % Wilson band" in text


def test_type2_renders_z_and_figure2(store, tmp_path):
    study = get_study("type2", runs=3).select("iris/")
    result = collect(study, store)
    study.render(result, tmp_path)
    t = pd.read_csv(tmp_path / "table3_type2.csv")
    ok = t[t["status"] == "ok"]
    assert len(ok) == 3 and ok["z"].notna().all()
    # z recomputed by hand from the stored fold errors of one cell
    cell = result.trials[result.trials["cell"] == study.cells[0].id]
    E = np.stack(list(cell["errors"]))
    z = (E[:, 0].mean() - E[:, 1].mean()) / E[:, 1].ravel().std(ddof=1)
    assert ok.iloc[0]["z"] == pytest.approx(z)
    assert (tmp_path / "figure2.png").exists()


def test_errors_and_numerator_render(store, tmp_path):
    study = get_study("errors", runs=3).select("iris/")
    study.render(collect(study, store), tmp_path / "e")
    t2 = pd.read_csv(tmp_path / "e" / "table2_errors.csv")
    iris = t2[t2["dataset"] == "IRIS"]
    assert len(iris) == 4 and (iris["status"] == "ok").all()
    assert iris["ours_mean_pct"].between(0, 100).all()
    num = get_study("numerator", runs=3).select("iris/")
    num.render(collect(num, store), tmp_path / "n")
    t1 = pd.read_csv(tmp_path / "n" / "table1_numerator.csv")
    row = t1[t1["dataset"] == "IRIS"].iloc[0]
    assert 0 <= row["run0_t_rejects_out_of_10"] <= 10 and row["t_rejects_out_of_10"] == 2
    assert set(t1.loc[t1["status"] == "not available", "dataset"]) == {"THYROID", "DIGIT"}


def test_band_table_shows_the_range_of_runs_of_a_partly_run_study():
    from simstudy.studies.alpaydin1999.pages import _band_table

    def half(runs):
        return pd.DataFrame({"status": ["ok", "ok", "not run"], "runs": pd.array(runs, "Int64"),
                             "paper_t": [0.03, 0.03, 0.03], "ours_t": [0.03, 0.03, None],
                             "paper_F": [0.01, 0.01, 0.01], "ours_F": [0.01, 0.01, None]})

    rows = _band_table("half", {"type1": half([738, 200, None]), "type2": half([200, 200, None])})
    # strict beside half-digit, recounted from ours, paper and runs (here all inside)
    assert rows[2] == "| type1 | 2 of 3 | 200–738 | 2/2 | 2/2 | 2/2 | 2/2 |"
    assert rows[3] == "| type2 | 2 of 3 | 200 | 2/2 | 2/2 | 2/2 | 2/2 |"
