"""Bouckaert & Frank (2004) study ``replicability`` (Tables 1–4, §4.3).

The grid is checked against the paper (27 data sets of Table 1, 9 designs, the tests of each
table), the data sets against Table 1's sizes, the claim counters against the counts the
paper's own tables give (studies/reference/README.md), and 2 data sets × 2 designs run end to
end (run_study -> collect -> render) in seconds, checking the tables' shapes and that Table 4's
5 % column is Table 3's 10×10 row computed from the same trials.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from simstudy.studies import bouckaert2004 as B
from simstudy.studies.bouckaert2004 import claims as C
from simstudy.studies.bouckaert2004 import grid as G
from simstudy.studies.bouckaert2004 import render as R
from simstudy.studies.bouckaert2004 import tables as T

from simstudy.aggregate import collect_seeds
from simstudy.catalog import get_study
from simstudy.sources import get_source
from simstudy.stats import consistency_from_counts, replicability
from simstudy.store import Store

REF = G.REF


# --- the grid and the data --------------------------------------------------------------------

def test_grid_is_27_sets_x_9_designs_with_the_papers_tests():
    study = get_study("replicability")
    assert study.runs == 10 and study.alpha == 0.05 and study.chunk == 10
    assert len(study.cells) == 27 * 9 == len({c.id for c in study.cells})
    ref = pd.read_csv(REF / "bouckaert2004_table1.csv")
    assert {c.label("dataset") for c in study.cells} == set(ref["dataset"])
    assert all(c.learners == G.LEARNERS for c in study.cells)
    # every set as Weka reads its ARFF (declared domains and class order) where recorded
    sources = {c.label("dataset"): c.source for c in study.cells}
    assert sources["German credit"] == "credit-g[domains=declared]"
    assert sources["Hungarian heart disease"] == "heart-h"  # nothing recorded: codes
    assert sum(s.endswith("[domains=declared]") for s in sources.values()) == 26
    tests = {c.design: c.tests for c in study.cells}
    assert tests == {
        "5x2cv": ("t5x2cv",),
        "resample": ("corrected-resampled-t",),
        "resample[r=20]": ("corrected-resampled-t",),
        "resample[r=50]": ("corrected-resampled-t",),
        "resample[r=100]": ("corrected-resampled-t",),
        "1x10cv": ("corrected-rxk-t", "cv-t"),
        "2x10cv": ("corrected-rxk-t",),
        "5x10cv": ("corrected-rxk-t",),
        "10x10cv": ("corrected-rxk-t", "rxk-t"),
    }
    # splits per data set and repetition: 10 + 180 + 180 (the cost count)
    from simstudy.designs import get_design

    assert sum(np.prod(get_design(d).shape) for d in tests) == 370
    strat = get_study("replicability-strat")
    assert len(strat.cells) == 27 * 8
    assert {c.design for c in strat.cells} == {
        "resample[strat=1]", "resample[r=20,strat=1]", "resample[r=50,strat=1]",
        "resample[r=100,strat=1]", "resample", "resample[r=20]", "resample[r=50]",
        "resample[r=100]"}
    # the unstratified cells are the main study's own (same ids: stored trials are reused)
    unstrat = {c.id for c in strat.cells if not get_design(c.design).strat}
    assert len(unstrat) == 27 * 4 and unstrat <= {c.id for c in study.cells}
    from simstudy.planning import validate

    validate(study)  # every name resolves, every test fits its design, every set its designs
    validate(strat)


def test_bundled_sets_match_table1_sizes_and_documented_variants():
    ref = pd.read_csv(REF / "bouckaert2004_table1.csv").set_index("dataset")
    # the paper's #atts. counts the class for these three (Weka's numAttributes())
    with_class = {"ecoli", "credit-rating", "arrhythmia"}
    for paper, name in G.DATASETS.items():
        d = get_source(name).sample(np.random.default_rng(0))
        r = ref.loc[paper]
        assert d.X.shape[0] == r["n_instances"], paper
        assert len(np.unique(d.y)) == r["n_classes"], paper
    from simstudy.sources.bundled import manifest

    m = manifest().set_index("name")
    for paper, name in G.DATASETS.items():
        want = int(ref.loc[paper, "n_attributes"]) - (paper in with_class)
        assert int(m.loc[name, "n_attributes"]) == want, paper
    # the variants the issue lists
    assert int(m.loc["vowel", "n_attributes"]) == 13
    assert m.loc["horse-colic", "class_counts"] == "yes:232;no:136"  # surgical lesion
    assert "animal name" in m.loc["zoo", "notes"] and int(m.loc["zoo", "n_attributes"]) == 16
    assert int(m.loc["breast-w", "n_instances"]) == 699 and int(m.loc["breast-w", "n_missing"]) == 16
    assert G.DATASETS["credit-rating"] == "crx" and G.DATASETS["German credit"] == "credit-g"
    assert G.DATASETS["Hungarian heart disease"] == "heart-h"


# --- the claim counters on the paper's own numbers ----------------------------------------------

def _paper_as_ours() -> pd.DataFrame:
    """The summary table with the paper's numbers in the 'ours' columns (one seed)."""
    paper = T.paper_summary()
    rows = []
    for row in G.summary_rows():
        for pair in G.PAIR_NAMES:
            for m in G.MEASURES:
                v = T._paper_value(paper, row, pair, m)
                if row.paper_key[0] == "text" and m != "consistent":
                    v = float("nan")
                ok = not np.isnan(v)
                rows.append({"table": row.table, "column": row.column, "design": row.design,
                             "test": row.test, "alpha": row.alpha, "pair": pair, "measure": m,
                             "paper": v, "status": "ok" if ok else "not run", "datasets": 27,
                             "runs": 10, "seeds": 1, "ours": v, "ours_min": v, "ours_max": v,
                             "ours_mean": v, "per_seed": f"{v}", "paper_in_spread": ok})
    return pd.DataFrame(rows)


