"""User data files: CSV (optionally gzip) and ARFF, read once per process.

CSV: one header row; the label is the column named by ``label`` (source spec
``PATH.csv[label=NAME]``), else the column named ``class`` (any letter case) if there is
one, else the last column.  A label column that looks continuous (numeric, more than half of
its values distinct) is refused unless it was named with ``label=``.  Empty fields, ``?`` and
a literal ``NaN`` are missing values (counted, and kept missing: see
:mod:`simstudy.sources.encode`); numeric columns are numeric attributes, any other column is
nominal.  Rows without a label are refused unless the source says ``[unlabelled=drop]``.  ARFF (via :func:`scipy.io.arff.loadarff`):
nominal attributes are nominal over their declared domain, numeric ones numeric; the label
is the attribute named ``class`` if any, else the last one.  ``string``/``date``/sparse ARFF
is not supported (scipy's reader refuses it) and raises :class:`SimstudyError`.
"""

from __future__ import annotations

import functools
import hashlib
import io
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..core import Dataset
from ..errors import SimstudyError
from .base import SOURCES, Source
from .encode import MISSING_TEXT, encode, unlabelled_param

SUFFIXES = (".csv", ".csv.gz", ".arff")


def _label_column(columns: list[str], label: str | None = None, path: object = "") -> str:
    if label is not None:
        for c in columns:
            if str(c).strip() == label:
                return c
        raise SimstudyError(f"data file {str(path)!r} has no column {label!r} (label=); "
                            f"columns: {', '.join(map(str, columns))}")
    for c in columns:
        if str(c).strip().lower() == "class":
            return c
    return columns[-1]


def _check_label(df: pd.DataFrame, lab: str, named: bool, path: Path) -> None:
    col = df[lab].dropna()
    if named or col.empty:
        return
    numeric = pd.to_numeric(col, errors="coerce")
    if numeric.notna().all() and col.nunique() > len(col) / 2:
        raise SimstudyError(
            f"data file {str(path)!r}: the label column {str(lab)!r} looks continuous "
            f"({col.nunique()} distinct values in {len(col)} rows); simstudy compares "
            f"classifiers. Name the label column with '{path}[label=NAME]' if this is right")


def read_csv_table(path: Path, label: str | None = None) -> pd.DataFrame:
    """Read a CSV file as a DataFrame whose last column is ``class``."""
    try:
        df = pd.read_csv(path, keep_default_na=False, na_values=list(MISSING_TEXT),
                         skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise SimstudyError(f"data file {str(path)!r} is empty") from None
    except (pd.errors.ParserError, UnicodeDecodeError, OSError) as e:
        raise SimstudyError(f"data file {str(path)!r} could not be read as CSV: {e}") from None
    if df.shape[1] < 2:
        raise SimstudyError(
            f"data file {str(path)!r} needs at least one attribute column and a class column, "
            f"found columns {list(df.columns)!r}"
        )
    lab = _label_column(list(df.columns), label, path)
    _check_label(df, lab, label is not None, path)
    return df[[c for c in df.columns if c != lab] + [lab]].rename(columns={lab: "class"})


def read_arff_table(path: Path, label: str | None = None
                    ) -> tuple[pd.DataFrame, dict[str, tuple[str, ...]]]:
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
    lab = _label_column(names, label, path)
    if lab not in domains:
        _check_label(df, lab, label is not None, path)
    df = df[[c for c in names if c != lab] + [lab]].rename(columns={lab: "class"})
    if lab in domains:
        domains["class"] = domains.pop(lab)
    return df, domains


def file_sha256(path: str | Path) -> str:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError as e:
        raise SimstudyError(f"data file {str(path)!r} could not be read: {e}") from None


@functools.lru_cache(maxsize=32)
def load_file(path: str, label: str | None = None, sha256: str | None = None,
              unlabelled: str = "refuse") -> Dataset:
    """Load a user CSV/ARFF file as a Dataset (cached per path, label, content hash and
    what to do with unlabelled rows)."""
    p = Path(path)
    if not p.is_file():
        raise SimstudyError(f"data file {path!r} does not exist")
    name = p.name
    for s in SUFFIXES:
        if name.lower().endswith(s):
            name = name[: -len(s)]
    meta = {"path": str(p), "source": "file", "sha256": sha256}
    if p.name.lower().endswith(".arff"):
        df, domains = read_arff_table(p, label)
        domains.pop("class", None)  # classes are the observed labels
        return encode(df, name, domains=domains, meta=meta, unlabelled=unlabelled)
    return encode(read_csv_table(p, label), name, meta=meta, unlabelled=unlabelled)


class FileSource(Source):
    """A fixed data set read from a user's CSV or ARFF file, keyed by its content.

    ``key`` (the source's part of a cell id) is the file's stem and the first 10 hex digits
    of its sha256, e.g. ``mydata@1a2b3c4d5e``: editing the file makes new cells and leaves
    the trials of the old content untouched.
    """

    fixed = True

    def __init__(self, path: str | Path, label: str | None = None,
                 unlabelled: str = "refuse") -> None:
        self.path = str(Path(path).expanduser().resolve())
        self.label, self.unlabelled = label, unlabelled
        params = ([] if label is None else [f"label={label}"]) + (
            [] if unlabelled == "refuse" else [f"unlabelled={unlabelled}"])
        lab = f"[{','.join(params)}]" if params else ""
        self.name = f"{path}{lab}"
        self.content_hash = file_sha256(self.path)
        stem = Path(self.path).name
        for suf in SUFFIXES:
            if stem.lower().endswith(suf):
                stem = stem[: -len(suf)]
        self.key = f"{stem}{lab}@{self.content_hash[:10]}"

    def sample(self, rng: np.random.Generator) -> Dataset:
        return load_file(self.path, self.label, self.content_hash, self.unlabelled)


#: ``scheme:rest`` names another kind of source (``openml:NAME``), not a file; a one-letter
#: "scheme" is a Windows drive
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+:")


def looks_like_path(spec: str) -> bool:
    """A data file's spec: ends in a data suffix, has a path separator, or is a file."""
    if _SCHEME.match(spec):
        return False
    low = spec.lower()
    return low.endswith(SUFFIXES) or "/" in spec or "\\" in spec or Path(spec).is_file()


def _path(name: str) -> dict[str, str] | None:
    return {} if looks_like_path(name) else None


@SOURCES.register("PATH", match=_path, choices=("PATH.csv", "PATH.arff"))
def _file(spec: str, params: dict[str, str]) -> FileSource:
    """your .csv / .csv.gz / .arff file; PATH.csv[label=COLUMN] names the label, [unlabelled=drop] drops rows without one (README: data files)"""
    path = spec.split("[", 1)[0].strip()
    SOURCES.check_params(spec, params, {"label", "unlabelled"})
    unlabelled = unlabelled_param(spec, params)
    if not path.lower().endswith(SUFFIXES):
        raise SimstudyError(
            f"data file {path!r}: unsupported type; expected one of {', '.join(SUFFIXES)}")
    if not Path(path).expanduser().is_file():
        raise SimstudyError(f"data file {path!r} does not exist")
    return FileSource(path, params.get("label"), unlabelled)
