"""A study report as one self-contained HTML page, and an index over a store.

The page is assembled from what the study's ``render(result, out)`` wrote -- tables as
CSV (raw values; the sibling ``.md`` gives the study's own number formatting and the
``.tex`` its caption), figures as PNG (inlined as base64, their title and caption read
from the PNG's text chunks that :func:`simstudy.report.compare.savefig` writes) and
``RESULTS.md`` (the paper's claims, reproduced or not) -- plus provenance read from the
store: package version, root seed, runs, wall time (``runs`` table), the learner code
paths (``impl`` of ``trials``), the store path and the command lines (``argv``).

The page carries the names of its files and that provenance as JSON (``<script
type="application/json" id="provenance-data">``), so :func:`rewrite_page` writes it again
from the committed files alone (``python -m simstudy pages``): everything but the provenance
comes from the files beside it, and nothing on it depends on when it was written.

Self-contained means nothing is fetched: CSS and the small table-sorting script are
inline, images are ``data:`` URIs, and there are no external URLs, fonts or scripts, so
the page reads offline and can be mailed as one file.

Band markers: a column named ``*_in_99`` (the paper's value inside our 99 % Wilson band,
:func:`simstudy.report.compare.in_band`) or ``*_in_spread`` (inside the spread of our
root seeds) is shown as ``✓ inside`` / ``✗ outside``; ``✗`` cells and the matching
``ours*`` cell get a colour *and* the symbol, so the marking survives greyscale printing.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import json
import re
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .. import __version__
from .tables import write_text

if TYPE_CHECKING:
    from ..aggregate import StudyResult
    from ..store import Store
    from ..study import Study

PAGE_NAME = "report.html"

# --- markdown (the subset RESULTS.md uses) ---------------------------------------------------

_VERDICTS = {
    "reproduced": ("ok", "✓ reproduced"),
    "partly reproduced": ("na", "◐ partly reproduced"),
    "not reproduced": ("bad", "✗ NOT reproduced"),
    "rule fails on the paper's own numbers": ("na", "≠ rule fails on the paper's own numbers"),
    "not checked": ("na", "? not checked"),
}
PAPER_FAILS = "rule fails on the paper's own numbers"


def _inline(text: str) -> str:
    """Escape ``text`` and apply inline markdown: `code`, **bold** (verdicts as badges), *em*."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for part in parts:
        if len(part) >= 2 and part.startswith("`") and part.endswith("`"):
            out.append(f"<code>{html.escape(part[1:-1])}</code>")
            continue
        s = html.escape(part, quote=False)

        def bold(m: re.Match) -> str:
            inner = m.group(1)
            v = _VERDICTS.get(inner.strip().lower())
            if v:
                return f'<span class="verdict {v[0]}">{v[1]}</span>'
            return f"<strong>{inner}</strong>"

        s = re.sub(r"\*\*(.+?)\*\*", bold, s)
        s = re.sub(r"(?<![\w*])\*(?!\s)([^*]+?)(?<!\s)\*(?![\w*])", r"<em>\1</em>", s)
        out.append(s)
    return "".join(out)


def _md_table(lines: list[str]) -> str:
    rows = [[c.strip() for c in ln.strip().strip("|").split("|")] for ln in lines]
    head, body = rows[0], [r for r in rows[2:]]
    th = "".join(f"<th>{_inline(c)}</th>" for c in head)
    trs = "".join("<tr>" + "".join(f"<td>{_inline(c)}</td>" for c in r) + "</tr>" for r in body)
    return (f'<div class="scroll"><table class="md"><thead><tr>{th}</tr></thead>'
            f"<tbody>{trs}</tbody></table></div>")


