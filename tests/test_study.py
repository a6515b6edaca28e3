"""Study grid, canonical ids and seeding."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from simstudy.errors import SimstudyError
from simstudy.seeding import cell_key, trial_seed
from simstudy.spec import format_spec, parse_spec
from simstudy.study import Cell, Study, cells


def test_cell_id_is_canonical():
    c = Cell("iris", ("mlp-10", "mlp-10"), "5x2", ("t5x2cv", "F5x2cv"))
    assert c.id == "iris/mlp-10~mlp-10/5x2"


def test_cell_key_is_stable_across_processes():
    # sha256-based, so it never changes with PYTHONHASHSEED; pinned value guards the seeding
    import hashlib

    expected = int.from_bytes(hashlib.sha256(b"iris/mlp-10~mlp-10/5x2").digest()[:8], "big") >> 1
    assert cell_key("iris/mlp-10~mlp-10/5x2") == expected
    assert cell_key("a") != cell_key("b")


def test_trial_seed_depends_only_on_root_cell_and_run():
    a = np.random.default_rng(trial_seed(7, "iris/nmc~1nn/5x2", 3)).random(4)
    b = np.random.default_rng(trial_seed(7, "iris/nmc~1nn/5x2", 3)).random(4)
    c = np.random.default_rng(trial_seed(7, "iris/nmc~1nn/5x2", 4)).random(4)
    d = np.random.default_rng(trial_seed(8, "iris/nmc~1nn/5x2", 3)).random(4)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c) and not np.array_equal(a, d)


def test_grid_is_a_readable_dataframe():
    s = Study("s", cells(["iris", "wine"], [("nmc", "1nn"), ("lda", "nmc")], ["5x2"],
                         ["t5x2cv"], paper="x"), runs=3)
    g = s.grid()
    assert list(g["cell"]) == ["iris/nmc~1nn/5x2", "iris/lda~nmc/5x2",
                               "wine/nmc~1nn/5x2", "wine/lda~nmc/5x2"]
    assert set(g.columns) >= {"cell", "source", "learners", "design", "tests", "paper"}
    assert s.select("wine").grid()["source"].eq("wine").all()


@pytest.mark.parametrize("runs", [0, -1, 2.5, "x"])
def test_bad_runs(runs):
    with pytest.raises(SimstudyError, match="runs must be a positive integer"):
        Study("s", [], runs=runs)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, float("nan"), "a"])
def test_bad_alpha(alpha):
    with pytest.raises(SimstudyError, match="alpha"):
        Study("s", [], alpha=alpha)


@pytest.mark.parametrize("seed", [-1, 2.5, "x", True, None])
def test_bad_seed(seed):
    # SeedSequence would raise deep inside the first trial; the study says so at once
    with pytest.raises(SimstudyError, match=r"seed must be an integer in \[0, 2\*\*63 - 1\]"):
        Study("s", [], seed=seed)


def test_duplicate_cells_rejected():
    c = Cell("iris", ("nmc", "1nn"), "5x2", ("t5x2cv",))
    with pytest.raises(SimstudyError, match="twice"):
        Study("s", [c, c])


def test_filter_matching_nothing_names_the_filter():
    s = Study("s", [Cell("iris", ("nmc", "1nn"), "5x2", ("t5x2cv",))])
    with pytest.raises(SimstudyError, match="'zzz'"):
        s.select("zzz")


@given(st.text(alphabet="abcxyz-0123456789", min_size=1, max_size=8),
       st.dictionaries(st.text(alphabet="abk", min_size=1, max_size=3),
                       st.text(alphabet="0123456789.", min_size=1, max_size=4), max_size=3))
def test_spec_round_trip(name, params):
    assert parse_spec(format_spec(name, params)) == (name, params)


def test_spec_nested_commas():
    assert parse_spec("gauss[mu1=(1,1),n=200]") == ("gauss", {"mu1": "(1,1)", "n": "200"})
    with pytest.raises(SimstudyError):
        parse_spec("x[a]")
