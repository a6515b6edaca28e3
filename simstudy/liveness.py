"""Whether the process that recorded a run or holds a lease still lives (this host only).

A run records its host, pid and the pid's start time; a reader tells a run killed without
recording its end (SIGKILL, a power cut) from one still computing, and a run sharing the
store takes over the work units of a dead one at once instead of waiting for its leases to
expire.
"""

from __future__ import annotations

import os
import platform


def process_started(pid: int) -> str | None:
    """When process ``pid`` started (clock ticks since boot, from ``/proc``), or None where
    that cannot be read: with the pid it names one process, not a later one given its pid."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError, ValueError):
        return None


def process_gone(host: str | None, pid: int, started: str | None = None) -> bool:
    """True only when ``pid`` (started at ``started``, if known) was a process on this host
    and is no longer running; False when it lives or cannot be told (another host).

    >>> process_gone(platform.node(), os.getpid())
    False
    """
    if host != platform.node():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except (PermissionError, ValueError, OverflowError):
        return False
    return started is not None and process_started(pid) not in (None, started)
