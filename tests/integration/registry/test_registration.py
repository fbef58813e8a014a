"""A fleet's models registered through the gate against the simulated endpoint over HTTP (boto3): the first run,
a second run against the champions, a person's approval and rejection in between, a retried registration, a lost
answer, a city without the metric, ``losers: skip``, ``approve: PendingManualApproval`` and a champion registered by
someone else (docs/guides/model-registry.md)."""

from __future__ import annotations

import copy
import json
import types
from typing import TYPE_CHECKING, Any

import botocore.endpoint
import pytest
import yaml
from botocore.config import Config

from sagemaker_fleet.fleetspec import FleetSpec, parse_fleet_spec
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.registry.packages import client_token
from sagemaker_fleet.registry.registration import CityModel, register_city, register_run

if TYPE_CHECKING:
    from sagemaker_fleet.registry.decision import RunDecisions
    from sagemaker_fleet.sim.client import SimClient

pytestmark = pytest.mark.integration

CITIES = [f"city{i:02d}" for i in range(16)]
BOUND = 0.5
MARGIN = 0.02
SPEC: dict[str, Any] = {
    "fleet": "gate",
    "region": "us-east-1",
    "role_arn": "arn:aws:iam::111122223333:role/FleetTraining",
    "image_uri": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4",
    "output_s3_uri": "s3://acme-ml/fleets/gate",
    "quotas": {"ml.m5.xlarge": {"instances": 20, "warm_pools": 0}},
    "defaults": {"instance_type": "ml.m5.xlarge", "expected_seconds": 300},
    "job": {
        "AlgorithmSpecification": {
            "MetricDefinitions": [{"Name": "validation:rmse", "Regex": "val_rmse=([0-9.]+)"}]
        }
    },
    "register": {
        "group": "{fleet}-{city}",
        "metric": "validation:rmse",
        "direction": "minimize",
        "margin": MARGIN,
        "bound": BOUND,
        "tags": {"team": "forecasting"},
        "inference": {
            "Containers": [{"Image": "111122223333.dkr.ecr.us-east-1.amazonaws.com/serve:2.1"}],
            "SupportedContentTypes": ["text/csv"],
        },
    },
    "cities": [{"name": city, "train_s3_uri": f"s3://acme-ml/data/{city}/"} for city in CITIES],
}


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(botocore.endpoint, "time", types.SimpleNamespace(sleep=lambda seconds: None))


def load(**register: Any) -> FleetSpec:
    data = copy.deepcopy(SPEC)
    data["register"].update(register)
    return parse_fleet_spec(yaml.safe_dump(data), model=BOTOCORE_MODEL)


def client(sim: SimClient) -> Any:
    return sim.boto3_client("sagemaker", config=Config(retries={"mode": "standard", "max_attempts": 10}))


def train(sim: SimClient, spec: FleetSpec, run_key: str) -> dict[str, dict[str, Any]]:
    """Every city's job of the run, created and run to its end in the simulator: city → DescribeTrainingJob."""
    sm = client(sim)
    for city in spec.cities:
        sm.create_training_job(**compile_training_request(spec, city, Submission(city.name, run_key)))
    sim.advance(6 * 3600)
    return {
        city.name: sm.describe_training_job(TrainingJobName=f"{spec.fleet}-{city.name}-{run_key}")
        for city in spec.cities
    }


def register(sim: SimClient, spec: FleetSpec, run_key: str, jobs: dict[str, dict[str, Any]]) -> RunDecisions:
    models = [
        CityModel(city.name, city.register, jobs.get(city.name)) for city in spec.cities if city.register
    ]
    registration = register_run(client(sim), spec.fleet, run_key, models)
    assert registration.failed == {}
    return registration.decisions


def metric(job: dict[str, Any]) -> float:
    (value,) = [m["Value"] for m in job["FinalMetricDataList"] if m["MetricName"] == "validation:rmse"]
    return float(value)


def packages(sim: SimClient) -> list[dict[str, Any]]:
    return list(sim.registry()["packages"])


