"""How much the BLAS kernel moves the predictions of the nmc and ls learners: the same
folds of the data sets their shipped trials use (multitest's for nmc, gaussian's for ls),
predicted under OpenBLAS's own kernel for this CPU and under older ones forced with
OPENBLAS_CORETYPE; the largest share of a fold's test instances whose prediction changed.

    python scripts/sweeps/blas_kernels.py [--folds 40] [--out figures/sweeps/blas-kernels.csv]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
KERNELS = ("", "Sandybridge", "Prescott")  # "": what OpenBLAS picks for this CPU


def predict(out: Path, folds: int) -> None:
    """In a process of one kernel: every (learner, source) pair's predictions."""
    from threadpoolctl import threadpool_info

    import simstudy as ss

    kernel = ";".join(f"{i['internal_api']} {i.get('architecture')}" for i in threadpool_info()
                      if i.get("user_api") == "blas")
    arrays = {"kernel": np.array(kernel)}
    for learner, study in (("nmc", "multitest"), ("ls", "gaussian")):
        sources = sorted({c.source for c in ss.get_study(study).cells if learner in c.learners})
        for name in sources:
            rng = np.random.default_rng(20261129)
            d = ss.get_source(name).sample(rng)
            X = d.X if d.X_test is None else np.vstack([d.X, d.X_test])
            y = d.y if d.y_test is None else np.concatenate([d.y, d.y_test])
            n = len(y)
            train = np.zeros((folds, n), bool)
            for b in range(folds):
                train[b, rng.permutation(n)[: n // 2]] = True
            pred = ss.get_learner(learner).fit_predict(X, y, train, ~train)
            arrays[f"{learner}|{name}|pred"] = pred
            arrays[f"{learner}|{name}|test"] = ~train
    np.savez(out, **arrays)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--folds", type=int, default=40)
    ap.add_argument("--out", default=str(ROOT / "figures" / "sweeps" / "blas-kernels.csv"))
    ap.add_argument("--predict", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.predict:
        predict(Path(a.predict), a.folds)
        return 0
    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        got = {}
        for k in KERNELS:
            f = Path(tmp) / f"{k or 'native'}.npz"
            env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_CORETYPE": k}
            subprocess.run([sys.executable, __file__, "--predict", str(f), "--folds",
                            str(a.folds)], env=env, check=True)
            with np.load(f) as z:
                got[k] = {key: z[key] for key in z.files}
    base = got[""]
    rows = []
    for k in KERNELS[1:]:
        for key in base:
            if not key.endswith("|pred"):
                continue
            learner, source, _ = key.split("|")
            test = base[f"{learner}|{source}|test"]
            moved = ((got[k][key] != base[key]) & test).sum(axis=1)
            n_test = test.sum(axis=1)
            rows.append({"learner": learner, "source": source, "kernel": str(got[k]["kernel"]),
                         "native": str(base["kernel"]), "folds": len(moved),
                         "folds_changed": int((moved > 0).sum()),
                         "max_instances_changed": int(moved.max()),
                         "max_share": float((moved / n_test).max())})
    t = pd.DataFrame(rows)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    t.to_csv(a.out, index=False)
    for learner, g in t.groupby("learner"):
        print(f"{learner}: {g['folds_changed'].sum()} of {g['folds'].sum()} folds changed, "
              f"largest share {g['max_share'].max():.4f} of a fold's test instances")
    return 0


if __name__ == "__main__":
    sys.exit(main())
