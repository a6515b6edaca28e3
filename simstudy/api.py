"""The Python entry point: ``import simstudy as ss``.

A notebook runs and reads a study in two calls, as the command line does::

    import simstudy as ss
    result = ss.run("type1", runs=20, store="type1.sqlite")  # only missing trials
    result.table                                             # reject proportions per cell
    ss.collect("type1", store="type1.sqlite")                # read back what a store holds

``ss.bench`` and ``ss.card`` evaluate a new test on stored trials (no learner is fitted);
``ss.Study``, ``ss.cells`` and ``ss.get_study`` declare and build studies, and
``ss.get_learner``, ``ss.get_test``, ``ss.get_design``, ``ss.get_source`` resolve the
``name[k=v]`` specs a cell is made of (those live in their own modules; ``simstudy``
imports each on first use, so ``import simstudy`` stays cheap).  ``python -m simstudy
run`` is :func:`run` plus printing.

Examples
--------
>>> import os, tempfile
>>> import simstudy as ss
>>> path = os.path.join(tempfile.mkdtemp(), "demo.sqlite")
>>> r = ss.run("demo", runs=3, store=path, filter="iris/nmc~1nn", progress=False)
>>> r.trials_computed, r.table[["cell", "test", "runs"]].values.tolist()
(3, [['iris/nmc~1nn/5x2', 't5x2cv', 3], ['iris/nmc~1nn/5x2', 'F5x2cv', 3]])
>>> ss.run("demo", runs=3, store=path, filter="iris/nmc~1nn", progress=False).trials_computed
0
>>> ss.collect("demo", store=path).study.runs
3
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .catalog import get_study
from .errors import SimstudyError
from .store import DEFAULT_STORE
from .study import Study

if TYPE_CHECKING:
    import pandas as pd

    from .aggregate import StudyResult
    from .planning import Plan
    from .runner import RunSummary

__all__ = ["run", "plan", "collect", "bench", "card", "merge", "snapshot", "RunResult",
           "resolve", "out_dir"]


def _store_faults(fn: Callable) -> Callable:
    """An entry point whose store SQLite cannot read raises the CLI's one-line
    :class:`SimstudyError` (:func:`simstudy.errors.store_fault`), not sqlite3's error."""
    import functools

    @functools.wraps(fn)
    def entry(*args: Any, **kwargs: Any) -> Any:
        from .errors import sqlite_fault, store_fault

        try:
            return fn(*args, **kwargs)
        except SimstudyError:
            raise
        except Exception as e:
            fault = sqlite_fault(e)
            if fault is None:
                raise
            raise store_fault(fault) from None

    return entry


def _read_options(studies: Sequence[str | Study], alpha: float | None, runs: int | None,
                  seed: int | None) -> None:
    """What ``bench`` and ``card`` read checked as the command line checks it: known
    studies, ``alpha`` in (0, 1), ``runs`` and ``seed`` in range."""
    from .params import ALPHA, RUNS, SEED, check

    for name in studies:
        if isinstance(name, str):
            get_study(name)  # an unknown name: one line naming it and the valid choices
        elif not isinstance(name, Study):
            raise SimstudyError(f"a study must be a registered name, a study file's path or "
                                f"a Study, got {name!r:.80}")
    for key, value, c in (("alpha", alpha, ALPHA), ("runs", runs, RUNS), ("seed", seed, SEED)):
        if value is not None:
            check(key, value, c)


@dataclass
class RunResult:
    """What :func:`run` did and what the store now holds of the study.

    ``result`` is the :class:`~simstudy.aggregate.StudyResult` read back after the run
    (None when only a shard of the work was computed); ``table`` is its reject table.
    ``runs`` holds one :class:`~simstudy.runner.RunSummary` per root seed; the counts
    (trials in all, stored before, computed; test results computed from stored fold
    losses, no learner fitted) are their sums.  ``paths`` are the files written (``out``);
    ``notes`` what the user should know of them (a filtered run writes its cells' table;
    the data sets' missing values, kept missing: :func:`simstudy.sources.missing_notes`).
    """

    study: Study
    result: StudyResult | None
    runs: list[RunSummary]
    seconds: float
    store: str
    paths: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    trials_total: int = field(init=False)
    trials_done_before: int = field(init=False)
    trials_computed: int = field(init=False)
    results_recomputed: int = field(init=False)

    def __post_init__(self) -> None:
        for name in ("trials_total", "trials_done_before", "trials_computed",
                     "results_recomputed"):
            setattr(self, name, sum(getattr(s, name) for s in self.runs))

    @property
    def table(self) -> pd.DataFrame:
        """Reject proportions per cell and test (:func:`simstudy.aggregate.reject_table`)."""
        if self.result is None:
            raise SimstudyError(f"study {self.study.name!r}: this run computed one shard; "
                                "merge the shards' stores, then collect")
        return self.result.table


