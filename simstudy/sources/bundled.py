"""The UCI data sets bundled with the package (``simstudy/sources/data``).

Each file is a gzip CSV (last column ``class``) listed in ``data/MANIFEST.csv`` with its
shape and sha256; the sha256 is checked on every load (once per process: loads are cached).
See ``data/PROVENANCE.md`` for where the files come from.

A CSV cannot say which nominal values were declared but never occur, nor in which order the
classes were declared.  ``data/DOMAINS.json`` records both, per set, from the ARFF file Weka
users run (Weka's own copy where Debian's ``weka`` package ships one).  ``NAME`` encodes
the values as they occur, sorted; ``NAME[domains=declared]`` encodes over the declared
domains in their declared order, with the declared class order (unused classes included):
what Weka's learners see when they read that ARFF.

The papers name the data sets in their own ways; each study maps its paper's names to the
bundled files (``None`` = not available, never substituted).
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

import numpy as np
import pandas as pd

from ..core import Dataset
from ..errors import SimstudyError, unknown
from ..spec import parse_spec
from .base import SOURCES, Source
from .encode import encode

DATA_DIR = Path(__file__).with_name("data")

#: how a bundled set's nominal values and classes are encoded (``[domains=...]``)
DOMAIN_MODES = ("observed", "declared")


def _split_list(s: str) -> list[str]:
    s = str(s).strip()
    return [] if s in ("", "none", "nan") else [x for x in s.split(";") if x]


@functools.lru_cache(maxsize=4)
def manifest(data_dir: str = str(DATA_DIR)) -> pd.DataFrame:
    """The bundled ``MANIFEST.csv`` (one row per file, the shared manifest's columns)."""
    path = Path(data_dir) / "MANIFEST.csv"
    if not path.is_file():
        raise SimstudyError(f"bundled data manifest {str(path)!r} is missing")
    return pd.read_csv(path, dtype=str, keep_default_na=False)


def bundled_names(data_dir: str = str(DATA_DIR)) -> list[str]:
    return sorted(manifest(data_dir)["name"])


@functools.lru_cache(maxsize=4)
def _rows(data_dir: str) -> dict[str, pd.Series]:
    # name -> manifest row, indexed once: a study resolves a source per cell (replicability's
    # 243 cells: 0.07 s CPU as one boolean mask per cell)
    m = manifest(data_dir)
    return {name: m.iloc[i] for i, name in reversed(list(enumerate(m["name"])))}


def _row(name: str, data_dir: str) -> pd.Series:
    hit = _rows(data_dir).get(name)
    if hit is None:
        raise unknown("data set", name, manifest(data_dir)["name"])
    return hit


def verify(name: str, data_dir: str = str(DATA_DIR)) -> Path:
    """Check a bundled file's sha256 against the manifest; return its path."""
    row = _row(name, data_dir)
    path = Path(data_dir) / row["file"]
    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as e:
        raise SimstudyError(f"bundled data file {str(path)!r} cannot be read: {e}") from None
    if digest != row["sha256"]:
        raise SimstudyError(
            f"bundled data file {str(path)!r} is corrupted: sha256 {digest} does not match "
            f"the manifest's {row['sha256']}"
        )
    return path


@functools.lru_cache(maxsize=4)
def declared_domains(data_dir: str = str(DATA_DIR)) -> dict[str, dict]:
    """``DOMAINS.json``'s sets: name -> ``class`` (declared order), ``attributes`` (name ->
    declared values, in order), optionally ``missing_as`` (attribute -> the declared value a
    missing cell is) and ``numeric`` (integer-coded attributes the ARFF declares numeric),
    with ``source`` and ``notes``.
    An empty dict when the file is absent (a data directory from before it existed)."""
    path = Path(data_dir) / "DOMAINS.json"
    if not path.is_file():
        return {}
    try:
        return json.loads(path.read_text(encoding="utf-8"))["sets"]
    except (ValueError, KeyError) as e:
        raise SimstudyError(f"bundled domains file {str(path)!r} is malformed: {e}") from None


def domains_hash(name: str, mode: str = "observed", data_dir: str = str(DATA_DIR)) -> str:
    """What a trial records as its data's identity: the CSV's sha256, and for
    ``declared`` the sha256 of that and the set's declared domains."""
    sha = _row(name, data_dir)["sha256"]
    if mode == "observed":
        return sha
    entry = _declared_entry(name, mode, data_dir)
    text = json.dumps({k: entry[k] for k in ("class", "attributes", "missing_as", "numeric")
                       if k in entry},
                      sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(f"{sha}\n{text}".encode()).hexdigest()


def _declared_entry(name: str, mode: str, data_dir: str) -> dict:
    if mode not in DOMAIN_MODES:
        raise unknown(f"domains of {name!r}", mode, DOMAIN_MODES)
    entry = declared_domains(data_dir).get(name)
    if entry is None:
        raise SimstudyError(
            f"data set {name!r} has no declared domains (domains=declared); sets with them: "
            f"{', '.join(sorted(declared_domains(data_dir)))}")
    return entry


@functools.lru_cache(maxsize=64)
def load_bundled(name: str, data_dir: str = str(DATA_DIR), drop: tuple[str, ...] = (),
                 rows: int | None = None, domains: str = "observed") -> Dataset:
    """Load a bundled data set (sha256-checked, cached per process).

    ``drop`` removes attributes by name before encoding (e.g. vowel's three bookkeeping
    attributes).  ``rows`` keeps only the first ``rows`` instances of the file (e.g. the
    first 3823 rows of ``optdigits`` are UCI's optdigits.tra).  Integer-coded categorical
    attributes (manifest column) are one-hot encoded like the string ones.  ``domains``:
    ``"observed"`` (values as they occur, sorted) or ``"declared"`` (``DOMAINS.json``).

    Examples
    --------
    >>> load_bundled("credit-g").classes
    ('bad', 'good')
    >>> d = load_bundled("credit-g", domains="declared")
    >>> d.classes, [f for f in d.feature_names if f.startswith("purpose=")][7]
    (('good', 'bad'), 'purpose=vacation')
    """
    path = verify(name, data_dir)
    row = _row(name, data_dir)
    entry = {} if domains == "observed" else _declared_entry(name, domains, data_dir)
    nominal = _split_list(row["nominal_attributes"]) + _split_list(
        row["integer_coded_categorical_attributes"]
    )
    nominal += [a for a in entry.get("attributes", {}) if a not in nominal]
    nominal = [a for a in nominal if a not in entry.get("numeric", ())]
    try:
        df = pd.read_csv(
            path,
            keep_default_na=False,
            na_values=[""],
            dtype={c: str for c in [*nominal, "class"]},
        )
    except Exception as e:  # corrupt gzip, bad CSV, ...
        raise SimstudyError(f"bundled data file {str(path)!r} is malformed: {e}") from None
    missing = [c for c in drop if c not in df.columns]
    if missing:
        raise unknown(f"attribute of {name!r}", missing[0], [c for c in df.columns if c != "class"])
    df = df.drop(columns=list(drop))
    if rows is not None:
        if not (isinstance(rows, int) and 2 <= rows <= len(df)):
            raise SimstudyError(
                f"rows of {name!r} must be an integer from 2 to {len(df)}, got {rows!r}")
        df = df.iloc[:rows].reset_index(drop=True)
    meta = {"path": str(path), "source": "bundled", "sha256": row["sha256"], "drop": drop,
            "rows": rows, "domains": domains}
    declared = {a: v for a, v in entry.get("attributes", {}).items() if a not in drop}
    return encode(df, name, nominal=[c for c in nominal if c not in drop], meta=meta,
                  domains=declared, classes=entry.get("class"), declared_order=bool(entry),
                  missing_as={a: v for a, v in entry.get("missing_as", {}).items()
                              if a not in drop})


class BundledSource(Source):
    """A bundled UCI data set: the same Dataset every trial."""

    fixed = True

    def __init__(self, name: str, drop: tuple[str, ...] = (), rows: int | None = None,
                 domains: str = "observed") -> None:
        # unknown names fail here, at the boundary; the manifest's sha256 (checked on every
        # load; with the declared domains when they are used) is recorded with each trial,
        # so a store never mixes two versions of the data
        self.content_hash = domains_hash(name, domains, str(DATA_DIR))
        self.dataset_name, self.drop, self.rows, self.domains = name, tuple(drop), rows, domains
        params = ([f"domains={domains}"] if domains != "observed" else []) + (
            [f"drop={';'.join(self.drop)}"] if self.drop else []) + (
            [f"rows={rows}"] if rows is not None else [])
        self.name = f"{name}[{','.join(params)}]" if params else name

    def sample(self, rng: np.random.Generator) -> Dataset:
        return load_bundled(self.dataset_name, str(DATA_DIR), self.drop, self.rows, self.domains)


def _bundled(spec: str, params: dict[str, str]) -> BundledSource:
    """A bundled data set by name: ``iris``, ``vowel[drop=a;b]``, ``anneal[rows=N]``,
    ``credit-g[domains=declared]``."""
    name = parse_spec(spec)[0]
    SOURCES.check_params(spec, params, {"drop", "rows", "domains"})
    drop = tuple(x.strip() for x in params.get("drop", "").split(";") if x.strip())
    rows = None
    if "rows" in params:
        try:
            rows = int(params["rows"])
        except ValueError:
            raise SimstudyError(
                f"source {spec!r}: rows must be an integer, got {params['rows']!r}") from None
    src = BundledSource(name, drop, rows, params.get("domains", "observed"))
    if drop or rows is not None:
        src.sample(None)  # check the attribute names / row count now, at the boundary
    return src


def _register_bundled() -> None:
    """One registry entry per bundled data set, described by its manifest row."""
    m = manifest().set_index("name")
    for n in bundled_names():
        missing = int(m.at[n, "n_missing"])  # the manifest's count, as encode counts them
        SOURCES.register(n, _bundled, description=(
            f"{m.at[n, 'n_instances']} x {m.at[n, 'n_attributes']}, "
            f"{m.at[n, 'n_classes']} classes (bundled UCI)"
            + (f", {missing:,} missing values" if missing else "")))


_register_bundled()
