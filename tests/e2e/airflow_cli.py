"""The ``airflow`` command the ``airflow dags test`` end-to-end tests run: this virtualenv's, or the one
``SAGEMAKER_FLEET_DAGS_TEST_AIRFLOW`` names (CI points it at a clean virtualenv with the provider installed from its
wheel under Amazon MWAA's constraints: scripts/package_check.sh)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path


def airflow_executable() -> str:
    named = os.environ.get("SAGEMAKER_FLEET_DAGS_TEST_AIRFLOW")
    return os.path.abspath(named) if named else str(Path(sys.executable).parent / "airflow")


def airflow_version(env: Mapping[str, str]) -> tuple[int, ...]:
    answer = subprocess.run(
        [airflow_executable(), "version"], env=dict(env), capture_output=True, text=True, timeout=120
    )
    version = answer.stdout.strip().splitlines()[-1]
    return tuple(int(part) for part in version.split(".")[:2])
