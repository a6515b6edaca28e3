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


def unknown(kind: str, value: object, choices: Iterable[str]) -> SimstudyError:
    """Error for a name that is not in a registry, listing the valid choices."""
    valid = ", ".join(sorted(choices))
    return SimstudyError(f"unknown {kind} {value!r}; valid choices: {valid}")


def guarded(command: Callable[[], int | None]) -> int:
    """Run ``command`` as ``python -m simstudy`` runs each of its commands (also the check
    and pilot scripts in ``scripts/``): a :class:`SimstudyError` or a damaged
    store is one line on stderr and exit status 2, a :class:`RunFailed` one line and 1,
    Ctrl-C says how to resume (130), a closed pipe is quiet.  Returns the exit status.

    Examples
    --------
    >>> def bad():
    ...     raise SimstudyError("runs must be a positive integer, got 0")
    >>> guarded(bad)  # the line goes to stderr
    2
    """
    import os
    import sqlite3
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
    except sqlite3.DatabaseError as e:
        print(f"simstudy: error: the store is damaged or not a simstudy store ({e})",
              file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (report ... | head): stop quietly, as cat does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("simstudy: interrupted; finished trials are stored, rerun to resume",
              file=sys.stderr)
        return 130
    return int(rc or 0)
