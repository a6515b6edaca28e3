"""What a whole reproduction costs: worker time per study, per learner and per data set.

Reads the stores a reproduction wrote (``nox -s reproduce``) and the wall times its driver
logged, and writes ``figures/REPRODUCE.md`` (:func:`write`; ``python -m simstudy cost``):
every number in it comes from the stores' trial rows (``seconds``: each trial's compute time
in its worker) and the ``runs`` log (start and finish of each invocation), so the page can
be regenerated at any time.

Examples
--------
>>> import pandas as pd
>>> cost = pd.DataFrame({"study": ["s", "s"], "cell": ["a", "b"], "source": ["iris", "wine"],
...                      "learners": ["nmc~1nn", "nmc~1nn"], "design": ["5x2", "5x2"],
...                      "trials": [10, 10], "seconds": [1.0, 3.0]})
>>> by_learner(cost)["seconds"].tolist()
[2.0, 2.0]
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from ..store import Store


def by_learner(cost: pd.DataFrame) -> pd.DataFrame:
    """Worker seconds per learner: a trial's seconds shared equally among its learners.

    A trial fits all its learners on the same folds in one work unit and records one time,
    so an equal share is the only split the stored rows support; it is labelled as such.
    """
    rows = []
    for r in cost.itertuples(index=False):
        names = str(r.learners).split("~")
        for name in names:
            rows.append((r.study, name, r.trials, r.seconds / len(names)))
    df = pd.DataFrame(rows, columns=["study", "learner", "trials", "seconds"])
    return (df.groupby("learner", as_index=False)[["seconds"]].sum()
            .sort_values("seconds", ascending=False, kind="stable").reset_index(drop=True))


def _wall(store: Store, study: str) -> tuple[float, int]:
    """Summed wall time and count of the finished invocations of ``study`` in ``store``."""
    log = store.runs_log()
    log = log[(log["study"] == study) & log["finished"].notna()]
    return float((log["finished"] - log["started"]).sum()), len(log)


def summary(stores: Iterable[str | os.PathLike]) -> tuple[pd.DataFrame, pd.DataFrame,
                                                         pd.DataFrame]:
    """(per study, per learner, per data set) worker time over the given stores."""
    costs, walls = [], []
    for path in stores:
        with Store(path, readonly=True) as st:
            c = st.cost()
            costs.append(c)
            for study in sorted(c["study"].dropna().unique()):
                wall, n = _wall(st, study)
                walls.append((study, wall, n))
    cost = pd.concat(costs, ignore_index=True) if costs else pd.DataFrame(
        columns=["study", "cell", "source", "learners", "design", "trials", "seconds"])
    per_study = cost.groupby("study", as_index=False).agg(
        cells=("cell", "nunique"), trials=("trials", "sum"), worker_s=("seconds", "sum"))
    wall = pd.DataFrame(walls, columns=["study", "wall_s", "invocations"])
    per_study = per_study.merge(wall.groupby("study", as_index=False).sum(), how="left")
    per_source = (cost.groupby("source", as_index=False)[["trials", "seconds"]].sum()
                  .sort_values("seconds", ascending=False, kind="stable")
                  .reset_index(drop=True))
    return per_study, by_learner(cost), per_source


def _hms(s: float) -> str:
    s = int(round(s))
    return f"{s // 3600} h {s % 3600 // 60:02d} min" if s >= 3600 else f"{s // 60} min {s % 60:02d} s"


#: the heading of ``figures/REPRODUCE.md``
TITLE = "What a reproduction costs"


def render(stores: Iterable[str | os.PathLike], *, commit: str, note: str = "",
           top: int = 10, title: str | None = None) -> str:
    """The Markdown of ``figures/REPRODUCE.md`` (or of another set of stores' page, under
    ``title``)."""
    per_study, per_learner, per_source = summary(list(stores))
    total_w = float(per_study["worker_s"].sum())
    total_wall = float(per_study["wall_s"].fillna(0).sum())
    lines = [f"# {title or TITLE}", "",
             f"Measured at commit `{commit}` from the stores' trial rows (worker seconds) and "
             "their `runs` log (wall time of each finished invocation). Regenerate with "
             "`python -m simstudy cost STORE... --commit REV`.", ""]
    if note:
        lines += [note, ""]
    lines += [f"Total: {int(per_study['trials'].sum()):,} trials, worker time "
              f"{_hms(total_w)} ({total_w / 3600:.2f} worker-hours), wall time "
              f"{_hms(total_wall)}.", "",
              "| study | cells | trials | worker time | share | wall time |",
              "|---|---:|---:|---:|---:|---:|"]
    for r in per_study.sort_values("worker_s", ascending=False).itertuples(index=False):
        wall = "—" if pd.isna(r.wall_s) or not r.wall_s else _hms(r.wall_s)
        lines.append(f"| `{r.study}` | {r.cells} | {int(r.trials):,} | {_hms(r.worker_s)} | "
                     f"{r.worker_s / total_w:.1%} | {wall} |")
    lines += ["", f"Per learner (a trial's time shared equally among its learners; top {top}):",
              "", "| learner | worker time | share |", "|---|---:|---:|"]
    for r in per_learner.head(top).itertuples(index=False):
        lines.append(f"| `{r.learner}` | {_hms(r.seconds)} | {r.seconds / total_w:.1%} |")
    lines += ["", f"Per data set or source (top {top}):", "",
              "| source | trials | worker time | share |", "|---|---:|---:|---:|"]
    for r in per_source.head(top).itertuples(index=False):
        lines.append(f"| `{r.source}` | {int(r.trials):,} | {_hms(r.seconds)} | "
                     f"{r.seconds / total_w:.1%} |")
    return "\n".join(lines) + "\n"


def write(stores: Iterable[str | os.PathLike], out: str | os.PathLike = "figures/REPRODUCE.md",
          *, commit: str, note: str = "", title: str | None = None) -> Path:
    """Write :func:`render` of ``stores`` to ``out``; returns ``out``.

    Examples
    --------
    >>> write(["no-such-store.sqlite"], commit="abc1234")
    Traceback (most recent call last):
    ...
    simstudy.errors.SimstudyError: store 'no-such-store.sqlite' does not exist
    """
    from ..errors import SimstudyError

    stores = [str(s) for s in stores]
    for s in stores:
        if not Path(s).is_file():
            raise SimstudyError(f"store {s!r} does not exist")
    out = Path(out)
    out.write_text(render(stores, commit=commit, note=note, title=title))
    return out