def markdown_to_html(text: str, *, shift: int = 1) -> str:
    """Convert the markdown subset our RESULTS.md files use to HTML.

    Headings (``#``; demoted by ``shift`` levels so the page keeps one ``h1``), bullet
    lists (``-``/``*``, one nested level by indentation), pipe tables, paragraphs, and
    inline `code`, **bold**, *emphasis*.  Text is HTML-escaped; no raw HTML passes through.
    """
    lines = text.splitlines()
    out: list[str] = []
    para: list[str] = []
    i = 0

    def flush() -> None:
        if para:
            out.append("<p>" + _inline(" ".join(s.strip() for s in para)) + "</p>")
            para.clear()

    while i < len(lines):
        ln = lines[i]
        if re.match(r"^<!--.*-->$", ln.strip()):  # markers of generated sections: not shown
            i += 1
            continue
        m = re.match(r"^(#{1,6})\s+(.*)$", ln)
        if m:
            flush()
            level = min(6, len(m.group(1)) + shift)
            out.append(f"<h{level}>{_inline(m.group(2).strip())}</h{level}>")
            i += 1
            continue
        if ln.lstrip().startswith("|") and i + 1 < len(lines) and re.match(
                r"^\s*\|?\s*:?-{3,}", lines[i + 1]):
            flush()
            block = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                block.append(lines[i])
                i += 1
            out.append(_md_table(block))
            continue
        if re.match(r"^\s*[-*]\s+", ln):
            flush()
            items: list[tuple[int, str]] = []
            while i < len(lines) and (re.match(r"^\s*[-*]\s+", lines[i]) or (
                    lines[i].startswith("  ") and lines[i].strip() and items)):
                mm = re.match(r"^(\s*)[-*]\s+(.*)$", lines[i])
                if mm:
                    items.append((1 if len(mm.group(1)) >= 2 else 0, mm.group(2)))
                else:  # a continuation line of the previous item
                    d, t = items[-1]
                    items[-1] = (d, t + " " + lines[i].strip())
                i += 1
            html_items, depth = ["<ul>"], 0
            for d, t in items:
                if d > depth:
                    html_items.append("<ul>")
                elif d < depth:
                    html_items.append("</ul>")
                depth = d
                html_items.append(f"<li>{_inline(t)}</li>")
            if depth:
                html_items.append("</ul>")
            html_items.append("</ul>")
            out.append("".join(html_items))
            continue
        if not ln.strip():
            flush()
        else:
            para.append(ln)
        i += 1
    flush()
    return "\n".join(out)


def claim_counts(results_md: str) -> dict[str, int]:
    """How many claims RESULTS.md marks reproduced / NOT reproduced / not checked."""
    found = re.findall(r"\*\*(" + "|".join(map(re.escape, _VERDICTS)) + r")\*\*",
                       results_md, flags=re.IGNORECASE)
    return {k: sum(1 for f in found if f.lower() == k) for k in _VERDICTS}


# --- tables ---------------------------------------------------------------------------------

_FLAG = re.compile(r"(_in_99|_in_band|_in_spread)$")


def _flag_value(v: object) -> bool | None:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return None
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    s = str(v).strip().lower()
    if s in ("true", "1", "yes"):
        return True
    if s in ("false", "0", "no"):
        return False
    return None


def _ours_column(flag: str, columns: Sequence[str]) -> str | None:
    """The 'ours' column a flag column judges: paper_t_in_99 -> ours_t, paper_in_99 -> ours."""
    base = _FLAG.sub("", flag)
    cand = "ours" + base[len("paper"):] if base.startswith("paper") else None
    return cand if cand in columns else None


def _tex_caption(tex: Path) -> str | None:
    """The ``\\caption{...}`` that :func:`simstudy.report.write_table` wrote, unescaped."""
    if not tex.is_file():
        return None
    m = re.search(r"\\caption\{(.*)\}\s*\n\\end\{table\}", tex.read_text())
    if not m:
        return None
    s = m.group(1)
    for a, b in ((r"\textbackslash{}", "\\"), (r"\textasciitilde{}", "~"), (r"\&", "&"),
                 (r"\%", "%"), (r"\_", "_"), (r"\#", "#"), (r"\$", "$")):
        s = s.replace(a, b)
    return s


def _md_cells(md: Path, shape: tuple[int, int]) -> list[list[str]] | None:
    """The study's own formatting of each cell (its ``.md``), if it parses to ``shape``."""
    if not md.is_file():
        return None
    lines = md.read_text().splitlines()[2:]
    rows = [ln[2:-2].split(" | ") for ln in lines if ln.startswith("| ") and ln.endswith(" |")]
    if len(rows) != shape[0] or any(len(r) != shape[1] for r in rows):
        return None
    return rows


def _display(v: object) -> str:
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return ""
    if isinstance(v, (float, np.floating)):
        return f"{v:.3f}"
    return str(v)


