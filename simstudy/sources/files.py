"""User data files: CSV (optionally gzip) and ARFF, read once per process.

CSV: one header row; the label is the column named ``class`` (any letter case) if there is
one, else the last column.  Empty fields and ``?`` are missing; numeric columns are numeric
attributes, any other column is nominal.  ARFF (via :func:`scipy.io.arff.loadarff`):
nominal attributes are nominal over their declared domain, numeric ones numeric; the label
is the attribute named ``class`` if any, else the last one.  ``string``/``date``/sparse ARFF
is not supported (scipy's reader refuses it) and raises :class:`SimstudyError`.
"""

from __future__ import annotations

import functools
import io
from pathlib import Path

import numpy as np
import pandas as pd

from ..core import Dataset
from ..errors import SimstudyError
from .base import Source
from .encode import encode

SUFFIXES = (".csv", ".csv.gz", ".arff")


def _label_column(columns: list[str]) -> str:
    for c in columns:
        if str(c).strip().lower() == "class":
            return c
    return columns[-1]


def read_csv_table(path: Path) -> pd.DataFrame:
    """Read a CSV file as a DataFrame whose last column is ``class``."""
    try:
        df = pd.read_csv(path, keep_default_na=False, na_values=["", "?"], skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise SimstudyError(f"data file {str(path)!r} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError, OSError) as e:
        raise SimstudyError(f"data file {str(path)!r} could not be read as CSV: {e}") from None
    if df.shape[1] < 2:
        raise SimstudyError(
            f"data file {str(path)!r} needs at least one attribute column and a class column, "
            f"found columns {list(df.columns)!r}"
        )
    lab = _label_column(list(df.columns))
    return df[[c for c in df.columns if c != lab] + [lab]].rename(columns={lab: "class"})


def read_arff_table(path: Path) -> tuple[pd.DataFrame, dict[str, tuple[str, ...]]]:
    """Read an ARFF file: the table (last column ``class``) and the nominal domains."""
    from scipy.io import arff

    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as e:
        raise SimstudyError(f"data file {str(path)!r} could not be read: {e}") from None
    if not text.strip():
        raise SimstudyError(f"data file {str(path)!r} is empty")
    try:
        data, meta = arff.loadarff(io.StringIO(text))
    except Exception as e:  # scipy raises several types (ParseArffError, ValueError, ...)
        raise SimstudyError(f"data file {str(path)!r} is not a readable ARFF file: {e}") from None
    names = list(meta.names())
    domains: dict[str, tuple[str, ...]] = {}
    cols = {}
    for a in names:
        kind, dom = meta[a]
        col = data[a]
        if kind == "nominal":
            domains[a] = tuple(dom)
            cols[a] = pd.Series(
                [v.decode() if isinstance(v, bytes) else v for v in col], dtype=object
            )
        else:
            cols[a] = pd.Series(np.asarray(col, dtype=np.float64))
    df = pd.DataFrame(cols)
    if df.shape[1] < 2:
        raise SimstudyError(f"data file {str(path)!r} needs attributes and a class attribute")
    lab = _label_column(names)
    df = df[[c for c in names if c != lab] + [lab]].rename(columns={lab: "class"})
    if lab in domains:
        domains["class"] = domains.pop(lab)
    return df, domains


@functools.lru_cache(maxsize=32)
def load_file(path: str) -> Dataset:
    """Load a user CSV/ARFF file as a Dataset (cached per resolved path)."""
    p = Path(path)
    if not p.is_file():
        raise SimstudyError(f"data file {path!r} does not exist")
    name = p.name
    for s in SUFFIXES:
        if name.lower().endswith(s):
            name = name[: -len(s)]
    meta = {"path": str(p), "source": "file"}
    if p.name.lower().endswith(".arff"):
        df, domains = read_arff_table(p)
        domains.pop("class", None)  # classes are the observed labels
        return encode(df, name, domains=domains, meta=meta)
    return encode(read_csv_table(p), name, meta=meta)


class FileSource(Source):
    """A fixed data set read from a user's CSV or ARFF file."""

    fixed = True

    def __init__(self, path: str | Path) -> None:
        self.path = str(Path(path).expanduser().resolve())
        self.name = str(path)

    def sample(self, rng: np.random.Generator) -> Dataset:
        return load_file(self.path)
