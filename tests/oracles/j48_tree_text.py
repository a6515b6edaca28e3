"""J48's tree printed as Weka's J48 prints it: the suite compares our trees with Weka's own
printout (``tests/test_learners_j48.py``, ``tests/weka/j48_trees.json``).  A test helper,
not part of the learner.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simstudy.learners.base import frozen
from simstudy.learners.weka._j48_kernels import fit_tree
from simstudy.learners.weka.j48 import J48


def _first_max(w: np.ndarray) -> int:
    """Distribution.maxClass: the first class above the running maximum by > 1e-6."""
    best, idx = 0.0, 0
    for c, x in enumerate(w):
        if x - best > 1e-6:
            best, idx = x, c
    return idx


def _java_round2(x: float) -> str:
    """``Utils.roundDouble(x, 2)`` printed as Java prints a double (``3.0``, ``2.33``)."""
    r = np.floor(x * 100.0 + 0.5) / 100.0
    return repr(float(r))


def tree_text(
    learner: J48,
    X: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray | None = None,
    *,
    names: Sequence[str] | None = None,
    values: Sequence[Sequence[str]] | None = None,
    classes: Sequence[str] | None = None,
) -> str:
    """The tree ``learner`` fits on ``rows`` (default: all), printed as Weka's J48 prints it
    (``J48 pruned tree`` body, then ``Number of Leaves`` and ``Size of the tree``).

    ``names``/``values``/``classes``: attribute names, nominal value names per attribute
    and class names (defaults ``a<k>``, ``v<i>``, ``c<j>``)."""
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    rows = np.arange(X.shape[0]) if rows is None else np.asarray(rows, dtype=np.int64)
    A, nval, rank, uvals, uoff, numeric = learner._arrays(X)
    C = int(y.max()) + 1
    attr, split, nsub, child, leaf, empty, cw, tot, _, _ = fit_tree(
        A, nval, rank, uvals, uoff, numeric, frozen(y, np.int64), C, np.ascontiguousarray(rows),
        bool(learner.prune)
    )
    m = len(nval)
    names = list(names) if names is not None else [f"a{k}" for k in range(m)]
    values = (
        [list(v) for v in values] if values is not None else [[f"v{i}" for i in range(V)] for V in nval]
    )
    classes = list(classes) if classes is not None else [f"c{j}" for j in range(C)]

    def num(v: float) -> str:  # Utils.doubleToString(v, 6)
        s = f"{v:.6f}".rstrip("0").rstrip(".")
        return "0" if s in ("-0", "") else s

    def label(k: int, parent: int) -> str:
        # C45Split.dumpLabel: majority class (weight[/errors]); an empty branch shows
        # its parent's majority class (Distribution.maxClass(index))
        w = cw[k]
        c = _first_max(w) if tot[k] > 1e-6 else _first_max(cw[parent])
        err = tot[k] - w[c]
        out = f"{classes[c]} ({_java_round2(tot[k])}"
        if err > 1e-6:
            out += f"/{_java_round2(err)}"
        return out + ")"

    lines: list[str] = []
    counts = [0, 0]

    def dump(k: int, depth: int) -> None:
        counts[0] += 1
        for j in range(nsub[k]):
            ch = child[k] + j
            a = attr[k]
            test = f"{names[a]} = {values[a][j]}" if nval[a] > 0 else (
                f"{names[a]} {'<=' if j == 0 else '>'} {num(split[k])}"
            )
            text = "|   " * depth + test
            if leaf[ch]:
                counts[0] += 1
                counts[1] += 1
                lines.append(f"{text}: {label(ch, k)}")
            else:
                lines.append(text)
                dump(ch, depth + 1)

    if leaf[0]:
        lines.append(f": {label(0, 0)}")
        counts = [1, 1]
    else:
        dump(0, 0)
    return "\n".join(lines) + f"\n\nNumber of Leaves  : \t{counts[1]}\n\nSize of the tree : \t{counts[0]}\n"

