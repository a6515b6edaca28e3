"""The few types everything passes around: a data set, and one trial's fold losses."""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass, field

import numpy as np

from .errors import SimstudyError


@dataclass(frozen=True)
class Dataset:
    """A classification data set as plain arrays, ready for any learner.

    ``X`` is float64 ``(n, d)`` with ``nan`` for missing values; nominal attributes are
    already one-hot encoded over their declared domain (a missing nominal value is ``nan``
    in all its indicator columns).  Imputation and standardisation are *not* done here:
    learners fit them on each training fold only.  ``y`` holds class codes ``0..C-1``.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    classes: tuple[str, ...]
    feature_names: tuple[str, ...] = ()
    # indices of columns that came from one nominal attribute, per attribute (for NB etc.)
    nominal_groups: tuple[tuple[int, ...], ...] = ()
    X_test: np.ndarray | None = None  # an independent test set (generators only), else None
    y_test: np.ndarray | None = None
    meta: dict = field(default_factory=dict, compare=False)

    @property
    def n(self) -> int:
        return int(self.y.shape[0])

    @property
    def n_classes(self) -> int:
        return len(self.classes)


@dataclass(frozen=True)
class FoldLosses:
    """Everything the tests may read about one trial of one cell.

    ``errors[k, r, f]`` is the test error rate of learner ``k`` on fold ``f`` of
    replication ``r``; ``n_train``/``n_test`` are ``(R, F)`` sizes; ``losses`` is the
    per-instance 0/1 loss ``(K, R, F, n)`` (``-1`` where the instance was not a test
    instance of that fold), kept only when a test needs it.  ``seed`` is the trial's
    :func:`simstudy.seeding.trial_seed` when the runner builds it: tests that draw at random
    (the paired permutation and bootstrap) key their draws by it.
    """

    errors: np.ndarray
    n_train: np.ndarray
    n_test: np.ndarray
    losses: np.ndarray | None = None
    seed: np.random.SeedSequence | None = field(default=None, compare=False, repr=False)

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.errors.shape[1]), int(self.errors.shape[2])

    def diff(self, a: int = 0, b: int = 1) -> np.ndarray:
        """Differences of error rates, learner ``a`` minus learner ``b``, shape (R, F)."""
        return self.errors[a] - self.errors[b]


def pack_losses(losses: np.ndarray) -> bytes:
    """Per-instance 0/1 losses ``(K, R, F, n)`` (``-1`` = not a test instance) as packed bits.

    Layout: four little-endian uint32 (K, R, F, n), then zlib of the packed bits of the test
    mask ``(R, F, n)`` followed by those of the losses ``(K, R, F, n)``.  A trial of 5x2 cv on
    150 instances with 2 learners takes about 600 bytes before compression.
    """
    L = np.asarray(losses)
    K, R, F, n = L.shape
    if L.dtype.kind == "f" and not np.isin(L, (-1, 0, 1)).all():  # bits would drop them
        raise SimstudyError("only 0/1 per-instance losses pack as bits; a regression learner's "
                         "real-valued losses cannot be stored this way")
    test = L[0] >= 0
    if np.any((L >= 0) != test[None]):
        raise ValueError("all learners of a trial must share the test positions")
    bits = np.concatenate([test.ravel(), (L == 1).ravel()])
    return struct.pack("<4I", K, R, F, n) + zlib.compress(np.packbits(bits).tobytes(), 6)


def unpack_losses(blob: bytes) -> np.ndarray:
    """Inverse of :func:`pack_losses`: int8 ``(K, R, F, n)``, ``-1`` off the test positions."""
    K, R, F, n = struct.unpack("<4I", blob[:16])
    m = R * F * n
    bits = np.unpackbits(np.frombuffer(zlib.decompress(blob[16:]), dtype=np.uint8),
                         count=m * (K + 1)).astype(bool)
    test = bits[:m].reshape(R, F, n)
    out = bits[m:].reshape(K, R, F, n).astype(np.int8)
    out[:, ~test] = -1
    return out
