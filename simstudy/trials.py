"""Shipped trials: a study's stored trials in a compact, verifiable form kept beside its figures.

A result store (:mod:`simstudy.store`) keeps one SQLite row per trial with its fold error
rates as JSON, its derived p-values and its timings: about 1 kB per trial.  The papers'
scale (1.5 M trials over seven studies) does not fit a repository that way.  The shipped
form keeps what determines every result and nothing that can be recomputed:

* **fold errors as integer counts** of misclassified test instances (``uint8`` or
  ``uint16``), since the runner computes a fold's error rate as ``count / n_test``; the
  reader divides again and gets the stored float64 bit for bit (checked for every trial at
  export; a cell whose rates are not such quotients would be kept as float64 instead);
* **fold sizes** ``n_train``, ``n_test`` once per cell (per trial only where they vary);
* **the run index** of every trial and, per cell, the root seed, source, learners and design:
  with :func:`simstudy.seeding.trial_seed` that is everything needed to recompute a trial
  (``trials verify`` does);
* **per-instance 0/1 losses** where the store kept them, as packed bits *only at the test
  positions*, instance-major (an instance's losses over all trials side by side, so an
  instance no learner ever misclassifies compresses to nothing); the test-fold masks are not
  shipped but recomputed from the trial seeds (a CRC-32 per trial checks them);
* **which invocation computed each trial**, so a machine-dependent difference can be named
  by the compile target and BLAS kernels that invocation recorded.

Not shipped: the p-values, statistics and decisions (derived: the reader recomputes them
from the fold errors with the statistics registry, and export checks they equal the store's
bit for bit), per-trial timings and timestamps, the per-trial seed strings (derived from
the root seed, cell and run; checked at export), the test masks (recomputed).

Layout of ``figures/<study>/trials/``::

    manifest.json     format, study, cells (one entry per cell and root seed), files with
                      sha256, provenance (invocations: version, host, compile target, BLAS
                      kernels, wall time; the export's commit and package versions),
                      what is left out and why, the export's checks
    errors-NN.npz     per cell: counts (K, R, F, T), runs, fold sizes, invocation index
    losses-NN.npz     per cell that kept them: packed loss bits, mask CRCs

Each ``.npz`` is a zip of ``.npy`` arrays compressed with LZMA (``numpy.load`` reads it);
no file exceeds :data:`MAX_FILE_BYTES`.  :class:`ShippedTrials` reads a directory with the
same columnar API as :class:`simstudy.store.Store` (``holdings``, ``fold_errors``,
``pvalues``, ``choices``, ``losses``), so ``card`` and ``bench`` read either; every file's
sha256 is checked when it is first read.

Examples
--------
Export a small store, read it back as a store would be read, recompute one trial:

>>> import simstudy as ss, tempfile, os
>>> d = tempfile.mkdtemp()
>>> _ = ss.run("demo", runs=3, store=os.path.join(d, "s.sqlite"), filter="iris/nmc~1nn",
...            progress=False)
>>> summary = export(os.path.join(d, "s.sqlite"), "demo", os.path.join(d, "trials"))
>>> with ShippedTrials(os.path.join(d, "trials")) as r:
...     ct = r.fold_errors(["iris/nmc~1nn/5x2"], seed=0)["iris/nmc~1nn/5x2"]
...     print(ct.errors.shape, verify([r], fraction=0.3).ok)
(3, 2, 5, 2) True
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import math
import os
import shutil
import sys
import time
import zipfile
import zlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .errors import SimstudyError

if TYPE_CHECKING:
    from .store import CellTrials

__all__ = ["FORMAT", "FORMAT_VERSION", "MANIFEST", "MAX_FILE_BYTES", "ExportSummary",
           "ShippedTrials", "VerifyReport", "export", "open_path", "open_shipped",
           "shipped_dirs", "verify"]

FORMAT = "simstudy-shipped-trials"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
#: no shipped file may be larger (the repository's limit per file)
MAX_FILE_BYTES = 5_000_000
#: environment variable naming further directories of shipped trials (``<dir>/<study>/``
#: or ``<dir>/<study>/trials/``), searched before the checkout's ``figures/``
ENV_DIRS = "SIMSTUDY_TRIALS"

_ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # fixed: the same trials give the same bytes

LEFT_OUT = [
    {"what": "p-values, statistics and decisions (the store's results table)",
     "why": "derived: recomputed from the fold errors by simstudy.stats.registry; export "
            "checks the recomputed values equal the store's bit for bit (checks.pvalues)"},
    {"what": "choice-method results (best learner, order)",
     "why": "derived: recomputed from the fold errors at the recorded alpha "
            "(checks.choices)"},
    {"what": "per-trial seed strings (trials.trial_seed)",
     "why": "derived from (root seed, cell id, run) by simstudy.seeding.trial_seed; checked "
            "for every trial at export"},
    {"what": "test-fold masks of the per-instance losses",
     "why": "recomputed from the trial seeds by the design (as the runner does); a CRC-32 "
            "per trial checks them when losses are read"},
    {"what": "per-trial compute seconds and write timestamps",
     "why": "timings, not results; each invocation's wall time and the summed worker "
            "seconds per cell are in the provenance"},
    {"what": "per-trial simstudy version, learner implementation and data hash",
     "why": "constant within a cell; kept once per cell (the distinct values)"},
]


def _err(msg: str) -> SimstudyError:
    return SimstudyError(msg)


# =========================================================================================
# export
# =========================================================================================

@dataclass
class ExportSummary:
    """What :func:`export` wrote: directory, trials, cells, bytes and time."""

    out: Path
    study: str
    trials: int
    cells: int
    files: dict[str, int]
    seconds: float
    checks: dict = field(default_factory=dict)
    cpu_seconds: float = float("nan")

    @property
    def bytes(self) -> int:
        return int(sum(self.files.values()))

    def line(self) -> str:
        rate = self.trials / self.seconds if self.seconds > 0 else float("inf")
        ok = self.checks.get("pvalues", {})
        pv = (f"; p-values {ok.get('identical', 0):,}/{ok.get('compared', 0):,} identical "
              "to the store's" if ok else "")
        return (f"wrote {self.out}: {self.trials:,} trials of {self.study!r} in {self.cells} "
                f"cells, {len(self.files)} files, {self.bytes:,} bytes, "
                f"{self.seconds:.1f} s ({rate:,.0f} trials/s; {self.cpu_seconds:.1f} s "
                f"CPU){pv}")


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.ascontiguousarray(arr), allow_pickle=False)
    return buf.getvalue()


def _lzma_size(data: bytes) -> int:
    """Compressed size of ``data`` as zipfile's LZMA member will be (same filter)."""
    import lzma

    return len(lzma.compress(data, format=lzma.FORMAT_RAW,
                             filters=[{"id": lzma.FILTER_LZMA1}])) + 64


class _PartWriter:
    """Writes members into ``<stem>-NN.npz`` files of at most ``limit`` bytes each."""

    def __init__(self, out: Path, stem: str, limit: int, tmp_tag: str) -> None:
        self.out, self.stem, self.limit, self.tag = out, stem, limit, tmp_tag
        self.index = -1
        self.zf: zipfile.ZipFile | None = None
        self.size = 0
        self.written: list[tuple[str, Path]] = []  # (final name, temporary path)

    def _open(self) -> None:
        self.close()
        self.index += 1
        name = f"{self.stem}-{self.index:02d}.npz"
        tmp = self.out / f".{name}.{self.tag}.tmp"
        self.zf = zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_LZMA)
        self.size = 22  # the end-of-central-directory record
        self.written.append((name, tmp))

    @property
    def name(self) -> str:
        return self.written[-1][0]

    def add(self, members: dict[str, np.ndarray]) -> str:
        """Write one cell's members (all into one file); returns that file's name."""
        blobs = {k: _npy(v) for k, v in members.items()}
        # an upper bound first (LZMA never grows data by more than ~1 %); compress to
        # measure only when the bound would cross the limit
        est = sum(int(len(b) * 1.01) + 2 * len(k) + 400 for k, b in blobs.items())
        if self.zf is None or self.size + est > self.limit:
            est = sum(_lzma_size(b) + 2 * len(k) + 110 for k, b in blobs.items())
        if est > self.limit:
            raise _err(f"one cell's data ({est:,} bytes compressed) exceeds the file limit "
                       f"{self.limit:,}; raise --max-file-mb")
        if self.zf is None or self.size + est > self.limit:
            self._open()
        for k, b in blobs.items():
            zi = zipfile.ZipInfo(k + ".npy", date_time=_ZIP_DATE)
            zi.compress_type = zipfile.ZIP_LZMA
            zi.external_attr = 0o644 << 16
            self.zf.writestr(zi, b)
        self.size = self.zf.fp.tell() + 100 * len(self.zf.infolist())
        return self.name

    def close(self) -> None:
        if self.zf is not None:
            self.zf.close()
            self.zf = None


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _uint(x: np.ndarray, what: str) -> np.ndarray:
    """Smallest unsigned dtype holding the non-negative integers ``x``."""
    top = int(x.max()) if x.size else 0
    for dt in (np.uint8, np.uint16, np.uint32):
        if top <= np.iinfo(dt).max:
            return x.astype(dt)
    raise _err(f"{what} up to {top} do not fit 32 bits")


def _integral(x: np.ndarray, what: str, cell: str) -> np.ndarray:
    k = np.rint(x)
    if not (np.array_equal(k, x) and (k > 0).all()):
        raise _err(f"cell {cell!r}: {what} are not positive integers; not a store this "
                   "format can ship")
    return k.astype(np.int64)


def _same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return a.shape == b.shape and np.array_equal(a.view(np.uint64), b.view(np.uint64))


def _source_key(cell: str, source: str, learners: str, design: str) -> str:
    """The source part of a cell id when it differs from the source spec (user files)."""
    tail = f"/{learners}/{design}"
    prefix = cell[: -len(tail)] if cell.endswith(tail) else cell.split("/", 1)[0]
    return "" if prefix == source else prefix


def _invocations(store) -> tuple[list[dict], np.ndarray, np.ndarray]:
    """The store's invocations (runs table) as provenance records, and their start / end
    times (end: the next start, or +inf, when not recorded) for mapping trials to them."""
    log = store.runs_log()
    recs, starts, ends = [], [], []
    for r in log.itertuples(index=False):
        try:
            args = json.loads(r.args) if isinstance(r.args, str) else {}
        except ValueError:
            args = {}
        started = float(r.started) if r.started == r.started and r.started is not None else 0.0
        fin = r.finished if r.finished is not None and r.finished == r.finished else None
        recs.append({
            "id": int(r.id), "study": r.study, "version": r.version, "host": r.host,
            "started": _iso(started), "finished": _iso(fin) if fin is not None else None,
            "wall_seconds": round(float(fin) - started, 1) if fin is not None else None,
            "status": r.status, "trials_done": None if r.trials_done is None
            else int(r.trials_done),
            "compile_target": args.get("compile_target"), "blas": args.get("blas"),
            "args": {k: v for k, v in args.items() if k not in ("compile_target", "blas")},
        })
        starts.append(started)
        ends.append(float(fin) if fin is not None else math.inf)
    return recs, np.asarray(starts, dtype=float), np.asarray(ends, dtype=float)


def _iso(t: float | None) -> str | None:
    if t is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(float(t)))


