"""``wnb`` and ``ib1`` against Weka 3.6.14 itself (committed fixtures, ``tests/weka``), against
hand computations, and for batch invariance.  The fixtures are regenerated with
``nox -s weka-fixtures`` where Weka is installed; these tests need neither Weka nor a network.
"""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from simstudy.errors import SimstudyError
from simstudy.learners import get_learner, list_learners
from simstudy.learners.base import frozen
from simstudy.learners.weka._nominal import attributes, layout, to_codes
from simstudy.learners.weka._wmath import normal_probability
from simstudy.learners.weka.ib1 import WekaIB1
from simstudy.learners.weka.nb import WekaNaiveBayes
from simstudy.perf.arff import sha256, to_arff
from simstudy.sources.encode import encode

WEKA = Path(__file__).parent / "weka"
_spec = importlib.util.spec_from_file_location("weka_make_fixtures", WEKA / "make_fixtures.py")
mf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mf)
FIXTURES = mf.load_fixtures()
IDS = [fx["dataset"] for fx in FIXTURES]


def _masks(fx: dict, n: int) -> tuple[np.ndarray, np.ndarray]:
    B = len(fx["splits"])
    tr = np.zeros((B, n), dtype=bool)
    te = np.zeros((B, n), dtype=bool)
    for b, s in enumerate(fx["splits"]):
        tr[b, s["train"]] = True
        te[b, s["test"]] = True
    return tr, te


def _disagreements(fx: dict, key: str, learner) -> list[tuple[int, int, int, int]]:
    data = mf.fixture_dataset(fx)
    tr, te = _masks(fx, data.n)
    pred = learner.prepare(data).fit_predict(data.X, data.y, tr, te)
    bad = []
    for b, s in enumerate(fx["splits"]):
        ours = pred[b, s["test"]]
        weka = np.asarray(s["pred"][key])
        bad += [(s["seed"], s["test"][k], int(ours[k]), int(weka[k])) for k in np.flatnonzero(ours != weka)]
    return bad


# --- the fixtures themselves ------------------------------------------------------------


def test_fixtures_cover_nominal_numeric_mixed_and_missing_data() -> None:
    names = set(IDS)
    assert {"vote", "credit-g", "crx", "iris", "labor", "breast-cancer", "hepatitis",
            "soybean", "binary9"} <= names
    kinds = set()
    for fx in FIXTURES:
        assert fx["weka_version"] == "3.6.14"
        assert [s["seed"] for s in fx["splits"]] == [0, 1, 2]
        data = mf.fixture_dataset(fx)
        attrs = attributes(data)
        nominal = {a.kind for a in attrs}
        kinds.add("mixed" if len(nominal) == 2 else nominal.pop())
        if np.isnan(data.X).any():
            kinds.add("missing")
    assert kinds == {"nominal", "numeric", "mixed", "missing"}


@pytest.mark.parametrize("fx", FIXTURES, ids=IDS)
def test_fixture_still_describes_our_data(fx: dict) -> None:
    """The ARFF Weka read is exactly what our data set gives today (sha256 of both parts)."""
    data = mf.fixture_dataset(fx)
    assert data.n == fx["n"] and list(data.classes) == fx["classes"]
    for s in fx["splits"]:
        tr, te = np.asarray(s["train"]), np.asarray(s["test"])
        assert np.all(np.diff(tr) > 0) and np.all(np.diff(te) > 0)
        assert len(np.intersect1d(tr, te)) == 0 and len(tr) + len(te) == data.n
        assert len(tr) == round(0.66 * data.n)
        assert sha256(to_arff(data, tr)) == s["sha256_train"]
        assert sha256(to_arff(data, te)) == s["sha256_test"]
        for key in ("wnb", "j48", "ib1"):
            assert len(s["pred"][key]) == len(te)


#: the fixture sets Debian's weka package ships in its examples
WEKAS_OWN = {"breast-cancer", "credit-g", "diabetes", "glass", "ionosphere", "iris", "labor",
             "soybean", "vote"}


