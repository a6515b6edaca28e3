"""Merging stores: the shards of a job array (or runs on several machines) into one store.

``python -m simstudy merge OUT IN...`` writes a new store ``OUT`` holding every trial and
result of the inputs, and their invocations.  It refuses, with one line naming the
difference, inputs that ran a study with different definitions (runs, alpha, chunk, the
grid of cells and tests), different root seeds or different statistics code; inputs that
ran different ``--filter`` selections of one registered study merge when every selection's
grid is the one the study gives under that filter today; a trial (or
result) present in two inputs must be bit-identical in every column but its timing
(``seconds``, ``created``), else the error names it.  ``OUT`` is written beside its final
name and renamed into place: it is complete or absent, never half-written.

Each trial's numbers depend on its seeds alone, so the merged ``trials`` and ``results``
tables equal, value for value, those of one run of the whole study on one machine (only
the timing columns and the ``runs`` log differ).  Each invocation of ``run`` records the
study's definition (:func:`simstudy.planning.definition`) in its ``args``, which is what the
checks compare.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import SimstudyError

if TYPE_CHECKING:
    from .store import MergeTarget

DEFINITION_FIELDS = {"runs": "runs per cell", "alpha": "alpha", "chunk": "runs per work unit",
                     "grid": "grid of cells and tests", "stats_version": "statistics version"}


@dataclass
class _Input:
    path: Path
    name: str
    defs: dict = field(default_factory=dict)     # (study, seed) -> definition (the latest)
    # (study, seed) -> every (filter, grid) its invocations ran
    grids: dict = field(default_factory=dict)
    shards: dict = field(default_factory=dict)   # (study, seed) -> {"1/4", ...}
    filters: dict = field(default_factory=dict)  # (study, seed) -> --filter of that run
    stats: dict = field(default_factory=dict)    # study -> {stats versions of its results}
    targets: set = field(default_factory=set)    # (numba compile target, BLAS kernels) of its runs
    trials: int = 0


@dataclass
class MergeSummary:
    """What :func:`merge_stores` wrote."""

    out: Path
    trials: int
    results: int
    per_input: list[tuple[str, int, int]]  # (input, trials it held, trials new to OUT)
    overlapping: int                       # trials held by two inputs (identical)
    studies: list[str]                     # one line per (study, seed): held of expected
    notes: list[str] = field(default_factory=list)


def _read_input(path: Path, name: str) -> _Input:
    from .store import Store

    with Store(path, readonly=True) as st:
        inp = _Input(path, name)
        inp.trials = st.count()
        for study, args in st.run_args():
            try:
                a = json.loads(args) if args else {}
            except ValueError:
                continue
            d = a.get("definition") if isinstance(a, dict) else None
            if not isinstance(d, dict):
                continue
            inp.targets.add((a.get("compile_target"), a.get("blas")))
            key = (study, int(d.get("seed", -1)))
            inp.defs[key] = d
            inp.filters[key] = a.get("filter")
            inp.grids.setdefault(key, set()).add((a.get("filter"), d.get("grid")))
            if a.get("shard"):
                inp.shards.setdefault(key, set()).add(str(a["shard"]))
        for study, ver in st.result_stats_versions():
            inp.stats.setdefault(study, set()).add(ver)
    return inp


def _selections_of_one_study(study: str, ran: set) -> bool:
    """Whether every ``(filter, grid)`` the inputs' invocations ran is that filter's
    selection of the registered study as it is defined now: runs of disjoint ``--filter``
    selections (one store per part of a study) then merge like shards.  False for a study
    that is not registered (a ``.py`` file), a grid recorded without its filter, or any
    grid the registered study does not give under its filter (a changed study)."""
    from .catalog import get_study
    from .planning import definition

    try:
        whole = get_study(study)
    except SimstudyError:
        return False
    return bool(ran) and all(grid is not None and definition(whole.select(filt))["grid"] == grid
                             for filt, grid in ran)


def _check_compatible(inputs: list[_Input]) -> None:
    """One clear refusal for the first difference between inputs that share a study."""
    first: dict[str, _Input] = {}
    for inp in inputs:
        for (study, _seed) in inp.defs:
            first.setdefault(study, inp)
    for inp in inputs:
        for study, ref in first.items():
            if ref is inp:
                continue
            mine = sorted(s for (st, s) in inp.defs if st == study)
            theirs = sorted(s for (st, s) in ref.defs if st == study)
            if mine and mine != theirs:
                raise SimstudyError(
                    f"study {study!r} was run at root seed(s) {theirs} in {ref.name!r} but "
                    f"{mine} in {inp.name!r}; shards of one study need the same --seed")
            for seed in mine:
                a, b = ref.defs[(study, seed)], inp.defs[(study, seed)]
                for f, what in DEFINITION_FIELDS.items():
                    if a.get(f) != b.get(f):
                        if f == "grid" and _selections_of_one_study(
                                study, ref.grids.get((study, seed), set()) |
                                inp.grids.get((study, seed), set())):
                            continue
                        extra = ""
                        if f == "grid":
                            extra = (f" ({a.get('cells')} vs {b.get('cells')} cells; --filter "
                                     f"{ref.filters.get((study, seed))!r} vs "
                                     f"{inp.filters.get((study, seed))!r}, or a changed study)")
                        raise SimstudyError(
                            f"study {study!r} (seed {seed}) has different definitions: "
                            f"{what} {a.get(f)!r} in {ref.name!r} but {b.get(f)!r} in "
                            f"{inp.name!r}{extra}; merge only runs of one definition")
    seen: dict[str, tuple[str, set]] = {}
    for inp in inputs:
        for study, vers in inp.stats.items():
            if study in seen and seen[study][1] != vers:
                raise SimstudyError(
                    f"the results of study {study!r} were computed by statistics version(s) "
                    f"{sorted(map(str, seen[study][1]))} in {seen[study][0]!r} but "
                    f"{sorted(map(str, vers))} in {inp.name!r}; run both stores once with "
                    "this simstudy (results are recomputed from stored losses, no refit), "
                    "then merge")
            seen.setdefault(study, (inp.name, vers))


def _conflict(inputs: list[_Input], k: int, table: str, key: tuple) -> SimstudyError:
    """Name the earlier input and the columns in which a twin row differs."""
    from .store import RESULT_COLS, RESULT_KEY, TRIAL_COLS, TRIAL_KEY, stored_row

    keycols, cols = (TRIAL_KEY, TRIAL_COLS) if table == "trials" else (RESULT_KEY, RESULT_COLS)
    mine = stored_row(inputs[k].path, table, keycols, key, cols)
    for prev in inputs[:k]:
        theirs = stored_row(prev.path, table, keycols, key, cols)
        if theirs is not None and theirs != mine:
            diff = [n for n, x, y in zip(cols, theirs, mine, strict=True) if x != y]
            what = ", ".join(f"{n}={v!r}" for n, v in zip(keycols, key, strict=True))
            kind = "trial" if table == "trials" else "result"
            return SimstudyError(
                f"{kind} ({what}) differs between {prev.name!r} and {inputs[k].name!r} in "
                f"{', '.join(diff)}; the same trial computed twice must be bit-identical "
                "(a different learner build, BLAS or numba target?); not merged")
    return SimstudyError(f"a {table[:-1]} with key {key!r} differs between inputs; not merged")


def _plain_copy(path: Path, tmpdir: Path) -> Path:
    """A ``.gz`` snapshot unpacked to a file SQLite can attach; other paths as they are."""
    if path.suffix != ".gz":
        return path
    dest = tmpdir / (path.name[:-3] + f".{os.getpid()}.unpacked")
    with gzip.open(path, "rb") as src, open(dest, "wb") as out:
        shutil.copyfileobj(src, out)
    return dest


def merge_stores(out: str | os.PathLike, inputs: list[str | os.PathLike], *,
                 argv: Sequence[str] | None = None) -> MergeSummary:
    """Combine the stores ``inputs`` into a new store ``out`` (complete or absent);
    ``argv``, the command line that asked for it, is kept in the new store's log.

    Raises :class:`SimstudyError` naming the difference when the inputs ran a study with
    different definitions, seeds or statistics versions, or hold one trial with different
    numbers; ``out`` must not exist.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from simstudy.catalog import get_study
    >>> from simstudy.runner import run_study
    >>> from simstudy.store import Store
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> demo = get_study("demo", runs=2).select("iris/max~nmc")
    >>> for i in (1, 2):
    ...     with Store(d / f"shard{i}.sqlite") as st:
    ...         _ = run_study(demo, st, backend="serial", progress=False, shard=(i, 2))
    >>> merge_stores(d / "all.sqlite", [d / "shard1.sqlite", d / "shard2.sqlite"]).trials
    2
    """
    from . import __version__
    from .store import MergeTarget, _tidy_wal, _wal_files

    out = Path(out)
    paths = [Path(p) for p in inputs]
    if not paths:
        raise SimstudyError("merge needs at least one input store: merge OUT IN [IN ...]")
    if out.exists():
        raise SimstudyError(f"merge output {str(out)!r} exists; merge writes a new store "
                            "(give a new file name)")
    if not out.parent.is_dir():
        raise SimstudyError(f"merge output directory {str(out.parent)!r} does not exist")
    if out.suffix == ".gz":
        raise SimstudyError(f"merge output {str(out)!r}: write a plain store, then "
                            "'snapshot' it to a .gz")
    seen: dict[Path, Path] = {}
    for p in paths:
        if not p.is_file():
            raise SimstudyError(f"merge input {str(p)!r} does not exist")
        if p.resolve() in seen:
            raise SimstudyError(f"merge input {str(p)!r} is given twice")
        seen[p.resolve()] = p
    names = [str(p) for p in paths]
    tmp = out.with_name(f".{out.name}.{os.getpid()}.merging")
    unpacked: list[Path] = []
    bare = [p for p in paths if p.suffix != ".gz" and not _wal_files(p)]  # read-only here
    try:
        infos = []
        for p, name in zip(paths, names, strict=True):
            plain = _plain_copy(p, out.parent)
            if plain != p:
                unpacked.append(plain)
            infos.append(_read_input(p, name))
            infos[-1].path = plain
        _check_compatible(infos)
        with MergeTarget(tmp, f"simstudy {__version__} (merge of {len(paths)} stores)") as m:
            per_input, overlap = [], 0
            for k, inp in enumerate(infos):
                new = m.absorb(inp.path, inp.name,
                               lambda table, bad, k=k: _conflict(infos, k, table, bad))
                overlap += inp.trials - new
                per_input.append((inp.name, inp.trials, new))
            n_trials, n_results = m.count()
            lines = _completeness(m, infos)
            mixed = [f"note: {n}" for n in m.mixed()]
            m.record({"command": "merge", "inputs": names, "out": str(out),
                      "argv": None if argv is None else list(argv), "notes": mixed}, n_trials,
                     f"merge of {len(names)} stores" + "".join(f"; {n}" for n in mixed))
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, out)
        with contextlib.suppress(OSError):  # make the rename durable where the OS allows
            fd = os.open(out.parent, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
    finally:
        tmp.unlink(missing_ok=True)
        Path(f"{tmp}-journal").unlink(missing_ok=True)
        for p in unpacked:
            p.unlink(missing_ok=True)
        for p in bare:  # the -wal/-shm files reading an input in WAL mode made
            _tidy_wal(p)
    return MergeSummary(out, int(n_trials), int(n_results), per_input, overlap, lines,
                        _target_notes(infos) + mixed)


def _target_notes(infos: list[_Input]) -> list[str]:
    """A note when the inputs ran on different numba compile targets or BLAS kernels: their
    numbers are each right, but may differ in the last bits from one machine's run."""
    targets = sorted({t for inp in infos for t in inp.targets}, key=str)
    if len(targets) < 2:
        return []
    seen = "; ".join(f"{c} / BLAS {b}" for c, b in targets)
    return [f"note: the inputs were computed for {len(targets)} compile targets or BLAS "
            f"kernels ({seen}); lp, lgc, mlp, wnb, svm and lda trials can differ from a run "
            "on one machine (mlp by whole predictions) -- pin NUMBA_CPU_NAME and OPENBLAS_CORETYPE on every "
            "node (docs/cluster.md)"]


