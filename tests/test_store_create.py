"""Many processes creating one new store at the same moment all open it (no "database is
locked", no "not a simstudy store"): the store is made beside its name and linked into
place whole."""

from __future__ import annotations

import multiprocessing as mp
import sqlite3
from pathlib import Path

import pytest

PROCS, ROUNDS = 8, 25


def _opener(paths: list[str], barrier, out) -> None:
    from simstudy.store import SCHEMA_VERSION, Store

    failures = []
    for p in paths:
        barrier.wait()  # every process opens the same new path at once
        try:
            with Store(p) as st:
                assert st.con.execute("SELECT value FROM meta WHERE key='schema_version'"
                                      ).fetchone()[0] == str(SCHEMA_VERSION)
        except Exception as e:  # noqa: BLE001 - counted, named in the assertion
            failures.append(f"{type(e).__name__}: {e}")
    out.put(failures)


def test_concurrent_creation_of_one_store(tmp_path):
    paths = [str(tmp_path / f"s{i}.sqlite") for i in range(ROUNDS)]
    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(PROCS), ctx.Queue()
    procs = [ctx.Process(target=_opener, args=(paths, barrier, out)) for _ in range(PROCS)]
    for p in procs:
        p.start()
    failures = [f for _ in procs for f in out.get(timeout=300)]
    for p in procs:
        p.join(60)
    assert failures == [], f"{len(failures)} of {PROCS * ROUNDS} opens failed: {failures[:3]}"
    for p in paths:  # one store each, nothing left beside it
        con = sqlite3.connect(p)
        assert con.execute("SELECT COUNT(*) FROM meta").fetchone()[0] == 2
        con.close()
    left = sorted(x.name for x in Path(tmp_path).iterdir() if ".creating" in x.name)
    assert left == []


def test_an_empty_file_becomes_a_store(tmp_path):
    from simstudy.store import Store

    p = tmp_path / "empty.sqlite"
    p.touch()
    with Store(p) as st:
        assert st.count() == 0


@pytest.mark.parametrize("n", [1])
def test_creation_leaves_no_temporaries(tmp_path, n):
    from simstudy.store import Store

    with Store(tmp_path / "new.sqlite"):
        pass
    assert sorted(x.name for x in tmp_path.iterdir() if not x.name.startswith("new.sqlite")) == []
