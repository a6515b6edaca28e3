"""Named tests over a trial's fold losses: the names a study's cells and ``bench`` use.

A named test wraps a pure function of :mod:`simstudy.stats` and says which designs it can
read.  Every test that fits a cell's design is computed from the same stored fold losses,
which is what lets ``bench`` evaluate a new test without retraining anything.  Adding a
test is one decorated function (the first docstring line is what ``list`` prints)::

    @register_test("t5x2cv", fits=is_5x2)
    def _t5x2cv(fl, a, b):
        \"\"\"Dietterich's 5x2cv paired t (Alpaydin 1999 eq. 2.1), t(5)\"\"\"
        return ttest_5x2cv(fl.diff(a, b))

An entry also declares its batch form, ``batch(trials, a, b, **params) -> Outcome``: the
test on T trials at once (:class:`simstudy.stats.baselines.Trials`: fold errors with a
leading trial axis), trial ``i`` bit for bit what ``fn`` gives on it alone
(tests/test_stats_registry.py checks every entry); and its ``tags``: ``baseline`` marks the
tests proposed since 1998 that the baselines table and the card compute beside the stored
classic ones (:func:`baselines`), ``shown`` the variants those tables list too.

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
from . import choice as C
from . import folds as FD
from . import instances as I
from . import mcs as M
from . import pairwise as P
from ._result import Outcome, TestResult

__all__ = [
    "TESTS",
    "ChoiceMethod",
    "Declaration",
    "StatTest",
    "baselines",
    "check_tests_fit",
    "declaration",
    "describe_tests",
    "get_test",
    "is_choice",
    "list_tests",
    "register_choice",
    "register_test",
]


@dataclass(frozen=True)
class StatTest:
    """A named test: ``fn(fold_losses, a, b) -> TestResult``; ``fits(design) -> bool``;
    ``batch(trials, a, b) -> Outcome`` the same test on a batch of trials (None: none)."""

    name: str
    fits: Callable[[object], bool]
    fn: Callable[[FoldLosses, int, int], TestResult]
    description: str = ""
    needs_losses: bool = False  # per-instance losses (McNemar etc.)
    batch: Callable[..., Outcome] | None = None
    tags: frozenset[str] = frozenset()

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
    #: ``batch(trials, alpha) -> (T,)`` chosen learner per trial, -1 for none
    batch: Callable[..., np.ndarray] | None = None
    tags: frozenset[str] = frozenset()

    def __call__(self, errors: np.ndarray, alpha: float) -> tuple[int | None, tuple[int, ...] | None]:
        return self.fn(errors, alpha)


@dataclass(frozen=True)
class Declaration:
    """What a registry entry declares besides its function, as data: ``params`` (each
    spec parameter's valid values), ``specs`` (every spec it answers to, the base name
    first), ``tags`` and ``shown`` (the variants the baselines tables list beside the
    name), ``source`` (the citation the tables give for it)."""

    params: Mapping[str, tuple[str, ...]]
    specs: tuple[str, ...]
    tags: frozenset[str] = frozenset()
    shown: tuple[str, ...] = ()
    source: str = ""


#: every named test and choice method: ``TESTS.get("tB3x2cv[crit=one-sided]")``
TESTS: Registry[StatTest | ChoiceMethod] = Registry("test")

# built objects by spec, with the entry that built them (see get_test)
_BUILT: dict[str, tuple[str, tuple[object, StatTest | ChoiceMethod]]] = {}


def _factory(cls: type, name: str, fn: Callable, fits: Callable[[object], bool],
             params: Mapping[str, Iterable[str]], description: str, needs_losses: bool,
             registry: Registry | None = None, *, batch: Callable | None = None,
             tags: Iterable[str] = (), shown: Iterable[str] = (), source: str = ""):
    """The registry factory of one entry: checks the spec's parameters, binds them (to
    ``fn`` and ``batch`` alike); its :class:`Declaration` is the factory's ``declared``.

    ``registry`` (default :data:`TESTS`) is the one whose messages name the entry's kind;
    :mod:`simstudy.stats.interval_registry` builds its entries here too."""
    valid = {k: tuple(v) for k, v in params.items()}
    reg = TESTS if registry is None else registry
    tags = frozenset(tags)

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
        if cls is not StatTest:
            return cls(canonical, fits, call, desc, needs_losses)
        many = functools.partial(batch, **got) if got and batch is not None else batch
        return cls(canonical, fits, call, desc, needs_losses, many, tags)

    build.declared = Declaration(  # type: ignore[attr-defined]
        valid, (name, *(format_spec(name, {k: v}) for k, vs in valid.items() for v in vs)),
        tags, tuple(shown), source)
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
                  needs_losses: bool = False, description: str | None = None,
                  batch: Callable[..., Outcome] | None = None,
                  tags: Iterable[str] = (), shown: Iterable[str] = (), source: str = ""):
    """Decorator: register ``fn(fold_losses, a, b, **params) -> TestResult`` as test ``name``.

    ``fits(design)`` says which designs it reads; ``params`` maps each spec parameter to its
    valid values; ``needs_losses`` asks for per-instance losses.  The description defaults
    to the docstring's first paragraph.  ``batch(trials, a, b, **params) -> Outcome``: the
    same test on a batch of trials (module doc); ``tags`` (``baseline``) and ``shown``
    (variants the tables list) are read by :func:`baselines`; ``source`` is its citation
    in the tables.

    Examples
    --------
    >>> from simstudy.stats import ttest_kfold
    >>> @register_test("example-cv-t", fits=is_kfold, description="an example")
    ... def _example(fl, a, b):
    ...     return ttest_kfold(fl.diff(a, b).ravel())
    >>> "example-cv-t" in list_tests()
    True
    >>> _ = TESTS.unregister("example-cv-t")
    """
    params = dict(params or {})

    def add(fn: Callable) -> Callable:
        desc = _describe(fn, description, params)
        TESTS.register(name, _factory(StatTest, name, fn, fits, params,
                                      _describe(fn, description, {}), needs_losses,
                                      batch=batch, tags=tags, shown=shown, source=source),
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


def declaration(name: str) -> Declaration:
    """What entry ``name`` (a base name, or any spec of it) declares: its parameters,
    specs, tags.

    >>> declaration("tB3x2cv").specs
    ('tB3x2cv', 'tB3x2cv[crit=two-sided]', 'tB3x2cv[crit=one-sided]')
    """
    found = TESTS.find(parse_spec(name)[0])
    if found is None:
        raise TESTS.unknown(name)
    return getattr(found[0].factory, "declared", None) or Declaration({}, (found[0].name,))


def baselines(kind: str = "test", *, fold_errors_only: bool = False) -> tuple[str, ...]:
    """The specs tagged ``baseline``, in registration order, each entry's ``shown``
    variants after it: the methods proposed since 1998 that the baselines table
    (``kind='test'`` or ``'choice'``) and the card (``fold_errors_only=True``: none that
    needs per-instance losses) compute beside a study's stored tests.

    >>> baselines(fold_errors_only=True)[:2]
    ('bayes-correlated-t', 'conservative-z')
    >>> baselines("choice")
    ('mcs', 'mcs[stat=max]')
    """
    if kind not in ("test", "choice"):
        raise unknown("kind of baseline", kind, ("test", "choice"))
    out: list[str] = []
    for e in TESTS:
        dec = getattr(e.factory, "declared", None)
        if dec is None or "baseline" not in dec.tags:
            continue
        obj = get_test(e.name)
        if isinstance(obj, ChoiceMethod) != (kind == "choice"):
            continue
        if fold_errors_only and obj.needs_losses:
            continue
        out += [e.name, *dec.shown]
    return tuple(out)


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


# --- batch forms ---------------------------------------------------------------------------

_RESAMPLES = ("9999", "999", "exact")


def _resamples(resamples: str) -> int | None:
    return None if resamples == "exact" else int(resamples)


# ``trials`` is duck-typed (:class:`simstudy.stats.baselines.Trials`): ``errors`` (T, K, R, F),
# ``n_train``/``n_test`` (T, R, F) or (T,), ``mean_sizes()``, ``pair_counts(a, b)``,
# ``keys(which, a, b)``.

def _on_diffs(fn: Callable, cut: Callable[[np.ndarray], np.ndarray] = lambda d: d,
              sizes: bool = False, **kw: object) -> Callable[..., Outcome]:
    """The batch form of a test of fold differences: ``fn`` on each trial's a - b (``cut``
    to the part the test reads; with ``sizes``, also the fold sizes)."""
    def run(tr, a: int, b: int) -> Outcome:
        d = cut(tr.errors[:, a] - tr.errors[:, b])
        if sizes:
            return Outcome(*fn(d, tr.n_train, tr.n_test, **kw))
        return Outcome(*fn(d, **kw))
    return run


def _tb3x2cv_batch(tr, a: int, b: int, crit: str = "two-sided") -> Outcome:
    return Outcome(*P.ttest_blocked_3x2cv_batch(tr.errors[:, a] - tr.errors[:, b],
                                                crit == "one-sided"))


def _bayes_batch(tr, a: int, b: int, rope: str = "0.01") -> Outcome:
    ntr, nte = tr.mean_sizes()
    s, p, pl, p0, pr = BY.correlated_bayesian_ttest_batch(
        tr.errors[:, a] - tr.errors[:, b], ntr, nte, rope=float(rope))
    return Outcome(s, p, {"p_left": pl, "p_rope": p0, "p_right": pr})


def _cv_clt_batch(tr, a: int, b: int, alternative: str = "two-sided") -> Outcome:
    c = tr.pair_counts(a, b)[:, 0]  # replication 0: one k-fold partition
    return Outcome(*I.cv_clt_batch(c[..., 2], c[..., 0] - c[..., 1], c[..., 0] + c[..., 1],
                                   alternative=alternative))


def _first_fold_batch(fn: Callable) -> Callable[..., Outcome]:
    def run(tr, a: int, b: int) -> Outcome:
        c = tr.pair_counts(a, b)[:, 0, 0]
        return Outcome(*fn(c[:, 0], c[:, 1]))
    return run


def _resampled_batch(which: int) -> Callable[..., Outcome]:
    def run(tr, a: int, b: int, resamples: str = "9999") -> Outcome:
        c = tr.pair_counts(a, b)[:, 0, 0]
        B = _resamples(resamples)
        keys = None if B is None else tr.keys(which, a, b)
        if which == I.PERMUTATION:
            return Outcome(*I.paired_permutation_batch(c[:, 0], c[:, 1], keys, resamples=B))
        return Outcome(*I.paired_bootstrap_batch(c[:, 0], c[:, 1], c[:, 2], keys, resamples=B))
    return run


def _mcs_batch(tr, alpha: float, stat: str = "R", *, reps: int = 1000,
               chunk: int = 256) -> np.ndarray:
    return M.mcs_choice_batch(tr.errors, alpha, method="max" if stat == "max" else "R",
                              reps=reps, chunk=chunk)


# --- the baseline tests --------------------------------------------------------------------

@register_test("t5x2cv", source="Dietterich 1998",
               fits=is_5x2, batch=_on_diffs(P.ttest_5x2cv_batch))
def _t5x2cv(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Dietterich's 5x2cv paired t, numerator p_1^(1) (Alpaydin 1999 eq. 2.1), t(5)"""
    return P.ttest_5x2cv(fl.diff(a, b))