def resolve(study: str | Study, *, runs: int | None = None, sets: int | None = None,
            seed: int | None = None, alpha: float | None = None, chunk: int | None = None,
            filter: str | None = None) -> Study:
    """The study to run or read: a registered name, a study file (``.py``) or a
    :class:`Study`, with the overrides given (None keeps the study's own) and restricted
    to the cells ``filter`` matches.  ``sets`` asks for that many data draws per source
    of a study that repeats runs on each draw (runs = sets x its ``runs_per_set``)."""
    name = study if isinstance(study, str) else study.name
    if sets is not None:
        base = get_study(study) if isinstance(study, str) else study
        per = base.meta.get("runs_per_set")
        if not per:
            raise SimstudyError(f"sets {sets!r}: study {name!r} has no data sets drawn per "
                                "source; give runs instead")
        if runs is not None:
            raise SimstudyError("give sets or runs, not both")
        from .params import MAX_RUNS, Interval, check

        sets = check("sets", sets, Interval(int, 1, MAX_RUNS // int(per), why=(
            f"{per} runs per set and at most {MAX_RUNS:,} runs per cell")))
        runs = sets * int(per)
    over = {"runs": runs, "seed": seed, "alpha": alpha, "chunk": chunk}
    if isinstance(study, str):
        s = get_study(study, **over)
    elif isinstance(study, Study):
        changes = {k: v for k, v in over.items() if v is not None}
        s = (study.replace(**changes) if changes else study).keyed()
    else:
        raise SimstudyError(f"study must be a registered name, a .py file or a Study, "
                            f"got {study!r}")
    from .params import check_filter

    return s.select(check_filter(filter))