def _claim(claims, start: str):
    """(held, our numbers and the paper's) of the one claim whose text starts so."""
    hits = [(c.held, f"{c.ours} {c.paper or ''}") for c in claims
            if not isinstance(c, str) and c.text.startswith(start)]
    assert len(hits) == 1, (start, claims)
    return hits[0]


def test_claim_counters_give_the_papers_own_counts():
    cl = C.claims(_paper_as_ours(), pd.DataFrame(columns=["table", "draws"]))
    # README: Table 3 worse than Table 2 at equal cost in 4 of 36 cells
    held, detail = _claim(cl, "Table 3 vs Table 2")
    assert "worse in 4/36" in detail and held is True
    # README: two decreases in Table 2 (NB vs C4.5 consistent 15 -> 14, C4.5 vs NN almost 18 -> 17)
    held, detail = _claim(cl, "Table 2: consistency rises")
    assert "2 decreases in 27 steps" in detail and "15→14" in detail and "18→17" in detail
    assert "25 increases" in detail and held is True
    # Table 1: 9, 12, 13 consistent < 13.5; almost 14, 17, 17 < 0.66 * 27
    assert _claim(cl, "Table 1 (5×2 cv t)")[0] is True
    assert _claim(cl, "Table 1: almost")[0] is True
    # Table 2 at 100 runs: almost 23, 23, 24 >= 21.6; R 0.922, 0.899, 0.935
    assert _claim(cl, "Table 2 at 100 runs")[0] is True
    # Table 4: every R > 0.9 (lowest 0.915)
    held, detail = _claim(cl, "Table 4")
    assert held is True and "0.915" in detail
    # §4.3: 1x10 cv t 15, 16, 14 >= 15, 12, 12 and < 21, 20, 23; uncorrected 25, 24, 18 is
    # not above Table 2 for C4.5 vs NN on the paper's own numbers (23 at 100 runs)
    assert _claim(cl, "§4.3: the standard t")[0] is True
    held, detail = _claim(cl, "§4.3: the uncorrected")
    assert held is False and "25, 24, 18" in detail
    verdict = next(c.verdict for c in cl if not isinstance(c, str)
                   and c.text.startswith("§4.3: the uncorrected"))
    assert verdict == "rule fails on the paper's own numbers"
    # every paper row is trivially inside a spread made of the paper's numbers
    spread = next(c for c in cl if isinstance(c, str) and "inside the spread" in c)
    n = int(spread.split(" strict")[0].rsplit("/", 1)[1])
    assert f"{n}/{n} strict, {n}/{n} half-digit" in spread


