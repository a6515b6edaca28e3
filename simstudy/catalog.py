"""The study registry: names -> ``simstudy.studies.<module>:build`` (imported lazily).

A study module defines ``build(**overrides) -> Study`` and optionally ``DESCRIPTION``.
Adding a study is one module under ``studies/`` and one entry here.
"""

from __future__ import annotations

import importlib

from .errors import SimstudyError, unknown
from .study import Study

STUDIES: dict[str, str] = {
    "demo": "simstudy.studies.demo:build",
    "type1": "simstudy.studies.alpaydin1999:build_type1",
    "type2": "simstudy.studies.alpaydin1999:build_type2",
    "numerator": "simstudy.studies.alpaydin1999:build_numerator",
    "errors": "simstudy.studies.alpaydin1999:build_errors",
    "gaussian": "simstudy.studies.wang2016:build_gaussian",
    "wang-real": "simstudy.studies.wang2016:build_real",
    # issue 18: default and paper-variant / hypothesis cells side by side
    "type1-paper": "simstudy.studies.alpaydin1999:build_type1_paper",
    "type2-paper": "simstudy.studies.alpaydin1999:build_type2_paper",
    "errors-paper": "simstudy.studies.alpaydin1999:build_errors_paper",
    "gaussian-paper": "simstudy.studies.wang2016:build_gaussian_paper",
    "wang-real-paper": "simstudy.studies.wang2016:build_real_paper",
    "replicability": "simstudy.studies.bouckaert2004:build",
    "replicability-strat": "simstudy.studies.bouckaert2004:build_strat",
    "multitest": "simstudy.studies.yildiz2006:build",
    "ban": "simstudy.studies.bouckaert2004_ban:build",
}


def _load(name: str):
    mod, fn = STUDIES[name].split(":")
    return getattr(importlib.import_module(mod), fn)


def available_studies() -> list[str]:
    """Registered studies whose module imports (others are listed as not yet available)."""
    out = []
    for name in STUDIES:
        try:
            _load(name)
        except (ImportError, AttributeError):
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
        if name not in STUDIES:
            raise unknown("study", name, STUDIES)
        try:
            build = _load(name)
        except (ImportError, AttributeError):
            raise unknown("study", name, available_studies()) from None
        study = _call_build(build, f"study {name!r}")
    changes = {k: v for k, v in overrides.items() if v is not None}
    study = study.replace(**changes) if changes else study
    return study.keyed()
