"""The simulator's models: start-up calibration, billing, work, seeded streams."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec import parse_fleet_spec
from sagemaker_fleet.jobs.startup import IMAGE_PULL_P90, STARTUP_P90, seed_image_pull_seconds
from sagemaker_fleet.sim import CityRef, StartupModel, WorkModel
from sagemaker_fleet.sim.billing import bill
from sagemaker_fleet.sim.seeding import stream
from sagemaker_fleet.sim.startup_model import startup_mode


def p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.9 * (len(ordered) - 1))]


@pytest.mark.parametrize("mode", sorted(STARTUP_P90))
@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_simulated_startup_p90_matches_the_seed_table(mode: str, warm: bool) -> None:
    model = StartupModel()
    rng = stream(3, "calibration", mode, warm)
    samples = [model.sample(mode, warm=warm, rng=rng).total for _ in range(20_000)]
    expected = STARTUP_P90[mode].warm if warm else STARTUP_P90[mode].cold
    assert p90(samples) == pytest.approx(expected, rel=0.03)
    assert min(samples) < expected  # a spread, not a constant


def test_a_warm_start_skips_most_provisioning() -> None:
    model = StartupModel()
    cold = model.sample("FastFile", warm=False, rng=stream(1, "x"))
    warm = model.sample("FastFile", warm=True, rng=stream(1, "x"))
    assert warm.total < cold.total
    assert warm.starting / warm.total < cold.starting / cold.total


def test_startup_mode_defaults_to_file() -> None:
    assert startup_mode({}) == "File"
    assert startup_mode({"AlgorithmSpecification": {"TrainingInputMode": "Pipe"}}) == "Pipe"


def test_on_demand_billing_is_the_running_time() -> None:
    billing = bill(612.4, 0.0, spot=False, discount=0.0)
    assert (billing.training_seconds, billing.billable_seconds) == (612, 612)


def test_spot_billing_excludes_lost_time_and_applies_the_discount() -> None:
    billing = bill(600.0, 100.0, spot=True, discount=0.8)
    assert (billing.training_seconds, billing.billable_seconds) == (500, 100)
    assert billing.savings_pct == pytest.approx(80.0)  # the API reference's example: 100 / 500


def test_nothing_run_bills_nothing() -> None:
    assert bill(0.0, 0.0, spot=True, discount=0.7).billable_seconds == 0


FLEET = """
fleet: demo
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/demo
defaults: {instance_type: ml.m5.xlarge}
cities:
  - {name: seoul, train_s3_uri: "s3://acme-ml/data/seoul/", expected_seconds: 1800}
  - {name: lima, train_s3_uri: "s3://acme-ml/data/lima/", expected_seconds: 900}
"""


def test_work_precedence_job_then_city_override_then_fleet_spec_then_default() -> None:
    work = WorkModel.from_fleets([parse_fleet_spec(FLEET)], default_seconds=600, spread=0.0)
    seoul = {"sagemaker-fleet:fleet": "demo", "sagemaker-fleet:city": "seoul"}

    assert work.estimate("demo-seoul-1", seoul, seed=1).seconds == 1800
    assert work.estimate("demo-seoul-1", seoul, seed=1).source == "fleet-spec"
    assert work.estimate("x", {}, seed=1).seconds == 600
    overridden = work.with_city_override("seoul", 100)
    assert overridden.estimate("demo-seoul-1", seoul, seed=1).seconds == 100
    assert (
        overridden.with_job_override("demo-seoul-1", 5).estimate("demo-seoul-1", seoul, seed=1).seconds == 5
    )


def test_a_fleet_qualified_override_wins_over_a_plain_one() -> None:
    work = WorkModel(spread=0.0).with_city_override("seoul", 10).with_city_override("seoul", 20, fleet="demo")
    assert (
        work.estimate("j", {"sagemaker-fleet:fleet": "demo", "sagemaker-fleet:city": "seoul"}, 0).seconds
        == 20
    )
    assert (
        work.estimate("j", {"sagemaker-fleet:fleet": "other", "sagemaker-fleet:city": "seoul"}, 0).seconds
        == 10
    )
    assert CityRef("seoul", "demo") in work.city_overrides


def test_spread_is_seeded_per_job_and_varies_across_jobs() -> None:
    work = WorkModel(default_seconds=1000, spread=0.15)
    first = work.estimate("job-1", {}, seed=4).seconds
    assert work.estimate("job-1", {}, seed=4).seconds == first
    values = {round(work.estimate(f"job-{i}", {}, seed=4).seconds) for i in range(50)}
    assert len(values) > 40
    assert all(250 <= v <= 3000 for v in values)


def test_streams_do_not_depend_on_call_order() -> None:
    a = stream(9, "job", "startup", 1).random()
    stream(9, "other").random()
    assert stream(9, "job", "startup", 1).random() == a
    assert stream(10, "job", "startup", 1).random() != a


@pytest.mark.parametrize("mode", sorted(STARTUP_P90))
def test_a_warm_start_with_another_image_adds_the_image_pull(mode: str) -> None:
    model = StartupModel()
    rng = stream(3, "pull", mode)
    samples = [model.sample(mode, warm=True, rng=rng, image_pulled=True) for _ in range(20_000)]
    assert p90([s.total for s in samples]) == pytest.approx(STARTUP_P90[mode].warm + IMAGE_PULL_P90, rel=0.03)
    assert p90([s.image_pull for s in samples]) == pytest.approx(IMAGE_PULL_P90, rel=0.03)


def test_the_image_pull_is_downloading_and_provisioning_is_starting() -> None:
    model = StartupModel(spread=0.0)  # every draw is the P90
    cold = model.sample("FastFile", warm=False, rng=stream(1, "x"))
    cached = model.sample("FastFile", warm=True, rng=stream(1, "x"))
    pulled = model.sample("FastFile", warm=True, rng=stream(1, "x"), image_pulled=True)
    assert cold.total == pytest.approx(143)
    assert cold.image_pull == pulled.image_pull == IMAGE_PULL_P90
    assert cached.image_pull == 0
    assert pulled.starting == pytest.approx(cached.starting)  # no provisioning on a pool
    assert pulled.downloading - cached.downloading == pytest.approx(IMAGE_PULL_P90)
    assert cold.starting - cached.starting == pytest.approx(143 - 21 - IMAGE_PULL_P90)  # provisioning


def test_the_image_pull_is_derived_from_the_seed_download_rate() -> None:
    # warm File − warm FSx = 51 s copy 2 GB; the seed's 1.34 GB image at that rate
    assert seed_image_pull_seconds() == IMAGE_PULL_P90 == round(1.34 * (70 - 19) / 2)
