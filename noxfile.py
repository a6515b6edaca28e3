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
def lint(session: nox.Session) -> None:
    session.install("ruff")
    session.run("ruff", "check", "simstudy", "studies", "tests", "noxfile.py")


@nox.session(python=PY)
def perf(session: nox.Session) -> None:
    """Fast paths vs scikit-learn, side by side in one process; JSON in out/perf.json."""
    session.install("-e", ".[dev]")
    session.run("python", "-m", "simstudy", "perf", "--json", "out/perf.json", *session.posargs)


@nox.session(python=PY, name="weka-fixtures")
def weka_fixtures(session: nox.Session) -> None:
    """Regenerate tests/weka/fixtures/ with Weka 3.6.14 (Debian's ``weka`` package + Java)."""
    session.install("-e", ".[test]")
    session.run("python", "tests/weka/make_fixtures.py", *session.posargs)


def _study(session: nox.Session, name: str, runs: str) -> None:
    session.install("-e", ".[test]")
    session.run("python", "-m", "simstudy", "run", name, "--runs", runs, "--jobs", "2",
                "--out", f"figures/{name}", *session.posargs)


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
