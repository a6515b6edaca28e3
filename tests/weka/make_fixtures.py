"""Regenerate the Weka oracle fixtures (needs Weka 3.6.14 + Java; run ``nox -s weka-fixtures``).

For each data set below and each of ``SEEDS``: a random 66/34 train/test split of the rows
(both index lists sorted ascending), both parts written as ARFF by
:func:`simstudy.perf.arff.to_arff` (so Weka reads exactly the attributes, domains
and values our Weka learners see; a bundled set is encoded over the declared domains of
the ARFF Weka users run where ``DOMAINS.json`` records them, ``[domains=declared]``), Weka's NaiveBayes, J48 ``-C 0.25 -M 2`` and IB1 run with
``-t train.arff -T test.arff -p 0``, and the predicted class indices (Weka's value index =
our class code) stored with the row indices, the ARFF texts' sha256 and the Weka version in
``fixtures/<set>.json``.  Weka classifies the test rows in file order, i.e. in ascending row
index (this matters for IB1, which widens its min/max ranges with every test instance).

Weka's own files: for a set Debian's weka package ships (``/usr/share/doc/weka/examples``),
Weka must read our ARFF as it reads its own file (same attributes, declared values in
order, class order and instances; ours may lack a constant numeric attribute), and Weka's
cross-validation of its own file must give exactly the folds and predictions of its
cross-validation of ours; the file's sha256 is stored (``wekas_file``).

The suite (``tests/test_learners_weka.py``, ``tests/test_learners_j48.py``) reads the JSON
files only; :func:`load_fixtures` and :func:`fixture_dataset` are its entry points.

``binary9`` is not bundled: 300 rows of 9 binary attributes and a binary class drawn here
from a fixed seed (a naive-Bayes structure plus a chain among attributes, the shape of
Bouckaert & Frank's Table 5 data); its rows are stored in the fixture itself.

Weka's own cross-validation (``fixtures_cv/<set>.json``): for each set and each of
``CV_SEEDS``, 10-fold cv as Weka's Experimenter runs it (``WekaCV.java``: randomize with
``new Random(seed)``, stratify, ``trainCV(k, f, random)`` -- which shuffles each training
fold -- and ``testCV``), the three learners' predictions per fold in Weka's test order, and a
digest of the folds' row orders.  :func:`weka_cv_folds` re-derives those orders in Python
(``java.util.Random`` and Weka's ``randomize``/``stratify``/``trainCV``); the suite checks the
digest and that our learners, fed the rows in Weka's order, predict what Weka predicted.

Also written: ``normal_probability.json`` (Weka's normal CDF, exact bits), ``weka_sort.json``
(Weka's quicksort, whose order NaiveBayes sums in) and ``fixtures_edge/edge.json`` (40 small
random tables with ties, missing values, constant columns, large offsets and tiny spreads,
stored in the file; one split each).

Usage: ``python tests/weka/make_fixtures.py [--weka /usr/share/java/weka.jar] [SET ...]``
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
FIXTURES = HERE / "fixtures"
SETS = (
    "vote", "credit-g", "crx", "iris", "labor", "breast-cancer", "hepatitis", "soybean",
    "glass", "heart-h", "horse-colic", "diabetes", "ionosphere", "binary9",
)
SEEDS = (0, 1, 2)
TRAIN_FRACTION = 0.66
# our learner name -> (Weka class, options)
LEARNERS = {
    "wnb": ("weka.classifiers.bayes.NaiveBayes", []),
    "j48": ("weka.classifiers.trees.J48", ["-C", "0.25", "-M", "2"]),
    "ib1": ("weka.classifiers.lazy.IB1", []),
}
#: our learner spec that must reproduce each key's fixture predictions: Weka read the
#: training rows in file order, so IB1's ties went to the first row (``ib1[ties=order]``)
SPEC = {"wnb": "wnb", "j48": "j48", "ib1": "ib1[ties=order]"}
_INST = re.compile(r"^\s*(\d+)\s+(.*)$")
_INDEX = re.compile(r"(?:^|\s)(\d+|\?):")  # "k:label" (labels may contain spaces)


def binary9_rows() -> tuple[np.ndarray, np.ndarray]:
    """The ``binary9`` table: (300, 9) attributes in {0, 1} and (300,) classes in {0, 1}."""
    rng = np.random.default_rng(20041)
    n, d = 300, 9
    y = rng.integers(0, 2, n)
    p1 = rng.uniform(0.15, 0.85, (2, d))  # P(x_j = 1 | class)
    X = np.empty((n, d), dtype=np.int64)
    for j in range(d):
        p = p1[y, j]
        if j % 3 == 2:  # every third attribute also copies its left neighbour a third of the time
            p = np.where(rng.random(n) < 1 / 3, X[:, j - 1], p)
        X[:, j] = (rng.random(n) < p).astype(np.int64)
    return X, y


def _binary9_dataset(X: np.ndarray, y: np.ndarray):
    import pandas as pd

    from simstudy.sources.encode import encode

    df = pd.DataFrame({f"b{j + 1}": [str(v) for v in X[:, j]] for j in range(X.shape[1])})
    df["class"] = [str(v) for v in y]
    return encode(df, "binary9", nominal=list(df.columns[:-1]))


def domains_mode(name: str) -> str:
    """How a fixture set is encoded: over the declared domains of the ARFF Weka users run
    (``DOMAINS.json``) where they are recorded, as Weka reads that file."""
    from simstudy.sources.bundled import declared_domains

    return "declared" if name in declared_domains() else "observed"


def dataset(name: str, domains: str | None = None):
    """Our :class:`~simstudy.core.Dataset` for a fixture set name."""
    if name == "binary9":
        return _binary9_dataset(*binary9_rows())
    from simstudy.sources.bundled import load_bundled

    return load_bundled(name, domains=domains or domains_mode(name))


def fixture_dataset(fx: dict[str, Any]):
    """The Dataset a fixture file describes (``binary9`` from the rows stored in it)."""
    if "rows" in fx:
        X = np.array([[int(c) for c in r] for r in fx["rows"]["X"]], dtype=np.int64)
        y = np.array([int(c) for c in fx["rows"]["y"]], dtype=np.int64)
        return _binary9_dataset(X, y)
    return dataset(fx["dataset"], fx.get("domains", "observed"))


# --- Weka's own files (Debian's weka examples) -------------------------------------------
EXAMPLES = Path("/usr/share/doc/weka/examples")


def wekas_file(name: str) -> Path | None:
    """Weka's own ARFF of a fixture set, where Debian's weka package ships one."""
    p = EXAMPLES / f"{name}.arff"
    return p if p.is_file() else None


def check_same_as_wekas_file(jar: str, name: str, data) -> str:
    """Weka reads our ARFF of ``data`` as it reads its own file: the same attributes (ours
    may lack a constant numeric one), kinds, declared values in order, class order and
    instances.  Returns the file's sha256; raises when they differ."""
    from make_domains import weka_read

    from simstudy.perf.arff import to_arff

    own = wekas_file(name)
    with tempfile.TemporaryDirectory() as tmp:
        ours_p = Path(tmp) / "ours.arff"
        ours_p.write_text(to_arff(data), encoding="utf-8")
        w, o = weka_read(jar, [own, ours_p])
    by_name = {n: j for j, n in enumerate(o.names[:-1])}
    for j, n in enumerate(w.names):
        k = len(o.names) - 1 if j == len(w.names) - 1 else by_name.get(n)
        col_w = [r[j] for r in w.rows]
        if k is None:  # dropped on loading: must be a constant number
            if w.kinds[j] != "numeric" or len(set(col_w)) != 1:
                raise RuntimeError(f"{name}: Weka's attribute {n!r} is missing from ours")
            continue
        if (w.kinds[j], w.values[j]) != (o.kinds[k], o.values[k]):
            raise RuntimeError(f"{name}: attribute {n!r} declared differently: "
                               f"{w.kinds[j], w.values[j]} vs ours {o.kinds[k], o.values[k]}")
        if col_w != [r[k] for r in o.rows]:
            raise RuntimeError(f"{name}: attribute {n!r} has other values than Weka's file")
    return _file_sha256(own)


