"""Example test for ``simstudy card``: a sign-flip permutation test on the fold differences.

Under H0 (the two learners' fold errors exchangeable) each of the n = R x F fold differences
d_ij is as likely to carry either sign, so the mean difference is compared with its
distribution over all 2^n sign flips: p = #{s : |mean(s * d)| >= |mean(d)|} / 2^n.  The
enumeration is exact for n <= 12 (5x2 cv: 1,024 flips; 3x2: 64; 1x10 cv: 1,024); a design
with more differences (10x10 cv, 100 resamples) raises ValueError, so the card skips its
cells and says why.

It reads the overlapping folds' differences as independent, as the paired t on folds does;
the card judges it against the baselines at matched size.

Vectorised over trials (``sign_flip.vectorized = True``): ``d`` is (T, R, F), one call per
cell.

    python -m simstudy card --test examples/sign_flip.py:sign_flip
"""

import itertools

import numpy as np

#: at most this many differences: every sign vector is enumerated
EXACT_MAX = 12
_FLIPS: dict[int, np.ndarray] = {}


def _flips(n):
    """All 2^n sign vectors (2^n, n) for n differences."""
    s = _FLIPS.get(n)
    if s is None:
        s = _FLIPS[n] = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
    return s


def sign_flip(d, *, n_train, n_test):
    d = np.asarray(d, dtype=float)
    x = d.reshape(d.shape[0], -1)
    n = x.shape[1]
    if n > EXACT_MAX:
        raise ValueError(f"enumerates at most {EXACT_MAX} fold differences, got {n}")
    s = _flips(n)
    obs = np.abs(x.mean(1))
    p = np.empty(x.shape[0])
    for i in range(0, x.shape[0], 2000):  # bounded memory: (2000, B) flipped means
        flipped = np.abs(x[i:i + 2000] @ s.T) / n
        # a flip equal to the observed mean up to rounding counts as "as extreme"
        hits = (flipped >= obs[i:i + 2000, None] - 1e-12).sum(1)
        p[i:i + 2000] = hits / s.shape[0]
    return x.mean(1), p


sign_flip.vectorized = True
