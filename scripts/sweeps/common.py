"""What the fault and input sweeps share: running ``python -m simstudy`` as a user would,
judging what it said, counting a store's trials, finding what a command left behind.

Every case is one row: the command, its exit status, the first line of its stderr and its
error line, whether a traceback appeared, whether the fault or bad value was named as
expected, the trials stored before and after, and the files left beside the store or in
the output folder.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
sys.path.insert(0, str(ROOT))  # this checkout's simstudy, also in this process
PY = [sys.executable]
NICE = ["nice", "-n", "5"]

FIELDS = ["category", "case", "command", "expect", "rc", "stderr_first", "error_line",
          "traceback", "named", "trials_before", "trials_after", "lost", "resumed_identical",
          "leftovers", "seconds"]


def simstudy(*args: object) -> list[str]:
    """The argv of ``python -m simstudy ARGS`` (niced: the machine is shared)."""
    return [*NICE, *PY, "-m", "simstudy", *(str(a) for a in args)]


def run(argv: list[str], *, cwd: Path, env: dict | None = None, timeout: float = 300,
        prefix: list[str] | None = None) -> dict:
    """Run ``argv`` to its end: exit status, stderr's first and error lines, traceback."""
    t0 = time.time()
    try:
        p = subprocess.run([*(prefix or []), *argv], cwd=cwd, env=env or ENV,
                           capture_output=True, text=True, timeout=timeout)
        rc, err = p.returncode, p.stderr
    except subprocess.TimeoutExpired as e:
        rc, err = "timeout", (e.stderr or b"").decode() if isinstance(e.stderr, bytes) \
            else (e.stderr or "")
    return judge(rc, err, time.time() - t0)


def judge(rc: object, err: str, seconds: float) -> dict:
    lines = [x for x in err.splitlines() if x.strip()]
    errors = [x for x in lines if x.startswith("simstudy: ")]
    return {"rc": rc, "stderr_first": lines[0][:300] if lines else "",
            "error_line": errors[-1][:300] if errors else "",
            "traceback": "Traceback (most recent call last)" in err,
            "seconds": round(seconds, 2), "stderr": err}


def named(res: dict, rc: object, words: tuple[str, ...] | str) -> bool:
    """The expected exit status, and one of ``words`` (case-insensitive) in the error
    line; no traceback.  ``words`` empty: nothing is expected to be said."""
    if isinstance(words, str):
        words = (words,)
    if res["traceback"] or (rc is not None and res["rc"] != rc):
        return False
    if not words:
        return True
    line = (res["error_line"] or res["stderr"]).lower()
    return any(w.lower() in line for w in words)


def count(store: Path) -> int | None:
    """Trials in ``store`` (None: unreadable), read through simstudy's read-only open,
    which removes the -wal/-shm files it made (a plain read-only SQLite connection would
    leave them beside the store)."""
    from simstudy.store import Store

    if not Path(store).is_file():
        return None
    try:
        with Store(store, readonly=True) as st:
            return st.count()
    except Exception:  # noqa: BLE001 - an unreadable store counts as None
        return None


def leftovers(*folders: Path, before: set[str] | None = None) -> str:
    """-wal/-shm/-journal files, temporaries and empty files in ``folders`` (those not
    in ``before``)."""
    bad = []
    for d in folders:
        d = Path(d)
        if not d.is_dir():
            continue
        for p in sorted(d.rglob("*")):
            if not p.is_file() or (before and str(p) in before):
                continue
            n = p.name
            if n.endswith(("-wal", "-shm", "-journal")) or ".tmp" in n or \
                    ".creating" in n or n.startswith(".") or p.stat().st_size == 0:
                bad.append(str(p.relative_to(d)))
    return ";".join(bad)


def files(*folders: Path) -> set[str]:
    return {str(p) for d in folders if Path(d).is_dir() for p in Path(d).rglob("*")}


def write_csv(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)


class Meter:
    """Wall and CPU time (this process and its waited-for children), load and commit of
    one sweep, written beside its table as JSON."""

    def __init__(self) -> None:
        self.t0, self.load0 = time.time(), os.getloadavg()
        self.commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                     capture_output=True, text=True).stdout.strip()
        self.c0 = self._cpu()

    @staticmethod
    def _cpu() -> float:
        import resource

        return sum(getattr(resource.getrusage(w), f) for w in
                   (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                   for f in ("ru_utime", "ru_stime"))

    def write(self, path: Path, rows: list[dict], argv: list[str]) -> None:
        import json

        def git(*a: str) -> str:
            return subprocess.run(["git", *a], cwd=ROOT, capture_output=True,
                                  text=True).stdout.strip()

        meta = {"commit": self.commit, "commit_at_end": git("rev-parse", "--short", "HEAD"),
                "uncommitted_changes": bool(git("status", "--porcelain", "--untracked-files=no")),
                "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.t0)),
                "wall_seconds": round(time.time() - self.t0, 1),
                "cpu_seconds": round(self._cpu() - self.c0, 1),
                "load_before": [round(x, 2) for x in self.load0],
                "load_after": [round(x, 2) for x in os.getloadavg()],
                "cores": os.cpu_count(), "cases": len(rows), "argv": argv}
        path.with_suffix(".json").write_text(json.dumps(meta, indent=1) + "\n")


def row(category: str, case: str, argv: list[str] | str, expect: str, res: dict,
        ok: bool, **extra: object) -> dict:
    cmd = argv if isinstance(argv, str) else " ".join(
        a for a in argv if a not in (*NICE, *PY)).replace(str(ROOT), ".")
    r = {"category": category, "case": case, "command": cmd, "expect": expect,
         **{k: res.get(k, "") for k in ("rc", "stderr_first", "error_line", "traceback",
                                         "seconds")},
         "named": ok, "trials_before": "", "trials_after": "", "lost": "",
         "resumed_identical": "", "leftovers": ""}
    r.update(extra)
    flag = "ok " if ok and not r["traceback"] and not r["lost"] else "BAD"
    print(f"{flag} {category:10} {case[:60]:60} rc={r['rc']} {r['error_line'][:90]}",
          flush=True)
    return r