@register_test("F5x2cv", source="Alpaydin 1999",
               fits=is_5x2, batch=_on_diffs(P.ftest_5x2cv_batch, df_num=10.0))
def _f5x2cv(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Alpaydin's combined 5x2cv F (eq. 3.1), F(10, 5)"""
    return P.ftest_5x2cv(fl.diff(a, b))


@register_test("FB5x2cv", source="Wang, Li & Li 2016",
               fits=lambda d: _kind(d) == "b5x2",
               batch=_on_diffs(P.ftest_5x2cv_batch, df_num=7.0))
def _fb5x2cv(fl: FoldLosses, a: int, b: int) -> TestResult:
    """calibrated balanced 5x2cv F (Wang, Li & Li 2016 eq. 6-7), F(7, 5)"""
    return P.ftest_balanced_5x2cv(fl.diff(a, b))


@register_test("tB3x2cv", source="Wang et al. 2014",
               fits=lambda d: _kind(d) == "b3x2",
               params={"crit": ("two-sided", "one-sided")}, batch=_tb3x2cv_batch)
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
                      "two-sided, one-sided critical value", estimate=r.estimate,
                      standard_error=r.standard_error)


@register_test("cv-t", source="Yildiz & Alpaydin 2006",
               fits=lambda d: is_kfold(d) and _shape(d)[0] == 1,
               batch=_on_diffs(P.paired_t_batch, lambda d: d[:, 0]))
