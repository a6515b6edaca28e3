"""The scikit-learn reference path: one cloned estimator per model, looped.

:class:`SklearnLearner` wraps any scikit-learn classifier.  Per model ``b`` it fits the
preprocessing (:mod:`simstudy.learners.preprocess`) on ``X[train[b]]`` only, fits a clone of
the estimator, and predicts ``X[test[b]]``.  ``random_state`` parameters (of the estimator
and of any nested estimator) are set from ``int(seeds[b].generate_state(1)[0])``, so model
``b`` depends only on its own seed.

This module also holds the reference configurations of the papers' learners
(:func:`reference_estimator`) and the few estimators scikit-learn does not provide:
:class:`LeastSquaresClassifier`, :class:`MixedNB`, :class:`RepTree`, :class:`PrunedTree`,
:class:`ThresholdTreeRegressor`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import BaseEstimator, ClassifierMixin, clone, is_regressor
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from ..errors import SimstudyError
from .base import Learner
from .preprocess import check_preprocess, make_preprocessor


def _seed_int(seed: np.random.SeedSequence) -> int:
    # 32-bit draw: accepted as random_state by every scikit-learn estimator
    return int(seed.generate_state(1)[0])


def _set_random_state(est: Any, seed: int) -> Any:
    params = est.get_params(deep=True)
    keys = {k: seed for k in params if k == "random_state" or k.endswith("__random_state")}
    if keys:
        est.set_params(**keys)
    return est


class SklearnLearner(Learner):
    """Any scikit-learn classifier as a batch :class:`Learner` (the reference path).

    Parameters
    ----------
    estimator : an unfitted scikit-learn classifier (cloned per model).
    name : the learner's id (default: the estimator's class name).
    preprocess : ``"standardize"`` (impute + standardise, default), ``"impute"`` or
        ``"none"``; fitted on each training fold only.
    n_jobs : joblib workers over the models of a batch (default 1: the runner already
        parallelises chunks of trials).

    A training fold that holds a single class predicts that class (most scikit-learn
    classifiers refuse to fit one class).  Predictions are the global class codes of ``y``
    because the estimator is fitted on those codes; positions outside ``test`` are ``-1``.
    """

    impl_id = 'simstudy.learners.reference:SklearnLearner'

    stack_trials = True  # works from each model's own row indices

    def __init__(
        self,
        estimator: Any,
        *,
        name: str | None = None,
        preprocess: str = "standardize",
        n_jobs: int = 1,
    ) -> None:
        if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
            raise SimstudyError(
                f"expected a scikit-learn estimator with fit/predict, got {estimator!r}"
            )
        self.estimator = estimator
        self.name = name or type(estimator).__name__
        self.preprocess = check_preprocess(preprocess)
        self.n_jobs = int(n_jobs)
        if is_regressor(estimator):  # real-valued predictions, nan off the test rows
            self.task = "regression"
            self.loss = "squared" if self.loss == "01" else self.loss

    def reference_estimator(self) -> Any:
        return self.estimator

    def pipeline(self) -> Any:
        """An unfitted clone of preprocessing + estimator."""
        pre = make_preprocessor(self.preprocess)
        est = clone(self.estimator)
        if pre is None:
            return est
        pre.steps.append(("model", est))
        return pre

    def fit_one(
        self, X: np.ndarray, y: np.ndarray, tr: np.ndarray, te: np.ndarray, seed: int
    ) -> np.ndarray:
        """Fit on rows ``tr`` (indices), predict rows ``te``; class codes, int64 (a
        regressor: float64 predictions)."""
        ytr = y[tr]
        if self.task == "regression":
            model = _set_random_state(self.pipeline(), seed)
            model.fit(X[tr], ytr)
            return np.asarray(model.predict(X[te]), dtype=np.float64)
        first = ytr[0] if len(ytr) else 0
        if len(ytr) == 0 or np.all(ytr == first):
            return np.full(len(te), first, dtype=np.int64)
        model = _set_random_state(self.pipeline(), seed)
        model.fit(X[tr], ytr)
        return np.asarray(model.predict(X[te])).astype(np.int64)

    def fit_predict(
        self,
        X: np.ndarray,
        y: np.ndarray,
        train: np.ndarray,
        test: np.ndarray,
        seeds: Sequence[np.random.SeedSequence],
    ) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        real = self.task == "regression"
        y = np.asarray(y, dtype=np.float64 if real else np.int64)
        train = np.asarray(train, dtype=bool)
        test = np.asarray(test, dtype=bool)
        B = train.shape[0]
        if len(seeds) != B:
            raise SimstudyError(f"need one seed per model: {len(seeds)} seeds for {B} masks")
        jobs = [
            (np.flatnonzero(train[b]), np.flatnonzero(test[b]), _seed_int(seeds[b]))
            for b in range(B)
        ]
        if self.n_jobs == 1:
            preds = [self.fit_one(X, y, tr, te, s) for tr, te, s in jobs]
        else:
            preds = Parallel(n_jobs=self.n_jobs)(
                delayed(self.fit_one)(X, y, tr, te, s) for tr, te, s in jobs
            )
        out = np.full(train.shape, np.nan) if real else np.full(train.shape, -1, dtype=np.int64)
        for b, ((_, te, _), p) in enumerate(zip(jobs, preds, strict=True)):
            out[b, te] = p
        return out

    def __repr__(self) -> str:
        return f"<SklearnLearner {self.name}: {self.estimator!r}, preprocess={self.preprocess}>"


# trees are scale invariant: their references only impute (used when the class does not
# set ``preprocess`` itself)
_IMPUTE_ONLY = {"rt", "rf", "ab", "c45", "max"}


def _preprocess_of(learner: Learner) -> str:
    explicit = "preprocess" in vars(learner) or any(
        "preprocess" in vars(k) for k in type(learner).__mro__ if k is not Learner
    )
    if explicit:
        return learner.preprocess
    return "impute" if learner.name in _IMPUTE_ONLY else "standardize"


class ReferenceOf(SklearnLearner):
    """The reference path of a fast learner: its ``reference_estimator()`` and preprocessing,
    looped with scikit-learn; :meth:`prepare` re-binds through the fast learner."""

    impl_id = 'simstudy.learners.registry:ReferenceOf'

    # the implementation tag stored with each trial (provenance.learner_impl) keeps the module
    # this class was defined in before it moved here; pickling finds it there too
    __module__ = "simstudy.learners.registry"

    def __init__(self, learner: Learner, n_jobs: int = 1) -> None:
        super().__init__(
            learner.reference_estimator(),
            name=learner.name,
            preprocess=_preprocess_of(learner),
            n_jobs=n_jobs,
        )
        self.learner = learner
        self.loss = learner.loss

    def prepare(self, data: Any) -> ReferenceOf:
        return ReferenceOf(self.learner.prepare(data), self.n_jobs)


# --------------------------------------------------------------------------------------
# estimators scikit-learn does not have


class LeastSquaresClassifier(ClassifierMixin, BaseEstimator):
    """Ordinary least squares on class indicators (Wang et al. 2016, §3.1 (B)).

    Two classes: OLS of the 0/1 label (indicator of the larger code) with an intercept,
    class 1 iff the fitted value is ``> 0.5`` (Wang's ``I[β'X > 0.5]``).  More classes (the
    paper has none): OLS of each class indicator, predict the argmax (first on ties).  With
    an intercept the two-class argmax rule and the 0.5 threshold coincide.  The minimum-norm
    solution (``numpy.linalg.lstsq``) is used when the design is rank deficient (one-hot
    groups are collinear with the intercept); predictions do not depend on that choice.
    """

    def fit(self, X: np.ndarray, y: np.ndarray) -> LeastSquaresClassifier:
        X = np.asarray(X, dtype=np.float64)
        self.classes_, yi = np.unique(y, return_inverse=True)
        A = np.hstack([np.ones((X.shape[0], 1)), X])
        Y = np.eye(len(self.classes_))[yi]
        self.coef_ = np.linalg.lstsq(A, Y, rcond=None)[0]
        return self

    def decision_function(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        return self.coef_[0] + X @ self.coef_[1:]

    def predict(self, X: np.ndarray) -> np.ndarray:
        F = self.decision_function(X)
        if len(self.classes_) == 2:
            return self.classes_[(F[:, 1] > 0.5).astype(int)]
        return self.classes_[np.argmax(F, axis=1)]


class MixedNB(ClassifierMixin, BaseEstimator):
    """Naive Bayes: Gaussian for numeric columns, categorical for one-hot nominal groups.

    Bouckaert & Frank (2004) use Weka's ``NaiveBayes`` with defaults: a normal density per
    numeric attribute and class, Laplace-corrected frequencies for nominal attributes, and
    missing values ignored.  scikit-learn has no mixed NB, so this is our reference:

    * numeric column ``j``: class mean and population variance over the class's *observed*
      training values, plus ``epsilon = var_smoothing · max_j var_j`` (the overall training
      variances, as ``GaussianNB``); with no numeric missing values and no nominal groups
      this is exactly ``GaussianNB`` (a test checks it).  Weka differs in its variance
      floor (precision of the data) -- a documented difference.
    * nominal group ``g`` (indicator columns, domain size ``K``): ``P(v|c) = (N_cv + alpha) /
      (N_c + alpha·K)``, ``N_c`` counting the class's training rows where ``g`` is observed
      (Laplace, alpha = 1, as Weka); with no missing values this is ``CategoricalNB(alpha=1,
      min_categories=K)`` (a test checks it).
    * a missing value (``nan``) is skipped, in fitting and in prediction (as Weka).
    * prior: class frequency of the training fold; classes absent from it are never
      predicted; ties go to the lowest class code.

    Parameters
    ----------
    nominal_groups : tuple of tuples of column indices (``Dataset.nominal_groups``).
    var_smoothing, alpha : as in scikit-learn's ``GaussianNB`` / ``CategoricalNB``.
    """

    def __init__(
        self,
        nominal_groups: tuple[tuple[int, ...], ...] = (),
        var_smoothing: float = 1e-9,
        alpha: float = 1.0,
    ) -> None:
        self.nominal_groups = nominal_groups
        self.var_smoothing = var_smoothing
        self.alpha = alpha

    def fit(self, X: np.ndarray, y: np.ndarray) -> MixedNB:
        X = np.asarray(X, dtype=np.float64)
        self.classes_, yi = np.unique(y, return_inverse=True)
        C = len(self.classes_)
        nom = sorted({j for g in self.nominal_groups for j in g})
        self.num_ = np.array([j for j in range(X.shape[1]) if j not in set(nom)], dtype=int)
        self.class_log_prior_ = np.log(np.bincount(yi, minlength=C) / len(yi))
        Xn = X[:, self.num_]
        with np.errstate(all="ignore"):
            var_all = np.nanvar(Xn, axis=0) if Xn.shape[1] else np.zeros(0)
        var_all = np.where(np.isnan(var_all), 0.0, var_all)
        eps = self.var_smoothing * (var_all.max() if var_all.size else 0.0)
        self.epsilon_ = eps if eps > 0 else self.var_smoothing  # all-constant guard
        self.theta_ = np.zeros((C, len(self.num_)))
        self.var_ = np.ones((C, len(self.num_)))
        self.seen_ = np.zeros((C, len(self.num_)), dtype=bool)
        for c in range(C):
            Xc = Xn[yi == c]
            seen = (~np.isnan(Xc)).any(axis=0)
            with np.errstate(all="ignore"):
                self.theta_[c, seen] = np.nanmean(Xc[:, seen], axis=0)
                self.var_[c, seen] = np.nanvar(Xc[:, seen], axis=0)
            self.seen_[c] = seen
        self.var_ = self.var_ + self.epsilon_
        self.log_probs_ = []
        for g in self.nominal_groups:
            V = X[:, list(g)]
            obs = ~np.isnan(V).any(axis=1)
            V0 = np.where(np.isnan(V), 0.0, V)
            N_cv = np.stack([V0[(yi == c) & obs].sum(axis=0) for c in range(C)])
            N_c = N_cv.sum(axis=1, keepdims=True)
            self.log_probs_.append(
                np.log(N_cv + self.alpha) - np.log(N_c + self.alpha * len(g))
            )
        return self

    def joint_log_likelihood(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        Xn = X[:, self.num_]
        jll = np.tile(self.class_log_prior_, (X.shape[0], 1))
        for c in range(len(self.classes_)):
            terms = -0.5 * np.log(2.0 * np.pi * self.var_[c]) - 0.5 * (
                (Xn - self.theta_[c]) ** 2
            ) / self.var_[c]
            terms = np.where(np.isnan(terms) | ~self.seen_[c], 0.0, terms)
            jll[:, c] += terms.sum(axis=1)
        for g, lp in zip(self.nominal_groups, self.log_probs_, strict=True):
            V = X[:, list(g)]
            jll += np.where(np.isnan(V), 0.0, V) @ lp.T
        return jll

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.classes_[np.argmax(self.joint_log_likelihood(X), axis=1)]


class PrunedTree(ClassifierMixin, BaseEstimator):
    """C4.5-like tree: entropy splits, post-pruned on a hold-out (Yıldız & Alpaydın 2006 §4.1).

    Yıldız & Alpaydın: "We use postpruning with 20 percent of the data reserved for
    pruning".  Here: a random ``prune_fraction`` of the training fold (stratified when
    every class has two members) is held out; an entropy ``DecisionTreeClassifier`` is grown
    on the rest; among the ``ccp_alpha`` values of its cost-complexity pruning path the one
    with the lowest hold-out error is chosen (ties: the largest alpha, the smaller tree); the
    final model is that pruned tree grown on the 80 % (``refit=False``, the paper's reading:
    the pruning data are not used to grow) or, with ``refit=True``, a tree grown on the whole
    fold with that alpha.  C4.5's own pessimistic pruning, gain ratio and multiway nominal
    splits are not reproduced (Bouckaert & Frank's Weka J48 uses them): a documented
    difference.
    """

    def __init__(
        self, prune_fraction: float = 0.2, refit: bool = False, random_state: int | None = None
    ) -> None:
        self.prune_fraction = prune_fraction
        self.refit = refit
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: np.ndarray) -> PrunedTree:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        rng = np.random.default_rng(self.random_state)
        n = len(y)
        n_hold = int(round(self.prune_fraction * n))
        grow = DecisionTreeClassifier(criterion="entropy", random_state=self.random_state)
        if n_hold < 1 or n - n_hold < 1:
            self.tree_model_ = grow.fit(X, y)
            self.ccp_alpha_ = 0.0
            return self
        hold = _stratified_holdout(y, n_hold, rng)
        keep = ~hold
        path = grow.cost_complexity_pruning_path(X[keep], y[keep])
        best, best_err = 0.0, np.inf
        for a in path.ccp_alphas:
            t = clone(grow).set_params(ccp_alpha=max(float(a), 0.0)).fit(X[keep], y[keep])
            err = np.mean(t.predict(X[hold]) != y[hold])
            if err <= best_err:  # later alphas are larger: ties go to the smaller tree
                best, best_err, best_tree = max(float(a), 0.0), err, t
        self.ccp_alpha_ = best
        self.tree_model_ = (
            clone(grow).set_params(ccp_alpha=best).fit(X, y) if self.refit else best_tree
        )
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.tree_model_.predict(np.asarray(X, dtype=np.float64))


class RepTree(ClassifierMixin, BaseEstimator):
    """C4.5 as Yıldız & Alpaydın (2006, §4.1) use it: an entropy tree grown on 80 % of the
    training data and reduced-error pruned on the other 20 % -- the reference of ``c45``.

    The paper: "We use postpruning with 20 percent of the data reserved for pruning".  Per
    fit: the same hold-out as :class:`PrunedTree` draws for the same ``random_state``
    (``round(prune_fraction · n)`` rows, :func:`_stratified_holdout` from
    ``default_rng(random_state)``); ``DecisionTreeClassifier(criterion="entropy",
    random_state=random_state)`` grown on the other rows; then reduced-error pruning
    (Quinlan 1987, "Simplifying decision trees", §2.3) on its ``tree_`` arrays: the
    hold-out rows are passed down the grown tree, a node's *leaf errors* are the hold-out
    rows reaching it that its majority class (of its growing rows; first class on ties)
    misclassifies, and, children before parents, a node is made a leaf when its leaf
    errors are ``<=`` the errors of its (already pruned) subtree.  With fewer than one
    row on either side (``n < 3`` at 20 %) the tree is grown on all rows and not pruned.

    Why not :class:`PrunedTree` (the former ``c45``): it refits once per ``ccp_alpha``
    of the cost-complexity path and keeps, among those *nested* subtrees, the one of least
    hold-out error.  That is not reduced-error pruning: bottom-up REP returns the smallest
    subtree of least hold-out error among *all* prunings of the grown tree (Esposito,
    Malerba & Semeraro 1997), which the cost-complexity path need not contain, so the two
    rules choose different trees on some folds (credit-g, 5×2 halves: 87.4 % of test
    predictions agree).  Pruning on a held-out 20 % is Quinlan's reduced-error pruning, and
    it needs one pass over the grown tree, so this is the reference; ``PrunedTree`` stays as
    the cost-complexity variant (``c45[pruning=ccp]``).
    """

    def __init__(self, prune_fraction: float = 0.2, random_state: int | None = None) -> None:
        self.prune_fraction = prune_fraction
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: np.ndarray) -> RepTree:
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        n = len(y)
        n_hold = int(round(self.prune_fraction * n))
        grow = DecisionTreeClassifier(criterion="entropy", random_state=self.random_state)
        if n_hold < 1 or n - n_hold < 1:
            self.tree_model_ = grow.fit(X, y)
            self.hold_ = np.zeros(n, dtype=bool)
            self.pruned_ = np.zeros(self.tree_model_.tree_.node_count, dtype=bool)
            return self
        hold = _stratified_holdout(y, n_hold, np.random.default_rng(self.random_state))
        self.hold_ = hold
        self.tree_model_ = t = grow.fit(X[~hold], y[~hold])
        tree = t.tree_
        left, right = tree.children_left, tree.children_right
        major = t.classes_[np.argmax(tree.value[:, 0, :], axis=1)]
        # rows of the hold-out reaching each node (sparse path indicator, hold x nodes)
        path = t.decision_path(X[hold]).tocsc()
        yh = y[hold]
        err_leaf = np.array(
            [np.sum(yh[path.indices[path.indptr[j]:path.indptr[j + 1]]] != major[j])
             for j in range(tree.node_count)]
        )
        err_sub = np.zeros(tree.node_count, dtype=np.int64)
        pruned = np.zeros(tree.node_count, dtype=bool)
        for j in range(tree.node_count - 1, -1, -1):  # children have larger ids
            if left[j] < 0:
                err_sub[j] = err_leaf[j]
                continue
            sub = err_sub[left[j]] + err_sub[right[j]]
            pruned[j] = err_leaf[j] <= sub
            err_sub[j] = err_leaf[j] if pruned[j] else sub
        self.pruned_ = pruned
        return self

    def n_leaves(self) -> int:
        """Leaves of the pruned tree."""
        tree = self.tree_model_.tree_
        todo, leaves = [0], 0
        while todo:
            j = todo.pop()
            if tree.children_left[j] < 0 or self.pruned_[j]:
                leaves += 1
            else:
                todo += [tree.children_left[j], tree.children_right[j]]
        return leaves

    def predict(self, X: np.ndarray) -> np.ndarray:
        t = self.tree_model_
        tree = t.tree_
        major = t.classes_[np.argmax(tree.value[:, 0, :], axis=1)]
        # scikit-learn compares float32 features with float64 thresholds
        X32 = np.asarray(X, dtype=np.float32)
        node = np.zeros(len(X32), dtype=np.int64)
        rows = np.arange(len(X32))
        while True:
            go = (tree.children_left[node] >= 0) & ~self.pruned_[node]
            if not go.any():
                return major[node]
            f = tree.feature[node[go]]
            left = X32[rows[go], f].astype(np.float64) <= tree.threshold[node[go]]
            node[go] = np.where(left, tree.children_left[node[go]],
                                tree.children_right[node[go]])


def _stratified_holdout(y: np.ndarray, n_hold: int, rng: np.random.Generator) -> np.ndarray:
    """Boolean hold-out mask of size ``n_hold``, spread over classes in proportion."""
    n = len(y)
    order = rng.permutation(n)
    # sort the permutation stably by class, then take every k-th: proportional per class
    order = order[np.argsort(y[order], kind="stable")]
    pick = np.floor(np.arange(n_hold) * n / n_hold).astype(int)
    hold = np.zeros(n, dtype=bool)
    hold[order[pick]] = True
    return hold


class ThresholdTreeRegressor(ClassifierMixin, BaseEstimator):
    """Least-squares regression tree used as a classifier (Wang et al. 2016, §3.1 (A)).

    Two classes: a ``DecisionTreeRegressor`` (fully grown unless ``max_depth``) on the 0/1
    indicator of ``classes_[1]``, predicting ``classes_[1]`` iff the leaf value is ``> 0.5``
    (Wang's ``I[N(X) > 0.5]``).  More classes (not in the paper): one multi-output tree on
    the class indicators, argmax of the leaf values.  The reference of the batched ``rt``.
    """

    def __init__(self, max_depth: int | None = None, random_state: int | None = None) -> None:
        self.max_depth = max_depth
        self.random_state = random_state

    def fit(self, X: np.ndarray, y: np.ndarray) -> ThresholdTreeRegressor:
        self.classes_, yi = np.unique(y, return_inverse=True)
        k = len(self.classes_)
        target = (yi == 1).astype(np.float64) if k <= 2 else np.eye(k)[yi]
        self.tree_ = DecisionTreeRegressor(
            max_depth=self.max_depth, random_state=self.random_state
        ).fit(X, target)
        return self

    def predict(self, X: np.ndarray) -> np.ndarray:
        F = self.tree_.predict(X)
        if len(self.classes_) <= 2:
            return self.classes_[np.minimum((F > 0.5).astype(int), len(self.classes_) - 1)]
        return self.classes_[np.argmax(F, axis=1)]


# --------------------------------------------------------------------------------------
# reference configurations of the papers' learners


def reference_estimator(name: str, **params: Any) -> tuple[Any, str]:
    """``(estimator, preprocess)`` of the reference configuration of a paper learner.

    ``name`` is a canonical learner name (``"nmc"``, ``"mlp"`` with ``hidden=h`` ...).  The
    neural and tree modules provide their own ``reference_estimator()``; the configurations
    here are the fallbacks used while those modules are missing.
    """
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    from sklearn.dummy import DummyClassifier
    from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier, NearestCentroid
    from sklearn.neural_network import MLPClassifier
    from sklearn.svm import SVC

    scale = params.pop("scale", "standard")
    pre_knn = "standardize" if scale == "standard" else "impute"
    table: dict[str, Any] = {
        # ties between equally frequent classes: the lowest class code (argmax of priors)
        "max": lambda: (DummyClassifier(strategy="most_frequent"), "impute"),
        "nmc": lambda: (NearestCentroid(), pre_knn),
        "1nn": lambda: (KNeighborsClassifier(n_neighbors=1, algorithm="brute"), pre_knn),
        "lda": lambda: (LinearDiscriminantAnalysis(solver="lsqr"), "standardize"),
        "ls": lambda: (LeastSquaresClassifier(), "standardize"),
        "nb": lambda: (MixedNB(**params), "none"),
        "svm": lambda: (SVC(**params), "standardize"),
        "c45": lambda: (
            PrunedTree(**{k: v for k, v in params.items() if k != "pruning"})
            if params.get("pruning") == "ccp"
            else RepTree(**{k: v for k, v in params.items() if k != "pruning"}),
            "impute",
        ),
        "rt": lambda: (ThresholdTreeRegressor(), "impute"),
        "rf": lambda: (RandomForestClassifier(**params), "impute"),
        "ab": lambda: (AdaBoostClassifier(**params), "impute"),
        "lgc": lambda: (LogisticRegression(C=1e4, max_iter=5000), "standardize"),
        "lp": lambda: (LogisticRegression(C=1e4, max_iter=5000), "standardize"),
        "mlp": lambda: (
            MLPClassifier((int(params.get("hidden", 10)),), max_iter=2000),
            "standardize",
        ),
    }
    if name not in table:
        raise SimstudyError(f"no reference configuration for learner {name!r}")
    return table[name]()
