"""Compare your own models on your own data: every test on one set of fits, each verdict
beside that test's measured size and power.

:func:`compare` (``ss.compare``; ``python -m simstudy compare`` is it plus printing) fits
each model once per fold of a design (:mod:`simstudy.designs`, seeded by a
``numpy.random.SeedSequence``), turns the predictions into fold losses (0/1 loss for
classifiers, squared error for regressors, or minus a scikit-learn scorer) and computes
the tests of :mod:`simstudy.stats.registry` on those same losses: asking for another test
or another alpha refits nothing.  Beside each verdict stand the test's size (worst H0 cell
and the mean over H0 cells) and power (mean over H1 cells of known difference) measured on
the shipped trials of the same design (:mod:`simstudy.trials`, computed by
:func:`simstudy.testcard.card`, the report card's machinery).

The default tests are the recommended ones for the design (:data:`RECOMMENDED`):

=====================  ===================================================================
5x2 cv (``5x2cv``,     ``F5x2cv`` (combined F, Alpaydın 1999), ``combined-t5x2cv``
``5x2``, ``poor5x2``)  (Yıldız 2013), ``t5x2cv`` (Dietterich 1998, the usual one)
r x k cv (k > 2)       ``corrected-rxk-t`` (Bouckaert & Frank 2004), ``bayes-correlated-t``
resampling             ``corrected-resampled-t`` (Nadeau & Bengio 2003)
``b5x2`` / ``b3x2``    ``FB5x2cv`` (Wang, Li & Li 2016) / ``tB3x2cv`` (Wang et al. 2014)
``holdout``            ``mcnemar`` (classifiers)
=====================  ===================================================================

``tests="all"`` computes every registered test that reads the design (the per-instance
ones only on 0/1 losses).

Examples
--------
>>> import numpy as np
>>> from sklearn.naive_bayes import GaussianNB
>>> from sklearn.tree import DecisionTreeClassifier
>>> rng = np.random.default_rng(0)
>>> X = rng.normal(size=(120, 3)); y = (X[:, 0] + 0.5 * rng.normal(size=120) > 0).astype(int)
>>> r = compare([GaussianNB(), DecisionTreeClassifier(random_state=0)], X, y, measured=False)
>>> r.table["test"].tolist()
['F5x2cv', 'combined-t5x2cv', 't5x2cv']
>>> r.fits
20
"""

from __future__ import annotations

import hashlib
import itertools
import math
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from .core import Dataset, FoldLosses
from .designs import Design, get_design
from .errors import SimstudyError, SimstudyWarning
from .params import ALPHA, check, jobs_for
from .seeding import ModelSeeds
from .spec import parse_spec
from .stats.registry import ChoiceMethod, StatTest, get_test, list_tests
from .stats.registry import is_5x2 as _is_5x2
from .stats.registry import is_kfold as _is_kfold
from .stats.registry import is_resample as _is_resample

__all__ = ["RECOMMENDED", "Comparison", "compare", "measured_size_power", "recommended_tests"]

#: the default tests per kind of design (module docstring)
RECOMMENDED: dict[str, tuple[str, ...]] = {
    "5x2": ("F5x2cv", "combined-t5x2cv", "t5x2cv"),
    "rxk": ("corrected-rxk-t", "bayes-correlated-t"),
    "resample": ("corrected-resampled-t",),
    "b5x2": ("FB5x2cv",),
    "b3x2": ("tB3x2cv",),
    "holdout": ("mcnemar",),
}
#: the study cell id of a comparison in a store starts with this
CELL_PREFIX = "compare:"


def _design_kind(d: Design) -> str:
    base = parse_spec(d.name)[0]
    if base in ("b5x2", "b3x2", "holdout"):
        return base
    if _is_resample(d):
        return "resample"
    if _is_5x2(d):
        return "5x2"
    if _is_kfold(d):
        return "rxk"
    return "5x2"


def recommended_tests(design: str | Design) -> tuple[str, ...]:
    """The default tests of :func:`compare` for ``design``.

    >>> recommended_tests("10x10cv")
    ('corrected-rxk-t', 'bayes-correlated-t')
    """
    d = get_design(design) if isinstance(design, str) else design
    return RECOMMENDED[_design_kind(d)]


# --- models ---------------------------------------------------------------------------------

@dataclass
class _Model:
    name: str
    obj: Any            # a scikit-learn estimator, or a simstudy Learner
    learner: bool       # a registered (batched) learner: one call fits every fold
    kind: str           # "classifier" or "regressor"