def _file_sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


def load_fixtures(directory: Path = FIXTURES) -> list[dict[str, Any]]:
    """All fixture files, parsed, sorted by data set name."""
    return [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]


def split(name: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Sorted train and test row indices of split ``seed`` of set ``name``."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, zlib.crc32(name.encode())]))
    perm = rng.permutation(n)
    k = int(round(TRAIN_FRACTION * n))
    return np.sort(perm[:k]), np.sort(perm[k:])


def learner_info() -> dict[str, dict[str, str]]:
    """Each fixture key's Weka class and options, as stored in the fixture files."""
    return {k: {"weka_class": c, "options": " ".join(o)} for k, (c, o) in LEARNERS.items()}


def _stored_rows(name: str) -> dict[str, Any]:
    """``binary9``'s rows, stored in its fixtures (the others are bundled data sets)."""
    if name != "binary9":
        return {}
    X, y = binary9_rows()
    return {"rows": {"X": ["".join(str(v) for v in r) for r in X], "y": "".join(str(v) for v in y)}}


def weka_version(jar: str) -> str:
    out = subprocess.run(["java", "-cp", jar, "weka.core.Version"], capture_output=True,
                         text=True, check=True, timeout=120).stdout
    return out.split()[0]


def run_weka(jar: str, cls: str, options: list[str], train: Path, test: Path, n_test: int) -> list[int]:
    """Weka's predicted class indices (0-based) for the test file's rows, in file order."""
    cmd = ["java", "-cp", jar, cls, *options, "-t", str(train), "-T", str(test), "-p", "0"]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if res.returncode != 0 or "Predictions on test data" not in res.stdout:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stdout}\n{res.stderr}")
    body = res.stdout.split("Predictions on test data", 1)[1]
    preds: list[int] = []
    for line in body.splitlines():
        m = _INST.match(line)
        if not m:
            continue
        found = _INDEX.findall(m.group(2))  # actual, predicted
        if len(found) < 2:
            raise RuntimeError(f"{cls}: cannot parse prediction line {line!r}")
        preds.append(-1 if found[1] == "?" else int(found[1]) - 1)
    if len(preds) != n_test:
        raise RuntimeError(f"{cls}: parsed {len(preds)} predictions for {n_test} test rows")
    return preds


