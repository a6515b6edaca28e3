"""Time to first result: what the commands import, which learner families a study loads,
what a filtered run renders, the progress bar's cost units."""

from __future__ import annotations

import subprocess
import sys

import pytest

from simstudy.cli import main


def _imports(code: str) -> set[str]:
    """The top-level modules a fresh interpreter holds after running ``code``."""
    probe = (f"import sys, io, contextlib\n{code}\n"
             "print(' '.join(sorted({m.split('.')[0] for m in sys.modules} | "
             "{m for m in sys.modules if m.startswith('simstudy.learners.')})))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    return set(out.stdout.split())


def test_list_and_help_import_no_learner_kernels_and_no_scikit_learn() -> None:
    quiet = "with contextlib.redirect_stdout(io.StringIO()):\n    main([{}])"
    for args in ("'list'", "'--help'", "'run', '--help'"):
        code = "from simstudy.cli import main\ntry:\n" + "\n".join(
            "    " + ln for ln in quiet.format(args).splitlines()) + "\nexcept SystemExit:\n    pass"
        mods = _imports(code)
        assert not mods & {"sklearn", "numba", "matplotlib", "joblib"}, (args, mods)
        assert not any(m.startswith("simstudy.learners.") and m != "simstudy.learners.registry"
                       and m != "simstudy.learners.base" for m in mods), (args, mods)


def test_a_learner_loads_its_own_family_only() -> None:
    mods = _imports("from simstudy.learners import get_learner\nget_learner('wnb')")
    assert "simstudy.learners.weka.nb" in mods and "sklearn" not in mods
    assert not {"simstudy.learners.neural", "simstudy.learners.svm",
                "simstudy.learners.linear"} & mods
    # the reference path still is a learner of its own, with scikit-learn
    mods = _imports("from simstudy.learners import get_learner\nget_learner('nmc@sklearn')")
    assert "sklearn" in mods


def test_list_names_every_learner_without_importing_it() -> None:
    from simstudy.learners import registry

    rows = dict(registry.describe_learners())
    assert {"nmc", "wnb", "j48", "ib1", "mlp-<h>", "lp", "lgc", "rt"} <= set(rows)
    assert rows["wnb"].startswith("Weka 3.6.14 NaiveBayes")


def test_scan_reads_literal_registrations_only() -> None:
    from simstudy.learners.registry import _scan

    text = ('@register_learner("a", description="first (one) line "\n    "continued")\n'
            "class A: ...\n"
            'register_learner("b-{h}", params={"x"}, description="b", variants=("x=1",))(B)\n'
            '    """a docstring naming register_learner( is no call"""\n')
    assert _scan(text) == [("a", "first (one) line continued", ()), ("b-{h}", "b", ("x=1",))]
    assert _scan("register_learner(NAME, description='x')(f)\n") is None  # imported instead


def test_no_render_writes_nothing_and_a_filtered_run_its_cells_only(tmp_path, capsys,
                                                                     monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # where out/demo would go
    store = str(tmp_path / "s.sqlite")
    assert main(["run", "demo", "--filter", "iris/max", "--runs", "2", "--store", store,
                 "--no-render", "--no-progress"]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.sqlite"]
    out = tmp_path / "o"
    assert main(["run", "demo", "--filter", "iris/max", "--runs", "2", "--store", store,
                 "--out", str(out), "--no-progress"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["cells.csv", "cells.md", "cells.tex"]
    printed = capsys.readouterr().out
    assert "covers 1 of 6 cells" in printed and "report demo --format html" in printed
    assert "iris/max~nmc/5x2" in (out / "cells.md").read_text()
    assert main(["run", "demo", "--runs", "2", "--store", store, "--no-render",
                 "--out", str(out)]) == 2  # nothing is written: --out is a mistake
    assert "--no-render" in capsys.readouterr().err


def test_a_filtered_run_renders_the_study_when_asked(tmp_path) -> None:
    import simstudy as ss

    store, out = str(tmp_path / "s.sqlite"), tmp_path / "o"
    r = ss.run("demo", runs=2, store=store, filter="iris/max", out=out, render="study",
               progress=False)
    assert sorted(p.name for p in r.paths) == ["demo.csv", "demo.md", "demo.tex",
                                               "report.html"] and not r.notes
    # the facade's default is the command line's: a filtered run writes its cells' table
    r = ss.run("demo", runs=2, store=store, filter="iris/max", out=out, progress=False)
    assert [p.name for p in r.paths] == ["cells.md", "cells.csv", "cells.tex"]
    assert "covers 1 of 6 cells" in r.notes[0]
    # a whole study renders itself unless told otherwise
    r = ss.run("demo", runs=1, store=store, out=tmp_path / "w", progress=False)
    assert "report.html" in {p.name for p in r.paths} and not r.notes
    r = ss.run("demo", runs=1, store=store, out=tmp_path / "c", render="cells",
               progress=False)
    assert [p.name for p in r.paths] == ["cells.md", "cells.csv", "cells.tex"]
    with pytest.raises(ss.SimstudyError, match="render must be one of 'study', 'cells', "
                                                "'none', got 'everything'"):
        ss.run("demo", runs=1, store=store, render="everything", progress=False)
    with pytest.raises(ss.SimstudyError, match=r"render 'none' \(--no-render\) writes nothing; drop out "):
        ss.run("demo", runs=1, store=store, render="none", out=out, progress=False)


def test_progress_counts_cost_units(tmp_path) -> None:
    from simstudy.api import resolve
    from simstudy.planning import make_plan
    from simstudy.progress import Progress, cold_kernels
    from simstudy.store import Store
    from simstudy.trialdata import learner_of

    study = resolve("demo", runs=2)
    with Store(tmp_path / "s.sqlite") as st:
        plan = make_plan(study, st)
        per, measured = plan.costs
        assert not measured and len(per) == 6
        # wine (178 x 13) costs more per trial than iris (150 x 4), by its shape
        assert per["wine/nmc~1nn/5x2"] > per["iris/nmc~1nn/5x2"]
        assert cold_kernels([learner_of("max"), learner_of("nmc")]) == []  # no numba kernels
        with Progress(plan, enabled=False) as bar:
            bar.update([object()] * 2)
        assert bar.trials == 2 and bar.bar is None


@pytest.mark.parametrize("stored_before", [False, True])
def test_progress_bar_reaches_the_whole_study(tmp_path, capsys, stored_before) -> None:
    """The bar ends at 100 % and names the trials, whatever was stored before."""
    import simstudy as ss

    store = str(tmp_path / "s.sqlite")
    if stored_before:
        ss.run("demo", runs=1, store=store, progress=False)
    ss.run("demo", runs=2, store=store, backend="serial")
    err = capsys.readouterr().err
    assert "100%" in err and "12/12 trials" in err