def test_fixtures_are_made_on_wekas_own_files() -> None:
    """Weka's own example files read as Weka reads them: declared domains and class order
    (the generator checked Weka reads our ARFF exactly as its own file, and that its cross-
    validation of its own file predicts what it predicts on ours)."""
    assert WEKAS_OWN <= set(IDS)
    for fx in [*FIXTURES, *mf.load_cv_fixtures()]:
        own = fx["dataset"] in WEKAS_OWN
        assert ("wekas_file" in fx) == own, fx["dataset"]
        if own:
            assert fx["domains"] == "declared"
            assert fx["wekas_file"]["path"].endswith(f"/{fx['dataset']}.arff")
            assert len(fx["wekas_file"]["sha256"]) == 64
    cg = next(fx for fx in FIXTURES if fx["dataset"] == "credit-g")
    assert cg["classes"] == ["good", "bad"]  # Weka's declared order, not sorted
    data = mf.fixture_dataset(cg)
    assert "purpose=vacation" in data.feature_names  # declared, never used
    glass = next(fx for fx in FIXTURES if fx["dataset"] == "glass")
    assert "vehic wind non-float" in glass["classes"]  # a declared class no row has


def test_splits_are_reproducible_from_their_seed() -> None:
    for fx in FIXTURES:
        for s in fx["splits"]:
            tr, te = mf.split(fx["dataset"], fx["n"], s["seed"])
            assert tr.tolist() == s["train"] and te.tolist() == s["test"]


# --- agreement with Weka -----------------------------------------------------------------


@pytest.mark.parametrize("fx", FIXTURES, ids=IDS)
def test_wnb_predicts_what_weka_naive_bayes_predicts(fx: dict) -> None:
    bad = _disagreements(fx, "wnb", WekaNaiveBayes())
    assert bad == [], f"(seed, row, ours, weka): {bad}"


@pytest.mark.parametrize("fx", FIXTURES, ids=IDS)
def test_ib1_predicts_what_weka_ib1_predicts(fx: dict) -> None:
    bad = _disagreements(fx, "ib1", WekaIB1(ties="order"))  # Weka read the rows in file order
    assert bad == [], f"(seed, row, ours, weka): {bad}"


def test_normal_probability_is_wekas_bit_for_bit() -> None:
    fx = json.loads((WEKA / "normal_probability.json").read_text())
    z = np.array([int(h, 16) for h in fx["z_bits"]], dtype=np.uint64).view(np.float64)
    weka = np.array([int(h, 16) for h in fx["phi_bits"]], dtype=np.uint64).view(np.float64)
    ours = np.array([normal_probability(v) for v in z])
    assert len(z) > 1000
    np.testing.assert_array_equal(ours, weka)
    # and it is the normal CDF (scipy, independently)
    np.testing.assert_allclose(ours, norm.cdf(z), rtol=1e-13, atol=1e-300)


# --- batch invariance --------------------------------------------------------------------


@pytest.mark.parametrize("learner", [WekaNaiveBayes(), WekaIB1(), WekaIB1(ties="order")],
                         ids=["wnb", "ib1", "ib1-order"])
@pytest.mark.parametrize("name", ["crx", "horse-colic", "binary9"])
def test_a_models_predictions_do_not_depend_on_the_batch(learner, name: str) -> None:
    data = mf.dataset(name)
    lr = learner.prepare(data)
    rng = np.random.default_rng(7)
    B = 9
    tr = rng.random((B, data.n)) < rng.uniform(0.3, 0.9, (B, 1))
    te = ~tr & (rng.random((B, data.n)) < 0.7)
    seeds = [np.random.SeedSequence(40 + b) for b in range(B)]
    together = lr.fit_predict(data.X, data.y, tr, te, seeds)
    perm = rng.permutation(B)
    shuffled = lr.fit_predict(data.X, data.y, tr[perm], te[perm], [seeds[b] for b in perm])
    np.testing.assert_array_equal(shuffled, together[perm])
    for b in range(B):
        alone = lr.fit_predict(data.X, data.y, tr[b : b + 1], te[b : b + 1], seeds[b : b + 1])
        np.testing.assert_array_equal(alone[0], together[b])
    assert np.all(together[~te] == -1) and np.all(together[te] >= 0)


# --- ib1's tie order: Weka's Experimenter shuffles every training fold ---------------------


