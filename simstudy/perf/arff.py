"""Write a :class:`~simstudy.core.Dataset` (or some of its rows) as Weka ARFF text.

Used to feed Weka the exact data our Weka learners see: the peer benchmark
(:mod:`.weka_peer`), the fixtures (``tests/weka/make_fixtures.py``) and the tests that check
a committed fixture still describes our data (sha256 of the text).  Nominal attributes are written as nominal over their full declared domain, in our
code order (so Weka's value indices are our codes); the class is the last attribute,
``class``, with values ``data.classes`` in code order.  Numeric values are written with
Python's shortest round-trip repr, so Java's ``Double.parseDouble`` reads back the same
double; integral values below 1e15 as integers.  ``?`` marks a missing value.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import SimstudyError
from ..learners.weka._nominal import NOMINAL, Attribute, attributes, to_codes


def _quote(s: str) -> str:
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _num(v: float) -> str:
    if math.isnan(v):
        return "?"
    if v.is_integer() and abs(v) < 1e15:
        return str(int(v))
    return repr(float(v))


def _names(data: Any, attrs: Sequence[Attribute]) -> list[tuple[str, list[str]]]:
    """Attribute names and, for nominal ones, their value names (from ``feature_names``
    ``"attr=value"``; generic ``a<k>`` / ``v<i>`` names when those are absent)."""
    fn = tuple(getattr(data, "feature_names", ()) or ())
    out: list[tuple[str, list[str]]] = []
    for k, a in enumerate(attrs):
        if len(fn) <= max(a.columns):
            out.append((f"a{k}", [f"v{i}" for i in range(a.n_values)] if a.kind == NOMINAL else []))
            continue
        if a.kind != NOMINAL:
            out.append((fn[a.columns[0]], []))
            continue
        names = [fn[j] for j in a.columns]
        # shortest prefix "A" such that every indicator is named "A=<value>"
        first = names[0]
        for pos in (i for i, ch in enumerate(first) if ch == "="):
            p = first[: pos + 1]
            if all(n.startswith(p) for n in names):
                out.append((first[:pos], [n[pos + 1 :] for n in names]))
                break
        else:
            out.append((f"a{k}", [f"v{i}" for i in range(a.n_values)]))
    return out


def to_arff(data: Any, rows: np.ndarray | Sequence[int] | None = None, relation: str | None = None) -> str:
    """ARFF text of ``data`` restricted to ``rows`` (indices, in the given order; all rows
    when ``None``).  Raises :class:`SimstudyError` for a row index out of range."""
    attrs = attributes(data)
    n = int(np.shape(data.X)[0])
    idx = np.arange(n) if rows is None else np.asarray(rows, dtype=np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= n):
        raise SimstudyError(f"row indices must be in 0..{n - 1}, got {idx.min()!r}..{idx.max()!r}")
    codes = to_codes(np.asarray(data.X)[idx], attrs)
    y = np.asarray(data.y)[idx]
    names = _names(data, attrs)
    lines = [f"@relation {_quote(relation or str(getattr(data, 'name', 'data')))}", ""]
    for (name, values), a in zip(names, attrs, strict=True):
        if a.kind == NOMINAL:
            lines.append(f"@attribute {_quote(name)} {{{','.join(_quote(v) for v in values)}}}")
        else:
            lines.append(f"@attribute {_quote(name)} numeric")
    lines.append(f"@attribute class {{{','.join(_quote(str(c)) for c in data.classes)}}}")
    lines += ["", "@data"]
    quoted = [[_quote(v) for v in values] for _, values in names]
    for r in range(len(idx)):
        cells = []
        for k, a in enumerate(attrs):
            v = codes[r, k]
            if a.kind == NOMINAL:
                cells.append("?" if math.isnan(v) else quoted[k][int(v)])
            else:
                cells.append(_num(float(v)))
        cells.append(_quote(str(data.classes[int(y[r])])))
        lines.append(",".join(cells))
    return "\n".join(lines) + "\n"


def sha256(text: str) -> str:
    """Hex sha256 of ``text`` encoded as UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
