"""Write ``simstudy/sources/data/DOMAINS.json``: each bundled set's nominal domains and class
order as declared by the ARFF file Weka users run (needs Java and Weka 3.6.14's jar).

Weka reads every ARFF (``ArffDump.java``: attributes with their declared values, and the
instances), so what is recorded is what Weka sees, not what a Python parser makes of the
file.

* The ten sets Debian's ``weka`` package ships in ``/usr/share/doc/weka/examples`` (credit-g,
  breast-cancer, diabetes, glass, ionosphere, iris, labor, soybean, vote, and segment as
  ``segment-challenge`` + ``segment-test``): every declared domain and the class order are
  recorded, and the bundled CSV must hold exactly Weka's instances (same rows in the same
  order, every nominal value the same text, every number the same double; segment: the same
  multiset of rows, the bundled copy being KEEL's).  A set whose rows differ is an error.
* The other sets the Weka-based studies use, from the UCI collection Weka distributes
  (``datasets-UCI``), read from public copies of it (``--uci DIR``: ``<weka name>.arff``;
  copies that Weka filters rewrote keep the nominal attributes' declarations).  Only the
  class and the attributes the bundled CSV also treats as nominal are recorded, and only when
  every bundled value maps onto a declared one: the same text, the same number ("0500" =
  "500"), the same letters ignoring case and separators, a close spelling (UCI's
  "esophasus" = "esophagus"), the initial letter ("M" = "Mine"), or, when exactly one value
  is left on each side, that pair.  Attributes whose bundled values are integer codes of
  the ARFF's words need the data set's code book and are left as they are; the notes of
  each entry list what was and was not carried over.

Values are written as the bundled file's tokens, in the ARFF's declared order; declared
values the data never use are written as the ARFF spells them.

Usage: ``python tests/weka/make_domains.py [--weka JAR] [--examples DIR] [--uci DIR]``
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
DATA = ROOT / "simstudy" / "sources" / "data"
OUT = DATA / "DOMAINS.json"
DUMP_JAVA = HERE / "ArffDump.java"

#: bundled name -> file(s) in Debian's weka examples
DEBIAN = {n: (f"{n}.arff",) for n in (
    "breast-cancer", "credit-g", "diabetes", "glass", "ionosphere", "iris", "labor",
    "soybean", "vote")}
DEBIAN["segment"] = ("segment-challenge.arff", "segment-test.arff")

#: bundled name -> Weka's datasets-UCI file name, for the other sets of the Weka-based study
UCI = {
    "anneal": "anneal", "arrhythmia": "arrhythmia", "audiology": "audiology",
    "autos": "autos", "balance-scale": "balance-scale", "breast-w": "breast-w",
    "crx": "credit-a", "ecoli": "ecoli", "heart-h": "heart-h",
    "heart-statlog": "heart-statlog", "hepatitis": "hepatitis", "horse-colic": "colic",
    "lymphography": "lymph", "primary-tumor": "primary-tumor", "sonar": "sonar",
    "vehicle": "vehicle", "vowel": "vowel", "zoo": "zoo",
}


#: where the ``--uci`` copies were taken from (public repositories holding Weka's
#: datasets-UCI files, some rewritten by Weka filters, whose nominal declarations survive)
UCI_COPIES = {
    **{f: "jinhao-byte/DistanceMetric@d98407e data/" + f + ".arff (Weka-filtered: "
          "ReplaceMissingValues, Discretize)" for f in (
        "anneal", "ecoli", "heart-h", "heart-statlog", "hepatitis", "lymph", "primary-tumor",
        "sonar", "vehicle", "vowel", "zoo")},
    **{f: "speas038/K-Nearest-Neighbor@1514104 " + f + ".arff (Weka-filtered: Randomize, "
          "Normalize)" for f in (
        "audiology", "autos", "balance-scale", "breast-w", "colic", "credit-a")},
    "arrhythmia": "RMiguelRivero/machine_learning@662f87f arrhythmia.arff (data edited, "
                  "header Weka's)",
}
#: anneal's '?' is a value in Weka's file: the unfiltered copy in speas038/K-Nearest-Neighbor
#: has no missing cell (checked when the entry was made), the filtered one replaced them


@dataclass
class Table:
    """An ARFF file as Weka read it."""

    path: str
    names: list[str] = field(default_factory=list)
    kinds: list[str] = field(default_factory=list)
    values: list[list[str]] = field(default_factory=list)  # declared values (nominal)
    rows: list[list[str]] = field(default_factory=list)


def _unesc(s: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"t": "\t", "n": "\n"}.get(m.group(1), m.group(1)), s)


def weka_read(jar: str, paths: list[Path]) -> list[Table]:
    """The files as Weka 3.6 reads them (one JVM for all)."""
    res = subprocess.run(["java", "-cp", jar, str(DUMP_JAVA), *map(str, paths)],
                         capture_output=True, text=True, timeout=900, encoding="utf-8")
    if res.returncode != 0:
        raise RuntimeError(f"ArffDump failed:\n{res.stderr}")
    out: list[Table] = []
    for line in res.stdout.splitlines():
        f = [_unesc(x) for x in line.split("\t")]
        if f[0] == "F":
            out.append(Table(f[1]))
        elif f[0] == "A":
            t = out[-1]
            t.names.append(f[1])
            t.kinds.append(f[2])
            t.values.append(f[3:])
        elif f[0] == "I":
            out[-1].rows.append(f[1:])
    return out


def _number(hexbits: str) -> float:
    return float(np.array([int(hexbits, 16)], dtype=np.uint64).view(np.float64)[0])


def weka_frame(t: Table) -> pd.DataFrame:
    """Weka's instances as text (nominal) and floats (numeric), missing = None / nan."""
    cols = {}
    for j, kind in enumerate(t.kinds):
        col = [r[j] for r in t.rows]
        if kind == "numeric":
            cols[j] = [np.nan if v == "?" else _number(v) for v in col]
        else:
            cols[j] = [None if v == "?" else v for v in col]
    return pd.DataFrame(cols)


