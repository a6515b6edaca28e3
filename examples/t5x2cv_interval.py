"""Example interval method for ``simstudy card``: the 5x2 cv t and the interval it implies.

Dietterich's (1998) 5x2 cv paired t, t = p_1^(1) / sqrt(sum_i s_i^2 / 5) ~ t(5), with
s_i^2 = (p_i^(1) - pbar_i)^2 + (p_i^(2) - pbar_i)^2 (Alpaydın 1999, eq. 2.1), inverted into
a confidence interval for the expected difference in error:
p_1^(1) ± t(5, 1 - (1 - level) / 2) sqrt(sum_i s_i^2 / 5).

Returning ``(statistic, pvalue, (low, high))`` makes the card report the interval's
coverage and mean width on the cells whose true difference is known, beside the corrected
resampled t's interval on the same fold errors.  Vectorised: ``d`` is (T, 5, 2).

    python -m simstudy card --test examples/t5x2cv_interval.py:t5x2cv_interval \\
        --studies type1,gaussian
"""

import numpy as np
from scipy import special


def t5x2cv_interval(d, *, n_train, n_test):
    d = np.asarray(d, dtype=float)
    if d.shape[-2:] != (5, 2):
        raise ValueError(f"needs 5x2 folds, got {d.shape[-2:]}")
    s2 = ((d - d.mean(-1, keepdims=True)) ** 2).sum((-2, -1))
    se = np.sqrt(s2 / 5)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = d[..., 0, 0] / se
    p = np.where(s2 > 0, 2 * special.stdtr(5, -np.abs(t)), 1.0)  # 0/0: accept
    half = special.stdtrit(5, 0.5 + 0.5 * t5x2cv_interval.confidence) * se
    return t, p, (d[..., 0, 0] - half, d[..., 0, 0] + half)


t5x2cv_interval.vectorized = True
t5x2cv_interval.confidence = 0.95
