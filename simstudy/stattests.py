"""Registry of named tests that read a trial's :class:`~simstudy.core.FoldLosses`.

A test entry wraps a pure function of :mod:`simstudy.stats` and says which designs it can
read.  Every test that fits a cell's design is computed from the same stored fold losses,
which is what lets ``bench`` evaluate a new test without retraining anything.

Adding a test is one entry: ``register_test(StatTest("name", fits, fn))``.

A :class:`ChoiceMethod` reads all K learners of a trial at once (Yıldız & Alpaydın 2006:
which learner is best?) and returns a chosen learner (or none) and an order; it shares the
tests' namespace, so a cell's ``tests`` may name it.

Every stored result carries :func:`stats_version`, a hash of the statistics code; a rerun
recomputes results whose version differs, from the stored fold losses (no refit).
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .core import FoldLosses
from .errors import SimstudyError, unknown
from .spec import format_spec, parse_spec
from .stats._result import TestResult


@dataclass(frozen=True)
class StatTest:
    """A named test: ``fn(fold_losses, a, b) -> TestResult``; ``fits(design) -> bool``."""

    name: str
    fits: Callable[[object], bool]
    fn: Callable[[FoldLosses, int, int], TestResult]
    description: str = ""
    needs_losses: bool = False  # per-instance losses (McNemar etc.)

    def __call__(self, fl: FoldLosses, a: int = 0, b: int = 1) -> TestResult:
        return self.fn(fl, a, b)


@dataclass(frozen=True)
class ChoiceMethod:
    """A named K-learner method: ``fn(errors, alpha) -> (best, order)``.

    ``errors`` is a trial's (K, R, F) fold error rates, learners in the cell's order;
    ``best`` a learner index or ``None`` (no best found), ``order`` a tuple of learner
    indices (best first) or ``None``.
    """

    name: str
    fits: Callable[[object], bool]
    fn: Callable[[np.ndarray, float], tuple[int | None, tuple[int, ...] | None]]
    description: str = ""
    needs_losses: bool = False

    def __call__(self, errors: np.ndarray, alpha: float) -> tuple[int | None, tuple[int, ...] | None]:
        return self.fn(errors, alpha)


_TESTS: dict[str, StatTest | ChoiceMethod] = {}


def register_test(test: StatTest) -> StatTest:
    _TESTS[test.name] = test
    return test


def register_choice(method: ChoiceMethod) -> ChoiceMethod:
    _TESTS[method.name] = method
    return method


def get_test(name: str) -> StatTest | ChoiceMethod:
    if name not in _TESTS and "[" in name:
        _register_variant(name)
    if name not in _TESTS:
        raise unknown("test", name, _TESTS)
    return _TESTS[name]


def _tb3x2cv_crit(crit: str) -> StatTest:
    """``tB3x2cv[crit=one-sided]``: the blocked 3x2 cv t judged against the one-sided
    critical value, i.e. reject when |t| > t_{1-alpha}(5) (2.015 at alpha 0.05): p-value
    ``P(T_5 > |t|)``.  A hypothesis about Wang, Li & Li (2016)'s tB3x2cv column, whose
    rejects exceed the two-sided test's (issue 18); ``crit=two-sided`` is ``tB3x2cv``."""
    from scipy import special

    from . import stats as S

    if crit not in ("one-sided", "two-sided"):
        raise unknown("crit of tB3x2cv", crit, ("one-sided", "two-sided"))

    def fn(fl: FoldLosses, a: int, b: int) -> TestResult:
        r = S.ttest_blocked_3x2cv(fl.diff(a, b))
        if crit == "two-sided" or not np.isfinite(r.statistic):
            return r
        return TestResult(r.statistic, float(special.stdtr(5.0, -abs(r.statistic))), 5.0,
                          "two-sided, one-sided critical value")

    return StatTest(f"tB3x2cv[crit={crit}]", lambda d: _kind(d) == "b3x2", fn,
                    f"blocked 3x2cv t, |t| against the {crit} t(5) critical value")


#: tests that take parameters in the ``name[k=v]`` spec: base name -> factory(**params)
_VARIANTS: dict[str, Callable[..., StatTest]] = {"tB3x2cv": _tb3x2cv_crit}


def _register_variant(name: str) -> None:
    """Register ``base[k=v]`` on first use, if ``base`` takes parameters (canonical form only)."""
    base, params = parse_spec(name)
    if base not in _VARIANTS:
        return
    canonical = format_spec(base, params)
    if canonical != name:
        raise SimstudyError(f"test {name!r}: write it in canonical form {canonical!r}")
    try:
        test = _VARIANTS[base](**params)
    except TypeError as exc:
        raise SimstudyError(f"bad parameters {params!r} for test {base!r}: {exc}") from None
    if test.name != name:
        raise SimstudyError(f"test {name!r}: write it as {test.name!r}")
    register_test(test)


def is_choice(name: str) -> bool:
    return isinstance(get_test(name), ChoiceMethod)


