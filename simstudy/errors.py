"""The one exception type for bad user input, and one for a run that could not go on.

Everything a user can get wrong (a name, a path, a number) raises :class:`SimstudyError`,
a :class:`ValueError`, whose message names the bad value with ``!r`` and, where there is a
finite set, the valid choices.  The CLI (:func:`simstudy.cli.guarded`) turns it into one line on stderr and exit status
2.  A run stopped by its machine (a worker process killed) raises :class:`RunFailed`: one
line and exit status 1.
"""

from __future__ import annotations

from collections.abc import Iterable


class SimstudyError(ValueError):
    """Bad user input: one clear message, never a traceback at the CLI."""


class RunFailed(RuntimeError):
    """A run could not go on for a reason outside its input (a local worker process died):
    one line at the CLI, exit status 1; the trials finished before are stored."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C in a command that says itself what was done and what was kept (a card stores
    nothing, so "rerun to resume" would be wrong there); the CLI prints its message."""


class SimstudyWarning(UserWarning):
    """Something the user should know before a run goes on (its size, workers capped): one
    line, ``simstudy: warning: ...`` at the command line."""


def sqlite_fault(e: BaseException | None) -> Exception | None:
    """The SQLite error behind ``e``: ``e`` itself, or the one pandas wraps in its own
    ``DatabaseError`` (``pandas.read_sql``); None when there is none."""
    import sqlite3

    while e is not None:
        if isinstance(e, sqlite3.DatabaseError):
            return e
        e = e.__cause__
    return None


def store_fault(e: Exception) -> SimstudyError:
    """A store SQLite cannot read or write, as the one line the CLI and the Python API give:
    named for what it is (:func:`fault`) where SQLite says."""
    return SimstudyError(fault(e, "the store") or
                         f"the store is damaged or not a simstudy store ({e})")


def unknown(kind: str, value: object, choices: Iterable[str]) -> SimstudyError:
    """Error for a name that is not in a registry, listing the valid choices."""
    valid = ", ".join(sorted(choices))
    return SimstudyError(f"unknown {kind} {value!r}; valid choices: {valid}")


_OS_FAULTS = {
    "ENOSPC": "no space left on the device (disk full)",
    "EDQUOT": "disk quota exceeded",
    "EROFS": "the file system is mounted read-only",
    "EACCES": "permission denied (a read-only file or folder?)",
    "EPERM": "operation not permitted (a read-only file or folder?)",
    "EIO": "an input/output error from the device",
}
_SQLITE_FAULTS = {
    "SQLITE_FULL": "no space left on the device (disk full)",
    "SQLITE_READONLY": "it cannot be written: a read-only file, folder or mount",
    "SQLITE_BUSY": "it is locked by another process (a run writing to it?); retry when "
                   "that ends",
    "SQLITE_LOCKED": "it is locked by another connection; retry when that ends",
    "SQLITE_NOTADB": "it is not a SQLite database (a foreign file)",
    "SQLITE_CORRUPT": "it is damaged (truncated or overwritten); restore a copy",
    "SQLITE_CANTOPEN": "it cannot be opened (a missing folder, or no permission)",
    "SQLITE_PERM": "permission denied",
    "SQLITE_IOERR": "an input/output error reading or writing it",
}
#: what undoes each fault, after its name
_NEXT = {"SQLITE_FULL": "free space and rerun (what was stored before is kept)",
         "ENOSPC": "free space and rerun (files are written whole or not at all)",
         "EDQUOT": "free space and rerun (files are written whole or not at all)"}


def _unwritable(path: object) -> str | None:
    """Why the folder of ``path`` cannot take a new file, as a fault's name: a read-only
    mount (``EROFS``), a full disk (``SQLITE_FULL``), a read-only folder
    (``SQLITE_READONLY``); None when it can.  SQLite reports each of them, met while it sets
    up its -wal/-shm files, as "unable to open" or an I/O error."""
    import os
    from pathlib import Path

    try:
        folder = Path(path).resolve().parent
        st = os.statvfs(folder)
    except (OSError, TypeError, ValueError):
        return None
    if st.f_flag & os.ST_RDONLY:
        return "EROFS"
    if st.f_bavail * st.f_frsize < 65536:
        return "SQLITE_FULL"
    return None if os.access(folder, os.W_OK) else "SQLITE_READONLY"


def fault(e: BaseException, what: str = "", path: object = None) -> str | None:
    """One line naming an operating-system or SQLite fault for what it is (a full disk, a
    read-only file or mount, a lock held by another process, a truncated or foreign file),
    or None when ``e`` is not such a fault.  ``what`` names the file concerned; ``path``,
    its path, tells what SQLite reports as "unable to open" or an I/O error for what it is
    (a full disk, a read-only folder or mount).

    Why: the file is usually fine -- "damaged" for a full disk would have a user delete a
    healthy store.

    >>> import errno
    >>> fault(OSError(errno.ENOSPC, "No space left on device"), "out/demo.csv")
    'out/demo.csv: no space left on the device (disk full); free space and rerun (files are written whole or not at all)'
    """
    import errno
    import sqlite3

    name = None
    if isinstance(e, sqlite3.Error):
        code = getattr(e, "sqlite_errorname", None) or ""
        text = str(e).lower()
        name = next((k for k in _SQLITE_FAULTS if code == k or code.startswith(k + "_")), None)
        if name is None:  # older Pythons: no error names, only the message
            for k, words in (("SQLITE_FULL", "disk is full"), ("SQLITE_READONLY", "readonly"),
                             ("SQLITE_BUSY", "locked"), ("SQLITE_NOTADB", "not a database"),
                             ("SQLITE_CORRUPT", "malformed"),
                             ("SQLITE_CANTOPEN", "unable to open")):
                if words in text:
                    name = k
                    break
        if name == "SQLITE_IOERR" and "short_read" in code.lower():
            return f"{what}: it is truncated (shorter than it says); restore a copy".lstrip(": ")
        if name in ("SQLITE_IOERR", "SQLITE_CANTOPEN") and path is not None:
            name = _unwritable(path) or name
        if name is None:
            return None
        msg = _SQLITE_FAULTS.get(name) or _OS_FAULTS[name]
    elif isinstance(e, OSError) and e.errno is not None:
        name = errno.errorcode.get(e.errno)
        if name not in _OS_FAULTS:
            return None
        msg = _OS_FAULTS[name]
        what = what or (e.filename and str(e.filename)) or ""
    else:
        return None
    tail = f"; {_NEXT[name]}" if name in _NEXT else ""
    return f"{what}: {msg}{tail}" if what else f"{msg}{tail}"

