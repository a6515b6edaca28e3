"""Conformance checks every registered learner and test must pass.

:func:`check_learner` asks the batch contract of :class:`simstudy.learners.base.Learner`:
predictions of shape ``(B, n)``, int64, valid class codes on the test positions and ``-1``
off them; a model depends only on its own masks and seed (refitting a subset of the batch,
in another order, gives bitwise the same predictions); and, where the learner does not
draw at random (other seeds, same predictions), agreement with its reference path
(``get_learner(spec, reference=True)``).

:func:`check_test` asks a test -- a spec of :mod:`simstudy.stats.registry`, a registry
object, or a user's function as ``card`` and ``bench`` call it (:class:`simstudy.usertest.
UserTest`) -- for: p-values in ``[0, 1]``; swapping the two learners gives the same
two-sided p-value (a one-sided test's p-value moves to the mirrored alternative); an
undefined statistic (two identical learners) gives ``p = 1``; ``alternative=greater`` and
``less`` are the two tails of one statistic (variants read from the entry's declared
parameters).  A choice method (best of K) must name a learner or none and order all of
them.

Both raise :class:`AssertionError` naming the learner or test and what failed, as
scikit-learn's ``check_estimator`` does; ``tests/test_conformance.py`` runs them over every
registered name.

Examples
--------
>>> from simstudy.testing import check_learner, check_test
>>> check_learner("nmc")
>>> check_test("t5x2cv")
>>> def my_t(d, *, n_train, n_test):
...     from simstudy.stats import ttest_5x2cv
...     return ttest_5x2cv(d)
>>> my_t.designs = {"5x2cv"}
>>> check_test(my_t)
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

__all__ = ["check_learner", "check_test", "fold_losses", "learner_specs", "test_specs",
           "tiny_dataset"]

#: designs a test is tried on, the first it fits is used
_DESIGNS = ("5x2cv", "b5x2", "b3x2", "1x10cv", "2x5cv", "resample", "holdout")


def tiny_dataset(seed: int = 0, n: int = 80) -> Any:
    """A small binary data set with two numeric attributes, one nominal attribute (three
    values) and missing values in both kinds, as a :class:`simstudy.core.Dataset`."""
    import pandas as pd

    from .sources.encode import encode

    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    rng.shuffle(y)
    df = pd.DataFrame({
        "a": rng.normal(size=n) + y,
        "b": rng.normal(size=n) - 0.5 * y,
        "c": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)).astype(str),
    })
    df.loc[3, "a"] = np.nan
    df.loc[7, "c"] = None
    df["class"] = y.astype(str)
    return encode(df, "tiny", nominal=["c"])


def _masks(n: int, y: np.ndarray, B: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """B training masks (about 60 %, both classes) and test masks over the rest, some rows in
    neither (so ``-1`` off the test positions is seen)."""
    train = np.zeros((B, n), bool)
    for b in range(B):
        while True:
            train[b] = rng.random(n) < 0.6
            if len(np.unique(y[train[b]])) == len(np.unique(y)):
                break
    test = ~train & (rng.random((B, n)) < 0.85)
    return train, test


class _Watched(np.random.SeedSequence):
    """A seed that notes in ``drawn`` when a learner draws from it."""

    def __init__(self, drawn: list[bool], *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self._drawn = drawn

    def generate_state(self, *args: Any, **kw: Any) -> np.ndarray:
        self._drawn.append(True)
        return super().generate_state(*args, **kw)

    def spawn(self, *args: Any, **kw: Any) -> list[np.random.SeedSequence]:
        self._drawn.append(True)
        return super().spawn(*args, **kw)


def check_learner(spec: Any, data: Any = None, *, models: int = 4,
                  reference: bool = True) -> None:
    """Check learner ``spec`` (a registered spec, or a learner object) against the batch
    contract (see the module docstring).

    ``data`` defaults to :func:`tiny_dataset`; ``models`` is the batch size; with
    ``reference=False`` (and for an object, which has no registered reference path) the
    comparison with the reference path is skipped.  Raises :class:`AssertionError` saying
    what failed.
    """
    from .learners import get_learner

    if isinstance(spec, str):
        learner = get_learner(spec)
    else:
        learner, reference = spec, False
        spec = getattr(learner, "name", type(learner).__name__)
    real = learner.task == "regression"
    if data is None:
        data = tiny_dataset()
        if real:  # a real response of the same inputs
            from dataclasses import replace

            X0 = np.nan_to_num(data.X)
            data = replace(data, y=X0 @ np.linspace(1.0, -1.0, X0.shape[1]) + data.y)
    X, y = data.X, data.y
    n = data.n
    rng = np.random.default_rng(11)
    train, test = _masks(n, np.zeros(n) if real else y, models, rng)
    seeds = np.random.SeedSequence(2006).spawn(models)
    learner = learner.prepare(data)

    p = learner.fit_predict(X, y, train, test, seeds)
    assert isinstance(p, np.ndarray), f"{spec}: fit_predict returned {type(p).__name__}, not an array"
    assert p.shape == (models, n), f"{spec}: predictions of shape {p.shape!r}, expected {(models, n)!r}"
    if real:
        assert p.dtype == np.float64, f"{spec}: predictions of dtype {p.dtype}, expected float64"
        assert np.isfinite(p[test]).all(), f"{spec}: a prediction on a test position is not finite"
        assert np.isnan(p[~test]).all(), f"{spec}: a position off the test rows is not nan"
    else:
        C = int(y.max()) + 1
        assert p.dtype == np.int64, f"{spec}: predictions of dtype {p.dtype}, expected int64"
        on = p[test]
        assert ((on >= 0) & (on < C)).all(), f"{spec}: a prediction on a test position is not a class code 0..{C - 1}"
        assert (p[~test] == -1).all(), f"{spec}: a position off the test rows is not -1"

    # a model depends only on its own masks and seed: a subset, in another order, alone
    idx = [models - 2, 0] if models > 2 else [0]
    part = learner.fit_predict(X, y, train[idx], test[idx], [seeds[i] for i in idx])
    assert np.array_equal(part, p[idx], equal_nan=real), (
        f"{spec}: models {idx} refitted without the rest of the batch predict differently")
    for b in (models - 1, 1):
        alone = learner.fit_predict(X, y, train[b:b + 1], test[b:b + 1], [seeds[b]])
        assert np.array_equal(alone[0], p[b], equal_nan=real), (
            f"{spec}: model {b} alone predicts differently")

    if not reference:
        return
    drawn: list[bool] = []
    other = learner.fit_predict(X, y, train, test,
                                [_Watched(drawn, 1, spawn_key=(b,)) for b in range(models)])
    if drawn or not np.array_equal(other, p, equal_nan=real):
        return  # draws at random: agreement with the reference is a matter of distribution
    from .errors import SimstudyError

    try:
        ref = get_learner(spec, reference=True).prepare(data)
    except SimstudyError as exc:  # no scikit-learn reference (Weka's learners: Weka's own
        if "no reference" in str(exc):  # predictions are their oracle, tests/weka)
            return
        raise
    q = np.asarray(ref.fit_predict(X, y, train, test, seeds))
    # real predictions: the same up to rounding (another order of the same arithmetic)
    same = np.isclose(q[test], p[test], rtol=1e-8, atol=1e-10) if real else q[test] == p[test]
    assert same.all(), (
        f"{spec}: {int((~same).sum())} of {same.size} test predictions differ from the "
        f"reference path ({spec}@sklearn)")


# ------------------------------------------------------------------------------ tests
def _design(test: Any) -> Any:
    from .designs import get_design

    for name in _DESIGNS:
        d = get_design(name)
        if test.fits(d):
            return d
    raise AssertionError(f"{test.name}: fits none of the designs {', '.join(_DESIGNS)}")


def fold_losses(design: Any, *, n: int = 60, seed: int = 0, same: bool = False,
                learners: int = 2, keep_seed: bool = True) -> Any:
    """Synthetic fold losses of ``learners`` learners on ``design``'s shape: per-instance
    0/1 losses (learner k errs with probability 0.2 + 0.1 k, correlated through a shared
    draw), their fold error rates and sizes, as :class:`simstudy.core.FoldLosses`.
    ``same=True``: every learner has the first one's losses (the statistics are undefined)."""
    from .core import FoldLosses

    R, F = design.shape
    rng = np.random.default_rng(seed)
    testpos = np.zeros((R, F, n), bool)
    for r in range(R):
        if F == 1:  # a random third held out
            testpos[r, 0, rng.permutation(n)[: n // 3]] = True
        else:
            for f, rows in enumerate(np.array_split(rng.permutation(n), F)):
                testpos[r, f, rows] = True
    u = rng.random((R, F, n))
    L = np.stack([((u + 0.3 * rng.random((R, F, n))) / 1.3 < 0.2 + 0.1 * k) for k in range(learners)])
    if same:
        L[:] = L[0]
    losses = np.where(testpos[None], L, -1).astype(np.int8)
    n_test = testpos.sum(axis=2).astype(np.float64)
    errors = (losses == 1).sum(axis=3) / n_test
    return FoldLosses(errors, n - n_test, n_test, losses,
                      np.random.SeedSequence(seed, spawn_key=(7,)) if keep_seed else None)


def learner_specs() -> list[str]:
    """Every registered learner (a template such as ``mlp-{h}`` as ``mlp-3``) and each of
    the variants it declares (``lp[solver=online]``, ...:
    :func:`simstudy.learners.registry.learner_variants`)."""
    from .learners.registry import learner_variants

    out = []
    for name, variants in learner_variants().items():
        base = name.replace("{h}", "3")
        out += [base, *(f"{base}[{v}]" for v in variants)]
    return sorted(dict.fromkeys(out))


def test_specs() -> list[str]:
    """Every registered test and choice method, and each of its parametrised variants
    (``tB3x2cv[crit=one-sided]``, ``multitest[holm=1]``, ...), as the entries declare them
    (:func:`simstudy.stats.registry.declaration`)."""
    from .stats.registry import declaration, list_tests

    return sorted({s for name in list_tests() for s in declaration(name).specs})


def _draws(test: Any, fl: Any) -> bool:
    """Whether the test draws at random from the trial's seed (Monte Carlo p-values)."""
    from dataclasses import replace

    from .errors import SimstudyError

    try:
        test(replace(fl, seed=None), 0, 1)
    except SimstudyError as exc:
        return "seed" in str(exc)
    return False


class _UserPairwise:
    """A user's pairwise function (:class:`simstudy.usertest.UserTest`) called as a
    registered test is, ``test(fold_losses, a, b) -> TestResult``: through the one adapter
    card and bench call it with (its declarations, its output read by the one parser)."""

    needs_losses = False

    def __init__(self, user: Any) -> None:
        self.user, self.name = user, user.name
        self.needs_losses = user.needs_losses

    def fits(self, design: Any) -> bool:
        said = self.user.fits(design.name)
        if said is not None:
            return said
        skipped: list[str] = []  # undeclared: probed on a trial, as card probes a cell
        return self._out(fold_losses(design), 0, 1, skipped) is not None

    def _out(self, fl: Any, a: int, b: int, skipped: list | None = None) -> Any:
        ntr = np.array([float(np.mean(fl.n_train))])
        nte = np.array([float(np.mean(fl.n_test))])
        losses = [fl.losses[[a, b]]] if self.needs_losses else None
        return self.user.pvalues(fl.diff(a, b)[None], ntr, nte, runs=np.zeros(1, np.int64),
                                 where="a synthetic trial", losses=losses, skipped=skipped)

    def __call__(self, fl: Any, a: int = 0, b: int = 1) -> Any:
        from .stats import TestResult

        out = self._out(fl, a, b, [])
        assert out is not None, f"{self.name}: raised ValueError or IndexError on a trial " \
            "of a design it read before"
        # the output protocol carries no direction: the swap is not checked
        return TestResult(float(out.statistic[0]), float(out.pvalue[0]), None, "unknown")


def _as_test(test: Any, kind: str) -> tuple[Any, str, bool]:
    """``(test object, name, registered)`` of what :func:`check_test` was given."""
    from .stats.registry import TESTS, ChoiceMethod, StatTest, get_test
    from .usertest import UserTest

    if isinstance(test, (StatTest, ChoiceMethod)):
        return test, test.name, True
    if isinstance(test, str) and ":" not in test:
        from .spec import parse_spec

        if TESTS.find(parse_spec(test)[0]) is not None:
            return get_test(test), test, True
        raise TESTS.unknown(test)
    user = UserTest.of(test, kind=kind)  # a function, MODULE:FUNCTION or file.py:FUNCTION
    if user.kind == "choice":
        def choose(errors: np.ndarray, alpha: float) -> tuple:
            best = user.choose(errors[None], alpha, runs=np.zeros(1, np.int64),
                               where="a synthetic trial")
            return (None if best is None or best[0] < 0 else int(best[0])), None

        def fits(design: Any) -> bool:
            said = user.fits(design.name)
            return True if said is None else said

        return ChoiceMethod(user.name, fits, choose), user.name, False
    return _UserPairwise(user), user.name, False


def check_test(test: Any, *, kind: str = "pairwise", call: bool = True) -> None:
    """Check a test (see the module docstring): a registered spec (``"t5x2cv"``,
    ``"cv-clt[alternative=greater]"``), a registry object, or a user's function (or
    ``MODULE:FUNCTION``, ``file.py:FUNCTION``; ``kind='choice'`` for a best-of-K method)
    with the declarations :mod:`simstudy.usertest` reads.  ``call=False`` checks what can
    be checked without calling it (the name, signature and declarations).  Raises
    :class:`AssertionError` saying what failed (a user's function's bad declaration or
    output: :class:`~simstudy.errors.SimstudyError`, as card says it)."""
    from .stats.registry import ChoiceMethod, declaration, get_test

    test, name, registered = _as_test(test, kind)
    if not call:
        return
    design = _design(test)
    if isinstance(test, ChoiceMethod):
        _check_choice(name, test, design)
        return
    mc = _draws(test, fold_losses(design)) if registered else False
    for trial in range(4):
        fl = fold_losses(design, seed=trial)
        r = test(fl, 0, 1)
        assert 0.0 <= r.pvalue <= 1.0, f"{name}: p-value {r.pvalue!r} outside [0, 1]"
        if not np.isfinite(r.statistic):
            assert r.pvalue == 1.0, f"{name}: undefined statistic but p = {r.pvalue!r}, not 1"
        s = test(fl, 1, 0)
        alt = str(r.alternative)
        if alt.startswith("two-sided"):
            if mc:  # other draws (keyed by the pair's order): within Monte Carlo error
                assert abs(s.pvalue - r.pvalue) <= 0.05, (
                    f"{name}: swapping the learners moves p from {r.pvalue!r} to {s.pvalue!r}")
            else:
                assert np.isclose(s.pvalue, r.pvalue, rtol=1e-9, atol=1e-12), (
                    f"{name}: swapping the learners changes the two-sided p from "
                    f"{r.pvalue!r} to {s.pvalue!r}")
        elif alt in ("greater", "less"):
            mirror = {"greater": "less", "less": "greater"}[alt]
            m = get_test(re.sub(r"alternative=\w+", f"alternative={mirror}", name))(fl, 1, 0)
            assert np.isclose(m.pvalue, r.pvalue, rtol=1e-9, atol=1e-12), (
                f"{name}: swapped with alternative={mirror}, p is {m.pvalue!r}, not {r.pvalue!r}")
        else:
            assert not registered, f"{name}: alternative {alt!r} is none of two-sided, " \
                "greater, less"
    if not registered:
        return
    same = test(fold_losses(design, same=True), 0, 1)
    assert same.pvalue == 1.0, f"{name}: two identical learners give p = {same.pvalue!r}, not 1"
    alts = declaration(name).params.get("alternative", ())
    if "[" not in name and {"greater", "less", "two-sided"} <= set(alts):
        fl = fold_losses(design, seed=5)
        p = {a: get_test(f"{name}[alternative={a}]")(fl, 0, 1) for a in alts}
        for a, res in p.items():
            assert res.alternative == a, f"{name}[alternative={a}]: result says {res.alternative!r}"
        assert np.isclose(p["greater"].pvalue + p["less"].pvalue, 1.0, atol=1e-12) or mc, (
            f"{name}: p(greater) + p(less) = {p['greater'].pvalue + p['less'].pvalue!r}, not 1")
        two = min(1.0, 2.0 * min(p["greater"].pvalue, p["less"].pvalue))
        assert np.isclose(p["two-sided"].pvalue, two, rtol=1e-9, atol=1e-12) or mc, (
            f"{name}: two-sided p {p['two-sided'].pvalue!r} is not twice the smaller tail {two!r}")


def _check_choice(name: str, method: Any, design: Any) -> None:
    K = 3
    for trial in range(3):
        fl = fold_losses(design, seed=trial, learners=K)
        best, order = method(fl.errors, 0.05)
        assert best is None or best in range(K), f"{name}: best {best!r} is not a learner 0..{K - 1}"
        if order is not None:
            assert sorted(order) == list(range(K)), f"{name}: order {order!r} is not a permutation"
            assert best is None or order[0] == best, f"{name}: best {best!r} is not first in {order!r}"
        again = method(fl.errors.copy(), 0.05)
        assert again == (best, order), f"{name}: two calls on the same errors disagree"
