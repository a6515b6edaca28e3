"""One registry idiom for studies, sources, designs and tests; ``list`` describes all."""

from __future__ import annotations

import sys

import numpy as np
import pytest
import simstudy.studies

from simstudy import catalog
from simstudy.cli import main
from simstudy.designs import DESIGNS
from simstudy.errors import SimstudyError
from simstudy.sources import SOURCES, describe_sources, get_source
from simstudy.sources.bundled import bundled_names
from simstudy.stats.registry import TESTS

STUDY_FILE = '''
from simstudy.catalog import register_study
from simstudy.study import Study, cells


@register_study("tmp-discovered")
def build() -> Study:
    """a study found by importing simstudy.studies (test)"""
    return Study("tmp-discovered", cells(["iris"], [("nmc", "1nn")], ["5x2"], ["t5x2cv"]),
                 runs=3, seed=1)
'''


@pytest.fixture
def fresh_catalog(monkeypatch):
    monkeypatch.setattr(catalog, "REGISTRY", catalog.REGISTRY.copy())
    monkeypatch.setattr(catalog, "STUDIES", dict(catalog.STUDIES))
    monkeypatch.setattr(catalog, "_discovered", False)
    return catalog


def test_a_study_is_one_decorated_build(fresh_catalog):
    @fresh_catalog.register_study("tmp-decorated")
    def build():
        """two cells on wine (test)"""
        from simstudy.study import Study, cells

        return Study("tmp-decorated", cells(["wine"], [("nmc", "max")], ["5x2"],
                                            ["t5x2cv", "F5x2cv"]), runs=4, seed=2)

    s = fresh_catalog.get_study("tmp-decorated", runs=2)
    assert [c.id for c in s.cells] == ["wine/nmc~max/5x2"] and s.runs == 2 and s.seed == 2
    assert ("tmp-decorated", "two cells on wine (test)") in fresh_catalog.describe_studies()
    with pytest.raises(SimstudyError, match="'tmp-decorated\\[x=1\\]'"):
        fresh_catalog.REGISTRY.get("tmp-decorated[x=1]")


def test_a_new_module_in_studies_is_found_by_its_decorator(fresh_catalog, tmp_path,
                                                          monkeypatch):
    (tmp_path / "tmp_discovered_study.py").write_text(STUDY_FILE)
    monkeypatch.setattr(simstudy.studies, "__path__", [*simstudy.studies.__path__,
                                                       str(tmp_path)])
    monkeypatch.delitem(sys.modules, "simstudy.studies.tmp_discovered_study", raising=False)
    assert "tmp-discovered" not in fresh_catalog.REGISTRY
    s = fresh_catalog.get_study("tmp-discovered")
    assert [c.id for c in s.cells] == ["iris/nmc~1nn/5x2"] and s.runs == 3
    assert dict(fresh_catalog.describe_studies())["tmp-discovered"] == (
        "a study found by importing simstudy.studies (test)")
    sys.modules.pop("simstudy.studies.tmp_discovered_study", None)


def test_unknown_study_names_the_choices(fresh_catalog):
    with pytest.raises(SimstudyError) as e:
        fresh_catalog.get_study("tpye1")
    assert "unknown study 'tpye1'; valid choices:" in str(e.value) and "type1" in str(e.value)


def test_a_registered_study_whose_module_breaks_is_not_called_unknown(fresh_catalog, tmp_path,
                                                                     monkeypatch, capsys):
    # A registered study whose module raises on import (here: it imports a name that does
    # not exist, as a stale checkout would) used to be reported as "unknown study", while the
    # choices listed that very name.
    (tmp_path / "tmp_broken_study.py").write_text(
        "from simstudy.report.style import no_such_helper\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "tmp_broken_study", raising=False)
    fresh_catalog.REGISTRY.register("tmp-broken", fresh_catalog._lazy("tmp_broken_study:build"),
                                    description="a study whose module fails (test)")
    with pytest.raises(SimstudyError) as e:
        fresh_catalog.get_study("tmp-broken")
    msg = str(e.value)
    assert "unknown" not in msg
    assert "'tmp-broken'" in msg and "'tmp_broken_study'" in msg
    assert "ImportError" in msg and "no_such_helper" in msg
    assert "tmp-broken" not in fresh_catalog.available_studies()
    monkeypatch.setattr("simstudy.catalog.REGISTRY", fresh_catalog.REGISTRY)
    assert main(["run", "tmp-broken", "--runs", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no_such_helper" in err and "Traceback" not in err


def test_sources_are_registry_entries_and_paths_are_still_sniffed(tmp_path):
    names = SOURCES.names()
    assert set(bundled_names()) <= set(names)
    assert {"gauss", "wang-case{k}", "ban", "openml:NAME", "PATH"} <= set(names)
    assert describe_sources() == SOURCES.describe()
    assert all(desc.strip() for _, desc in describe_sources())
    p = tmp_path / "two.csv"
    p.write_text("a,b,class\n" + "".join(f"{i},{i % 3},{'xy'[i % 2]}\n" for i in range(20)))
    src = get_source(f"{p}[label=class]")
    d = src.sample(np.random.default_rng(0))
    assert d.X.shape == (20, 2) and sorted(np.bincount(d.y)) == [10, 10]
    assert type(get_source("wang-case2")).__name__ == "GaussianSource"
    assert get_source("openml:iris").name == "openml:iris"
    with pytest.raises(SimstudyError, match="unknown source 'irsi'; valid choices: .*iris"):
        get_source("irsi")


def test_list_prints_a_description_for_every_entry(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    sections: dict[str, list[str]] = {}
    for line in out.splitlines():
        if line and not line.startswith(" "):
            sections[line.rstrip(":")] = []
        elif line.strip():
            name, _, desc = line.strip().partition(" ")
            assert desc.strip(), f"no description for {name!r} in {list(sections)[-1]}"
            sections[list(sections)[-1]].append(name)
    assert {"studies", "tests", "learners", "designs", "data sets"} <= set(sections)
    assert set(sections["tests"]) == set(TESTS.names())
    assert set(sections["designs"]) == set(DESIGNS.names())
    assert set(sections["data sets"]) == set(SOURCES.names())
    assert set(catalog.STUDIES) <= set(sections["studies"])


def test_a_new_kind_of_source_is_one_decorated_factory(monkeypatch):
    import simstudy.sources as sources_pkg
    from simstudy.core import Dataset
    from simstudy.sources.base import Source

    reg = SOURCES.copy()
    monkeypatch.setattr(sources_pkg, "SOURCES", reg)

    class Const(Source):
        fixed = True

        def __init__(self, n: int) -> None:
            self.name, self.n = f"tmp-const[n={n}]", n

        def sample(self, rng):
            X = np.arange(2.0 * self.n).reshape(self.n, 2)
            return Dataset(self.name, X, np.arange(self.n) % 2, ("a", "b"))

    @reg.register("tmp-const")
    def _const(spec, params):
        """n rows of a counting pattern (test)"""
        reg.check_params(spec, params, {"n"})
        return Const(int(params.get("n", 4)))

    assert get_source("tmp-const[n=6]").sample(None).X.shape == (6, 2)
    assert ("tmp-const", "n rows of a counting pattern (test)") in sources_pkg.describe_sources()
    with pytest.raises(SimstudyError, match="'m'"):
        get_source("tmp-const[m=1]")