def test_two_runs_a_person_between_them_and_the_registry_s_record(sim: SimClient) -> None:
    spec = load()
    first = train(sim, spec, "20261129")
    decisions = register(sim, spec, "20261129", first)
    # the oracle: the rule as the guide writes it, from the simulator's own metrics
    passed = {city for city, job in first.items() if metric(job) <= BOUND}
    assert {d.city for d in decisions.of("approved")} == passed
    assert {d.city for d in decisions.of("rejected")} == set(CITIES) - passed
    assert passed, "the seeded metrics give winners"
    assert set(CITIES) - passed, "the seeded metrics give losers"
    assert len(packages(sim)) == len(CITIES)
    sm = client(sim)
    for decision in decisions.cities:
        described = sm.describe_model_package(ModelPackageName=decision.package_arn)
        expected = "Approved" if decision.city in passed else "Rejected"
        assert described["ModelApprovalStatus"] == expected
        assert described["ApprovalDescription"] == decision.reason
        assert ("≤ the bound 0.5" if decision.city in passed else "> the bound 0.5") in decision.reason
        container = described["InferenceSpecification"]["Containers"][0]
        assert container["ModelDataUrl"] == first[decision.city]["ModelArtifacts"]["S3ModelArtifacts"]
        record = described["CustomerMetadataProperties"]
        assert record["sagemaker-fleet:training-job"] == f"gate-{decision.city}-20261129"
        assert float(record["sagemaker-fleet:value"]) == metric(first[decision.city])
    group = sm.describe_model_package_group(ModelPackageGroupName="gate-city00")
    tags = {t["Key"]: t["Value"] for t in sm.list_tags(ResourceArn=group["ModelPackageGroupArn"])["Tags"]}
    assert tags == {"team": "forecasting", "sagemaker-fleet:fleet": "gate", "sagemaker-fleet:city": "city00"}

    # between the runs a person rejects one champion: its city has no Approved champion and meets the bound again
    rejected_by_person = sorted(passed)[0]
    sm.update_model_package(
        ModelPackageArn=decisions.by_city()[rejected_by_person].package_arn,
        ModelApprovalStatus="Rejected",
        ApprovalDescription="drifted in production",
    )
    second = train(sim, spec, "20261130")
    again = register(sim, spec, "20261130", second)
    expected = set()
    for city in CITIES:
        value = metric(second[city])
        if city in passed and city != rejected_by_person:
            champion = metric(first[city])
            winner = value <= champion * (1 - MARGIN)
            assert again.by_city()[city].champion == champion
            assert again.by_city()[city].champion_arn == decisions.by_city()[city].package_arn
        else:
            winner = value <= BOUND
            assert again.by_city()[city].champion is None
        if winner:
            expected.add(city)
    assert {d.city for d in again.of("approved")} == expected
    assert {d.city for d in again.of("rejected")} == set(CITIES) - expected
    champions = [c for c in passed if c != rejected_by_person]
    kinds = {
        "better": [c for c in champions if metric(second[c]) <= metric(first[c]) * (1 - MARGIN)],
        "tie": [c for c in champions if metric(second[c]) == metric(first[c])],
        "worse": [c for c in champions if metric(second[c]) > metric(first[c])],
    }
    assert all(kinds.values()), f"the seeded metrics give winners, ties and losers against champions: {kinds}"
    assert len(packages(sim)) == 2 * len(CITIES)


def test_a_retried_registration_finds_its_package_and_decides_nothing_again(sim: SimClient) -> None:
    spec = load()
    jobs = train(sim, spec, "20261129")
    city = spec.cities[0]
    model = CityModel(city.name, city.register, jobs[city.name])  # type: ignore[arg-type]
    first = register_city(client(sim), spec.fleet, "20261129", model)
    # a person approves it meanwhile; the retry reports the decision as made, and the status as it is now
    client(sim).update_model_package(ModelPackageArn=first.package_arn, ModelApprovalStatus="Approved")
    again = register_city(client(sim), spec.fleet, "20261129", model)
    assert again.found
    assert (again.package_arn, again.decision, again.reason) == (
        first.package_arn,
        first.decision,
        first.reason,
    )
    assert again.status == "Approved"
    assert len(packages(sim)) == 1
    assert packages(sim)[0]["client_token"] == client_token(first.job_name or "")


def test_a_lost_answer_and_throttling_are_retried_and_one_package_stands(sim: SimClient) -> None:
    spec = load()
    jobs = train(sim, spec, "20261129")
    # Shares the client's ten attempts and its retry quota absorb whatever order the cities' threads take: at 0.5 a
    # call loses all ten one time in a thousand, and a CI run once reported a city failed; at 0.3 it never does in
    # practice (6 in a million), and a dozen calls still err each run.
    sim.api_errors(
        0.3, ["CreateModelPackage", "UpdateModelPackage", "DescribeModelPackageGroup"], after_commit=True
    )
    sim.throttle(0.2, ["ListModelPackages", "CreateModelPackageGroup", "DescribeModelPackage"])
    decisions = register(sim, spec, "20261129", jobs)
    sim.api_errors(0.0)
    sim.throttle(0.0)
    calls = sim.calls()
    assert calls["errors"]["CreateModelPackage:InternalFailure"] > 0
    assert sum(calls["throttled"].values()) > 0
    assert len(packages(sim)) == len(CITIES)
    assert sorted(p["client_token"] for p in packages(sim)) == sorted(
        client_token(f"gate-{city}-20261129") for city in CITIES
    )
    assert {d.decision for d in decisions.cities} <= {"approved", "rejected"}


def test_no_metric_not_trained_skip_and_pending(sim: SimClient) -> None:
    spec = load(losers="skip", approve="PendingManualApproval")
    sim.metrics_missing(["gate/city03"])
    jobs = train(sim, spec, "20261129")
    del jobs["city04"]  # no job in the run
    decisions = register(sim, spec, "20261129", jobs).by_city()
    assert decisions["city03"].decision == "no_metric"
    assert "reported no validation:rmse" in decisions["city03"].reason
    assert decisions["city04"].decision == "not_trained"
    registered = {p["group"] for p in packages(sim)}
    assert {"gate-city03", "gate-city04"}.isdisjoint(registered)
    for city, decision in decisions.items():
        if city in ("city03", "city04"):
            continue
        if metric(jobs[city]) <= BOUND:
            assert (decision.decision, decision.status) == ("pending", "PendingManualApproval")
        else:
            assert (decision.decision, decision.package_arn) == ("rejected", None)
            assert f"gate-{city}" not in registered
            assert decision.reason.endswith("rejected, not registered (losers: skip)")


