"""Data sources: bundled files, encoding, user CSV/ARFF, the Gaussian generator."""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simstudy.errors import SimstudyError
from simstudy.sources import dataset_info, get_source, list_sources
from simstudy.sources.bundled import DATA_DIR, load_bundled, verify
from simstudy.sources.encode import encode
from simstudy.sources.gaussian import declared_gaussians

REF = Path(__file__).resolve().parents[1] / "studies" / "reference"
INFO = dataset_info()


def test_manifest_and_files_agree() -> None:
    files = sorted(p.name for p in DATA_DIR.glob("*.csv.gz"))
    assert files == sorted(INFO["file"])
    assert INFO["size_bytes"].sum() < 1.6e6
    assert set(list_sources()) >= set(INFO["name"])


@pytest.mark.parametrize("name", sorted(INFO["name"]))
def test_bundled_shape_matches_manifest(name: str) -> None:
    row = INFO.set_index("name").loc[name]
    d = get_source(name).sample(np.random.default_rng(0))
    assert d.n == row["n_instances"]
    assert d.meta["n_attributes"] == row["n_attributes"]
    assert d.n_classes == row["n_classes"]
    assert d.X.dtype == np.float64 and d.X.shape[0] == d.n and d.y.dtype == np.int64
    assert set(np.unique(d.y)) == set(range(d.n_classes))
    # class counts as in the manifest ("label:count;...")
    counts = dict(item.rsplit(":", 1) for item in row["class_counts"].split(";"))
    assert {c: int(np.sum(d.y == i)) for i, c in enumerate(d.classes)} == {
        k: int(v) for k, v in counts.items()
    }
    # missing cells: every missing attribute value is nan in the encoding
    n_nominal = sum(
        1
        for s in (row["nominal_attributes"], row["integer_coded_categorical_attributes"])
        for a in s.split(";")
        if s != "none" and a not in d.meta["dropped"]
    )
    assert len(d.nominal_groups) == n_nominal
    for g in d.nominal_groups:  # one-hot rows sum to 1, or are all nan
        block = d.X[:, list(g)]
        miss = np.isnan(block)
        assert np.all(miss.all(1) | ~miss.any(1))
        assert np.all(block[~miss.any(1)].sum(1) == 1)
    assert d.X.shape[1] == len(d.feature_names)


def test_iris_matches_scikit_learn() -> None:
    from sklearn.datasets import load_iris

    d = get_source("iris").sample(None)
    ref = load_iris()
    # same 150 rows (the Weka copy fixes two known UCI typos, so compare loosely per row)
    assert d.classes == ("Iris-setosa", "Iris-versicolor", "Iris-virginica")
    assert np.array_equal(d.y, ref.target)
    assert np.mean(np.all(np.isclose(d.X, ref.data), axis=1)) >= 148 / 150


def test_nominal_encoding_hand_checked() -> None:
    df = pd.DataFrame(
        {
            "size": [1.5, None, 3.0, 2.0],
            "colour": ["red", "blue", None, "red"],
            "code": ["2", "10", "2", "1"],  # integer-coded: numeric sort 1 < 2 < 10
            "const": [7.0, 7.0, 7.0, 7.0],
            "class": ["b", "a", "b", "b"],
        }
    )
    d = encode(df, "toy", nominal=["code"])
    assert d.classes == ("a", "b") and d.y.tolist() == [1, 0, 1, 1]
    assert d.feature_names == ("size", "colour=blue", "colour=red", "code=1", "code=2", "code=10")
    assert d.nominal_groups == ((1, 2), (3, 4, 5))
    assert d.meta["dropped"] == ("const",) and d.meta["n_attributes"] == 4
    expect = np.array(
        [
            [1.5, 0, 1, 0, 1, 0],
            [np.nan, 1, 0, 0, 0, 1],
            [3.0, np.nan, np.nan, 0, 1, 0],
            [2.0, 0, 1, 1, 0, 0],
        ]
    )
    np.testing.assert_array_equal(d.X, expect)
    assert not d.X.flags.writeable


