"""The ``[sagemaker_fleet]`` settings: declared in the provider info, read through Airflow's ``conf`` (so
``AIRFLOW__SAGEMAKER_FLEET__*`` works), and through nothing else."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from sagemaker_fleet import settings
from sagemaker_fleet.contract import TRAIN_TASK_ID
from sagemaker_fleet.dags import DispatchConfig, build_fleet_dag
from sagemaker_fleet.get_provider_info import get_provider_info

DEMO = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "demo.yaml"
LEGACY = (
    "SAGEMAKER_FLEET_POLL_INTERVAL",
    "SAGEMAKER_FLEET_CAPACITY_RETRY_SECONDS",
    "SAGEMAKER_FLEET_REPORT_DIR",
)


@pytest.fixture(autouse=True)
def clean_env(monkeypatch):
    for name in (*LEGACY, *(o.env for o in settings.OPTIONS.values())):
        monkeypatch.delenv(name, raising=False)


def training_task(dag):
    """The training task of one city as a worker runs it: the DAG's mapped ``train`` task, unmapped."""
    return dag.get_task(TRAIN_TASK_ID).unmap({"city": "any-city"})


def test_the_provider_info_declares_every_option_with_its_default() -> None:
    section = get_provider_info()["config"]["sagemaker_fleet"]
    defaults = {name: option["default"] for name, option in section["options"].items()}
    assert defaults == {
        "poll_interval": None,  # 30 s of the endpoint's clock (the simulator announces its speed)
        "capacity_retry_seconds": "60",
        "report_dir": None,
        "fleet_view": "True",
    }
    assert all(
        option["description"] and option["type"] in ("float", "string", "boolean")
        for option in section["options"].values()
    )


def test_defaults_reach_the_dag() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        task = training_task(build_fleet_dag(DEMO, dag_id="defaults"))
    # no poll interval given: the trigger sweeps every 30 s of the endpoint's clock (dispatch/cadence.py)
    assert (task.timing.poll_interval, task.timing.capacity_retry_seconds) == (0.0, 60.0)


def test_airflow_variables_reach_the_dag(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__POLL_INTERVAL", "7")
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__CAPACITY_RETRY_SECONDS", "11")
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__REPORT_DIR", str(tmp_path))
    dag = build_fleet_dag(DEMO, dag_id="airflow_vars")
    timing = training_task(dag).timing
    assert (timing.poll_interval, timing.capacity_retry_seconds) == (7.0, 11.0)
    assert dag.get_task("cost_report").out_dir == str(tmp_path)


def test_an_argument_wins_over_the_setting(monkeypatch) -> None:
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__POLL_INTERVAL", "7")
    assert (
        training_task(
            build_fleet_dag(DEMO, dag_id="arg", dispatch=DispatchConfig(poll_interval=3))
        ).timing.poll_interval
        == 3.0
    )


def test_the_pre_release_variables_are_not_read(monkeypatch) -> None:
    """``SAGEMAKER_FLEET_POLL_INTERVAL`` and its kind came before the settings section and no release had them."""
    for name in LEGACY:
        monkeypatch.setenv(name, "5")
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        assert settings.get_float_or_none("poll_interval") is None
        assert settings.get("report_dir") is None


def test_a_bad_value_names_the_option_and_the_variable(monkeypatch) -> None:
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__POLL_INTERVAL", "fast")
    with pytest.raises(
        ValueError,
        match=r"\[sagemaker_fleet\] poll_interval must be a number of seconds, not 'fast' "
        r"\(set AIRFLOW__SAGEMAKER_FLEET__POLL_INTERVAL\)",
    ):
        settings.get_float_or_none("poll_interval")
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__FLEET_VIEW", "maybe")
    with pytest.raises(ValueError, match=r"fleet_view must be True or False, not 'maybe'"):
        settings.get_bool("fleet_view")


@pytest.mark.parametrize(("value", "expected"), [("False", False), ("true", True), ("0", False)])
def test_fleet_view_is_a_boolean(monkeypatch, value: str, expected: bool) -> None:
    monkeypatch.setenv("AIRFLOW__SAGEMAKER_FLEET__FLEET_VIEW", value)
    assert settings.get_bool("fleet_view") is expected
