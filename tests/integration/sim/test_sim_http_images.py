"""A warm start whose training image differs from the pool's previous job's pulls the image again — over HTTP.

boto3 against a :class:`SimulatorServer` whose start-up draws are their P90s (spread 0), so the seconds are exact:
the image pull shows as a longer ``Downloading`` in SecondaryStatusTransitions, with a message that says why.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from sagemaker_fleet.fleetspec.builtin_images import builtin_xgboost
from sagemaker_fleet.jobs.startup import IMAGE_PULL_P90, STARTUP_P90
from sagemaker_fleet.sim import SimConfig, StartupModel, TimingConfig
from sagemaker_fleet.sim.client import SimClient
from sagemaker_fleet.sim.server import ServerSettings, SimulatorServer
from sim_fixtures import QUIET_SPOT, advance_until, make_request

pytestmark = pytest.mark.integration
ENDED = {"Completed", "Failed", "Stopped"}
IMAGE_2 = {
    "TrainingImage": "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:2.0",
    "TrainingInputMode": "FastFile",
}
EXACT = SimConfig(seed=7, spot=QUIET_SPOT, timing=TimingConfig(startup=StartupModel(spread=0.0)))


@pytest.fixture(scope="module")
def exact_sim() -> Iterator[SimClient]:
    with SimulatorServer(ServerSettings(speed=1.0, config=EXACT, with_moto=False)) as server:
        yield SimClient(server.url)


def phases(described: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {t["Status"]: t for t in described["SecondaryStatusTransitions"]}


def seconds(phase: dict[str, Any]) -> float:
    return float((phase["EndTime"] - phase["StartTime"]).total_seconds())


def test_a_changed_image_is_pulled_again_on_the_warm_pool(exact_sim: SimClient) -> None:
    exact_sim.reset(moto=False)
    sm = exact_sim.boto3_client("sagemaker")
    chain = [("img1-a", {}), ("img1-b", {}), ("img2-c", {"AlgorithmSpecification": IMAGE_2})]
    for name, overrides in chain:
        sm.create_training_job(**make_request(name, keep_alive=600, **overrides))
        advance_until(exact_sim, sm, name, ENDED, step=30.0)
    described = {name: sm.describe_training_job(TrainingJobName=name) for name, _ in chain}
    assert described["img1-a"]["WarmPoolStatus"]["ReusedByJob"] == "img1-b"
    assert described["img1-b"]["WarmPoolStatus"]["ReusedByJob"] == "img2-c"
    assert described["img2-c"]["AlgorithmSpecification"]["TrainingImage"] == IMAGE_2["TrainingImage"]

    cached, pulled = phases(described["img1-b"]), phases(described["img2-c"])
    assert seconds(pulled["Downloading"]) - seconds(cached["Downloading"]) == pytest.approx(
        IMAGE_PULL_P90, abs=0.01
    )
    assert seconds(pulled["Starting"]) == pytest.approx(seconds(cached["Starting"]), abs=0.01)  # both warm
    assert "differs" in pulled["Downloading"]["StatusMessage"]
    assert "cached" in cached["Downloading"]["StatusMessage"]

    facts = {name: exact_sim.job(name) for name, _ in chain}
    assert [(f["start"], f["image_pulled"]) for f in facts.values()] == [
        ("cold", False),
        ("warm", False),
        ("warm", True),
    ]
    warm = STARTUP_P90["FastFile"].warm
    assert facts["img2-c"]["startup_seconds"] == pytest.approx(warm + IMAGE_PULL_P90, abs=0.01)
    assert facts["img1-b"]["startup_seconds"] == pytest.approx(warm, abs=0.01)
    # the pull is on the bill: Downloading is billed, Starting is not
    assert described["img2-c"]["BillableTimeInSeconds"] > described["img1-b"]["BillableTimeInSeconds"]


def test_every_regions_builtin_xgboost_image_is_accepted_and_trains(exact_sim: SimClient) -> None:
    """SageMaker's built-in image of each region in the pilot's table (``sagemaker-fleet pilot``): a job of that
    region, with that image, is created and trains to Completed on the simulated endpoint — the isolated and
    China partitions' hosts included."""
    exact_sim.reset(moto=False)
    table = builtin_xgboost()
    names = {}
    for n, region in enumerate(table.regions):
        sm = exact_sim.boto3_client("sagemaker", region_name=region)
        image = {"TrainingImage": table.image_uri(region), "TrainingInputMode": "File"}
        names[region] = f"xgb-{n}"
        sm.create_training_job(
            **make_request(
                names[region], AlgorithmSpecification=image, ResourceConfig={"InstanceType": "ml.m5.large"}
            )
        )
    for region, name in names.items():
        sm = exact_sim.boto3_client("sagemaker", region_name=region)
        described = advance_until(exact_sim, sm, name, ENDED, step=60.0)
        assert described["TrainingJobStatus"] == "Completed", (region, described["SecondaryStatus"])
        assert described["AlgorithmSpecification"]["TrainingImage"] == table.image_uri(region)