@pytest.mark.parametrize("name", ["vote", "crx", "binary9", "iris"])
def test_ib1_random_ties_are_wekas_loop_over_a_shuffled_training_fold(name: str) -> None:
    # Weka's IB1 keeps the first training instance with a strictly smaller distance; fed a
    # training fold in the order of a permutation, it is ties="order" on the permuted rows
    data = mf.dataset(name)
    rng = np.random.default_rng(11)
    B = 6
    tr = rng.random((B, data.n)) < 0.7
    te = ~tr
    seeds = [np.random.SeedSequence(900 + b) for b in range(B)]
    ours = WekaIB1().prepare(data).fit_predict(data.X, data.y, tr, te, seeds)
    ordered = WekaIB1(ties="order").prepare(data)
    changed = 0
    for b in range(B):
        shuffled = np.random.default_rng(seeds[b]).permutation(np.flatnonzero(tr[b]))
        rows = np.concatenate([shuffled, np.flatnonzero(te[b])])  # test rows stay ascending
        k = shuffled.size
        tr2 = np.zeros((1, data.n), dtype=bool)
        tr2[0, :k] = True
        pred = ordered.fit_predict(frozen(data.X[rows]), frozen(data.y[rows]), tr2, ~tr2)[0, k:]
        np.testing.assert_array_equal(ours[b, te[b]], pred)
        changed += int(np.sum(pred != ordered.fit_predict(data.X, data.y, tr[b:b + 1],
                                                          te[b:b + 1])[0, te[b]]))
    if name in ("vote", "binary9"):  # all nominal: ties everywhere, the order decides some
        assert changed > 0


def test_ib1_ties_follow_the_models_seed() -> None:
    data = mf.dataset("vote")
    rng = np.random.default_rng(5)
    tr = np.repeat(rng.random((1, data.n)) < 0.9, 4, axis=0)  # one mask, four seeds
    lr = WekaIB1().prepare(data)
    seeds = [np.random.SeedSequence(s) for s in (1, 1, 2, 3)]
    pred = lr.fit_predict(data.X, data.y, tr, ~tr, seeds)
    np.testing.assert_array_equal(pred[0], pred[1])
    assert not (np.array_equal(pred[0], pred[2]) and np.array_equal(pred[0], pred[3]))
    # without seeds every model draws from SeedSequence(0)
    np.testing.assert_array_equal(lr.fit_predict(data.X, data.y, tr[:1], ~tr[:1])[0],
                                  lr.fit_predict(data.X, data.y, tr[:1], ~tr[:1],
                                                 [np.random.SeedSequence(0)])[0])
    with pytest.raises(SimstudyError, match="one seed per model"):
        lr.fit_predict(data.X, data.y, tr, ~tr, seeds[:2])


CV = mf.load_cv_fixtures()


def test_weka_cv_fixtures_cover_every_fixture_set() -> None:
    assert [fx["dataset"] for fx in CV] == IDS
    assert all(len(fx["runs"]) >= 2 and fx["k"] == 10 for fx in CV)


@pytest.mark.parametrize("fx", CV, ids=[fx["dataset"] for fx in CV])
def test_learners_on_wekas_cv_folds_predict_what_weka_predicted(fx: dict) -> None:
    # Weka's Experimenter folds (re-derived in Python, checked by digest), each model fed
    # its training rows in Weka's shuffled order and its test rows in Weka's order
    data = mf.fixture_dataset(fx)
    assert sha256(to_arff(data)) == fx["sha256_arff"]
    learners = {key: get_learner(spec).prepare(data) for key, spec in fx["spec"].items()}
    bad = []
    for run in fx["runs"]:
        folds = mf.weka_cv_folds(data.y, fx["k"], run["seed"])
        assert mf.cv_orders_digest(folds) == run["sha256_orders"]
        for f, ((tr, te), weka) in enumerate(zip(folds, run["pred"], strict=True)):
            rows = np.array(tr + te)
            m = np.zeros((1, data.n), dtype=bool)
            m[0, : len(tr)] = True
            for key, lr in learners.items():
                ours = lr.fit_predict(frozen(data.X[rows]), frozen(data.y[rows]), m, ~m)[0, len(tr):]
                bad += [(run["seed"], f, key, int(i)) for i in np.flatnonzero(ours != weka[key])]
    assert bad == [], f"(seed, fold, learner, test position): {bad}"


