"""Wang, Li & Li (2016) studies ``gaussian`` (Table 3) and ``wang-real`` (Tables 4, 5).

The grids are checked against the paper's tables (studies/reference), the claim counters
against the counts the paper's own tables give (studies/reference/README.md checks), and a
few cells of each study run end to end (run_study -> collect -> render) at 2 runs with the
real learners.
"""

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from simstudy.studies import wang2016 as W
from simstudy.studies.wang2016 import claims as WC
from simstudy.studies.wang2016 import grid as WG
from simstudy.studies.wang2016 import tables as WT

from simstudy.aggregate import StudyResult, collect
from simstudy.catalog import get_study
from simstudy.planning import validate
from simstudy.runner import run_study
from simstudy.sources.gaussian import declared_gaussians
from simstudy.store import Store

REF = WT.REF


def _empty_result(study) -> StudyResult:
    return StudyResult(study, pd.DataFrame(), pd.DataFrame(columns=["cell", "errors"]),
                       pd.DataFrame())


# --- grids ---------------------------------------------------------------------------------

def test_gaussian_grid_is_8_cases_x_4_comparisons_x_3_tests():
    study = get_study("gaussian")
    assert study.runs == 5000 and study.alpha == 0.05
    assert len(study.cells) == 96 == len({c.id for c in study.cells})
    got = {(c.label("case"), c.learners, c.tests, c.design, c.source) for c in study.cells}
    pairs = {("rt", "ls"), ("svm", "rf"), ("svm", "ab"), ("ab", "rf")}
    want = {(k, p, (t,), d, f"wang-case{k}") for k, p, (t, d) in itertools.product(
        range(1, 9), pairs, [("F5x2cv", "poor5x2"), ("tB3x2cv", "b3x2"), ("FB5x2cv", "b5x2")])}
    assert got == want
    validate(study)  # every name resolves and every test fits its design


def test_gaussian_cases_match_table3_header_and_source():
    ref = pd.read_csv(REF / "wang2016_table3.csv").drop_duplicates("case")
    for _, r in ref.iterrows():
        mu1, s1 = WG.CASE_SETUP[int(r["case"])]
        assert mu1 == f"({r['mu1_x_as_printed']},{r['mu1_y_as_printed']})"
        assert s1 == r["sigma1_multiplier_of_I2_as_printed"]
        declared = declared_gaussians()["wang-case{k}"]  # the source the study declares
        assert declared["cases"][str(int(r["case"]))] == {"mu1": mu1, "s1": s1}
        assert declared["fixed"] == {"mu0": "(0,0)", "s0": "1"}


def test_real_grid_has_table4_and_table5_cells():
    study = get_study("wang-real")
    assert study.runs == 5000
    t4 = [c for c in study.cells if c.label("table") == 4]
    t5 = [c for c in study.cells if c.label("table") == 5]
    assert len(t4) == 90 and len(t5) == 54 and len({c.id for c in study.cells}) == 144
    ref4 = pd.read_csv(REF / "wang2016_table4.csv")
    rows = {(c.label("dataset"), c.label("hidden")) for c in t4}
    assert rows == {(d, int(h)) for d, h in zip(ref4["dataset"], ref4["hidden_units"],
                                                  strict=True)}
    for c in t4:
        h = c.label("hidden")
        assert c.learners == ((f"mlp-{h}",) * 2 if c.label("block") == WG.TYPE1
                              else ("lp", f"mlp-{h}"))
        assert WG.DESIGN_OF[c.tests[0]] == c.design
    ref5 = pd.read_csv(REF / "wang2016_table5.csv")
    assert {(c.label("comparison"), c.tests[0], c.label("dataset")) for c in t5} == set(
        zip(ref5["comparison"], ref5["test"], ref5["dataset"], strict=True))
    assert {c.source for c in study.cells} == {
        "iris", "wine", "glass", "heart-statlog", "balance-scale", "new-thyroid"}
    validate(study)  # fixed data sets are also checked against every design


# --- the claim counters on the paper's own numbers ------------------------------------------

