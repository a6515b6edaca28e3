import os

import pytest

# keep BLAS single-threaded in tests: the machine has 2 cores and tests run workers
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "store.sqlite"

from hypothesis import settings  # noqa: E402

# CI runs the same examples every time (a red CI must be reproducible); locally hypothesis
# explores new examples on each run
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