@pytest.mark.parametrize("name", ["crx", "glass", "soybean", "horse-colic"])
def test_wnb_and_j48_predictions_do_not_depend_on_the_training_rows_order(name: str) -> None:
    # Weka shuffles each training fold; NaiveBayes' sums then run in another order (the
    # posteriors move in the last bits), J48 counts -- neither prediction changes
    data = mf.dataset(name)
    rng = np.random.default_rng(8)
    for key in ("wnb", "j48"):
        lr = get_learner(key).prepare(data)
        for _ in range(3):
            tr = np.sort(rng.permutation(data.n)[: int(0.9 * data.n)])
            te = np.setdiff1d(np.arange(data.n), tr)
            m = np.zeros((1, data.n), dtype=bool)
            m[0, : tr.size] = True
            preds = [lr.fit_predict(frozen(data.X[r]), frozen(data.y[r]), m, ~m)[0, tr.size:]
                     for r in (np.r_[tr, te], np.r_[rng.permutation(tr), te])]
            np.testing.assert_array_equal(*preds)


@pytest.mark.parametrize("name", ["vote", "crx"])
def test_ib1_orders_drawn_block_by_block_change_nothing(name: str, monkeypatch) -> None:
    import simstudy.learners.weka.ib1 as ib1

    data = mf.dataset(name)
    tr = np.random.default_rng(2).random((9, data.n)) < 0.8
    seeds = [np.random.SeedSequence(60 + b) for b in range(9)]
    whole = WekaIB1().prepare(data).fit_predict(data.X, data.y, tr, ~tr, seeds)
    monkeypatch.setattr(ib1, "ORDER_BLOCK", 4)
    blocks = WekaIB1().prepare(data).fit_predict(data.X, data.y, tr, ~tr, seeds)
    np.testing.assert_array_equal(whole, blocks)
    with pytest.raises(SimstudyError, match="9 masks, 13 seeds"):  # not hidden by the blocks
        WekaIB1().prepare(data).fit_predict(data.X, data.y, tr, ~tr, seeds + seeds[:4])


def test_weka_experimenter_page_is_what_its_table_gives() -> None:
    # figures/weka-experimenter/RESULTS.md is rendered from results.csv and meta.json alone
    spec = importlib.util.spec_from_file_location("weka_experimenter", WEKA / "experimenter.py")
    ex = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ex)
    assert (ex.OUT / "RESULTS.md").read_text() == ex.render(ex.OUT), \
        "re-render with `python tests/weka/experimenter.py --render`"


def test_ib1_ties_option() -> None:
    assert get_learner("ib1").ties == "random"
    assert get_learner("ib1[ties=order]").ties == "order"
    assert get_learner("ib1[ties=order]").prepare(mf.dataset("iris")).ties == "order"
    with pytest.raises(SimstudyError, match=r"'first'.*'random', 'order'"):
        get_learner("ib1[ties=first]")


# --- hand computations: NaiveBayes --------------------------------------------------------


def _table(rows: dict[str, list], nominal: list[str]) -> object:
    df = pd.DataFrame(rows)
    return encode(df, "hand", nominal=nominal, drop_constant=False)


def _fit(learner, data, train_rows, test_rows):
    tr = np.zeros((1, data.n), dtype=bool)
    te = np.zeros((1, data.n), dtype=bool)
    tr[0, train_rows] = True
    te[0, test_rows] = True
    return learner.prepare(data), tr, te


def test_wnb_nominal_counts_are_laplace_corrected_and_missing_values_skipped() -> None:
    # a in {p, q}, b in {r, s, t}; classes x, y; row 6 has a missing 'a'; rows 7-8 are tests
    data = _table({
        "a": ["p", "p", "q", "q", "q", "p", None, "q", None],
        "b": ["r", "s", "t", "t", "r", "t", "s", "r", "s"],
        "class": ["x", "x", "x", "y", "y", "y", "y", "x", "y"],
    }, ["a", "b"])
    lr, tr, te = _fit(WekaNaiveBayes(), data, range(7), [7, 8])
    proba = lr.predict_proba(data.X, data.y, tr, te)[0]
    # by hand: class x = rows 0-2, class y = rows 3-6 (row 6: a missing)
    prior = np.array([(3 + 1) / (7 + 2), (4 + 1) / (7 + 2)])
    p_a_q = np.array([(1 + 1) / (3 + 2), (2 + 1) / (3 + 2)])  # y has 3 non-missing 'a'
    p_b_r = np.array([(1 + 1) / (3 + 3), (1 + 1) / (4 + 3)])
    p_b_s = np.array([(1 + 1) / (3 + 3), (1 + 1) / (4 + 3)])
    row7 = prior * p_a_q * p_b_r
    row8 = prior * p_b_s  # 'a' missing: skipped
    np.testing.assert_allclose(proba[7], row7 / row7.sum(), rtol=1e-14)
    np.testing.assert_allclose(proba[8], row8 / row8.sum(), rtol=1e-14)
    pred = lr.fit_predict(data.X, data.y, tr, te)[0]
    assert pred[7] == np.argmax(row7) and pred[8] == np.argmax(row8)


