"""The command line: the user's commands, and one clear line for every bad input."""

import io
import os
import subprocess
import sys

import pandas as pd
import pytest
from scipy.stats import binomtest

from simstudy.cli import main


def run_cli(*args, cwd=None):
    r = subprocess.run([sys.executable, "-m", "simstudy", *args], capture_output=True,
                       text=True, cwd=cwd, timeout=300)
    return r.returncode, r.stdout, r.stderr


def test_help():
    rc, out, _ = run_cli("--help")
    assert rc == 0 and "run" in out and "bench" in out


def test_list_names_everything():
    rc, out, _ = run_cli("list")
    assert rc == 0
    for word in ("demo", "t5x2cv", "F5x2cv", "nmc", "mlp-", "5x2", "iris"):
        assert word in out


@pytest.mark.parametrize("args, needle", [
    (["nosuchstudy"], "'nosuchstudy'"),
    (["run", "nosuchstudy"], "valid choices"),
    (["demo", "--runs", "0"], "'0'"),
    (["demo", "--runs", "-3"], "'-3'"),
    (["demo", "--alpha", "1.5"], "'1.5'"),
    (["demo", "--alpha", "0"], "'0'"),
    (["demo", "--seed", "-3"], "'-3'"),
    (["demo", "--seed", "x"], "'x'"),
    (["demo", "--seed", str(2**63)], repr(str(2**63))),
    (["demo", "--out", "afile/sub"], "'afile/sub'"),
    (["demo", "--out", "afile"], "'afile'"),
    (["perf", "--bogus"], "--bogus"),
    (["perf", "--json", "nodir/x.json"], "'nodir/x.json'"),
    (["bench", "--test", "nocolon", "--study", "demo", "--seed", "-1"], "'-1'"),
    (["demo", "--backend", "spark"], "spark"),
    (["demo", "--filter", "nomatch"], "'nomatch'"),
    (["demo", "--scheduler", "tcp://127.0.0.1:1"], "--backend dask"),
    (["report", "demo", "--store", "/nonexistent/dir/x.sqlite"], "does not exist"),
    (["report", "demo", "--format", "xls"], "xls"),
    (["report", "demo", "--confidence", "95"], "'95'"),
    (["report", "demo", "--confidence", "high"], "'high'"),
    (["bench", "--test", "nosuchmodule:f", "--study", "demo"], "'nosuchmodule'"),
    (["bench", "--test", "nocolon", "--study", "demo"], "'nocolon'"),
])
def test_bad_input_is_one_line_exit_2(args, needle, tmp_path):
    (tmp_path / "afile").write_text("a file where --out wants a directory")
    rc, out, err = run_cli(*args, cwd=tmp_path)
    assert rc == 2, (out, err)
    lines = [ln for ln in err.strip().splitlines() if ln.strip()]
    assert len(lines) == 1, err
    assert needle in lines[0] and "Traceback" not in err
    # nothing half-written: a failed validation creates no store
    assert not (tmp_path / "simstudy-store.sqlite").exists()


