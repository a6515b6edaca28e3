"""Turn a table (attributes + a ``class`` column) into a :class:`~simstudy.core.Dataset`.

Rules (the same for bundled, user and OpenML data):

* numeric attributes → float64 columns, missing → ``nan``;
* nominal attributes (string columns, plus any named in ``nominal``) → one indicator column
  per category, categories sorted (numerically when every category reads as a number, else
  as text), or in their declared order when ``declared_order``; a missing value is ``nan``
  in all the attribute's indicator columns;
  ``nominal_groups`` holds the indicator column indices of each nominal attribute;
* attributes that are missing in every row, or constant and never missing, are dropped
  when ``drop_constant`` (the default): no learner can use them and they break
  standardisation; their names are kept in ``meta["dropped"]`` (a single value plus
  missing values is kept: presence vs. absence may be informative); with
  ``declared_order`` a nominal attribute counts its declared values, not the observed ones
  (Weka's naive Bayes divides by the domain size, so a declared but unused value matters);
* missing attribute values (empty, ``?``, or a literal ``NaN`` in a file) stay missing:
  ``nan`` for each learner to handle as its definition says (the papers' data sets rely on
  that), unless ``missing_as`` makes them a declared value; their count is
  ``meta["n_missing_values"]`` (per attribute, before encoding);
* rows without a class label are refused, with their count, unless ``unlabelled="drop"``
  (a source's ``[unlabelled=drop]``), which drops them (``meta["n_missing_class"]``);
* ``y`` = codes ``0..C-1`` over the sorted class labels (same sort rule), or over
  ``classes`` when given (declared order, unused classes included), ``classes`` the label
  strings.  ``meta["n_attributes"]`` is the number of attributes *before* encoding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..core import Dataset
from ..errors import SimstudyError

#: what a source may do with rows that have no class label (``[unlabelled=...]``)
UNLABELLED = ("refuse", "drop")
#: the texts a data file may write for a missing value: empty, ``?`` and a literal NaN
MISSING_TEXT = ("", "?", "NaN", "nan", "NAN")


def unlabelled_param(spec: str, params: dict[str, str]) -> str:
    """A source's ``[unlabelled=...]``: ``"refuse"`` (not given) or ``"drop"``."""
    value = params.get("unlabelled", "refuse")
    if value not in UNLABELLED:
        raise SimstudyError(f"source {spec!r}: unlabelled must be one of "
                            f"{', '.join(map(repr, UNLABELLED))}, got {value!r}")
    return value


def _as_text(v: object) -> str:
    if isinstance(v, bytes):
        v = v.decode()
    if isinstance(v, float) and v.is_integer():
        return str(int(v))  # an integer code read as float (because of nan) prints as "3"
    return str(v).strip()


def sort_labels(labels: Iterable[str]) -> list[str]:
    """Sort category/class labels numerically if they all read as numbers, else as text."""
    labels = list(dict.fromkeys(labels))
    try:
        return sorted(labels, key=float)
    except ValueError:
        return sorted(labels)


def _text_column(s: pd.Series) -> pd.Series:
    """Column as stripped strings with ``None`` for missing (empty or ``?``)."""
    out = s.map(lambda v: None if pd.isna(v) else _as_text(v))
    return out.map(lambda v: None if v in MISSING_TEXT else v)


def _useless(n_values: int, any_missing: bool) -> bool:
    # all missing, or one value and never missing; one value *with* missing values is kept:
    # "present vs missing" can carry information (anneal's 'not applicable' flags, and
    # Weka's 1-NN counts a missing nominal as a mismatch)
    return n_values == 0 or (n_values == 1 and not any_missing)