def test_wnb_exact_tie_goes_to_the_first_class() -> None:
    data = _table({"a": ["p", "q", "p", "q", "p"], "class": ["y", "y", "x", "x", "x"]}, ["a"])
    lr, tr, te = _fit(WekaNaiveBayes(), data, range(4), [4])
    proba = lr.predict_proba(data.X, data.y, tr, te)[0, 4]
    assert proba[0] == proba[1] == 0.5
    assert lr.fit_predict(data.X, data.y, tr, te)[0, 4] == 0


def _normal_estimator(values: np.ndarray, prec: float) -> tuple[float, float]:
    """NormalEstimator's mean and sd over rounded values (no incremental subtleties: the
    values here have spread)."""
    r = np.rint(values / prec) * prec
    mean = r.sum() / len(r)
    sd = math.sqrt(abs((r * r).sum() - mean * r.sum()) / len(r))
    return mean, max(prec / 6, sd) if sd > 1e-10 else prec / 6


def test_wnb_numeric_precision_rounding_and_normal_mass() -> None:
    x = [1.0, 1.2, 1.4, 2.0, 2.5, 3.0, 7.0, 7.0, 1.9, 2.6, None]
    c = ["x", "x", "x", "y", "y", "y", "z", "z", "x", "y", "z"]
    data = _table({"v": x, "class": c}, [])
    lr, tr, te = _fit(WekaNaiveBayes(), data, range(8), [8, 9, 10])
    proba = lr.predict_proba(data.X, data.y, tr, te)[0]
    # precision: distinct training values 1, 1.2, 1.4, 2, 2.5, 3, 7; the gaps summed in
    # ascending order over 6 gaps (in doubles this is exactly 1.0)
    distinct = [1.0, 1.2, 1.4, 2.0, 2.5, 3.0, 7.0]
    delta = 0.0
    for lo, hi in zip(distinct[:-1], distinct[1:], strict=True):
        delta += hi - lo
    prec = delta / 6
    assert prec == 1.0
    # rint is half-to-even: 2.5/1 -> 2, so class y's values round to 2, 2, 3
    X = np.array(x[:8], dtype=float)
    y = data.y[:8]
    prior = np.array([(3 + 1) / (8 + 3), (3 + 1) / (8 + 3), (2 + 1) / (8 + 3)])
    stats = [_normal_estimator(X[y == k], prec) for k in range(3)]
    assert stats[2][1] == prec / 6  # class z: one distinct value -> sd floor
    assert stats[1][0] == pytest.approx(7 / 3)  # 2, 2, 3 after half-to-even rounding
    for row in (8, 9):
        r = np.rint(x[row] / prec) * prec
        lik = np.array([norm.cdf((r - m + prec / 2) / s) - norm.cdf((r - m - prec / 2) / s)
                        for m, s in stats])
        post = prior * np.maximum(lik, 1e-75)
        np.testing.assert_allclose(proba[row], post / post.sum(), rtol=1e-12)
    np.testing.assert_allclose(proba[10], prior / prior.sum(), rtol=1e-15)  # missing: prior


def test_wnb_default_precision_and_a_class_without_values() -> None:
    # one distinct training value: precision 0.01.  Class y has no value of v: Weka's
    # estimator keeps mean 0 and sd = precision / 6.  Test value 0.006 rounds to 0.01.
    data = _table({"v": [3.0, 3.0, None, 0.006], "class": ["x", "x", "y", "x"]}, [])
    lr, tr, te = _fit(WekaNaiveBayes(), data, range(3), [3])
    proba = lr.predict_proba(data.X, data.y, tr, te)[0, 3]
    prec, sd = 0.01, 0.01 / 6
    r = np.rint(0.006 / prec) * prec
    lik_x = 1e-75  # 3.0 is ~1800 sd away: mass 0, floored
    lik_y = norm.cdf((r - 0.0 + prec / 2) / sd) - norm.cdf((r - 0.0 - prec / 2) / sd)
    assert lik_y == pytest.approx(norm.cdf(9) - norm.cdf(3))
    post = np.array([(2 + 1) / 5 * lik_x, (1 + 1) / 5 * lik_y])
    np.testing.assert_allclose(proba, post / post.sum(), rtol=1e-12)