def test_counts_follow_the_definitions_by_hand():
    # R(k, 10) over data sets, consistent = k in {0, 10}, almost = k in {0, 1, 9, 10}
    ref = pd.read_csv(REF / "bouckaert2004_table1.csv")
    draws = ref["nonrejections_NB_vs_C45_of_10"].to_numpy()
    cr = consistency_from_counts(draws, 10)
    assert (cr.consistent, cr.almost_consistent) == (9, 14)
    assert cr.R == pytest.approx(0.73663, abs=1e-5)
    assert replicability(np.int64(3), 10) == pytest.approx((3 * 2 + 7 * 6) / 90)


# --- end to end: 2 data sets x 2 designs ---------------------------------------------------------

SETS = ("iris", "zoo")
DESIGNS = ("5x2cv", "10x10cv")


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    from simstudy.runner import run_study

    tmp = tmp_path_factory.mktemp("bouckaert")
    study = B.build(datasets=SETS)
    study = study.replace(cells=[c for c in study.cells if c.design in DESIGNS])
    seeds = (G.SEED, G.SEED + 1)
    with Store(tmp / "store.sqlite") as store:
        for s in seeds:
            run_study(study.replace(seed=s), store, jobs=1, progress=False)
        result = collect_seeds(study, store, seeds)
    paths = R.render(result, tmp / "out")
    return study, result, paths, tmp / "out"


def test_small_run_writes_every_table_and_the_figure(small):
    study, result, paths, out = small
    names = {p.name for p in paths}
    for stem in ("table1", "table1_summary", "table2", "table3", "table4", "text43",
                 "summary", "directions", "cost"):
        assert {f"{stem}.md", f"{stem}.csv", f"{stem}.tex"} <= names, stem
    assert {"figure_R.png", "figure_R.pdf", "RESULTS.md"} <= names
    assert len(result.trials) == len(study.cells) * study.runs * 2
    text = (out / "RESULTS.md").read_text()
    assert "STAND-INS" in text or "`wnb`, `j48`, `ib1`" in text


def test_table1_shape_and_draws_from_stored_pvalues(small):
    study, result, _, _ = small
    t1 = T.table1(result)
    assert len(t1) == 27 and list(t1.columns[:5]) == ["dataset", "source", "inst", "atts", "cl"]
    assert {f"{p} {w}" for p in G.PAIR_NAMES for w in ("paper", "ours", "seeds")} <= set(t1.columns)
    run = t1[t1["source"].isin(SETS)]
    assert run["NB vs C4.5 ours"].notna().all()
    assert t1[~t1["source"].isin(SETS)]["NB vs C4.5 ours"].isna().all()
    # draws = runs minus rejections at 5 %, counted here straight from the store's rows
    res = result.results
    for name in ("iris", "zoo"):
        cell = [c.id for c in study.cells if c.source == G.source(name) and c.design == "5x2cv"][0]
        for (a, b), pair in G.PAIRS.items():
            r = res[(res["cell"] == cell) & (res["test"] == "t5x2cv") & (res["a"] == a)
                    & (res["b"] == b) & (res["seed"] == G.SEED)]
            assert len(r) == 10
            got = t1.loc[t1["source"] == name, f"{pair} ours"].iloc[0]
            assert got == int((r["pvalue"] >= 0.05).sum())


