"""Command line: ``python -m simstudy COMMAND ...``, the one place argv is parsed.

``python -m simstudy STUDY ...`` is a shorthand for ``run STUDY ...``.  Bad input (an
unknown name, a bad path or number) prints one line naming the bad value and the valid
choices, and exits with status 2 (:func:`guarded`).  The commands of the studies (``run``,
``report``, ``bench``, ...) are here; the others each have their module beside this one:
``card``, ``compare``, ``pages``, ``merge``, ``trials``, ``baselines``, ``cost``
and ``perf`` (the benchmarks).  Each parses its options and calls a function of the
library (mostly :mod:`simstudy.api`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from ..errors import SimstudyError
from ..params import ALPHA, BACKEND, JOBS, POSITIVE_INT, RENDER, RUNS, SEED, SEEDS
from .args import ArgumentParser, arg_type

COMMANDS = ("list", "run", "report", "bench", "perf", "migrate", "snapshot", "card", "merge",
            "trials", "compare", "pages", "baselines", "cost")


def version_line() -> str:
    """``simstudy VERSION``, then where the shipped trials come from and how many there are
    (read from their manifests; no trial data is read)."""
    from .. import __version__
    from ..trials import shipped_summary

    return f"simstudy {__version__}\n{shipped_summary()}"


class _Version(argparse.Action):
    """``--version``: built only when asked (it reads the shipped trials' manifests)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_line())
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    from ..store import DEFAULT_STORE

    p = ArgumentParser(prog="python -m simstudy",
                       description="Reproduce simulation studies of tests that compare classifiers.",
                       epilog="python -m simstudy STUDY [options] is short for 'run STUDY'.")
    p.add_argument("--version", action=_Version, nargs=0,
                   help="the version, and where the shipped trials are read from")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=ArgumentParser)

    sub.add_parser("list", help="studies, tests, intervals, learners, designs and data sets")

    def common(sp: argparse.ArgumentParser, study_nargs: str | None = None) -> None:
        sp.add_argument("study", nargs=study_nargs, help="study name (see 'list')")
        sp.add_argument("--store", default=DEFAULT_STORE,
                        help=f"result store (SQLite file; default {DEFAULT_STORE})")
        sp.add_argument("--runs", type=arg_type("runs", RUNS), help="runs per cell")
        sp.add_argument("--seed", type=arg_type("seed", SEED), help="root seed")
        sp.add_argument("--alpha", type=arg_type("alpha", ALPHA), help="significance level")
        sp.add_argument("--filter", help="only cells whose id contains this text (or glob)")

    r = sub.add_parser("run", help="run a study (only missing trials), then render it")
    common(r)
    r.add_argument("--seeds", type=arg_type("seeds", SEEDS), default=1,
                   help="run root seeds SEED .. SEED+N-1 and render them together (studies "
                        "whose rendering reads several seeds show the spread over them)")
    r.add_argument("--sets", type=arg_type("sets", POSITIVE_INT),
                   help="data draws per source, for studies that repeat runs on each draw "
                        "(runs = sets x the study's runs per set)")
    r.add_argument("--jobs", type=arg_type("jobs", JOBS), default=1,
                   help="parallel workers (capped at this machine's cores unless --force)")
    r.add_argument("--force", action="store_true",
                   help="start --jobs local workers even when there are fewer cores")
    r.add_argument("--backend", type=arg_type("backend", BACKEND), default="joblib",
                   help="serial, joblib (local processes; default) or dask")
    r.add_argument("--scheduler", help="Dask scheduler address (backend dask)")
    r.add_argument("--chunk", type=arg_type("chunk", POSITIVE_INT), help="runs per work unit")
    r.add_argument("--out", type=Path, help="where tables and figures go (default out/STUDY)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    what = r.add_mutually_exclusive_group()
    what.add_argument("--render", type=arg_type("render", RENDER),
                      help="what goes to --out: the study's tables, figures and page "
                           "(default), the reject table of the cells run (default with "
                           "--filter: cells.md/.csv/.tex), or nothing")
    what.add_argument("--no-render", dest="render", action="store_const", const="none",
                      help="write nothing (--render none): the printed table only")
    r.add_argument("--shard", metavar="I/N", help="compute only shard I of N of the work "
                   "units (a job array's task; combine the stores with 'merge')")
    r.add_argument("--costs", metavar="STORE", help="with --shard: a store whose measured "
                   "seconds per trial balance the shards (e.g. a short pilot run)")
    r.add_argument("--dry-run", action="store_true",
                   help="print the plan (trials stored and to compute per cell, work units, "
                        "cost estimate, definition hash) and compute nothing")

    rp = sub.add_parser("report", help="aggregate a study from the store")
    common(rp, "?")
    rp.add_argument("--all", action="store_true",
                    help="every study the store holds (with --format html: pages + index.html)")
    rp.add_argument("--format", choices=("md", "csv", "latex", "html"), default="md")
    rp.add_argument("--confidence", type=arg_type("confidence", ALPHA), default=0.95,
                    help="level of the Wilson intervals ci_low, ci_high (0.95; the papers' "
                         "comparisons in figures/ use 0.99)")
    rp.add_argument("--out", type=Path, help="also render the study's tables and figures here "
                                             "(html: default out/STUDY, with --all: site)")

    m = sub.add_parser("migrate", help="bring a store of an older schema to this version "
                                        "(in place, one transaction, backup copy kept)")
    m.add_argument("--store", default=DEFAULT_STORE)

    sn = sub.add_parser("snapshot", help="copy a store to one self-contained file, "
                                         "consistent even while a run writes to it")
    sn.add_argument("dest", type=Path, help="the copy (new, or an older snapshot to replace)")
    sn.add_argument("--store", default=DEFAULT_STORE)

    b = sub.add_parser("bench", help="evaluate a new test on a study's stored losses")
    b.add_argument("--test", required=True,
                   help="MODULE:FUNCTION: f(d, *, n_train, n_test) for pairwise studies, "
                        "g(errors, *, alpha) -> best index or None for K-learner studies")
    b.add_argument("--study", required=True)
    b.add_argument("--store", default=None,
                   help="store file (default: the shipped trials; a store is read only when "
                        "named, never picked up from the current folder)")
    b.add_argument("--runs", type=arg_type("runs", RUNS))
    b.add_argument("--seed", type=arg_type("seed", SEED))
    b.add_argument("--alpha", type=arg_type("alpha", ALPHA))
    b.add_argument("--name", default=None, help="column name of the new test")

    from .baselines import add_baselines_parser
    from .card import add_card_parser
    from .compare import add_compare_parser
    from .cost import add_cost_parser
    from .merge import add_merge_parser
    from .pages import add_pages_parser
    from .perf import add_perf_parser
    from .trials import add_trials_parser

    for add in (add_card_parser, add_pages_parser, add_compare_parser, add_merge_parser,
                add_trials_parser, add_perf_parser, add_baselines_parser, add_cost_parser):
        add(sub)
    return p


def _cmd_list() -> None:
    from ..catalog import describe_studies
    from ..designs import DESIGNS
    from ..learners import describe_learners
    from ..sources import describe_sources
    from ..stats.interval_registry import describe_intervals
    from ..stats.registry import describe_tests

    def section(title: str, rows) -> None:
        print(f"{title}:")
        for name, desc in rows:
            print(f"  {name:24s} {desc}".rstrip())

    section("studies", describe_studies())
    section("tests", describe_tests())
    section("intervals", describe_intervals())
    section("learners", describe_learners())
    section("designs", DESIGNS.describe())
    section("data sets", describe_sources())


def _study(args):
    """The study ``run`` asks for, every cell (run selects them: it knows what is left out)."""
    from ..api import resolve

    return resolve(args.study, runs=args.runs, sets=args.sets, seed=args.seed,
                   alpha=args.alpha, chunk=args.chunk)


def _print_table(result, fmt: str) -> None:
    from ..api import _cell_table
    from ..report import to_latex, to_markdown

    t = _cell_table(result)
    if fmt == "csv":
        t.to_csv(sys.stdout, index=False)
    elif fmt == "latex":
        print(to_latex(t), end="")
    else:
        print(to_markdown(t), end="")


def _render(study, result, out: Path) -> list[Path]:
    from ..api import out_dir

    if study.render is None:
        return []
    return list(study.render(result, out_dir(out)) or [])


def _cmd_run(args) -> None:
    from ..api import run
    from ..execute import summary_line

    # run checks every argument (as it does called from Python) and selects the cells
    study = _study(args)
    if args.dry_run:
        _dry_run(study, args)
        return
    shard = args.shard
    out = args.out
    if shard is not None:  # part of the study: no files
        out = None
    elif out is None and args.render != "none":
        out = Path("out") / study.name
    r = run(study, filter=args.filter, store=args.store, seeds=args.seeds, jobs=args.jobs,
            backend=args.backend, scheduler=args.scheduler, progress=not args.no_progress,
            out=out, render=args.render,
            record={**{k: v for k, v in vars(args).items() if k not in ("command", "dry_run")},
                    "argv": sys.argv},
            shard=shard, costs=args.costs, force=args.force)
    notes = [x for x in (summary_line(d.execution) for d in r.runs) if x]
    if shard is not None:  # part of the study: rendered once the shards are merged
        print(f"{study.name} shard {args.shard}: {r.trials_computed} trials computed, "
              f"{r.trials_done_before} already stored, {r.trials_total} in the shard; "
              f"{r.seconds:.1f} s; store {r.store}; combine the shards' stores "
              "with: python -m simstudy merge OUT STORE...")
        for n in notes:
            print(f"{study.name}: {n}")
        return
    _print_table(r.result, "md")
    print(f"{study.name}: {r.trials_computed} trials computed, {r.trials_done_before} already "
          f"stored, {r.trials_total} in all; {r.results_recomputed} test results computed "
          f"from stored losses (no refit); {r.seconds:.1f} s; store {r.store}")
    for n in notes + r.notes:
        print(f"{study.name}: {n}")
    for pth in r.paths:
        print(f"wrote {pth}")


def _dry_run(study, args) -> None:
    """``run --dry-run``: the plan of each root seed, nothing computed or written."""
    from ..api import plan
    from ..report import to_markdown

    for i in range(args.seeds):
        p = plan(study, store=args.store, filter=args.filter, seed=study.seed + i,
                 shard=args.shard, costs=args.costs)
        print(p.describe())
        print(to_markdown(p.table()), end="")


def _cmd_report(args) -> None:
    from ..api import collect, out_dir
    from ..store import Store

    if args.all or args.study is None:
        return _cmd_report_all(args)
    # collect checks the arguments and reads the study back, as it does called from Python
    result = collect(args.study, store=args.store, runs=args.runs, seed=args.seed,
                     alpha=args.alpha, confidence=args.confidence, filter=args.filter)
    study = result.study
    if args.format == "html":  # the study's files and its page
        from ..report.html import render_with_page

        with Store(args.store, readonly=True) as store:
            for pth in render_with_page(study, result, store,
                                        out_dir(args.out or Path("out") / study.name)):
                print(f"wrote {pth}")
        return None
    _print_table(result, args.format)
    if args.out:
        for pth in _render(study, result, args.out):
            print(f"wrote {pth}", file=sys.stderr)


def _cmd_report_all(args) -> None:
    """``report --all --format html``: a page per study the store holds, and an index."""
    from ..report.html import report_all
    from ..store import Store

    if not args.all:
        raise SimstudyError("report needs a STUDY name or --all")
    if args.study is not None or args.filter:
        raise SimstudyError(f"--all reports every study; drop the study name {args.study!r} "
                            f"or --filter {args.filter!r}")
    if args.format != "html":
        raise SimstudyError(f"--all writes HTML pages; use --format html, not {args.format!r}")
    with Store(args.store, readonly=True) as store:
        index, entries = report_all(store, args.out or Path("site"), runs=args.runs,
                                    seed=args.seed, alpha=args.alpha,
                                    confidence=args.confidence)
    if not entries:
        raise SimstudyError(f"store {args.store!r} holds no trials of any registered study")
    for e in entries:
        print(f"{e['name']}: " + (f"NOT rendered: {e['error']}" if e.get("error")
                                  else f"wrote {e['page']}"))
    print(f"wrote {index}")
    failed = [e["name"] for e in entries if e.get("error")]
    if failed:
        raise SimstudyError(f"{len(failed)} of {len(entries)} studies could not be rendered: "
                            f"{', '.join(failed)} (listed in {index})")


def _cmd_bench(args) -> None:
    from ..api import bench
    from ..catalog import get_study
    from ..report import to_markdown
    from ..stats.registry import is_choice

    # no --store: the shipped trials alone
    if args.store is None:
        from .card import note_local_store

        note_local_store()
    table = bench(args.test, args.study, args.store, name=args.name, runs=args.runs,
                  seed=args.seed, alpha=args.alpha)
    study = get_study(args.study, alpha=args.alpha)
    if any(is_choice(t) for c in study.cells for t in c.tests):
        # a K-learner study: fn(errors (K, R, F), *, alpha) -> index of the best or None
        print(f"how often each method picks each learner (%), alpha={study.alpha} "
              f"(the new method beside the stored ones, from stored fold errors):")
    else:
        print(f"reject proportions at alpha={study.alpha} "
              f"(the new test beside the baselines, from stored fold losses):")
    print(to_markdown(table), end="")
    for n in table.attrs.get("notes", []):
        print(f"note: {n}", file=sys.stderr)


def _cmd_migrate(args) -> None:
    from ..store import migrate

    print(migrate(args.store))


def _cmd_snapshot(args) -> None:
    from ..api import snapshot
    from ..store import Store

    dest = snapshot(args.store, args.dest)
    with Store(dest, readonly=True) as copy:
        n = copy.count()
    print(f"wrote {dest}: {n} trials, {dest.stat().st_size:,} bytes (snapshot of {args.store})")


def guarded(command: Callable[[], int | None], stopped: str | None = None) -> int:
    """Run ``command`` as ``python -m simstudy`` runs each of its commands (also the check
    and pilot scripts in ``scripts/``): a :class:`~simstudy.errors.SimstudyError` or a fault of the machine
    (:func:`~simstudy.errors.fault`: full disk, read-only, locked, truncated or damaged store, an error
    SQLite raised or pandas wrapped) is one line on stderr and exit status 2, a
    :class:`~simstudy.errors.RunFailed` one line and 1, Ctrl-C says how to resume, or ``stopped`` for a
    command that stores nothing (an :class:`~simstudy.errors.Interrupted` says what it was told instead;
    130), a closed pipe is quiet.  Returns the exit status.

    Examples
    --------
    >>> def bad():
    ...     raise SimstudyError("runs must be a positive integer, got 0")
    >>> guarded(bad)  # the line goes to stderr
    2
    """
    import os

    from ..errors import Interrupted, RunFailed, fault, sqlite_fault, store_fault

    try:
        rc = command()
        sys.stdout.flush()
    except SimstudyError as e:
        print(f"simstudy: error: {e}", file=sys.stderr)
        return 2
    except RunFailed as e:
        print(f"simstudy: error: {e}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # the reader went away (report ... | head): stop quietly, as cat does
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt as e:
        said = str(e) if isinstance(e, Interrupted) and str(e) else \
            stopped or "finished trials are stored, rerun to resume"
        print(f"simstudy: interrupted; {said}", file=sys.stderr)
        return 130
    except Exception as e:
        found = sqlite_fault(e)
        # a full disk, a read-only mount: named; any other error propagates
        named = store_fault(found) if found is not None else \
            fault(e) if isinstance(e, OSError) else None
        if named is None:
            raise
        print(f"simstudy: error: {named}", file=sys.stderr)
        return 2
    return int(rc or 0)



#: the commands defined in this module
_STUDY_COMMANDS: dict[str, Callable[[argparse.Namespace], None]] = {
    "list": lambda a: _cmd_list(), "run": _cmd_run, "report": _cmd_report, "bench": _cmd_bench,
    "migrate": _cmd_migrate, "snapshot": _cmd_snapshot}


#: the commands that keep what they finished when stopped; the others store nothing
#: (migrate, snapshot and merge write whole or not at all)
STORING = ("run", "compare", "perf")


def main(argv: list[str] | None = None) -> int:
    import os

    argv_given = argv
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] not in COMMANDS and not argv[0].startswith("-"):
        argv = ["run", *argv]  # python -m simstudy STUDY ... == run STUDY ...
    if "" not in sys.path and os.getcwd() not in sys.path:
        sys.path.insert(0, os.getcwd())  # the console script imports user modules as -m does

    def dispatch() -> int:
        args = build_parser().parse_args(argv)
        if args.command is None:
            build_parser().print_help()
            return 0
        if args.command in _STUDY_COMMANDS:
            _STUDY_COMMANDS[args.command](args)
            return 0
        # a command of its own module: simstudy.cli.<command>.cmd_<command>(args)
        import importlib

        module = importlib.import_module(f"{__name__}.{args.command}")
        return int(getattr(module, f"cmd_{args.command}")(args) or 0)

    import warnings

    from ..errors import SimstudyWarning

    show = warnings.showwarning

    def one_line(message, category, *rest) -> None:  # simstudy's own: one line, no source
        if issubclass(category, SimstudyWarning):
            print(f"simstudy: warning: {message}", file=sys.stderr, flush=True)
        else:
            show(message, category, *rest)

    warnings.showwarning = one_line
    try:
        status = guarded(dispatch, stopped=None if argv and argv[0] in STORING else
                         "this command stores nothing: rerun it to start again")
    finally:
        warnings.showwarning = show
    if argv_given is None:  # the program ends here (console script, python -m simstudy)
        import gc

        # interpreter shutdown collects garbage in several full passes over every object
        # alive, and numba's and pandas' are many (about 0.3 s of CPU after a one-cell
        # run); frozen objects are skipped (what is freed by reference counts still is)
        gc.freeze()
    return status

