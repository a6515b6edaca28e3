"""``j48`` inside the tree engine (and its speed target):

* the batches ``perf`` times ``j48`` on (credit-g 90/10 splits, ``binary300``) and two
  data sets with missing values give exactly the predictions ``j48`` gave before its
  kernels were sped up and moved onto the engine's criterion/splitter (frozen in
  ``tests/weka/j48_snapshot.npz`` by ``python tests/test_j48_engine.py --regen`` run
  against the code of commit c5faa3d, where j48 last changed in 4a23b5d: the predictions
  are the record, not recomputed);
* the gain-ratio criterion in ``trees/criteria.py`` against hand computations of
  Quinlan's (1993) weather example;
* the numba cache guard covers the Weka kernels and their dependency on ``trees/``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
SNAPSHOT = HERE / "weka" / "j48_snapshot.npz"


def _batches():
    """(name, data set, train masks) of the snapshot: the ``perf`` j48 row's batches
    (simstudy/perf/j48.py: credit-g, ``default_rng(0)`` permutations, 500 models;
    ``binary300``, ``default_rng(0).random < 0.9``, 1000 models) and crx / soybean (missing
    values: the fractional-weight path)."""
    from simstudy.perf.weka import binary300
    from simstudy.sources.bundled import load_bundled

    out = []
    ds = load_bundled("credit-g")
    rng = np.random.default_rng(0)
    out.append(("credit-g", ds, np.array([rng.permutation(ds.n) < int(0.9 * ds.n) for _ in range(500)])))
    b3 = binary300()
    out.append(("binary300", b3, np.random.default_rng(0).random((1000, b3.n)) < 0.9))
    for name, B in (("crx", 200), ("soybean", 100)):
        d = load_bundled(name)
        out.append((name, d, np.random.default_rng(1).random((B, d.n)) < 0.9))
    return out


def _predict(ds, train, prune=True):
    from simstudy.learners.weka.j48 import J48

    return J48(prune=prune).prepare(ds).fit_predict(ds.X, ds.y, train, ~train)


def regen() -> None:
    arrays = {}
    for name, ds, train in _batches():
        for prune in (True, False):
            arrays[f"{name}/{'pruned' if prune else 'unpruned'}"] = _predict(ds, train, prune)[~train].astype(np.int8)
    np.savez_compressed(SNAPSHOT, **arrays)


@pytest.mark.parametrize("prune", [True, False], ids=["pruned", "unpruned"])
def test_predictions_identical_to_the_snapshot(prune):
    snap = np.load(SNAPSHOT)
    for name, ds, train in _batches():
        ours = _predict(ds, train, prune)[~train]
        ref = snap[f"{name}/{'pruned' if prune else 'unpruned'}"]
        assert ours.shape == ref.shape, name
        diff = np.flatnonzero(ours != ref)
        assert diff.size == 0, f"{name}: {diff.size} of {ref.size} predictions differ"


# ------------------------------------------------------------ gain ratio (criteria.py)


def test_gain_ratio_of_quinlans_weather_outlook():
    """Quinlan (1993), sec. 2.2: outlook splits 14 cases (9 play, 5 don't) into sunny 2/3,
    overcast 4/0, rain 3/2: gain 0.247 bits, split info 1.577, gain ratio 0.156."""
    from simstudy.learners.trees.criteria import c45_gain_ratio, c45_info_gain, xlog2x

    def H(*w):  # entropy in bits of a weight vector, by hand
        w = np.asarray(w, float)
        p = w[w > 0] / w.sum()
        return float(-(p * np.log2(p)).sum())

    bags = [(2, 3), (4, 0), (3, 2)]
    old = xlog2x(14.0) - xlog2x(9.0) - xlog2x(5.0)
    new = sum(xlog2x(float(sum(b))) - sum(xlog2x(float(x)) for x in b) for b in bags)
    gain = c45_info_gain(old, new, 14.0, 14.0)
    expect_gain = H(9, 5) - sum(sum(b) / 14 * H(*b) for b in bags)
    assert gain == pytest.approx(expect_gain, rel=1e-12)
    assert round(gain, 3) == 0.247  # Quinlan prints 0.940 - 0.694 = 0.246 (rounded terms)
    split_bags = -sum(xlog2x(float(sum(b))) for b in bags)
    ratio = c45_gain_ratio(gain, split_bags, 14.0, 14.0)
    assert ratio == pytest.approx(expect_gain / H(5, 4, 5), rel=1e-12)
    assert round(H(5, 4, 5), 3) == 1.577
    assert round(ratio, 3) == 0.156


def test_gain_with_unknown_values_is_scaled_by_the_known_share():
    """Quinlan (1993), sec. 3.1: with one outlook value unknown (13 known, 8 play), the gain
    is 13/14 x 0.199 = 0.199 x 0.929 = 0.199... and the split info counts the unknown
    case as a fourth bag: 1.809; ratio = gain / 1.809."""
    from simstudy.learners.trees.criteria import c45_gain_ratio, c45_info_gain, xlog2x

    bags = [(2, 3), (3, 0), (3, 2)]  # sunny, overcast, rain among the 13 known
    old = xlog2x(13.0) - xlog2x(8.0) - xlog2x(5.0)
    new = sum(xlog2x(float(sum(b))) - sum(xlog2x(float(x)) for x in b) for b in bags)
    gain = c45_info_gain(old, new, 13.0, 14.0)
    info_known = (-(8 / 13) * np.log2(8 / 13) - (5 / 13) * np.log2(5 / 13))
    info_split = sum(sum(b) / 13 * (-sum((x / sum(b)) * np.log2(x / sum(b)) for x in b if x)) for b in bags)
    assert gain == pytest.approx(13 / 14 * (info_known - info_split), rel=1e-12)
    assert round(gain, 3) == 0.199  # Quinlan: 13/14 x (0.961 - 0.747) = 0.199
    split_bags = -sum(xlog2x(float(sum(b))) for b in bags)
    ratio = c45_gain_ratio(gain, split_bags, 13.0, 14.0)
    split_info = -sum(k / 14 * np.log2(k / 14) for k in (5, 3, 5, 1))
    assert round(split_info, 3) == 1.809  # Quinlan's value
    assert ratio == pytest.approx(gain / split_info, rel=1e-12)


def test_xlog2x_table_equals_the_formula():
    from simstudy.learners.trees.criteria import XLOG2X, xlog2x

    k = np.arange(1, XLOG2X.size, 37)
    assert np.array_equal(XLOG2X[k], k * np.log(k) / np.log(2.0))
    assert xlog2x(0.5e-6) == 0.0
    assert xlog2x(2.5) == 2.5 * np.log(2.5) / np.log(2.0)
    assert xlog2x(9000.0) == 9000.0 * np.log(9000.0) / np.log(2.0)


# ------------------------------------------------------------------- numba cache guard


def test_cache_guard_follows_a_dependency_package(tmp_path):
    from simstudy.learners.trees._cache import ensure_coherent_cache

    pkg = tmp_path / "weka"
    dep = tmp_path / "trees"
    for d in (pkg, dep):
        d.mkdir()
        (d / "m.py").write_text("x = 1\n")
    cache = pkg / "__pycache__"
    cache.mkdir()
    stale = cache / "m.f-1.py311.1.nbc"
    stale.write_bytes(b"old")
    assert ensure_coherent_cache(pkg, depends_on=(dep,)) is True
    stale.write_bytes(b"new")
    assert ensure_coherent_cache(pkg, depends_on=(dep,)) is False
    assert stale.exists()
    (dep / "m.py").write_text("x = 2\n")  # only the dependency changes
    assert ensure_coherent_cache(pkg, depends_on=(dep,)) is True
    assert not stale.exists()


def test_weka_package_stamps_its_cache_with_trees_sources():
    import hashlib

    import simstudy.learners.trees as trees
    import simstudy.learners.weka as weka

    here = Path(weka.__file__).parent
    digest = hashlib.sha256()
    for k, d in enumerate([here, Path(trees.__file__).parent]):
        for src in sorted(d.glob("*.py")):
            digest.update(f"{k}/{src.name}".encode())
            digest.update(src.read_bytes())
    stamp = here / "__pycache__" / "kernels.sources.sha256"
    if not stamp.parent.exists() or not stamp.exists():
        pytest.skip("no writable __pycache__ beside the sources")
    assert stamp.read_text() == digest.hexdigest()


if __name__ == "__main__":
    if "--regen" in sys.argv:
        regen()