def csv_table_html(csv: Path, *, table_id: str, caption: str | None = None,
                   max_open_rows: int = 60) -> tuple[str, dict[str, int]]:
    """One CSV written by a study as an HTML table with band markers; and its band counts.

    Returns ``(html, {"inside": k, "outside": m})`` over the table's flag columns.
    """
    df = pd.read_csv(csv, keep_default_na=True)
    cols = [str(c) for c in df.columns]
    shown = _md_cells(csv.with_suffix(".md"), df.shape)
    flags = [c for c in cols if _FLAG.search(c)]
    ours_of = {c: _ours_column(c, cols) for c in flags}
    # *_in_99 / *_in_band: our Wilson band; *_in_spread: the spread of our root seeds (with
    # one seed a point, so 'outside' there only says 'not equal'): counted apart
    counts = {"inside": 0, "outside": 0, "spread_inside": 0, "spread_outside": 0}
    head = "".join(f'<th scope="col" title="click to sort">{html.escape(c)}</th>' for c in cols)
    body = []
    for i, row in enumerate(df.itertuples(index=False)):
        vals = list(row)
        marks: dict[str, bool | None] = {}
        for f in flags:
            fv = _flag_value(vals[cols.index(f)])
            marks[f] = fv
            pre = "spread_" if f.endswith("_in_spread") else ""
            if fv is True:
                counts[pre + "inside"] += 1
            elif fv is False:
                counts[pre + "outside"] += 1
        outside_ours = {ours_of[f] for f, fv in marks.items() if fv is False and ours_of[f]}
        tds = []
        for j, (c, v) in enumerate(zip(cols, vals, strict=True)):
            raw = "" if v is None or (isinstance(v, float) and np.isnan(v)) else str(v)
            text = shown[i][j] if shown is not None else _display(v)
            attrs = f' data-v="{html.escape(raw)}"'
            if c in marks:
                fv = marks[c]
                if fv is True:
                    tds.append(f'<td class="in"{attrs} title="paper inside our band">✓ inside</td>')
                elif fv is False:
                    tds.append(f'<td class="out"{attrs} title="paper OUTSIDE our band">'
                               "✗ outside</td>")
                else:
                    tds.append(f"<td{attrs}>–</td>")
                continue
            if c in outside_ours:
                tds.append(f'<td class="out"{attrs} title="the paper\'s value lies outside '
                           f'this cell\'s band">✗ {html.escape(text)}</td>')
            else:
                tds.append(f"<td{attrs}>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(tds) + "</tr>")
    cap = html.escape(caption or csv.stem)
    band = ""
    for pre, what in (("", "our 99 % band"), ("spread_", "the spread of our root seeds")):
        n = counts[pre + "inside"] + counts[pre + "outside"]
        if n:
            band += (f' <span class="bandcount">— paper inside {what} in '
                     f'{counts[pre + "inside"]} of {n} checks; <span class="outkey">✗ outside'
                     f'</span> in {counts[pre + "outside"]}</span>')
    table = (f'<div class="scroll"><table class="data sortable" id="{table_id}">'
             f"<caption>{cap}{band}</caption>"
             f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table></div>")
    marks = "".join(
        f'; <span class="outkey">✗ outside</span> {what} in {counts[pre + "outside"]} of '
        f'{counts[pre + "inside"] + counts[pre + "outside"]} checks'
        for pre, what in (("", "our band"), ("spread_", "our seeds' spread"))
        if counts[pre + "inside"] + counts[pre + "outside"])
    summary = (f"<summary><code>{html.escape(csv.name)}</code> — {len(df)} rows × "
               f"{len(cols)} columns{marks}</summary>")
    # a table that carries band checks stays open longer: its ✗ marks are the point
    opened = " open" if len(df) <= max_open_rows * (3 if flags else 1) else ""
    return f'<details class="table"{opened}>{summary}{table}</details>', counts


# --- figures --------------------------------------------------------------------------------

def png_text(png: Path) -> dict[str, str]:
    """The PNG's text chunks (``Title``, ``Description`` written by ``savefig``)."""
    try:
        from PIL import Image

        with Image.open(png) as im:
            return {str(k): str(v) for k, v in getattr(im, "text", {}).items()}
    except Exception:  # noqa: BLE001 - a figure without metadata still shows
        return {}


def figure_html(png: Path, study_name: str) -> str:
    meta = png_text(png)
    title = meta.get("Title") or png.stem
    desc = meta.get("Description", "")
    alt = f"{study_name}: {title}" + (f". {desc}" if desc else "")
    data = base64.b64encode(png.read_bytes()).decode("ascii")
    cap = html.escape(title) + (f"<br><span class=\"runs\">{html.escape(desc)}</span>"
                                if desc else "")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{html.escape(alt)}">'
            f"<figcaption><code>{html.escape(png.name)}</code>: {cap}</figcaption></figure>")


# --- provenance -----------------------------------------------------------------------------

def _when(t: float | None) -> str:
    if t is None or (isinstance(t, float) and np.isnan(t)):
        return ""
    return _dt.datetime.fromtimestamp(float(t), _dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _targets(args: dict) -> str:
    """What a run's last bits depend on besides the code: numba's compile target and the
    BLAS kernels (recorded per invocation; older stores have neither or only the first)."""
    parts = [f"numba target {args['compile_target']}"] if args.get("compile_target") else []
    if args.get("blas"):
        parts.append(f"BLAS {args['blas']}")
    return f" ({'; '.join(parts)})" if parts else ""


def command_line(argv: Sequence[str] | None) -> str:
    """A stored ``argv`` as the command a person would type."""
    if not argv:
        return ""
    argv = [str(a) for a in argv]
    head = argv[0]
    if head.endswith(("simstudy/__main__.py", "simstudy\\__main__.py", "-m")) or \
            Path(head).name == "simstudy":
        return "python -m simstudy " + shlex.join(argv[1:])
    return shlex.join(argv)


def provenance(study: Study, result: StudyResult, store: Store) -> dict:
    """What produced the numbers: seed, runs, versions, code paths, invocations, wall time."""
    trials = result.trials
    info: dict = {"package_version": __version__, "root_seed": int(study.seed),
                  "runs_asked": int(study.runs), "alpha": float(study.alpha),
                  "store": str(Path(store.path).resolve()), "cells": len(study.cells)}
    info["cells_with_trials"] = int(trials["cell"].nunique()) if len(trials) else 0
    info["trials"] = int(len(trials))
    if len(trials):
        per = trials.groupby("cell").size()
        info["runs_per_cell"] = (int(per.min()), int(per.max()))
        info["trial_versions"] = sorted(set(trials["version"].dropna().astype(str)))
        info["compute_seconds"] = float(trials["seconds"].fillna(0).sum())
        impl: dict[str, set[str]] = {}
        for learners, codes in zip(trials["learners"], trials["impl"], strict=True):
            try:
                paths = json.loads(codes) if codes else []
            except (TypeError, ValueError):
                paths = []
            for name, path in zip(str(learners).split("~"), paths, strict=False):
                impl.setdefault(name, set()).add(str(path))
        info["impl"] = {k: sorted(v) for k, v in sorted(impl.items())}
        producers = set(trials["study"].dropna().astype(str)) | {study.name}
    else:
        producers = {study.name}
    log = store.runs_log()
    log = log[log["study"].isin(producers)]
    runs = []
    for r in log.itertuples(index=False):
        try:
            args = json.loads(r.args) if r.args else {}
        except ValueError:
            args = {}
        wall = (None if r.finished is None or pd.isna(r.finished)
                else float(r.finished) - float(r.started))
        runs.append({"id": int(r.id), "study": r.study, "started": _when(r.started),
                     "wall_seconds": wall, "status": r.status, "trials_done": r.trials_done,
                     "version": r.version,
                     "host": r.host + _targets(args),
                     "command": command_line(args.get("argv"))})
    info["invocations"] = runs
    info["wall_seconds"] = float(sum(r["wall_seconds"] or 0.0 for r in runs))
    return info


def _prov_html(info: dict) -> str:
    rpc = info.get("runs_per_cell")
    rows = [("package version (this report)", info["package_version"]),
            ("versions that computed the trials", ", ".join(info.get("trial_versions", []))),
            ("root seed", info["root_seed"]), ("alpha", info["alpha"]),
            ("runs per cell", "none" if not rpc else (f"{rpc[0]}" if rpc[0] == rpc[1]
                                                      else f"{rpc[0]} to {rpc[1]}")),
            ("cells with trials", f"{info['cells_with_trials']} of {info['cells']}"),
            ("trials", info["trials"]),
            ("wall time of the runs below", f"{info['wall_seconds']:.1f} s"),
            ("compute time stored with the trials", f"{info.get('compute_seconds', 0.0):.1f} s"),
            ("store", info["store"])]
    kv = "".join(f"<tr><th scope=\"row\">{html.escape(k)}</th><td>{html.escape(str(v))}</td></tr>"
                 for k, v in rows)
    impl = "".join(f"<tr><td><code>{html.escape(k)}</code></td><td>"
                   + "<br>".join(f"<code>{html.escape(p)}</code>" for p in v) + "</td></tr>"
                   for k, v in info.get("impl", {}).items())
    inv = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(x))}</td>" for x in (
            r["id"], r["study"], r["started"],
            "" if r["wall_seconds"] is None else f"{r['wall_seconds']:.1f}",
            r["status"], r["trials_done"], r["version"], r["host"]))
        + f"<td><code>{html.escape(r['command'])}</code></td></tr>"
        for r in info["invocations"])
    return (f'<table class="kv">{kv}</table>'
            "<h3>Learner code paths</h3>"
            '<table class="data"><thead><tr><th>learner</th><th>implementation that fitted it'
            f"</th></tr></thead><tbody>{impl}</tbody></table>"
            "<h3>Invocations that wrote these trials</h3>"
            '<div class="scroll"><table class="data sortable" id="invocations"><thead><tr>'
            "<th>id</th><th>study</th><th>started</th><th>wall s</th><th>status</th>"
            "<th>trials computed</th><th>version</th><th>host</th><th>command</th></tr></thead>"
            f"<tbody>{inv}</tbody></table></div>")