def test_store_that_is_not_sqlite(tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_text("this is not a database")
    rc, _, err = run_cli("report", "demo", "--store", str(bad))
    assert rc == 2 and str(bad) in err and len(err.strip().splitlines()) == 1


def test_run_report_bench_round_trip(tmp_path, capsys):
    store = str(tmp_path / "s.sqlite")
    assert main(["demo", "--runs", "4", "--store", store, "--out", str(tmp_path / "out"),
                 "--no-progress", "--backend", "serial"]) == 0
    out = capsys.readouterr().out
    assert "24 trials computed" in out and (tmp_path / "out" / "demo.md").exists()
    assert main(["report", "demo", "--runs", "4", "--store", store, "--format", "csv"]) == 0
    csv = capsys.readouterr().out.splitlines()
    assert csv[0].startswith("cell,test,rejects,runs,proportion,ci_low,ci_high")
    assert len(csv) == 1 + 6 * 2
    # --confidence 0.99: the same rows, scipy's 99 % Wilson intervals
    assert main(["report", "demo", "--runs", "4", "--store", store, "--format", "csv",
                 "--confidence", "0.99"]) == 0
    t95 = pd.read_csv(io.StringIO("\n".join(csv)))
    t99 = pd.read_csv(io.StringIO(capsys.readouterr().out))
    assert (t99["rejects"] == t95["rejects"]).all() and len(t99) == len(t95)
    for _, r in t99.iterrows():
        ci = binomtest(int(r["rejects"]), int(r["runs"])).proportion_ci(0.99, "wilson")
        assert (r["ci_low"], r["ci_high"]) == pytest.approx((ci.low, ci.high), rel=1e-4)
    assert (t99["ci_high"] - t99["ci_low"] > t95["ci_high"] - t95["ci_low"]).all()
    mod = tmp_path / "mytest.py"
    mod.write_text("from simstudy.stats import ftest_5x2cv\n"
                   "def f(d, *, n_train, n_test):\n    return ftest_5x2cv(d)\n")
    assert main(["bench", "--test", f"{mod}:f", "--study", "demo", "--runs", "4",
                 "--store", store]) == 0
    out = capsys.readouterr().out
    header = next(ln for ln in out.splitlines() if ln.startswith("| cell |"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert cols == ["cell", "t5x2cv", "F5x2cv", "f"]  # baselines first, the new test last
    rows = [ln for ln in out.splitlines() if ln.startswith("| demo") or ln.startswith("| iris")
            or ln.startswith("| wine")]
    assert len(rows) == 6
    for ln in rows:  # f is the combined F under another name: same proportions
        v = [c.strip() for c in ln.strip("|").split("|")]
        assert v[2] == v[3]


STUDY_FILE = """
from simstudy.study import Study, cells

def build():
    return Study("mine", cells({sources}, [{learners}], [{design}], [{tests}]), runs=2)
"""


@pytest.mark.parametrize("sources, learners, design, tests, needle", [
    ("['iris']", "('nmc', 'nosuchlearner')", "'5x2'", "'t5x2cv'", "'nosuchlearner'"),
    ("['nosuchdata']", "('nmc', '1nn')", "'5x2'", "'t5x2cv'", "'nosuchdata'"),
    ("['iris']", "('nmc', '1nn')", "'7x7x7'", "'t5x2cv'", "'7x7x7'"),
    ("['iris']", "('nmc', '1nn')", "'5x2'", "'nosuchtest'", "'nosuchtest'"),
    ("['iris']", "('nmc', '1nn')", "'b3x2'", "'F5x2cv'", "'F5x2cv'"),
    ("['gauss[n=6]']", "('nmc', '1nn')", "'10x10cv'", "'corrected-rxk-t'", "n=6"),
])
def test_user_study_file_with_bad_names(tmp_path, sources, learners, design, tests, needle):
    f = tmp_path / "mystudy.py"
    f.write_text(STUDY_FILE.format(sources=sources, learners=learners, design=design, tests=tests))
    rc, out, err = run_cli("run", str(f), cwd=tmp_path)
    assert rc == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0] and "Traceback" not in err, err
    assert "valid choices" in lines[0] or "fit" in lines[0] or "n=" in lines[0]
    assert not (tmp_path / "simstudy-store.sqlite").exists()


def test_user_study_file_runs(tmp_path):
    f = tmp_path / "mystudy.py"
    f.write_text(STUDY_FILE.format(sources="['iris']", learners="('nmc', '1nn')",
                                   design="'5x2'", tests="'t5x2cv', 'F5x2cv'"))
    rc, out, err = run_cli("run", str(f), "--no-progress", cwd=tmp_path)
    assert rc == 0, err
    assert "2 trials computed" in out
    # a study without a renderer: its page shows the reject table at the level asked for
    rc, out, err = run_cli("report", str(f), "--format", "html", "--confidence", "0.99",
                           "--out", "page", cwd=tmp_path)
    assert rc == 0, err
    html = (tmp_path / "page" / "report.html").read_text(encoding="utf-8")
    assert "Wilson 99 % interval" in html and "Wilson 95 %" not in html


@pytest.mark.parametrize("address", ["foo"])
def test_bad_dask_scheduler_is_one_line(address, tmp_path):
    # a malformed address is a ValueError in distributed (an unreachable one an OSError after
    # the 20 s connect timeout, too slow for the suite); both are one line
    rc, out, err = run_cli("demo", "--runs", "2", "--backend", "dask", "--scheduler", address,
                           cwd=tmp_path)
    assert rc == 2, (out, err)
    assert "Traceback" not in err and f"cannot reach Dask scheduler {address!r}" in err


@pytest.mark.parametrize("script, args, needle", [
    ("yildiz2006_encodings.py", ["--sets", "nosuch"], "'nosuch'"),
    ("alpaydin1999_calibration.py", ["--runs", "0"], "got '0'"),
])
def test_scripts_give_one_line_errors(script, args, needle, tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    r = subprocess.run([sys.executable, os.path.join(root, "scripts", script), *args],
                       capture_output=True, text=True, cwd=tmp_path, timeout=300)
    lines = [ln for ln in r.stderr.strip().splitlines() if ln.strip()]
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert needle in lines[0]


@pytest.mark.parametrize("module", ["simstudy.cli", "simstudy.cli.args",
                                    "simstudy.perf.learners", "simstudy.perf.card",
                                    "simstudy.perf.cluster", "simstudy.perf.startup",
                                    "simstudy.perf.weka_peer"])
def test_docstring_examples_run(module):
    """The argparse adapter's examples, and the benchmarks' checks before they measure."""
    import doctest
    import importlib

    res = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert res.failed == 0 and res.attempted > 0


def test_every_command_has_its_module_or_is_here():
    """Each command name parses, and one defined in a module of its own has its cmd_NAME."""
    import importlib

    from simstudy.cli import _STUDY_COMMANDS, COMMANDS, build_parser

    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) == set(COMMANDS)
    for name in set(COMMANDS) - set(_STUDY_COMMANDS):
        assert callable(getattr(importlib.import_module(f"simstudy.cli.{name}"), f"cmd_{name}"))