def _estimator_kind(est: Any) -> str | None:
    from .compat.mlxtend import estimator_type

    return estimator_type(est)


def _model(m: Any, i: int, taken: set[str]) -> _Model:
    if isinstance(m, str):
        from .learners import get_learner
        from .learners.reference import SklearnLearner

        obj = get_learner(m)  # unknown names: one line with the valid ones
        name, learner = m, not isinstance(obj, SklearnLearner)
        if not learner:  # an import path: the scikit-learn estimator itself, as given
            obj = obj.estimator
        kind = "classifier" if learner else (_estimator_kind(obj) or "classifier")
    else:
        if not (callable(getattr(m, "fit", None)) and callable(getattr(m, "predict", None))):
            raise SimstudyError(f"model {m!r:.80} has no fit/predict; give a scikit-learn "
                                "estimator, a registered learner name (python -m simstudy "
                                "list) or an import path")
        obj, learner = m, False
        name = type(m).__name__
        kind = _estimator_kind(m) or "classifier"
    while name in taken:
        name = f"{name}#{i + 1}"
    taken.add(name)
    return _Model(name, obj, learner, kind)


# --- data -----------------------------------------------------------------------------------

def _data(X: Any, y: Any, seed: int) -> tuple[Any, np.ndarray, str, tuple[str, ...]]:
    """(X, y, name, feature names); ``X`` a data file or bundled name when ``y`` is None."""
    if isinstance(X, (str, os.PathLike)) and y is None:
        from .sources import get_source

        d = get_source(str(X)).sample(np.random.default_rng(seed))
        y = np.asarray(d.classes, dtype=object)[d.y]
        return d.X, y, d.name, d.feature_names
    if y is None:
        raise SimstudyError("give y beside X, or X as a data file or bundled data set name")
    name = "data"
    cols = tuple(str(c) for c in X.columns) if isinstance(X, pd.DataFrame) else ()
    ya = np.asarray(y)
    if ya.ndim != 1:
        raise SimstudyError(f"y must be 1-dimensional, got shape {ya.shape!r}")
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    if n != ya.shape[0]:
        raise SimstudyError(f"X and y have different lengths: {n} and {ya.shape[0]} rows")
    return X, ya, name, cols


def _nan_rows(y: np.ndarray) -> int:
    if y.dtype.kind == "f":
        return int(np.isnan(y).sum())
    if y.dtype.kind == "O":
        return int(pd.isna(y).sum())
    return 0


def _nan_columns(X: Any, cols: tuple[str, ...]) -> list[str]:
    a = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
    try:
        bad = np.isnan(a.astype(np.float64)).any(axis=0)
    except (TypeError, ValueError):
        bad = pd.isna(pd.DataFrame(a)).any(axis=0).to_numpy()
    names = cols or tuple(f"x{j}" for j in range(a.shape[1]))
    return [names[j] for j in np.flatnonzero(bad)]


def _allows_nan(m: _Model) -> bool:
    if m.learner:
        return True  # registered learners impute on each training fold
    try:
        from sklearn.utils import get_tags

        return bool(get_tags(m.obj).input_tags.allow_nan)
    except Exception:  # noqa: BLE001 - an estimator sklearn's tags cannot read
        return False


# --- losses ---------------------------------------------------------------------------------

def _scorer(scoring: str | Callable | None, kind: str):
    """None (0/1 or squared loss), or a scorer ``(estimator, X, y) -> score``."""
    if scoring is None or callable(scoring):
        return scoring
    from sklearn.metrics import get_scorer, get_scorer_names

    if not isinstance(scoring, str) or scoring not in get_scorer_names():
        raise SimstudyError(f"unknown scoring {scoring!r}; valid choices: "
                            f"{', '.join(sorted(get_scorer_names()))}")
    sc = get_scorer(scoring)
    module = getattr(getattr(sc, "_score_func", None), "__module__", "")
    if kind == "regressor" and ("_classification" in module or "_ranking" in module):
        raise SimstudyError(f"scoring {scoring!r} is a classification score; the models are "
                            "regressors (use e.g. 'neg_mean_squared_error', 'r2')")
    return sc


class _Predicted:
    """A fitted model's stored predictions, for a scorer that only calls ``predict``."""

    def __init__(self, pred: np.ndarray, kind: str) -> None:
        self._pred, self._estimator_type = pred, kind

    def predict(self, X: Any) -> np.ndarray:
        return self._pred


