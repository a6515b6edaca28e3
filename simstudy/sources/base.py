"""Data sources: where a trial's (X, y) comes from, and :data:`SOURCES`, their names.

Each kind of source registers its factory ``f(spec, params) -> Source`` in its own module
with ``@SOURCES.register("name")`` (the one registry idiom, :mod:`simstudy.registry`);
``simstudy.sources`` imports every module of the package, so a new kind is one file.
"""

from __future__ import annotations

import numpy as np

from ..core import Dataset
from ..registry import Registry


class Source:
    """A named source of data sets.

    ``fixed`` sources (bundled or user files) return the same :class:`Dataset` every trial
    (a trial differs only in its partition); generators draw a fresh sample from ``rng``.
    """

    name: str = "source"
    fixed: bool = True
    #: "classification" (class codes ``y``) or "regression" (a real ``y``, no classes)
    task: str = "classification"

    def sample(self, rng: np.random.Generator) -> Dataset:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Source {self.name}>"


#: every kind of source by name: bundled sets (one entry each), ``gauss`` and ``wang-case{k}``,
#: ``ban``, ``openml:NAME`` and data files (``PATH``, claimed by what looks like a path)
SOURCES: Registry[Source] = Registry("source")
