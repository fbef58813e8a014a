"""The quota a plan asks for (``summary.quota_request`` and the table's "Request this quota"): per instance type,
the most instances its lanes hold at one instant, read back from the planned jobs themselves."""

from __future__ import annotations

import json

from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.plan import FleetPlan, plan_fleet
from sagemaker_fleet.plan.render import render_table
from unit.plan.plan_fleets import RUN_KEY, city, fleet, role, spot


def _plan() -> FleetPlan:
    cities = [city(f"a{i}", 1200) for i in range(12)]
    cities += [city(f"s{i}", 900, spot=spot()) for i in range(2)]
    cities += [city(f"b{i}", 1500, instance_type="ml.m5.2xlarge", role_arn=role(1)) for i in range(3)]
    quotas = {
        "ml.m5.xlarge": InstanceQuota(instances=5, warm_pools=3, spot_instances=4),
        "ml.m5.2xlarge": InstanceQuota(instances=2, warm_pools=2),
    }
    return plan_fleet(fleet(cities, quotas), RUN_KEY)


def _held_at_peak(plan: FleetPlan, instance_type: str, kinds: set[str]) -> int:
    """Instances held at the busiest instant, counted from the jobs: a warm lane until its last keep-alive ends."""
    spans = []
    for lane in plan.lanes:
        group = plan.group(lane.group)
        if group.key.instance_type != instance_type or lane.kind not in kinds:
            continue
        tail = lane.jobs[-1].keep_alive_seconds if lane.kind == "warm" else 0
        spans.append((lane.start_seconds, lane.end_seconds + tail, group.key.instance_count))
    instants = {start for start, _, _ in spans}
    return max((sum(n for s, e, n in spans if s <= t < e) for t in instants), default=0)


def test_quota_request_is_the_peak_the_plan_holds_and_within_the_spec() -> None:
    plan = _plan()
    requests = {q.instance_type: q for q in plan.summary.quota_request}
    assert list(requests) == ["ml.m5.xlarge", "ml.m5.2xlarge"]
    for instance_type, request in requests.items():
        assert request.instances == _held_at_peak(plan, instance_type, {"warm", "cold"})
        assert request.warm_pools == _held_at_peak(plan, instance_type, {"warm"})
        assert request.spot_instances == _held_at_peak(plan, instance_type, {"spot"})
    xlarge, xxlarge = requests["ml.m5.xlarge"], requests["ml.m5.2xlarge"]
    assert (xlarge.warm_pools, xlarge.spot_instances) == (
        3,
        2,
    )  # all three pools kept; both spot cities at once
    assert 3 <= xlarge.instances <= 5
    assert xxlarge.spot_instances == 0
    assert 1 <= xxlarge.warm_pools <= xxlarge.instances <= 2


def test_quota_request_is_in_the_table_and_the_json_and_round_trips() -> None:
    plan = _plan()
    table = render_table(plan)
    assert "Request this quota" in table
    for q in plan.summary.quota_request:
        assert f"  {q.instance_type:<16} {q.instances:>9} {q.warm_pools:>10} {q.spot_instances:>5}" in table
    data = json.loads(plan.dumps())
    assert data["summary"]["quota_request"][0] == {
        "instance_type": "ml.m5.xlarge",
        "instances": plan.summary.quota_request[0].instances,
        "warm_pools": 3,
        "spot_instances": 2,
    }
    assert FleetPlan.from_json(plan.dumps()).summary == plan.summary
    del data["summary"]["quota_request"]  # a plan written before the field still reads
    assert FleetPlan.from_json(data).summary.quota_request == ()
