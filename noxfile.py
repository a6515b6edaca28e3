"""nox sessions: tests, lint, and the full-scale reproductions (not part of the unit suite)."""

import nox

nox.options.sessions = ["tests", "lint"]
PY = "3.11"


@nox.session(python=PY)
def tests(session: nox.Session) -> None:
    """The unit suite, exactly as README and .ci/run run it."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", "-q", *session.posargs)


@nox.session(python=PY)
def readme(session: nox.Session) -> None:
    """README's first command as written: a plain (not editable) install, then the main job
    from the repository's root, where the checkout's package shadows the installed one."""
    session.install(".")
    session.run("python", "-m", "simstudy", "type1", "--runs", "10", "--jobs", "2",
                "--store", f"{session.create_tmp()}/store.sqlite", "--out",
                f"{session.create_tmp()}/type1", "--no-progress")


@nox.session(python=PY)
def docs(session: nox.Session) -> None:
    """The documentation site (docs/, mkdocs.yml), built strictly: a broken link fails."""
    session.install("-e", ".[docs]")
    session.run("mkdocs", "build", "--strict", "--site-dir", f"{session.create_tmp()}/site")


@nox.session(python=PY)
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "simstudy", "studies", "tests", "noxfile.py")


@nox.session(python=PY)
def perf(session: nox.Session) -> None:
    """Fast paths vs scikit-learn, side by side in one process; JSON in out/perf.json."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "simstudy", "perf", "--json", "out/perf.json", *session.posargs)


@nox.session(python=PY, name="perf-weka")
def perf_weka(session: nox.Session) -> None:
    """JIT-warm Weka 3.6.14 (Debian's ``weka`` + Java) beside wnb, j48 and ib1 on the same
    credit-g 10x10 cv splits, per fit and for the whole replicability cell; writes
    figures/perf-weka.json and .md with the commit measured."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "simstudy", "perf", "weka", "--out", "figures/perf-weka",
                *session.posargs)
    session.run("python", "-m", "simstudy", "pages")


@nox.session(python=PY, name="perf-startup")
def perf_startup(session: nox.Session) -> None:
    """README's command 1 through a terminal, numba's cache warm and cold: seconds to the bar
    drawn and its first move; a one-cell run's fixed overhead beyond its trials' compute;
    figures/perf-startup.json and .md with the commit."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "simstudy", "perf", "startup", "--out", "figures/perf-startup",
                *session.posargs)
    session.run("python", "-m", "simstudy", "pages")


