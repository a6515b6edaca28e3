"""Attributes as Weka sees them, recovered from a Dataset's one-hot columns.

:class:`~simstudy.core.Dataset` one-hot encodes each nominal attribute over its declared
domain (``nominal_groups`` lists each attribute's indicator columns; a missing value is
``nan`` in all of them); every other column is one numeric attribute.  Weka's learners work
on the attributes themselves, so the Weka learners rebuild them:

>>> attrs = layout(((1, 2, 3),), 5)       # columns 1-3 are one nominal attribute
>>> [(a.kind, a.columns, a.n_values) for a in attrs]
[('numeric', (0,), 0), ('nominal', (1, 2, 3), 3), ('numeric', (4,), 0)]

Attributes are in the order of their first column, i.e. the data set's attribute order.
The API (:func:`attributes`, :func:`layout`, :func:`to_codes`, :class:`Attribute`) is shared
by all Weka learners; keep it stable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numba
import numpy as np

from ...errors import SimstudyError
from ..base import frozen

NUMERIC = "numeric"
NOMINAL = "nominal"


class Attribute(NamedTuple):
    """One attribute: ``kind`` ``"numeric"`` or ``"nominal"``, its column(s) in ``X``, and
    the size of its domain (``0`` for numeric)."""

    kind: str
    columns: tuple[int, ...]
    n_values: int


def layout(nominal_groups: Sequence[Sequence[int]], n_columns: int) -> list[Attribute]:
    """The attributes of an ``X`` with ``n_columns`` columns whose nominal attributes have
    the indicator columns ``nominal_groups``; every other column is numeric.

    Raises :class:`SimstudyError` if a group is empty, repeats a column, overlaps another
    group or names a column outside ``0..n_columns-1``.
    """
    owner: dict[int, int] = {}
    for i, g in enumerate(nominal_groups):
        cols = [int(j) for j in g]
        if not cols:
            raise SimstudyError(f"nominal group {i} is empty: {tuple(g)!r}")
        for j in cols:
            if not 0 <= j < n_columns:
                raise SimstudyError(
                    f"nominal group {i} names column {j!r}; X has columns 0..{n_columns - 1}"
                )
            if j in owner:
                raise SimstudyError(f"column {j!r} is in nominal groups {owner[j]} and {i}")
            owner[j] = i
    attrs: list[Attribute] = []
    done: set[int] = set()
    for j in range(n_columns):
        if j not in owner:
            attrs.append(Attribute(NUMERIC, (j,), 0))
        elif owner[j] not in done:
            g = tuple(int(c) for c in nominal_groups[owner[j]])
            done.add(owner[j])
            attrs.append(Attribute(NOMINAL, g, len(g)))
    return attrs


def attributes(data: Any) -> list[Attribute]:
    """The attributes of a :class:`~simstudy.core.Dataset` (``data.X``, ``data.nominal_groups``)."""
    return layout(tuple(getattr(data, "nominal_groups", ()) or ()), int(np.shape(data.X)[1]))


def to_codes(X: np.ndarray, attrs: Sequence[Attribute]) -> np.ndarray:
    """``(n, n_attr)`` float64: numeric attributes as they are, nominal ones as value codes
    ``0..V-1`` (the index of the indicator column that is 1); ``nan`` = missing (any
    indicator ``nan``, or no indicator set).

    Raises :class:`SimstudyError` if ``X`` has fewer columns than the attributes name.
    """
    X = np.asarray(X, dtype=np.float64)
    need = 1 + max((max(a.columns) for a in attrs), default=-1)
    if X.ndim != 2 or X.shape[1] < need:
        raise SimstudyError(f"X must be 2-D with at least {need} columns, got shape {X.shape!r}")
    cols = np.array([j for a in attrs for j in a.columns], dtype=np.int64)
    ends = np.cumsum([len(a.columns) for a in attrs]).astype(np.int64)
    nominal = np.array([a.kind == NOMINAL for a in attrs], dtype=np.bool_)
    out = np.empty((X.shape[0], len(attrs)))
    _codes(frozen(X, np.float64), cols, ends, nominal, out)
    return out


@numba.njit(cache=True)
def _codes(X, cols, ends, nominal, out):  # pragma: no cover - compiled
    """One pass over X (numpy per attribute cost ~20 µs a group: it dominated small batches)."""
    n = X.shape[0]
    for k in range(ends.shape[0]):
        start = 0 if k == 0 else ends[k - 1]
        if not nominal[k]:
            j = cols[start]
            for i in range(n):
                out[i, k] = X[i, j]
            continue
        for i in range(n):
            code = np.nan
            for m in range(start, ends[k]):
                v = X[i, cols[m]]
                if v != v:  # a nan indicator: missing
                    code = np.nan
                    break
                if v == 1.0 and code != code:
                    code = float(m - start)
            out[i, k] = code


def is_nominal(attrs: Sequence[Attribute]) -> np.ndarray:
    """Boolean mask over attributes: True for nominal."""
    return np.array([a.kind == NOMINAL for a in attrs], dtype=bool)


def n_values(attrs: Sequence[Attribute]) -> np.ndarray:
    """Domain sizes (``0`` for numeric), int64."""
    return np.array([a.n_values for a in attrs], dtype=np.int64)
