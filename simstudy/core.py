"""The few types everything passes around: a data set, and one trial's fold losses."""

from __future__ import annotations

import math
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
    per-instance loss ``(K, R, F, n)`` (0/1, or a regression learner's real-valued loss) (``-1`` where the instance was not a test
    instance of that fold), kept only when a test needs it.  ``seed`` is the trial's
    :func:`simstudy.seeding.trial_seed` when the runner builds it: tests that draw at random
    (the paired permutation and bootstrap) key their draws by it.  ``truth`` is the trial's
    :class:`Truth` where the study computes one (intervals for the generalization error).
    """

    errors: np.ndarray
    n_train: np.ndarray
    n_test: np.ndarray
    losses: np.ndarray | None = None
    seed: np.random.SeedSequence | None = field(default=None, compare=False, repr=False)
    truth: Truth | None = field(default=None, compare=False)

    @property
    def shape(self) -> tuple[int, int]:
        return int(self.errors.shape[1]), int(self.errors.shape[2])

    def diff(self, a: int = 0, b: int = 1) -> np.ndarray:
        """Differences of error rates, learner ``a`` minus learner ``b``, shape (R, F)."""
        return self.errors[a] - self.errors[b]


@dataclass(frozen=True)
class LossSums:
    """Sufficient statistics of a trial's per-instance losses: all an interval method reads.

    A test instance's *block* in replication ``r`` is the first fold of ``r`` that tests it
    (k-fold cv: its own fold; nested cv, whose outer folds come first: its outer fold; a
    train/test split: fold 0).  Then, with ``K`` learners, ``R`` replications, ``F`` folds:

    ``count[r, f, b]``
        test instances of fold ``f`` of replication ``r`` in block ``b`` (``b < F``);
    ``total[k, r, f, b]``
        the sum of learner ``k``'s losses over them;
    ``prod[k, j, r, f]``
        the sum over all test instances of fold ``(r, f)`` of ``l_k * l_j`` (``j == k``:
        the sum of squares).

    Means, variances and covariances per fold, per block and across folds follow, for one
    learner or the difference of two (:meth:`of`); the shipped interval trials keep these
    instead of the instances (:mod:`simstudy.trials`).  Built by :func:`loss_sums`.

    Examples
    --------
    >>> L = np.array([[[[0.0, 2.0, -1.0], [-1.0, -1.0, 3.0]]]])  # K=1, R=1, F=2, n=3
    >>> s = loss_sums(L)
    >>> s.count[0].tolist(), s.total[0, 0].tolist(), s.prod[0, 0, 0].tolist()
    ([[2, 0], [0, 1]], [[2.0, 0.0], [0.0, 3.0]], [4.0, 9.0])
    """

    count: np.ndarray
    total: np.ndarray
    prod: np.ndarray

    @property
    def shape(self) -> tuple[int, int, int]:
        """(K, R, F)."""
        return tuple(int(x) for x in self.total.shape[:3])  # type: ignore[return-value]

    def of(self, a: int, b: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(count, S, Q)`` of learner ``a``'s losses (``b`` None) or of the paired
        differences ``l_a - l_b``: count and sum per fold and block ``(R, F, F)``, sum of
        squares per fold ``(R, F)``."""
        if b is None:
            return self.count, self.total[a], self.prod[a, a]
        return (self.count, self.total[a] - self.total[b],
                self.prod[a, a] - 2.0 * self.prod[a, b] + self.prod[b, b])


def loss_sums(losses: np.ndarray | LossSums) -> LossSums:
    """The :class:`LossSums` of per-instance losses ``(K, R, F, n)`` (``-1`` = not a test
    instance); a :class:`LossSums` passes through."""
    if isinstance(losses, LossSums):
        return losses
    L = np.asarray(losses, dtype=np.float64)
    if L.ndim != 4:
        raise SimstudyError(f"per-instance losses must be a (K, R, F, n) array, got shape "
                            f"{L.shape!r}")
    K, R, F, n = L.shape
    test = L[0] >= 0
    block = np.argmax(test, axis=1)  # (R, n): the first fold of r testing each instance
    # sums by np.bincount: one sequential pass in instance order, so the same losses give
    # the same bits whatever their memory alignment (numpy's vectorised sums may not)
    r, f, i = np.nonzero(test)
    fold = r * F + f
    cell = fold * F + block[r, i]
    count = np.bincount(cell, minlength=R * F * F).reshape(R, F, F).astype(np.int64)
    V = L[:, r, f, i]  # (K, positions)
    total = np.stack([np.bincount(cell, weights=v, minlength=R * F * F) for v in V])
    prod = np.empty((K, K, R * F))
    for a in range(K):
        for b in range(a, K):
            prod[a, b] = prod[b, a] = np.bincount(fold, weights=V[a] * V[b],
                                                  minlength=R * F)
    return LossSums(count, total.reshape(K, R, F, F), prod.reshape(K, K, R, F))