def _take(a: Any, idx: np.ndarray) -> Any:
    if isinstance(a, (pd.DataFrame, pd.Series)):
        return a.iloc[idx]
    return np.asarray(a)[idx] if not hasattr(a, "tocsr") else a[idx]


def _fit_fold(est: Any, X: Any, y: np.ndarray, tr: np.ndarray, te: np.ndarray,
              scorer, kind: str, blas_one: bool) -> tuple[np.ndarray, float | None]:
    """Fit a clone on ``tr``, predict ``te``; the score too when a scorer is given."""
    from sklearn.base import clone

    from .blas import one_thread

    def go():
        m = clone(est).fit(_take(X, tr), y[tr])
        Xte = _take(X, te)
        pred = np.asarray(m.predict(Xte))
        return pred, (None if scorer is None else float(scorer(m, Xte, y[te])))

    if blas_one:
        with one_thread():
            return go()
    return go()


# --- the result -----------------------------------------------------------------------------

@dataclass
class Comparison:
    """What :func:`compare` found: one row per (pair, test) in :attr:`table`.

    ``losses`` (K, R, F) fold losses (learner order of ``models``), ``conclusion`` one
    sentence per pair (and for the ordering when K > 2), ``ordering`` MultiTest's order
    (K > 2), ``mcs`` the model confidence set (K > 2), ``fits`` the models fitted by this
    call (0 when the store held the fold losses), ``notes`` what the reader should know.
    """

    models: list[str]
    design: str
    alpha: float
    loss: str
    table: pd.DataFrame
    losses: np.ndarray
    conclusion: str
    fits: int
    seconds: float
    ordering: tuple[str, ...] | None = None
    mcs: tuple[str, ...] | None = None
    notes: list[str] = field(default_factory=list)

    def to_markdown(self) -> str:
        """The comparison as Markdown: the mean losses, the table, the conclusion."""
        means = ", ".join(f"{m} {v:.4g}" for m, v in zip(
            self.models, self.losses.reshape(len(self.models), -1).mean(1), strict=True))
        cols = ["pair", "test", "statistic", "pvalue", "decision", "ci_low", "ci_high",
                "size_worst", "size_mean", "size_trials", "power", "power_trials"]
        t = self.table[cols].copy()
        for c in ("statistic", "pvalue", "ci_low", "ci_high", "size_worst", "size_mean",
                  "power"):
            t[c] = t[c].map(lambda v: "" if v is None or (isinstance(v, float)
                                                          and math.isnan(v)) else f"{v:.4g}")
        for c in ("size_trials", "power_trials"):
            t[c] = t[c].map(lambda v: f"{int(v):,}" if v and not pd.isna(v) else "")
        head = (f"## compare: {' vs '.join(self.models)} on {self.design}, alpha {self.alpha}"
                f"\n\nMean {self.loss} per model: {means}.\n\n")
        extra = ""
        if self.ordering is not None:
            extra += f"\nMultiTest's order (Holm), best first: {', '.join(self.ordering)}.\n"
        if self.mcs is not None:
            extra += f"Model confidence set at alpha {self.alpha}: {', '.join(self.mcs)}.\n"
        notes = "".join(f"\n- {n}" for n in self.notes)
        from .report.tables import to_markdown  # the plain writer: no optional dependency

        return (head + to_markdown(t) + "\n" + self.conclusion + "\n" + extra
                + (f"\nNotes:{notes}\n" if notes else ""))


# --- measured size and power ----------------------------------------------------------------

_MEASURED: dict[tuple, pd.DataFrame] = {}