def _which_invocation(created: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Index of the invocation that wrote each trial: the latest one started at or before
    the trial's write time and not finished before it (else the latest started); -1 if none."""
    out = np.full(created.shape, -1, dtype=np.int64)
    if starts.size == 0:
        return out
    order = np.argsort(starts, kind="stable")
    pos = np.searchsorted(starts[order], created + 1e-6, side="right") - 1
    ok = pos >= 0
    out[ok] = order[pos[ok]]
    # overlapping invocations (rare): the latest started one still running at that time
    late = np.flatnonzero(ok & (ends[np.maximum(out, 0)] < created - 1e-6))
    for j in late:
        cand = order[: pos[j] + 1]
        live = cand[ends[cand] >= created[j] - 1e-6]
        if live.size:
            out[j] = int(live[-1])
    return out


def _git_commit() -> str | None:
    """The commit of the checkout this package is imported from (+dirty), or None."""
    import subprocess

    root = Path(__file__).resolve().parent.parent
    if not (root / ".git").exists():
        return None
    try:
        head = subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], text=True,
                              capture_output=True, timeout=20).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain",
                                "--untracked-files=no"], text=True, capture_output=True,
                               timeout=20).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return (head + ("+dirty" if dirty else "")) or None


def _packages() -> dict[str, str | None]:
    from importlib.metadata import PackageNotFoundError, version

    out: dict[str, str | None] = {"python": sys.version.split()[0]}
    for name in ("simstudy", "numpy", "scipy", "numba", "llvmlite", "scikit-learn", "pandas",
                 "threadpoolctl"):
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = None
    return out


def _losses_members(store, cell: dict, seed: int, runs: np.ndarray, nte: np.ndarray,
                    study: str = "", counts: np.ndarray | None = None
                    ) -> tuple[dict[str, np.ndarray], dict] | None:
    """Per-instance losses of one cell as packed bits at the test positions, or None.

    Instance layout (every trial tests each instance exactly once per replication, as
    k-fold designs do): bits[i, k, t, r] = loss of instance i by learner k in replication r
    of trial t; else positions layout: each trial's losses at its test positions in
    (k, r, f, i) order.  Per trial a CRC-32 of its packed test mask.
    """
    from .core import LOSS_MAGIC, unpack_losses

    rows = store.packed_losses(cell["cell"], seed)
    if not any(r[1] is not None for r in rows):
        return None
    have = np.array([r[1] is not None for r in rows])
    if not np.array_equal(np.array([r[0] for r in rows], dtype=np.int64), runs):
        raise _err(f"cell {cell['cell']!r}: the store changed while exporting")
    if any(r[1] is not None and bytes(r[1][:4]) == LOSS_MAGIC for r in rows):
        return _sums_members(cell, [r[1] for r in rows if r[1] is not None], have, study,
                             None if counts is None else counts[..., have])
    # one trial at a time (a cell of optdigits holds 112 MB of int8 losses per 1000 trials)
    crc, per, flat, shapes, instance = [], [], [], set(), True
    for (_, blob), n_test in zip((r for r in rows if r[1] is not None), nte[have],
                                 strict=True):
        L = unpack_losses(blob)
        test = L[0] >= 0
        if int(test.sum()) != int(n_test.sum()):
            raise _err(f"cell {cell['cell']!r}: per-instance losses disagree with the stored "
                       "fold sizes")
        crc.append(zlib.crc32(np.packbits(test.ravel()).tobytes()))
        shapes.add(L.shape)
        instance = instance and len(shapes) == 1 and bool((test.sum(axis=1) == 1).all())
        if instance:
            per.append((L == 1).any(axis=2))  # (K, R, n): the one fold testing each instance
        flat.append(L[:, test].ravel() == 1)
    crc = np.array(crc, dtype=np.uint32)
    if instance:
        bits = np.packbits(np.stack(per).transpose(3, 1, 0, 2).ravel())
    else:  # positions: each trial's bits at its test positions, end to end
        bits = np.packbits(np.concatenate(flat))
    n = next(iter(shapes))[-1]
    members = {"lossbits": bits, "maskcrc": crc}
    if not have.all():
        members["haslosses"] = have
    meta = {"layout": "instance" if instance else "positions", "trials": int(have.sum()),
            "n": int(n) if len(shapes) == 1 else None}
    return members, meta


def _reads_losses(study: str, cid: str) -> bool:
    """Whether an interval method the study names for cell ``cid`` reads losses (True when
    the study or cell is unknown here: ship them)."""
    try:
        from .catalog import get_study
        from .stats.interval_registry import get_interval

        cell = next(c for c in get_study(study).cells if c.id == cid)
        return any(get_interval(m).needs_losses for m in cell.label("intervals"))
    except Exception:  # noqa: BLE001 - not a registered interval study: keep everything
        return True


def _pairs(design: str) -> list[tuple[int, int]] | None:
    """The fold pairs of a nested-cv design (None for another design)."""
    from .designs import get_design

    try:
        return getattr(get_design(design), "pairs", None)
    except Exception:  # noqa: BLE001 - a design unknown here: not nested
        return None


def _nested_members(blobs: list, pairs: list, counts: np.ndarray | None, members: dict,
                    meta: dict) -> None:
    """A nested-cv cell's :class:`~simstudy.core.NestedSums`: for 0/1 losses without the
    outer sums (the outer folds' error counts) nor the sums of squares (equal to the sums),
    real losses in full (float64)."""
    from .core import nested_sums, unpack_losses

    ns = [nested_sums(unpack_losses(b), pairs) for b in blobs]
    K, R, k = ns[0].out_total.shape
    for name in ("out_count", "in_count"):
        c = np.stack([getattr(x, name) for x in ns])
        const = bool((c == c[:1]).all())
        members["ns" + name] = _uint(c[0] if const else c, "loss counts")
        meta[name] = "cell" if const else "trial"
    meta["n"] = int(ns[0].n)
    if len({x.n for x in ns}) != 1:
        raise _err(f"nested-cv trials of {len({x.n for x in ns})} sizes in one cell")
    outP = np.stack([x.out_prod for x in ns])
    inP = np.stack([x.in_prod for x in ns])
    inS = np.stack([x.in_total for x in ns])
    integral = counts is not None and all(np.array_equal(np.rint(a), a) and (a >= 0).all()
                                          for a in (outP, inP, inS))
    if integral:
        iu = np.triu_indices(K, 1)
        members["nsout_prod"] = _uint(np.rint(outP[:, iu[0], iu[1]]).astype(np.int64), "sums")
        members["nsin_total"] = _uint(np.rint(inS).astype(np.int64), "sums")
        members["nsin_prod"] = _uint(np.rint(inP[:, iu[0], iu[1]]).astype(np.int64), "sums")
        meta["sums"] = "nested-integers"
    else:
        iu = np.triu_indices(K)
        members["nsout_total"] = np.stack([x.out_total for x in ns])
        members["nsout_prod"] = outP[:, iu[0], iu[1]]
        members["nsin_total"] = inS
        members["nsin_prod"] = inP[:, iu[0], iu[1]]
        meta["sums"] = "nested-float64"


def _sums_members(cell: dict, blobs: list, have: np.ndarray, study: str = "",
                  counts: np.ndarray | None = None) -> tuple[dict[str, np.ndarray], dict]:
    """The interval trials' losses as the sums the interval methods read
    (:class:`simstudy.core.LossSums`), with each trial's numeric truth.

    Kept only what is not shipped already: nothing for a cell whose interval methods read
    fold errors only (``sums: none``: the truths alone); for 0/1 losses (``sums:
    integers``, the smallest unsigned integers) not the sums of a fold tested in one block
    (its error count, ``counts`` (K, R, F, T)) nor the sums of squares (equal to the
    sums); real losses (``sums: float64``) in full.  The reader rebuilds the store's sums
    bit for bit (checked at export).
    """
    from .core import loss_sums, unpack_losses, unpack_truth

    truths = [unpack_truth(b) for b in blobs]
    members: dict[str, np.ndarray] = {}
    meta: dict = {"layout": "sums", "trials": int(have.sum()), "n": None}
    if not have.all():
        members["haslosses"] = have
    pairs = _pairs(cell["design"])
    if not _reads_losses(study, cell["cell"]):
        meta["sums"] = "none"
    elif pairs is not None:
        _nested_members(blobs, pairs, counts, members, meta)
    else:
        sums = [loss_sums(unpack_losses(b)) for b in blobs]
        count = np.stack([x.count for x in sums])  # (T, R, F, F)
        const = bool((count == count[:1]).all())
        where = (count > 0).any(axis=0)  # (R, F, F): the positions any trial fills
        K = sums[0].total.shape[0]
        total = np.stack([x.total[:, where] for x in sums])  # (T, K, P)
        iu = np.triu_indices(K)
        prod = np.stack([x.prod[iu] for x in sums])  # (T, K(K+1)/2, R, F)
        integral = counts is not None and all(
            np.array_equal(np.rint(a), a) and (a >= 0).all() for a in (total, prod))
        members["sumcount"] = _uint(count[0] if const else count, "loss counts")
        members["sumwhere"] = np.packbits(where.ravel())
        meta["count"] = "cell" if const else "trial"
        if integral:
            multi = (where.sum(axis=2) > 1)[..., None] & where  # folds tested in 2+ blocks
            members["sumtotal"] = _uint(np.rint(np.stack(
                [x.total[:, multi] for x in sums])).astype(np.int64), "loss sums")
            members["sumprod"] = _uint(np.rint(np.stack(
                [x.prod[np.triu_indices(K, 1)] for x in sums])).astype(np.int64), "loss sums")
            meta["sums"] = "integers"
        else:
            members["sumtotal"], members["sumprod"] = total, prod
            meta["sums"] = "float64"
    if any(t is not None for t in truths):
        if any(t is None for t in truths):
            raise _err(f"cell {cell['cell']!r}: some trials hold a numeric truth, others "
                       "not; this format ships all or none")
        K = truths[0].error.shape[0]
        members["trueerror"] = np.stack([t.error for t in truths])
        members["truese"] = np.stack([t.mc_se for t in truths])
        # diff_se is symmetric with a zero diagonal: its upper triangle
        members["truediffse"] = np.stack([t.diff_se[np.triu_indices(K, 1)] for t in truths])
        members["truen"] = _uint(np.array([t.n_truth for t in truths], dtype=np.int64),
                                 "truth sizes")
        meta["truth"] = True
    return members, meta


_TRUTHS = ("trueerror", "truese", "truediffse", "truen")


def _share_truths(shared: dict, key: tuple, gi: int, em: dict, members: dict,
                  lmeta: dict) -> None:
    """Ship a truth once: the cells of one source, learners and seed share their draws and
    so their truths (:mod:`simstudy.interval_truth`); a cell whose truths equal, run for
    run, those of a cell exported before it names that cell (``truth_from``) instead."""
    if not lmeta.get("truth"):
        return
    have = members.get("haslosses")
    runs = em["runs"] if have is None else em["runs"][have]
    prev = shared.get(key)
    if prev is not None:
        gi0, runs0, arrays0 = prev
        at = np.searchsorted(runs0, runs)
        if (at < runs0.size).all() and np.array_equal(runs0[np.minimum(at, runs0.size - 1)],
                                                      runs) and \
                all(_same_bits(arrays0[k][at], members[k]) for k in _TRUTHS):
            for k in _TRUTHS:
                del members[k]
            lmeta["truth_from"] = gi0
            return
        if runs0.size >= runs.size:
            return
    shared[key] = (gi, runs, {k: members[k] for k in _TRUTHS})


def _tests_in_store(store, cell: str, seed: int) -> tuple[list[str], float | None, list[str]]:
    """Pairwise tests and choice methods the store holds results for, and their alpha."""
    rows = store.result_tests(cell, seed)
    pair = [r[0] for r in rows if r[1] is not None and r[1] >= 0]
    choice = [r[0] for r in rows if r[1] is not None and r[1] < 0]
    alphas = [r[2] for r in rows if r[2] is not None]
    return pair, (float(max(alphas)) if alphas else None), choice


