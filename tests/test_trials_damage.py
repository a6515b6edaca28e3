"""Damaged shipped trials are detected: by ``trials verify`` (every file hashed, counts
against the arrays' shapes, cell labels against their arrays, recomputed trials compared
exactly), by ``trials info`` and before a reader uses a part (one line, exit 2)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from test_trials import _run

from simstudy import trials as T
from simstudy.catalog import get_study
from simstudy.errors import SimstudyError

ROOT = Path(__file__).resolve().parent.parent
FIG = ROOT / "figures"


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    """A fresh cache of checked directories per test (never the user's)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    T._PASSED.clear()
    yield
    T._PASSED.clear()


def _copy(study: str, tmp_path: Path) -> Path:
    src = FIG / study / "trials"
    if not (src / T.MANIFEST).is_file():
        pytest.skip(f"no shipped trials of {study} in this checkout")
    return Path(shutil.copytree(src, tmp_path / study / "trials"))


def _manifest(d: Path) -> dict:
    return json.loads((d / T.MANIFEST).read_text())


def _write(d: Path, m: dict) -> None:
    (d / T.MANIFEST).write_text(json.dumps(m, indent=1))


def _damaged(d: Path) -> list[tuple[str, str]]:
    rep = T.verify([T.ShippedTrials(d)], fraction=1e-9)  # the checks, no trial recomputed
    assert not rep.ok
    assert rep.summary()["damaged"].sum() == len(rep.rows) > 0
    return list(zip(rep.rows["cell"], rep.rows["detail"], strict=True))


def test_shipped_as_committed_pass_the_checks():
    for study in ("multitest", "type1"):
        d = FIG / study / "trials"
        if (d / T.MANIFEST).is_file():
            assert T.ShippedTrials(d).problems() == []


def test_deleted_second_part(tmp_path):
    d = _copy("ban", tmp_path)  # two parts; a small sample reads only the first
    (d / "errors-01.npz").unlink()
    assert ("errors-01.npz", "is missing") in _damaged(d)


def test_corrupt_byte_in_unsampled_part(tmp_path):
    d = _copy("type1", tmp_path)
    p = d / "losses-00.npz"  # the losses: not read when no trial with losses is sampled
    b = bytearray(p.read_bytes())
    b[len(b) // 2] ^= 0x01
    p.write_bytes(bytes(b))
    (where, what), = _damaged(d)
    assert where == "losses-00.npz" and "does not match its sha256" in what


def test_swapped_cell_labels(tmp_path):
    d = _copy("multitest", tmp_path)
    m = _manifest(d)
    a, b = m["groups"][0], m["groups"][1]
    a["cell"], b["cell"] = b["cell"], a["cell"]
    _write(d, m)
    found = _damaged(d)
    assert len(found) == 2
    assert all("label does not belong to its arrays" in what for _, what in found)
    assert {w for w, _ in found} == {f"cell {g['cell']!r} (seed {g['seed']})" for g in (a, b)}


def test_wrong_count_is_one_line_not_a_traceback(tmp_path):
    d = _copy("multitest", tmp_path)
    m = _manifest(d)
    m["groups"][2]["trials"] += 1
    m["trials"] += 1
    _write(d, m)
    (where, what), = _damaged(d)
    assert "the data hold 1000 trials, the manifest says 1,001" in what
    r = T.ShippedTrials(d)
    with pytest.raises(SimstudyError) as e:  # as the card reads it
        r.fold_errors([m["groups"][2]["cell"]], m["groups"][2]["seed"])
    msg = str(e.value)
    assert "\n" not in msg and "simstudy trials verify --dir" in msg
    assert "the data hold 1000 trials" in msg


def test_total_disagreeing_with_cells(tmp_path):
    d = _copy("multitest", tmp_path)
    m = _manifest(d)
    m["trials"] += 5
    _write(d, m)
    assert _damaged(d) == [(T.MANIFEST, "its cells hold 30,000 trials, its total says 30005")]


@pytest.fixture(scope="module")
def small(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("dmg")
    study = get_study("demo", runs=4).select("iris/nmc~1nn")
    T.export(_run(study, d / "s.sqlite"), "demo", d / "demo" / "trials")
    return d / "demo" / "trials"


def _alter(d: Path, delta: int) -> dict:
    """Add ``delta`` to the first learner's first fold count in every trial of the first
    cell, and record the new file's sha256 (so only a recomputation can tell)."""
    m = _manifest(d)
    g = m["groups"][0]
    with np.load(d / g["file"]) as f:
        arrays = {k: f[k] for k in f.files}
    arrays[f"g{g['index']}_counts"][0, 0, 0, :] += delta
    with zipfile.ZipFile(d / g["file"], "w", zipfile.ZIP_LZMA) as z:
        for k, v in arrays.items():
            with z.open(k + ".npy", "w") as fh:
                np.lib.format.write_array(fh, v)
    m["files"][g["file"]].update(sha256=T._sha256(d / g["file"]),
                                 bytes=(d / g["file"]).stat().st_size)
    T._add_digests(m["groups"], {n: d / n for n in m["files"]})
    _write(d, m)
    return m


def test_altered_values_differ_whatever_the_recorded_cpu(small, tmp_path):
    """nmc and 1nn have no CPU-dependent kernel: another recorded compile target does not
    excuse a difference."""
    d = Path(shutil.copytree(small, tmp_path / "alt"))
    m = _alter(d, 1)
    assert T.ShippedTrials(d).problems() == []  # consistent files: only recomputing tells
    for target in (None, "znver5, numba 0.0"):
        if target:
            m["provenance"]["invocations"][0]["compile_target"] = target
            _write(d, m)
        rep = T.verify([T.ShippedTrials(d)], fraction=1.0)
        assert not rep.ok and (rep.rows["status"] == "differs").sum() == 4
        assert "'nmc' differs" in rep.rows["detail"].iloc[0]
        assert "no CPU-dependent kernel" in rep.rows["detail"].iloc[0]


class _Fake:
    """The parts of a reader :func:`trials._compare` looks at."""

    def __init__(self, target: str) -> None:
        self.manifest = {"provenance": {"invocations": [
            {"id": 7, "host": "h", "compile_target": target, "blas": "b"}]}}


def _ct(errors):
    from simstudy.store import CellTrials

    E = np.asarray(errors, dtype=float)[None]
    n = np.full((1,) + E.shape[2:], 200.0)
    return CellTrials("c", 0, np.array([0]), E, n.copy(), n, np.array([False]))


@pytest.mark.parametrize("learners, shift, target, status, words", [
    (["lp", "nmc"], 1, "znver5", "machine-dependent",
     "'lp' by at most 1 instances per fold, within 1% of a fold (simstudy.learners.neural."),
    (["lp", "nmc"], 2, "znver5", "machine-dependent", "at most 2 instances"),
    (["lp", "nmc"], 3, "znver5", "differs", "differs by 3 misclassified instances in a "
                                            "fold, beyond the bound 2"),
    (["mlp-5", "nmc"], 50, "znver5", "machine-dependent", "within 25% of a fold"),
    (["mlp-5", "nmc"], 51, "znver5", "differs", "beyond the bound 50"),
    (["lp", "nmc"], 1, "here", "differs", "recorded this machine's compile target"),
    (["nmc", "lp"], 1, "znver5", "differs", "'nmc' differs"),
])
def test_cpu_dependence_is_named_and_bounded(learners, shift, target, status, words):
    from simstudy.core import FoldLosses

    shipped = np.full((2, 1, 2), 0.25)
    ct = _ct(shipped)
    mine = shipped.copy()
    mine[0, 0, 1] += shift / 200
    fl = FoldLosses(mine, ct.n_train[0], ct.n_test[0])
    here = {"compile_target": "here", "blas": "b"}
    got = T._compare(_Fake(target), {"learners": learners}, ct, 0, fl, None, 0, here)
    assert got[0] == status and words in got[1], got


def test_card_and_info_refuse_a_damaged_part(small, tmp_path):
    d = Path(shutil.copytree(small, tmp_path / "demo" / "trials"))
    p = d / _manifest(d)["groups"][0]["file"]
    p.write_bytes(p.read_bytes()[:-10])
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(tmp_path / "c")}

    def cli(*a):
        return subprocess.run([sys.executable, "-m", "simstudy", *a], cwd=tmp_path,
                              capture_output=True, text=True, timeout=600, env=env)

    q = cli("trials", "info", "--dir", str(d))
    assert q.returncode == 2 and "identical" not in q.stdout
    assert "DAMAGED: errors-00.npz has" in q.stdout and "truncated" in q.stdout
    q = cli("card", "--test", f"{ROOT / 'examples' / 'pooled_t.py'}:pooled_t", "--studies",
            "demo", "--store", str(d), "--no-figures")
    lines = [x for x in q.stderr.strip().splitlines() if "locating the trials" not in x]
    assert q.returncode == 2 and len(lines) == 1, q.stderr
    assert "errors-00.npz" in lines[0] and "simstudy trials verify" in lines[0]
    assert "Traceback" not in q.stderr


def test_a_passed_check_is_cached(small, tmp_path):
    d = Path(shutil.copytree(small, tmp_path / "c"))
    r = T.ShippedTrials(d)
    r.check()
    assert T._stamp(d, r.manifest) in json.loads(T._cache_path().read_text())
    T._PASSED.clear()
    calls = []
    T.ShippedTrials.problems, orig = (lambda self: calls.append(1) or []), T.ShippedTrials.problems
    try:
        T.ShippedTrials(d).check()  # from the cache file: not checked again
        assert calls == []
        os.utime(d / T.MANIFEST, ns=(1, 1))  # another file version: checked again
        T.ShippedTrials(d).check()
        assert calls == [1]
    finally:
        T.ShippedTrials.problems = orig


def test_a_damaged_manifest_under_the_env_root_is_named_not_skipped(tmp_path, monkeypatch):
    """A cut manifest in ``$SIMSTUDY_TRIALS`` stops the lookup with one line naming it: a
    later root's intact copy of that study (the checkout's) never stands in unseen."""
    d = _copy("multitest", tmp_path)
    text = (d / T.MANIFEST).read_text()
    (d / T.MANIFEST).write_text(text[: len(text) // 2])
    monkeypatch.setenv(T.ENV_DIRS, str(tmp_path))
    with pytest.raises(SimstudyError, match="are damaged: manifest.json cannot be read") as e:
        T.shipped_dirs()
    assert str(d) in str(e.value) and "simstudy trials verify" in str(e.value)
    monkeypatch.setenv(T.ENV_DIRS, str(tmp_path / "elsewhere"))
    assert T.shipped_dirs()["multitest"] != d  # without the damaged root: the intact copy