@dataclass(frozen=True)
class NestedSums:
    """What the nested cv interval reads of one trial of an ``ncv`` design (Bates, Hastie &
    Tibshirani 2024, Algorithm 1): sums per repetition ``r`` and outer fold ``i``.

    ``out_count[r, i]``, ``out_total[k, r, i]``, ``out_prod[k, j, r, i]``
        number, sum and cross-products of the losses on fold i of the models fitted
        without fold i (``e_out``);
    ``in_count[r, i]``, ``in_total[k, r, i]``
        number and sum of the losses of fold i's inner cv (``e_in``: on fold j of the
        models fitted without folds i and j, every j != i);
    ``in_prod[k, j]``
        cross-products of every inner loss of the trial;
    ``n``
        the number of instances.

    Built by :func:`nested_sums` from per-instance losses or their :class:`LossSums`; the
    shipped nested-cv trials keep these (:mod:`simstudy.trials`).
    """

    out_count: np.ndarray
    out_total: np.ndarray
    out_prod: np.ndarray
    in_count: np.ndarray
    in_total: np.ndarray
    in_prod: np.ndarray
    n: int

    def of(self, a: int, b: int | None = None) -> tuple:
        """``(out_count, out_S, out_Q, in_count, in_S, in_Q)`` of learner ``a`` (``b``
        None) or of the paired differences ``l_a - l_b``."""
        if b is None:
            return (self.out_count, self.out_total[a], self.out_prod[a, a], self.in_count,
                    self.in_total[a], float(self.in_prod[a, a]))
        P, Q = self.out_prod, self.in_prod
        return (self.out_count, self.out_total[a] - self.out_total[b],
                P[a, a] - 2.0 * P[a, b] + P[b, b], self.in_count,
                self.in_total[a] - self.in_total[b], float(Q[a, a] - 2.0 * Q[a, b] + Q[b, b]))


def nested_sums(losses: np.ndarray | LossSums | NestedSums,
                pairs: list[tuple[int, int]]) -> NestedSums:
    """The :class:`NestedSums` of an ``ncv`` trial's losses (per-instance, or their
    :class:`LossSums`); ``pairs`` is the design's fold pair of each inner column
    (``NestedCV.pairs``), the first ``k`` columns the outer fits.  A pair column of folds
    ``(i, j)`` is inner to fold i on fold j's instances and to fold j on fold i's.

    Examples
    --------
    >>> L = np.full((1, 1, 6, 3), -1.0)  # k = 3 folds of one instance each
    >>> for i in range(3):
    ...     L[0, 0, i, i] = i + 1.0  # outer fit i on fold i
    >>> L[0, 0, 3, [0, 1]] = [10.0, 20.0]  # pair (0, 1) on folds 0 and 1
    >>> L[0, 0, 4, [0, 2]] = [30.0, 40.0]  # pair (0, 2)
    >>> L[0, 0, 5, [1, 2]] = [50.0, 60.0]  # pair (1, 2)
    >>> s = nested_sums(L, [(0, 1), (0, 2), (1, 2)])
    >>> s.out_total[0, 0].tolist(), s.in_total[0, 0].tolist(), s.n
    ([1.0, 2.0, 3.0], [60.0, 70.0, 80.0], 3)
    """
    if isinstance(losses, NestedSums):
        return losses
    s = loss_sums(losses)
    K, R, F = s.shape
    k = F - len(pairs)
    if k < 3 or len(pairs) != k * (k - 1) // 2:
        raise SimstudyError(f"losses with {F} columns per repetition are not those of a "
                            f"nested cv with {len(pairs)} fold pairs")
    out = np.arange(k)  # outer fit i tests fold i: its one block
    in_c = np.zeros((R, k), dtype=np.int64)
    in_S = np.zeros((K, R, k))
    for col, (i, j) in enumerate(pairs, start=k):
        in_c[:, i] += s.count[:, col, j]
        in_S[:, :, i] += s.total[:, :, col, j]
        in_c[:, j] += s.count[:, col, i]
        in_S[:, :, j] += s.total[:, :, col, i]
    in_P = np.array([[math.fsum(s.prod[a, b, :, k:].ravel()) for b in range(K)]
                     for a in range(K)])  # exact: the same bits in any order
    return NestedSums(s.count[:, out, out], s.total[:, :, out, out], s.prod[:, :, :, :k],
                      in_c, in_S, in_P, int(s.count[0, :k].sum()))