def test_wnb_far_values_are_floored_at_1e_75_not_zero() -> None:
    # the test value lies ~1e6 sd from both class means: both normal masses are 0 in
    # double precision, Weka floors each at 1e-75, so the prior decides
    data = _table({"v": [0.0, 1.0, 0.5, 10.0, 11.0, 1e9],
                   "class": ["x", "x", "x", "y", "y", "y"]}, [])
    lr, tr, te = _fit(WekaNaiveBayes(), data, range(5), [5])
    proba = lr.predict_proba(data.X, data.y, tr, te)[0, 5]
    np.testing.assert_allclose(proba, [4 / 7, 3 / 7], rtol=1e-15)


def test_wnb_empty_training_fold_predicts_class_zero() -> None:
    data = _table({"a": ["p", "q", "p"], "class": ["x", "y", "y"]}, ["a"])
    lr, tr, te = _fit(WekaNaiveBayes(), data, [], [0, 1, 2])
    assert lr.fit_predict(data.X, data.y, tr, te).tolist() == [[0, 0, 0]]


# --- hand computations: IB1 ---------------------------------------------------------------


def _ib1(rows: dict[str, list], nominal: list[str], train_rows, test_rows) -> list[int]:
    data = _table(rows, nominal)
    lr, tr, te = _fit(WekaIB1(ties="order"), data, train_rows, test_rows)
    pred = lr.fit_predict(data.X, data.y, tr, te)[0]
    return [int(pred[i]) for i in test_rows]


def test_ib1_widens_ranges_with_each_test_instance_in_row_order() -> None:
    # training: (0, 0) -> a, (10, 10) -> b.  Test (7, 4) on ranges [0, 10]^2:
    # to a .49 + .16 = .65, to b .09 + .36 = .45 -> b.  After a test instance (100, 5) has
    # widened the first range to [0, 100]: to a .0049 + .16, to b .0009 + .36 -> a.
    rows = {"u": [0.0, 10.0, 7.0, 100.0], "v": [0.0, 10.0, 4.0, 5.0],
            "class": ["a", "b", "a", "a"]}
    assert _ib1(rows, [], [0, 1], [2, 3])[0] == 1  # (7, 4) classified first: b
    swapped = {k: [v[0], v[1], v[3], v[2]] for k, v in rows.items()}
    assert _ib1(swapped, [], [0, 1], [2, 3])[1] == 0  # after (100, 5): a


def test_ib1_missing_values_and_nominal_mismatches() -> None:
    # numeric u (training range [0, 10]) and nominal w; rows 0-4 train, 5 and 6 test.
    rows = {"u": [0.0, 10.0, 2.0, 7.0, None, None, 2.0],
            "w": ["p", "p", "q", "q", None, "q", None],
            "class": ["a", "a", "a", "b", "c", "a", "a"]}
    # row 5 (u missing, w = q): one value missing -> diff = v, or 1 - v when v < .5:
    #   row 0: 1 + 1 (p != q);  row 1: 1 + 1;  row 2: (1 - .2)^2 = .64;  row 3: .7^2 = .49;
    #   row 4: both u missing 1 + w missing 1 = 2   => row 3, class b
    #   (diff = v alone would give row 2 at .04, class a)
    assert _ib1(rows, ["w"], range(5), [5]) == [1]
    # row 6 (u = 2, w missing): every row pays 1 for w; row 2 is at 0 + 1    => class a
    #   row 4: u missing -> 1 - .2 = .8 -> .64 + 1
    assert _ib1(rows, ["w"], range(5), [6]) == [0]


def test_ib1_ties_go_to_the_first_training_instance() -> None:
    rows = {"w": ["p", "q", "p", "q", "p"], "z": ["r", "r", "s", "s", "t"],
            "class": ["b", "a", "a", "b", "a"]}
    # test (p, t): distance 1 to rows 0 and 2 (and 2 to 1, 3): the first, row 0, class b
    assert _ib1(rows, ["w", "z"], [0, 1, 2, 3], [4]) == [1]
    assert _ib1(rows, ["w", "z"], [1, 2, 3], [4]) == [0]  # without row 0: row 2, class a


