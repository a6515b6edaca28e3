"""The start-up benchmark: how soon README's command 1 shows progress, and what a one-cell run
costs beyond its cell.

``python -m simstudy perf startup`` (``nox -s perf-startup``; :func:`measure`, :func:`write`)
writes
``figures/perf-startup.json`` and ``.md``:

* **command 1**: ``python -m simstudy type1 --runs 10 --jobs 2`` in a fresh directory (a new
  store, so every trial is computed), its output read through a pseudo-terminal 100 columns
  wide as a user's terminal shows it.  Times from the start: the bar drawn, the bar's first
  move (a unit done), the process's end.  *Warm*: numba's cache beside the sources, warmed by
  one unmeasured run; *cold*: ``NUMBA_CACHE_DIR`` pointing at an empty directory, so every
  kernel the study uses compiles, as on the first run of a fresh checkout.
* **one cell**: ``python -m simstudy run replicability --filter CELL --runs 10`` on a new
  store: the process's CPU time (user + system, workers included) and wall time, less the
  compute its trials recorded (each trial's share of its unit's seconds): the fixed overhead.

Each repetition runs warm, cold and one-cell in turn; medians are reported.
"""

from __future__ import annotations

import fcntl
import json
import os
import platform
import pty
import re
import select
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path
from typing import Any

from .process import timed
from .provenance import checkout

COMMAND1 = ["type1", "--runs", "10", "--jobs", "2"]
CELL = "vote[domains=declared]/wnb~j48~ib1/10x10cv"
_TRIALS = re.compile(rb"(\d+)/(\d+) trials")


def command1(workdir: Path, env: dict[str, str]) -> dict[str, float]:
    """README's command 1 under a pseudo-terminal: seconds to the bar drawn, its first move,
    the end; CPU of the process and its workers."""
    master, slave = pty.openpty()
    # a pty starts 0 columns wide, and tqdm draws nothing in 0 columns
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    t0 = time.perf_counter()
    p = subprocess.Popen([sys.executable, "-m", "simstudy", *COMMAND1], cwd=workdir, env=env,
                         stdin=subprocess.DEVNULL, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    drawn = moved = reaped = None
    tail = b""
    while True:
        ready, _, _ = select.select([master], [], [], 0.01)
        if not ready:
            reaped = os.wait4(p.pid, os.WNOHANG)
            if reaped[0]:
                break
            reaped = None
            continue
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        now = time.perf_counter() - t0
        tail = (tail + data)[-4096:]
        if drawn is None and b"%|" in tail:
            drawn = now
        if moved is None and any(int(m.group(1)) > 0 for m in _TRIALS.finditer(tail)):
            moved = now
    _, status, ru = reaped or os.wait4(p.pid, 0)
    end = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
    os.close(master)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"command 1 failed in {workdir} (exit {status})")
    return {"bar_drawn": drawn, "bar_moved": moved, "end": end,
            "cpu": ru.ru_utime + ru.ru_stime}


def one_cell(workdir: Path, env: dict[str, str]) -> dict[str, float]:
    """``run replicability --filter CELL --runs 10`` on a new store: wall and CPU of the
    process, the compute its trials recorded, the difference."""
    store = workdir / "cell.sqlite"
    wall, cpu = timed(["run", "replicability", "--filter", CELL, "--runs", "10", "--no-progress",
                       "--store", str(store), "--out", str(workdir / "cell")], env, workdir)
    from ..store import Store

    with Store(store, readonly=True) as st:
        n, compute = st.count(), st.total_seconds()
    return {"trials": n, "compute": compute, "wall": wall, "cpu": cpu,
            "overhead_cpu": cpu - compute, "overhead_wall": wall - compute}