def test_numeric_class_labels_sort_numerically() -> None:
    d = get_source("arrhythmia").sample(None)
    assert d.classes[:4] == ("1", "2", "3", "4") and d.classes[-1] == "16"


def test_drop_attributes_vowel() -> None:
    d = get_source("vowel[drop=Train_or_Test;Speaker_Number;Sex]").sample(None)
    assert d.X.shape == (990, 10) and d.n_classes == 11
    with pytest.raises(SimstudyError, match="'nope'"):
        get_source("vowel[drop=nope]")


def test_declared_domains_are_wekas_credit_g() -> None:
    # Weka's credit-g.arff (Debian weka 3.6.14) declares purpose 'vacation' and
    # personal_status 'female single', which no row uses, and the classes {good, bad}
    obs = get_source("credit-g").sample(None)
    dec = get_source("credit-g[domains=declared]").sample(None)
    assert obs.classes == ("bad", "good") and dec.classes == ("good", "bad")
    np.testing.assert_array_equal(dec.y, 1 - obs.y)
    assert dec.X.shape == (1000, obs.X.shape[1] + 2)
    purpose = [f for f in dec.feature_names if f.startswith("purpose=")]
    assert purpose == [f"purpose={v}" for v in (
        "new car", "used car", "furniture/equipment", "radio/tv", "domestic appliance",
        "repairs", "education", "vacation", "retraining", "business", "other")]
    assert np.all(dec.X[:, dec.feature_names.index("purpose=vacation")] == 0)
    assert "personal_status=female single" in dec.feature_names
    # the same rows: every observed indicator column is in the declared encoding
    for j, f in enumerate(obs.feature_names):
        np.testing.assert_array_equal(obs.X[:, j], dec.X[:, dec.feature_names.index(f)])


def test_declared_domains_keep_unused_classes_and_weka_values() -> None:
    glass = get_source("glass[domains=declared]").sample(None)
    assert glass.classes[3] == "vehic wind non-float" and not (glass.y == 3).any()
    assert len(np.unique(glass.y)) == 6
    # Weka's anneal.arff reads UCI's 'not applicable' as the declared value '?'
    anneal = get_source("anneal[domains=declared]").sample(None)
    assert not np.isnan(anneal.X).any() and "family=?" in anneal.feature_names
    assert np.isnan(get_source("anneal").sample(None).X).any()
    # heart-statlog's integer-coded attributes are numeric in Weka's ARFF
    hs = get_source("heart-statlog[domains=declared]").sample(None)
    assert hs.X.shape == (270, 13) and hs.nominal_groups == ()


def test_declared_domains_identity_and_errors() -> None:
    from simstudy.sources.bundled import declared_domains, domains_hash

    src = get_source("credit-g[domains=declared]")
    assert src.name == "credit-g[domains=declared]"
    # the observed encoding keeps the file's sha256 (stores made before stay valid)
    assert get_source("credit-g").content_hash == INFO.set_index("name").at["credit-g", "sha256"]
    assert src.content_hash == domains_hash("credit-g", "declared") != get_source("credit-g").content_hash
    assert {"credit-g", "breast-cancer", "glass", "soybean", "vote", "labor"} <= set(declared_domains())
    with pytest.raises(SimstudyError, match="'sorted'.*declared, observed"):
        get_source("credit-g[domains=sorted]")
    with pytest.raises(SimstudyError, match="'wine' has no declared domains"):
        get_source("wine[domains=declared]")


def test_encode_declared_order_and_unknown_values() -> None:
    df = pd.DataFrame({"a": ["lo", "hi", None], "b": [1.0, 2.0, 3.0], "class": ["y", "n", "y"]})
    d = encode(df, "t", domains={"a": ["lo", "mid", "hi"]}, classes=["y", "n", "maybe"],
               declared_order=True, missing_as={"a": "mid"})
    assert d.feature_names == ("a=lo", "a=mid", "a=hi", "b") and d.classes == ("y", "n", "maybe")
    np.testing.assert_array_equal(d.X[:, :3], [[1, 0, 0], [0, 0, 1], [0, 1, 0]])
    # a declared domain of two values keeps an attribute with one observed value
    one = pd.DataFrame({"a": ["lo", "lo"], "b": [1.0, 2.0], "class": ["y", "n"]})
    assert encode(one, "t", domains={"a": ["lo", "hi"]}, declared_order=True).X.shape == (2, 3)
    assert encode(one, "t", domains={"a": ["lo", "hi"]}).X.shape == (2, 1)
    with pytest.raises(SimstudyError, match=r"class labels \['n'\] outside"):
        encode(df, "t", classes=["y"])


