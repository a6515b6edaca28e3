"""Weka 3.6's normal distribution function, as Weka computes it.

``weka.core.Statistics.normalProbability`` is a Java port of the Cephes ``ndtr`` (Moshier):
``Φ(a) = ½ + ½ erf(a/√2)`` for ``|a/√2| < 1/√2``, else ``½ erfc(|a|/√2)`` (reflected for
``a > 0``), with ``erf`` and ``erfc`` as rational approximations in Horner form.  The
coefficients below are Cephes' published ``ndtr.c`` constants, read back from Weka 3.6.14's
class file (``javap -constants weka.core.Statistics``).  We evaluate the same expressions in
the same order so that the probabilities -- and so naive Bayes' ties -- are Weka's; the only
possible difference is ``exp`` (Java's intrinsic vs the C library's, both within 1 ulp).
"""

from __future__ import annotations

import math

import numba

_SQRTH = 0.7071067811865476
_MAXLOG = 709.782712893384

# erf(x) = x · T(x²) / U(x²) for |x| <= 1
_T = (9.604973739870516, 90.02601972038427, 2232.005345946843,
      7003.325141128051, 55592.30130103949)
_U = (33.56171416475031, 521.3579497801527, 4594.323829709801,
      22629.000061389095, 49267.39426086359)
# erfc(x) = exp(-x²) · P(x) / Q(x) for 1 <= x < 8, exp(-x²) · R(x) / S(x) for x >= 8
_P = (2.461969814735305e-10, 0.5641895648310689, 7.463210564422699,
      48.63719709856814, 196.5208329560771, 526.4451949954773,
      934.5285271719576, 1027.5518868951572, 557.5353353693994)
_Q = (13.228195115474499, 86.70721408859897, 354.9377788878199,
      975.7085017432055, 1823.9091668790973, 2246.3376081871097,
      1656.6630919416134, 557.5353408177277)
_R = (0.5641895835477551, 1.275366707599781, 5.019050422511805,
      6.160210979930536, 7.4097426995044895, 2.9788666537210022)
_S = (2.2605286322011726, 9.396035249380015, 12.048953980809666,
      17.08144507475659, 9.608968090632859, 3.369076451000815)


@numba.njit(cache=True)
def _polevl(x, c, n):  # pragma: no cover - compiled
    """c[0] xⁿ + ... + c[n] (Horner, Cephes polevl)."""
    r = c[0]
    for i in range(1, n + 1):
        r = r * x + c[i]
    return r


@numba.njit(cache=True)
def _p1evl(x, c, n):  # pragma: no cover - compiled
    """xⁿ + c[0] xⁿ⁻¹ + ... + c[n-1] (Horner with a leading 1, Cephes p1evl)."""
    r = x + c[0]
    for i in range(1, n):
        r = r * x + c[i]
    return r


@numba.njit(cache=True)
def _erf_small(x):  # pragma: no cover - compiled
    """Weka's errorFunction for |x| <= 1."""
    z = x * x
    return x * _polevl(z, _T, 4) / _p1evl(z, _U, 5)


@numba.njit(cache=True)
def _erfc_large(a):  # pragma: no cover - compiled
    """Weka's errorFunctionComplemented for |a| >= 1."""
    x = -a if a < 0.0 else a
    z = -a * a
    if z < -_MAXLOG:
        return 2.0 if a < 0.0 else 0.0
    z = math.exp(z)
    if x < 8.0:
        p = _polevl(x, _P, 8)
        q = _p1evl(x, _Q, 8)
    else:
        p = _polevl(x, _R, 5)
        q = _p1evl(x, _S, 6)
    y = z * p / q
    if a < 0.0:
        y = 2.0 - y
    if y == 0.0:
        return 2.0 if a < 0.0 else 0.0
    return y


# Weka's erf and erfc call each other across |x| = 1; written here without the mutual
# recursion, which numba's on-disk cache cannot load (it segfaulted)
@numba.njit(cache=True)
def _erf(x):  # pragma: no cover - compiled
    if abs(x) > 1.0:
        return 1.0 - _erfc_large(x)
    return _erf_small(x)


@numba.njit(cache=True)
def _erfc(a):  # pragma: no cover - compiled
    if (-a if a < 0.0 else a) < 1.0:
        return 1.0 - _erf_small(a)
    return _erfc_large(a)


@numba.njit(cache=True)
def normal_probability(a):  # pragma: no cover - compiled
    """Φ(a) exactly as ``weka.core.Statistics.normalProbability``."""
    x = a * _SQRTH
    z = abs(x)
    if z < _SQRTH:
        return 0.5 + 0.5 * _erf(x)
    y = 0.5 * _erfc(z)
    if x > 0.0:
        y = 1.0 - y
    return y
