"""Several fleets on one simulated account (``simulate A.yaml B.yaml``): each run account-aware as the triggerer
runs them side by side, one engine's quotas between them. Fleets of one warm-pool key on an account of 12
instances and 8 warm pools, each declaring the whole quota (what docs/guides/aws.md asks a team to write)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec, InstanceQuota
from sagemaker_fleet.simulate import (
    AccountResult,
    AccountRun,
    AccountSimulation,
    SimulateOptions,
    SimulationError,
    account_quotas,
    fleet_run,
    simulate_account,
)

ROLE = "arn:aws:iam::111122223333:role/FleetTraining"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"
ACCOUNT = InstanceQuota(instances=12, warm_pools=8)
RUN_KEY = "20261129"
#: The second run's first sweep a few seconds after the first's, as for two DAG runs triggered together.
APART = 3.0


def durations(n: int, seed: int = 7) -> list[int]:
    rng = random.Random(seed)
    return [rng.randint(600, 1800) for _ in range(n)]


def fleet(
    name: str, seconds: list[int], quota: InstanceQuota = ACCOUNT, region: str = "us-east-1"
) -> FleetSpec:
    cities = tuple(
        CitySpec(
            name=f"{name}{i:03d}",
            train_s3_uri=f"s3://acme-ml/data/{name}{i:03d}/",
            role_arn=ROLE,
            image_uri=IMAGE,
            instance_type="ml.m5.xlarge",
            expected_seconds=expected,
        )
        for i, expected in enumerate(seconds)
    )
    return FleetSpec(
        fleet=name,
        region=region,
        role_arn=ROLE,
        image_uri=IMAGE,
        output_s3_uri=f"s3://acme-ml/fleets/{name}",
        cities=cities,
        quotas={"ml.m5.xlarge": quota},
    )


def account(*runs: AccountRun) -> dict[str, Any]:
    return simulate_account(list(runs)).to_json()["account"]


def one(seconds: list[int], name: str = "one") -> dict[str, Any]:
    """The same cities as ONE fleet on the account: what it can do (the reference)."""
    return account(AccountRun(fleet(name, seconds), RUN_KEY))


@pytest.fixture
def view_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each run counts only its own jobs, as before the account view (built with ``account=False``)."""
    build = fleet_run.dispatch_from_plan

    def own_jobs_only(*args: Any, **kwargs: Any) -> Any:
        return build(*args, **kwargs, account=False)

    monkeypatch.setattr(fleet_run, "dispatch_from_plan", own_jobs_only)


def assert_all_done(doc: dict[str, Any], cities: int) -> None:
    assert (doc["completed"], doc["lost"], doc["duplicated"]) == (cities, 0, 0)


# ------------------------------------------------------------------------------------------ the scenarios


def pair(seconds: list[int]) -> list[AccountRun]:
    half = len(seconds) // 2
    return [
        AccountRun(fleet("fa", seconds[:half]), RUN_KEY),
        AccountRun(fleet("fb", seconds[half:]), RUN_KEY, APART),
    ]


def test_two_fleets_declaring_the_whole_quota_meet_no_resource_limit_and_run_as_long_as_one() -> None:
    seconds = durations(80)
    doc = account(*pair(seconds))
    alone = one(seconds)
    assert doc["resource_limit_exceeded"] == 0
    assert_all_done(doc, 80)
    assert doc["makespan_seconds"] <= 1.05 * alone["makespan_seconds"]
    assert doc["idle_share"] < 0.01


@pytest.mark.usefixtures("view_off")
def test_without_the_account_view_the_same_pair_runs_into_each_others_quota() -> None:
    doc = account(*pair(durations(80)))
    assert doc["resource_limit_exceeded"] > 20
    assert_all_done(doc, 80)


@pytest.mark.parametrize("apart", [2.0, 5.0, 7.0, 13.0, 35.0])
def test_the_pair_meets_no_resource_limit_whatever_the_phase_of_its_sweeps(apart: float) -> None:
    """Sweeps 5 s or 35 s apart once made 13 refusals: a pool seen in an old description was taken meanwhile."""
    runs = pair(durations(80))
    doc = account(runs[0], AccountRun(runs[1].spec, RUN_KEY, apart))
    assert doc["resource_limit_exceeded"] == 0


