"""Paper-variant learners: online backprop / nnet solvers, the sigmoid SVM, the one-sided tB3x2cv."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats

from simstudy.core import FoldLosses
from simstudy.errors import SimstudyError
from simstudy.learners import get_learner
from simstudy.stats.registry import get_test

ONLINE = "mlp-4[activation=logistic,alpha=0,epochs=7,eta=0.05,init=0.3,solver=online]"


def _data(n=40, d=3, C=3, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % C
    X = rng.normal(size=(n, d)) + y[:, None] * 0.8
    X[:, 0] = X[:, 0] * 5 + 3  # a column far from unit scale: z-scoring matters
    return X, y.astype(np.int64)


def _masks(n, B, seed=1):
    rng = np.random.default_rng(seed)
    train = np.zeros((B, n), bool)
    for b in range(B):
        train[b, rng.permutation(n)[: n // 2 + b % 2]] = True  # sizes differ by one
    return train


def _numpy_online(X, y, tr, seed, h, epochs, eta, init, C):
    """The same update rule, written plainly with numpy for one model."""
    Xtr = X[tr]
    mu, sd = Xtr.mean(0), Xtr.std(0)
    Z = (Xtr - mu) / sd
    yt = y[tr]
    d = X.shape[1]
    rng = np.random.default_rng(seed)
    W1 = rng.uniform(-init, init, size=(d + 1, h))
    W2 = rng.uniform(-init, init, size=(h + 1, C))
    order = rng.permuted(np.broadcast_to(np.arange(len(yt)), (epochs, len(yt))), axis=1)
    for e in range(epochs):
        for i in order[e]:
            x = Z[i]
            a = 1.0 / (1.0 + np.exp(-(x @ W1[:d] + W1[d])))
            z = a @ W2[:h] + W2[h]
            p = np.exp(z - z.max())
            p /= p.sum()
            p[yt[i]] -= 1.0
            dh = (W2[:h] @ p) * a * (1 - a)
            W2[:h] -= eta * np.outer(a, p)
            W2[h] -= eta * p
            W1[:d] -= eta * np.outer(x, dh)
            W1[d] -= eta * dh
    Zte = (X[~tr] - mu) / sd
    a = 1.0 / (1.0 + np.exp(-(Zte @ W1[:d] + W1[d])))
    return W1, W2, np.argmax(a @ W2[:h] + W2[h], axis=1)


def test_online_equals_plain_numpy_per_model():
    X, y = _data()
    train = _masks(len(y), 3)
    seeds = np.random.SeedSequence(11).spawn(3)
    lr = get_learner(ONLINE)
    pred = lr.fit_predict(X, y, train, ~train, seeds)
    for b in range(3):
        W1, W2, p = _numpy_online(X, y, train[b], seeds[b], 4, 7, 0.05, 0.3, 3)
        np.testing.assert_allclose(lr.weights_[b][0], W1, rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(lr.weights_[b][1], W2, rtol=1e-9, atol=1e-12)
        np.testing.assert_array_equal(pred[b, ~train[b]], p)
    # the weights moved away from their initial draw: not two untrained networks compared
    rng = np.random.default_rng(seeds[0])
    W1_0 = rng.uniform(-0.3, 0.3, size=(4, 4))
    W2_0 = rng.uniform(-0.3, 0.3, size=(5, 3))
    assert np.abs(lr.weights_[0][1] - W2_0).max() > 0.1
    assert np.abs(lr.weights_[0][0] - W1_0).max() > 0.01


def test_online_batch_invariance():
    X, y = _data(seed=3)
    train = _masks(len(y), 6, seed=4)
    seeds = np.random.SeedSequence(5).spawn(6)
    lr = get_learner(ONLINE)
    together = lr.fit_predict(X, y, train, ~train, seeds)
    w_together = [tuple(w.copy() for w in ws) for ws in lr.weights_]
    for b in (4, 0, 2):  # alone, in another order
        alone = lr.fit_predict(X, y, train[b:b + 1], ~train[b:b + 1], [seeds[b]])
        np.testing.assert_array_equal(alone[0], together[b])
        assert all(np.array_equal(u, v) for u, v in zip(lr.weights_[0], w_together[b], strict=True))
    swapped = lr.fit_predict(X, y, train[::-1], ~train[::-1], seeds[::-1])
    np.testing.assert_array_equal(swapped[::-1], together)


def test_online_lp_and_names():
    lr = get_learner("lp[alpha=0,epochs=5,eta=0.02,init=0.01,solver=online]")
    assert lr.name == "lp[alpha=0,epochs=5,eta=0.02,init=0.01,scale=z,solver=online]"
    X, y = _data()
    train = _masks(len(y), 2)
    ss = np.random.SeedSequence(0).spawn(2)
    truth = y[np.where(~train)[1]]
    acc = (lr.fit_predict(X, y, train, ~train, ss)[~train] == truth).mean()
    acc_lbfgs = (get_learner("lp").fit_predict(X, y, train, ~train, ss)[~train] == truth).mean()
    assert acc > 0.4 and abs(acc - acc_lbfgs) < 0.1  # chance is 1/3
    with pytest.raises(SimstudyError, match="'momentum'"):
        get_learner("mlp-3[momentum=0.9,solver=online]")
    with pytest.raises(SimstudyError, match="epochs"):
        get_learner("mlp-3[epochs=0,solver=online]")
    # the default learners are untouched
    assert get_learner("mlp-10").name == "mlp-10"
    assert type(get_learner("lp")).__name__ == "LinearPerceptron"


def _nnet_objective(w, Z, y, C):
    """Summed softmax log-loss of the linear model, nnet's layout (W (d+1, C), last row bias)."""
    d = Z.shape[1]
    W = w.reshape(d + 1, C)
    logits = Z @ W[:d] + W[d]
    logits -= logits.max(1, keepdims=True)
    return float(-(logits[np.arange(len(y)), y] - np.log(np.exp(logits).sum(1))).sum())