def make(name: str, jar: str, version: str) -> dict[str, Any]:
    from simstudy.perf.arff import sha256, to_arff

    data = dataset(name)
    if any(_INDEX.search(" " + c) for c in data.classes):
        raise RuntimeError(f"{name}: a class label looks like Weka's 'k:' prefix: {data.classes!r}")
    own = wekas_file(name)
    fx: dict[str, Any] = {
        "dataset": name,
        "domains": "observed" if name == "binary9" else domains_mode(name),
        "weka_version": version,
        "train_fraction": TRAIN_FRACTION,
        "n": data.n,
        "classes": list(data.classes),
        "learners": learner_info(),
        "splits": [],
    }
    fx.update(_stored_rows(name))
    if own is not None:
        fx["wekas_file"] = {"path": str(own), "sha256": check_same_as_wekas_file(jar, name, data)}
    with tempfile.TemporaryDirectory() as tmp:
        for seed in SEEDS:
            tr, te = split(name, data.n, seed)
            a_tr, a_te = to_arff(data, tr), to_arff(data, te)
            p_tr, p_te = Path(tmp) / "train.arff", Path(tmp) / "test.arff"
            p_tr.write_text(a_tr, encoding="utf-8")
            p_te.write_text(a_te, encoding="utf-8")
            entry: dict[str, Any] = {
                "seed": seed,
                "train": tr.tolist(),
                "test": te.tolist(),
                "sha256_train": sha256(a_tr),
                "sha256_test": sha256(a_te),
                "pred": {},
            }
            for key, (cls, opts) in LEARNERS.items():
                entry["pred"][key] = run_weka(jar, cls, opts, p_tr, p_te, len(te))
            fx["splits"].append(entry)
    return fx


