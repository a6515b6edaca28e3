"""One figure style for every study.

* Palette: Okabe & Ito (2008), *Color Universal Design* -- eight colours that stay
  distinguishable under the common colour-vision deficiencies; it is matplotlib's colour
  cycle inside :func:`figure_style`, so ``"C0"``, ``"C1"``, ... in the studies' code are
  Okabe–Ito colours.
* Reference lines in one look: :func:`identity_line` (y = x, ours against the paper) and
  :func:`alpha_line` (the nominal level).
* Every saved figure says how many runs it shows: :func:`runs_caption`, passed to
  :func:`simstudy.report.compare.savefig` as ``runs=``, is printed under the figure and
  stored in the PNG (``Description``), so a 10-run figure cannot pass for a full one.

Use as a decorator on a study's figure function (``@figure_style()``) or as a context
manager (``with figure_style(): ...``); it restores matplotlib's settings on exit.
"""

from __future__ import annotations

import contextlib

OKABE_ITO = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
             "#000000")

RC = {
    "axes.prop_cycle": None,  # filled in by _rc (needs matplotlib's cycler)
    "figure.dpi": 100, "savefig.dpi": 150, "font.size": 10, "axes.titlesize": 10,
    "axes.labelsize": 10, "legend.fontsize": 8, "xtick.labelsize": 9, "ytick.labelsize": 9,
    "axes.grid": True, "grid.linewidth": 0.4, "grid.alpha": 0.5, "axes.spines.top": False,
    "axes.spines.right": False, "lines.markersize": 5, "legend.frameon": False,
    "image.cmap": "cividis", "savefig.bbox": "tight",
}


def _rc() -> dict:
    from cycler import cycler

    rc = dict(RC)
    rc["axes.prop_cycle"] = cycler(color=list(OKABE_ITO))
    return rc


class figure_style(contextlib.ContextDecorator):  # noqa: N801 - used like a function
    """The project's style as a ``matplotlib.rc_context`` (context manager or decorator).

    matplotlib is imported only on entry, so decorating a study's figure function costs
    nothing at import time and leaves the user's backend alone.
    """

    def __init__(self) -> None:
        self._stack: list = []

    def __enter__(self) -> figure_style:
        import matplotlib

        cm = matplotlib.rc_context(_rc())
        cm.__enter__()
        self._stack.append(cm)
        return self

    def __exit__(self, *exc: object) -> bool:
        return bool(self._stack.pop().__exit__(*exc))


def identity_line(ax, lo: float = 0.0, hi: float = 1.0, label: str | None = "y = x") -> None:
    """The y = x line (ours equals the paper's)."""
    ax.plot([lo, hi], [lo, hi], color="black", lw=0.8, ls="-", label=label, zorder=1)


def alpha_line(ax, alpha: float = 0.05, *, axis: str = "y", label: str | None = None) -> None:
    """The nominal significance level as a dotted reference line."""
    f = ax.axhline if axis == "y" else ax.axvline
    f(alpha, color="black", lw=0.8, ls=":", label=label, zorder=1)


def runs_range(runs, sep: str = "–") -> str:
    """Runs per cell as one string: "1000", or "200–738" when cells differ (a partly run
    study); "" when ``runs`` is empty.  ``runs``: the cells' run counts (any iterable)."""
    vals = [int(r) for r in runs]
    if not vals:
        return ""
    lo, hi = min(vals), max(vals)
    return f"{lo}" if lo == hi else f"{lo}{sep}{hi}"


def runs_caption(runs: int | str, paper_runs: int | None = None, *,
                 unit: str = "runs per cell", seeds: int | None = None) -> str:
    """'20 runs per cell (the paper: 1000; a small run)' -- the figure's scale in words."""
    s = f"{runs} {unit}"
    if seeds is not None and seeds > 1:
        s += f", {seeds} root seeds"
    if paper_runs is not None:
        s += f" (the paper: {paper_runs}"
        try:
            small = int(runs) < int(paper_runs)
        except (TypeError, ValueError):
            small = False
        s += "; a small run, not the paper's scale)" if small else ")"
    return s