def test_a_champion_registered_by_someone_else_is_read_from_its_training_job(sim: SimClient) -> None:
    spec = load()
    jobs = train(sim, spec, "20261129")
    sm = client(sim)
    sm.create_model_package_group(ModelPackageGroupName="gate-city01")
    artifact = jobs["city01"]["ModelArtifacts"]["S3ModelArtifacts"]
    foreign = sm.create_model_package(
        ModelPackageGroupName="gate-city01",
        InferenceSpecification={
            "Containers": [{"Image": "x.dkr.ecr.us-east-1.amazonaws.com/s:1", "ModelDataUrl": artifact}]
        },
        ModelApprovalStatus="Approved",
    )["ModelPackageArn"]
    sm.create_model_package_group(ModelPackageGroupName="gate-city02")
    unknown = sm.create_model_package(
        ModelPackageGroupName="gate-city02",
        InferenceSpecification={"Containers": [{"Image": "x.dkr.ecr.us-east-1.amazonaws.com/s:1"}]},
        ModelApprovalStatus="Approved",
    )["ModelPackageArn"]
    second = train(sim, spec, "20261130")
    decisions = register(sim, spec, "20261130", {c: second[c] for c in ("city01", "city02")}).by_city()
    assert decisions["city01"].champion_arn == foreign
    assert decisions["city01"].champion == metric(jobs["city01"])
    assert decisions["city02"].champion_arn == unknown
    assert (decisions["city02"].decision, decisions["city02"].status) == ("pending", "PendingManualApproval")
    assert "has no recorded validation:rmse" in decisions["city02"].reason


def test_a_try_that_stopped_before_the_reason_is_mended_by_the_next(sim: SimClient) -> None:
    """The package is made but its ApprovalDescription never written (every UpdateModelPackage fails): the task's
    next try finds the package, writes the reason from its description and registers nothing more."""
    spec = load()
    jobs = train(sim, spec, "20261129")
    city = spec.cities[5]
    model = CityModel(city.name, city.register, jobs[city.name])  # type: ignore[arg-type]
    sim.api_errors(1.0, ["UpdateModelPackage"])
    impatient = sim.boto3_client(
        "sagemaker", config=Config(retries={"mode": "standard", "total_max_attempts": 1})
    )
    with pytest.raises(Exception, match="InternalFailure"):
        register_city(impatient, spec.fleet, "20261129", model)
    (made,) = packages(sim)
    assert made["approval_description"] is None
    sim.api_errors(0.0)
    again = register_city(client(sim), spec.fleet, "20261129", model)
    assert again.found
    (mended,) = packages(sim)
    assert mended["approval_description"] == again.reason
    assert again.reason.startswith("no Approved champion; validation:rmse ")


def test_the_models_command_lists_each_city_s_champion_and_last_model(
    sim: SimClient, tmp_path: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from sagemaker_fleet.cli.main import main

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")

    path = tmp_path / "gate.yaml"
    path.write_text(yaml.safe_dump(SPEC))
    spec = load()
    first = train(sim, spec, "20261129")
    decisions = register(sim, spec, "20261129", first)
    second = train(sim, spec, "20261130")
    again = register(sim, spec, "20261130", {c: second[c] for c in CITIES[:8]})
    assert main(["models", str(path), "--endpoint-url", sim.url, "--json"]) == 0
    shown = {row["city"]: row for row in json.loads(capsys.readouterr().out)}
    for city in CITIES[:8]:
        now = again.by_city()[city]
        champion = now if now.decision == "approved" else decisions.by_city()[city]
        if champion.decision == "approved":
            assert shown[city]["champion_arn"] == champion.package_arn
            assert shown[city]["champion_value"] == champion.challenger
            assert shown[city]["champion_age_seconds"] >= 0
        else:
            assert shown[city]["champion"] is None
        assert shown[city]["last_job"] == f"gate-{city}-20261130"
        assert (shown[city]["last_decision"], shown[city]["last_value"]) == (now.decision, now.challenger)
    assert shown[CITIES[8]]["last_job"] == f"gate-{CITIES[8]}-20261129"
    assert main(["models", str(path), "--endpoint-url", sim.url]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["city", "champion", "validation:rmse", "age", "last", "model"]
    assert len(lines) == 1 + len(CITIES)
    sim.reset()
    assert main(["models", str(path), "--endpoint-url", sim.url]) == 0
    assert "no group gate-city00 yet" in capsys.readouterr().out
    bare = tmp_path / "bare.yaml"
    bare.write_text(yaml.safe_dump({k: v for k, v in SPEC.items() if k != "register"}))
    assert main(["models", str(bare), "--endpoint-url", sim.url]) == 2
    assert "no city registers its models" in capsys.readouterr().err
