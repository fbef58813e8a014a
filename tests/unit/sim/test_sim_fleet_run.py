"""A whole fleet in virtual time through the engine's driver API (what ``simulate`` builds on)."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from sagemaker_fleet.fleetspec import InstanceQuota, parse_fleet_spec
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.sim import JobEvent, SimEngine, VirtualClock, WorkModel
from sim_fixtures import TEST_CONFIG

CITIES = 1000
LANES = 20


def fleet_yaml(cities: int) -> str:
    lines = [
        "fleet: big",
        "region: us-east-1",
        "role_arn: arn:aws:iam::111122223333:role/FleetTraining",
        "image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
        "output_s3_uri: s3://acme-ml/fleets/big",
        "defaults: {instance_type: ml.m5.xlarge, expected_seconds: 900}",
        "cities:",
    ]
    lines += [f'  - {{name: c{i:04d}, train_s3_uri: "s3://acme-ml/data/c{i:04d}/"}}' for i in range(cities)]
    return "\n".join(lines)


def run_fleet(seed: int) -> tuple[SimEngine, list[str]]:
    """20 lanes; each lane submits its next city when its previous job ends (reacting to the engine's events)."""
    fleet = parse_fleet_spec(fleet_yaml(CITIES))
    quota = MappingProxyType({"ml.m5.xlarge": InstanceQuota(instances=LANES, warm_pools=LANES)})
    config = replace(TEST_CONFIG, seed=seed, work=WorkModel.from_fleets([fleet]), quotas=quota)
    engine = SimEngine(config, VirtualClock())
    queue = list(fleet.cities)
    submitted: list[str] = []

    def submit() -> None:
        city = queue.pop(0)
        request = compile_training_request(
            fleet, city, Submission(city.name, "20261129", keep_alive_seconds=300)
        )
        engine.create_training_job(request)
        submitted.append(request["TrainingJobName"])

    def on_event(event: JobEvent) -> None:
        if event.status in ("Completed", "Failed", "Stopped") and queue:
            submit()

    engine.subscribe(on_event)
    for _ in range(LANES):
        submit()
    while (upcoming := engine.next_event_time()) is not None:
        engine.run_until(upcoming)
    return engine, submitted


def test_a_thousand_city_fleet_runs_to_completion_in_virtual_time() -> None:
    engine, submitted = run_fleet(seed=11)

    assert len(submitted) == CITIES
    facts = [engine.facts(name) for name in submitted]
    assert {f.status for f in facts} == {"Completed"}
    warm = sum(1 for f in facts if f.start == "warm")
    assert warm == CITIES - LANES  # every lane after its first job starts on its predecessor's pool
    assert {p["status"] for p in engine.snapshot()["pools"]} == {"Terminated"}  # all expired at the end


def test_the_same_seed_gives_the_same_run() -> None:
    first, names = run_fleet(seed=5)
    second, _ = run_fleet(seed=5)
    assert [first.facts(n) for n in names[:50]] == [second.facts(n) for n in names[:50]]