_PHI_JAVA = """
import java.io.*;
public class Phi {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = r.readLine()) != null) {
      double z = Double.longBitsToDouble(Long.parseUnsignedLong(line.trim(), 16));
      double p = weka.core.Statistics.normalProbability(z);
      System.out.println(Long.toHexString(Double.doubleToRawLongBits(p)));
    }
  }
}
"""


def phi_points() -> np.ndarray:
    """Where Weka's normalProbability is tabulated: a grid over [-40, 40], the branch points
    of its erf/erfc (|z| = 1, sqrt 2, 8 sqrt 2) and their neighbours, and random points."""
    rng = np.random.default_rng(1972)
    edges = np.array([1.0, np.sqrt(2.0), 8.0 * np.sqrt(2.0), 37.7, 38.5])
    edges = np.concatenate([edges, np.nextafter(edges, 0), np.nextafter(edges, 99)])
    z = np.concatenate([np.linspace(-40, 40, 801), edges, -edges, rng.normal(0, 3, 300),
                        rng.uniform(-12, 12, 300), [0.0]])
    return z


def make_phi(jar: str, version: str) -> dict[str, Any]:
    """Weka's ``Statistics.normalProbability`` at :func:`phi_points` (exact bits, hex)."""
    z = phi_points()
    inp = "\n".join(f"{v.view(np.uint64):016x}" for v in z) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "Phi.java"
        src.write_text(_PHI_JAVA)
        res = subprocess.run(["java", "-cp", jar, str(src)], input=inp, capture_output=True,
                             text=True, timeout=300, check=True)
    out = res.stdout.split()
    if len(out) != len(z):
        raise RuntimeError(f"Phi.java printed {len(out)} values for {len(z)} inputs")
    return {"weka_version": version, "function": "weka.core.Statistics.normalProbability",
            "z_bits": [f"{v.view(np.uint64):016x}" for v in z], "phi_bits": out}


# --- edge cases: small random tables with ties, missing values, constant columns, large
# offsets and tiny spreads (where NaiveBayes' variances are mostly rounding error)
EDGE = HERE / "fixtures_edge"
EDGE_SEEDS = tuple(range(1180, 1220))
_KINDS = ("nom", "int", "dec", "wide", "const", "tiny", "half")