def test_sha256_mismatch_detected(tmp_path: Path) -> None:
    shutil.copy(DATA_DIR / "MANIFEST.csv", tmp_path / "MANIFEST.csv")
    shutil.copy(DATA_DIR / "iris.csv.gz", tmp_path / "iris.csv.gz")
    assert verify("iris", str(tmp_path)) == tmp_path / "iris.csv.gz"  # intact copy passes
    raw = gzip.decompress((tmp_path / "iris.csv.gz").read_bytes()).replace(b"5.1,", b"5.2,", 1)
    (tmp_path / "iris.csv.gz").write_bytes(gzip.compress(raw))
    with pytest.raises(SimstudyError, match="corrupted") as e:
        load_bundled("iris", str(tmp_path))
    assert "iris.csv.gz" in str(e.value)


def _paper_sets() -> tuple[dict, dict, dict, dict]:
    """Each study's map of its paper's data-set names to ours (a spec's bundled file)."""
    from simstudy.studies.alpaydin1999.grid import DATASETS as A
    from simstudy.studies.alpaydin1999.grid import NUMERATOR_SETS
    from simstudy.studies.bouckaert2004.grid import DATASETS as B
    from simstudy.studies.wang2016.grid import DATASETS as W
    from simstudy.studies.yildiz2006.grid import DATASETS as Y

    from simstudy.spec import parse_spec

    def base(m):
        return {k: v if v is None else parse_spec(v)[0] for k, v in m.items()}

    alp = {**NUMERATOR_SETS, **{k: src for k, (src, _) in A.items()}}
    return base(Y), base(B), base(W), base(alp)


def test_paper_name_mappings_cover_the_papers() -> None:
    YILDIZ2006, BOUCKAERT2004, WANG2016, ALPAYDIN1999 = _paper_sets()
    bundled = set(INFO["name"])
    yildiz = pd.read_csv(REF / "yildiz2006_table1.csv")["dataset"].unique()
    assert sorted(YILDIZ2006) == sorted(yildiz)
    bouck = pd.read_csv(REF / "bouckaert2004_table1.csv")
    assert sorted(BOUCKAERT2004) == sorted(bouck["dataset"])
    assert sorted(WANG2016) == sorted(pd.read_csv(REF / "wang2016_table4.csv")["dataset"].unique())
    alp = set(pd.read_csv(REF / "alpaydin1999_table1.csv")["dataset"]) | set(
        pd.read_csv(REF / "alpaydin1999_table2.csv")["dataset"]
    )
    assert sorted(ALPAYDIN1999) == sorted(alp)
    for mapping in (YILDIZ2006, BOUCKAERT2004, WANG2016, ALPAYDIN1999):
        assert {v for v in mapping.values() if v} <= bundled
    assert ALPAYDIN1999["THYROID"] is None  # never substituted by new-thyroid
    # Bouckaert's #inst. and #cl. agree exactly with the files they map to
    info = INFO.set_index("name")
    for r in bouck.itertuples():
        f = info.loc[BOUCKAERT2004[r.dataset]]
        assert (f["n_instances"], f["n_classes"]) == (r.n_instances, r.n_classes), r.dataset
        assert r.n_attributes - f["n_attributes"] in (0, 1), r.dataset


