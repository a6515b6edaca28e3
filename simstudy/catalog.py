"""The study registry: names -> ``simstudy.studies.<module>:build`` (imported lazily).

A study module defines ``build(**overrides) -> Study``.  Adding a study is one module under
``studies/`` whose ``build`` carries one decorator, ``@register_study("name")`` (the
docstring's first line is what ``list`` prints); such modules are found by importing the
package's other modules when a name is not in the table below.  The built-in studies are
listed in that table so that naming one imports only its own module (they pull in
plotting).  A study file of your own runs by path without any registration.
"""

from __future__ import annotations

import importlib

from .errors import SimstudyError
from .registry import Registry
from .study import Study

# name -> (lazy "module:function", one-line description); modules are imported only when a
# study is asked for (they pull in plotting), so the descriptions live here
_CATALOG: dict[str, tuple[str, str]] = {
    "demo": ("simstudy.studies.demo:build",
             "tiny: iris and wine, 3 learner pairs, 5x2cv t and combined F (seconds)"),
    "type1": ("simstudy.studies.alpaydin1999:build_type1",
              "Alpaydin 1999 Table 3 type I (MLP vs MLP) and Fig. 1"),
    "type2": ("simstudy.studies.alpaydin1999:build_type2",
              "Alpaydin 1999 Table 3 LP vs MLP (reject probability) and Fig. 2"),
    "numerator": ("simstudy.studies.alpaydin1999:build_numerator",
                  "Alpaydin 1999 Table 1: rejects out of the 10 numerators of the 5x2cv t"),
    "errors": ("simstudy.studies.alpaydin1999:build_errors",
               "Alpaydin 1999 Table 2: test-fold errors of LP and MLPs"),
    "gaussian": ("simstudy.studies.wang2016:build_gaussian",
                 "Wang, Li & Li 2016 Table 3: 8 Gaussian cases x 4 comparisons x 3 tests"),
    "wang-real": ("simstudy.studies.wang2016:build_real",
                  "Wang, Li & Li 2016 Tables 4-5 on six UCI data sets"),
    # issue 18: default and paper-variant / hypothesis cells side by side
    "type1-paper": ("simstudy.studies.alpaydin1999:build_type1_paper",
                    "type1 with the learner settings calibrated on Alpaydin's Table 2"),
    "type2-paper": ("simstudy.studies.alpaydin1999:build_type2_paper",
                    "type2 with the learner settings calibrated on Alpaydin's Table 2"),
    "errors-paper": ("simstudy.studies.alpaydin1999:build_errors_paper",
                     "Alpaydin Table 2 under the paper-variant learners"),
    "odr-size": ("simstudy.studies.alpaydin1999:build_odr_size",
                 "Alpaydin 1999 ODR rows on the size Table 2's sds imply (hypothesis)"),
    "gaussian-paper": ("simstudy.studies.wang2016:build_gaussian_paper",
                       "gaussian with the paper-variant learners and hypotheses about AB"),
    "wang-real-paper": ("simstudy.studies.wang2016:build_real_paper",
                        "wang-real with R-default-like learners (paper variant)"),
    "replicability": ("simstudy.studies.bouckaert2004:build",
                      "Bouckaert & Frank 2004 Tables 1-4: replicability on 27 UCI sets"),
    "replicability-strat": ("simstudy.studies.bouckaert2004:build_strat",
                            "Bouckaert & Frank 2004 Table 2 with stratified resampling beside"),
    "multitest": ("simstudy.studies.yildiz2006:build",
                  "Yildiz & Alpaydin 2006 Tables 1-3: best of 5 learners on 30 UCI sets"),
    "ban": ("simstudy.studies.bouckaert2004_ban:build",
            "Bouckaert & Frank 2004 Table 5: four random BAN sources, 1000 training sets"),
}
STUDIES: dict[str, str] = {name: path for name, (path, _) in _CATALOG.items()}
REGISTRY: Registry[Study] = Registry("study")


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


for _name, (_path, _desc) in _CATALOG.items():
    REGISTRY.register(_name, _lazy(_path), description=_desc)


def register_study(name: str, *, description: str | None = None):
    """Decorator: register ``build() -> Study`` as study ``name`` (one file in ``studies/``,
    or any module you import).  The description defaults to the docstring's first line."""

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


_discovered = False


def _discover() -> None:
    """Import the modules of ``simstudy.studies`` the table does not name (once), so that
    their ``@register_study`` decorators run."""
    global _discovered
    if _discovered:
        return
    _discovered = True
    import pkgutil

    import simstudy.studies as pkg

    known = {path.split(":")[0] for path, _ in _CATALOG.values()}
    for m in pkgutil.iter_modules(pkg.__path__):
        mod = f"{pkg.__name__}.{m.name}"
        if mod in known or m.name.startswith("_"):
            continue
        try:
            importlib.import_module(mod)
        except Exception as e:  # noqa: BLE001 - one broken study file must not hide the rest
            raise SimstudyError(f"cannot import study module {mod!r}: "
                                f"{type(e).__name__}: {e}") from None


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