# --- the page -------------------------------------------------------------------------------

CSS = """
:root{--out:#c0392b;--outbg:#fde2df;--in:#1e7b34;--inbg:#e3f4e6;--na:#6b6b6b;--line:#ccc}
*{box-sizing:border-box}
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;
 margin:0 auto;max-width:1200px;padding:1rem 1.5rem 4rem;color:#1a1a1a;background:#fff}
h1{font-size:1.6rem;margin:.4rem 0}h2{border-bottom:2px solid #333;padding-bottom:.2rem;
 margin-top:2.2rem}h3{margin-top:1.4rem}
code{font:13px/1.3 "DejaVu Sans Mono",Menlo,Consolas,monospace;background:#f3f3f3;
 padding:0 .2em;word-break:break-word}
nav{position:sticky;top:0;background:#fff;border-bottom:1px solid var(--line);padding:.4rem 0;
 z-index:2}nav a{margin-right:1rem}
.summary{display:flex;flex-wrap:wrap;gap:.6rem;margin:.8rem 0}
.summary div{border:1px solid var(--line);border-radius:4px;padding:.3rem .7rem}
.scroll{overflow-x:auto;max-width:100%}
table{border-collapse:collapse;margin:.5rem 0;font-size:13px}
th,td{border:1px solid var(--line);padding:.2rem .45rem;text-align:left;vertical-align:top}
thead th{background:#eee;position:sticky;top:0}
table.sortable thead th{cursor:pointer}
table.sortable thead th[aria-sort=ascending]::after{content:" ▲"}
table.sortable thead th[aria-sort=descending]::after{content:" ▼"}
caption{caption-side:top;text-align:left;font-weight:600;padding:.3rem 0}
td.out,.outkey{background:var(--outbg);color:var(--out);font-weight:700}
td.in{background:var(--inbg);color:var(--in)}
td.out,td.in{white-space:nowrap}
.verdict{display:inline-block;padding:0 .4em;border-radius:3px;font-weight:700;
 border:1px solid currentColor}
.verdict.ok{color:var(--in);background:var(--inbg)}
.verdict.bad{color:var(--out);background:var(--outbg);border-width:2px}
.verdict.na{color:var(--na);background:#eee;border-style:dashed}
details.table{margin:1rem 0}details.table>summary{cursor:pointer;color:#333}
figure{margin:1.2rem 0;border:1px solid var(--line);padding:.5rem}
figure img{max-width:100%;height:auto;display:block;margin:auto}
figcaption{font-size:13px;color:#333;margin-top:.3rem}.runs{font-weight:600}
.small{font-size:12.5px;color:#444}
.legend span{margin-right:1rem}
@media print{nav{display:none}details.table>summary{display:none}
 td.out{border:2px solid #000}}
"""

