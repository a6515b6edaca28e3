"""figures/REPRODUCE.md's numbers come from a store's trial rows and runs log."""

import doctest
import subprocess
import sys

import pytest

from simstudy.report import reproduce
from simstudy.store import Store


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    path = tmp_path_factory.mktemp("repro") / "s.sqlite"
    r = subprocess.run([sys.executable, "-m", "simstudy", "run", "demo", "--runs", "2",
                        "--store", str(path), "--out", str(path.parent / "out"),
                        "--no-progress"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return path


def test_totals_equal_the_trial_rows(demo_store):
    with Store(demo_store, readonly=True) as st:
        trials = st.trials()
    per_study, per_learner, per_source = reproduce.summary([demo_store])
    assert int(per_study["trials"].sum()) == len(trials) == 12  # 6 cells x 2 runs
    assert per_study["worker_s"].sum() == pytest.approx(trials["seconds"].sum())
    # the per-learner split shares each trial's seconds, so it adds up to the same total
    assert per_learner["seconds"].sum() == pytest.approx(trials["seconds"].sum())
    assert per_study["invocations"].tolist() == [1]
    assert per_study["wall_s"].iloc[0] > 0


def test_page_names_commit_and_every_study(demo_store):
    text = reproduce.render([demo_store], commit="abc1234")
    assert "`abc1234`" in text and "| `demo` | 6 | 12 |" in text


def test_module_example_runs():
    assert doctest.testmod(reproduce).failed == 0


def test_the_cost_command_writes_the_page(demo_store, tmp_path, capsys):
    from simstudy.cli import main

    out = tmp_path / "REPRODUCE.md"
    assert main(["cost", str(demo_store), "--commit", "abc1234", "--out", str(out)]) == 0
    assert out.read_text() == reproduce.render([demo_store], commit="abc1234")
    assert capsys.readouterr().out == f"wrote {out}\n"
    assert main(["cost", str(tmp_path / "nope.sqlite"), "--commit", "abc1234"]) == 2
    assert "nope.sqlite' does not exist" in capsys.readouterr().err
