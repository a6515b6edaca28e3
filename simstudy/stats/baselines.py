"""Named tests on many trials at once: one array call per test.

:class:`Trials` stacks trials of one shape (a cell's stored trials, or synthetic ones);
:func:`evaluate` computes a named test (``t5x2cv``, ``bayes-correlated-t``, ``cv-clt[
alternative=greater]``, ...: the names of :mod:`.registry`) for one learner pair over all of
them with the batch form its registry entry declares; :func:`choose` does the same for a
choice method (the model confidence set).  Each trial's result is the one the named test
gives on that trial alone (tests/test_stats_registry.py checks it bit for bit): no statistic
depends on the other trials of the batch, and the Monte Carlo tests draw from per-trial keys.
Which tests the baselines tables compute is the registry's :func:`.registry.baselines`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import SimstudyError, unknown
from . import instances as I
from ._result import Outcome
from .registry import TESTS, ChoiceMethod, get_test

__all__ = ["Outcome", "Trials", "choose", "evaluate"]


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


def evaluate(spec: str, trials: Trials, a: int = 0, b: int = 1) -> Outcome:
    """The named test ``spec`` on learners ``a``, ``b`` of every trial (its entry's batch
    form).

    Examples
    --------
    >>> import numpy as np
    >>> e = np.random.default_rng(0).integers(0, 30, size=(4, 2, 5, 2)) / 30
    >>> out = evaluate("combined-t5x2cv", Trials(e, np.full(4, 30.0), np.full(4, 30.0)))
    >>> out.pvalue.shape
    (4,)
    """
    test = get_test(spec)
    if isinstance(test, ChoiceMethod) or test.batch is None:
        raise unknown("test with a batch form", spec, _batched(ChoiceMethod, invert=True))
    return test.batch(trials, a, b)


def choose(spec: str, trials: Trials, alpha: float = 0.05, *, reps: int = 1000,
           chunk: int = 256) -> np.ndarray:
    """A choice method (``mcs``, ``mcs[stat=max]``) on every trial: the chosen learner per
    trial (T,), as the method chooses on each trial alone (its entry's batch form).

    Examples
    --------
    >>> import numpy as np
    >>> e = np.stack([np.full((5, 2), 0.3), np.full((5, 2), 0.1), np.full((5, 2), 0.105)])
    >>> e = e + np.random.default_rng(3).normal(0, 0.01, e.shape)
    >>> choose("mcs", Trials(e[None], np.full(1, 50.0), np.full(1, 50.0))).tolist()
    [1]
    """
    m = get_test(spec)
    if not isinstance(m, ChoiceMethod) or m.batch is None:
        raise unknown("choice method with a batch form", spec, _batched(ChoiceMethod))
    return m.batch(trials, alpha, reps=reps, chunk=chunk)


def _batched(cls: type, invert: bool = False) -> list[str]:
    """Registered names whose entry declares a batch form (of ``cls``, or not of it)."""
    out = []
    for e in TESTS:
        t = get_test(e.name)
        if (isinstance(t, cls) != invert) and t.batch is not None:
            out.append(e.name)
    return out