def test_summary_rows_shape_and_table4_5pct_equals_table3_10x10(small):
    _, result, _, _ = small
    long = T.summary_table(result, G.summary_rows())
    # 1 + 4 + 4 + 4 + 2 columns, 3 pairs x 3 measures each
    assert len(long) == 15 * 9
    ok = long[long["status"] == "ok"]
    assert set(ok["table"]) == {"Table 1", "Table 3", "Table 4", "§4.3"}
    assert set(ok[ok["table"] == "Table 3"]["column"]) == {"10"}
    assert (ok["datasets"] == 2).all() and (ok["runs"] == 10).all() and (ok["seeds"] == 2).all()
    key = ["pair", "measure"]
    t3 = ok[(ok["table"] == "Table 3") & (ok["column"] == "10")].set_index(key)
    t4 = ok[(ok["table"] == "Table 4") & (ok["column"] == "5 %")].set_index(key)
    cols = ["ours", "ours_min", "ours_max", "per_seed"]
    pd.testing.assert_frame_equal(t3[cols], t4[cols])
    # the paper's Table 3 at 10 runs equals its Table 4 at 5 % too (README check)
    assert (t3["paper"] == t4["paper"]).all()
    # an independent count: rejections per data set at each alpha from the raw p-values
    res = result.results
    res = res[(res["test"] == "corrected-rxk-t") & (res["seed"] == G.SEED)]
    for alpha, col in ((0.01, "1 %"), (0.10, "10 %")):
        for (a, b), pair in G.PAIRS.items():
            k = res[(res["a"] == a) & (res["b"] == b)].groupby("cell")["pvalue"].apply(
                lambda p, al=alpha: int((p < al).sum()))
            cr = consistency_from_counts(k.to_numpy(), 10)
            row = ok[(ok["table"] == "Table 4") & (ok["column"] == col) & (ok["pair"] == pair)]
            got = row.set_index("measure")["ours"]
            assert got["consistent"] == cr.consistent
            assert got["almost_consistent"] == cr.almost_consistent
            assert got["replicability_R"] == pytest.approx(cr.R, abs=1e-12)
    # min <= first seed <= max
    assert ((ok["ours_min"] <= ok["ours"]) & (ok["ours"] <= ok["ours_max"])).all()


def test_directions_split_the_rejections_by_the_sign_of_the_statistic(small):
    _, result, _, _ = small
    for row in G.summary_rows():
        c = T.counts(result, row)
        if c.empty:
            continue
        assert (c["k_pos"] + c["k_neg"] <= c["k"]).all()
        # a rejection has a defined, non-zero statistic: the split is complete
        assert (c["k_pos"] + c["k_neg"] == c["k"]).all()


def test_stratified_variant_renders_both_resamplings_side_by_side(tmp_path):
    from simstudy.runner import run_study

    study = B.build_strat(datasets=SETS)
    study = study.replace(cells=[c for c in study.cells
                                 if c.design in ("resample", "resample[strat=1]")])
    with Store(tmp_path / "store.sqlite") as store:
        run_study(study, store, jobs=1, progress=False)
        result = collect_seeds(study, store, [study.seed])
    paths = {p.name for p in R.render(result, tmp_path / "out")}
    assert {"table2.md", "table2_stratified.md", "RESULTS.md"} <= paths
    long = T.summary_table(result, G.summary_rows(strat=True))
    ok = long[long["status"] == "ok"]
    assert set(zip(ok["table"], ok["column"], strict=True)) == {("Table 2", "10"), ("stratified", "10")}
    # the stratified rows are compared with the paper's (unstratified) Table 2
    assert set(ok[ok["table"] == "stratified"]["paper"]) == set(
        ok[ok["table"] == "Table 2"]["paper"])
    held, detail = _claim(C.strat_claims(long), "§4.3: with stratified")
    assert held in (True, False) and "|ΔR|" in detail


def test_cli_run_seeds_renders_the_spread(tmp_path):
    from simstudy.cli import main

    # a filtered run writes its cells' table unless asked for the study's rendering
    rc = main(["run", "replicability", "--filter", "iris[domains=declared]/wnb~j48~ib1/1x10cv",
               "--seeds", "2", "--runs",
               "2", "--store", str(tmp_path / "s.sqlite"), "--out", str(tmp_path / "out"),
               "--no-progress", "--render", "study"])
    assert rc in (0, None)
    with Store(tmp_path / "s.sqlite") as store:
        assert sorted(set(store.trials()["seed"])) == [G.SEED, G.SEED + 1]
    text = (tmp_path / "out" / "RESULTS.md").read_text()
    assert f"root seed(s) {G.SEED}, {G.SEED + 1}" in text
    t3 = pd.read_csv(tmp_path / "out" / "summary.csv")
    row = t3[(t3["table"] == "Table 3") & (t3["column"] == "1") & (t3["status"] == "ok")]
    assert len(row) == 9 and (row["seeds"] == 2).all()
