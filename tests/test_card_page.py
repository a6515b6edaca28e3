"""The card compares like with like and reads as a page: power at matched size on the same
trials, size ranked by its distance from alpha, one comparator in the verdict, every zero
explained, counts written one way, and card.html checked in headless Chromium (verdict
first, no literal ``**``, every table within the page's width, no local path)."""

import importlib.util
import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from simstudy import testcard as card_mod
from simstudy.aggregate import tango_paired
from simstudy.report.card import local_paths_out, write_card
from simstudy.stats import folds
from simstudy.testcard import _matched_frame, _size_key, card

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
from browser import Chromium, find_chromium  # noqa: E402


def _example(name):
    spec = importlib.util.spec_from_file_location(f"_ex_{name}", ROOT / "examples" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, name)


# --- matched size, ranks -------------------------------------------------------------------

def test_power_is_compared_at_matched_size_on_the_trials_both_read():
    key0, key1 = ("s", "h0", ""), ("s", "h1", "")
    runs = np.arange(1000)
    p_new0 = np.linspace(0.001, 1.0, 1000)          # rejects 49 of 1000 at 0.05
    p_b0 = np.linspace(0.3, 1.0, 1000)              # never rejects at 0.05
    rng = np.random.default_rng(7)
    p_new1, p_b1 = rng.uniform(0, 0.2, 500), rng.uniform(0, 0.6, 500)
    h0p = {"new": [(key0, runs, p_new0)], "b": [(key0, runs[::-1], p_b0[::-1])]}
    # the baseline holds runs 0..399 of the H1 cell only, in another order
    h1p = {"new": [(key1, runs[:500], p_new1)],
           "b": [(key1, runs[:400][::-1], p_b1[:400][::-1])]}
    m = _matched_frame("new", ["new", "b"], 0.05, h0p, h1p).iloc[0]
    # by hand: the largest level with at most 50 of 1000 H0 rejections (p < level)
    a_new, a_b = p_new0[50], p_b0[50]
    assert (m["new_alpha_matched"], m["base_alpha_matched"]) == (a_new, a_b)
    assert (m["new_size"], m["base_size"], m["h0_trials"]) == (0.049, 0.0, 1000)
    x, y = p_new1[:400] < a_new, p_b1[:400] < a_b
    assert m["h1_trials"] == 400
    assert (m["new_power"], m["base_power"]) == (x.mean(), y.mean())
    n10, n01 = int((x & ~y).sum()), int((~x & y).sum())
    assert (m["n10"], m["n01"]) == (n10, n01)
    assert (m["ci_low"], m["ci_high"]) == pytest.approx(tango_paired(n10, n01, 400))
    assert m["base_power_nominal"] == (p_b1[:400] < 0.05).mean()


def test_size_ranks_by_distance_from_alpha_over_size_last():
    size = pd.Series([0.04, 0.06, 0.0, 0.05, np.nan])
    ranks = _size_key(size, 0.05).rank(method="min").tolist()
    assert ranks[:4] == [2.0, 4.0, 3.0, 1.0] and np.isnan(ranks[4])


def test_midranks_by_pairs_equal_midranks_by_sorting():
    rng = np.random.default_rng(3)
    for n in (2, 5, 10, 13, 16):
        x = rng.integers(0, 4, size=(300, n)).astype(float)
        valid = rng.random((300, n)) > 0.2
        pairs = folds._midranks2(x, valid)
        keep, folds.PAIRWISE_MAX_N = folds.PAIRWISE_MAX_N, 0
        try:
            sort = folds._midranks2(x, valid)
        finally:
            folds.PAIRWISE_MAX_N = keep
        assert np.array_equal(pairs[0], sort[0]) and np.array_equal(pairs[1], sort[1])


def test_local_paths_are_dropped():
    assert local_paths_out(f"shipped trials '{ROOT}/figures/type1/trials'") == \
        "shipped trials 'figures/type1/trials'"
    assert local_paths_out("store '/home/x/y/s.sqlite', 1/25, n_test/n_train") == \
        "store 's.sqlite', 1/25, n_test/n_train"


# --- a card over an H0 and an H1 study, written from elsewhere ------------------------------

@pytest.fixture(scope="module")
def written(tmp_path_factory):
    out = tmp_path_factory.mktemp("card")
    import os

    here = os.getcwd()
    os.chdir(out)  # the shipped trials then lie outside the working directory
    try:
        c = card(_example("sign_flip"), ["type1", "gaussian"], runs=20)
        write_card(c, out / "c")
    finally:
        os.chdir(here)
    return c, out / "c"


