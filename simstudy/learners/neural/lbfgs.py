"""The default solver of ``lp``, ``lgc`` and ``mlp-<h>``: full-batch L-BFGS, compiled (numba).

Full-batch **L-BFGS** per model (Nocedal & Wright 2006, Alg. 7.4-7.5; memory 10, Armijo
backtracking from the unit step, the first step scaled as scipy's L-BFGS-B).  It is what
scikit-learn's reference uses, and it needs 2-8x fewer gradient evaluations than Rprop here
(iris MLP-10: ~120 vs ~220).  Per-model stop: ``max|∇J| <= gtol · n_tr`` (scikit-learn's
``tol`` on the mean loss; 1e-4 for MLPs, 1e-6 for the convex linear models so they land on
LogisticRegression's optimum), a relative decrease ``<= tol`` in one iteration, or no Armijo
step (optimum up to float precision); ``max_epochs`` caps iterations.

The whole batch goes to one compiled function that trains the models one after another,
each on its own rows with the same code, so a model's arithmetic never sees its batch-mates
and its predictions are bitwise identical alone or inside any batch (tested).  MLPs on
small row sets train eight in lockstep, one per lane of an AVX-512 vector of float64: their
L-BFGS two-loop recursions and curvature sums (sequential float64 sums, bound by the add
latency and the memory of the pairs) run as one vector each, every lane doing its own
model's scalar operations in order; larger models with many parameters train in pairs with
interleaved dot products, the largest alone.  The affine layers hold each output's sum in
a register over all inputs (explicit FMA vectors, the plain loop's operations and order).  The compiled
network runs transposed (features × rows, rows padded with zeros to 16, a padding that
depends only on the model's own row count) so its loops vectorise; in float32 ``tanh`` and
the softmax ``exp`` are vectorisable polynomial/rational forms accurate to a few float32 ulp
(tested against numpy), L-BFGS state and ``J`` are float64.  No BLAS is called.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..base import frozen
from .layout import Net, penalty_mask

# ---------------------------------------------------------------------------------------
# numba L-BFGS kernels: one model at a time, the whole batch in one compiled call.
#
# Each model is trained by the same compiled code on its own rows only, so its result is
# bitwise independent of its batch-mates, of batch order and of chunking by construction.
# Per model the network is tiny (iris: 75 rows, 4 inputs, 10 hidden units), so the work is
# laid out transposed -- features × rows -- and every inner loop runs over the contiguous
# row axis, where it vectorises.  ``fastmath`` allows only reassociation, contraction (FMA)
# and signed-zero freedom, so the row sums vectorise; nan/inf checks keep their meaning.

_FM = {"reassoc", "contract", "nsz"}
_PAD = 16  # row padding: one AVX-512 vector of float32
# Models train in pairs (_lbfgs_two) when their dot products are a large share of an
# iteration (P >= _PAIR_P parameters) and both row sets fit in _PAIR_BYTES (larger ones
# alone: two would evict each other's rows from the core's L2 cache)
_PAIR_P = 200
_PAIR_BYTES = 2**18
_QUAD_ROWS = 1024  # see the hidden layer's gradient in _objective
# lgc's weight gradient takes up to six sums per pass over the rows (_dot_rows) from this
# many rows on; below, the rows stay in L1 and the per-sum reduction costs more than it saves
_DOT_ROWS = 1536
# Models whose row sets are small train _LANES at a time (_lbfgs_lanes): one model per lane of
# an AVX-512 vector of float64 in the two-loop recursion, when _LANES of their inputs fit in
# _LANE_BYTES (larger ones alone or in pairs: they would evict each other from L2)
_LANES = 8
_LANE_BYTES = 2**18

# Constants in the network's float type travel in one array ``K`` (numba would promote a
# float32 expression to float64 on meeting a Python float literal).
_K_ZERO, _K_ONE, _K_HALF, _K_CLIP = 0, 1, 2, 3
# Eigen's float32 tanh (rational minimax 13/6 on [-7.905, 7.905], a few ulp; |x| < 4e-4
# returns x): Eigen/src/Core/MathFunctionsImpl.h, generic_fast_tanh_float.
_K_ALPHA = 4  # 7 numerator coefficients alpha_1 .. alpha_13, then 4 denominator beta_0 .. beta_6
_TANH_ALPHA = (
    4.89352455891786e-03,
    6.37261928875436e-04,
    1.48572235717979e-05,
    5.12229709037114e-08,
    -8.60467152213735e-11,
    2.00018790482477e-13,
    -2.76076847742355e-16,
)
_TANH_BETA = (
    4.89352518554385e-03,
    2.26843463243900e-03,
    1.18534705686654e-04,
    1.19825839466702e-06,
)
_K_TINY = _K_ALPHA + 11


def _consts(dtype: np.dtype) -> np.ndarray:
    return np.array(
        (0.0, 1.0, 0.5, 7.90531110763549805) + _TANH_ALPHA + _TANH_BETA + (4e-4,), dtype=dtype
    )


@njit(cache=True, fastmath=_FM, error_model="numpy")
def _tanh_rows(Z, K, fast):  # pragma: no cover - compiled
    """``Z = tanh(Z)`` in place on a 2-D array; ``fast``: the vectorisable rational form."""
    if not fast:
        for j in range(Z.shape[0]):
            for i in range(Z.shape[1]):
                Z[j, i] = np.tanh(Z[j, i])
        return
    clip = K[_K_CLIP]
    a1, a3, a5, a7 = K[_K_ALPHA], K[_K_ALPHA + 1], K[_K_ALPHA + 2], K[_K_ALPHA + 3]
    a9, a11, a13 = K[_K_ALPHA + 4], K[_K_ALPHA + 5], K[_K_ALPHA + 6]
    b0, b2, b4, b6 = K[_K_ALPHA + 7], K[_K_ALPHA + 8], K[_K_ALPHA + 9], K[_K_ALPHA + 10]
    tiny = K[_K_TINY]
    for j in range(Z.shape[0]):
        for i in range(Z.shape[1]):
            z = Z[j, i]
            x = min(max(z, -clip), clip)
            x2 = x * x
            p = x2 * a13 + a11
            p = x2 * p + a9
            p = x2 * p + a7
            p = x2 * p + a5
            p = x2 * p + a3
            p = x2 * p + a1
            p = x * p
            q = x2 * b6 + b4
            q = x2 * q + b2
            q = x2 * q + b0
            Z[j, i] = z if abs(z) < tiny else p / q


@njit(cache=True, fastmath=_FM, error_model="numpy")
def _exp_nonpos(z, kb):  # pragma: no cover - compiled
    """``z = exp(z)`` in place for float32 ``z <= 0`` (softmax after the max shift).

    Cephes ``expf``: ``exp(x) = 2^k · exp(x - k ln2)``, Cody-Waite split of ln2, degree-6
    polynomial (2-3 ulp; checked against numpy in the tests); ``2^k`` is assembled in the
    exponent bits of ``kb`` (int32 scratch).  ``x < -87`` is clamped (``exp(-87) ≈ 1.6e-38``,
    negligible beside the softmax sum >= 1).  Vectorises, unlike a call to libm per value.
    """
    kf = kb.view(np.float32)
    for i in range(z.shape[0]):
        x = max(z[i], np.float32(-87.0))
        k = np.floor(x * np.float32(1.44269504088896341) + np.float32(0.5))
        r = x - k * np.float32(0.693359375) - k * np.float32(-2.12194440e-4)
        p = np.float32(1.9875691500e-4) * r + np.float32(1.3981999507e-3)
        p = p * r + np.float32(8.3334519073e-3)
        p = p * r + np.float32(4.1665795894e-2)
        p = p * r + np.float32(1.6666665459e-1)
        p = p * r + np.float32(5.0000001201e-1)
        p = p * r * r + r + np.float32(1.0)
        kb[i] = (np.int32(k) + np.int32(127)) << np.int32(23)
        z[i] = p
    for i in range(z.shape[0]):
        z[i] *= kf[i]


# The affine layers: each output's sum keeps its written order, ``b_j``, then one FMA per
# input ``k`` in order (what the plain loop ``Out[j, i] += w * A[k, i]`` compiles to with
# "contract"), whatever the blocking.


def _vrows(R):
    """Intrinsic: ``R`` output rows of an affine layer, each element ``fma(W[wb + (nin-1)·sk
    + t·sj], A[ao + (nin-1)·lda + i], ... fma(W[wb + t·sj], A[ao + i], b_t))`` written to
    ``Out[oo + t·ro + i]`` for rows ``t < R`` and ``i < n`` (``n`` a multiple of 16; flat
    C-contiguous arrays, ``lda`` and ``ro`` row strides).  Each sum is held in a register over
    all ``nin`` inputs; up to ``4·R`` independent sums per pass over k hide the FMA latency."""

    def codegen(context, builder, signature, args):
        Out_, oo_, ro_, A_, ao_, lda_, W_, wb_, sj_, sk_, nin_, b0_, b1_, n_ = args
        ty = signature.args
        bits = ty[0].dtype.bitwidth
        et = context.get_data_type(ty[0].dtype)
        width = 16 if bits == 32 else 8
        vt = ir.VectorType(et, width)
        i64 = ir.IntType(64)
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vt, [vt, vt, vt]), f"llvm.fma.v{width}f{bits}"
        )
        po = context.make_array(ty[0])(context, builder, Out_).data
        pa = context.make_array(ty[3])(context, builder, A_).data
        pw = context.make_array(ty[6])(context, builder, W_).data
        zeros = ir.Constant(ir.VectorType(ir.IntType(32), width), [0] * width)

        def splat(x):
            v = builder.insert_element(ir.Constant(vt, ir.Undefined), x, ir.Constant(ir.IntType(32), 0))
            return builder.shuffle_vector(v, ir.Constant(vt, ir.Undefined), zeros)

        bvs = [splat(b0_), splat(b1_)][:R]
        nv = builder.udiv(n_, ir.Constant(i64, width))
        accs = [[cgutils.alloca_once(builder, vt) for _ in range(4)] for _ in range(R)]

        def block(first, u):
            offs = [builder.mul(builder.add(first, ir.Constant(i64, t)), ir.Constant(i64, width))
                    for t in range(u)]
            for r_ in range(R):
                for t in range(u):
                    builder.store(bvs[r_], accs[r_][t])
            with cgutils.for_range(builder, nin_) as kl:
                k = kl.index
                wi = builder.add(wb_, builder.mul(k, sk_))
                wvs = [splat(builder.load(builder.gep(pw, [builder.add(wi, builder.mul(ir.Constant(i64, r_), sj_))])))
                       for r_ in range(R)]
                row = builder.add(ao_, builder.mul(k, lda_))
                for t in range(u):
                    ap = builder.gep(pa, [builder.add(row, offs[t])])
                    x = builder.load(builder.bitcast(ap, vt.as_pointer()), align=4)
                    for r_ in range(R):
                        acc = accs[r_][t]
                        builder.store(builder.call(fma, [wvs[r_], x, builder.load(acc)]), acc)
            for r_ in range(R):
                base = builder.add(oo_, builder.mul(ir.Constant(i64, r_), ro_))
                for t in range(u):
                    op = builder.gep(po, [builder.add(base, offs[t])])
                    builder.store(builder.load(accs[r_][t]), builder.bitcast(op, vt.as_pointer()), align=4)

        n4 = builder.udiv(nv, ir.Constant(i64, 4))
        with cgutils.for_range(builder, n4) as iv:
            block(builder.mul(iv.index, ir.Constant(i64, 4)), 4)
        with cgutils.for_range(builder, builder.sub(nv, builder.mul(n4, ir.Constant(i64, 4)))) as iv:
            block(builder.add(builder.mul(n4, ir.Constant(i64, 4)), iv.index), 1)
        return context.get_dummy_value()

    def typer(typingctx, Out, oo, ro, A, ao, lda, W, wb, sj, sk, nin, b0, b1, n):
        return types.void(Out, oo, ro, A, ao, lda, W, wb, sj, sk, nin, b0, b1, n), codegen

    return intrinsic(typer)


_vrows1 = _vrows(1)
_vrows2 = _vrows(2)


def _vdots(Rk, Rc):
    """Intrinsic: the ``Rk·Rc`` sums ``Σ_i X[xo + kk·ldx + i] · Z[zo + cc·ldz + i]`` over
    ``i < n`` (``n`` a multiple of 64), each held as the vectorised loop of
    :func:`_dot_rows` holds it: four vectors of 16 lanes, lane ``l`` of vector ``u`` taking
    the rows ``i ≡ 16u + l (mod 64)`` in order, one FMA each, from +0; then the vectors
    added (0+1)+(2+3) and the lanes halved in a tree (8, 4, 2, 1), the sum stored to
    ``Acc[ao + kk·Rc + cc]``.  One pass loads each row vector once
    for up to ``Rk·Rc`` FMAs (the plain loop loads two per FMA)."""

    def codegen(context, builder, signature, args):
        Acc_, ao_, X_, xo_, ldx_, Z_, zo_, ldz_, n_ = args
        ty = signature.args
        et = context.get_data_type(ty[0].dtype)
        vt = ir.VectorType(et, 16)  # float32 (the float64 networks keep the plain loop)
        i64 = ir.IntType(64)
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vt, [vt, vt, vt]),
            f"llvm.fma.v16f{ty[0].dtype.bitwidth}",
        )
        pacc = context.make_array(ty[0])(context, builder, Acc_).data
        px = context.make_array(ty[2])(context, builder, X_).data
        pz = context.make_array(ty[5])(context, builder, Z_).data

        def vptr(p, off):
            return builder.bitcast(builder.gep(p, [off]), vt.as_pointer())

        accs = {}
        for kk in range(Rk):
            for cc in range(Rc):
                for u in range(4):
                    a = cgutils.alloca_once(builder, vt)
                    builder.store(ir.Constant(vt, [0.0] * 16), a)
                    accs[kk, cc, u] = a
        xrow = [builder.add(xo_, builder.mul(ir.Constant(i64, kk), ldx_)) for kk in range(Rk)]
        zrow = [builder.add(zo_, builder.mul(ir.Constant(i64, cc), ldz_)) for cc in range(Rc)]
        nt = builder.udiv(n_, ir.Constant(i64, 64))
        with cgutils.for_range(builder, nt) as lp:
            base = builder.mul(lp.index, ir.Constant(i64, 64))
            for u in range(4):
                o = builder.add(base, ir.Constant(i64, 16 * u))
                xs = [builder.load(vptr(px, builder.add(xrow[kk], o)), align=4) for kk in range(Rk)]
                zs = [builder.load(vptr(pz, builder.add(zrow[cc], o)), align=4) for cc in range(Rc)]
                for kk in range(Rk):
                    for cc in range(Rc):
                        a = accs[kk, cc, u]
                        builder.store(builder.call(fma, [xs[kk], zs[cc], builder.load(a)]), a)
        i32 = ir.IntType(32)

        def half(v, w):  # lanes 0..w-1 plus lanes w..2w-1, as a w-vector
            lo = builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(i32, w), list(range(w))))
            hi = builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(i32, w), list(range(w, 2 * w))))
            return builder.fadd(lo, hi)

        for kk in range(Rk):
            for cc in range(Rc):
                a = [builder.load(accs[kk, cc, u]) for u in range(4)]
                v = builder.fadd(builder.fadd(a[0], a[1]), builder.fadd(a[2], a[3]))
                v = half(half(half(half(v, 8), 4), 2), 1)
                off = builder.add(ao_, ir.Constant(i64, kk * Rc + cc))
                builder.store(builder.extract_element(v, ir.Constant(i32, 0)), builder.gep(pacc, [off]))
        return context.get_dummy_value()

    def typer(typingctx, Acc, ao, X, xo, ldx, Z, zo, ldz, n):
        return types.void(Acc, ao, X, xo, ldx, Z, zo, ldz, n), codegen

    return intrinsic(typer)


_vdots23 = _vdots(2, 3)
_vdots22 = _vdots(2, 2)
_vdots21 = _vdots(2, 1)
_vdots13 = _vdots(1, 3)
_vdots12 = _vdots(1, 2)
_vdots11 = _vdots(1, 1)


@njit(cache=True, error_model="numpy")
def _vdots_any(Acc, X, xo, ldx, Z, zo, ldz, n, rk, rc):  # pragma: no cover - compiled
    """:func:`_vdots` for ``rk <= 2`` rows of ``X`` and ``rc <= 3`` rows of ``Z``."""
    if rk == 2:
        if rc == 3:
            _vdots23(Acc, 0, X, xo, ldx, Z, zo, ldz, n)
        elif rc == 2:
            _vdots22(Acc, 0, X, xo, ldx, Z, zo, ldz, n)
        else:
            _vdots21(Acc, 0, X, xo, ldx, Z, zo, ldz, n)
    elif rc == 3:
        _vdots13(Acc, 0, X, xo, ldx, Z, zo, ldz, n)
    elif rc == 2:
        _vdots12(Acc, 0, X, xo, ldx, Z, zo, ldz, n)
    else:
        _vdots11(Acc, 0, X, xo, ldx, Z, zo, ldz, n)


@njit(cache=True, fastmath={"contract"}, error_model="numpy")
def _dot_tail(s, X, xo, Z, zo, i0, r, v):  # pragma: no cover - compiled
    """The vectorised loop's remainder: rows ``i0 .. r`` (a multiple of 8 rows) in 8 lanes
    from ``s`` in lane 0, one FMA each, then halved in a tree (the loop's epilogue)."""
    for j in range(8):
        v[j] = 0.0
    v[0] = s
    for i in range(i0, r, 8):
        for j in range(8):
            v[j] += X[xo + i + j] * Z[zo + i + j]
    for j in range(4):
        v[j] = v[j] + v[j + 4]
    for j in range(2):
        v[j] = v[j] + v[j + 2]
    return v[0] + v[1]


@njit(cache=True, error_model="numpy")
def _dot_rows(X, Z, G, d, C, K):  # pragma: no cover - compiled
    """``G[k·C + c] = Σ_i X[k, i] · Z[c, i]`` for ``k < d``, ``c < C`` over X's rows: each
    sum bitwise the vectorised loop ``acc += X[k, i] * Z[c, i]`` of the compiled objective
    (16 lanes × 4 vectors over 64-row steps, the vectors added (0+1)+(2+3), the lanes halved
    in a tree; the last ``r mod 64`` rows in 8 lanes from that sum in lane 0, halved again),
    computed up to six sums per pass (:func:`_vdots`)."""
    r = X.shape[1]
    n = r // 64 * 64
    Acc = np.empty(8, K.dtype)
    v = np.empty(8, K.dtype)
    Xf = X.ravel()
    Zf = Z.ravel()
    for c0 in range(0, C, 3):
        rc = min(3, C - c0)
        for k0 in range(0, d, 2):
            rk = min(2, d - k0)
            _vdots_any(Acc, Xf, k0 * r, r, Zf, c0 * r, r, n, rk, rc)
            for kk in range(rk):
                for cc in range(rc):
                    s = Acc[kk * rc + cc]
                    if n < r:
                        s = _dot_tail(s, Xf, (k0 + kk) * r, Zf, (c0 + cc) * r, n, r, v)
                    G[(k0 + kk) * C + c0 + cc] = s


@njit(cache=True, error_model="numpy")
def _affine(W, wo, sk, sj, bo, A, Out, nin, nout, K, blk):  # pragma: no cover - compiled
    """``Out[j, i] = b_j + Σ_k W[wo + k·sk + j·sj] · A[k, i]`` for ``j < nout``, ``k < nin``.

    ``b_j = W[bo + j]``, or 0 when ``bo < 0``.  Each element is the plain loop's: ``b_j``,
    then one FMA per ``k`` in order (:func:`_vrows`), two outputs a pass.  The rows run in blocks of ``blk``
    (``A``'s block stays in cache while every output takes its part).
    """
    r = A.shape[1]
    Af = A.ravel()
    Of = Out.ravel()
    ro = Out.shape[1]
    # every output pair reads the whole block of A: keep it in L1 (~16 KB)
    blk = min(blk, max(64, (16384 // (nin * A.itemsize)) // 16 * 16))
    for i0 in range(0, r, blk):
        n = min(blk, r - i0)
        j = 0
        while j + 2 <= nout:
            b0 = W[bo + j] if bo >= 0 else K[_K_ZERO]
            b1 = W[bo + j + 1] if bo >= 0 else K[_K_ZERO]
            _vrows2(Of, j * ro + i0, ro, Af, i0, r, W, wo + j * sj, sj, sk, nin, b0, b1, n)
            j += 2
        if j < nout:
            b0 = W[bo + j] if bo >= 0 else K[_K_ZERO]
            _vrows1(Of, j * ro + i0, ro, Af, i0, r, W, wo + j * sj, sj, sk, nin, b0, b0, n)


@njit(cache=True, error_model="numpy")
def _blk(r, nin, nout):  # pragma: no cover - compiled
    """Row block of :func:`_affine`: its input and output blocks in ~96 KB, at least 256 rows.

    Measured against 64-row and 24 KB blocks and unblocked rows: fastest or tied on
    optdigits mlp-10/20 and lp, pendigits lgc and heart-statlog mlp-20."""
    return max(256, min(r, (24576 // (nin + nout)) // 16 * 16))


@njit(cache=True, fastmath=_FM, error_model="numpy")
def _logits(W, Xt, H, Z, d, h, C, logistic, K, fast):  # pragma: no cover - compiled
    """Forward pass, transposed: ``H`` (h, r) hidden outputs, ``Z`` (C, r) logits.

    ``W`` holds the flat parameters in the layout of :mod:`.layout`.
    """
    r = Xt.shape[1]
    if h == 0:
        _affine(W, 0, C, 1, d * C, Xt, Z, d, C, K, _blk(r, d, C))
        return
    half = K[_K_HALF]
    _affine(W, 0, h, 1, d * h, Xt, H, d, h, K, _blk(r, d, h))
    if logistic:  # logistic(a) = (1 + tanh(a/2)) / 2, exact identity, no overflow
        for j in range(h):
            for i in range(r):
                H[j, i] *= half
    _tanh_rows(H, K, fast)
    if logistic:
        for j in range(h):
            for i in range(r):
                H[j, i] = half * H[j, i] + half
    o = (d + 1) * h
    _affine(W, o, C, 1, o + h * C, H, Z, h, C, K, _blk(r, h, C))


@njit(cache=True, fastmath=_FM, error_model="numpy")
def _objective(
    theta, pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, W, H, Z, Dh, mx, S, kb, G, g
):  # pragma: no cover - compiled
    """``J(θ)`` (float64) and its gradient into ``g`` (float64, flat); network in K's dtype.

    J = Σ_i -log softmax(z_i)[y_i] + alpha/2 Σ pen·θ², the objective of the module docstring.
    """
    P = theta.shape[0]
    r = Xt.shape[1]  # padded to a multiple of _PAD with zero columns
    nr = yr.shape[0]  # the real rows
    for p in range(P):
        W[p] = theta[p]
    _logits(W, Xt, H, Z, d, h, C, logistic, K, fast)
    # softmax by columns: running max and sum over the C rows, vectorised over rows
    for i in range(r):
        mx[i] = Z[0, i]
    for c in range(1, C):
        for i in range(r):
            mx[i] = max(mx[i], Z[c, i])
    f = 0.0
    for i in range(nr):
        f -= Z[yr[i], i] - mx[i]
    for c in range(C):
        for i in range(r):
            Z[c, i] -= mx[i]
        if fast:
            _exp_nonpos(Z[c], kb)
        else:
            for i in range(r):
                Z[c, i] = np.exp(Z[c, i])
    for i in range(r):
        S[i] = Z[0, i]
    for c in range(1, C):
        for i in range(r):
            S[i] += Z[c, i]
    # Σ_i log S_i as the logs of float64 products of 32 terms (each S_i in [1, C]): 32x
    # fewer log calls, and no overflow for C < 4e9
    for i0 in range(0, nr, 32):
        prod = 1.0
        for i in range(i0, min(i0 + 32, nr)):
            prod *= S[i]
        f += np.log(prod)
    for i in range(r):
        S[i] = K[_K_ONE] / S[i]
    for c in range(C):  # dJ/dz = softmax - one-hot
        for i in range(r):
            Z[c, i] = Z[c, i] * S[i] - Yt[c, i]
        for i in range(nr, r):  # padding rows carry no loss: zero gradient
            Z[c, i] = K[_K_ZERO]
    if h == 0 and fast and r >= _DOT_ROWS:
        for c in range(C):
            acc = K[_K_ZERO]
            for i in range(r):
                acc += Z[c, i]
            G[d * C + c] = acc
        _dot_rows(Xt, Z, G, d, C, K)
    elif h == 0:
        for c in range(C):
            acc = K[_K_ZERO]
            for i in range(r):
                acc += Z[c, i]
            G[d * C + c] = acc
            for k in range(d):
                acc = K[_K_ZERO]
                for i in range(r):
                    acc += Xt[k, i] * Z[c, i]
                G[k * C + c] = acc
    else:
        o = (d + 1) * h
        one = K[_K_ONE]
        for c in range(C):
            acc = K[_K_ZERO]
            for i in range(r):
                acc += Z[c, i]
            G[o + h * C + c] = acc
        # back through the hidden layer: Dh = (D W2ᵀ) ⊙ act'(H)
        _affine(W, o, 1, C, -1, Z, Dh, C, h, K, _blk(r, C, h))
        # the output layer's weights: Σ_i H[j, i] Z[c, i]; up to _QUAD_ROWS rows four sums per
        # pass over Z[c], each the loop the compiler vectorises alone (as the hidden layer's)
        for c in range(C):
            j = 0
            if r <= _QUAD_ROWS:
                while j + 4 <= h:
                    a0 = K[_K_ZERO]
                    a1 = K[_K_ZERO]
                    a2 = K[_K_ZERO]
                    a3 = K[_K_ZERO]
                    for i in range(r):
                        z = Z[c, i]
                        a0 += H[j, i] * z
                        a1 += H[j + 1, i] * z
                        a2 += H[j + 2, i] * z
                        a3 += H[j + 3, i] * z
                    G[o + j * C + c] = a0
                    G[o + (j + 1) * C + c] = a1
                    G[o + (j + 2) * C + c] = a2
                    G[o + (j + 3) * C + c] = a3
                    j += 4
            while j < h:
                acc = K[_K_ZERO]
                for i in range(r):
                    acc += H[j, i] * Z[c, i]
                G[o + j * C + c] = acc
                j += 1
        for j in range(h):
            # back through the hidden layer: Dh = (D W2ᵀ) ⊙ act'(H)
            if logistic:
                for i in range(r):
                    Dh[j, i] *= H[j, i] * (one - H[j, i])
            else:
                for i in range(r):
                    Dh[j, i] *= one - H[j, i] * H[j, i]
            acc = K[_K_ZERO]
            for i in range(r):
                acc += Dh[j, i]
            G[d * h + j] = acc
        # the hidden layer's weights: Σ_i Xt[k, i] Dh[j, i]
        if r > _QUAD_ROWS:
            for j in range(h):
                for k in range(d):
                    acc = K[_K_ZERO]
                    for i in range(r):
                        acc += Xt[k, i] * Dh[j, i]
                    G[k * h + j] = acc
        else:
            # four sums per pass over Xt[k] (its row loaded once) while four rows of Dh stay
            # in L1 (on optdigits, 2816 rows, it was 7 % slower); each sum is the loop the
            # compiler vectorises alone (16 lanes x 4 accumulators, then 8), so the same value
            for k in range(d):
                j = 0
                while j + 4 <= h:
                    a0 = K[_K_ZERO]
                    a1 = K[_K_ZERO]
                    a2 = K[_K_ZERO]
                    a3 = K[_K_ZERO]
                    for i in range(r):
                        x = Xt[k, i]
                        a0 += x * Dh[j, i]
                        a1 += x * Dh[j + 1, i]
                        a2 += x * Dh[j + 2, i]
                        a3 += x * Dh[j + 3, i]
                    G[k * h + j] = a0
                    G[k * h + j + 1] = a1
                    G[k * h + j + 2] = a2
                    G[k * h + j + 3] = a3
                    j += 4
                while j < h:
                    acc = K[_K_ZERO]
                    for i in range(r):
                        acc += Xt[k, i] * Dh[j, i]
                    G[k * h + j] = acc
                    j += 1
    reg = 0.0
    for p in range(P):
        wp = pen[p] * theta[p]
        reg += wp * theta[p]
        g[p] = G[p] + alpha * wp
    return f + 0.5 * alpha * reg


@njit(cache=True, error_model="numpy")
def _dot(a, b):  # pragma: no cover - compiled
    # plain sequential sum (no fastmath): the L-BFGS scalars are float64 and cheap
    s = 0.0
    for p in range(a.shape[0]):
        s += a[p] * b[p]
    return s


@njit(cache=True, error_model="numpy")
def _dot2(a, b, c, e):  # pragma: no cover - compiled
    """``(_dot(a, b), _dot(c, e))`` in one loop: each sum keeps its own sequential order,
    and the two dependency chains overlap (a lone chain waits on the add latency)."""
    s = 0.0
    u = 0.0
    for p in range(a.shape[0]):
        s += a[p] * b[p]
        u += c[p] * e[p]
    return s, u


@njit(cache=True, error_model="numpy", inline="always")
def _work(P, r, h, C, m, dt):  # pragma: no cover - compiled
    """One model's scratch: network arrays (K's dtype) and L-BFGS state (float64)."""
    return (
        np.empty(P, dt),  # W
        np.empty((max(h, 1), r), dt),  # H
        np.empty((C, r), dt),  # Z
        np.empty((max(h, 1), r), dt),  # Dh
        np.empty(r, dt),  # mx
        np.empty(r, dt),  # Sr
        np.empty(r, np.int32),  # kb
        np.empty(P, dt),  # G
        np.empty(P),  # g
        np.empty(P),  # gc
        np.empty(P),  # cand
        np.empty(P),  # q
        np.empty(P),  # sv
        np.empty(P),  # yv
        np.zeros((m, P)),  # Sm
        np.zeros((m, P)),  # Ym
        np.zeros(m),  # rho
        np.zeros(m),  # a
    )


@njit(cache=True, error_model="numpy", inline="always")
def _two_loop(g, q, Sm, Ym, rho, a, stored, head, gamma, m):  # pragma: no cover - compiled
    """``q = -H g`` by the two-loop recursion (Nocedal & Wright Alg. 7.4); returns ``gᵀq``."""
    P = g.shape[0]
    for p in range(P):
        q[p] = -g[p]
    for jj in range(stored):  # newest pair first
        j = (head - 1 - jj) % m
        a[j] = rho[j] * _dot(Sm[j], q)
        for p in range(P):
            q[p] -= a[j] * Ym[j, p]
    for p in range(P):
        q[p] *= gamma
    for jj in range(stored - 1, -1, -1):
        j = (head - 1 - jj) % m
        bj = rho[j] * _dot(Ym[j], q)
        for p in range(P):
            q[p] += (a[j] - bj) * Sm[j, p]
    return _dot(g, q)


@njit(cache=True, error_model="numpy", inline="always")
def _two_loop2(
    g, q, Sm, Ym, rho, a, stored, head, gamma, g2, q2, Sm2, Ym2, rho2, a2, stored2, head2, gamma2, m
):  # pragma: no cover - compiled
    """:func:`_two_loop` of two models at once: the same arithmetic for each, their dot
    products interleaved by :func:`_dot2`.  Returns both ``gᵀq``."""
    P = g.shape[0]
    for p in range(P):
        q[p] = -g[p]
    for p in range(P):
        q2[p] = -g2[p]
    for jj in range(max(stored, stored2)):  # newest pair first
        j = (head - 1 - jj) % m
        j2 = (head2 - 1 - jj) % m
        if jj < stored and jj < stored2:
            s, s2 = _dot2(Sm[j], q, Sm2[j2], q2)
            a[j] = rho[j] * s
            a2[j2] = rho2[j2] * s2
        elif jj < stored:
            a[j] = rho[j] * _dot(Sm[j], q)
        else:
            a2[j2] = rho2[j2] * _dot(Sm2[j2], q2)
        if jj < stored:
            for p in range(P):
                q[p] -= a[j] * Ym[j, p]
        if jj < stored2:
            for p in range(P):
                q2[p] -= a2[j2] * Ym2[j2, p]
    for p in range(P):
        q[p] *= gamma
    for p in range(P):
        q2[p] *= gamma2
    for jj in range(max(stored, stored2) - 1, -1, -1):
        j = (head - 1 - jj) % m
        j2 = (head2 - 1 - jj) % m
        if jj < stored and jj < stored2:
            s, s2 = _dot2(Ym[j], q, Ym2[j2], q2)
            bj = rho[j] * s
            bj2 = rho2[j2] * s2
        elif jj < stored:
            bj = rho[j] * _dot(Ym[j], q)
            bj2 = 0.0
        else:
            bj = 0.0
            bj2 = rho2[j2] * _dot(Ym2[j2], q2)
        if jj < stored:
            for p in range(P):
                q[p] += (a[j] - bj) * Sm[j, p]
        if jj < stored2:
            for p in range(P):
                q2[p] += (a2[j2] - bj2) * Sm2[j2, p]
    return _dot2(g, q, g2, q2)


@njit(cache=True, error_model="numpy", inline="always")
def _step(
    it, gp, f, gamma, stored, head, theta, pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast,
    ws, m, tol, gtol,
):  # pragma: no cover - compiled
    """The rest of one L-BFGS iteration of :func:`_lbfgs_two` after the direction ``q``
    (``gp = gᵀq``): restart if not a descent direction, Armijo backtracking, the curvature
    pair, the stop rules.  Returns ``(stop, f, gamma, stored, head)``.  :func:`_lbfgs_one`
    runs the same steps inline: through this function (work arrays passed in, not allocated
    in the caller) models with 15-90 parameters trained 8-18 % slower."""
    W, H, Z, Dh, mx, Sr, kb, G, g, gc, cand, q, sv, yv, Sm, Ym, rho, a = ws
    P = theta.shape[0]
    if not gp < 0.0:  # not a descent direction: restart from steepest descent
        for p in range(P):
            q[p] = -g[p]
        gp = -_dot(g, g)
        stored = 0
        gamma = 1.0
    t = 1.0 / max(np.sqrt(-gp), 1.0) if it == 1 else 1.0
    found = False
    fc = np.inf
    for _ in range(30):
        for p in range(P):
            cand[p] = theta[p] + t * q[p]
        fc = _objective(
            cand, pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, W, H, Z, Dh, mx, Sr, kb, G, gc
        )
        if np.isfinite(fc) and fc <= f + 1e-4 * t * gp:
            found = True
            break
        t *= 0.5
    if not found:
        return True, f, gamma, stored, head
    sy = 0.0
    yy = 0.0
    for p in range(P):
        sv[p] = cand[p] - theta[p]
        yv[p] = gc[p] - g[p]
        sy += sv[p] * yv[p]
        yy += yv[p] * yv[p]
    if sy > 1e-12:  # curvature pair kept (it replaces the oldest when memory is full)
        for p in range(P):
            Sm[head, p] = sv[p]
            Ym[head, p] = yv[p]
        rho[head] = 1.0 / sy
        gamma = sy / yy
        head = (head + 1) % m
        stored = min(stored + 1, m)
    dec = f - fc
    gmax = 0.0
    for p in range(P):
        theta[p] = cand[p]
        g[p] = gc[p]
        gmax = max(gmax, abs(gc[p]))
    f = fc
    stop = gmax <= gtol or dec <= tol * max(abs(f), abs(f + dec), 1.0)
    return stop, f, gamma, stored, head


@njit(cache=True, error_model="numpy")
def _lbfgs_one(
    theta, pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, m, max_it, tol, gtol
):  # pragma: no cover - compiled
    """L-BFGS (Nocedal & Wright 2006, Alg. 7.4 two-loop recursion, Alg. 7.5) on one model.

    Armijo backtracking (c1 = 1e-4, halving, at most 30 trials) from the unit step; the first
    step is scaled like scipy's L-BFGS-B (``|t·p| = 1``).  A pair with ``sᵀy <= 1e-12`` is not
    stored; a non-descent direction restarts from steepest descent with the memory cleared.
    Stops when ``max|∇J| <= gtol``, when one iteration decreased ``J`` by ``<= tol`` relative
    to ``max(|J|, 1)``, or when no Armijo step is found (optimum up to float precision).
    Updates ``theta`` in place; returns the iterations run.
    """
    P = theta.shape[0]
    r = Xt.shape[1]
    dt = K.dtype
    W = np.empty(P, dt)
    H = np.empty((max(h, 1), r), dt)
    Z = np.empty((C, r), dt)
    Dh = np.empty((max(h, 1), r), dt)
    mx = np.empty(r, dt)
    Sr = np.empty(r, dt)
    kb = np.empty(r, np.int32)
    G = np.empty(P, dt)
    g = np.empty(P)
    gc = np.empty(P)
    cand = np.empty(P)
    q = np.empty(P)
    sv = np.empty(P)
    yv = np.empty(P)
    Sm = np.zeros((m, P))
    Ym = np.zeros((m, P))
    rho = np.zeros(m)
    a = np.zeros(m)
    f = _objective(
        theta, pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, W, H, Z, Dh, mx, Sr, kb, G, g
    )
    gamma = 1.0
    stored = 0
    head = 0  # slot of the next pair
    for it in range(1, max_it + 1):
        gp = _two_loop(g, q, Sm, Ym, rho, a, stored, head, gamma, m)
        if not gp < 0.0:  # not a descent direction: restart from steepest descent
            for p in range(P):
                q[p] = -g[p]
            gp = -_dot(g, g)
            stored = 0
            gamma = 1.0
        t = 1.0 / max(np.sqrt(-gp), 1.0) if it == 1 else 1.0
        found = False
        fc = np.inf
        for _ in range(30):
            for p in range(P):
                cand[p] = theta[p] + t * q[p]
            fc = _objective(
                cand,
                pen,
                alpha,
                Xt,
                Yt,
                yr,
                d,
                h,
                C,
                logistic,
                K,
                fast,
                W,
                H,
                Z,
                Dh,
                mx,
                Sr,
                kb,
                G,
                gc,
            )
            if np.isfinite(fc) and fc <= f + 1e-4 * t * gp:
                found = True
                break
            t *= 0.5
        if not found:
            return it
        sy = 0.0
        yy = 0.0
        for p in range(P):
            sv[p] = cand[p] - theta[p]
            yv[p] = gc[p] - g[p]
            sy += sv[p] * yv[p]
            yy += yv[p] * yv[p]
        if sy > 1e-12:  # curvature pair kept (it replaces the oldest when memory is full)
            for p in range(P):
                Sm[head, p] = sv[p]
                Ym[head, p] = yv[p]
            rho[head] = 1.0 / sy
            gamma = sy / yy
            head = (head + 1) % m
            stored = min(stored + 1, m)
        dec = f - fc
        gmax = 0.0
        for p in range(P):
            theta[p] = cand[p]
            g[p] = gc[p]
            gmax = max(gmax, abs(gc[p]))
        f = fc
        if gmax <= gtol or dec <= tol * max(abs(f), abs(f + dec), 1.0):
            return it
    return max_it


@njit(cache=True, error_model="numpy")
def _lbfgs_two(
    theta, Xt, Yt, yr, theta2, Xt2, Yt2, yr2, pen, alpha, d, h, C, logistic, K, fast, m, max_it,
    tol, gtol, gtol2,
):  # pragma: no cover - compiled
    """:func:`_lbfgs_one` on two models in lockstep, one iteration each in turn; only their
    two-loop recursions are shared (:func:`_two_loop2`), so each model's arithmetic is the
    one it has alone.  Returns both iteration counts."""
    P = theta.shape[0]
    ws = _work(P, Xt.shape[1], h, C, m, K.dtype)
    ws2 = _work(P, Xt2.shape[1], h, C, m, K.dtype)
    W, H, Z, Dh, mx, Sr, kb, G, g, gc, cand, q, sv, yv, Sm, Ym, rho, a = ws
    W2, H2, Z2, Dh2, mx2, Sr2, kb2, G2, g2, gc2, cand2, q2, sv2, yv2, Sm2, Ym2, rho2, a2 = ws2
    f = _objective(
        theta, pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, W, H, Z, Dh, mx, Sr, kb, G, g
    )
    f2 = _objective(
        theta2, pen, alpha, Xt2, Yt2, yr2, d, h, C, logistic, K, fast, W2, H2, Z2, Dh2, mx2, Sr2,
        kb2, G2, g2,
    )
    gamma = gamma2 = 1.0
    stored = stored2 = 0
    head = head2 = 0
    done = done2 = False
    its = max_it
    its2 = max_it
    for it in range(1, max_it + 1):
        if not done and not done2:
            gp, gp2 = _two_loop2(
                g, q, Sm, Ym, rho, a, stored, head, gamma,
                g2, q2, Sm2, Ym2, rho2, a2, stored2, head2, gamma2, m,
            )
        elif not done:
            gp = _two_loop(g, q, Sm, Ym, rho, a, stored, head, gamma, m)
            gp2 = 0.0
        else:
            gp = 0.0
            gp2 = _two_loop(g2, q2, Sm2, Ym2, rho2, a2, stored2, head2, gamma2, m)
        if not done:
            stop, f, gamma, stored, head = _step(
                it, gp, f, gamma, stored, head, theta, pen, alpha, Xt, Yt, yr, d, h, C,
                logistic, K, fast, ws, m, tol, gtol,
            )
            if stop:
                done = True
                its = it
        if not done2:
            stop, f2, gamma2, stored2, head2 = _step(
                it, gp2, f2, gamma2, stored2, head2, theta2, pen, alpha, Xt2, Yt2, yr2, d, h, C,
                logistic, K, fast, ws2, m, tol, gtol2,
            )
            if stop:
                done2 = True
                its2 = it
        if done and done2:
            break
    return its, its2


# ---------------------------------------------------------------------------------------
# Lanes: the two-loop recursion of _LANES models at once, model ln in lane ln of one vector of
# float64.  Each lane computes exactly its model's scalar operations in the same order (one
# multiply, then one add per term, no fused or reassociated sums), so a model's numbers are
# those it has alone; the lanes only share the instructions.  numba's loop vectoriser does
# not turn independent scalar sums into vector lanes (SLP is off), so these few kernels
# are written as LLVM vector instructions.  Arrays are flat, lane-innermost: element
# ``(p, ln)`` of a (P, _LANES) block at ``p·_LANES + ln``.


def _vptr(context, builder, aryty, ary, off):
    data = context.make_array(aryty)(context, builder, ary).data
    vt = ir.VectorType(ir.DoubleType(), _LANES)
    return builder.bitcast(builder.gep(data, [off]), vt.as_pointer())


@intrinsic
def _vcurv(typingctx, SV, YV, G, n, sy, yy, gmax):  # pragma: no cover - compiled
    """Per lane: ``sy = Σ_p SV·YV`` and ``yy = Σ_p YV·YV`` (sequential from 0.0, multiply then
    add, as :func:`_lbfgs_one`) and ``gmax = max(0, max_p |G|)`` (numba's ``max``: a value
    replaces the running maximum when greater, so nan is skipped and the order is free)."""
    sig = types.void(SV, YV, G, n, sy, yy, gmax)

    def codegen(context, builder, signature, args):
        SV_, YV_, G_, n_, sy_, yy_, gm_ = args
        ty = signature.args
        vt = ir.VectorType(ir.DoubleType(), _LANES)
        zero = ir.Constant(ir.IntType(64), 0)
        z = ir.Constant(vt, [0.0] * _LANES)
        a_sy = cgutils.alloca_once_value(builder, z)
        a_yy = cgutils.alloca_once_value(builder, z)
        a_gm = cgutils.alloca_once_value(builder, z)
        fabs = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vt, [vt]), f"llvm.fabs.v{_LANES}f64"
        )
        with cgutils.for_range(builder, n_) as loop:
            off = builder.mul(loop.index, ir.Constant(ir.IntType(64), _LANES))
            sv = builder.load(_vptr(context, builder, ty[0], SV_, off), align=8)
            yv = builder.load(_vptr(context, builder, ty[1], YV_, off), align=8)
            gv = builder.call(fabs, [builder.load(_vptr(context, builder, ty[2], G_, off), align=8)])
            builder.store(builder.fadd(builder.load(a_sy), builder.fmul(sv, yv)), a_sy)
            builder.store(builder.fadd(builder.load(a_yy), builder.fmul(yv, yv)), a_yy)
            gm = builder.load(a_gm)
            builder.store(builder.select(builder.fcmp_ordered(">", gv, gm), gv, gm), a_gm)
        for acc, out, t in ((a_sy, sy_, ty[4]), (a_yy, yy_, ty[5]), (a_gm, gm_, ty[6])):
            builder.store(builder.load(acc), _vptr(context, builder, t, out, zero), align=8)
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _vsel(typingctx, D, do, S, mask, n):  # pragma: no cover - compiled
    """``D[do + p·L + ln] = S[p·L + ln]`` in the lanes with ``mask[ln] != 0`` (a copy)."""
    sig = types.void(D, do, S, mask, n)

    def codegen(context, builder, signature, args):
        D_, do_, S_, m_, n_ = args
        ty = signature.args
        it = ir.VectorType(ir.IntType(64), _LANES)
        zero = ir.Constant(ir.IntType(64), 0)
        mp = builder.bitcast(_vptr(context, builder, ty[3], m_, zero), it.as_pointer())
        on = builder.icmp_signed("!=", builder.load(mp, align=8), ir.Constant(it, [0] * _LANES))
        with cgutils.for_range(builder, n_) as loop:
            off = builder.mul(loop.index, ir.Constant(ir.IntType(64), _LANES))
            dp = _vptr(context, builder, ty[0], D_, builder.add(do_, off))
            sv = builder.load(_vptr(context, builder, ty[2], S_, off), align=8)
            builder.store(builder.select(on, sv, builder.load(dp, align=8)), dp, align=8)
        return context.get_dummy_value()

    return sig, codegen


def _vpass(kind, scale):
    """A pass of the two-loop recursion over all lanes: update ``Q`` (``kind`` 0: ``Q = -A``;
    1: ``Q -= coef·A``; 2: ``Q += coef·A``, these two only in the lanes with ``mask != 0``;
    then ``Q *= gamma`` if ``scale``), and in the same pass ``out = Σ_p B[bo + p·L] · Q[p·L]``
    per lane (the next dot product of the recursion, on the updated ``Q``).  Each element
    gets the operations the separate loops of :func:`_two_loop` give it, in their order."""

    def codegen(context, builder, signature, args):
        Q_, A_, ao_, c_, m_, g_, B_, bo_, n_, out_ = args
        ty = signature.args
        vt = ir.VectorType(ir.DoubleType(), _LANES)
        it = ir.VectorType(ir.IntType(64), _LANES)
        zero = ir.Constant(ir.IntType(64), 0)
        coef = builder.load(_vptr(context, builder, ty[3], c_, zero), align=8)
        mp = builder.bitcast(_vptr(context, builder, ty[4], m_, zero), it.as_pointer())
        on = builder.icmp_signed("!=", builder.load(mp, align=8), ir.Constant(it, [0] * _LANES))
        gam = builder.load(_vptr(context, builder, ty[5], g_, zero), align=8)
        acc = cgutils.alloca_once_value(builder, ir.Constant(vt, [0.0] * _LANES))
        with cgutils.for_range(builder, n_) as loop:
            off = builder.mul(loop.index, ir.Constant(ir.IntType(64), _LANES))
            qp = _vptr(context, builder, ty[0], Q_, off)
            va = builder.load(_vptr(context, builder, ty[1], A_, builder.add(ao_, off)), align=8)
            if kind == 0:
                q = builder.fneg(va)
            else:
                q0 = builder.load(qp, align=8)
                t = builder.fmul(coef, va)
                q = builder.select(on, builder.fadd(q0, t) if kind == 2 else builder.fsub(q0, t), q0)
            if scale:
                q = builder.fmul(q, gam)
            builder.store(q, qp, align=8)
            vb = builder.load(_vptr(context, builder, ty[6], B_, builder.add(bo_, off)), align=8)
            builder.store(builder.fadd(builder.load(acc), builder.fmul(vb, q)), acc)
        builder.store(builder.load(acc), _vptr(context, builder, ty[9], out_, zero), align=8)
        return context.get_dummy_value()

    def typer(typingctx, Q, A, ao, coef, mask, gamma, B, bo, n, out):
        return types.void(Q, A, ao, coef, mask, gamma, B, bo, n, out), codegen

    return intrinsic(typer)


_vpass_neg = _vpass(0, False)
_vpass_neg_scale = _vpass(0, True)
_vpass_sub = _vpass(1, False)
_vpass_sub_scale = _vpass(1, True)
_vpass_add = _vpass(2, False)


@njit(cache=True, error_model="numpy")
def _two_loop_lanes(Gl, Ql, Sl, Yl, rhol, al, stored, head, gamma, on, m, P, msk, tmp, coef, gp):
    # pragma: no cover - compiled
    """:func:`_two_loop` in every lane with ``on[ln]``: ``Ql = -H Gl`` and ``gp = Glᵀ Ql``.

    The lanes share the ring slot of their newest pair (``head - 1``); lane ``ln`` uses its
    ``stored[ln]`` newest pairs, the other lanes keep their ``q`` (masked).  Each update of
    ``q`` runs in one pass with the dot product that follows it (:func:`_vpass`)."""
    L = _LANES
    PL = P * L
    ns = 0
    for ln in range(L):
        if on[ln]:
            ns = max(ns, stored[ln])
    if ns == 0:
        _vpass_neg_scale(Ql, Gl, 0, coef, msk, gamma, Gl, 0, P, gp)
        return
    j = (head - 1) % m
    _vpass_neg(Ql, Gl, 0, coef, msk, gamma, Sl, j * PL, P, tmp)
    for jj in range(ns):  # newest pair first
        j = (head - 1 - jj) % m
        for ln in range(L):
            msk[ln] = 1 if on[ln] and jj < stored[ln] else 0
            if msk[ln]:
                al[j * L + ln] = rhol[j * L + ln] * tmp[ln]
            coef[ln] = al[j * L + ln]
        if jj + 1 < ns:
            _vpass_sub(Ql, Yl, j * PL, coef, msk, gamma, Sl, ((j - 1) % m) * PL, P, tmp)
        else:  # then q *= gamma, and the second loop's first dot (the oldest pair: j)
            _vpass_sub_scale(Ql, Yl, j * PL, coef, msk, gamma, Yl, j * PL, P, tmp)
    for jj in range(ns - 1, -1, -1):
        j = (head - 1 - jj) % m
        for ln in range(L):
            msk[ln] = 1 if on[ln] and jj < stored[ln] else 0
            coef[ln] = al[j * L + ln] - rhol[j * L + ln] * tmp[ln] if msk[ln] else 0.0
        if jj > 0:
            _vpass_add(Ql, Sl, j * PL, coef, msk, gamma, Yl, ((j + 1) % m) * PL, P, tmp)
        else:
            _vpass_add(Ql, Sl, j * PL, coef, msk, gamma, Gl, 0, P, gp)


@njit(cache=True, error_model="numpy")
def _lbfgs_lanes(
    X, y, train, mean, scale, theta, models, iters, pen, alpha, d, h, C, logistic, K, fast, m,
    max_it, tol, gtol,
):  # pragma: no cover - compiled
    """:func:`_lbfgs_one` on the models ``models`` (rows of ``theta``), _LANES in lockstep.

    A lane takes the next model when its model stops.  Only the two-loop recursion is
    shared (:func:`_two_loop_lanes`); the line search and the curvature pair run per lane
    with the scalar code of :func:`_lbfgs_one`, so each model's arithmetic is the one it has
    alone.  All lanes keep their newest pair in the same ring slot: a lane that stores no
    pair in an iteration where the ring advances has its pairs moved one slot on (copies,
    no arithmetic).  Writes each model's iterations into ``iters``."""
    L = _LANES
    P = theta.shape[1]
    dt = K.dtype
    nmod = models.shape[0]
    W = np.empty(P, dt)
    G = np.empty(P, dt)
    Gl = np.zeros(P * L)
    Ql = np.zeros(P * L)
    Sl = np.zeros(m * P * L)
    Yl = np.zeros(m * P * L)
    rhol = np.zeros(m * L)
    al = np.zeros(m * L)
    msk = np.zeros(L, np.int64)
    tmp = np.zeros(L)
    coef = np.zeros(L)
    gpl = np.zeros(L)
    gamma = np.ones(L)
    fl = np.zeros(L)
    gtl = np.zeros(L)
    stored = np.zeros(L, np.int64)
    itl = np.zeros(L, np.int64)
    lane_b = np.full(L, -1, np.int64)
    on = np.zeros(L, np.bool_)
    kept = np.zeros(L, np.bool_)
    cand = np.empty((L, P))
    gc = np.empty((L, P))
    SV = np.zeros(P * L)
    YV = np.zeros(P * L)
    fcl = np.zeros(L)
    syl = np.zeros(L)
    yyl = np.zeros(L)
    gml = np.zeros(L)
    Xt0, Yt0, yr0 = _train_set(X, y, train[models[0]], mean[models[0]], scale[models[0]], C, K)
    Xts = [Xt0 for _ in range(L)]
    Yts = [Yt0 for _ in range(L)]
    yrs = [yr0 for _ in range(L)]
    H0 = np.empty((1, 1), dt)
    Hs = [H0 for _ in range(L)]
    Zs = [H0 for _ in range(L)]
    Dhs = [H0 for _ in range(L)]
    v0 = np.empty(1, dt)
    mxs = [v0 for _ in range(L)]
    Srs = [v0 for _ in range(L)]
    k0 = np.empty(1, np.int32)
    kbs = [k0 for _ in range(L)]
    head = 0
    nxt = 0
    while True:
        for ln in range(L):  # an idle lane takes the next model
            while not on[ln] and nxt < nmod:
                b = models[nxt]
                nxt += 1
                Xt, Yt, yr = _train_set(X, y, train[b], mean[b], scale[b], C, K)
                r = Xt.shape[1]
                Xts[ln] = Xt
                Yts[ln] = Yt
                yrs[ln] = yr
                Hs[ln] = np.empty((max(h, 1), r), dt)
                Zs[ln] = np.empty((C, r), dt)
                Dhs[ln] = np.empty((max(h, 1), r), dt)
                mxs[ln] = np.empty(r, dt)
                Srs[ln] = np.empty(r, dt)
                kbs[ln] = np.empty(r, np.int32)
                gcl = gc[ln]
                fl[ln] = _objective(
                    theta[b], pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, W, Hs[ln],
                    Zs[ln], Dhs[ln], mxs[ln], Srs[ln], kbs[ln], G, gcl,
                )
                for p in range(P):
                    Gl[p * L + ln] = gcl[p]
                gtl[ln] = gtol * yr.shape[0]
                gamma[ln] = 1.0
                stored[ln] = 0
                itl[ln] = 0
                lane_b[ln] = b
                if max_it >= 1:
                    on[ln] = True
                else:
                    iters[b] = 0
        busy = False
        for ln in range(L):
            busy = busy or on[ln]
        if not busy:
            break
        _two_loop_lanes(Gl, Ql, Sl, Yl, rhol, al, stored, head, gamma, on, m, P, msk, tmp, coef, gpl)
        any_kept = False
        for ln in range(L):
            kept[ln] = False
            msk[ln] = 0  # lanes that took a step
            if not on[ln]:
                continue
            b = lane_b[ln]
            th = theta[b]
            itl[ln] += 1
            it = itl[ln]
            gp = gpl[ln]
            if not gp < 0.0:  # not a descent direction: restart from steepest descent
                s = 0.0
                for p in range(P):
                    Ql[p * L + ln] = -Gl[p * L + ln]
                    s += Gl[p * L + ln] * Gl[p * L + ln]
                gp = -s
                stored[ln] = 0
                gamma[ln] = 1.0
            f = fl[ln]
            t = 1.0 / max(np.sqrt(-gp), 1.0) if it == 1 else 1.0
            found = False
            fc = np.inf
            cl = cand[ln]
            gcl = gc[ln]
            for _ in range(30):
                for p in range(P):
                    cl[p] = th[p] + t * Ql[p * L + ln]
                fc = _objective(
                    cl, pen, alpha, Xts[ln], Yts[ln], yrs[ln], d, h, C, logistic, K, fast, W,
                    Hs[ln], Zs[ln], Dhs[ln], mxs[ln], Srs[ln], kbs[ln], G, gcl,
                )
                if np.isfinite(fc) and fc <= f + 1e-4 * t * gp:
                    found = True
                    break
                t *= 0.5
            if not found:
                iters[b] = it
                on[ln] = False
                continue
            for p in range(P):  # the step and gradient change; the new point
                SV[p * L + ln] = cl[p] - th[p]
                YV[p * L + ln] = gcl[p] - Gl[p * L + ln]
                th[p] = cl[p]
                Gl[p * L + ln] = gcl[p]
            fcl[ln] = fc
            msk[ln] = 1
        _vcurv(SV, YV, Gl, P, syl, yyl, gml)
        for ln in range(L):
            if not msk[ln]:
                continue
            msk[ln] = 0
            sy = syl[ln]
            if sy > 1e-12:  # curvature pair kept in the shared newest slot
                rhol[head * L + ln] = 1.0 / sy
                gamma[ln] = sy / yyl[ln]
                stored[ln] = min(stored[ln] + 1, m)
                kept[ln] = True
                msk[ln] = 1
                any_kept = True
            f = fl[ln]
            fc = fcl[ln]
            dec = f - fc
            f = fc
            fl[ln] = f
            if gml[ln] <= gtl[ln] or dec <= tol * max(abs(f), abs(f + dec), 1.0) or itl[ln] >= max_it:
                iters[lane_b[ln]] = itl[ln]
                on[ln] = False
        if any_kept:
            _vsel(Sl, head * P * L, SV, msk, P)
            _vsel(Yl, head * P * L, YV, msk, P)
        if any_kept:  # the ring advances; lanes that stored no pair move theirs one slot on
            for ln in range(L):
                if on[ln] and not kept[ln] and stored[ln] > 0:
                    _shift_lane(Sl, Yl, rhol, ln, head, stored[ln], m, P)
            head = (head + 1) % m


@njit(cache=True, error_model="numpy")
def _shift_lane(Sl, Yl, rhol, ln, head, stored, m, P):  # pragma: no cover - compiled
    """Lane ``ln``'s pairs from slots ``head-1 .. head-stored`` to ``head .. head-stored+1``
    (a rotation of the ring when it is full), so its newest pair sits where the others' do."""
    L = _LANES
    ts = np.empty(P)
    ty = np.empty(P)
    tr = 0.0
    if stored == m:  # slot ``head`` holds the oldest pair: it goes to ``head + 1``
        o = head * P * L + ln
        for p in range(P):
            ts[p] = Sl[o + p * L]
            ty[p] = Yl[o + p * L]
        tr = rhol[head * L + ln]
    for jj in range(min(stored, m - 1)):
        src = (head - 1 - jj) % m
        dst = (head - jj) % m
        os_ = src * P * L + ln
        od = dst * P * L + ln
        for p in range(P):
            Sl[od + p * L] = Sl[os_ + p * L]
            Yl[od + p * L] = Yl[os_ + p * L]
        rhol[dst * L + ln] = rhol[src * L + ln]
    if stored == m:
        od = ((head + 1) % m) * P * L + ln
        for p in range(P):
            Sl[od + p * L] = ts[p]
            Yl[od + p * L] = ty[p]
        rhol[((head + 1) % m) * L + ln] = tr


@njit(cache=True, error_model="numpy")
def _standardized_t(X, rows, mean, scale, dt_arr):  # pragma: no cover - compiled
    """Rows ``rows`` of ``X``, ``(x - mean)/scale`` with nan -> 0, transposed ``(d, r)``.

    The row axis is padded with zeros to a multiple of ``_PAD``: the compiled loops then run
    whole SIMD vectors with no scalar remainder (iris halves: 75 -> 80 rows, ~25 % faster).
    """
    d = X.shape[1]
    rp = -(-rows.shape[0] // _PAD) * _PAD
    out = np.zeros((d, rp), dt_arr.dtype)
    for i in range(rows.shape[0]):
        for k in range(d):
            v = (X[rows[i], k] - mean[k]) / scale[k]
            out[k, i] = 0.0 if np.isnan(v) else v
    return out


@njit(cache=True, error_model="numpy")
def _train_set(X, y, train_b, mean_b, scale_b, C, K):  # pragma: no cover - compiled
    """A model's standardised training rows ``Xt``, its one-hot targets ``Yt`` and labels."""
    rows = np.flatnonzero(train_b)
    Xt = _standardized_t(X, rows, mean_b, scale_b, K)
    yr = y[rows]
    Yt = np.zeros((C, Xt.shape[1]), K.dtype)
    for i in range(rows.shape[0]):
        Yt[yr[i], i] = K[_K_ONE]
    return Xt, Yt, yr


@njit(cache=True, error_model="numpy")
def _train_each(
    X, y, train, mean, scale, theta, iters, pen, alpha, d, h, C, logistic, K, fast, m, max_it, tol,
    gtol,
):  # pragma: no cover - compiled
    """Train every model (row of ``theta``, updated in place; its iterations into ``iters``)
    alone, or two at a time (:func:`_lbfgs_two`) when they have ``P >= _PAIR_P`` parameters
    and their row sets fit in _PAIR_BYTES, each with the arithmetic it has alone.  ``gtol`` is
    per training row (scikit-learn's ``tol`` on the mean loss), scaled by each model's size.
    """
    B = train.shape[0]
    P = theta.shape[1]
    b = 0
    while b < B:
        Xt, Yt, yr = _train_set(X, y, train[b], mean[b], scale[b], C, K)
        if b + 1 < B and P >= _PAIR_P and 2 * Xt.size * Xt.itemsize <= _PAIR_BYTES:
            Xt2, Yt2, yr2 = _train_set(X, y, train[b + 1], mean[b + 1], scale[b + 1], C, K)
            iters[b], iters[b + 1] = _lbfgs_two(
                theta[b], Xt, Yt, yr, theta[b + 1], Xt2, Yt2, yr2, pen, alpha, d, h, C, logistic,
                K, fast, m, max_it, tol, gtol * yr.shape[0], gtol * yr2.shape[0],
            )
            b += 2
        else:
            iters[b] = _lbfgs_one(
                theta[b], pen, alpha, Xt, Yt, yr, d, h, C, logistic, K, fast, m, max_it, tol,
                gtol * yr.shape[0],
            )
            b += 1


@njit(cache=True, error_model="numpy")
def _predict(X, test, mean, scale, theta, d, h, C, logistic, K, fast):  # pragma: no cover - compiled
    """Each model's class at its test rows, ``(B, n)`` int64 with -1 off test: the argmax of
    the logits (first maximum on ties, as np.argmax)."""
    B, n = test.shape
    dt = K.dtype
    P = theta.shape[1]
    pred = np.full((B, n), -1, np.int64)
    for b in range(B):
        te = np.flatnonzero(test[b])
        if te.shape[0] == 0:
            continue
        Xs = _standardized_t(X, te, mean[b], scale[b], K)
        W = np.empty(P, dt)
        for p in range(P):
            W[p] = theta[b, p]
        H = np.empty((max(h, 1), Xs.shape[1]), dt)
        Z = np.empty((C, Xs.shape[1]), dt)
        _logits(W, Xs, H, Z, d, h, C, logistic, K, fast)
        for i in range(te.shape[0]):
            best = 0
            for c in range(1, C):
                if Z[c, i] > Z[best, i]:
                    best = c
            pred[b, te[i]] = best
    return pred


def fit_predict(
    net: Net,
    X: np.ndarray,
    y: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    mean: np.ndarray,
    scale: np.ndarray,
    thetas: np.ndarray,
    C: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Train every model and predict its test rows in one compiled call.

    Returns ``(pred, params, iterations)``: ``(B, n)`` predictions (-1 off test), the
    trained parameters ``(B, P)`` in the network's dtype (layout: :mod:`.layout`) and the
    iterations each model ran.
    """
    d = X.shape[1]
    linear = net.hidden == 0
    tol = net.opts["tol"]
    tol = float(tol) if tol is not None else (1e-10 if linear else 1e-7)  # type: ignore[arg-type]
    gtol = net.opts["gtol"]
    gtol = float(gtol) if gtol is not None else (1e-6 if linear else 1e-4)  # type: ignore[arg-type]
    theta = np.ascontiguousarray(thetas, dtype=np.float64)
    pen = (penalty_mask(net.hidden, d, C, net.dtype)[0] > 0).astype(np.float64)
    fast = net.dtype == np.float32  # the rational tanh is accurate to float32 only
    Xf, yf, tr = frozen(X), frozen(y), np.ascontiguousarray(train)
    K = _consts(net.dtype)
    logistic = net.opts["activation"] == "logistic"
    B = tr.shape[0]
    iters = np.zeros(B, np.int64)
    args = (pen, net.alpha, d, net.hidden, C, logistic, K, fast,
            int(net.opts["memory"]), int(net.opts["max_epochs"]), tol, gtol)  # type: ignore[arg-type]
    # Each path is its own compiled entry point, so a run compiles only the paths its batches
    # take: compiling all three was most of a first run's start-up.  MLP batches whose row
    # sets are small train _LANES models at a time (:func:`_lbfgs_lanes`; lp on balance-scale,
    # 15 parameters, was ~10 % slower in lanes); the others alone or in pairs (:func:`_train_each`).
    rows = -(-int(tr.sum(axis=1).max(initial=0)) // _PAD) * _PAD
    if net.hidden > 0 and B > 1 and _LANES * d * rows * K.itemsize <= _LANE_BYTES:
        _lbfgs_lanes(Xf, yf, tr, mean, scale, theta, np.arange(B), iters, *args)
    else:
        _train_each(Xf, yf, tr, mean, scale, theta, iters, *args)
    pred = _predict(Xf, np.ascontiguousarray(test), mean, scale, theta, d, net.hidden, C, logistic,
                    K, fast)
    return pred, theta.astype(net.dtype), iters
