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
infrastructure) are not imported to list or find names: the names and descriptions are read
from the ``register_learner(...)`` calls in their source text (string literals there), and a
family is imported when one of its names is built -- its decorator then registers the real
factory.  So ``list`` loads no numba kernel and no scikit-learn, and a study loads only the
families of its own learners.  A family whose calls are not literals is imported when the
names are first indexed.  A learner in a new file needs nothing but its decorator.  A family
that cannot be imported registers nothing, so its names are unknown -- a fast path never
silently becomes another model -- and the error says which module failed and that
``NAME@sklearn`` (e.g. ``rf@sklearn``) names the scikit-learn reference explicitly.
``NAME@sklearn`` is its own learner, with its own cell ids; scikit-learn itself is imported
only for a reference path (:mod:`.reference`).

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


#: modules whose import registers the built-in learners (indexed on the first lookup,
#: imported when one of their names is built): baseline (max), bayes (nb), gbm, linear (nmc,
#: lda, ls), neighbours (1nn), neural (lp, lgc, mlp-{h}), rt_rpart (rt), svm, trees (c45,
#: rf, ab), weka's j48, nb (wnb), ib1
FAMILIES: tuple[str, ...] = _family_modules()
# module -> None once indexed (or imported), or why it could not be imported
_loaded: dict[str, str | None] = {}
# name -> what a decorator registered under it, kept for a registry swapped since
_BUILT: dict[str, tuple[_Build, str]] = {}
_MLP = re.compile(r"mlp-(\d+)")
_CALL = re.compile(r"^[ \t]*@?register_learner\(", re.M)


def _source_of(mod: str, here: Path = Path(__file__).parent) -> Path | None:
    """The file of a family module of this package, found without importing it."""
    prefix = f"{__package__}."
    if not mod.startswith(prefix):
        return None
    rel = here.joinpath(*mod[len(prefix):].split("."))
    for path in (rel.with_suffix(".py"), rel / "__init__.py"):
        if path.is_file():
            return path
    return None


def _scan(text: str) -> list[tuple[str, str, tuple[str, ...]]] | None:
    """(name, description, variants) of each ``register_learner(...)`` call at the start of a line
    of a module's source, read without importing it; None when one is not made of string
    literals (the module is then imported to learn its names)."""
    out = []
    for m in _CALL.finditer(text):
        start = m.end() - len("register_learner(")
        call = None
        for close in re.finditer(r"\)", text[m.end():]):  # the first ")" closing the call
            try:
                call = ast.parse(text[start:m.end() + close.end()], mode="eval").body
                break
            except SyntaxError:
                continue
        if not isinstance(call, ast.Call) or not call.args:
            return None
        try:
            name = ast.literal_eval(call.args[0])
            kw = {k.arg: k.value for k in call.keywords}
            desc = ast.literal_eval(kw["description"]) if "description" in kw else ""
            variants = ast.literal_eval(kw["variants"]) if "variants" in kw else ()
        except ValueError:
            return None
        if not isinstance(name, str) or not isinstance(desc, str):
            return None
        out.append((name, desc, tuple(variants)))
    return out


class _Lazy:
    """The registry entry of a learner whose family is not imported yet."""

    def __init__(self, module: str) -> None:
        self.module = module

    def __call__(self, spec: str, params: dict[str, str], **parts: str) -> Learner:
        entry = _resolve(parse_spec(spec)[0])
        if entry is None:
            raise _unknown(spec)
        return entry.factory(spec, params, **parts)


def _import_family(mod: str) -> None:
    """Import a family (its decorators register its learners); if it cannot be imported,
    drop its names and remember why."""
    try:
        importlib.import_module(mod)
    except ImportError as exc:
        _loaded[mod] = f"{type(exc).__name__}: {exc}"
        for e in [e for e in LEARNERS if isinstance(e.factory, _Lazy) and e.factory.module == mod]:
            LEARNERS.unregister(e.name)


def _resolve(name: str):
    """The registry entry of ``name`` with its family imported (None: unknown, or its family
    cannot be imported)."""
    hit = LEARNERS.find(name)
    if hit is None or not isinstance(hit[0].factory, _Lazy):
        return None if hit is None else hit[0]
    name, mod = hit[0].name, hit[0].factory.module
    _import_family(mod)
    e = _entry(name)
    if e is not None and isinstance(e.factory, _Lazy):
        built = _BUILT.get(name)
        if built is None:  # its module did not register it after all
            LEARNERS.unregister(name)
            return None
        # the module was imported before this registry was made: what it registered then
        LEARNERS.register(name, built[0], description=built[1])
        e = _entry(name)
    return e


