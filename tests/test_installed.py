"""The instrument as a user meets it: one stated source of trials (a store is read only when
named), ``--version`` saying where the shipped trials come from, and a damaged shipped file
named with the command that checks them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simstudy import trials as T
from simstudy.catalog import get_study
from simstudy.cli import main
from simstudy.runner import run_study
from simstudy.store import DEFAULT_STORE, Store

ROOT = Path(__file__).resolve().parents[1]
POOLED = ROOT / "examples" / "pooled_t.py"
# the lines of card.md that carry wall times (they differ from run to run)
TIMING = re.compile(r"\d+(\.\d+)? s\b|seconds")


def _card_md(cwd: Path, out: Path, *extra: str) -> str:
    assert main(["card", "--test", f"{POOLED}:pooled_t", "--studies", "type1", "--runs", "5",
                 "--out", str(out), "--no-figures", *extra]) == 0
    return "\n".join(x for x in (out / "card.md").read_text().splitlines()
                     if not TIMING.search(x))


def test_a_store_in_the_current_folder_is_not_read_unless_named(tmp_path, monkeypatch, capsys):
    """README's order: command 1 leaves simstudy-store.sqlite here; the card after it must be
    the card of the shipped trials (before, it read type1 from that 10-run store and its
    verdict changed), and it says in one line that the store was not read."""
    monkeypatch.chdir(tmp_path)
    without = _card_md(tmp_path, tmp_path / "a")
    assert "no store given" not in capsys.readouterr().err
    with Store(tmp_path / DEFAULT_STORE) as s:  # what `simstudy type1 --runs 2` leaves here
        run_study(get_study("type1", runs=2).select("iris/mlp-3~mlp-3/5x2"), s,
                  backend="serial", progress=False)
    with_store = _card_md(tmp_path, tmp_path / "b")
    err = capsys.readouterr().err
    assert with_store == without
    notes = [x for x in err.splitlines() if DEFAULT_STORE in x]
    assert notes == [f"note: {DEFAULT_STORE} here is not read (a store is read only when "
                     f"named: --store {DEFAULT_STORE})"]
    # named, it is read: the card then holds 2 runs of the one stored cell
    named = _card_md(tmp_path, tmp_path / "c", "--store", DEFAULT_STORE)
    assert named != without


def test_the_python_card_reads_the_shipped_trials_wherever_it_is_called(tmp_path, monkeypatch):
    import simstudy as ss

    def t(d, *, n_train, n_test):
        return 0.0, 0.5

    monkeypatch.chdir(tmp_path)
    (tmp_path / DEFAULT_STORE).write_bytes(b"not even a store")  # never opened unless named
    c = ss.card(t, ["type1"], runs=2, progress=False)
    assert set(c.studies["read_from"]) == {T.ShippedTrials(T.shipped_dirs()["type1"]).describe()}


def test_the_default_card_reads_every_shipped_study():
    assert T.shipped_studies() == ["type1", "type2", "replicability", "ban", "gaussian",
                                   "wang-real", "multitest"]
    dirs = T.shipped_dirs()

    def trials(studies):
        return sum(json.loads((dirs[s] / "manifest.json").read_text())["trials"]
                   for s in studies)

    assert trials(T.shipped_studies()) == 1_465_290
    # the interval studies ship too; the interval card reads them, the test card does not
    assert T.shipped_studies(intervals=True) == ["ci-real", "ci-synthetic"]  # catalog order
    assert trials(T.shipped_studies(intervals=True)) == 45_000 + 50_000
    assert trials(dirs) == 1_560_290


def test_version_says_where_the_shipped_trials_come_from(capsys):
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    out = capsys.readouterr().out.splitlines()
    from simstudy import __version__

    assert out[0] == f"simstudy {__version__}"
    assert out[1].startswith("shipped trials: 1,560,290 of 9 studies (ban, ci-real, "
                             "ci-synthetic, gaussian, multitest, replicability, type1, "
                             "type2, wang-real) from the ")


def test_the_console_script_is_declared():
    import tomllib

    cfg = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert cfg["project"]["scripts"] == {"simstudy": "simstudy.cli:main"}


@pytest.fixture
def only_here(tmp_path, monkeypatch):
    """Shipped trials looked for in tmp_path alone (a copy of type1's), as in an install."""
    dest = tmp_path / "_shipped" / "type1" / "trials"
    shutil.copytree(T.shipped_dirs()["type1"], dest)
    monkeypatch.setattr(T, "trials_roots", lambda: [(tmp_path / "_shipped", "package")])
    return dest


@pytest.mark.parametrize("damage", ["delete", "corrupt", "manifest"])
def test_a_damaged_shipped_file_is_one_line_naming_it_and_verify(only_here, tmp_path, damage,
                                                                 capsys):
    f = only_here / ("manifest.json" if damage == "manifest" else "errors-00.npz")
    if damage in ("delete", "manifest"):
        f.unlink()
    else:
        b = bytearray(f.read_bytes())
        b[len(b) // 2] ^= 0xFF
        f.write_bytes(b)
    assert main(["card", "--test", f"{POOLED}:pooled_t", "--studies", "type1", "--runs", "2",
                 "--out", str(tmp_path / "o"), "--no-figures"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("simstudy: error: ")
    assert f.name in err and "simstudy trials verify" in err
    assert "ships no trials" not in err


def test_the_card_command_from_another_folder_needs_nothing_there(tmp_path):
    """README's card command, run from an empty folder (the shipped trials found through the
    package, not the working directory)."""
    r = subprocess.run([sys.executable, "-m", "simstudy", "card", "--test",
                        f"{POOLED}:pooled_t", "--studies", "type2", "--runs", "3",
                        "--no-figures", "--out", "o"], cwd=tmp_path, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert any(x.startswith("  type2: covered from shipped trials")
               for x in r.stdout.splitlines())