# a dozen lines, inline: click a column head to sort by it (numbers numerically)
SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function(t){
  t.querySelectorAll('thead th').forEach(function(th,i){
    th.addEventListener('click',function(){
      var asc=th.getAttribute('aria-sort')!=='ascending';
      t.querySelectorAll('thead th').forEach(function(h){h.removeAttribute('aria-sort');});
      th.setAttribute('aria-sort',asc?'ascending':'descending');
      var tb=t.tBodies[0],rows=Array.prototype.slice.call(tb.rows);
      function key(r){var c=r.cells[i];if(!c)return '';
        var v=c.hasAttribute('data-v')?c.getAttribute('data-v'):c.textContent;
        var n=parseFloat(v);return (v!==''&&isFinite(v))?n:v.toLowerCase();}
      rows.sort(function(a,b){var x=key(a),y=key(b);
        if(typeof x===typeof y)return (x<y?-1:x>y?1:0)*(asc?1:-1);
        return (typeof x==='number'?-1:1)*(asc?1:-1);});
      rows.forEach(function(r){tb.appendChild(r);});
    });
  });
});
"""


def _page(title: str, body: str, css: str = "") -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{CSS}{css}</style></head>"
            f"<body>{body}<script>{SCRIPT}</script></body></html>\n")


def study_page(study: Study, result: StudyResult, store: Store, out: Path,
               paths: Sequence[Path]) -> str:
    """The HTML of one study's page, from the files its renderer wrote (``paths``) and the
    store's provenance (see :func:`page_html`)."""
    out = Path(out)
    files = list(dict.fromkeys(Path(p) for p in paths if Path(p).is_file()))
    if not any(p.suffix == ".csv" for p in files) and not result.table.empty:
        # a study without a renderer: the reject table (its caption in its .tex)
        from .tables import write_table

        cols = ["cell", "test", "rejects", "runs", "proportion", "ci_low", "ci_high", "mcse"]
        files += write_table(result.table[cols], out, "reject_table",
                             caption=f"{study.name}: reject proportions (Wilson "
                                     f"{100 * result.confidence:g} % interval, Monte-Carlo SE)")
    md = out / "RESULTS.md"
    results_md = md.read_text() if md.is_file() else ""
    return page_html(study.name, study.description or "", study_default_runs(study), out,
                     [p.name for p in files], provenance(study, result, store), results_md)


