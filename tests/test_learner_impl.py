"""The implementation id recorded with every trial is declared by each learner class, so it
does not follow a module's move or rename, and it equals what the shipped trials record."""

from __future__ import annotations

import importlib
import json
import pkgutil
import re
from pathlib import Path

import simstudy.learners as learners_pkg
from simstudy.learners import Learner, get_learner
from simstudy.provenance import learner_impl

ROOT = Path(__file__).resolve().parents[1]


def _learner_classes() -> list[type]:
    for m in pkgutil.walk_packages(learners_pkg.__path__, "simstudy.learners."):
        importlib.import_module(m.name)
    seen, todo = [], [Learner]
    while todo:
        for sub in todo.pop().__subclasses__():
            if sub not in seen:
                seen.append(sub)
                todo.append(sub)
    return [c for c in seen if c.__module__.startswith("simstudy.")]


def test_every_concrete_learner_class_declares_its_own_id():
    # a class that fits (not an abstract base: those are named with a leading underscore,
    # or are the batched base) declares impl_id in its own body
    missing = [c.__qualname__ for c in _learner_classes()
               if not c.__name__.startswith("_") and c.__name__ != "FastLearner"
               and "impl_id" not in c.__dict__]
    assert missing == []


def test_ids_are_what_the_shipped_trials_record():
    recorded = set()
    for man in sorted((ROOT / "figures").glob("*/trials/manifest.json")):
        recorded |= set(re.findall(r"simstudy\.learners[\w.]*:\w+", man.read_text()))
    assert len(recorded) >= 10
    declared = {c.__dict__["impl_id"] for c in _learner_classes() if "impl_id" in c.__dict__}
    assert recorded - declared == set()


def test_a_moved_class_keeps_its_id_and_a_users_class_gets_its_path():
    nmc = get_learner("nmc")
    before = learner_impl(nmc)
    cls = type(nmc)
    old = cls.__module__
    try:
        cls.__module__ = "somewhere.else"
        assert learner_impl(nmc) == before == "simstudy.learners.linear:FastNMC"
    finally:
        cls.__module__ = old

    class Mine(type(nmc)):  # a user's subclass does not inherit the parent's id
        pass

    assert learner_impl(Mine()) == f"{__name__}:{Mine.__qualname__}"
    ref = get_learner("nmc", reference=True)
    assert learner_impl(ref) == "simstudy.learners.registry:ReferenceOf(FastNMC)"
    assert json.dumps(learner_impl(ref))  # a plain string, stored as JSON
