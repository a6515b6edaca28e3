"""Learners by name: one :class:`~simstudy.registry.Registry` (:data:`LEARNERS`), filled by a
decorator in each learner's own file.

``get_learner("nmc")`` gives the batched fast path, ``get_learner("nmc", reference=True)``
its scikit-learn reference (:class:`SklearnLearner` over ``reference_estimator()``).

Adding a learner is one decorator where the class is defined::

    @register_learner("nmc", description="nearest mean classifier, standardised inputs "
                      "(Yildiz & Alpaydin 2006)")
    class FastNMC(FastLearner):
        def __init__(self, scale: str = "standard") -> None: ...

``get_learner("nmc[scale=none]")`` parses the spec with the one spec parser, converts each
value to a Python literal when it is one (``10``, ``0.5``, ``True``; else the string), checks
the parameter names against the constructor's signature (or the ``params`` given to the
decorator when it takes ``**options``) and calls it.  A template name such as ``mlp-{h}``
passes its integer parts as keyword arguments (``h="10"``).  ``python -m simstudy list``
prints :func:`describe_learners`: the registered names and their descriptions.

The family modules (:data:`FAMILIES`: every public module of this package but the
infrastructure) are imported on the first lookup, not with the package: they load numba
kernels, and ``import simstudy.learners`` stays light.  So a learner in a new file needs
nothing but its decorator (in a subpackage, its package's ``__init__`` imports it).  A family that cannot be imported registers
nothing, so its names are unknown -- a fast path never silently becomes another model -- and
the error says which module failed and that ``NAME@sklearn`` (e.g. ``rf@sklearn``) names the
scikit-learn reference explicitly.  ``NAME@sklearn`` is its own learner, with its own cell ids.

Routing that a name's factory does (``lp`` / ``mlp-<h>``: ``solver=online|nnet`` selects the
older training regimes of :mod:`simstudy.learners.neural.older`; ``rt[cp=,minsplit=]`` the
rpart-like pruned tree) lives with the family's registration.  ``mlp[h=10]`` is another
spelling of ``mlp-10``.

Also accepted: a :class:`Learner` (returned as is), a scikit-learn estimator object, or an
import path ``"sklearn.svm:SVC"`` / ``"sklearn.svm.SVC"`` with optional parameters
``"sklearn.svm:SVC[C=10,gamma=0.1]"``.  :func:`register` adds a user factory under a name.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..errors import SimstudyError, unknown
from ..registry import Registry
from ..spec import format_spec, parse_spec
from .base import Learner
from .reference import SklearnLearner, reference_estimator

Factory = Callable[..., Learner]

#: every named learner; filled by :func:`register_learner` in the family modules
LEARNERS: Registry[Learner] = Registry("learner")

# modules of this package that hold no learner
_INFRASTRUCTURE = frozenset({"base", "preprocess", "reference", "registry"})
# learners in submodules their package's ``__init__`` does not import
_SUBMODULES = ("simstudy.learners.weka.j48", "simstudy.learners.weka.nb",
               "simstudy.learners.weka.ib1")


def _family_modules(here: Path = Path(__file__).parent) -> tuple[str, ...]:
    """Every public module and package of :mod:`simstudy.learners` (the directory ``here``)
    but the infrastructure -- a directory listing, nothing is imported -- then
    :data:`_SUBMODULES`."""
    mods = sorted(m.name for m in pkgutil.iter_modules([str(here)])
                  if not m.name.startswith("_") and m.name not in _INFRASTRUCTURE)
    return (*(f"{__package__}.{m}" for m in mods), *_SUBMODULES)


#: modules whose import registers the built-in learners (imported on the first lookup):
#: baseline (max), bayes (nb), gbm, linear (nmc, lda, ls), neighbours (1nn), neural (lp, lgc,
#: mlp-{h}), rt_rpart (rt), svm, trees (c45, rf, ab), weka's j48, nb (wnb), ib1
FAMILIES: tuple[str, ...] = _family_modules()
# module -> None once imported, or why it could not be
_loaded: dict[str, str | None] = {}
_MLP = re.compile(r"mlp-(\d+)")


def _load_families() -> None:
    for mod in FAMILIES:
        if mod not in _loaded:
            _loaded[mod] = None  # set first: a family that looks a learner up while loading
            try:
                importlib.import_module(mod)
            except ImportError as exc:
                _loaded[mod] = f"{type(exc).__name__}: {exc}"


def _literal(v: str) -> Any:
    try:
        return ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return v


def _param_names(obj: Callable[..., Any]) -> set[str] | None:
    """Keyword parameters of a class's constructor or a function; None if it takes ``**``."""
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):  # some builtins have none
        return None
    ps = sig.parameters.values()
    if any(p.kind is p.VAR_KEYWORD for p in ps):
        return None
    return {p.name for p in ps if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


class _Build:
    """The registry factory of one learner: ``obj(**template_parts, **params)``."""

    def __init__(self, obj: Factory, params: Iterable[str] | None, user: bool = False) -> None:
        self.obj = obj
        self.params = set(params) if params is not None else _param_names(obj)
        self.user = user  # a user factory: no reference path is derived for it

    def __call__(self, spec: str, params: dict[str, str], **parts: str) -> Learner:
        name = parse_spec(spec)[0]
        twice = sorted(set(parts) & set(params))
        if twice:
            raise SimstudyError(f"learner {spec!r}: {twice[0]!r} is given twice, in the name "
                                f"and as a parameter")
        if self.params is not None:
            LEARNERS.check_params(spec, params, self.params - set(parts))
        kw = {k: _literal(v) for k, v in params.items()}
        try:
            learner = self.obj(**parts, **kw)
        except TypeError as exc:
            raise SimstudyError(f"bad parameters {params!r} for learner {name!r}: {exc}") from exc
        if not isinstance(learner, Learner):
            raise SimstudyError(f"learner {name!r}: its factory returned {learner!r}, "
                                f"not a Learner")
        return learner


def register_learner(name: str, *, description: str, params: Iterable[str] | None = None
                     ) -> Callable[[Factory], Factory]:
    """Decorator: register a :class:`Learner` class, or a function ``(**params) -> Learner``,
    under ``name`` (a template like ``mlp-{h}`` passes ``h`` as a string keyword).

    ``params`` lists the accepted parameter names when the constructor takes ``**options``
    (otherwise they are read from its signature); ``description`` is the one line
    ``python -m simstudy list`` prints.
    """

    def deco(obj: Factory) -> Factory:
        LEARNERS.register(name, _Build(obj, params), description=description)
        return obj

    return deco


def register(name: str, factory: Factory) -> None:
    """Register ``factory(**params) -> Learner`` under ``name`` (overrides a built-in).

    The description is the first line of the factory's docstring.  Remove it again with
    ``LEARNERS.unregister(name)``.
    """
    if not callable(factory):
        raise SimstudyError(f"learner factory for {name!r} must be callable, got {factory!r}")
    _load_families()  # first: a family loaded later must not replace the user's entry
    doc = (getattr(factory, "__doc__", None) or "").strip()
    desc = doc.splitlines()[0] if doc else "registered by the user"
    LEARNERS.register(name, _Build(factory, None, user=True), description=desc)


def _shown(name: str) -> str:
    """``mlp-{h}`` -> ``mlp-<h>`` (how the lists and messages show a template)."""
    return re.sub(r"\{(\w+)\}", r"<\1>", name)


def list_learners() -> list[str]:
    """Names ``get_learner`` accepts (``mlp-<h>`` stands for any number of hidden units)."""
    _load_families()
    return sorted(_shown(n) for n in LEARNERS.names())


def describe_learners() -> list[tuple[str, str]]:
    """(name, one-line description) of every learner, from the registry."""
    _load_families()
    rows = sorted((_shown(name), desc) for name, desc in LEARNERS.describe())
    rows.append(("NAME@sklearn",
                 "the scikit-learn reference path of NAME, as a learner of its own"))
    rows.append(("pkg.mod:Estimator[k=v]", "any scikit-learn estimator by import path"))
    return rows


def _unknown(spec: str) -> SimstudyError:
    err = unknown("learner", spec, list_learners())
    broken = {m: why for m, why in _loaded.items() if why is not None}
    if not broken:
        return err
    name = parse_spec(spec)[0]
    why = "; ".join(f"{m} ({w})" for m, w in broken.items())
    return SimstudyError(f"{err}; these learner modules cannot be loaded: {why}; reinstall "
                         f"simstudy, or name the scikit-learn reference explicitly as "
                         f"'{name}@sklearn'")


def _import(path: str) -> Any:
    """``"pkg.mod:Name"`` or ``"pkg.mod.Name"`` -> the object (ImportError/AttributeError)."""
    mod, _, attr = path.partition(":") if ":" in path else path.rpartition(".")
    return getattr(importlib.import_module(mod), attr)


def _paper_name(name: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The name and parameters :func:`~simstudy.learners.reference.reference_estimator`
    knows a learner by (``mlp-10`` -> ``mlp`` with ``hidden=10``)."""
    m = _MLP.fullmatch(name)
    return ("mlp", {**params, "hidden": int(m.group(1))}) if m else (name, params)


def _reference(name: str, params: dict[str, Any]) -> Learner:
    canonical = f"mlp-{params['hidden']}" if name == "mlp" else format_spec(name, params)
    est, pre = reference_estimator(name, **dict(params))
    return SklearnLearner(est, name=canonical, preprocess=pre)


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


def _mlp_spelling(spec: str) -> str:
    """``mlp[h=10,...]`` -> ``mlp-10[...]``; other specs unchanged."""
    name, raw = parse_spec(spec)
    if name != "mlp":
        return spec
    h = _literal(raw.pop("h", ""))
    if not isinstance(h, int) or isinstance(h, bool) or h < 1:
        raise SimstudyError(f"mlp needs a positive integer of hidden units, got {spec!r}")
    return format_spec(f"mlp-{h}", raw)


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
    spec = _mlp_spelling(spec)
    name, raw = parse_spec(spec)
    _load_families()
    hit = LEARNERS.find(name)
    if hit is not None:
        entry, parts = hit
        learner = entry.factory(spec, raw, **parts)
        if not reference or getattr(entry.factory, "user", False):
            return learner
        if learner.reference_estimator() is None:
            return _reference(*_paper_name(name, {k: _literal(v) for k, v in raw.items()}))
        return ReferenceOf(learner)
    if "." in name or ":" in name:
        return _import_path(name, raw)
    if reference and any(why is not None for why in _loaded.values()):
        # a family that cannot load: the paper learner's reference still can
        try:
            return _reference(*_paper_name(name, {k: _literal(v) for k, v in raw.items()}))
        except SimstudyError:
            pass
    raise _unknown(spec)


def _import_path(name: str, raw: dict[str, str]) -> Learner:
    """A learner or scikit-learn estimator named by its import path."""
    params = {k: _literal(v) for k, v in raw.items()}
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
