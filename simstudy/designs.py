"""Resampling designs: seeded splitters that produce train masks per fold.

A design turns the labels ``y`` (only their number and, for stratified designs, their
classes are used) and a ``numpy.random.Generator`` into a ``(R, F, n)`` boolean array of
*training* masks: ``R`` replications of ``F`` folds.  The test mask of a fold is the
complement of its training mask (every design here tests on all non-training instances).

Canonical ids (``design.name``; parameters at their default are left out, so one object has
one id):

``{r}x2``  e.g. ``5x2``
    Dietterich (1998) / Alpaydın (1999) 5×2 cv: each replication splits the data at random
    into two halves (no stratification: both papers say "divided into two equal-sized
    sets").  ``5x2[strat=1]`` is the same object as the stratified ``5x2cv`` and gets that id.
``{r}x{k}cv``  e.g. ``10x10cv``, ``1x10cv``, ``5x2cv``
    r times k-fold cross-validation, stratified as Weka does it (Bouckaert & Frank 2004 §4:
    "the folds were chosen using stratification").  ``[strat=0]`` turns stratification off;
    ``{r}x2cv[strat=0]`` is the plain ``{r}x2``.
``b5x2``
    balanced 5×2 cv of Wang, Li & Li (2016), Table 1 (groups 1–5).
``b3x2``
    blocked 3×2 cv of Wang et al. (2014) = groups 1–3 of that table.  With the same rng,
    ``b3x2`` masks equal the first three replications of ``b5x2``, so a tB3x2cv test can be
    read off a b5x2 trial.
``poor5x2[swap=0.05]``
    the "poor" 5×2 partition of Wang, Li & Li (2016) §3.
``resample[r=10,train=0.9]``
    random subsampling (Bouckaert & Frank 2004 §2, Nadeau & Bengio): ``r`` independent random
    splits, ``round(train * n)`` training instances (Weka's ``Math.round``); unstratified by
    default as in the paper ("stratification ... is not performed in the case of random
    subsampling"), ``strat=1`` available.
``holdout[train=0.5]``
    a single random split; the same object as ``resample[r=1,...]`` and named ``holdout``.
``ncv[k=10,reps=50]``
    nested cross-validation of Bates, Hastie & Tibshirani (2024, JASA) Algorithm 1:
    per repetition one random split into ``k`` folds, the ``k`` outer fits (train without
    fold i, test on fold i) and then one fit per pair of folds i < j (train without both,
    test on both), which is every inner fit of every outer fold at once.  Defaults are those
    of the authors' ``nestedcv`` R package; ``strat=1`` stratifies the folds.
``boot[r=50]``
    out-of-bag bootstrap for the .632+ estimator (Efron & Tibshirani 1997): an apparent
    fit, a no-information fit and ``r`` bootstrap samples tested out of bag
    (:class:`Bootstrap`).  Its training sets repeat instances, so it draws rows for the
    runner rather than masks alone (:meth:`Bootstrap.rows`).

Sizes.  Every design splits a random order of the instances round-robin into ``m`` cells
(cell = rank mod m) whose sizes differ by at most one; the first ``n mod m`` cells get the
extra instance.  In a 2-fold replication, fold ``f`` tests on cell ``f``: with ``n`` odd,
fold 0 trains on the smaller half (``n // 2``) and fold 1 on the larger one.

Stratification (Weka's ``Instances.stratify``): the random order is made class-major
(classes in code order, random order inside a class) before the round-robin, so every cell
holds each class ``n_c / m`` times, within one.  A class with fewer members than folds is
allowed (as in Weka): it is simply absent from some test folds.  Only folds that would be
empty are an error (``n`` smaller than the design's minimum), raised as
:class:`~simstudy.errors.SimstudyError` naming the design and ``n``.
"""

from __future__ import annotations

import numpy as np

from .errors import SimstudyError
from .registry import Registry
from .spec import format_spec

__all__ = [
    "Design",
    "RepeatedKFold",
    "Balanced5x2",
    "Blocked3x2",
    "Poor5x2",
    "Resample",
    "NestedCV",
    "Bootstrap",
    "pair_columns",
    "DESIGNS",
    "get_design",
    "list_designs",
]


