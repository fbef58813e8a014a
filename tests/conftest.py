"""Shared test set-up.

Tests that need PostgreSQL (127.0.0.1:5432) or Redis (127.0.0.1:6379) are marked ``postgres`` / ``redis``, and those
that drive Debian's Chromium (/usr/bin/chromium) ``chromium``. Where the service or browser is absent they skip with a
reason, unless ``SAGEMAKER_FLEET_REQUIRE_SERVICES=1`` (set by ``.ci/run``), which turns those skips into failures so
CI always runs them.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
from importlib import metadata
from pathlib import Path

# Airflow reads its configuration once, at first import: give the test session its own home and SQLite DB
# before anything imports it (an existing AIRFLOW_HOME, e.g. the end-to-end tests' Postgres one, is respected).
# One home per pytest-xdist worker and Python: two workers migrating one SQLite file at once break each other's
# tests, and `make test` runs the 3.12 and 3.13 suites side by side, each with its own gw0, gw1 (one shared home let
# one suite's module fixture delete and re-create the other's DAG run under it). The Airflow minor is in the name too:
# two virtualenvs of one Python with different Airflows (3.0 and 3.2 on 3.12) cannot share a DB (no downgrade on
# `airflow db migrate`). Read from the installed metadata: Airflow must not be imported before the home is set.
# xdist workers inherit the controller's environment, where this file already set the controller's home: a home
# this file chose is replaced by the worker's own; a home set from outside (the e2e's Postgres one) is kept.
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "main")
_AIRFLOW = "-af" + ".".join(metadata.version("apache-airflow").split(".")[:2])
_HOMES = (
    Path(tempfile.gettempdir())
    / f"sagemaker-fleet-tests-{os.getuid()}-py{sys.version_info[0]}{sys.version_info[1]}{_AIRFLOW}"
)
_TEST_HOME = Path(f"{_HOMES}-{_WORKER}")
for _name, _ours, _value in (
    ("AIRFLOW_HOME", str(_HOMES), str(_TEST_HOME)),
    ("AIRFLOW__DATABASE__SQL_ALCHEMY_CONN", f"sqlite:///{_HOMES}", f"sqlite:///{_TEST_HOME}/airflow.db"),
):
    if os.environ.get(_name, _ours).startswith(_ours):
        os.environ[_name] = _value
# Airflow writes every provider option's default into the airflow.cfg it creates: one written by an earlier
# checkout (the homes outlive a session) would set what the provider now leaves unset (poll_interval).
if os.environ["AIRFLOW_HOME"] == str(_TEST_HOME):
    (_TEST_HOME / "airflow.cfg").unlink(missing_ok=True)
os.environ.setdefault("AIRFLOW__CORE__LOAD_EXAMPLES", "False")
# A price table that `sagemaker-fleet prices refresh` wrote on this machine would price the tests' fleets: point the
# look-up at a file that is never written, so that every test reads the table shipped in the package unless it says
# otherwise.
os.environ["SAGEMAKER_FLEET_PRICE_TABLE"] = str(_TEST_HOME / "no-refreshed-price-table.json")
os.environ.setdefault(
    "AIRFLOW__CORE__DAGS_FOLDER", str(Path(__file__).resolve().parent / "integration" / "airflow" / "dags")
)

import pytest  # noqa: E402

pytest_plugins = ["sim_fixtures", "policy_check"]

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


#: Debian's Chromium, which the browser tests drive (``chromium`` marker).
CHROMIUM = Path("/usr/bin/chromium")


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("chromium") is not None and not CHROMIUM.exists():
        reason = f"Debian's chromium is not installed at {CHROMIUM}"
        if REQUIRE_SERVICES:
            pytest.fail(f"{reason} and SAGEMAKER_FLEET_REQUIRE_SERVICES=1 requires it", pytrace=False)
        pytest.skip(f"{reason} (apt-get install -y chromium); the page is not rendered here")
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


@pytest.fixture(scope="session")
def airflow_db() -> Path:
    """A migrated Airflow metadata DB (SQLite in the test home) for ``dag.test()``."""
    import subprocess

    home = Path(os.environ["AIRFLOW_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    airflow = Path(sys.executable).parent / "airflow"
    subprocess.run([str(airflow), "db", "migrate"], check=True, capture_output=True, env=os.environ.copy())
    return home
