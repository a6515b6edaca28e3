"""numpy's BLAS on one thread, where the runner wants it (threadpoolctl).

The runner keeps one worker per core, and the learners' matrix products are small: a
multi-threaded OpenBLAS splits each over every core, and its threads then spin for a while
after the call, taking a core from the other worker and charging it to whatever runs next.
On several threads some products also differ in the last bits from one thread's.

Examples
--------
>>> import numpy as np
>>> from simstudy.blas import one_thread
>>> with one_thread():
...     float(np.ones((2, 3)) @ np.ones(3) @ np.ones(2))
6.0
"""

from __future__ import annotations

import functools
from typing import Any

__all__ = ["one_thread", "one_thread_for_good"]


@functools.cache
def _controller() -> Any:
    from threadpoolctl import ThreadpoolController

    return ThreadpoolController()  # scans the loaded BLAS libraries once (~20 ms)


def one_thread() -> Any:
    """A context manager: numpy's BLAS on one thread inside it (cheap after the first call)."""
    return _controller().limit(limits=1, user_api="blas")


def one_thread_for_good() -> None:
    """This process's BLAS on one thread from now on (a worker's initializer).  The loaded
    libraries are scanned afresh, so any loaded since the first :func:`one_thread` count too."""
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
