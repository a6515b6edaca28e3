"""The result store: one SQLite file, one row per finished trial.

Why SQLite: it ships with Python (nothing to install), a whole file is one portable
artifact, and its transactions are atomic and durable, so a run killed with SIGKILL leaves
every committed trial intact and nothing half-written (an interrupted transaction is rolled
back when the file is next opened).  Only the main process writes; workers return results.
Each work unit (a chunk of a cell's runs) is committed in one transaction as it finishes.

The durable fact is a trial's fold losses.  Test statistics and p-values are *derived*
from them: each result row carries the version of the statistics code that computed it,
so a rerun computes missing or outdated results from the stored losses without refitting
anything, and decisions are taken when reading, from the p-values and the alpha asked for.

Tables (schema version :data:`SCHEMA_VERSION`)
----------------------------------------------
``meta``    key -> value: ``schema_version``, ``created_by``
``trials``  (cell, seed, run) -> trial seed, learners, design, source, fold error rates
            (K x R x F, JSON), n_train / n_test (R x F, JSON), seconds, time, version,
            ``impl`` (JSON: the implementation that fitted each learner), ``source_hash``,
            ``losses`` (per-instance losses, :func:`core.pack_losses`: 0/1 as packed bits,
            real-valued ones as float64, with the trial's numeric truth where the study
            computes one; NULL unless the study keeps them)
``results`` (cell, seed, run, test, a, b) -> statistic, pvalue, df, alpha (the study's, for
            the record), reject (at that alpha, for the record), ``extra`` (JSON, e.g. a
            choice method's order), ``stats_version``.  A K-learner choice method has
            a = b = -1 and statistic = the chosen learner (NULL for none).
``runs``    one row per invocation: study, arguments, version, host, start / end time,
            ``status`` (running / finished / failed / interrupted) and ``message``

Opening: :class:`Store` with ``readonly=True`` (``report``, ``bench``) opens the file
read-only and never creates or alters anything; ``readonly=False`` (``run``) creates a new
store, migrates a store of schema 1 in place (one transaction, after a backup copy) and
refuses a SQLite file that is not a simstudy store.

Every SQL statement of simstudy is written here: other modules read and write through
named methods of :class:`Store`, :class:`MergeTarget` (``merge``) and :class:`LeaseTable`
(``lease``), and read stored trials through :class:`TrialReader`, which the shipped trials
implement too.
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import hashlib
import json
import os
import platform
import shutil
import sqlite3
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from . import __version__
from .core import FoldLosses, Truth, pack_losses, unpack_losses, unpack_truth
from .errors import SimstudyError, fault
from .provenance import blas_kernels, compile_target

if TYPE_CHECKING:
    from .study import Cell

DEFAULT_STORE = "simstudy-store.sqlite"
SCHEMA_VERSION = 2


@functools.cache
def stats_version() -> str:
    """Version stamp of the code that turns fold losses into results: a hash of
    ``simstudy/stats/*.py`` (the pure functions and the named tests, ``stats/registry.py``).

    Every result row carries it; a rerun recomputes, from the stored fold losses, the
    results whose stamp differs (no learner is fitted).  It reads files, so it lives here
    beside the store that records it, not in the pure ``stats`` package.  (In simstudy 0.1.0's first layout
    the hash also covered ``simstudy/stattests.py``; results stamped by that version are
    recomputed once, with identical numbers.)
    """
    here = Path(__file__).resolve().parent / "stats"
    h = hashlib.sha256()
    for f in sorted(here.glob("*.py")):
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]

_TABLES = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS trials (
    cell TEXT NOT NULL, seed INTEGER NOT NULL, run INTEGER NOT NULL,
    study TEXT, source TEXT, learners TEXT, design TEXT,
    trial_seed TEXT, errors TEXT NOT NULL, n_train TEXT NOT NULL, n_test TEXT NOT NULL,
    seconds REAL, created REAL, version TEXT, impl TEXT, source_hash TEXT, losses BLOB,
    PRIMARY KEY (cell, seed, run)
);
CREATE TABLE IF NOT EXISTS results (
    cell TEXT NOT NULL, seed INTEGER NOT NULL, run INTEGER NOT NULL,
    test TEXT NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL,
    statistic REAL, pvalue REAL, df TEXT, alpha REAL, reject INTEGER,
    extra TEXT, stats_version TEXT,
    PRIMARY KEY (cell, seed, run, test, a, b)
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, study TEXT, args TEXT, version TEXT,
    host TEXT, started REAL, finished REAL, trials_done INTEGER, status TEXT, message TEXT
);
"""

# schema 1 (simstudy 0.1.0, first release) -> 2: columns added, nothing renamed or dropped
_MIGRATE_1_TO_2 = [
    "ALTER TABLE trials ADD COLUMN impl TEXT",
    "ALTER TABLE trials ADD COLUMN source_hash TEXT",
    "ALTER TABLE trials ADD COLUMN losses BLOB",
    "ALTER TABLE results ADD COLUMN extra TEXT",
    "ALTER TABLE results ADD COLUMN stats_version TEXT",
    "ALTER TABLE runs ADD COLUMN status TEXT",
    "ALTER TABLE runs ADD COLUMN message TEXT",
]
_SIMSTUDY_TABLES = {"trials", "results", "runs"}


@dataclass
class TrialRecord:
    """What one finished trial leaves in the store."""

    cell: str
    seed: int
    run: int
    study: str
    source: str
    learners: tuple[str, ...]
    design: str
    trial_seed: str
    losses: FoldLosses
    results: list[ResultRow]
    seconds: float
    impl: tuple[str, ...] = ()
    source_hash: str | None = None


@dataclass
class ResultRow:
    """One test (or choice method) evaluated on one trial's stored losses."""

    test: str
    a: int
    b: int
    statistic: float
    pvalue: float
    df: object = None
    alpha: float | None = None
    extra: object = None
    stats_version: str | None = None

    def values(self, cell: str, seed: int, run: int) -> tuple:
        p = _float_or_none(self.pvalue)
        reject = None if p is None or self.alpha is None or self.a < 0 else int(p < self.alpha)
        return (cell, seed, run, self.test, self.a, self.b, _float_or_none(self.statistic), p,
                json.dumps(self.df), self.alpha, reject,
                None if self.extra is None else json.dumps(self.extra), self.stats_version)


def _float_or_none(x: float | None) -> float | None:
    if x is None:
        return None
    x = float(x)
    return None if np.isnan(x) else x  # SQLite stores NaN as NULL anyway; make it explicit


def _decoded(v: object) -> np.ndarray | None:
    """Packed per-instance losses -> int8 array (already decoded arrays pass through)."""
    if v is None or isinstance(v, np.ndarray):
        return v
    return unpack_losses(bytes(v))


def _tables(con: sqlite3.Connection) -> set[str]:
    rows = con.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    return {r[0] for r in rows}


def _schema_version(con: sqlite3.Connection, path: Path) -> int | None:
    """Schema version of an open database; None for an empty one; error if foreign."""
    names = _tables(con) - {"sqlite_sequence"}
    if not names:
        return None
    if "meta" in names:
        row = con.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
        if row is None:
            raise SimstudyError(f"{str(path)!r} has a meta table but no schema version; "
                                "it is not a simstudy store")
        return int(row[0])
    if _SIMSTUDY_TABLES <= names:
        return 1  # wave-1 stores had no meta table
    raise SimstudyError(
        f"{str(path)!r} is a SQLite database but not a simstudy store (its tables: "
        f"{', '.join(sorted(names))}); give --store a new file name")


def _header_problem(path: Path) -> str | None:
    """Why the file at ``path`` is not a whole SQLite database, from its 100-byte header
    (None when it may be): a foreign file, or one shorter than its header says (a copy or
    download cut short; SQLite would read the missing pages as zeros).  Skipped while a
    ``-wal`` or ``-journal`` file exists: a writer may be growing the file."""
    if any(Path(f"{path}{x}").exists() for x in ("-wal", "-journal")):
        return None
    size = path.stat().st_size
    with open(path, "rb") as f:
        head = f.read(100)
    if not head.startswith(b"SQLite format 3\x00"):
        return "it is not a SQLite database (a foreign file); give --store a simstudy store"
    if len(head) < 100:
        return f"it is truncated ({size} bytes, less than a SQLite header); restore a copy"
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    if head[24:28] == head[92:96] and size < pages * page:  # the page count is valid
        return (f"it is truncated ({size:,} bytes, its header says {pages * page:,}); "
                "restore a copy")
    return None


def _wal_files(path: Path) -> bool:
    return any(Path(f"{path}{x}").exists() for x in ("-wal", "-shm"))


def readonly_uri(path: Path) -> str:
    """The URI SQLite opens the store at ``path`` read-only with.  A WAL store in a folder
    this process cannot write (a read-only folder or mount) cannot get the -shm file SQLite
    reads it with, and one in a file it cannot write gets -wal/-shm files it cannot remove;
    with no -wal beside it no writer is at work (a writer would need one there), so it is
    then read as an immutable file."""
    path = Path(path).resolve()
    uri = f"{path.as_uri()}?mode=ro"
    if not _wal_files(path) and not (os.access(path.parent, os.W_OK)
                                     and os.access(path, os.W_OK)):
        uri += "&immutable=1"
    return uri


def _connect_readonly(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(readonly_uri(path), uri=True, timeout=60)


def _tidy_wal(path: Path) -> None:
    """Remove the -wal and -shm files beside ``path`` as SQLite does when its last
    read-write connection closes (a connection opened and closed here does it, and only
    when no other process has the store open: it takes SQLite's lock first)."""
    if not Path(f"{path}-wal").exists():
        return
    with contextlib.suppress(sqlite3.Error, OSError), \
            contextlib.closing(sqlite3.connect(path, timeout=0.1)) as con:
        con.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()


def _fill(con: sqlite3.Connection) -> None:
    """The tables and meta rows of a new store, inside the caller's transaction
    (``executescript`` would commit between its statements)."""
    for stmt in filter(str.strip, _TABLES.split(";")):
        con.execute(stmt)
    con.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
    con.execute("INSERT OR REPLACE INTO meta VALUES ('created_by', ?)", (f"simstudy {__version__}",))


def _create(path: Path) -> None:
    """A new store at ``path``, complete from the moment it exists: made beside its name (in
    WAL mode, tables and schema version committed) and hard-linked into place, which fails
    when another process got there first -- then that store is used.  Several runs starting
    on one new store at once thus all open the same complete store (creating it in place let
    one see another's half-made tables, or wait on its journal-mode switch).  Where the file
    system has no hard links, the same under an exclusive lock on a file beside it."""
    import uuid

    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.creating")
    try:
        with contextlib.closing(sqlite3.connect(tmp, isolation_level=None)) as con:
            con.execute("PRAGMA journal_mode=WAL")
            con.execute("BEGIN")
            _fill(con)
            con.execute("COMMIT")
        try:
            os.link(tmp, path)
        except FileExistsError:
            pass  # another process created it first: theirs is complete too
        except OSError:
            _create_locked(tmp, path)
    finally:
        for suffix in ("", "-wal", "-shm", "-journal"):
            Path(f"{tmp}{suffix}").unlink(missing_ok=True)


def _create_locked(tmp: Path, path: Path) -> None:
    """Rename ``tmp`` to ``path`` unless it exists, under a lock on ``.<name>.lock``."""
    import fcntl

    lock = path.with_name(f".{path.name}.lock")
    with open(lock, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            if not path.exists():
                os.replace(tmp, path)
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)
    # the lock file stays: unlinking it would let a later creator lock another inode


def _gunzip(path: Path) -> bytes:
    """The bytes of a gzip'd snapshot; one clear error if it is not gzip."""
    try:
        return gzip.decompress(path.read_bytes())
    except (OSError, EOFError) as e:  # gzip.BadGzipFile is an OSError
        raise SimstudyError(f"{str(path)!r} is not a readable gzip'd simstudy store ({e})") from None


@dataclass(frozen=True)
class CellTrials:
    """One cell's stored trials as arrays (what :meth:`Store.fold_errors` returns).

    ``runs`` int64 (T,) ascending; ``errors`` float64 (T, K, R, F) fold error rates;
    ``n_train``, ``n_test`` float64 (T, R, F) fold sizes; ``has_losses`` bool (T,): the
    trial kept per-instance losses.
    """

    cell: str
    seed: int
    runs: np.ndarray
    errors: np.ndarray
    n_train: np.ndarray
    n_test: np.ndarray
    has_losses: np.ndarray

    @property
    def T(self) -> int:  # noqa: N802 - the papers' letter for the number of trials
        """Number of trials."""
        return int(self.runs.size)


_BRACKETS = str.maketrans("[],", "   ")


def _floats(texts: Sequence[str], per: int) -> np.ndarray | None:
    """Parse JSON arrays of numbers (all of ``per`` numbers) in one pass; None if they are
    not all that size.  Why not json.loads per row: one C-level parse of the joined text
    (numpy's correctly rounded strtod) is ~30x faster over a million trials."""
    if not texts:
        return np.zeros((0, per))
    flat = np.fromstring(" ".join(texts).translate(_BRACKETS), sep=" ")
    if flat.size != per * len(texts):
        return None
    return flat.reshape(len(texts), per)


def _floats_same(texts: Sequence[str], per: int) -> np.ndarray | None:
    """As :func:`_floats`, parsed once when every text is the same (fixed fold sizes)."""
    if texts and texts.count(texts[0]) == len(texts):
        one = _floats(texts[:1], per)
        return None if one is None else np.repeat(one, len(texts), axis=0)
    return _floats(texts, per)


def _asked(cells: Sequence[Cell]) -> pd.DataFrame:
    """(cell, test) of the tests each cell asks for, with their positions (_c, _t)."""
    rows = [(c.id, t, i, j) for i, c in enumerate(cells) for j, t in enumerate(c.tests)]
    return pd.DataFrame(rows, columns=["cell", "test", "_c", "_t"]).drop_duplicates(
        ["cell", "test"])


def run_hint(study: str, path: str | os.PathLike | None) -> str:
    """The command that fills a store with ``study``'s trials, as the user can type it.

    ``study`` is what the user asked for (a registered name or a study file's path: a
    file study's ``Study.name`` is not a command-line name).  A ``.gz`` snapshot is
    read-only, so the hint names a plain store beside it to run into.
    """
    target = "simstudy-store.sqlite" if path is None else str(path)
    extra = ""
    if target.endswith(".gz"):
        gz = target
        target = gz[:-3] if gz[:-3].endswith(".sqlite") else gz[:-3] + ".sqlite"
        extra = (f" (a .gz snapshot is read-only: run into {target}, then read it too, or "
                 f"snapshot it: python -m simstudy snapshot --store {target} {gz})")
    return f"python -m simstudy run {study} --store {target}{extra}"


class Store:
    """An open result store (a SQLite file).

    ``readonly=True`` never writes: the file must exist and be a simstudy store of the
    current schema.  ``create`` is kept as an alias (``create=False`` means read-only).
    A path ending in ``.gz`` is a gzip'd snapshot (:meth:`snapshot`): read-only, opened in
    memory, so results kept in a repository can be reported without unpacking them.
    """

    def __init__(self, path: str | os.PathLike, *, readonly: bool = False,
                 create: bool | None = None) -> None:
        if create is not None:
            readonly = not create
        self.path = Path(path)
        self.readonly = readonly
        if self.path.exists() and self.path.is_dir():
            raise SimstudyError(f"store path {str(self.path)!r} is a directory, not a file")
        packed = self.path.suffix == ".gz"
        if packed and not readonly:
            raise SimstudyError(
                f"store {str(self.path)!r} is a gzip'd snapshot and read-only; unpack it to a "
                f"store to run into with: python -m simstudy snapshot --store {self.path} "
                f"{self.path.with_suffix('')}")
        if readonly and not self.path.exists():
            raise SimstudyError(
                f"store {str(self.path)!r} does not exist; run a study first: "
                f"{run_hint('STUDY', self.path)}")
        if not readonly and not self.path.parent.exists():
            raise SimstudyError(f"store directory {str(self.path.parent)!r} does not exist")
        if readonly and self.path.stat().st_size == 0:
            raise SimstudyError(f"{str(self.path)!r} is an empty file, not a simstudy store")
        if not packed and self.path.is_file() and self.path.stat().st_size:
            bad = _header_problem(self.path)
            if bad:
                raise SimstudyError(f"store {str(self.path)!r}: {bad}")
        # a read-only open of a WAL store makes -wal and -shm files; removed again at close
        # when this open made them
        fresh = not packed and not _wal_files(self.path)
        self._made_wal = readonly and fresh
        self._fresh_wal = fresh
        try:
            if packed:
                self.con = sqlite3.connect(":memory:")
                self.con.deserialize(_gunzip(self.path))
            elif readonly:
                self.con = _connect_readonly(self.path)
            else:
                if not self.path.exists():
                    try:
                        _create(self.path)
                    except OSError as e:
                        raise SimstudyError(fault(e, f"store {str(self.path)!r}") or
                                            f"store {str(self.path)!r} cannot be created: "
                                            f"{e}") from None
                self.con = sqlite3.connect(self.path, timeout=60)
            version = _schema_version(self.con, self.path)
            if readonly:
                if version is None:
                    raise SimstudyError(f"{str(self.path)!r} is an empty SQLite database, "
                                        "not a simstudy store")
                if version != SCHEMA_VERSION:
                    raise SimstudyError(self._version_message(version))
                self.con.execute("PRAGMA query_only=ON")
            else:
                self._open_for_writing(version)
        except sqlite3.Error as e:
            self._made_wal = fresh  # an open that failed leaves no -wal/-shm it made
            self._close_quietly()
            raise SimstudyError(fault(e, f"store {str(self.path)!r}", self.path) or
                                f"{str(self.path)!r} is not a readable simstudy store ({e})"
                                ) from None
        except SimstudyError:
            self._made_wal = fresh
            self._close_quietly()
            raise

    def _close_quietly(self) -> None:
        con = getattr(self, "con", None)
        if con is not None:
            con.close()
        self._tidy()

    def _tidy(self) -> None:
        """Remove the -wal and -shm files a read-only open made, as SQLite does when the
        last read-write connection closes: a connection opened and closed here does it,
        and only when no other process has the store open (it takes SQLite's lock)."""
        if getattr(self, "_made_wal", False):
            self._made_wal = False
            _tidy_wal(self.path)

    def _version_message(self, version: int) -> str:
        if version < SCHEMA_VERSION:
            return (f"store {str(self.path)!r} has schema version {version}, this simstudy "
                    f"reads version {SCHEMA_VERSION}; migrate it in place (a backup copy is "
                    f"kept) with: python -m simstudy migrate --store {self.path}")
        return (f"store {str(self.path)!r} has schema version {version}, newer than this "
                f"simstudy ({__version__}, schema {SCHEMA_VERSION}); upgrade simstudy")

    def _open_for_writing(self, version: int | None) -> None:
        if version is not None and version > SCHEMA_VERSION:
            raise SimstudyError(self._version_message(version))
        if version == 1:
            self.migrate_from_1()
        elif version == SCHEMA_VERSION:
            # early schema-2 stores (written during development) lack later-added columns
            have = {r[1] for r in self.con.execute("PRAGMA table_info(trials)")}
            if "losses" not in have:
                with self.con:
                    self.con.execute("ALTER TABLE trials ADD COLUMN losses BLOB")
        if version is None:  # an empty file given as the store: filled in one transaction
            self.con.execute("BEGIN IMMEDIATE")
            try:
                if _schema_version(self.con, self.path) is None:  # still, under the lock
                    _fill(self.con)
                self.con.execute("COMMIT")
            except BaseException:
                self.con.rollback()
                raise
        self.con.execute("PRAGMA journal_mode=WAL")
        self.con.execute("PRAGMA synchronous=NORMAL")

    def migrate_from_1(self) -> Path:
        """Schema 1 -> 2 in one transaction, after copying the file to ``<path>.v1.bak``."""
        backup = self.path.with_name(self.path.name + ".v1.bak")
        self.con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        shutil.copy2(self.path, backup)
        self.con.isolation_level = None  # explicit BEGIN: ALTERs and inserts in one transaction
        try:
            self.con.execute("BEGIN IMMEDIATE")
            for stmt in _MIGRATE_1_TO_2:
                self.con.execute(stmt)
            self.con.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
            self.con.execute("INSERT INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))
            self.con.execute("INSERT INTO meta VALUES ('created_by', ?)",
                             (f"migrated from schema 1 by simstudy {__version__}",))
            self.con.execute("COMMIT")
        except BaseException:
            self.con.execute("ROLLBACK")
            raise
        finally:
            self.con.isolation_level = ""
        return backup

    def close(self) -> None:
        self.con.close()
        self._tidy()
        self._drop_unwritable_wal()

    def _drop_unwritable_wal(self) -> None:
        """A store file this process may not write (a read-only file opened for a run,
        refused at its first write) keeps the -wal and -shm files this open made: SQLite
        removes them only after a checkpoint, which needs write access.  Removed here when
        this open made them and the -wal holds nothing."""
        wal, shm = Path(f"{self.path}-wal"), Path(f"{self.path}-shm")
        if not getattr(self, "_fresh_wal", False) or os.access(self.path, os.W_OK):
            return
        with contextlib.suppress(OSError):
            if wal.stat().st_size == 0:
                wal.unlink()
                shm.unlink(missing_ok=True)

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing -------------------------------------------------------------------------
    def write(self, records: Iterable[TrialRecord]) -> int:
        """Write a work unit's trials in one transaction (all or nothing)."""
        now = time.time()
        records = list(records)
        with self.con:  # commits, or rolls back on error
            for r in records:
                self.con.execute(
                    "INSERT OR REPLACE INTO trials VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        r.cell, r.seed, r.run, r.study, r.source, "~".join(r.learners), r.design,
                        r.trial_seed,
                        json.dumps(r.losses.errors.tolist()),
                        json.dumps(r.losses.n_train.tolist()),
                        json.dumps(r.losses.n_test.tolist()),
                        r.seconds, now, __version__, json.dumps(list(r.impl)), r.source_hash,
                        None if r.losses.losses is None
                        else pack_losses(r.losses.losses, r.losses.truth),
                    ),
                )
                self._insert_results(r.cell, r.seed, r.run, r.results)
        return len(records)

    def write_results(self, rows: Iterable[tuple[str, int, int, list[ResultRow]]]) -> int:
        """Write results computed from stored losses (no trial row changes), one transaction."""
        n = 0
        with self.con:
            for cell, seed, run, results in rows:
                self._insert_results(cell, seed, run, results)
                n += len(results)
        return n

    def _insert_results(self, cell: str, seed: int, run: int, results: list[ResultRow]) -> None:
        self.con.executemany(
            "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
            [r.values(cell, seed, run) for r in results])

    def start_run(self, study: str, args: dict) -> int:
        from .liveness import process_started

        pid = os.getpid()
        args = {**args, "compile_target": compile_target(), "blas": blas_kernels(),
                "pid": pid, "pid_started": process_started(pid)}
        self._mark_interrupted()
        with self.con:
            cur = self.con.execute(
                "INSERT INTO runs (study, args, version, host, started, trials_done, status) "
                "VALUES (?,?,?,?,?,0,'running')",
                (study, json.dumps(args, default=str), __version__, platform.node(), time.time()),
            )
        return int(cur.lastrowid)

    def finish_run(self, run_id: int, trials_done: int, status: str = "finished",
                   message: str | None = None) -> None:
        with self.con:
            self.con.execute(
                "UPDATE runs SET finished=?, trials_done=?, status=?, message=? WHERE id=?",
                (time.time(), trials_done, status, message, run_id),
            )

    def note_run(self, run_id: int, key: str, value: object) -> None:
        """Add ``key: value`` to an invocation's ``args`` JSON: what is known only as it
        ends (trials another run stored, Dask workers lost, units retried).  The ``runs``
        columns stay as they are, so older stores take it too."""
        with self.con:
            row = self.con.execute("SELECT args FROM runs WHERE id=?", (run_id,)).fetchone()
            if row is None:
                return
            args = json.loads(row[0]) if row[0] else {}
            args[key] = value
            self.con.execute("UPDATE runs SET args=? WHERE id=?",
                             (json.dumps(args, default=str), run_id))

    # --- reading -------------------------------------------------------------------------
    def done_runs(self, cell: str, seed: int, with_losses: bool = False) -> set[int]:
        """Runs stored for a cell (``with_losses``: only those that kept per-instance losses)."""
        q = "SELECT run FROM trials WHERE cell=? AND seed=?"
        if with_losses:
            q += " AND losses IS NOT NULL"
        rows = self.con.execute(q, (cell, seed)).fetchall()
        return {int(r[0]) for r in rows}

    def source_hashes(self, cell: str, seed: int) -> set[str]:
        """The distinct content hashes of the data the stored trials of a cell used."""
        rows = self.con.execute(
            "SELECT DISTINCT source_hash FROM trials WHERE cell=? AND seed=? "
            "AND source_hash IS NOT NULL", (cell, seed)).fetchall()
        return {r[0] for r in rows}

    def result_keys(self, cell: str, seed: int, runs: int) -> pd.DataFrame:
        """(run, test, a, b, stats_version) of the stored results of a cell's first runs."""
        return pd.read_sql_query(
            "SELECT run, test, a, b, stats_version FROM results WHERE cell=? AND seed=? AND run<?",
            self.con, params=(cell, int(seed), int(runs)))

    def count(self) -> int:
        """Number of stored trials."""
        return int(self.con.execute("SELECT COUNT(*) FROM trials").fetchone()[0])

    def total_seconds(self) -> float | None:
        """The summed ``seconds`` (each trial's own compute time) of every stored trial;
        None for an empty store."""
        return self.con.execute("SELECT sum(seconds) FROM trials").fetchone()[0]

    def mean_seconds(self) -> dict[str, float | None]:
        """Cell id -> mean stored ``seconds`` per trial, over the trials that recorded it."""
        return dict(self.con.execute(
            "SELECT cell, AVG(seconds) FROM trials WHERE seconds IS NOT NULL GROUP BY cell"
        ).fetchall())

    def studies(self) -> list[str]:
        """The distinct ``study`` names of the stored trials, sorted."""
        return [r[0] for r in self.con.execute(
            "SELECT DISTINCT study FROM trials ORDER BY study").fetchall()]

    def study_groups(self, study: str) -> list[tuple[str, int, int, str, str, str]]:
        """(cell, seed, trials, source, learners, design) per (cell, seed) of ``study``'s
        trials, in the order they were first stored."""
        return self.con.execute(
            "SELECT cell, seed, COUNT(*), MIN(source), MIN(learners), MIN(design) FROM trials "
            "WHERE study=? GROUP BY cell, seed ORDER BY MIN(rowid)", (study,)).fetchall()

    def provenance_rows(self, cell: str, seed: int) -> list[tuple]:
        """Per stored trial of a cell, in run order: (run, trial_seed, created, seconds,
        version, impl, source_hash, source, learners, design)."""
        return self.con.execute(
            "SELECT run, trial_seed, created, seconds, version, impl, source_hash, source, "
            "learners, design FROM trials WHERE cell=? AND seed=? ORDER BY run",
            (cell, seed)).fetchall()

    def packed_losses(self, cell: str, seed: int) -> list[tuple[int, bytes | None]]:
        """(run, packed per-instance losses or None) of a cell's trials in run order, still
        packed (:func:`core.pack_losses`): a caller decodes one at a time."""
        return self.con.execute(
            "SELECT run, losses FROM trials WHERE cell=? AND seed=? ORDER BY run",
            (cell, seed)).fetchall()

    def result_tests(self, cell: str, seed: int) -> list[tuple[str, int | None, float | None]]:
        """(test, smallest ``a``, largest alpha) per test or choice method with results
        stored for a cell, in the order first stored (``a`` < 0: a choice method)."""
        return self.con.execute(
            "SELECT test, MIN(a), MAX(alpha) FROM results WHERE cell=? AND seed=? GROUP BY test "
            "ORDER BY MIN(rowid)", (cell, seed)).fetchall()

    def run_args(self) -> list[tuple[str | None, str | None]]:
        """(study, args JSON) of each recorded invocation, in order."""
        return self.con.execute("SELECT study, args FROM runs ORDER BY id").fetchall()

    def result_stats_versions(self) -> list[tuple[str, str | None]]:
        """The distinct (study, statistics version) of the stored results."""
        return self.con.execute(
            "SELECT DISTINCT t.study, r.stats_version FROM results r JOIN trials t "
            "ON t.cell = r.cell AND t.seed = r.seed AND t.run = r.run").fetchall()

    def content_digest(self, timing: Iterable[str] = ("seconds", "created")) -> dict[str, list]:
        """[rows, sha256] of the ``trials`` and ``results`` tables in key order, the
        ``timing`` columns left out: equal for two stores holding the same numbers."""
        out = {}
        for t, key in (("trials", "cell, seed, run"), ("results", "cell, seed, run, test, a, b")):
            cols = [r[1] for r in self.con.execute(f"PRAGMA table_info({t})")
                    if r[1] not in set(timing)]
            h, n = hashlib.sha256(), 0
            for row in self.con.execute(f"SELECT {', '.join(cols)} FROM {t} ORDER BY {key}"):
                h.update(repr(row).encode())
                n += 1
            out[t] = [n, h.hexdigest()]
        return out

    @contextlib.contextmanager
    def read_snapshot(self):
        """One read transaction around the block: every read inside sees the same committed
        state, also while a run writes to the store; ended (rolled back) on leaving."""
        if not self.con.in_transaction:
            self.con.execute("BEGIN")
        try:
            yield self
        finally:
            if self.con.in_transaction:
                self.con.rollback()

    def snapshot(self, dest: str | os.PathLike) -> Path:
        """A consistent one-file copy of this store at ``dest``, safe while a run writes to it.

        SQLite's online backup copies the committed state (WAL included) page by page; the
        copy is then set to ``journal_mode=DELETE`` and vacuumed, so it is one self-contained
        file to commit or carry to another machine; a ``dest`` ending in ``.gz`` is gzip'd
        (about 17x smaller; no timestamp inside, so the same trials give the same bytes).  It
        is written beside ``dest`` and renamed over it, so ``dest`` is either what it was or
        the complete copy, never half-written.  ``dest`` may be an older snapshot (a simstudy
        store) but nothing else.
        """
        dest = Path(dest)
        if dest.is_dir():
            raise SimstudyError(f"snapshot destination {str(dest)!r} is a directory, not a file")
        if not dest.parent.is_dir():
            raise SimstudyError(f"snapshot directory {str(dest.parent)!r} does not exist")
        if dest.exists():
            if dest.resolve() == self.path.resolve():
                raise SimstudyError(f"snapshot destination {str(dest)!r} is the store itself")
            try:
                with Store(dest, readonly=True):
                    pass
            except SimstudyError:
                raise SimstudyError(f"{str(dest)!r} exists and is not a simstudy store of this "
                                    "schema; not overwritten") from None
        tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
        packed = tmp.with_name(tmp.name + ".gz")
        try:
            with contextlib.closing(sqlite3.connect(tmp)) as copy:
                self.con.backup(copy)
                bad = _damage(copy)  # a truncated store backs up with its holes as zeros
                if bad:
                    raise SimstudyError(f"store {str(self.path)!r} is damaged ({bad}); no "
                                        f"snapshot written: restore a copy of the store")
                copy.execute("PRAGMA journal_mode=DELETE")
                copy.execute("VACUUM")
            if dest.suffix == ".gz":
                with open(tmp, "rb") as src, open(packed, "wb") as raw, \
                        gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
                    shutil.copyfileobj(src, out)
                os.replace(packed, dest)
            else:
                os.replace(tmp, dest)
        finally:
            tmp.unlink(missing_ok=True)
            packed.unlink(missing_ok=True)
        return dest

    def holdings(self, cells: list[str] | None = None) -> pd.DataFrame:
        """What the store holds per (cell, seed): number of trials and the largest run + 1."""
        df = pd.read_sql_query(
            "SELECT cell, seed, COUNT(*) AS trials, MAX(run) + 1 AS runs FROM trials "
            "GROUP BY cell, seed", self.con)
        if cells is not None:
            df = df[df["cell"].isin(list(cells))].reset_index(drop=True)
        return df

    def trials(self, cells: list[str] | None = None, seed: int | None = None,
               runs: int | None = None, losses: bool = False) -> pd.DataFrame:
        """Trials as a DataFrame with decoded arrays (errors K x R x F, n_train, n_test).

        Per-instance losses stay packed (bytes, or None) unless ``losses=True`` decodes them
        to int8 (K, R, F, n): unpacking every trial's losses would dominate ``report``.
        """
        df = self._select("trials", cells, seed, runs)
        for col in ("errors", "n_train", "n_test"):
            df[col] = [np.asarray(json.loads(v), dtype=float) for v in df[col]]
        if "losses" not in df.columns:
            df["losses"] = None
        if losses:
            df["losses"] = [_decoded(v) for v in df["losses"]]
        return df

    def fold_losses(self, row) -> FoldLosses:
        """The :class:`FoldLosses` of one row of :meth:`trials` (per-instance losses and the
        trial's truth if kept)."""
        truth = None if isinstance(row.losses, np.ndarray) else unpack_truth(row.losses)
        return FoldLosses(row.errors, row.n_train, row.n_test, _decoded(row.losses),
                          truth=truth)

    def results(self, cells: list[str] | None = None, seed: int | None = None,
                runs: int | None = None) -> pd.DataFrame:
        df = self._select("results", cells, seed, runs)
        df["statistic"] = df["statistic"].astype(float)
        df["pvalue"] = df["pvalue"].astype(float)
        return df

    def _select(self, table: str, cells, seed, runs) -> pd.DataFrame:
        q, args = f"SELECT * FROM {table} WHERE 1=1", []
        if seed is not None:
            q += " AND seed=?"
            args.append(int(seed))
        if runs is not None:
            q += " AND run<?"
            args.append(int(runs))
        cells = None if cells is None else list(cells)
        if cells is not None and len(cells) <= 500:  # SQLite's variable limit is far above
            q += f" AND cell IN ({','.join('?' * len(cells))})"
            args.extend(cells)
        df = pd.read_sql_query(q, self.con, params=args)
        if cells is not None:
            df = df[df["cell"].isin(cells)].reset_index(drop=True)
        return df.sort_values(["cell", "run"], kind="stable").reset_index(drop=True)

    def runs_log(self) -> pd.DataFrame:
        """The invocations, one row each.  A run whose process ended without recording an
        end (SIGKILL, a power cut) reads as ``interrupted``, with the trials it stored,
        although its row still says ``running`` (a read-only reader cannot fix it; the next
        run on the store does).  One on another host whose leases all expired reads as
        ``stale``: this host cannot tell whether that process lives."""
        log = pd.read_sql_query("SELECT * FROM runs ORDER BY id", self.con)
        for i, msg, done in self._dead(log):
            log.loc[i, ["status", "message", "trials_done"]] = ["interrupted", msg, done]
        for i, msg in self._stale(log):
            log.loc[i, ["status", "message"]] = ["stale", msg]
        return log

    def _stale(self, log: pd.DataFrame) -> list[tuple[int, str]]:
        """(row, message) of the ``running`` invocations on another host whose leases
        (:mod:`simstudy.lease`) all expired: their process stopped renewing them, so it
        most likely ended (this host cannot look at another's processes to be sure)."""
        if "leases" not in _tables(self.con):
            return []
        out = []
        now = time.time()
        for i, r in enumerate(log.itertuples(index=False)):
            if r.status != "running" or r.host == platform.node():
                continue
            try:
                pid = int(json.loads(r.args)["pid"])
            except (ValueError, KeyError, TypeError):
                continue
            last = self.con.execute(
                "SELECT MAX(expires) FROM leases WHERE owner LIKE ?",
                (f"{r.host}:{pid}:{int(r.id)}:%",)).fetchone()[0]
            if last is not None and float(last) < now:
                when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(float(last)))
                out.append((i, f"its leases expired at {when} unrenewed: the process {pid} "
                               f"on {r.host} has most likely ended; if it has, rerun to "
                               "resume"))
        return out

    def _dead(self, log: pd.DataFrame) -> list[tuple[int, str, int]]:
        """(row, message, trials stored) of the ``running`` invocations whose process on
        this host is gone (its pid, and start time where known, no longer running)."""
        from .liveness import process_gone

        out = []
        starts = log["started"].astype(float).to_numpy()
        for i, r in enumerate(log.itertuples(index=False)):
            if r.status != "running":
                continue
            try:
                a = json.loads(r.args) if r.args else {}
                pid = int(a["pid"])
            except (ValueError, KeyError, TypeError):
                continue
            if not process_gone(r.host, pid, a.get("pid_started")):
                continue
            later = starts[starts > float(r.started)]
            until = float(later.min()) if later.size else time.time()
            done = int(self.con.execute(
                "SELECT COUNT(*) FROM trials WHERE study=? AND created>=? AND created<?",
                (r.study, float(r.started), until)).fetchone()[0])
            out.append((i, f"process {pid} on {r.host} ended without recording its end "
                           "(killed?); rerun to resume", done))
        return out

    def _mark_interrupted(self) -> None:
        """Record as ``interrupted`` the invocations :meth:`_dead` finds."""
        log = pd.read_sql_query("SELECT * FROM runs WHERE status='running'", self.con)
        dead = self._dead(log)
        if dead:
            with self.con:
                self.con.executemany(
                    "UPDATE runs SET status='interrupted', message=?, trials_done=? WHERE id=?",
                    [(msg, done, int(log["id"].iloc[i])) for i, msg, done in dead])

    def mixed(self, study: str | None = None) -> list[str]:
        """Notes on trials of one study computed by different simstudy versions or learner
        implementations (:func:`mixed_provenance`); empty when all agree."""
        return mixed_provenance(self.con, study)

    def cost(self) -> pd.DataFrame:
        """Worker seconds per (study, cell): trials and the summed ``seconds`` of their fits.

        ``seconds`` is each trial's own compute time in the worker that ran it, so the sum is
        worker time (CPU-bound fits: about CPU time), independent of how many workers ran.
        """
        return pd.read_sql_query(
            "SELECT study, cell, source, learners, design, COUNT(*) AS trials, "
            "SUM(seconds) AS seconds FROM trials GROUP BY study, cell ORDER BY study, cell",
            self.con)

    # --- columnar readers (card, bench; the shipped trials implement the same) -----------
    def describe(self) -> str:
        """A short name for messages: ``store 'path'``."""
        return f"store {str(self.path)!r}"

    def _rows(self, cols: str, table: str, cells: Sequence[str], seed: int,
              runs: int | None, extra: str = "") -> list[tuple]:
        """Rows of ``table`` for ``cells`` at ``seed`` (runs < ``runs``), ordered by cell and
        run; cells queried 500 at a time (SQLite's variable limit is above that)."""
        cells = list(dict.fromkeys(cells))
        out: list[tuple] = []
        for i in range(0, len(cells), 500):
            part = cells[i:i + 500]
            q = (f"SELECT {cols} FROM {table} WHERE seed=? AND cell IN "
                 f"({','.join('?' * len(part))}){extra}")
            args: list = [int(seed), *part]
            if runs is not None:
                q += " AND run<?"
                args.append(int(runs))
            out += self.con.execute(q + " ORDER BY cell, run", args).fetchall()
        return out

    def fold_errors(self, cells: Iterable[str], seed: int,
                    runs: int | None = None) -> dict[str, CellTrials]:
        """Cell id -> :class:`CellTrials` (fold errors and sizes as arrays), for every cell
        with at least one stored trial at ``seed`` (runs < ``runs``); one SQL read, each
        cell's arrays parsed in one pass.

        >>> import tempfile, pathlib
        >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "s.sqlite") as s:
        ...     s.fold_errors(["iris/nmc~1nn/5x2"], seed=0)
        {}
        """
        rows = self._rows("cell, run, errors, n_train, n_test, losses IS NOT NULL", "trials",
                          list(cells), seed, runs)
        by: dict[str, list] = {}
        for r in rows:
            by.setdefault(r[0], []).append(r)
        out = {}
        for cid, rs in by.items():
            first = np.asarray(json.loads(rs[0][2]), dtype=float)
            if first.ndim != 3:
                raise SimstudyError(f"{self.describe()}: cell {cid!r} run {rs[0][1]} holds "
                                    f"errors of shape {first.shape}, not (K, R, F)")
            K, R, F = first.shape
            E = _floats([r[2] for r in rs], K * R * F)
            ntr = _floats_same([r[3] for r in rs], R * F)
            nte = _floats_same([r[4] for r in rs], R * F)
            if E is None or ntr is None or nte is None:
                raise SimstudyError(f"{self.describe()}: the trials of cell {cid!r} hold "
                                    "fold errors of different shapes")
            T = len(rs)
            out[cid] = CellTrials(cid, int(seed), np.array([r[1] for r in rs], dtype=np.int64),
                                  E.reshape(T, K, R, F), ntr.reshape(T, R, F),
                                  nte.reshape(T, R, F), np.array([bool(r[5]) for r in rs]))
        return out

    def pvalues(self, cells: Sequence[Cell], seed: int, runs: int | None = None) -> pd.DataFrame:
        """p-values of the pairwise tests each cell asks for (``cell.tests``), one row per
        (cell, test, a, b, run): columns cell, test, a, b, run (int64), statistic, pvalue
        (float64, NaN when undefined); in the cells' order, then each cell's test order,
        a, b, run.  Choice methods (a = b = -1) are in :meth:`choices`."""
        cols = ["cell", "test", "a", "b", "run", "statistic", "pvalue"]
        cells = list(cells)
        rows = self._rows("cell, test, a, b, run, statistic, pvalue", "results",
                          [c.id for c in cells], seed, runs, " AND a>=0")
        df = pd.DataFrame(rows, columns=cols)
        df = df.merge(_asked(cells), on=["cell", "test"], how="inner", sort=False)
        df = df.sort_values(["_c", "_t", "a", "b", "run"], kind="stable")
        df = df.drop(columns=["_c", "_t"]).reset_index(drop=True)
        for c in ("a", "b", "run"):
            df[c] = df[c].astype(np.int64)
        for c in ("statistic", "pvalue"):
            df[c] = df[c].astype(np.float64)
        return df

    def choices(self, cells: Sequence[Cell], seed: int, runs: int | None = None) -> pd.DataFrame:
        """Stored choice-method rows (a = b = -1) of the methods each cell asks for: columns
        cell, test, run (int64), best (int64, -1 = none found), alpha (float64, the level
        they were decided at); in the cells' order, then each cell's test order, run."""
        cells = list(cells)
        rows = self._rows("cell, test, run, statistic, alpha", "results",
                          [c.id for c in cells], seed, runs, " AND a<0")
        df = pd.DataFrame(rows, columns=["cell", "test", "run", "best", "alpha"])
        df = df.merge(_asked(cells), on=["cell", "test"], how="inner", sort=False)
        df = df.sort_values(["_c", "_t", "run"], kind="stable")
        df = df.drop(columns=["_c", "_t"]).reset_index(drop=True)
        best = df["best"].astype(float).to_numpy()
        df["best"] = np.where(np.isnan(best), -1, np.nan_to_num(best, nan=-1)).astype(np.int64)
        df["run"] = df["run"].astype(np.int64)
        df["alpha"] = df["alpha"].astype(np.float64)
        return df

    def losses(self, cell: str, seed: int, runs: int | None = None) -> list[np.ndarray | None]:
        """Per-instance 0/1 losses of one cell's trials, in run order (aligned with
        :meth:`fold_errors`): int8 (K, R, F, n), -1 off the fold's test positions; None
        for a trial that did not keep them."""
        rows = self._rows("losses", "trials", [cell], seed, runs)
        return [None if r[0] is None else unpack_losses(r[0]) for r in rows]

    def truths(self, cell: str, seed: int, runs: int | None = None, *, se: bool = False
               ) -> np.ndarray | None:
        """The numeric truth of one cell's trials, in run order (aligned with :meth:`losses`):
        ``(T, K)`` float64, each fitted model's error on fresh data
        (:class:`simstudy.core.Truth`), or with ``se`` its Monte Carlo standard error; a nan
        row for a trial stored without one; None if no trial of the cell holds one."""
        return truth_rows([unpack_truth(r[0])
                           for r in self._rows("losses", "trials", [cell], seed, runs)], se)


def truth_rows(truths: Sequence[Truth | None], se: bool = False) -> np.ndarray | None:
    """``(T, K)`` errors (or MC standard errors) of some trials' truths, nan rows for None;
    None if there is none."""
    have = [t for t in truths if t is not None]
    if not have:
        return None
    K = have[0].error.shape[0]
    out = np.full((len(truths), K), np.nan)
    for i, t in enumerate(truths):
        if t is not None:
            out[i] = t.mc_se if se else t.error
    return out


def mixed_provenance(con: sqlite3.Connection, study: str | None = None) -> list[str]:
    """One note per study whose trials were computed by more than one simstudy version,
    and per learner fitted by more than one implementation, with the trials of each (merged
    shards from different installs, or a run resumed after an upgrade).  Each trial's
    numbers are right for its code; a difference in code can move a table.

    >>> import tempfile, pathlib
    >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "s.sqlite") as s:
    ...     mixed_provenance(s.con)
    []
    """
    where, args = ("WHERE study=?", (study,)) if study is not None else ("", ())
    notes = []
    by: dict[str, dict[str, int]] = {}
    for st, ver, n in con.execute(f"SELECT study, version, COUNT(*) FROM trials {where} "
                                  "GROUP BY study, version ORDER BY study, version", args):
        by.setdefault(str(st), {})[str(ver)] = int(n)
    for st, vs in by.items():
        if len(vs) > 1:
            notes.append(f"study {st!r}: trials computed by {len(vs)} simstudy versions ("
                         + ", ".join(f"{v}: {n:,}" for v, n in vs.items()) + ")")
    impl: dict[tuple[str, str], dict[str, int]] = {}
    for st, learners, codes, n in con.execute(
            f"SELECT study, learners, impl, COUNT(*) FROM trials {where} "
            "GROUP BY study, learners, impl", args):
        try:
            paths = json.loads(codes) if codes else []
        except ValueError:
            continue
        for name, path in zip(str(learners).split("~"), paths, strict=False):
            d = impl.setdefault((str(st), name), {})
            d[str(path)] = d.get(str(path), 0) + int(n)
    for (st, name), ps in sorted(impl.items()):
        if len(ps) > 1:
            notes.append(f"study {st!r}: learner {name!r} fitted by {len(ps)} implementations ("
                         + ", ".join(f"{p}: {n:,} trial-fits" for p, n in sorted(ps.items()))
                         + ")")
    return notes


# what identifies a row, and what two copies of it must agree in (a trial's timing is not
# part of its identity): the columns merging compares
TRIAL_KEY = ("cell", "seed", "run")
TRIAL_COLS = ("study", "source", "learners", "design", "trial_seed", "errors", "n_train",
              "n_test", "version", "impl", "source_hash", "losses")
TIMING_COLS = ("seconds", "created")
RESULT_KEY = ("cell", "seed", "run", "test", "a", "b")
RESULT_COLS = ("statistic", "pvalue", "df", "alpha", "reject", "extra", "stats_version")
RUN_COLS = ("study", "args", "version", "host", "started", "finished", "trials_done",
            "status", "message")


def stored_row(path: str | os.PathLike, table: str, keycols: Sequence[str], key: tuple,
               cols: Sequence[str]) -> tuple | None:
    """The ``cols`` of the row of ``table`` whose ``keycols`` equal ``key`` in the store
    file at ``path`` (opened read-only), or None."""
    where = " AND ".join(f"{c}=?" for c in keycols)
    with contextlib.closing(sqlite3.connect(readonly_uri(Path(path)), uri=True,
                                            timeout=60)) as con:
        return con.execute(f"SELECT {', '.join(cols)} FROM {table} WHERE {where}",
                           key).fetchone()


class MergeTarget:
    """A new store file being filled from other stores (:func:`simstudy.merging.merge_stores`).

    Created with the tables and meta rows of this schema in ``journal_mode=DELETE`` (one
    self-contained file); :meth:`absorb` copies one input in one transaction.  Closing does
    not rename anything: the caller moves the finished file into place.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> Store(d / "a.sqlite").close()
    >>> with MergeTarget(d / "m.sqlite", "doctest") as m:
    ...     m.absorb(d / "a.sqlite", "a", lambda table, key: ValueError(key)), m.count()
    (0, (0, 0))
    """

    def __init__(self, path: str | os.PathLike, created_by: str) -> None:
        self.path = Path(path)
        self._con = sqlite3.connect(self.path.resolve().as_uri(), isolation_level=None, uri=True)
        try:
            self._con.execute("PRAGMA journal_mode=DELETE")
            self._con.executescript(_TABLES)
            self._con.execute("INSERT INTO meta VALUES ('schema_version', ?)",
                              (str(SCHEMA_VERSION),))
            self._con.execute("INSERT INTO meta VALUES ('created_by', ?)", (created_by,))
        except BaseException:
            self._con.close()
            raise

    def __enter__(self) -> MergeTarget:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._con.close()

    def _differs(self, table: str, key: tuple, cols: tuple) -> tuple | None:
        """The key of the first row of ``src.table`` whose twin in ``main`` differs."""
        on = " AND ".join(f"m.{k} = s.{k}" for k in key)
        ne = " OR ".join(f"s.{c} IS NOT m.{c}" for c in cols)
        return self._con.execute(f"SELECT {', '.join('s.' + k for k in key)} FROM src.{table} s "
                                 f"JOIN main.{table} m ON {on} WHERE {ne} LIMIT 1").fetchone()

    def absorb(self, src: str | os.PathLike, name: str,
               conflict: Callable[[str, tuple], BaseException]) -> int:
        """Copy the trials, results and invocations of the store file ``src`` (attached
        read-only) in one transaction; the number of trials new here.  Each copied
        invocation's ``args`` gets ``merged_from: name``.  A trial or result already here
        that differs in a compared column raises ``conflict(table, key)`` (nothing of
        ``src`` is kept)."""
        con = self._con
        tcols = ", ".join(TRIAL_KEY + TRIAL_COLS + TIMING_COLS)
        rcols = ", ".join(RESULT_KEY + RESULT_COLS)
        con.execute("ATTACH DATABASE ? AS src", (readonly_uri(Path(src)),))
        try:
            con.execute("BEGIN")
            bad = self._differs("trials", TRIAL_KEY, TRIAL_COLS)
            if bad is not None:
                raise conflict("trials", bad)
            bad = self._differs("results", RESULT_KEY, RESULT_COLS)
            if bad is not None:
                raise conflict("results", bad)
            before = con.total_changes
            con.execute(f"INSERT OR IGNORE INTO main.trials ({tcols}) SELECT {tcols} "
                        "FROM src.trials ORDER BY cell, seed, run")
            new = con.total_changes - before
            con.execute(f"INSERT OR IGNORE INTO main.results ({rcols}) SELECT {rcols} "
                        "FROM src.results ORDER BY cell, seed, run, test, a, b")
            for row in con.execute(f"SELECT {', '.join(RUN_COLS)} FROM src.runs "
                                   "ORDER BY id").fetchall():
                row = list(row)
                try:
                    a = json.loads(row[1]) if row[1] else {}
                except ValueError:
                    a = {"unreadable_args": row[1]}
                a["merged_from"] = name
                row[1] = json.dumps(a, default=str)
                con.execute(f"INSERT INTO main.runs ({', '.join(RUN_COLS)}) VALUES "
                            f"({','.join('?' * len(RUN_COLS))})", row)
            con.execute("COMMIT")
        except BaseException:
            if con.in_transaction:
                con.execute("ROLLBACK")
            raise
        finally:
            con.execute("DETACH DATABASE src")
        return new

    def count(self) -> tuple[int, int]:
        """(trials, results) held."""
        return (self._con.execute("SELECT COUNT(*) FROM trials").fetchone()[0],
                self._con.execute("SELECT COUNT(*) FROM results").fetchone()[0])

    def held(self, study: str, seed: int, runs: int) -> int:
        """Trials held of ``study`` at root seed ``seed`` with run < ``runs``."""
        return self._con.execute("SELECT COUNT(*) FROM trials WHERE study=? AND seed=? AND run<?",
                                 (study, seed, int(runs))).fetchone()[0]

    def mixed(self) -> list[str]:
        """:func:`mixed_provenance` of what is held."""
        return mixed_provenance(self._con)

    def record(self, args: dict, trials_done: int, message: str) -> None:
        """The merge's own invocation row (finished now)."""
        now = time.time()
        self._con.execute(
            "INSERT INTO runs (study, args, version, host, started, finished, trials_done, "
            "status, message) VALUES (NULL, ?, ?, ?, ?, ?, ?, 'finished', ?)",
            (json.dumps(args), __version__, platform.node(), now, now, trials_done, message))


LEASE_TABLE = ("CREATE TABLE IF NOT EXISTS leases (unit TEXT PRIMARY KEY, owner TEXT NOT NULL, "
               "expires REAL NOT NULL)")


class LeaseTable:
    """The ``leases`` table of a store (:mod:`simstudy.lease`), on a connection of its own.

    The connection may be used from any thread (joblib asks for the next work unit from a
    callback thread while the main thread writes trials); the caller serialises its use.
    Statements outside :meth:`transaction` commit at once.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.sqlite"
    >>> Store(p).close()
    >>> t = LeaseTable(p)
    >>> with t.transaction():
    ...     t.put("u", "me", 1e12)
    >>> t.holder("u"), t.stored_runs("iris/nmc~1nn/5x2", 0, 0, 9)
    (('me', 1000000000000.0), set())
    >>> t.close()
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self._con = sqlite3.connect(Path(path), timeout=60, check_same_thread=False,
                                    isolation_level=None)
        self._con.execute("PRAGMA synchronous=NORMAL")  # a lost lease only costs a rerun
        self._con.execute(LEASE_TABLE)

    @contextlib.contextmanager
    def transaction(self):
        """One write transaction (``BEGIN IMMEDIATE``): committed at the end of the block,
        rolled back on an error."""
        self._con.execute("BEGIN IMMEDIATE")
        try:
            yield self
            self._con.execute("COMMIT")
        except BaseException:
            self._con.execute("ROLLBACK")
            raise

    def stored_runs(self, cell: str, seed: int, lo: int, hi: int,
                    with_losses: bool = False) -> set[int]:
        """Runs ``lo <= run <= hi`` of a cell stored (``with_losses``: only those that kept
        per-instance losses), read on this connection (inside its transaction)."""
        q = ("SELECT run FROM trials WHERE cell=? AND seed=? AND run>=? AND run<=?"
             + (" AND losses IS NOT NULL" if with_losses else ""))
        return {int(r[0]) for r in self._con.execute(q, (cell, seed, lo, hi))}

    def holder(self, unit: str) -> tuple[str, float] | None:
        """(owner, expiry time) of the lease on ``unit``, or None."""
        return self._con.execute("SELECT owner, expires FROM leases WHERE unit=?",
                                 (unit,)).fetchone()

    def put(self, unit: str, owner: str, expires: float) -> None:
        """Give ``unit``'s lease to ``owner`` until ``expires`` (replacing any)."""
        self._con.execute("INSERT OR REPLACE INTO leases VALUES (?,?,?)", (unit, owner, expires))

    def drop(self, unit: str, owner: str | None = None) -> None:
        """Remove the lease on ``unit`` (only ``owner``'s, when given)."""
        if owner is None:
            self._con.execute("DELETE FROM leases WHERE unit=?", (unit,))
        else:
            self._con.execute("DELETE FROM leases WHERE unit=? AND owner=?", (unit, owner))

    def drop_many(self, units: Iterable[str], owner: str) -> None:
        """Remove ``owner``'s leases on ``units``."""
        self._con.executemany("DELETE FROM leases WHERE unit=? AND owner=?",
                              [(u, owner) for u in units])

    def renew(self, owner: str, expires: float) -> None:
        """Extend every lease of ``owner`` to ``expires``; a renewal that fails (the store
        busy past the timeout) is skipped: the next one retries."""
        with contextlib.suppress(sqlite3.Error):
            self._con.execute("UPDATE leases SET expires=? WHERE owner=?", (expires, owner))

    def drop_owner(self, owner: str) -> None:
        """Remove every lease of ``owner``; a failure is ignored (the leases expire)."""
        with contextlib.suppress(sqlite3.Error):
            self._con.execute("DELETE FROM leases WHERE owner=?", (owner,))

    def close(self) -> None:
        self._con.close()


def _damage(con: sqlite3.Connection) -> str | None:
    """SQLite's ``quick_check`` of an open database: None when it says ok, else its first
    finding (pages a truncated file lacks, overwritten pages)."""
    try:
        rows = con.execute("PRAGMA quick_check(3)").fetchall()
    except sqlite3.DatabaseError as e:
        return str(e)
    found = [str(r[0]) for r in rows]
    return None if found == ["ok"] else "; ".join(found)


def migrate(path: str | os.PathLike) -> str:
    """Bring the store at ``path`` to schema :data:`SCHEMA_VERSION` in place (schema 1:
    one transaction, after a backup copy); one line saying what was done.  A store that
    fails SQLite's ``quick_check`` is refused, whatever its schema says.

    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "s.sqlite"
    >>> Store(p).close()
    >>> migrate(p).endswith("is already at schema version 2")
    True
    """
    path = Path(path)
    if not path.is_file():
        raise SimstudyError(f"store {str(path)!r} does not exist")
    if path.suffix == ".gz":
        raise SimstudyError(f"store {str(path)!r} is a gzip'd snapshot: unpack it with "
                            f"python -m simstudy snapshot --store {path} {path.with_suffix('')}")
    if path.stat().st_size == 0:
        raise SimstudyError(f"{str(path)!r} is an empty file, not a simstudy store")
    bad = _header_problem(path)
    if bad:
        raise SimstudyError(f"store {str(path)!r}: {bad}; not migrated")
    made = not _wal_files(path)
    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro",
                                                uri=True, timeout=60)) as con:
            before = _schema_version(con, path)
            damage = _damage(con)
    except sqlite3.Error as e:
        raise SimstudyError(fault(e, f"store {str(path)!r}") or
                            f"{str(path)!r} is not a readable simstudy store ({e})") from None
    finally:
        if made:
            _tidy_wal(path)
    if damage:
        raise SimstudyError(f"store {str(path)!r} is damaged ({damage}); not migrated: "
                            "restore a copy")
    with Store(path):
        pass  # opening for writing migrates
    if before == SCHEMA_VERSION:
        return f"store {str(path)!r} is already at schema version {SCHEMA_VERSION}"
    return (f"store {str(path)!r} migrated from schema {before} to {SCHEMA_VERSION}; "
            f"backup at {path.name}.v1.bak")


@runtime_checkable
class TrialReader(Protocol):
    """What reads stored trials: a result store (:class:`Store`) and the shipped trials
    (:class:`simstudy.trials.ShippedTrials`) both answer these, with the same columns and
    orders, so ``card``, ``bench`` and the user-test adapter read either alike.

    >>> import tempfile, pathlib
    >>> with Store(pathlib.Path(tempfile.mkdtemp()) / "s.sqlite") as s:
    ...     isinstance(s, TrialReader), s.describe().startswith("store ")
    (True, True)
    """

    def describe(self) -> str:
        """A short name for messages (``store 'path'``, ``shipped trials of ...``)."""
        ...

    def holdings(self, cells: list[str] | None = None) -> pd.DataFrame:
        """Per (cell, seed) held: columns cell, seed, trials, runs (largest run + 1)."""
        ...

    def fold_errors(self, cells: Iterable[str], seed: int,
                    runs: int | None = None) -> dict[str, CellTrials]:
        """Cell id -> :class:`CellTrials` for each held cell asked for (runs < ``runs``)."""
        ...

    def pvalues(self, cells: Sequence[Cell], seed: int, runs: int | None = None) -> pd.DataFrame:
        """p-values of the pairwise tests each cell asks for: columns cell, test, a, b, run,
        statistic, pvalue, in the cells' order, then test order, a, b, run."""
        ...

    def choices(self, cells: Sequence[Cell], seed: int, runs: int | None = None) -> pd.DataFrame:
        """Choice-method results each cell asks for: columns cell, test, run, best (-1 =
        none), alpha."""
        ...

    def losses(self, cell: str, seed: int, runs: int | None = None) -> list[np.ndarray | None]:
        """Per-instance 0/1 losses of a cell's trials aligned with :meth:`fold_errors`
        (int8 (K, R, F, n), -1 off the test positions; None where not kept)."""
        ...

    def close(self) -> None:
        """Release what the reader holds open."""
        ...


def open_reader(x: object) -> TrialReader:
    """A reader of stored trials: a path (``.sqlite``, ``.sqlite.gz``) opens a read-only
    :class:`Store`; an open store (or any object with the same readers, such as the shipped
    trials) passes through.

    >>> open_reader(3)
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: a store must be a path or an open store, got 3
    """
    if hasattr(x, "fold_errors") and hasattr(x, "holdings"):
        return x
    if isinstance(x, (str, os.PathLike)):
        return Store(x, readonly=True)
    raise SimstudyError(f"a store must be a path or an open store, got {x!r:.80}")
