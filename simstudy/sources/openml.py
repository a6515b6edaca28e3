"""OpenML data sets (``openml:NAME`` or ``openml:ID``), fetched only when asked for.

Needs the optional ``openml`` package (``pip install simstudy[openml]``) and a network
connection; it is imported lazily so the rest of the package never depends on it.  The
data set's default target is the class; nominal (category) columns are one-hot encoded by
:func:`simstudy.sources.encode.encode` like the bundled ones.  The tests never reach the
network: they check this module against a stand-in ``openml`` with the API of openml 0.14
(``datasets.get_dataset(id, download_data=True)``, ``OpenMLDataset.get_data(target=...)``
returning ``(X, y, categorical_indicator, attribute_names)`` as DataFrame and Series).
The study's validation loads the data set once in the main process before any worker
starts, so parallel workers read openml's cache instead of downloading at once.
"""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ..core import Dataset
from ..errors import SimstudyError
from .base import SOURCES, Source
from .encode import encode, unlabelled_param


def _import_openml():
    try:
        import openml  # noqa: PLC0415 - optional dependency, imported on demand
    except ImportError:
        raise SimstudyError(
            "source 'openml:...' needs the optional package 'openml' "
            "(pip install 'simstudy[openml]')"
        ) from None
    return openml


@functools.lru_cache(maxsize=16)
def load_openml(key: str, unlabelled: str = "refuse") -> Dataset:
    """Download (or read openml's own cache) and encode one OpenML data set (rows without
    a label: ``unlabelled``, see :func:`simstudy.sources.encode.encode`)."""
    openml = _import_openml()
    ident: int | str = int(key) if key.isdigit() else key
    try:
        ds = openml.datasets.get_dataset(ident, download_data=True)
        X, y, categorical, names = ds.get_data(target=ds.default_target_attribute)
    except Exception as e:  # network errors, unknown names, ... all surface as one message
        raise SimstudyError(f"OpenML data set {key!r} could not be loaded: {e}") from None
    if y is None:
        raise SimstudyError(f"OpenML data set {key!r} has no default target attribute")
    df = pd.DataFrame(X, columns=names).copy()
    df["class"] = pd.Series(y).astype(object).to_numpy()
    nominal = [n for n, c in zip(names, categorical, strict=True) if c]
    # OpenML's nominal columns keep their declared domains (as ARFF files do here), so a
    # value absent from the data still has its indicator column
    domains = {n: [str(v) for v in df[n].cat.categories] for n in nominal
               if isinstance(df[n].dtype, pd.CategoricalDtype)}
    meta = {"source": "openml", "openml_id": int(ds.dataset_id), "version": ds.version}
    return encode(df, f"openml:{key}", nominal=nominal, domains=domains, meta=meta,
                  unlabelled=unlabelled)


class OpenMLSource(Source):
    """A fixed data set from OpenML, loaded once per process."""

    fixed = True

    def __init__(self, key: str, unlabelled: str = "refuse") -> None:
        if not key:
            raise SimstudyError("source 'openml:' needs a data set name or id, e.g. 'openml:iris'")
        self.dataset, self.unlabelled = key, unlabelled
        self.key = key if unlabelled == "refuse" else f"{key}[unlabelled={unlabelled}]"
        self.name = f"openml:{self.key}"

    def sample(self, rng: np.random.Generator) -> Dataset:
        return load_openml(self.dataset, self.unlabelled)


def _openml_name(name: str) -> dict[str, str] | None:
    return {} if name.startswith("openml:") else None


@SOURCES.register("openml:NAME", match=_openml_name)
def _openml_source(spec: str, params: dict[str, str]) -> OpenMLSource:
    """an OpenML data set (optional package 'openml', network; only when asked); [unlabelled=drop] drops rows without a label"""
    SOURCES.check_params(spec, params, {"unlabelled"})
    unlabelled = unlabelled_param(spec, params)
    return OpenMLSource(spec[len("openml:"):].split("[", 1)[0].strip(), unlabelled)
