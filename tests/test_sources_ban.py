"""The BAN sources of Bouckaert & Frank (2004) Table 5 (simstudy.sources.ban).

The numpy ancestral sampler must draw from the same joint distribution as the pgmpy network
built from the bundled CPTs: the joint by enumeration equals pgmpy's exact inference
(VariableElimination), and chi-square tests put numpy's 10^5 samples and pgmpy's own
forward samples on that joint -- while the same test rejects a sampler with one CPT entry
off by 0.03 (so it can fail).
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from scipy import stats as sps

from simstudy.errors import SimstudyError
from simstudy.seeding import SOURCE, cell_key, draw_seed, source_seed
from simstudy.sources import ban as B
from simstudy.sources import get_source, list_sources
from simstudy.sources.encode import encode

SPECS = [f"ban[src={k}]" for k in range(1, 5)]


@pytest.fixture(scope="module")
def nets():
    return B.load_networks()


def _pooled_chi2(counts: np.ndarray, expected: np.ndarray, min_expected: float = 5.0):
    """Chi-square goodness of fit, states with expected count < 5 pooled into one bin."""
    small = expected < min_expected
    obs = np.append(counts[~small], counts[small].sum())
    exp = np.append(expected[~small], expected[small].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return sps.chisquare(obs, exp)


def _state_counts(codes: np.ndarray) -> np.ndarray:
    idx = codes @ (2 ** np.arange(B.N_VARS - 1, -1, -1))  # class most significant
    return np.bincount(idx, minlength=2**B.N_VARS)


# --- the bundled definitions ------------------------------------------------------------------

def test_bundled_json_is_the_shared_reference_copy(nets):
    from importlib import resources

    doc = json.loads(resources.files("simstudy.sources").joinpath(
        "data/ban_sources.json").read_text())
    assert [s["name"] for s in doc["sources"]] == list(B.NAMES)
    assert [s["target"] for s in doc["sources"]] == [0.0, -2.77, -5.83, -11.27]
    # source 1 has no arcs; the others are BANs: the class is a parent of every attribute
    assert all(ps == () for ps in nets["source1"].parents)
    for name in B.NAMES[1:]:
        assert nets[name].parents[0] == ()
        assert all(ps[0] == 0 for ps in nets[name].parents[1:])


@pytest.mark.parametrize("name", B.NAMES)
def test_joint_by_enumeration_is_a_distribution_with_fair_class(nets, name):
    J = nets[name].joint
    assert J.shape == (2, 512)
    assert J.sum() == pytest.approx(1.0, abs=1e-12)
    assert J[1].sum() == pytest.approx(0.5, abs=1e-12)  # P(class = 1) = 0.5, as the paper


@pytest.mark.parametrize("name", B.NAMES)
def test_joint_matches_pgmpy_variable_elimination(nets, name):
    from pgmpy.inference import VariableElimination

    model = nets[name].to_pgmpy()
    f = VariableElimination(model).query(list(B.VARIABLES), joint=True, show_progress=False)
    vals = np.transpose(f.values, [f.variables.index(v) for v in B.VARIABLES])
    for v in B.VARIABLES:  # states are 0, 1 in that order
        assert list(f.state_names[v]) == [0, 1]
    np.testing.assert_allclose(vals.ravel(), nets[name].joint.ravel(), rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", B.NAMES)
def test_pgmpy_cpds_hold_the_json_cpts(nets, name):
    model = nets[name].to_pgmpy()
    net = nets[name]
    for j, v in enumerate(B.VARIABLES):
        cpd = model.get_cpds(v)
        assert tuple(cpd.variables[1:]) == tuple(B.VARIABLES[p] for p in net.parents[j])
        p1 = cpd.get_values()[1]
        np.testing.assert_array_equal(p1, net.cpt[j])


def test_joint_matches_a_hand_computation_on_source2(nets):
    """One state by the chain rule, written out from the JSON: the CPT row indexing
    (first parent most significant) is the JSON's convention."""
    net = nets["source_2.77"]
    x = np.array([1, 0, 1, 1, 0, 1, 0, 1, 1, 0])
    p = 1.0
    for j in range(10):
        ps = net.parents[j]
        row = int("".join(str(x[q]) for q in ps), 2) if ps else 0
        p1 = net.cpt[j][row]
        p *= p1 if x[j] else 1 - p1
    idx = int("".join(map(str, x)), 2)
    assert net.joint.ravel()[idx] == pytest.approx(p, rel=1e-14)
    # node 2's parents are (0, 7): x0=1, x7=1 -> row 3
    assert net.parents[2] == (0, 7)
    assert net.cpt[2][3] == pytest.approx(0.022078598039934928)


# --- the samplers ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", B.NAMES)
def test_numpy_sampler_draws_from_the_joint(nets, name):
    net = nets[name]
    n = 100_000
    codes = net.sample_codes(n, np.random.default_rng(2004 + B.NAMES.index(name)))
    res = _pooled_chi2(_state_counts(codes), n * net.joint.ravel())
    assert res.pvalue > 1e-3, res


