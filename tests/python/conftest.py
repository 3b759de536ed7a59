"""The Python module's tests: run by ctest (python.pytest) with PYTHONPATH, LW_CLI and LW_SAMPLES
set; by hand: LW_NO_BUILD=1 scripts/python.sh -m pytest tests/python (LW_CLI defaults to the build's)."""
import os
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def samples():
    return pathlib.Path(os.environ.get("LW_SAMPLES", ROOT / "samples"))


@pytest.fixture(scope="session")
def cli():
    return os.environ.get("LW_CLI", str(ROOT / "build" / "app" / "linkwright-cli"))


def pytest_configure(config):
    # Debian's distributed 2022.12 on tornado 6.2 warns of its own use of make_current
    config.addinivalue_line("filterwarnings", "ignore:make_current is deprecated:DeprecationWarning")
