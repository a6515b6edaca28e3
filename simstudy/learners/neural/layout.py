"""The parameter layout of the softmax networks, shared by the learners and their solvers.

A model's parameters are one flat vector ``θ`` of length :func:`n_params`: for ``hidden = 0``
one ``(d + 1, C)`` matrix (the linear softmax ``lp``/``lgc``), else ``(d + 1, h)`` then
``(h + 1, C)`` (``mlp-<h>``); the last row of each matrix is the bias.  A batch of ``A``
models is an ``(A, P)`` array.  :class:`Net` is what a solver reads of the learner.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np


class Net(Protocol):
    """What a solver reads of a softmax learner (:mod:`.net`)."""

    hidden: int
    alpha: float
    dtype: np.dtype
    opts: dict[str, Any]


def n_params(hidden: int, d: int, C: int) -> int:
    """Parameters of one model with ``d`` inputs and ``C`` classes."""
    h = hidden
    return (d + 1) * C if h == 0 else (d + 1) * h + (h + 1) * C


def views(theta: np.ndarray, hidden: int, d: int, C: int) -> list[np.ndarray]:
    """The layer matrices of ``(A, P)`` parameters, as views: ``(A, d+1, ·)``, ``(A, h+1, C)``."""
    A, h = theta.shape[0], hidden
    if h == 0:
        return [theta.reshape(A, d + 1, C)]
    k = (d + 1) * h
    return [theta[:, :k].reshape(A, d + 1, h), theta[:, k:].reshape(A, h + 1, C)]


def penalty_mask(hidden: int, d: int, C: int, dtype: Any) -> np.ndarray:
    """``(1, P)``: 1 for weights, 0 for biases (the last row of each layer's matrix)."""
    m = np.ones((1, n_params(hidden, d, C)), dtype=dtype)
    for v in views(m, hidden, d, C):
        v[:, -1, :] = 0.0
    return m
