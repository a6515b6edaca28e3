"""Every committed script under scripts/ imports and answers ``--help`` (exit 0): a script
whose import broke (a moved function) fails here, not when a long run is started."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted(p for p in (ROOT / "scripts").rglob("*.py")
                 if not p.name.startswith("_") and p.name != "common.py")


def test_there_are_scripts():
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_script_answers_help(script):
    r = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True,
                       cwd=ROOT, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "usage:" in r.stdout.lower()
