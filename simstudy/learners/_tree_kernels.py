"""The tree kernels' old module name: this *is* :mod:`simstudy.learners.trees.kernels`.

The kernels live in the package :mod:`simstudy.learners.trees` (files by role: sampler,
numeric, criteria, splitter, growers, pruners, predict, batch); ``kernels`` gathers them in
one namespace, which the learners call.  Importing this module returns that same module
object (it replaces itself in ``sys.modules``), so code that imported or patched
``simstudy.learners._tree_kernels`` keeps working unchanged.
"""

import sys

from .trees import kernels as _kernels

sys.modules[__name__] = _kernels
