"""The simulator takes every CreateTrainingJob field, describes back those DescribeTrainingJob returns, refuses a
channel named twice, and reports final metrics for jobs that define them (deterministic per city, run, attempt)."""

from __future__ import annotations

from typing import Any

import botocore.session
import pytest

from sagemaker_fleet.sim import SimApiError, SimEngine
from sagemaker_fleet.sim.metrics import (
    STEPS,
    MetricModel,
    city_level,
    city_metric_value,
    final_metrics,
    metric_value,
)
from sagemaker_fleet.sim.render import ECHOED
from sim_fixtures import make_request, run_until_ended

METRICS = [{"Name": "validation:rmse", "Regex": "rmse=(.*)"}, {"Name": "train:loss", "Regex": "loss=(.*)"}]
SPECIAL = {"TrainingJobName", "ResourceConfig", "StoppingCondition", "EnableManagedSpotTraining"} | {
    "EnableNetworkIsolation",
    "EnableInterContainerTrafficEncryption",
}


def test_every_member_describe_returns_of_a_request_is_echoed() -> None:
    model = botocore.session.get_session().get_service_model("sagemaker")
    created = set(model.operation_model("CreateTrainingJob").input_shape.members)
    described = set(model.operation_model("DescribeTrainingJob").output_shape.members)
    assert (created & described) - SPECIAL <= set(ECHOED)


def rich(name: str) -> dict[str, Any]:
    request = make_request(
        name,
        RetryStrategy={"MaximumRetryAttempts": 2},
        Environment={"CITY": "seoul"},
        VpcConfig={"Subnets": ["subnet-0a1b2c3d"], "SecurityGroupIds": ["sg-0a1b2c3d"]},
        InfraCheckConfig={"EnableInfraCheck": True},
    )
    request["AlgorithmSpecification"] = {
        **request["AlgorithmSpecification"],
        "ContainerEntrypoint": ["python", "train.py"],
        "ContainerArguments": ["--city", "seoul"],
        "MetricDefinitions": METRICS,
    }
    request["OutputDataConfig"]["KmsKeyId"] = "alias/ml-output"
    request["InputDataConfig"].append(
        {
            "ChannelName": "validation",
            "DataSource": {"S3DataSource": {"S3DataType": "S3Prefix", "S3Uri": "s3://b/v/"}},
        }
    )
    return request


def test_a_rich_request_is_described_back_with_its_final_metrics(sim_engine: SimEngine) -> None:
    request = rich("demand-seoul-20261129")
    sim_engine.create_training_job(request)
    described = run_until_ended(sim_engine, "demand-seoul-20261129")
    for key in (
        "AlgorithmSpecification",
        "InputDataConfig",
        "OutputDataConfig",
        "VpcConfig",
        "RetryStrategy",
    ):
        assert described[key] == request[key]
    assert described["InfraCheckConfig"] == {"EnableInfraCheck": True}
    metrics = described["FinalMetricDataList"]
    assert [m["MetricName"] for m in metrics] == ["validation:rmse", "train:loss"]
    assert metrics[0]["Value"] == metric_value("demand-seoul-20261129", "validation:rmse")
    assert all(0.05 <= m["Value"] < 0.95 and m["Timestamp"] == described["TrainingEndTime"] for m in metrics)


def test_final_metrics_differ_by_city_run_and_attempt_and_repeat_exactly() -> None:
    names = [
        "demand-seoul-20261129",
        "demand-lagos-20261129",
        "demand-seoul-20261130",
        "demand-seoul-20261129-r2",
    ]
    values = [metric_value(name, "validation:rmse") for name in names]
    assert len(set(values)) == len(values)
    assert values == [metric_value(name, "validation:rmse") for name in names]
    assert final_metrics("x", {"AlgorithmSpecification": {}}, 0.0) == []


def test_a_job_without_metric_definitions_reports_none(sim_engine: SimEngine) -> None:
    sim_engine.create_training_job(make_request("plain"))
    assert "FinalMetricDataList" not in run_until_ended(sim_engine, "plain")


def test_a_channel_named_twice_is_refused(sim_engine: SimEngine) -> None:
    request = rich("twice")
    request["InputDataConfig"].append(request["InputDataConfig"][-1])
    with pytest.raises(SimApiError) as refused:
        sim_engine.create_training_job(request)
    assert refused.value.code == "ValidationException"
    assert "channel 'validation' appears more than once" in refused.value.message


def test_a_city_s_metric_stays_near_its_level_and_moves_by_steps() -> None:
    """Two runs of a city give a better model, a worse one or exactly the same value (the registry gate's winners,
    losers and ties), each run at one of a few steps around the city's seeded level."""
    cities = [f"city{i}" for i in range(40)]
    ratios = set()
    for city in cities:
        level = city_level(7, "demand", city, "validation:rmse")
        assert 0.1 <= level < 0.9
        first, second = (
            city_metric_value(7, "demand", city, f"demand-{city}-{key}", "validation:rmse")
            for key in ("20261129", "20261130")
        )
        for value in (first, second):
            assert round(value / level, 2) in {round(step, 2) for step in STEPS}
        ratios.add("better" if second < first else "worse" if second > first else "tie")
    assert ratios == {"better", "worse", "tie"}
    assert city_metric_value(8, "demand", "city0", "demand-city0-20261129", "validation:rmse") != (
        city_metric_value(7, "demand", "city0", "demand-city0-20261129", "validation:rmse")
    )


def test_a_fleet_job_s_metrics_follow_its_city_and_a_missing_city_reports_none(sim_engine: SimEngine) -> None:
    request = rich("demand-seoul-20261129")
    request["Tags"] = [
        {"Key": "sagemaker-fleet:city", "Value": "seoul"},
        {"Key": "sagemaker-fleet:fleet", "Value": "demand"},
    ]
    sim_engine.create_training_job(request)
    metrics = run_until_ended(sim_engine, "demand-seoul-20261129")["FinalMetricDataList"]
    seed = sim_engine.config.seed
    assert metrics[0]["Value"] == city_metric_value(
        seed, "demand", "seoul", "demand-seoul-20261129", "validation:rmse"
    )
    sim_engine.configure(metrics=MetricModel(missing=frozenset({"demand/seoul"})))
    assert "FinalMetricDataList" not in sim_engine.describe_training_job("demand-seoul-20261129")
