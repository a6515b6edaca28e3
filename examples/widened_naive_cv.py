"""Example interval method for ``simstudy card --interval``: the naive cross-validation
interval, widened.

The naive cv interval, ``ē ± t(J-1) · s_e / sqrt(J)`` over the ``J`` fold error rates (or
their differences between two learners), covers far below its level because the folds'
estimates are correlated (Bates, Hastie & Tibshirani 2024, sec. 3; Nadeau & Bengio 2003).
This method simply multiplies its standard error by a constant ``WIDEN`` -- a rule of
thumb, not a published method: its card says how far such a fix goes against the corrected
resampled t, the CV CLT and the others, on the same trials.

It is called as the registered interval methods are, ``g(fold_losses, design, a, b)``
(``b`` None: learner a's error; else the difference a - b), and returns a
:class:`simstudy.stats.intervals.IntervalResult`, which the card reads at its level.  It
reads the resampling designs (declared in ``designs``), where its rival is the corrected
resampled t, which widens the same standard error by ``sqrt(1 + J n_test / n_train)``
instead of a constant::

    python -m simstudy card --interval examples/widened_naive_cv.py:widened_naive_cv
"""

from dataclasses import replace

from simstudy.stats.intervals import naive_cv_interval

#: the factor on the naive standard error
WIDEN = 1.5


def widened_naive_cv(fold_losses, design, a, b):
    e = fold_losses.errors[a] if b is None else fold_losses.errors[a] - fold_losses.errors[b]
    r = naive_cv_interval(e.ravel())
    return replace(r, standard_error=WIDEN * r.standard_error, method="widened_naive_cv")


widened_naive_cv.designs = {"resample"}
widened_naive_cv.kind = "interval"
