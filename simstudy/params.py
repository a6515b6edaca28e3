"""One validation vocabulary: what a parameter may be, checked and reported one way.

A *constraint* describes the valid values of one parameter: :class:`Interval` (integers or
real numbers between bounds), :class:`Options` (a finite set) or :class:`Boolean`.
:func:`check` validates a Python value, :func:`parse` a command-line text, and both raise a
:class:`~simstudy.errors.SimstudyError` of one shape::

    <name> must be <what the constraint allows>, got <the bad value, !r>

In the spirit of scikit-learn's ``_param_validation`` (``Interval``, ``StrOptions``), kept to
what simstudy's parameters need.  The command line reads its options through the same
constraints (:mod:`simstudy.cli.args`), so it and the Python API give the same message for
the same bad value.

Examples
--------
>>> from simstudy.params import ALPHA, POSITIVE_INT, check
>>> check("alpha", 0.05, ALPHA)
0.05
>>> check("runs", 0, POSITIVE_INT)
Traceback (most recent call last):
...
simstudy.errors.SimstudyError: runs must be a positive integer, got 0
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from .errors import SimstudyError

__all__ = ["Interval", "Options", "Boolean", "check", "parse",
           "ALPHA", "POSITIVE_INT", "SEED", "MAX_SEED", "RUNS", "MAX_RUNS", "SEEDS", "MAX_SEEDS",
           "JOBS", "MAX_JOBS", "BACKEND", "BACKENDS", "RENDER", "check_shard", "check_filter",
           "jobs_for"]

Closed = Literal["both", "left", "right", "neither"]


def _bound(x: float) -> str:
    """A bound as people write it: ``2**63 - 1`` rather than 19 digits."""
    if isinstance(x, int) and x > 2**20 and (x + 1) & x == 0:
        return f"2**{(x + 1).bit_length() - 1} - 1"
    return f"{x:g}" if isinstance(x, float) else str(x)


@dataclass(frozen=True)
class Interval:
    """Numbers of ``type`` (``int`` or ``float``) between ``left`` and ``right`` (None: no
    bound), ``closed`` on the sides named.

    An ``int`` interval takes integral values (``5`` and ``5.0``; never ``True``) and returns
    an ``int``; a ``float`` interval takes any real number but a bool and returns a float.

    Examples
    --------
    >>> Interval(float, 0, 1, closed="neither").describe()
    'a number in (0, 1)'
    >>> Interval(int, 2, None).describe()
    'an integer >= 2'
    >>> Interval(int, 1, 1000).describe()
    'a positive integer <= 1000'
    """

    type: type
    left: float | None
    right: float | None
    closed: Closed = "both"
    why: str = ""  # the reason for a bound, said when a value is refused

    def describe(self) -> str:
        kind = "an integer" if self.type is int else "a number"
        lo, hi = self.left, self.right
        if self.type is int and lo in (0, 1) and self.closed in ("both", "left"):
            if hi is None:
                return "a positive integer" if lo == 1 else "a non-negative integer"
            if self.closed == "both" and lo == 1:
                return f"a positive integer <= {_bound(hi)}"
        if lo is not None and hi is not None:
            a = "[" if self.closed in ("both", "left") else "("
            b = "]" if self.closed in ("both", "right") else ")"
            return f"{kind} in {a}{_bound(lo)}, {_bound(hi)}{b}"
        if lo is not None:
            return f"{kind} {'>=' if self.closed in ('both', 'left') else '>'} {_bound(lo)}"
        if hi is not None:
            return f"{kind} {'<=' if self.closed in ('both', 'right') else '<'} {_bound(hi)}"
        return kind

    def convert(self, value: Any) -> int | float | None:
        """The value as ``type`` if it lies in the interval, else None."""
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            return None
        if self.type is int:
            if not isinstance(value, numbers.Integral) and not float(value).is_integer():
                return None
            v: int | float = int(value)
        else:
            v = float(value)
        lo, hi = self.left, self.right
        if lo is not None and not (v >= lo if self.closed in ("both", "left") else v > lo):
            return None
        if hi is not None and not (v <= hi if self.closed in ("both", "right") else v < hi):
            return None
        return v  # NaN fails every bound's comparison

    def from_text(self, text: str) -> Any:
        return self.type(text)


@dataclass(frozen=True)
class Options:
    """One of a finite set of values (compared with ``==``).

    Examples
    --------
    >>> Options(("serial", "joblib", "dask")).describe()
    "one of 'serial', 'joblib', 'dask'"
    """

    values: tuple[Any, ...]

    def __init__(self, values: Iterable[Any]) -> None:
        object.__setattr__(self, "values", tuple(values))

    def describe(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)

    def convert(self, value: Any) -> Any:
        return value if value in self.values else None

    def from_text(self, text: str) -> Any:
        return text


_TRUE, _FALSE = ("true", "yes", "1"), ("false", "no", "0")


@dataclass(frozen=True)
class Boolean:
    """``True`` or ``False`` (numpy's bools too); as text ``true/false``, ``yes/no``, ``1/0``.

    Examples
    --------
    >>> parse("shuffle", "yes", Boolean())
    True
    """

    def describe(self) -> str:
        return "a boolean (true or false)"

    def convert(self, value: Any) -> bool | None:
        if isinstance(value, bool) or type(value).__name__ == "bool_":
            return bool(value)
        return None

    def from_text(self, text: str) -> Any:
        t = text.strip().lower()
        return True if t in _TRUE else False if t in _FALSE else text


Constraint = Interval | Options | Boolean

MAX_SEED = 2**63 - 1  # the store keeps seeds as SQLite INTEGER (signed 64-bit)
ALPHA = Interval(float, 0, 1, closed="neither")
POSITIVE_INT = Interval(int, 1, None)
SEED = Interval(int, 0, MAX_SEED)  # SeedSequence takes non-negative integers only

#: runs per cell: planning walks every run of every cell, and 10**6 runs already put a
#: reject proportion's Monte Carlo standard error below 0.0005
MAX_RUNS = 10**6
RUNS = Interval(int, 1, MAX_RUNS, why=f"at most {MAX_RUNS:,} runs per cell: a reject "
                "proportion's Monte Carlo standard error is below 0.0005 there, and every run "
                "of every cell is planned and stored one by one")
#: root seeds of one run: each is the whole study again
MAX_SEEDS = 1000
SEEDS = Interval(int, 1, MAX_SEEDS, why=f"at most {MAX_SEEDS:,} root seeds in one run: each "
                 "seed is the whole study again; split larger runs with --seed")
#: workers: each is a process holding its own data sets and compiled learners
MAX_JOBS = 1024
JOBS = Interval(int, 1, MAX_JOBS, why=f"at most {MAX_JOBS:,} workers: each is a process "
                "holding its own data sets and compiled learners")
BACKENDS = ("serial", "joblib", "dask")
BACKEND = Options(BACKENDS)
RENDER = Options(("study", "cells", "none"))


def _message(name: str, value: Any, constraint: Constraint) -> str:
    why = getattr(constraint, "why", "")
    return f"{name} must be {constraint.describe()}, got {value!r}" + (f" ({why})" if why else "")


def check(name: str, value: Any, constraint: Constraint) -> Any:
    """``value`` if ``constraint`` allows it (converted: an ``int`` interval gives an int);
    else :class:`SimstudyError` naming ``name``, what is allowed and the bad value.

    Examples
    --------
    >>> check("seed", 7.0, SEED)
    7
    >>> check("alpha", 1.5, ALPHA)
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: alpha must be a number in (0, 1), got 1.5
    """
    v = constraint.convert(value)
    if v is None:
        raise SimstudyError(_message(name, value, constraint))
    return v


def parse(name: str, text: str, constraint: Constraint) -> Any:
    """:func:`check` of a text (a command-line argument); the message echoes the text.

    Examples
    --------
    >>> parse("runs", "20", POSITIVE_INT)
    20
    """
    try:
        value = constraint.from_text(text)
    except (TypeError, ValueError):
        value = None
    v = None if value is None else constraint.convert(value)
    if v is None:
        raise SimstudyError(_message(name, text, constraint))
    return v


def check_shard(shard: Any) -> tuple[int, int] | None:
    """``shard`` as ``(i, n)`` with ``1 <= i <= n`` (shard ``i`` of ``n``, 1-based as job
    arrays count), from a pair or an ``"I/N"`` text; None stays None.

    Examples
    --------
    >>> check_shard("2/4"), check_shard((1, 3)), check_shard(None)
    ((2, 4), (1, 3), None)
    >>> check_shard((0, 2))
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: shard must be I/N with whole numbers 1 <= I <= N (e.g. 1/4; in a SLURM array --array=1-N: $SLURM_ARRAY_TASK_ID/N), got (0, 2)
    """
    if shard is None:
        return None
    msg = ("shard must be I/N with whole numbers 1 <= I <= N (e.g. 1/4; in a SLURM array "
           f"--array=1-N: $SLURM_ARRAY_TASK_ID/N), got {shard!r}")
    parts = shard.split("/") if isinstance(shard, str) else shard
    try:
        i, n = (Interval(int, 1, None).convert(int(x) if isinstance(x, str) else x)
                for x in parts)
    except (TypeError, ValueError):
        raise SimstudyError(msg) from None
    if i is None or n is None or not 1 <= i <= n:
        raise SimstudyError(msg)
    return int(i), int(n)


def check_filter(pattern: Any) -> str | None:
    """A cell filter: None (every cell) or a non-empty text; an empty one is refused rather
    than taken to mean every cell.

    Examples
    --------
    >>> check_filter("iris/*"), check_filter(None)
    ('iris/*', None)
    """
    if pattern is None:
        return None
    if not isinstance(pattern, str) or not pattern.strip():
        raise SimstudyError(f"filter must be a non-empty text (part of a cell id, or a glob), "
                            f"got {pattern!r}; leave it out to take every cell")
    return pattern


def jobs_for(jobs: Any, backend: str, scheduler: str | None, *, force: bool = False,
             cores: int | None = None) -> tuple[int, str | None]:
    """The workers a run starts: ``jobs`` checked against :data:`JOBS`; more local workers
    than this machine's cores are capped at the cores unless ``force`` (they would only
    share the cores, each with its own memory), with a warning to say so.  A Dask
    scheduler's workers are on other machines: not capped.  Returns (jobs, warning or None).

    Examples
    --------
    >>> jobs_for(8, "joblib", None, cores=2)[0], jobs_for(8, "joblib", None, force=True, cores=2)[0]
    (2, 8)
    """
    import os

    jobs = check("jobs", jobs, JOBS)
    cores = cores or os.cpu_count() or 1
    if backend == "serial" or scheduler is not None or jobs <= cores or force:
        return jobs, None
    return cores, (f"jobs {jobs} is more than this machine's {cores} cores: running {cores} "
                   "workers (more would only share the cores); force=True (--force) to start "
                   f"{jobs}")

