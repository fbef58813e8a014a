"""A task's view of this run's spec (``failures.run_spec``): an invalid fleet file fails it without retries,
the run's params are checked only when the task asks for the fleet they make, and a dry run's release reads no
file at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.failures import UnusableSpecError, fleet_spec, run_spec
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.operators.release import FleetPoolReleaseOperator

SMALL = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml"


def test_an_invalid_fleet_file_is_unusable_whatever_the_params(tmp_path: Path) -> None:
    path = tmp_path / "fleet.yaml"
    path.write_text("fleet: small\nregion: us-east-1\n")
    with pytest.raises(UnusableSpecError):
        run_spec(str(path), {"dry_run": True}, use_params=True)
    with pytest.raises(UnusableSpecError):
        fleet_spec(str(path))


def test_a_file_that_cannot_be_read_is_raised_as_it_is(tmp_path: Path) -> None:
    with pytest.raises(FleetSpecError) as caught:
        run_spec(str(tmp_path / "not-synced-yet.yaml"))
    assert not isinstance(caught.value, UnusableSpecError)  # a retry may read it


def test_bad_params_raise_from_the_spec_as_the_params_error_not_the_files() -> None:
    run = run_spec(str(SMALL), {"cities": ["atlantis"]}, use_params=True)
    assert run.fleet == fleet_spec(str(SMALL))
    with pytest.raises(FleetSpecError) as caught:
        _ = run.spec
    assert not isinstance(caught.value, UnusableSpecError)
    assert caught.value.source == "the run's conf"
    assert run_spec(str(SMALL), {"cities": ["atlantis"]}).spec == run.fleet  # params not applied


def test_a_dry_runs_release_reads_no_fleet_file(tmp_path: Path) -> None:
    context: Any = {"ti": None, "run_id": "manual__2026-11-29T00:00:00+00:00", "params": {"dry_run": True}}
    missing = str(tmp_path / "gone.yaml")
    release = FleetPoolReleaseOperator(task_id="release", spec_path=missing, use_params=True)
    assert release.execute(context) == {"ended": [], "kept": [], "idle_seconds_saved": 0}
    with pytest.raises(FleetSpecError):
        FleetPoolReleaseOperator(task_id="release", spec_path=missing).execute(context)