def export(store: object, study: str, out: str | os.PathLike, *,
           max_file_bytes: int = MAX_FILE_BYTES, check: bool = True,
           progress: bool = False) -> ExportSummary:
    """Write the trials of ``study`` held in ``store`` to the shipped form in ``out``.

    Parameters
    ----------
    store : path or Store
        A result store (``.sqlite`` or ``.sqlite.gz``) holding the study's trials (rows whose
        ``study`` column is ``study``); every root seed it holds is exported.
    study : str
        The study name as the store records it.
    out : path
        Directory to write (created; files of an earlier export of the same study there are
        replaced; a directory holding another study's shipped trials is refused).
    max_file_bytes : int
        Upper bound on every written file (default :data:`MAX_FILE_BYTES`).
    check : bool
        Read the written files back and compare every trial with the store (fold errors bit
        for bit, sizes, runs, losses) and the recomputed p-values and choices with the
        store's results (reported in ``manifest["checks"]``).  A difference in the trials is
        an error; a p-value difference is reported (it means the statistics code changed).

    Returns
    -------
    ExportSummary

    Examples
    --------
    >>> import simstudy as ss, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> _ = ss.run("demo", runs=2, store=os.path.join(d, "s.sqlite"), filter="wine/nmc",
    ...            progress=False)
    >>> export(os.path.join(d, "s.sqlite"), "demo", os.path.join(d, "t")).trials
    2
    """
    from .store import Store, stats_version

    t0, c0 = time.perf_counter(), time.process_time()
    if not isinstance(study, str) or not study:
        raise _err(f"study must be a study name, got {study!r}")
    if int(max_file_bytes) < 100_000:
        raise _err(f"max_file_bytes must be at least 100000, got {max_file_bytes!r}")
    own = not isinstance(store, Store)
    st = Store(store, readonly=True) if own else store
    snapshot = contextlib.ExitStack()
    writers: list[_PartWriter] = []
    final = out = Path(out)
    try:
        if out.exists() and not out.is_dir():
            raise _err(f"--out {str(out)!r} is a file; give a directory")
        old = _old_manifest(out, study)
        if not out.exists():
            # a new folder is filled beside its name and renamed whole at the end: stopped
            # midway, no half-written export stands at --out
            work = out.parent / f".{out.name}.{os.getpid()}.part"
            out = work
        snapshot.enter_context(st.read_snapshot())  # one snapshot, also while a run writes
        groups = st.study_groups(study)
        if not groups:
            held = st.studies()
            raise _err(f"store {str(st.path)!r} holds no trials of study {study!r}; "
                       f"studies it holds: {', '.join(map(str, held)) or 'none'}")
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise _err(f"--out {str(final)!r} cannot be used as a directory: {e.strerror}"
                       ) from None
        invs, starts, ends = _invocations(st)
        tag = f"{os.getpid()}"
        errors_w = _PartWriter(out, "errors", int(max_file_bytes), tag)
        losses_w = _PartWriter(out, "losses", int(max_file_bytes), tag)
        writers += [errors_w, losses_w]
        cells_meta: list[dict] = []
        shared: dict = {}  # (source, learners, seed) -> the cell whose truths others share
        used_inv: set[int] = set()
        total = sum(int(g[2]) for g in groups)
        from tqdm.auto import tqdm

        bar = tqdm(total=total, unit="trial", desc=f"export {study}", disable=not progress,
                   dynamic_ncols=True)
        try:
            for gi, (cid, seed, _, source, learners, design) in enumerate(groups):
                meta, em, lm = _export_cell(st, gi, cid, int(seed), source, learners, design,
                                            starts, ends, study)
                used_inv.update(int(i) for i in meta.pop("_inv"))
                meta["file"] = errors_w.add({f"g{gi}_{k}": v for k, v in em.items()})
                if lm is not None:
                    members, lmeta = lm
                    _share_truths(shared, (source, learners, int(seed)), gi, em, members, lmeta)
                    lmeta["file"] = losses_w.add({f"g{gi}_{k}": v for k, v in members.items()})
                    meta["losses"] = lmeta
                cells_meta.append(meta)
                bar.update(meta["trials"])
        finally:
            bar.close()
            errors_w.close()
            losses_w.close()
        written = errors_w.written + losses_w.written
        files = {}
        for name, tmp in written:
            size = tmp.stat().st_size
            if size > max_file_bytes:
                raise _err(f"{name} would be {size:,} bytes, over the limit {max_file_bytes:,}")
            files[name] = {"sha256": _sha256(tmp), "bytes": size,
                           "kind": "errors" if name.startswith("errors") else "losses"}
        _add_digests(cells_meta, {name: tmp for name, tmp in written})
        manifest = _manifest(st, study, cells_meta, files, invs, sorted(used_inv))
        # replace the earlier export: data files first, then the manifest that names them
        for name, tmp in written:
            os.replace(tmp, out / name)
        stale = set((old or {}).get("files", {})) - set(files)
        for name in stale:
            (out / name).unlink(missing_ok=True)
        manifest["checks"] = {"stats_version": stats_version()}
        _write_manifest(out, manifest)
        if check:
            manifest["checks"].update(_check_export(st, out, progress))
            _write_manifest(out, manifest)
        if out != final:
            os.replace(out, final)
            out = final
    except BaseException:
        for wr in writers:  # temporaries only: files already renamed stay
            wr.close()
            for _, tmp in wr.written:
                tmp.unlink(missing_ok=True)
        if out != final:
            shutil.rmtree(out, ignore_errors=True)
        raise
    finally:
        snapshot.close()
        if own:
            st.close()
    files_bytes = {k: v["bytes"] for k, v in manifest["files"].items()}
    files_bytes[MANIFEST] = (out / MANIFEST).stat().st_size
    return ExportSummary(out, study, int(manifest["trials"]), len(cells_meta), files_bytes,
                         time.perf_counter() - t0, manifest.get("checks", {}),
                         time.process_time() - c0)


def _old_manifest(out: Path, study: str) -> dict | None:
    p = out / MANIFEST
    if not p.exists():
        return None
    try:
        old = json.loads(p.read_text())
    except (OSError, ValueError):
        raise _err(f"{str(p)!r} exists and is not a shipped-trials manifest; not "
                   "overwritten (give another --out)") from None
    if old.get("format") != FORMAT:
        raise _err(f"{str(p)!r} exists and is not a shipped-trials manifest; not overwritten")
    if old.get("study") != study:
        raise _err(f"{str(out)!r} holds the shipped trials of study {old.get('study')!r}, "
                   f"not {study!r}; give another --out")
    return old


def _export_cell(st, gi: int, cid: str, seed: int, source: str, learners: str, design: str,
                 starts: np.ndarray, ends: np.ndarray, study: str = ""):
    from .seeding import cell_key, trial_seed

    ct = st.fold_errors([cid], seed)[cid]
    T, K, R, F = ct.errors.shape
    rows = st.provenance_rows(cid, seed)
    runs = np.array([r[0] for r in rows], dtype=np.int64)
    if not np.array_equal(runs, ct.runs):
        raise _err(f"cell {cid!r}: the store changed while exporting")
    if len({(r[7], r[8], r[9]) for r in rows}) != 1:
        raise _err(f"cell {cid!r} holds trials of different sources, learners or designs")
    ntr = _integral(ct.n_train, "n_train", cid)
    nte = _integral(ct.n_test, "n_test", cid)
    counts = np.rint(ct.errors * nte[:, None]).astype(np.int64)
    exact = _same_bits(counts / nte[:, None].astype(np.float64), ct.errors) and \
        (counts >= 0).all()
    members: dict[str, np.ndarray] = {"runs": runs.astype(np.int32 if runs.max() < 2**31
                                                          else np.int64)}
    if exact:
        members["counts"] = _uint(np.ascontiguousarray(counts.transpose(1, 2, 3, 0)), "counts")
    else:  # not quotients count / n_test: keep the rates themselves
        members["errors"] = ct.errors
    for name, x in (("ntrain", ntr), ("ntest", nte)):
        const = (x == x[:1]).all()
        members[name] = _uint(x[0] if const else np.ascontiguousarray(x.transpose(1, 2, 0)),
                              name)
    inv = _which_invocation(np.array([r[2] if r[2] is not None else 0.0 for r in rows]),
                            starts, ends)
    if (inv != inv[0]).any():
        members["inv"] = _uint(inv + 1, "invocations")  # 0: not known
    key = cell_key(cid)  # trial_seed(seed, cid, run), written out: one hash per cell
    if rows and str(trial_seed(seed, cid, int(rows[0][0])).spawn_key) != f"({key}, {rows[0][0]})":
        raise _err("simstudy.seeding.trial_seed changed its spawn key; export cannot check seeds")
    derived = all(r[1] == f"SeedSequence({seed}, spawn_key=({key}, {r[0]}))" for r in rows)
    if not derived:
        raise _err(f"cell {cid!r}: the stored trial seeds are not those of "
                   "simstudy.seeding.trial_seed(root seed, cell, run); this format cannot "
                   "recompute them")
    pair, alpha, choice = _tests_in_store(st, cid, seed)
    seconds = [r[3] for r in rows if r[3] is not None]
    meta = {
        "index": gi, "cell": cid, "seed": seed, "source": source,
        "source_key": _source_key(cid, source, learners, design),
        "learners": learners.split("~"), "design": design, "K": K, "R": R, "F": F,
        "trials": T, "runs": int(runs.max()) + 1,
        "errors": "counts" if exact else "float64",
        "n_train": "cell" if members["ntrain"].ndim == 2 else "trial",
        "n_test": "cell" if members["ntest"].ndim == 2 else "trial",
        "invocation": int(inv[0]) if "inv" not in members else None,
        "tests": pair, "choices": choice, "alpha": alpha,
        "versions": sorted({r[4] for r in rows if r[4] is not None}),
        "impl": sorted({r[5] for r in rows if r[5] is not None}),
        "source_hash": sorted({r[6] for r in rows if r[6] is not None}),
        "worker_seconds": round(float(sum(seconds)), 1),
        "_inv": sorted(set(inv[inv >= 0].tolist())),
    }
    lm = _losses_members(st, meta, seed, runs, nte, study,
                         counts.transpose(1, 2, 3, 0) if exact else None)
    return meta, members, lm


def _manifest(st, study: str, cells: list[dict], files: dict, invs: list[dict],
              used: list[int]) -> dict:
    from .provenance import blas_kernels, compile_target

    try:
        from .catalog import get_study

        decl = get_study(study)
        description = decl.description
        declared_runs = decl.runs
    except Exception:  # noqa: BLE001 - a store's study need not be registered here
        description, declared_runs = "", None
    runs = [c["runs"] for c in cells]
    trials = int(sum(c["trials"] for c in cells))
    alphas = sorted({c["alpha"] for c in cells if c["alpha"] is not None})
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "study": study,
        "description": description,
        "seeds": sorted({int(c["seed"]) for c in cells}),
        "alpha": alphas[0] if len(alphas) == 1 else alphas or None,
        "trials": trials, "cells": len(cells),
        "runs_per_cell": {"min": min(runs), "max": max(runs), "declared": declared_runs},
        "with_losses": int(sum(c["losses"]["trials"] for c in cells if c.get("losses"))),
        "bytes": int(sum(f["bytes"] for f in files.values())),
        "files": files,
        "provenance": {
            "source_store": Path(str(st.path)).name,
            "note": "the store records simstudy's version, host, compile target and BLAS "
                    "kernels per invocation (below), not a commit or the other packages' "
                    "versions; 'export' gives those of the checkout that exported",
            "invocations": [invs[i] for i in used] if used else [],
            "wall_seconds": round(sum(invs[i]["wall_seconds"] or 0.0 for i in used), 1),
            "worker_seconds": round(sum(c["worker_seconds"] for c in cells), 1),
            "export": {"time": _iso(time.time()), "commit": _git_commit(),
                       "packages": _packages(), "compile_target": compile_target(),
                       "blas": blas_kernels()},
        },
        "invocation_ids": [invs[i]["id"] for i in range(len(invs))],
        "left_out": LEFT_OUT,
        "groups": cells,
    }


def _write_manifest(out: Path, manifest: dict) -> None:
    tmp = out / f".{MANIFEST}.{os.getpid()}.tmp"
    tmp.write_text(json.dumps(manifest, indent=1, sort_keys=False) + "\n")
    os.replace(tmp, out / MANIFEST)


