"""Named tests over a trial's fold losses: the names a study's cells and ``bench`` use.

A named test wraps a pure function of :mod:`simstudy.stats` and says which designs it can
read.  Every test that fits a cell's design is computed from the same stored fold losses,
which is what lets ``bench`` evaluate a new test without retraining anything.  Adding a
test is one decorated function (the first docstring line is what ``list`` prints)::

    @register_test("t5x2cv", fits=is_5x2)
    def _t5x2cv(fl, a, b):
        \"\"\"Dietterich's 5x2cv paired t (Alpaydin 1999 eq. 2.1), t(5)\"\"\"
        return ttest_5x2cv(fl.diff(a, b))

A test may take parameters in its spec, ``tB3x2cv[crit=one-sided]``: ``params`` lists the
valid values of each, and the function receives them as keyword strings.  Specs go through
the one parser (:func:`simstudy.spec.parse_spec`) and the generic
:class:`simstudy.registry.Registry`, so an unknown name or value gets the one error shape
naming it and the valid choices.

A :class:`ChoiceMethod` reads all K learners of a trial at once (Yıldız & Alpaydın 2006:
which learner is best?) and returns a chosen learner (or none) and an order; it shares the
tests' namespace (``register_choice``), so a cell's ``tests`` may name it.

Pure: no I/O here.  The version stamp of the statistics code (a hash of these files) is
:func:`simstudy.store.stats_version`, beside the store that records it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

import numpy as np
from scipy import special

from ..core import FoldLosses
from ..errors import SimstudyError, unknown
from ..registry import Registry
from ..spec import format_spec, parse_spec
from . import bayes as BY
from . import folds as FD
from . import instances as I
from . import pairwise as P
from ._result import TestResult
from .choice import CHOICE_FUNCTIONS

__all__ = [
    "TESTS",
    "ChoiceMethod",
    "StatTest",
    "check_tests_fit",
    "describe_tests",
    "get_test",
    "is_choice",
    "list_tests",
    "register_choice",
    "register_test",
]


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


#: every named test and choice method: ``TESTS.get("tB3x2cv[crit=one-sided]")``
TESTS: Registry[StatTest | ChoiceMethod] = Registry("test")

# built objects by spec, with the entry that built them (see get_test)
_BUILT: dict[str, tuple[str, tuple[object, StatTest | ChoiceMethod]]] = {}


def _factory(cls: type, name: str, fn: Callable, fits: Callable[[object], bool],
             params: Mapping[str, Iterable[str]], description: str, needs_losses: bool,
             registry: Registry | None = None):
    """The registry factory of one entry: checks the spec's parameters, binds them.

    ``registry`` (default :data:`TESTS`) is the one whose messages name the entry's kind;
    :mod:`simstudy.stats.interval_registry` builds its entries here too."""
    valid = {k: tuple(v) for k, v in params.items()}
    reg = TESTS if registry is None else registry

    def build(spec: str, got: dict[str, str]) -> StatTest | ChoiceMethod:
        reg.check_params(spec, got, set(valid))
        for k, v in got.items():
            if v not in valid[k]:
                raise unknown(f"{k} of {reg.kind} {name!r}:", v, valid[k])
        canonical = format_spec(name, got)
        if canonical != spec.strip():
            raise SimstudyError(f"{reg.kind} {spec!r}: write it in canonical form {canonical!r}")
        call = functools.partial(fn, **got) if got else fn
        desc = description + "".join(f" [{k}={v}]" for k, v in sorted(got.items()))
        return cls(canonical, fits, call, desc, needs_losses)

    return build


def _describe(fn: Callable, description: str | None, params: Mapping[str, Iterable[str]]) -> str:
    if description is None:
        doc = (fn.__doc__ or "").strip()
        description = " ".join(doc.split("\n\n")[0].split()) if doc else ""
    if params:
        description += "; " + ", ".join(f"[{k}={'|'.join(v)}]" for k, v in params.items())
    return description


def register_test(name: str, *, fits: Callable[[object], bool],
                  params: Mapping[str, Iterable[str]] | None = None,
                  needs_losses: bool = False, description: str | None = None):
    """Decorator: register ``fn(fold_losses, a, b, **params) -> TestResult`` as test ``name``.

    ``fits(design)`` says which designs it reads; ``params`` maps each spec parameter to its
    valid values; ``needs_losses`` asks for per-instance losses.  The description defaults
    to the docstring's first paragraph.
    """
    params = dict(params or {})

    def add(fn: Callable) -> Callable:
        desc = _describe(fn, description, params)
        TESTS.register(name, _factory(StatTest, name, fn, fits, params,
                                      _describe(fn, description, {}), needs_losses),
                       description=desc)
        return fn

    return add


def register_choice(name: str, *, fits: Callable[[object], bool],
                    params: Mapping[str, Iterable[str]] | None = None,
                    description: str | None = None):
    """Decorator: register ``fn(errors, alpha, **params) -> (best, order)`` as ``name``."""
    params = dict(params or {})

    def add(fn: Callable) -> Callable:
        TESTS.register(name, _factory(ChoiceMethod, name, fn, fits, params,
                                      _describe(fn, description, {}), False),
                       description=_describe(fn, description, params))
        return fn

    return add


def get_test(spec: str) -> StatTest | ChoiceMethod:
    """The test or choice method named by ``spec`` (``name`` or ``name[k=v]``)."""
    hit = _BUILT.get(spec)
    # cells name the same tests per trial: reuse the built object while its entry stands
    if hit is not None:
        base, built = hit
        found = TESTS.find(base)
        if found is not None and found[0] is built[0]:
            return built[1]
    test = TESTS.get(spec)
    base = parse_spec(spec)[0]
    _BUILT[spec] = (base, (TESTS.find(base)[0], test))
    return test


def is_choice(spec: str) -> bool:
    return isinstance(get_test(spec), ChoiceMethod)


def list_tests() -> list[str]:
    """Registered test names (a parametrised one once, by its base name)."""
    return sorted(TESTS.names())


def describe_tests() -> list[tuple[str, str]]:
    """(name, one-line description) of every registered test and choice method."""
    return sorted(TESTS.describe())


def check_tests_fit(tests: tuple[str, ...], design: object) -> None:
    """Raise if a named test cannot read this design (a mistake in a study grid)."""
    for t in tests:
        if not get_test(t).fits(design):
            ok = [e.name for e in TESTS if get_test(e.name).fits(design)]
            raise SimstudyError(
                f"test {t!r} does not fit design {getattr(design, 'name', design)!r}; "
                f"tests that fit it: {', '.join(sorted(ok))}"
            )


# --- design predicates -------------------------------------------------------------------

def _kind(design: object) -> str:
    return parse_spec(getattr(design, "name", str(design)))[0]


def _shape(design: object) -> tuple[int, int]:
    return tuple(getattr(design, "shape", (0, 0)))  # type: ignore[return-value]


def is_5x2(design: object) -> bool:
    return _shape(design) == (5, 2) and not _kind(design).startswith("resample")


def is_nested(design: object) -> bool:
    """Nested cv (``ncv[k=..,reps=..]``): its folds are outer and inner fits, not a partition."""
    return _kind(design) == "ncv"


def is_kfold(design: object) -> bool:
    return _kind(design).endswith("cv") and _shape(design)[1] >= 2 and not is_nested(design)


def is_resample(design: object) -> bool:
    return _kind(design).startswith("resample")


def _any(design: object) -> bool:
    return True


def _sizes(fl: FoldLosses) -> dict:
    return {"n_train": float(np.mean(fl.n_train)), "n_test": float(np.mean(fl.n_test))}


# --- the baseline tests --------------------------------------------------------------------

@register_test("t5x2cv", fits=is_5x2)
def _t5x2cv(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Dietterich's 5x2cv paired t, numerator p_1^(1) (Alpaydin 1999 eq. 2.1), t(5)"""
    return P.ttest_5x2cv(fl.diff(a, b))


