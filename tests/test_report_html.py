"""The self-contained HTML report, checked by an HTML parser and in headless Chromium.

The site is built the way a user builds it: ``run demo``, ``run type1`` (3 runs, the IRIS
cells), then ``report --all --format html --out site``.  Expected contents come from
independent reads: the CSVs and PNGs the renderers wrote, RESULTS.md, and the store read
with ``sqlite3``.
"""

from __future__ import annotations

import base64
import json
import os
import re
import sqlite3
import sys
from html.parser import HTMLParser
from pathlib import Path

import pandas as pd
import pytest

from simstudy.cli import main
from simstudy.report.html import claim_counts, csv_table_html, markdown_to_html

sys.path.insert(0, str(Path(__file__).parent))
from browser import Chromium, find_chromium  # noqa: E402

STUDIES = ("demo", "type1", "errors")  # errors reuses type1's stored cells


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    root = tmp_path_factory.mktemp("site")
    store = str(root / "store.sqlite")
    assert main(["run", "demo", "--store", store, "--out", str(root / "out" / "demo"),
                 "--backend", "serial", "--no-progress"]) == 0
    assert main(["run", "type1", "--runs", "3", "--filter", "iris/", "--store", store,
                 "--out", str(root / "out" / "type1"), "--backend", "serial",
                 "--no-progress"]) == 0
    assert main(["report", "--all", "--format", "html", "--store", store,
                 "--out", str(root / "site")]) == 0
    return root


