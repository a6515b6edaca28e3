"""Shards and merge: a deterministic split of the work units, stores combined into one whose
tables equal a single run's; refusals that name the difference; OUT complete or absent."""

import gzip
import re
import shutil
import sqlite3

import pytest

from simstudy.catalog import get_study
from simstudy.cli import main
from simstudy.errors import SimstudyError
from simstudy.merging import merge_stores
from simstudy.params import check_shard

# tables(path): (rows, sha256) of the trials and results tables without the timing columns
from simstudy.perf.cluster import tables
from simstudy.runner import run_study
from simstudy.shard import assign, units
from simstudy.store import Store


@pytest.fixture(scope="module")
def demo():
    return get_study("demo", runs=4, chunk=2)


def _run(path, study, **kw):
    with Store(path) as st:
        return run_study(study, st, backend="serial", progress=False, **kw)


@pytest.fixture(scope="module")
def single(demo, tmp_path_factory):
    path = tmp_path_factory.mktemp("single") / "single.sqlite"
    _run(path, demo)
    return path


@pytest.fixture(scope="module")
def shards(demo, tmp_path_factory):
    d = tmp_path_factory.mktemp("shards")
    paths = [d / f"shard{i}.sqlite" for i in (1, 2, 3, 4)]
    for i, p in enumerate(paths, 1):
        _run(p, demo, shard=(i, 4))
    return paths


@pytest.mark.parametrize("module", ["simstudy.shard", "simstudy.merging"])
def test_docstring_examples_run(module):
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 0


def test_check_shard_names_the_bad_value():
    assert check_shard("3/4") == (3, 4) and check_shard((3, 4)) == (3, 4)
    for bad in ("0/4", "5/4", "1", "a/b", "1/0", "1/2/3", (0, 2), (3, 2), (1.5, 2), (True, 2), 3):
        with pytest.raises(SimstudyError, match=r"^shard must be I/N.*got " + re.escape(repr(bad))):
            check_shard(bad)


def test_split_is_contiguous_complete_and_cost_balanced(demo):
    owner = assign(demo, 4)
    us = units(demo)
    assert set(owner) == {u.id for u in us}
    seq = [owner[u.id] for u in us]
    assert seq == sorted(seq) and set(seq) == {1, 2, 3, 4}  # contiguous in canonical order
    assert assign(demo, 4) == owner  # nothing but the study decides
    assert set(assign(demo, 40).values()) <= set(range(1, 41))  # more shards than units


def test_measured_costs_move_the_cut(demo, single):
    """Measured seconds per trial (a pilot store) replace the shape estimate."""
    con = sqlite3.connect(single)
    with con:  # make the iris cells look 50x as costly as the wine cells
        con.execute("UPDATE trials SET seconds = CASE WHEN cell LIKE 'iris/%' THEN 5.0 "
                    "ELSE 0.1 END")
    con.close()
    owner = assign(demo, 2, costs=single)
    iris = [owner[u.id] for u in units(demo) if u.cell.startswith("iris/")]
    assert set(iris) == {1, 2}  # the costly iris units alone fill both halves


def test_shards_merge_to_the_single_run_tables(demo, single, shards, tmp_path):
    counts = [Store(p, readonly=True).count() for p in shards]
    assert sum(counts) == len(demo.cells) * demo.runs and all(counts)
    s = merge_stores(tmp_path / "all.sqlite", shards)
    assert s.trials == sum(counts) and s.overlapping == 0
    assert tables(tmp_path / "all.sqlite") == tables(single)
    assert "shards 1/4, 2/4, 3/4, 4/4" in s.studies[0] and "24 of 24 trials" in s.studies[0]
    # an input given twice over (two copies of one shard) overlaps, identically
    copy = tmp_path / "copy.sqlite"
    shutil.copy(shards[0], copy)
    s2 = merge_stores(tmp_path / "twice.sqlite", [*shards, copy])
    assert s2.overlapping == counts[0]
    assert tables(tmp_path / "twice.sqlite") == tables(single)
    # the merged store reports and resumes like any other: nothing left to compute
    assert _run(tmp_path / "all.sqlite", demo).trials_computed == 0


def test_missing_shard_is_named_and_a_run_completes_the_merge(demo, single, shards, tmp_path):
    s = merge_stores(tmp_path / "part.sqlite", shards[:3])
    assert "(missing 4/4)" in s.studies[0]
    assert _run(tmp_path / "part.sqlite", demo).trials_computed == Store(
        shards[3], readonly=True).count()
    assert tables(tmp_path / "part.sqlite") == tables(single)


