"""Packaging: studies install as simstudy.studies (no top-level 'studies' in site-packages),
and pyproject's explicit package list matches the package folders on disk."""

import json
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_package_list_matches_the_folders():
    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    on_disk = {".".join(p.parent.relative_to(ROOT).parts)
               for p in (ROOT / "simstudy").rglob("__init__.py")}
    on_disk |= {".".join(("simstudy", *p.parent.relative_to(ROOT).parts))
                for p in (ROOT / "studies").rglob("__init__.py")}  # the papers' packages
    data_only = {d for d in [*(ROOT / "simstudy").rglob("*"), *(ROOT / "studies").rglob("*")]
                 if d.is_dir() and d.name != "__pycache__" and not (d / "__init__.py").exists()}
    assert {d.relative_to(ROOT).as_posix() for d in data_only} == {"simstudy/sources/data",
                                                                   "studies/reference"}
    # data-only folders (no __init__.py) are listed too, so setuptools ships them (studies/
    # is installed as simstudy.studies)
    on_disk |= {".".join(("simstudy", *d.relative_to(ROOT).parts) if d.is_relative_to(ROOT / "studies")
                         else d.relative_to(ROOT).parts) for d in data_only}
    assert set(cfg["packages"]) - {"simstudy._shipped"} == on_disk
    assert cfg["package-dir"] == {"simstudy.studies": "studies", "simstudy._shipped": "figures"}
    assert "simstudy._shipped" in cfg["packages"]


def test_installed_package_has_no_top_level_studies(tmp_path):
    """In the installed environment (outside the repository) only simstudy.studies exists."""
    code = ("import importlib.util, simstudy.studies.demo as d; "
            "print(importlib.util.find_spec('studies'), d.build().name)")
    r = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["None", "demo"]


def test_wheel_has_no_top_level_studies(tmp_path):
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
    assert "simstudy/studies/alpaydin1999/grid.py" in names
    assert "simstudy/studies/reference/bouckaert2004_table5.csv" in names
    declared = {f"simstudy/studies/{p.relative_to(ROOT / 'studies').as_posix()}"
                for name in ("truth.csv", "gaussian_sources.json")
                for p in (ROOT / "studies").rglob(name)}  # what the studies declare
    assert len(declared) == 3 and declared <= set(names)
    assert "simstudy/sources/data/MANIFEST.csv" in names
    # the shipped trials travel with the package: every file each manifest lists
    shipped = sorted((ROOT / "figures").glob("*/trials/manifest.json"))
    assert len(shipped) == 9  # seven studies of tests, two of intervals
    for m in shipped:
        study = m.parent.parent.name
        listed = json.loads(m.read_text())["files"]
        for f in ["manifest.json", *listed]:
            assert f"simstudy/_shipped/{study}/trials/{f}" in names, (study, f)
    assert not [n for n in names if n.startswith("simstudy/_shipped/")
                and "/trials/" not in n]  # figures' tables and pages stay out
    # the shipped trials' budget (docs/shipped-trials.md: 60 MB in all) bounds the wheel,
    # which is those trials and a little code and data
    assert wheel.stat().st_size < 60 * 10**6


def _checkout(tmp_path: Path) -> Path:
    """A minimal checkout: this package's __init__ and a studies/ beside it with a marker."""
    root = tmp_path / "checkout"
    (root / "simstudy").mkdir(parents=True)
    (root / "simstudy" / "__init__.py").write_text((ROOT / "simstudy" / "__init__.py").read_text())
    (root / "studies").mkdir()
    (root / "studies" / "__init__.py").write_text("")
    (root / "studies" / "marker.py").write_text("WHERE = 'this checkout'\n")
    return root


@pytest.mark.parametrize("site", [True, False], ids=["with-site", "no-site"])
def test_a_checkout_takes_its_own_studies(tmp_path, site):
    """README's first command runs ``python -m simstudy`` in the repository after a plain
    ``pip install .``: the checkout's simstudy shadows the installed one, and its studies must
    come from the same checkout (before: 'unknown study', as simstudy.studies was not found;
    with an editable install of another checkout they came from that one)."""
    root = _checkout(tmp_path)
    code = ("import simstudy.studies as s, simstudy.studies.marker as m; "
            "print(s.__file__); print(m.WHERE)")
    cmd = [sys.executable, *([] if site else ["-S"]), "-c", code]
    r = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    where, marker = r.stdout.splitlines()
    assert Path(where) == root / "studies" / "__init__.py" and marker == "this checkout"