@pytest.mark.parametrize("name", B.NAMES)
def test_numpy_sampler_chi2_pvalues_are_uniform(nets, name):
    """One chi-square p-value at a fixed seed can be small by chance (seed 20040 gave
    p = 0.0005 on source1; over 200 seeds 0.5 % were below 0.01): the p-values of 40
    independent samples of 10^4 must look uniform (Kolmogorov-Smirnov)."""
    net = nets[name]
    rng = np.random.default_rng(314 + B.NAMES.index(name))
    ps = [_pooled_chi2(_state_counts(net.sample_codes(10_000, rng)),
                       10_000 * net.joint.ravel()).pvalue for _ in range(40)]
    assert sps.kstest(ps, "uniform").pvalue > 1e-3


def test_chi2_detects_a_slightly_wrong_sampler(nets):
    """The goodness-of-fit test above has power: P(a6 = 1 | class = 0) moved from 0.143 to
    0.193 is rejected (a 0.02 move gives p < 6e-4 on 20 of 20 seeds)."""
    net = nets["source_5.83"]
    wrong = B.BanNetwork("wrong", [list(p) for p in net.parents],
                         [c.tolist() for c in net.cpt])
    wrong.cpt[6][0] += 0.05
    codes = wrong.sample_codes(100_000, np.random.default_rng(1))
    res = _pooled_chi2(_state_counts(codes), 100_000 * net.joint.ravel())
    assert res.pvalue < 1e-6, res


@pytest.mark.parametrize("name", B.NAMES)
def test_pgmpy_forward_sample_draws_from_the_joint_and_agrees_with_numpy(nets, name):
    from pgmpy.sampling import BayesianModelSampling

    net = nets[name]
    m = 20_000
    df = BayesianModelSampling(net.to_pgmpy()).forward_sample(
        size=m, seed=7 + B.NAMES.index(name), show_progress=False, n_jobs=1)
    pg = df[list(B.VARIABLES)].to_numpy(dtype=np.int64)
    res = _pooled_chi2(_state_counts(pg), m * net.joint.ravel())
    assert res.pvalue > 1e-3, res
    # two-sample: pgmpy's sample against numpy's, states pooled where either is sparse
    npc = _state_counts(net.sample_codes(m, np.random.default_rng(99)))
    pgc = _state_counts(pg)
    keep = m * net.joint.ravel() >= 5
    table = np.vstack([np.append(npc[keep], npc[~keep].sum()),
                       np.append(pgc[keep], pgc[~keep].sum())])
    table = table[:, table.sum(0) > 0]
    assert sps.chi2_contingency(table).pvalue > 1e-3


def test_sampler_is_a_function_of_the_rng_only():
    src = get_source("ban[src=3]")
    a = src.sample(np.random.default_rng(5))
    b = src.sample(np.random.default_rng(5))
    c = src.sample(np.random.default_rng(6))
    np.testing.assert_array_equal(a.X, b.X)
    np.testing.assert_array_equal(a.y, b.y)
    assert not np.array_equal(a.X, c.X)


def test_pgmpy_sampler_option_gives_a_dataset_of_the_same_layout():
    a = get_source("ban[src=2,sampler=pgmpy]").sample(np.random.default_rng(0))
    b = get_source("ban[src=2]").sample(np.random.default_rng(0))
    assert a.X.shape == b.X.shape == (300, 18)
    assert a.nominal_groups == b.nominal_groups and a.feature_names == b.feature_names
    np.testing.assert_array_equal(a.X.reshape(300, 9, 2).sum(2), 1.0)


# --- the data set a learner sees --------------------------------------------------------------

@pytest.mark.parametrize("spec", SPECS)
def test_dataset_equals_encode_of_the_same_table(spec):
    import pandas as pd

    src = get_source(spec)
    for seed in range(3):
        codes = src.sample_codes(np.random.default_rng(seed))
        d = src.dataset(codes)
        df = pd.DataFrame(codes[:, 1:].astype(str), columns=list(B.ATTRIBUTES))
        df["class"] = codes[:, 0].astype(str)
        e = encode(df, src.name, nominal=B.ATTRIBUTES,
                   domains={a: ("0", "1") for a in B.ATTRIBUTES}, drop_constant=False)
        np.testing.assert_array_equal(d.X, e.X)
        np.testing.assert_array_equal(d.y, e.y)
        assert (d.classes, d.feature_names, d.nominal_groups) == (
            e.classes, e.feature_names, e.nominal_groups)
    assert d.nominal_groups == tuple((2 * j, 2 * j + 1) for j in range(9))
    assert d.feature_names[:2] == ("a1=0", "a1=1") and d.classes == ("0", "1")


def test_an_attribute_value_never_sampled_keeps_its_column():
    # source 4's attribute 1 is 1 with probability < 0.001: usually constant in 300 cases
    d = get_source("ban[src=4]").sample(np.random.default_rng(0))
    assert d.X.shape == (300, 18) and d.X[:, 1].sum() == 0 and d.X[:, 0].sum() == 300