class Design:
    """A resampling scheme with ``shape = (R, F)`` replications x folds."""

    name: str = "design"
    shape: tuple[int, int] = (1, 1)
    min_n: int = 2  # smallest n for which no fold's training or test set is empty

    def masks(self, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``(R, F, n)`` bool, True = training instance of that fold."""
        raise NotImplementedError

    def test_masks(self, train: np.ndarray) -> np.ndarray:
        """``(R, F, n)`` bool test masks; the complement of the training mask by default."""
        return ~train

    def _check_n(self, y: np.ndarray) -> int:
        n = int(np.shape(y)[0])
        if n < self.min_n:
            raise SimstudyError(
                f"design {self.name!r} needs at least {self.min_n} instances, got n={n}"
            )
        return n

    def __repr__(self) -> str:
        return f"<Design {self.name} shape={self.shape}>"


# ---------------------------------------------------------------------------------------
# shared machinery: random (optionally class-major) ranks, round-robin cells


def _codes(y: np.ndarray) -> np.ndarray:
    """Class codes 0..C-1 of any label array (so strat works on arbitrary labels)."""
    return np.unique(np.asarray(y), return_inverse=True)[1].reshape(-1)


def _ranks(y: np.ndarray, rng: np.random.Generator, reps: int, strat: bool) -> np.ndarray:
    """``(reps, n)`` position of each instance in a random order, one order per replication.

    Stratified orders are class-major: sorting ``code + u`` with ``u ~ U[0, 1)`` puts the
    classes in code order and each class in random order (ties have probability ~0).
    """
    n = int(np.shape(y)[0])
    keys = rng.random((reps, n))
    if strat:
        keys = keys + _codes(y)[None, :]
    order = np.argsort(keys, axis=1, kind="stable")
    ranks = np.empty_like(order)
    ranks[np.arange(reps)[:, None], order] = np.arange(n)  # put_along_axis, without its overhead
    return ranks


def _parse_bool(design: str, key: str, value: str) -> bool:
    v = value.strip().lower()
    if v in ("1", "true", "yes"):
        return True
    if v in ("0", "false", "no"):
        return False
    raise SimstudyError(f"design {design!r}: parameter {key}={value!r} must be 0 or 1")


def _parse_num(design: str, key: str, value: str, kind: type, lo: float, hi: float) -> float:
    try:
        x = kind(value)
    except ValueError:
        raise SimstudyError(
            f"design {design!r}: parameter {key}={value!r} is not a valid {kind.__name__}"
        ) from None
    if not (lo <= x <= hi):
        raise SimstudyError(f"design {design!r}: parameter {key}={value!r} must be in [{lo}, {hi}]")
    return x


def _fmt(x: float) -> str:
    return f"{x:g}"


# ---------------------------------------------------------------------------------------
# designs


class RepeatedKFold(Design):
    """``r`` times ``k``-fold cross-validation (``k = 2``, unstratified: the random 5×2 cv).

    Fold ``f`` of replication ``i`` tests on cell ``f`` of a fresh random round-robin split
    into ``k`` cells, so the ``k`` test sets of a replication partition the data and the
    training sets of two folds share ``n (k - 2) / k`` instances.  5×2 cv: Dietterich
    (1998), Alpaydın (1999) §2 ("the data set is divided into two equal-sized sets").
    """

    def __init__(self, r: int, k: int, strat: bool = True) -> None:
        self.r, self.k, self.strat = int(r), int(k), bool(strat)
        self.shape = (self.r, self.k)
        self.min_n = self.k
        if self.k == 2 and not self.strat:
            self.name = f"{self.r}x2"
        else:
            self.name = format_spec(f"{self.r}x{self.k}cv", {} if self.strat else {"strat": 0})

    def masks(self, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        self._check_n(y)
        cells = _ranks(y, rng, self.r, self.strat) % self.k  # (r, n)
        return cells[:, None, :] != np.arange(self.k)[None, :, None]


# Wang, Li & Li (2016) Table 1.  The data are split into 4 blocks P_1..P_4, each into
# halves P_j^1, P_j^2 (8 half-blocks; half-block (j, h) is cell j + 4h of an 8-cell
# round-robin split, which keeps every block and half within one of n/4 and n/8).
# D_1^(i) of groups 1-3 is P_1 u P_2, P_1 u P_3, P_1 u P_4; groups 4-5 use the blocks made
# by exchanging the first halves of P_1/P_2 and of P_3/P_4 (group 6 repeats group 1).
_P = {(j, h): j + 4 * h for j in range(4) for h in range(2)}  # (block, half) -> cell
_B5X2_TRAIN = [
    [(0, 0), (0, 1), (1, 0), (1, 1)],  # group 1: D = {P1, P2}
    [(0, 0), (0, 1), (2, 0), (2, 1)],  # group 2: D = {P1, P3}
    [(0, 0), (0, 1), (3, 0), (3, 1)],  # group 3: D = {P1, P4}
    [(1, 0), (0, 1), (3, 0), (2, 1)],  # group 4: D = {(P2^1, P1^2), (P4^1, P3^2)}
    [(1, 0), (0, 1), (2, 0), (3, 1)],  # group 5: D = {(P2^1, P1^2), (P3^1, P4^2)}
]
_B5X2_TABLE = np.zeros((5, 8), dtype=bool)  # [group, cell] -> cell is in D_1 of the group
for _g, _cells in enumerate(_B5X2_TRAIN):
    _B5X2_TABLE[_g, [_P[c] for c in _cells]] = True


class Balanced5x2(Design):
    """Balanced 5×2 cv of Wang, Li & Li (2016), §2.2 and Table 1.

    Replication ``i`` is group ``i + 1`` of Table 1; fold 0 trains on ``D_1^(i)`` and tests
    on ``T_1^(i)``, fold 1 the other way round (``D_2 = T_1``).  Any two replications' fold-0
    training sets share exactly ``n/4`` instances when ``n`` is divisible by 8 (the paper's
    half-blocks need ``n/8`` to be whole); otherwise half-blocks differ in size by one, the
    fold-0 overlaps are within 1 of ``n/4`` and the overlap of any two folds of different
    replications within 1.25 (checked exhaustively: no fixed cell-to-half-block assignment
    does better).  ``strat=1`` stratifies the 8 half-blocks
    (the paper splits at random).  Needs ``n >= 8`` (every half-block non-empty).
    """

    groups = 5

    def __init__(self, strat: bool = False) -> None:
        self.strat = bool(strat)
        base = "b5x2" if self.groups == 5 else "b3x2"
        self.name = format_spec(base, {"strat": 1} if self.strat else {})
        self.shape = (self.groups, 2)
        self.min_n = 8 if self.groups == 5 else 4

    def masks(self, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        self._check_n(y)
        cell = _ranks(y, rng, 1, self.strat)[0] % 8  # (n,)
        d1 = _B5X2_TABLE[: self.groups].take(cell, axis=1)  # (groups, n)
        out = np.empty((self.groups, 2, cell.shape[0]), dtype=bool)  # np.stack([d1, ~d1], 1)
        out[:, 0] = d1
        np.logical_not(d1, out=out[:, 1])
        return out


class Blocked3x2(Balanced5x2):
    """Blocked 3×2 cv of Wang et al. (2014): 4 random blocks, the 3 ways of pairing them.

    Replications are groups 1–3 of Wang, Li & Li (2016) Table 1 (training halves
    P1∪P2, P1∪P3, P1∪P4); any two fold-0 training sets share exactly one block (``n/4``
    when ``4 | n``).  Same rng → same masks as the first three replications of ``b5x2``.
    Needs ``n >= 4``.
    """

    groups = 3


class Poor5x2(Design):
    """The "poor" 5×2 cv partition of Wang, Li & Li (2016) §3.

    The paper: "the data set D is split into two disjoint and equal-sized blocks P_1, P_2.
    By exchanging k elements of P_1 for k elements of P_2, a new replication of 2-fold cross
    validation is obtained.  The other 3 replications are obtained by random partition ...
    k = n/20" (so the two replications share 9n/20 training instances).  Here replication 0
    is (P_1, P_2) (a random halving), replication 1 exchanges ``k = round(swap * n)``
    randomly chosen instances of each half, replications 2–4 are independent random
    halvings.  Fold-0 training sets of replications 0 and 1 share ``|P| - k`` instances.
    """

    shape = (5, 2)

    def __init__(self, swap: float = 0.05) -> None:
        self.swap = float(swap)
        self.name = format_spec("poor5x2", {} if self.swap == 0.05 else {"swap": _fmt(self.swap)})

    def k_for(self, n: int) -> int:
        """Number of instances exchanged each way for ``n`` instances (Java-style round)."""
        return int(np.floor(self.swap * n + 0.5))

    def masks(self, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        n = self._check_n(y)
        k = self.k_for(n)
        if k > n // 2:
            raise SimstudyError(
                f"design {self.name!r}: cannot exchange k={k} instances between halves of "
                f"n={n} (at most {n // 2})"
            )
        cells = _ranks(y, rng, 4, False) % 2  # rows: P split, swap order, 3 random reps
        base = cells[0]
        # k random members of each half: the first k of each half in a random order
        order = np.argsort(rng.random(n) + base, kind="stable")  # half 0 first, then half 1
        n0 = int((base == 0).sum())
        moved = np.zeros(n, dtype=bool)
        moved[order[:k]] = True
        moved[order[n0 : n0 + k]] = True
        swapped = np.where(moved, 1 - base, base)
        all_cells = np.stack([base, swapped, cells[1], cells[2], cells[3]])  # (5, n)
        return all_cells[:, None, :] != np.arange(2)[None, :, None]


class Resample(Design):
    """Random subsampling: ``r`` independent random train/test splits (Bouckaert & Frank 2004).

    Each split trains on ``round(train * n)`` instances (Weka's ``Math.round``) drawn without
    replacement and tests on the rest.  Stratified (``strat=1``): the training set holds
    ``train * n_c`` of each class ``c``, within one.  ``r = 1`` is the single hold-out split.
    """

    def __init__(self, r: int = 10, train: float = 0.9, strat: bool = False) -> None:
        self.r, self.train, self.strat = int(r), float(train), bool(strat)
        self.shape = (self.r, 1)
        if self.r == 1:
            params = {} if self.train == 0.5 else {"train": _fmt(self.train)}
            base = "holdout"
        else:
            params = {} if self.r == 10 else {"r": self.r}
            if self.train != 0.9:
                params["train"] = _fmt(self.train)
            base = "resample"
        if self.strat:
            params["strat"] = 1
        self.name = format_spec(base, params)

    def n_train(self, n: int) -> int:
        return int(np.floor(self.train * n + 0.5))

    def masks(self, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        n = int(np.shape(y)[0])
        m = self.n_train(n)
        if m < 1 or m > n - 1:
            raise SimstudyError(
                f"design {self.name!r}: n={n} gives {m} training and {n - m} test instances; "
                "both must be at least 1"
            )
        if not self.strat:
            return (_ranks(y, rng, self.r, False) < m)[:, None, :]
        # stratified: instance i of class c (i-th in a random within-class order) gets score
        # (i + 1/2) / n_c; the m lowest scores train, so each class contributes ~train * n_c
        codes = _codes(y)
        counts = np.bincount(codes)
        offset = np.concatenate([[0], np.cumsum(counts)[:-1]])
        within = _ranks(y, rng, self.r, True) - offset[codes][None, :]
        score = (within + 0.5) / counts[codes][None, :]
        tie = rng.random((self.r, n))  # random order among equal scores of different classes
        order = np.lexsort((tie, score), axis=-1)
        ranks = np.empty_like(order)
        np.put_along_axis(ranks, order, np.arange(n)[None, :], axis=1)
        return (ranks < m)[:, None, :]


class NestedCV(Design):
    """Nested cross-validation (Bates, Hastie & Tibshirani 2024, JASA, Algorithm 1).

    Replication ``r`` draws one random round-robin split into ``k`` folds.  Its first ``k``
    columns are the outer fits (train without fold ``i``, test on fold ``i``: a plain
    k-fold cv), then one column per pair ``i < j`` in lexicographic order (train without
    folds ``i`` and ``j``, test on both).  The inner cv of outer fold ``i`` is the pairs
    holding ``i``, read on the other fold of the pair: so the ``k (k - 1)`` inner fits of
    Algorithm 1 take ``k (k - 1) / 2`` fits, as in the authors' ``nestedcv`` package.
    ``shape = (reps, k + k (k - 1) / 2)``; ``pairs`` (:func:`pair_columns`) is the fold
    pair of each inner column.  Needs ``n >= k``; ``k >= 3`` (an inner cv needs two folds).
    """

    def __init__(self, k: int = 10, reps: int = 50, strat: bool = False) -> None:
        self.k, self.reps, self.strat = int(k), int(reps), bool(strat)
        self.pairs = pair_columns(self.k)
        self.shape = (self.reps, self.k + self.k * (self.k - 1) // 2)
        self.min_n = self.k
        params: dict[str, object] = {}
        if self.k != 10:
            params["k"] = self.k
        if self.reps != 50:
            params["reps"] = self.reps
        if self.strat:
            params["strat"] = 1
        self.name = format_spec("ncv", params)

    def masks(self, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        n = self._check_n(y)
        cells = _ranks(y, rng, self.reps, self.strat) % self.k  # (reps, n)
        out = np.empty((self.reps, self.shape[1], n), dtype=bool)
        out[:, : self.k] = cells[:, None, :] != np.arange(self.k)[None, :, None]
        for c, (i, j) in enumerate(self.pairs, start=self.k):
            out[:, c] = (cells != i) & (cells != j)
        return out


class Bootstrap(Design):
    """Out-of-bag bootstrap for the .632+ estimator (Efron & Tibshirani 1997, JASA 92).

    ``shape = (r + 2, 1)``.  Replication 0 fits all ``n`` instances and tests on them (the
    apparent error); replication 1 fits all ``n`` and tests each ``x_j`` against the label
    of instance ``(j + s) mod n``, ``s`` uniform in ``1 .. n-1`` (the off-diagonal mean of
    the no-information error, estimated from one random shift); replications ``2 .. r+1``
    each fit a bootstrap sample (``n`` draws with replacement) and test its out-of-bag
    instances.  A training set that repeats an instance is not a mask: :meth:`rows` gives
    the rows the runner builds (``X[xi]``, ``y[yi]``: each instance once, its extra copies,
    the shifted pairs), the masks over those rows and the instance column of each row, to
    which the runner folds the losses back.  :meth:`masks` is the training instances as a
    mask (what a check of the folds reads), drawn from the same rng.
    """

    def __init__(self, r: int = 50) -> None:
        self.r = int(r)
        self.shape = (self.r + 2, 1)
        self.min_n = 3
        self.name = format_spec("boot", {} if self.r == 50 else {"r": self.r})

    def _draw(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        """(r, n) multiplicities of the bootstrap samples, and the label shift."""
        idx = rng.integers(0, n, (self.r, n))
        counts = np.bincount((np.arange(self.r)[:, None] * n + idx).ravel(),
                             minlength=self.r * n).reshape(self.r, n)
        return counts, int(rng.integers(1, n))

    def masks(self, y: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        n = self._check_n(y)
        counts, _ = self._draw(n, rng)
        out = np.ones((self.r + 2, 1, n), dtype=bool)
        out[2:, 0] = counts > 0
        return out

    def test_masks(self, train: np.ndarray) -> np.ndarray:
        test = ~train
        test[:2] = True  # the apparent and the no-information fits test every instance
        return test

    def rows(self, y: np.ndarray, rng: np.random.Generator
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(xi, yi, train, test, column)``: row ``k`` is ``(X[xi[k]], y[yi[k]])``;
        ``train``, ``test`` ``(R, 1, N)`` masks over the rows; ``column[k]`` the instance
        whose loss column row ``k`` fills (each fold tests an instance at most once)."""
        n = self._check_n(y)
        counts, shift = self._draw(n, rng)
        extra = np.maximum(counts.max(axis=0) - 1, 0)  # copies beyond the first
        inst = np.repeat(np.arange(n), extra)
        copy = np.arange(inst.size) - np.repeat(np.cumsum(extra) - extra, extra) + 1
        own = np.arange(n)
        xi = np.concatenate([own, inst, own])
        yi = np.concatenate([own, inst, (own + shift) % n])
        N, E = xi.size, inst.size
        train = np.zeros((self.r + 2, 1, N), dtype=bool)
        test = np.zeros_like(train)
        train[:2, 0, :n] = True
        test[0, 0, :n] = True
        test[1, 0, n + E:] = True
        train[2:, 0, :n] = counts > 0
        train[2:, 0, n:n + E] = counts[:, inst] > copy[None, :]
        test[2:, 0, :n] = counts == 0
        return xi, yi, train, test, xi.copy()


def pair_columns(k: int) -> list[tuple[int, int]]:
    """The fold pair ``(i, j)``, ``i < j``, of each inner column of ``ncv[k=k]`` in order
    (column ``k + c`` holds pair ``c``).

    Examples
    --------
    >>> pair_columns(3)
    [(0, 1), (0, 2), (1, 2)]
    """
    return [(i, j) for i in range(k) for j in range(i + 1, k)]


# ---------------------------------------------------------------------------------------
# registry: one decorator per family (simstudy.registry)

DESIGNS: Registry[Design] = Registry("design")


def _strat(spec: str, params: dict[str, str], default: bool) -> bool:
    return _parse_bool(spec, "strat", params["strat"]) if "strat" in params else default


def _rk(spec: str, r: str, k: str) -> tuple[int, int]:
    r_, k_ = int(r), int(k)
    if r_ < 1 or k_ < 2:
        raise SimstudyError(f"design {spec!r}: need r >= 1 replications and k >= 2 folds")
    return r_, k_


@DESIGNS.register("{r}x2", description="r random 2-fold splits into halves, unstratified "
                  "(Dietterich 1998; Alpaydin 1999): 5x2")
def _rx2(spec: str, params: dict[str, str], r: str) -> Design:
    DESIGNS.check_params(spec, params, {"strat"})
    return RepeatedKFold(*_rk(spec, r, "2"), _strat(spec, params, False))


@DESIGNS.register("{r}x{k}cv", description="r times k-fold cv, stratified as Weka "
                  "(Bouckaert & Frank 2004); [strat=0] turns stratification off")
def _rxkcv(spec: str, params: dict[str, str], r: str, k: str) -> Design:
    DESIGNS.check_params(spec, params, {"strat"})
    return RepeatedKFold(*_rk(spec, r, k), _strat(spec, params, True))


@DESIGNS.register("b5x2", description="balanced 5x2 cv (Wang, Li & Li 2016, Table 1)")
def _b5x2(spec: str, params: dict[str, str]) -> Design:
    DESIGNS.check_params(spec, params, {"strat"})
    return Balanced5x2(_strat(spec, params, False))


@DESIGNS.register("b3x2", description="blocked 3x2 cv (Wang et al. 2014)")
def _b3x2(spec: str, params: dict[str, str]) -> Design:
    DESIGNS.check_params(spec, params, {"strat"})
    return Blocked3x2(_strat(spec, params, False))


@DESIGNS.register("poor5x2", description="the 'poor' 5x2 partition of Wang, Li & Li (2016) "
                  "sec. 3: [swap=0.05]")
def _poor5x2(spec: str, params: dict[str, str]) -> Design:
    DESIGNS.check_params(spec, params, {"swap"})
    return Poor5x2(_parse_num(spec, "swap", params.get("swap", "0.05"), float, 0.0, 0.5))


def _train(spec: str, params: dict[str, str], default: str) -> float:
    train = _parse_num(spec, "train", params.get("train", default), float, 0.0, 1.0)
    if not 0.0 < train < 1.0:
        raise SimstudyError(f"design {spec!r}: train={train!r} must be strictly between 0 and 1")
    return train


@DESIGNS.register("resample", description="r random train/test splits, unstratified "
                  "(Bouckaert & Frank 2004): [r=10,train=0.9,strat=0]")
def _resample(spec: str, params: dict[str, str]) -> Design:
    DESIGNS.check_params(spec, params, {"r", "train", "strat"})
    r = int(_parse_num(spec, "r", params.get("r", "10"), int, 1, 10**6))
    return Resample(r, _train(spec, params, "0.9"), _strat(spec, params, False))


@DESIGNS.register("holdout", description="one random train/test split: [train=0.5,strat=0]")
def _holdout(spec: str, params: dict[str, str]) -> Design:
    DESIGNS.check_params(spec, params, {"train", "strat"})
    return Resample(1, _train(spec, params, "0.5"), _strat(spec, params, False))


@DESIGNS.register("ncv", description="nested cv (Bates, Hastie & Tibshirani 2024 "
                  "Algorithm 1): k outer folds and every pair's inner fit per repetition: "
                  "[k=10,reps=50,strat=0]")
def _ncv(spec: str, params: dict[str, str]) -> Design:
    DESIGNS.check_params(spec, params, {"k", "reps", "strat"})
    k = int(_parse_num(spec, "k", params.get("k", "10"), int, 3, 10**4))
    reps = int(_parse_num(spec, "reps", params.get("reps", "50"), int, 1, 10**6))
    return NestedCV(k, reps, _strat(spec, params, False))


@DESIGNS.register("boot", description="out-of-bag bootstrap for the .632+ estimator (Efron "
                  "& Tibshirani 1997): an apparent fit, a no-information fit and r bootstrap "
                  "samples tested out of bag: [r=50]")
def _boot(spec: str, params: dict[str, str]) -> Design:
    DESIGNS.check_params(spec, params, {"r"})
    return Bootstrap(int(_parse_num(spec, "r", params.get("r", "50"), int, 2, 10**5)))


def list_designs() -> list[str]:
    """Design ids and id templates (``{r}``, ``{k}`` stand for positive integers)."""
    return DESIGNS.names()


def get_design(spec: str) -> Design:
    """Build a design from its id, e.g. ``"5x2"``, ``"10x10cv"``, ``"resample[r=100]"``.

    Raises :class:`SimstudyError` for an unknown name or a bad parameter.
    """
    return DESIGNS.get(spec)