def test_claim_counts_on_paper_table3():
    t3 = WT.table3(_empty_result(W.build_gaussian()))
    assert len(t3) == 96 and (t3["status"] == "not run").all()
    wp = WC.wide(t3, ["comparison", "case"], "paper")
    assert WC.count_between(wp) == 22  # reference README: 22 of 32
    rt = wp.loc[["RT vs LS"]]
    assert WC.count_lower(rt, "FB5x2cv", "F5x2cv") == 8
    # case 5: SVM vs AB FB 0.998 > F 0.996, so 7 of 8 with ties counted
    assert WC.count_lower(wp.loc[["SVM vs AB"]], "FB5x2cv", "F5x2cv", strict=False) == 7


def test_claim_counts_on_paper_tables_4_and_5():
    res = _empty_result(W.build_real())
    t4, t5 = WT.table4(res), WT.table5(res)
    assert len(t4) == 90 and len(t5) == 54
    p4 = WC.wide(t4, ["block", "dataset", "hidden"], "paper")
    # "23 of 30" holds only with ties: 12 + 11 lower-or-equal, 8 + 10 strictly lower
    assert WC.count_lower(p4, "FB5x2cv", "F5x2cv", strict=False) == 23
    assert WC.count_lower(p4, "FB5x2cv", "F5x2cv") == 18
    assert WC.count_lower(p4.loc[[WG.TYPE1]], "tB3x2cv", "FB5x2cv") == 11  # text says 10
    assert WC.count_lower(p4.loc[[WG.TYPE2]], "tB3x2cv", "FB5x2cv") == 4
    p5 = WC.wide(t5, ["comparison", "dataset"], "paper")
    assert WC.count_lower(p5, "FB5x2cv", "F5x2cv") == 15
    assert WC.count_lower(p5.loc[["SVM vs RF", "SVM vs LDA"]], "FB5x2cv", "tB3x2cv") == 9
    assert WC.count_lowest(p5.loc[["LDA vs RF"]], "tB3x2cv") == 5
    claims = WC.real_claims(t4, t5)  # nothing run: every claim says so
    assert claims and all(c.held is None for c in claims)


_probs = st.lists(st.tuples(*[st.integers(0, 1000)] * 3), min_size=1, max_size=12)


@settings(max_examples=60, deadline=None)
@given(_probs)
def test_counters_are_complementary_and_symmetric(rows):
    w = pd.DataFrame(np.array(rows) / 1000, columns=list(WG.TESTS))
    n = len(w)
    # a < b and b <= a partition the rows
    assert WC.count_lower(w, "FB5x2cv", "F5x2cv") + WC.count_lower(
        w, "F5x2cv", "FB5x2cv", strict=False) == n
    swapped = w.rename(columns={"F5x2cv": "FB5x2cv", "FB5x2cv": "F5x2cv"})
    assert WC.count_between(swapped) == WC.count_between(w)
    lowest = sum(WC.count_lowest(w, t) for t in WG.TESTS)
    assert lowest <= n


# --- end to end at 2 runs ---------------------------------------------------------------------

