"""Executing a run's work units: claims, backends, workers that never outlive the run.

:class:`Execution` is what :func:`simstudy.runner.run_study` iterates over.  It

* claims each work unit in the store's lease table before handing it to a worker
  (:mod:`.lease`), so concurrent runs on one store split the work, and waits at the end for
  units another live run holds (taking them over if that run dies);
* runs the units on the backend: in this process (``serial``), on local worker processes
  (``joblib``: forked from the run on Linux while numba has no threads in it, which saves
  each worker a fresh interpreter and its imports; else spawned by loky) or on a Dask
  cluster (``dask``);
* makes sure local workers end with the run however it ends: loky workers watch their
  parent and exit when it is gone (SIGKILL of the run included; loky's own idle timeout
  would keep them, and the run's stdout, alive for minutes), SIGTERM ends the run like
  Ctrl-C (status ``interrupted``), and Dask's local workers are the nanny's children;
* reports what a cluster did behind the run's back: workers that left while it ran, and
  units computed more than once because of that (:attr:`Execution.facts`, recorded in the
  invocation's ``args["execution"]`` and in the run's summary).  Retried units change no
  number -- each trial draws only from its own seeds -- but they cost time and say the
  cluster was unhealthy.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import signal
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator

from .blas import one_thread_for_good
from .errors import RunFailed, SimstudyError
from .lease import DONE, FREE, HELD, Leases
from .params import BACKENDS
from .shard import unit_id

_DASK_TOPIC = "simstudy-unit-start"
CLAIM_SECONDS = 0.5  # work claimed per lease transaction: few transactions, little held back
WORKER_DIED = ("a worker process died while computing (killed, or out of memory?); the "
               "trials finished before are stored: rerun the same command to resume")
POLL_FIRST = 0.02  # first wait (s) for units another run holds; doubles up to Execution.poll


class Terminated(KeyboardInterrupt):
    """SIGTERM during a run: ends it like Ctrl-C (workers stopped, status recorded)."""


@contextlib.contextmanager
def sigterm_interrupts() -> Iterator[None]:
    """While the block runs, SIGTERM raises :class:`Terminated` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise Terminated("terminated by SIGTERM")

    old = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _watch_parent(ppid: int, every: float = 0.5) -> None:
    """loky worker initializer: exit as soon as the run that started this worker is gone.

    loky workers block on a queue whose write end their siblings also hold, so a SIGKILLed
    run leaves them waiting for loky's idle timeout (300 s), holding the run's stdout.
    ``os.getppid()`` changes when the parent dies (the worker is re-parented).
    """
    def watch() -> None:
        while os.getppid() == ppid:
            time.sleep(every)
        os._exit(1)

    if os.getppid() != ppid:
        os._exit(1)
    threading.Thread(target=watch, name="simstudy-parent-watch", daemon=True).start()


def _fork_safe() -> bool:
    """Whether local workers may be forked from this process: on Linux, and before numba
    has started its threads here (a forked child cannot use a parent's thread pool)."""
    if not hasattr(os, "fork") or os.environ.get("SIMSTUDY_SPAWN"):
        return False
    par = sys.modules.get("numba.np.ufunc.parallel")
    return par is None or not getattr(par, "_is_initialized", True)


def _forked_worker(ppid: int) -> None:
    """Initializer of a forked worker: Ctrl-C reaches the whole process group, and only the
    run should act on it; exit when the run is gone; one BLAS thread."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _watch_parent(ppid)
    one_thread_for_good()  # one worker per core: see simstudy.blas


def _loky_worker(ppid: int) -> None:
    """Initializer of a spawned (loky) worker: exit when the run is gone; one BLAS thread."""
    _watch_parent(ppid)
    one_thread_for_good()  # one worker per core: see simstudy.blas


class _NoReconnectNews:
    """Drops ``distributed.client``'s and ``distributed.batched``'s records of a broken
    connection to the scheduler (reconnect attempts, "Batched Comm Closed", their
    tracebacks): a run that cannot go on without the scheduler names that itself, in one
    line."""

    def filter(self, record) -> bool:
        from asyncio import CancelledError

        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, (OSError, CancelledError, TimeoutError)) or \
                type(exc).__name__ == "CommClosedError":
            return False
        return "reconnect" not in record.getMessage()


class _NoCancelNews:
    """Drops tornado's record of Dask's own cancel callback failing when Ctrl-C interrupts
    a wait on the scheduler (``sync.<locals>.cancel``, with its traceback): the run says
    it was interrupted in one line, and the record is Dask's noise about that same stop."""

    def filter(self, record) -> bool:
        return "sync.<locals>.cancel" not in record.getMessage()


