"""Where the tests find their material: the shared images and conformance
files (GJ2K_SHARED_DIR, else ../shared beside the checkout) and the gj2k
program to compare with (GJ2K_CLI, else build/release/gj2k, else the one
the package ships)."""
import os
from pathlib import Path

import pytest

import gj2k._library

REPO = Path(__file__).resolve().parents[2]


def shared_dir():
    return Path(os.environ.get("GJ2K_SHARED_DIR") or REPO.parent / "shared")


@pytest.fixture(scope="session")
def shared():
    path = shared_dir()
    if not (path / "images").is_dir():
        pytest.skip("shared test data not found at %s (set GJ2K_SHARED_DIR)" % path)
    return path


def cli_path():
    for candidate in (os.environ.get("GJ2K_CLI"), REPO / "build" / "release" / "gj2k",
                      gj2k._library.PROGRAM_PATH):
        if candidate and os.access(candidate, os.X_OK):
            return str(candidate)
    raise RuntimeError("no gj2k program found")


@pytest.fixture(scope="session")
def cli():
    return cli_path()
