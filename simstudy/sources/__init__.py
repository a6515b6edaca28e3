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

Every kind is an entry of :data:`SOURCES` (the one registry idiom, :mod:`simstudy.registry`);
adding a kind of source is one decorated factory ``f(spec, params) -> Source``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import SimstudyError, unknown
from ..registry import Registry
from ..spec import parse_spec
from .ban import BanSource, make_ban
from .base import Source
from .bundled import PAPER_NAMES, BundledSource, bundled_names, manifest
from .files import SUFFIXES, FileSource
from .gaussian import WANG2016_CASES, GaussianSource, make_gauss
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
    "PAPER_NAMES",
]

#: every kind of source by name: bundled sets (one entry each), the Gaussian generator and
#: its named cases, the BAN sources, OpenML, and data files (claimed by their path)
SOURCES: Registry[Source] = Registry("source")


def _bundled(spec: str, params: dict[str, str]) -> BundledSource:
    name = parse_spec(spec)[0]
    SOURCES.check_params(spec, params, {"drop", "rows"})
    drop = tuple(x.strip() for x in params.get("drop", "").split(";") if x.strip())
    rows = None
    if "rows" in params:
        try:
            rows = int(params["rows"])
        except ValueError:
            raise SimstudyError(
                f"source {spec!r}: rows must be an integer, got {params['rows']!r}") from None
    src = BundledSource(name, drop, rows)
    if drop or rows is not None:
        src.sample(None)  # check the attribute names / row count now, at the boundary
    return src


def _register_bundled() -> None:
    m = manifest().set_index("name")
    for n in bundled_names():
        SOURCES.register(n, _bundled, description=(
            f"{m.at[n, 'n_instances']} x {m.at[n, 'n_attributes']}, "
            f"{m.at[n, 'n_classes']} classes (bundled UCI)"))


_register_bundled()


@SOURCES.register("gauss")
def _gauss(spec: str, params: dict[str, str]) -> GaussianSource:
    """two Gaussian classes, e.g. gauss[mu1=(1,1),s1=1/2,n=200] (Wang 2016 sec. 3.1)"""
    return make_gauss("gauss", params)


@SOURCES.register("wang-case{k}")
def _wang_case(spec: str, params: dict[str, str], k: str) -> GaussianSource:
    """Gaussian case k = 1..8 of Wang, Li & Li 2016 Table 3 (e.g. wang-case3[n=200])"""
    return make_gauss(f"wang-case{k}", params)


@SOURCES.register("ban")
def _ban(spec: str, params: dict[str, str]) -> BanSource:
    """random BAN source K = 1..4 of Bouckaert & Frank 2004 Table 5: ban[src=K]"""
    return make_ban(params)


def _openml_name(name: str) -> dict[str, str] | None:
    return {} if name.startswith("openml:") else None


@SOURCES.register("openml:NAME", match=_openml_name)
def _openml(spec: str, params: dict[str, str]) -> OpenMLSource:
    """an OpenML data set (optional package 'openml', network; only when asked)"""
    return OpenMLSource(spec[len("openml:"):].strip())


def _looks_like_path(spec: str) -> bool:
    low = spec.lower()
    return low.endswith(SUFFIXES) or "/" in spec or "\\" in spec or Path(spec).is_file()


def _path(name: str) -> dict[str, str] | None:
    return {} if _looks_like_path(name) else None


@SOURCES.register("PATH", match=_path)
def _file(spec: str, params: dict[str, str]) -> FileSource:
    """your .csv / .csv.gz / .arff file; PATH.csv[label=COLUMN] names the label (README: data files)"""
    path = spec.split("[", 1)[0].strip()
    SOURCES.check_params(spec, params, {"label"})
    if not path.lower().endswith(SUFFIXES):
        raise SimstudyError(
            f"data file {path!r}: unsupported type; expected one of {', '.join(SUFFIXES)}")
    if not Path(path).expanduser().is_file():
        raise SimstudyError(f"data file {path!r} does not exist")
    return FileSource(path, params.get("label"))


def describe_sources() -> list[tuple[str, str]]:
    """(name, one-line description) of every registered source (``list`` prints them)."""
    return SOURCES.describe()


def list_sources() -> list[str]:
    """Bundled data set names, the Gaussian cases, the BAN sources, and templates for the
    other kinds (the valid choices an unknown name is told)."""
    return (bundled_names() + [f"wang-case{k}" for k in WANG2016_CASES]
            + [f"ban[src={k}]" for k in range(1, 5)]
            + ["gauss[...]", "openml:NAME", "PATH.csv", "PATH.arff"])


def dataset_info() -> pd.DataFrame:
    """The manifest rows of the bundled data sets (a copy; numeric columns as numbers)."""
    m = manifest().copy()
    for c in ("n_instances", "n_attributes", "n_classes", "n_missing", "size_bytes"):
        m[c] = m[c].astype(int)
    return m


def get_source(spec: str) -> Source:
    """The source named by ``spec``; raises :class:`SimstudyError` for anything unknown.

    Looked up in :data:`SOURCES` by the part before ``[``: exact names, then ``wang-case{k}``,
    ``openml:NAME`` and anything that looks like a file path.  A path's own characters are
    not parsed as a spec (only a trailing ``[label=...]`` is).
    """
    if not isinstance(spec, str) or not spec.strip():
        raise SimstudyError(f"expected a source name or path, got {spec!r}")
    spec = spec.strip()
    head = spec.split("[", 1)[0].strip()
    hit = SOURCES.find(head)
    if hit is None:
        raise unknown("source", spec, list_sources())
    entry, groups = hit
    if entry.matcher is not None:  # openml:NAME, PATH: the one parser only for [k=v]
        params = parse_spec(spec)[1] if "[" in spec else {}
        return entry.factory(spec, params, **groups)
    return SOURCES.get(spec)
