"""build_fleet_dag's settings groups (sagemaker_fleet.dags.config) reach the tasks they are for; a keyword of before
the groups says where it went."""

from __future__ import annotations

from pathlib import Path

import pytest

from sagemaker_fleet.contract import (
    NOTIFY_TASK_ID,
    PLAN_TASK_ID,
    RELEASE_TASK_ID,
    REPORT_TASK_ID,
    TRAIN_TASK_ID,
)
from sagemaker_fleet.dags import ConnectionConfig, DispatchConfig, ReportConfig, build_fleet_dag
from sagemaker_fleet.dags.config import MOVED_KEYWORDS
from sagemaker_fleet.triggers.defaults import CityOptions, CityTiming

SMALL = Path(__file__).resolve().parents[3] / "dags" / "fleets" / "small.yaml"


class Recording:
    """A stand-in notifier (the DAG only hands it to the notify task)."""


def test_every_group_reaches_its_tasks(tmp_path: Path) -> None:
    notifier = Recording()
    dag = build_fleet_dag(
        SMALL,
        dag_id="groups",
        manual=True,
        connections=ConnectionConfig(aws_conn_id="fleet_aws", api_conn_id="fleet_api"),
        dispatch=DispatchConfig(poll_interval=4, capacity_retry_seconds=5, carry_pools=True),
        report=ReportConfig(
            report_dir=str(tmp_path), on_failure=[notifier], notice="{{ fleet_summary.headline }}"
        ),
    )
    train = dag.get_task(TRAIN_TASK_ID).partial_kwargs
    assert train["aws_conn_id"] == "fleet_aws"
    assert train["timing"] == CityTiming(poll_interval=4.0, capacity_retry_seconds=5.0)
    assert train["options"] == CityOptions(use_params=True, plan_task_id=PLAN_TASK_ID, carry_pools=True)
    plan = dag.get_task(PLAN_TASK_ID)
    assert (plan.aws_conn_id, plan.api_conn_id) == ("fleet_aws", "fleet_api")
    release = dag.get_task(RELEASE_TASK_ID)
    assert (release.aws_conn_id, release.carry_pools) == ("fleet_aws", True)
    report = dag.get_task(REPORT_TASK_ID)
    assert (report.aws_conn_id, report.out_dir) == ("fleet_aws", str(tmp_path))
    notify = dag.get_task(NOTIFY_TASK_ID)
    assert (list(notify.on_success), list(notify.on_failure)) == ([], [notifier])
    assert notify.message == "{{ fleet_summary.headline }}"


def test_without_groups_the_defaults_hold() -> None:
    dag = build_fleet_dag(SMALL, dag_id="plain")
    train = dag.get_task(TRAIN_TASK_ID).partial_kwargs
    assert (train["aws_conn_id"], train["options"].carry_pools) == ("aws_default", False)
    assert dag.get_task(PLAN_TASK_ID).api_conn_id == ConnectionConfig().api_conn_id
    assert NOTIFY_TASK_ID not in dag.task_ids


@pytest.mark.parametrize("name", sorted(MOVED_KEYWORDS))
def test_a_keyword_of_before_the_groups_names_its_group(name: str) -> None:
    with pytest.raises(
        TypeError, match=rf"give {name} as (connections|dispatch|report)=\w+Config\({name}=\.\.\.\)"
    ):
        build_fleet_dag(SMALL, dag_id="old", **{name: None})
