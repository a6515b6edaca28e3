"""Example test for ``simstudy card``: the 5x2 cv t with a pooled variance estimate.

Dietterich (1998)'s 5x2 cv paired t divides the first difference p_1^(1) by the mean of the
five per-replication variances s_i^2 = (p_i^(1) - pbar_i)^2 + (p_i^(2) - pbar_i)^2, each with
one degree of freedom (Alpaydın 1999, eq. 2.1): t = p_1^(1) / sqrt(sum_i s_i^2 / 5) ~ t(5).

This variant keeps the numerator but pools the ten differences around their grand mean:
s^2 = sum_ij (p_ij - pbar)^2 / 9, t = p_1^(1) / s, judged against t(9) -- a deliberately
naive estimator (it treats the ten overlapping-fold differences as independent), to show
what the card says about such a choice.

Vectorised over trials (``pooled_t.vectorized = True``): ``d`` is (T, 5, 2), one call per
cell, no Python loop per trial.

    python -m simstudy card --test examples/pooled_t.py:pooled_t --studies type1,type2
"""

import numpy as np
from scipy import special


def pooled_t(d, *, n_train, n_test):
    d = np.asarray(d, dtype=float)
    if d.shape[-2:] != (5, 2):
        raise ValueError(f"needs 5x2 folds, got {d.shape[-2:]}")
    flat = d.reshape(d.shape[:-2] + (10,))
    s2 = flat.var(axis=-1, ddof=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d[..., 0, 0] / np.sqrt(s2)
    p = 2.0 * special.stdtr(9.0, -np.abs(t))
    p = np.where(np.isfinite(t), p, 1.0)  # 0/0 (all ten differences equal 0): accept
    return t, p


pooled_t.vectorized = True
