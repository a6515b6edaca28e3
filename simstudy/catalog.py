"""The study registry: names -> ``build() -> Study`` functions of ``simstudy.studies``.

A study is one function carrying one decorator, ``@register_study("name",
description=...)`` (the description defaults to the docstring's first line), in a module
of ``studies/`` or the ``__init__`` of a package there (each paper is one) -- the built-in
studies and yours alike -- or in any module you import.  A study file of your own also runs
by its path, without any registration.

Study modules import plotting, so naming a study imports only its own module: the index of
names is read from the decorators in the modules' text (:func:`_scan`; the name and the
description must be string literals there), and a module is imported when one of its
studies is asked for, its decorator then registering the real function.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

from .errors import SimstudyError
from .registry import Registry
from .study import Study

REGISTRY: Registry[Study] = Registry("study")
STUDIES: dict[str, str] = {}  # name -> "module:function" of every registered study


def _lazy(path: str):
    def factory(spec: str, params: dict[str, str]) -> Study:
        REGISTRY.check_params(spec, params, set())
        mod, fn = path.split(":")
        try:
            return getattr(importlib.import_module(mod), fn)
        except Exception as e:  # noqa: BLE001 - a registered study whose module is broken
            # is not an unknown name: say which module failed and why, in one line
            raise SimstudyError(f"study {spec!r} is registered but its module {mod!r} "
                                f"cannot be imported: {type(e).__name__}: {e}") from None
    return factory


def register_study(name: str, *, description: str | None = None):
    """Decorator: register ``build() -> Study`` as study ``name`` (one function in a module
    of ``studies/``, or any module you import).  The description defaults to the
    docstring's first line.

    Examples
    --------
    >>> from simstudy.study import Study, cells
    >>> @register_study("doc-example", description="two cells on iris")
    ... def build():
    ...     return Study("doc-example", cells(["iris"], [("nmc", "1nn")], ["5x2cv"], ["t5x2cv"]))
    >>> get_study("doc-example", runs=3).runs
    3
    >>> _ = REGISTRY.unregister("doc-example"), STUDIES.pop("doc-example")
    """

    def add(build):
        desc = description
        if desc is None:
            doc = (build.__doc__ or "").strip()
            desc = doc.splitlines()[0] if doc else ""

        def factory(spec: str, params: dict[str, str]):
            REGISTRY.check_params(spec, params, set())
            return build

        REGISTRY.register(name, factory, description=desc)
        STUDIES[name] = f"{build.__module__}:{build.__qualname__}"
        return build

    return add


_DECORATED = re.compile(r"^@register_study\(.*?^def (\w+)\(", re.M | re.S)


def _scan(text: str) -> list[tuple[str, str, str]]:
    """(name, function, description) of each ``@register_study`` of a module's source,
    without importing it: each decorated function is parsed on its own (the whole module
    when the function's text does not parse alone)."""
    out = []
    for m in _DECORATED.finditer(text):
        rest = text[m.start():]
        nxt = re.search(r"\n(?=[^\s#)])", rest[m.end() - m.start():])  # next top-level line
        chunk = rest[:m.end() - m.start() + nxt.start()] if nxt else rest
        try:
            tree = ast.parse(chunk)
        except SyntaxError:
            tree = ast.parse(text)
        for fn in (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == m[1]):
            for d in fn.decorator_list:
                if not (isinstance(d, ast.Call) and getattr(d.func, "id", None) == "register_study"
                        and d.args and isinstance(d.args[0], ast.Constant)):
                    continue
                kw = {k.arg: ast.literal_eval(k.value) for k in d.keywords}
                doc = (ast.get_docstring(fn) or "").strip()
                desc = kw.get("description") or (doc.splitlines()[0] if doc else "")
                out.append((d.args[0].value, fn.name, desc))
    return out


def _index() -> None:
    """Register, lazily, every study the modules of ``simstudy.studies`` declare and this
    registry does not hold yet."""
    import simstudy.studies as pkg

    for folder in pkg.__path__:
        # a module of the folder, or the __init__ of a package in it (a paper's package)
        for path in sorted([*Path(folder).glob("*.py"), *Path(folder).glob("*/**/__init__.py")]):
            rel = path.relative_to(folder).with_suffix("").parts
            if path.name == "__init__.py":
                rel = rel[:-1]
            elif path.name.startswith("_"):
                continue
            module = ".".join((pkg.__name__, *rel))
            for name, fn, desc in _scan(path.read_text(encoding="utf-8")):
                if name not in REGISTRY:
                    REGISTRY.register(name, _lazy(f"{module}:{fn}"), description=desc)
                    STUDIES[name] = f"{module}:{fn}"


_index()
_discovered = False


def _discover() -> None:
    """Index the study modules again (once): a folder added to ``simstudy.studies``'s path,
    or a module written, since this module was imported."""
    global _discovered
    if not _discovered:
        _discovered = True
        _index()


def describe_studies() -> list[tuple[str, str]]:
    """(name, one-line description) of every registered study (``list`` prints them)."""
    _discover()
    return REGISTRY.describe()


def _load(name: str):
    """The ``build`` function of a registered study (imports its module)."""
    return REGISTRY.get(name)


def available_studies() -> list[str]:
    """Registered studies whose module imports (others are listed as not yet available)."""
    _discover()
    out = []
    for name in STUDIES:
        try:
            _load(name)
        except SimstudyError:
            continue
        out.append(name)
    return out


def _from_file(path: str):
    """``build`` of a user's study file (a ``.py`` defining ``build() -> Study``)."""
    import importlib.util
    from pathlib import Path

    p = Path(path)
    if not p.is_file():
        raise SimstudyError(f"study file {path!r} does not exist")
    spec = importlib.util.spec_from_file_location(f"_simstudy_user_study_{p.stem}", p)
    mod = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    try:
        spec.loader.exec_module(mod)  # type: ignore[union-attr]
    except Exception as e:  # noqa: BLE001 - a user's file: report it in one line
        raise SimstudyError(f"cannot load study file {path!r}: {type(e).__name__}: {e}") from None
    build = getattr(mod, "build", None)
    if not callable(build):
        raise SimstudyError(f"study file {path!r} defines no build() function")
    return build


def _call_build(build, where: str) -> Study:
    """Run a study's ``build()``; anything but a Study (or an exception) is one clear line."""
    try:
        study = build()
    except SimstudyError:
        raise
    except Exception as e:  # noqa: BLE001 - a study file's own failure: report it in one line
        raise SimstudyError(f"{where}: build() raised {type(e).__name__}: {e}") from None
    if not isinstance(study, Study):
        raise SimstudyError(f"{where}: build() must return a simstudy.study.Study, "
                            f"got {type(study).__name__} ({study!r:.80})")
    return study


def get_study(name: str, **overrides) -> Study:
    """Build study ``name``; ``overrides`` (runs, seed, alpha, chunk) replace its defaults.

    ``name`` may also be the path of a ``.py`` file defining ``build() -> Study``.  The
    cells come back keyed by their sources' content (:meth:`Study.keyed`).
    """
    if name.endswith(".py"):
        study = _call_build(_from_file(name), f"study file {name!r}")
    else:
        if name not in REGISTRY:
            _discover()
        if name not in REGISTRY:
            raise REGISTRY.unknown(name)
        build = _load(name)
        study = _call_build(build, f"study {name!r}")
    changes = {k: v for k, v in overrides.items() if v is not None}
    study = study.replace(**changes) if changes else study
    return study.keyed()
