"""The result store: one SQLite file, one row per finished trial.

Why SQLite: it ships with Python (nothing to install), a whole file is one portable
artifact, and its transactions are atomic and durable, so a run killed with SIGKILL leaves
every committed trial intact and nothing half-written (an interrupted transaction is rolled
back when the file is next opened).  Only the main process writes; workers return results.
Each work unit (a chunk of a cell's runs) is committed in one transaction as it finishes.

Tables
------
``trials``  (cell, seed, run) -> trial seed, learners, design, source, fold error rates
            (K x R x F, JSON), n_train / n_test (R x F, JSON), seconds, time, version
``results`` (cell, seed, run, test, a, b) -> statistic, pvalue, df, reject at the cell alpha
``runs``    one row per invocation: study, arguments, version, host, start / end time
"""

from __future__ import annotations

import json
import os
import platform
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from . import __version__
from .core import FoldLosses
from .errors import SimstudyError

DEFAULT_STORE = "simstudy-store.sqlite"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS trials (
    cell TEXT NOT NULL, seed INTEGER NOT NULL, run INTEGER NOT NULL,
    study TEXT, source TEXT, learners TEXT, design TEXT,
    trial_seed TEXT, errors TEXT NOT NULL, n_train TEXT NOT NULL, n_test TEXT NOT NULL,
    seconds REAL, created REAL, version TEXT,
    PRIMARY KEY (cell, seed, run)
);
CREATE TABLE IF NOT EXISTS results (
    cell TEXT NOT NULL, seed INTEGER NOT NULL, run INTEGER NOT NULL,
    test TEXT NOT NULL, a INTEGER NOT NULL, b INTEGER NOT NULL,
    statistic REAL, pvalue REAL, df TEXT, alpha REAL, reject INTEGER,
    PRIMARY KEY (cell, seed, run, test, a, b)
);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT, study TEXT, args TEXT, version TEXT,
    host TEXT, started REAL, finished REAL, trials_done INTEGER
);
"""


@dataclass
class TrialRecord:
    """What one finished trial leaves in the store."""

    cell: str
    seed: int
    run: int
    study: str
    source: str
    learners: tuple[str, ...]
    design: str
    trial_seed: str
    losses: FoldLosses
    results: list[tuple[str, int, int, float, float, object, float, bool]]
    seconds: float


def _float_or_none(x: float) -> float | None:
    x = float(x)
    return None if np.isnan(x) else x  # SQLite stores NaN as NULL anyway; make it explicit


class Store:
    """An open result store (a SQLite file)."""

    def __init__(self, path: str | os.PathLike, *, create: bool = True) -> None:
        self.path = Path(path)
        if self.path.exists() and self.path.is_dir():
            raise SimstudyError(f"store path {str(self.path)!r} is a directory, not a file")
        if not create and not self.path.exists():
            raise SimstudyError(
                f"store {str(self.path)!r} does not exist; run a study first "
                f"(python -m simstudy run STUDY --store {self.path})"
            )
        if create and not self.path.parent.exists():
            raise SimstudyError(f"store directory {str(self.path.parent)!r} does not exist")
        try:
            self.con = sqlite3.connect(self.path, timeout=60)
            self.con.execute("PRAGMA journal_mode=WAL")
            self.con.execute("PRAGMA synchronous=NORMAL")
            self.con.executescript(_SCHEMA)
        except sqlite3.DatabaseError as e:
            raise SimstudyError(f"{str(self.path)!r} is not a simstudy store ({e})") from None

    def close(self) -> None:
        self.con.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- writing -------------------------------------------------------------------------
    def write(self, records: Iterable[TrialRecord]) -> int:
        """Write a work unit's trials in one transaction (all or nothing)."""
        now = time.time()
        records = list(records)
        with self.con:  # commits, or rolls back on error
            for r in records:
                self.con.execute(
                    "INSERT OR REPLACE INTO trials VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        r.cell, r.seed, r.run, r.study, r.source, "~".join(r.learners), r.design,
                        r.trial_seed,
                        json.dumps(r.losses.errors.tolist()),
                        json.dumps(r.losses.n_train.tolist()),
                        json.dumps(r.losses.n_test.tolist()),
                        r.seconds, now, __version__,
                    ),
                )
                self.con.executemany(
                    "INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                    [
                        (r.cell, r.seed, r.run, test, a, b, _float_or_none(stat),
                         float(p), json.dumps(df), alpha, int(rej))
                        for (test, a, b, stat, p, df, alpha, rej) in r.results
                    ],
                )
        return len(records)

    def start_run(self, study: str, args: dict) -> int:
        with self.con:
            cur = self.con.execute(
                "INSERT INTO runs (study, args, version, host, started, trials_done) "
                "VALUES (?,?,?,?,?,0)",
                (study, json.dumps(args, default=str), __version__, platform.node(), time.time()),
            )
        return int(cur.lastrowid)

    def finish_run(self, run_id: int, trials_done: int) -> None:
        with self.con:
            self.con.execute(
                "UPDATE runs SET finished=?, trials_done=? WHERE id=?",
                (time.time(), trials_done, run_id),
            )

    # --- reading -------------------------------------------------------------------------
    def done_runs(self, cell: str, seed: int) -> set[int]:
        rows = self.con.execute(
            "SELECT run FROM trials WHERE cell=? AND seed=?", (cell, seed)
        ).fetchall()
        return {int(r[0]) for r in rows}

    def count(self) -> int:
        return int(self.con.execute("SELECT COUNT(*) FROM trials").fetchone()[0])

    def trials(self, cells: list[str] | None = None, seed: int | None = None,
               runs: int | None = None) -> pd.DataFrame:
        """Trials as a DataFrame with decoded arrays (errors K x R x F, n_train, n_test)."""
        df = self._select("trials", cells, seed, runs)
        for col in ("errors", "n_train", "n_test"):
            df[col] = [np.asarray(json.loads(v), dtype=float) for v in df[col]]
        return df

    def results(self, cells: list[str] | None = None, seed: int | None = None,
                runs: int | None = None) -> pd.DataFrame:
        df = self._select("results", cells, seed, runs)
        df["statistic"] = df["statistic"].astype(float)
        return df

    def _select(self, table: str, cells, seed, runs) -> pd.DataFrame:
        q, args = f"SELECT * FROM {table} WHERE 1=1", []
        if seed is not None:
            q += " AND seed=?"
            args.append(int(seed))
        if runs is not None:
            q += " AND run<?"
            args.append(int(runs))
        df = pd.read_sql_query(q, self.con, params=args)
        if cells is not None:
            df = df[df["cell"].isin(list(cells))].reset_index(drop=True)
        return df.sort_values(["cell", "run"], kind="stable").reset_index(drop=True)

    def runs_log(self) -> pd.DataFrame:
        return pd.read_sql_query("SELECT * FROM runs ORDER BY id", self.con)
