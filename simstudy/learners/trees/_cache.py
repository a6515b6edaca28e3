"""Keep numba's on-disk cache of the tree kernels coherent across their files.

numba re-validates a cached function only against its *own* source file; a function whose
callees live in another file keeps its cached machine code -- with the old callees
compiled in -- after those files change (checked: a caller in ``b.py`` still returned
``x + 1`` after its callee in ``a.py`` became ``x + 100``).  The kernels are split over
several files, so an edit to, say, ``criteria.py`` would silently leave ``growers.py``'s
cached trees on the old formulas.  :func:`ensure_coherent_cache` stamps the cache with a
hash of all the package's sources and empties it when they differ.  A package whose
kernels call another package's (``weka/``'s J48 uses ``trees/``'s C4.5 criterion and
splitter) names that package in ``depends_on``, so that an edit there drops its cache too.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path

_STAMP = "kernels.sources.sha256"


def ensure_coherent_cache(package_dir: Path | None = None, depends_on: Sequence[Path] = ()) -> bool:
    """Drop the package's numba cache files if any source file of the package or of the
    packages in ``depends_on`` changed; True if dropped.

    Only numba's default cache location (``__pycache__`` beside the sources) is handled;
    where it is not writable, nothing is done (numba then caches elsewhere or not at all).
    """
    here = Path(package_dir) if package_dir is not None else Path(__file__).parent
    digest = hashlib.sha256()
    for k, d in enumerate([here, *(Path(p) for p in depends_on)]):
        for src in sorted(Path(d).glob("*.py")):
            digest.update(f"{k}/{src.name}".encode())
            digest.update(src.read_bytes())
    h = digest.hexdigest()
    cache = here / "__pycache__"
    stamp = cache / _STAMP
    try:
        if stamp.read_text() == h:
            return False
    except OSError:
        pass
    for f in list(cache.glob("*.nbi")) + list(cache.glob("*.nbc")):
        try:
            f.unlink()
        except OSError:
            pass  # another process got there first
    try:
        cache.mkdir(exist_ok=True)
        stamp.write_text(h)
    except OSError:
        pass
    return True
