"""A store written by the previous version resumes with zero recomputed trials.

The fixtures were written by the code of commit c5faa3d (``tests/fixtures/README.md``):
every catalog study's cell ids and trial seeds (``old_plans.json``) and a small store of
cheap cells (``old_store.sqlite``).  The current code must plan the same cells with the same
seeds, and find every stored trial of that store done.  Results stamped with another
``stats_version`` (the statistics code moved or changed) are recomputed from the stored
fold losses -- no learner is fitted -- and must come out identical to the stored ones.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sqlite3
from pathlib import Path

import pytest

FIX = Path(__file__).parent / "fixtures"


def _maker():
    spec = importlib.util.spec_from_file_location("_make_old_store", FIX / "make_old_store.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


OLD_PLANS = json.loads((FIX / "old_plans.json").read_text())
OLD_STORE = json.loads((FIX / "old_store_cells.json").read_text())


def test_fixtures_come_from_the_previous_version():
    assert OLD_PLANS["commit"] == OLD_STORE["commit"] == "c5faa3d"
    assert sum(len(s["cells"]) for s in OLD_PLANS["studies"].values()) == 1416


# Deliberate renames since c5faa3d: old learner spec -> new one inside cell ids, with the
# number of cells renamed.  A renamed cell's seeds derive from its new id, so only its place,
# new id and tests are compared.  gaussian-paper's "AB = old-default gbm" cells
# moved from scikit-learn's GradientBoostingClassifier to simstudy.learners.gbm (nothing was
# stored under the old ids).
RENAMED = {
    "sklearn.ensemble:GradientBoostingClassifier[learning_rate=0.001,max_depth=1,"
    "min_samples_leaf=10,n_estimators=100,subsample=0.5]":
    ("gbm[bag_fraction=0.5,interaction_depth=1,n_minobsinnode=10,n_trees=100,"
     "shrinkage=0.001]", 48),
}


#: the replicability studies read their sets as Weka reads its ARFF files (declared nominal
#: domains and class order), all but heart-h, which has no declaration: 26 of 27 sets
DECLARED = {"replicability": 26 * 9, "replicability-strat": 26 * 8}


def _renamed(cell: dict, study: str = "") -> tuple[dict, bool]:
    cid = cell["id"]
    for was, (now, _) in RENAMED.items():
        cid = cid.replace(was, now)
    source, rest = cid.split("/", 1)
    if study in DECLARED and source != "heart-h":
        cid = f"{source}[domains=declared]/{rest}"
    return ({**cell, "id": cid}, cid != cell["id"])


def test_every_study_plans_the_same_cells_and_seeds():
    from simstudy.catalog import STUDIES

    old = OLD_PLANS["studies"]
    assert set(old) - {"csv"} <= set(STUDIES)  # no study lost
    studies, cells = _maker().plan_studies(sorted(old))
    n_renamed = 0
    for name, settings in old.items():
        want = {k: v for k, v in settings.items() if k != "cells"}
        assert studies[name] == want, name
        was = [_renamed(c, name) for c in settings["cells"]]
        assert [c["id"] for c in cells[name]] == [c["id"] for c, _ in was], name
        for now, (then, renamed) in zip(cells[name], was, strict=True):
            n_renamed += renamed
            if renamed:
                assert now["tests"] == then["tests"], (name, now["id"])
            else:
                assert now == then, (name, now["id"])  # tests and seeds, cell by cell
    assert n_renamed == sum(k for _, k in RENAMED.values()) + sum(DECLARED.values())


def _results(path: Path) -> dict:
    con = sqlite3.connect(path)
    rows = con.execute("SELECT cell, seed, run, test, a, b, statistic, pvalue, df, alpha, reject, "
                       "extra, stats_version FROM results").fetchall()
    con.close()
    return {r[:6]: r[6:] for r in rows}


@pytest.fixture
def old_store(tmp_path) -> Path:
    p = tmp_path / "old.sqlite"
    shutil.copyfile(FIX / "old_store.sqlite", p)
    return p


def test_old_store_resumes_without_fitting(old_store, monkeypatch):
    from simstudy import runner
    from simstudy.planning import make_plan
    from simstudy.store import Store, stats_version

    def no_fit(chunk):  # pragma: no cover - reached only if a trial were planned
        raise AssertionError(f"a trial was recomputed: {chunk.cell.id} runs {chunk.runs}")

    monkeypatch.setattr(runner, "compute_chunk", no_fit)
    maker = _maker()
    before = _results(old_store)
    changed = OLD_STORE["stats_version"] != stats_version()
    n_trials = n_results = 0
    # the replicability studies now read their sets as Weka declares them: an old trial of
    # theirs is of the other reading, stays under its old id and is not resumed from
    apart = {p["cells"][0] for p in OLD_STORE["parts"] if p["study"] in DECLARED}
    with Store(old_store) as st:
        for part in OLD_STORE["parts"]:
            if part["study"] in DECLARED:
                continue
            study = maker._get(part["study"], part["runs"], part["filter"]).keyed()
            assert [c.id for c in study.cells] == part["cells"], part["study"]
            assert study.seed == part["seed"]
            p = make_plan(study, st)
            total = p.total
            assert p.chunks == () and p.done_before == total == part["runs"] * len(part["cells"])
            if changed:  # every stored trial's results, once, from the stored losses
                assert sum(len(runs) for _, runs, _ in p.results) == total
            else:
                assert p.results == ()
            s = runner.run_study(p, st, backend="serial", progress=False)
            assert s.trials_computed == 0 and s.trials_done_before == total
            n_trials += total
            n_results += s.results_recomputed
            # a second resume has nothing left to do
            assert make_plan(p, st).results == ()
    after = _results(old_store)
    assert n_trials == 44 - len(apart)
    assert set(after) == set(before)
    kept = {k for k in before if k[0] in apart}
    assert kept and all(after[k] == before[k] for k in kept)  # untouched, old stamp and all
    assert n_results == (len(before) - len(kept) if changed else 0)
    for key, old in before.items():
        if key in kept:
            continue
        new = after[key]
        assert new[:-1] == old[:-1], key  # statistic (a choice: the best), p, df, alpha, extra
        assert new[-1] == stats_version()