#: first four bytes of the extended loss format (real-valued losses, or a trial's truth):
#: read as the old format's uint32 K it would be 1.2e9 learners, so the two never collide
LOSS_MAGIC = b"SSLF"
LOSS_FORMAT_VERSION = 1
_BITS, _FLOAT64 = 0, 1  # payload kinds of the extended format


@dataclass(frozen=True)
class Truth:
    """The conditional truth of one trial: each fitted model's error on fresh data.

    ``error[k]``: learner k's error (mean loss) on an independent sample of ``n_truth``
    instances; ``mc_se[k]`` its Monte Carlo standard error; ``diff_se[a, b]`` that of
    ``error[a] - error[b]`` (paired on the same sample).  Computed by
    :func:`simstudy.interval_truth.conditional_truth`, stored with the trial.

    Examples
    --------
    >>> t = Truth(np.array([0.2, 0.3]), np.array([0.01, 0.01]), np.zeros((2, 2)), 1000)
    >>> round(t.diff(0, 1), 2)
    -0.1
    """

    error: np.ndarray
    mc_se: np.ndarray
    diff_se: np.ndarray
    n_truth: int

    def diff(self, a: int, b: int) -> float:
        """The true difference of errors, learner ``a`` minus learner ``b``."""
        return float(self.error[a] - self.error[b])


def _is_01(L: np.ndarray) -> bool:
    return L.dtype.kind in "iub" or bool(np.isin(L, (-1, 0, 1)).all())


def pack_losses(losses: np.ndarray, truth: Truth | None = None) -> bytes:
    """Per-instance losses ``(K, R, F, n)`` (``-1`` = not a test instance) as bytes.

    0/1 losses without a truth keep the original layout, byte for byte: four little-endian
    uint32 (K, R, F, n), then zlib of the packed bits of the test mask ``(R, F, n)``
    followed by those of the losses ``(K, R, F, n)``.  A trial of 5x2 cv on 150 instances
    with 2 learners takes about 600 bytes before compression.

    Real-valued losses (a regression learner's squared or absolute errors, all >= 0), or
    any losses stored with the trial's :class:`Truth`, take the extended layout:
    :data:`LOSS_MAGIC`, then ``<BB4I`` (format version, payload kind: 0 bits, 1 float64;
    K, R, F, n), then uint32 ``n_truth`` (0: no truth) followed, if any, by float64
    ``error[K]``, ``mc_se[K]``, ``diff_se[K, K]``; then zlib of the packed test-mask bits
    and either the packed loss bits or the float64 losses at the test positions (learner
    by learner, in the mask's C order).  Float64, not float32: a round trip is exact, and
    a squared error of 1.3 would come back from float32 changed in its 8th digit.

    Examples
    --------
    >>> L = np.array([[[[0.25, -1.0, 4.0]]]])
    >>> np.array_equal(unpack_losses(pack_losses(L)), L)
    True
    """
    L = np.asarray(losses)
    if L.ndim != 4:
        raise SimstudyError(f"per-instance losses must be a (K, R, F, n) array, got shape "
                            f"{L.shape!r}")
    K, R, F, n = L.shape
    real = not _is_01(L)
    if real and L.dtype.kind != "f":
        raise SimstudyError(f"per-instance losses of dtype {L.dtype.name!r}: 0/1 integers "
                            f"or real numbers (float) only")
    if real and not np.isfinite(L).all():
        raise SimstudyError("per-instance losses must be finite (-1 marks a position "
                            "that is not a test instance); got nan or inf")
    test = L[0] >= 0
    if np.any((L >= 0) != test[None]):
        raise ValueError("all learners of a trial must share the test positions")
    if real and np.any((L < 0) & (L != -1)):
        raise SimstudyError("real-valued losses must be >= 0 (-1 marks a position that is "
                            "not a test instance); got another negative value")
    if not real and truth is None:
        bits = np.concatenate([test.ravel(), (L == 1).ravel()])
        return struct.pack("<4I", K, R, F, n) + zlib.compress(np.packbits(bits).tobytes(), 6)
    head = LOSS_MAGIC + struct.pack("<BB4I", LOSS_FORMAT_VERSION, _FLOAT64 if real else _BITS,
                                    K, R, F, n)
    head += _pack_truth(truth, K)
    mask = np.packbits(test.ravel()).tobytes()
    if real:
        body = np.ascontiguousarray(L[:, test], dtype="<f8").tobytes()
    else:
        body = np.packbits((L[:, test] == 1).ravel()).tobytes()
    # the mask's byte count is known from the header: mask and losses share one stream
    return head + zlib.compress(mask + body, 6)


