"""Data sources: where a trial's (X, y) comes from.

``get_source(spec)`` accepts

* a bundled UCI data set name (``"iris"``; ``list_sources()``; ``dataset_info()`` gives the
  manifest), optionally ``name[drop=a;b]`` to leave attributes out and ``name[rows=N]`` to
  keep the file's first N instances;
* a path to a user ``.csv``/``.csv.gz``/``.arff`` file (label: column ``class`` or the last);
* ``openml:NAME`` or ``openml:ID`` (optional ``openml`` package, network);
* the Gaussian two-class generator ``gauss[...]`` and its named cases ``wang-case1`` …
  ``wang-case8`` (Wang, Li & Li 2016 Table 3);
* the Bayesian-network sources ``ban[src=K]``, K = 1..4 (Bouckaert & Frank 2004 Table 5).

Every kind is an entry of :data:`SOURCES` (the one registry idiom, :mod:`simstudy.registry`):
adding a kind of source is one module here with one decorated factory
``@SOURCES.register("name")`` ``f(spec, params) -> Source``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable

import pandas as pd

from ..errors import SimstudyError, unknown
from ..spec import parse_spec
from .ban import BanSource
from .base import SOURCES, Source
from .bundled import BundledSource, manifest
from .files import FileSource
from .gaussian import GaussianSource
from .openml import OpenMLSource

__all__ = [
    "Source",
    "BundledSource",
    "FileSource",
    "GaussianSource",
    "OpenMLSource",
    "BanSource",
    "SOURCES",
    "get_source",
    "list_sources",
    "describe_sources",
    "dataset_info",
    "missing_notes",
]

# every module of the package registers its kinds of source when imported: a new kind of
# source is one file here with one decorator
for _m in pkgutil.iter_modules(__path__):
    importlib.import_module(f"{__name__}.{_m.name}")


def describe_sources() -> list[tuple[str, str]]:
    """(name, one-line description) of every registered source (``list`` prints them)."""
    return SOURCES.describe()


def list_sources() -> list[str]:
    """Every registered source as the valid choices an unknown name is told spell it:
    bundled data set names, ``wang-case1`` .., ``ban[src=1]`` .., and templates for the
    other kinds (``gauss[...]``, ``openml:NAME``, ``PATH.csv``)."""
    return SOURCES.choices()


def dataset_info() -> pd.DataFrame:
    """The manifest rows of the bundled data sets (a copy; numeric columns as numbers)."""
    m = manifest().copy()
    for c in ("n_instances", "n_attributes", "n_classes", "n_missing", "size_bytes"):
        m[c] = m[c].astype(int)
    return m


def get_source(spec: str) -> Source:
    """The source named by ``spec``; raises :class:`SimstudyError` for anything unknown.

    Looked up in :data:`SOURCES` by the part before ``[``: exact names, then templates
    (``wang-case{k}``), then ``openml:NAME`` and anything that looks like a file path.  A
    path's own characters are not parsed as a spec (only a trailing ``[label=...]`` is).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SimstudyError(f"expected a source name or path, got {spec!r}")
    spec = spec.strip()
    hit = SOURCES.find(spec.split("[", 1)[0].strip())
    if hit is None:
        raise unknown("source", spec, list_sources())
    entry, groups = hit
    if entry.matcher is not None:  # openml:NAME, PATH: the one parser only for [k=v]
        params = parse_spec(spec)[1] if "[" in spec else {}
        return entry.factory(spec, params, **groups)
    return SOURCES.get(spec)


def missing_notes(specs: Iterable[str]) -> list[str]:
    """What the data sets named by ``specs`` miss, for a run to say: the missing attribute
    values of each fixed data set (they stay missing, for each learner to handle as it
    defines), and the rows a ``[unlabelled=drop]`` source dropped for having no label.
    Generated sources draw complete data and are not listed.

    Examples
    --------
    >>> missing_notes(["iris", "hepatitis", "autos"])
    ['missing attribute values, kept missing (each learner handles them as it defines): hepatitis 167, autos 59']
    """
    import numpy as np

    missing, dropped = [], []
    for spec in dict.fromkeys(specs):
        src = get_source(spec)
        if not src.fixed:
            continue
        meta = src.sample(np.random.default_rng(0)).meta
        if meta.get("n_missing_values"):
            missing.append(f"{spec} {int(meta['n_missing_values']):,}")
        if meta.get("n_missing_class"):
            dropped.append(f"{spec} {int(meta['n_missing_class']):,}")
    notes = []
    if missing:
        notes.append("missing attribute values, kept missing (each learner handles them as "
                     "it defines): " + ", ".join(missing))
    if dropped:
        notes.append("rows without a class label dropped ([unlabelled=drop]): "
                     + ", ".join(dropped))
    return notes