def test_nnet_bfgs_reaches_scipys_optimum_on_a_convex_problem():
    # overlapping classes: a finite optimum; lp under nnet's solver is convex
    rng = np.random.default_rng(2)
    y = np.arange(90) % 3
    X = rng.normal(size=(90, 2)) + y[:, None] * 0.7
    train = np.ones((1, 90), bool)
    lr = get_learner("lp[maxit=1000,reltol=1e-12,scale=none,solver=nnet]")
    lr.fit_predict(X, y, train, train, np.random.SeedSequence(1).spawn(1))
    W1, W2 = lr.weights_[0]
    ours = _nnet_objective(W2.ravel(), X, y, 3)
    ref = optimize.minimize(_nnet_objective, np.zeros(9), args=(X, y, 3), method="BFGS",
                            options={"gtol": 1e-10})
    assert ours == pytest.approx(ref.fun, rel=1e-7)
    assert lr.iterations_[0] < 1000


def test_nnet_two_classes_uses_one_logistic_output():
    X, y = _data(C=2)
    train = _masks(len(y), 2)
    lr = get_learner("mlp-3[scale=none,solver=nnet]")
    assert lr.name == "mlp-3[alpha=0,init=0.7,maxit=200,scale=none,solver=nnet]"
    p = lr.fit_predict(X, y, train, ~train, np.random.SeedSequence(3).spawn(2))
    assert lr.weights_[0][1].shape == (4, 1)
    assert set(np.unique(p[~train])) <= {0, 1}


def test_sigmoid_svm_equals_sklearn_on_e1071_scaled_inputs():
    from sklearn.svm import SVC

    X, y = _data(n=60, d=4, seed=7)
    X[:, 3] = 2.0  # constant column: e1071 leaves it unscaled
    train = _masks(len(y), 4, seed=8)
    pred = get_learner("svm[kernel=sigmoid]").fit_predict(
        X, y, train, ~train, np.random.SeedSequence(0).spawn(4))
    for b in range(4):
        tr = train[b]
        mu, sd = X[tr].mean(0), X[tr].std(0, ddof=1)
        const = sd == 0
        mu[const], sd[const] = 0.0, 1.0
        ref = SVC(kernel="sigmoid", gamma=1 / 4, coef0=0.0, C=1.0).fit((X[tr] - mu) / sd, y[tr])
        np.testing.assert_array_equal(pred[b, ~tr], ref.predict((X[~tr] - mu) / sd))
    assert get_learner("svm[kernel=sigmoid]").name == "svm[kernel=sigmoid]"
    assert get_learner("svm").name == "svm"