class _Page(HTMLParser):
    """Every start tag with its attributes, table ids with their body rows, text by class."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict]] = []
        self.rows: dict[str, int] = {}
        self._table: list[str | None] = []
        self._in_tbody = False
        self.out_cells = 0
        self.verdicts: list[str] = []
        self._verdict: str | None = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if tag == "table":
            self._table.append(a.get("id"))
        elif tag == "tbody":
            self._in_tbody = True
        elif tag == "tr" and self._in_tbody and self._table and self._table[-1]:
            self.rows[self._table[-1]] = self.rows.get(self._table[-1], 0) + 1
        elif tag == "td" and "out" in a.get("class", "").split():
            self.out_cells += 1
        elif tag == "span" and "verdict" in a.get("class", "").split():
            self._verdict = ""

    def handle_endtag(self, tag):
        if tag == "table" and self._table:
            self._table.pop()
        elif tag == "tbody":
            self._in_tbody = False
        elif tag == "span" and self._verdict is not None:
            self.verdicts.append(self._verdict)
            self._verdict = None

    def handle_data(self, data):
        if self._verdict is not None:
            self._verdict += data


def _parse(path: Path) -> _Page:
    p = _Page()
    p.feed(path.read_text(encoding="utf-8"))
    return p


# --- everywhere: the HTML itself ----------------------------------------------------------------

def test_markdown_subset():
    md = ("# t <b>\n\nline one\nline two with `a<b` and **bold**\n\n- **reproduced**: x\n"
          "  - nested *em*\n- **NOT reproduced**: y\n\n| a | b |\n|---|---|\n| 1 | <i> |\n")
    h = markdown_to_html(md, shift=1)
    assert "<h2>t &lt;b&gt;</h2>" in h
    assert "<p>line one line two with <code>a&lt;b</code> and <strong>bold</strong></p>" in h
    assert '<span class="verdict ok">✓ reproduced</span>: x' in h
    assert "<ul><li>" in h and "<ul><li>nested <em>em</em></li></ul>" in h
    assert '<span class="verdict bad">✗ NOT reproduced</span>: y' in h
    assert "<td>&lt;i&gt;</td>" in h and "<i>" not in h and "<b>" not in h
    assert claim_counts(md) == {"reproduced": 1, "partly reproduced": 0, "not reproduced": 1,
                                "rule fails on the paper's own numbers": 0, "not checked": 0}
    assert "<!--" not in markdown_to_html("<!-- generated: x -->\nbody\n<!-- end generated -->")


def test_band_markers_colour_and_symbol(tmp_path):
    df = pd.DataFrame({"cell": ["a", "b", "c", "d"], "paper_t": [0.1, 0.2, 0.3, None],
                       "ours_t": [0.11, 0.5, 0.29, 0.4],
                       "paper_t_in_99": [True, False, True, None],
                       "paper_F": [0.1, 0.1, 0.1, 0.1], "ours_F": [0.9, 0.1, 0.1, 0.1],
                       "paper_F_in_99": [False, True, True, True],
                       "paper": [0.5, 0.5, 0.5, 0.5], "ours": [0.5, 0.7, 0.5, 0.5],
                       "paper_in_spread": [True, False, None, True]})
    p = tmp_path / "t.csv"
    df.to_csv(p, index=False)
    h, counts = csv_table_html(p, table_id="x", caption="cap")
    # the seed-spread flag is counted apart from the 99 % band
    assert counts == {"inside": 5, "outside": 2, "spread_inside": 2, "spread_outside": 1}
    # each outside flag marks itself and its ours cell: row b (t, spread) and row a (F)
    assert len(re.findall(r'<td class="out"', h)) == 6
    assert h.count("✗ outside") == 3 + 2 + 2  # three flag cells; caption and summary keys
    assert re.search(r'<td class="out"[^>]*>✗ 0\.700</td>', h)  # ours of row b (spread)
    assert re.search(r'<td class="out"[^>]*>✗ 0\.500</td>', h)  # ours_t of row b
    assert re.search(r'<td class="out"[^>]*>✗ 0\.900</td>', h)  # ours_F of row a
    assert h.count("✓ inside") == 5 + 2
    assert re.search(r'data-v="">–</td>', h)  # no paper value: no verdict


def test_runs_range_one_value_or_the_range_of_a_partly_run_study():
    from simstudy.report.style import runs_range

    assert runs_range([1000, 1000]) == "1000"
    assert runs_range(pd.Series([738, 200, 500])) == "200–738"
    assert runs_range([5000, 1000], " to ") == "1000 to 5000"
    assert runs_range([]) == ""


def test_figure_style_and_runs_caption(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from simstudy.report.compare import savefig
    from simstudy.report.html import png_text
    from simstudy.report.style import OKABE_ITO, figure_style, runs_caption

    before = matplotlib.rcParams["axes.prop_cycle"]
    with figure_style():
        fig, ax = plt.subplots()
        (line,) = ax.plot([0, 1], [0, 1])
        assert line.get_color() == OKABE_ITO[0]
        fig.suptitle("Fig. X:\n a test")
        paths = savefig(fig, tmp_path, "f", runs=runs_caption(20, 1000))
    assert matplotlib.rcParams["axes.prop_cycle"] == before
    meta = png_text(paths[0])
    assert meta["Title"] == "Fig. X: a test"
    assert meta["Description"] == "20 runs per cell (the paper: 1000; a small run, not the paper's scale)"
    assert runs_caption(1000, 1000) == "1000 runs per cell (the paper: 1000)"
    assert paths[1].read_bytes().startswith(b"%PDF")


def test_pages_parse(site):
    s = site / "site"
    for name in STUDIES:
        assert (s / name / "report.html").is_file()
    index = _parse(s / "index.html")
    links = [a["href"] for t, a in index.tags if t == "a"]
    # every registered study with a cell in the store has a page (errors and the paper-variant
    # paper variants reuse type1's cells); read the store directly to know which
    from simstudy.catalog import STUDIES as REGISTERED
    from simstudy.catalog import get_study

    con = sqlite3.connect(site / "store.sqlite")
    stored = {r[0] for r in con.execute("SELECT DISTINCT cell FROM trials")}
    want = [n for n in REGISTERED if {c.id for c in get_study(n).cells} & stored]
    assert set(STUDIES) <= set(want)
    assert sorted(links) == sorted(f"{n}/report.html" for n in want)
    for page in [s / "index.html", *(s / n / "report.html" for n in want)]:
        p = _parse(page)
        for tag, attrs in p.tags:
            for k in ("src", "href", "srcset", "action", "data"):
                v = attrs.get(k) or ""
                assert "http://" not in v and "https://" not in v, (page, tag, k, v[:80])
            assert tag not in ("link", "iframe", "object", "embed"), (page, tag)
            if tag == "script":
                assert "src" not in attrs
            if tag == "img":
                assert attrs.get("alt", "").strip(), (page, "img without alt text")
                assert attrs["src"].startswith("data:image/png;base64,")
        text = page.read_text()
        assert "@import" not in text and "url(" not in text


def test_type1_page_contents(site):
    d = site / "site" / "type1"
    p = _parse(d / "report.html")
    csvs = {c.name: pd.read_csv(c) for c in sorted(d.glob("*.csv"))}
    assert set(csvs) == {"table3_type1.csv"}
    t3 = csvs["table3_type1.csv"]
    assert p.rows["t0"] == len(t3) == 15  # the paper's 15 rows of Table 3
    flags = t3[["paper_t_in_99", "paper_F_in_99"]]
    n_false = int((flags == False).sum().sum())  # noqa: E712 - NaN is neither
    assert p.out_cells == 2 * n_false  # the flag cell and its 'ours' cell
    # the figure is the renderer's PNG, byte for byte
    imgs = [a for t, a in p.tags if t == "img"]
    assert len(imgs) == 1
    png = base64.b64decode(imgs[0]["src"].split(",", 1)[1])
    assert png == (d / "figure1.png").read_bytes()
    assert "3 runs per cell" in imgs[0]["alt"]  # the caption says how small the run is
    # claims: one badge per verdict in RESULTS.md (plus the three summary counters)
    c = claim_counts((d / "RESULTS.md").read_text())
    body = [v for v in p.verdicts if not re.fullmatch(r"[✓✗?] \d+", v)]
    assert body.count("✓ reproduced") == c["reproduced"]
    assert body.count("✗ NOT reproduced") == c["not reproduced"]
    assert len(body) == sum(c.values()) > 0


def test_provenance_from_the_store(site):
    con = sqlite3.connect(site / "store.sqlite")
    impl = {p for (v,) in con.execute("SELECT DISTINCT impl FROM trials WHERE study='demo'")
            for p in json.loads(v)}
    runs = con.execute("SELECT id, started, finished FROM runs WHERE study='demo'").fetchall()
    con.close()
    html = (site / "site" / "demo" / "report.html").read_text()
    assert impl and all(f"<code>{p}</code>" in html for p in impl)
    assert "root seed</th><td>0<" in html  # demo's seed
    assert f"{(runs[0][2] - runs[0][1]):.1f} s" in html
    assert str((site / "store.sqlite").resolve()) in html
    # what the last bits depend on besides the code: numba's target and the BLAS kernels
    from simstudy.provenance import blas_kernels, compile_target

    assert f"(numba target {compile_target()}; BLAS {blas_kernels()})" in html
    t1 = (site / "site" / "type1" / "report.html").read_text()
    assert "root seed</th><td>1999<" in t1 and "runs per cell</th><td>3<" in t1
    assert "a small run" in t1


def test_run_writes_the_page(site):
    page = site / "out" / "demo" / "report.html"
    assert page.is_file()
    assert _parse(page).rows["t0"] == len(pd.read_csv(site / "out" / "demo" / "demo.csv"))


def test_report_one_study_html(site, tmp_path, capsys):
    out = tmp_path / "t1"
    assert main(["report", "type1", "--format", "html", "--store", str(site / "store.sqlite"),
                 "--out", str(out)]) == 0
    wrote = [ln.split(" ", 1)[1] for ln in capsys.readouterr().out.splitlines()]
    assert wrote[-1] == str(out / "report.html")
    assert {Path(w).name for w in wrote} >= {"table3_type1.csv", "figure1.png", "RESULTS.md"}
    p = _parse(out / "report.html")
    assert p.rows["t0"] == 15 and sum(t == "img" for t, _ in p.tags) == 1


@pytest.mark.parametrize("args", [["report", "--format", "html"],
                                  ["report", "--all", "--format", "md"],
                                  ["report", "demo", "--all", "--format", "html"]])
def test_report_all_bad_input(args, site, capsys):
    assert main([*args, "--store", str(site / "store.sqlite")]) == 2
    assert capsys.readouterr().err.count("\n") == 1


# --- in a real browser ------------------------------------------------------------------------

FACTS = """(() => {
  const tables = Array.from(document.querySelectorAll('table')).map(t => ({
      id: t.id, rows: t.tBodies.length ? t.tBodies[0].rows.length : 0}));
  const images = Array.from(document.images).map(i => ({
      w: i.naturalWidth, h: i.naturalHeight, complete: i.complete, alt: i.alt}));
  let sorted = null;
  const t = document.querySelector('table.sortable');
  const heads = t ? Array.from(t.tHead.rows[0].cells) : [];
  const k = heads.findIndex(h => ['proportion', 'ours_t', 'runs per cell'].includes(h.textContent));
  if (k >= 0) {
    heads[k].click();
    const v = Array.from(t.tBodies[0].rows).map(r => r.cells[k].getAttribute('data-v'))
        .filter(x => x !== null && x !== '').map(Number);
    sorted = {n: v.length, ok: v.every((x, i) => i === 0 || v[i - 1] <= x),
              state: heads[k].getAttribute('aria-sort')};
  }
  return {title: document.title, tables, images, sorted,
          h1: document.querySelector('h1').textContent};
})()"""


def _browser() -> str:
    exe = find_chromium()
    if exe is None:
        pytest.skip("no Chromium on PATH (Debian: apt-get install chromium); the browser "
                    "check did not run")
    pytest.importorskip("websockets", reason="the 'websockets' package (test extra) is missing; "
                                             "the browser check did not run")
    return exe


def _check_page(browser: Chromium, page: Path, name: str, shots: Path) -> dict:
    """Load one page; no console error, no request leaves file:/data:, every image decoded,
    sorting works, a non-blank screenshot, and each table has its CSV's rows."""
    from PIL import Image

    r = browser.load(page, FACTS)
    assert r.errors == [], (name, r.errors)
    assert r.requests and all(u.startswith(("file:", "data:")) for u in r.requests), \
        (name, r.requests)
    f = r.facts
    assert f["h1"] == ("simstudy reports" if name == "index" else name)
    for im in f["images"]:
        assert im["complete"] and im["w"] > 0 and im["h"] > 0 and im["alt"], (name, im)
    if f["sorted"] is not None:
        assert f["sorted"]["ok"] and f["sorted"]["state"] == "ascending", (name, f)
    shot = shots / f"report_{name}.png"
    shot.write_bytes(r.screenshot)
    with Image.open(shot) as im:
        assert im.size[0] == 1280 and im.size[1] > 300
        assert len(im.convert("L").getcolors(1 << 16) or []) > 20  # not a blank page
    if name == "index":
        assert "studies" in {t["id"] for t in f["tables"]}
        return f
    d = page.parent
    by_id = {t["id"]: t["rows"] for t in f["tables"]}
    shown = _csv_order(page)
    assert shown, name
    for i, c in enumerate(shown):
        assert by_id[f"t{i}"] == len(pd.read_csv(d / c)), (name, c)
    pngs = re.findall(r"<figcaption><code>([^<]+\.png)</code>", page.read_text())
    assert len(f["images"]) == len(pngs), name
    return f


