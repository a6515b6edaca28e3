"""README's performance section and the figures of ``docs/performance.md``, generated.

Every timing in them comes from three committed files, each with the commit it was measured
at: ``figures/perf-weka.json`` (``nox -s perf-weka``: our Weka learners beside Weka 3.6.14
on the same folds), ``figures/perf-startup.json`` (``nox -s perf-startup``: README's command
1 to its first progress, a one-cell run's fixed overhead) and ``figures/REPRODUCE.md``
(``python -m simstudy cost``: what a reproduction of the default studies cost).
``python -m simstudy pages`` (:mod:`simstudy.report.pages`) replaces the text between the
markers ``<!-- performance:begin -->`` and ``<!-- performance:end -->`` in ``README.md`` and
in ``docs/performance.md`` with :func:`readme_section` and :func:`docs_section`; ``--check``
exits 1 when either differs.

Examples
--------
>>> splice("intro\\n<!-- performance:begin -->\\nold\\n<!-- performance:end -->\\nrest\\n",
...        "new\\n", "README.md")
'intro\\n<!-- performance:begin -->\\nnew\\n<!-- performance:end -->\\nrest\\n'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from ..errors import SimstudyError

BEGIN = "<!-- performance:begin -->"
END = "<!-- performance:end -->"
ROOT = Path(__file__).resolve().parents[2]  # the repository (figures/, README.md, docs/)
WEKA_JSON = Path("figures") / "perf-weka.json"
#: a perf-weka run with one fit per call beside the batch, when perf-weka.json has none
WEKA_SINGLE_JSON = Path("figures") / "perf-weka-single.json"
REPRODUCE_MD = Path("figures") / "REPRODUCE.md"
#: the same page for the interval studies (``python -m simstudy cost ... --out``)
INTERVALS_MD = Path("figures") / "REPRODUCE-intervals.md"
STARTUP_JSON = Path("figures") / "perf-startup.json"
ESTIMATE_MD = Path("figures") / "reproduce-estimate.md"
TARGETS = (Path("README.md"), Path("docs") / "performance.md")
LEARNERS = ("wnb", "j48", "ib1")


@dataclass
class Reproduction:
    """What ``figures/REPRODUCE.md`` states: the commit, the load (when its note gives
    one), the totals and one row per study (study, cells, trials, worker time, share,
    wall time: the page's own text)."""

    commit: str
    load: str | None
    trials: str
    worker_time: str
    worker_hours: str
    wall_time: str
    studies: list[tuple[str, ...]]


def read_reproduction(root: Path = ROOT, page: Path = REPRODUCE_MD) -> Reproduction:
    """Read ``figures/REPRODUCE.md`` (or another ``page`` of
    :func:`simstudy.report.reproduce.render`) as that function writes it.

    Examples
    --------
    >>> r = read_reproduction()
    >>> r.studies[0][0].startswith("`"), r.trials.replace(",", "").isdigit()
    (True, True)
    """
    path = Path(root) / page
    text = _read(path)
    commit = re.search(r"Measured at commit `([0-9a-f]+)`", text)
    total = re.search(r"^Total: ([\d,]+) trials, worker time (.+?) \(([\d.]+) worker-hours\), "
                      r"wall time (.+?)\.$", text, re.M)
    if commit is None or total is None:
        raise SimstudyError(f"{str(path)!r} has no 'Measured at commit' or 'Total:' line; "
                            "regenerate it with python -m simstudy cost STORE... --commit REV")
    load = re.search(r"\(load ([\d.]+\s*[-–]\s*[\d.]+)", text)
    rows = _table(text, "| study |")
    if not rows:
        raise SimstudyError(f"{str(path)!r} has no per-study table ('| study | ...')")
    return Reproduction(commit.group(1), None if load is None else load.group(1).replace("-", "–"),
                        *total.groups(), studies=rows)


def read_weka(root: Path = ROOT) -> dict:
    """``figures/perf-weka.json`` as written by ``nox -s perf-weka``.

    Examples
    --------
    >>> sorted(read_weka()["summary"]["learners"])
    ['ib1', 'j48', 'wnb']
    """
    return _read_result(Path(root) / WEKA_JSON, "summary", {"learners", "cell"}, "perf-weka")


def read_startup(root: Path = ROOT) -> dict:
    """``figures/perf-startup.json`` as written by ``nox -s perf-startup``.

    Examples
    --------
    >>> sorted(read_startup()["median"])
    ['cell', 'cold', 'warm']
    """
    return _read_result(Path(root) / STARTUP_JSON, "median", {"warm", "cold", "cell"},
                        "perf-startup")


def _read_result(path: Path, part: str, keys: set[str], session: str) -> dict:
    """A benchmark's JSON result: a commit and ``part`` holding ``keys``, else one line
    naming the file and the nox session that writes it."""
    try:
        data = json.loads(_read(path))
        ok = isinstance(data, dict) and "commit" in data and keys <= set(data.get(part, {}))
    except ValueError:
        ok = False
    if not ok:
        raise SimstudyError(f"{str(path)!r} is not a {session} result (commit, {part}'s "
                            f"{', '.join(sorted(keys))}); regenerate it with nox -s {session}")
    return data


def read_estimate(root: Path = ROOT) -> tuple[str, str, str, str, float]:
    """``figures/reproduce-estimate.md`` (``scripts/reproduce_estimate.py``): its commit, load
    at the start, estimated CPU-hours of a reproduction, the hours on its cores, and the
    fraction of the runs sampled.

    Examples
    --------
    >>> commit, load, cpu_h, wall_h, fraction = read_estimate()
    >>> float(cpu_h) > 0 and float(wall_h) > 0
    True
    """
    path = Path(root) / ESTIMATE_MD
    text = _read(path)
    head = re.search(r"Measured at commit `([0-9a-f]+)`.*?--fraction ([\d.]+).*?"
                     r"load average ([\d.]+) at the start", text, re.S)
    total = re.search(r"\*\*Estimated full reproduction: ([\d.]+) CPU-hours\*\*, so at least "
                      r"\*\*([\d.]+) h\*\*", text)
    if head is None or total is None:
        raise SimstudyError(f"{str(path)!r} has no 'Measured at commit' or 'Estimated full "
                            "reproduction' line; regenerate it with "
                            "python scripts/reproduce_estimate.py")
    return head.group(1), head.group(3), total.group(1), total.group(2), float(head.group(2))


def _startup(st: dict) -> tuple[str, str]:
    """README's row for the start-up figures: what, and at which commit and load."""
    m = st["median"]
    w, c, cell = m["warm"], m["cold"], m["cell"]
    loads = [*st["load_start"][:1], *st["load_end"][:1]]
    what = (f"bar drawn after {w['bar_drawn']:.1f} s, first moves after {w['bar_moved']:.1f} s "
            f"(numba cache warm; cold: {c['bar_drawn']:.1f} s, {c['bar_moved']:.1f} s); a "
            f"one-cell `run --filter` {cell['overhead_cpu']:.2f} s CPU, "
            f"{cell['overhead_wall']:.2f} s wall beyond its trials")
    at = f"`{st['commit'][:7]}`, load {min(loads):.1f}–{max(loads):.1f}"
    return what, at


def _wrap(text: str) -> str:
    """A paragraph wrapped as the Markdown pages are (tables stay one line a row)."""
    import textwrap

    # a code span stays on one line
    glued = re.sub(r"`[^`]*`", lambda m: m.group(0).replace(" ", "\0"), text)
    return textwrap.fill(glued, width=92, break_long_words=False,
                         break_on_hyphens=False).replace("\0", " ")


def readme_section(root: Path = ROOT) -> str:
    """README's short performance section: the ratios against Weka and what a
    reproduction cost, with the commits and loads they were measured at.

    Examples
    --------
    >>> readme_section().splitlines()[0]
    '## Performance'
    """
    w, r = read_weka(root), read_reproduction(root)
    startup, startup_at = _startup(read_startup(root))
    est = read_estimate(root)
    s = w["summary"]
    per_core = ", ".join(f"`{k}` ×{s['learners'][k]['ratio_per_core']:.1f}"
                         for k in LEARNERS if k in s["learners"])
    single = _single(w, root)
    dearest = ", ".join(f"`{row[0].strip('`')}` {row[4]}" for row in r.studies[:3])
    lines = [
        "## Performance", "",
        "| measured | result | at |", "|---|---|---|",
        f"| per fit, against JIT-warm Weka 3.6.14 fitting one model per call on the same "
        f"folds (credit-g, 10×10 cv; CPU per core) | ours as a batch of "
        f"{_batch(w)} models in one call: {per_core}; {single}; a whole "
        f"`{w['setup']['study']}` cell ×{s['cell']['ratio_per_core']:.1f}; {_agreement(w)} "
        f"| {_at(w)} |",
        f"| README's command 1 in a terminal, fresh store | {startup} | {startup_at} |",
        f"| a reproduction: {len(r.studies)} studies at the papers' run counts | "
        f"{r.trials} trials, {r.worker_hours} worker-hours, {r.wall_time} wall on 2 shared "
        f"cores; dearest {dearest} | `{r.commit[:7]}`"
        + (f", load {r.load}" if r.load else "") + " |",
        f"| a reproduction now, estimated from {100 * est[4]:g} % of its runs | {est[2]} "
        "CPU-hours: at "
        f"least {est[3]} h on 2 cores kept busy | `{est[0][:7]}`, load {est[1]} at the start |",
        *_intervals_row(root),
        "",
        _wrap(f"What each measures and what it leaves out: [{WEKA_JSON.with_suffix('.md')}]"
              f"({WEKA_JSON.with_suffix('.md')}), "
              + (f"[{WEKA_SINGLE_JSON.with_suffix('.md')}]({WEKA_SINGLE_JSON.with_suffix('.md')}), "
                 if (Path(root) / WEKA_SINGLE_JSON).is_file() else "")
              + f"[{STARTUP_JSON.with_suffix('.md')}]"
              f"({STARTUP_JSON.with_suffix('.md')}), [{REPRODUCE_MD}]({REPRODUCE_MD}), "
              + (f"[{INTERVALS_MD}]({INTERVALS_MD}), "
                 if (Path(root) / INTERVALS_MD).is_file() else "")
              + f"[{ESTIMATE_MD}]({ESTIMATE_MD}), "
              "[docs/performance.md](docs/performance.md). This section is generated from "
              "them (`python -m simstudy pages`)."),
    ]
    return "\n".join(lines) + "\n"


def docs_section(root: Path = ROOT) -> str:
    """``docs/performance.md``'s figures: per learner against Weka, the whole cell, and
    the reproduction per study.

    Examples
    --------
    >>> "| `wnb` |" in docs_section()
    True
    """
    w, r = read_weka(root), read_reproduction(root)
    s = w["summary"]
    lines = [
        "## The latest figures", "",
        _wrap("Generated from `figures/perf-weka.json` and `figures/REPRODUCE.md` "
              "(`python -m simstudy pages`); the pages themselves say "
              "more."),
        "", _wrap(f"**Against Weka 3.6.14** ({_at(w)}; median of "
                  f"{len(w.get('repetitions', []))} repetitions): µs per fit on the "
                  f"{_batch(w)} folds of one credit-g 10×10 cv, ours fitted as a batch of "
                  f"{_batch(w)} models in one call, Weka one model per call; {_single(w, root)}; "
                  "and seconds for the whole cell."), "",
        "| learner | Weka CPU | ours CPU, 1 thread | × per core | Weka wall | "
        f"ours wall, {s.get('threads', '?')} threads | × wall |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for k in LEARNERS:
        if k in s["learners"]:
            x = s["learners"][k]
            lines.append(f"| `{k}` | {x['weka_cpu_us']:,.0f} | {x['ours_cpu_us_1_thread']:,.0f} | "
                         f"**{x['ratio_per_core']:.1f}** | {x['weka_wall_us']:,.0f} | "
                         f"{x['ours_wall_us']:,.0f} | {x['ratio_wall']:.1f} |")
    c = s["cell"]
    lines += [f"| the cell (s) | {c['weka_cpu_s']:.2f} | {c['ours_cpu_s_1_thread']:.2f} | "
              f"**{c['ratio_per_core']:.1f}** | {c['weka_wall_s']:.2f} | {c['ours_wall_s']:.2f} | "
              f"{c['ratio_wall']:.1f} |", "", _sentence(_agreement(w)), "",
              _wrap(f"**A reproduction** (`{r.commit[:7]}`"
                    + (f", load {r.load}" if r.load else "")
                    + f"): {r.trials} trials, worker time {r.worker_time} ({r.worker_hours} "
                    f"worker-hours), wall time {r.wall_time}."), "",
              "| study | cells | trials | worker time | share | wall time |",
              "|---|---:|---:|---:|---:|---:|"]
    lines += ["| " + " | ".join(row) + " |" for row in r.studies]
    if (Path(root) / INTERVALS_MD).is_file():
        i = read_reproduction(root, INTERVALS_MD)
        lines += ["", _wrap(f"**The interval studies** (`{i.commit[:7]}`, "
                            f"[{INTERVALS_MD}](../{INTERVALS_MD})): {i.trials} trials, worker "
                            f"time {i.worker_time} ({i.worker_hours} worker-hours), wall time "
                            f"{i.wall_time}."), "",
                  "| study | cells | trials | worker time | share | wall time |",
                  "|---|---:|---:|---:|---:|---:|"]
        lines += ["| " + " | ".join(row) + " |" for row in i.studies]
    return "\n".join(lines) + "\n"


def _intervals_row(root: Path) -> list[str]:
    """README's row of what the interval studies cost, when their page exists."""
    if not (Path(root) / INTERVALS_MD).is_file():
        return []
    i = read_reproduction(root, INTERVALS_MD)
    per = ", ".join(f"`{row[0].strip('`')}` {row[5]}" for row in i.studies)
    return [f"| the interval studies: {len(i.studies)} studies | {i.trials} trials, "
            f"{i.worker_hours} worker-hours, {i.wall_time} wall on 2 cores; wall per study: "
            f"{per} | `{i.commit[:7]}`" + (f", load {i.load}" if i.load else "") + " |"]


def splice(text: str, section: str, where: str) -> str:
    """``text`` with what lies between the performance markers replaced by ``section``."""
    i, j = text.find(BEGIN + "\n"), text.find(END)
    if i < 0 or j < i:
        raise SimstudyError(f"{where!r} has no '{BEGIN}' line followed by '{END}'")
    return text[:i + len(BEGIN) + 1] + section + text[j:]


def generated(root: Path = ROOT) -> dict[Path, str]:
    """Each target file (``README.md``, ``docs/performance.md``) with its section
    regenerated, keyed by path."""
    root = Path(root)
    out = {}
    for rel, make in zip(TARGETS, (readme_section, docs_section), strict=True):
        path = root / rel
        out[path] = splice(_read(path), make(root), str(rel))
    return out


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        raise SimstudyError(f"{str(path)!r} cannot be read: {e.strerror}") from None


def _table(text: str, header: str) -> list[tuple[str, ...]]:
    """The body rows of the first Markdown table whose header line starts with ``header``."""
    lines = text.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith(header):
            rows = []
            for body in lines[i + 2:]:
                if not body.startswith("|"):
                    break
                rows.append(tuple(c.strip() for c in body.strip().strip("|").split("|")))
            return rows
    return []


def _at(w: dict) -> str:
    """The commit and load a perf-weka result was measured at."""
    load = w["summary"].get("load") or []
    local = " with local changes" if w.get("dirty") or w.get("changed") else ""
    return (f"`{w['commit'][:7]}`{local}"
            + (f", load {min(load):.1f}–{max(load):.1f}" if load else ""))


def _batch(w: dict) -> int:
    """How many models our side fits in one call in a perf-weka result."""
    return int(w["setup"].get("fits_per_learner_per_fit_phase", 100))


def _single(w: dict, root: Path = ROOT) -> str:
    """Our ratios with one fit per call: from ``w`` when it has them, else from
    ``figures/perf-weka-single.json`` (with that run's batch ratios beside them, its commit
    and load), else that they were not measured."""
    s = w["summary"]["learners"]
    if all("ratio_per_core_single" in s[k] for k in LEARNERS if k in s):
        return "one fit per call: " + ", ".join(
            f"`{k}` ×{s[k]['ratio_per_core_single']:.1f}" for k in LEARNERS if k in s)
    path = Path(root) / WEKA_SINGLE_JSON
    if not path.is_file():
        return f"one fit per call: not measured at `{w['commit'][:7]}`"
    o = _read_result(path, "summary", {"learners", "cell"}, "perf-weka")
    t = o["summary"]["learners"]
    ks = [k for k in LEARNERS if k in t and "ratio_per_core_single" in t[k]]
    return ("one fit per call (another run, " + _at(o)
            + f", {len(o.get('repetitions', []))} repetition(s)): "
            + ", ".join(f"`{k}` ×{t[k]['ratio_per_core_single']:.1f}" for k in ks)
            + ", beside its batch of " + str(_batch(o)) + ": "
            + ", ".join(f"`{k}` ×{t[k]['ratio_per_core']:.1f}" for k in ks))


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _agreement(w: dict) -> str:
    """How many of Weka's predictions each learner gave on the timed folds."""
    agree = {k: w.get("agree", {})[k] for k in LEARNERS if k in w.get("agree", {})}
    if not agree:
        return "predictions not compared"
    counts = {(a["same"], a["of"]) for a in agree.values()}
    if len(counts) == 1:
        same, of = counts.pop()
        who = ", ".join(f"`{k}`" for k in agree)
        return (f"{who}: all {of:,} predictions Weka's" if same == of
                else f"{who}: {same:,} of {of:,} predictions Weka's")
    return "predictions Weka's: " + ", ".join(f"`{k}` {a['same']:,} of {a['of']:,}"
                                              for k, a in agree.items())