def _quiet_dask() -> None:
    """Silence Dask's and asyncio's loggers for the rest of the process (the run is ending
    with its own line on a lost scheduler)."""
    import logging

    for name in ("distributed", "asyncio", "tornado"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)


def _dask_unit(fn: Callable, chunk, key: str):
    """A unit on a Dask worker: log its start (so restarts can be counted), compute it."""
    with contextlib.suppress(Exception):  # accounting must never fail a unit
        from distributed import get_worker

        get_worker().log_event(_DASK_TOPIC, {"key": key})
    return fn(chunk)


class Pool:
    """One backend for the length of a run: ``imap_unordered(fn, items)`` any number of
    times (a cooperating run needs several rounds), then :meth:`close`."""

    def __init__(self, backend: str, jobs: int, scheduler: str | None, facts: dict) -> None:
        self.backend, self.jobs, self.scheduler, self.facts = backend, jobs, scheduler, facts
        self.client = self.cluster = None
        self.t0 = time.time()
        self.token = uuid.uuid4().hex[:10]
        self.keys: dict[str, str] = {}  # dask key -> unit id
        self.lost = False  # the Dask scheduler went away

    def _dask(self):
        if self.client is not None:
            return self.client
        try:
            from distributed import Client, LocalCluster
        except ImportError:
            raise SimstudyError(
                "backend 'dask' needs dask.distributed: pip install 'simstudy[dask]'") from None
        import logging

        for name in ("distributed.client", "distributed.batched"):
            logging.getLogger(name).addFilter(_NoReconnectNews())
        logging.getLogger("tornado.application").addFilter(_NoCancelNews())
        if self.scheduler:
            try:
                self.client = Client(self.scheduler, timeout="20s")
            except (OSError, ValueError) as e:  # unreachable, or not an address at all
                raise SimstudyError(
                    f"cannot reach Dask scheduler {self.scheduler!r}: {e}") from None
        else:
            self.cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1,
                                        host="127.0.0.1", dashboard_address=None)
            self.client = Client(self.cluster)
        self.t0 = time.time()
        return self.client

    def imap_unordered(self, fn: Callable, items: Iterable, unit: Callable) -> Iterator:
        if self.backend == "serial" or (self.backend == "joblib" and self.jobs == 1):
            for c in items:
                yield fn(c)
        elif self.backend == "joblib" and _fork_safe():
            from concurrent.futures.process import BrokenProcessPool

            try:
                yield from self._fork_map(fn, items)
            except BrokenProcessPool:
                raise RunFailed(WORKER_DIED) from None
        elif self.backend == "joblib":
            from joblib import Parallel, delayed
            from joblib.externals.loky.process_executor import TerminatedWorkerError

            par = Parallel(n_jobs=self.jobs, backend="loky", return_as="generator_unordered",
                           initializer=_loky_worker, initargs=(os.getpid(),))
            try:
                yield from par(delayed(fn)(c) for c in items)
            except TerminatedWorkerError:
                raise RunFailed(WORKER_DIED) from None
        elif self.backend == "dask":
            yield from self._dask_map(fn, items, unit)
        else:
            raise SimstudyError(
                f"unknown backend {self.backend!r}; valid choices: {', '.join(BACKENDS)}")

    def _fork_map(self, fn: Callable, items: Iterable) -> Iterator:
        """Local workers forked from this process: they start with its modules imported
        (a spawned loky worker imports Python, joblib and the runner afresh, ~0.5 s CPU
        each), watch this process like loky's, and ignore Ctrl-C (the run stops them)."""
        import multiprocessing
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        ex = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("fork"),
                                 initializer=_forked_worker, initargs=(os.getpid(),))
        it = iter(items)
        flying: set = set()
        try:
            while True:
                # claim a unit only when a worker is about to need it (as for Dask)
                while len(flying) < 2 * self.jobs and (c := next(it, None)) is not None:
                    flying.add(ex.submit(fn, c))
                if not flying:
                    break
                done, flying = wait(flying, return_when=FIRST_COMPLETED)
                for fut in done:
                    yield fut.result()
        except BaseException:  # Ctrl-C, SIGTERM, a failed unit: stop the workers now
            procs = list((getattr(ex, "_processes", None) or {}).values())
            ex.shutdown(wait=False, cancel_futures=True)
            for p in procs:
                p.terminate()
            for p in procs:
                p.join(5)
            raise
        ex.shutdown(wait=True)  # reaped: their CPU time counts as the run's

    def _dask_map(self, fn: Callable, items: Iterable, unit: Callable) -> Iterator:
        from distributed import as_completed

        try:
            from distributed import KilledWorker
        except ImportError:  # pragma: no cover - older distributed
            from distributed.scheduler import KilledWorker
        client = self._dask()
        it = iter(items)
        done = as_completed()
        flying = 0

        def top_up() -> None:
            nonlocal flying
            # claim a unit only when a worker thread is about to need it: the rest stay
            # free for cooperating runs; adaptive clusters grow, so ask each time
            limit = max(4, 2 * sum(client.nthreads().values()))
            while flying < limit:
                c = next(it, None)
                if c is None:
                    return
                key = f"simstudy-{self.token}-{len(self.keys)}"
                self.keys[key] = unit(c)
                done.add(client.submit(_dask_unit, fn, c, key, key=key))
                flying += 1

        try:
            top_up()
            for fut in done:
                flying -= 1
                try:
                    res = fut.result()
                except KilledWorker:
                    raise SimstudyError(
                        f"work unit {self.keys.get(fut.key, fut.key)!r}: every Dask worker "
                        "that ran it died (KilledWorker); see the workers' logs (memory "
                        "limit?)") from None
                fut.release()
                top_up()
                yield res
        except Exception as e:
            if not self._scheduler_lost(e):
                raise
            self.lost = True
            _quiet_dask()  # its reconnect and close tracebacks would bury the one line
            where = self.scheduler or "of the local cluster"
            raise SimstudyError(
                f"lost the Dask scheduler {where} ({type(e).__name__}: "
                f"{' '.join(str(e).split())[:120] or 'connection closed'}); the trials "
                "finished before are stored: rerun the same command to resume") from None

    def _scheduler_lost(self, e: BaseException) -> bool:
        """Whether ``e`` means the client lost its scheduler (not a unit's own error)."""
        from asyncio import CancelledError

        try:
            from distributed.comm.core import CommClosedError
        except ImportError:  # pragma: no cover - older distributed
            CommClosedError = OSError  # noqa: N806
        if isinstance(e, CommClosedError):
            return True
        status = str(getattr(self.client, "status", "running"))
        text = str(e).lower()
        return status != "running" or (isinstance(e, (CancelledError, OSError, TimeoutError))
                                       and ("scheduler" in text or "connection" in text))

    def _dask_facts(self) -> None:
        """Workers that left while the run ran, and units started more than once."""
        c = self.client
        try:
            starts = c.get_events(_DASK_TOPIC)
            events = c.get_events("all")
        except Exception as e:  # noqa: BLE001 - the scheduler may be gone; say so
            self.facts["dask_events"] = f"unavailable: {type(e).__name__}: {e}"
            return
        n: dict[str, int] = {}
        for _, msg in starts:
            k = msg.get("key") if isinstance(msg, dict) else None
            if k in self.keys:
                n[k] = n.get(k, 0) + 1
        retried = {k for k, v in n.items() if v > 1}
        lost, left = [], []
        for ts, msg in events:
            if ts < self.t0 or not isinstance(msg, dict) or msg.get("action") != "remove-worker":
                continue
            ours = [str(k) for k in (*msg.get("processing-tasks", ()),
                                     *msg.get("lost-computed-tasks", ())) if str(k) in self.keys]
            retried.update(ours)
            (left if msg.get("expected") else lost).append(str(msg.get("worker")))
        if self.cluster is not None:
            left = []  # our own LocalCluster's workers leave when it closes
        self.facts["workers_lost"] = sorted(set(lost))
        self.facts["workers_retired"] = sorted(set(left))
        self.facts["units_retried"] = sorted({self.keys[k] for k in retried})

    def close(self) -> None:
        if self.client is None:
            return
        try:
            if self.lost:  # nothing to ask it: its event log went with it
                self.facts["dask_events"] = "unavailable: the scheduler was lost"
            else:
                self._dask_facts()
        finally:
            if self.lost:  # closing may fail too: it must not hide the news
                with contextlib.suppress(Exception):
                    self.client.close(timeout=10)
            else:
                self.client.close()
            if self.cluster is not None:
                self.cluster.close()