def _cv_t(fl: FoldLosses, a: int, b: int) -> TestResult:
    """k-fold cv paired t (Yildiz & Alpaydin 2006 eq. 4-5), t(k-1)"""
    return P.ttest_kfold(fl.diff(a, b)[0])


@register_test("resampled-t", source="Dietterich 1998; Bouckaert & Frank 2004",
               fits=is_resample,
               batch=_on_diffs(P.paired_t_batch, lambda d: d[:, :, 0]))
def _resampled_t(fl: FoldLosses, a: int, b: int) -> TestResult:
    """resampled paired t, uncorrected (Bouckaert & Frank 2004 sec. 3.1), t(n-1)"""
    return P.ttest_resampled(fl.diff(a, b)[:, 0])


@register_test("corrected-resampled-t", source="Nadeau & Bengio 2003; Bouckaert & Frank 2004",
               fits=is_resample,
               batch=_on_diffs(P.paired_t_batch, lambda d: d[:, :, 0], sizes=True))
def _corrected_resampled_t(fl: FoldLosses, a: int, b: int) -> TestResult:
    """corrected resampled t (Nadeau & Bengio 2003; Bouckaert & Frank sec. 3.2), t(n-1)"""
    return P.ttest_corrected_resampled(fl.diff(a, b)[:, 0], **_sizes(fl))