def measured_size_power(design: str, tests: Sequence[str], alpha: float) -> pd.DataFrame:
    """Size (worst H0 cell, mean over H0 cells) and power (mean over H1 cells of known
    difference) of ``tests`` on the shipped trials of ``design``, with trial counts: one
    row per test; tests the shipped trials cannot measure are left out.

    Computed by the report card (:func:`simstudy.testcard.card`) from the shipped fold errors:
    the first test no stored cell holds is the card's new test, the stored ones and the card's
    baselines come with it (a few seconds; remembered in this process).
    """
    key = (design, tuple(tests), float(alpha))
    if key in _MEASURED:
        return _MEASURED[key]
    from .testcard import card
    from .trials import open_shipped, shipped_studies
    from .usertest import locate

    cols = ["test", "size_worst", "size_mean", "size_cells", "size_trials", "power",
            "power_cells", "power_trials"]
    readers = open_shipped(shipped_studies())  # the studies of tests
    studies = []
    for r in readers:
        ids = [c for c in r.holdings()["cell"] if c.rsplit("/", 1)[-1] == design]
        if not ids:
            continue
        st, _ = locate(r.manifest["study"], [r], None, None, None)
        studies.append(st.replace(cells=[c for c in st.cells if c.design == design]))
    rows: dict[str, dict] = {}
    fold_tests = [t for t in tests if not getattr(get_test(t), "needs_losses", False)]
    # first a card whose new test is a no-op: the stored tests and the card's baselines
    # come with it at array speed; then one card per test still missing (called per trial)
    todo = [_NOTHING, *fold_tests]
    try:
        while studies and todo:
            new = todo[0]
            try:
                c = card(_as_user_test(new, design), studies, readers, name=new, alpha=alpha,
                         progress=False)
            except SimstudyError:  # no shipped cell this test reads: not measured
                todo = todo[1:]
                continue
            for t in {*c.size["test"], *c.power["test"]}:
                if t not in tests or t in rows or t == _NOTHING:
                    continue
                s = c.size[c.size["test"] == t]
                p = c.power[(c.power["test"] == t) & (c.power["measure"] == "power")]
                rows[t] = {"test": t,
                           "size_worst": float(s["proportion"].max()) if len(s) else np.nan,
                           "size_mean": (float(s["rejects"].sum() / s["runs"].sum())
                                         if len(s) else np.nan),
                           "size_cells": len(s), "size_trials": int(s["runs"].sum()),
                           "power": (float(p["rejects"].sum() / p["runs"].sum())
                                     if len(p) else np.nan),
                           "power_cells": len(p), "power_trials": int(p["runs"].sum())}
            todo = [t for t in todo if t not in rows and t != new]
    finally:
        for r in readers:
            r.close()
    out = pd.DataFrame(list(rows.values()), columns=cols)
    _MEASURED[key] = out
    return out


_NOTHING = "(no test)"


def _as_user_test(name: str, design: str) -> Callable:
    """A registry test as the card's vectorised user test on fold differences (or, for
    :data:`_NOTHING`, one that never rejects, at no cost)."""
    if name == _NOTHING:
        def nothing(d, *, n_train, n_test):
            return np.full(d.shape[0], np.nan), np.ones(d.shape[0])

        nothing.vectorized = True
        nothing.designs = {design}
        return nothing
    test = get_test(name)

    def f(d, *, n_train, n_test):
        T = d.shape[0]
        if test.batch is not None:  # the entry's batch form: each trial as alone
            from .stats.baselines import Trials

            full = (T, *d.shape[1:])
            return tuple(test.batch(Trials(
                np.stack([d, np.zeros(full)], axis=1),
                np.ascontiguousarray(np.broadcast_to(n_train[:, None, None], full)),
                np.ascontiguousarray(np.broadcast_to(n_test[:, None, None], full))), 0, 1))
        stat, p = np.empty(T), np.empty(T)
        zero = np.zeros(d.shape[1:])
        for i in range(T):
            r = test(FoldLosses(np.stack([d[i], zero]), np.full(d.shape[1:], n_train[i]),
                                np.full(d.shape[1:], n_test[i])))
            stat[i], p[i] = r.statistic, r.pvalue
        return stat, p

    f.vectorized = True
    f.designs = {design}
    return f


# --- intervals of the difference ------------------------------------------------------------