class Execution:
    """The work units of one plan (``plan.chunks``), claimed, computed and accounted for.

    Iterating yields each computed unit's trial records; the caller stores them before
    asking for the next (the unit's lease is released then).  ``progress(n)`` is told of
    trials other runs stored.  :attr:`facts` says what happened.
    """

    def __init__(self, plan, store, run_id: int, *, backend: str, jobs: int,
                 scheduler: str | None, compute: Callable) -> None:
        self.study, self.store, self.chunks = plan.study, store, list(plan.chunks)
        self.compute = compute
        self.progress: Callable[[int], object] = lambda n: None
        self.facts: dict = {"backend": backend, "jobs": jobs, "trials_by_other_runs": 0,
                            "units_taken_over": 0}
        self.leases = Leases(store.path, run_id) if self.chunks else None
        self.pool = Pool(backend, jobs, scheduler, self.facts)
        self.losses = plan.losses
        self.poll = 1.0 if self.leases is None else min(1.0, self.leases.ttl / 4)
        self._timed = (0, 0.0)  # units computed by this run, their summed seconds

    def unit(self, chunk) -> str:
        return self._unit(chunk.cell.id, chunk.seed, chunk.runs[0])

    def _unit(self, cell: str, seed: int, run: int) -> str:
        """The canonical unit (block of ``study.chunk`` runs) that ``run`` belongs to."""
        step = int(self.study.chunk)
        lo = run // step * step
        return unit_id(cell, seed, lo, min(lo + step, self.study.runs))

    def _stored(self, chunk) -> Callable:
        args = (chunk.cell.id, chunk.seed, min(chunk.runs), max(chunk.runs),
                bool(self.losses.get(chunk.cell.id)))
        return lambda table: table.stored_runs(*args)

    def _claim(self, chunks: list) -> list[tuple[str, object]]:
        """Per chunk ``(FREE, the chunk trimmed to its runs still missing)``, ``(DONE,
        None)`` or ``(HELD, chunk)``, in one transaction; trials another run stored
        meanwhile are counted and shown."""
        claims = self.leases.claim_many([(self.unit(ch), self._stored(ch), ch.runs)
                                         for ch in chunks])
        out = []
        for ch, (state, runs) in zip(chunks, claims, strict=True):
            others = len(ch.runs) - len(runs) if state != HELD else 0
            if others:
                self.facts["trials_by_other_runs"] += others
                self.progress(others)
            if state == FREE:
                out.append((state, dataclasses.replace(ch, runs=runs)))
            else:
                out.append((state, ch if state == HELD else None))
        return out

    def _batch(self) -> int:
        """How many units to claim at once: about :data:`CLAIM_SECONDS` of work, judged
        from the units computed so far (one at a time until one has been timed)."""
        n, secs = self._timed
        if not n:
            return 1
        per_unit = secs / n
        return max(1, min(64, int(CLAIM_SECONDS / max(per_unit, 1e-6))))

    def _claiming(self, chunks: list, held: list) -> Iterator:
        """Claim chunks as the backend asks for the next; set aside those held."""
        it = iter(chunks)
        while batch := list(itertools.islice(it, self._batch())):
            for state, got in self._claim(batch):
                if state == FREE:
                    yield got
                elif state == HELD:
                    held.append(got)

    def _wait(self, held: list) -> list:
        """Block until some held unit is free (its holder died or its lease expired) or
        every one is stored; return the units still to do."""
        t0 = time.perf_counter()
        # the other run's last units usually finish within a fraction of a second: look
        # again soon, then back off to self.poll (a sleep of self.poll each time kept a
        # cooperating run idle for most of a second at its end)
        pause = POLL_FIRST
        try:
            while held:
                claims = self._claim(held)
                held = [got for state, got in claims if state != DONE]
                if any(state == FREE for state, _ in claims):
                    return held
                if held:
                    time.sleep(pause)
                    pause = min(2 * pause, self.poll)
            return []
        finally:
            self.facts["seconds_waiting"] = round(
                self.facts.get("seconds_waiting", 0.0) + time.perf_counter() - t0, 3)

    def __iter__(self) -> Iterator:
        pending = self.chunks
        with sigterm_interrupts():
            while pending:
                held: list = []
                for records in self.pool.imap_unordered(
                        self.compute, self._claiming(pending, held), self.unit):
                    yield records
                    if records:  # the caller has stored them: the unit is no one's now
                        r = records[0]
                        self.leases.release(self._unit(r.cell, r.seed, r.run))
                        n, secs = self._timed
                        self._timed = (n + 1, secs + sum(x.seconds for x in records))
                pending = self._wait(held)

    def close(self) -> dict:
        """Release every lease, stop the backend; the facts of the run."""
        try:
            self.pool.close()
        finally:
            if self.leases is not None:
                self.facts["units_taken_over"] = self.leases.taken_over
                self.leases.close()
        return self.facts


def summary_line(facts: dict) -> str | None:
    """One line for the run's summary when a cluster or another run did something the
    user should know; None when there is nothing to say."""
    parts = []
    lost, retried = facts.get("workers_lost") or [], facts.get("units_retried") or []
    if lost:
        parts.append(f"{len(lost)} Dask worker(s) lost ({', '.join(lost)})")
    if retried:
        parts.append(f"{len(retried)} work unit(s) computed again after a worker left "
                     "(same seeds, same numbers)")
    if facts.get("dask_events"):
        parts.append(f"Dask event log {facts['dask_events']}")
    if facts.get("trials_by_other_runs"):
        parts.append(f"{facts['trials_by_other_runs']} trials stored by a cooperating run")
    if facts.get("units_taken_over"):
        parts.append(f"{facts['units_taken_over']} work unit(s) taken over from a run that "
                     "stopped")
    return "; ".join(parts) or None
