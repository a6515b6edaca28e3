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



def test_the_interval_card_reads_user_code_through_the_one_adapter():
    """The interval card loads and calls a user's interval method only through
    :class:`simstudy.usertest.UserTest` (one loader, one sandbox) and its baselines only
    through the interval registry: no import machinery, no SQL, no argv of its own."""
    text = (ROOT / "simstudy" / "intervalcard.py").read_text(encoding="utf-8")
    assert "importlib" not in text and "spec_from_file_location" not in text
    assert "UserTest.of(" in text and "get_interval(" in text
    import re

    assert not re.search(r"\bSELECT\b|\.con\b|sqlite3|argparse|sys\.argv", text)
