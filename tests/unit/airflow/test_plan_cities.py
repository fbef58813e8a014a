"""The plan task returns the run's cities in start order (map index i of ``train`` is the i-th city to start),
pushes the next thousands under ``cities_2``, …, and refuses a fleet that outgrew the DAG's training tasks."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from sagemaker_fleet.fleetspec import parse_fleet_spec
from sagemaker_fleet.fleetspec.load import load_fleet_spec
from sagemaker_fleet.operators.plan import PlanFleetOperator, PlanMismatchError, start_order
from sagemaker_fleet.plan import FleetPlan, plan_fleet

DAGS = Path(__file__).resolve().parents[3] / "dags"
RUN_KEY = "20261129"
HEAD = """
fleet: big
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/big
quotas: {ml.m5.xlarge: {instances: 20, warm_pools: 8}}
defaults: {instance_type: ml.m5.xlarge}
cities:
"""


def spec_text(cities: int) -> str:
    return HEAD + "\n".join(
        f'  - {{name: c{i:04d}, train_s3_uri: "s3://acme-ml/data/c{i:04d}/"}}' for i in range(cities)
    )


def test_the_first_wave_starts_first() -> None:
    plan = plan_fleet(load_fleet_spec(DAGS / "fleets" / "demo.yaml"), RUN_KEY)
    order = start_order(plan)
    assert sorted(order) == sorted(job.city for job in plan.jobs)
    starts = [plan.job(city).planned_start_seconds for city in order]
    assert starts == sorted(starts)
    first_wave = {job.city for job in plan.jobs if job.planned_start_seconds == 0}
    assert 1 < len(first_wave) < len(order)
    assert set(order[: len(first_wave)]) == first_wave  # the cities that start at once before any other
    # within a lane, the order of its positions
    for lane in {job.lane for job in plan.jobs}:
        in_lane = [city for city in order if plan.job(city).lane == lane]
        assert [plan.job(city).position for city in in_lane] == list(range(len(in_lane)))


def test_the_order_is_deterministic_and_ties_break_by_group_lane_position_and_city() -> None:
    plan = plan_fleet(load_fleet_spec(DAGS / "fleets" / "demo.yaml"), RUN_KEY)
    assert start_order(plan) == start_order(
        plan_fleet(load_fleet_spec(DAGS / "fleets" / "demo.yaml"), RUN_KEY)
    )
    # the same jobs listed in any order give the same start order
    shuffled = dataclasses.replace(plan, jobs=tuple(reversed(plan.jobs)))
    assert start_order(shuffled) == start_order(plan)
    # all starting at once: group, then lane, then position, then city
    same = [dataclasses.replace(job, planned_start_seconds=0) for job in plan.jobs]
    expected = [j.city for j in sorted(same, key=lambda j: (j.group, j.lane, j.position, j.city))]
    assert start_order(dataclasses.replace(plan, jobs=tuple(same))) == expected


class _TaskInstance:
    run_id = "scheduled__2026-11-29T00:00:00+00:00"
    dag_id = "d"

    def __init__(self) -> None:
        self.xcoms: dict[str, Any] = {}

    def xcom_push(self, key: str, value: Any) -> None:
        self.xcoms[key] = value


def _plan(tmp_path: Path, cities: int, chunks: int) -> tuple[Any, _TaskInstance]:
    path = tmp_path / "big.yaml"
    path.write_text(spec_text(cities), encoding="utf-8")
    ti = _TaskInstance()
    operator = PlanFleetOperator(task_id="plan", spec_path=str(path), chunks=chunks, use_history=False)
    context = {"ti": ti, "params": {}, "run_id": ti.run_id, "logical_date": None}
    return operator.execute(context), ti  # type: ignore[arg-type]


def test_a_small_fleet_returns_every_city_in_start_order(tmp_path: Path) -> None:
    cities, ti = _plan(tmp_path, 30, 1)
    plan = FleetPlan.from_json(ti.xcoms["plan"])
    assert cities == start_order(plan)
    assert set(ti.xcoms) == {"plan", "summary"}
    assert ti.xcoms["summary"] == plan.summary.to_json()


def test_past_a_thousand_the_next_cities_go_under_cities_2(tmp_path: Path) -> None:
    cities, ti = _plan(tmp_path, 1500, 2)
    order = start_order(FleetPlan.from_json(ti.xcoms["plan"]))
    assert len(order) == 1500
    assert cities == order[:1000]
    assert ti.xcoms["cities_2"] == order[1000:]
    assert set(ti.xcoms) == {"plan", "summary", "cities_2"}


def test_a_run_smaller_than_the_dag_pushes_empty_chunks(tmp_path: Path) -> None:
    cities, ti = _plan(tmp_path, 5, 3)
    assert len(cities) == 5
    assert ti.xcoms["cities_2"] == []
    assert ti.xcoms["cities_3"] == []


def test_a_fleet_that_outgrew_the_dag_is_refused(tmp_path: Path) -> None:
    with pytest.raises(PlanMismatchError, match="1001 cities do not fit the DAG's 1 training task"):
        _plan(tmp_path, 1001, 1)


def test_the_generated_fleet_is_valid() -> None:
    assert len(parse_fleet_spec(spec_text(3)).cities) == 3