def _entry(name: str):
    return next((e for e in LEARNERS if e.name == name), None)


def _load_families() -> None:
    """Index every family not indexed yet: its names become lazy entries (a family whose
    source cannot be read, or whose calls are not literals, is imported instead)."""
    for mod in FAMILIES:
        if mod not in _loaded:
            _loaded[mod] = None  # set first: a family that looks a learner up while loading
            path = _source_of(mod)
            found = None if path is None else _scan(path.read_text(encoding="utf-8"))
            if found is None:
                _import_family(mod)
                continue
            for name, desc, variants in found:
                _VARIANTS.setdefault(name, variants)
                if _entry(name) is None:
                    LEARNERS.register(name, _Lazy(mod), description=desc)


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


def register_learner(name: str, *, description: str, params: Iterable[str] | None = None,
                     variants: Iterable[str] = ()) -> Callable[[Factory], Factory]:
    """Decorator: register a :class:`Learner` class, or a function ``(**params) -> Learner``,
    under ``name`` (a template like ``mlp-{h}`` passes ``h`` as a string keyword).

    ``params`` lists the accepted parameter names when the constructor takes ``**options``
    (otherwise they are read from its signature); ``description`` is the one line
    ``python -m simstudy list`` prints; ``variants`` are the parameter settings worth
    checking on their own (``"solver=online"``: the spec ``lp[solver=online]``), which the
    conformance suite runs (:func:`learner_variants`).
    """

    def deco(obj: Factory) -> Factory:
        build = _Build(obj, params)
        _BUILT[name] = (build, description)
        _VARIANTS[name] = tuple(variants)
        cur = _entry(name)
        if cur is None or not getattr(cur.factory, "user", False):  # the user's entry wins
            LEARNERS.register(name, build, description=description)
        return obj

    return deco


def register(name: str, factory: Factory) -> None:
    """Register ``factory(**params) -> Learner`` under ``name`` (overrides a built-in).

    The description is the first line of the factory's docstring.  Remove it again with
    ``LEARNERS.unregister(name)``.
    """
    if not callable(factory):
        raise SimstudyError(f"learner factory for {name!r} must be callable, got {factory!r}")
    _load_families()  # first: the family's lazy entry is replaced (its decorator then
    # keeps the user's entry)
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


#: registered name -> its declared variants (``register_learner(..., variants=)``)
_VARIANTS: dict[str, tuple[str, ...]] = {}


def learner_variants() -> dict[str, tuple[str, ...]]:
    """Every built-in learner's declared variants, by registered name (a template as
    ``mlp-{h}``): ``{"lp": ("solver=online", "solver=nnet"), ...}``.

    Examples
    --------
    >>> learner_variants()["lp"]
    ('solver=online', 'solver=nnet')
    """
    _load_families()
    return {name: _VARIANTS.get(name, ()) for name, _ in LEARNERS.describe()}


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
    from .reference import SklearnLearner, reference_estimator

    canonical = f"mlp-{params['hidden']}" if name == "mlp" else format_spec(name, params)
    est, pre = reference_estimator(name, **dict(params))
    return SklearnLearner(est, name=canonical, preprocess=pre)


def __getattr__(name: str) -> Any:
    # the reference path's names, imported with scikit-learn on first use
    if name in ("ReferenceOf", "SklearnLearner", "reference_estimator"):
        return getattr(importlib.import_module(".reference", __package__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
            from .reference import SklearnLearner

            return SklearnLearner(spec)
        raise unknown("learner", spec, list_learners())
    if spec.endswith("@sklearn"):  # the reference path, named explicitly
        from .reference import SklearnLearner

        base = spec[: -len("@sklearn")]
        lr = get_learner(base, reference=True)
        if not isinstance(lr, SklearnLearner):
            raise SimstudyError(f"learner {base!r} has no scikit-learn reference ({spec!r})")
        lr.name = spec
        return lr
    spec = _mlp_spelling(spec)
    name, raw = parse_spec(spec)
    _load_families()
    entry = _resolve(name)  # imports the family of the name, and only that one
    if entry is not None:
        parts = entry.match(name) or {}
        learner = entry.factory(spec, raw, **parts)
        if not reference or getattr(entry.factory, "user", False):
            return learner
        if learner.reference_estimator() is None:
            return _reference(*_paper_name(name, {k: _literal(v) for k, v in raw.items()}))
        from .reference import ReferenceOf

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
    from .reference import SklearnLearner

    return SklearnLearner(est, name=format_spec(name, raw))
