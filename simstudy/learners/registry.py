"""Learners by name: the papers' learners, user factories, and any scikit-learn estimator.

``get_learner("nmc")`` gives the batched fast path, ``get_learner("nmc", reference=True)``
its scikit-learn reference (:class:`SklearnLearner` over ``reference_estimator()``).

Names (the papers' meanings):

=========  ====================================================================
``max``    majority class of the training fold (Yıldız & Alpaydın 2006)
``nmc``    nearest mean classifier, standardised inputs (Yıldız & Alpaydın 2006)
``lgc``    linear logistic classifier, gradient descent (Yıldız & Alpaydın 2006)
``c45``    entropy tree post-pruned on a 20 % hold-out (Yıldız; Bouckaert & Frank)
``1nn``    1-nearest neighbour, standardised Euclidean (Yıldız; Bouckaert & Frank)
``nb``     naive Bayes, Gaussian + categorical (Bouckaert & Frank 2004)
``lp``     linear perceptron, softmax outputs (Alpaydın 1999)
``mlp-h``  one-hidden-layer perceptron with h hidden units (Alpaydın 1999); ``mlp[h=10]``
``rt``     least-squares regression tree, thresholded at 0.5 (Wang et al. 2016)
``ls``     least squares on the 0/1 label, thresholded at 0.5 (Wang et al. 2016)
``svm``    SVC with a Gaussian kernel, scikit-learn defaults (Wang et al. 2016)
``rf``     random forest, scikit-learn defaults (Wang et al. 2016)
``ab``     AdaBoost, SAMME over stumps, 50 rounds (Wang et al. 2016)
``lda``    linear discriminant analysis (Wang et al. 2016)
``j48``    Weka 3.6.14 J48 -C 0.25 -M 2 (Bouckaert & Frank 2004)
``wnb``    Weka 3.6.14 NaiveBayes, defaults (Bouckaert & Frank 2004)
``ib1``    Weka 3.6.14 IB1, 1-NN on min/max-scaled attributes (Bouckaert & Frank 2004)
=========  ====================================================================

Each class's docstring says what the paper fixes and what we chose.  ``lp``, ``lgc``,
``mlp-h`` live in :mod:`simstudy.learners.neural` and ``rt``, ``rf``, ``ab`` in
:mod:`simstudy.learners.trees` (with ``c45``); while such a module or class is not importable
``get_learner`` raises an error naming the learner: a fast path never silently becomes
another model.  ``NAME@sklearn`` (e.g. ``mlp-10@sklearn``) names the scikit-learn reference
path explicitly; it is its own learner, with its own cell ids.

Also accepted: a scikit-learn estimator object, or an import path ``"sklearn.svm:SVC"`` /
``"sklearn.svm.SVC"`` with optional parameters ``"sklearn.svm:SVC[C=10,gamma=0.1]"``
(values parsed as Python literals when they are, else kept as strings).
"""

from __future__ import annotations

import ast
import importlib
import re
from collections.abc import Callable
from typing import Any

from ..errors import SimstudyError, unknown
from ..spec import format_spec, parse_spec
from .base import Learner
from .reference import SklearnLearner, reference_estimator

Factory = Callable[..., Learner]

# name -> (lazy "module:Class" of the fast path, or a callable), extra fixed kwargs
_BUILTIN: dict[str, str] = {
    "max": "simstudy.learners.fast:FastMax",
    "nmc": "simstudy.learners.fast:FastNMC",
    "1nn": "simstudy.learners.fast:Fast1NN",
    "lda": "simstudy.learners.fast:FastLDA",
    "ls": "simstudy.learners.fast:FastLS",
    "nb": "simstudy.learners.fast:FastNB",
    "lp": "simstudy.learners.neural:LinearPerceptron",
    "lgc": "simstudy.learners.neural:LogisticGD",
    "mlp": "simstudy.learners.neural:MLP",
    "rt": "simstudy.learners.trees:RegressionTree",
    "rf": "simstudy.learners.trees:RandomForest",
    "ab": "simstudy.learners.trees:AdaBoost",
    "c45": "simstudy.learners.trees:C45",
    "svm": "simstudy.learners.svm:FastSVC",
    "j48": "simstudy.learners.weka.j48:J48",
    "wnb": "simstudy.learners.weka.nb:WekaNaiveBayes",
    "ib1": "simstudy.learners.weka.ib1:WekaIB1",
}
# older training regimes of lp / mlp-<h>, chosen by the spec's solver option (issue 18)
_SOLVER_PATHS: dict[tuple[str, object], str] = {
    (n, s): f"simstudy.learners.neural_online:{'OnlineLP' if n == 'lp' else 'OnlineMLP'}"
    for n in ("lp", "mlp") for s in ("online", "nnet")
}
_USER: dict[str, Factory] = {}
_MLP = re.compile(r"^mlp-(\d+)$")