_DATA_ID = "provenance-data"
_DATA_RE = re.compile(r'<script type="application/json" id="' + _DATA_ID + r'">(.*?)</script>',
                      re.S)


def page_html(name: str, description: str, default_runs: int, out: Path,
              files: Sequence[str], info: dict, results_md: str) -> str:
    """The HTML of one study's page: the tables and figures among ``files`` (names under
    ``out``, in the renderer's order), ``results_md`` and the provenance ``info`` (what
    :func:`provenance` read from the store).

    The page carries ``files`` and ``info`` as JSON, so :func:`rewrite_page` writes it
    again from the committed files alone; nothing else on it (no time of writing) depends
    on when or where it was written.
    """
    out = Path(out)
    csvs = [out / f for f in files if f.endswith(".csv")]
    pngs = [out / f for f in files if f.endswith(".png")]
    counts = claim_counts(results_md)
    tables = []
    band = {"inside": 0, "outside": 0, "spread_inside": 0, "spread_outside": 0}
    for k, csv in enumerate(csvs):
        t, c = csv_table_html(csv, table_id=f"t{k}", caption=_tex_caption(csv.with_suffix(".tex")))
        tables.append(t)
        if not csv.stem.endswith("_variants"):  # side by side: the variants' flags again
            band = {x: band[x] + c[x] for x in band}
    rpc = info.get("runs_per_cell")
    runs_txt = "none" if not rpc else (str(rpc[0]) if rpc[0] == rpc[1] else f"{rpc[0]}–{rpc[1]}")
    small = bool(rpc) and rpc[1] < default_runs
    boxes = [f"<div>runs per cell: <strong>{runs_txt}</strong>"
             + (f" (study default {default_runs}: a small run)" if small else "")
             + "</div>",
             f"<div>root seed {info['root_seed']}, alpha {info['alpha']:g}</div>"]
    if results_md:
        boxes.append(f"<div>claims: <span class=\"verdict ok\">✓ {counts['reproduced']}</span> "
                     + (f"<span class=\"verdict na\">◐ {counts['partly reproduced']}</span> "
                        if counts["partly reproduced"] else "")
                     + f"<span class=\"verdict bad\">✗ {counts['not reproduced']}</span> "
                     + (f"<span class=\"verdict na\">≠ {counts[PAPER_FAILS]}</span> "
                        if counts[PAPER_FAILS] else "")
                     + f"<span class=\"verdict na\">? {counts['not checked']}</span></div>")
    for pre, what in (("", "our 99 % band"), ("spread_", "our seeds' spread")):
        n = band[pre + "inside"] + band[pre + "outside"]
        if n:
            boxes.append(f"<div>paper inside {what}: {band[pre + 'inside']} of {n}; "
                         f"<span class=\"outkey\">✗ outside</span> {band[pre + 'outside']}</div>")
    sections = []
    nav = []
    if results_md:
        nav.append('<a href="#findings">Findings</a>')
        sections.append('<section id="findings"><h2>Findings and the paper\'s claims</h2>'
                        f"{markdown_to_html(results_md, shift=2)}</section>")
    if tables:
        nav.append('<a href="#tables">Tables</a>')
        legend = ('<p class="legend small"><span class="outkey">✗ outside</span> the paper\'s '
                  "value lies outside our 99 % Wilson band (or outside the spread of our root "
                  "seeds, for <code>*_in_spread</code>); <span>✓ inside</span> it lies inside; "
                  "– no paper value. Click a column head to sort.</p>")
        if not sum(band.values()):  # no paper values: no band to mark
            legend = '<p class="legend small">Click a column head to sort.</p>'
        head = "Tables: the paper beside ours" if sum(band.values()) else "Tables"
        sections.append(f'<section id="tables"><h2>{head}</h2>{legend}'
                        + "".join(tables) + "</section>")
    if pngs:
        nav.append('<a href="#figures">Figures</a>')
        sections.append('<section id="figures"><h2>Figures</h2>'
                        + "".join(figure_html(p, name) for p in pngs) + "</section>")
    nav.append('<a href="#provenance">Provenance</a>')
    data = json.dumps({"files": list(files), "info": info}, sort_keys=True).replace("</", "<\\/")
    sections.append(f'<section id="provenance"><h2>Provenance</h2>{_prov_html(info)}'
                    "<h3>Files written beside this page</h3><p class=\"small\">"
                    + ", ".join(f"<code>{html.escape(f)}</code>" for f in files)
                    + f'</p><script type="application/json" id="{_DATA_ID}">{data}</script>'
                    "</section>")
    body = (f"<header><h1>{html.escape(name)}</h1><p>{html.escape(description)}</p>"
            f'<div class="summary">{"".join(boxes)}</div></header>'
            f"<nav>{''.join(nav)}</nav>" + "".join(sections)
            + f'<footer class="small"><p>simstudy {html.escape(__version__)}.</p></footer>')
    return _page(f"{name} — simstudy report", body)


