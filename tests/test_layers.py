"""The static import graph of ``simstudy/`` and ``studies/``: no cycle, and the CLI on top.

Nodes are modules (``studies/x.py`` is ``simstudy.studies.x``, as installed).  An edge is
any ``import`` statement in the module's source: at module level, inside functions, under
``if TYPE_CHECKING`` -- a cycle through a function-level import is still a cycle of the
design.  A package's ``__init__`` is the node of the names taken from the package itself
(``from simstudy.sources import get_source``).  ``from simstudy.sources.ban import BanSource``
is an edge to the submodule only; ``from . import lbfgs`` names the package too, and is an
edge to both (Python runs the package's ``__init__`` first), so a sibling is imported by its
module path (``from .lbfgs import fit_predict``) where the package's ``__init__`` imports
the importer.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TREES = ((ROOT / "simstudy", "simstudy"), (ROOT / "studies", "simstudy.studies"))


def _modules() -> dict[str, tuple[Path, bool]]:
    out = {}
    for base, prefix in TREES:
        for p in base.rglob("*.py"):
            parts = list(p.relative_to(base).with_suffix("").parts)
            is_pkg = parts[-1] == "__init__"
            out[".".join([prefix, *(parts[:-1] if is_pkg else parts)])] = (p, is_pkg)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the modules of the two trees it imports."""
    mods = _modules()
    graph = {}
    for name, (path, is_pkg) in mods.items():
        here = name if is_pkg else name.rpartition(".")[0]
        edges = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    pkg = here.rsplit(".", node.level - 1)[0]
                    base = f"{pkg}.{base}" if base else pkg
                targets = [base] + [f"{base}.{a.name}" for a in node.names
                                    if f"{base}.{a.name}" in mods]
            else:
                continue
            for t in targets:
                while t and t not in mods:  # a name inside a module: the module
                    t = t.rpartition(".")[0]
                if t and t != name:
                    edges.add(t)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    out = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while (w := stack.pop()) != v:
                comp.append(w)
            if comp:
                out.append(sorted([v, *comp]))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_sees_every_kind_of_import():
    g = import_graph()
    assert "simstudy.cli" in g["simstudy.__main__"]  # module level, relative
    assert "simstudy.cli.card" in g["simstudy.cli"]  # function level, a submodule
    assert "simstudy.studies.alpaydin1999.calibration" in g["simstudy.studies.alpaydin1999.grid"]
    assert "simstudy.learners.neural.layout" in g["simstudy.learners.neural.rprop"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_nothing_below_the_cli_imports_it():
    outside = sorted(m for m, edges in import_graph().items()
                     if any(t == "simstudy.cli" or t.startswith("simstudy.cli.") for t in edges)
                     and m != "simstudy.cli" and not m.startswith("simstudy.cli.")
                     and m != "simstudy.__main__")
    assert outside == []


def test_nothing_imports_a_package_from_inside_it():
    """A paper's modules import their siblings, never the package's ``__init__`` (which
    imports them all: the studies it registers and the names the report reads)."""
    g = import_graph()
    mods = _modules()
    inside = sorted(m for m, edges in g.items() for t in edges
                    if m.startswith("simstudy.studies.") and mods[t][1]
                    and m.startswith(t + ".") and not mods[m][1])
    assert inside == []


def test_a_package_does_not_hide_its_modules():
    """A paper's ``__init__`` binds no name of one of its modules (``from .render import
    render`` would make ``pkg.render`` the function, and ``from pkg import render`` too)."""
    hidden = []
    for init in sorted((ROOT / "studies").rglob("__init__.py")):
        modules = {p.stem for p in init.parent.glob("*.py")} | {
            p.parent.name for p in init.parent.glob("*/__init__.py")}
        for node in ast.walk(ast.parse(init.read_text(encoding="utf-8"))):
            names = ([a.asname or a.name for a in node.names] if isinstance(node, ast.ImportFrom)
                     else [t.id for t in getattr(node, "targets", []) if isinstance(t, ast.Name)]
                     if isinstance(node, ast.Assign) else
                     [node.name] if isinstance(node, ast.FunctionDef) else [])
            hidden += [f"{init.relative_to(ROOT)}: {n}" for n in names
                       if n in modules - {"__init__"}]
    assert hidden == []


#: a study module's size, in lines: a paper is split into its roles (grid, tables, claims,
#: pages, render) well below it
MAX_STUDY_LINES = 400


def test_study_modules_are_small_and_have_no_command_line():
    """Each paper is a package of small modules by role; a check or pilot with a command
    line lives in scripts/, studies are run by ``python -m simstudy``."""
    big, cli = [], []
    for p in sorted((ROOT / "studies").rglob("*.py")):
        text = p.read_text(encoding="utf-8")
        if len(text.splitlines()) > MAX_STUDY_LINES:
            big.append(str(p.relative_to(ROOT)))
        if "argparse" in text or "__main__" in text:
            cli.append(str(p.relative_to(ROOT)))
    assert big == []
    assert cli == []



#: the tables that once listed tests beside the registry (names of module attributes)
RETIRED_TEST_TABLES = ("_FAST", "_EVALUATORS", "NEW_BASELINES", "NEW_TESTS", "NEW_CHOICES",
                       "CHOICE_FUNCTIONS")


def _listed_test_names(path: Path, names: set[str]) -> list[tuple[str, int]]:
    """Module-level tuples, lists, sets (and dicts' keys) of string literals naming
    registered tests (two or more), and module-level names of :data:`RETIRED_TEST_TABLES`:
    (target, count)."""
    out = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        ids = [t.id for t in targets if isinstance(t, ast.Name)]
        if any(i in RETIRED_TEST_TABLES for i in ids):
            out.append((ids[0], -1))
            continue
        if "__all__" in ids:
            continue
        if isinstance(node.value, ast.Dict):
            elts = node.value.keys
        elif isinstance(node.value, (ast.Tuple, ast.List, ast.Set)):
            elts = node.value.elts
        else:
            continue
        hits = [e.value for e in elts if isinstance(e, ast.Constant)
                and isinstance(e.value, str) and e.value.split("[")[0] in names]
        if len(hits) >= 2:
            out.append((ids[0] if ids else "?", len(hits)))
    return out


def test_one_table_of_tests():
    """The registry is the one table of tests: which tests are baselines, which have a batch
    form, is declared on their entries (tags, ``batch``), not listed in a second table."""
    import simstudy.stats.baselines as baselines
    import simstudy.stats.choice as choice
    import simstudy.testcard as card
    import simstudy.trials as trials
    from simstudy.stats.registry import TESTS, ChoiceMethod, get_test
    from simstudy.stats.registry import baselines as tagged

    for mod in (card, baselines, choice, trials):
        assert not [n for n in RETIRED_TEST_TABLES if hasattr(mod, n)], mod.__name__
    names = set(TESTS.names())
    found = {str(p.relative_to(ROOT)): hits for p in sorted((ROOT / "simstudy").rglob("*.py"))
             if p.name != "registry.py" or p.parent.name != "stats"
             if (hits := _listed_test_names(p, names))}
    assert found == {}
    # one entry per classic test, its scalar and batch forms on it
    classic = ("t5x2cv", "F5x2cv", "FB5x2cv", "tB3x2cv", "cv-t", "resampled-t",
               "corrected-resampled-t", "corrected-rxk-t", "rxk-t")
    assert all(sum(e.name == c for e in TESTS) == 1 for c in classic)
    assert all(get_test(c).batch is not None for c in classic)
    assert all(get_test(c).batch is not None for c in tagged())
    assert all(isinstance(get_test(c), ChoiceMethod) for c in tagged("choice"))


def _library_trees() -> list[tuple[str, ast.AST]]:
    """(path, parsed source) of every ``simstudy/**.py`` but ``store.py``, the one module
    that talks to SQLite."""
    base = ROOT / "simstudy"
    return [(str(p.relative_to(ROOT)), ast.parse(p.read_text(encoding="utf-8")))
            for p in sorted(base.rglob("*.py")) if p != base / "store.py"]


def test_only_the_store_touches_its_connection():
    """``.con`` (a store's SQLite connection) is read in ``store.py`` alone: every query
    other modules need is a named ``Store`` method.  Comments and docstrings are not code,
    so the syntax tree, not the text, is searched."""
    found = [f"{path}:{node.lineno}" for path, tree in _library_trees()
             for node in ast.walk(tree)
             if isinstance(node, ast.Attribute) and node.attr == "con"]
    assert found == []


#: the start of a SQL statement in a string literal
_SQL = ("SELECT ", "INSERT ", "UPDATE ", "DELETE ", "CREATE ", "PRAGMA ", "ATTACH ", "BEGIN")


def test_only_the_store_speaks_sql():
    """Outside ``store.py`` no module calls ``sqlite3`` (``connect``, ``backup`` ...),
    imports a name from it, reads with ``pandas.read_sql*``, or writes a SQL statement in
    a string; ``import sqlite3`` to recognise its errors (``errors.fault``) is allowed."""
    found = []
    for path, tree in _library_trees():
        for node in ast.walk(tree):
            bad = None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                f = node.func
                if isinstance(f.value, ast.Name) and f.value.id == "sqlite3":
                    bad = f"sqlite3.{f.attr}()"
                elif f.attr.startswith("read_sql"):
                    bad = f"{f.attr}()"
            elif isinstance(node, ast.ImportFrom) and node.module == "sqlite3":
                bad = "from sqlite3 import"
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str)
                  and node.value.lstrip().upper().startswith(_SQL)
                  and node.value.lstrip()[:6].isupper()):
                bad = f"SQL {node.value.strip()[:30]!r}"
            if bad:
                found.append(f"{path}:{node.lineno}: {bad}")
    assert found == []


