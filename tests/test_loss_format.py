"""The stored per-instance loss format: 0/1 losses as bits (unchanged, byte for byte), real
losses as float64 and a trial's numeric truth in the extended format; store round trips."""

import hashlib
import struct
import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simstudy.core import (
    LOSS_MAGIC,
    FoldLosses,
    Truth,
    pack_losses,
    unpack_losses,
    unpack_truth,
)
from simstudy.errors import SimstudyError
from simstudy.store import Store, TrialRecord


def _old_format(L: np.ndarray) -> bytes:
    """The 0/1 layout as first released, written out independently."""
    K, R, F, n = L.shape
    test = L[0] >= 0
    bits = np.concatenate([test.ravel(), (L == 1).ravel()])
    return struct.pack("<4I", K, R, F, n) + zlib.compress(np.packbits(bits).tobytes(), 6)


def _bits_example() -> np.ndarray:
    rng = np.random.default_rng(7)
    L = (rng.random((2, 3, 4, 20)) < 0.3).astype(np.int8)
    L[:, ~(rng.random((3, 4, 20)) < 0.5)] = -1
    return L


def test_01_bytes_unchanged():
    L = _bits_example()
    # the sha256 of this example's blob as the released format wrote it
    want = "20646b02bd7a751b444057278cbaa48692b5f7500af02841349bc1fca48581b3"
    for x in (L, L.astype(np.float64)):
        b = pack_losses(x)
        assert b == _old_format(L)
        assert hashlib.sha256(b).hexdigest() == want
    assert unpack_truth(pack_losses(L)) is None


def _truth(K: int, rng) -> Truth:
    return Truth(rng.random(K) * 3, rng.random(K) / 100, rng.random((K, K)) / 100,
                 int(rng.integers(2, 10**6)))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3), st.integers(1, 3), st.integers(1, 4), st.integers(1, 40),
       st.integers(0, 2**32 - 1), st.booleans())
def test_real_round_trip_exact(K, R, F, n, seed, with_truth):
    rng = np.random.default_rng(seed)
    test = rng.random((R, F, n)) < 0.5
    test[0, 0, 0] = True
    L = np.where(test[None], rng.standard_normal((K, R, F, n)) ** 2 * 10.0 ** rng.integers(
        -8, 8), -1.0)
    L[0, 0, 0, 0] = 0.1  # not 0/1: the real format
    t = _truth(K, rng) if with_truth else None
    b = pack_losses(L, t)
    assert b[:4] == LOSS_MAGIC
    got = unpack_losses(b)
    assert got.dtype == np.float64 and np.array_equal(got, L)  # bit for bit
    if with_truth:
        back = unpack_truth(b)
        assert back.n_truth == t.n_truth
        for f in ("error", "mc_se", "diff_se"):
            assert np.array_equal(getattr(back, f), getattr(t, f))
    else:
        assert unpack_truth(b) is None


def test_01_with_truth_round_trip():
    L = _bits_example()
    t = _truth(2, np.random.default_rng(1))
    b = pack_losses(L, t)
    assert b[:4] == LOSS_MAGIC
    got = unpack_losses(b)
    assert got.dtype == np.int8 and np.array_equal(got, L)
    assert unpack_truth(b).diff(0, 1) == t.diff(0, 1)


def test_float64_size_and_float32_precision():
    # 2 learners x 1600 squared errors: 8 bytes each plus the mask, zlib barely helps
    rng = np.random.default_rng(0)
    L = (rng.standard_normal((2, 1, 1, 1600)) * 1.1) ** 2
    b = pack_losses(L)
    assert 0.9 * 2 * 1600 * 8 < len(b) < 2 * 1600 * 8 + 26 + 200 + 100
    # what float32 would lose: about 1e-8 relative per loss, a mean's 8th digit
    rel = np.abs(L.astype(np.float32).astype(np.float64) - L) / L
    assert 1e-9 < rel.max() < 6e-8
    assert np.array_equal(unpack_losses(b), L)  # float64: nothing lost