def _interval(test: str, d: np.ndarray, ntr: float, nte: float, alpha: float
              ) -> tuple[float, float]:
    """The (1 - alpha) interval of the expected difference in loss (A - B) that a t- or
    z-type test inverts: estimate ± quantile x its standard error; (nan, nan) for tests
    without one (F, rank, Bayesian, McNemar)."""
    from .stats.intervals import corrected_t_interval

    base = parse_spec(test)[0]
    x = d.ravel()
    k = x.size
    q = 1.0 - alpha / 2.0
    if base in ("corrected-rxk-t", "corrected-resampled-t"):
        r = corrected_t_interval(x, n_train=ntr, n_test=nte)
        # no spread: the test is undefined, and so is its interval
        return (tuple(r.confidence_interval(1.0 - alpha)) if k > 1 and r.standard_error > 0
                else (math.nan, math.nan))
    if base in ("t5x2cv", "combined-t5x2cv", "conservative-z") and d.shape[1] == 2:
        s2 = float(((d[:, 0] - d[:, 1]) ** 2).sum()) / 2.0  # sum of s_i^2
        J = d.shape[0]
        if base == "t5x2cv":
            est, se, crit = float(d[0, 0]), math.sqrt(s2 / 5.0), special.stdtrit(5, q)
        elif base == "combined-t5x2cv":
            est, se, crit = float(x.mean()), math.sqrt(s2 / 5.0 / 10.0), special.stdtrit(5, q)
        else:
            est, se, crit = float(x.mean()), math.sqrt(s2 / J), special.ndtri(q)
        return (est - crit * se, est + crit * se) if se > 0 else (math.nan, math.nan)
    if base in ("cv-t", "rxk-t", "resampled-t") and k > 1:
        est, se = float(x.mean()), float(x.std(ddof=1)) / math.sqrt(k)
        crit = special.stdtrit(k - 1, q)
        return (est - crit * se, est + crit * se) if se > 0 else (math.nan, math.nan)
    return float("nan"), float("nan")


# --- compare --------------------------------------------------------------------------------

def _select_tests(tests, design: Design, zero_one: bool) -> list[str]:
    def fits(t: str) -> bool:
        obj = get_test(t)
        return (isinstance(obj, StatTest) and obj.fits(design)
                and (zero_one or not obj.needs_losses))

    if tests is None:
        return [t for t in recommended_tests(design) if fits(t)]
    if isinstance(tests, str):
        if tests == "all":
            return [t for t in list_tests() if not isinstance(get_test(t), ChoiceMethod)
                    and fits(t)]
        tests = [tests]
    out = []
    for t in tests:
        obj = get_test(t)  # unknown names: one line with the valid ones
        if isinstance(obj, ChoiceMethod):
            raise SimstudyError(f"test {t!r} chooses among K learners; compare orders K > 2 "
                                "models by MultiTest itself: give pairwise tests")
        if not obj.fits(design):
            raise SimstudyError(f"test {t!r} does not read design {design.name!r}; tests that "
                                f"do: {', '.join(_select_tests('all', design, zero_one))}")
        if obj.needs_losses and not zero_one:
            raise SimstudyError(f"test {t!r} needs per-instance 0/1 losses; these models' "
                                "losses are not 0/1 (a regressor, or a scorer)")
        out.append(obj.name)
    return out


def _key(models: list[_Model], X: Any, y: np.ndarray, design: str, seed: int,
         loss: str) -> str:
    """The store's cell id of a comparison: the models, the data's hash, the design."""
    h = hashlib.sha256()
    a = X.to_numpy() if isinstance(X, pd.DataFrame) else np.asarray(X)
    h.update(np.ascontiguousarray(a.astype(np.float64) if a.dtype.kind in "biuf" else
                                  a.astype(str)).tobytes())
    h.update(np.asarray(y).astype(str).tobytes())
    h.update(loss.encode())
    for m in models:
        h.update(repr(m.obj.get_params() if hasattr(m.obj, "get_params") else m.name)
                 .encode())
    names = "~".join(m.name for m in models)
    return f"{CELL_PREFIX}{h.hexdigest()[:16]}/{names}/{design}"


