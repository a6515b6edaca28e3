"""simstudy: reproduce and extend simulation studies of tests that compare classifiers."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("simstudy")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0.0.0+local"

__all__ = ["__version__"]
