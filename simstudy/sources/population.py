"""A large bundled data set as a population: each run samples ``n`` of its rows.

``population[data=spambase,n=100]`` draws ``n`` rows without replacement from the bundled
data set ``data`` each run (the trial's rng; ``runs_per_draw = 1``, so run ``r`` of every
cell of the source has the same rows); the rows not drawn are the truth's test set
(:mod:`simstudy.interval_truth`), as in Schulz-Kümpel et al. (2024)'s use of large data
sets.  The rest must hold at least :data:`MIN_REST` rows (a truth's Monte Carlo error of at
most 0.016 for 0/1 loss), else the source is refused as too small for ``n``.
"""

from __future__ import annotations

import numpy as np

from ..core import Dataset
from ..errors import SimstudyError
from ..spec import format_spec
from .base import SOURCES, Source
from .bundled import BundledSource
from .gaussian import _int_param

__all__ = ["MIN_REST", "PopulationSource"]

#: fewest rows left for the truth after drawing ``n``
MIN_REST = 1000


class PopulationSource(Source):
    """``n`` rows of bundled data set ``data`` per run; the other rows are the truth's.

    Examples
    --------
    >>> s = PopulationSource("spambase", 100)
    >>> d = s.sample(np.random.default_rng(0))
    >>> s.name, d.n, s.truth_sample(d)[0].shape[0]
    ('population[data=spambase,n=100]', 100, 4501)
    """

    fixed = False
    runs_per_draw = 1  # run r of every cell of this source: the same rows

    def __init__(self, data: str, n: int) -> None:
        self.base = BundledSource(data)
        self.content_hash = self.base.content_hash
        self.n = int(n)
        self.name = format_spec("population", {"data": data, "n": self.n})
        self._full: Dataset | None = None
        N = self.full.n
        if N - self.n < MIN_REST:
            most = (f"n <= {N - MIN_REST}" if N - MIN_REST >= 1 else
                    f"no n: a population needs more than {MIN_REST} rows")
            raise SimstudyError(f"source {self.name!r}: data set {data!r} has {N} rows, too "
                                f"few for n={self.n}: the truth needs at least {MIN_REST} "
                                f"rows left ({most})")

    @property
    def full(self) -> Dataset:
        if self._full is None:
            self._full = self.base.sample(np.random.default_rng(0))
        return self._full

    def sample(self, rng: np.random.Generator) -> Dataset:
        d = self.full
        rows = rng.permutation(d.n)[: self.n]
        return Dataset(name=self.name, X=d.X[rows], y=d.y[rows], classes=d.classes,
                       feature_names=d.feature_names, nominal_groups=d.nominal_groups,
                       meta={**d.meta, "source": "population", "rows": rows})

    def truth_sample(self, data: Dataset, size: int | None = None,
                     rng: np.random.Generator | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The rows ``data`` did not draw (``size`` and ``rng`` are not used: the whole
        rest is the truth's test set)."""
        rest = np.ones(self.full.n, dtype=bool)
        rest[data.meta["rows"]] = False
        return self.full.X[rest], self.full.y[rest]


@SOURCES.register("population", choices=("population[...]",))
def _population(spec: str, params: dict[str, str]) -> Source:
    """a bundled data set as a population, n rows per run, the rest the truth (Schulz-Kumpel et al. 2024): [data=NAME,n=N]"""
    SOURCES.check_params(spec, params, {"data", "n"})
    if "data" not in params or "n" not in params:
        raise SimstudyError(f"source {spec!r} needs data=NAME (a bundled data set) and n=N")
    return PopulationSource(params["data"], _int_param(spec, "n", params["n"], 2))