def compare(models: Sequence[Any], X: Any, y: Any = None, *, design: str = "5x2cv",
            tests: Sequence[str] | str | None = None, scoring: str | Callable | None = None,
            seed: int = 0, jobs: int = 1, alpha: float = 0.05,
            store: str | os.PathLike | None = None, measured: bool = True) -> Comparison:
    """Compare two or more models on one data set: each fitted once per fold, every test
    on the same fold losses.

    Parameters
    ----------
    models : sequence of estimators or names
        scikit-learn estimators (``fit``/``predict``), registered learner names (``j48``,
        ``mlp-10``, ...: ``python -m simstudy list``) or import paths
        (``sklearn.svm:SVC[C=10]``); at least two.
    X, y : arrays or DataFrame
        The data (nothing is dropped: NaN in ``y`` is an error).  ``X`` may instead be a
        data file or a bundled data set's name, with ``y`` None.
    design : str
        A design of ``python -m simstudy list`` (default ``5x2cv``: stratified 5x2 cv;
        regressors are split unstratified).
    tests : None, ``"all"`` or test names
        None: :func:`recommended_tests` of the design; ``"all"``: every test that reads it.
    scoring : None, a scikit-learn scorer name or a callable scorer
        None: 0/1 loss (classifiers), squared error (regressors); a scorer: loss = -score.
    seed : int
        Root of the ``SeedSequence`` of the folds and of the models' seeds.
    jobs : int
        Processes fitting folds of scikit-learn estimators in parallel (one BLAS thread
        each); a registered learner fits every fold in one batched call.
    alpha : float
        Level of the decisions and of the intervals (1 - alpha).
    store : path, optional
        Keep the fold losses there; asked again (other tests, another alpha), nothing is
        refitted.
    measured : bool
        Look up each test's size and power on the shipped trials of the design.

    Returns
    -------
    Comparison

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(80, 2)); y = (X[:, 0] > 0).astype(int)
    >>> r = compare(["nmc", "1nn"], X, y, tests=["t5x2cv"], measured=False)
    >>> r.table[["pair", "test"]].values.tolist(), r.fits
    ([['nmc vs 1nn', 't5x2cv']], 20)
    """
    t0 = time.perf_counter()
    alpha = check("alpha", alpha, ALPHA)
    if isinstance(models, (str, bytes)) or not isinstance(models, Sequence):
        models = [models]
    if len(models) < 2:
        raise SimstudyError(f"compare needs at least two models, got {len(models)}: "
                            f"{list(models)!r:.120}")
    jobs, capped = jobs_for(jobs, "joblib", None)  # the bounds and cap of a run's --jobs
    if capped:  # (compare has no force)
        warnings.warn(capped.split("; force=True")[0], SimstudyWarning, stacklevel=2)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SimstudyError(f"seed must be a non-negative integer, got {seed!r}")
    taken: set[str] = set()
    ms = [_model(m, i, taken) for i, m in enumerate(models)]
    kinds = {m.kind for m in ms}
    if len(kinds) > 1:
        raise SimstudyError("compare needs models of one kind; got classifiers ("
                            + ", ".join(m.name for m in ms if m.kind == "classifier")
                            + ") and regressors ("
                            + ", ".join(m.name for m in ms if m.kind == "regressor") + ")")
    kind = kinds.pop()
    X, y, data_name, cols = _data(X, y, int(seed))
    bad = _nan_rows(y)
    if bad:
        raise SimstudyError(f"y has NaN in {bad} of {y.shape[0]} rows; drop or fill them "
                            "first (compare never drops rows)")
    nan_cols = _nan_columns(X, cols)
    if nan_cols:
        for m in ms:
            if not _allows_nan(m):
                raise SimstudyError(f"model {m.name!r} cannot take NaN in X, found in columns "
                                    f"{', '.join(nan_cols[:10])}"
                                    + (" ..." if len(nan_cols) > 10 else "")
                                    + "; impute them (e.g. a Pipeline with SimpleImputer)")
    des = get_design(design)
    scorer = _scorer(scoring, kind)
    zero_one = scorer is None and kind == "classifier"
    loss = ("0/1 loss" if zero_one else "squared error" if scorer is None
            else f"-{scoring if isinstance(scoring, str) else 'score'}")
    names = _select_tests(tests, des, zero_one)
    if not names:
        raise SimstudyError(f"no test reads design {des.name!r} with {loss}; give tests")
    n = int(y.shape[0])
    if kind == "classifier":
        classes, codes = np.unique(y, return_inverse=True)
        if classes.size < 2:
            raise SimstudyError(f"y holds one class only ({classes[0]!s})")
        need = max(2, des.shape[1])
        counts = np.bincount(codes)
        few = int(np.argmin(counts))
        if counts[few] < need:
            label = classes[few].item() if hasattr(classes[few], "item") else classes[few]
            raise SimstudyError(f"class {label!r} has {counts[few]} member(s); design "
                                f"{des.name!r} needs at least {need} per class")
        if any(m.learner for m in ms) and y.dtype.kind == "f" and not np.all(y == np.round(y)):
            raise SimstudyError("y is continuous; registered learners are classifiers")
    else:
        codes = np.zeros(n, dtype=np.int64)  # regressors: unstratified folds
        classes = np.array([])
    ss = np.random.SeedSequence(int(seed))
    train = des.masks(codes, np.random.default_rng(ss))
    test = des.test_masks(train)
    R, F = des.shape
    notes: list[str] = []
    cell = _key(ms, X, y, des.name, int(seed), loss)
    fl = _stored(store, cell, int(seed))
    fits = 0
    if fl is not None:
        notes.append(f"fold losses read from {os.fspath(store)!r}: no model refitted")
    else:
        fl = _fit_all(ms, X, y, codes, classes, train, test, scorer, kind, zero_one, jobs,
                      int(seed), cell, data_name, cols)
        fits = len(ms) * R * F
        if store is not None:
            _keep(store, cell, int(seed), ms, des.name, data_name, fl, time.perf_counter() - t0)
            notes.append(f"fold losses kept in {os.fspath(store)!r}: asking again refits "
                         "nothing")
    fl = FoldLosses(fl.errors, fl.n_train, fl.n_test, fl.losses, ss)
    table = _table(ms, fl, names, des, alpha, measured)
    ordering = mcs = None
    if len(ms) > 2:
        ordering, mcs = _order(ms, fl, alpha, notes)
    conclusion = _conclusion(ms, table, alpha, ordering)
    return Comparison([m.name for m in ms], des.name, alpha, loss, table, fl.errors,
                      conclusion, fits, time.perf_counter() - t0, ordering, mcs, notes)