def test_both_readers_offer_the_one_reader_api():
    """A result store and the shipped trials read stored trials through one protocol,
    ``simstudy.store.TrialReader``: each of its methods exists on both, with the protocol's
    parameters (names, kinds and defaults), so a caller reads either alike."""
    import inspect

    from simstudy.store import Store, TrialReader
    from simstudy.trials import ShippedTrials

    names = [n for n, f in vars(TrialReader).items()
             if callable(f) and not n.startswith("_")]
    assert {"describe", "holdings", "fold_errors", "pvalues", "choices", "losses"} <= set(names)

    def params(f):
        return [(p.name, p.kind, p.default) for p in inspect.signature(f).parameters.values()]

    differ = [f"{cls.__name__}.{n}" for cls in (Store, ShippedTrials) for n in names
              if params(getattr(cls, n)) != params(getattr(TrialReader, n))]
    assert differ == []


#: what parses a command line: argparse, its parser methods, sys.argv, a __main__ guard
_ARGV_CALLS = {"add_argument", "add_parser", "add_subparsers", "add_argument_group",
               "add_mutually_exclusive_group", "parse_args", "parse_known_args"}


def _argv_uses(tree: ast.AST) -> list[str]:
    """Where a module's syntax tree reads a command line (by line)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "argparse"
                                                for a in node.names):
            found.append(f"{node.lineno}: import argparse")
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "argparse":
            found.append(f"{node.lineno}: from argparse")
        elif isinstance(node, ast.ImportFrom) and node.module == "sys" and any(
                a.name == "argv" for a in node.names):
            found.append(f"{node.lineno}: from sys import argv")
        elif (isinstance(node, ast.Attribute) and node.attr == "argv"
              and isinstance(node.value, ast.Name) and node.value.id == "sys"):
            found.append(f"{node.lineno}: sys.argv")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in _ARGV_CALLS):
            found.append(f"{node.lineno}: .{node.func.attr}()")
        elif isinstance(node, ast.Compare) and {
                getattr(x, "id", getattr(x, "value", None))
                for x in (node.left, *node.comparators)} == {"__name__", "__main__"}:
            found.append(f"{node.lineno}: __main__ guard")
    return sorted(found, key=lambda u: int(u.split(":")[0]))


def test_the_argv_probe_sees_every_kind_of_use():
    code = ("import argparse\nimport sys\nfrom argparse import ArgumentParser\n"
            "from sys import argv\nx = sys.argv[1:]\np.add_argument('--x')\n"
            "if __name__ == '__main__':\n    pass\n")
    assert [u.split(": ")[1] for u in _argv_uses(ast.parse(code))] == [
        "import argparse", "from argparse", "from sys import argv", "sys.argv",
        ".add_argument()", "__main__ guard"]
    # a docstring or comment naming them is not a use
    assert _argv_uses(ast.parse('"""python -m x; argparse; sys.argv"""\n# __main__\n')) == []


def test_argv_is_parsed_in_the_cli_alone():
    """No module of the library outside ``simstudy/cli/`` (and ``__main__.py``, which calls
    it) imports argparse, builds a parser, reads ``sys.argv`` or runs as a script: the
    benchmarks and report writers are functions the CLI and nox call."""
    uses = []
    for p in sorted((ROOT / "simstudy").rglob("*.py")):
        rel = p.relative_to(ROOT / "simstudy")
        if rel.parts[0] == "cli" or rel == Path("__main__.py"):
            continue
        tree = ast.parse(p.read_text(encoding="utf-8"))
        uses += [f"simstudy/{rel.as_posix()}:{u}" for u in _argv_uses(tree)]
    assert uses == []


def test_importing_the_package_runs_no_study():
    """The studies are plugins found when asked for (the catalog, or an import of
    ``simstudy.studies``): importing the package executes none of them."""
    import subprocess
    import sys

    code = ("import sys, simstudy; "
            "print(sorted(m for m in sys.modules if m.startswith('simstudy.studies')))")
    r = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                       timeout=120, env={**__import__("os").environ, "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


# --- the library never names a paper --------------------------------------------------------

#: the authors of the papers the studies reproduce (and of the tests the library cites)
AUTHORS = ("Alpaydın", "Alpaydin", "Wang", "Bouckaert", "Yıldız", "Yildiz", "Dietterich",
           "Nadeau", "Bengio", "Frank")
_AUTHOR = "|".join(sorted({a.lower() for a in AUTHORS}))
_NAME = r"(?:[A-ZÇĞİÖŞÜ][\w'’-]*\.?|et al\.|and|&)"
#: a citation: author names, initials, ``&``/``and``/``et al.``, commas or semicolons, then a
#: year, optionally in parentheses ("Wang, Li & Li 2016", "Yıldız & Alpaydın (2006)")
CITATION = re.compile(rf"(?:'s)?(?:[ ,;]+{_NAME}(?:'s)?)*?[ ,;]*\(?(?:19|20)\d\d")


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
            and n.body and isinstance(n.body[0], ast.Expr)
            and isinstance(n.body[0].value, ast.Constant) and isinstance(n.body[0].value.value, str)}


def _code_words(path: Path):
    """(line, text, is_string) of each identifier and non-docstring string literal of a
    module: what its code says, without docstrings and comments (ast drops comments)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs:
            yield n.lineno, n.value, True
        for attr in ("id", "attr", "name", "arg", "asname"):
            v = getattr(n, attr, None)
            if isinstance(v, str) and not isinstance(n, ast.Constant):
                yield getattr(n, "lineno", 0), v, False
        if isinstance(n, ast.keyword) and n.arg:
            yield n.value.lineno, n.arg, False


