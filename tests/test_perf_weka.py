"""``wnb``'s certified fast path against Weka's own way, and the Weka benchmark peer
(``simstudy.perf.weka_peer``, ``nox -s perf-weka``)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from simstudy.core import Dataset
from simstudy.errors import SimstudyError
from simstudy.learners.weka._wmath import normal_probability
from simstudy.learners.weka.nb import WekaNaiveBayes, _phi_y

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "weka"))
import make_fixtures as mf  # noqa: E402


def _both(data, train):
    lr = WekaNaiveBayes().prepare(data)
    fast, _, n_exact = lr._run(data.X, data.y, train, ~train, False)
    weka, _, n_all = lr._run(data.X, data.y, train, ~train, False, weka_way=True)
    assert n_all == len(train)
    return fast, weka, n_exact


def test_fast_path_predicts_what_wekas_order_predicts_on_ill_conditioned_tables() -> None:
    # the edge-case generator: ties, missing values, constant columns, offsets of 1e12 and
    # spreads of 1e-7, where the order of Weka's sums decides predictions
    fast_models = exact_models = 0
    for seed in range(200):
        case = mf.edge_table(seed)
        data = mf.edge_dataset(case)
        rng = np.random.default_rng(seed)
        train = rng.random((8, data.n)) < rng.uniform(0.3, 0.95)
        train[:, 0] = True
        fast, weka, n_exact = _both(data, train)
        np.testing.assert_array_equal(fast[~train], weka[~train], err_msg=f"edge table {seed}")
        exact_models += n_exact
        fast_models += len(train) - n_exact
    assert fast_models > 400 and exact_models > 400  # both paths exercised


def test_fast_path_on_near_ties_between_classes() -> None:
    # every row twice, once per class (a copy 1e-9 apart or exact): class products tie
    for seed in range(40):
        rng = np.random.default_rng(seed)
        n, d = int(rng.integers(10, 80)), int(rng.integers(1, 5))
        base = rng.normal(size=(n, d)) * 10 ** rng.uniform(-3, 3, d) + rng.choice([0.0, 1e6], d)
        X = np.vstack([base, base + (seed % 2) * 1e-9 * np.abs(base).max() * rng.normal(size=base.shape)])
        y = np.r_[np.zeros(n, int), np.ones(n, int)]
        data = Dataset("ties", X, y, ("a", "b"))
        train = rng.random((6, 2 * n)) < 0.7
        fast, weka, _ = _both(data, train)
        np.testing.assert_array_equal(fast[~train], weka[~train], err_msg=f"seed {seed}")


def test_credit_g_needs_no_refit_and_matches_wekas_way() -> None:
    from simstudy.designs import get_design
    from simstudy.sources.bundled import load_bundled

    data = load_bundled("credit-g")
    train = get_design("10x10cv").masks(data.y, np.random.default_rng(0)).reshape(100, -1)[:30]
    fast, weka, n_exact = _both(data, train)
    np.testing.assert_array_equal(fast, weka)
    assert n_exact == 0


@pytest.mark.parametrize("name", ["ecoli", "vehicle"])
def test_fast_path_where_products_underflow(name: str) -> None:
    # 8 and 4 classes: losing classes' products fall far below 1e-280, where only the
    # absolute envelope of _predict can certify a row
    from simstudy.designs import get_design
    from simstudy.sources.bundled import load_bundled

    data = load_bundled(name)
    train = get_design("10x10cv").masks(data.y, np.random.default_rng(0)).reshape(100, -1)[:20]
    fast, weka, n_exact = _both(data, train)
    np.testing.assert_array_equal(fast, weka)
    assert n_exact < 5


def test_phi_with_its_tail_is_wekas_phi_bit_for_bit() -> None:
    fx = json.loads((HERE / "weka" / "normal_probability.json").read_text())
    z = np.array([int(h, 16) for h in fx["z_bits"]], dtype=np.uint64).view(np.float64)
    z = np.concatenate([z, np.random.default_rng(0).normal(0, 12, 5000)])
    ours = np.array([_phi_y(v)[0] for v in z])
    np.testing.assert_array_equal(ours, np.array([normal_probability(v) for v in z]))
    for v in z:
        p, y = _phi_y(v)
        if y >= 0:
            assert p == 1.0 - y


# --- the benchmark peer ------------------------------------------------------------------------


def _fake_result(single: bool = False) -> dict:
    from simstudy.perf.weka_peer import LEARNERS, summarise

    reps = []
    for r in range(3):
        rep = {"load_before": (1.0 + r, 0, 0), "load_after": (2.0, 0, 0), "weka": {},
               "ours_1": {"threads": 1, "learners": {}, "cell": {"wall_s": 2.0, "cpu_s": 1.8}},
               "ours_n": {"threads": 2, "learners": {}, "cell": {"wall_s": 1.1, "cpu_s": 2.0}}}
        for k in LEARNERS:
            cell = {"wall_s": 10.0, "cpu_s": 9.0 + r, "process_cpu_s": 9.5}
            rep["weka"][k] = {"wall_us": 1000.0, "cpu_us": 900.0 + r, "process_cpu_us": 950.0, "cell": cell}
            rep["ours_1"]["learners"][k] = {"wall_us": 100.0, "cpu_us": 90.0}
            if single:
                rep["ours_1"]["learners"][k].update(single_wall_us=1000.0 + r, single_cpu_us=450.0)
            rep["ours_n"]["learners"][k] = {"wall_us": 55.0, "cpu_us": 100.0}
        reps.append(rep)
    return {"summary": summarise(reps), "repetitions": reps,
            "agree": {k: {"same": 10000, "of": 10000} for k in LEARNERS},
            "setup": {"cell": "credit-g/wnb~j48~ib1/10x10cv", "runs": 10},
            "machine": {"cores": 2, "cpu": "test", "java": "openjdk 17"}, "commit": "abc123def4567",
            "dirty": False, "date": "today"}


def test_summary_takes_medians_of_side_by_side_ratios(tmp_path) -> None:
    from simstudy.perf.weka_peer import write

    res = _fake_result()
    s = res["summary"]
    assert s["learners"]["wnb"]["ratio_per_core"] == pytest.approx(901 / 90)
    assert s["learners"]["j48"]["ratio_wall"] == pytest.approx(1000 / 55)
    assert s["cell"]["ratio_per_core"] == pytest.approx(3 * 10 / 1.8)
    js, md = write(res, tmp_path / "perf-weka")
    text = md.read_text()
    assert "abc123def456" in text and "| `wnb` | 1,000 | 901 | 90 | 55 | **10.0** | 18.2 |" in text
    assert json.loads(js.read_text())["commit"] == "abc123def4567"


def test_one_fit_per_call_beside_the_batch(tmp_path) -> None:
    from simstudy.perf.weka_peer import write

    assert "ratio_per_core_single" not in _fake_result()["summary"]["learners"]["wnb"]
    res = _fake_result(single=True)
    v = res["summary"]["learners"]["wnb"]
    assert v["ratio_per_core_single"] == pytest.approx(901 / 450)
    assert v["ours_single_wall_us_1_thread"] == 1001.0
    _, md = write(res, tmp_path / "perf-weka")
    text = md.read_text()
    assert "a batch of 100 models in one call" in text
    assert "| `wnb` | 450 | 1,001 | **2.0** |" in text


def test_missing_weka_is_one_line(monkeypatch, tmp_path, capsys) -> None:
    from simstudy.cli import main
    from simstudy.perf.weka_peer import weka_jar

    with pytest.raises(SimstudyError, match="no Weka jar at"):
        weka_jar(str(tmp_path / "nope.jar"))
    assert main(["perf", "weka", "--repeats", "0"]) == 2
    assert "repeats must be a positive integer, got '0'" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("java") is None or not Path("/usr/share/java/weka.jar").is_file(),
                    reason="needs Weka 3.6 (Debian's weka package) and java")
def test_weka_peer_runs_weka_on_our_splits_and_reads_its_predictions() -> None:
    from simstudy.learners import get_learner
    from simstudy.perf.weka_peer import run_weka, weka_jar
    from simstudy.sources.bundled import load_bundled

    data = load_bundled("iris")
    rng = np.random.default_rng(1)
    train = rng.random((3, data.n)) < 0.8
    out = run_weka(weka_jar(), data, train, train[:2], warm=0.0, min_pass=0.0, passes=2)
    for k in ("wnb", "j48"):
        assert len(out[k]["fit"]) == 2 and out[k]["fit"][0]["fits"] == 3
        assert out[k]["cell"]["fits"] == 2 and out[k]["cell"]["wall_s"] > 0
        ours = get_learner(k).prepare(data).fit_predict(data.X, data.y, train, ~train)
        np.testing.assert_array_equal(out[k]["preds"][~train], ours[~train])
