"""What each trial and invocation records about the code and machine that computed it.

A trial's numbers depend on its seeds and on the code that fitted and scored it; the
store keeps, per trial, which implementation fitted each learner (:func:`learner_impl`)
and, per invocation, the CPU numba compiled for (:func:`compile_target`) and the BLAS
kernels loaded (:func:`blas_kernels`), so a difference between two stores can be traced
to its cause.  (The statistics code's stamp, :func:`simstudy.store.stats_version`, lives
beside the results it stamps.)
"""

from __future__ import annotations


def learner_impl(learner) -> str:
    """Which implementation fits a learner (recorded with every trial): the ``impl_id`` its
    class declares, else -- a user's class -- its import path ``module:Class``; a wrapper of
    a fast learner (the reference path) adds the wrapped class's name.

    Examples
    --------
    >>> from simstudy.learners import get_learner
    >>> learner_impl(get_learner("nmc"))
    'simstudy.learners.linear:FastNMC'
    """
    def tag_of(cls: type) -> str:
        # declared on the class itself: a subclass does not inherit its parent's id
        return cls.__dict__.get("impl_id") or f"{cls.__module__}:{cls.__qualname__}"

    inner = getattr(learner, "learner", None)  # ReferenceOf wraps the fast learner
    tag = tag_of(type(learner))
    if inner is not None:
        tag += f"({type(inner).__qualname__})"
    return tag


def compile_target() -> str:
    """The CPU numba compiles for (``NUMBA_CPU_NAME`` / ``NUMBA_CPU_FEATURES`` when set, else
    the host's) and numba's version, recorded with each invocation in ``runs.args``.

    Why: the default ``lp`` / ``mlp-<h>`` (L-BFGS kernels with ``fastmath`` reassociation,
    so their row sums vectorise) are bitwise reproducible for one compile target, not across
    targets -- the same trials computed for ``skylake-avx512`` and for ``znver5`` differ in
    the last bits and, in about 2 % of runs, in a prediction; for ``znver5`` and ``znver1``
    an ``mlp`` trial's fold moved by up to 16 % of its test instances (its L-BFGS ends in
    another optimum; :data:`simstudy.trials.CPU_KERNELS`).  Setting ``NUMBA_CPU_NAME``
    pins the target across machines that support it.
    """
    import llvmlite.binding as llvm
    import numba
    from numba.core import config

    cpu = config.CPU_NAME or llvm.get_host_cpu_name()
    feats = f" [{config.CPU_FEATURES}]" if config.CPU_FEATURES else ""
    return f"{cpu}{feats}, numba {numba.__version__}"


def blas_kernels() -> str:
    """The BLAS libraries numpy and scipy load, with the CPU kernels OpenBLAS chose, e.g.
    ``"openblas 0.3.30 Haswell; openblas 0.3.31.188.0 Haswell"``; recorded per invocation.

    Why: OpenBLAS (``DYNAMIC_ARCH``) picks its kernels for the CPU at load time, and its
    sums are ordered per kernel, so learner work that goes through BLAS (the fold means and
    sds of ``preprocess.fold_stats``, hence ``svm``; ``lda``) can differ in the last bits
    between machines.  For example, Wang Table 5's sigmoid-SVM and LDA cells
    computed on an AVX-512 machine are reproduced exactly here with
    ``OPENBLAS_CORETYPE=SKYLAKEX`` (this machine's default, ``Haswell``, changes 2 of 6
    checked reject proportions by 0.001).
    """
    import scipy.linalg  # noqa: F401 - loads scipy's own BLAS, which lda uses
    from threadpoolctl import threadpool_info

    libs = []
    for info in threadpool_info():
        if info.get("user_api") != "blas":
            continue
        arch = f" {info['architecture']}" if info.get("architecture") else ""
        libs.append(f"{info.get('internal_api', '?')} {info.get('version') or '?'}{arch}")
    return "; ".join(sorted(set(libs))) or "none found"