def edge_table(seed: int) -> dict[str, Any]:
    """One random table: ``columns`` (name -> values, ``None`` = missing), ``nominal``
    (names), sorted ``train``/``test`` rows."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 60))
    A = int(rng.integers(1, 7))
    K = int(rng.integers(2, 5))
    cols: dict[str, list] = {}
    nominal: list[str] = []
    for a in range(A):
        miss = rng.random(n) < rng.choice([0, 0.1, 0.4])
        kind = str(rng.choice(_KINDS))
        if kind == "nom":
            v = rng.integers(0, int(rng.integers(2, 5)), n).astype(str).astype(object)
            nominal.append(f"a{a}")
        elif kind == "int":
            v = rng.integers(0, 5, n).astype(float)
        elif kind == "dec":
            v = np.round(rng.normal(0, 1, n), 1)
        elif kind == "wide":
            v = rng.normal(0, 1, n) * 10 ** rng.uniform(-3, 6)
        elif kind == "tiny":
            v = 5 + rng.normal(0, 1e-7, n)
        elif kind == "half":
            v = rng.integers(-6, 6, n) * 0.5 + 1e12 * (rng.random() < 0.3)
        else:
            v = np.full(n, 3.7)
        cols[f"a{a}"] = [None if m else (x if kind == "nom" else float(x)) for x, m in zip(v, miss, strict=True)]
    y = rng.integers(0, K, n).astype(str)
    if len(set(y)) < 2:
        y[0], y[1] = "0", "1"
    cols["class"] = [str(c) for c in y]
    perm = rng.permutation(n)
    ntr = int(rng.integers(1, n))
    return {"seed": seed, "columns": cols, "nominal": nominal,
            "train": np.sort(perm[:ntr]).tolist(), "test": np.sort(perm[ntr:]).tolist()}


def edge_dataset(case: dict[str, Any]):
    """The Dataset of an edge case (constant attributes kept: Weka sees them too)."""
    import pandas as pd

    from simstudy.sources.encode import encode

    return encode(pd.DataFrame(case["columns"]), f"edge{case['seed']}", nominal=case["nominal"],
                  drop_constant=False)


def make_edge(jar: str, version: str) -> dict[str, Any]:
    from simstudy.perf.arff import sha256, to_arff

    cases = []
    with tempfile.TemporaryDirectory() as tmp:
        for seed in EDGE_SEEDS:
            case = edge_table(seed)
            data = edge_dataset(case)
            a_tr, a_te = to_arff(data, case["train"]), to_arff(data, case["test"])
            p_tr, p_te = Path(tmp) / "train.arff", Path(tmp) / "test.arff"
            p_tr.write_text(a_tr, encoding="utf-8")
            p_te.write_text(a_te, encoding="utf-8")
            case.update(sha256_train=sha256(a_tr), sha256_test=sha256(a_te), pred={})
            for key, (cls, opts) in LEARNERS.items():
                case["pred"][key] = run_weka(jar, cls, opts, p_tr, p_te, len(case["test"]))
            cases.append(case)
    return {"weka_version": version, "learners": learner_info(), "cases": cases}


def load_edge() -> dict[str, Any]:
    return json.loads((EDGE / "edge.json").read_text())


# --- Weka's quicksort (NaiveBayes sums its moments in the order it leaves)
_SORT_JAVA = """
import java.io.*;
public class WSort {
  public static void main(String[] a) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
    String line;
    while ((line = r.readLine()) != null) {
      String t = line.trim();
      String[] p = t.isEmpty() ? new String[0] : t.split(" ");
      double[] v = new double[p.length];
      for (int i = 0; i < p.length; i++) v[i] = Double.longBitsToDouble(Long.parseUnsignedLong(p[i], 16));
      int[] idx = weka.core.Utils.sortWithNoMissingValues(v);
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < idx.length; i++) { if (i > 0) b.append(' '); b.append(idx[i]); }
      System.out.println(b);
    }
  }
}
"""


def sort_inputs() -> list[np.ndarray]:
    """Arrays to sort: heavy ties, sorted and reversed runs, Double.MAX_VALUE (missing)."""
    rng = np.random.default_rng(36)
    out = [np.array([]), np.array([1.0]), np.array([2.0, 1.0]), np.array([3.0, 1.0, 2.0])]
    for k in range(56):
        n = int(rng.integers(2, 120))
        v = rng.integers(0, int(rng.integers(1, 8)), n).astype(float)
        if k % 4 == 1:
            v = np.sort(v)
        elif k % 4 == 2:
            v = np.sort(v)[::-1].copy()
        elif k % 4 == 3:
            v[rng.random(n) < 0.3] = np.finfo(float).max
        out.append(v)
    return out


def make_sort(jar: str, version: str) -> dict[str, Any]:
    arrays = sort_inputs()
    inp = "\n".join(" ".join(f"{x.view(np.uint64):016x}" for x in v) for v in arrays) + "\n"
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "WSort.java"
        src.write_text(_SORT_JAVA)
        res = subprocess.run(["java", "-cp", jar, str(src)], input=inp, capture_output=True,
                             text=True, timeout=300, check=True)
    lines = res.stdout.split("\n")[: len(arrays)]
    return {"weka_version": version, "function": "weka.core.Utils.sortWithNoMissingValues",
            "values": [v.tolist() for v in arrays],
            "index": [[int(t) for t in ln.split()] for ln in lines]}


# --- Weka's own cross-validation (the Experimenter's CrossValidationResultProducer) -------
FIXTURES_CV = HERE / "fixtures_cv"
CV_JAVA = HERE / "WekaCV.java"
CV_SEEDS = (1, 2)
CV_FOLDS = 10


class JavaRandom:
    """``java.util.Random``'s 48-bit linear congruential generator, as far as Weka's
    ``Instances.randomize`` uses it (``nextInt(bound)``)."""

    MULT, ADD, MASK = 0x5DEECE66D, 0xB, (1 << 48) - 1

    def __init__(self, seed: int) -> None:
        self.state = (seed ^ self.MULT) & self.MASK

    def _next(self, bits: int) -> int:
        self.state = (self.state * self.MULT + self.ADD) & self.MASK
        return self.state >> (48 - bits)

    def next_int(self, bound: int) -> int:
        if bound & -bound == bound:  # a power of two: the high bits
            return (bound * self._next(31)) >> 31
        while True:  # rejection of the last partial block (Java's int overflow test)
            bits = self._next(31)
            val = bits % bound
            if bits - val + bound - 1 < 1 << 31:
                return val


def weka_randomize(a: list[int], rnd: JavaRandom) -> None:
    """``Instances.randomize``: ``for j = n-1 .. 1: swap(j, nextInt(j + 1))``, in place."""
    for j in range(len(a) - 1, 0, -1):
        i = rnd.next_int(j + 1)
        a[j], a[i] = a[i], a[j]


def weka_stratify(a: list[int], y: np.ndarray, k: int) -> list[int]:
    """``Instances.stratify(k)``: group by class in order of first appearance (Weka's swap
    loop, literally), then ``stratStep``: every k-th instance from offsets 0, 1, ..."""
    a = list(a)
    index = 1
    while index < len(a):
        c = y[a[index - 1]]
        for j in range(index, len(a)):
            if y[a[j]] == c:
                a[index], a[j] = a[j], a[index]
                index += 1
        index += 1
    return [r for start in range(k) for r in a[start::k]]


def weka_cv_folds(y: np.ndarray, k: int, seed: int) -> list[tuple[list[int], list[int]]]:
    """Rows of each fold of Weka's Experimenter cross-validation with run seed ``seed``:
    (training rows in the order the classifier sees them, test rows in classification
    order)."""
    n = len(y)
    rnd = JavaRandom(seed)
    a = list(range(n))
    weka_randomize(a, rnd)
    a = weka_stratify(a, y, k)
    folds = []
    for f in range(k):  # Instances.trainCV / testCV: contiguous blocks, the first n % k larger
        size = n // k + (f < n % k)
        first = f * (n // k) + min(f, n % k)
        train = a[:first] + a[first + size:]
        weka_randomize(train, rnd)  # trainCV(k, f, random)
        folds.append((train, a[first:first + size]))
    return folds


def cv_orders_digest(folds: list[tuple[list[int], list[int]]]) -> str:
    """sha256 of a run's fold orders, one line per fold: training rows | test rows."""
    import hashlib

    text = "\n".join(" ".join(map(str, tr)) + " | " + " ".join(map(str, te)) for tr, te in folds)
    return hashlib.sha256(text.encode()).hexdigest()


