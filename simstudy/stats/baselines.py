"""The tests proposed since 1998, computed on many trials at once: one array call per test.

:class:`Trials` stacks trials of one shape (a cell's stored trials, or synthetic ones);
:func:`evaluate` computes a named test (``bayes-correlated-t``, ``cv-clt[alternative=
greater]``, ...: the names of :mod:`.registry`) for one learner pair over all of them with the
vectorised twins of :mod:`.bayes`, :mod:`.folds`, :mod:`.instances`; :func:`choose` does the
same for the model confidence set.  Each trial's result is the one the named test gives on
that trial alone (tests/test_report_baselines.py checks it): no statistic depends on the
other trials of the batch, and the Monte Carlo tests draw from per-trial keys.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import SimstudyError, unknown
from ..spec import parse_spec
from . import bayes as BY
from . import folds as FD
from . import instances as I
from . import mcs as M

__all__ = ["NEW_TESTS", "NEW_CHOICES", "Outcome", "Trials", "choose", "evaluate"]

#: the pairwise tests this module computes, in the order tables list them
NEW_TESTS = ("bayes-correlated-t", "conservative-z", "combined-t5x2cv", "wilcoxon",
             "sign-test", "cv-clt", "cv-clt[alternative=greater]", "mcnemar-exact",
             "mcnemar-midp", "paired-permutation", "paired-permutation[resamples=exact]",
             "paired-bootstrap", "paired-bootstrap[resamples=exact]")
#: the K-learner choice methods
NEW_CHOICES = ("mcs", "mcs[stat=max]")


@dataclass
class Trials:
    """T trials of one design, stacked.

    ``errors`` (T, K, R, F) fold error rates; ``n_train``, ``n_test`` (T, R, F) fold sizes
    (or (T,) means); ``losses``: per trial int8 (K, R, F, n) per-instance losses (-1 off
    the test positions) or None, or ``counts``: (a, b) -> (T, R, F, 3) counts n01, n10, n
    (:func:`.instances.pair_counts`) when the losses themselves are not at hand; ``seeds``:
    each trial's :class:`numpy.random.SeedSequence` (the Monte Carlo tests' keys derive
    from it, :func:`.instances.resampling_key`).
    """

    errors: np.ndarray
    n_train: np.ndarray
    n_test: np.ndarray
    losses: Sequence[np.ndarray | None] | None = None
    counts: dict[tuple[int, int], np.ndarray] = field(default_factory=dict)
    seeds: Sequence[np.random.SeedSequence] | None = None

    def __post_init__(self) -> None:
        self.errors = np.asarray(self.errors, dtype=np.float64)
        if self.errors.ndim != 4:
            raise SimstudyError(f"errors must have shape (T, K, R, F), got shape "
                                f"{self.errors.shape!r}")

    @property
    def T(self) -> int:  # noqa: N802 - the papers' letter for the number of trials
        return int(self.errors.shape[0])

    def mean_sizes(self) -> tuple[np.ndarray, np.ndarray]:
        """Each trial's mean training and test fold size, (T,) each."""
        ntr = np.asarray(self.n_train, dtype=np.float64).reshape(self.T, -1).mean(axis=1)
        nte = np.asarray(self.n_test, dtype=np.float64).reshape(self.T, -1).mean(axis=1)
        return ntr, nte

    def has_counts(self) -> bool:
        if self.counts:
            return True
        return self.losses is not None and all(x is not None for x in self.losses)

    def pair_counts(self, a: int, b: int) -> np.ndarray:
        """(T, R, F, 3): n01, n10, n of the pair per fold (from the losses, once per pair)."""
        if (a, b) not in self.counts:
            if not self.has_counts():
                raise SimstudyError("this test needs per-instance losses, which these trials "
                                    "did not keep")
            L = self.losses
            shapes = {x.shape for x in L}  # type: ignore[union-attr]
            if len(shapes) == 1:
                c = I.pair_counts(np.stack(L), a, b)  # type: ignore[arg-type]
            else:
                c = np.stack([I.pair_counts(x, a, b) for x in L])  # type: ignore[union-attr]
            self.counts[(a, b)] = c
        return self.counts[(a, b)]

    def keys(self, which: int, a: int, b: int) -> np.ndarray:
        if self.seeds is None:
            raise SimstudyError("the Monte Carlo resampling tests need each trial's seed")
        return np.array([I.resampling_key(s, which, a, b) for s in self.seeds], dtype=np.uint64)


@dataclass(frozen=True)
class Outcome:
    """A test on T trials: ``statistic``, ``pvalue`` (T,), and per-trial ``extra`` arrays
    (the Bayesian test's ``p_left``, ``p_rope``, ``p_right``)."""

    statistic: np.ndarray
    pvalue: np.ndarray
    extra: dict[str, np.ndarray] = field(default_factory=dict)


