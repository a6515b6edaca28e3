"""Shipped trials (simstudy.trials): round trip, hashes, tampering, verify, bad input."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from simstudy import trials as T
from simstudy.catalog import get_study
from simstudy.core import FoldLosses
from simstudy.errors import SimstudyError
from simstudy.runner import run_study
from simstudy.stats.baselines import Trials
from simstudy.stats.registry import get_test
from simstudy.store import Store

ROOT = Path(__file__).resolve().parent.parent


def _run(study, path: Path) -> Path:
    with Store(path) as st:
        run_study(study, st, progress=False, backend="serial")
    return path


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory) -> Path:
    """Two demo cells, 6 runs, the learners with per-instance losses kept."""
    d = tmp_path_factory.mktemp("trials")
    study = get_study("demo", runs=6).select("iris/*")
    study = study.replace(cells=[c for c in study.cells if "max" not in c.id],
                          meta={"keep_losses": True})
    return _run(study, d / "demo.sqlite")


@pytest.fixture(scope="module")
def shipped(demo_store, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ship") / "demo" / "trials"
    s = T.export(demo_store, "demo", out)
    assert s.trials == 12 and s.cells == 2
    return out


def test_round_trip_is_exact(demo_store, shipped):
    with Store(demo_store, readonly=True) as st, T.ShippedTrials(shipped) as r:
        held = st.holdings()
        pd_held = r.holdings()
        assert held.sort_values("cell").to_numpy().tolist() == \
            pd_held.sort_values("cell").to_numpy().tolist()
        ids = list(held["cell"])
        seed = int(held["seed"].iloc[0])
        a, b = st.fold_errors(ids, seed), r.fold_errors(ids, seed)
        assert a.keys() == b.keys()
        for cid in a:
            # fold errors bit for bit (counts / n_test reproduce the stored float64)
            assert a[cid].errors.tobytes() == b[cid].errors.tobytes()
            for f in ("runs", "n_train", "n_test", "has_losses"):
                assert np.array_equal(getattr(a[cid], f), getattr(b[cid], f))
            for x, y in zip(st.losses(cid, seed), r.losses(cid, seed), strict=True):
                assert x is not None and np.array_equal(x, y)
            # runs < 4 only
            assert r.fold_errors([cid], seed, runs=4)[cid].T == 4
            assert len(r.losses(cid, seed, runs=4)) == 4
        cells = get_study("demo").select("iris/*").cells
        p1, p2 = st.pvalues(cells, seed), r.pvalues(cells, seed)
        assert len(p1) == len(p2) == 2 * 2 * 6
        assert p1[["cell", "test", "a", "b", "run"]].to_numpy().tolist() == \
            p2[["cell", "test", "a", "b", "run"]].to_numpy().tolist()
        assert p1["pvalue"].to_numpy().tobytes() == p2["pvalue"].to_numpy().tobytes()
    m = json.loads((shipped / T.MANIFEST).read_text())
    assert m["checks"]["pvalues"]["identical"] == m["checks"]["pvalues"]["compared"] == 24
    assert m["with_losses"] == 12
    assert all(g["losses"]["layout"] == "instance" for g in m["groups"])
    assert {f["kind"] for f in m["files"].values()} == {"errors", "losses"}
    # what is left out is stated, with a reason each
    assert all(x["what"] and x["why"] for x in m["left_out"])


def test_losses_of_other_designs_and_partly_kept(tmp_path):
    """A resampling design tests some instances several times per replication and others
    never (the 'positions' layout); trials computed before losses were kept have none."""
    from simstudy.study import Study, cells

    grid = cells(["iris"], [("nmc", "1nn")], ["resample[r=3]"], ["resampled-t"])
    path = tmp_path / "r.sqlite"
    _run(Study("rs", grid, runs=3, seed=5, chunk=2), path)
    _run(Study("rs", grid, runs=5, seed=5, chunk=2, meta={"keep_losses": True}), path)
    T.export(path, "rs", tmp_path / "t")  # the read-back check compares every trial
    with T.ShippedTrials(tmp_path / "t") as r, Store(path, readonly=True) as st:
        (g,) = r.manifest["groups"]
        assert g["losses"]["layout"] == "positions" and g["losses"]["trials"] == 2
        got, want = r.losses(g["cell"], 5), st.losses(g["cell"], 5)
        assert [x is None for x in got] == [True, True, True, False, False]
        assert all(np.array_equal(a, b) for a, b in zip(got[3:], want[3:], strict=True))
        assert r.fold_errors([g["cell"]], 5)[g["cell"]].has_losses.tolist() == \
            [False, False, False, True, True]


def test_files_are_npz_with_hashes(shipped):
    m = json.loads((shipped / T.MANIFEST).read_text())
    for name, info in m["files"].items():
        p = shipped / name
        assert T._sha256(p) == info["sha256"] and p.stat().st_size == info["bytes"]
        with zipfile.ZipFile(p) as z:
            assert {zi.compress_type for zi in z.infolist()} == {zipfile.ZIP_LZMA}
        np.load(p)  # plain numpy reads it
    prov = m["provenance"]
    inv = prov["invocations"][0]
    assert inv["compile_target"] and inv["blas"] and inv["version"]
    assert set(prov["export"]["packages"]) >= {"numpy", "scipy", "simstudy"}


def test_export_is_deterministic(demo_store, shipped, tmp_path):
    T.export(demo_store, "demo", tmp_path, check=False)
    for name in json.loads((shipped / T.MANIFEST).read_text())["files"]:
        assert (tmp_path / name).read_bytes() == (shipped / name).read_bytes()


def test_an_export_stopped_midway_leaves_nothing_at_out(demo_store, tmp_path, monkeypatch):
    """A new --out folder is filled beside its name and renamed whole: stopped while it
    writes (here Ctrl-C at the manifest), neither --out nor its work folder remains; the
    export run again is whole and equal to an uninterrupted one."""
    out = tmp_path / "exp"

    def stop(*a, **k):
        raise KeyboardInterrupt

    with monkeypatch.context() as m:
        m.setattr(T, "_write_manifest", stop)
        with pytest.raises(KeyboardInterrupt):
            T.export(demo_store, "demo", out, check=False)
    assert list(tmp_path.iterdir()) == []
    T.export(demo_store, "demo", out, check=False)
    T.export(demo_store, "demo", tmp_path / "again", check=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["again", "exp"]
    names = json.loads((out / T.MANIFEST).read_text())["files"]
    assert names and sorted(names) == sorted(p.name for p in out.glob("*.npz"))
    for name in names:  # the data files (the manifest also records when it was written)
        assert (out / name).read_bytes() == (tmp_path / "again" / name).read_bytes()


def test_tampered_file_is_one_line(shipped, tmp_path):
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(shipped, bad)
    name = next(n for n in json.loads((bad / T.MANIFEST).read_text())["files"]
                if n.startswith("errors"))
    data = bytearray((bad / name).read_bytes())
    data[len(data) // 2] ^= 0xFF
    (bad / name).write_bytes(bytes(data))
    r = T.ShippedTrials(bad)
    with pytest.raises(SimstudyError, match=rf"{name} does not match its sha256") as e:
        r.fold_errors(list(r.holdings()["cell"]), r.manifest["seeds"][0])
    assert "\n" not in str(e.value)
    (bad / name).unlink()
    r = T.ShippedTrials(bad)
    with pytest.raises(SimstudyError, match="is missing"):
        r.fold_errors(list(r.holdings()["cell"]), r.manifest["seeds"][0])


def test_verify_sample_passes(shipped):
    with T.ShippedTrials(shipped) as r:
        rep = T.verify([r], fraction=0.5, seed=1)
    assert len(rep.rows) == 6 and rep.ok
    assert (rep.rows["status"] == "identical").all()
    assert rep.summary()["identical"].sum() == 6


def test_open_path_and_shipped_dirs(shipped, monkeypatch):
    assert T.open_path(shipped).study == "demo"
    assert T.open_path(shipped / T.MANIFEST).study == "demo"
    assert T.open_path(shipped.parent).study == "demo"  # <study>/ holding trials/
    assert T.open_path(shipped.parent.parent / "nothing") is None
    assert T.open_path(3) is None
    monkeypatch.setenv(T.ENV_DIRS, str(shipped.parent.parent))
    assert T.shipped_dirs()["demo"] == shipped
    (r,) = T.open_shipped(["demo", "no-such-study"])
    assert r.study == "demo" and "demo" in r.describe()


def test_export_refuses_bad_input(demo_store, shipped, tmp_path):
    with pytest.raises(SimstudyError, match=r"holds no trials of study 'type1'; studies it "
                                            r"holds: demo"):
        T.export(demo_store, "type1", tmp_path / "x")
    with pytest.raises(SimstudyError, match="does not exist"):
        T.export(tmp_path / "nope.sqlite", "demo", tmp_path / "x")
    other = tmp_path / "other"
    other.mkdir()
    (other / T.MANIFEST).write_text(json.dumps({"format": T.FORMAT, "study": "gaussian"}))
    with pytest.raises(SimstudyError, match="holds the shipped trials of study 'gaussian'"):
        T.export(demo_store, "demo", other)
    with pytest.raises(SimstudyError, match="no shipped trials"):
        T.ShippedTrials(tmp_path)


@pytest.mark.parametrize("args, msg", [
    (["trials", "export", "nope.sqlite", "--study", "demo"], "does not exist"),
    (["trials", "verify", "--sample", "0"], "--sample must be a fraction in (0, 1], got '0'"),
    (["trials", "verify", "--sample", "x"], "--sample must be a fraction in (0, 1], got 'x'"),
    (["trials", "verify", "--seed", "-1"], "--seed must be an integer"),
    (["trials", "verify", "--study", "no-such"], "no shipped trials of study 'no-such'"),
    (["trials", "info", "--dir", "/nonexistent"], "--dir '/nonexistent' holds no shipped"),
    (["trials", "export", "x.sqlite", "--study", "demo", "--max-file-mb", "0"],
     "--max-file-mb must be"),
])
def test_cli_bad_input_one_line_exit_2(args, msg, tmp_path):
    p = subprocess.run([sys.executable, "-m", "simstudy", *args], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300,
                       env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and msg in lines[0], p.stderr


def test_cli_export_verify_info(demo_store, tmp_path):
    env = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "demo" / "trials"

    def cli(*a):
        return subprocess.run([sys.executable, "-m", "simstudy", "trials", *a], cwd=tmp_path,
                              capture_output=True, text=True, timeout=600, env=env)

    p = cli("export", str(demo_store), "--study", "demo", "--out", str(out), "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "12 trials of 'demo'" in p.stdout and "trials/s" in p.stdout
    p = cli("verify", "--dir", str(out), "--sample", "0.2", "--no-progress")
    assert p.returncode == 0, p.stderr
    assert "verify: passed" in p.stdout
    p = cli("info", "--dir", str(out))
    assert p.returncode == 0 and "demo: 12 trials" in p.stdout


# --- the registry's batch forms equal its per-trial functions (the reader uses them) -------

@pytest.mark.parametrize("name, shape", [
    ("t5x2cv", (5, 2)), ("F5x2cv", (5, 2)), ("FB5x2cv", (5, 2)), ("tB3x2cv", (3, 2)),
    ("tB3x2cv[crit=one-sided]", (3, 2)), ("cv-t", (1, 10)), ("resampled-t", (10, 1)),
    ("corrected-resampled-t", (100, 1)), ("corrected-rxk-t", (10, 10)),
    ("corrected-rxk-t", (1, 10)), ("rxk-t", (10, 10)), ("rxk-t", (2, 10)),
])
def test_batched_pvalues_bit_identical(name, shape):
    rng = np.random.default_rng(7)
    n = 60
    Tn = 400
    R, F = shape
    counts = rng.binomial(n, rng.uniform(0.05, 0.4, size=(Tn, 2, 1, 1)), size=(Tn, 2, R, F))
    counts[:20, 1] = counts[:20, 0]  # zero differences: undefined statistic
    counts[20:30, 1] = counts[20:30, 0] + 1  # constant differences
    nte = np.full((Tn, R, F), float(n))
    nte[::3] += 1  # fold sizes differing by one instance
    ntr = np.full((Tn, R, F), 9.0 * n)
    errors = counts / nte[:, None]
    test = get_test(name)
    stat, p = test.batch(Trials(errors, ntr, nte), 0, 1)
    for i in range(Tn):
        r = test(FoldLosses(errors[i], ntr[i], nte[i]), 0, 1)
        assert (np.isnan(r.statistic) and np.isnan(stat[i])) or \
            np.float64(r.statistic).tobytes() == stat[i].tobytes(), (i, r, stat[i])
        assert np.float64(r.pvalue).tobytes() == p[i].tobytes(), (i, r, p[i])
