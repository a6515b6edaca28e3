"""Resampling designs: partition structure, sizes, overlaps, stratification, seeding."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simstudy.designs import Design, get_design, list_designs
from simstudy.errors import SimstudyError

ALL = [
    "5x2",
    "5x2cv",
    "10x10cv",
    "1x10cv",
    "3x5cv[strat=0]",
    "b5x2",
    "b5x2[strat=1]",
    "b3x2",
    "poor5x2",
    "poor5x2[swap=0.1]",
    "resample",
    "resample[r=7,train=0.75,strat=1]",
    "holdout",
    "holdout[train=0.66]",
]


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def labels(n: int, props=(0.5, 0.3, 0.2), seed: int = 1) -> np.ndarray:
    return np.random.default_rng(seed).choice(len(props), size=n, p=props)


def overlap(a: np.ndarray, b: np.ndarray) -> int:
    return int(np.sum(a & b))


@pytest.mark.parametrize("spec", ALL)
def test_shape_dtype_canonical_and_disjoint(spec: str) -> None:
    d = get_design(spec)
    assert isinstance(d, Design)
    assert get_design(d.name).name == d.name  # canonical id round-trips
    y = labels(61)
    train = d.masks(y, rng())
    assert train.shape == (*d.shape, 61) and train.dtype == bool
    test = d.test_masks(train)
    assert not np.any(train & test)  # disjoint
    assert np.all(train | test)  # every instance is used in each fold
    assert np.all(train.sum(-1) >= 1) and np.all(test.sum(-1) >= 1)


@pytest.mark.parametrize("spec", ALL)
def test_determinism_and_seed_sensitivity(spec: str) -> None:
    d, y = get_design(spec), labels(40)
    assert np.array_equal(d.masks(y, rng(3)), d.masks(y, rng(3)))
    assert not np.array_equal(d.masks(y, rng(3)), d.masks(y, rng(4)))


def test_canonical_names_and_aliases() -> None:
    assert get_design("5x2").name == "5x2"
    assert get_design("5x2[strat=1]").name == "5x2cv"
    assert get_design("5x2cv[strat=0]").name == "5x2"
    assert get_design("10x10cv").shape == (10, 10)
    assert get_design("resample[r=1,train=0.5]").name == "holdout"
    assert get_design("resample[r=100,train=0.9]").name == "resample[r=100]"
    assert get_design("b3x2").shape == (3, 2) and get_design("b5x2").shape == (5, 2)
    assert "b5x2" in list_designs()


@pytest.mark.parametrize(
    "spec",
    [
        "4x3",
        "nope",
        "b5x2[x=1]",
        "resample[train=1.5]",
        "holdout[train=abc]",
        "5x2[strat=maybe]",
        "poor5x2[swap=0.7]",
        "0x10cv",
        "resample[train=0]",
    ],
)
def test_bad_specs_raise(spec: str) -> None:
    with pytest.raises(SimstudyError) as e:
        get_design(spec)
    assert repr(spec) in str(e.value) or spec.split("[")[0] in str(e.value)


@pytest.mark.parametrize(
    "spec,n",
    [
        ("b5x2", 7),
        ("b3x2", 3),
        ("10x10cv", 9),
        ("5x2", 1),
        ("holdout[train=0.9]", 4),
        ("poor5x2[swap=0.5]", 5),
    ],
)
def test_too_small_raises_naming_design_and_n(spec: str, n: int) -> None:
    d = get_design(spec)
    with pytest.raises(SimstudyError, match=f"n={n}") as e:
        d.masks(np.zeros(n, dtype=int), rng())
    assert d.name in str(e.value)


def test_minimum_sizes_work() -> None:
    for spec, n in [("b5x2", 8), ("b3x2", 4), ("10x10cv", 10), ("5x2", 2)]:
        m = get_design(spec).masks(np.zeros(n, dtype=int), rng())
        assert np.all(m.sum(-1) >= 1) and np.all((~m).sum(-1) >= 1)


@given(n=st.integers(2, 60), seed=st.integers(0, 2**32 - 1), strat=st.booleans())
@settings(max_examples=60, deadline=None)
def test_two_fold_halves(n: int, seed: int, strat: bool) -> None:
    train = get_design("5x2cv" if strat else "5x2").masks(labels(n), rng(seed))
    assert np.array_equal(train[:, 0], ~train[:, 1])  # the two folds partition the data
    # n odd: fold 0 trains on the smaller half n // 2, fold 1 on the larger
    assert np.all(train[:, 0].sum(-1) == n // 2)
    assert np.all(train[:, 1].sum(-1) == n - n // 2)


@given(n=st.integers(10, 80), k=st.integers(2, 10), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_kfold_test_sets_partition_and_stratify(n: int, k: int, seed: int) -> None:
    y = labels(n, seed=seed)
    train = get_design(f"2x{k}cv").masks(y, rng(seed))
    test = ~train
    assert np.all(test.sum(axis=1) == 1)  # each instance is tested exactly once per replication
    sizes = test.sum(-1)
    assert sizes.max() - sizes.min() <= 1
    # stratification: each class appears n_c / k times in every test fold, within one
    for c in np.unique(y):
        n_c = np.sum(y == c)
        per_fold = (test & (y == c)).sum(-1)
        assert np.all(np.abs(per_fold - n_c / k) < 1)


def test_unstratified_kfold_does_not_stratify_always() -> None:
    # an honest control for the test above: without strat, class counts per fold wander
    y = labels(200)
    test = ~get_design("20x10cv[strat=0]").masks(y, rng(0))
    dev = np.abs((test & (y == 0)).sum(-1) - np.sum(y == 0) / 10)
    assert dev.max() >= 2


def test_random_halves_are_uniform() -> None:
    # each instance lands in fold 0's training half with probability 1/2 (n even)
    n, reps = 12, 4000
    train = get_design(f"{reps}x2").masks(np.zeros(n, dtype=int), rng(5))[:, 0]
    freq = train.mean(0)
    se = np.sqrt(0.25 / reps)
    assert np.all(np.abs(freq - 0.5) < 4.5 * se)
    # pairwise co-membership: P(i, j in the same half) = (n/2 - 1) / (n - 1)
    co = (train[:, 0] == train[:, 1]).mean()
    assert abs(co - (n / 2 - 1) / (n - 1)) < 4.5 * np.sqrt(0.25 / reps)


def _b5x2_overlaps(train: np.ndarray) -> list[int]:
    return [
        overlap(train[a, f], train[b, g])
        for a, b in itertools.combinations(range(5), 2)
        for f in range(2)
        for g in range(2)
    ]


@pytest.mark.parametrize("n", [8, 16, 200, 216])
@pytest.mark.parametrize("strat", [False, True])
def test_balanced_5x2_overlaps_exactly_n_over_4(n: int, strat: bool) -> None:
    d = get_design("b5x2[strat=1]" if strat else "b5x2")
    train = d.masks(labels(n), rng(n))
    assert np.array_equal(train[:, 0], ~train[:, 1])
    assert np.all(train.sum(-1) == n // 2)
    # Wang, Li & Li (2016): any two training (and test) sets of different groups share n/4
    assert set(_b5x2_overlaps(train)) == {n // 4}
    # the 10 training sets cut the data into exactly 8 half-blocks of n/8 (Table 1's P_j^h)
    _, atoms = np.unique(train.reshape(10, n).T, axis=0, return_counts=True)
    assert sorted(atoms) == [n // 8] * 8


@given(n=st.integers(8, 90), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_balanced_5x2_overlaps_within_one_otherwise(n: int, seed: int) -> None:
    train = get_design("b5x2").masks(np.zeros(n, dtype=int), rng(seed))
    # fold-0 training sets within 1 of n/4; any two folds of different groups within 1.25
    # (the best any fixed assignment of the 8 round-robin cells to half-blocks achieves)
    f0 = [overlap(train[a, 0], train[b, 0]) for a, b in itertools.combinations(range(5), 2)]
    assert np.all(np.abs(np.array(f0) - n / 4) <= 1)
    assert np.all(np.abs(np.array(_b5x2_overlaps(train)) - n / 4) <= 1.25)
    assert np.all(np.abs(train.sum(-1) - n / 2) <= 1)


def test_balanced_5x2_groups_follow_table_1() -> None:
    # rebuild Table 1 from the blocks found in the masks: groups 1-3 train on P1 with one
    # other block; groups 4-5 train on half of every block
    n = 64
    train = get_design("b5x2").masks(np.zeros(n, dtype=int), rng(9))[:, 0]
    p1 = train[0] & train[1] & train[2]
    assert p1.sum() == n // 4  # groups 1-3 share exactly the block P1
    blocks = [p1, train[0] & ~p1, train[1] & ~p1, train[2] & ~p1]
    assert np.all(np.sum(blocks, axis=0) == 1)  # four disjoint blocks covering the data
    for g in (3, 4):
        assert all(overlap(train[g], b) == n // 8 for b in blocks)
    # group 6 of Table 1 (P2^1, P1^2, P1^1, P2^2) would repeat group 1: groups 4, 5 hold
    # the same halves of P1 and P2 (P1^2 and P2^1) and differ on P3, P4
    assert np.array_equal(train[3] & (blocks[0] | blocks[1]), train[4] & (blocks[0] | blocks[1]))
    assert overlap(train[3] & blocks[2], train[4] & blocks[2]) == 0


def test_blocked_3x2_is_first_three_groups_of_b5x2() -> None:
    y = labels(50)
    b3 = get_design("b3x2").masks(y, rng(11))
    b5 = get_design("b5x2").masks(y, rng(11))
    assert np.array_equal(b3, b5[:3])
    n = 48
    t = get_design("b3x2").masks(np.zeros(n, dtype=int), rng(2))
    for a, b in itertools.combinations(range(3), 2):
        assert overlap(t[a, 0], t[b, 0]) == n // 4 and overlap(t[a, 0], t[b, 1]) == n // 4
    _, atoms = np.unique(t.reshape(6, n).T, axis=0, return_counts=True)
    assert sorted(atoms) == [n // 4] * 4  # the three pairings of four blocks


@pytest.mark.parametrize("n,swap,k", [(200, 0.05, 10), (101, 0.05, 5), (60, 0.2, 12)])
def test_poor_5x2_overlap(n: int, swap: float, k: int) -> None:
    d = get_design(f"poor5x2[swap={swap}]")
    train = d.masks(np.zeros(n, dtype=int), rng(n))
    assert np.array_equal(train[:, 0], ~train[:, 1])
    # replications 1 and 2 share |half| - k training instances on each fold: 9n/20 for n=200
    for f in range(2):
        assert overlap(train[0, f], train[1, f]) == train[0, f].sum() - k
        assert train[0, f].sum() == train[1, f].sum()
    if n == 200:
        assert overlap(train[0, 0], train[1, 0]) == 9 * n // 20
    # the other three are independent random halvings: overlap is not forced to n/2 - k
    others = [overlap(train[0, 0], train[r, 0]) for r in range(2, 5)]
    assert others != [train[0, 0].sum() - k] * 3


def test_poor_5x2_swap_zero_repeats_replication() -> None:
    t = get_design("poor5x2[swap=0]").masks(np.zeros(30, dtype=int), rng(0))
    assert np.array_equal(t[0], t[1]) and not np.array_equal(t[0], t[2])


@given(n=st.integers(10, 120), train=st.floats(0.1, 0.9), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=50, deadline=None)
def test_resample_sizes_and_stratification(n: int, train: float, seed: int) -> None:
    y = labels(n, seed=seed)
    m = int(np.floor(train * n + 0.5))
    if m < 1 or m > n - 1:
        return
    plain = get_design(f"resample[r=5,train={train}]").masks(y, rng(seed))
    strat = get_design(f"resample[r=5,train={train},strat=1]").masks(y, rng(seed))
    assert plain.shape == (5, 1, n)
    assert np.all(plain.sum(-1) == m) and np.all(strat.sum(-1) == m)
    for c in np.unique(y):
        n_c = np.sum(y == c)
        in_train = (strat[:, 0] & (y == c)).sum(-1)
        assert np.all(np.abs(in_train - m / n * n_c) <= 1)


def test_resample_weka_rounding() -> None:
    # Weka RandomSplitResultProducer: trainSize = Math.round(n * pct / 100)
    assert get_design("resample").masks(np.zeros(155, dtype=int), rng())[0, 0].sum() == 140
    assert get_design("holdout").masks(np.zeros(5, dtype=int), rng())[0, 0].sum() == 3