def test_yildiz_max_error_fits_mapping() -> None:
    # the MAX column (majority-class error over 5x2 folds) is close to the minority share
    YILDIZ2006 = _paper_sets()[0]
    t1 = pd.read_csv(REF / "yildiz2006_table1.csv")
    mx = t1[t1.algorithm == "MAX"].set_index("dataset")["error_mean_pct"]
    info = INFO.set_index("name")
    for paper, ours in YILDIZ2006.items():
        counts = [int(x.rsplit(":", 1)[1]) for x in info.loc[ours, "class_counts"].split(";")]
        share = 100 * (1 - max(counts) / sum(counts))
        assert mx[paper] - share > -0.5 and mx[paper] - share < 5.5, paper


# -- user files ---------------------------------------------------------------------------


def test_user_csv_round_trip(tmp_path: Path) -> None:
    p = tmp_path / "toy.csv"
    p.write_text("label,a,b\nyes,1.0,x\nno,2.5,y\nyes,,x\nno,4,?\n")
    # no column named class: the last column is the label; the row with '?' has none:
    # refused, unless the source says to drop such rows
    with pytest.raises(SimstudyError, match="1 of 4 rows have no class label"):
        get_source(str(p)).sample(None)
    d = get_source(f"{p}[unlabelled=drop]").sample(None)
    assert d.classes == ("x", "y") and d.y.tolist() == [0, 1, 0]  # the row with '?' dropped
    assert d.meta["n_missing_class"] == 1
    p2 = tmp_path / "toy2.csv"
    p2.write_text("a,Class,b\n1.0,yes,x\n2.5,no,y\n3,yes,x\n")
    d2 = get_source(str(p2)).sample(None)
    assert d2.classes == ("no", "yes") and d2.y.tolist() == [1, 0, 1]
    assert d2.feature_names == ("a", "b=x", "b=y")
    np.testing.assert_array_equal(d2.X, [[1.0, 1, 0], [2.5, 0, 1], [3.0, 1, 0]])


def test_user_arff_round_trip(tmp_path: Path) -> None:
    p = tmp_path / "toy.arff"
    p.write_text(
        "@relation toy\n@attribute width numeric\n@attribute shape {round,square,star}\n"
        "@attribute class {neg,pos}\n@data\n1.5,round,pos\n?,square,neg\n3,?,pos\n"
    )
    d = get_source(str(p)).sample(None)
    assert d.classes == ("neg", "pos") and d.y.tolist() == [1, 0, 1]
    # one-hot over the declared domain, including the unused value 'star'
    assert d.feature_names == ("width", "shape=round", "shape=square", "shape=star")
    assert d.nominal_groups == ((1, 2, 3),)
    np.testing.assert_array_equal(
        d.X, [[1.5, 1, 0, 0], [np.nan, 0, 1, 0], [3.0, np.nan, np.nan, np.nan]]
    )


@pytest.mark.parametrize(
    "content,match",
    [
        ("", "empty"),
        ("a,class\n1,x\n2,x\n", "2 classes"),
        ("class\nx\ny\n", "attribute"),
    ],
)
def test_malformed_csv_names_the_path(tmp_path: Path, content: str, match: str) -> None:
    p = tmp_path / "bad.csv"
    p.write_text(content)
    with pytest.raises(SimstudyError, match=match) as e:
        get_source(str(p)).sample(None)
    assert str(p) in str(e.value)


def test_malformed_arff_and_missing_paths(tmp_path: Path) -> None:
    p = tmp_path / "bad.arff"
    p.write_text("@relation x\n@attribute a numeric\n@data\n1,2,3\nnot arff at all\n")
    with pytest.raises(SimstudyError) as e:
        get_source(str(p)).sample(None)
    assert str(p) in str(e.value)
    missing = str(tmp_path / "nothere.csv")
    with pytest.raises(SimstudyError, match="does not exist") as e:
        get_source(missing)
    assert missing in str(e.value)
    with pytest.raises(SimstudyError, match="unsupported"):
        get_source(str(tmp_path / "data.xlsx"))


def test_unknown_source_lists_choices() -> None:
    with pytest.raises(SimstudyError, match="'irs'.*iris"):
        get_source("irs")
    with pytest.raises(SimstudyError, match="'x'"):
        get_source("iris[x=1]")