def measure(repeats: int = 3) -> dict[str, Any]:
    """``repeats`` repetitions of warm, cold and one-cell in turn, after one unmeasured warm-up
    run; the medians and every repetition (what :func:`render` and :func:`write` read).

    Examples
    --------
    >>> measure(0)
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: repeats must be a positive integer, got 0
    """
    from ..params import POSITIVE_INT, check

    check("repeats", repeats, POSITIVE_INT)
    base = dict(os.environ, OMP_NUM_THREADS="1")
    base.pop("NUMBA_CACHE_DIR", None)
    rows: dict[str, list] = {"warm": [], "cold": [], "cell": []}
    load0 = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        warmup = Path(tmp, "warmup")
        warmup.mkdir()
        command1(warmup, base)  # the cache beside the sources holds this commit's kernels
        for k in range(repeats):
            d = Path(tmp, f"r{k}")
            for kind in ("warm", "cold", "cell"):
                (d / kind).mkdir(parents=True)
            rows["warm"].append(command1(d / "warm", base))
            rows["cold"].append(command1(d / "cold", dict(base, NUMBA_CACHE_DIR=str(d / "nc"))))
            rows["cell"].append(one_cell(d / "cell", base))
    med = {kind: {key: statistics.median(r[key] for r in rs) for key in rs[0]}
           for kind, rs in rows.items()}
    return {"commit": checkout()["commit"] or "unknown", "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
            "machine": f"{os.cpu_count()} cores, {platform.python_implementation()} "
                       f"{platform.python_version()}",
            "load_start": load0, "load_end": os.getloadavg(), "repeats": repeats,
            "command1": "python -m simstudy " + " ".join(COMMAND1),
            "cell": CELL, "runs": rows, "median": med}


def render(res: dict[str, Any]) -> str:
    m = res["median"]
    la, lb = res["load_start"], res["load_end"]
    w, c, cell = m["warm"], m["cold"], m["cell"]
    lines = [
        "# Start-up: first progress of README's command 1, and a one-cell run's overhead", "",
        f"Measured by `python -m simstudy perf startup` at commit `{res['commit'][:12]}`, "
        f"{res['date']}; {res['machine']}; load average {la[0]:.1f} / {la[1]:.1f} / "
        f"{la[2]:.1f} at the start and {lb[0]:.1f} / {lb[1]:.1f} / {lb[2]:.1f} at the end.  "
        f"Median of {res['repeats']} repetitions.", "",
        f"## `{res['command1']}` (fresh store, output through a 100-column terminal)", "",
        "| numba cache | bar drawn (s) | bar first moves (s) | finished (s) | CPU (s) |",
        "|---|---:|---:|---:|---:|",
        f"| warm | {w['bar_drawn']:.2f} | {w['bar_moved']:.2f} | {w['end']:.1f} | "
        f"{w['cpu']:.1f} |",
        f"| cold (empty `NUMBA_CACHE_DIR`) | {c['bar_drawn']:.2f} | {c['bar_moved']:.2f} | "
        f"{c['end']:.1f} | {c['cpu']:.1f} |", "",
        "The bar is drawn before any worker starts; it first moves when a unit is done. "
        "Targets: first visible progress ≤ 5 s warm, ≤ 15 s cold.", "",
        f"## `run replicability --filter {res['cell']} --runs 10` (new store)", "",
        "| | wall (s) | CPU (s) |", "|---|---:|---:|",
        f"| the process | {cell['wall']:.2f} | {cell['cpu']:.2f} |",
        f"| its trials' compute ({cell['trials']:.0f} trials) | {cell['compute']:.2f} | "
        f"{cell['compute']:.2f} |",
        f"| **fixed overhead** | **{cell['overhead_wall']:.2f}** | "
        f"**{cell['overhead_cpu']:.2f}** |", "",
        "The trials' compute is their recorded seconds (the unit's time in the worker, first "
        "call's kernel loading included); the rest is start-up, reading, writing and "
        "rendering the cell's tables.  Target: fixed overhead ≤ 1.5 s.", "",
        "Raw numbers of every repetition: `perf-startup.json`.", ""]
    return "\n".join(lines)


def write(res: dict[str, Any], out: str | os.PathLike = "figures/perf-startup"
          ) -> tuple[Path, Path]:
    """Write ``OUT.json`` (every repetition) and ``OUT.md`` (:func:`render`)."""
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    js, md = out.with_suffix(".json"), out.with_suffix(".md")
    js.write_text(json.dumps(res, indent=1) + "\n")
    md.write_text(render(res))
    return js, md
