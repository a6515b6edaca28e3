"""The one exception type for bad user input, and one for a run that could not go on.

Everything a user can get wrong (a name, a path, a number) raises :class:`SimstudyError`,
a :class:`ValueError`, whose message names the bad value with ``!r`` and, where there is a
finite set, the valid choices.  The CLI turns it into one line on stderr and exit status 2.
A run stopped by its machine (a worker process killed) raises :class:`RunFailed`: one line
and exit status 1.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable


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
    """A store SQLite cannot read, as the one line the CLI and the Python API give."""
    return SimstudyError(f"the store is damaged or not a simstudy store ({e})")


def unknown(kind: str, value: object, choices: Iterable[str]) -> SimstudyError:
    """Error for a name that is not in a registry, listing the valid choices."""
    valid = ", ".join(sorted(choices))
    return SimstudyError(f"unknown {kind} {value!r}; valid choices: {valid}")


def guarded(command: Callable[[], int | None]) -> int:
    """Run ``command`` as ``python -m simstudy`` runs each of its commands (also the check
    and pilot scripts in ``scripts/``): a :class:`SimstudyError` or a damaged
    store (an error SQLite raised, or pandas wrapped) is one line on stderr and exit status 2,
    a :class:`RunFailed` one line and 1, Ctrl-C says how to resume (an :class:`Interrupted`
    says what it was told instead; 130), a closed pipe is quiet.  Returns the exit status.

    Examples
    --------
    >>> def bad():
    ...     raise SimstudyError("runs must be a positive integer, got 0")
    >>> guarded(bad)  # the line goes to stderr
    2
    """
    import os
    import sys

    try:
        rc = command()
        sys.stdout.flush()
    except SimstudyError as e:
        print(f"simstudy: error: {e}", file=sys.stderr)
        return 2
    except RunFailed as e:
        print(f"simstudy: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # the reader went away (report ... | head): stop quietly, as cat does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as e:
        said = str(e) if isinstance(e, Interrupted) and str(e) else \
            "finished trials are stored, rerun to resume"
        print(f"simstudy: interrupted; {said}", file=sys.stderr)
        return 130
    except Exception as e:
        fault = sqlite_fault(e)
        if fault is None:
            raise
        print(f"simstudy: error: {store_fault(fault)}", file=sys.stderr)
        return 2
    return int(rc or 0)
