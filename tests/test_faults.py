"""Every fault of the machine named for what it is, in one line with exit status 2, and
nothing half-written: a full disk, a read-only file or mount, a lock, a truncated, damaged
or foreign store, a newer schema, a killed run, a lost Dask scheduler; and read-only
commands leave no -wal/-shm files beside the store."""

from __future__ import annotations

import contextlib
import errno
import multiprocessing as mp
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import pandas as pd
import pytest

from simstudy.cli import guarded
from simstudy.errors import fault
from simstudy.store import Store

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "simstudy", *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=600)


def _one_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def _guarded(fn, capsys) -> tuple[int, str]:
    rc = guarded(fn)
    return rc, _one_line(capsys.readouterr().err)


def _store_with_pages(path: Path, n: int = 200) -> Path:
    """A store with some pages beyond the schema's (run-log rows with long arguments)."""
    with Store(path) as st:
        for i in range(n):
            st.start_run("demo", {"pad": "x" * 2000, "i": i})
    return path


# --- full disk ------------------------------------------------------------------------------

def test_full_store_is_named_disk_full(tmp_path, capsys):
    st = Store(tmp_path / "s.sqlite")
    pages = st.con.execute("PRAGMA page_count").fetchone()[0]
    st.con.execute(f"PRAGMA max_page_count={pages}")  # SQLite's own SQLITE_FULL
    rc, line = _guarded(lambda: st.start_run("demo", {"pad": "x" * 100_000}), capsys)
    assert rc == 2 and "no space left on the device (disk full)" in line
    assert "damaged" not in line and "not a simstudy store" not in line
    st.close()


