"""scikit-learn's random streams, replayed: ``np.random.RandomState`` and the splitter's xorshift.

* ``np.random.RandomState(seed)`` (legacy MT19937, numpy's ``mt19937_seed`` seeding) and its
  masked-rejection ``randint``: a forest's per-tree seeds, the bootstrap indices, the
  boosting rounds' per-stump seeds, and each splitter's initial state
  (``Splitter.init``: ``random_state.randint(0, RAND_R_MAX)``);
* the splitter's own ``our_rand_r`` (``sklearn/utils/_random.pxd``), the generator of the
  Fisher-Yates order in which ``node_split_best`` visits features.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .consts import JIT, M32, RAND_R_MAX


@njit(**JIT)
def mt_seed(mt: np.ndarray, seed: int) -> None:
    """numpy's ``mt19937_seed`` (what ``RandomState(int)`` does); mt: (625,) int64, mt[624]=pos."""
    s = seed & M32
    for pos in range(624):
        mt[pos] = s
        s = (1812433253 * (s ^ (s >> 30)) + pos + 1) & M32
    mt[624] = 624


@njit(**JIT)
def _mt_gen(mt: np.ndarray) -> None:
    # the standard MT19937 twist of the whole block (numpy's mt19937_gen); split at the
    # wrap-around of i + 397 and branch-free so that the compiler can vectorise it
    for i in range(227):
        y = (mt[i] & 0x80000000) | (mt[i + 1] & 0x7FFFFFFF)
        mt[i] = mt[i + 397] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    for i in range(227, 623):
        y = (mt[i] & 0x80000000) | (mt[i + 1] & 0x7FFFFFFF)
        mt[i] = mt[i - 227] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    y = (mt[623] & 0x80000000) | (mt[0] & 0x7FFFFFFF)
    mt[623] = mt[396] ^ (y >> 1) ^ ((y & 1) * 0x9908B0DF)
    mt[624] = 0


@njit(**JIT)
def mt_seed_many(mts: np.ndarray, seeds: np.ndarray, lo: int, n: int) -> None:
    """``mt_seed(mts[j], seeds[lo + j])`` for ``j < n``, the chains run side by side.

    Seeding is a 624-step dependency chain; interleaving independent seeds lets the
    CPU (and the vectoriser) overlap them, about 4x faster than one after another.
    """
    for j in range(n):
        mts[j, 0] = seeds[lo + j] & M32
    for pos in range(1, 624):
        for j in range(n):
            x = mts[j, pos - 1]
            mts[j, pos] = (1812433253 * (x ^ (x >> 30)) + pos) & M32
    for j in range(n):
        mts[j, 624] = 624


@njit(**JIT)
def _temper(y: int) -> int:
    y ^= y >> 11
    y ^= (y << 7) & 0x9D2C5680
    y ^= (y << 15) & 0xEFC60000
    y ^= y >> 18
    return y & M32


@njit(**JIT)
def mt_next32(mt: np.ndarray) -> int:
    """Next raw 32-bit output (numpy's ``mt19937_next32``)."""
    if mt[624] >= 624:
        _mt_gen(mt)
    pos = mt[624]
    mt[624] = pos + 1
    return _temper(mt[pos])


@njit(**JIT)
def _gen_mask(rng: int) -> int:
    mask = rng
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    return mask


@njit(**JIT)
def mt_randint(mt: np.ndarray, high: int) -> int:
    """``RandomState.randint(0, high)`` for ``high <= 2**32`` (legacy masked rejection)."""
    rng = high - 1
    if rng == 0:
        return 0
    mask = _gen_mask(rng)
    while True:
        v = mt_next32(mt) & mask
        if v <= rng:
            return v


