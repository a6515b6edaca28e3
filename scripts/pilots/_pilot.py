"""What the pilots in this directory share: the checkout, where outputs go, the command
line's common part and the commit a result was computed at."""

from __future__ import annotations

from pathlib import Path

from simstudy.cli.args import ArgumentParser, arg_type
from simstudy.params import POSITIVE_INT

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "figures" / "pilots"


def parser(script: str, doc: str | None, runs: int | None = None,
           runs_help: str = "runs per cell") -> ArgumentParser:
    """``--out`` (default ``figures/pilots``) and, given a default, ``--runs`` (a positive
    integer); errors are one line, exit 2, under :func:`simstudy.cli.guarded`."""
    ap = ArgumentParser(prog=f"python scripts/pilots/{script}",
                        description=(doc or "").splitlines()[0])
    if runs is not None:
        ap.add_argument("--runs", type=arg_type("--runs", POSITIVE_INT), default=runs,
                        help=f"{runs_help} (default {runs})")
    ap.add_argument("--out", type=Path, default=OUT, help="output directory (default "
                    "figures/pilots)")
    return ap


def commit() -> str:
    """The checkout's HEAD, short (``unknown`` outside a git checkout)."""
    from simstudy.perf.provenance import checkout

    return (checkout()["commit"] or "unknown")[:7]


def write_md(out: Path, name: str, lines: list[str]) -> None:
    """``out/name.md`` from ``lines`` (also printed)."""
    text = "\n".join(lines)
    (out / f"{name}.md").write_text(text + "\n")
    print(text)