def _enospc(monkeypatch):
    """Every table write fills the disk half way through its file."""
    def full(self, *a, **k):
        path = Path(a[0] if a else k.get("path_or_buf", self))
        Path(path).write_bytes(b"half")
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(pd.DataFrame, "to_csv", full)
    real = Path.write_text

    def full_text(self, text, *a, **k):
        real(self, text[: len(text) // 2], *a, **k)
        raise OSError(errno.ENOSPC, "No space left on device", str(self))

    monkeypatch.setattr(Path, "write_text", full_text)


def test_tables_on_a_full_disk_are_whole_or_absent(tmp_path, monkeypatch, capsys):
    from simstudy.report.tables import write_table

    df = pd.DataFrame({"cell": ["a"], "rate": [0.25]})
    old = write_table(df, tmp_path / "kept", "demo")
    before = {p.name: p.read_bytes() for p in old}
    _enospc(monkeypatch)
    rc, line = _guarded(lambda: write_table(df.assign(rate=0.5), tmp_path / "kept", "demo"),
                        capsys)
    assert rc == 2 and "no space left on the device (disk full)" in line
    assert {p.name: p.read_bytes() for p in (tmp_path / "kept").iterdir()} == before
    rc, line = _guarded(lambda: write_table(df, tmp_path / "new", "demo"), capsys)
    assert rc == 2 and list((tmp_path / "new").iterdir()) == []  # no 0-byte demo.csv/.md


# --- read-only, locked, foreign, newer ---------------------------------------------------

def test_read_only_store_and_folder_named(tmp_path, capsys):
    p = _store_with_pages(tmp_path / "s.sqlite", 1)
    # tests run as root, whom chmod does not stop: SQLite's read-only open is the same fault
    con = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True)

    def write():
        with con:
            con.execute("DELETE FROM runs")

    rc, line = _guarded(write, capsys)
    assert rc == 2 and "it cannot be written: a read-only file, folder or mount" in line
    con.close()
    for code, words in ((errno.EROFS, "the file system is mounted read-only"),
                        (errno.EACCES, "permission denied")):
        def out(code=code):
            raise OSError(code, os.strerror(code), str(tmp_path / "out" / "demo.md"))
        rc, line = _guarded(out, capsys)
        assert rc == 2 and words in line and "demo.md" in line


def test_locked_store_named(tmp_path, capsys):
    p = _store_with_pages(tmp_path / "s.sqlite", 1)
    holder = sqlite3.connect(p, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    other = sqlite3.connect(p, timeout=0)

    def write():
        with other:
            other.execute("DELETE FROM runs")

    rc, line = _guarded(write, capsys)
    assert rc == 2 and "locked by another process" in line
    holder.execute("ROLLBACK")
    holder.close()
    other.close()


def test_foreign_and_newer_named(tmp_path):
    from simstudy.errors import SimstudyError

    foreign = tmp_path / "f.sqlite"
    foreign.write_bytes(b"PK\x03\x04 not a database " * 100)
    for ro in (True, False):
        with pytest.raises(SimstudyError, match="not a SQLite database \\(a foreign file\\)"):
            Store(foreign, readonly=ro)
    p = _store_with_pages(tmp_path / "s.sqlite", 1)
    with sqlite3.connect(p) as con:
        con.execute("UPDATE meta SET value='9' WHERE key='schema_version'")
    with pytest.raises(SimstudyError, match="schema version 9, newer than this simstudy"):
        Store(p, readonly=True)


# --- truncated and damaged stores: report, snapshot, migrate ------------------------------

def _truncated(tmp_path: Path) -> Path:
    p = _store_with_pages(tmp_path / "t.sqlite")
    size = p.stat().st_size
    with open(p, "r+b") as f:
        f.truncate(size // 2)
    return p


def _overwritten(tmp_path: Path) -> Path:
    p = _store_with_pages(tmp_path / "d.sqlite")
    with open(p, "r+b") as f:  # same size, a page in the middle overwritten
        f.seek(p.stat().st_size // 2 // 4096 * 4096)
        f.write(b"\xa5" * 4096)
    return p


def test_truncated_store(tmp_path):
    p = _truncated(tmp_path)
    q = _cli("snapshot", "copy.sqlite", "--store", str(p), cwd=tmp_path)
    line = _one_line(q.stderr)
    assert q.returncode == 2 and "is truncated" in line and "bytes, its header says" in line
    assert not (tmp_path / "copy.sqlite").exists()
    q = _cli("migrate", "--store", str(p), cwd=tmp_path)
    assert q.returncode == 2 and "is truncated" in _one_line(q.stderr)
    assert "already" not in q.stdout


def test_damaged_store_not_snapshot_nor_migrated(tmp_path):
    p = _overwritten(tmp_path)
    q = _cli("migrate", "--store", str(p), cwd=tmp_path)
    line = _one_line(q.stderr)
    assert q.returncode == 2 and "is damaged" in line and "not migrated" in line
    assert "already at schema version" not in q.stdout
    q = _cli("snapshot", "copy.sqlite.gz", "--store", str(p), cwd=tmp_path)
    assert q.returncode == 2 and "is damaged" in _one_line(q.stderr)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["d.sqlite"]


# --- a killed run ----------------------------------------------------------------------------

def _killed_run(path: str) -> None:
    st = Store(path)
    st.start_run("demo", {"runs": 5})
    os.kill(os.getpid(), signal.SIGKILL)


def test_killed_run_reads_interrupted(tmp_path):
    p = tmp_path / "s.sqlite"
    Store(p).close()
    child = mp.get_context("fork").Process(target=_killed_run, args=(str(p),))
    child.start()
    child.join(60)
    assert child.exitcode == -signal.SIGKILL
    with Store(p, readonly=True) as st:
        r = st.runs_log().iloc[-1]
        raw = st.con.execute("SELECT status FROM runs").fetchone()[0]
    assert raw == "running"  # a reader cannot change the store, but it reads it right:
    assert r["status"] == "interrupted" and r["trials_done"] == 0
    assert f"process {child.pid}" in r["message"] and "ended without recording" in r["message"]
    with Store(p) as st:  # the next run records it
        st.start_run("demo", {})
        assert [x[0] for x in st.con.execute("SELECT status FROM runs ORDER BY id")] == [
            "interrupted", "running"]


def test_a_live_run_stays_running(tmp_path):
    with Store(tmp_path / "s.sqlite") as st:
        st.start_run("demo", {})
        assert st.runs_log()["status"].tolist() == ["running"]


# --- read-only commands leave no -wal / -shm -----------------------------------------------

def test_read_only_opens_leave_no_wal_files(tmp_path):
    p = _store_with_pages(tmp_path / "s.sqlite", 3)
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.sqlite"]
    with Store(p, readonly=True) as st:
        assert st.count() == 0 and len(st.runs_log()) == 3
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.sqlite"]
    q = _cli("report", "demo", "--store", str(p), cwd=tmp_path)  # refuses: no trials
    assert q.returncode == 2
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.sqlite"]
    with Store(p) as writer:  # a writer's files stay while it is open
        writer.start_run("demo", {})
        with Store(p, readonly=True) as st:
            assert len(st.runs_log()) == 4
        assert Path(f"{p}-wal").exists()
        writer.start_run("demo", {})
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.sqlite"]


# --- a lost Dask scheduler ----------------------------------------------------------------

def wait_until_stored(path: Path, n: int, seconds: float) -> None:
    """Return once the store at ``path`` holds ``n`` trials (or ``seconds`` have passed)."""
    t0 = time.time()
    while time.time() - t0 < seconds:
        time.sleep(0.1)
        with closing(sqlite3.connect(path, timeout=30)) as con:
            if con.execute("SELECT COUNT(*) FROM trials").fetchone()[0] >= n:
                return


def test_lost_dask_scheduler_is_one_line(tmp_path):
    pytest.importorskip("distributed")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    addr = f"tcp://127.0.0.1:{port}"
    sched = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host",
                              "127.0.0.1", "--port", str(port), "--no-dashboard"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", addr,
                               "--nthreads", "1", "--no-dashboard"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=ENV)
    store = tmp_path / "s.sqlite"
    Store(store).close()

    def kill_after_some_trials() -> None:
        wait_until_stored(store, 2, 300)
        sched.kill()

    try:
        killer = threading.Thread(target=kill_after_some_trials, daemon=True)
        killer.start()
        q = _cli("run", "demo", "--runs", "400", "--filter", "iris/nmc~1nn", "--chunk", "1",
                 "--store", str(store), "--backend", "dask", "--scheduler", addr,
                 "--no-progress", "--no-render", cwd=tmp_path)
    finally:
        sched.kill()
        worker.kill()
    line = _one_line(q.stderr)
    assert q.returncode == 2 and f"lost the Dask scheduler {addr}" in line
    assert "rerun the same command to resume" in line
    with Store(store, readonly=True) as st:
        assert st.runs_log()["status"].iloc[-1] == "failed" and st.count() >= 2


def test_fault_is_none_for_other_errors():
    assert fault(ValueError("x")) is None
    assert fault(OSError(errno.ENOENT, "No such file")) is None
    assert fault(sqlite3.OperationalError("no such table: x")) is None


# --- faults SQLite reports as "unable to open" or an I/O error ------------------------------

def _statvfs(flag: int = 0, free_blocks: int = 10**6):
    real = os.statvfs

    def fake(path):
        s = real(path)
        return os.statvfs_result((s.f_bsize, 4096, s.f_blocks, free_blocks, free_blocks,
                                  s.f_files, s.f_ffree, s.f_favail, flag, s.f_namemax))
    return fake


@pytest.mark.parametrize("flag, free, said", [
    (os.ST_RDONLY, 10**6, "the file system is mounted read-only"),
    (0, 0, "no space left on the device (disk full)"),
    (0, 10**6, "an input/output error reading or writing it"),
])
def test_an_io_error_is_named_by_the_place_of_the_file(tmp_path, monkeypatch, flag, free, said):
    """SQLite says "disk I/O error" when it cannot make a store's -shm file on a full disk,
    "unable to open" on a read-only mount: the folder says which."""
    e = sqlite3.OperationalError("disk I/O error")
    e.sqlite_errorname = "SQLITE_IOERR_TRUNCATE"
    monkeypatch.setattr(os, "statvfs", _statvfs(flag, free))
    line = fault(e, "store 's'", tmp_path / "s.sqlite")
    assert line == f"store 's': {said}" + (
        "; free space and rerun (what was stored before is kept)" if free == 0 else "")
    assert fault(e, "store 's'") == "store 's': an input/output error reading or writing it"


def _unprivileged() -> list[str]:
    """A prefix that runs a command without root's power over file permissions."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("root without setpriv: permissions are not enforced")
    return ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner"]


def test_a_store_in_a_read_only_folder_is_read(tmp_path):
    """A WAL store in a folder no one may write: read as it is (no -shm can be made)."""
    d = tmp_path / "ro"
    d.mkdir()
    p = _store_with_pages(d / "s.sqlite", 3)
    with Store(p) as st:  # left in WAL mode, as a run leaves it
        assert st.con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    d.chmod(0o555)
    try:
        code = ("from simstudy.store import Store; import sys; "
                "st = Store(sys.argv[1], readonly=True); print(len(st.runs_log()))")
        q = subprocess.run([*_unprivileged(), sys.executable, "-c", code, str(p)], env=ENV,
                           capture_output=True, text=True, timeout=120)
        w = subprocess.run([*_unprivileged(), sys.executable, "-m", "simstudy", "run", "demo",
                            "--runs", "1", "--store", str(p), "--no-render"], env=ENV,
                           capture_output=True, text=True, timeout=300, cwd=tmp_path)
        copies = [subprocess.run([*_unprivileged(), sys.executable, "-m", "simstudy", *args],
                                 env=ENV, capture_output=True, text=True, timeout=300,
                                 cwd=tmp_path)
                  for args in (["snapshot", "c.sqlite", "--store", str(p)],
                               ["merge", "m.sqlite", str(p)])]
    finally:
        d.chmod(0o755)
    assert q.returncode == 0 and q.stdout.split() == ["3"], q.stderr
    assert [c.returncode for c in copies] == [0, 0], [c.stderr for c in copies]
    for c in ("c.sqlite", "m.sqlite"):
        with Store(tmp_path / c, readonly=True) as st:
            assert len(st.runs_log()) == 3 + (c == "m.sqlite")  # merge records itself
    assert w.returncode == 2 and "read-only" in _one_line(w.stderr), w.stderr
    assert sorted(x.name for x in d.iterdir()) == ["s.sqlite"]


def test_a_run_that_cannot_open_its_store_leaves_no_output_folder(tmp_path):
    import simstudy as ss
    from simstudy.errors import SimstudyError

    bad = tmp_path / "notes.txt"
    bad.write_text("not a store\n" * 100)
    with pytest.raises(SimstudyError, match="not a SQLite database"):
        ss.run("demo", runs=1, filter="iris/nmc~1nn", store=bad, out=tmp_path / "a" / "b",
               progress=False)
    assert not (tmp_path / "a").exists()
    (tmp_path / "kept").mkdir()  # a folder that was there stays
    with pytest.raises(SimstudyError):
        ss.run("demo", runs=1, filter="iris/nmc~1nn", store=bad, out=tmp_path / "kept",
               progress=False)
    assert (tmp_path / "kept").is_dir()


def test_a_store_on_a_full_mount_is_named_disk_full(tmp_path):
    """A real 2 MiB tmpfs, filled (needs root to mount; skipped elsewhere)."""
    m = tmp_path / "disk"
    m.mkdir()
    if os.geteuid() != 0 or subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(m)],
            capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    try:
        p = _store_with_pages(m / "s.sqlite", 3)
        free = os.statvfs(m).f_bavail * os.statvfs(m).f_frsize
        with contextlib.suppress(OSError), open(m / "filler", "wb") as f:
            f.write(b"\0" * free)
        q = _cli("run", "demo", "--runs", "1", "--store", str(p), "--no-render",
                 cwd=tmp_path)
        assert q.returncode == 2
        assert "no space left on the device (disk full)" in _one_line(q.stderr), q.stderr
    finally:
        subprocess.run(["umount", "-l", str(m)], check=False)


def test_a_run_on_another_host_with_expired_leases_reads_stale(tmp_path):
    """This host cannot look at another's processes: a run there whose leases all expired
    (it stopped renewing them) reads as stale, one with a live lease stays running."""
    import json

    from simstudy.lease import Leases

    p = tmp_path / "s.sqlite"
    with Store(p) as st:
        ids = [st.start_run("demo", {}) for _ in range(3)]
        Leases(p, ids[0]).close()  # makes the leases table
        with st.con:
            for rid, expires in ((ids[0], time.time() - 5), (ids[1], time.time() + 60)):
                st.con.execute("UPDATE runs SET host='elsewhere', args=? WHERE id=?",
                               (json.dumps({"pid": 4242}), rid))
                st.con.execute("INSERT INTO leases VALUES (?,?,?)",
                               (f"unit{rid}", f"elsewhere:4242:{rid}:abcd", expires))
            st.con.execute("UPDATE runs SET host='elsewhere', args=? WHERE id=?",
                           (json.dumps({"pid": 4243}), ids[2]))  # no lease: no evidence
    with Store(p, readonly=True) as st:
        log = st.runs_log().set_index("id")
    assert log.loc[ids[0], "status"] == "stale"
    assert "leases expired" in log.loc[ids[0], "message"]
    assert "process 4242 on elsewhere" in log.loc[ids[0], "message"]
    assert log.loc[ids[1], "status"] == "running" and log.loc[ids[2], "status"] == "running"


@pytest.mark.parametrize("command, said", [
    ("report", "this command stores nothing: rerun it to start again"),
    ("card", "this command stores nothing: rerun it to start again"),
    ("merge", "this command stores nothing: rerun it to start again"),
    ("run", "finished trials are stored, rerun to resume"),
    ("demo", "finished trials are stored, rerun to resume"),  # short for run demo
])
def test_ctrl_c_before_a_command_starts_says_what_it_keeps(command, said, monkeypatch, capsys):
    """Ctrl-C while the command line is still read (imports, a loaded machine): a card or
    a report stores nothing, so "rerun to resume" would be wrong there."""
    import simstudy.cli as cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main([command, "x"]) == 130
    assert _one_line(capsys.readouterr().err) == f"simstudy: interrupted; {said}"


def test_a_read_only_store_file_is_read_without_leaving_wal_files(tmp_path):
    """A WAL store chmod 444 in a writable folder: read, and no -wal/-shm left (SQLite's
    read-only open makes them and could not remove them)."""
    p = _store_with_pages(tmp_path / "s.sqlite", 3)
    p.chmod(0o444)
    code = ("from simstudy.store import Store; import sys; "
            "st = Store(sys.argv[1], readonly=True); print(len(st.runs_log())); st.close()")
    q = subprocess.run([*_unprivileged(), sys.executable, "-c", code, str(p)], env=ENV,
                       capture_output=True, text=True, timeout=120)
    assert q.returncode == 0 and q.stdout.split() == ["3"], q.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.sqlite"]


def test_a_run_on_a_read_only_store_file_is_named_and_leaves_no_wal_files(tmp_path):
    """``run`` into a WAL store chmod 444: refused at its first write with the read-only
    fault named, exit 2, and the -wal/-shm files its open made are gone again."""
    p = _store_with_pages(tmp_path / "s.sqlite", 3)
    p.chmod(0o444)
    q = subprocess.run([*_unprivileged(), sys.executable, "-m", "simstudy", "run", "demo",
                        "--runs", "2", "--store", str(p), "--no-render", "--no-progress"],
                       env=ENV, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert q.returncode == 2 and "read-only" in q.stderr and "Traceback" not in q.stderr
    assert sorted(x.name for x in tmp_path.iterdir()) == ["s.sqlite"]


def test_sigterm_once_a_run_is_recorded_is_said_and_recorded(tmp_path):
    """SIGTERM in the moment between the run's record and its first trial (planning the
    results, starting workers): one line, exit 130, the run log says interrupted."""
    p = tmp_path / "s.sqlite"
    Store(p).close()
    q = subprocess.Popen([sys.executable, "-m", "simstudy", "run", "demo", "--runs", "400",
                          "--filter", "iris/nmc~1nn", "--store", str(p), "--no-render",
                          "--backend", "serial"], env=ENV, cwd=tmp_path,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    t0 = time.time()
    while q.poll() is None and time.time() - t0 < 300:
        with Store(p, readonly=True) as st:
            if len(st.runs_log()):
                break
        time.sleep(0.01)
    q.send_signal(signal.SIGTERM)
    _, err = q.communicate(timeout=300)
    assert q.returncode == 130, err
    assert _one_line(err).startswith("simstudy: interrupted; "), err
    with Store(p, readonly=True) as st:
        assert st.runs_log()["status"].tolist() == ["interrupted"]


def test_dask_cancel_noise_is_dropped_other_tornado_errors_kept():
    """Ctrl-C during a wait on the Dask scheduler makes Dask's own cancel callback fail in
    tornado's log (seen in the signal sweep as a traceback above the one line): that record
    is dropped, any other tornado error is kept."""
    import logging

    from simstudy.execute import _NoCancelNews

    def rec(msg):
        return logging.LogRecord("tornado.application", logging.ERROR, __file__, 1, msg,
                                 None, None)

    f = _NoCancelNews()
    assert not f.filter(rec("Exception in callback functools.partial(<function "
                            "sync.<locals>.cancel at 0x7fd9cd31ab60>)"))
    assert f.filter(rec("Exception in callback functools.partial(<function other>)"))


def test_a_closed_batched_comm_is_not_news_when_the_scheduler_goes():
    """SIGTERM to a Dask scheduler: ``distributed.batched`` logs "Batched Comm Closed" with
    a traceback (seen once in the kill sweep above the one line); the run's own line says
    the scheduler was lost, so that record is dropped; an unrelated record is kept."""
    import logging
    import sys as _sys

    pytest.importorskip("distributed")
    from distributed.comm.core import CommClosedError

    from simstudy.execute import _NoReconnectNews

    try:
        raise CommClosedError("in <TCP (closed) Client->Scheduler>")
    except CommClosedError:
        info = _sys.exc_info()
    closed = logging.LogRecord("distributed.batched", logging.INFO, __file__, 1,
                               "Batched Comm Closed <TCP (closed)>", None, info)
    other = logging.LogRecord("distributed.batched", logging.INFO, __file__, 1,
                              "something else", None, None)
    assert not _NoReconnectNews().filter(closed) and _NoReconnectNews().filter(other)
