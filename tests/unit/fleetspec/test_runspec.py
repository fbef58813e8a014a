"""This run's spec (``load_run_spec``): the fleet file as read, the run's conf as applied, and the dry run."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec.errors import FleetSpecError, RunConfError
from sagemaker_fleet.fleetspec.overrides import FleetOverrides
from sagemaker_fleet.fleetspec.runspec import RunSpec, load_run_spec

DEMO = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "demo.yaml"


@pytest.fixture
def fleet_file(tmp_path: Path) -> Path:
    path = tmp_path / "fleet.yaml"
    shutil.copyfile(DEMO, path)
    return path


def _rewrite(path: Path, old: str, new: str, mtime: float) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    os.utime(path, (mtime, mtime))


def test_the_cache_returns_the_same_spec_until_the_file_changes(fleet_file: Path) -> None:
    os.utime(fleet_file, (1_000_000_000, 1_000_000_000))
    first = load_run_spec(fleet_file, cached=True)
    again = load_run_spec(str(fleet_file), cached=True)
    assert again.fleet is first.fleet
    assert load_run_spec(fleet_file).fleet is not first.fleet  # uncached: read anew
    assert load_run_spec(fleet_file).fleet == first.fleet

    _rewrite(fleet_file, "fleet: citydemand", "fleet: citydemand2", 1_000_000_060)
    changed = load_run_spec(fleet_file, cached=True)
    assert changed.fleet is not first.fleet
    assert (first.fleet.fleet, changed.fleet.fleet) == ("citydemand", "citydemand2")
    assert load_run_spec(fleet_file, cached=True).fleet is changed.fleet


def test_a_bad_file_is_not_cached_and_a_missing_one_raises_oserror_when_cached(fleet_file: Path) -> None:
    good = load_run_spec(fleet_file, cached=True).fleet
    _rewrite(fleet_file, "region: us-east-1", "region: 42", os.path.getmtime(fleet_file) + 60)
    with pytest.raises(FleetSpecError, match="region"):
        load_run_spec(fleet_file, cached=True)
    _rewrite(fleet_file, "region: 42", "region: us-east-1", os.path.getmtime(fleet_file) + 60)
    assert load_run_spec(fleet_file, cached=True).fleet == good
    fleet_file.unlink()
    with pytest.raises(FileNotFoundError):
        load_run_spec(fleet_file, cached=True)
    with pytest.raises(FleetSpecError, match="cannot read the file"):
        load_run_spec(fleet_file)


def test_the_params_are_applied_only_when_the_task_uses_them(fleet_file: Path) -> None:
    params = {"cities": "cairo, tokyo", "spot": False, "instance_type": "ml.c5.xlarge", "dry_run": False}
    run = load_run_spec(fleet_file, params)
    assert run.overrides == FleetOverrides(
        cities=("cairo", "tokyo"), spot=False, instance_type="ml.c5.xlarge"
    )
    assert [c.name for c in run.spec.cities] == ["tokyo", "cairo"]  # the fleet's order
    assert {c.instance_type for c in run.spec.cities} == {"ml.c5.xlarge"}
    assert all(c.spot is None for c in run.spec.cities)
    assert len(run.fleet.cities) == 200  # the file as read stays whole
    assert run.dry_run is False

    ignored = load_run_spec(fleet_file, params, use_params=False)
    assert ignored.overrides.empty
    assert ignored.spec is ignored.fleet


def test_no_params_is_the_whole_fleet(fleet_file: Path) -> None:
    run = load_run_spec(fleet_file, None)
    assert run == RunSpec(run.fleet)
    assert run.spec is run.fleet
    assert run.dry_run is False


def test_a_dry_run_is_read_from_the_conf_only_when_the_task_uses_it(fleet_file: Path) -> None:
    assert load_run_spec(fleet_file, {"dry_run": True}).dry_run is True
    assert load_run_spec(fleet_file, {"dry_run": True}, use_params=False).dry_run is False
    assert load_run_spec(fleet_file, {"dry_run": False}).dry_run is False


@pytest.mark.parametrize("value", ["yes", "false", 0, 1, None])
def test_a_dry_run_that_is_not_true_or_false_is_refused_before_the_file_is_read(
    tmp_path: Path, value: object
) -> None:
    """``"dry_run": "false"`` was a dry run and ``"dry_run": 0`` a real one (Python's truth): neither is guessed."""
    with pytest.raises(RunConfError) as caught:
        load_run_spec(tmp_path / "no-such-file.yaml", {"dry_run": value})  # the conf first: no file needed
    assert "params.dry_run" in str(caught.value)
    assert "give true or false" in str(caught.value)


def test_a_bad_override_raises_from_the_spec_not_from_the_loader(fleet_file: Path) -> None:
    run = load_run_spec(
        fleet_file, {"cities": ["atlantis"], "instance_type": "ml.p3.2xlarge", "dry_run": True}
    )
    assert run.dry_run is True  # decided before the fleet checks the overrides (a dry run's city skips)
    with pytest.raises(RunConfError) as caught:
        _ = run.spec
    assert isinstance(caught.value, FleetSpecError)
    assert caught.value.source == "the run's conf"
    text = str(caught.value)
    assert text.startswith(
        "the run's conf is refused: params.cities: unknown city 'atlantis'; pick cities of "
    )
    assert "\n" not in text
    assert "no quota for ml.p3.2xlarge; use one of ['ml.c5.xlarge', 'ml.m5.xlarge']" in text
