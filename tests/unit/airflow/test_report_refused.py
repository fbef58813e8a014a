"""The cost report of a run whose params the plan task refused is skipped at once (nothing was launched), instead of
failing through its retries on the same error."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.compat import AirflowSkipException
from sagemaker_fleet.operators.report import FleetCostReportOperator

SMALL = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml"


def test_refused_params_skip_the_report() -> None:
    report = FleetCostReportOperator(task_id="cost_report", spec_path=str(SMALL), use_params=True)
    with pytest.raises(AirflowSkipException, match="unknown city 'atlantis'"):
        report.execute({"params": {"cities": ["atlantis"]}, "run_id": "manual__x"})  # type: ignore[arg-type]