def _bayes(tr: Trials, a: int, b: int, rope: str = "0.01") -> Outcome:
    ntr, nte = tr.mean_sizes()
    s, p, pl, p0, pr = BY.correlated_bayesian_ttest_batch(
        tr.errors[:, a] - tr.errors[:, b], ntr, nte, rope=float(rope))
    return Outcome(s, p, {"p_left": pl, "p_rope": p0, "p_right": pr})


def _fold_test(fn: Callable) -> Callable:
    def run(tr: Trials, a: int, b: int) -> Outcome:
        return Outcome(*fn(tr.errors[:, a] - tr.errors[:, b]))
    return run


def _cv_clt(tr: Trials, a: int, b: int, alternative: str = "two-sided") -> Outcome:
    c = tr.pair_counts(a, b)[:, 0]  # replication 0: one k-fold partition
    return Outcome(*I.cv_clt_batch(c[..., 2], c[..., 0] - c[..., 1], c[..., 0] + c[..., 1],
                                   alternative=alternative))


def _first_fold(fn: Callable) -> Callable:
    def run(tr: Trials, a: int, b: int) -> Outcome:
        c = tr.pair_counts(a, b)[:, 0, 0]
        return Outcome(*fn(c[:, 0], c[:, 1]))
    return run


def _resampled(which: int) -> Callable:
    def run(tr: Trials, a: int, b: int, resamples: str = "9999") -> Outcome:
        c = tr.pair_counts(a, b)[:, 0, 0]
        B = None if resamples == "exact" else int(resamples)
        keys = None if B is None else tr.keys(which, a, b)
        if which == I.PERMUTATION:
            return Outcome(*I.paired_permutation_batch(c[:, 0], c[:, 1], keys, resamples=B))
        return Outcome(*I.paired_bootstrap_batch(c[:, 0], c[:, 1], c[:, 2], keys, resamples=B))
    return run


_EVALUATORS: dict[str, Callable[..., Outcome]] = {
    "bayes-correlated-t": _bayes,
    "conservative-z": lambda tr, a, b: Outcome(*FD.conservative_z_batch(
        tr.errors[:, a] - tr.errors[:, b])),
    "combined-t5x2cv": _fold_test(FD.combined_ttest_5x2cv_batch),
    "wilcoxon": _fold_test(FD.wilcoxon_signed_rank_batch),
    "sign-test": _fold_test(FD.sign_test_batch),
    "cv-clt": _cv_clt,
    "mcnemar-exact": _first_fold(I.mcnemar_exact_batch),
    "mcnemar-midp": _first_fold(I.mcnemar_midp_batch),
    "paired-permutation": _resampled(I.PERMUTATION),
    "paired-bootstrap": _resampled(I.BOOTSTRAP),
}


def evaluate(spec: str, trials: Trials, a: int = 0, b: int = 1) -> Outcome:
    """The named test ``spec`` on learners ``a``, ``b`` of every trial.

    Examples
    --------
    >>> import numpy as np
    >>> e = np.random.default_rng(0).integers(0, 30, size=(4, 2, 5, 2)) / 30
    >>> out = evaluate("combined-t5x2cv", Trials(e, np.full(4, 30.0), np.full(4, 30.0)))
    >>> out.pvalue.shape
    (4,)
    """
    base, params = parse_spec(spec)
    fn = _EVALUATORS.get(base)
    if fn is None:
        raise unknown("vectorised test", spec, list(_EVALUATORS))
    return fn(trials, a, b, **params)


def choose(spec: str, trials: Trials, alpha: float = 0.05, *, reps: int = 1000,
           chunk: int = 256) -> np.ndarray:
    """A choice method (``mcs``, ``mcs[stat=max]``) on every trial: the chosen learner per
    trial (T,), as :func:`.mcs.mcs_choice` chooses on each trial alone.

    Examples
    --------
    >>> import numpy as np
    >>> e = np.stack([np.full((5, 2), 0.3), np.full((5, 2), 0.1), np.full((5, 2), 0.105)])
    >>> e = e + np.random.default_rng(3).normal(0, 0.01, e.shape)
    >>> choose("mcs", Trials(e[None], np.full(1, 50.0), np.full(1, 50.0))).tolist()
    [1]
    """
    base, params = parse_spec(spec)
    if base != "mcs":
        raise unknown("vectorised choice method", spec, NEW_CHOICES)
    method = "max" if params.get("stat") == "max" else "R"
    E = trials.errors
    T, K, R, F = E.shape
    losses = E.reshape(T, K, R * F).transpose(0, 2, 1)
    best = np.empty(T, dtype=np.int64)
    for s in range(0, T, chunk):
        e = min(T, s + chunk)
        idx = np.stack([M.mcs_indices(R, F, reps, np.random.default_rng(M.content_seed(E[t])))
                        for t in range(s, e)])
        p, _ = M.mcs_pvalues(losses[s:e], idx, method=method)
        best[s:e] = np.argmax(p > alpha, axis=1)  # the most preferred member of the set
    return best