@register_test("F5x2cv", fits=is_5x2)
def _f5x2cv(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Alpaydin's combined 5x2cv F (eq. 3.1), F(10, 5)"""
    return P.ftest_5x2cv(fl.diff(a, b))


@register_test("FB5x2cv", fits=lambda d: _kind(d) == "b5x2")
def _fb5x2cv(fl: FoldLosses, a: int, b: int) -> TestResult:
    """calibrated balanced 5x2cv F (Wang, Li & Li 2016 eq. 6-7), F(7, 5)"""
    return P.ftest_balanced_5x2cv(fl.diff(a, b))


@register_test("tB3x2cv", fits=lambda d: _kind(d) == "b3x2",
               params={"crit": ("two-sided", "one-sided")})
def _tb3x2cv(fl: FoldLosses, a: int, b: int, crit: str = "two-sided") -> TestResult:
    """blocked 3x2cv t (Wang et al. 2014), t(5)

    ``tB3x2cv[crit=one-sided]``: the same t judged against the one-sided critical value,
    i.e. reject when |t| > t_{1-alpha}(5) (2.015 at alpha 0.05): p-value ``P(T_5 > |t|)``.
    A hypothesis about Wang, Li & Li (2016)'s tB3x2cv column, whose rejects exceed the
    two-sided test's (a hypothesis about Wang et al.); ``crit=two-sided`` is ``tB3x2cv``.
    """
    r = P.ttest_blocked_3x2cv(fl.diff(a, b))
    if crit == "two-sided" or not np.isfinite(r.statistic):
        return r
    return TestResult(r.statistic, float(special.stdtr(5.0, -abs(r.statistic))), 5.0,
                      "two-sided, one-sided critical value")


@register_test("cv-t", fits=lambda d: is_kfold(d) and _shape(d)[0] == 1)
def _cv_t(fl: FoldLosses, a: int, b: int) -> TestResult:
    """k-fold cv paired t (Yildiz & Alpaydin 2006 eq. 4-5), t(k-1)"""
    return P.ttest_kfold(fl.diff(a, b)[0])


@register_test("resampled-t", fits=is_resample)
def _resampled_t(fl: FoldLosses, a: int, b: int) -> TestResult:
    """resampled paired t, uncorrected (Bouckaert & Frank 2004 sec. 3.1), t(n-1)"""
    return P.ttest_resampled(fl.diff(a, b)[:, 0])


@register_test("corrected-resampled-t", fits=is_resample)
def _corrected_resampled_t(fl: FoldLosses, a: int, b: int) -> TestResult:
    """corrected resampled t (Nadeau & Bengio 2003; Bouckaert & Frank sec. 3.2), t(n-1)"""
    return P.ttest_corrected_resampled(fl.diff(a, b)[:, 0], **_sizes(fl))


@register_test("corrected-rxk-t", fits=is_kfold)
def _corrected_rxk_t(fl: FoldLosses, a: int, b: int) -> TestResult:
    """corrected repeated k-fold cv t (Bouckaert & Frank sec. 3.3), t(rk-1)"""
    return P.ttest_corrected_repeated_kfold(fl.diff(a, b), **_sizes(fl))


@register_test("rxk-t", fits=is_kfold)
def _rxk_t(fl: FoldLosses, a: int, b: int) -> TestResult:
    """uncorrected repeated k-fold cv t on all rk differences (Bouckaert & Frank sec. 3.3,
    4.3), t(rk-1)"""
    return P.ttest_repeated_kfold(fl.diff(a, b))


# --- tests on per-instance losses -----------------------------------------------------------

def _first_fold(fl: FoldLosses, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-instance 0/1 losses of learners a and b on replication 0, fold 0."""
    if fl.losses is None:
        raise SimstudyError("this test needs per-instance losses, which the trial did not keep")
    la, lb = fl.losses[a, 0, 0], fl.losses[b, 0, 0]
    on = la >= 0
    return la[on], lb[on]


@register_test("mcnemar", fits=_any, needs_losses=True)
def _mcnemar(fl: FoldLosses, a: int, b: int) -> TestResult:
    """McNemar's chi2(1) with continuity correction on the first fold's test set
    (Dietterich 1998; Yildiz & Alpaydin 2006 eq. 13)"""
    return P.mcnemar(*_first_fold(fl, a, b))


@register_test("proportions", fits=_any, needs_losses=True)
def _proportions(fl: FoldLosses, a: int, b: int) -> TestResult:
    """difference of two proportions on the first fold's test set (Dietterich 1998 sec. 3.1)"""
    return P.proportions_test(*_first_fold(fl, a, b))


# --- tests proposed since 1998 (docs/baselines.md) ----------------------------------------------

def _folds(design: object) -> bool:
    """At least two fold differences (R * F >= 2)."""
    r, f = _shape(design)
    return r * f >= 2 and not is_nested(design)


def _halves(design: object) -> bool:
    """Pairs of complementary halves: every replication two folds that swap train and test."""
    return _shape(design)[1] == 2 and not is_resample(design)


def _partitions(design: object) -> bool:
    """Each replication a k-fold partition (k >= 2): every instance tested once."""
    return _shape(design)[1] >= 2 and not is_resample(design) and not is_nested(design)


def _pair_counts(fl: FoldLosses, a: int, b: int) -> np.ndarray:
    """(R, F, 3) counts n01, n10, n of the pair's per-instance losses per fold."""
    if fl.losses is None:
        raise SimstudyError("this test needs per-instance losses, which the trial did not keep")
    return I.pair_counts(fl.losses, a, b)


def _key(fl: FoldLosses, which: int, a: int, b: int) -> np.ndarray:
    seed = getattr(fl, "seed", None)
    if seed is None:
        raise SimstudyError(
            "the Monte Carlo resampling tests draw from the trial's seed, which these fold "
            "losses do not carry (the runner's and simstudy.report.baselines' do); give them "
            "FoldLosses(..., seed=simstudy.seeding.trial_seed(root, cell, run)) or name the "
            "exact variant ([resamples=exact])")
    return np.array([I.resampling_key(seed, which, a, b)])


@register_test("bayes-correlated-t", fits=_folds, params={"rope": BY.ROPES})
def _bayes_correlated_t(fl: FoldLosses, a: int, b: int, rope: str = "0.01") -> TestResult:
    """Bayesian correlated t test, rho = n_test/n (Corani & Benavoli 2015; Benavoli et
    al. 2017): P(left/rope/right), rope 0.01; a side's P > 0.95 is a reject"""
    return BY.correlated_bayesian_ttest(fl.diff(a, b), rope=float(rope), **_sizes(fl))


@register_test("conservative-z", fits=_halves)
def _conservative_z(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Nadeau & Bengio's conservative Z (2003) on paired complementary halves, N(0, 1)"""
    return FD.conservative_z(fl.diff(a, b))


@register_test("combined-t5x2cv", fits=is_5x2)
def _combined_t5x2cv(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Yildiz's combined 5x2cv t, all ten differences (2013 IEEE TKDE 25(9)), t(5)"""
    return FD.combined_ttest_5x2cv(fl.diff(a, b))


@register_test("wilcoxon", fits=_folds)
def _wilcoxon(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Wilcoxon signed-rank test on the fold differences, scipy's method (Wilcoxon 1945;
    Demsar 2006)"""
    return FD.wilcoxon_signed_rank(fl.diff(a, b))


@register_test("sign-test", fits=_folds)
def _sign_test(fl: FoldLosses, a: int, b: int) -> TestResult:
    """sign test on the fold differences, exact binomial (Demsar 2006)"""
    return FD.sign_test(fl.diff(a, b))


@register_test("cv-clt", fits=_partitions, needs_losses=True,
               params={"alternative": ("two-sided", "greater", "less")})
def _cv_clt(fl: FoldLosses, a: int, b: int, alternative: str = "two-sided") -> TestResult:
    """cross-validation CLT test, within-fold variance, on replication 0 (Bayle, Bayle, Janson
    & Mackey 2020), N(0, 1)"""
    c = _pair_counts(fl, a, b)[0]
    z, p = I.cv_clt_batch(c[None, :, 2], c[None, :, 0] - c[None, :, 1],
                          c[None, :, 0] + c[None, :, 1], alternative=alternative)
    return TestResult(float(z[0]), float(p[0]), None, alternative)


@register_test("mcnemar-exact", fits=_any, needs_losses=True)
def _mcnemar_exact(fl: FoldLosses, a: int, b: int) -> TestResult:
    """McNemar's exact binomial test on the first fold's test set (McNemar 1947; Fagerland, Lydersen
    & Laake 2013)"""
    c = _pair_counts(fl, a, b)[0, 0]
    s, p = I.mcnemar_exact_batch(c[0], c[1])
    return TestResult(float(s), float(p), None, "two-sided")


@register_test("mcnemar-midp", fits=_any, needs_losses=True)
def _mcnemar_midp(fl: FoldLosses, a: int, b: int) -> TestResult:
    """McNemar mid-p test on the first fold's test set (Fagerland, Lydersen & Laake 2013)"""
    c = _pair_counts(fl, a, b)[0, 0]
    s, p = I.mcnemar_midp_batch(c[0], c[1])
    return TestResult(float(s), float(p), None, "two-sided")


_RESAMPLES = ("9999", "999", "exact")


def _resamples(resamples: str) -> int | None:
    return None if resamples == "exact" else int(resamples)


@register_test("paired-permutation", fits=_any, needs_losses=True,
               params={"resamples": _RESAMPLES})
def _paired_permutation(fl: FoldLosses, a: int, b: int, resamples: str = "9999") -> TestResult:
    """paired permutation test (approximate randomisation) on the first fold's per-instance
    losses (Noreen 1989; Ojala & Garriga 2010), B = 9999 seeded from the trial"""
    c = _pair_counts(fl, a, b)[0, 0]
    B = _resamples(resamples)
    key = None if B is None else _key(fl, I.PERMUTATION, a, b)
    s, p = I.paired_permutation_batch(c[0], c[1], key, resamples=B)
    return TestResult(float(s[0]), float(p[0]), None, "two-sided")


@register_test("paired-bootstrap", fits=_any, needs_losses=True,
               params={"resamples": _RESAMPLES})
def _paired_bootstrap(fl: FoldLosses, a: int, b: int, resamples: str = "9999") -> TestResult:
    """paired bootstrap test on the first fold's per-instance losses (Efron & Tibshirani 1993
    ch. 16), B = 9999 seeded from the trial"""
    c = _pair_counts(fl, a, b)[0, 0]
    B = _resamples(resamples)
    key = None if B is None else _key(fl, I.BOOTSTRAP, a, b)
    s, p = I.paired_bootstrap_batch(c[0], c[1], c[2], key, resamples=B)
    return TestResult(float(s[0]), float(p[0]), None, "two-sided")


# --- best-of-K choice methods (Yildiz & Alpaydin 2006) ---------------------------------------

def _register_choices() -> None:
    """The methods of :data:`simstudy.stats.choice.CHOICE_FUNCTIONS`, one entry per base name:
    ``multitest[holm=1]`` is ``multitest`` with a parameter, its function and description
    the table's.  The 5x2 cv t ones need 5x2 folds; ANOVA and Newman-Keuls read any R x F
    folds as L = R F samples per learner."""
    variants: dict[str, list[str]] = {}
    for spec in CHOICE_FUNCTIONS:
        variants.setdefault(parse_spec(spec)[0], []).append(spec)

    for base, specs in variants.items():
        fits = _any if base in ("anova", "newman-keuls", "mcs") else is_5x2
        allowed = {k for s in specs for k in parse_spec(s)[1]}

        def build(spec: str, got: dict[str, str], _base: str = base, _specs: list[str] = specs,
                  _allowed: set[str] = allowed, _fits: Callable = fits) -> ChoiceMethod:
            TESTS.check_params(spec, got, _allowed)
            canonical = format_spec(_base, got)
            if canonical not in _specs:
                raise unknown(f"variant of choice method {_base!r}:", spec, _specs)
            if canonical != spec.strip():
                raise SimstudyError(f"test {spec!r}: write it in canonical form {canonical!r}")
            fn, desc = CHOICE_FUNCTIONS[canonical]
            return ChoiceMethod(canonical, _fits, fn, desc)

        desc = "; ".join([CHOICE_FUNCTIONS[base][1]] + [
            f"{s}: {CHOICE_FUNCTIONS[s][1]}" for s in specs if s != base])
        TESTS.register(base, build, description=desc)


_register_choices()