def page_data(page: str) -> tuple[list[str], dict]:
    """The file names and provenance a page written by :func:`page_html` carries."""
    m = _DATA_RE.search(page)
    if m is None:
        raise ValueError(f"the page has no <script id={_DATA_ID!r}> with its files and "
                         "provenance; write it again with 'report --format html'")
    data = json.loads(m.group(1))
    return data["files"], data["info"]


def rewrite_page(out: Path, results_md: str | None = None, study: Study | None = None) -> str:
    """``out/report.html`` written again from the committed files beside it and the files
    and provenance the committed page carries (the store is not needed: its part is kept).
    ``results_md``: the page's RESULTS.md text (default: the committed one); ``study``
    (default: :func:`page_study`) gives the title, description and default runs."""
    out = Path(out)
    files, info = page_data((out / PAGE_NAME).read_text(encoding="utf-8"))
    if study is None:
        study = page_study(out.name, info)
    if results_md is None:
        md = out / "RESULTS.md"
        results_md = md.read_text() if md.is_file() else ""
    return page_html(study.name, study.description or "", study_default_runs(study), out,
                     files, info, results_md)


def page_study(name: str, info: dict) -> Study:
    """The study of page ``name``: the registered study of that name, else the study file
    its invocations ran (``run path/to/study.py``)."""
    from ..catalog import STUDIES, get_study

    if name not in STUDIES:
        for r in info.get("invocations", []):
            words = shlex.split(r.get("command") or "")
            file = next((w for w in words if w.endswith(".py") and w != words[0]), None)
            if file is not None:
                return get_study(file)
    return get_study(name)


def study_default_runs(study: Study) -> int:
    """The registered study's default number of runs (to flag a small run), else its own."""
    try:
        from ..catalog import STUDIES, _load

        if study.name in STUDIES:
            return int(_load(study.name)().runs)
    except Exception:  # noqa: BLE001 - only for the 'small run' note
        pass
    return int(study.runs)