@pytest.mark.parametrize("losses, truth, match", [
    (np.zeros((2, 3)), None, r"\(K, R, F, n\) array, got shape \(2, 3\)"),
    (np.array([[[[0.5, np.nan]]]]), None, "must be finite"),
    (np.array([[[[0.5, -2.0]]]]), None, "must be >= 0"),
    (np.array([[[[0.5, 1.0]]]]), Truth(np.zeros(2), np.zeros(2), np.zeros((2, 2)), 10),
     r"K=1 learners needs error and mc_se of shape \(1,\)"),
    (np.array([[[[0.5, 1.0]]]]), Truth(np.zeros(1), np.zeros(1), np.zeros((1, 1)), 0),
     "n_truth=0 must be a positive integer"),
])
def test_refusals(losses, truth, match):
    with pytest.raises(SimstudyError, match=match):
        pack_losses(losses, truth)


def test_unknown_version_refused():
    b = bytearray(pack_losses(np.array([[[[0.5, 1.0]]]])))
    b[4] = 9
    with pytest.raises(SimstudyError, match="format version 9, kind 1: this simstudy reads "
                                            "version 1"):
        unpack_losses(bytes(b))


def test_store_keeps_real_losses_and_truth(tmp_path):
    rng = np.random.default_rng(3)
    L = np.where(rng.random((1, 2, 3)) < 0.5, rng.random((2, 1, 2, 3)), -1.0)
    L[:, 0, 0, 0] = 0.25  # every fold tests something
    L[:, 0, 1, 1] = 0.75
    t = _truth(2, rng)
    fl = FoldLosses(np.ones((2, 1, 2)), np.ones((1, 2)), np.ones((1, 2)), L, None, t)
    rec = TrialRecord("c", 5, 0, "s", "src", ("a", "b"), "d", "seed", fl, [], 0.1)
    with Store(tmp_path / "s.sqlite") as s:
        s.write([rec])
        assert np.array_equal(s.losses("c", 5)[0], L)
        assert np.array_equal(s.truths("c", 5), t.error[None])
        assert np.array_equal(s.truths("c", 5, se=True), t.mc_se[None])
        assert s.truths("other", 5) is None
        row = next(s.trials(seed=5).itertuples())
        back = s.fold_losses(row)
        assert np.array_equal(back.losses, L) and np.array_equal(back.truth.diff_se, t.diff_se)


# --- the sums every interval method reads -----------------------------------------------------

def test_loss_sums_against_loops():
    from simstudy.core import loss_sums
    from simstudy.designs import get_design

    d = get_design("ncv[k=4,reps=2]")
    n = 23
    rng = np.random.default_rng(4)
    train = d.masks(np.zeros(n), rng)
    L = np.where(~train[None], rng.random((2, *train.shape)) * 5, -1.0)
    s = loss_sums(L)
    R, F, _ = train.shape
    for r in range(R):
        outer = np.argmin(train[r, :4], axis=0)  # the fold each instance is tested in
        for f in range(F):
            for b in range(F):
                on = ~train[r, f] & (outer == b) if b < 4 else np.zeros(n, bool)
                assert s.count[r, f, b] == on.sum()
                for k in range(2):
                    assert s.total[k, r, f, b] == pytest.approx(L[k, r, f][on].sum(), rel=1e-13)
            on = ~train[r, f]
            assert s.prod[0, 1, r, f] == pytest.approx((L[0, r, f][on] * L[1, r, f][on]).sum(),
                                                       rel=1e-13)
            c, S, Q = s.of(0, 1)
            dlt = L[0, r, f][on] - L[1, r, f][on]
            assert Q[r, f] == pytest.approx((dlt ** 2).sum(), rel=1e-12)
            assert S[r, f].sum() == pytest.approx(dlt.sum(), rel=1e-12, abs=1e-12)
    assert loss_sums(s) is s