def register(name: str, factory: Factory) -> None:
    """Register ``factory(**params) -> Learner`` under ``name`` (overrides a built-in)."""
    if not isinstance(name, str) or not name or "[" in name:
        raise SimstudyError(f"learner name must be a plain non-empty string, got {name!r}")
    if not callable(factory):
        raise SimstudyError(f"learner factory for {name!r} must be callable, got {factory!r}")
    _USER[name] = factory


def list_learners() -> list[str]:
    """Names ``get_learner`` accepts (``mlp-<h>`` stands for any number of hidden units)."""
    names = {n for n in _BUILTIN if n != "mlp"} | {"mlp-<h>"} | set(_USER)
    return sorted(names)


def describe_learners() -> list[tuple[str, str]]:
    """(name, one-line description) of every learner, from the table in this module's
    docstring (the single place the names are described) and user factories' docstrings."""
    table = {}
    for line in (__doc__ or "").splitlines():
        m = re.match(r"^``([^`]+)``\s+(.*)$", line)
        if m:
            table.setdefault(m.group(1), m.group(2).strip())  # the table comes first
    out = []
    for name in list_learners():
        desc = table.get(name) or table.get(name.replace("-<h>", "-h"), "")
        if name in _USER:
            doc = (_USER[name].__doc__ or "").strip()
            desc = doc.splitlines()[0] if doc else "registered by the user"
        out.append((name, desc))
    out.append(("NAME@sklearn", "the scikit-learn reference path of NAME, as a learner of its own"))
    out.append(("pkg.mod:Estimator[k=v]", "any scikit-learn estimator by import path"))
    return out


def _literal(v: str) -> Any:
    try:
        return ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return v


def _import(path: str) -> Any:
    """``"pkg.mod:Name"`` or ``"pkg.mod.Name"`` -> the object (ImportError/AttributeError)."""
    mod, _, attr = path.partition(":") if ":" in path else path.rpartition(".")
    return getattr(importlib.import_module(mod), attr)


def _fallback(name: str, params: dict[str, Any], why: str) -> Learner:
    """A fast path that cannot load is an error: a silent fallback would mix two models."""
    raise SimstudyError(
        f"learner {name!r}: its implementation cannot be loaded ({why}); reinstall simstudy, "
        f"or name the scikit-learn reference explicitly as '{name}@sklearn'")


def _reference(name: str, params: dict[str, Any]) -> Learner:
    canonical = f"mlp-{params['hidden']}" if name == "mlp" else format_spec(name, params)
    est, pre = reference_estimator(name, **dict(params))
    return SklearnLearner(est, name=canonical, preprocess=pre)


def _builtin(name: str, params: dict[str, Any], reference: bool) -> Learner:
    path = _SOLVER_PATHS.get((name, params.get("solver")), _BUILTIN[name])
    if name == "rt" and ("cp" in params or "minsplit" in params):  # rpart-like pruning
        path = "simstudy.learners.rt_rpart:RpartTree"
    if not path:
        return _reference(name, params)
    try:
        cls = _import(path)
    except (ImportError, AttributeError) as exc:
        return _fallback(name, params, f"{type(exc).__name__}: {exc}")
    try:
        learner = cls(**params)
    except TypeError as exc:
        raise SimstudyError(f"bad parameters {params!r} for learner {name!r}: {exc}") from exc
    if not reference:
        return learner
    est = learner.reference_estimator()
    if est is None:
        return _reference(name, params)
    return ReferenceOf(learner)