def test_ib1_narrow_range_scales_to_zero() -> None:
    # u spans 1e-7 (< Weka's SMALL = 1e-6): every scaled u is 0, so v alone decides
    rows = {"u": [0.0, 1e-7, 0.0], "v": [5.0, 0.0, 1.0], "class": ["a", "b", "a"]}
    assert _ib1(rows, [], [0, 1], [2]) == [1]


# --- plumbing -----------------------------------------------------------------------------


def test_registry_names() -> None:
    assert {"wnb", "ib1"} <= set(list_learners())
    assert isinstance(get_learner("wnb"), WekaNaiveBayes)
    assert isinstance(get_learner("ib1"), WekaIB1)


def test_layout_and_codes() -> None:
    attrs = layout(((1, 2, 3),), 5)
    assert [(a.kind, a.columns, a.n_values) for a in attrs] == [
        ("numeric", (0,), 0), ("nominal", (1, 2, 3), 3), ("numeric", (4,), 0)]
    X = np.array([[0.5, 0, 1, 0, 9.0], [np.nan, np.nan, np.nan, np.nan, 1.0],
                  [2.0, 0, 0, 1, np.nan]])
    np.testing.assert_array_equal(
        to_codes(X, attrs), [[0.5, 1, 9.0], [np.nan, np.nan, 1.0], [2.0, 2, np.nan]])
    for bad in [((0, 5),), ((0, 1), (1, 2)), ((),)]:
        with pytest.raises(SimstudyError):
            layout(bad, 5)


def test_arff_text() -> None:
    data = _table({"a": ["p", None], "v": [1.5, None], "class": ["x", "y"]}, ["a"])
    assert to_arff(data) == (
        "@relation 'hand'\n\n@attribute 'a' {'p'}\n@attribute 'v' numeric\n"
        "@attribute class {'x','y'}\n\n@data\n'p',1.5,'x'\n?,?,'y'\n")
    with pytest.raises(SimstudyError):
        to_arff(data, [2])


def test_perf_rows_time_the_weka_learners() -> None:
    from simstudy.perf import KEYS, run_perf

    rows = run_perf(quick=True, only=["wnb", "ib1"], memory=False, echo=False)
    assert [r["name"] for r in rows] == ["wnb", "ib1"]
    for r in rows:
        assert set(KEYS) <= set(r) and r["n_models"] >= 1000
        # agreement with Weka's predictions is this file's to check, on the fixtures of
        # tests/weka/: the package reads nothing from tests/
        assert "agree" not in r and r["fast_cpu_us_per_model_1_thread"] > 0


# --- Weka's quicksort and the edge-case tables ------------------------------------------


def test_weka_sort_reproduces_wekas_quicksort_order() -> None:
    from simstudy.learners.weka.nb import weka_sort

    fx = json.loads((WEKA / "weka_sort.json").read_text())
    ties = 0
    for values, weka in zip(fx["values"], fx["index"], strict=True):
        v = np.asarray(values, dtype=float)
        idx = np.empty(len(v), dtype=np.int64)
        weka_sort(v, idx, np.empty(2 * len(v) + 4, dtype=np.int64))
        assert idx.tolist() == weka
        ties += len(v) - len(np.unique(v))
        if len(v):  # a sort, not just any permutation
            assert np.all(np.diff(v[idx]) >= 0)
    assert ties > 1000  # equal values: where an unstable sort's order shows


EDGE = mf.load_edge()


@pytest.mark.parametrize("case", EDGE["cases"], ids=[f"edge{c['seed']}" for c in EDGE["cases"]])
def test_edge_cases_agree_with_weka(case: dict) -> None:
    data = mf.edge_dataset(case)
    assert sha256(to_arff(data, case["train"])) == case["sha256_train"]
    assert sha256(to_arff(data, case["test"])) == case["sha256_test"]
    tr = np.zeros((1, data.n), dtype=bool)
    te = np.zeros((1, data.n), dtype=bool)
    tr[0, case["train"]] = True
    te[0, case["test"]] = True
    for key, learner in (("wnb", WekaNaiveBayes()), ("ib1", WekaIB1(ties="order"))):
        pred = learner.prepare(data).fit_predict(data.X, data.y, tr, te)[0, case["test"]]
        assert pred.tolist() == case["pred"][key], key


@pytest.mark.parametrize("name", ["vote", "soybean", "binary9", "crx", "glass", "horse-colic",
                                  "credit-g", "hepatitis"])
