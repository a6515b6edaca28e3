"""The Python entry point (``import simstudy as ss``) and the one plan per run behind it."""

from __future__ import annotations

import collections
import contextlib
import doctest
import importlib
import io
import subprocess
import sys

import pytest

from simstudy import planning
from simstudy import sources as sources_pkg
from simstudy.store import Store


def _fresh(code: str) -> list[str]:
    """What ``code`` prints in a new interpreter, as words."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True).stdout.split()


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
    counted(planning, "check_folds")
    counted(Store, "done_runs")
    return n


def test_a_cli_run_plans_once(tmp_path, calls):
    from simstudy.cli import main

    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["run", "demo", "--runs", "2", "--store", str(tmp_path / "s.sqlite"),
                     "--out", str(tmp_path / "out"), "--no-progress"]) == 0
    # demo has 6 cells: validated once, each cell's stored runs read once, its source
    # resolved for the keys once (the report page resolves a few more; 14 when keyed twice),
    # and once more per data set for the run's missing-value note (demo has 2)
    assert calls["check_folds"] == 6
    assert calls["done_runs"] == 6
    assert calls["get_source"] <= 8 + 2


def test_keying_is_a_fact_of_each_cell_kept_by_replace_and_select(calls):
    from simstudy.catalog import get_study
    from simstudy.study import Cell, Study

    s = get_study("demo")
    n = calls["get_source"]
    assert all(c.source_key == "" for c in s.cells)  # keyed: the spec is the key
    for t in (s.replace(seed=3, runs=7), s.select("iris"), s.replace(cells=s.cells[:2])):
        assert t.keyed() is t  # already keyed: nothing resolved again
    assert calls["get_source"] == n
    u = Study("u", [Cell("iris", ("nmc", "1nn"), "5x2", ())])
    assert u.cells[0].source_key is None and u.keyed().cells[0].source_key == ""
    assert calls["get_source"] == n + 1


@pytest.mark.parametrize("module", ["simstudy", "simstudy.api", "simstudy.params",
                                    "simstudy.scope", "simstudy.seeding", "simstudy.errors",
                                    "simstudy.catalog"])
def test_docstring_examples_run(module):
    """The facade's examples (and those of the ground modules under it) run as written."""
    res = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 0


def test_import_simstudy_stays_cheap():
    code = ("import sys, simstudy as ss; heavy = [m for m in ('numpy', 'pandas', 'sklearn') "
            "if m in sys.modules]; print(heavy, callable(ss.card), callable(ss.bench), "
            "'numpy' in sys.modules)")
    assert _fresh(code) == ["[]", "True", "True", "True"]  # nothing heavy until a name is used


def test_the_verbs_are_the_functions_of_the_api():
    """``ss.card``, ``ss.bench`` and ``ss.merge`` are plain functions; the modules behind
    them have names of their own, so importing one binds nothing over a verb."""
    import types

    import simstudy as ss
    from simstudy import api, benchmark, merging, testcard  # noqa: F401 - bound on the package

    for verb in ("card", "bench", "merge"):
        f = getattr(ss, verb)
        assert isinstance(f, types.FunctionType) and f is getattr(api, verb), verb
    assert ss.benchmark is sys.modules["simstudy.benchmark"] and hasattr(ss.benchmark,
                                                                          "bench_choice")


def test_run_and_collect_agree_with_the_store(tmp_path):
    import simstudy as ss

    path = tmp_path / "s.sqlite"
    r = ss.run("demo", runs=3, store=path, filter="wine", seeds=2, progress=False)
    assert r.trials_computed == r.trials_total == 3 * 3 * 2  # 3 cells, 3 runs, 2 seeds
    assert sorted(r.result.trials["seed"].unique()) == [0, 1]
    again = ss.run("demo", runs=3, store=path, filter="wine", progress=False)
    assert again.trials_computed == 0 and again.trials_done_before == 9
    got = ss.collect("demo", store=path, seed=0, filter="wine")
    assert got.table[["cell", "test", "rejects"]].equals(again.table[["cell", "test", "rejects"]])


@pytest.mark.parametrize("call, needle", [
    (lambda ss, p: ss.run("nosuch", store=p), "valid choices"),
    (lambda ss, p: ss.run("demo", runs=0, store=p), "runs must be a positive integer <= 1000000, got 0"),
    (lambda ss, p: ss.run("demo", seeds=0, store=p), "seeds must be a positive integer"),
    (lambda ss, p: ss.run("demo", sets=2, store=p), "sets 2"),
    (lambda ss, p: ss.run("demo", store=p, filter="nomatch"), "'nomatch'"),
    (lambda ss, p: ss.collect("demo", store=p), "does not exist"),
])
def test_bad_input_is_one_error_and_writes_nothing(tmp_path, call, needle):
    import simstudy as ss

    path = tmp_path / "s.sqlite"
    with pytest.raises(ss.SimstudyError, match=needle):
        call(ss, path)
    assert not path.exists()


def test_built_in_studies_are_indexed_from_their_decorators_without_importing_them():
    code = ("import sys; from simstudy import catalog; "
            "print(len(catalog.STUDIES), catalog.STUDIES['type1'], "
            "[m for m in sys.modules if m.startswith('simstudy.studies.')])")
    assert _fresh(code) == ["20", "simstudy.studies.alpaydin1999:build_type1", "[]"]
    from simstudy import catalog

    build = catalog.get_study("demo") and catalog._load("demo")
    assert f"{build.__module__}:{build.__qualname__}" == catalog.STUDIES["demo"]


def test_list_sources_is_the_registry():
    from simstudy.sources import SOURCES, list_sources

    got = list_sources()
    assert len(got) == len(set(got)) and "iris" in got and "wang-case8" in got
    assert {"ban[src=4]", "gauss[...]", "openml:NAME", "PATH.csv"} <= set(got)
    assert all(n in got or e.choices for e in SOURCES for n in [e.name])