def test_fixed_sources_are_cached() -> None:
    s = get_source("wine")
    assert s.fixed and s.sample(None) is get_source("wine").sample(np.random.default_rng(1))


# -- Gaussian generator -------------------------------------------------------------------


def test_wang_cases_match_table_3() -> None:
    t3 = pd.read_csv(REF / "wang2016_table3.csv", dtype=str).drop_duplicates("case")
    for r in t3.itertuples():
        case = declared_gaussians()["wang-case{k}"]["cases"][str(int(r.case))]
        mu1, c1 = case["mu1"], case["s1"]
        assert mu1 == f"({r.mu1_x_as_printed},{r.mu1_y_as_printed})"
        assert c1 == r.sigma1_multiplier_of_I2_as_printed
        src = get_source(f"wang-case{r.case}")
        np.testing.assert_allclose(src.mu, [[0, 0], [float(r.mu1_x), float(r.mu1_y)]])
        np.testing.assert_allclose(
            src.sigma[1], float(r.sigma1_multiplier_of_I2) * np.eye(2), atol=1e-6
        )
        np.testing.assert_allclose(src.sigma[0], np.eye(2))


def test_gaussian_moments_match() -> None:
    src = get_source("gauss[mu0=(0,0),s0=1,mu1=(1,-2),s1=(1,0.5;0.5,2),n=200000]")
    d = src.sample(np.random.default_rng(42))
    n1 = d.y.sum()
    # P(Y=1) = 1/2: binomial class count within 4 sd
    assert abs(n1 - d.n / 2) < 4 * np.sqrt(d.n / 4)
    for c, mu, S in [(0, [0, 0], np.eye(2)), (1, [1, -2], [[1, 0.5], [0.5, 2]])]:
        Xc = d.X[d.y == c]
        m = len(Xc)
        se_mean = np.sqrt(np.diag(S) / m)
        assert np.all(np.abs(Xc.mean(0) - mu) < 4.5 * se_mean)
        # var of a sample covariance entry: (S_ii S_jj + S_ij^2) / m
        S = np.asarray(S, dtype=float)
        se_cov = np.sqrt((np.outer(np.diag(S), np.diag(S)) + S**2) / m)
        assert np.all(np.abs(np.cov(Xc.T) - S) < 4.5 * se_cov)


def test_gaussian_class_counts_binomial_or_balanced() -> None:
    src = get_source("wang-case3[n=20]")
    counts = [src.sample(np.random.default_rng(s)).y.sum() for s in range(400)]
    # Binomial(20, 1/2): variance 5 (balanced would give 0)
    assert 3.5 < np.var(counts) < 6.5
    bal = get_source("wang-case3[n=21,balanced=1]").sample(np.random.default_rng(0))
    assert bal.y.sum() == 11


@given(seed=st.integers(0, 2**32 - 1))
@settings(max_examples=20, deadline=None)
def test_gaussian_seeding(seed: int) -> None:
    src = get_source("wang-case1[n_test=50]")
    a, b = src.sample(np.random.default_rng(seed)), src.sample(np.random.default_rng(seed))
    c = src.sample(np.random.default_rng(seed + 1))
    assert np.array_equal(a.X, b.X) and np.array_equal(a.y, b.y)
    assert np.array_equal(a.X_test, b.X_test) and a.X_test.shape == (50, 2)
    assert not np.array_equal(a.X, c.X)
    assert not src.fixed


def test_gaussian_canonical_ids_and_errors() -> None:
    assert get_source("gauss[s1=0.5,mu1=(2,2)]").name == "gauss[mu1=(2,2),s1=1/2]"
    assert get_source("gauss[s1=1/2,mu1=(2,2)]").name == "gauss[mu1=(2,2),s1=1/2]"
    assert get_source("gauss[n=200]").name == "gauss"
    assert get_source("wang-case6[n_test=20000]").name == "wang-case6[n_test=20000]"
    for bad, match in [
        ("gauss[s1=(1,2;2,1)]", "positive definite"),
        ("gauss[mu1=(1,1,1)]", "length"),
        ("gauss[n=x]", "'x'"),
        ("gauss[foo=1]", "'foo'"),
        ("wang-case9", "wang-case9"),
        ("wang-case1[mu1=(0,0)]", "'mu1'"),
        ("gauss[s1=(1,0;1)]", "square"),
    ]:
        with pytest.raises(SimstudyError, match=match):
            get_source(bad)


