"""The plan JSON (docs/formats.md, plan JSON): exact field names and order, the round trip through XCom, and lookups."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.plan import FleetPlan, PlanFormatError, plan_fleet
from unit.plan.plan_fleets import RUN_KEY, city, fleet, role

STABLE_TOP = ["fleet", "run_key", "groups", "jobs", "summary"]
STABLE_GROUP = ["group", "warm_pool", "lanes", "key"]
STABLE_KEY = [
    "role_arn",
    "instance_type",
    "instance_count",
    "volume_size_gb",
    "volume_kms_key_id",
    "subnets",
    "security_group_ids",
    "enable_network_isolation",
    "enable_inter_container_traffic_encryption",
]
STABLE_JOB = [
    "city",
    "job_name",
    "group",
    "lane",
    "position",
    "spot",
    "warm_pool",
    "start",
    "keep_alive_seconds",
    "expected_seconds",
    "planned_start_seconds",
    "planned_end_seconds",
]
STABLE_SUMMARY = [
    "jobs",
    "lanes",
    "cold_starts",
    "warm_starts",
    "planned_makespan_seconds",
    "makespan_lower_bound_seconds",
    "planned_retained_seconds",
]


@pytest.fixture
def plan(fleets_dir: Path) -> FleetPlan:
    return plan_fleet(load_fleet_spec(fleets_dir / "small.yaml"), RUN_KEY)


def test_plan_json_has_the_contract_fields_in_contract_order(plan: FleetPlan) -> None:
    data = json.loads(json.dumps(plan.to_json()))
    assert list(data)[: len(STABLE_TOP)] == STABLE_TOP
    assert set(data) - set(STABLE_TOP) == {"warnings", "quotas"}
    assert data["quotas"] == {
        itype: {"instances": q.instances, "warm_pools": q.warm_pools, "spot_instances": q.spot_instances}
        for itype, q in plan.quotas.items()
    }
    assert FleetPlan.from_json(data).quotas == plan.quotas
    for group in data["groups"]:
        assert list(group)[: len(STABLE_GROUP)] == STABLE_GROUP
        assert list(group["key"]) == STABLE_KEY
        assert group["group"].startswith("g")
        assert isinstance(group["lanes"], int)
    for job in data["jobs"]:
        assert list(job)[: len(STABLE_JOB)] == STABLE_JOB
        assert list(job)[len(STABLE_JOB) :] == ["image_change"]  # extras only ever come after
        assert isinstance(job["image_change"], bool)
        assert job["start"] in ("cold", "warm")
        assert all(isinstance(job[name], int) for name in STABLE_JOB[-4:])
    assert list(data["summary"])[: len(STABLE_SUMMARY)] == STABLE_SUMMARY


def test_the_accounts_quotas_where_they_differ_from_the_plans_round_trip(
    plan: FleetPlan, fleets_dir: Path
) -> None:
    """A run that read the account's quotas keeps them beside its own (its cap within the account): the dispatch
    keeps everyone's jobs to the account's and the run's own to the plan's."""
    from sagemaker_fleet.dispatch import DispatchBook

    itype = next(iter(plan.quotas))
    mine = plan.quotas[itype]
    assert plan.within({itype: mine}) is plan  # the same: nothing to carry
    bigger = InstanceQuota(instances=mine.instances + 8, warm_pools=mine.warm_pools, spot_instances=None)
    carried = plan.within({itype: bigger, "ml.p5.48xlarge": bigger})  # a type the plan does not use: left out
    data = json.loads(json.dumps(carried.to_json()))
    assert data["account_quotas"] == {
        itype: {"instances": mine.instances + 8, "warm_pools": mine.warm_pools, "spot_instances": None}
    }
    assert FleetPlan.from_json(data).account_quotas == {itype: bigger}
    book = DispatchBook.from_plan(FleetPlan.from_json(data), load_fleet_spec(fleets_dir / "small.yaml"))
    assert book.capacity[(itype, "instances")] == mine.instances
    assert book.account_limit((itype, "instances")) == mine.instances + 8
    smaller = InstanceQuota(instances=max(1, mine.instances - 1), warm_pools=mine.warm_pools)
    book = DispatchBook.from_plan(plan.within({itype: smaller}), load_fleet_spec(fleets_dir / "small.yaml"))
    assert book.account_limit((itype, "instances")) == mine.instances  # never below the plan's own


def test_jobs_are_listed_lane_by_lane_in_position_order(plan: FleetPlan) -> None:
    order = [(job.lane, job.position) for job in plan.jobs]
    assert order == sorted(order)
    assert sorted({job.lane for job in plan.jobs}) == list(range(plan.summary.lanes))


def test_round_trip_through_json_text_rebuilds_the_same_plan(plan: FleetPlan) -> None:
    assert FleetPlan.from_json(plan.dumps()) == plan
    assert FleetPlan.from_json(json.loads(plan.dumps(indent=2))).to_json() == plan.to_json()


def test_lookups_by_city_lane_and_neighbour() -> None:
    cities = [city("a", 3000), city("b", 2000), city("c", 1000)]
    plan = plan_fleet(fleet(cities, {"ml.m5.xlarge": InstanceQuota(1, 1)}), RUN_KEY)
    assert [job.city for job in plan.lane_jobs(0)] == ["a", "b", "c"]
    assert plan.job("b").position == 1
    assert plan.predecessor("a") is None
    assert plan.predecessor("b") == plan.job("a")
    assert plan.successor("b") == plan.job("c")
    assert plan.successor("c") is None
    assert plan.group("g0").lanes == 1
    assert plan.lane(0).kind == "warm"
    with pytest.raises(KeyError, match="no city 'zzz'"):
        plan.job("zzz")
    with pytest.raises(KeyError, match="no lane 7"):
        plan.lane_jobs(7)


def test_key_with_vpc_and_kms_round_trips() -> None:
    from sagemaker_fleet.fleetspec.model import VpcSettings

    cities = [
        city(
            "a",
            role_arn=role(1),
            vpc=VpcSettings(("subnet-b", "subnet-a"), ("sg-1",)),
            volume_kms_key_id="alias/k",
        )
    ]
    plan = plan_fleet(fleet(cities), RUN_KEY)
    key = plan.to_json()["groups"][0]["key"]
    assert key["subnets"] == ["subnet-a", "subnet-b"]
    assert key["volume_kms_key_id"] == "alias/k"
    assert FleetPlan.from_json(plan.to_json()) == plan


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.pop("run_key"), "run_key: required field is missing"),
        (lambda d: d["jobs"][0].update(lane="0"), r"jobs\[0\]\.lane: expected an integer"),
        (lambda d: d["jobs"][0].update(start="tepid"), r"jobs\[0\]\.start: expected one of cold, warm"),
        (lambda d: d["groups"][0]["key"].update(subnets="x"), r"groups\[0\]\.key\.subnets: expected a list"),
        (lambda d: d["jobs"].append(dict(d["jobs"][0])), "appears twice"),
        (lambda d: d["jobs"][0].update(position=5), "positions are not"),
    ],
)
def test_malformed_plan_json_names_the_field(plan: FleetPlan, mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    data = json.loads(plan.dumps())
    mutate(data)
    with pytest.raises(PlanFormatError, match=message):
        FleetPlan.from_json(data)


def test_not_json_at_all_is_a_format_error() -> None:
    with pytest.raises(PlanFormatError, match="not JSON"):
        FleetPlan.from_json("{nope")
