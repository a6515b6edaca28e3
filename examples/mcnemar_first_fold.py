"""Example test for ``simstudy card``: McNemar's test on the first fold's test set.

Dietterich (1998) §3.2 (Yıldız & Alpaydın 2006, eq. 13): on one test set, n01 = instances
learner a misclassifies and learner b classifies correctly, n10 the reverse;
chi2 = (|n01 - n10| - 1)^2 / (n01 + n10) ~ chi2(1) (continuity corrected).  With
n01 + n10 = 0 the statistic is undefined and the test accepts (p = 1).

It reads per-instance outcomes (``mcnemar_first_fold.needs = "losses"``): ``losses`` is
int8 (2, R, F, n), 1 = misclassified, 0 = correct, -1 = not a test instance of that fold.
A scalar function: ``card`` calls it once per trial.

    python -m simstudy card --test examples/mcnemar_first_fold.py:mcnemar_first_fold \\
        --studies type1,type2
"""

import numpy as np
from scipy import stats


def mcnemar_first_fold(d, *, n_train, n_test, losses):
    la, lb = losses[0, 0, 0], losses[1, 0, 0]
    on = la >= 0
    la, lb = la[on], lb[on]
    n01 = int(np.sum((la == 1) & (lb == 0)))
    n10 = int(np.sum((la == 0) & (lb == 1)))
    if n01 + n10 == 0:
        return np.nan, 1.0
    chi2 = (abs(n01 - n10) - 1.0) ** 2 / (n01 + n10)
    return chi2, float(stats.chi2.sf(chi2, 1))


mcnemar_first_fold.needs = "losses"