def test_patterns_dataset_lists_all_512_patterns_in_order():
    d = get_source("ban[src=2]").patterns_dataset()
    codes = d.X.reshape(512, 9, 2).argmax(2)
    np.testing.assert_array_equal(codes, np.array(list(itertools.product((0, 1), repeat=9))))


# --- names ------------------------------------------------------------------------------------

def test_specs_names_and_canonical_ids():
    assert [s for s in list_sources() if s.startswith("ban")] == SPECS
    assert get_source("ban[src=source_11.27]").name == "ban[src=4]"
    assert get_source("ban[src=2,n=300,reps=10,sampler=numpy]").name == "ban[src=2]"
    assert get_source("ban[src=2,reps=5,n=100]").name == "ban[n=100,reps=5,src=2]"
    s = get_source("ban[src=1,n=50,reps=3]")
    assert s.runs_per_draw == 3 and s.sample(np.random.default_rng(0)).n == 50
    assert get_source("ban[src=1]").runs_per_draw == 10 and not get_source("ban[src=1]").fixed


@pytest.mark.parametrize("spec,msg", [
    ("ban", "missing src"),
    ("ban[src=5]", "'5'"),
    ("ban[src=source_3]", "source_2.77"),
    ("ban[src=1,k=2]", "'k'"),
    ("ban[src=1,n=abc]", "'abc'"),
    ("ban[src=1,n=1]", ">= 2"),
    ("ban[src=1,reps=0]", ">= 1"),
    ("ban[src=1,sampler=weka]", "numpy, pgmpy"),
])
def test_bad_specs_raise_with_the_value_and_choices(spec, msg):
    with pytest.raises(SimstudyError, match=msg.replace(".", r"\.")):
        get_source(spec)


def test_shared_draw_seed():
    """Training set i of a source: SeedSequence(root, (key of "draw:" + source, i, SOURCE)),
    the sample of runs 10 i .. 10 i + 9 of every cell with that source."""
    s = draw_seed(3, "ban[src=2]", 7)
    assert s.entropy == 3 and s.spawn_key == (cell_key("draw:ban[src=2]"), 7, SOURCE)
    reps = get_source("ban[src=2]").runs_per_draw
    for cell, run in (("ban[src=2]/nb~nb/5x2cv", 70), ("ban[src=2]/nb~nb/10x10cv", 79)):
        assert source_seed(3, cell, "ban[src=2]", run, reps).spawn_key == s.spawn_key
    assert source_seed(3, "ban[src=2]/nb~nb/5x2cv", "ban[src=2]", 80, reps).spawn_key \
        != s.spawn_key
    # without shared draws a trial's sample is its cell's own
    assert source_seed(3, "iris/nmc~nmc/5x2cv", "iris", 70).spawn_key == (
        cell_key("iris/nmc~nmc/5x2cv"), 70, SOURCE)


# --- exact accuracy -------------------------------------------------------------------------

@pytest.mark.parametrize("name", B.NAMES)
def test_exact_accuracy_of_bayes_rule_is_the_bayes_accuracy(nets, name):
    J = nets[name].joint
    bayes = B.exact_accuracy(J, J.argmax(0))
    assert bayes == pytest.approx(J.max(0).sum(), abs=1e-15)
    if "bayes_acc" in nets[name].info:  # recorded when the sources were made
        assert bayes == pytest.approx(nets[name].info["bayes_acc"], abs=1e-9)
    # constant predictions score the class prior: 0.5
    assert B.exact_accuracy(J, np.zeros(512, int)) == pytest.approx(0.5, abs=1e-12)
    assert B.exact_accuracy(J, np.ones(512, int)) == pytest.approx(0.5, abs=1e-12)


def test_exact_accuracy_is_the_limit_of_test_set_accuracy(nets):
    net = nets["source_11.27"]
    pred = np.random.default_rng(3).integers(0, 2, 512)  # an arbitrary classifier
    exact = B.exact_accuracy(net.joint, pred)
    codes = net.sample_codes(400_000, np.random.default_rng(4))
    pat = codes[:, 1:] @ (2 ** np.arange(8, -1, -1))
    emp = np.mean(pred[pat] == codes[:, 0])
    se = np.sqrt(exact * (1 - exact) / codes.shape[0])
    assert abs(emp - exact) < 4 * se


def test_source1_gives_every_classifier_50_percent(nets):
    J = nets["source1"].joint
    for seed in range(5):
        pred = np.random.default_rng(seed).integers(0, 2, 512)
        assert B.exact_accuracy(J, pred) == pytest.approx(0.5, abs=1e-12)


def test_exact_accuracy_rejects_bad_predictions(nets):
    J = nets["source1"].joint
    with pytest.raises(SimstudyError, match="512"):
        B.exact_accuracy(J, np.zeros(511, int))
    with pytest.raises(SimstudyError, match="512"):
        B.exact_accuracy(J, np.full(512, 2))