def _members(path: Path | io.BytesIO) -> dict[str, zipfile.ZipInfo]:
    """The members of one data file by array name (``g3_runs``), from its zip directory
    (nothing is decompressed)."""
    with zipfile.ZipFile(path) as zf:
        return {zi.filename.removesuffix(".npy"): zi for zi in zf.infolist()}


def _digest(g: dict, members: Iterable[tuple[str, zipfile.ZipInfo]]) -> str:
    """What binds a manifest entry to its arrays: a sha256 of the entry's cell id, seed and
    index with the name, CRC-32 and size of each of its arrays (read from the zip
    directories, so checking it decompresses nothing).  An entry whose cell label was
    swapped with another's no longer matches the arrays it points to."""
    rows = sorted((name, zi.CRC, zi.file_size) for name, zi in members)
    key = json.dumps([g["cell"], int(g["seed"]), int(g["index"]), rows])
    return hashlib.sha256(key.encode()).hexdigest()


def _add_digests(groups: list[dict], paths: dict[str, Path]) -> None:
    """Set each entry's ``digest`` (:func:`_digest`) from the data files at ``paths``."""
    files = {name: {k: (zi, None) for k, zi in _members(p).items()}
             for name, p in paths.items()}
    for g in groups:
        g["digest"] = _digest(g, [(k, zi) for k, (zi, _) in _group_headers(g, files)])


def _check_export(st, out: Path, progress: bool) -> dict:
    """Read the export back: every trial as the store has it; p-values and choices as the
    store's results.  A trial difference raises; result differences are counted."""
    from .core import loss_sums, nested_sums

    reader = ShippedTrials(out)
    pv_cmp = pv_same = ch_cmp = ch_same = 0
    first_diff: list[str] = []
    try:
        for g in reader.manifest["groups"]:
            cid, seed = g["cell"], int(g["seed"])
            mine = reader.fold_errors([cid], seed)[cid]
            theirs = st.fold_errors([cid], seed)[cid]
            only_truths = (g.get("losses") or {}).get("sums") == "none"
            for f in ("runs", "n_train", "n_test") + (() if only_truths else ("has_losses",)):
                if not np.array_equal(getattr(mine, f), getattr(theirs, f)):
                    raise _err(f"export check: cell {cid!r}: {f} differ after the round trip")
            if not _same_bits(mine.errors, theirs.errors):
                raise _err(f"export check: cell {cid!r}: fold errors differ after the round "
                           "trip")
            if g.get("losses") and not only_truths:
                for i, (a, b) in enumerate(zip(reader.losses(cid, seed),
                                               st.losses(cid, seed), strict=True)):
                    if g["losses"]["layout"] == "sums" and b is not None:
                        pairs = _pairs(g["design"])
                        b = loss_sums(b) if pairs is None else nested_sums(b, pairs)
                    if (a is None) != (b is None) or (a is not None and not _same_losses(a, b)):
                        raise _err(f"export check: cell {cid!r}, run {int(mine.runs[i])}: "
                                   "per-instance losses differ after the round trip")
            for se in (False, True):
                a, b = reader.truths(cid, seed, se=se), st.truths(cid, seed, se=se)
                if (a is None) != (b is None) or (a is not None and not _same_bits(a, b)):
                    raise _err(f"export check: cell {cid!r}: the trials' numeric truths "
                               "differ after the round trip")
            cell = reader.cell(cid, seed, tests=tuple(g["tests"]) + tuple(g["choices"]))
            if g["tests"]:
                pv = reader.pvalues([cell], seed)
                ref = st.pvalues([cell], seed)
                m = pv.merge(ref, on=["cell", "test", "a", "b", "run"], how="outer",
                             suffixes=("", "_store"), indicator=True)
                both = m["_merge"] == "both"
                same = both & _eq(m["pvalue"], m["pvalue_store"]) & \
                    _eq(m["statistic"], m["statistic_store"])
                pv_cmp += len(m)
                pv_same += int(same.sum())
                for r in m[~same].head(3).itertuples(index=False):
                    first_diff.append(f"{r.cell} {r.test} ({r.a},{r.b}) run {r.run}: "
                                      f"{r.pvalue!r} vs store {r.pvalue_store!r}")
            if g["choices"]:
                ch = reader.choices([cell], seed)
                ref = st.choices([cell], seed)
                m = ch.merge(ref, on=["cell", "test", "run"], how="outer",
                             suffixes=("", "_store"))
                ch_cmp += len(m)
                ch_same += int((m["best"] == m["best_store"]).sum())
    finally:
        reader.close()
    return {"trials": "identical (fold errors bit for bit, sizes, runs, losses)",
            "pvalues": {"compared": pv_cmp, "identical": pv_same, "differing": first_diff[:5]},
            "choices": {"compared": ch_cmp, "identical": ch_same}}


def _same_losses(a, b) -> bool:
    """Per-instance losses equal, or their sums (:class:`~simstudy.core.LossSums`,
    :class:`~simstudy.core.NestedSums`) equal bit for bit."""
    import dataclasses

    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and np.array_equal(a, b)
    return type(a) is type(b) and all(_same_bits(getattr(a, f.name), getattr(b, f.name))
                                      for f in dataclasses.fields(a))


def _eq(a: pd.Series, b: pd.Series) -> pd.Series:
    x, y = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
    return pd.Series((x.view(np.uint64) == y.view(np.uint64)) | (np.isnan(x) & np.isnan(y)),
                     index=a.index)


# =========================================================================================
# p-values trial by trial (the tests without a batch form)
# =========================================================================================

def _per_trial(test, ct, a: int, b: int, idx: Iterable[int], losses=None
               ) -> tuple[np.ndarray, np.ndarray]:
    from .core import FoldLosses

    idx = list(idx)
    stat, p = np.empty(len(idx)), np.empty(len(idx))
    for j, i in enumerate(idx):
        fl = FoldLosses(ct.errors[i], ct.n_train[i], ct.n_test[i],
                        None if losses is None else losses[i])
        r = test(fl, a, b)
        stat[j], p[j] = float(r.statistic), float(r.pvalue)
    return stat, p


# =========================================================================================
# the reader
# =========================================================================================

