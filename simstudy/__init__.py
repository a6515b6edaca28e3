"""simstudy: reproduce and extend simulation studies of tests that compare classifiers."""

import importlib.util
import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

try:
    __version__ = version("simstudy")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+local"

__all__ = ["__version__"]


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
