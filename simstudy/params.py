"""One validation vocabulary: what a parameter may be, checked and reported one way.

A *constraint* describes the valid values of one parameter: :class:`Interval` (integers or
real numbers between bounds), :class:`Options` (a finite set) or :class:`Boolean`.
:func:`check` validates a Python value, :func:`parse` a command-line text, and both raise a
:class:`~simstudy.errors.SimstudyError` of one shape::

    <name> must be <what the constraint allows>, got <the bad value, !r>

In the spirit of scikit-learn's ``_param_validation`` (``Interval``, ``StrOptions``), kept to
what simstudy's parameters need.  :func:`arg_type` turns a constraint into an ``argparse``
type and :class:`ArgumentParser` reports argparse's own errors in one line, so the command
line and the Python API give the same message for the same bad value.

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

import argparse
import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from .errors import SimstudyError

__all__ = ["Interval", "Options", "Boolean", "check", "parse", "arg_type", "ArgumentParser",
           "ALPHA", "POSITIVE_INT", "SEED", "MAX_SEED"]

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
    """

    type: type
    left: float | None
    right: float | None
    closed: Closed = "both"

    def describe(self) -> str:
        kind = "an integer" if self.type is int else "a number"
        lo, hi = self.left, self.right
        if self.type is int and hi is None and lo in (0, 1) and self.closed in ("both", "left"):
            return "a positive integer" if lo == 1 else "a non-negative integer"
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


def _message(name: str, value: Any, constraint: Constraint) -> str:
    return f"{name} must be {constraint.describe()}, got {value!r}"


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


def arg_type(name: str, constraint: Constraint) -> Callable[[str], Any]:
    """An ``argparse`` ``type=``: :func:`parse` with the message argparse shows as is."""

    def convert(text: str) -> Any:
        try:
            return parse(name, text, constraint)
        except SimstudyError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    convert.__name__ = name  # argparse names the type in some messages
    return convert


class ArgumentParser(argparse.ArgumentParser):
    """An ``argparse`` parser whose errors are one :class:`SimstudyError` line (argparse
    itself prints the usage too and exits), as every ``python -m simstudy`` command."""

    def error(self, message: str) -> None:  # type: ignore[override]
        raise SimstudyError(message)