def test_pages_in_chromium(site, tmp_path):
    """Set SIMSTUDY_SCREENSHOTS=DIR to keep the screenshots (report_<page>.png)."""
    exe = _browser()
    shots = Path(os.environ.get("SIMSTUDY_SCREENSHOTS", tmp_path))
    s = site / "site"
    pages = {"index": s / "index.html", **{n: s / n / "report.html" for n in STUDIES}}
    with Chromium(exe) as browser:
        for name, page in pages.items():
            f = _check_page(browser, page, name, shots)
            if name in STUDIES:  # every figure the renderer wrote is on the page
                assert len(f["images"]) == len(list(page.parent.glob("*.png"))), name
            if name == "type1":
                assert len(f["images"]) == 1 and f["sorted"]["n"] == 3  # IRIS 3/10/20
            if name == "demo":
                assert f["sorted"]["n"] == 12


@pytest.mark.skipif(not os.environ.get("SIMSTUDY_SITE"),
                    reason="SIMSTUDY_SITE=DIR (a site written by report --all --format html) "
                           "not set: no existing site to check")
def test_existing_site_in_chromium(tmp_path):
    """Every page of an existing site, e.g. the full studies: SIMSTUDY_SITE=site pytest ..."""
    exe = _browser()
    s = Path(os.environ["SIMSTUDY_SITE"])
    shots = Path(os.environ.get("SIMSTUDY_SCREENSHOTS", tmp_path))
    links = [a["href"] for t, a in _parse(s / "index.html").tags if t == "a"]
    assert links
    with Chromium(exe, timeout=180) as browser:
        _check_page(browser, s / "index.html", "index", shots)
        for href in links:
            _check_page(browser, s / href, Path(href).parent.name, shots)


def _csv_order(page: Path) -> list[str]:
    """The CSV names in the order the page shows them (each table's summary line)."""
    return re.findall(r"<summary><code>([^<]+\.csv)</code>", page.read_text())


def test_browser_check_sees_errors(tmp_path):
    """The browser check can fail: a console error, a thrown exception and an image that
    does not decode are all seen."""
    exe = _browser()
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html><head><meta charset='utf-8'><title>bad</title></head>"
                    "<body><h1>bad</h1><img alt='broken' src='data:image/png;base64,AAAA'>"
                    "<script>console.error('boom'); null.x;</script></body></html>")
    js = ("(() => ({images: Array.from(document.images).map(i => ({w: i.naturalWidth, "
          "complete: i.complete}))}))()")
    with Chromium(exe) as browser:
        r = browser.load(page, js)
    assert any("console.error: boom" in e for e in r.errors), r.errors
    assert any(e.startswith("exception: TypeError") for e in r.errors), r.errors
    assert r.facts["images"] == [{"w": 0, "complete": True}]
