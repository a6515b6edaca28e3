"""Every committed page a reader sees, written again from the committed tables.

:func:`generate` returns what each generated page should read, from the files under the
repository alone (the CSVs the studies' ``render`` wrote, the paper's reference tables, the
figures' JSON of the benchmarks):

* ``figures/<study>/RESULTS.md``, ``figures/FIDELITY.md``, ``figures/NUMBERS.md``
  (:func:`simstudy.report.prose.render_docs`);
* ``figures/<study>/report.html`` (:func:`simstudy.report.html.rewrite_page`: the tables,
  figures and RESULTS.md beside the page, and the provenance the page carries from the
  store that wrote it);
* the performance sections of ``README.md`` and ``docs/performance.md``
  (:func:`simstudy.report.performance.generated`);
* with ``cards=True``, the example report cards of :data:`CARD_JOBS` (these read the shipped
  trials and take seconds each; a card states its own run time, so it is not compared).

:func:`check` lists the pages whose committed text differs; :func:`write` writes them (into
another directory with ``dest``).  ``python -m simstudy pages [--check]`` is the command.

Hand-written pages (``docs/*.md``, the ``RESULTS.md`` and other ``.md`` files of
``figures/`` that no generator writes) are checked by :func:`unsourced_numbers`: every
number in them with a decimal point must occur in a committed CSV (see
:data:`NUMBER_RULE`).

Examples
--------
>>> from simstudy.report.pages import numbers_in
>>> numbers_in("ours 0.099 vs 0.1 in 2006, 1,000 runs; v3.6.14; ×10.5")
['0.099', '0.1', '10.5']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ..errors import SimstudyError

ROOT = Path(__file__).resolve().parents[2]  # the repository (figures/, README.md, docs/)


@dataclass(frozen=True)
class CardJob:
    """One example report card: the test (``path.py:function``, relative to the
    repository) and the directory its card goes to; studies None: every study of tests
    whose trials ship (:func:`simstudy.trials.shipped_studies`)."""

    test: str
    out: str
    studies: tuple[str, ...] | None = None


#: the example cards under examples/cards (written with ``cards=True``)
CARD_JOBS: tuple[CardJob, ...] = (
    CardJob("examples/pooled_t.py:pooled_t", "examples/cards/pooled_t"),
    CardJob("examples/mcnemar_first_fold.py:mcnemar_first_fold",
            "examples/cards/mcnemar_first_fold"),
)


def generate(root: Path | str = ROOT, *, cards: bool = False) -> dict[Path, str | bytes]:
    """``{path: text}`` of every generated page under ``root`` (nothing is written; a
    card's figures are bytes).

    Examples
    --------
    >>> pages = generate()
    >>> sorted(p.name for p in pages if p.parent.name == "type1-paper")
    ['RESULTS.md', 'report.html']
    """
    from . import performance, prose
    from .html import PAGE_NAME, rewrite_page

    root = Path(root)
    figures = root / "figures"
    if not figures.is_dir():
        raise SimstudyError(f"{str(root)!r} has no figures directory; give the repository")
    out = dict(prose.render_docs(figures))
    for page in sorted(figures.glob(f"*/{PAGE_NAME}")):
        d = page.parent
        md = d / "RESULTS.md"
        results_md = out.get(md, md.read_text() if md.is_file() else "")
        out[page] = rewrite_page(d, results_md)
    out.update(performance.generated(root))
    if cards:
        out.update(card_pages(root))
    return out


def card_pages(root: Path | str = ROOT,
               jobs: Iterable[CardJob] = CARD_JOBS) -> dict[Path, str | bytes]:
    """The example cards, each written to a temporary directory and read back (``card.md``,
    ``card.html``, its CSVs as text, its figures as bytes)."""
    import tempfile

    from ..api import card
    from ..trials import shipped_dirs, shipped_studies
    from .card import write_card

    root = Path(root)
    out: dict[Path, str] = {}
    for job in jobs:
        path, _, fn = job.test.rpartition(":")
        test = f"{root / path}:{fn}"
        tests = set(shipped_studies())  # not the interval studies: no H0/H1 to judge
        c = card(test, list(job.studies) if job.studies else
                 [s for s in shipped_dirs() if s in tests])
        with tempfile.TemporaryDirectory() as tmp:
            for p in write_card(c, Path(tmp)):
                out[root / job.out / p.name] = (p.read_bytes() if p.suffix == ".png"
                                                else p.read_text(encoding="utf-8"))
    return out


def _differs(p: Path, content: str | bytes) -> bool:
    if not p.is_file():
        return True
    if isinstance(content, bytes):
        return p.read_bytes() != content
    return p.read_text(encoding="utf-8") != content


def check(root: Path | str = ROOT) -> list[Path]:
    """The pages whose committed text differs from :func:`generate`'s (the example cards
    are not compared: each states the seconds it took)."""
    return [p for p, text in generate(root).items() if _differs(p, text)]


def write(root: Path | str = ROOT, dest: Path | str | None = None, *,
          cards: bool = False) -> list[Path]:
    """Write every generated page that differs (under ``dest`` instead of ``root`` when
    given, at the same relative path; there every page is written); returns the paths."""
    root = Path(root)
    written = []
    for p, text in generate(root, cards=cards).items():
        target = p if dest is None else Path(dest) / p.relative_to(root)
        if dest is None and not _differs(p, text):
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")
        written.append(target)
    return written


def copies_differ(root: Path | str = ROOT) -> list[str]:
    """The tables committed twice (``SAME_TABLES`` of ``studies/__init__.py``) whose copy
    no longer holds its source's values, as ``"copy.csv != source.csv: columns"``."""
    import simstudy.studies as studies

    figures = Path(root) / "figures"
    out = []
    for copy, source in studies.SAME_TABLES:
        a, b = (pd.read_csv(figures / f"{x}.csv") for x in (copy, source))
        cols = [c for c in b.columns if c in a.columns]
        bad = (cols if len(a) != len(b) else
               [c for c in cols if not a[c].equals(b[c])])
        if bad:
            out.append(f"{copy}.csv != {source}.csv: {', '.join(map(str, bad))}")
    return out


