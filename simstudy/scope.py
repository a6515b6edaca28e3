"""What a store holds of a study: its seed, its runs, which registered studies it has.

Reading a study back (``report``, ``bench``, ``card``, the HTML site) starts here: the study
as declared, restricted to the seed and the number of runs the store actually holds.
"""

from __future__ import annotations

import sys

from .errors import SimstudyError
from .store import Store, run_hint
from .study import Study


def stored_scope(study: Study, store: Store, runs: int | None, seed: int | None, *,
                 prefer_study_seed: bool = False, asked: str | None = None) -> Study:
    """The study restricted to what the store holds: its seed and its number of runs.

    With no ``seed``: the one seed the store holds for the study's cells (several: an error
    listing them, or with ``prefer_study_seed`` the study's own seed when it is one of them).
    With no ``runs``: the most runs stored for any cell.  Asking for more runs than stored
    reports what there is, with one line on stderr.  ``asked``: the study as the user named
    it (a study file's path), for the hint that computes it.

    Examples
    --------
    >>> import simstudy as ss, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = ss.run("demo", runs=2, store=path, filter="iris/nmc", progress=False)
    >>> with Store(path, readonly=True) as store:
    ...     stored_scope(ss.get_study("demo"), store, None, None).runs
    2
    """
    held = store.holdings([c.id for c in study.cells])
    seeds = sorted(int(x) for x in held["seed"].unique())
    if seed is None:
        if not seeds:
            # the hint names the study as the user asked for it (a study file's path)
            raise SimstudyError(f"store {str(store.path)!r} holds no trials of study "
                                f"{study.name!r}; run it first: "
                                f"{run_hint(asked or study.name, store.path)}")
        if len(seeds) > 1 and prefer_study_seed and study.seed in seeds:
            seeds = [study.seed]
        if len(seeds) > 1:
            raise SimstudyError(f"store {str(store.path)!r} holds study {study.name!r} at "
                                f"seeds {seeds}; choose one with --seed")
        seed = seeds[0]
    held = held[held["seed"] == seed]
    if held.empty:
        raise SimstudyError(f"store {str(store.path)!r} holds no trials of study "
                            f"{study.name!r} with seed {seed!r}; seeds stored: {seeds or 'none'}")
    most = int(held["runs"].max())
    if runs is None:
        runs = most
    elif runs > most:
        print(f"simstudy: note: {runs} runs asked, the store holds at most {most} per cell "
              f"of {study.name!r} (seed {seed}); reporting those", file=sys.stderr)
    return study.replace(runs=int(runs), seed=int(seed))


def studies_in_store(store: Store, problems: list[str] | None = None) -> list[str]:
    """Registered studies (that import) with at least one trial of their cells in the store.

    A registered study whose ``build()`` fails is left out; its one-line error is appended
    to ``problems`` (and said on stderr), so one broken study does not hide the others.
    """
    from .catalog import available_studies, get_study

    held = set(store.holdings()["cell"])
    names = []
    for name in available_studies():
        try:
            ids = {c.id for c in get_study(name).cells}
        except SimstudyError as e:
            print(f"simstudy: note: study {name!r} left out: {e}", file=sys.stderr)
            if problems is not None:
                problems.append(str(e))
            continue
        if held & ids:
            names.append(name)
    return names