def test_runs_sweeping_in_the_same_second_race_once_per_contested_room_not_in_cascades() -> None:
    """Two runs started in the same instant sweep in lockstep: neither sees the other's admitted city before it is
    created (the hand-off), so both admit into the same room. A refusal fills the quota until the next listing
    instead of passing the place on to be refused again (192 refusals before, ten in a row at a time)."""
    seconds = durations(80)
    half = len(seconds) // 2
    doc = account(
        AccountRun(fleet("fa", seconds[:half]), RUN_KEY), AccountRun(fleet("fb", seconds[half:]), RUN_KEY)
    )
    assert 0 < doc["resource_limit_exceeded"] <= 60
    assert_all_done(doc, 80)


def test_a_small_fleet_beside_a_big_one() -> None:
    seconds = durations(80)
    runs = [
        AccountRun(fleet("small", seconds[:16]), RUN_KEY),
        AccountRun(fleet("big", seconds[16:]), RUN_KEY, APART),
    ]
    result = simulate_account(runs)
    doc = result.to_json()
    assert doc["account"]["resource_limit_exceeded"] == 0
    assert_all_done(doc["account"], 80)
    assert doc["account"]["makespan_seconds"] <= 1.05 * one(seconds)["makespan_seconds"]
    small, big = doc["runs"]
    # the small fleet is not starved: it ends well before the big one, which then has the whole account
    assert small["makespan_seconds"] < 0.8 * big["makespan_seconds"]


def test_a_fleet_beside_a_copy_of_itself_under_another_run_key() -> None:
    """The manual run beside the scheduled one: the same fleet file, the same cities, two run keys."""
    seconds = durations(40)
    daily = fleet("daily", seconds)
    result = simulate_account([AccountRun(daily, RUN_KEY), AccountRun(daily, "manual1", APART)])
    doc = result.to_json()
    assert [(run["fleet"], run["run_key"]) for run in doc["runs"]] == [
        ("daily", RUN_KEY),
        ("daily", "manual1"),
    ]
    assert doc["account"]["resource_limit_exceeded"] == 0
    assert_all_done(doc["account"], 80)
    twice = one(seconds + seconds, name="twice")
    assert doc["account"]["makespan_seconds"] <= 1.05 * twice["makespan_seconds"]


# ------------------------------------------------------------------------------------------ the outcome


def test_each_run_counts_its_own_calls_and_the_account_all_of_them() -> None:
    result = simulate_account(pair(durations(24)))
    doc = result.to_json()
    for operation, calls in doc["account"]["api_calls"].items():
        assert calls == sum(run["api_calls"][operation] for run in doc["runs"])
    assert [run["offset_seconds"] for run in doc["runs"]] == [0.0, APART]
    assert [run["jobs"] for run in doc["runs"]] == [12, 12]
    given = sum(run["pools_to_other_runs"] for run in doc["runs"])
    taken = sum(run["pools_from_other_runs"] for run in doc["runs"])
    assert given == taken == doc["account"]["pools_across_runs"]


def test_an_offset_run_begins_at_its_offset_and_its_makespan_counts_from_there() -> None:
    seconds = durations(24)
    late = 3600.0
    sim = AccountSimulation(
        [AccountRun(fleet("fa", seconds[:12]), RUN_KEY), AccountRun(fleet("fb", seconds[12:]), RUN_KEY, late)]
    )
    result: AccountResult = sim.run()
    first = min(
        float(job["created_at"]) for job in sim.engine.snapshot()["jobs"] if job["name"].startswith("fb-")
    )
    assert first - sim.started_at >= late
    fa, fb = result.runs
    last_end = max(sim.ended_at[name] for name in sim.runs[1].operator.owner)
    assert fb.makespan_seconds == round(last_end - (sim.started_at + late))
    assert result.makespan_seconds > late  # the account's: first creation to last end


def test_one_run_on_the_account_is_the_single_fleet_simulation() -> None:
    from sagemaker_fleet.simulate import simulate_fleet

    spec = fleet("solo", durations(20))
    alone = simulate_fleet(spec, SimulateOptions(run_key=RUN_KEY)).to_json()
    (on_account,) = simulate_account([AccountRun(spec, RUN_KEY)]).runs
    assert on_account.to_json() == alone


