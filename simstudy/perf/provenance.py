"""What a benchmark records of the code it measured: the commit, and the files of
``simstudy`` with local changes at the time.

Examples
--------
>>> c = checkout()
>>> sorted(c)
['changed', 'commit', 'dirty']
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def checkout(measured: tuple[str, ...] = ()) -> dict[str, Any]:
    """``commit`` (the full hash, or None outside a git checkout), ``changed`` (files of
    ``simstudy`` with local changes, untracked ones left out) and ``dirty`` (whether any of
    them lies under a prefix in ``measured``: the code the measurement runs)."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True, timeout=30).stdout.strip()
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no",
                                 "simstudy"], cwd=ROOT, capture_output=True, text=True,
                                timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None, "changed": []}
    changed = sorted(line[3:].strip() for line in status.splitlines() if line.strip())
    return {"commit": head or None, "changed": changed,
            "dirty": bool(measured) and any(c.startswith(measured) for c in changed)}
