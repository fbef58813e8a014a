"""The cost model imports neither boto3 nor Airflow (the pure core: no I/O, no framework)."""

from __future__ import annotations

import subprocess
import sys


def test_cost_package_imports_no_boto3_and_no_airflow() -> None:
    code = (
        "import sys, sagemaker_fleet.cost, sagemaker_fleet.cost.collect, sagemaker_fleet.cost.publish, "
        "sagemaker_fleet.cost.pricelist\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in {'boto3', 'botocore', 'airflow', 'moto'})\n"
        "print(','.join(bad))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
