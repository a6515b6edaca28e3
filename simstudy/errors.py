"""The one exception type for bad user input.

Everything a user can get wrong (a name, a path, a number) raises :class:`SimstudyError`,
a :class:`ValueError`, whose message names the bad value with ``!r`` and, where there is a
finite set, the valid choices.  The CLI turns it into one line on stderr and exit status 2.
"""

from __future__ import annotations

from collections.abc import Iterable


class SimstudyError(ValueError):
    """Bad user input: one clear message, never a traceback at the CLI."""


def unknown(kind: str, value: object, choices: Iterable[str]) -> SimstudyError:
    """Error for a name that is not in a registry, listing the valid choices."""
    valid = ", ".join(sorted(choices))
    return SimstudyError(f"unknown {kind} {value!r}; valid choices: {valid}")