# trees are scale invariant: their references only impute (used when the class does not
# set ``preprocess`` itself)
_IMPUTE_ONLY = {"rt", "rf", "ab", "c45", "max"}


def _preprocess_of(learner: Learner) -> str:
    explicit = "preprocess" in vars(learner) or any(
        "preprocess" in vars(k) for k in type(learner).__mro__ if k is not Learner
    )
    if explicit:
        return learner.preprocess
    return "impute" if learner.name in _IMPUTE_ONLY else "standardize"


class ReferenceOf(SklearnLearner):
    """The reference path of a fast learner: its ``reference_estimator()`` and preprocessing,
    looped with scikit-learn; :meth:`prepare` re-binds through the fast learner."""

    def __init__(self, learner: Learner, n_jobs: int = 1) -> None:
        super().__init__(
            learner.reference_estimator(),
            name=learner.name,
            preprocess=_preprocess_of(learner),
            n_jobs=n_jobs,
        )
        self.learner = learner

    def prepare(self, data: Any) -> ReferenceOf:
        return ReferenceOf(self.learner.prepare(data), self.n_jobs)


def get_learner(spec: Any, *, reference: bool = False) -> Learner:
    """A :class:`Learner` from a name/spec, a Learner, or a scikit-learn estimator.

    Parameters
    ----------
    spec : ``"nmc"``, ``"mlp-10"``, ``"mlp[h=10]"``, ``"1nn[scale=none]"``,
        ``"sklearn.svm:SVC[C=10]"``, a :class:`Learner` (returned as is) or an estimator
        object.
    reference : return the scikit-learn reference path instead of the fast path.

    Raises
    ------
    SimstudyError
        for an unknown name (listing :func:`list_learners`), bad parameters, or an
        import path that cannot be imported.
    """
    if isinstance(spec, Learner):
        return spec
    if not isinstance(spec, str):
        if hasattr(spec, "fit") and hasattr(spec, "predict"):
            return SklearnLearner(spec)
        raise unknown("learner", spec, list_learners())
    if spec.endswith("@sklearn"):  # the reference path, named explicitly
        base = spec[: -len("@sklearn")]
        lr = get_learner(base, reference=True)
        if not isinstance(lr, SklearnLearner):
            raise SimstudyError(f"learner {base!r} has no scikit-learn reference ({spec!r})")
        lr.name = spec
        return lr
    name, raw = parse_spec(spec)
    params = {k: _literal(v) for k, v in raw.items()}
    if name in _USER:
        try:
            return _USER[name](**params)
        except TypeError as exc:
            raise SimstudyError(f"bad parameters {raw!r} for learner {name!r}: {exc}") from exc
    m = _MLP.match(name)
    if m or name == "mlp":
        if m and "h" in params:
            raise SimstudyError(f"give the hidden units once in {spec!r}")
        h = int(m.group(1)) if m else params.pop("h", None)
        if not isinstance(h, int) or isinstance(h, bool) or h < 1:
            raise SimstudyError(f"mlp needs a positive integer of hidden units, got {spec!r}")
        params.pop("h", None)
        params["hidden"] = h
        return _builtin("mlp", params, reference)
    if name in _BUILTIN:
        return _builtin(name, params, reference)
    if "." in name or ":" in name:
        try:
            cls = _import(name)
        except (ImportError, AttributeError, ValueError) as exc:
            raise SimstudyError(f"cannot import learner {name!r}: {exc}") from exc
        try:
            est = cls(**params)
        except TypeError as exc:
            raise SimstudyError(f"bad parameters {raw!r} for {name!r}: {exc}") from exc
        if isinstance(est, Learner):
            return est
        if not (hasattr(est, "fit") and hasattr(est, "predict")):
            raise SimstudyError(f"{name!r} is not a scikit-learn estimator or a Learner")
        return SklearnLearner(est, name=format_spec(name, raw))
    raise unknown("learner", spec, list_learners())