# ------------------------------------------------------------------------------------------ refusals


def test_the_same_fleet_and_run_key_twice_is_refused() -> None:
    spec = fleet("fa", durations(4))
    with pytest.raises(SimulationError, match="fleet fa with run key 20261129 is given twice"):
        AccountSimulation([AccountRun(spec, RUN_KEY), AccountRun(spec, RUN_KEY)])


def test_a_negative_offset_is_refused() -> None:
    with pytest.raises(SimulationError, match="not ≥ 0"):
        AccountSimulation([AccountRun(fleet("fa", durations(4)), RUN_KEY, -1.0)])


def test_fleets_in_two_regions_share_no_account() -> None:
    runs = [
        AccountRun(fleet("fa", durations(4)), RUN_KEY),
        AccountRun(fleet("fb", durations(4), region="eu-west-1"), RUN_KEY),
    ]
    with pytest.raises(SimulationError, match="^region: the fleets are in 2 regions"):
        AccountSimulation(runs)


def test_the_account_has_the_largest_quota_declared_and_says_where_they_differ() -> None:
    a = fleet("fa", durations(4), InstanceQuota(instances=12, warm_pools=8))
    b = fleet("fb", durations(4), InstanceQuota(instances=6, warm_pools=8, spot_instances=4))
    quotas, notes = account_quotas([a, b])
    assert quotas == {"ml.m5.xlarge": InstanceQuota(instances=12, warm_pools=8, spot_instances=4)}
    assert len(notes) == 2
    assert notes[0].startswith(
        "quotas.ml.m5.xlarge.instances: the fleets declare different figures (fa 12, fb 6)"
    )
    assert notes[1].startswith("quotas.ml.m5.xlarge.spot_instances:")
    assert account_quotas([a, a]) == ({"ml.m5.xlarge": a.quotas["ml.m5.xlarge"]}, [])
    # each run still keeps to its own spec's figure: fb never runs more than 6 at once
    sim = AccountSimulation([AccountRun(a, RUN_KEY), AccountRun(b, RUN_KEY, APART)])
    assert sim.engine.config.quotas["ml.m5.xlarge"].instances == 12
    assert sim.quota_notes == tuple(notes)


def test_a_fleet_declaring_less_than_the_account_keeps_to_its_cap_and_uses_the_room_others_leave() -> None:
    """The daily fleet declares 6 of an account of 12 (a cap its team chose), started beside a weekly one that
    declares the whole 12 but has 8 cities (it never holds more than 8). The daily run's own jobs keep to 6 while
    all jobs keep to 12: it starts 4 at once. Counted against its 6, the weekly run's 8 left it no room until the
    weekly run's jobs were ending."""
    seconds = durations(20)
    weekly = fleet("weekly", seconds[:8])
    daily = fleet("daily", seconds[8:], InstanceQuota(instances=6, warm_pools=8))
    sim = AccountSimulation([AccountRun(weekly, RUN_KEY), AccountRun(daily, RUN_KEY, APART)])
    daily_run = sim.runs[1]
    assert daily_run.tracker is not None
    pool = ("ml.m5.xlarge", "instances")
    assert (daily_run.tracker.book.capacity[pool], daily_run.tracker.book.account_limit(pool)) == (6, 12)
    sim.play(None, 600.0)
    doc = sim.result().to_json()
    assert_all_done(doc["account"], 20)
    assert doc["account"]["resource_limit_exceeded"] == 0
    jobs = sim.engine.snapshot()["jobs"]
    mine = [j for j in jobs if j["name"].startswith("daily-")]
    first_end = min(j["ended_at"] for j in jobs if j["name"].startswith("weekly-"))
    assert len([j for j in mine if j["created_at"] < first_end]) == 4  # the account's room, not its cap's
    edges = sorted([(j["created_at"], 1) for j in mine] + [(j["ended_at"], -1) for j in mine])
    running = peak = 0
    for _, step in edges:
        running += step
        peak = max(peak, running)
    assert peak <= 6  # its cap
