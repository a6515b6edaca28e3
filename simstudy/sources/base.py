"""Data sources: where a trial's (X, y) comes from."""

from __future__ import annotations

import numpy as np

from ..core import Dataset


class Source:
    """A named source of data sets.

    ``fixed`` sources (bundled or user files) return the same :class:`Dataset` every trial
    (a trial differs only in its partition); generators draw a fresh sample from ``rng``.
    """

    name: str = "source"
    fixed: bool = True

    def sample(self, rng: np.random.Generator) -> Dataset:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"<Source {self.name}>"