def _completeness(target: MergeTarget, infos: list[_Input]) -> list[str]:
    """Per (study, seed) with a recorded definition: trials held of those it asks for, and
    which shards of a split were merged."""
    lines = []
    keys = sorted({k for inp in infos for k in inp.defs}, key=lambda k: (str(k[0]), k[1]))
    for study, seed in keys:
        d = dict(next(inp.defs[(study, seed)] for inp in infos if (study, seed) in inp.defs))
        ran = set().union(*(inp.grids.get((study, seed), set()) for inp in infos))
        if len({g for _, g in ran}) > 1 and _selections_of_one_study(study, ran):
            # parts run under different filters: what they ask for together
            from .catalog import get_study

            whole = get_study(study)
            d["cells"] = len({c.id for filt, _ in ran for c in whole.select(filt).cells})
        want = int(d["cells"]) * int(d["runs"])
        held = target.held(study, seed, int(d["runs"]))
        line = f"{study} (seed {seed}, {d['runs']} runs x {d['cells']} cells): {held} of {want} trials"
        shards = set().union(*(inp.shards.get((study, seed), set()) for inp in infos))
        ns = {s.split("/")[1] for s in shards}
        if len(ns) == 1:
            n = int(next(iter(ns)))
            missing = [f"{i}/{n}" for i in range(1, n + 1) if f"{i}/{n}" not in shards]
            line += f"; shards {', '.join(sorted(shards, key=lambda s: int(s.split('/')[0])))}"
            if missing:
                line += f" (missing {', '.join(missing)})"
        elif len(ns) > 1:
            line += f"; shards of different splits: {', '.join(sorted(shards))}"
        if held < want:
            line += f"; 'python -m simstudy run {study} --seed {seed} --runs {d['runs']}' " \
                    "on the merged store computes the rest"
        lines.append(line)
    return lines