@njit(**JIT)
def splitter_state(seed: int) -> int:
    """Initial ``rand_r_state`` of a tree fitted with ``random_state=seed``.

    scikit-learn's ``Splitter.init`` draws ``RandomState(seed).randint(0, RAND_R_MAX)``:
    the first MT output masked to 31 bits (rejected only if it equals 2**31 - 1).  Only
    ``mt[0], mt[1], mt[397]`` of the seeded block are needed for the first output, so
    seed just that far (the rare rejection falls back to the full generator).
    """
    s = seed & M32
    m0 = s
    m1 = 0
    for pos in range(397):
        s = (1812433253 * (s ^ (s >> 30)) + pos + 1) & M32
        if pos == 0:
            m1 = s
    m397 = s
    y = (m0 & 0x80000000) | (m1 & 0x7FFFFFFF)
    v = _temper(m397 ^ (y >> 1) ^ (0x9908B0DF if (y & 1) else 0)) & 0x7FFFFFFF
    if v <= RAND_R_MAX - 1:
        return v
    mt = np.empty(625, np.int64)
    mt_seed(mt, seed)
    return mt_randint(mt, RAND_R_MAX)


@njit(inline="always", **JIT)
def _rand_r(state: np.ndarray) -> int:
    # sklearn/utils/_random.pxd::our_rand_r (xorshift on uint32, result mod 2**31)
    s = state[0]
    if s == 0:
        s = 1
    s ^= (s << 13) & M32
    s ^= s >> 17
    s ^= (s << 5) & M32
    state[0] = s
    return s % 2147483648


@njit(**JIT)
def _first_rand_r_seed(mt: np.ndarray, seed: int) -> int:
    """``splitter_state(seed)`` from an already seeded (untwisted) state ``mt``.

    The first output of ``RandomState(seed)`` depends on ``mt[0], mt[1], mt[397]`` only;
    the forest seeds one state per tree for its bootstrap and the splitter's first draw
    comes from the same seed, so the 397-step seeding is not repeated.
    """
    y = (mt[0] & 0x80000000) | (mt[1] & 0x7FFFFFFF)
    v = _temper(mt[397] ^ (y >> 1) ^ (0x9908B0DF if (y & 1) else 0)) & 0x7FFFFFFF
    if v <= RAND_R_MAX - 1:
        return v
    return splitter_state(seed)  # rejected (p = 2**-31): the general path


@njit(**JIT)
def _bootstrap_counts(mt: np.ndarray, m: int, w: np.ndarray) -> None:
    """``w[i]`` = how often ``RandomState.randint(0, m, m)`` drew ``i`` (seeded ``mt``).

    ``w`` needs ``m + 1`` entries: rejected draws are counted in ``w[m]`` (scratch), so that
    the loop has no branch on the rejection (unpredictable, up to half of the draws).
    """
    if w.shape[0] <= m:
        raise ValueError("_bootstrap_counts: w needs m + 1 entries")
    for r in range(m + 1):
        w[r] = 0.0
    rng = m - 1
    if rng == 0:
        w[0] = float(m)
        return
    mask = _gen_mask(rng)
    k = 0
    pos = mt[624]
    while k < m:
        if pos >= 624:
            _mt_gen(mt)
            pos = 0
        # at most m - k draws per pass (each accepts at most one): never one too many
        stop = min(624, pos + (m - k))
        for q in range(pos, stop):
            v = _temper(mt[q]) & mask
            ok = v <= rng
            w[v if ok else m] += 1.0
            k += 1 if ok else 0
        pos = stop
    mt[624] = pos


