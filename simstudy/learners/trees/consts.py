"""scikit-learn's (and Weka's J48's) constants the tree kernels reproduce, and the numba options they share."""

from __future__ import annotations

import math

import numpy as np

FEATURE_THRESHOLD = np.float32(1e-7)  # sklearn/tree/_partitioner.pxd (a float32 const)
EPSILON = float(np.finfo(np.float64).eps)  # sklearn/tree/_tree.pyx
RAND_R_MAX = 2147483647  # sklearn/tree/_utils.pxd
MAX_INT32 = 2147483647  # np.iinfo(np.int32).max, the bound for per-estimator seeds
_SEED_CHUNK = 8  # random forests seed this many trees' generators side by side
INF = np.inf
M32 = 0xFFFFFFFF
LN2 = math.log(2.0)  # sklearn/tree/_utils.pyx::log(x) = ln(x) / ln(2.0)
GINI = 0  # criterion codes (see criteria.py)
ENTROPY = 1
MSE = 2
WEKA_SMALL = 1e-6  # weka.core.Utils.SMALL: the tolerance of Weka's comparisons (J48)
C45_MIN_OBJ = 2.0  # J48 -M 2: minimum weight in at least two branches of a split

# IEEE division, as in scikit-learn's trees (Cython, cdivision=True): x / 0.0 is inf or
# nan, never an exception.  AdaBoost needs it: with real weights a candidate split can
# leave a child of weight exactly 0.0 in floating point (the weights there are clipped
# at machine epsilon and absorbed by the node total), its Gini proxy is nan there and
# `nan > best` simply rejects it.  Under numba's default ("python") error model that
# division raised ZeroDivisionError, which inside a prange loop silently abandoned the
# rest of that thread's block of models (their predictions stayed unwritten).
JIT = {"cache": True, "error_model": "numpy"}
