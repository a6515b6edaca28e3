"""Example test for ``simstudy card``: a sign-flip permutation test on the fold differences.

Under H0 (the two learners' fold errors exchangeable) each of the n = R x F fold differences
d_ij is as likely to carry either sign, so the mean difference is compared with its
distribution over sign flips: p = P(|mean(s * d)| >= |mean(d)|) over sign vectors s.  All 2^n
flips are enumerated when n <= 12 (5x2 cv: 1,024; 3x2: 64; 1x10 cv: 1,024); for more
differences (10x10 cv, 100 resamples) B = 1,999 flips drawn once from a fixed seed, with
p = (1 + #{|flipped| >= |observed|}) / (B + 1).

It treats the overlapping folds' differences as independent -- the same naive assumption as
the paired t on folds -- which is what a card should show: a test that holds its size on
some designs and is liberal on others, compared with the baselines at matched size.

Vectorised over trials (``sign_flip.vectorized = True``): ``d`` is (T, R, F), one call per
cell.

    python -m simstudy card --test examples/sign_flip.py:sign_flip
"""

import itertools

import numpy as np

#: at most this many differences: every sign vector; above it, MONTE_CARLO flips
EXACT_MAX = 12
MONTE_CARLO = 1999
_FLIPS: dict[int, np.ndarray] = {}


def _flips(n):
    """The sign vectors (B, n) for n differences: all 2^n, or a fixed Monte Carlo draw."""
    s = _FLIPS.get(n)
    if s is None:
        if n <= EXACT_MAX:
            s = np.array(list(itertools.product((1.0, -1.0), repeat=n)))
        else:
            rng = np.random.default_rng(np.random.SeedSequence(20261129))
            s = rng.choice((1.0, -1.0), size=(MONTE_CARLO, n))
        _FLIPS[n] = s
    return s


def sign_flip(d, *, n_train, n_test):
    d = np.asarray(d, dtype=float)
    x = d.reshape(d.shape[0], -1)
    n = x.shape[1]
    s = _flips(n)
    obs = np.abs(x.mean(1))
    p = np.empty(x.shape[0])
    for i in range(0, x.shape[0], 2000):  # bounded memory: (2000, B) flipped means
        flipped = np.abs(x[i:i + 2000] @ s.T) / n
        # a flip equal to the observed mean up to rounding counts as "as extreme"
        hits = (flipped >= obs[i:i + 2000, None] - 1e-12).sum(1)
        p[i:i + 2000] = hits / s.shape[0] if n <= EXACT_MAX else (1 + hits) / (s.shape[0] + 1)
    return x.mean(1), p


sign_flip.vectorized = True
