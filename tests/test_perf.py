"""Smoke test of the benchmark: a tiny run returns entries with the required keys."""

from __future__ import annotations

import json

from simstudy.perf import KEYS, main, run_perf


def test_tiny_run_has_required_keys(tmp_path) -> None:
    path = tmp_path / "perf.json"
    out = run_perf(quick=True, json_path=path, only=["max", "nmc"], datasets=["iris"], runs=1, memory=False, echo=False)
    assert [e["name"] for e in out] == ["max", "nmc"]
    for e in out:
        assert set(KEYS) <= set(e)
        assert e["n_models"] == 10 and e["dataset"] == "iris"
        assert e["fast_s"] > 0 and e["reference_s"] > 0
        assert e["agree"] == 1.0
    assert json.loads(path.read_text())[0]["name"] == "max"


def test_cli_rejects_unknown_option(capsys) -> None:
    import pytest

    from simstudy.errors import SimstudyError

    # a SimstudyError, which `python -m simstudy perf` prints as one line (exit 2)
    with pytest.raises(SimstudyError, match="--nope"):
        main(["--nope"])