def bundled_frame(name: str, nominal: set[str]) -> pd.DataFrame:
    df = pd.read_csv(DATA / f"{name}.csv.gz", dtype=str, keep_default_na=False)
    out = {}
    for j, c in enumerate(df.columns):
        col = df[c]
        if c in nominal or c == "class":
            out[j] = [None if v in ("", "?") else v for v in col]
        else:
            out[j] = [np.nan if v in ("", "?") else float(v) for v in col]
    return pd.DataFrame(out)


def _nominal_columns(name: str) -> set[str]:
    m = pd.read_csv(DATA / "MANIFEST.csv", dtype=str, keep_default_na=False).set_index("name")
    out: set[str] = set()
    for col in ("nominal_attributes", "integer_coded_categorical_attributes"):
        v = m.at[name, col]
        out |= set() if v in ("", "none") else set(v.split(";"))
    df = pd.read_csv(DATA / f"{name}.csv.gz", nrows=50, keep_default_na=False, na_values=[""])
    out |= {c for c in df.columns if c != "class" and not pd.api.types.is_numeric_dtype(df[c])}
    return out


def _rows_key(df: pd.DataFrame) -> list[tuple]:
    return sorted(tuple("?" if (v is None or (isinstance(v, float) and np.isnan(v))) else
                        repr(v) for v in r) for r in df.itertuples(index=False))