def _pack_truth(truth: Truth | None, K: int) -> bytes:
    if truth is None:
        return struct.pack("<I", 0)
    e, s, d = (np.asarray(x, dtype="<f8") for x in (truth.error, truth.mc_se, truth.diff_se))
    if e.shape != (K,) or s.shape != (K,) or d.shape != (K, K):
        raise SimstudyError(f"a truth for K={K} learners needs error and mc_se of shape "
                            f"({K},) and diff_se ({K}, {K}); got {e.shape!r}, {s.shape!r}, "
                            f"{d.shape!r}")
    if not (isinstance(truth.n_truth, int | np.integer) and truth.n_truth >= 1):
        raise SimstudyError(f"truth n_truth={truth.n_truth!r} must be a positive integer")
    return struct.pack("<I", int(truth.n_truth)) + e.tobytes() + s.tobytes() + d.tobytes()


def _header(blob: bytes) -> tuple[int, int, int, int, int, Truth | None, int]:
    """(kind, K, R, F, n, truth, offset of the zlib stream) of an extended-format blob."""
    version, kind, K, R, F, n = struct.unpack("<BB4I", blob[4:22])
    if version != LOSS_FORMAT_VERSION or kind not in (_BITS, _FLOAT64):
        raise SimstudyError(f"stored losses of format version {version!r}, kind {kind!r}: "
                            f"this simstudy reads version {LOSS_FORMAT_VERSION}, kinds 0 "
                            f"(bits) and 1 (float64); update simstudy")
    (nt,) = struct.unpack("<I", blob[22:26])
    at = 26
    truth = None
    if nt:
        v = np.frombuffer(blob, dtype="<f8", count=2 * K + K * K, offset=at).astype(np.float64)
        truth = Truth(v[:K], v[K:2 * K], v[2 * K:].reshape(K, K), int(nt))
        at += 8 * (2 * K + K * K)
    return kind, K, R, F, n, truth, at


def unpack_losses(blob: bytes) -> np.ndarray:
    """Inverse of :func:`pack_losses`: ``(K, R, F, n)``, ``-1`` off the test positions;
    int8 for 0/1 losses, float64 for real-valued ones."""
    if blob[:4] != LOSS_MAGIC:
        K, R, F, n = struct.unpack("<4I", blob[:16])
        m = R * F * n
        bits = np.unpackbits(np.frombuffer(zlib.decompress(blob[16:]), dtype=np.uint8),
                             count=m * (K + 1)).astype(bool)
        test = bits[:m].reshape(R, F, n)
        out = bits[m:].reshape(K, R, F, n).astype(np.int8)
        out[:, ~test] = -1
        return out
    kind, K, R, F, n, _, at = _header(blob)
    raw = zlib.decompress(blob[at:])
    m = R * F * n
    mb = (m + 7) // 8
    test = np.unpackbits(np.frombuffer(raw[:mb], dtype=np.uint8), count=m).astype(bool)
    test = test.reshape(R, F, n)
    t = int(test.sum())
    if kind == _FLOAT64:
        vals = np.frombuffer(raw[mb:], dtype="<f8", count=K * t).reshape(K, t)
        out = np.full((K, R, F, n), -1.0)
    else:
        vals = np.unpackbits(np.frombuffer(raw[mb:], dtype=np.uint8),
                             count=K * t).reshape(K, t).astype(np.int8)
        out = np.full((K, R, F, n), -1, dtype=np.int8)
    out[:, test] = vals
    return out


def unpack_truth(blob: bytes | None) -> Truth | None:
    """The :class:`Truth` stored in a :func:`pack_losses` blob (None if it has none); reads
    the header only.

    Examples
    --------
    >>> t = Truth(np.array([1.5]), np.array([0.01]), np.zeros((1, 1)), 100)
    >>> unpack_truth(pack_losses(np.zeros((1, 1, 2, 3)), t)).error
    array([1.5])
    """
    if blob is None or bytes(blob[:4]) != LOSS_MAGIC:
        return None
    return _header(bytes(blob[:4096]) if len(blob) > 4096 else bytes(blob))[5]