class ShippedTrials:
    """The shipped trials of one study (a directory with ``manifest.json``), read with the
    same columnar API as :class:`simstudy.store.Store`.

    Parameters
    ----------
    path : path
        The directory (``figures/<study>/trials``) or its ``manifest.json``.

    Every data file's sha256 is checked against the manifest when it is first read; a
    changed, damaged or missing file is one :class:`~simstudy.errors.SimstudyError`.

    Examples
    --------
    A directory is checked when opened (the module's example reads a real one):

    >>> ShippedTrials("no/such/dir")
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: 'no/such/dir' holds no shipped trials (no manifest.json); export a store with: python -m simstudy trials export STORE --study NAME --out no/such/dir
    """

    def __init__(self, path: str | os.PathLike) -> None:
        p = Path(path)
        if p.name == MANIFEST and p.is_file():
            p = p.parent
        if not (p / MANIFEST).is_file():
            raise _err(f"{str(p)!r} holds no shipped trials (no {MANIFEST}); export a "
                       "store with: python -m simstudy trials export STORE --study NAME "
                       f"--out {p}")
        try:
            m = json.loads((p / MANIFEST).read_text())
        except (OSError, ValueError) as e:
            raise _err(f"{str(p / MANIFEST)!r} is not a readable shipped-trials manifest "
                       f"({e})") from None
        if not isinstance(m, dict) or m.get("format") != FORMAT:
            raise _err(f"{str(p / MANIFEST)!r} is not a shipped-trials manifest (format "
                       f"{m.get('format') if isinstance(m, dict) else None!r}, expected "
                       f"{FORMAT!r})")
        missing = [k for k in ("study", "groups", "files", "provenance") if k not in m]
        if missing:
            raise _err(f"{str(p / MANIFEST)!r} lacks {', '.join(missing)}; not a complete "
                       "shipped-trials manifest (export the store again)")
        if int(m.get("format_version", 0)) > FORMAT_VERSION:
            raise _err(f"{str(p)!r} has shipped-trials format {m.get('format_version')}, "
                       f"newer than this simstudy reads ({FORMAT_VERSION}); upgrade simstudy")
        self.path = p
        self.manifest = m
        self.study: str = m["study"]
        self._groups = {(g["cell"], int(g["seed"])): g for g in m["groups"]}
        self._files: dict[str, object] = {}
        self._cache: dict[tuple[str, int], object] = {}
        self._checked = False
        self.notes: list[str] = []

    # --- plumbing ---------------------------------------------------------------------
    def describe(self) -> str:
        """A short name for messages: ``shipped trials 'figures/type1/trials'``.

        Relative to the working directory when below it, so a card written in a checkout
        names the same place on every machine."""
        path = Path(self.path).resolve()
        with contextlib.suppress(ValueError):
            path = path.relative_to(Path.cwd().resolve())
        return f"shipped trials {str(path)!r}"

    def __repr__(self) -> str:
        return (f"<ShippedTrials {self.study!r}: {self.manifest['trials']:,} trials, "
                f"{self.manifest['cells']} cells at {str(self.path)!r}>")

    def close(self) -> None:
        self._files.clear()
        self._cache.clear()

    def __enter__(self) -> ShippedTrials:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- integrity --------------------------------------------------------------------
    def problems(self) -> list[tuple[str, str]]:
        """Every way the directory disagrees with its manifest, as (file or cell, what):
        each data file present, of its recorded size and sha256; the manifest's totals
        equal to its entries'; each entry's trial count, learners and fold shape equal to
        the shapes of its arrays (read from the ``.npy`` headers, before any array); each
        entry's cell label bound to its arrays (``digest``).  Empty when all is well.

        Examples
        --------
        >>> all(r.problems() == [] for r in open_shipped(["type1"]))  # as shipped
        True
        """
        m, out = self.manifest, []
        gs = m["groups"]
        if sum(int(g["trials"]) for g in gs) != int(m.get("trials", -1)):
            out.append((MANIFEST, f"its cells hold {sum(int(g['trials']) for g in gs):,} "
                                  f"trials, its total says {m.get('trials')!r}"))
        if len(gs) != int(m.get("cells", -1)):
            out.append((MANIFEST, f"it lists {len(gs)} cell entries, its total says "
                                  f"{m.get('cells')!r}"))
        files: dict[str, dict[str, zipfile.ZipInfo]] = {}
        for name, info in m["files"].items():
            path = self.path / name
            try:
                data = path.read_bytes()
            except OSError as e:
                out.append((name, "is missing" if isinstance(e, FileNotFoundError)
                            else f"cannot be read ({e.strerror})"))
                continue
            if len(data) != int(info.get("bytes", -1)):
                out.append((name, f"has {len(data):,} bytes, the manifest says "
                                  f"{info.get('bytes')!r} (truncated or replaced)"))
                continue
            got = hashlib.sha256(data).hexdigest()
            if got != info.get("sha256"):
                out.append((name, f"does not match its sha256 in {MANIFEST} (expected "
                                  f"{str(info.get('sha256'))[:16]}..., found {got[:16]}...)"))
                continue
            try:
                files[name] = _headers(io.BytesIO(data))
            except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
                out.append((name, f"is not a readable shipped-trials part ({e})"))
        for g in gs:
            names = [g.get("file")] + ([g["losses"].get("file")] if g.get("losses") else [])
            unlisted = [n for n in names if n not in m["files"]]
            if unlisted:
                out.append((f"cell {g.get('cell')!r}", f"its file {unlisted[0]!r} is not "
                                                        f"listed in {MANIFEST}"))
                continue
            if not all(n in files for n in names):
                continue  # that file's problem is reported above
            out += [(f"cell {g['cell']!r} (seed {g['seed']})", p)
                    for p in _shape_problems(g, files)]
            if "digest" in g:
                members = [(k, zi) for k, (zi, _) in _group_headers(g, files)]
                if _digest(g, members) != g["digest"]:
                    out.append((f"cell {g['cell']!r} (seed {g['seed']})",
                                f"its label does not belong to its arrays g{g['index']}_* "
                                "(cell labels in the manifest swapped or edited)"))
        return out

    def check(self, *, cached: bool = True) -> None:
        """Raise one :class:`~simstudy.errors.SimstudyError` line for the first of
        :meth:`problems`, naming the file and ``trials verify``.

        ``cached``: once this directory (its files' paths, sizes and modification times)
        has passed, it is not checked again by this reader nor, through a small file
        under the user's cache directory, by later processes."""
        if cached and (self._checked or _stamp(self.path, self.manifest) in _passed()):
            self._checked = True
            return
        found = self.problems()
        if found:
            more = f" (and {len(found) - 1} more problems)" if len(found) > 1 else ""
            raise _err(f"{self.describe()}: {_say(*found[0])}{more}; {_RESTORE} --dir "
                       f"{self.path}")
        self._checked = True
        _remember(_stamp(self.path, self.manifest))

    def _file(self, name: str):
        """The npz ``name``, its sha256 checked against the manifest (once per reader)."""
        f = self._files.get(name)
        if f is not None:
            return f
        self.check()
        info = self.manifest["files"].get(name)
        path = self.path / name
        if info is None:
            raise _err(f"{self.describe()}: the manifest lists no file {name!r}")
        try:
            data = path.read_bytes()
        except OSError:
            raise _err(f"{self.describe()}: {name} is missing; {_RESTORE}") from None
        got = hashlib.sha256(data).hexdigest()
        if got != info["sha256"]:
            raise _err(f"{self.describe()}: {name} does not match the sha256 in {MANIFEST} "
                       f"(expected {info['sha256'][:16]}..., found {got[:16]}...): the file "
                       f"was changed or damaged; {_RESTORE}")
        f = np.load(io.BytesIO(data), allow_pickle=False)
        self._files[name] = f
        return f

    def _group(self, cell: str, seed: int) -> dict | None:
        return self._groups.get((cell, int(seed)))

    def cell(self, cell: str, seed: int, tests: tuple[str, ...] = ()):
        """A :class:`simstudy.study.Cell` for a shipped cell (to recompute its trials)."""
        from .study import Cell

        g = self._group(cell, seed)
        if g is None:
            raise _err(f"{self.describe()} holds no cell {cell!r} at seed {seed}")
        return Cell(g["source"], tuple(g["learners"]), g["design"], tuple(tests),
                    source_key=g.get("source_key") or "")

    def _trials(self, g: dict):
        from .store import CellTrials

        key = (g["cell"], int(g["seed"]))
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        f = self._file(g["file"])
        pre = f"g{g['index']}_"
        T, K, R, F = g["trials"], g["K"], g["R"], g["F"]
        runs = f[pre + "runs"].astype(np.int64)

        def sizes(name: str) -> np.ndarray:
            x = f[pre + name].astype(np.float64)
            return np.broadcast_to(x, (T, R, F)).copy() if x.ndim == 2 else \
                np.ascontiguousarray(x.transpose(2, 0, 1))

        ntr, nte = sizes("ntrain"), sizes("ntest")
        if g["errors"] == "counts":
            c = f[pre + "counts"]
            errors = c.transpose(3, 0, 1, 2).astype(np.float64) / nte[:, None]
        else:
            errors = f[pre + "errors"].astype(np.float64)
        lm = g.get("losses")
        if not lm or lm.get("sums") == "none":  # truths only
            has = np.zeros(T, dtype=bool)
        elif lm["trials"] == T:
            has = np.ones(T, dtype=bool)
        else:
            has = self._file(lm["file"])[pre + "haslosses"].astype(bool)
        ct = CellTrials(g["cell"], int(g["seed"]), runs, errors, ntr, nte, has)
        if ct.errors.shape != (T, K, R, F):
            raise _err(f"{self.describe()}: cell {g['cell']!r} has errors of shape "
                       f"{ct.errors.shape}, the manifest says {(T, K, R, F)}")
        self._cache[key] = ct
        return ct

    @staticmethod
    def _upto(ct, runs: int | None):
        if runs is None or (ct.runs.size and ct.runs[-1] < runs):
            return ct
        from .store import CellTrials

        k = int(np.searchsorted(ct.runs, int(runs), side="left"))
        return CellTrials(ct.cell, ct.seed, ct.runs[:k], ct.errors[:k], ct.n_train[:k],
                          ct.n_test[:k], ct.has_losses[:k])

    def _asked(self, cells: Sequence, seed: int, runs: int | None):
        """(cell, manifest entry, trials) of each asked cell with shipped trials."""
        for cell in cells:
            g = self._group(cell.id, seed)
            if g is not None:
                ct = self._upto(self._trials(g), runs)
                if ct.T:
                    yield cell, g, ct

    # --- the reader API (as Store) ----------------------------------------------------
    def holdings(self, cells: list[str] | None = None) -> pd.DataFrame:
        """What is shipped per (cell, seed): trials and the largest run + 1 (from the
        manifest, after :meth:`check`)."""
        self.check()
        gs = self.manifest["groups"]
        df = pd.DataFrame({"cell": [g["cell"] for g in gs],
                           "seed": np.array([int(g["seed"]) for g in gs], dtype=np.int64),
                           "trials": np.array([int(g["trials"]) for g in gs], dtype=np.int64),
                           "runs": np.array([int(g["runs"]) for g in gs], dtype=np.int64)})
        if cells is not None:
            df = df[df["cell"].isin(list(cells))].reset_index(drop=True)
        return df

    def fold_errors(self, cells: Iterable[str], seed: int,
                    runs: int | None = None) -> dict[str, CellTrials]:
        """Cell id -> :class:`simstudy.store.CellTrials` for every shipped cell asked for at
        ``seed`` (runs < ``runs``); fold errors decoded from their counts (bit-identical to
        the store's)."""
        out = {}
        for cid in dict.fromkeys(cells):
            g = self._group(cid, seed)
            if g is None:
                continue
            ct = self._upto(self._trials(g), runs)
            if ct.T:
                out[cid] = ct
        return out

    def pvalues(self, cells: Sequence, seed: int, runs: int | None = None) -> pd.DataFrame:
        """p-values of the pairwise tests each cell asks for (``cell.tests``), recomputed
        from the fold errors: columns cell, test, a, b, run, statistic, pvalue, ordered as
        :meth:`simstudy.store.Store.pvalues`.

        Tests whose registry entry declares a batch form are computed over all trials of a
        cell at once (bit for bit what the entry's function gives trial by trial:
        tests/test_stats_registry.py); tests that need per-instance losses read them and
        go trial by trial.
        """
        from .stats.registry import ChoiceMethod, get_test

        cols = ["cell", "test", "a", "b", "run", "statistic", "pvalue"]
        parts = []
        for cell, _, ct in self._asked(cells, seed, runs):
            K = ct.errors.shape[1]
            losses = None
            for name in cell.tests:
                test = get_test(name)
                if isinstance(test, ChoiceMethod):
                    continue
                idx = np.arange(ct.T)
                if getattr(test, "needs_losses", False):
                    if losses is None:
                        losses = self.losses(cell.id, seed, runs)
                    idx = np.flatnonzero([x is not None for x in losses])
                    if not idx.size:
                        continue
                for a in range(K):
                    for b in range(a + 1, K):
                        stat, p = self._pair_pvalues(test, ct, a, b, idx, losses)
                        parts.append(pd.DataFrame({
                            "cell": cell.id, "test": name, "a": np.int64(a), "b": np.int64(b),
                            "run": ct.runs[idx], "statistic": stat, "pvalue": p}))
        if not parts:
            return pd.DataFrame({c: pd.Series(dtype=t) for c, t in zip(
                cols, [object, object, np.int64, np.int64, np.int64, np.float64, np.float64],
                strict=True)})
        df = pd.concat(parts, ignore_index=True)
        for c in ("a", "b", "run"):
            df[c] = df[c].astype(np.int64)
        return df[cols]

    def _pair_pvalues(self, test, ct, a: int, b: int, idx: np.ndarray, losses):
        if test.batch is None or losses is not None or idx.size < ct.T:
            return _per_trial(test, ct, a, b, idx, losses)
        from .stats.baselines import Trials

        try:
            with np.errstate(all="ignore"):
                out = test.batch(Trials(ct.errors, ct.n_train, ct.n_test), a, b)
        except Exception:  # noqa: BLE001 - a shape the batch does not know: per trial
            return _per_trial(test, ct, a, b, idx)
        return out.statistic, out.pvalue

    def choices(self, cells: Sequence, seed: int, runs: int | None = None) -> pd.DataFrame:
        """Choice-method results (``a = b = -1`` in a store) recomputed from the fold errors
        at the alpha the store decided them at (the study's alpha if it held none): columns
        cell, test, run, best (-1 = none), alpha.  One call per trial (about 3 ms for the
        six methods of a multitest cell)."""
        from .stats.registry import ChoiceMethod, get_test

        parts = []
        for cell, g, ct in self._asked(cells, seed, runs):
            alpha = g.get("alpha") or _alpha_of(self.manifest)
            for name in cell.tests:
                m = get_test(name)
                if not isinstance(m, ChoiceMethod):
                    continue
                best = np.empty(ct.T, dtype=np.int64)
                for i in range(ct.T):
                    b, _ = m(ct.errors[i], alpha)
                    best[i] = -1 if b is None else int(b)
                parts.append(pd.DataFrame({"cell": cell.id, "test": name, "run": ct.runs,
                                           "best": best, "alpha": np.float64(alpha)}))
        if not parts:
            return pd.DataFrame({"cell": pd.Series(dtype=object), "test": pd.Series(dtype=object),
                                 "run": pd.Series(dtype=np.int64),
                                 "best": pd.Series(dtype=np.int64),
                                 "alpha": pd.Series(dtype=np.float64)})
        return pd.concat(parts, ignore_index=True)

    def losses(self, cell: str, seed: int, runs: int | None = None) -> list[np.ndarray | None]:
        """Per-instance 0/1 losses of one cell's trials, aligned with :meth:`fold_errors`:
        int8 (K, R, F, n), -1 off the fold's test positions, None where not kept.  The
        interval studies' cells ship their sums instead (:class:`simstudy.core.LossSums`,
        what every interval method reads; per-instance real losses would not fit).

        The test positions are recomputed from each trial's seed by its design (as the
        runner does, about 1 ms per trial) and checked against the CRC-32 shipped with the
        bits; a mismatch (numpy drew other masks) is an error naming the cell and run."""
        g = self._group(cell, seed)
        if g is None:
            return []
        T = self._upto(self._trials(g), runs).T
        if not g.get("losses"):
            return [None] * T
        got = self._decode_losses(g, range(T))
        return [got.get(i) for i in range(T)]

    def _decode_losses(self, g: dict, indices: Iterable[int]) -> dict[int, np.ndarray]:
        """Losses of the trials at ``indices`` (positions in the cell's run order)."""
        ct = self._trials(g)
        f = self._file(g["losses"]["file"])
        pre = f"g{g['index']}_"
        lm = g["losses"]
        K, R, F = g["K"], g["R"], g["F"]
        has = ct.has_losses
        rank = np.cumsum(has) - 1  # index among the trials that kept losses
        if lm["layout"] == "sums":
            idx = [i for i in indices if has[i]]
            return self._decode_sums(f, pre, lm, K, R, F, {i: int(rank[i]) for i in idx},
                                     ct, {i: i for i in idx})
        crc = f[pre + "maskcrc"]
        raw = np.unpackbits(f[pre + "lossbits"]).astype(bool)
        TL = int(has.sum())
        if lm["layout"] == "instance":
            n = int(lm["n"])
            bits = raw[: n * K * TL * R].reshape(n, K, TL, R)
        else:  # bit offset of each trial: its test positions (sum of n_test) times K
            npos = ct.n_test[has].reshape(TL, -1).sum(1).astype(np.int64) * K
            offsets = np.concatenate([[0], np.cumsum(npos)])
        masks = _MaskMaker(self.cell(g["cell"], g["seed"]), int(g["seed"]))
        out: dict[int, np.ndarray] = {}
        for i in indices:
            if not has[i]:
                continue
            j = int(rank[i])
            run = int(ct.runs[i])
            test = masks.test(run)
            if zlib.crc32(np.packbits(test.ravel()).tobytes()) != int(crc[j]):
                raise _err(f"{self.describe()}: cell {g['cell']!r}, run {run}: the test "
                           "positions recomputed from the trial's seed differ from the "
                           "exported ones (another numpy draws other masks?); its losses "
                           "cannot be placed")
            L = np.full((K, R, F, test.shape[-1]), -1, dtype=np.int8)
            if lm["layout"] == "instance":
                v = bits[:, :, j, :].transpose(1, 2, 0).astype(np.int8)  # (K, R, n)
                L[:] = np.where(test[None], v[:, :, None, :], np.int8(-1))
            else:
                at = int(offsets[j])
                npos_k = int(test.sum())
                for k in range(K):
                    L[k][test] = raw[at + k * npos_k: at + (k + 1) * npos_k]
            out[i] = L
        return out


    @staticmethod
    def _decode_sums(f, pre: str, lm: dict, K: int, R: int, F: int,
                     rank: dict[int, int], ct, idx: dict[int, int]) -> dict:
        from .core import LossSums

        if lm.get("sums") == "none":
            return {}
        if str(lm.get("sums")).startswith("nested"):
            return ShippedTrials._decode_nested(f, pre, lm, K, rank, ct, idx)
        where = np.unpackbits(f[pre + "sumwhere"], count=R * F * F).astype(bool)
        where = where.reshape(R, F, F)
        count = f[pre + "sumcount"].astype(np.int64)
        total = f[pre + "sumtotal"].astype(np.float64)
        prod = f[pre + "sumprod"].astype(np.float64)
        integral = lm.get("sums") == "integers"
        multi = (where.sum(axis=2) > 1)[..., None] & where
        single = where & ~multi
        iu = np.triu_indices(K) if not integral else np.triu_indices(K, 1)
        out = {}
        for i, j in rank.items():
            c = count if count.ndim == 3 else count[j]
            tt = np.zeros((K, R, F, F))
            pp = np.empty((K, K, R, F))
            if integral:  # single-block folds: their error counts; squares: the sums
                errs = np.rint(ct.errors[idx[i]] * ct.n_test[idx[i]][None])  # (K, R, F)
                tt[:, single] = errs[:, single.any(axis=2)]
                tt[:, multi] = total[j]
                d = np.arange(K)
                pp[d, d] = tt.sum(axis=3)
            else:
                tt[:, where] = total[j]
            pp[iu] = prod[j]
            pp[iu[1], iu[0]] = prod[j]
            out[i] = LossSums(c, tt, pp)
        return out

    @staticmethod
    def _decode_nested(f, pre: str, lm: dict, K: int, rank: dict[int, int], ct,
                       idx: dict[int, int]) -> dict:
        from .core import NestedSums

        oc = f[pre + "nsout_count"].astype(np.int64)
        ic = f[pre + "nsin_count"].astype(np.int64)
        integral = lm["sums"] == "nested-integers"
        oP = f[pre + "nsout_prod"].astype(np.float64)
        iS = f[pre + "nsin_total"].astype(np.float64)
        iP = f[pre + "nsin_prod"].astype(np.float64)
        oS = None if integral else f[pre + "nsout_total"].astype(np.float64)
        iu = np.triu_indices(K, 1) if integral else np.triu_indices(K)
        d = np.arange(K)
        out = {}
        for i, j in rank.items():
            c_o = oc if oc.ndim == 2 else oc[j]
            k = c_o.shape[1]
            if integral:  # the outer folds' error counts; squares of 0/1 losses: the sums
                S_o = np.rint(ct.errors[idx[i]][:, :, :k] * ct.n_test[idx[i]][None, :, :k])
            else:
                S_o = oS[j]
            P_o = np.empty((K, K, *c_o.shape))
            P_o[iu] = oP[j]
            P_o[iu[1], iu[0]] = oP[j]
            P_i = np.empty((K, K))
            P_i[iu] = iP[j]
            P_i[iu[1], iu[0]] = iP[j]
            if integral:
                P_o[d, d] = S_o
                P_i[d, d] = iS[j].sum(axis=(1, 2))
            out[i] = NestedSums(c_o, S_o, P_o, ic if ic.ndim == 2 else ic[j], iS[j], P_i,
                                int(lm["n"]))
        return out

    def truths(self, cell: str, seed: int, runs: int | None = None, *, se: bool = False
               ) -> np.ndarray | None:
        """The numeric truth of one cell's trials, as :meth:`simstudy.store.Store.truths`:
        ``(T, K)`` errors of the fitted models on fresh data (``se``: their Monte Carlo
        standard errors), nan rows for trials without one, None if the cell ships none."""
        g = self._group(cell, seed)
        if g is None or not (g.get("losses") or {}).get("truth"):
            return None
        ct = self._upto(self._trials(g), runs)
        held = self._truth_runs(g)
        src = g
        if "truth_from" in g["losses"]:  # the truths of a cell of the same source
            src = next(x for x in self.manifest["groups"]
                       if int(x["index"]) == int(g["losses"]["truth_from"]))
        f = self._file(src["losses"]["file"])
        x = f[f"g{src['index']}_" + ("truese" if se else "trueerror")].astype(np.float64)
        if src is not g:
            x = x[np.searchsorted(self._truth_runs(src), held)]
        out = np.full((int(g["trials"]), x.shape[1]), np.nan)
        out[np.isin(self._trials(g).runs, held)] = x
        return out[: ct.T]

    def _truth_runs(self, g: dict) -> np.ndarray:
        """The runs of a cell's trials that hold a truth (those that kept losses)."""
        runs = self._trials(g).runs
        if int(g["losses"]["trials"]) == int(g["trials"]):
            return runs
        return runs[self._file(g["losses"]["file"])[f"g{g['index']}_haslosses"].astype(bool)]


