"""Batched gradient-trained softmax learners: ``lp``, ``lgc`` and ``mlp-<h>``.

A whole batch of ``B`` models (one per train mask) is fitted in one call; a model's
predictions are the same alone or inside any batch (tested).  Files, one per solver:

* :mod:`.net` -- the learners :class:`LinearPerceptron`, :class:`LogisticGD`, :class:`MLP`:
  options, initial weights, reference configuration; trained by
* :mod:`.lbfgs` -- full-batch L-BFGS, compiled (default, ``solver=lbfgs``), or
* :mod:`.rprop` -- full-batch iRprop− in numpy (``solver=rprop``);
* :mod:`.older` -- :class:`OnlineLP`, :class:`OnlineMLP`: the older regimes of the paper variants,
  trained by :mod:`.online` (per-pattern backprop, ``solver=online``) or :mod:`.nnet`
  (R's nnet, ``solver=nnet``), which share the compiled layers of :mod:`._layers`.

Inputs are imputed and standardised per model by
:func:`simstudy.learners.preprocess.model_stats`.

Models
------
* ``lp``  -- Alpaydın (1999)'s *linear perceptron*: one layer of ``C`` softmax outputs on
  the ``d`` inputs, trained on cross-entropy (Alpaydın, *Introduction to Machine Learning*,
  sec. "Linear discrimination / softmax").  ``C(d+1)`` parameters.
* ``lgc`` -- Yıldız & Alpaydın (2006)'s LGC, "LoGistic Classification with a linear model,
  gradient descent, discrete features 1-of-n encoded, c(d+1) parameters".  That is the same
  model and objective as ``lp`` (the 1-of-n coding of nominal attributes is already done by
  the source, see :class:`simstudy.core.Dataset`), so :class:`LogisticGD` *is* the linear
  perceptron under its other name; the two differ only in ``name``.  For two classes we keep
  two softmax outputs (``c(d+1)`` parameters, as the paper counts them).
* ``mlp-<h>`` -- one hidden layer of ``h`` **tanh** units (Alpaydın's MLPs use a sigmoid
  hidden layer; tanh is the same function class, ``tanh(a) = 2·sigmoid(2a) - 1``, and trains
  better centred) and a softmax output layer, cross-entropy loss.

Objective of the default solvers, per model on its ``n_tr`` training rows (the one of
scikit-learn's ``MLPClassifier`` times ``n_tr``, and of ``LogisticRegression(C=1/alpha)``)::

    J(θ) = Σ_i  -log softmax(f_θ(x_i))[y_i]  +  alpha/2 · ||weights||²      (biases unpenalised)

with a small ``alpha`` (default 1e-2 for lp/lgc, 1.0 for mlp; see :data:`.net.DEFAULTS`) so
the optimum exists on separable folds (iris, wine halves are often separable).  The MLP value
was chosen against Alpaydın (1999) Table 2 (tried 0.1 and 1.0): 1.0 is closer on
iris/wine/vowel, equal on glass; for lp 0.01 is closer than 1.0 on iris/glass/ODR.

Names (registered here): ``lp``, ``lgc``, ``mlp-<h>`` (also ``mlp[h=10]``); ``solver=online``
or ``solver=nnet`` in an ``lp`` / ``mlp-<h>`` spec selects the older regimes.
"""

from pathlib import Path

from ..trees._cache import ensure_coherent_cache

# before any kernel is loaded: numba re-validates a cached function against its own file
# only, and the kernels here call each other across files (see trees/_cache.py)
ensure_coherent_cache(Path(__file__).parent)

from ..base import Learner  # noqa: E402
from ..registry import register_learner  # noqa: E402
from . import older  # noqa: E402
from .net import DEFAULTS, MLP, LinearPerceptron, LogisticGD  # noqa: E402
from .older import OnlineLP, OnlineMLP  # noqa: E402

__all__ = ["MLP", "LinearPerceptron", "LogisticGD", "OnlineLP", "OnlineMLP"]

# every option of every solver (each class then checks those of its own solver)
_PARAMS = {"solver", *DEFAULTS, *(k for d in older.DEFAULTS.values() for k in d)}


@register_learner("lp", params=_PARAMS, variants=("solver=online", "solver=nnet"),
                  description="linear perceptron, softmax outputs "
                  "(Alpaydın 1999); [solver=online|nnet]: older training regimes")
def _lp(solver: str = "lbfgs", **opts: object) -> Learner:
    if solver in older.SOLVERS:
        return OnlineLP(solver, **opts)
    return LinearPerceptron(solver=solver, **opts)


register_learner("lgc", params=set(DEFAULTS), description="linear logistic classifier, "
                 "gradient descent (Yıldız & Alpaydın 2006)")(LogisticGD)


@register_learner("mlp-{h}", params=_PARAMS, variants=("solver=online", "solver=nnet"),
                  description="one-hidden-layer perceptron with "
                  "h hidden units (Alpaydın 1999); mlp[h=10]; [solver=online|nnet]")
def _mlp(h: str, solver: str = "lbfgs", **opts: object) -> Learner:
    if solver in older.SOLVERS:
        return OnlineMLP(int(h), solver, **opts)
    return MLP(int(h), solver=solver, **opts)
