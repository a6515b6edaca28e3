"""README's examples run as written."""

import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_study_file_runs(tmp_path):
    text = README.read_text()
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