def test_cli_shard_and_merge(demo, single, tmp_path, capsys):
    args = ["--runs", "4", "--chunk", "2", "--backend", "serial", "--no-progress"]
    for i in (1, 2):
        assert main(["run", "demo", "--shard", f"{i}/2", "--store", str(tmp_path / f"{i}.sqlite"),
                     *args]) == 0
    out = capsys.readouterr().out
    assert "demo shard 1/2:" in out and "demo shard 2/2:" in out and "merge OUT" in out
    assert main(["merge", str(tmp_path / "m.sqlite"), str(tmp_path / "1.sqlite"),
                 str(tmp_path / "2.sqlite")]) == 0
    assert "wrote" in capsys.readouterr().out
    assert tables(tmp_path / "m.sqlite") == tables(single)
    assert main(["run", "demo", "--shard", "3/2", "--store", str(tmp_path / "x.sqlite")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "'3/2'" in err
    assert not (tmp_path / "x.sqlite").exists()


def test_gzip_snapshot_input(demo, single, shards, tmp_path):
    gz = tmp_path / "s1.sqlite.gz"
    with Store(shards[0], readonly=True) as st:
        st.snapshot(gz)
    merge_stores(tmp_path / "m.sqlite", [gz, *shards[1:]])
    assert tables(tmp_path / "m.sqlite") == tables(single)
    assert gzip.open(gz).read(16).startswith(b"SQLite format 3")


def _refused(tmp_path, inputs, match):
    out = tmp_path / "out.sqlite"
    with pytest.raises(SimstudyError, match=match):
        merge_stores(out, inputs)
    assert not out.exists()  # complete or absent
    assert not [p for p in tmp_path.iterdir() if ".merging" in p.name or ".unpacked" in p.name]


def test_refuses_different_definitions_and_seeds(demo, shards, tmp_path):
    _run(tmp_path / "more.sqlite", demo.replace(runs=6), shard=(2, 4))
    _refused(tmp_path, [shards[0], tmp_path / "more.sqlite"],
             r"runs per cell 4 in .*shard1.sqlite' but 6 in .*more.sqlite'")
    _run(tmp_path / "seed.sqlite", demo.replace(seed=7), shard=(2, 4))
    _refused(tmp_path, [shards[0], tmp_path / "seed.sqlite"], r"root seed\(s\) \[0\] .* \[7\]")
    _run(tmp_path / "grid.sqlite", demo.select("iris"), shard=(2, 4))
    _refused(tmp_path, [shards[0], tmp_path / "grid.sqlite"], r"grid of cells .*6 vs 3 cells")


def test_refuses_other_statistics_version(demo, shards, tmp_path, monkeypatch):
    import simstudy.store

    monkeypatch.setattr(simstudy.store, "stats_version", lambda: "0123456789ab")
    _run(tmp_path / "other.sqlite", demo, shard=(2, 4))
    _refused(tmp_path, [shards[0], tmp_path / "other.sqlite"],
             r"statistics version '.*' in .* but '0123456789ab'")


def test_refuses_a_trial_that_differs(shards, tmp_path):
    bad = tmp_path / "tampered.sqlite"
    shutil.copy(shards[1], bad)
    con = sqlite3.connect(bad)
    with con:
        cell, run = con.execute("SELECT cell, run FROM trials ORDER BY cell, run").fetchone()
        con.execute("UPDATE trials SET errors = replace(errors, '0.', '0.5') WHERE cell=? "
                    "AND run=?", (cell, run))
    con.close()
    _refused(tmp_path, [shards[1], bad],
             rf"trial \(cell='{cell}', seed=0, run={run}\) differs between .*shard2.sqlite' "
             r"and .*tampered.sqlite' in errors")


def test_refuses_bad_outputs_and_inputs(shards, tmp_path):
    (tmp_path / "exists.sqlite").write_bytes(b"")
    with pytest.raises(SimstudyError, match="exists"):
        merge_stores(tmp_path / "exists.sqlite", shards)
    with pytest.raises(SimstudyError, match="given twice"):
        merge_stores(tmp_path / "o.sqlite", [shards[0], shards[0]])
    with pytest.raises(SimstudyError, match="does not exist"):
        merge_stores(tmp_path / "o.sqlite", [tmp_path / "nope.sqlite"])
    assert not (tmp_path / "o.sqlite").exists()


def test_old_store_resumes_with_its_columns_and_merges(tmp_path):
    """A store of the previous version: a run adds the leases table and records its facts
    in args (no column of trials, results or runs changes); merge takes it as it is."""
    from pathlib import Path

    old = tmp_path / "old.sqlite"
    shutil.copyfile(Path(__file__).parent / "fixtures" / "old_store.sqlite", old)

    def columns(path):
        con = sqlite3.connect(path)
        cols = {t: con.execute(f"PRAGMA table_info({t})").fetchall()
                for t in ("trials", "results", "runs")}
        con.close()
        return cols

    before = columns(old)
    study = get_study("demo", runs=4, chunk=2).select("wine/max~nmc")
    s = _run(old, study)
    assert s.trials_computed > 0 and "definition" not in s.execution
    assert columns(old) == before
    with Store(old, readonly=True) as st:
        import json

        args = json.loads(st.runs_log()["args"].iloc[-1])
        assert args["definition"]["grid"] and args["execution"]["trials_by_other_runs"] == 0
        assert st.con.execute("SELECT COUNT(*) FROM leases").fetchone()[0] == 0
        n = st.count()
    m = merge_stores(tmp_path / "m.sqlite", [old])
    assert m.trials == n


def test_filtered_selections_of_one_study_merge(single, tmp_path):
    """One store per part of a study (``--filter iris*`` here, ``wine*`` there) merges into
    the tables of a single whole run; a part whose recorded grid the registered study does
    not give under its filter (a changed study) is still refused."""
    import simstudy as ss

    parts = []
    for filt in ("iris*", "wine*"):
        p = tmp_path / f"{filt[:4]}.sqlite"
        ss.run("demo", runs=4, chunk=2, filter=filt, store=p, backend="serial",
               progress=False, render="none")
        parts.append(p)
    summary = merge_stores(tmp_path / "m.sqlite", parts)
    assert tables(tmp_path / "m.sqlite") == tables(single)
    assert any("4 runs x 6 cells): 24 of 24 trials" in line for line in summary.studies)
    changed = tmp_path / "changed.sqlite"
    shutil.copy(parts[1], changed)
    con = sqlite3.connect(changed)
    with con:
        con.execute("UPDATE runs SET args = replace(args, '\"cells\": 3', '\"cells\": 2')")
        con.execute("UPDATE runs SET args = replace(args, '\"grid\": \"', '\"grid\": \"0')")
    con.close()
    _refused(tmp_path, [parts[0], changed], r"grid of cells .*3 vs 2 cells")