def _say(where: str, what: str) -> str:
    """One problem as a phrase: ``errors-01.npz is missing``, ``cell 'x' (seed 0): ...``."""
    return f"{where} {what}" if where.endswith(".npz") else f"{where}: {what}"


def _headers(data: io.BytesIO) -> dict[str, tuple[zipfile.ZipInfo, tuple]]:
    """Array name -> (zip member, (shape, dtype)) of one data file: each ``.npy`` header
    decompressed alone (a few hundred bytes), no array read."""
    from numpy.lib import format as npf

    out = {}
    with zipfile.ZipFile(data) as zf:
        for zi in zf.infolist():
            with zf.open(zi) as fh:
                version = npf.read_magic(fh)
                read = npf.read_array_header_1_0 if version == (1, 0) else \
                    npf.read_array_header_2_0
                shape, _, dtype = read(fh)
            out[zi.filename.removesuffix(".npy")] = (zi, (tuple(shape), dtype))
    return out


def _group_headers(g: dict, files: dict) -> list[tuple[str, tuple]]:
    pre = f"g{int(g['index'])}_"
    names = [g["file"]] + ([g["losses"]["file"]] if g.get("losses") else [])
    return [(f"{fn}/{k}", v) for fn in names for k, v in files[fn].items()
            if k.startswith(pre)]


