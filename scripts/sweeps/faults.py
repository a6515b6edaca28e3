"""Faults injected from outside into small runs of the ``demo`` study and into copies of the
shipped trials, each judged as a user would see it: named for what it is in one line (or,
for a process killed outright, in the run log), no traceback, no committed trial lost, the
resumed table byte-identical to an uninterrupted run's, nothing left half-written.

    python scripts/sweeps/faults.py [--out figures/sweeps/faults.csv] [--only CATEGORY]

Categories: ``signal`` (SIGINT/SIGTERM/SIGHUP/SIGKILL to a run's parent with serial,
forked, loky and Dask workers, early and mid-run), ``kill`` (a worker, a Dask nanny, the Dask
scheduler, a merge/snapshot/export killed), ``full`` (a 2 MiB tmpfs mounted for the case:
needs root), ``readonly`` (a file or folder chmod-ed read-only, run with
CAP_DAC_OVERRIDE dropped through ``setpriv``, and a tmpfs remounted read-only), ``truncated``
(stores cut short, a foreign file, a newer schema), ``reads`` (reads while a run writes),
``shipped`` (damaged copies of figures/STUDY/trials under ``$SIMSTUDY_TRIALS``), ``create``
(600 concurrent opens of one new store).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import ENV, ROOT, Meter, count, judge, leftovers, named, row, run, simstudy, write_csv  # noqa: E402 - the folder is put on the path above

BASE_RUNS, RUNS = 4, 12
DEMO = ["demo", "--no-progress"]
BACKENDS = {"serial": (["--backend", "serial"], {}),
            "forked": (["--jobs", "2"], {}),
            "loky": (["--jobs", "2"], {"SIMSTUDY_SPAWN": "1"}),
            "dask": (["--backend", "dask", "--jobs", "2"], {})}
SETPRIV = ["setpriv", "--bounding-set=-dac_override,-dac_read_search,-fowner,-chown"]


def _run_argv(store: Path, out: Path, runs: int = RUNS, extra: list | None = None) -> list:
    return simstudy("run", *DEMO, "--runs", runs, "--store", store, "--out", out,
                    *(extra or []))


class Lab:
    """The shared material: a base store of BASE_RUNS runs, the reference table of an
    uninterrupted run of RUNS."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.base = tmp / "base.sqlite"
        r = run(simstudy("run", *DEMO, "--runs", BASE_RUNS, "--store", self.base,
                         "--no-render", "--backend", "serial"), cwd=tmp)
        assert r["rc"] == 0, r["stderr"]
        self.base_n = count(self.base)
        self.base_runs = 1
        ref = tmp / "ref.sqlite"
        shutil.copy(self.base, ref)
        r = run(_run_argv(ref, tmp / "ref", extra=["--backend", "serial"]), cwd=tmp)
        assert r["rc"] == 0, r["stderr"]
        self.ref_csv = (tmp / "ref" / "demo.csv").read_bytes()
        self.full_n = count(ref)
        self.ref_store = ref
        (tmp / "usertests.py").write_text(
            "def good(d, *, n_train, n_test):\n    return 0.0, 0.5\n")
        self.n = 0

    def case_dir(self, name: str) -> Path:
        self.n += 1
        d = self.tmp / f"c{self.n:03d}-{name.replace('/', '_')[:40]}"
        d.mkdir()
        return d

    def store_copy(self, d: Path) -> Path:
        s = d / "s.sqlite"
        shutil.copy(self.base, s)
        return s

    def resume(self, d: Path, s: Path) -> tuple[object, bool]:
        """Rerun to the end (serial): the table must be the reference's, byte for byte."""
        shutil.rmtree(d / "out", ignore_errors=True)
        r = run(_run_argv(s, d / "out", extra=["--backend", "serial"]), cwd=d)
        t = d / "out" / "demo.csv"
        return r["rc"], t.is_file() and t.read_bytes() == self.ref_csv


def descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            for t in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{t}/children") as f:
                    kids = [int(x) for x in f.read().split()]
                out += kids
                todo += kids
        except OSError:
            pass
    return out


def alive(pids: list[int]) -> list[int]:
    left = []
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    left.append(p)
        except OSError:
            pass
    return left


def wait_count(store: Path, n: int, proc: subprocess.Popen, seconds: float = 120) -> bool:
    t0 = time.time()
    while time.time() - t0 < seconds and proc.poll() is None:
        c = count(store)
        if c is not None and c >= n:
            return True
        time.sleep(0.05)
    return False


def runlog_status(store: Path) -> tuple[int, str]:
    """The number of runs the store's log holds, and the status of the last."""
    from simstudy.store import Store

    try:
        with Store(store, readonly=True) as st:
            log = st.runs_log()
            return len(log), str(log["status"].iloc[-1])
    except Exception as e:  # noqa: BLE001 - recorded
        return 0, f"unreadable: {e}"


