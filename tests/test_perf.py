"""Smoke test of the benchmark: a tiny run returns entries with the required keys."""

from __future__ import annotations

import json
import os

import pytest

from simstudy.cli import main
from simstudy.perf import KEYS, run_perf


def test_tiny_run_has_required_keys(tmp_path) -> None:
    path = tmp_path / "perf.json"
    out = run_perf(quick=True, json_path=path, only=["max", "nmc"], datasets=["iris"], runs=1, memory=False, echo=False)
    assert [e["name"] for e in out] == ["max", "nmc"]
    for e in out:
        assert set(KEYS) <= set(e)
        assert e["n_models"] == 10 and e["dataset"] == "iris"
        assert e["fast_s"] > 0 and e["reference_s"] > 0
        assert e["agree"] == 1.0
    assert json.loads(path.read_text())[0]["name"] == "max"


def test_cli_rejects_unknown_option(capsys) -> None:
    # one line, exit 2, before any benchmark starts
    assert main(["perf", "--nope"]) == 2
    assert "--nope" in capsys.readouterr().err
    assert main(["perf", "--quick", "card"]) == 2
    assert "belong to the learner benchmark" in capsys.readouterr().err
    assert main(["perf", "card", "--cases", "nope"]) == 2
    assert "unknown case 'nope'; valid choices: corrected_t" in capsys.readouterr().err
    assert main(["perf", "--json", "/no/such/folder/p.json"]) == 2
    assert "'/no/such/folder/p.json' must be a file in an existing" in capsys.readouterr().err


def test_startup_benchmark_reads_the_bar_through_a_terminal(tmp_path, monkeypatch):
    """perf.startup sees the progress bar as a terminal shows it (drawn, then moved), and a
    one-cell run's overhead is its process's CPU less what its trials recorded."""
    from simstudy.perf import startup

    monkeypatch.setattr(startup, "COMMAND1", ["demo", "--runs", "2", "--jobs", "1"])
    env = dict(os.environ, OMP_NUM_THREADS="1")
    t = startup.command1(tmp_path, env)
    assert 0 < t["bar_drawn"] <= t["bar_moved"] <= t["end"], t
    assert t["cpu"] > 0
    (tmp_path / "cell").mkdir()
    c = startup.one_cell(tmp_path / "cell", env)
    assert c["trials"] == 10 and c["compute"] > 0
    assert c["overhead_cpu"] == pytest.approx(c["cpu"] - c["compute"])
    res = {"commit": "abc", "date": "now", "machine": "m", "load_start": [1, 1, 1],
           "load_end": [2, 2, 2], "repeats": 1, "command1": "python -m simstudy demo",
           "cell": startup.CELL, "median": {"warm": t, "cold": t, "cell": c}}
    page = startup.render(res)
    assert f"| warm | {t['bar_drawn']:.2f} | {t['bar_moved']:.2f} |" in page
    assert f"**{c['overhead_cpu']:.2f}**" in page