def out_dir(out: str | os.PathLike) -> Path:
    """Create an output directory before any work, so a bad path fails before trials are
    computed."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise SimstudyError(f"out {str(out)!r} is a file; give a directory (new or existing)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise SimstudyError(f"out {str(out)!r} cannot be used as an output directory: "
                            f"{e.strerror}") from None
    return out


@contextlib.contextmanager
def output_folder(out: str | os.PathLike) -> Iterator[Path]:
    """:func:`out_dir` for the length of a block: the folders it made are removed again
    when the block fails before writing into them (a store that cannot be opened, Ctrl-C),
    so a failed command leaves no empty output folder."""
    made = [d for d in (Path(out), *Path(out).parents) if not d.exists()]
    target = out_dir(out)
    try:
        yield target
    except BaseException:
        for d in made:
            try:
                d.rmdir()
            except OSError:  # not empty: something was written
                break
        raise


@_store_faults
def run(study: str | Study, *, runs: int | None = None, seed: int | None = None,
        alpha: float | None = None, store: str | os.PathLike = DEFAULT_STORE,
        filter: str | None = None, sets: int | None = None, seeds: int = 1,
        chunk: int | None = None, jobs: int = 1, backend: str = "joblib",
        scheduler: str | None = None, out: str | os.PathLike | None = None,
        progress: bool = True, render: str | None = None, record: dict | None = None,
        shard: tuple[int, int] | str | None = None, costs: str | os.PathLike | None = None,
        force: bool = False) -> RunResult:
    """Compute the trials of ``study`` the store does not hold yet, then read it back.

    Parameters
    ----------
    study : str or Study
        A registered study (``python -m simstudy list``), a study file (``.py`` defining
        ``build() -> Study``) or a :class:`Study`.
    runs, seed, alpha, chunk : optional
        Override the study's runs per cell, root seed, significance level and runs per
        work unit.
    store : path
        The SQLite result store (created if missing); trials already in it are not
        recomputed.
    filter : str, optional
        Only the cells whose id contains this text (or matches it as a glob).
    sets : int, optional
        Data draws per source, for studies that repeat runs on each draw.
    seeds : int
        Run root seeds ``seed .. seed + seeds - 1``, read back together.
    jobs, backend, scheduler
        Parallel workers; ``"serial"``, ``"joblib"`` (local processes) or ``"dask"``
        (``scheduler``: a Dask scheduler's address).  At most
        :data:`~simstudy.params.MAX_JOBS`; local workers beyond this machine's cores are
        capped at the cores, with a warning, unless ``force``.
    out : path, optional
        Where the rendering goes (nothing is written without it).
    progress : bool
        A progress bar on stderr.
    render : {"study", "cells", "none"}, optional
        What is written to ``out``: ``"study"`` the study's tables, figures and HTML page
        (they describe every cell: cells not run show as missing), ``"cells"`` the reject
        table of the cells run (``cells.md``, ``.csv``, ``.tex``), ``"none"`` nothing.
        Default: ``"study"`` for the whole study, ``"cells"`` when ``filter`` leaves out
        some of its cells.
    record : dict, optional
        What the store records of this invocation (default: these arguments).
    shard : (i, n) or "I/N", optional
        Compute only shard ``i`` of ``n`` (1-based) of the work units (:mod:`simstudy.shard`);
        ``costs``: a store whose measured seconds per trial balance the shards.
    force : bool
        Start ``jobs`` local workers even when there are fewer cores.

    ``runs`` is at most :data:`~simstudy.params.MAX_RUNS` and ``seeds``
    :data:`~simstudy.params.MAX_SEEDS`; a run of a million trials or more says its size and
    estimated cost (a :class:`~simstudy.errors.SimstudyWarning`) before it is planned.

    Returns
    -------
    RunResult
        The counts of the run and the :class:`~simstudy.aggregate.StudyResult` read back.

    Examples
    --------
    >>> import os, tempfile
    >>> import simstudy as ss
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> r = ss.run("demo", runs=2, store=path, filter="wine/max", progress=False)
    >>> r.trials_computed, r.table["proportion"].tolist()
    (2, [1.0, 1.0])
    """
    from .aggregate import collect as _collect
    from .aggregate import collect_seeds
    from .params import BACKEND, MAX_SEED, SEEDS, check, check_filter, check_shard, jobs_for
    from .planning import make_plan, plan_note
    from .runner import run_study
    from .sources import missing_notes
    from .store import Store

    seeds = check("seeds", seeds, SEEDS)
    backend = check("backend", backend, BACKEND)
    if backend != "dask" and scheduler:
        raise SimstudyError(f"scheduler {scheduler!r} needs backend 'dask' (--backend dask), "
                            f"not {backend!r}")
    shard = check_shard(shard)
    if costs is not None and shard is None:  # said before the study is resolved
        raise SimstudyError(f"costs {str(costs)!r} balances shards; it needs shard=(I, N) "
                            "(--shard I/N)")
    jobs, capped = jobs_for(jobs, backend, scheduler, force=force)
    filter = check_filter(filter)
    whole = resolve(study, runs=runs, sets=sets, seed=seed, alpha=alpha, chunk=chunk)
    if whole.seed + seeds - 1 > MAX_SEED:
        raise SimstudyError(f"seeds {seeds!r} from seed {whole.seed} pass the largest root "
                            f"seed {MAX_SEED} (2**63 - 1, what the store keeps)")
    s = whole.select(filter)  # whole: what a filtered run leaves out
    filtered = len(s.cells) < len(whole.cells)
    render = _render_choice(render, filtered, out)
    _say(capped)
    _say(plan_note(s, seeds, store))  # before planning, which walks every run of every cell
    # keyed and validated once, before the store file is created (a bad grid leaves no
    # file); planned again on the store at each root seed, not checked again
    p = make_plan(s)
    folder = contextlib.nullcontext() if out is None or render == "none" else \
        output_folder(out)
    if record is None:
        record = {"study": study if isinstance(study, str) else s.name, "runs": runs,
                  "seed": seed, "alpha": alpha, "store": str(store), "filter": filter,
                  "sets": sets, "seeds": seeds, "chunk": chunk, "jobs": jobs,
                  "backend": backend, "scheduler": scheduler,
                  "out": None if out is None else str(out), "render": render,
                  "api": "simstudy.run"}
    t0 = time.time()
    with folder as target, Store(store) as st:
        roots = [s.seed + i for i in range(seeds)]
        done = []
        for sd in roots:
            p = make_plan(p, st, seed=sd, shard=shard, costs=costs)
            done.append(run_study(p, st, jobs=jobs, backend=backend, scheduler=scheduler,
                                  progress=progress, args=record))
        if shard is not None:  # a part of the work: read once merged
            return RunResult(s, None, done, time.time() - t0, str(st.path))
        result = _collect(s, st) if seeds == 1 else collect_seeds(s, st, roots)
        paths: list[Path] = []
        notes: list[str] = missing_notes(c.source for c in s.cells)
        if target is not None and render == "cells":
            from .report import write_table

            which = f"the cells matching {filter!r}" if filtered else "every cell"
            paths = write_table(_cell_table(result), target, "cells",
                                caption=f"{s.name}: reject proportions of {which}")
            if filtered:
                notes.append(f"--filter {filter!r} covers {len(s.cells)} of "
                             f"{len(whole.cells)} cells: wrote their table only; the "
                             "study's tables, figures and page describe every cell: "
                             f"'python -m simstudy report {s.name} --format html' renders "
                             "them from the store, or run with --render study")
        elif target is not None:
            from .report.html import write_study_page

            if s.render is not None:
                paths = list(s.render(result, target) or [])
            paths.append(write_study_page(s, result, st, target, paths))
    return RunResult(s, result, done, time.time() - t0, str(st.path), paths, notes)


@_store_faults
def plan(study: str | Study, *, store: str | os.PathLike | None = DEFAULT_STORE,
         runs: int | None = None, sets: int | None = None, seed: int | None = None,
         alpha: float | None = None, chunk: int | None = None, filter: str | None = None,
         shard: tuple[int, int] | str | None = None,
         costs: str | os.PathLike | None = None) -> Plan:
    """What :func:`run` with these arguments would do, computing nothing: the
    :class:`~simstudy.planning.Plan` (keyed, validated cells; runs stored per cell; work
    units to compute; test results to compute from stored losses; cost per trial;
    definition hash).  ``store`` is opened read-only when it exists (else, or None:
    nothing is stored yet); ``python -m simstudy run --dry-run`` prints it.

    Examples
    --------
    >>> import os, tempfile
    >>> import simstudy as ss
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = ss.run("demo", runs=2, store=path, filter="iris/nmc~1nn", progress=False)
    >>> p = ss.plan("demo", runs=5, store=path, filter="iris/nmc~1nn")
    >>> p.total, p.done_before, [c.runs for c in p.chunks]
    (5, 2, [(2, 3, 4)])
    """
    from .params import check_filter
    from .planning import make_plan
    from .store import Store

    s = resolve(study, runs=runs, sets=sets, seed=seed, alpha=alpha, chunk=chunk,
                filter=check_filter(filter))
    if store is None or not Path(store).is_file():
        return make_plan(s, shard=shard, costs=costs)
    with Store(store, readonly=True) as st:
        return make_plan(s, st, shard=shard, costs=costs)


def _render_choice(render: str | None, filtered: bool, out: object) -> str:
    """What a run writes: ``render`` checked, or its default (the cells' table when the
    filter leaves out cells, else the study's rendering)."""
    from .params import RENDER, check

    if render is None:
        return "cells" if filtered else "study"
    render = check("render", render, RENDER)
    if render == "none" and out is not None:
        raise SimstudyError(f"render 'none' (--no-render) writes nothing; drop out "
                            f"{str(out)!r} (--out)")
    return render


def _say(note: str | None) -> None:
    """A note the user should read before the run goes on: a :class:`SimstudyWarning`
    (the command line prints it as ``simstudy: warning: ...``)."""
    if note:
        import warnings

        from .errors import SimstudyWarning

        warnings.warn(note, SimstudyWarning, stacklevel=4)  # the caller of run (decorated)


def _cell_table(result: StudyResult) -> pd.DataFrame:
    """The reject table as ``run`` prints it: cell, test, the pair of a 3-learner cell,
    rejects, runs, proportion, Wilson interval, Monte Carlo se (and truth, if known)."""
    from .aggregate import named_pairs

    table = named_pairs(result)  # a 3-learner cell's rows name their pair
    cols = ["cell", "test", *(["pair"] if "pair" in table.columns else []), "rejects", "runs",
            "proportion", "ci_low", "ci_high", "mcse"]
    return table[cols + [c for c in ("truth",) if c in table.columns]]


@_store_faults
def collect(study: str | Study, *, store: str | os.PathLike = DEFAULT_STORE,
            runs: int | None = None, seed: int | None = None, alpha: float | None = None,
            confidence: float = 0.95, filter: str | None = None) -> StudyResult:
    """Read a study back from a store: its trials, test results and reject table.

    With no ``seed`` or ``runs``, the seed the store holds the study at and the most runs
    it holds (:func:`simstudy.scope.stored_scope`).  Decisions are taken at ``alpha``
    (default: the study's) from the stored p-values; the table's Wilson intervals are at
    ``confidence``.  Nothing is computed and the store is opened read-only.

    Returns
    -------
    StudyResult
        ``table`` (reject proportions per cell and test), ``trials``, ``results``, ``study``.

    Examples
    --------
    >>> import os, tempfile
    >>> import simstudy as ss
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = ss.run("demo", runs=2, store=path, filter="iris/lda", progress=False)
    >>> res = ss.collect("demo", store=path, alpha=0.01)
    >>> res.study.runs, res.study.alpha, sorted(res.table["test"])
    (2, 0.01, ['F5x2cv', 't5x2cv'])
    """
    from .aggregate import collect as _collect
    from .params import ALPHA, check
    from .scope import stored_scope
    from .store import Store

    _read_options([], alpha, runs, seed)
    confidence = check("confidence", confidence, ALPHA)
    s = resolve(study, alpha=alpha, filter=filter)
    with Store(store, readonly=True) as st:
        s = stored_scope(s, st, runs, seed, asked=study if isinstance(study, str) else None)
        result = _collect(s, st, confidence=confidence)
        for note in st.mixed(s.name):  # e.g. shards merged from different installs
            _say(note)
    if result.table.empty and result.trials.empty:
        raise SimstudyError(f"store {str(store)!r} holds no trials of study {s.name!r} "
                            f"(seed {s.seed}); run it first")
    return result


@_store_faults
def bench(test: Callable | str, study: str | Study, store: Any = None, **options: Any
          ) -> pd.DataFrame:
    """A new test's reject proportions (or choice frequencies, for a study of K learners)
    beside the stored baselines, from stored trials; no learner is fitted.

    ``test`` is a function or ``"MODULE:FUNCTION"``; ``options`` (``name``, ``alpha``,
    ``runs``, ``seed``) and the rest are those of :func:`simstudy.benchmark.bench`.

    Examples
    --------
    >>> import os, tempfile
    >>> import simstudy as ss
    >>> from simstudy.stats import ttest_5x2cv
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = ss.run("demo", runs=2, store=path, filter="iris/max", progress=False)
    >>> def mine(d, *, n_train, n_test):
    ...     return ttest_5x2cv(d)
    >>> ss.bench(mine, "demo", path)["mine"].tolist()
    [1.0]
    """
    from . import benchmark as _bench
    from .stats.registry import is_choice

    _read_options([study], options.get("alpha"), options.get("runs"), options.get("seed"))
    s = study if isinstance(study, Study) else get_study(study)
    if any(is_choice(t) for c in s.cells for t in c.tests):
        return _bench.bench_choice(test, study, store, **options)
    return _bench.bench(test, study, store, **options)


@_store_faults
def card(test: Callable | str, studies: Sequence[str | Study] | None = None,
         store: Any = None, **options: Any):
    """A new test's report card (size, power, replicability beside the baselines) from
    the stored trials of ``studies`` (default: every shipped study) in ``store`` (default:
    the shipped trials; a store is read only when named); no learner is fitted.  See
    :func:`simstudy.testcard.card` for ``options`` and the result, and
    :func:`simstudy.report.card.write_card` to write it.

    An interval method ``g(fold_losses, design, a, b) -> (low, high)`` gets the interval
    card (coverage and width beside every baseline interval method, on the interval
    studies' trials: :func:`simstudy.intervalcard.interval_card`, written by
    :func:`simstudy.report.intervalcard.write_interval_card`): pass ``kind="interval"``,
    or declare ``g.kind = "interval"``.

    Examples
    --------
    >>> import os, tempfile
    >>> import simstudy as ss
    >>> from simstudy.stats.interval_registry import get_interval
    >>> path = os.path.join(tempfile.mkdtemp(), "s.sqlite")
    >>> _ = ss.run("ci-real", runs=2, store=path, progress=False,
    ...            filter="population[[]data=nursery,n=100]/*/5x2")
    >>> def z99(fl, design, a, b):
    ...     return get_interval("conservative-z")(fl, design, a, b)
    >>> ss.card(z99, ["ci-real"], path, kind="interval", level=0.99).trials
    2
    """
    kind = options.pop("kind", None)
    if kind is None:  # what the function declares (g.kind), a test when it says nothing
        fn = test
        if isinstance(test, str) and ":" in test:
            from .usertest import load_function

            try:
                fn = load_function(test)
                # loaded once; named as the card would name the text (its FUNCTION part)
                if options.get("name") is None:
                    options["name"] = test.rsplit(":", 1)[1]
                test = fn
            except SimstudyError:
                fn = None  # the card that loads it says why, in its own words
        kind = getattr(fn, "kind", "test") if callable(fn) else "test"
    if kind not in CARD_KINDS:
        raise SimstudyError(f"card kind {kind!r}; valid choices: {', '.join(CARD_KINDS)}")
    if isinstance(studies, (str, Study)):
        studies = [studies]
    if kind == "interval":
        from .intervalcard import interval_card

        _read_options(list(studies or ()), None, options.get("runs"), options.get("seed"))
        return interval_card(test, studies, store, **options)
    from . import testcard as _card

    _read_options(list(studies or ()), options.get("alpha"), options.get("runs"),
                  options.get("seed"))
    return _card.card(test, studies, store, **options)


#: what ``card`` judges: a test (:func:`simstudy.testcard.card`) or an interval method
#: (:func:`simstudy.intervalcard.interval_card`)
CARD_KINDS = ("test", "interval")


@_store_faults
def snapshot(store: str | os.PathLike, dest: str | os.PathLike) -> Path:
    """Copy ``store`` to the one self-contained file ``dest`` (consistent even while a run
    writes to it; ``.gz``: compressed) and check the copy opens; returns ``dest``.
    :meth:`simstudy.store.Store.snapshot` says what it refuses.

    Examples
    --------
    >>> import os, tempfile
    >>> import simstudy as ss
    >>> d = tempfile.mkdtemp()
    >>> _ = ss.run("demo", runs=2, store=os.path.join(d, "s.sqlite"), filter="iris/lda",
    ...            progress=False)
    >>> ss.snapshot(os.path.join(d, "s.sqlite"), os.path.join(d, "copy.sqlite")).name
    'copy.sqlite'
    """
    from .store import Store

    with Store(store, readonly=True) as st:
        out = st.snapshot(dest)
    with Store(out, readonly=True):
        pass  # the copy opens as a store of this schema
    return out


@_store_faults
def merge(out: str | os.PathLike, inputs: Sequence[str | os.PathLike], *,
          argv: Sequence[str] | None = None):
    """Combine the stores ``inputs`` (e.g. the shards of a job array) into the new store
    ``out``; see :func:`simstudy.merging.merge_stores` for what is checked and returned
    (``argv``: the command line, kept in the new store's log)."""
    from .merging import merge_stores

    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    return merge_stores(out, list(inputs), argv=argv)
