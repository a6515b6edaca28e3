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
    repository) and the directory its card goes to; studies None: the card's default."""

    test: str
    out: str
    studies: tuple[str, ...] | None = None


#: the example cards under examples/cards (written with ``cards=True``)
CARD_JOBS: tuple[CardJob, ...] = (
    CardJob("examples/pooled_t.py:pooled_t", "examples/cards/pooled_t"),
    CardJob("examples/mcnemar_first_fold.py:mcnemar_first_fold",
            "examples/cards/mcnemar_first_fold"),
)


def generate(root: Path | str = ROOT, *, cards: bool = False) -> dict[Path, str]:
    """``{path: text}`` of every generated page under ``root`` (nothing is written).

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
               jobs: Iterable[CardJob] = CARD_JOBS) -> dict[Path, str]:
    """The example cards, each written to a temporary directory and read back as text
    (``card.md``, ``card.html``, its CSVs)."""
    import tempfile

    from ..api import card
    from .card import write_card

    root = Path(root)
    out: dict[Path, str] = {}
    for job in jobs:
        path, _, fn = job.test.rpartition(":")
        test = f"{root / path}:{fn}"
        c = card(test, list(job.studies) if job.studies else None)
        with tempfile.TemporaryDirectory() as tmp:
            for p in write_card(c, Path(tmp), figures=False):
                if p.suffix in (".md", ".html", ".csv"):
                    out[root / job.out / p.name] = p.read_text(encoding="utf-8")
    return out


def check(root: Path | str = ROOT, *, cards: bool = False) -> list[Path]:
    """The pages whose committed text differs from :func:`generate`'s."""
    return [p for p, text in generate(root, cards=cards).items()
            if not p.is_file() or p.read_text(encoding="utf-8") != text]


def write(root: Path | str = ROOT, dest: Path | str | None = None, *,
          cards: bool = False) -> list[Path]:
    """Write every generated page that differs (under ``dest`` instead of ``root`` when
    given, at the same relative path; there every page is written); returns the paths."""
    root = Path(root)
    written = []
    for p, text in generate(root, cards=cards).items():
        target = p if dest is None else Path(dest) / p.relative_to(root)
        if dest is None and p.is_file() and p.read_text(encoding="utf-8") == text:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
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
    "and must equal, to the digits printed, a value of some committed CSV (figures/, "
    "studies/reference/, the pilots' CSVs): as printed, or as a proportion printed as a "
    "percentage (6.54 % for 0.0654); integers (years, run and cell counts, table numbers), "
    "version numbers (3.6.14: two or more dots) and numbers inside code spans or fenced code "
    "are not results; a line may name a non-result number it states (a setting, a "
    "threshold) in NUMBER_ALLOW")

#: numbers the hand-written pages state that are settings or thresholds, not results
NUMBER_ALLOW: frozenset[str] = frozenset({
    "0.05", "0.01", "0.1", "0.5", "0.95", "0.99", "0.9", "2.0", "1.0", "0.0",
})

_NUM = re.compile(r"(?<![\w.])(\d+\.\d+)(?![\w.]*\.\d)(?![\w])")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.S)
_VERSION = re.compile(r"\d+(?:\.\d+){2,}")


def numbers_in(text: str) -> list[str]:
    """The result-like numbers of ``text`` under :data:`NUMBER_RULE` (code, versions and
    integers left out), as printed."""
    text = _CODE.sub(" ", text)
    text = _VERSION.sub(" ", text)
    return _NUM.findall(text)


def csv_values(root: Path | str = ROOT) -> set[str]:
    """Every numeric value of the committed CSVs, as the strings a page may print it:
    rounded to 1..6 decimals, and ×100 (percentages) to 1..4 decimals."""
    root = Path(root)
    out: set[str] = set()
    files = [*root.glob("figures/**/*.csv"), *root.glob("studies/reference/*.csv")]
    for f in files:
        if "/trials/" in f.as_posix():
            continue
        try:
            df = pd.read_csv(f)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError):
            continue
        for col in df.columns:
            vals = pd.to_numeric(df[col], errors="coerce").dropna().to_numpy(dtype=float)
            for v in set(vals.tolist()):
                for scale, digits in ((1.0, range(1, 7)), (100.0, range(1, 5))):
                    for k in digits:
                        out.add(f"{abs(v) * scale:.{k}f}")
    return out


def hand_written(root: Path | str = ROOT) -> list[Path]:
    """The hand-written Markdown pages: ``docs/*.md`` and the ``.md`` files under
    ``figures/`` that no generator writes (a table's ``.md`` beside its ``.csv``, the
    generated pages and the benchmarks' pages are written by code)."""
    root = Path(root)
    generated = set(generate_names(root))
    pages = sorted(root.glob("docs/*.md"))
    for p in sorted(root.glob("figures/**/*.md")):
        if "/trials/" in p.as_posix() or p.with_suffix(".csv").is_file():
            continue
        if p in generated or p.with_suffix(".json").is_file():
            continue
        pages.append(p)
    return pages


def generate_names(root: Path | str = ROOT) -> list[Path]:
    """The whole pages :func:`generate` writes (RESULTS.md pages mix generated sections
    with hand-written text, so they are not among these)."""
    from .prose import SUMMARY_PAGES

    root = Path(root)
    return [root / "figures" / n for n in SUMMARY_PAGES] + [
        root / "figures" / "REPRODUCE.md", root / "figures" / "reproduce-estimate.md"]


def unsourced_numbers(root: Path | str = ROOT,
                      pages: Iterable[Path] | None = None) -> list[tuple[str, int, str]]:
    """``(page, line, number)`` of every number on a hand-written page that no committed
    CSV holds (:data:`NUMBER_RULE`).  RESULTS.md pages are checked outside their generated
    sections only."""
    from .prose import parse

    root = Path(root)
    values = csv_values(root) | NUMBER_ALLOW
    bad = []
    for page in (hand_written(root) if pages is None else pages):
        text = page.read_text(encoding="utf-8")
        if "<!-- generated: " in text:
            text = "\n".join(p[2] if p[0] == "text" else "\n" * p[2].count("\n")
                             for p in parse(text))
        for i, line in enumerate(text.splitlines(), 1):
            for num in numbers_in(line):
                if num not in values and num.rstrip("0").rstrip(".") not in values:
                    bad.append((str(page.relative_to(root)), i, num))
    return bad
