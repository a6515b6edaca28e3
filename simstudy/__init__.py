"""simstudy: reproduce and extend simulation studies of tests that compare classifiers.

The Python entry point (:mod:`simstudy.api`)::

    import simstudy as ss
    result = ss.run("type1", runs=20, store="type1.sqlite")
    ss.collect("type1", store="type1.sqlite").table

Every public name is imported on first use, so ``import simstudy`` stays cheap.

Examples
--------
>>> import simstudy as ss
>>> ss.get_design("5x2cv").shape
(5, 2)
>>> [c.id for c in ss.cells(["iris"], [("nmc", "1nn")], ["5x2cv"], ["t5x2cv"])]
['iris/nmc~1nn/5x2cv']
"""

import importlib
import importlib.util
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("simstudy")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+local"

# public name -> the module that defines it (imported on first use)
_LAZY = {
    "run": "simstudy.api", "collect": "simstudy.api", "RunResult": "simstudy.api",
    "snapshot": "simstudy.api", "bench": "simstudy.api", "card": "simstudy.api",
    "merge": "simstudy.api",
    "Study": "simstudy.study", "Cell": "simstudy.study", "cells": "simstudy.study",
    "get_study": "simstudy.catalog", "get_learner": "simstudy.learners",
    "get_test": "simstudy.stats.registry", "get_design": "simstudy.designs",
    "get_source": "simstudy.sources", "SimstudyError": "simstudy.errors",
    "compare": "simstudy.yourmodels", "Comparison": "simstudy.yourmodels",
}
__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


def _studies_of_this_checkout() -> None:
    """In a source checkout, ``studies/`` sits beside this package and an install maps it to
    ``simstudy.studies``.  When this package is imported from the checkout itself (e.g.
    ``python -m simstudy`` in the repository after a plain ``pip install .``, whose copy of
    the studies lives in site-packages; or another checkout on ``PYTHONPATH`` while an
    editable install points elsewhere), take the studies from the same checkout, so that
    engine and study definitions are always one version."""
    here = Path(__file__).resolve().parent
    src = here.parent / "studies"
    if (here / "studies").is_dir() or not (src / "__init__.py").is_file():
        return  # an installed package (studies inside it), or not a checkout
    if "simstudy.studies" in sys.modules:
        return
    spec = importlib.util.spec_from_file_location(
        "simstudy.studies", src / "__init__.py", submodule_search_locations=[str(src)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules["simstudy.studies"] = mod
    spec.loader.exec_module(mod)
    globals()["studies"] = mod


_studies_of_this_checkout()
