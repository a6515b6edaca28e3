"""A Dask run that loses a worker says so: in its summary and in its invocation row."""

import json
import os
import signal
import threading

import pytest
from test_cluster import tables
from test_faults import wait_until_stored

from simstudy.catalog import get_study
from simstudy.execute import summary_line
from simstudy.runner import run_study
from simstudy.store import Store


def test_lost_worker_and_retried_units_are_reported(tmp_path):
    distributed = pytest.importorskip("distributed")
    demo = get_study("demo", runs=12, chunk=1).select("iris")
    serial = tmp_path / "serial.sqlite"
    with Store(serial) as st:
        run_study(demo, st, backend="serial", progress=False)
    path = tmp_path / "dask.sqlite"
    with Store(path):
        pass
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        nanny = next(iter(cluster.workers.values()))
        victim, victim_address = nanny.process.process.pid, nanny.worker_address

        def kill_after_some_trials() -> None:
            wait_until_stored(path, 6, 120)
            os.kill(victim, signal.SIGKILL)

        killer = threading.Thread(target=kill_after_some_trials, daemon=True)
        killer.start()
        with Store(path) as st:
            s = run_study(demo, st, backend="dask", scheduler=cluster.scheduler_address,
                          progress=False)
        killer.join()
    ex = s.execution
    # on a loaded machine a slow heartbeat can cost a second worker too: the killed one must
    # be among those reported
    assert victim_address in ex["workers_lost"] and ex["units_retried"], ex
    line = summary_line(ex)
    assert f"{len(ex['workers_lost'])} Dask worker(s) lost" in line and "computed again" in line
    with Store(path, readonly=True) as st:
        recorded = json.loads(st.runs_log()["args"].iloc[-1])["execution"]
    assert recorded["workers_lost"] == ex["workers_lost"]
    assert recorded["units_retried"] == ex["units_retried"]
    assert tables(path) == tables(serial)  # retried units change no number