# --- numbers on hand-written pages ----------------------------------------------------------

#: The rule :func:`unsourced_numbers` applies, as the docs state it.
NUMBER_RULE = (
    "a number with a decimal point (0.099, 10.5, 2.83) on a hand-written page is a result "
    "and must equal, to the digits printed, a value of a committed CSV in the page's scope: "
    "for a page under figures/<dir>/, the CSVs of that directory, of the pilots "
    "(figures/pilots/), of the paper's reference tables (studies/reference/) and of every "
    "other figures/<name> the page names; for docs/ and README.md, every committed CSV and "
    "the benchmarks' committed JSON (figures/*.json).  A "
    "value matches as printed (rounded to the digits shown) or as a percentage of a "
    "proportion (6.54 for 0.0654).  Not results: integers (years, run and cell counts, "
    "table numbers), version numbers (3.6.14: two or more dots), a run's own costs (a number "
    "followed by a unit of time or memory: 5.23 s, 7.15 worker-hours, 2.59 GB; speed claims "
    "are generated from the benchmarks' files instead), numbers in code (inline "
    "code spans, fenced blocks), numbers inside generated sections (checked by their "
    "generator), and the settings and thresholds of NUMBER_ALLOW")

#: numbers the hand-written pages state that are settings or thresholds, not results
NUMBER_ALLOW: frozenset[str] = frozenset({
    "0.05", "0.01", "0.1", "0.5", "0.95", "0.99", "0.9", "2.0", "1.0", "0.0",
})

_NUM = re.compile(r"(?<![\w.])(\d+\.\d+)(?!\w|\.\d)(?!\s?(?:s|ms|µs|us|min|h|GB|MB|KB|"
                  r"worker-hours|CPU-hours)\b)")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_VERSION = re.compile(r"\d+(?:\.\d+){2,}")
_GENERATED = re.compile(r"^<!-- (?:generated: [\w.\-]+|performance:begin) -->$.*?"
                        r"^<!-- (?:end generated|performance:end) -->$", re.S | re.M)
_FIGURES_DIR = re.compile(r"figures/([\w.\-]+)")


def _blank(m: re.Match) -> str:
    return "\n" * m.group(0).count("\n")


