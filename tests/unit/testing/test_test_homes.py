"""Each pytest-xdist worker has an Airflow home and SQLite file of its own: two workers migrating one database at
once fail each other's set-up (``airflow db migrate`` exits 1 on a fresh machine)."""

from __future__ import annotations

import os

import pytest


def test_an_xdist_worker_has_its_own_airflow_home_and_database() -> None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        pytest.skip("not under pytest-xdist: one process, one home (make test runs this file with -n 2)")
    home = os.environ["AIRFLOW_HOME"]
    assert home.endswith(f"-{worker}")
    assert os.environ["AIRFLOW__DATABASE__SQL_ALCHEMY_CONN"] == f"sqlite:///{home}/airflow.db"
