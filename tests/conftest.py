import os

import pytest

# keep BLAS single-threaded in tests: the machine has 2 cores and tests run workers
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


@pytest.fixture
def store_path(tmp_path):
    return tmp_path / "store.sqlite"