def finish(proc: subprocess.Popen, t0: float, timeout: float = 120) -> dict:
    try:
        _, err = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        rc = "hung"
    return judge(rc, err, time.time() - t0)


# --- signals to a run's parent ------------------------------------------------------------

EXPECT_SIGNAL = {signal.SIGINT: (130, ("interrupted", "rerun to resume")),
                 signal.SIGTERM: (None, ("interrupted", "terminated")),
                 signal.SIGHUP: (-signal.SIGHUP, ()),
                 signal.SIGKILL: (-signal.SIGKILL, ())}


def signal_case(lab: Lab, backend: str, sig: int, when: str, twice: bool = False) -> dict:
    name = f"{signal.Signals(sig).name} {when} {backend}" + (" twice" if twice else "")
    d = lab.case_dir(f"sig-{backend}-{sig}-{when}")
    s = lab.store_copy(d)
    opts, env = BACKENDS[backend]
    argv = _run_argv(s, d / "out", extra=opts)
    t0 = time.time()
    p = subprocess.Popen(argv, cwd=d, env={**ENV, **env}, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    if when == "early":  # once this run is recorded, before it stores a trial
        # (not sooner: Ctrl-C while the interpreter itself starts, before simstudy's code
        # runs, is Python's own traceback)
        t1 = time.time()
        while p.poll() is None and time.time() - t1 < 120 and \
                runlog_status(s)[0] <= lab.base_runs:
            time.sleep(0.05)
    else:  # once this run has stored a trial
        wait_count(s, lab.base_n + 1, p)
    kids = descendants(p.pid)
    if p.poll() is None:
        os.kill(p.pid, sig)
        if twice:
            time.sleep(0.3)
            with contextlib.suppress(ProcessLookupError):
                os.kill(p.pid, sig)
    res = finish(p, t0)
    time.sleep(3)  # workers watch their parent: give them a moment
    orphans = alive(kids)
    for k in orphans:
        with contextlib.suppress(ProcessLookupError):
            os.kill(k, signal.SIGKILL)
    after = count(s)
    # SQLite leaves -wal/-shm beside a store whose writer was killed outright (the next
    # open takes them over): not a leftover of simstudy's
    left = leftovers(d) if sig != signal.SIGKILL else ""
    runs, status = runlog_status(s)
    rc, words = EXPECT_SIGNAL[sig]
    if res["rc"] == 0:  # it finished before the signal came
        ok = not res["traceback"]
    elif runs <= lab.base_runs:  # stopped while starting: nothing begun, nothing lost
        ok = not res["traceback"] and after == lab.base_n
    else:  # stopped while running: said so, and the run log says interrupted
        ok = named(res, rc, words) and status == "interrupted"
    rrc, same = lab.resume(d, s)
    return row("signal", name, argv, f"rc {rc}, {' / '.join(words) or 'silent'}; "
               "run log 'interrupted'", res, ok and not orphans,
               trials_before=lab.base_n, trials_after=after,
               lost=max(0, lab.base_n - (after or 0)), resumed_identical=same and rrc == 0,
               leftovers=";".join(filter(None, [left, f"orphans {orphans}" if orphans else "",
                                                f"run log: {runs} runs, last {status}"])))


def card_interrupt(lab: Lab) -> dict:
    """Ctrl-C while a card evaluates a slow test on the shipped multitest trials."""
    d = lab.case_dir("card-sigint")
    (d / "slowtest.py").write_text("import time\n\ndef slow(d, *, n_train, n_test):\n"
                                   "    time.sleep(0.002)\n    return 0.0, 0.5\n")
    argv = simstudy("card", "--test", "slowtest:slow", "--studies", "multitest", "--out",
                    d / "card", "--no-figures")
    t0 = time.time()
    p = subprocess.Popen(argv, cwd=d, env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(8)
    if p.poll() is None:
        os.kill(p.pid, signal.SIGINT)
    res = finish(p, t0)
    ok = named(res, 130, ("stores nothing", "nothing is stored"))
    return row("signal", "SIGINT card (a slow test on shipped trials)", argv,
               "rc 130, says what was done and that nothing is stored", res, ok,
               leftovers="card folder written" if (d / "card").exists() else "")


# --- worker, nanny, scheduler, merge kills ------------------------------------------------

def worker_kill(lab: Lab, backend: str, target: str) -> dict:
    d = lab.case_dir(f"kill-{backend}-{target}")
    s = lab.store_copy(d)
    opts, env = BACKENDS[backend]
    argv = _run_argv(s, d / "out", extra=[*opts, "--chunk", "1"])
    t0 = time.time()
    p = subprocess.Popen(argv, cwd=d, env={**ENV, **env}, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    wait_count(s, lab.base_n + 1, p)
    # the worker processes, not the resource trackers beside them: forked workers are
    # children of the run; loky's are LokyProcess-N; a LocalCluster's spawned ones
    mark = {"forked": "-m simstudy", "loky": "LokyProcess", "dask": "spawn_main"}[backend]
    workers = [k for k in _children(p.pid) if mark in _cmdline(k)]
    victim = workers if target == "all workers" else workers[:1]
    for v in victim:
        with contextlib.suppress(ProcessLookupError):
            os.kill(v, signal.SIGKILL)
    res = finish(p, t0, 300)
    after = count(s)
    _, status = runlog_status(s)
    ok = res["rc"] == 0 or named(res, 1, ("worker",)) or named(res, 2, ("worker",))
    rrc, same = lab.resume(d, s)
    return row("kill", f"SIGKILL {backend} {target}", argv,
               "finishes, or rc 1 'a worker process died'", res, ok and bool(victim),
               trials_before=lab.base_n, trials_after=after,
               lost=max(0, lab.base_n - (after or 0)), resumed_identical=same and rrc == 0,
               leftovers=";".join(filter(None, [leftovers(d), f"runlog {status}",
                                                "" if victim else "no victim found"])))


def _children(pid: int) -> list[int]:
    try:
        return [int(x) for t in os.listdir(f"/proc/{pid}/task")
                for x in open(f"/proc/{pid}/task/{t}/children").read().split()]
    except OSError:
        return []


def _cmdline(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline") as f:
            return f.read().replace("\0", " ")
    except OSError:
        return ""


def scheduler_kill(lab: Lab, sig: int) -> dict:
    d = lab.case_dir(f"sched-{sig}")
    s = lab.store_copy(d)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    addr = f"tcp://127.0.0.1:{port}"
    sched = subprocess.Popen([*simstudy()[:4], "-m", "distributed.cli.dask_scheduler",
                              "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV)
    worker = subprocess.Popen([*simstudy()[:4], "-m", "distributed.cli.dask_worker", addr,
                               "--nthreads", "1", "--no-dashboard"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, env=ENV)
    argv = _run_argv(s, d / "out", extra=["--backend", "dask", "--scheduler", addr,
                                          "--chunk", "1"])
    t0 = time.time()
    try:
        p = subprocess.Popen(argv, cwd=d, env=ENV, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        wait_count(s, lab.base_n + 1, p, 180)
        sched.send_signal(sig)
        res = finish(p, t0, 180)
    finally:
        sched.kill()
        worker.kill()
        sched.wait()
        worker.wait()
    after = count(s)
    ok = res["rc"] == 0 or named(res, 2, ("lost the dask scheduler",))
    rrc, same = lab.resume(d, s)
    return row("kill", f"{signal.Signals(sig).name} Dask scheduler", argv,
               "rc 2 'lost the Dask scheduler ... rerun to resume'", res, ok,
               trials_before=lab.base_n, trials_after=after,
               lost=max(0, lab.base_n - (after or 0)), resumed_identical=same and rrc == 0,
               leftovers=";".join(filter(None, [leftovers(d), f"runlog {runlog_status(s)[1]}"])))


def tool_kill(lab: Lab, tool: str, sig: int, delay: float) -> dict:
    """merge / snapshot / trials export killed ``delay`` / 10 s after it starts writing: the
    output is absent or whole, and the command run again succeeds."""
    d = lab.case_dir(f"{tool}-{sig}-{delay}")
    a, b = d / "a.sqlite", d / "b.sqlite"
    shutil.copy(lab.ref_store, a)
    out = d / "m.sqlite"
    if tool == "merge":  # two copies: one definition, identical overlaps
        shutil.copy(lab.ref_store, b)
        argv = simstudy("merge", out, a, b)
    elif tool == "snapshot":
        argv = simstudy("snapshot", out, "--store", a)
    else:
        out = d / "exp"
        argv = simstudy("trials", "export", "--study", "demo", "--out", out, "--no-progress",
                        a)
    t0 = time.time()
    p = subprocess.Popen(argv, cwd=d, env=ENV, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    # once it writes (its temporary file or folder appears), then ``delay`` x 0.1 s more:
    # not while the interpreter itself starts (Ctrl-C there is Python's own traceback)
    inputs = {"a.sqlite", "b.sqlite"}
    while p.poll() is None and not {x.name for x in d.iterdir()} - inputs:
        time.sleep(0.005)
    time.sleep(delay / 10)
    if p.poll() is None:
        os.kill(p.pid, sig)
    res = finish(p, t0)
    whole = True
    if tool in ("merge", "snapshot") and out.exists():
        whole = count(out) == lab.full_n
    elif tool == "export" and out.exists():
        whole = (out / "manifest.json").is_file()
    left = leftovers(d)
    again = run(argv, cwd=d) if not out.exists() or tool == "export" else {"rc": "n/a"}
    if tool == "export" and out.exists() and again["rc"] != 0:
        shutil.rmtree(out)
        again = run(argv, cwd=d)
    rc_ok = res["rc"] in (0, 130, -sig) and not res["traceback"]
    return row("kill", f"{signal.Signals(sig).name} {tool} {delay / 10:.2f} s into its writing",
               argv,
               "output absent or whole; rerun succeeds", res,
               rc_ok and whole and again["rc"] in (0, "n/a"),
               leftovers=";".join(filter(None, [left, "" if whole else "half-written output",
                                                f"rerun rc {again['rc']}"])))


# --- a full disk: a 2 MiB tmpfs -----------------------------------------------------------

@contextlib.contextmanager
def mounted(path: Path, size: str = "2m", ro: bool = False):
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(path)],
                   check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", "-l", str(path)], check=False)


def fill(mount: Path, leave: int = 0) -> None:
    """Fill ``mount`` leaving ``leave`` bytes."""
    st = os.statvfs(mount)
    free = st.f_bavail * st.f_frsize - leave
    with open(mount / ".filler", "wb") as f:
        with contextlib.suppress(OSError):
            f.write(b"\0" * max(0, free))


FULL = ("no space left", "disk full")


def full_cases(lab: Lab) -> list[dict]:
    rows = []
    u = lab.tmp / "usertests.py"

    def case(name, make):
        d = lab.case_dir(f"full-{name}")
        m = d / "disk"
        with mounted(m):
            argv, store = make(d, m)
            before = count(store) if store else None
            res = run(argv, cwd=d)
            after = count(store) if store else None
            left = ";".join(x for x in leftovers(d).split(";") if x and
                            not x.endswith(".filler"))
            ok = named(res, 2, FULL)
            rows.append(row("full", name, argv, "rc 2 'no space left on the device (disk full)'",
                            res, ok, trials_before=before or "", trials_after=after or "",
                            lost=max(0, (before or 0) - (after or 0)), leftovers=left))

    def store_on_disk(d, m):
        s = m / "s.sqlite"
        shutil.copy(lab.base, s)
        fill(m)
        return _run_argv(s, d / "out", extra=["--backend", "serial"]), s

    def new_store_on_disk(d, m):
        fill(m, 2048)
        return _run_argv(m / "s.sqlite", d / "out", extra=["--backend", "serial"]), None

    def out_on_disk(d, m):
        s = lab.store_copy(d)
        fill(m, 1500)
        return _run_argv(s, m / "out", extra=["--backend", "serial"]), s

    def report_out(d, m):
        fill(m, 1000)
        return simstudy("report", "demo", "--store", lab.ref_store, "--out", m / "r.md"), None

    def snapshot_to(d, m):
        fill(m, 20000)
        return simstudy("snapshot", m / "c.sqlite", "--store", lab.ref_store), None

    def merge_to(d, m):
        fill(m, 20000)
        return simstudy("merge", m / "m.sqlite", lab.ref_store), None

    def card_out(d, m):
        fill(m, 3000)
        shutil.copy(u, d / u.name)
        return simstudy("card", "--test", "usertests:good", "--studies", "demo", "--store",
                        lab.ref_store, "--out", m / "card", "--no-figures"), None

    def export_out(d, m):
        fill(m, 3000)
        return simstudy("trials", "export", "--study", "demo", "--out", m / "exp",
                        "--no-progress", lab.ref_store), None

    def compare_out(d, m):
        fill(m, 1000)
        return simstudy("compare", "--data", "iris", "--models", "nmc", "1nn",
                        "--no-measured", "--out", m / "cmp"), None

    def store_grows(d, m):  # room for the store's first pages, not for the trials
        s = m / "s.sqlite"
        fill(m, 40000)
        return _run_argv(s, d / "out", runs=40, extra=["--backend", "serial"]), None

    for name, make in (("run: the store on a full disk", store_on_disk),
                       ("run: a new store on a full disk", new_store_on_disk),
                       ("run: a new store filling the disk", store_grows),
                       ("run: tables to a full disk", out_on_disk),
                       ("report --out to a full disk", report_out),
                       ("snapshot to a full disk", snapshot_to),
                       ("merge to a full disk", merge_to),
                       ("card --out to a full disk", card_out),
                       ("trials export to a full disk", export_out),
                       ("compare --out to a full disk", compare_out)):
        case(name, make)
    return rows


# --- read-only files, folders, mounts -----------------------------------------------------

RO = ("read-only", "cannot be written", "permission denied")


def readonly_cases(lab: Lab) -> list[dict]:
    rows = []
    u = lab.tmp / "usertests.py"

    def case(name, how, cmd, expect_rc):
        d = lab.case_dir(f"ro-{name}")
        shutil.copy(u, d / u.name)
        where = d / "ro"
        ctx = mounted(where, "8m") if how == "mount" else contextlib.nullcontext()
        with ctx:
            where.mkdir(exist_ok=True)
            s = where / "s.sqlite"
            shutil.copy(lab.ref_store, s)
            if how == "file":
                s.chmod(0o444)
            elif how == "folder":
                where.chmod(0o555)
            else:
                subprocess.run(["mount", "-o", "remount,ro", str(where)], check=True)
            argv = cmd(d, s, where)
            before = count(s)
            res = run(argv, cwd=d, prefix=SETPRIV)
            after = count(s)
            left = leftovers(where)
            ok = named(res, expect_rc, RO if expect_rc == 2 else ())
            rows.append(row("readonly", f"{name} ({how})", argv,
                            "rc 2 'read-only'" if expect_rc == 2 else "rc 0, nothing written",
                            res, ok, trials_before=before, trials_after=after,
                            lost=max(0, (before or 0) - (after or 0)), leftovers=left))
            if how == "folder":
                where.chmod(0o755)

    writes = lambda d, s, w: _run_argv(s, d / "out", runs=RUNS + 2,  # noqa: E731
                                       extra=["--backend", "serial"])
    report = lambda d, s, w: simstudy("report", "demo", "--store", s)  # noqa: E731
    snap = lambda d, s, w: simstudy("snapshot", d / "c.sqlite", "--store", s)  # noqa: E731
    card = lambda d, s, w: simstudy("card", "--test", "usertests:good", "--studies",  # noqa
                                    "demo", "--store", s, "--out", d / "card", "--no-figures")
    bench = lambda d, s, w: simstudy("bench", "--test", "usertests:good", "--study", "demo",  # noqa
                                     "--store", s)
    merge = lambda d, s, w: simstudy("merge", d / "m.sqlite", s)  # noqa: E731
    migrate = lambda d, s, w: simstudy("migrate", "--store", s)  # noqa: E731
    export = lambda d, s, w: simstudy("trials", "export", "--study", "demo", "--out",  # noqa
                                      d / "exp", "--no-progress", s)
    out_ro = lambda d, s, w: _run_argv(d / "w.sqlite", w / "out", runs=1,  # noqa: E731
                                       extra=["--filter", "iris/nmc~1nn"])
    snap_to = lambda d, s, w: simstudy("snapshot", w / "c.sqlite", "--store",  # noqa: E731
                                       lab.ref_store)
    for how in ("file", "folder", "mount"):
        case("run writing to the store", how, writes, 2)
        case("report", how, report, 0)
        case("snapshot of the store", how, snap, 0)
    for how in ("file", "mount"):
        case("card", how, card, 0)
        case("bench", how, bench, 0)
        case("merge from the store", how, merge, 0)
        case("trials export from the store", how, export, 0)
    case("migrate (nothing to do)", "file", migrate, 0)
    case("run: tables to a read-only folder", "folder", out_ro, 2)
    case("run: tables to a read-only mount", "mount", out_ro, 2)
    case("snapshot into a read-only mount", "mount", snap_to, 2)
    return rows


# --- truncated, foreign, newer --------------------------------------------------------------

def truncated_cases(lab: Lab) -> list[dict]:
    rows = []
    size = lab.ref_store.stat().st_size
    page = 4096
    u = lab.tmp / "usertests.py"
    cmds = {
        "run": lambda d, s: _run_argv(s, d / "out", runs=RUNS + 2,
                                      extra=["--backend", "serial"]),
        "report": lambda d, s: simstudy("report", "demo", "--store", s),
        "snapshot": lambda d, s: simstudy("snapshot", d / "c.sqlite", "--store", s),
        "migrate": lambda d, s: simstudy("migrate", "--store", s),
        "card": lambda d, s: simstudy("card", "--test", "usertests:good", "--studies", "demo",
                                      "--store", s, "--out", d / "card", "--no-figures"),
        "bench": lambda d, s: simstudy("bench", "--test", "usertests:good", "--study", "demo",
                                       "--store", s),
        "merge": lambda d, s: simstudy("merge", d / "m.sqlite", s),
        "export": lambda d, s: simstudy("trials", "export", "--study", "demo", "--out",
                                        d / "exp", "--no-progress", s),
    }
    damages = {"cut to 100 bytes": ("truncate", 100), "cut to one page": ("truncate", page),
               "cut in half": ("truncate", size // 2),
               "one page short": ("truncate", size - page),
               "a foreign file": ("foreign", 0), "a newer schema": ("newer", 0)}
    words = {"truncate": ("truncated", "damaged"),
             "foreign": ("not a sqlite", "foreign", "not a simstudy"),
             "newer": ("newer",)}
    for dname, (kind, n) in damages.items():
        for cname, cmd in cmds.items():
            if kind in ("foreign", "newer") and cname not in ("run", "report", "migrate",
                                                              "snapshot"):
                continue
            if dname == "one page short" and cname not in ("report", "snapshot", "migrate"):
                continue
            d = lab.case_dir(f"trunc-{cname}")
            shutil.copy(u, d / u.name)
            s = d / "s.sqlite"
            shutil.copy(lab.ref_store, s)
            if kind == "truncate":
                os.truncate(s, n)
            elif kind == "foreign":
                s.write_text("a,b\n1,2\n" * 5000)
            else:
                con = sqlite3.connect(s)
                con.execute("UPDATE meta SET value='99' WHERE key='schema_version'")
                con.commit()
                con.close()
            argv = cmd(d, s)
            res = run(argv, cwd=d)
            ok = named(res, 2, words[kind])
            produced = [x for x in ("c.sqlite", "m.sqlite", "exp", "out", "card")
                        if (d / x).exists()]
            rows.append(row("truncated", f"{cname} on a store {dname}", argv,
                            f"rc 2 '{words[kind][0]}', nothing written", res,
                            ok and not produced,
                            leftovers=";".join(filter(None, [leftovers(d), *produced]))))
    return rows


# --- reads while a run writes -----------------------------------------------------------------

def reads_cases(lab: Lab, moments: int = 4) -> list[dict]:
    rows = []
    d = lab.case_dir("reads")
    shutil.copy(lab.tmp / "usertests.py", d / "usertests.py")
    s = lab.store_copy(d)
    # long enough to outlast the readers (stopped with Ctrl-C after them)
    argv = simstudy("run", *DEMO, "--runs", 20000, "--store", s, "--backend", "serial",
                    "--chunk", 1, "--no-render")
    writer = subprocess.Popen(argv, cwd=d, env=ENV, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
    readers = {
        "report": lambda i: simstudy("report", "demo", "--store", s),
        "snapshot": lambda i: simstudy("snapshot", d / f"snap{i}.sqlite", "--store", s),
        "bench": lambda i: simstudy("bench", "--test", "usertests:good", "--study", "demo",
                                    "--store", s),
        "card": lambda i: simstudy("card", "--test", "usertests:good", "--studies", "demo",
                                   "--store", s, "--out", d / f"card{i}", "--no-figures"),
        "merge": lambda i: simstudy("merge", d / f"m{i}.sqlite", s),
        "export": lambda i: simstudy("trials", "export", "--study", "demo", "--out",
                                     d / f"exp{i}", "--no-progress", s),
    }
    try:
        for i in range(moments):
            wait_count(s, lab.base_n + 1 + 6 * i, writer)
            for name, cmd in readers.items():
                n0 = count(s)
                res = run(cmd(i), cwd=d)
                ok = named(res, 0, ())
                extra = ""
                if name in ("snapshot", "merge"):
                    c = count(d / f"{'snap' if name == 'snapshot' else 'm'}{i}.sqlite")
                    ok = ok and c is not None and c >= n0
                    extra = f"copy holds {c} (store held {n0} before)"
                rows.append(row("reads", f"{name} while a run writes (moment {i + 1})",
                                cmd(i), "rc 0, a consistent copy", res,
                                ok and writer.poll() is None,
                                trials_before=n0, trials_after=count(s), leftovers=extra))
    finally:
        alive_at_end = writer.poll() is None
        if alive_at_end:
            writer.send_signal(signal.SIGINT)
        _, err = writer.communicate(timeout=300)
    w = judge(writer.returncode, err, 0)
    rows[-1]["leftovers"] += (f"; the writer: exit {w['rc']} {w['error_line']}"
                              f"{'' if alive_at_end else ' (ended before the readers)'}")
    left = leftovers(d)
    if left:
        rows[-1]["leftovers"] += f"; after the run: {left}"
    return rows


# --- damaged shipped trials ---------------------------------------------------------------

def _manifest(d: Path) -> dict:
    return json.loads((d / "manifest.json").read_text())


def _write(d: Path, m: dict) -> None:
    (d / "manifest.json").write_text(json.dumps(m, indent=1))


def _alter_values(d: Path) -> None:
    """Add one to the first fold count of every trial of the first cell, and record the
    new part's sha256 and digests: only a recomputation can tell."""
    import numpy as np

    from simstudy import trials as T

    m = _manifest(d)
    g = m["groups"][0]
    with np.load(d / g["file"]) as f:
        arrays = {k: f[k] for k in f.files}
    arrays[f"g{g['index']}_counts"][0, 0, 0, :] += 1
    with zipfile.ZipFile(d / g["file"], "w", zipfile.ZIP_LZMA) as z:
        for k, v in arrays.items():
            with z.open(k + ".npy", "w") as fh:
                np.lib.format.write_array(fh, v)
    m["files"][g["file"]].update(sha256=T._sha256(d / g["file"]),
                                 bytes=(d / g["file"]).stat().st_size)
    T._add_digests(m["groups"], {n: d / n for n in m["files"]})
    _write(d, m)


def _flip(p: Path) -> None:
    b = bytearray(p.read_bytes())
    b[len(b) // 2] ^= 0x01
    p.write_bytes(bytes(b))


def shipped_cases(lab: Lab) -> list[dict]:
    rows = []
    demo_dir = lab.tmp / "demo-export"
    r = run(simstudy("trials", "export", "--study", "demo", "--out", demo_dir / "demo",
                     "--no-progress", lab.ref_store), cwd=lab.tmp)
    assert r["rc"] == 0, r["stderr"]

    def swap(d):
        m = _manifest(d)
        m["groups"][0]["cell"], m["groups"][1]["cell"] = m["groups"][1]["cell"], \
            m["groups"][0]["cell"]
        _write(d, m)

    def count_off(d):
        m = _manifest(d)
        m["groups"][2]["trials"] += 1
        m["trials"] += 1
        _write(d, m)

    def total_off(d):
        m = _manifest(d)
        m["trials"] += 5
        _write(d, m)

    def cut_manifest(d):
        t = (d / "manifest.json").read_text()
        (d / "manifest.json").write_text(t[: len(t) // 2])

    damages = [
        ("ban", "second part deleted", lambda d: (d / "errors-01.npz").unlink()),
        ("ban", "byte flipped in the second part", lambda d: _flip(d / "errors-01.npz")),
        ("type1", "byte flipped in the losses (not sampled)",
         lambda d: _flip(d / "losses-00.npz")),
        ("multitest", "two cell labels swapped", swap),
        ("multitest", "a cell's count altered", count_off),
        ("multitest", "the total altered", total_off),
        ("multitest", "manifest cut in half", cut_manifest),
        ("demo", "cell values altered, hashes rewritten", _alter_values),
    ]
    for study, what, damage in damages:
        for cmd in ("verify", "info", "card"):
            d = lab.case_dir(f"shipped-{study}-{cmd}")
            src = demo_dir / "demo" if study == "demo" else ROOT / "figures" / study / "trials"
            t = shutil.copytree(src, d / "shipped" / study / "trials")
            damage(t)
            env = {**ENV, "SIMSTUDY_TRIALS": str(d / "shipped"),
                   "XDG_CACHE_HOME": str(d / "cache")}
            if cmd == "verify":
                argv = simstudy("trials", "verify", "--dir", t, "--no-progress", "--sample",
                                "1" if study == "demo" else "0.00001")
            elif cmd == "info":
                argv = simstudy("trials", "info", "--dir", t)
            else:
                shutil.copy(lab.tmp / "usertests.py", d)
                argv = simstudy("card", "--test", "usertests:good", "--studies", study,
                                "--out", d / "card", "--no-figures")
            p = subprocess.run(argv, cwd=d, env=env, capture_output=True, text=True,
                               timeout=900)
            res = judge(p.returncode, p.stderr, 0)
            said = (p.stdout + p.stderr).lower()
            if study == "demo" and cmd != "verify":  # only a recomputation can tell
                ok = not res["traceback"]
                expect = "not detectable without recomputing; no traceback"
            else:
                ok = p.returncode != 0 and not res["traceback"] and any(
                    w in said for w in ("damaged", "differs", "does not match", "missing",
                                        "verify --dir", "unreadable", "not a readable"))
                expect = "rc != 0, the damage named"
            if cmd == "verify" and "passed" in said and p.returncode == 0:
                ok = False
            rows.append(row("shipped", f"{cmd}: {study} {what}", argv, expect, res, ok,
                            leftovers="card written" if (d / "card").exists() and
                            p.returncode != 0 else ""))
    return rows


# --- concurrent creation ----------------------------------------------------------------------

def _opener(paths, barrier, out) -> None:
    from simstudy.store import Store

    bad = []
    for p in paths:
        barrier.wait()
        try:
            with Store(p) as st:
                st.count()
        except Exception as e:  # noqa: BLE001 - counted
            bad.append(f"{type(e).__name__}: {e}")
    out.put(bad)


def create_cases(lab: Lab, procs: int = 24, rounds: int = 25) -> list[dict]:
    import multiprocessing as mp

    import simstudy.store  # noqa: F401 - imported once, forked

    d = lab.case_dir("create")
    paths = [str(d / f"s{i}.sqlite") for i in range(rounds)]
    ctx = mp.get_context("fork")
    barrier, out = ctx.Barrier(procs), ctx.Queue()
    t0 = time.time()
    ps = [ctx.Process(target=_opener, args=(paths, barrier, out)) for _ in range(procs)]
    for p in ps:
        p.start()
    bad = [b for _ in ps for b in out.get(timeout=600)]
    for p in ps:
        p.join(60)
    res = {"rc": 0 if not bad else 1, "stderr_first": bad[0][:300] if bad else "",
           "error_line": f"{len(bad)} of {procs * rounds} opens failed",
           "traceback": False, "seconds": round(time.time() - t0, 2)}
    return [row("create", f"{procs * rounds} opens of {rounds} new stores, {procs} processes"
                " at once", f"{procs} forked processes x Store(path)", "0 failed opens", res,
                not bad, leftovers=leftovers(d))]


CATEGORIES = ("signal", "kill", "full", "readonly", "truncated", "reads", "shipped", "create")


def sweep(tmp: Path, only: set[str], part: tuple[int, int] = (1, 1),
          out: Path | None = None) -> list[dict]:
    """The cases of the categories in ``only`` (all when empty); of the signal cases only
    part ``k`` of ``n`` (every n-th, for sweeps split over processes).  The table is
    rewritten at ``out`` after each signal case."""
    lab = Lab(tmp)
    rows: list[dict] = []
    want = lambda c: not only or c in only  # noqa: E731
    if want("signal"):
        cases = [functools.partial(signal_case, lab, backend, sig, when)
                 for backend in BACKENDS
                 for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGKILL)
                 # both moments with local workers; Dask and loky workers (slow to start on
                 # a loaded machine) mid-run only
                 for when in (("early", "mid") if backend in ("serial", "forked") else
                              ("mid",))]
        cases += [functools.partial(signal_case, lab, "forked", signal.SIGINT, "mid",
                                    twice=True), functools.partial(card_interrupt, lab)]
        for i, case in enumerate(cases):
            if i % part[1] == part[0] - 1:
                rows.append(case())
                if out is not None:
                    write_csv(rows, out)
    if want("kill"):
        for backend, target in (("forked", "worker"), ("loky", "worker"), ("dask", "worker"),
                                ("dask", "all workers"), ("forked", "all workers")):
            rows.append(worker_kill(lab, backend, target))
        for sig in (signal.SIGKILL, signal.SIGTERM):
            rows.append(scheduler_kill(lab, sig))
        for tool, sig, delay in (("merge", signal.SIGKILL, 0.8), ("merge", signal.SIGKILL, 1.2),
                                 ("merge", signal.SIGINT, 1.0),
                                 ("snapshot", signal.SIGKILL, 0.9),
                                 ("export", signal.SIGKILL, 1.5),
                                 ("export", signal.SIGINT, 1.5)):
            rows.append(tool_kill(lab, tool, sig, delay))
    if want("full"):
        rows += full_cases(lab)
    if want("readonly"):
        rows += readonly_cases(lab)
    if want("truncated"):
        rows += truncated_cases(lab)
    if want("reads"):
        rows += reads_cases(lab)
    if want("shipped"):
        rows += shipped_cases(lab)
    if want("create"):
        rows += create_cases(lab)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(ROOT / "figures" / "sweeps" / "faults.csv"))
    ap.add_argument("--only", default="", help="comma-separated categories: "
                    + ", ".join(CATEGORIES))
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--part", default="1/1", help="K/N: every N-th signal case from the K-th")
    a = ap.parse_args(argv)
    part = tuple(int(x) for x in a.part.split("/"))
    # started in the background, this process may ignore SIGINT, and its children would
    # inherit that: they get Python's own handler back
    signal.signal(signal.SIGINT, signal.default_int_handler)
    only = {c for c in a.only.split(",") if c}
    tmp = Path(tempfile.mkdtemp(prefix="sweep-faults-"))
    meter = Meter()
    try:
        rows = sweep(tmp, only, part, Path(a.out))
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)
    write_csv(rows, Path(a.out))
    meter.write(Path(a.out), rows, sys.argv[1:] if argv is None else argv)
    bad = [r for r in rows if not r["named"] or r["traceback"] or r["lost"]]
    print(f"{len(rows)} cases; {len(bad)} not as expected; wrote {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
