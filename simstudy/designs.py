"""Resampling designs: seeded splitters that produce train masks per fold.

(placeholder base class; see the issue for the designs to implement)
"""

from __future__ import annotations

import numpy as np


class Design:
    """A resampling scheme with ``shape = (R, F)`` replications x folds."""

    name: str = "design"
    shape: tuple[int, int] = (1, 1)

    def masks(self, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``(R, F, n)`` bool, True = training instance of that fold."""
        raise NotImplementedError

    def test_masks(self, train: np.ndarray) -> np.ndarray:
        """``(R, F, n)`` bool test masks; the complement of the training mask by default."""
        return ~train
