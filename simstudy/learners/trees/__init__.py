"""Batched tree learners: random forest (``rf``), AdaBoost (``ab``), regression tree (``rt``),
and Yıldız & Alpaydın's C4.5 (``c45``, see :class:`C45`).

Wang et al. (2016), sec. 3.1, compare a regression tree, random forest and AdaBoost (with
OLS, an SVM and LDA) on Gaussian two-class data; they fit them with R's defaults, we use
scikit-learn's, as the issue asks:

``rf``  ``RandomForestClassifier()``: 100 fully grown Gini trees, ``max_features="sqrt"``
        (``max(1, int(sqrt(d)))`` features drawn per split), bootstrap samples of size n.
``ab``  ``AdaBoostClassifier()``: discrete SAMME (Zhu et al. 2009) over depth-1 Gini trees,
        50 rounds, learning rate 1.
``rt``  ``DecisionTreeRegressor()`` (fully grown, least squares) on the 0/1 label, class 1
        iff the leaf mean > 0.5 (Wang sec. 3.1 (A)).  Not in the paper: with more than two
        classes in a training fold, one multi-output tree on the class indicators and the
        argmax of the leaf means (first class on ties).

Each learner fits a whole batch of models in one compiled call (numba, ``prange`` over
models; kernels in :mod:`simstudy.learners.trees.kernels` and the modules it gathers:
features presorted once per model, no per-node sorting; see its docstring).  The kernels replay
scikit-learn's algorithm *and its random streams*: model ``b`` uses the integer
``int(seeds[b].generate_state(1)[0])`` exactly where the reference path
(:class:`simstudy.learners.reference.SklearnLearner`) passes it as ``random_state``.  So
``rf``, ``rt`` and ``c45`` give the *same predictions* as their references, ties between
equally good splits included (scikit-learn visits features in a random Fisher-Yates order
from its own xorshift generator and keeps the first best split; we draw the same order).
``ab`` matches except where two candidate stumps tie to the last bit of floating point:
its weights go through ``exp(log(w) + alpha)``, and numpy's SIMD exp/log differ from the
C library's in the last bit for a few percent of arguments (see the kernels' docstring).

Preprocessing: missing values (``nan``) are replaced by the training-fold column mean of
each model (all-``nan`` column: 0); no standardisation (trees are scale invariant, and
scikit-learn's trees work on float32 copies of the features, as ours do).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...errors import SimstudyError
from ...spec import format_spec
from ..base import Learner, frozen
from ..registry import register_learner
from ._cache import ensure_coherent_cache

ensure_coherent_cache()  # before the kernels are loaded: see _cache.py

from . import kernels as K  # noqa: E402

__all__ = ["AdaBoost", "C45", "RandomForest", "RegressionTree", "ThresholdedRegressionTree",
           "seed_ints"]


def __getattr__(name: str) -> Any:
    # scikit-learn (the reference path) is imported when its estimator is asked for
    if name == "ThresholdedRegressionTree":
        from ..reference import ThresholdTreeRegressor

        return ThresholdTreeRegressor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_MAX_DEPTH_NONE = np.iinfo(np.int32).max  # what scikit-learn uses for max_depth=None
# c45's table of entropy terms covers nodes of up to this many rows (about 4 MB); larger
# nodes compute their logarithms directly (same values)
_ENTROPY_TABLE_MAX = 1000


# --------------------------------------------------------------------------------------
# input handling shared by the three learners


def seed_ints(seeds: Sequence[Any]) -> np.ndarray:
    """The ``random_state`` integer of each model: ``int(seed.generate_state(1)[0])``.

    Plain integers in ``[0, 2**32)`` are accepted as they are (handy in tests).
    """
    out = np.empty(len(seeds), dtype=np.int64)
    for b, s in enumerate(seeds):
        if isinstance(s, np.random.SeedSequence):
            out[b] = int(s.generate_state(1)[0])
        elif isinstance(s, (int, np.integer)) and 0 <= int(s) < 2**32:
            out[b] = int(s)
        else:
            raise SimstudyError(
                f"seed {b} must be a numpy SeedSequence or an int in [0, 2**32), got {s!r}"
            )
    return out


def _index_lists(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """CSR-style (ptr, idx) of the True positions of each row, without dense copies."""
    rows, cols = np.nonzero(mask)
    ptr = np.zeros(mask.shape[0] + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=mask.shape[0]), out=ptr[1:])
    return ptr, cols.astype(np.int64)


def _prepare(X, y, train, test, seeds):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    train = np.asarray(train)
    test = np.asarray(test)
    if X.ndim != 2:
        raise SimstudyError(f"X must be a 2-d array (n, d), got shape {X.shape!r}")
    n = X.shape[0]
    if y.shape != (n,):
        raise SimstudyError(f"y must have shape ({n},) to match X, got {y.shape!r}")
    if not np.issubdtype(y.dtype, np.integer) or (n and y.min() < 0):
        raise SimstudyError(f"y must hold class codes 0..C-1, got dtype {y.dtype!s}")
    for nm, m in (("train", train), ("test", test)):
        if m.dtype != bool or m.ndim != 2 or m.shape[1] != n:
            raise SimstudyError(
                f"{nm} must be a (B, {n}) bool mask, got {m.dtype!s} array of shape {m.shape!r}"
            )
    if train.shape != test.shape:
        raise SimstudyError(f"train {train.shape!r} and test {test.shape!r} masks differ in shape")
    B = train.shape[0]
    if len(seeds) != B:
        raise SimstudyError(f"need one seed per model: {len(seeds)} seeds for {B} masks")
    C = int(y.max()) + 1 if n else 1
    # scikit-learn's trees see float32 features; so do ours (same thresholds, same ties)
    X32 = np.ascontiguousarray(X, dtype=np.float32)
    nan = np.isnan(X)
    has_nan = bool(nan.any())
    if has_nan:
        # training-fold column means per model as masked sums (one matrix product)
        tf = train.astype(np.float64)
        sums = tf @ np.where(nan, 0.0, X)
        cnts = tf @ (~nan).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            means = np.where(cnts > 0, sums / np.maximum(cnts, 1.0), 0.0)
        fill = np.ascontiguousarray(means, dtype=np.float32)
    else:
        fill = np.zeros((1, X.shape[1]), dtype=np.float32)
    tr_ptr, tr_idx = _index_lists(train)
    te_ptr, te_idx = _index_lists(test)
    y64 = frozen(y, np.int64)
    return X32, fill, has_nan, y64, C, tr_ptr, tr_idx, te_ptr, te_idx, seed_ints(seeds)


def _check_written(out: np.ndarray, train: np.ndarray, test: np.ndarray,
                   learner: str) -> np.ndarray:
    """Every test position of a model with training rows must hold a prediction.

    The kernels leave -1 where they write nothing.  An exception inside a numba
    ``prange`` loop can silently end the rest of that thread's block of models instead
    of propagating; this turns such a failure into an error instead of predictions of -1
    (which score as test error 1.0).
    """
    bad = np.flatnonzero(((out < 0) & test).any(axis=1) & train.any(axis=1))
    if bad.size:
        raise RuntimeError(
            f"{learner}: the batch kernel left {bad.size} model(s) without predictions "
            f"(first: model {int(bad[0])}); this is a bug in the kernels of simstudy.learners.trees"
        )
    return out


def _int_param(name: str, value: Any, low: int, learner: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer, str)):
        raise SimstudyError(f"{learner}: {name} must be an integer >= {low}, got {value!r}")
    try:
        v = int(value)
    except ValueError:
        raise SimstudyError(
            f"{learner}: {name} must be an integer >= {low}, got {value!r}"
        ) from None
    if v < low:
        raise SimstudyError(f"{learner}: {name} must be an integer >= {low}, got {value!r}")
    return v


def _depth_param(value: Any, learner: str) -> int | None:
    if value is None or value == "None":
        return None
    return _int_param("max_depth", value, 1, learner)


# --------------------------------------------------------------------------------------
# learners


@register_learner("rf", description="random forest, scikit-learn defaults (Wang et al. 2016)")
class RandomForest(Learner):
    """Random forest, scikit-learn's ``RandomForestClassifier`` defaults (Wang et al. 2016).

    Parameters
    ----------
    n_estimators : trees per forest (default 100).
    max_features : ``"sqrt"`` (default: ``max(1, int(sqrt(d)))``), ``"log2"``, ``None``
        (all features) or an int.
    bootstrap : resample the training fold with replacement per tree (default True); as
        in scikit-learn, a bootstrap sample is integer sample weights, not copies.
    max_depth : None (fully grown, default) or an int.

    Predictions are the argmax of the trees' mean leaf class proportions (first class on
    ties), exactly scikit-learn's ``predict``.
    """

    impl_id = 'simstudy.learners.trees:RandomForest'

    name = "rf"
    preprocess = "impute"
    stack_trials = True  # works from each model's own row indices

    def __init__(
        self,
        n_estimators: int = 100,
        max_features: int | str | None = "sqrt",
        bootstrap: bool = True,
        max_depth: int | None = None,
    ) -> None:
        self.n_estimators = _int_param("n_estimators", n_estimators, 1, "rf")
        if max_features in (None, "None", "sqrt", "log2"):
            self.max_features = None if max_features == "None" else max_features
        else:
            self.max_features = _int_param("max_features", max_features, 1, "rf")
        if not isinstance(bootstrap, (bool, np.bool_)):
            raise SimstudyError(f"rf: bootstrap must be True or False, got {bootstrap!r}")
        self.bootstrap = bool(bootstrap)
        self.max_depth = _depth_param(max_depth, "rf")
        params = {
            k: v
            for k, v, default in (
                ("n_estimators", self.n_estimators, 100),
                ("max_features", self.max_features, "sqrt"),
                ("bootstrap", self.bootstrap, True),
                ("max_depth", self.max_depth, None),
            )
            if v != default
        }
        self.name = format_spec("rf", params)

    def _n_features(self, d: int) -> int:
        mf = self.max_features
        if mf == "sqrt":
            return max(1, int(np.sqrt(d)))
        if mf == "log2":
            return max(1, int(np.log2(d)))
        if mf is None:
            return d
        if mf > d:
            raise SimstudyError(f"rf: max_features={mf!r} exceeds the {d} features of X")
        return int(mf)

    def reference_estimator(self) -> Any:
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(
            n_estimators=self.n_estimators,
            max_features=self.max_features,
            bootstrap=self.bootstrap,
            max_depth=self.max_depth,
        )

    def fit_predict(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        seeds: Sequence[np.random.SeedSequence],
    ) -> np.ndarray:
        X32, fill, has_nan, y64, C, trp, tri, tep, tei, s = _prepare(X, y, train, test, seeds)
        out = np.full(np.shape(train), -1, dtype=np.int64)
        depth = _MAX_DEPTH_NONE if self.max_depth is None else self.max_depth
        K.rf_batch(X32, fill, has_nan, y64, C, trp, tri, tep, tei, s, self.n_estimators,
                   self._n_features(X32.shape[1]), depth, self.bootstrap, out)
        return _check_written(out, np.asarray(train), np.asarray(test), self.name)


@register_learner("ab", description="AdaBoost, SAMME over stumps, 50 rounds (Wang et al. 2016)")
class AdaBoost(Learner):
    """AdaBoost, scikit-learn's ``AdaBoostClassifier`` defaults (Wang et al. 2016).

    Discrete SAMME (Zhu, Zou, Rosset & Hastie 2009, Algorithm 2) over depth-1 Gini trees
    (stumps): error ``e_t`` weighted by the current sample weights, stump weight
    ``alpha_t = learning_rate * (log((1 - e_t) / e_t) + log(K - 1))``, misclassified
    weights multiplied by ``exp(alpha_t)``, prediction ``argmax_k sum_t alpha_t
    [h_t(x) = k]`` (for two classes: the sign of the weighted vote, class 0 on a tie).
    Boosting stops early as scikit-learn does (perfect stump; error >= 1 - 1/K).  Where
    scikit-learn raises (the first stump no better than chance, e.g. all features
    constant) we keep that stump alone, i.e. predict the weighted majority class.

    Parameters
    ----------
    n_estimators : boosting rounds (default 50).
    learning_rate : shrinkage of each ``alpha_t`` (default 1.0).
    """

    impl_id = 'simstudy.learners.trees:AdaBoost'

    name = "ab"
    preprocess = "impute"
    stack_trials = True  # works from each model's own row indices

    def __init__(self, n_estimators: int = 50, learning_rate: float = 1.0) -> None:
        self.n_estimators = _int_param("n_estimators", n_estimators, 1, "ab")
        try:
            lr = float(learning_rate)
        except (TypeError, ValueError):
            lr = float("nan")
        if isinstance(learning_rate, bool) or not (lr > 0.0 and np.isfinite(lr)):
            raise SimstudyError(
                f"ab: learning_rate must be a positive number, got {learning_rate!r}"
            )
        self.learning_rate = lr
        params = {}
        if self.n_estimators != 50:
            params["n_estimators"] = self.n_estimators
        if lr != 1.0:
            params["learning_rate"] = lr
        self.name = format_spec("ab", params)
        self.last_n_used: np.ndarray | None = None  # stumps kept per model, last batch

    def reference_estimator(self) -> Any:
        from sklearn.ensemble import AdaBoostClassifier

        return AdaBoostClassifier(n_estimators=self.n_estimators,
                                  learning_rate=self.learning_rate)

    def fit_predict(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        seeds: Sequence[np.random.SeedSequence],
    ) -> np.ndarray:
        X32, fill, has_nan, y64, C, trp, tri, tep, tei, s = _prepare(X, y, train, test, seeds)
        out = np.full(np.shape(train), -1, dtype=np.int64)
        n_used = np.zeros(len(s), dtype=np.int64)
        K.ab_batch(X32, fill, has_nan, y64, C, trp, tri, tep, tei, s, self.n_estimators,
                   self.learning_rate, out, n_used)
        self.last_n_used = n_used
        return _check_written(out, np.asarray(train), np.asarray(test), self.name)


# registered as "rt" by simstudy.learners.rt_rpart (which routes rt[cp=,minsplit=] there)
class RegressionTree(Learner):
    """Least-squares regression tree as a classifier (Wang et al. 2016, sec. 3.1 (A)).

    A fully grown ``DecisionTreeRegressor`` (MSE, all features, min 2 samples to split)
    fitted to the 0/1 indicator of the larger class code; the prediction is that class
    iff the leaf mean is > 0.5.  Wang uses two classes; with more we fit one multi-output
    tree on the class indicators and take the argmax of the leaf means (documented
    extension, same as :class:`~simstudy.learners.reference.ThresholdTreeRegressor`).

    Parameters
    ----------
    max_depth : None (fully grown, default) or an int.
    """

    impl_id = 'simstudy.learners.trees:RegressionTree'

    name = "rt"
    preprocess = "impute"
    stack_trials = True  # works from each model's own row indices

    def __init__(self, max_depth: int | None = None) -> None:
        self.max_depth = _depth_param(max_depth, "rt")
        self.name = format_spec("rt", {} if self.max_depth is None else {"max_depth": self.max_depth})

    def reference_estimator(self) -> Any:
        from ..reference import ThresholdTreeRegressor

        return ThresholdTreeRegressor(max_depth=self.max_depth)

    def fit_predict(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        seeds: Sequence[np.random.SeedSequence],
    ) -> np.ndarray:
        X32, fill, has_nan, y64, C, trp, tri, tep, tei, s = _prepare(X, y, train, test, seeds)
        out = np.full(np.shape(train), -1, dtype=np.int64)
        depth = _MAX_DEPTH_NONE if self.max_depth is None else self.max_depth
        K.rt_batch(X32, fill, has_nan, y64, C, trp, tri, tep, tei, s, depth, out)
        return _check_written(out, np.asarray(train), np.asarray(test), self.name)


@register_learner("c45", description="entropy tree post-pruned on a 20 % hold-out "
                  "(Yıldız & Alpaydın 2006; Bouckaert & Frank 2004)")
class C45(Learner):
    """C4.5 as Yıldız & Alpaydın (2006, §4.1) use it: an entropy tree pruned on a hold-out.

    The paper: "We use postpruning with 20 percent of the data reserved for pruning".
    Per model: ``round(prune_fraction · n)`` rows of the training fold are held out,
    drawn as the reference draws them (:func:`simstudy.learners.reference._stratified_holdout`
    from ``default_rng(seed)``, ``seed`` the model's integer from :func:`seed_ints`); a
    fully grown entropy tree, identical to ``DecisionTreeClassifier(criterion="entropy",
    random_state=seed)``, is grown on the other rows; it is then reduced-error pruned
    (Quinlan 1987, §2.3) on the hold-out in one bottom-up pass -- a node becomes a leaf
    when its hold-out errors as a leaf are ``<=`` those of its pruned subtree -- and
    predicts the majority class of the node where a test row stops (first class on
    ties).  With ``n < 3`` training rows nothing is held out and nothing pruned.  The
    reference is :class:`simstudy.learners.reference.RepTree` (scikit-learn's tree plus the
    same pruning on its ``tree_`` arrays); the predictions are identical.

    Not C4.5 itself: binary splits on one-hot nominal attributes, information gain (not
    gain ratio), no pessimistic pruning -- Weka's J48 (Bouckaert & Frank 2004) is
    ``j48``.  Missing values: the training-fold column mean (the reference imputes).

    Parameters
    ----------
    prune_fraction : share of the training fold held out for pruning (default 0.2).
    pruning : ``"rep"`` (reduced-error pruning, default, batched) or ``"ccp"`` (the
        hold-out picks a ``ccp_alpha`` of the cost-complexity path:
        :class:`~simstudy.learners.reference.PrunedTree`, scikit-learn looped, slow).
    """

    impl_id = 'simstudy.learners.trees:C45'

    name = "c45"
    preprocess = "impute"
    stack_trials = True  # works from each model's own row indices

    def __init__(self, prune_fraction: float = 0.2, pruning: str = "rep") -> None:
        try:
            pf = float(prune_fraction)
        except (TypeError, ValueError):
            pf = float("nan")
        if isinstance(prune_fraction, bool) or not 0.0 <= pf < 1.0:
            raise SimstudyError(
                f"c45: prune_fraction must be a number in [0, 1), got {prune_fraction!r}"
            )
        if pruning not in ("rep", "ccp"):
            raise SimstudyError(f"c45: pruning must be 'rep' or 'ccp', got {pruning!r}")
        self.prune_fraction = pf
        self.pruning = pruning
        params: dict[str, Any] = {}
        if pf != 0.2:
            params["prune_fraction"] = pf
        if pruning != "rep":
            params["pruning"] = pruning
        self.name = format_spec("c45", params)

    def reference_estimator(self) -> Any:
        from ..reference import PrunedTree, RepTree

        if self.pruning == "ccp":
            return PrunedTree(prune_fraction=self.prune_fraction)
        return RepTree(prune_fraction=self.prune_fraction)

    def holdout(
        self, y: np.ndarray, train: np.ndarray, s: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(grow, hold, do_prune): each model's rows split as the reference splits them."""
        from ..reference import _stratified_holdout

        grow = train.copy()
        hold = np.zeros_like(train)
        do_prune = np.zeros(train.shape[0], dtype=bool)
        for b in range(train.shape[0]):
            tr = np.flatnonzero(train[b])
            n = len(tr)
            n_hold = int(round(self.prune_fraction * n))
            if n_hold < 1 or n - n_hold < 1:
                continue
            h = tr[_stratified_holdout(y[tr], n_hold, np.random.default_rng(int(s[b])))]
            grow[b, h] = False
            hold[b, h] = True
            do_prune[b] = True
        return grow, hold, do_prune

    def fit_predict(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        seeds: Sequence[np.random.SeedSequence],
    ) -> np.ndarray:
        if self.pruning == "ccp":
            from ..reference import SklearnLearner

            ref = SklearnLearner(self.reference_estimator(), name=self.name,
                                 preprocess="impute")
            return ref.fit_predict(X, y, train, test, seeds)
        X32, fill, has_nan, y64, C, _, _, tep, tei, s = _prepare(X, y, train, test, seeds)
        grow, hold, do_prune = self.holdout(y64, np.asarray(train), s)
        gp, gi = _index_lists(grow)
        hp, hi = _index_lists(hold)
        # one sort of the whole data per feature (nan last); each model filters it
        gorder = np.ascontiguousarray(np.argsort(X32, axis=0, kind="stable").T, dtype=np.int64)
        m_max = int(np.diff(gp).max()) if len(gp) > 1 else 0
        tab = K.entropy_table(min(m_max, _ENTROPY_TABLE_MAX))
        out = np.full(np.shape(train), -1, dtype=np.int64)
        K.c45_batch(X32, fill, has_nan, gorder, tab, y64, C, gp, gi, hp, hi, tep, tei, s,
                    do_prune, out)
        return _check_written(out, np.asarray(train), np.asarray(test), self.name)