def run_weka_cv(jar: str, arff: Path, k: int, seeds: str, mode: str,
                learners: str = "wnb,j48,ib1", timeout: float = 3600) -> list[list[str]]:
    """One JVM running ``WekaCV.java``: its output lines, split into fields."""
    cmd = ["java", "-cp", jar, str(CV_JAVA), str(arff), str(k), seeds, mode, learners]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{res.stderr}")
    return [ln.split() for ln in res.stdout.splitlines() if ln.strip()]


def make_cv(name: str, jar: str, version: str) -> dict[str, Any]:
    """Weka's Experimenter cross-validation of set ``name``: predictions and order digests."""
    from simstudy.perf.arff import sha256, to_arff

    data = dataset(name)
    text = to_arff(data)
    own = wekas_file(name)
    fx: dict[str, Any] = {
        "dataset": name, "domains": "observed" if name == "binary9" else domains_mode(name),
        "weka_version": version, "n": data.n, "k": CV_FOLDS,
        "sha256_arff": sha256(text), "spec": SPEC,
        "learners": learner_info(),
        "runs": [],
    }
    fx.update(_stored_rows(name))
    with tempfile.TemporaryDirectory() as tmp:
        arff = Path(tmp) / "data.arff"
        arff.write_text(text, encoding="utf-8")
        lines = run_weka_cv(jar, arff, CV_FOLDS, ",".join(map(str, CV_SEEDS)), "trace")
        if own is not None:  # Weka's cross-validation of its own file: the same folds and
            # predictions (the file's rows are ours, in the same order)
            if run_weka_cv(jar, own, CV_FOLDS, ",".join(map(str, CV_SEEDS)), "trace") != lines:
                raise RuntimeError(f"{name}: Weka's cv of its own file differs from ours")
            fx["wekas_file"] = {"path": str(own), "sha256": _file_sha256(own)}
    for seed in CV_SEEDS:
        folds: list[tuple[list[int], list[int]]] = []
        preds: list[dict[str, list[int]]] = []
        for f in range(CV_FOLDS):
            at = [ln for ln in lines if ln[1] == str(seed) and ln[2] == str(f)]
            tr = [int(v) for ln in at if ln[0] == "T" for v in ln[3:]]
            te = [int(v) for ln in at if ln[0] == "E" for v in ln[3:]]
            folds.append((tr, te))
            preds.append({ln[3]: [int(v) for v in ln[4:]] for ln in at if ln[0] == "P"})
        if weka_cv_folds(data.y, CV_FOLDS, seed) != folds:
            raise RuntimeError(f"{name}, seed {seed}: weka_cv_folds differs from Weka's folds")
        fx["runs"].append({"seed": seed, "sha256_orders": cv_orders_digest(folds), "pred": preds})
    return fx