@register_test("corrected-rxk-t", source="Bouckaert & Frank 2004",
               fits=is_kfold,
               batch=_on_diffs(P.paired_t_batch, sizes=True))
def _corrected_rxk_t(fl: FoldLosses, a: int, b: int) -> TestResult:
    """corrected repeated k-fold cv t (Bouckaert & Frank sec. 3.3), t(rk-1)"""
    return P.ttest_corrected_repeated_kfold(fl.diff(a, b), **_sizes(fl))


@register_test("rxk-t", source="Bouckaert & Frank 2004",
               fits=is_kfold, batch=_on_diffs(P.paired_t_batch))
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


@register_test("mcnemar", source="Dietterich 1998",
               fits=_any, needs_losses=True)
def _mcnemar(fl: FoldLosses, a: int, b: int) -> TestResult:
    """McNemar's chi2(1) with continuity correction on the first fold's test set
    (Dietterich 1998; Yildiz & Alpaydin 2006 eq. 13)"""
    return P.mcnemar(*_first_fold(fl, a, b))


@register_test("proportions", source="Dietterich 1998",
               fits=_any, needs_losses=True)
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


@register_test("bayes-correlated-t", source="Corani & Benavoli 2015; Benavoli et al. 2017",
               fits=_folds, params={"rope": BY.ROPES},
               batch=_bayes_batch, tags=("baseline",))
def _bayes_correlated_t(fl: FoldLosses, a: int, b: int, rope: str = "0.01") -> TestResult:
    """Bayesian correlated t test, rho = n_test/n (Corani & Benavoli 2015; Benavoli et
    al. 2017): P(left/rope/right), rope 0.01; a side's P > 0.95 is a reject"""
    return BY.correlated_bayesian_ttest(fl.diff(a, b), rope=float(rope), **_sizes(fl))


@register_test("conservative-z", source="Nadeau & Bengio 2003",
               fits=_halves, batch=_on_diffs(FD.conservative_z_batch),
               tags=("baseline",))
