"""The account, not the fleet: a run's triggers against a simulator whose account other jobs use too.

Another team's (or fleet's) jobs draw on the same quota, and their idle pools count toward it; a run that counted
only its own jobs admitted cities into capacity others held and met ResourceLimitExceeded. Here the run lists the
account, describes the other jobs once, and admits within what is left — over HTTP, with aiobotocore, in one loop.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from airflow.triggers.base import TaskSuccessEvent

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.plan import plan_fleet
from sagemaker_fleet.triggers.city import FleetCityTrigger
from sim_fixtures import make_request
from trigger_runs import city_trigger, publish_plan, run_triggers

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"
DISPATCH = (
    Path(__file__).parent / "fleets" / "dispatch.yaml"
)  # one key, 2 instances and 2 warm pools declared
OTHER_ROLE = "arn:aws:iam::111122223333:role/OtherTeam"


def trigger(city: str, spec_path: Path = DISPATCH) -> FleetCityTrigger:
    return city_trigger(
        spec_path,
        city,
        run_key=RUN_KEY,
        try_id="manual__1/1",
        poll_interval=0.3,
        capacity_retry_seconds=0.5,
        plan_task_id="plan",
    )


@pytest.fixture
def account(aws_sim, monkeypatch):
    """The dispatch fleet's plan published, the account's quota what the spec declares, jobs quick."""
    spec = load_fleet_spec(DISPATCH)
    publish_plan(monkeypatch, plan_fleet(spec, RUN_KEY))
    aws_sim.set_quota("ml.m5.xlarge", instances=2, warm_pools=2)
    for city in spec.cities:
        aws_sim.set_work(120, city=city.name)
    aws_sim.set_speed(200)
    yield aws_sim, spec
    aws_sim.set_speed(1)


def peak_instances(jobs: list[dict], *, pools: bool = True) -> int:
    """Training instances in use at once — running jobs and (``pools``) their Available pools — from the simulator's
    own record."""
    edges = []
    for job in jobs:
        end = job["ended_at"]
        if end is not None and pools:
            end += job["retained_seconds"] or 0
        edges += [(job["created_at"], 1), (end if end is not None else float("inf"), -1)]
    running = peak = 0
    for _, step in sorted(edges):
        running += step
        peak = max(peak, running)
    return peak


def test_another_teams_running_job_is_counted_and_never_run_into(account) -> None:
    sim, spec = account
    sagemaker = sim.boto3_client("sagemaker")
    other = make_request("other-team-forecast", RoleArn=OTHER_ROLE)
    # it holds one of the two instances for most of the run (which admits nothing new for its first few real seconds,
    # the board's settle: 1,000 simulated seconds and more at 200x); 3,000 s (15 s real) ended before the run's first
    # job under four suites at once (CI of 2026-12-05), so 6,000 s (30 s real)
    sim.set_work(6_000, job="other-team-forecast")
    # the clock at 1x from its create until the run starts: at 200x 900 s were 4.5 s, and a loaded machine (three
    # suites at once, another checkout's e2e run) took longer to start the run, so it ended before the run's first job
    sim.set_speed(1)
    sagemaker.create_training_job(**other)
    triggers = [trigger(c.name) for c in spec.cities]
    sim.set_speed(200)

    events = run_triggers(triggers, timeout=240)

    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    assert sim.calls()["errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0) == 0
    jobs = sim.state()["jobs"]
    ours = [j for j in jobs if j["name"].startswith("disp-")]
    assert sorted(j["status"] for j in ours) == ["Completed"] * 6  # one job each, none refused, none twice
    theirs = next(j for j in jobs if j["name"] == "other-team-forecast")
    while_theirs_ran = [j for j in ours if theirs["ended_at"] is None or j["created_at"] < theirs["ended_at"]]
    assert while_theirs_ran, "the other job ended before the run: the test proves nothing"
    assert peak_instances(jobs) <= 2
    # the other job was described once for its instance type, not once per sweep
    assert sim.calls()["calls"]["DescribeTrainingJob"] < 6 * 3 + 10


def test_another_fleets_idle_pool_of_the_same_key_is_taken_as_a_warm_start(account) -> None:
    """A pool of another fleet with the run's key is a warm start for the account: with the account full (that
    pool, and another team's running job), the run still starts its first city at once, on that pool."""
    sim, spec = account
    sagemaker = sim.boto3_client("sagemaker")
    key = spec.cities[0]
    # a pool of a run with no record on the board is taken after two looks at least 10 s (real) apart, and the run
    # admits nothing new in its first ~5 s: at 200x the pool (3,600 s, 18 s real) and the other team's job (6,000 s)
    # outlast both
    pool = make_request("other-fleet-lisbon", keep_alive=3600, RoleArn=key.role_arn)
    sim.set_work(30, job="other-fleet-lisbon")
    sagemaker.create_training_job(**pool)
    sim.advance(600)  # it ends and leaves its pool Available
    assert sagemaker.describe_training_job(TrainingJobName="other-fleet-lisbon")["WarmPoolStatus"][
        "Status"
    ] == ("Available")
    sim.set_work(6_000, job="other-team-forecast")
    sagemaker.create_training_job(**make_request("other-team-forecast", RoleArn=OTHER_ROLE))

    events = run_triggers([trigger(c.name) for c in spec.cities], timeout=240)

    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    assert sim.calls()["errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0) == 0
    jobs = {j["name"]: j for j in sim.state()["jobs"]}
    assert jobs["other-fleet-lisbon"]["warm_pool"].get("ReusedByJob", "").startswith("disp-"), jobs[
        "other-fleet-lisbon"
    ]
    first = min((j for j in jobs.values() if j["name"].startswith("disp-")), key=lambda j: j["created_at"])
    assert first["start"] == "warm"
    theirs_ended = jobs["other-team-forecast"]["ended_at"]
    assert theirs_ended is None or first["created_at"] < theirs_ended  # it did not wait for room


def test_two_fleets_with_the_same_run_key_in_one_triggerer_dispatch_by_their_own_plans(
    aws_sim, monkeypatch, tmp_path
) -> None:
    """Two daily DAGs have the same run key, so their name filter is the same; their cities must still wait for
    their own plan's turn (one poller per fleet's run), not be let through as cities outside another fleet's plan."""
    import yaml

    from sagemaker_fleet.triggers.session import RunSession

    data = yaml.safe_load(DISPATCH.read_text())
    data["fleet"] = "other"
    other_path = tmp_path / "other.yaml"
    other_path.write_text(yaml.safe_dump(data))
    specs = {"disp": load_fleet_spec(DISPATCH), "other": load_fleet_spec(other_path)}
    plans = {name: plan_fleet(spec, RUN_KEY) for name, spec in specs.items()}

    async def plan_json(self):
        return plans[load_fleet_spec(self.spec_path).fleet].to_json()

    monkeypatch.setattr(FleetCityTrigger, "_plan_json", plan_json)
    aws_sim.set_quota("ml.m5.xlarge", instances=4, warm_pools=4)  # room for both fleets' width of 2
    for spec in specs.values():
        for city in spec.cities:
            aws_sim.set_work(400, city=city.name, fleet=spec.fleet)
    # 100x: a job runs ~4 s real, time for a fleet's second city to start while its first still runs even when the
    # machine is busy (with ~1.2 s jobs, four suites at once on 2 cores saw one fleet's jobs one after the other)
    aws_sim.set_speed(100)
    try:
        triggers = [
            trigger(c.name, path)
            for path, spec in ((DISPATCH, specs["disp"]), (other_path, specs["other"]))
            for c in spec.cities
        ]
        pollers: list[RunSession] = []
        original = RunSession.first_listing

        async def first_listing(self):
            pollers.append(self)
            return await original(self)

        monkeypatch.setattr(RunSession, "first_listing", first_listing)
        events = run_triggers(triggers, timeout=240)
    finally:
        aws_sim.set_speed(1)
    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    assert len({id(p) for p in pollers}) == 2  # one per fleet's run
    jobs = aws_sim.state()["jobs"]
    peaks = {
        fleet: peak_instances([j for j in jobs if j["name"].startswith(f"{fleet}-")], pools=False)
        for fleet in specs
    }
    # each fleet at most at its own plan's width, not all its cities at once (a city let through as outside the
    # other fleet's plan would make it 3 or more); and the width reached, so the bound was tested
    assert all(peak <= 2 for peak in peaks.values()), peaks
    assert max(peaks.values()) == 2, peaks
    assert len(jobs) == 12


class _Later:
    """A trigger whose run begins once ``ready()`` says so (checked off the loop, every 0.2 s real): its fleet's
    run starts after the others' (None: at once, beside them)."""

    def __init__(self, trigger: FleetCityTrigger, ready: Callable[[], bool] | None) -> None:
        self.trigger, self.ready = trigger, ready

    async def run(self):
        import asyncio

        while self.ready is not None and not await asyncio.to_thread(self.ready):  # noqa: ASYNC110 - a poll of the simulator
            await asyncio.sleep(0.2)
        async for event in self.trigger.run():
            yield event


@pytest.mark.parametrize("later", [False, True], ids=["same-start", "after-the-first-admission"])
def test_a_fleet_of_higher_priority_gets_the_capacity_through_the_board_on_s3(
    aws_sim, monkeypatch, tmp_path, later: bool
) -> None:
    """Two fleets of one key on one account, each declaring its whole quota (2 instances); the small one's run
    starts beside the big one's, or ``later``: once the big one has created its first jobs. With ``sharing`` each
    posts on S3 (through the simulator's moto) what it waits for before it takes any instance, and the small fleet
    is of higher priority:

    - started together (a daily and a weekly DAG at the same midnight), each run's record is read before either
      admits: the small fleet's cities go first, and its pools go to the big fleet's cities when it has none left
      (same key: warm starts across fleets); no ResourceLimitExceeded;
    - started after the big one admitted its first cities, the big one yields its pools after one hand-on per lane
      and leaves them to the small fleet's cities: counted from the first pass in which its board showed the small
      fleet waiting (how soon the small run's first record is read depends on the machine's load), so its first
      cities train long enough (2,000 simulated s, 10 s real) for that record to be read before they end."""
    import yaml

    from sagemaker_fleet.dispatch.board import OWED_HANDOFFS
    from sagemaker_fleet.dispatch.tracker import RunTracker
    from sagemaker_fleet.triggers.session import RunSession

    big = yaml.safe_load(DISPATCH.read_text())
    small = {**big, "fleet": "prio", "cities": big["cities"][:3], "sharing": {"priority": 9}}  # a warm group
    big["sharing"] = {"priority": 0}
    paths = {}
    for data in (big, small):
        paths[data["fleet"]] = tmp_path / f"{data['fleet']}.yaml"
        paths[data["fleet"]].write_text(yaml.safe_dump(data))
    specs = {name: load_fleet_spec(path) for name, path in paths.items()}
    plans = {name: plan_fleet(spec, RUN_KEY) for name, spec in specs.items()}

    async def plan_json(self):
        return plans[load_fleet_spec(self.spec_path).fleet].to_json()

    monkeypatch.setattr(FleetCityTrigger, "_plan_json", plan_json)
    aws_sim.boto3_client("s3").create_bucket(Bucket="acme-ml")
    aws_sim.set_quota("ml.m5.xlarge", instances=2, warm_pools=2)
    first = {job["city"] for job in plans["disp"].to_json()["jobs"] if job["position"] == 0}
    for spec in specs.values():
        for city in spec.cities:
            long = later and spec.fleet == "disp" and city.name in first
            aws_sim.set_work(2_000 if long else 600, city=city.name, fleet=spec.fleet)
    aws_sim.set_speed(200)
    posted: list[dict] = []
    original = RunSession._poll_once

    async def poll_once(self):  # every record a run posts, as S3 got it
        swept = await original(self)
        for key in aws_sim.boto3_client("s3").list_objects_v2(Bucket="acme-ml").get("Contents", ()):
            posted.append(key["Key"])
        return swept

    monkeypatch.setattr(RunSession, "_poll_once", poll_once)
    # each admission pass: its fleet, whether its board showed prio waiting, the cities admitted
    passes: list[tuple[str, bool, list[str]]] = []
    admit = RunTracker.admit

    def admit_noted(self, waiting, now):
        admitted = admit(self, waiting, now)
        if admitted and self.shares is not None:
            board = self.shares.board
            prio_waits = any(r.fleet == "prio" and r.blocked for r in board.others.values())
            passes.append((board.mine.fleet, prio_waits, admitted))
        return admitted

    monkeypatch.setattr(RunTracker, "admit", admit_noted)
    if not later:
        # started together means within the board's settle: a loaded 2-core machine (CI beside other suites) began
        # the small fleet's sweeps more than one board read after the big one's first post
        cadence = FleetCityTrigger.cadence.fget
        monkeypatch.setattr(
            FleetCityTrigger, "cadence", property(lambda t: replace(cadence(t), start_settle_seconds=20.0))
        )
    try:
        triggers = [trigger(c.name, paths["disp"]) for c in specs["disp"].cities]

        def big_created() -> bool:
            return any(j["name"].startswith("disp-") for j in aws_sim.state()["jobs"])

        ready = big_created if later else None
        triggers += [_Later(trigger(c.name, paths["prio"]), ready) for c in specs["prio"].cities]
        events = run_triggers(triggers, timeout=240)
    finally:
        aws_sim.set_speed(1)
    assert all(isinstance(e, TaskSuccessEvent) for e in events), events
    assert sim_errors(aws_sim) == 0
    assert {"sagemaker-fleet/board/disp/20261129.json", "sagemaker-fleet/board/prio/20261129.json"} <= set(
        posted
    )
    jobs = sorted(aws_sim.state()["jobs"], key=lambda j: j["created_at"])
    assert len(jobs) == 9  # one job per city, none refused, none twice
    assert all(j["status"] == "Completed" for j in jobs)
    order = [j["name"].split("-")[0] for j in jobs]
    if not later:
        giver, taker = "prio", "disp"
        assert order[:2] == ["prio", "prio"], (
            order
        )  # its record was on the board before the big fleet admitted
    else:
        giver, taker = "disp", "prio"
        assert order[:2] == ["disp", "disp"], order  # the big fleet had the account first
        prio_first = next(i for i, (fleet, _, _) in enumerate(passes) if fleet == "prio")
        # once its board showed the small fleet waiting, the big fleet handed each lane's pool on once at most...
        owed = sum(len(cities) for fleet, waits, cities in passes[:prio_first] if fleet == "disp" and waits)
        assert owed <= OWED_HANDOFFS * 2, passes
        # ...then left the account to it: the small fleet's cities did not wait for the big fleet's last ones
        assert any(fleet == "disp" for fleet, _, _ in passes[prio_first:]), passes
    given = [
        j
        for j in jobs
        if j["name"].startswith(f"{giver}-")
        and (j["warm_pool"] or {}).get("ReusedByJob", "").startswith(f"{taker}-")
    ]
    assert given, f"no pool of {giver} went to {taker}"
    assert peak_instances(jobs) <= 2


def sim_errors(sim) -> int:
    return sim.calls()["errors"].get("CreateTrainingJob:ResourceLimitExceeded", 0)