def test_the_library_names_no_paper():
    """No paper's author appears in ``simstudy/**.py`` outside docstrings, comments and
    citations.  A *citation* is an author's name inside a string literal followed by the
    paper's year, with only names, initials, ``&``, ``and``, ``et al.``, commas or
    semicolons between (``"(Wang, Li & Li 2016)"``, ``"Yıldız & Alpaydın (2006) eq. 9"``): a
    learner's or test's description, an error message or a table of citations may say whose
    method it is.  An author's name in an identifier, in a name the library gives to
    something (a source ``wang-case1``, a data-set group ``alpaydin1999``, a study
    ``wang-real``) or in a string that is not such a citation is the study's business: it
    belongs in ``studies/``."""
    author = re.compile(_AUTHOR, re.I)
    bad = []
    for p in sorted((ROOT / "simstudy").rglob("*.py")):
        for line, text, is_string in _code_words(p):
            for m in author.finditer(text):
                if is_string and CITATION.match(text, m.end()) and text[m.start()].isupper():
                    continue
                bad.append(f"{p.relative_to(ROOT)}:{line}: {text[max(0, m.start() - 20):m.end() + 20]!r}")
    assert bad == []


#: names of paper-grade studies that are also the names of other things the library names
#: legitimately: a source (``ban``), a test (``multitest``), a statistic
#: (``simstudy.stats.replicability``), a column (``errors``), a quantity (``numerator``)
SHARED_NAMES = {"ban", "multitest", "replicability", "errors", "numerator"}


