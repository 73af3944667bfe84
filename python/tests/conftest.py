"""pytest set-up for the dmci package's suite: where the build's dmci tool and the corpus are (ctest passes them in
the environment: DMCI_TOOL, DMCI_SOURCE_DIR, DMCI_BUILD_DIR) and the dmci package on sys.path (the build tree's)."""

import os

import pytest


def _need(name):
    value = os.environ.get(name)
    if not value:
        raise pytest.UsageError("%s is not set: run the suite through ctest (python_api)" % name)
    return value


@pytest.fixture(scope="session")
def tool():
    return _need("DMCI_TOOL")


@pytest.fixture(scope="session")
def source_dir():
    return _need("DMCI_SOURCE_DIR")


@pytest.fixture(scope="session")
def build_dir():
    return _need("DMCI_BUILD_DIR")
