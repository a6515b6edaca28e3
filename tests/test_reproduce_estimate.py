"""scripts/reproduce_estimate.py reads the studies and the full-scale trial counts it scales to
from the committed noxfile and figures/REPRODUCE.md, and refuses a bad fraction in one line."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from simstudy.report.performance import read_reproduction

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location(
        "reproduce_estimate", ROOT / "scripts" / "reproduce_estimate.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_it_scales_to_the_committed_reproduction():
    est = _script()
    full = est.full_trials()
    r = read_reproduction(ROOT)
    assert sum(full.values()) == int(r.trials.replace(",", ""))
    assert set(full) <= set(est.reproduce_studies())  # numerator, errors reuse trials
    assert "wang-real" in est.reproduce_studies()


def test_a_bad_fraction_is_one_line_exit_2():
    p = subprocess.run([sys.executable, str(ROOT / "scripts" / "reproduce_estimate.py"),
                        "--fraction", "0"], capture_output=True, text=True)
    assert p.returncode == 2
    assert "--fraction must be in (0, 1], got 0.0" in p.stderr
    assert "Traceback" not in p.stderr
