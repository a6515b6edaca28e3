"""``solver="rprop"`` for ``lp``, ``lgc`` and ``mlp-<h>``: full-batch iRprop− in numpy.

Full-batch **iRprop−** (Igel & Hüsken 2000): sign-based per-weight steps (×1.2 / ×0.5),
purely elementwise, stopped when ``J`` fell by less than ``tol · check · J`` over ``check``
epochs.  The batch is one stacked network (a leading model axis, one small gemm per model
per ``np.matmul``); models are grouped by training-set size so that no model's arrays carry
padding that depends on its batch-mates, so a model's result does not depend on them.  The
caller (:mod:`simstudy.learners.neural.net`) runs BLAS single-threaded
(``blas_threads``): parallelism belongs to the runner, and threaded tiny gemms stall on a
busy machine.
"""

from __future__ import annotations

import numpy as np

from ..preprocess import apply_one
from .layout import Net, n_params, penalty_mask, views

_ETA_PLUS, _ETA_MINUS = 1.2, 0.5
_STEP0, _STEP_MIN, _STEP_MAX = 0.05, 1e-7, 5.0


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
    """Train every model (``thetas`` updated in place) and predict its test rows.

    Returns ``(pred, params, epochs)``: ``(B, n)`` predictions (-1 off test), the trained
    parameters ``(B, P)`` (layout: :mod:`.layout`) and the epochs each model trained.
    """
    B = train.shape[0]
    pred = np.full((B, X.shape[0]), -1, dtype=np.int64)
    epochs = np.zeros(B, dtype=np.int64)
    counts = train.sum(axis=1)
    for c in np.unique(counts):  # equal sizes → no padding that depends on batch-mates
        idx = np.flatnonzero(counts == c)
        for chunk in _chunks(net, idx, int(c), X.shape[1], C):
            thetas[chunk], epochs[chunk] = _train(
                net, X, y, train, mean, scale, thetas[chunk], chunk, C
            )
    for chunk in _chunks(net, np.arange(B), X.shape[0], X.shape[1], C):
        Xs = _augment(net, apply_one(X[None], mean[chunk, None], scale[chunk, None]))
        out = forward(net, Xs, thetas[chunk], X.shape[1], C)[-1]
        pred[chunk] = np.where(test[chunk], np.argmax(out, axis=2), -1)
    return pred, thetas, epochs


