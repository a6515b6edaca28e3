"""``python -m simstudy`` commands as a benchmark runs them: started in their own process,
waited for with ``os.wait4`` so their CPU time (user + system, workers included) is theirs
alone.

stderr goes to a temporary file, not a pipe: a command that writes more than a pipe holds
would otherwise block while the benchmark waits for it.

Examples
--------
>>> wall, cpu = timed(["list"])
>>> wall > 0 and cpu > 0
True
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path


def start(args: Sequence[str], env: Mapping[str, str] | None = None,
          cwd: str | os.PathLike | None = None) -> subprocess.Popen:
    """``python -m simstudy ARGS``, one numba/OpenMP thread unless ``env`` says otherwise."""
    env = dict(os.environ, OMP_NUM_THREADS="1") if env is None else dict(env)
    err = tempfile.TemporaryFile()
    p = subprocess.Popen([sys.executable, "-m", "simstudy", *args], env=env, cwd=cwd,
                         stdout=subprocess.DEVNULL, stderr=err)
    p.errfile = err  # Popen keeps no handle on a file it was given
    return p


def wait(procs: Sequence[subprocess.Popen]) -> list[dict[str, float]]:
    """Wait for every process: its CPU and when it was done (seconds from the call); a
    failed one raises with the tail of its stderr."""
    t0 = time.perf_counter()
    out = []
    for p in procs:
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        p.errfile.seek(0)
        err = p.errfile.read().decode(errors="replace")
        p.errfile.close()
        if p.returncode:
            raise RuntimeError(f"{list(p.args[3:])} failed ({p.returncode}): {err[-500:]}")
        out.append({"cpu": ru.ru_utime + ru.ru_stime, "done": time.perf_counter() - t0})
    return out


def timed(args: Sequence[str], env: Mapping[str, str] | None = None,
          cwd: str | os.PathLike | Path | None = None) -> tuple[float, float]:
    """Wall and CPU of one command run to its end."""
    t0 = time.perf_counter()
    (r,) = wait([start(args, env, cwd)])
    return time.perf_counter() - t0, r["cpu"]
