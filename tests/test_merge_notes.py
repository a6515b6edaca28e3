"""Merging shards computed by another simstudy version or learner implementation says so:
in merge's output, in the merged store's run log and in ``report``."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing

from simstudy.catalog import get_study
from simstudy.cli import main
from simstudy.merging import merge_stores
from simstudy.runner import run_study
from simstudy.store import Store


def _shards(tmp_path):
    demo = get_study("demo", runs=4, chunk=1).select("iris/max~nmc")
    paths = []
    for i in (1, 2):
        p = tmp_path / f"shard{i}.sqlite"
        with Store(p) as st:
            run_study(demo, st, backend="serial", progress=False, shard=(i, 2))
        paths.append(p)
    return paths


def test_merge_notes_other_versions_and_implementations(tmp_path, capsys):
    a, b = _shards(tmp_path)
    with closing(sqlite3.connect(a)) as con:
        assert con.execute("SELECT COUNT(*) FROM trials").fetchone()[0] > 0
    with Store(a, readonly=True) as st:
        assert st.mixed() == []
    with closing(sqlite3.connect(b)) as con, con:  # shard 2 as another install made it
        (impl,) = con.execute("SELECT impl FROM trials LIMIT 1").fetchone()
        other = json.dumps([json.loads(impl)[0], "mypkg.learners:MyNMC"])
        con.execute("UPDATE trials SET version='0.0.9', impl=?", (other,))
        n = con.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
    s = merge_stores(tmp_path / "all.sqlite", [a, b])
    # reading the inputs left nothing beside them
    assert sorted(x.name for x in tmp_path.iterdir()) == [
        "all.sqlite", "shard1.sqlite", "shard2.sqlite"]
    notes = [x for x in s.notes if "versions" in x or "implementations" in x]
    assert len(notes) == 2
    assert f"2 simstudy versions (0.0.9: {n:,}" in notes[0]
    assert "learner 'nmc' fitted by 2 implementations" in notes[1]
    assert f"mypkg.learners:MyNMC: {n:,} trial-fits" in notes[1]
    with Store(tmp_path / "all.sqlite", readonly=True) as st:
        log = st.runs_log()
        assert json.loads(log["args"].iloc[-1])["notes"] == notes
        assert notes[0] in log["message"].iloc[-1]
        assert st.mixed("demo") == [x.removeprefix("note: ") for x in notes]
    capsys.readouterr()
    assert main(["report", "demo", "--store", str(tmp_path / "all.sqlite"), "--runs", "4",
                 "--filter", "iris/max~nmc"]) == 0
    err = capsys.readouterr().err
    assert "simstudy: warning: study 'demo': trials computed by 2 simstudy versions" in err
    assert "simstudy: warning: study 'demo': learner 'nmc' fitted by 2 implementations" in err