def _fit_all(ms, X, y, codes, classes, train, test, scorer, kind, zero_one, jobs, seed, cell,
             data_name, cols) -> FoldLosses:
    R, F, n = train.shape
    B = R * F
    tr, te = train.reshape(B, n), test.reshape(B, n)
    K = len(ms)
    errors = np.empty((K, B))
    losses = np.full((K, B, n), -1, dtype=np.int8) if zero_one else None
    Xf = None
    for k, m in enumerate(ms):
        if m.learner:
            if Xf is None:
                try:
                    Xf = np.ascontiguousarray(
                        X.to_numpy(dtype=np.float64) if isinstance(X, pd.DataFrame)
                        else np.asarray(X, dtype=np.float64))
                except (TypeError, ValueError):
                    raise SimstudyError("registered learners need numeric X (one-hot "
                                        "encode nominal columns, or give a data file)") from None
            data = Dataset(data_name, Xf, codes.astype(np.int64),
                           tuple(str(c) for c in classes), cols)
            learner = m.obj.prepare(data)
            seeds = ModelSeeds(seed, cell, (0,), k, B)
            pred = np.asarray(learner.fit_predict(Xf, data.y, tr, te, seeds))
            preds = [classes[pred[b][te[b]]] for b in range(B)]
            scores = ([float(scorer(_Predicted(p, kind), None, y[te[b]]))
                       for b, p in enumerate(preds)] if scorer is not None else None)
        else:
            idx = [(np.flatnonzero(tr[b]), np.flatnonzero(te[b])) for b in range(B)]
            if jobs > 1:
                from joblib import Parallel, delayed

                out = Parallel(n_jobs=jobs)(delayed(_fit_fold)(m.obj, X, y, a, b, scorer,
                                                               kind, True) for a, b in idx)
            else:
                out = [_fit_fold(m.obj, X, y, a, b, scorer, kind, False) for a, b in idx]
            preds = [p for p, _ in out]
            scores = [s for _, s in out]
        for b in range(B):
            yt = y[te[b]]
            if scorer is not None:
                errors[k, b] = -scores[b]
            elif kind == "classifier":
                wrong = preds[b] != yt
                errors[k, b] = wrong.mean()
                losses[k, b, te[b]] = wrong
            else:
                errors[k, b] = float(np.mean((np.asarray(preds[b], dtype=np.float64)
                                              - yt.astype(np.float64)) ** 2))
    return FoldLosses(errors.reshape(K, R, F), tr.sum(1).reshape(R, F).astype(float),
                      te.sum(1).reshape(R, F).astype(float),
                      None if losses is None else losses.reshape(K, R, F, n))


def _stored(store, cell: str, seed: int) -> FoldLosses | None:
    if store is None:
        return None
    from .store import Store

    if not os.path.exists(store):
        return None
    with Store(store, readonly=True) as st:
        df = st.trials([cell], seed, losses=True)
        if not len(df):
            return None
        return st.fold_losses(next(df.itertuples(index=False)))


def _keep(store, cell: str, seed: int, ms, design: str, data_name: str, fl: FoldLosses,
          seconds: float) -> None:
    from .provenance import learner_impl
    from .store import Store, TrialRecord

    rec = TrialRecord(cell=cell, seed=seed, run=0, study="compare", source=data_name,
                      learners=tuple(m.name for m in ms), design=design,
                      trial_seed=f"SeedSequence({seed})", losses=fl, results=[],
                      seconds=seconds, impl=tuple(learner_impl(m.obj) for m in ms))
    with Store(store) as st:
        st.write([rec])