def _close_rows(a: pd.DataFrame, b: pd.DataFrame, numeric: list[bool]) -> bool:
    """Same rows up to order by the columns that are whole numbers in both copies and the
    nominal ones (the other numbers are rounded differently in the two copies)."""
    whole = [j for j, num in enumerate(numeric) if not num or all(
        float(v).is_integer() for df in (a, b) for v in df[j] if not pd.isna(v))]

    def key(df: pd.DataFrame) -> list[tuple]:
        return sorted(tuple(str(r[j]) for j in whole) for r in df.itertuples(index=False))
    return len(a) == len(b) and len(whole) > 1 and key(a) == key(b)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def debian_entry(name: str, tables: list[Table], files: list[Path]) -> dict:
    t0 = tables[0]
    for t in tables[1:]:
        if (t.names, t.kinds, t.values) != (t0.names, t0.kinds, t0.values):
            raise RuntimeError(f"{name}: the files' headers differ")
    nominal = _nominal_columns(name)
    bundle = pd.read_csv(DATA / f"{name}.csv.gz", dtype=str, keep_default_na=False, nrows=1)
    cols = list(bundle.columns)
    if len(cols) != len(t0.names) or cols[:-1] != t0.names[:-1]:
        raise RuntimeError(f"{name}: attributes {cols!r} are not Weka's {t0.names!r}")
    kinds_ok = all((t0.kinds[j] == "nominal") == (c in nominal or c == "class")
                   for j, c in enumerate(cols))
    if not kinds_ok:
        raise RuntimeError(f"{name}: nominal/numeric attributes differ from Weka's")
    weka = pd.concat([weka_frame(t) for t in tables], ignore_index=True)
    ours = bundled_frame(name, nominal)
    if len(tables) == 1:
        same = all(ours[j].tolist() == weka[j].tolist() if t0.kinds[j] == "nominal" else
                   np.array_equal(ours[j].to_numpy(float), weka[j].to_numpy(float), equal_nan=True)
                   for j in range(len(cols)))
        how = "the same instances in the same order"
    else:  # segment: KEEL's copy, 6 decimals where Weka's has 6 significant digits
        same = _close_rows(ours, weka, [k == "numeric" for k in t0.kinds])
        how = ("the same instances, in another order and with the non-integer numbers "
               "rounded differently (matched by the integer attributes and the class)")
    if not same:
        raise RuntimeError(f"{name}: the bundled rows are not Weka's")
    attrs = {c: t0.values[j] for j, c in enumerate(cols[:-1]) if t0.kinds[j] == "nominal"}
    unused = {c: [v for v in attrs[c] if v not in set(ours[cols.index(c)].dropna())]
              for c in attrs}
    unused = {c: u for c, u in unused.items() if u}
    classes = t0.values[-1]
    unused_cl = [v for v in classes if v not in set(ours[len(cols) - 1].dropna())]
    notes = [f"Weka reads {how} as the bundled file"]
    if unused:
        notes.append("declared but unused: " + "; ".join(f"{c} {u}" for c, u in unused.items()))
    if unused_cl:
        notes.append(f"declared but unused classes: {unused_cl}")
    return {
        "source": "Debian package weka 3.6.14-3, " + " + ".join(
            f"usr/share/doc/weka/examples/{f.name} (sha256 {_sha(f)})" for f in files),
        "class": classes, "attributes": attrs, "notes": notes,
    }


def _norm(s: str) -> str:
    return re.sub(r"[^a-z0-9]", "", s.lower())


def token_map(observed: list[str], declared: list[str]) -> dict[str, str] | None:
    """Bundled token -> declared value, or None when some bundled value has no unambiguous
    partner (see the module docstring for the rules, tried in order)."""
    out: dict[str, str] = {}
    left = [v for v in declared]
    for rule in ("same", "number", "letters", "close", "initial"):
        for o in [o for o in observed if o not in out]:
            if rule == "same":
                hits = [d for d in left if d == o]
            elif rule == "number":
                try:
                    hits = [d for d in left if _isnum(d) and float(d) == float(o)]
                except ValueError:
                    hits = []
            elif rule == "letters":
                hits = [d for d in left if _norm(d) == _norm(o)]
            elif rule == "close":
                hits = difflib.get_close_matches(o, left, n=2, cutoff=0.8)
                hits = hits[:1] if len(hits) == 1 or (len(hits) > 1 and difflib.SequenceMatcher(
                    None, o, hits[0]).ratio() > difflib.SequenceMatcher(None, o, hits[1]).ratio()) else []
            else:
                hits = [d for d in left if len(o) == 1 and d[:1].lower() == o.lower()]
            if len(hits) == 1:
                out[o] = hits[0]
                left.remove(hits[0])
    rest = [o for o in observed if o not in out]
    if len(rest) == 1 and len(left) == 1 and not _isnum(rest[0]):
        out[rest[0]] = left[0]
        rest = []
    return None if rest else out


def _isnum(s: str) -> bool:
    try:
        float(s)
        return True
    except ValueError:
        return False


