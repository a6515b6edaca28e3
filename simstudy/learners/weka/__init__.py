"""Weka 3.6 learners, reproduced exactly (Bouckaert & Frank 2004 ran Weka's NaiveBayes, J48
and IB1): ``wnb`` (:mod:`.nb`), ``ib1`` (:mod:`.ib1`), ``j48`` (:mod:`.j48`).

They take nominal attributes as nominal (codes, not one-hot) and impute nothing;
:mod:`._nominal` turns a :class:`~simstudy.core.Dataset`'s one-hot groups back into
attributes.  The suite compares their predictions with Weka 3.6.14's on committed fixtures
(``tests/weka/``).
"""

from pathlib import Path as _Path

from ..trees import _cache as _trees_cache

# before any kernel here is loaded: numba re-validates a cached function against its own
# file only, and these kernels call each other across files and call trees/'s (see
# trees/_cache.py)
_trees_cache.ensure_coherent_cache(_Path(__file__).parent, depends_on=(_Path(_trees_cache.__file__).parent,))