def _conservative_z(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Nadeau & Bengio's conservative Z (2003) on paired complementary halves, N(0, 1)"""
    return FD.conservative_z(fl.diff(a, b))


@register_test("combined-t5x2cv", source="Yildiz 2013",
               fits=is_5x2,
               batch=_on_diffs(FD.combined_ttest_5x2cv_batch), tags=("baseline",))
def _combined_t5x2cv(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Yildiz's combined 5x2cv t, all ten differences (2013 IEEE TKDE 25(9)), t(5)"""
    return FD.combined_ttest_5x2cv(fl.diff(a, b))


@register_test("wilcoxon", source="Wilcoxon 1945; Demsar 2006",
               fits=_folds, batch=_on_diffs(FD.wilcoxon_signed_rank_batch),
               tags=("baseline",))
def _wilcoxon(fl: FoldLosses, a: int, b: int) -> TestResult:
    """Wilcoxon signed-rank test on the fold differences, scipy's method (Wilcoxon 1945;
    Demsar 2006)"""
    return FD.wilcoxon_signed_rank(fl.diff(a, b))


@register_test("sign-test", source="Demsar 2006",
               fits=_folds, batch=_on_diffs(FD.sign_test_batch),
               tags=("baseline",))
def _sign_test(fl: FoldLosses, a: int, b: int) -> TestResult:
    """sign test on the fold differences, exact binomial (Demsar 2006)"""
    return FD.sign_test(fl.diff(a, b))


@register_test("cv-clt", source="Bayle, Bayle, Janson & Mackey 2020",
               fits=_partitions, needs_losses=True,
               params={"alternative": ("two-sided", "greater", "less")},
               batch=_cv_clt_batch, tags=("baseline",), shown=("cv-clt[alternative=greater]",))
def _cv_clt(fl: FoldLosses, a: int, b: int, alternative: str = "two-sided") -> TestResult:
    """cross-validation CLT test, within-fold variance, on replication 0 (Bayle, Bayle, Janson
    & Mackey 2020), N(0, 1)"""
    c = _pair_counts(fl, a, b)[0]
    z, p = I.cv_clt_batch(c[None, :, 2], c[None, :, 0] - c[None, :, 1],
                          c[None, :, 0] + c[None, :, 1], alternative=alternative)
    return TestResult(float(z[0]), float(p[0]), None, alternative)


@register_test("mcnemar-exact", source="McNemar 1947; Fagerland, Lydersen & Laake 2013",
               fits=_any, needs_losses=True,
               batch=_first_fold_batch(I.mcnemar_exact_batch), tags=("baseline",))
def _mcnemar_exact(fl: FoldLosses, a: int, b: int) -> TestResult:
    """McNemar's exact binomial test on the first fold's test set (McNemar 1947; Fagerland, Lydersen
    & Laake 2013)"""
    c = _pair_counts(fl, a, b)[0, 0]
    s, p = I.mcnemar_exact_batch(c[0], c[1])
    return TestResult(float(s), float(p), None, "two-sided")


@register_test("mcnemar-midp", source="Fagerland, Lydersen & Laake 2013",
               fits=_any, needs_losses=True,
               batch=_first_fold_batch(I.mcnemar_midp_batch), tags=("baseline",))
def _mcnemar_midp(fl: FoldLosses, a: int, b: int) -> TestResult:
    """McNemar mid-p test on the first fold's test set (Fagerland, Lydersen & Laake 2013)"""
    c = _pair_counts(fl, a, b)[0, 0]
    s, p = I.mcnemar_midp_batch(c[0], c[1])
    return TestResult(float(s), float(p), None, "two-sided")


@register_test("paired-permutation", source="Noreen 1989; Ojala & Garriga 2010",
               fits=_any, needs_losses=True,
               params={"resamples": _RESAMPLES}, batch=_resampled_batch(I.PERMUTATION),
               tags=("baseline",), shown=("paired-permutation[resamples=exact]",))
def _paired_permutation(fl: FoldLosses, a: int, b: int, resamples: str = "9999") -> TestResult:
    """paired permutation test (approximate randomisation) on the first fold's per-instance
    losses (Noreen 1989; Ojala & Garriga 2010), B = 9999 seeded from the trial"""
    c = _pair_counts(fl, a, b)[0, 0]
    B = _resamples(resamples)
    key = None if B is None else _key(fl, I.PERMUTATION, a, b)
    s, p = I.paired_permutation_batch(c[0], c[1], key, resamples=B)
    return TestResult(float(s[0]), float(p[0]), None, "two-sided")


@register_test("paired-bootstrap", source="Efron & Tibshirani 1993",
               fits=_any, needs_losses=True,
               params={"resamples": _RESAMPLES}, batch=_resampled_batch(I.BOOTSTRAP),
               tags=("baseline",), shown=("paired-bootstrap[resamples=exact]",))
def _paired_bootstrap(fl: FoldLosses, a: int, b: int, resamples: str = "9999") -> TestResult:
    """paired bootstrap test on the first fold's per-instance losses (Efron & Tibshirani 1993
    ch. 16), B = 9999 seeded from the trial"""
    c = _pair_counts(fl, a, b)[0, 0]
    B = _resamples(resamples)
    key = None if B is None else _key(fl, I.BOOTSTRAP, a, b)
    s, p = I.paired_bootstrap_batch(c[0], c[1], c[2], key, resamples=B)
    return TestResult(float(s[0]), float(p[0]), None, "two-sided")


# --- best-of-K choice methods (Yildiz & Alpaydin 2006) ---------------------------------------

def _register_choices(methods: Iterable[tuple]) -> None:
    """The best-of-K methods of :mod:`.choice` and :mod:`.mcs`, one entry per base name:
    ``(base, fits, citation, batch, variants)``, ``variants`` the ``(spec, fn,
    description)`` of each spec, the base first (``multitest[holm=1]`` is ``multitest``
    with a parameter, its own function and description).  ``batch(trials, alpha,
    **params)``, where given, makes it a baseline with every variant shown."""
    for base, fits, cited, many, variants in methods:
        table = {spec: (fn, desc) for spec, fn, desc in variants}
        specs = list(table)
        allowed = {k for s in specs for k in parse_spec(s)[1]}
        tags = frozenset({"baseline"}) if many is not None else frozenset()

        def build(spec: str, got: dict[str, str], _base: str = base, _table: dict = table,
                  _allowed: set[str] = allowed, _fits: Callable = fits,
                  _many: Callable | None = many, _tags: frozenset = tags) -> ChoiceMethod:
            TESTS.check_params(spec, got, _allowed)
            canonical = format_spec(_base, got)
            if canonical not in _table:
                raise unknown(f"variant of choice method {_base!r}:", spec, list(_table))
            if canonical != spec.strip():
                raise SimstudyError(f"test {spec!r}: write it in canonical form {canonical!r}")
            fn, desc = _table[canonical]
            bound = None if _many is None else functools.partial(_many, **got)
            return ChoiceMethod(canonical, _fits, fn, desc, False, bound, _tags)

        params: dict[str, tuple[str, ...]] = {}
        for sp in specs:
            for k, v in parse_spec(sp)[1].items():
                params[k] = params.get(k, ()) + (v,)
        build.declared = Declaration(params, tuple(specs), tags,  # type: ignore[attr-defined]
                                     tuple(specs[1:]) if many is not None else (), cited)
        desc = "; ".join([table[base][1]] + [f"{s}: {table[s][1]}" for s in specs if s != base])
        TESTS.register(base, build, description=desc)


# the 5x2 cv t ones need 5x2 folds; ANOVA, Newman-Keuls and the MCS read any R x F folds as
# L = R F samples per learner
_register_choices([
    ("anova", _any, "Yildiz & Alpaydin 2006", None, [
        ("anova", C.anova_choice,
         "ANOVA F(K-1, K(L-1)) (Yildiz & Alpaydin 2006 eqs. 9-11): accepts -> the "
         "simplest learner; rejects -> no best")]),
    ("newman-keuls", _any, "Yildiz & Alpaydin 2006", None, [
        ("newman-keuls", C.newman_keuls_choice,
         "Newman-Keuls range test (eq. 12), best by the four rules of sec. 4.2")]),
    ("multitest", is_5x2, "Yildiz & Alpaydin 2006", None, [
        ("multitest", C.multitest_choice,
         "MultiTest (Fig. 1): one-sided 5x2cv t, Bonferroni alpha/(K(K-1)/2); "
         "best and full ordering"),
        ("multitest[holm=1]", C._multitest_holm, "MultiTest with Holm's correction (sec. 3.2)")]),
    ("testfirst", is_5x2, "Yildiz & Alpaydin 2006", None, [
        ("testfirst", C.testfirst_choice,
         "TestFirst (sec. 4.2): smallest mean must beat every simpler learner, "
         "one-sided 5x2cv t at alpha/(K-1)"),
        ("testfirst[family=pairs]", C._testfirst_pairs,
         "TestFirst at MultiTest's per-test level alpha/(K(K-1)/2)")]),
    ("mcs", _any, "Hansen, Lunde & Nason 2011", _mcs_batch, [
        ("mcs", M.mcs_choice,
         "model confidence set (Hansen, Lunde & Nason 2011), T_R, replications "
         "resampled, B = 1000: the most preferred learner in the set"),
        ("mcs[stat=max]", C._mcs_max, "the MCS with the T_max statistic")]),
])
