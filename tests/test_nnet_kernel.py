"""``solver=nnet``: the fast BFGS kernel gives bitwise the plain kernel's weights.

The fast ``_vmmin`` runs the forward pass a layer at a time over all rows, stores the
inverse-Hessian approximation transposed (every product runs over contiguous memory in the
inner loop), reuses the forward pass of the accepted line-search point for the gradient, and
computes the next direction while it updates the matrix; each sum keeps its order, so the
weights and iteration counts must equal the plain kernel's (``_vmmin_plain``, R's vmmin
written out loop for loop) to the last bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from oracles.nnet_plain import _vmmin_plain

from simstudy.learners.neural.nnet import _vmmin
from simstudy.sources import get_source


def _fold(src: str, seed: int):
    rng = np.random.default_rng(seed)
    data = get_source(src).sample(rng)
    X, y = data.X, data.y
    rows = np.sort(rng.permutation(len(y))[: len(y) // 2])
    Xr = X[rows]
    mean = np.nanmean(Xr, axis=0)
    Xr = np.where(np.isnan(Xr), mean, Xr)  # nnet's inputs here: raw, nan -> training mean
    return np.ascontiguousarray(Xr), y[rows].astype(np.int64), int(y.max()) + 1, rng


# two-class heart (one logistic output), 3 and 6 classes (softmax); lp (h = 0) and MLPs;
# with and without weight decay; maxit 200 reaches restarts and the iteration cap
@pytest.mark.parametrize("src,h,decay", [
    ("iris", 0, 0.0), ("iris", 10, 0.0), ("glass", 20, 0.0), ("glass", 5, 0.01),
    ("heart-statlog", 0, 0.0), ("heart-statlog", 10, 0.0), ("heart-statlog", 3, 0.1),
    ("balance-scale", 5, 0.0), ("wine", 20, 0.0),
])
def test_fast_vmmin_equals_plain_bitwise(src, h, decay):
    for seed in (0, 1, 2):
        X, y, C, rng = _fold(src, seed)
        d = X.shape[1]
        K = 1 if C == 2 else C
        P = (d + 1) * h + ((h if h else d) + 1) * K
        w0 = rng.uniform(-0.7, 0.7, P)
        a, b = w0.copy(), w0.copy()
        ia = _vmmin(a, X, y, d, h, C, decay, 200, 1e-4, 1e-8)
        ib = _vmmin_plain(b, X, y, d, h, C, decay, 200, 1e-4, 1e-8)
        assert ia == ib
        assert ia > 1  # the optimiser ran
        np.testing.assert_array_equal(a.view(np.int64), b.view(np.int64))