def write_study_page(study: Study, result: StudyResult, store: Store, out: Path,
                     paths: Sequence[Path]) -> Path:
    """Write ``out/report.html`` for one study (see :func:`study_page`)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    page = out / PAGE_NAME
    write_text(page, study_page(study, result, store, out, paths), encoding="utf-8")
    return page


def write_index(entries: Sequence[dict], out: Path, store_path: str) -> Path:
    """``out/index.html``: one row per study page (``entries``: name, description, page,
    runs, seed, claims, band, error)."""
    rows = []
    for e in entries:
        if e.get("error"):
            link = html.escape(e["name"])
            state = f'<td class="out" colspan="2">✗ not rendered: {html.escape(e["error"])}</td>'
        else:
            rel = Path(e["page"]).relative_to(out).as_posix()
            link = f'<a href="{html.escape(rel)}">{html.escape(e["name"])}</a>'
            c, b = e["claims"], e.get("band", {"inside": 0, "outside": 0})
            state = ("<td>–</td>" if not sum(c.values()) else
                     f'<td><span class="verdict ok">✓ {c["reproduced"]}</span> '
                     f'<span class="verdict bad">✗ {c["not reproduced"]}</span> '
                     f'<span class="verdict na">? {c["not checked"]}</span></td>')
            parts = []
            for pre, what in (("", ""), ("spread_", " (outside our seeds' spread)")):
                n = b.get(pre + "inside", 0) + b.get(pre + "outside", 0)
                if n:
                    parts.append(f'<span class="outkey">✗ {b[pre + "outside"]}</span> of {n}{what}')
            state += (f'<td data-v="{b["outside"]}">{"; ".join(parts)}</td>' if parts
                      else "<td>–</td>")
        rows.append(f"<tr><td>{link}</td><td>{html.escape(e.get('description', ''))}</td>"
                    f"<td>{html.escape(str(e.get('runs', '')))}</td>"
                    f"<td>{html.escape(str(e.get('default_runs', '')))}</td>"
                    f"<td>{html.escape(str(e.get('seed', '')))}</td>{state}</tr>")
    body = ("<header><h1>simstudy reports</h1>"
            f"<p>Every registered study with trials in the store <code>{html.escape(store_path)}"
            f"</code>; simstudy {html.escape(__version__)}.</p></header>"
            '<table class="data sortable" id="studies"><thead><tr><th>study</th>'
            "<th>what</th><th>runs per cell</th><th>study default</th><th>root seed</th>"
            "<th>claims (reproduced / not / not checked)</th>"
            "<th>paper outside our 99 % band (checks)</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")
    out.mkdir(parents=True, exist_ok=True)
    p = out / "index.html"
    write_text(p, _page("simstudy reports", body), encoding="utf-8")
    return p


# --- from the store: one study, or every study the store holds --------------------------------

def _entry(study: Study, page: Path, out: Path) -> dict:
    md = out / "RESULTS.md"
    text = md.read_text() if md.is_file() else ""
    band = {"inside": 0, "outside": 0, "spread_inside": 0, "spread_outside": 0}
    for csv in re.findall(r"<summary><code>([^<]+\.csv)</code>", page.read_text()):
        _, c = csv_table_html(out / html.unescape(csv), table_id="x")
        band = {k: band[k] + c[k] for k in band}
    return {"name": study.name, "description": study.description, "page": page,
            "seed": study.seed, "claims": claim_counts(text), "band": band,
            "default_runs": study_default_runs(study)}


def render_with_page(study: Study, result: StudyResult, store: Store, out: Path) -> list[Path]:
    """Run the study's renderer into ``out`` and write the HTML page beside its files."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = list(study.render(result, out) or []) if study.render is not None else []
    return paths + [write_study_page(study, result, store, out, paths)]


def report_all(store: Store, out: Path, *, runs: int | None = None, seed: int | None = None,
               alpha: float | None = None, confidence: float = 0.95) -> tuple[Path, list[dict]]:
    """One page per registered study the store holds (``out/<study>/report.html``) and
    ``out/index.html``.  A study that cannot be rendered is listed with its error.  Reject
    tables' Wilson intervals are at ``confidence``."""
    from ..aggregate import collect
    from ..catalog import get_study
    from ..errors import SimstudyError
    from ..scope import stored_scope, studies_in_store

    out = Path(out)
    entries: list[dict] = []
    for name in studies_in_store(store):
        study = get_study(name, alpha=alpha)
        sub = out / name
        try:
            study = stored_scope(study, store, runs, seed, prefer_study_seed=True)
            result = collect(study, store, confidence=confidence)
            paths = render_with_page(study, result, store, sub)
        except SimstudyError as e:
            entries.append({"name": name, "description": study.description, "error": str(e)})
            continue
        except Exception as e:  # noqa: BLE001 - one study's renderer failing: say so, go on
            entries.append({"name": name, "description": study.description,
                            "error": f"{type(e).__name__}: {e}"})
            continue
        e = _entry(study, paths[-1], sub)
        held = result.trials.groupby("cell").size() if len(result.trials) else pd.Series([0])
        e["runs"] = (f"{int(held.min())}" if held.min() == held.max()
                     else f"{int(held.min())}–{int(held.max())}")
        entries.append(e)
    return write_index(entries, out, str(store.path)), entries
