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
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from ..errors import SimstudyError, unknown
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
    "get_source",
    "list_sources",
    "describe_sources",
    "dataset_info",
    "PAPER_NAMES",
]

_TEMPLATES = ["gauss[...]", "openml:NAME", "PATH.csv", "PATH.arff"]


_TEMPLATE_TEXT = {
    "gauss[...]": "two Gaussian classes, e.g. gauss[mu1=(1,1),s1=1/2,n=200] (Wang 2016 sec. 3.1)",
    "openml:NAME": "an OpenML data set (optional package 'openml', network; only when asked)",
    "PATH.csv": "your CSV file; PATH.csv[label=COLUMN] names the label (README: data files)",
    "PATH.arff": "your ARFF file (nominal domains kept)",
}


def describe_sources() -> list[tuple[str, str]]:
    """(name, one-line description) of every source: manifest facts for bundled sets."""
    m = manifest().set_index("name")
    out = [(n, f"{m.at[n, 'n_instances']} x {m.at[n, 'n_attributes']}, "
               f"{m.at[n, 'n_classes']} classes (bundled UCI)") for n in bundled_names()]
    out += [(f"wang-case{k}", f"Gaussian case {k} of Wang, Li & Li 2016 Table 3")
            for k in WANG2016_CASES]
    out += [(f"ban[src={k}]", f"random BAN source {k} of Bouckaert & Frank 2004 Table 5")
            for k in range(1, 5)]
    return out + [(t, _TEMPLATE_TEXT.get(t, "")) for t in _TEMPLATES]


def list_sources() -> list[str]:
    """Bundled data set names, the Gaussian cases, and templates for the other kinds."""
    return (bundled_names() + [f"wang-case{k}" for k in WANG2016_CASES]
            + [f"ban[src={k}]" for k in range(1, 5)] + _TEMPLATES)


def dataset_info() -> pd.DataFrame:
    """The manifest rows of the bundled data sets (a copy; numeric columns as numbers)."""
    m = manifest().copy()
    for c in ("n_instances", "n_attributes", "n_classes", "n_missing", "size_bytes"):
        m[c] = m[c].astype(int)
    return m


def _looks_like_path(spec: str) -> bool:
    low = spec.lower()
    return low.endswith(SUFFIXES) or "/" in spec or "\\" in spec or Path(spec).is_file()


def get_source(spec: str) -> Source:
    """The source named by ``spec``; raises :class:`SimstudyError` for anything unknown."""
    if not isinstance(spec, str) or not spec.strip():
        raise SimstudyError(f"expected a source name or path, got {spec!r}")
    spec = spec.strip()
    if spec.startswith("openml:"):
        return OpenMLSource(spec[len("openml:") :].strip())
    head = spec.split("[", 1)[0].strip()
    if head == "gauss" or head.startswith("wang-case"):
        return make_gauss(*parse_spec(spec))
    if head == "ban":
        return make_ban(parse_spec(spec)[1])
    if head in bundled_names():
        name, params = parse_spec(spec)
        bad = sorted(set(params) - {"drop", "rows"})
        if bad:
            raise SimstudyError(
                f"source {spec!r}: unknown parameter {bad[0]!r}; valid parameters: drop, rows"
            )
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
    if _looks_like_path(head):
        path, params = parse_spec(spec) if "[" in spec else (spec, {})
        bad = sorted(set(params) - {"label"})
        if bad:
            raise SimstudyError(
                f"source {spec!r}: unknown parameter {bad[0]!r}; valid parameters: label")
        if not path.lower().endswith(SUFFIXES):
            raise SimstudyError(
                f"data file {path!r}: unsupported type; expected one of {', '.join(SUFFIXES)}"
            )
        if not Path(path).expanduser().is_file():
            raise SimstudyError(f"data file {path!r} does not exist")
        return FileSource(path, params.get("label"))
    raise unknown("source", spec, list_sources())