def test_one_sided_tb3x2cv_against_scipy_t5():
    rng = np.random.default_rng(0)
    two, one = get_test("tB3x2cv"), get_test("tB3x2cv[crit=one-sided]")
    crit = stats.t.ppf(0.95, 5)
    assert crit == pytest.approx(2.015, abs=5e-4)
    seen = set()
    for _ in range(200):
        e = rng.uniform(0.1, 0.3, size=(2, 3, 2))
        e[0] += rng.normal(0.01, 0.02)
        fl = FoldLosses(errors=e, n_train=np.full((3, 2), 50), n_test=np.full((3, 2), 50))
        r1, r2 = one(fl), two(fl)
        assert r1.statistic == r2.statistic
        assert r1.pvalue == pytest.approx(stats.t.sf(abs(r1.statistic), 5), rel=1e-12)
        assert r1.pvalue == pytest.approx(r2.pvalue / 2, rel=1e-12)
        seen.add((r1.pvalue < 0.05, abs(r1.statistic) > crit))
        assert (r1.pvalue < 0.05) == (abs(r1.statistic) > crit)
    assert (True, True) in seen and (False, False) in seen
    with pytest.raises(SimstudyError, match="crit"):
        get_test("tB3x2cv[crit=left]")


def test_rpart_tree_keeps_a_split_only_if_it_gains_cp_of_the_root_sse():
    # 40 training rows: y follows x > 0.5 with 3 of 10 labels flipped on each side.  The best
    # split (x < 0.525: one flipped row joins the left side) lowers the SSE from 40·0.25 = 10
    # to 40·0.1992 = 7.97, 20.3 % of the root's; the next split gains only 2.1 %
    n = 40
    x = (np.arange(n) + 0.5) / n
    y = (x > 0.5).astype(np.int64)
    flip = np.r_[np.arange(0, 20, 10 / 3).astype(int)[:6], 20 + np.arange(0, 20, 10 / 3).astype(int)[:6]]
    y[flip] ^= 1
    assert y[:20].mean() == pytest.approx(0.3) and y[20:].mean() == pytest.approx(0.7)
    X = np.c_[x, np.zeros(n)]
    Xall = np.r_[X, [[0.1, 0.0], [0.9, 0.0]]]
    yall = np.r_[y, [0, 1]]
    train = np.r_[np.ones(n, bool), [False, False]][None]
    seeds = np.random.SeedSequence(0).spawn(1)
    kept = get_learner("rt[cp=0.1,minsplit=20]").fit_predict(Xall, yall, train, ~train, seeds)
    pruned = get_learner("rt[cp=0.25,minsplit=20]").fit_predict(Xall, yall, train, ~train, seeds)
    assert list(kept[0, n:]) == [0, 1]
    assert pruned[0, n] == pruned[0, n + 1]  # root only: one prediction for every row
    # fewer than minsplit rows: no split at all
    small = np.zeros((1, n + 2), bool)
    small[0, 10:29] = True  # 19 rows
    p = get_learner("rt[cp=0,minsplit=20]").fit_predict(Xall, yall, small, ~small, seeds)
    assert len(set(p[0, ~small[0]])) == 1
    assert get_learner("rt[cp=0.01,minsplit=20]").name == "rt[cp=0.01,minsplit=20]"


@pytest.mark.parametrize("spec", [ONLINE, "lp[alpha=0.001,epochs=4,eta=0.05,init=0.2,solver=online]",
                                  ONLINE.replace("logistic", "tanh")])
def test_online_lanes_equal_one_model_kernel_bitwise(spec):
    """Models trained side by side (the vectorised kernel) equal the one-model kernel."""
    X, y = _data(seed=9)
    train = _masks(len(y), 11, seed=10)  # two training sizes, blocks of 8 and a remainder
    seeds = np.random.SeedSequence(7).spawn(11)
    lanes, one = get_learner(spec), get_learner(spec)
    one.lanes = 1
    p8 = lanes.fit_predict(X, y, train, ~train, seeds)
    p1 = one.fit_predict(X, y, train, ~train, seeds)
    np.testing.assert_array_equal(p8, p1)
    for (a1, a2), (b1, b2) in zip(lanes.weights_, one.weights_, strict=True):
        assert np.array_equal(a1, b1) and np.array_equal(a2, b2)
