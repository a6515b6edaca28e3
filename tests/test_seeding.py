"""ModelSeeds: the lazy model seeds equal the list the runner used to build, item for item."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simstudy.seeding import ModelSeeds, model_seed


def _eager(root, cid, runs, k, per_run):
    return [model_seed(root, cid, run, k, m) for run in runs for m in range(per_run)]


@settings(max_examples=60, deadline=None)
@given(root=st.integers(0, 2**32), runs=st.lists(st.integers(0, 10_000), min_size=1, max_size=4),
       k=st.integers(0, 2), per_run=st.integers(1, 12), a=st.integers(-60, 60),
       b=st.integers(-60, 60), step=st.sampled_from([None, 1, 2, 3]))
def test_items_and_slices_equal_the_eager_list(root, runs, k, per_run, a, b, step):
    cid = "iris/nmc~nmc/5x2cv"
    lazy, eager = ModelSeeds(root, cid, runs, k, per_run), _eager(root, cid, runs, k, per_run)
    assert len(lazy) == len(eager)
    for x, y in zip(lazy, eager, strict=True):
        assert (x.entropy, x.spawn_key) == (y.entropy, y.spawn_key)
    sub, ref = lazy[a:b:step], eager[a:b:step]
    assert [s.spawn_key for s in sub] == [s.spawn_key for s in ref]
    assert [s.generate_state(2).tolist() for s in sub] == [s.generate_state(2).tolist() for s in ref]


def test_index_beyond_the_end_raises_like_a_list():
    seeds = ModelSeeds(0, "c", (1, 2), 0, 3)
    assert seeds[-1].spawn_key == model_seed(0, "c", 2, 0, 2).spawn_key
    with pytest.raises(IndexError):
        seeds[6]
