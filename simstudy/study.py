"""Studies, cells and trials: a declared grid, expanded into seeded trials.

A :class:`Study` is a list of :class:`Cell` (one point of the grid: source x learners x
design x tests) with a number of runs, a root seed and an alpha.  A *trial* is ``(cell,
run)``; its randomness comes only from the root seed, the cell's id and the run
(:mod:`simstudy.seeding`).  ``cell.id`` (``iris/mlp-10~mlp-10/5x2``) is the
store key; it names exactly what determines the trial's data and models (tests and alpha
are evaluated on stored fold losses, so they are not part of it).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import SimstudyError
from .params import ALPHA, POSITIVE_INT, RUNS, SEED, check

if TYPE_CHECKING:
    import pandas as pd


@dataclass(frozen=True)
class Cell:
    """One point of a study's grid.

    ``labels`` carry what the rendering needs (e.g. the paper's data set name and hidden
    units); they are not part of the id.
    """

    source: str
    learners: tuple[str, ...]
    design: str
    tests: tuple[str, ...]
    labels: tuple[tuple[str, Any], ...] = ()
    # the source's part of the id when it is not the spec itself: a user file is keyed by
    # its content ("data@1a2b3c4d5e"), so editing the file makes a new cell; "" when the
    # spec is the key, None while the source is not resolved yet (Study.keyed)
    source_key: str | None = None

    @property
    def id(self) -> str:
        return f"{self.source_key or self.source}/{'~'.join(self.learners)}/{self.design}"

    def label(self, key: str, default: Any = None) -> Any:
        return dict(self.labels).get(key, default)


def cells(
    sources: Iterable[str],
    learners: Iterable[Sequence[str]],
    designs: Iterable[str],
    tests: Sequence[str],
    **labels: Any,
) -> list[Cell]:
    """The full product grid of sources x learner tuples x designs, all with ``tests``."""
    out = []
    for s, ls, d in itertools.product(list(sources), [tuple(x) for x in learners], list(designs)):
        out.append(Cell(s, ls, d, tuple(tests), tuple(sorted(labels.items()))))
    return out


@dataclass
class Study:
    """A declared simulation study: a grid of cells, runs, a root seed and its rendering.

    ``render(result, out_dir) -> list[Path]`` turns a :class:`simstudy.aggregate.StudyResult`
    into the paper's tables and figures.
    """

    name: str
    cells: list[Cell]
    runs: int = 1000
    seed: int = 0
    alpha: float = 0.05
    chunk: int = 50  # runs per work unit: canonical blocks, so chunking never changes numbers
    description: str = ""
    render: Callable[..., list[Path]] | None = None
    meta: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.runs = check("runs", self.runs, RUNS)
        self.alpha = check("alpha", self.alpha, ALPHA)
        self.seed = check("seed", self.seed, SEED)
        self.chunk = check("chunk", self.chunk, POSITIVE_INT)
        ids = [c.id for c in self.cells]
        dup = {i for i in ids if ids.count(i) > 1}
        if dup:
            raise SimstudyError(f"study {self.name!r} declares cell(s) twice: {sorted(dup)!r}")

    def grid(self) -> pd.DataFrame:
        """The design grid as a readable DataFrame, one row per cell."""
        import pandas as pd  # here only: a run's workers import this module, never pandas

        rows = []
        for c in self.cells:
            row = {
                "cell": c.id,
                "source": c.source,
                "learners": "~".join(c.learners),
                "design": c.design,
                "tests": ",".join(c.tests),
            }
            row.update(dict(c.labels))
            rows.append(row)
        return pd.DataFrame(rows)

    def select(self, pattern: str | None) -> Study:
        """A copy restricted to cells whose id contains ``pattern`` (or matches it as a glob)."""
        if not pattern:
            return self
        import fnmatch

        keep = [
            c for c in self.cells if pattern in c.id or fnmatch.fnmatchcase(c.id, pattern)
        ]
        if not keep:
            raise SimstudyError(
                f"--filter {pattern!r} matches no cell of study {self.name!r}; cells: "
                + ", ".join(c.id for c in self.cells)
            )
        return self.replace(cells=keep)

    def replace(self, **changes: Any) -> Study:
        """A copy with ``changes`` (checked as the constructor checks them)."""
        import dataclasses

        return dataclasses.replace(self, **changes)

    def keyed(self) -> Study:
        """A copy whose cells carry their sources' content keys (see :attr:`Cell.source_key`).

        Resolves the source of every cell not keyed yet (unknown names raise
        :class:`SimstudyError`); sources whose name already determines their content get
        ``""`` (the spec is the key).  A study whose cells are all keyed is returned as it
        is: keying is a fact about each cell, so it is done once per cell.

        Examples
        --------
        >>> s = Study("s", cells(["iris"], [("nmc", "1nn")], ["5x2cv"], ["t5x2cv"]))
        >>> s.cells[0].source_key, s.keyed().cells[0].source_key, s.keyed().cells[0].id
        (None, '', 'iris/nmc~1nn/5x2cv')
        """
        import dataclasses

        from .sources import get_source

        if all(c.source_key is not None for c in self.cells):
            return self
        out = []
        for c in self.cells:
            if c.source_key is None:
                key = getattr(get_source(c.source), "key", None) or ""
                c = dataclasses.replace(c, source_key="" if key == c.source else key)
            out.append(c)
        return self.replace(cells=out)
