"""README's performance section and docs/performance.md's figures are generated from
figures/perf-weka.json, figures/perf-startup.json and figures/REPRODUCE.md, and the committed
text is that generation."""

from __future__ import annotations

import doctest
import json
import re
import shutil
from pathlib import Path

import pytest

from simstudy.errors import SimstudyError
from simstudy.report import performance as perf

ROOT = Path(__file__).resolve().parents[1]


def test_committed_sections_equal_their_generation() -> None:
    for path, text in perf.generated(ROOT).items():
        assert path.read_text() == text, (
            f"{path.relative_to(ROOT)}: run python -m simstudy pages")


def test_every_number_comes_from_the_figures() -> None:
    w = json.loads((ROOT / "figures" / "perf-weka.json").read_text())
    readme = perf.readme_section(ROOT)
    for k in ("wnb", "j48", "ib1"):
        assert f"`{k}` ×{w['summary']['learners'][k]['ratio_per_core']:.1f}" in readme
    assert w["commit"][:7] in readme
    page = (ROOT / "figures" / "REPRODUCE.md").read_text()
    r = perf.read_reproduction(ROOT)
    assert r.commit in page and f"Total: {r.trials} trials" in page
    assert all("| " + " | ".join(row) + " |" in page for row in r.studies)
    assert f"{r.worker_hours} worker-hours" in readme
    st = json.loads((ROOT / "figures" / "perf-startup.json").read_text())
    assert f"bar drawn after {st['median']['warm']['bar_drawn']:.1f} s" in readme
    assert f"{st['median']['cell']['overhead_cpu']:.2f} s CPU" in readme
    assert st["commit"][:7] in readme
    est = (ROOT / "figures" / "reproduce-estimate.md").read_text()
    cpu_h = re.search(r"Estimated full reproduction: ([\d.]+) CPU-hours", est).group(1)
    assert f"{cpu_h} CPU-hours" in readme


def test_doctests() -> None:
    assert doctest.testmod(perf).failed == 0


def _repo(tmp_path: Path) -> Path:
    for rel in ("figures/perf-weka.json", "figures/perf-startup.json", "figures/REPRODUCE.md",
                "figures/REPRODUCE-intervals.md",
                "figures/reproduce-estimate.md", "README.md",
                "docs/performance.md", "figures/perf-weka-single.json"):
        if not (ROOT / rel).is_file():
            continue
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, tmp_path / rel)
    return tmp_path


def test_generation_replaces_only_the_marked_text_and_follows_the_measurement(tmp_path) -> None:
    root = _repo(tmp_path)
    readme = root / "README.md"
    before = readme.read_text()
    readme.write_text(perf.splice(before, "old numbers\n", "README.md"))
    assert perf.generated(root)[readme] == before
    # the measurement changes: the section follows it
    w = json.loads((root / "figures" / "perf-weka.json").read_text())
    w["summary"]["learners"]["wnb"]["ratio_per_core"] = 12.34
    (root / "figures" / "perf-weka.json").write_text(json.dumps(w))
    after = perf.generated(root)[readme]
    assert "`wnb` ×12.3" in after
    outside = [ln for ln in after.splitlines() if "×12.3" not in ln]
    assert len(outside) == len(before.splitlines()) - 1


def test_bad_inputs_are_one_line_errors(tmp_path) -> None:
    with pytest.raises(SimstudyError, match="'README.md' has no '<!-- performance:begin -->'"):
        perf.splice("no markers\n", "x\n", "README.md")
    root = _repo(tmp_path)
    (root / "figures" / "perf-weka.json").write_text("{}")
    with pytest.raises(SimstudyError, match="is not a perf-weka result"):
        perf.readme_section(root)
    (root / "figures" / "REPRODUCE.md").write_text("# nothing measured\n")
    with pytest.raises(SimstudyError, match="no 'Measured at commit' or 'Total:' line"):
        perf.read_reproduction(root)
    shutil.copy(ROOT / "figures" / "perf-weka.json", root / "figures" / "perf-weka.json")
    (root / "figures" / "REPRODUCE.md").unlink()
    with pytest.raises(SimstudyError, match="REPRODUCE.md' cannot be read"):
        perf.generated(root)


def test_per_fit_ratios_say_their_batch_and_the_single_fit_run(tmp_path) -> None:
    root = _repo(tmp_path)
    w = json.loads((root / "figures" / "perf-weka.json").read_text())
    readme = perf.readme_section(root)
    assert f"ours as a batch of {w['setup']['fits_per_learner_per_fit_phase']} models in one " \
           "call" in readme
    single = root / "figures" / "perf-weka-single.json"
    if not single.is_file():
        assert f"one fit per call: not measured at `{w['commit'][:7]}`" in readme
    for k, v in w["summary"]["learners"].items():
        v["ratio_per_core_single"] = {"wnb": 0.5, "j48": 1.25, "ib1": 3.0}[k]
    w["commit"], w["summary"]["load"] = "1234567abc", [5.0, 8.0]
    single.write_text(json.dumps(w))
    readme = perf.readme_section(root)
    assert ("one fit per call (another run, `1234567`, load 5.0–8.0, 3 repetition(s)): "
            "`wnb` ×0.5, `j48` ×1.2, `ib1` ×3.0, beside its batch of 100: `wnb` ×") in readme