def load_cv_fixtures(directory: Path = FIXTURES_CV) -> list[dict[str, Any]]:
    """All Weka cross-validation fixtures, parsed, sorted by data set name."""
    return [json.loads(p.read_text()) for p in sorted(directory.glob("*.json"))]


def _dump(fx: dict[str, Any]) -> str:
    # one split list per line: small diffs, readable files
    text = json.dumps(fx, indent=1, sort_keys=True)
    return re.sub(r"\[\s+([-\d,\s]+?)\s+\]", lambda m: "[" + re.sub(r"\s+", "", m.group(1)).replace(",", ", ") + "]", text) + "\n"


def make_general(jar: str, version: str) -> None:
    """The fixtures no data set enters: Weka's normal CDF, its sort and the edge cases."""
    (HERE / "normal_probability.json").write_text(json.dumps(make_phi(jar, version)) + "\n")
    print("normal_probability.json: Weka's normal CDF at", len(phi_points()), "points")
    (HERE / "weka_sort.json").write_text(json.dumps(make_sort(jar, version)) + "\n")
    print("weka_sort.json: Weka's quicksort on", len(sort_inputs()), "arrays")
    EDGE.mkdir(parents=True, exist_ok=True)
    edge = make_edge(jar, version)
    head = json.dumps({k: v for k, v in edge.items() if k != "cases"}, sort_keys=True)[:-1]
    (EDGE / "edge.json").write_text(  # one case a line
        head + ', "cases": [\n' + ",\n".join(json.dumps(c, sort_keys=True) for c in edge["cases"])
        + "\n]}\n")
    print(f"fixtures_edge/edge.json: {len(EDGE_SEEDS)} random edge-case tables")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sets", nargs="*", default=list(SETS))
    ap.add_argument("--weka", default="/usr/share/java/weka.jar")
    ap.add_argument("--sets-only", action="store_true",
                    help="only the data sets' fixtures, not the normal CDF, sort and edge cases")
    args = ap.parse_args(argv)
    if not Path(args.weka).exists():
        print(f"Weka not found at {args.weka!r}; install Debian's 'weka' package", file=sys.stderr)
        return 2
    version = weka_version(args.weka)
    FIXTURES.mkdir(parents=True, exist_ok=True)
    if not args.sets_only:
        make_general(args.weka, version)
    for name in args.sets:
        fx = make(name, args.weka, version)
        (FIXTURES / f"{name}.json").write_text(_dump(fx))
        print(f"{name}: {len(fx['splits'])} splits, n={fx['n']}, Weka {version}", flush=True)
    FIXTURES_CV.mkdir(parents=True, exist_ok=True)
    for name in args.sets:
        fx = make_cv(name, args.weka, version)
        (FIXTURES_CV / f"{name}.json").write_text(_dump(fx))
        print(f"fixtures_cv/{name}.json: Weka's {CV_FOLDS}-fold cv, seeds {CV_SEEDS}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
