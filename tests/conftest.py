"""Shared test set-up.

Tests that need PostgreSQL (127.0.0.1:5432) or Redis (127.0.0.1:6379) are marked ``postgres`` / ``redis``. Where the
service is absent they skip with a reason, unless ``SAGEMAKER_FLEET_REQUIRE_SERVICES=1`` (set by ``.ci/run``), which
turns those skips into failures so CI always runs them.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

pytest_plugins = ["sim_fixtures"]

REPO_ROOT = Path(__file__).resolve().parent.parent
FLEETS_DIR = REPO_ROOT / "dags" / "fleets"
REQUIRE_SERVICES = os.environ.get("SAGEMAKER_FLEET_REQUIRE_SERVICES") == "1"

_SERVICES = {"postgres": ("127.0.0.1", 5432), "redis": ("127.0.0.1", 6379)}


def _reachable(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1.0):
            return True
    except OSError:
        return False


def pytest_runtest_setup(item: pytest.Item) -> None:
    for marker, (host, port) in _SERVICES.items():
        if item.get_closest_marker(marker) is None or _reachable(host, port):
            continue
        reason = f"{marker} is not reachable at {host}:{port}"
        if REQUIRE_SERVICES:
            pytest.fail(f"{reason} and SAGEMAKER_FLEET_REQUIRE_SERVICES=1 requires it", pytrace=False)
        pytest.skip(f"{reason}; start it (see README) to run this test")


@pytest.fixture
def fleets_dir() -> Path:
    return FLEETS_DIR