def _table(ms, fl: FoldLosses, names: list[str], des: Design, alpha: float,
           want_measured: bool) -> pd.DataFrame:
    K = len(ms)
    pairs = list(itertools.combinations(range(K), 2))
    ntr, nte = float(np.mean(fl.n_train)), float(np.mean(fl.n_test))
    rows = []
    for a, b in pairs:
        d = fl.diff(a, b)
        for t in names:
            r = get_test(t)(fl, a, b)
            lo, hi = _interval(t, d, ntr, nte, alpha)
            rows.append({"pair": f"{ms[a].name} vs {ms[b].name}", "a": a, "b": b, "test": t,
                         "statistic": r.statistic, "pvalue": r.pvalue, "df": r.df,
                         "mean_diff": float(d.mean()), "ci_low": lo, "ci_high": hi})
    df = pd.DataFrame(rows)
    reject = np.array(df["pvalue"] < alpha, dtype=bool)
    df["holm"] = len(pairs) > 1
    if len(pairs) > 1:  # Holm over the pairs, per test
        from .stats.multiple import multiple_rejections

        for _t, g in df.groupby("test", sort=False):
            reject[g.index] = multiple_rejections(g["pvalue"].to_numpy(), alpha=alpha,
                                                  correction="holm")
    df["decision"] = np.where(reject, "differ", "no difference shown")
    meas = (measured_size_power(des.name, names, alpha) if want_measured
            else pd.DataFrame(columns=["test"]))
    df = df.merge(meas, on="test", how="left")
    for c in ("size_worst", "size_mean", "size_cells", "size_trials", "power", "power_cells",
              "power_trials"):
        if c not in df.columns:
            df[c] = np.nan
    return df


def _order(ms, fl: FoldLosses, alpha: float, notes: list[str]):
    from .stats.mcs import content_seed, model_confidence_set
    from .stats.multiple import multitest

    e = fl.errors
    K, R, F = e.shape
    names = [m.name for m in ms]
    ordering = None
    if (R, F) == (5, 2):
        mt = multitest(e, alpha=alpha, correction="holm")
        ordering = tuple(names[i] for i in mt.ordering)
    else:
        notes.append("MultiTest's one-sided 5x2 cv t needs a 5x2 design: no ordering")
    r = model_confidence_set(e.reshape(K, R * F).T, alpha=alpha, shape=(R, F),
                             seed=content_seed(e))
    return ordering, tuple(names[i] for i in r.included)


def _conclusion(ms, table: pd.DataFrame, alpha: float, ordering) -> str:
    """One sentence per pair: what to conclude, and the test it rests on (the first of
    the tests asked for: the design's recommended one by default)."""
    out = []
    for (a, b), g in table.groupby(["a", "b"], sort=False):
        r = g.iloc[0]
        p = r["pvalue"]
        better, worse = (ms[a].name, ms[b].name) if r["mean_diff"] < 0 else (ms[b].name,
                                                                             ms[a].name)
        size = (f"; its measured size on shipped trials of this design is "
                f"{r['size_mean']:.3f} (worst H0 cell {r['size_worst']:.3f})"
                if not pd.isna(r["size_mean"]) else "")
        holm = f", {len(table[table['test'] == r['test']])} pairs, Holm" if r["holm"] else ""
        # the tests that decide otherwise on the same losses, with their measured size
        other = [f"{o['test']}" + (f" (measured size {o['size_mean']:.3f})"
                                   if not pd.isna(o["size_mean"]) else "")
                 for _, o in g.iloc[1:].iterrows() if o["decision"] != r["decision"]]
        against = f"; {', '.join(other)} decide{'s' if len(other) == 1 else ''} otherwise" \
            if other else ""
        if r["decision"] == "differ":
            out.append(f"{better} has a lower loss than {worse}: {r['test']} rejects "
                       f"equal expected loss at alpha {alpha} (p = {p:.3g}{holm}){size}"
                       f"{against}.")
        else:
            out.append(f"No difference between {ms[a].name} and {ms[b].name} is shown: "
                       f"{r['test']} does not reject at alpha {alpha} (p = {p:.3g}{holm})"
                       f"{size}{against}.")
    if ordering is not None:
        out.append(f"MultiTest orders them, best first: {', '.join(ordering)}.")
    return " ".join(out)
