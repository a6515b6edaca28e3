"""The examples of README and the user guide run as written."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "user-guide.md"


def test_guide_study_file_runs(tmp_path):
    text = GUIDE.read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "def build" in b)
    assert len(block.strip().splitlines()) <= 15
    (tmp_path / "mystudy.py").write_text(block)
    r = subprocess.run([sys.executable, "-m", "simstudy", "run", "mystudy.py", "--runs", "3",
                        "--no-progress"], cwd=tmp_path, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    assert "15 trials computed" in r.stdout  # 5 cells x 3 runs
    r = subprocess.run([sys.executable, "-m", "simstudy", "report", "mystudy.py"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and "rxk-t" in r.stdout, r.stderr


def test_readme_python_facade_runs(tmp_path):
    block = next(b for b in re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
                 if "import simstudy as ss" in b)
    r = subprocess.run([sys.executable, "-c", block], cwd=tmp_path, capture_output=True,
                       text=True, timeout=300, env={**__import__("os").environ,
                                                    "PYTHONPATH": str(ROOT)})
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "demo.sqlite").exists()


def test_readme_is_short():
    assert len(README.read_text().splitlines()) <= 250