def test_the_library_names_no_study():
    """No string literal of ``simstudy/**.py`` (outside docstrings; comments are not code)
    names a paper-grade study -- one that declares a results page -- as a word of its own
    (``"type1"``, ``"... and `odr-size` add"``), save :data:`SHARED_NAMES`.  The library iterates the
    catalog and the studies' declarations; it does not know which studies exist.  The
    benchmarks (``simstudy/perf/`` and their command line, ``simstudy/cli/perf.py``) name
    the studies they time as their workloads."""
    import simstudy.studies as studies

    from simstudy.catalog import describe_studies

    paper_grade = {name for name, _ in describe_studies()} & set(studies.RESULTS_PAGES)
    assert {"type1", "gaussian", "ban"} <= paper_grade  # the check sees the studies
    names = paper_grade - SHARED_NAMES
    bad = []
    for p in sorted((ROOT / "simstudy").rglob("*.py")):
        if p.is_relative_to(ROOT / "simstudy" / "perf") or p == ROOT / "simstudy" / "cli" / "perf.py":
            continue
        for line, text, is_string in _code_words(p):
            hits = {n for n in names if is_string and re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text)}
            bad += [f"{p.relative_to(ROOT)}:{line}: {n!r} in {text[:60]!r}" for n in sorted(hits)]
    assert bad == []


def test_the_interval_card_reads_user_code_through_the_one_adapter():
    """The interval card loads and calls a user's interval method only through
    :class:`simstudy.usertest.UserTest` (one loader, one sandbox) and its baselines only
    through the interval registry: no import machinery, no SQL, no argv of its own."""
    text = (ROOT / "simstudy" / "intervalcard.py").read_text(encoding="utf-8")
    assert "importlib" not in text and "spec_from_file_location" not in text
    assert "UserTest.of(" in text and "get_interval(" in text
    assert not re.search(r"\bSELECT\b|\.con\b|sqlite3|argparse|sys\.argv", text)