@functools.cache
def stats_version() -> str:
    """Hash of the code that turns fold losses into results (simstudy.stats + this file)."""
    here = Path(__file__).resolve().parent
    h = hashlib.sha256()
    for f in sorted((here / "stats").glob("*.py")) + [Path(__file__).resolve()]:
        h.update(f.name.encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def list_tests() -> list[str]:
    return sorted(_TESTS)


def check_tests_fit(tests: tuple[str, ...], design: object) -> None:
    """Raise if a named test cannot read this design (a mistake in a study grid)."""
    for t in tests:
        if not get_test(t).fits(design):
            ok = [n for n, s in _TESTS.items() if s.fits(design)]
            raise SimstudyError(
                f"test {t!r} does not fit design {getattr(design, 'name', design)!r}; "
                f"tests that fit it: {', '.join(sorted(ok))}"
            )


# --- design predicates -------------------------------------------------------------------

def _kind(design: object) -> str:
    return parse_spec(getattr(design, "name", str(design)))[0]


def _shape(design: object) -> tuple[int, int]:
    return tuple(getattr(design, "shape", (0, 0)))  # type: ignore[return-value]


def _is_5x2(design: object) -> bool:
    return _shape(design) == (5, 2) and not _kind(design).startswith("resample")


def _is_kfold(design: object) -> bool:
    return _kind(design).endswith("cv") and _shape(design)[1] >= 2


def _is_resample(design: object) -> bool:
    return _kind(design).startswith("resample")


def _is_holdout(design: object) -> bool:
    return _kind(design).startswith("holdout")


# --- the baseline tests --------------------------------------------------------------------

def _register_defaults() -> None:
    from . import stats as S

    def sizes(fl: FoldLosses) -> dict:
        return {"n_train": float(np.mean(fl.n_train)), "n_test": float(np.mean(fl.n_test))}

    register_test(StatTest(
        "t5x2cv", _is_5x2, lambda fl, a, b: S.ttest_5x2cv(fl.diff(a, b)),
        "Dietterich's 5x2cv paired t, numerator p_1^(1) (Alpaydin 1999 eq. 2.1), t(5)"))
    register_test(StatTest(
        "F5x2cv", _is_5x2, lambda fl, a, b: S.ftest_5x2cv(fl.diff(a, b)),
        "Alpaydin's combined 5x2cv F (eq. 3.1), F(10, 5)"))
    register_test(StatTest(
        "FB5x2cv", lambda d: _kind(d) == "b5x2",
        lambda fl, a, b: S.ftest_balanced_5x2cv(fl.diff(a, b)),
        "calibrated balanced 5x2cv F (Wang, Li & Li 2016 eq. 6-7), F(7, 5)"))
    register_test(StatTest(
        "tB3x2cv", lambda d: _kind(d) == "b3x2",
        lambda fl, a, b: S.ttest_blocked_3x2cv(fl.diff(a, b)),
        "blocked 3x2cv t (Wang et al. 2014), t(5)"))
    register_test(StatTest(
        "cv-t", lambda d: _is_kfold(d) and _shape(d)[0] == 1,
        lambda fl, a, b: S.ttest_kfold(fl.diff(a, b)[0]),
        "k-fold cv paired t (Yildiz & Alpaydin 2006 eq. 4-5), t(k-1)"))
    register_test(StatTest(
        "resampled-t", _is_resample,
        lambda fl, a, b: S.ttest_resampled(fl.diff(a, b)[:, 0]),
        "resampled paired t, uncorrected (Bouckaert & Frank 2004 sec. 3.1), t(n-1)"))
    register_test(StatTest(
        "corrected-resampled-t", _is_resample,
        lambda fl, a, b: S.ttest_corrected_resampled(fl.diff(a, b)[:, 0], **sizes(fl)),
        "corrected resampled t (Nadeau & Bengio 2003; Bouckaert & Frank sec. 3.2), t(n-1)"))
    register_test(StatTest(
        "corrected-rxk-t", _is_kfold,
        lambda fl, a, b: S.ttest_corrected_repeated_kfold(fl.diff(a, b), **sizes(fl)),
        "corrected repeated k-fold cv t (Bouckaert & Frank sec. 3.3), t(rk-1)"))

    register_test(StatTest(
        "rxk-t", _is_kfold, lambda fl, a, b: S.ttest_repeated_kfold(fl.diff(a, b)),
        "uncorrected repeated k-fold cv t on all rk differences (Bouckaert & Frank "
        "sec. 3.3, 4.3), t(rk-1)"))

    # best-of-K choice methods (Yildiz & Alpaydin 2006): the 5x2 cv t ones need 5x2 folds;
    # ANOVA and Newman-Keuls read any R x F folds as L = R F samples per learner
    from .stats.choice import CHOICE_FUNCTIONS

    for name, (fn, desc) in CHOICE_FUNCTIONS.items():
        fits = (lambda d: True) if name in ("anova", "newman-keuls") else _is_5x2
        register_choice(ChoiceMethod(name, fits, fn, desc))

_register_defaults()


def _first_fold(fl: FoldLosses, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-instance 0/1 losses of learners a and b on replication 0, fold 0."""
    if fl.losses is None:
        raise SimstudyError("this test needs per-instance losses, which the trial did not keep")
    la, lb = fl.losses[a, 0, 0], fl.losses[b, 0, 0]
    on = la >= 0
    return la[on], lb[on]


def _register_instance_tests() -> None:
    from . import stats as S

    register_test(StatTest(
        "mcnemar", lambda d: True,
        lambda fl, a, b: S.mcnemar(*_first_fold(fl, a, b)),
        "McNemar's chi2(1) with continuity correction on the first fold's test set "
        "(Dietterich 1998; Yildiz & Alpaydin 2006 eq. 13)", needs_losses=True))
    register_test(StatTest(
        "proportions", lambda d: True,
        lambda fl, a, b: S.proportions_test(*_first_fold(fl, a, b)),
        "difference of two proportions on the first fold's test set (Dietterich 1998 sec. 3.1)",
        needs_losses=True))


_register_instance_tests()