def test_the_verdict_names_one_baseline_at_matched_size_with_counts(written):
    c, _ = written
    comp = card_mod.comparator(c.matched, c.paired)
    assert set(re.findall(r"against ([\w-]+)'s", c.verdict)) == {comp}
    row = c.matched.set_index("baseline").loc[comp]
    assert row["matched"] and row["h1_trials"] == c.matched["h1_trials"].max()
    # the strongest rival at matched size among those read on the most H1 trials
    top = c.matched[c.matched["h1_trials"] == row["h1_trials"]]
    assert row["base_power"] == top["base_power"].max()
    assert (f"power at matched size (levels {row['new_alpha_matched']:.3f} and "
            f"{row['base_alpha_matched']:.3f}" in c.verdict)
    assert (f"{row['new_power']:.3f} against {comp}'s {row['base_power']:.3f} on the same "
            f"{int(row['h1_trials']):,} trials" in c.verdict)
    rank = int(c.summary.loc[c.summary["new"], "rank_power"].iloc[0])
    assert f"of {int(c.summary['rank_power'].notna().sum())} tests by power at matched size" \
        in c.verdict and re.search(rf"\b{rank}(st|nd|rd|th) of", c.verdict)


def test_every_zero_count_is_explained(written):
    c, _ = written
    s = c.summary
    for col in ("size_cells", "power_cells", "unknown_cells", "rep_groups"):
        for t, w in zip(s.loc[s[col] == 0, "test"], s.loc[s[col] == 0, "why_zero"], strict=True):
            assert f"{col} 0:" in w, (t, col)
    # the stored 5x2cv t is in type1 only, no H1 cell there
    t5 = s.set_index("test").loc["t5x2cv"]
    assert t5["power_cells"] == 0 and "gaussian" in t5["why_zero"]


def test_the_markdown_writes_counts_one_way_and_no_local_path(written):
    c, out = written
    md = (out / "card.md").read_text()
    assert str(ROOT) not in md and str(out) not in md
    assert f"{c.trials:,} stored trials read" in md
    # 1,920 trials, never 1920 trials: in prose and in table cells
    assert not re.search(r"(?<![\d,.])\d{4,} (stored )?trials", md)
    assert not re.search(r"\| \d{4,}( \(mixed\))? \|", md)
    assert re.search(r"\| \d,\d{3} \|", md)


def test_the_page_reads_verdict_first_without_markdown_marks(written):
    c, out = written
    page = (out / "card.html").read_text()
    assert "**" not in page.split("<script>")[0].split("</style>")[1]
    assert str(ROOT) not in page and str(out) not in page
    body = page.split("<body>")[1]
    assert body.startswith("<h1>") and '<p class="verdict-box">' in body.split("</h1>")[1][:40]
    assert 'id="matched"' in page and "card_matched.png" in page


def test_the_page_in_chromium(written, tmp_path):
    exe = find_chromium()
    if exe is None:
        pytest.skip("no Chromium on PATH (Debian: apt-get install chromium)")
    c, out = written
    facts_js = """(() => {
      document.querySelectorAll('details').forEach(d => d.open = true);
      const t = [...document.querySelectorAll('table')].map(
        x => [x.id, x.scrollWidth, x.parentElement.clientWidth]);
      const p = document.querySelector('h1 + p');
      return {page: document.documentElement.scrollWidth, view: window.innerWidth, tables: t,
              text: document.body.innerText, first: p ? p.className + ': ' + p.innerText : '',
              hrefs: [...document.querySelectorAll('a')].map(a => a.getAttribute('href'))};
    })()"""
    with Chromium(exe) as browser:
        for width in (1280, 1000):
            r = browser.load(out / "card.html", facts_js, width=width)
            f = r.facts
            assert not r.errors, r.errors
            assert f["page"] <= f["view"], (width, f["page"])
            wide = [x for x in f["tables"] if x[1] > x[2] + 1]
            assert not wide, (width, wide)
            assert "**" not in f["text"]
            assert f["first"].startswith("verdict-box: " + c.verdict.replace("`", "")[:60])
            assert not re.search(r"(?<![\w.])/(root|home|tmp|work|Users)/", f["text"])
            assert all(h and not h.startswith("/") and "://" not in h for h in f["hrefs"])
            assert all(u.startswith(("file://", "data:")) for u in r.requests)
            (tmp_path / f"card-{width}.png").write_bytes(r.screenshot)
            assert r.screenshot[:8] == b"\x89PNG\r\n\x1a\n" and len(r.screenshot) > 10_000


def test_the_benchmark_names_every_phase_the_card_times(written):
    from simstudy.perf.card import _PHASES, _render_phases

    c, _ = written
    assert set(_PHASES) | {"total"} == set(c.seconds)
    ph = {"case": "x", "load": 1.0, "trials": c.trials, "card_phases": c.seconds,
          "decode_all": {"wall_s": 1.7, "cpu_s": 1.6}, "card": {"wall_s": 9.0, "cpu_s": 8.0},
          "write": {"wall_s": 1.0, "cpu_s": 0.9}, "figures": {"wall_s": 2.0, "cpu_s": 1.9}}
    table = "\n".join(_render_phases(ph))
    for k in _PHASES:
        assert f"| card: {k} | {c.seconds[k]:.2f} |" in table or \
            f"| card: {k} | {c.seconds[k]:.1f} |" in table
    assert "1.70 s wall, 1.60 s CPU" in table