def test_ib1_shared_matrices_equal_each_models_own_distances(name: str, monkeypatch) -> None:
    import simstudy.learners.weka.ib1 as ib1

    data = mf.dataset(name)
    rng = np.random.default_rng(3)
    fold = rng.permutation(data.n) % 10  # 10-fold cv: some test folds hold a range's extreme
    tr = fold[None, :] != np.arange(10)[:, None]
    seeds = [np.random.SeedSequence(b) for b in range(10)]
    grouped = {j for g in data.nominal_groups for j in g}
    num = [j for j in range(data.X.shape[1]) if j not in grouped]
    if num:  # then some models widen their ranges to all rows' only while classifying
        X = data.X[:, num]
        full = (np.nanmin(X, axis=0), np.nanmax(X, axis=0))
        assert any(not np.array_equal(np.nanmin(X[m], axis=0), full[0])
                   or not np.array_equal(np.nanmax(X[m], axis=0), full[1]) for m in tr)
    routes = [WekaIB1().prepare(data).fit_predict(data.X, data.y, tr, ~tr, seeds)]
    monkeypatch.setattr(ib1, "HAMMING_MAX_ROWS", 0)  # all-nominal data: the float matrix
    routes.append(WekaIB1().prepare(data).fit_predict(data.X, data.y, tr, ~tr, seeds))
    monkeypatch.setattr(ib1, "DENSE_MAX_ROWS", 0)  # every model its own rows of distances
    routes.append(WekaIB1().prepare(data).fit_predict(data.X, data.y, tr, ~tr, seeds))
    for other in routes[1:]:
        np.testing.assert_array_equal(routes[0], other)


def test_wnb_prior_counts_every_declared_class() -> None:
    # classes x, y, z declared; z never occurs: Weka's prior is (n_c + 1)/(n + 3)
    from simstudy.core import Dataset

    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])
    y = np.array([0, 1, 1, 0])
    data = Dataset("d", X, y, ("x", "y", "z"), ("a=p", "a=q"), ((0, 1),))
    lr, tr, te = _fit(WekaNaiveBayes(), data, [0, 1, 2], [3])
    proba = lr.predict_proba(data.X, data.y, tr, te)[0, 3]
    prior = np.array([2, 3, 1]) / (3 + 3)  # x: 1+1, y: 2+1, z: 0+1
    lik = np.array([(1 + 1) / (1 + 2), (1 + 1) / (2 + 2), 1 / 2])
    np.testing.assert_allclose(proba, prior * lik / (prior * lik).sum(), rtol=1e-14)


def test_j48_numeric_tests_route_unseen_values_by_wekas_tolerance() -> None:
    """``j48`` sends a row down a numeric test's left branch when its value is at most 1e-6
    above the split point (Weka's ``smOrEq``), also values no training row holds: the
    kernels compare ranks with the largest rank that goes left, which must agree with the
    values themselves."""
    from simstudy.learners.weka._j48_kernels import fit_tree
    from simstudy.learners.weka.j48 import J48

    rng = np.random.default_rng(5)
    Xtr = rng.integers(0, 20, 300).astype(float)
    ytr = ((Xtr % 7) > 3).astype(np.int64)
    ytr[rng.random(300) < 0.05] ^= 1
    # test values at, within 1e-6 above, beyond 1e-6 above and just below every integer
    Xte = np.concatenate([np.arange(20) + d for d in (0.0, 5e-7, 9e-7, 2e-6, -5e-7)])
    X = np.concatenate([Xtr, Xte])[:, None]
    y = np.concatenate([ytr, np.zeros(Xte.size, np.int64)])
    train = np.zeros((1, X.shape[0]), bool)
    train[0, :300] = True
    pred = J48().fit_predict(X, y, train, ~train)[0, 300:]
    A, nval, rank, uvals, uoff, numeric = J48()._arrays(X)
    attr, split, _, child, leaf, empty, cw, tot, _, _ = fit_tree(
        A, nval, rank, uvals, uoff, numeric, y, 2, np.arange(300), True)
    assert not leaf[0] and split[0] == np.floor(split[0])  # split points are training values

    def weka(v: float) -> int:
        k = parent = 0
        while not leaf[k]:
            parent, k = k, child[k] + (0 if v - split[k] < 1e-6 else 1)
        d = cw[parent if empty[k] else k]
        return 0 if d[0] - d[1] > -1e-6 else 1  # the first maximum (Weka's tolerance)

    assert pred.tolist() == [weka(v) for v in Xte]