def test_openml_is_lazy() -> None:
    src = get_source("openml:iris")  # no import, no network until sampled
    assert src.name == "openml:iris" and src.fixed


class _FakeOpenMLDataset:
    """openml 0.14's OpenMLDataset as far as the source uses it (no network)."""

    dataset_id, version, default_target_attribute = 4242, 3, "Class"

    def get_data(self, target=None):
        X = pd.DataFrame({
            "width": [1.0, 2.0, np.nan, 4.0, 5.0, 6.0, 7.0, 8.0],
            # declared domain a, b, c; 'c' never occurs, one value missing
            "colour": pd.Categorical(["a", "b", "a", None, "b", "a", "b", "a"],
                                     categories=["a", "b", "c"]),
        })
        y = pd.Series(pd.Categorical(["yes", "no"] * 4, categories=["no", "yes"]))
        assert target == "Class"
        return X, y, [False, True], ["width", "colour"]


@pytest.fixture
def fake_openml(monkeypatch):
    import sys
    import types

    from simstudy.sources.openml import load_openml

    calls = []

    def get_dataset(ident, download_data=None, **kw):
        calls.append((ident, download_data))
        if ident == "nosuch":
            raise RuntimeError("Dataset nosuch not found (OpenMLServerException)")
        return _FakeOpenMLDataset()

    mod = types.ModuleType("openml")
    mod.datasets = types.SimpleNamespace(get_dataset=get_dataset)
    monkeypatch.setitem(sys.modules, "openml", mod)
    load_openml.cache_clear()
    yield calls
    load_openml.cache_clear()


def test_openml_source_encodes_like_the_bundled_sets(fake_openml) -> None:
    ds = get_source("openml:4242").sample(np.random.default_rng(0))
    assert fake_openml == [(4242, True)]  # an id is passed as int; data downloaded
    assert ds.name == "openml:4242" and ds.classes == ("no", "yes")
    np.testing.assert_array_equal(ds.y, [1, 0] * 4)
    # width as is (nan kept for the learners' imputation); colour one-hot over a, b, c
    assert ds.X.shape == (8, 4)
    np.testing.assert_array_equal(ds.X[:, 0], [1, 2, np.nan, 4, 5, 6, 7, 8])
    np.testing.assert_array_equal(ds.X[0, 1:], [1, 0, 0])
    np.testing.assert_array_equal(ds.X[1, 1:], [0, 1, 0])
    assert np.isnan(ds.X[3, 1:]).all()
    assert ds.nominal_groups == ((1, 2, 3),)
    assert ds.meta["openml_id"] == 4242 and ds.meta["version"] == 3
    get_source("openml:4242").sample(np.random.default_rng(1))
    assert len(fake_openml) == 1  # loaded once per process


def test_openml_errors_are_one_message(fake_openml, monkeypatch) -> None:
    import sys

    with pytest.raises(SimstudyError, match="OpenML data set 'nosuch' could not be loaded: "
                                            "Dataset nosuch not found"):
        get_source("openml:nosuch").sample(np.random.default_rng(0))
    monkeypatch.setitem(sys.modules, "openml", None)  # the optional package not installed
    with pytest.raises(SimstudyError, match=r"needs the optional package 'openml'"):
        get_source("openml:other").sample(np.random.default_rng(0))


def test_openml_source_runs_in_a_study(fake_openml, tmp_path) -> None:
    from simstudy.runner import run_study
    from simstudy.store import Store
    from simstudy.study import Study, cells

    study = Study("oml", cells(["openml:4242"], [("nmc", "1nn")], ["5x2cv"], ["t5x2cv"]),
                  runs=2)
    with Store(tmp_path / "s.sqlite") as st:
        s = run_study(study, st, backend="serial", progress=False)
        assert s.trials_computed == 2 and st.count() == 2
