"""Leases: runs that share one store split its work units instead of repeating them.

Every ``run`` claims a work unit in the store's ``leases`` table before computing it; a
concurrent run on the same store skips units another live run holds and takes the next
free one, then waits for the held ones to be stored.  A lease lasts :data:`LEASE_SECONDS`
and is renewed by a heartbeat thread while its run lives; a run killed with SIGKILL stops
renewing, and its units are taken over when the lease expires (at once when the holder was
a process on this host that no longer exists).

Leases only save work, they carry no correctness: a trial's numbers depend on its seeds
alone, so a unit computed twice (a paused run whose lease expired, two runs with different
``--chunk``) is written twice with the same numbers.  A claim checks, in the same write
transaction, which of the unit's runs are already stored, so a finished unit is never
recomputed.  SQLite's locking needs a local file system (not NFS): runs on several
machines use shards and ``merge`` instead.
"""

from __future__ import annotations

import os
import platform
import threading
import time
import uuid
from collections.abc import Callable
from typing import TYPE_CHECKING

from .liveness import process_gone

if TYPE_CHECKING:
    from .store import LeaseTable

LEASE_SECONDS = float(os.environ.get("SIMSTUDY_LEASE_SECONDS", "60"))

FREE, DONE, HELD = "free", "done", "held"


def _alive_here(owner: str) -> bool:
    """False only for an owner that was a process on this host and is gone."""
    parts = owner.split(":")
    if len(parts) < 3:
        return True
    try:
        return not process_gone(parts[0], int(parts[1]))
    except ValueError:
        return True


class Leases:
    """This run's leases on one store: claim, release, heartbeat.

    Uses its own connection to the store (:class:`simstudy.store.LeaseTable`, behind a
    lock), since joblib pulls the next work unit from a callback thread while the main
    thread writes trials.
    """

    def __init__(self, path: str | os.PathLike, run_id: int, ttl: float | None = None) -> None:
        from .store import LeaseTable

        self.ttl = float(LEASE_SECONDS if ttl is None else ttl)
        self.owner = f"{platform.node()}:{os.getpid()}:{run_id}:{uuid.uuid4().hex[:8]}"
        self.lock = threading.Lock()
        self.taken_over = 0  # units claimed from an expired or dead holder
        self._released: list[str] = []  # stored units whose lease goes with the next claim
        with self.lock:
            self.table = LeaseTable(path)
        self._stop = threading.Event()
        self._beat = threading.Thread(target=self._heartbeat, name="simstudy-lease-heartbeat",
                                      daemon=True)
        self._beat.start()

    def _heartbeat(self) -> None:
        while not self._stop.wait(self.ttl / 4):
            with self.lock:
                self.table.renew(self.owner, time.time() + self.ttl)

    def claim(self, unit: str, stored: Callable[[LeaseTable], set[int]],
              runs: tuple[int, ...]) -> tuple[str, tuple[int, ...]]:
        """Try to claim ``unit``; ``(FREE, runs still missing)``, ``(DONE, ())`` or
        ``(HELD, runs)`` when another live run holds it.  One write transaction, so a unit
        stored meanwhile by another run is seen as done: ``stored(table)`` reads the runs
        already stored inside it (e.g. :meth:`LeaseTable.stored_runs`)."""
        return self.claim_many([(unit, stored, runs)])[0]

    def claim_many(self, items: list[tuple[str, Callable[[LeaseTable], set[int]],
                                          tuple[int, ...]]]) -> list[tuple[str, tuple]]:
        """:meth:`claim` for several units in one write transaction (short units would
        otherwise spend more time taking the store's write lock than computing)."""
        out = []
        with self.lock, self.table.transaction() as t:
            if self._released:
                t.drop_many(self._released, self.owner)
                self._released.clear()
            now = time.time()
            for unit, stored, runs in items:
                have = stored(t)
                missing = tuple(r for r in runs if r not in have)
                if not missing:
                    t.drop(unit)
                    out.append((DONE, ()))
                    continue
                row = t.holder(unit)
                if row is not None and row[0] != self.owner:
                    if row[1] > now and _alive_here(row[0]):
                        out.append((HELD, runs))
                        continue
                    self.taken_over += 1
                t.put(unit, self.owner, now + self.ttl)
                out.append((FREE, missing))
        return out

    def release(self, unit: str) -> None:
        """``unit`` is stored: its lease is dropped with the next claim (one write
        transaction less per unit; a claim finds a stored unit done before it looks at
        leases, so a lingering lease holds no one up)."""
        with self.lock:
            self._released.append(unit)

    def close(self) -> None:
        """Stop the heartbeat and drop every lease this run still holds."""
        self._stop.set()
        self._beat.join(timeout=5)
        with self.lock:
            self.table.drop_owner(self.owner)
        self.table.close()
