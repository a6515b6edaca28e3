"""The ``argparse`` adapter of :mod:`simstudy.params`: a constraint as an argparse ``type=``
and a parser whose errors are one :class:`~simstudy.errors.SimstudyError` line, so the
command line and the Python API give the same message for the same bad value.

Examples
--------
>>> from simstudy.params import POSITIVE_INT
>>> p = ArgumentParser(prog="demo")
>>> _ = p.add_argument("--runs", type=arg_type("runs", POSITIVE_INT))
>>> p.parse_args(["--runs", "3"]).runs
3
>>> p.parse_args(["--runs", "0"])
Traceback (most recent call last):
...
simstudy.errors.SimstudyError: argument --runs: runs must be a positive integer, got '0'
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from ..errors import SimstudyError
from ..params import Constraint, parse

__all__ = ["ArgumentParser", "arg_type"]


def arg_type(name: str, constraint: Constraint) -> Callable[[str], Any]:
    """An ``argparse`` ``type=``: :func:`simstudy.params.parse` with the message argparse
    shows as is.

    Examples
    --------
    >>> from simstudy.params import ALPHA
    >>> arg_type("alpha", ALPHA)("0.05")
    0.05
    """

    def convert(text: str) -> Any:
        try:
            return parse(name, text, constraint)
        except SimstudyError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    convert.__name__ = name  # argparse names the type in some messages
    return convert


class ArgumentParser(argparse.ArgumentParser):
    """An ``argparse`` parser whose errors are one :class:`SimstudyError` line (argparse
    itself prints the usage too and exits), as every ``python -m simstudy`` command.

    Examples
    --------
    >>> ArgumentParser(prog="demo").parse_args(["--nope"])
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: unrecognized arguments: --nope
    """

    def error(self, message: str) -> None:  # type: ignore[override]
        raise SimstudyError(message)