@njit(**JIT)
def splitter_states(seeds: np.ndarray, out: np.ndarray) -> None:
    """``out[j] = splitter_state(seeds[j])`` for many seeds at once.

    The 397-step seeding recurrence is one long dependency chain per seed; running the
    chains side by side (inner loop over seeds) lets the CPU overlap them.
    """
    n = seeds.shape[0]
    s = np.empty(n, np.int64)
    m0 = np.empty(n, np.int64)
    m1 = np.empty(n, np.int64)
    for j in range(n):
        s[j] = seeds[j] & M32
        m0[j] = s[j]
    for pos in range(397):
        for j in range(n):
            x = s[j]
            s[j] = (1812433253 * (x ^ (x >> 30)) + pos + 1) & M32
        if pos == 0:
            for j in range(n):
                m1[j] = s[j]
    for j in range(n):
        y = (m0[j] & 0x80000000) | (m1[j] & 0x7FFFFFFF)
        v = _temper(s[j] ^ (y >> 1) ^ (0x9908B0DF if (y & 1) else 0)) & 0x7FFFFFFF
        out[j] = v if v <= RAND_R_MAX - 1 else splitter_state(seeds[j])


# ---------------------------------------------------------------------------------------
# the splitter's feature draw (sklearn/tree/_splitter.pyx::node_split_best), one node
# ---------------------------------------------------------------------------------------
# The caller keeps node_split_best's counters as locals (f_i, n_visited, n_found,
# n_drawn, n_total; a state array would have to be re-read after every write to
# ``feats``, which costs the small trees of a forest about 10 %):
#
#     f_i, n_visited, n_found, n_drawn, n_total = d, 0, 0, 0, n_known
#     while True:
#         f_j, n_visited, n_drawn = draw_next(feats, rstate, max_features, f_i,
#                                             n_visited, n_found, n_drawn, n_known, n_total)
#         if f_j < 0: break
#         f = feats[f_j]
#         if <f constant in the node>:
#             draw_constant(feats, f_j, n_total); n_found += 1; n_total += 1; continue
#         f_i -= 1; draw_keep(feats, f_i, f_j)
#         <scan f>
#     draw_end(feats, constf, n_known, n_total)


@njit(inline="always", **JIT)
def draw_next(feats, rstate, max_features, f_i, n_visited, n_found, n_drawn, n_known,
              n_total):
    """The index ``f_j`` in ``feats`` of the next feature to evaluate, or -1 when the draw
    is over; returns ``(f_j, n_visited, n_drawn)``.

    Fisher-Yates without replacement from ``our_rand_r`` (``rstate``): a draw that lands on
    a feature known to be constant (from an ancestor, ``feats[:n_known]``) moves it aside
    and counts as visited; the draw ends once ``max_features`` features have been visited
    beyond the constants met (it goes on while only constants were drawn) or no feature
    is left.  The caller answers with :func:`draw_constant` or :func:`draw_keep`.
    """
    while f_i > n_total and (max_features > n_visited or n_visited <= n_found + n_drawn):
        n_visited += 1
        f_j = n_drawn + _rand_r(rstate) % (f_i - n_found - n_drawn)
        if f_j < n_known:
            t = feats[n_drawn]
            feats[n_drawn] = feats[f_j]
            feats[f_j] = t
            n_drawn += 1
            continue
        return f_j + n_found, n_visited, n_drawn
    return -1, n_visited, n_drawn


@njit(inline="always", **JIT)
def draw_constant(feats, f_j, n_total):
    """Feature ``feats[f_j]`` is constant in the node: move it to the constants (the caller
    then adds one to ``n_found`` and ``n_total``)."""
    t = feats[f_j]
    feats[f_j] = feats[n_total]
    feats[n_total] = t


@njit(inline="always", **JIT)
def draw_keep(feats, f_i, f_j):
    """Feature ``feats[f_j]`` is evaluated: move it out of the pool (to ``f_i``, already
    decremented by the caller)."""
    t = feats[f_i]
    feats[f_i] = feats[f_j]
    feats[f_j] = t


@njit(inline="always", **JIT)
def draw_end(feats, constf, n_known, n_total):
    """Close the node's draw: scikit-learn's invariant for siblings and children -- the
    first ``n_known`` entries of ``feats`` restored from ``constf``, the constants found in
    this node copied there."""
    for q in range(n_known):
        feats[q] = constf[q]
    for q in range(n_known, n_total):
        constf[q] = feats[q]