@nox.session(python=PY, name="perf-cluster")
def perf_cluster(session: nox.Session) -> None:
    """Shards + merge against one run, two cooperating runs against two independent ones:
    wall and CPU of each command, figures/perf-cluster.json and .md with the commit."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "simstudy", "perf", "cluster", "--out", "figures/perf-cluster",
                *session.posargs)


@nox.session(python=PY, name="perf-compare")
def perf_compare(session: nox.Session) -> None:
    """compare's one set of fits against mlxtend's two calls (t and F on 5x2 cv), sklearn
    estimators and registered learners, wall and CPU apart; one model per call against the
    batch; figures/perf-compare.json and .md with the commit and load.  ``-- N`` sets the
    repeats (default 5)."""
    session.install("-e", ".[test]")
    repeats = int(session.posargs[0]) if session.posargs else 5
    session.run("python", "-m", "simstudy", "perf", "compare", "--out", "figures/perf-compare",
                "--repeats", str(repeats))


@nox.session(python=PY, name="weka-fixtures")
def weka_fixtures(session: nox.Session) -> None:
    """Regenerate tests/weka/fixtures/ with Weka 3.6.14 (Debian's ``weka`` package + Java)."""
    session.install("-e", ".[test]")
    session.run("python", "tests/weka/make_fixtures.py", *session.posargs)


@nox.session(python=PY)
def shards(session: nox.Session) -> None:
    """What a job array does, on this machine: ``run STUDY --shard I/N`` as N processes at
    once, each into its own store, then ``merge`` them and report the merged store.
    ``nox -s shards -- STUDY N [run options]`` (default: demo 4); out/shards/."""
    import os
    import subprocess
    import sys
    import time

    if session.bin_paths:  # --no-venv: the environment nox runs in, as it is
        session.install("-e", ".[test]")
    args = list(session.posargs)
    study = args.pop(0) if args else "demo"
    n = int(args.pop(0)) if args and args[0].isdigit() else 4
    out = f"out/shards/{study}"
    os.makedirs(out, exist_ok=True)
    stores = [f"{out}/shard-{i}-of-{n}.sqlite" for i in range(1, n + 1)]
    merged = f"{out}/merged.sqlite"
    for f in [merged, *stores]:
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(f + suffix):
                os.remove(f + suffix)
    python = os.path.join(session.bin, "python") if session.bin_paths else sys.executable
    t0 = time.time()
    procs = [subprocess.Popen([python, "-m", "simstudy", "run", study, "--shard", f"{i}/{n}",
                               "--store", s, "--no-progress", *args])
             for i, s in enumerate(stores, 1)]
    if any(p.wait() for p in procs):
        session.error(f"a shard of {study} failed: exit codes {[p.returncode for p in procs]}")
    session.log(f"{n} shards of {study}: {time.time() - t0:.1f} s")
    session.run("python", "-m", "simstudy", "merge", merged, *stores)
    session.run("python", "-m", "simstudy", "report", study, "--store", merged,
                "--format", "html", "--out", f"{out}/report")


def _study(session: nox.Session, name: str, runs: str | None = None) -> None:
    """Run ``name`` into figures/NAME at ``runs`` (None: the study's default runs)."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "simstudy", "run", name, *(["--runs", runs] if runs else []),
                "--jobs", "2", "--out", f"figures/{name}", *session.posargs)


@nox.session(python=PY)
def type1(session: nox.Session) -> None:
    """Alpaydin (1999) Table 3 (type I) and Fig. 1 at full scale (1000 runs)."""
    _study(session, "type1", "1000")


@nox.session(python=PY)
def type2(session: nox.Session) -> None:
    """Alpaydin (1999) Table 3 (LP vs MLP) and Fig. 2 at full scale (1000 runs)."""
    _study(session, "type2", "1000")


@nox.session(python=PY)
def gaussian(session: nox.Session) -> None:
    """Wang, Li & Li (2016) Table 3 at full scale (5000 replications)."""
    _study(session, "gaussian", "5000")


# every other study at its default (the papers') run count; `ban` counts training sets
for _name, _doc in {
    "numerator": "Alpaydin (1999) Table 1 (100 runs).",
    "errors": "Alpaydin (1999) Table 2 (1000 runs, the cells of type1/type2).",
    "wang-real": "Wang, Li & Li (2016) Tables 4-5 (5000 runs).",
    "multitest": "Yildiz & Alpaydin (2006) Tables 1-3 (1000 runs).",
    "replicability": "Bouckaert & Frank (2004) Tables 1-4 (10 runs per set).",
    "ban": "Bouckaert & Frank (2004) Table 5 (1000 training sets per source).",
    "type1-paper": "Alpaydin Table 3 type I, default and paper variant (1000 runs).",
    "type2-paper": "Alpaydin Table 3 LP vs MLP, default and paper variant (1000 runs).",
    "errors-paper": "Alpaydin Table 2, default and paper variant (1000 runs).",
    "odr-size": "Alpaydin's ODR rows on the size Table 2's sds imply (1000 runs; hypothesis).",
    "gaussian-paper": "Wang Table 3 under the paper scenarios (5000 runs).",
    "wang-real-paper": "Wang Tables 4-5 under the paper scenarios (5000 runs).",
}.items():
    def _full(session: nox.Session, _n: str = _name) -> None:
        _study(session, _n)

    _full.__doc__ = _doc
    nox.session(python=PY, name=_name)(_full)


# the default studies at the papers' run counts, cheapest first, into one store
REPRODUCE = ["numerator", "replicability", "ban", "type2", "type1", "errors", "multitest",
             "gaussian", "wang-real"]


@nox.session(python=PY)
def reproduce(session: nox.Session) -> None:
    """Every default study at the papers' run counts into one store (out/reproduce.sqlite,
    resumable), then figures/REPRODUCE.md: worker time per study, learner and data set, and
    each invocation's wall time. ``nox -s reproduce -- --jobs 1`` passes options to ``run``."""
    session.install("-e", ".[test]")
    store = "out/reproduce.sqlite"
    for name in REPRODUCE:
        session.run("python", "-m", "simstudy", "run", name, "--jobs", "2", "--store", store,
                    "--out", f"out/reproduce/{name}", "--no-progress", *session.posargs)
    commit = session.run("git", "rev-parse", "--short", "HEAD", silent=True,
                         external=True).strip()
    session.run("python", "-m", "simstudy", "cost", store, "--commit", commit,
                "--out", "figures/REPRODUCE.md")
    session.run("python", "-m", "simstudy", "pages")