def uci_entry(name: str, t: Table, path: Path) -> dict:
    nominal = _nominal_columns(name)
    bundle = pd.read_csv(DATA / f"{name}.csv.gz", dtype=str, keep_default_na=False)
    cols = list(bundle.columns)
    if len(cols) != len(t.names):
        raise RuntimeError(f"{name}: {len(cols)} columns, the ARFF {len(t.names)} attributes")
    attrs: dict[str, list[str]] = {}
    carried, kept, maps = [], [], []
    missing_as: dict[str, str] = {}
    numeric: list[str] = []
    classes = None
    for j, c in enumerate(cols):
        is_class = j == len(cols) - 1
        if not (is_class or c in nominal):
            continue
        observed = sorted(set(bundle[c]) - {"", "?"})
        declared = t.values[j]
        if t.kinds[j] != "nominal" or (not is_class and _discretized(declared)):
            numeric.append(c)
            continue
        mp = token_map(observed, declared)
        if mp is None or any(_isnum(o) and not _isnum(mp[o]) for o in mp):
            kept.append(f"{c} (bundled codes {observed[:6]}{'...' if len(observed) > 6 else ''} "
                        f"vs declared {declared[:6]}{'...' if len(declared) > 6 else ''})")
            continue
        back = {d: o for o, d in mp.items()}
        vals = [back.get(d, d) for d in declared]
        if "?" in declared and not is_class and (bundle[c].isin(["", "?"])).any():
            missing_as[c] = "?"  # a declared value '?': Weka's anneal ('not applicable')
        if len(set(vals)) != len(vals):
            kept.append(f"{c} (an unused declared value spells a bundled one)")
            continue
        renamed = {o: d for o, d in mp.items() if o != d}
        if renamed:
            maps.append(f"{c}: " + ", ".join(f"{o}={d}" for o, d in renamed.items()))
        if is_class:
            classes = vals
        else:
            attrs[c] = vals
            carried.append(c)
    notes = [f"nominal domains from the ARFF: {len(carried)} attribute(s)"
             + (f" ({', '.join(carried)})" if carried else "")]
    if classes is not None:
        notes.append("class order from the ARFF")
    if kept:
        notes.append("left as bundled: " + "; ".join(kept))
    if maps:
        notes.append("bundled value = ARFF value: " + "; ".join(maps))
    if numeric:
        notes.append("numeric in the ARFF, integer-coded categories in the bundled file: "
                     + ", ".join(numeric))
    if missing_as:
        notes.append("the ARFF declares '?' as a value of " + ", ".join(missing_as) + ": the "
                     "bundled file's missing cells there are that value")
    entry = {"source": f"Weka datasets-UCI {path.name}, the nominal declarations of "
                       f"{UCI_COPIES[path.stem]} (sha256 {_sha(path)[:16]}...)",
             "attributes": attrs, "notes": notes}
    if classes is not None:
        entry["class"] = classes
    if missing_as:
        entry["missing_as"] = missing_as
    if numeric:
        entry["numeric"] = numeric
    return entry


def _discretized(values: list[str]) -> bool:
    """Interval names Weka's Discretize gives a numeric attribute ('(-inf-0.5]', 'All')."""
    return all(re.fullmatch(r"'?(\(.*\]|\(.*\)|All)'?", v) for v in values)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--weka", default="/usr/share/java/weka.jar")
    ap.add_argument("--examples", default="/usr/share/doc/weka/examples")
    ap.add_argument("--uci", default=None, help="directory of datasets-UCI .arff copies")
    args = ap.parse_args(argv)
    ex = Path(args.examples)
    jobs: list[tuple[str, str, list[Path]]] = [
        (n, "debian", [ex / f for f in fs]) for n, fs in DEBIAN.items()]
    if args.uci:
        jobs += [(n, "uci", [Path(args.uci) / f"{f}.arff"]) for n, f in UCI.items()
                 if (Path(args.uci) / f"{f}.arff").exists()]
    tables = weka_read(args.weka, [p for _, _, ps in jobs for p in ps])
    sets: dict[str, dict] = {}
    at = 0
    for name, kind, paths in jobs:
        ts, at = tables[at:at + len(paths)], at + len(paths)
        if kind == "debian":
            sets[name] = debian_entry(name, ts, paths)
        else:
            e = uci_entry(name, ts[0], paths[0])
            if e["attributes"] or "class" in e or "numeric" in e:
                sets[name] = e
        print(name, "; ".join(sets[name]["notes"]) if name in sets else "nothing carried")
    doc = {
        "about": "Declared nominal domains and class order of bundled sets, from the ARFF "
                 "file named in 'source' (written by tests/weka/make_domains.py). Values are "
                 "the bundled CSV's tokens in the ARFF's order; declared values the data never "
                 "use are spelled as in the ARFF. Read by simstudy.sources.bundled for "
                 "'<set>[domains=declared]'.",
        "sets": dict(sorted(sets.items())),
    }
    OUT.write_text(json.dumps(doc, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT} ({len(sets)} sets)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