def encode(
    df: pd.DataFrame,
    name: str,
    *,
    label: str = "class",
    nominal: Iterable[str] = (),
    domains: Mapping[str, Sequence[str]] | None = None,
    classes: Sequence[str] | None = None,
    declared_order: bool = False,
    missing_as: Mapping[str, str] | None = None,
    drop_constant: bool = True,
    meta: Mapping[str, object] | None = None,
    unlabelled: str = "refuse",
) -> Dataset:
    """Encode ``df`` (attribute columns + the ``label`` column) as a :class:`Dataset`.

    ``nominal`` forces columns to be treated as nominal (integer-coded categories);
    ``domains`` gives declared category lists (ARFF) to one-hot over instead of the
    observed ones, sorted unless ``declared_order``; ``classes`` the declared class
    labels, in code order (unused ones included); ``missing_as`` names attributes whose
    missing cells are a value of their own (Weka's anneal.arff declares its "not applicable"
    ``'?'`` as a value).  ``unlabelled``: ``"refuse"`` rows without a class label (the
    default) or ``"drop"`` them.  Raises :class:`SimstudyError` for no label column,
    unlabelled rows (unless dropped), no rows, no attributes, fewer than two classes, or a
    value outside its declared domain.

    Examples
    --------
    >>> import pandas as pd
    >>> df = pd.DataFrame({"a": ["lo", "hi", "lo"], "class": ["yes", "no", "yes"]})
    >>> d = encode(df, "t", domains={"a": ["lo", "mid", "hi"]}, classes=["yes", "no"],
    ...            declared_order=True)
    >>> d.feature_names, d.classes, d.y.tolist()
    (('a=lo', 'a=mid', 'a=hi'), ('yes', 'no'), [0, 1, 0])
    """
    where = f" in {meta['path']!r}" if meta and "path" in meta else ""
    if label not in df.columns:
        raise SimstudyError(f"data set {name!r}: no class column {label!r}{where}")
    domains = dict(domains or {})
    nominal = set(nominal) | set(domains)
    unknown_nominal = nominal - set(df.columns)
    if unknown_nominal:
        raise SimstudyError(
            f"data set {name!r}: nominal attributes {sorted(unknown_nominal)!r} not in the table"
        )
    if unlabelled not in UNLABELLED:
        raise SimstudyError(f"unlabelled must be one of {', '.join(map(repr, UNLABELLED))}, "
                            f"got {unlabelled!r}")
    ylab = _text_column(df[label])
    keep = ylab.notna().to_numpy()
    if not keep.all() and unlabelled == "refuse":
        n = int((~keep).sum())
        spec = f"{meta['path']}" if meta and "path" in meta else name
        raise SimstudyError(
            f"data set {name!r}: {n} of {len(keep)} rows have no class label (empty, '?' or "
            f"NaN){where}, e.g. row {int(np.flatnonzero(~keep)[0]) + 1}; label them, or "
            f"drop them with the source '{spec}[unlabelled=drop]'")
    df, ylab = df.loc[keep], ylab[keep]
    if len(df) == 0:
        raise SimstudyError(f"data set {name!r}: no instances with a class label{where}")
    if classes is None:
        classes = sort_labels(ylab)
    else:
        classes = [_as_text(c) for c in classes]
        extra = set(ylab) - set(classes)
        if extra:
            raise SimstudyError(
                f"data set {name!r}: class labels {sorted(extra)!r} outside the declared "
                f"classes {classes!r}{where}"
            )
    if len(classes) < 2:
        raise SimstudyError(
            f"data set {name!r}: needs at least 2 classes, found {classes!r}{where}"
        )
    code = {c: i for i, c in enumerate(classes)}
    y = ylab.map(code).to_numpy(dtype=np.int64)

    attrs = [c for c in df.columns if c != label]
    if not attrs:
        raise SimstudyError(f"data set {name!r}: no attribute columns besides {label!r}{where}")
    blocks: list[np.ndarray] = []
    names: list[str] = []
    groups: list[tuple[int, ...]] = []
    dropped: list[str] = []
    n_missing = 0
    for a in attrs:
        col = df[a]
        is_nominal = a in nominal or not pd.api.types.is_numeric_dtype(col)
        if is_nominal:
            txt = _text_column(col)
            if missing_as and a in missing_as:
                txt = txt.fillna(missing_as[a])
            n_missing += int(txt.isna().sum())
            observed = sort_labels(txt.dropna())
            if a not in domains:
                cats = observed
            elif declared_order:
                cats = list(dict.fromkeys(_as_text(v) for v in domains[a]))
            else:
                cats = sort_labels(_as_text(v) for v in domains[a])
            extra = set(observed) - set(cats)
            if extra:
                raise SimstudyError(
                    f"data set {name!r}: attribute {a!r} has values {sorted(extra)!r} "
                    f"outside its declared domain{where}"
                )
            size = len(cats) if declared_order and a in domains else len(observed)
            if drop_constant and _useless(size, bool(txt.isna().any())):
                dropped.append(a)
                continue
            ind = txt.to_numpy(dtype=object)[:, None] == np.array(cats, dtype=object)[None, :]
            ind = ind.astype(np.float64)
            ind[txt.isna().to_numpy()] = np.nan
            start = sum(b.shape[1] for b in blocks)
            groups.append(tuple(range(start, start + len(cats))))
            blocks.append(ind)
            names.extend(f"{a}={c}" for c in cats)
        else:
            x = pd.to_numeric(col, errors="coerce").to_numpy(dtype=np.float64)
            miss = np.isnan(x)
            n_missing += int(miss.sum())
            if drop_constant and _useless(np.unique(x[~miss]).size, bool(miss.any())):
                dropped.append(a)
                continue
            blocks.append(x[:, None])
            names.append(str(a))
    if not blocks:
        raise SimstudyError(f"data set {name!r}: every attribute is constant or missing{where}")
    X = np.ascontiguousarray(np.hstack(blocks), dtype=np.float64)
    X.flags.writeable = False  # shared by every trial of a process: nobody may modify it
    y.flags.writeable = False
    info = dict(meta or {})
    info.update(n_attributes=len(attrs), dropped=tuple(dropped), n_missing_class=int((~keep).sum()),
                n_missing_values=n_missing)
    return Dataset(
        name=name,
        X=X,
        y=y,
        classes=tuple(classes),
        feature_names=tuple(names),
        nominal_groups=tuple(groups),
        meta=info,
    )
