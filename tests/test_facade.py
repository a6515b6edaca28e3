"""The Python entry point (``import simstudy as ss``) and the one plan per run behind it."""

from __future__ import annotations

import collections
import contextlib
import io

import pytest

from simstudy import runner
from simstudy import sources as sources_pkg
from simstudy.store import Store


@pytest.fixture
def calls(monkeypatch):
    """Count what a run does more than once if it plans twice: resolving every source
    (keying), checking every cell (validation) and reading a cell's stored runs."""
    n: collections.Counter = collections.Counter()

    def counted(obj, name):
        f = getattr(obj, name)

        def g(*a, **k):
            n[name] += 1
            return f(*a, **k)

        monkeypatch.setattr(obj, name, g)

    counted(sources_pkg, "get_source")
    counted(runner, "check_folds")
    counted(Store, "done_runs")
    return n


def test_a_cli_run_plans_once(tmp_path, calls):
    from simstudy.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["run", "demo", "--runs", "2", "--store", str(tmp_path / "s.sqlite"),
                     "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    # demo has 6 cells: validated once, each cell's stored runs read once, its source
    # resolved for the keys once (the report page resolves a few more; 14 when keyed twice)
    assert calls["check_folds"] == 6
    assert calls["done_runs"] == 6
    assert calls["get_source"] <= 8


def test_replace_keeps_what_was_established_unless_the_cells_change():
    from simstudy.catalog import get_study

    s = get_study("demo")
    assert s.is_keyed
    runner.validate(s)
    assert s.is_valid
    t = s.replace(seed=3, runs=7)
    assert t.is_keyed and t.is_valid
    assert s.select("iris").is_valid
    u = s.replace(cells=s.cells[:2])
    assert not u.is_keyed and not u.is_valid
