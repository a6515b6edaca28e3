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
    "merge": "simstudy.api", "plan": "simstudy.api", "Plan": "simstudy.planning",
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


class _CheckoutStudies:
    """Where ``simstudy.studies`` is found when this package runs from a source checkout.

    The studies are plugins: one package per study under ``studies/``, which an install
    maps to ``simstudy.studies`` (``[tool.setuptools] package-dir``), and whose modules the
    catalog (:mod:`simstudy.catalog`) indexes on first use.  An installed package carries
    them inside it.  A checkout keeps ``studies/`` beside this package; when this package is
    imported from the checkout itself (``python -m simstudy`` in the repository after a plain
    ``pip install .``, or another checkout on ``PYTHONPATH`` while an editable install points
    elsewhere), this finder, first on ``sys.meta_path``, answers ``simstudy.studies`` with
    that folder, so that engine and studies are always one version.  It only says where the
    package is: nothing of the studies runs until one of them is imported.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def find_spec(self, fullname: str, path=None, target=None):
        if fullname != f"{__name__}.studies":
            return None
        return importlib.util.spec_from_file_location(
            fullname, self.folder / "__init__.py", submodule_search_locations=[str(self.folder)])


def _find_studies_of_this_checkout() -> None:
    here = Path(__file__).resolve().parent
    src = here.parent / "studies"
    if (here / "studies").is_dir() or not (src / "__init__.py").is_file():
        return  # an installed package (studies inside it), or not a checkout
    if not any(isinstance(f, _CheckoutStudies) for f in sys.meta_path):
        sys.meta_path.insert(0, _CheckoutStudies(src))


_find_studies_of_this_checkout()