def _chunks(net: Net, idx: np.ndarray, rows: int, d: int, C: int) -> list[np.ndarray]:
    width = (d + 1) + 3 * (net.hidden + 1) + 4 * C  # floats per row per model, roughly
    per_model = max(1, rows * width * net.dtype.itemsize + 6 * n_params(net.hidden, d, C) * 8)
    size = max(1, int(net.opts["max_bytes"]) // per_model)  # type: ignore[arg-type]
    return [idx[i : i + size] for i in range(0, len(idx), size)]


def _augment(net: Net, Xs: np.ndarray) -> np.ndarray:
    """Append the bias input 1 and cast: ``(A, r, d)`` → ``(A, r, d+1)``."""
    A, r, d = Xs.shape
    out = np.ones((A, r, d + 1), dtype=net.dtype)
    out[:, :, :d] = Xs
    return out


def _act(net: Net, Z: np.ndarray) -> np.ndarray:
    if net.opts["activation"] == "tanh":
        return np.tanh(Z, out=Z)
    # logistic via tanh: exact identity, avoids overflow in exp
    Z *= 0.5
    np.tanh(Z, out=Z)
    Z *= 0.5
    Z += 0.5
    return Z


def forward(
    net: Net, Xa: np.ndarray, theta: np.ndarray, d: int, C: int
) -> list[np.ndarray]:
    """Layer outputs; the last is the logits ``(A, r, C)``; hidden ones carry a 1 column."""
    W = views(theta, net.hidden, d, C)
    if net.hidden == 0:
        return [np.matmul(Xa, W[0])]
    A, r = Xa.shape[:2]
    Ha = np.ones((A, r, net.hidden + 1), dtype=net.dtype)
    Ha[:, :, : net.hidden] = _act(net, np.matmul(Xa, W[0]))
    return [Ha, np.matmul(Ha, W[1])]


def _train(
    net: Net,
    X: np.ndarray,
    y: np.ndarray,
    train: np.ndarray,
    mean: np.ndarray,
    scale: np.ndarray,
    theta: np.ndarray,
    models: np.ndarray,
    C: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Train the models ``models`` (all with the same training-set size).

    Returns the trained parameters ``(A, P)`` and the iterations each model ran.
    """
    d = X.shape[1]
    rows = np.stack([np.flatnonzero(train[b]) for b in models])  # (A, r)
    Xa = _augment(net, apply_one(X[rows], mean[models, None], scale[models, None]))
    yr = y[rows]
    Y = np.zeros((len(models), rows.shape[1], C), dtype=net.dtype)
    np.put_along_axis(Y, yr[:, :, None], 1.0, axis=2)
    pen = penalty_mask(net.hidden, d, C, net.dtype) * net.dtype.type(net.alpha)
    return _rprop(net, Xa, Y, yr, theta, pen, d, C)


def _rprop(
    net: Net,
    Xa: np.ndarray,
    Y: np.ndarray,
    yr: np.ndarray,
    theta: np.ndarray,
    pen: np.ndarray,
    d: int,
    C: int,
) -> tuple[np.ndarray, np.ndarray]:
    """Full-batch iRprop− (Igel & Hüsken 2000) with the per-model stop rule of ``tol``."""
    models = np.arange(theta.shape[0])
    out = theta.copy()
    theta = theta.copy()
    step = np.full_like(theta, _STEP0)
    g_prev = np.zeros_like(theta)
    f_last = np.full(len(models), np.inf)
    ids = np.arange(len(models))  # which models the working arrays hold (the active ones)
    epochs = np.full(len(models), int(net.opts["max_epochs"]), dtype=np.int64)  # type: ignore[arg-type]
    tol = 1e-4 if net.opts["tol"] is None else float(net.opts["tol"])  # type: ignore[arg-type]
    check = int(net.opts["check"])  # type: ignore[arg-type]
    up = net.dtype.type(_ETA_PLUS)
    down = net.dtype.type(_ETA_MINUS)
    for epoch in range(1, int(net.opts["max_epochs"]) + 1):  # type: ignore[arg-type]
        want_f = epoch % check == 0
        g, f = _grad(net, Xa, Y, yr, theta, pen, d, C, want_f)
        # iRprop−: sign kept → grow step, sign flipped → shrink step and skip this weight
        sgn = np.sign(g)
        agree = sgn * g_prev  # g_prev holds signs
        step *= np.where(agree > 0, up, np.where(agree < 0, down, net.dtype.type(1.0)))
        np.clip(step, _STEP_MIN, _STEP_MAX, out=step)
        sgn[agree < 0] = 0.0
        theta -= sgn * step
        g_prev = sgn
        if want_f:
            # f is J before this epoch's update: good enough for a stop rule
            done = (f_last - f < tol * check * np.maximum(f, 1e-3)) | (
                np.abs(g).max(axis=1) < 1e-6
            )
            f_last = f
            if done.any():
                out[ids[done]] = theta[done]
                epochs[ids[done]] = epoch
                keep = ~done
                ids, theta, step, g_prev, f_last = (
                    ids[keep],
                    theta[keep],
                    step[keep],
                    g_prev[keep],
                    f_last[keep],
                )
                Xa, Y, yr = Xa[keep], Y[keep], yr[keep]
                if ids.size == 0:
                    break
    out[ids] = theta
    return out, epochs


def _grad(
    net: Net,
    Xa: np.ndarray,
    Y: np.ndarray,
    yr: np.ndarray,
    theta: np.ndarray,
    pen: np.ndarray,
    d: int,
    C: int,
    want_f: bool,
) -> tuple[np.ndarray, np.ndarray | None]:
    """Gradient of ``J`` (flat ``(A, P)``) and, if asked, ``J`` itself (float64 ``(A,)``)."""
    outs = forward(net, Xa, theta, d, C)
    Z = outs[-1]
    E, S = _softmax_parts(Z)  # E = exp(Z - max), S = Σ_c E; Z is shifted in place
    f = None
    if want_f:
        # Σ_i (log S_i - z_{i,y_i}); summed by matmul against ones to stay per-model
        nll = np.log(S) - np.take_along_axis(Z, yr[:, :, None], axis=2)[:, :, 0]
        ones = np.ones((nll.shape[0], nll.shape[1], 1), dtype=net.dtype)
        f = np.matmul(nll[:, None, :], ones)[:, 0, 0].astype(np.float64)
        w = theta.astype(np.float64) * (pen > 0)
        f += 0.5 * net.alpha * np.einsum("ap,ap->a", w, w)
    E /= S[:, :, None]
    E -= Y  # dJ/dlogits
    D = E
    G = np.empty_like(theta)
    GV = views(G, net.hidden, d, C)
    if net.hidden == 0:
        np.matmul(Xa.transpose(0, 2, 1), D, out=GV[0])
    else:
        Ha = outs[0]
        np.matmul(Ha.transpose(0, 2, 1), D, out=GV[1])
        W2 = views(theta, net.hidden, d, C)[1]
        H = Ha[:, :, : net.hidden]
        Dh = np.matmul(D, W2[:, : net.hidden, :].transpose(0, 2, 1))
        if net.opts["activation"] == "tanh":
            Dh *= 1.0 - H * H
        else:
            Dh *= H * (1.0 - H)
        np.matmul(Xa.transpose(0, 2, 1), Dh, out=GV[0])
    G += pen * theta
    return G, f


def _softmax_parts(Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``Z -= max_c Z`` in place; return ``exp(Z)`` and its sum over the last axis.

    For few classes the max and sum run as elementwise ops over columns: numpy's reductions
    over a short last axis are ~30x slower, and a fixed column order keeps it per-row exact.
    """
    C = Z.shape[-1]
    if C <= 32:
        m = Z[..., 0].copy()
        for c in range(1, C):
            np.maximum(m, Z[..., c], out=m)
        Z -= m[..., None]
        E = np.exp(Z)
        S = E[..., 0].copy()
        for c in range(1, C):
            S += E[..., c]
        return E, S
    Z -= Z.max(axis=-1, keepdims=True)
    E = np.exp(Z)
    return E, E.sum(axis=-1)
