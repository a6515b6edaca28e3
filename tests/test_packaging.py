"""Packaging: studies install as simstudy.studies (no top-level 'studies' in site-packages),
and pyproject's explicit package list matches the package folders on disk."""

import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_package_list_matches_the_folders():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts)
               for p in (ROOT / "simstudy").rglob("__init__.py")}
    on_disk.add("simstudy.studies")
    assert set(cfg["packages"]) == on_disk
    assert cfg["package-dir"] == {"simstudy.studies": "studies"}


def test_installed_package_has_no_top_level_studies(tmp_path):
    """In the installed environment (outside the repository) only simstudy.studies exists."""
    code = ("import importlib.util, simstudy.studies.demo as d; "
            "print(importlib.util.find_spec('studies'), d.build().name)")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["None", "demo"]


def test_wheel_has_no_top_level_studies(tmp_path):
    import pytest

    try:  # building a wheel offline needs bdist_wheel (setuptools >= 70.1 or 'wheel')
        import setuptools.command.bdist_wheel  # noqa: F401
    except ImportError:
        try:
            import wheel  # noqa: F401
        except ImportError:
            pytest.skip("no bdist_wheel offline here (old setuptools, no 'wheel' package)")
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "-q", "-w", str(tmp_path), str(ROOT)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    wheel = next(tmp_path.glob("simstudy-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert "studies" not in tops
    assert "simstudy/studies/alpaydin1999.py" in names
    assert "simstudy/studies/reference/bouckaert2004_table5.csv" in names
    assert "simstudy/sources/data/MANIFEST.csv" in names