def numbers_in(text: str) -> list[str]:
    """The result-like numbers of ``text`` under :data:`NUMBER_RULE` (code, versions and
    integers left out), as printed."""
    text = _CODE.sub(_blank, text)
    text = _VERSION.sub(" ", text)
    return _NUM.findall(text)


def _values(files: Iterable[Path]) -> set[str]:
    """Every numeric value of ``files`` (CSVs, JSON), as the strings a page may print it:
    rounded to 1..8 decimals, and ×100 (percentages) to 1..4 decimals."""
    out: set[str] = set()
    for f in files:
        for v in _numbers_of(f):
            for scale, digits in ((1.0, range(1, 9)), (100.0, range(1, 5))):
                for k in digits:
                    out.add(f"{abs(v) * scale:.{k}f}")
    return out


def _numbers_of(f: Path) -> set[float]:
    if f.suffix == ".json":
        import json

        def walk(x):
            if isinstance(x, dict):
                for v in x.values():
                    yield from walk(v)
            elif isinstance(x, list):
                for v in x:
                    yield from walk(v)
            elif isinstance(x, int | float) and not isinstance(x, bool):
                yield float(x)

        return set(walk(json.loads(f.read_text(encoding="utf-8"))))
    try:
        df = pd.read_csv(f)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
        return set()
    out: set[float] = set()
    for col in df.columns:
        out |= set(pd.to_numeric(df[col], errors="coerce").dropna().to_numpy(dtype=float)
                   .tolist())
    return out


def _csvs(d: Path) -> list[Path]:
    return sorted(d.glob("*.csv")) if d.is_dir() else []


def hand_written(root: Path | str = ROOT) -> list[Path]:
    """The hand-written Markdown pages: ``README.md``, ``docs/*.md`` and the ``.md`` files
    under ``figures/`` that no generator writes whole (a table's ``.md`` beside its
    ``.csv``, FIDELITY.md, NUMBERS.md and the benchmarks' pages are written by code)."""
    from .prose import SUMMARY_PAGES

    root = Path(root)
    whole = {root / "figures" / n for n in SUMMARY_PAGES}
    pages = [root / "README.md", *sorted(root.glob("docs/*.md"))]
    for p in sorted(root.glob("figures/**/*.md")):
        if "/trials/" in p.as_posix() or p in whole or p.with_suffix(".csv").is_file():
            continue
        if p.with_suffix(".json").is_file() or p.name in ("REPRODUCE.md",
                                                          "REPRODUCE-intervals.md",
                                                          "reproduce-estimate.md"):
            continue
        pages.append(p)
    return [p for p in pages if p.is_file()]


def unsourced_numbers(root: Path | str = ROOT,
                      pages: Iterable[Path] | None = None) -> list[tuple[str, int, str]]:
    """``(page, line, number)`` of every number on a hand-written page that no committed
    CSV of the page's scope holds (:data:`NUMBER_RULE`)."""
    root = Path(root)
    figures = root / "figures"
    shared = _csvs(figures / "pilots") + _csvs(root / "studies" / "reference")
    every = [f for f in figures.glob("**/*.csv") if "/trials/" not in f.as_posix()]
    every += sorted(figures.glob("*.json"))
    cache: dict[Path, set[str]] = {}

    def values(files: list[Path]) -> set[str]:
        out: set[str] = set()
        for f in files:
            if f not in cache:
                cache[f] = _values([f])
            out |= cache[f]
        return out

    bad = []
    for page in (hand_written(root) if pages is None else pages):
        text = _GENERATED.sub(_blank, page.read_text(encoding="utf-8"))
        rel = page.relative_to(root)
        if rel.parts[0] == "figures" and len(rel.parts) > 2:
            dirs = {rel.parts[1], *_FIGURES_DIR.findall(text)}
            scope = shared + [f for d in sorted(dirs) for f in _csvs(figures / d)]
        else:
            scope = shared + every
        ok = values(scope) | NUMBER_ALLOW
        for i, line in enumerate(_CODE.sub(_blank, text).splitlines(), 1):
            for num in numbers_in(line):
                if num not in ok:
                    bad.append((rel.as_posix(), i, num))
    return bad
