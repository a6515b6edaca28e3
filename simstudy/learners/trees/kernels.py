"""All tree kernels in one namespace (the learners call the batch kernels from here).

The kernels re-implement, step for step, what scikit-learn 1.9 does when it fits a
``DecisionTreeClassifier`` / ``DecisionTreeRegressor`` (best splitter, depth-first
builder), a ``RandomForestClassifier`` (bootstrap as integer sample weights) and an
``AdaBoostClassifier`` (discrete SAMME), *including its random number streams*; ``c45``
grows ``DecisionTreeClassifier(criterion="entropy")`` the same way and prunes it
(:mod:`.pruners`):

* ``np.random.RandomState(seed)`` (MT19937, ``mt19937_seed`` seeding) and its legacy
  masked-rejection ``randint``: the forest's per-tree seeds, the bootstrap indices, the
  boosting rounds' per-stump seeds and each splitter's initial state;
* the splitter's own xorshift ``our_rand_r`` that draws features in a Fisher-Yates order
  (``sklearn/tree/_splitter.pyx::node_split_best``), with the same bookkeeping of constant
  features, so that ties *between features* are broken exactly as scikit-learn breaks them
  for the same ``random_state``;
* float32 feature values, ``FEATURE_THRESHOLD = 1e-7`` (a float32 addition), thresholds
  at ``x[p-1]/2 + x[p]/2``, strict ``>`` on the proxy improvement (so the first candidate
  in visiting order wins a tie), the criterion's forward/backward update rule and the
  exact floating-point formulas of the Gini, entropy and MSE criteria (:mod:`.criteria`).

With integer sample weights (rt, c45: all 1; rf: bootstrap counts) every sum is exact, so the
trees are identical to scikit-learn's.  The one known source of difference is AdaBoost:
its weights are real numbers updated with ``np.exp(np.log(w) + ...)``; numpy's SIMD
exp/log differ from libm's in the last bit for a few percent of arguments, and the
order in which tied feature values are summed depends on scikit-learn's introsort.  Both
only matter when two candidate stumps are equally good to the last bit.

Speed.  Each batch kernel is a small ``prange`` over models calling a plain
per-model function (short parallel regions compile faster), with work arrays allocated
once per model.  The random forest transposes and presorts the training features once per
model; each tree filters those orders by its bootstrap counts and keeps one sorted sample
list per feature, stably partitioned at every split (only for a child that is not a leaf),
so no node sorts anything (integer weights make the order of tied values irrelevant);
with two classes, two-valued features (one-hot attributes) have no list: their scan sums
the upper value's class weights over the node's samples (one list of them, in any order,
is kept partitioned), so a split moves only the lists of features with more values.  The
best split's left sums come from its scan; test rows bound for a child that will be a
leaf take its value at the split.  Sample and row numbers are uint32 (no negative-index
fix-ups in the inner loops); bootstrap counts are drawn without a branch on rejections.  The test rows are partitioned
alongside, so each leaf adds its class proportions to the rows that reach it.  Class sums
of a child come from its parent's split; two-class scans keep their sums in scalars.
AdaBoost sorts each feature once per model and scans the sorted lists with each round's
weights (:func:`best_stump`).  ``c45`` sorts the whole data once per batch and filters
that order per model (:func:`filter_presorted`); its entropy terms come from one table
per batch (:func:`entropy_table`).  The generators' seeding -- a 624-step (397 for a
splitter) dependency chain -- is run for 8 trees, or for all boosting rounds, side by
side.

Everything here is plain arrays; validation lives in :mod:`simstudy.learners.trees`.

Inlining and numba's cache.  numba compiles each function on its own and caches its
machine code; a caller compiled later (say, after an edit to its file) against callees
loaded from the cache cannot have them inlined by LLVM, and the calls cost the forests'
small trees up to 60 % (measured: ``rf`` on 200 rows, 68 ms against 125 ms for 100
models, depending on the cache's history).  The small functions of the hot loops (the
feature draw, the Gini formulas) and ``grow_presorted`` are therefore marked
``inline="always"`` -- inlined in numba's own IR, independently of the cache.

Modules by role: :mod:`.sampler` (the random streams), :mod:`.numeric` (sums, sorts,
presorted lists), :mod:`.criteria` (Gini, entropy, squared error), :mod:`.splitter`,
:mod:`.growers`, :mod:`.pruners`, :mod:`.predict`, :mod:`.batch` (one model per
``prange`` iteration).
"""

from __future__ import annotations

from .batch import (  # noqa: F401
    _ab_one,
    _c45_one,
    _gather,
    _gather_T,
    _rf_one,
    _rt_one,
    ab_batch,
    c45_batch,
    rf_batch,
    rt_batch,
)
from .consts import (  # noqa: F401
    ENTROPY,
    EPSILON,
    FEATURE_THRESHOLD,
    GINI,
    INF,
    JIT,
    LN2,
    M32,
    MAX_INT32,
    MSE,
    RAND_R_MAX,
)
from .criteria import (  # noqa: F401
    class_children,
    class_children2,
    class_node_impurity,
    entropy_children,
    entropy_children2,
    entropy_table,
    gini_children,
    gini_children2,
    gini_proxy,
    impurity_improvement,
    mse_children,
    mse_node_impurity,
    node_sums,
    proxy_improvement,
    update_left,
    xlogx,
)
from .growers import (  # noqa: F401
    _alloc,
    grow_presorted,
    grow_tree,
)
from .numeric import (  # noqa: F401
    _argsort_rows,
    _insertion,
    _pw_block,
    _sort2,
    filter_presorted,
    pairwise_sum,
)
from .predict import (  # noqa: F401
    _argmax_first,
    _leaf,
    _leaf_pruned,
    _present,
)
from .pruners import (  # noqa: F401
    prune_rep,
)
from .sampler import (  # noqa: F401
    _bootstrap_counts,
    _first_rand_r_seed,
    _gen_mask,
    _mt_gen,
    _rand_r,
    _temper,
    draw_constant,
    draw_end,
    draw_keep,
    draw_next,
    mt_next32,
    mt_randint,
    mt_seed,
    mt_seed_many,
    splitter_state,
    splitter_states,
)
from .splitter import (  # noqa: F401
    best_stump,
    scan_presorted,
    split_sorting,
)

_JIT = JIT  # the old name
