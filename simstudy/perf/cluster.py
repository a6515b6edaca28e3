"""The cluster benchmark: shards + merge against one run, cooperating runs against independent ones.

``python -m simstudy perf cluster [--out figures/perf-cluster]`` (:func:`measure`,
:func:`write`) times, as a user would type
them, each in its own process (wall time, and CPU time of the process and its workers from
``os.wait4``):

* **shards**: ``run STUDY --runs N --chunk C --backend serial`` once, then the same as
  ``--shard I/4`` for I = 1..4 (two at a time, as on 2 cores), ``merge`` and ``report``;
  the overhead is the shards' CPU + merge + report minus the single run's CPU, as a share of
  the single run's CPU (the single run renders its tables in its own process);
* **coop**: two ``run demo --runs 3000 --jobs 2`` started together on their own stores, then
  two started together on one store, repeated in turn; the ratio of the pairs' wall times.

Both check that the stores' ``trials`` and ``results`` tables (every column but the timings)
equal the single or independent run's.  Results go to ``OUT.json`` and ``OUT.md`` with the
commit and the load average.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from .process import start, wait
from .provenance import checkout

TIMING = {"seconds", "created"}


def tables(path: str | os.PathLike) -> dict[str, list]:
    """[rows, sha256] of the trials and results tables in key order, timing columns left out."""
    from ..store import Store

    with Store(path, readonly=True) as st:
        return st.content_digest(TIMING)


def _timed(batches: list[list[list[str]]]) -> tuple[float, list[float]]:
    """Run batches of commands (each batch's commands at once); wall of all, CPU of each."""
    t0, cpu = time.perf_counter(), []
    for batch in batches:
        cpu += [r["cpu"] for r in wait([start(a) for a in batch])]
    return time.perf_counter() - t0, cpu


def shards(study: str, runs: int, chunk: int, n: int, d: Path) -> dict[str, Any]:
    common = ["--runs", str(runs), "--chunk", str(chunk), "--backend", "serial",
              "--no-progress"]
    single = d / "single.sqlite"
    wall1, (cpu1,) = _timed([[["run", study, *common, "--store", str(single),
                               "--out", str(d / "single")]]])
    stores = [d / f"shard-{i}.sqlite" for i in range(1, n + 1)]
    cmds = [["run", study, *common, "--shard", f"{i}/{n}", "--store", str(s),
             "--out", str(d / f"shard-{i}")] for i, s in enumerate(stores, 1)]
    wall_s, cpu_s = _timed([cmds[i:i + 2] for i in range(0, n, 2)])
    merged = d / "merged.sqlite"
    wall_m, (cpu_m,) = _timed([[["merge", str(merged), *map(str, stores)]]])
    wall_r, (cpu_r,) = _timed([[["report", study, "--store", str(merged),
                                 "--out", str(d / "merged")]]])
    extra = sum(cpu_s) + cpu_m + cpu_r - cpu1
    return {"study": study, "runs": runs, "chunk": chunk, "shards": n,
            "single": {"wall": wall1, "cpu": cpu1},
            "shard_cpu": cpu_s, "shards_wall": wall_s,
            "merge": {"wall": wall_m, "cpu": cpu_m}, "report": {"wall": wall_r, "cpu": cpu_r},
            "overhead_cpu": extra, "overhead_share": extra / cpu1,
            "identical": tables(merged) == tables(single)}


def coop(runs: int, repeats: int, d: Path) -> dict[str, Any]:
    args = ["run", "demo", "--runs", str(runs), "--jobs", "2", "--no-progress"]
    pairs = []
    for k in range(repeats):
        own = [d / f"own-{k}-{i}.sqlite" for i in (1, 2)]
        wall_i, cpu_i = _timed([[[*args, "--store", str(s), "--out", str(d / f"o{k}{i}")]
                                 for i, s in enumerate(own)]])
        shared = d / f"shared-{k}.sqlite"
        wall_c, cpu_c = _timed([[[*args, "--store", str(shared), "--out", str(d / f"c{k}{i}")]
                                 for i in (1, 2)]])
        pairs.append({"independent": {"wall": wall_i, "cpu": sum(cpu_i)},
                      "cooperating": {"wall": wall_c, "cpu": sum(cpu_c)},
                      "identical": tables(shared) == tables(own[0]) == tables(own[1])})
    wi = sum(p["independent"]["wall"] for p in pairs)
    wc = sum(p["cooperating"]["wall"] for p in pairs)
    return {"study": "demo", "runs": runs, "repeats": repeats, "pairs": pairs,
            "wall_ratio": wc / wi,
            "cpu_ratio": sum(p["cooperating"]["cpu"] for p in pairs)
            / sum(p["independent"]["cpu"] for p in pairs),
            "identical": all(p["identical"] for p in pairs)}


def render(res: dict[str, Any]) -> str:
    s, c = res["shards"], res["coop"]
    lines = [
        "# Cluster benchmark: shards and cooperating runs", "",
        f"Measured at commit `{res['commit'][:7]}` by `python -m simstudy perf cluster` on "
        f"{res['cores']} cores, load average {res['load'][0]:.1f} / {res['load'][1]:.1f} / "
        f"{res['load'][2]:.1f} at the start and "
        f"{res['load_end'][0]:.1f} / {res['load_end'][1]:.1f} / {res['load_end'][2]:.1f} at "
        "the end.  CPU is user + system time of each command's process and its workers.", "",
        "## Shards + merge against one run", "",
        f"`run {s['study']} --runs {s['runs']} --chunk {s['chunk']} --backend serial`, then "
        f"the same as {s['shards']} shards (two at a time), `merge` and `report`.", "",
        "| | wall (s) | CPU (s) |", "|---|---:|---:|",
        f"| one run | {s['single']['wall']:.1f} | {s['single']['cpu']:.1f} |",
        f"| {s['shards']} shards | {s['shards_wall']:.1f} | {sum(s['shard_cpu']):.1f} "
        f"({', '.join(f'{x:.1f}' for x in s['shard_cpu'])}) |",
        f"| merge | {s['merge']['wall']:.1f} | {s['merge']['cpu']:.1f} |",
        f"| report of the merged store | {s['report']['wall']:.1f} | {s['report']['cpu']:.1f} |",
        "",
        f"Overhead of sharding and merging: {s['overhead_cpu']:.1f} s CPU, "
        f"**{100 * s['overhead_share']:.1f} %** of the single run's (target ≤ 5 %).  Merged "
        f"tables equal the single run's: **{'yes' if s['identical'] else 'NO'}**.", "",
        "## Two runs on one store against two on their own", "",
        f"`run demo --runs {c['runs']} --jobs 2`, two at once on their own stores, then two at "
        f"once on one store; {c['repeats']} times in turn.", "",
        "| repeat | independent pair wall (s) | CPU (s) | cooperating pair wall (s) | CPU (s) |",
        "|---:|---:|---:|---:|---:|"]
    for k, p in enumerate(c["pairs"], 1):
        lines.append(f"| {k} | {p['independent']['wall']:.1f} | {p['independent']['cpu']:.1f} "
                     f"| {p['cooperating']['wall']:.1f} | {p['cooperating']['cpu']:.1f} |")
    lines += ["", f"Cooperating / independent: wall **{100 * c['wall_ratio']:.0f} %** (target "
              f"≤ 60 %), CPU {100 * c['cpu_ratio']:.0f} %.  The shared store's tables equal an "
              f"independent run's: **{'yes' if c['identical'] else 'NO'}**.", ""]
    return "\n".join(lines)


def measure(study: str = "type1", runs: int = 100, coop_runs: int = 3000,
            repeats: int = 2) -> dict[str, Any]:
    """Both benchmarks: ``study`` at ``runs`` runs sharded in 4 (chunks of 10 runs), and
    ``repeats`` pairs of ``run demo --runs coop_runs --jobs 2``; in a temporary folder.

    Returns
    -------
    dict
        ``commit``, ``cores``, ``load`` and ``load_end``, ``shards`` (:func:`shards`) and
        ``coop`` (:func:`coop`): what :func:`render` and :func:`write` read.

    Examples
    --------
    >>> measure(runs=0)
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: runs must be a positive integer, got 0
    """
    from ..params import POSITIVE_INT, check

    for name, v in (("runs", runs), ("coop_runs", coop_runs), ("repeats", repeats)):
        check(name, v, POSITIVE_INT)
    commit = checkout()["commit"] or "unknown"
    res: dict[str, Any] = {"commit": commit, "cores": os.cpu_count(), "load": os.getloadavg()}
    with tempfile.TemporaryDirectory() as tmp:
        res["shards"] = shards(study, runs, 10, 4, Path(tmp))
        res["coop"] = coop(coop_runs, repeats, Path(tmp))
    res["load_end"] = os.getloadavg()
    return res


def write(res: dict[str, Any], out: str | os.PathLike = "figures/perf-cluster"
          ) -> tuple[Path, Path]:
    """Write ``OUT.json`` (the raw numbers) and ``OUT.md`` (:func:`render`)."""
    out = str(out)
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    js, md = Path(out + ".json"), Path(out + ".md")
    js.write_text(json.dumps(res, indent=1) + "\n")
    md.write_text(render(res))
    return js, md
