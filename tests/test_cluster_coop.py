"""Runs that share a store split the work (leases), take over a dead run's units, and leave
no worker process behind when killed with SIGKILL."""

import json
import os
import platform
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_cluster import tables

from simstudy.catalog import get_study
from simstudy.runner import run_study
from simstudy.store import Store

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def demo():
    return get_study("demo", runs=16, chunk=2)


@pytest.fixture(scope="module")
def single(demo, tmp_path_factory):
    path = tmp_path_factory.mktemp("single") / "single.sqlite"
    with Store(path) as st:
        run_study(demo, st, backend="serial", progress=False)
    return path


def _session(sid: int) -> list[tuple[int, str]]:
    """Live processes of session ``sid`` (the run's, and any worker it started)."""
    out = []
    for p in os.listdir("/proc"):
        if not p.isdigit():
            continue
        try:
            stat = Path(f"/proc/{p}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[3]) == sid and fields[0] != "Z":  # zombies are dead already
            # the whole command line: cut at 80 bytes, a long interpreter path hid the
            # "resource_tracker" of loky's tracker, which was then taken for a worker
            out.append((int(p), Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ")
                        .decode(errors="replace")))
    return out


def _cli(args, **kw):
    return subprocess.Popen([sys.executable, "-m", "simstudy", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)


def _leased(path) -> int:
    try:
        with sqlite3.connect(path, timeout=30) as con:
            return con.execute("SELECT COUNT(*) FROM leases").fetchone()[0]
    except sqlite3.Error:
        return 0


def _lease(path, unit: str, owner: str, expires: float) -> None:
    from simstudy.store import LEASE_TABLE as _TABLE

    with Store(path):
        pass
    con = sqlite3.connect(path)
    with con:
        con.execute(_TABLE)
        con.execute("INSERT OR REPLACE INTO leases VALUES (?,?,?)", (unit, owner, expires))
    con.close()


def test_two_runs_on_one_store_split_the_work(demo, single, tmp_path, monkeypatch):
    """Two runs at once on one store (threads here: the same leases, separate connections)
    each compute part of the units and together every trial once."""
    import simstudy.execute

    # one unit per claim: this study's units take milliseconds, so a run would otherwise
    # claim half a second's worth -- all of them -- in its second claim
    monkeypatch.setattr(simstudy.execute, "CLAIM_SECONDS", 0.0)
    store = tmp_path / "shared.sqlite"
    with Store(store):
        pass
    got: list = [None, None]

    def run(i: int) -> None:
        with Store(store) as st:
            got[i] = run_study(demo, st, backend="serial", progress=False)

    threads = [threading.Thread(target=run, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    done = [s.trials_computed for s in got]
    assert sum(done) == len(demo.cells) * demo.runs and min(done) > 0, done  # none twice
    assert [s.execution["trials_by_other_runs"] for s in got] == done[::-1]
    con = sqlite3.connect(store)
    facts = [json.loads(r[0])["execution"]
             for r in con.execute("SELECT args FROM runs ORDER BY id")]
    assert sorted(f["trials_by_other_runs"] for f in facts) == sorted(done)
    assert con.execute("SELECT COUNT(*) FROM leases").fetchone()[0] == 0
    con.close()
    assert tables(store) == tables(single)


def test_a_dead_runs_units_are_taken_over(demo, single, tmp_path):
    """A lease of a process that is gone (this host) is taken at once; a live holder's
    lease on another host is waited for until it expires."""
    store = tmp_path / "s.sqlite"
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    _lease(store, "iris/lda~nmc/5x2|0|0:2", f"{platform.node()}:{gone}:1:x", time.time() + 600)
    _lease(store, "wine/max~nmc/5x2|0|2:4", "elsewhere:1:1:x", time.time() + 1.5)
    with Store(store) as st:
        s = run_study(demo, st, backend="serial", progress=False)
    assert s.trials_computed == len(demo.cells) * demo.runs
    assert s.execution["units_taken_over"] == 2
    assert tables(store) == tables(single)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_sigkill_leaves_no_worker_and_frees_its_leases(demo, single, tmp_path):
    store = tmp_path / "killed.sqlite"
    run = _cli(["run", "demo", "--runs", "3000", "--jobs", "2", "--no-progress",
                "--store", str(store), "--out", str(tmp_path / "out")], start_new_session=True)
    eof = threading.Event()
    threading.Thread(target=lambda: (run.stdout.read(), eof.set()), daemon=True).start()
    t0 = time.time()
    while len(_session(run.pid)) < 3 and time.time() - t0 < 120:  # the run and its workers
        time.sleep(0.2)
    while not _leased(store) and time.time() - t0 < 120:  # the workers hold leased units
        time.sleep(0.2)
    workers = _session(run.pid)
    assert len(workers) >= 3, workers
    os.kill(run.pid, signal.SIGKILL)
    run.wait()
    t1 = time.time()
    while _session(run.pid) and time.time() - t1 < 10:
        time.sleep(0.2)
    left = _session(run.pid)
    for pid, _ in left:  # do not leave them to the next test either
        os.kill(pid, signal.SIGKILL)
    assert not left, f"alive 10 s after SIGKILL of the run: {left}"
    assert eof.wait(1), "the run's stdout is still held open"
    # the dead run's leases are free at once for a rerun on this host (its process is gone)
    from simstudy.lease import FREE, Leases

    con = sqlite3.connect(store)
    held = con.execute("SELECT unit, owner FROM leases").fetchall()
    con.close()
    assert held and all(o.split(":")[1] == str(run.pid) for _, o in held)
    leases = Leases(store, run_id=0)
    try:
        assert leases.claim(held[0][0], lambda con: set(), (0,)) == (FREE, (0,))
        assert leases.taken_over == 1
    finally:
        leases.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
@pytest.mark.parametrize("spawn", ["", "1"], ids=["forked", "spawned"])
def test_a_killed_worker_is_one_line_and_a_failed_invocation(tmp_path, spawn):
    store = tmp_path / "w.sqlite"
    run = _cli(["run", "demo", "--runs", "3000", "--jobs", "2", "--no-progress",
                "--store", str(store), "--out", str(tmp_path / "out")], start_new_session=True,
               env=dict(os.environ, SIMSTUDY_SPAWN=spawn))

    def busy_workers() -> list[int]:
        """The run's children that have computed for 0.2 s (so not a resource tracker, nor a
        child forked a moment ago that has not yet become one)."""
        out = []
        for pid, cmd in _session(run.pid):
            try:
                stat = Path(f"/proc/{pid}/stat").read_text()
            except OSError:  # gone meanwhile
                continue
            f = stat[stat.rindex(")") + 2:].split()  # f[k - 3] is field k of proc(5)
            if (pid != run.pid and "resource_tracker" not in cmd and int(f[1]) == run.pid
                    and int(f[11]) + int(f[12]) >= 0.2 * os.sysconf("SC_CLK_TCK")):
                out.append(pid)
        return out

    t0 = time.time()
    while not (workers := busy_workers()) and time.time() - t0 < 120 and run.poll() is None:
        time.sleep(0.1)
    assert workers
    os.kill(workers[0], signal.SIGKILL)
    out = run.communicate(timeout=120)[0].decode()
    assert run.returncode == 1, out
    assert "simstudy: error: a worker process died while computing" in out
    assert "Traceback" not in out
    con = sqlite3.connect(store)
    status, message = con.execute("SELECT status, message FROM runs").fetchone()
    con.close()
    assert status == "failed" and message.startswith("RunFailed: a worker process died")