def _shape_problems(g: dict, files: dict) -> list[str]:
    """How one entry's counts disagree with its arrays' shapes (empty when they agree)."""
    pre = f"g{int(g['index'])}_"
    have = {k.split("/", 1)[1].removeprefix(pre): sh for k, (_, sh) in _group_headers(g, files)}
    T, K, R, F = (int(g[x]) for x in ("trials", "K", "R", "F"))
    out = []
    if len(g.get("learners", ())) != K:
        out.append(f"names {len(g.get('learners', ()))} learners, its K is {K}")
    runs = have.get("runs")
    if runs is None:
        return out + [f"has no arrays g{g['index']}_* in {g['file']}"]
    if runs[0] != (T,):
        return out + [f"the data hold {runs[0][0] if runs[0] else '?'} trials, the manifest "
                      f"says {T:,}"]
    want = {"counts": (K, R, F, T)} if g.get("errors") == "counts" else {"errors": (T, K, R, F)}
    for name in ("ntrain", "ntest"):
        want[name] = (R, F) if have.get(name, ((),))[0] == (R, F) else (R, F, T)
    if "inv" in have:
        want["inv"] = (T,)
    lm = g.get("losses")
    if lm and lm.get("layout") == "sums":
        TL = int(lm["trials"])
        if str(lm.get("sums")).startswith("nested"):
            k = int(round((-1 + (1 + 8 * F) ** 0.5) / 2))  # F = k + k(k-1)/2
            pr = K * (K - 1) // 2 if lm["sums"] == "nested-integers" else K * (K + 1) // 2
            want["nsin_total"] = (TL, K, R, k)
            want["nsin_prod"] = (TL, pr)
            want["nsout_prod"] = (TL, pr, R, k)
        elif lm.get("sums") != "none":
            want["sumcount"] = (R, F, F) if lm.get("count") == "cell" else (TL, R, F, F)
            want["sumwhere"] = ((R * F * F + 7) // 8,)
            pairs = K * (K - 1) // 2 if lm.get("sums") == "integers" else K * (K + 1) // 2
            want["sumprod"] = (TL, pairs, R, F)
        if lm.get("truth") and "truth_from" not in lm:
            want.update(trueerror=(TL, K), truese=(TL, K), truediffse=(TL, K * (K - 1) // 2),
                        truen=(TL,))
        if TL != T:
            want["haslosses"] = (T,)
    elif lm:
        want["maskcrc"] = (int(lm["trials"]),)
        if int(lm["trials"]) != T:
            want["haslosses"] = (T,)
    for name, shape in want.items():
        got = have.get(name)
        if got is None:
            out.append(f"lacks its array g{g['index']}_{name}")
        elif got[0] != shape:
            out.append(f"array g{g['index']}_{name} has shape {got[0]}, the manifest's counts "
                       f"(trials {T}, K {K}, R {R}, F {F}) make it {shape}")
    return out


def _cache_path() -> Path:
    """The file recording shipped-trials directories that passed :meth:`ShippedTrials.check`."""
    root = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(root) / "simstudy" / "shipped-trials-checked.json"


_PASSED: set[str] = set()  # this process's memo of the cache file


def _stamp(path: Path, manifest: dict) -> str:
    """What a passed check is keyed on: the directory and each file's size and mtime."""
    parts = [str(Path(path).resolve())]
    for name in [MANIFEST, *sorted(manifest["files"])]:
        try:
            st = (Path(path) / name).stat()
            parts.append(f"{name}:{st.st_size}:{st.st_mtime_ns}")
        except OSError:
            parts.append(f"{name}:missing")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def _passed() -> set[str]:
    if not _PASSED:
        with contextlib.suppress(OSError, ValueError, TypeError):
            _PASSED.update(json.loads(_cache_path().read_text()))
    return _PASSED


def _remember(stamp: str) -> None:
    """Add ``stamp`` to the cache file (best effort: a read-only home only costs a check)."""
    _PASSED.add(stamp)
    path = _cache_path()
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(sorted(_PASSED)[-1000:]))
        os.replace(tmp, path)


class _MaskMaker:
    """The test masks (R, F, n) of a cell's trials, recomputed as the runner draws them."""

    def __init__(self, cell, seed: int) -> None:
        self.cell, self.seed = cell, seed

    def test(self, run: int) -> np.ndarray:
        from .trialdata import design_of, trial_block, trial_data

        d, tr, te = trial_data(self.cell, self.seed, run)
        R, F = design_of(self.cell.design).shape
        _, _, _, test = trial_block(d, tr, te, R * F)
        return test.reshape(R, F, -1)


def _alpha_of(manifest: dict) -> float:
    a = manifest.get("alpha")
    if isinstance(a, (int, float)):
        return float(a)
    try:
        from .catalog import get_study

        return float(get_study(manifest["study"]).alpha)
    except Exception:  # noqa: BLE001
        return 0.05


# =========================================================================================
# finding shipped trials
# =========================================================================================

#: what to do about a missing or damaged shipped file (in every such message)
_RESTORE = ("reinstall simstudy (or restore the checkout's figures/), then check every "
            "shipped file with: simstudy trials verify")


def _checkout_figures() -> Path | None:
    """``figures/`` of the source checkout this package is imported from, if any."""
    root = Path(__file__).resolve().parent.parent
    fig = root / "figures"
    return fig if fig.is_dir() and (root / "pyproject.toml").is_file() else None


def _installed_trials() -> Path | None:
    """The shipped trials installed with the package (``simstudy._shipped``: the wheel's
    copy of ``figures/<study>/trials``), if this simstudy was installed from a wheel."""
    from importlib.resources import files

    # a wheel installs it as plain files; a zipped install is not supported for trials
    p = Path(str(files("simstudy") / "_shipped"))
    return p if p.is_dir() else None


def trials_roots() -> list[tuple[Path, str]]:
    """Where shipped trials are looked for, in order, each with how it was found:
    ``$SIMSTUDY_TRIALS`` (``env``), the installed package's data (``package``), the source
    checkout's ``figures/`` (``checkout``)."""
    roots = [(Path(p), "env") for p in os.environ.get(ENV_DIRS, "").split(os.pathsep) if p]
    for where, p in (("package", _installed_trials()), ("checkout", _checkout_figures())):
        if p is not None:
            roots.append((p, where))
    return roots


def shipped_dirs() -> dict[str, Path]:
    """Study name -> directory of its shipped trials: those under ``$SIMSTUDY_TRIALS``
    (``<dir>/<study>/trials`` or ``<dir>/<study>``; several directories separated by the
    path separator, the first holding a study wins), then the copy installed with the
    package (``simstudy/_shipped/<study>/trials``), then ``figures/<study>/trials`` of the
    checkout this package runs from."""
    found: dict[str, Path] = {}
    for root, _ in trials_roots():
        if not root.is_dir():
            continue
        for sub in sorted(root.iterdir()):
            for d in (sub / "trials", sub):
                m = d / MANIFEST
                if m.is_file():
                    try:
                        study = json.loads(m.read_text()).get("study")
                    except (OSError, ValueError):
                        # named, never skipped: a later root's copy would stand in unseen
                        raise _err(f"shipped trials {str(d)!r} are damaged: {MANIFEST} "
                                   f"cannot be read; {_RESTORE}") from None
                    if study and study not in found:
                        found[study] = d
                    break
    return found


def shipped_summary() -> str:
    """Where the shipped trials are read from, one line per directory that holds any: how
    they were found (``$SIMSTUDY_TRIALS``, the installed package, the source checkout), the
    path, the studies and their trial count (from the manifests; no trial data is read)."""
    found = shipped_dirs()
    if not found:
        return ("shipped trials: none found (looked in $SIMSTUDY_TRIALS, the installed "
                "package and the source checkout)")
    how = {"env": f"${ENV_DIRS}", "package": "installed package",
           "checkout": "source checkout"}
    lines = []
    for root, where in trials_roots():
        studies = {s: d for s, d in found.items() if d.is_relative_to(root)}
        if not studies:
            continue
        n = 0
        for d in studies.values():
            try:
                n += int(json.loads((d / MANIFEST).read_text()).get("trials", 0))
            except (OSError, ValueError, TypeError):
                pass
        lines.append(f"shipped trials: {n:,} of {len(studies)} studies "
                     f"({', '.join(sorted(studies))}) from the {how[where]}, {root}")
        found = {s: d for s, d in found.items() if s not in studies}
    return "\n".join(lines)


def shipped_studies(intervals: bool = False) -> list[str]:
    """The studies whose trials ship, in the catalog's order: those of tests (what the test
    card reads by default), or with ``intervals`` those whose trials carry a numeric truth
    (a study's ``meta['interval_truth']``: what the interval card reads).

    >>> set(shipped_studies()) >= {"type1", "gaussian"}
    True
    """
    from .catalog import available_studies, get_study

    found = shipped_dirs()
    order = [s for s in available_studies() if s in found]
    names = order + sorted(s for s in found if s not in order)

    def interval(name: str) -> bool:
        try:
            return bool(get_study(name).meta.get("interval_truth"))
        except Exception:  # noqa: BLE001 - not registered here: a study of tests
            return False

    return [s for s in names if interval(s) == bool(intervals)]


def open_shipped(studies: Sequence[str] | None = None) -> list[ShippedTrials]:
    """Readers of the shipped trials of ``studies`` (all shipped studies when None), in the
    order asked; a study with no shipped trials is left out (the caller says so).

    >>> isinstance(open_shipped([]), list)
    True
    """
    found = shipped_dirs()
    if studies is not None:
        for s in studies:
            if s not in found:
                _check_not_damaged(s)
    names = list(found) if studies is None else [s for s in studies if s in found]
    return [ShippedTrials(found[s]) for s in names]


def _check_not_damaged(study: str) -> None:
    """Raise when ``study`` has a shipped-trials folder whose manifest is missing or
    unreadable: a damaged install, not a study that ships nothing."""
    for root, _ in trials_roots():
        d = root / study / "trials"
        if not (d.is_dir() and any(d.glob("*.npz"))):
            continue
        m = d / MANIFEST
        if not m.is_file():
            raise _err(f"shipped trials {str(d)!r}: {MANIFEST} is missing; {_RESTORE}")
        try:
            json.loads(m.read_text())
        except (OSError, ValueError):
            raise _err(f"shipped trials {str(d)!r} are damaged: {MANIFEST} cannot be read; "
                       f"{_RESTORE}") from None


def open_path(x: object) -> ShippedTrials | None:
    """A reader when ``x`` is a path to shipped trials (a directory with ``manifest.json``,
    the manifest itself, or ``<dir>`` holding ``trials/manifest.json``), else None."""
    if not isinstance(x, (str, os.PathLike)):
        return None
    p = Path(x)
    for cand in (p, p / "trials"):
        if cand.is_dir() and (cand / MANIFEST).is_file():
            return ShippedTrials(cand)
    if p.name == MANIFEST and p.is_file():
        return ShippedTrials(p)
    return None


# =========================================================================================
# verify
# =========================================================================================

#: learners whose results may differ between CPUs: (name pattern, the kernel that makes
#: them, what the kernel depends on (a key of an invocation's record), the largest share of
#: a fold's test instances whose prediction it may change).  The shares are measured
#: (trials computed for compile target znver5 recomputed for znver1, 84 of type1 and type2,
#: 6 of multitest): the convex lp and lgc moved at most 5 instances (1 % of a fold), the
#: non-convex mlp up to 16 % (79 of 495 on vowel): reassociated sums send its L-BFGS to
#: another optimum.  BLAS and wnb kernels differ in the last bits only.
CPU_KERNELS = (
    ("lp", "simstudy.learners.neural.lbfgs (numba fastmath: reassociation, FMA)",
     "compile_target", 0.01),
    ("lgc", "simstudy.learners.neural.lbfgs (numba fastmath: reassociation, FMA)",
     "compile_target", 0.01),
    ("mlp-*", "simstudy.learners.neural.lbfgs (numba fastmath: reassociation, FMA)",
     "compile_target", 0.25),
    ("wnb", "simstudy.learners.weka.nb (numba fastmath: reassociation)", "compile_target",
     0.01),
    ("svm", "BLAS (fold means and sds, simstudy.learners.preprocess.fold_stats)", "blas",
     0.01),
    ("lda", "BLAS (scipy.linalg)", "blas", 0.01),
)


def cpu_bound(n_test: float, share: float = 0.01) -> int:
    """The largest change a CPU-dependent kernel may make to one fold's error count:
    ``max(1, ceil(share * n_test))`` test instances, ``share`` from :data:`CPU_KERNELS`.

    >>> cpu_bound(50), cpu_bound(345), cpu_bound(495, 0.25)
    (1, 4, 124)
    """
    return max(1, math.ceil(float(n_test) * share))


@dataclass
class VerifyReport:
    """One row per recomputed trial and per damage found (``rows``), and the per-study
    summary."""

    rows: pd.DataFrame
    here: dict
    seconds: float

    STATUSES = ("identical", "machine-dependent", "differs", "damaged")

    @property
    def ok(self) -> bool:
        """True when no file is damaged and every trial is bit-identical or differs only
        in a learner with a CPU-dependent kernel (:data:`CPU_KERNELS`), computed for
        another compile target or BLAS kernel than this machine's, and by no more than
        that kernel's :func:`cpu_bound` per fold."""
        return bool(self.rows.empty or self.rows["status"].isin(
            ["identical", "machine-dependent"]).all())

    def summary(self) -> pd.DataFrame:
        cols = ["study", "trials", *self.STATUSES]
        if self.rows.empty:
            return pd.DataFrame(columns=cols)
        t = self.rows.pivot_table(index="study", columns="status", values="run",
                                  aggfunc="count", fill_value=0, sort=False)
        for c in self.STATUSES:
            if c not in t:
                t[c] = 0
        t["trials"] = t[["identical", "machine-dependent", "differs"]].sum(axis=1)
        return t.reset_index()[cols]


def _sample(reader: ShippedTrials, fraction: float, seed: int) -> list[tuple[dict, int]]:
    """A seeded random sample of ``ceil(fraction * trials)`` trials of one study (at least
    one), as (cell entry, index within the cell)."""
    gs = reader.manifest["groups"]
    sizes = np.array([g["trials"] for g in gs], dtype=np.int64)
    total = int(sizes.sum())
    k = min(total, max(1, math.ceil(fraction * total)))
    key = int.from_bytes(hashlib.sha256(reader.study.encode()).digest()[:4], "big")
    rng = np.random.default_rng([int(seed), key])
    pick = np.sort(rng.choice(total, size=k, replace=False))
    starts = np.concatenate([[0], np.cumsum(sizes)])
    gi = np.searchsorted(starts, pick, side="right") - 1
    return [(gs[int(g)], int(p - starts[g])) for g, p in zip(gi, pick, strict=True)]


def verify(readers: Sequence[ShippedTrials], fraction: float = 0.001, seed: int = 0, *,
           progress: bool = False) -> VerifyReport:
    """Check every shipped file, then recompute a seeded random sample of shipped trials
    from their seeds and compare.

    First :meth:`ShippedTrials.problems` for each study, never cached: every file's size
    and sha256, the manifest's counts against the arrays' shapes, each cell label against
    its arrays; each problem is a ``damaged`` row and that study's trials are not
    recomputed.  Then each sampled trial goes through the runner's own path
    (:func:`simstudy.runner.compute_chunk`: source draw, design masks, every learner's fit
    and prediction); its fold errors, fold sizes, (where shipped) per-instance losses or
    their sums and (for an interval trial) its numeric truth, each model refitted on the
    whole draw and scored on fresh data, are compared bit for bit with the shipped ones.
    A difference is ``machine-dependent``
    only when it lies in learners with a CPU-dependent kernel (:data:`CPU_KERNELS`), the
    invocation that computed the trial recorded another compile target or BLAS kernel than
    this machine's for that kernel, and no fold's error count moves by more than that
    kernel's :func:`cpu_bound`; the row names the kernel, the targets and the largest
    difference.
    Anything else is ``differs``.

    Parameters
    ----------
    readers : ShippedTrials objects (:func:`open_shipped`)
    fraction : float in (0, 1]: share of each study's trials to recompute (at least one)
    seed : int: seed of the sample

    Examples
    --------
    >>> verify([], 0.5).ok
    True
    """
    from .planning import Chunk
    from .provenance import blas_kernels, compile_target
    from .runner import compute_chunk

    if not (isinstance(fraction, (int, float)) and 0 < fraction <= 1):
        raise _err(f"sample must be a fraction in (0, 1], got {fraction!r}")
    t0 = time.perf_counter()
    here = {"compile_target": compile_target(), "blas": blas_kernels()}
    rows, plan = [], []
    for r in readers:
        damage = r.problems()
        rows += [{"study": r.study, "cell": where, "seed": -1, "run": -1, "status": "damaged",
                  "detail": what} for where, what in damage]
        if damage:
            continue
        r._checked = True
        by: dict[tuple[str, int], list[int]] = {}
        groups: dict[tuple[str, int], dict] = {}
        for g, i in _sample(r, float(fraction), int(seed)):
            key = (g["cell"], int(g["seed"]))
            by.setdefault(key, []).append(i)
            groups[key] = g
        plan += [(r, groups[k], v) for k, v in by.items()]
    total = sum(len(v) for _, _, v in plan)
    from tqdm.auto import tqdm

    with tqdm(total=total, unit="trial", desc="verify", disable=not progress,
              dynamic_ncols=True) as bar:
        for r, g, idx in plan:
            ct = r._trials(g)
            cell = r.cell(g["cell"], g["seed"])
            keep = bool(g.get("losses"))
            losses = r._decode_losses(g, idx) if keep else {}
            inv = _trial_invocations(r, g, ct)
            runs = [int(ct.runs[i]) for i in idx]
            truth = keep and bool(g["losses"].get("truth"))
            shipped = _shipped_truths(r, g) if truth else None
            for i, rec in zip(idx, _recompute(compute_chunk, Chunk, r.study, cell,
                                              int(g["seed"]), runs, keep, truth), strict=True):
                status, detail = _compare(r, g, ct, i, rec.losses, losses.get(i), inv[i],
                                          here)
                if truth and status != "differs":
                    status, detail = _compare_truth(rec.losses.truth, shipped, i,
                                                    status, detail)
                rows.append({"study": r.study, "cell": g["cell"], "seed": int(g["seed"]),
                             "run": int(ct.runs[i]), "status": status, "detail": detail})
                bar.update(1)
    return VerifyReport(pd.DataFrame(rows, columns=["study", "cell", "seed", "run", "status",
                                                    "detail"]),
                        here, time.perf_counter() - t0)


def _compare(r: ShippedTrials, g: dict, ct, i: int, fl, shipped_losses, inv: int,
             here: dict) -> tuple[str, str]:
    """(status, detail) of one recomputed trial against the shipped one."""
    from .core import NestedSums, loss_sums, nested_sums

    if not (np.array_equal(fl.n_train, ct.n_train[i]) and np.array_equal(fl.n_test,
                                                                          ct.n_test[i])):
        return "differs", "fold sizes differ"
    E, S = np.asarray(fl.errors, dtype=np.float64), ct.errors[i]
    if E.shape != S.shape:
        return "differs", f"fold errors of shape {E.shape}, shipped {S.shape}"
    counts = np.rint(np.abs(E - S) * ct.n_test[i][None])  # per learner and fold
    bits = E.view(np.uint64) != S.view(np.uint64)
    off = np.zeros(E.shape, dtype=np.int64)  # per fold: test positions whose loss differs
    if isinstance(shipped_losses, NestedSums):
        if fl.losses is None:
            return "differs", "per-instance losses missing"
        mine = nested_sums(fl.losses, _pairs(g["design"]))
        k = mine.out_count.shape[1]
        off = np.zeros(E.shape, dtype=np.int64)
        off[:, :, :k] = (mine.out_total != shipped_losses.out_total) + \
            (mine.in_total != shipped_losses.in_total)
        if not _same_losses(mine, shipped_losses):
            off[:, 0, 0] += 1  # a pooled sum differs: count it against each learner
    elif shipped_losses is not None and not isinstance(shipped_losses, np.ndarray):
        if fl.losses is None:  # interval trials: their sums, compared bit for bit
            return "differs", "per-instance losses missing"
        mine = loss_sums(fl.losses)
        if mine.total.shape != shipped_losses.total.shape:
            return "differs", "loss sums of another shape"
        off = ((mine.total != shipped_losses.total).sum(axis=-1) +
               (np.diagonal(mine.prod, axis1=0, axis2=1) !=
                np.diagonal(shipped_losses.prod, axis1=0, axis2=1)).transpose(2, 0, 1))
    elif shipped_losses is not None:
        if fl.losses is None or fl.losses.shape != shipped_losses.shape:
            return "differs", "per-instance losses missing or of another shape"
        off = (fl.losses != shipped_losses).sum(axis=-1)
    learners = list(g["learners"])
    bad = [k for k in range(len(learners)) if bits[k].any() or off[k].any()]
    if not bad:
        return "identical", ""
    where = ", ".join(repr(learners[k]) for k in bad)
    if inv < 0:
        return "differs", (f"{where} differ; the store did not record which invocation "
                           "computed the trial, so no CPU can be blamed")
    rec = r.manifest["provenance"]["invocations"][inv]
    named = []
    for k in bad:
        kern = _kernel(learners[k])
        if kern is None:
            return "differs", (f"{learners[k]!r} differs (fold errors or losses) and its "
                               "code has no CPU-dependent kernel")
        kernel, key, share = kern
        label = "compile target" if key == "compile_target" else "BLAS kernels"
        was = rec.get(key)
        if was is None or was == here[key]:
            return "differs", (f"{learners[k]!r} ({kernel}) differs although invocation "
                               f"{rec['id']} recorded " + (f"no {label}" if was is None else
                                                          f"this machine's {label} {was!r}"))
        bound = np.array([[cpu_bound(n, share) for n in row] for row in ct.n_test[i]])
        worst = int(max(counts[k].max(), off[k].max()))
        over = (counts[k] > bound) | (off[k] > bound)
        if over.any():
            return "differs", (f"{learners[k]!r} ({kernel}) differs by {worst} "
                               f"misclassified instances in a fold, beyond the bound "
                               f"{int(bound[over].min())} for another {label}")
        named.append(f"{learners[k]!r} by at most {worst} instances per fold, within "
                     f"{share:.0%} of a fold ({kernel}; {label} {was!r}, here {here[key]!r})")
    return "machine-dependent", (f"computed by invocation {rec['id']} on {rec.get('host')!r}; "
                                 + "; ".join(named))


def _kernel(learner: str) -> tuple[str, str, float] | None:
    """(kernel, what it depends on, bound share) of a learner with a CPU-dependent kernel
    (:data:`CPU_KERNELS`), else None."""
    from fnmatch import fnmatchcase

    base = learner.split("[", 1)[0]
    for pat, kernel, key, share in CPU_KERNELS:
        if fnmatchcase(base, pat):
            return kernel, key, share
    return None


def _shipped_truths(r: ShippedTrials, g: dict) -> tuple[np.ndarray, np.ndarray]:
    """A cell's shipped truths per trial: ``(T, K)`` errors and their Monte Carlo standard
    errors (nan rows for trials without a truth)."""
    return (r.truths(g["cell"], int(g["seed"])), r.truths(g["cell"], int(g["seed"]), se=True))


def _compare_truth(truth, shipped: tuple[np.ndarray, np.ndarray], i: int, status: str,
                   detail: str) -> tuple[str, str]:
    """A recomputed trial's numeric truth against the shipped one, bit for bit: the truth
    is a learner fitted on the whole draw and scored on fresh data, so it moves with the
    learner's predictions (a machine-dependent learner's bound covers the fold errors, not
    this)."""
    err, se = shipped
    if truth is None:
        return "differs", "the recomputed trial has no numeric truth"
    got = np.concatenate([truth.error, truth.mc_se])
    want = np.concatenate([err[i], se[i]])
    if np.array_equal(got.view(np.uint64), want.view(np.uint64)):
        return status, detail
    worst = float(np.max(np.abs(got - want)))
    if status == "identical":
        return "differs", f"numeric truth differs (by up to {worst:.3g})"
    return status, (detail + f"; numeric truth differs by up to {worst:.3g}").lstrip("; ")


def _recompute(compute_chunk, Chunk, study: str, cell, seed: int, runs: list[int],
               keep: bool, truth: bool = False) -> list:
    """The records of ``runs``, computed in the canonical blocks of 50 runs a study uses
    (with ``truth``, each with its numeric truth)."""
    out = {}
    blocks: dict[int, list[int]] = {}
    for run in runs:
        blocks.setdefault(run // 50, []).append(run)
    for block in blocks.values():
        for rec in compute_chunk(Chunk(study, cell, tuple(sorted(block)), seed, 0.05, keep,
                                       truth)):
            out[rec.run] = rec
    return [out[run] for run in runs]


def _trial_invocations(r: ShippedTrials, g: dict, ct) -> np.ndarray:
    """Per trial of a cell, the index into the manifest's invocations (-1: not known)."""
    invs = r.manifest["provenance"]["invocations"]
    ids = r.manifest.get("invocation_ids", [])
    pos = {inv["id"]: j for j, inv in enumerate(invs)}

    def at(store_index: int) -> int:
        if store_index < 0 or store_index >= len(ids):
            return -1
        return pos.get(ids[store_index], -1)

    if g.get("invocation") is not None:
        return np.full(ct.T, at(int(g["invocation"])), dtype=np.int64)
    raw = r._file(g["file"])[f"g{g['index']}_inv"].astype(np.int64) - 1
    return np.array([at(int(x)) for x in raw], dtype=np.int64)


def info_text(r: ShippedTrials) -> str:
    """A few lines describing one study's shipped trials (``trials info``)."""
    m = r.manifest
    prov = m["provenance"]
    rp = m["runs_per_cell"]
    runs = str(rp["min"]) if rp["min"] == rp["max"] else f"{rp['min']}-{rp['max']}"
    cells = len({g["cell"] for g in m["groups"]})
    seeds = ", ".join(map(str, m["seeds"]))
    lines = [f"{m['study']}: {m['trials']:,} trials, {cells} cells, root seed"
             f"{'s' if len(m['seeds']) > 1 else ''} {seeds}, {runs} runs per cell, "
             f"{m['bytes']:,} bytes in {len(m['files'])} files ({r.path})"]
    if m.get("with_losses"):
        sums = sum(int(g["losses"]["trials"]) for g in m.get("groups", ())
                   if (g.get("losses") or {}).get("layout") == "sums")
        lines.append(f"  per-instance losses: {m['with_losses'] - sums:,} trials" + (
            f"; the interval methods' loss sums and truths: {sums:,} trials" if sums else ""))
    for inv in prov["invocations"]:
        lines.append(f"  invocation {inv['id']}: simstudy {inv['version']} on {inv['host']!r}, "
                     f"{inv['started']}, {inv['wall_seconds']} s, compile target "
                     f"{inv['compile_target']!r}, BLAS {inv['blas']!r}")
    ex = prov["export"]
    lines.append(f"  exported {ex['time']} from {prov['source_store']!r} at commit "
                 f"{ex['commit']}")
    damage = r.problems()
    if damage:
        more = f" (and {len(damage) - 1} more)" if len(damage) > 1 else ""
        lines.append(f"  DAMAGED: {_say(*damage[0])}{more}; details: python -m simstudy trials "
                     f"verify --dir {r.path}")
        return "\n".join(lines)
    lines.append(f"  files: {len(m['files'])} of {len(m['files'])} match their sha256, "
                 "counts and cell labels")
    pv = m.get("checks", {}).get("pvalues")
    if pv:
        lines.append(f"  export check: p-values {pv['identical']:,}/{pv['compared']:,} "
                     "identical to the store's")
    return "\n".join(lines)