# --- shipped: the interval trials keep their sums and truths ------------------------------------

def test_shipped_interval_trials_round_trip(tmp_path):
    import simstudy as ss
    from simstudy.designs import get_design
    from simstudy.stats.interval_registry import get_interval
    from simstudy.trials import ShippedTrials, export, verify

    store = tmp_path / "s.sqlite"
    for filt in ("lingauss[[]n=100]/*", "logistic[[]n=100]/*"):
        ss.run("ci-synthetic", runs=2, store=store, filter=filt, progress=False, render="none")
    summary = export(store, "ci-synthetic", tmp_path / "trials")
    assert summary.trials == 20
    from simstudy.catalog import get_study

    labels = {c.id: c.label("intervals") for c in get_study("ci-synthetic").cells}
    with Store(store, readonly=True) as st, ShippedTrials(tmp_path / "trials") as r:
        for cid in st.holdings().cell:
            assert np.array_equal(r.truths(cid, 2024), st.truths(cid, 2024))
            assert np.array_equal(r.truths(cid, 2024, se=True), st.truths(cid, 2024, se=True))
            design = get_design(cid.split("/")[-1])
            ct = st.fold_errors([cid], 2024)[cid]
            methods = labels[cid]
            reads = any(get_interval(m).needs_losses for m in methods)
            for mine, theirs, i in zip(st.losses(cid, 2024), r.losses(cid, 2024), range(2),
                                       strict=True):
                assert isinstance(mine, np.ndarray)
                # sums where the cell's methods read losses; else the fold errors suffice
                assert (theirs is not None) == reads and not isinstance(theirs, np.ndarray)
                for m in methods:
                    meth = get_interval(m)
                    for b in ((None,) if "binomial" in m else (None, 1)):
                        got = [meth(FoldLosses(ct.errors[i], ct.n_train[i], ct.n_test[i], L),
                                    design, 0, b).confidence_interval(0.9) for L in
                               (mine, theirs)]
                        assert got[0] == got[1]  # the same sums: bit for bit
        rep = verify([r], fraction=0.5)
        assert rep.ok, rep.summary()


def test_verify_recomputes_the_numeric_truth(tmp_path):
    """A shipped truth altered in its last bit, with the files' sha256 recorded anew, passes
    the file checks and fails the recomputation."""
    import json
    import zipfile

    import simstudy as ss
    from simstudy import trials as T

    store = tmp_path / "s.sqlite"
    ss.run("ci-synthetic", runs=2, store=store, filter="logistic[[]n=100]/*/1x10cv*",
           progress=False, render="none")
    d = tmp_path / "trials"
    T.export(store, "ci-synthetic", d)
    assert T.verify([T.ShippedTrials(d)], fraction=1.0).ok
    m = json.loads((d / T.MANIFEST).read_text())
    g = m["groups"][0]
    name = g["losses"]["file"]
    with np.load(d / name) as f:
        arrays = {k: f[k] for k in f.files}
    key = f"g{g['index']}_trueerror"
    was = arrays[key][1, 0]
    arrays[key][1, 0] = np.nextafter(was, 1.0)
    with zipfile.ZipFile(d / name, "w", zipfile.ZIP_LZMA) as z:
        for k, v in arrays.items():
            with z.open(k + ".npy", "w") as fh:
                np.lib.format.write_array(fh, v)
    m["files"][name].update(sha256=T._sha256(d / name), bytes=(d / name).stat().st_size)
    T._add_digests(m["groups"], {n: d / n for n in m["files"]})
    (d / T.MANIFEST).write_text(json.dumps(m))
    r = T.ShippedTrials(d)
    assert r.problems() == []  # consistent files: only recomputing tells
    rep = T.verify([r], fraction=1.0)
    assert list(rep.rows["status"]) == ["identical", "differs"]
    ulp = float(np.nextafter(was, 1.0) - was)
    assert rep.rows["detail"].iloc[1] == f"numeric truth differs (by up to {ulp:.3g})"