def _run_render(study, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn fallbacks warn once per name
        with Store(tmp_path / "s.sqlite") as store:
            run_study(study, store, backend="serial", progress=False)
            result = collect(study, store)
        out = tmp_path / "out"
        paths = study.render(result, out)
    assert all(p.exists() and p.stat().st_size > 0 for p in paths)
    return result, out, {p.name for p in paths}


def test_gaussian_end_to_end(tmp_path):
    # RT vs LS only: the tree kernels compile in ~10 s when numba's cache is cold; the
    # scikit-learn path (svm) is exercised by the real-data test
    full = get_study("gaussian", runs=2)
    keep = [c for c in full.cells if c.source == "wang-case3" and c.learners == ("rt", "ls")]
    study = full.replace(cells=keep)
    result, out, names = _run_render(study, tmp_path)
    assert {"table3.md", "table3.csv", "table3.tex", "table3_paper_layout.md",
            "figure_table3.png", "figure_table3.pdf", "RESULTS.md"} <= names

    # each test on its own design: the stored fold errors have the design's shape
    shapes = {c: np.stack(list(g["errors"])).shape for c, g in result.trials.groupby("cell")}
    assert shapes == {"wang-case3/rt~ls/poor5x2": (2, 2, 5, 2),
                      "wang-case3/rt~ls/b3x2": (2, 2, 3, 2),
                      "wang-case3/rt~ls/b5x2": (2, 2, 5, 2)}

    t3 = pd.read_csv(out / "table3.csv")
    ref = pd.read_csv(REF / "wang2016_table3.csv")
    assert len(t3) == 96
    np.testing.assert_array_equal(t3["paper"], ref["reject_prob"])
    ok = t3[t3["status"] == "ok"]
    assert len(ok) == 3 and (ok["runs"] == 2).all()
    assert set(zip(ok["case"], ok["comparison"], ok["test"], strict=True)) == {
        (3, "RT vs LS", "F5x2cv"), (3, "RT vs LS", "tB3x2cv"), (3, "RT vs LS", "FB5x2cv")}
    # ours = stored reject decisions / runs, recounted from the raw results
    raw = result.results.groupby("cell")["reject"].mean()
    cell_of = {(c.label("case"), c.label("comparison"), c.tests[0]): c.id for c in study.cells}
    for _, r in ok.iterrows():
        assert r["ours"] == pytest.approx(raw[cell_of[(r["case"], r["comparison"], r["test"])]])
        assert r["ci95_low"] <= r["ours"] <= r["ci95_high"]
        assert 0 <= r["err_a"] <= 1 and 0 <= r["err_b"] <= 1
    assert (t3.loc[t3["status"] != "ok", "ours"].isna()).all()

    lay = pd.read_csv(out / "table3_paper_layout.csv")
    assert lay.shape == (12, 10)
    assert lay.loc[0, "case 1"] == "- (0.149)"  # RT vs LS F5x2cv case 1 not run
    md = (out / "RESULTS.md").read_text()
    assert "99 % Wilson band" in md and "case (3), RT vs LS" in md and "22/32" in md


def test_real_end_to_end(tmp_path):
    full = get_study("wang-real", runs=2)
    keep = [c for c in full.cells if c.source == "iris" and c.learners == ("lp", "mlp-3")]
    keep += [c for c in full.cells if c.id in ("iris/mlp-3~mlp-3/b5x2", "wine/svm~lda/b3x2")]
    study = full.replace(cells=keep)
    result, out, names = _run_render(study, tmp_path)
    assert {"table4.md", "table4.csv", "table4.tex", "table5.csv", "table5_paper_layout.md",
            "figure_tables45.png", "figure_tables45.pdf", "RESULTS.md"} <= names

    t4 = pd.read_csv(out / "table4.csv")
    ref4 = pd.read_csv(REF / "wang2016_table4.csv")
    assert len(t4) == 90
    iris3 = t4[(t4["dataset"] == "Iris") & (t4["hidden"] == 3)].set_index(["block", "test"])
    for test in WG.TESTS:  # paper values in the right place, as printed
        assert iris3.loc[(WG.TYPE1, test), "paper"] == ref4.loc[0, f"typeI_{test}"]
        assert iris3.loc[(WG.TYPE2, test), "paper"] == ref4.loc[0, f"typeII_{test}"]
        assert iris3.loc[(WG.TYPE2, test), "status"] == "ok"
    assert iris3.loc[(WG.TYPE1, "FB5x2cv"), "status"] == "ok"
    assert (t4["status"] == "ok").sum() == 4

    lay4 = pd.read_csv(out / "table4_paper_layout.csv")  # rows in the paper's order
    assert list(zip(lay4["dataset"], lay4["hidden"], strict=True)) == list(
        zip(ref4["dataset"], ref4["hidden_units"], strict=True))
    assert lay4.loc[0, "typeI F5x2cv"].endswith("(0.023)")

    t5 = pd.read_csv(out / "table5.csv")
    assert len(t5) == 54 and (t5["status"] == "ok").sum() == 1
    row = t5[t5["status"] == "ok"].iloc[0]
    assert (row["comparison"], row["dataset"], row["test"]) == ("SVM vs LDA", "Wine", "tB3x2cv")
    assert row["paper"] == 0.041

    # Table 4's right half is reported as reject probabilities, and says so
    assert "reject probabilities" in (out / "table4.tex").read_text()
    assert "reject probabilities" in (out / "table4_paper_layout.tex").read_text()
    md = (out / "RESULTS.md").read_text()
    assert "type II" in md and "reject probabilities" in md and "23 of 30" in md
    assert "taken literally" in md  # the right half also checked against 1 - ours
