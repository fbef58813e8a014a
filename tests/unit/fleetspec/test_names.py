"""Job names and S3 paths (docs/formats.md, job names): the name is the idempotency key, so it must be valid, short and stable."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sagemaker_fleet.fleetspec.names import (
    MAX_SUBMISSIONS,
    InvalidRunKeyError,
    checkpoint_s3_uri,
    is_run_job,
    job_name,
    model_s3_uri,
    report_s3_uri,
    run_key_for,
    run_name_contains,
    submission_number,
    validate_run_key,
)

#: SageMaker's TrainingJobName rule, written out here rather than imported (docs/sagemaker-behaviour.md, training job names).
SAGEMAKER_NAME = re.compile(r"^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$")

fleets = st.from_regex(r"[a-z0-9]{1,20}", fullmatch=True)  # no '-' in a fleet name (see below)
short_cities = st.from_regex(r"[a-z0-9][a-z0-9-]{0,30}", fullmatch=True)
long_cities = st.from_regex(r"[a-z0-9][a-z0-9-]{40,199}", fullmatch=True)
cities = st.one_of(short_cities, long_cities)
run_keys = st.from_regex(r"[a-z0-9]{1,16}", fullmatch=True).filter(lambda key: not re.fullmatch(r"r\d+", key))
attempts = st.integers(min_value=1, max_value=MAX_SUBMISSIONS)


@settings(deadline=None)  # CPU time varies on shared CI machines: no per-example deadline
@given(fleet=fleets, city=cities, run_key=run_keys, attempt=attempts)
@example(fleet="a" * 20, city="b" * 200, run_key="c" * 16, attempt=MAX_SUBMISSIONS)  # the longest inputs
@example(fleet="a", city="-b---", run_key="1", attempt=1)  # hyphens at every seam
@example(
    fleet="citydemand", city="x" * 29 + "---" + "y" * 20, run_key="20261129", attempt=2
)  # cut at hyphens
def test_job_name_is_a_valid_sagemaker_name(fleet: str, city: str, run_key: str, attempt: int) -> None:
    name = job_name(fleet, city, run_key, attempt)
    assert len(name) <= 63
    assert SAGEMAKER_NAME.match(name), name
    assert name.startswith(f"{fleet}-")  # the first '-' ends the fleet
    assert run_name_contains(run_key) in name  # ListTrainingJobs(NameContains=...) of its run finds it
    suffix = f"-r{attempt}" if attempt >= 2 else ""
    assert name.endswith(f"-{run_key}{suffix}")


@settings(deadline=None)  # CPU time varies on shared CI machines: no per-example deadline
@given(fleet=fleets, city=cities, run_key=run_keys, attempt=attempts)
def test_job_name_is_deterministic_and_plain_when_it_fits(
    fleet: str, city: str, run_key: str, attempt: int
) -> None:
    name = job_name(fleet, city, run_key, attempt)
    assert name == job_name(fleet, city, run_key, attempt)
    plain = f"{fleet}-{city}-{run_key}" + (f"-r{attempt}" if attempt >= 2 else "")
    if len(plain) <= 63:
        assert name == plain
    else:
        assert re.search(r"-[0-9a-f]{8}-" + run_key, name), name  # the stable hash sits before the run key


def test_known_names_never_change() -> None:
    """Changing these would make a retried task launch a second job for a run already in flight. (Recorded for
    fleet ``citydemand`` when fleet names lost their '-', 2026-12-01; the hash is sha256 of ``fleet/city``.)"""
    assert job_name("citydemand", "seoul", "20261129") == "citydemand-seoul-20261129"
    assert job_name("citydemand", "seoul", "20261129", 2) == "citydemand-seoul-20261129-r2"
    long_city = "santa-cruz-de-la-sierra-" + "x" * 40
    assert job_name("citydemand", long_city, "20261129") == (
        "citydemand-santa-cruz-de-la-sierra-xxxxxxxxxx-cd5580bf-20261129"
    )
    assert job_name("citydemand", long_city, "20261129", 3) == (
        "citydemand-santa-cruz-de-la-sierra-xxxxxxx-cd5580bf-20261129-r3"
    )


@settings(max_examples=100, deadline=None)
@given(
    fleet=fleets,
    submissions=st.lists(st.tuples(cities, run_keys, attempts), min_size=2, max_size=25, unique=True),
)
def test_no_collisions_within_a_fleet(fleet: str, submissions: list[tuple[str, str, int]]) -> None:
    names = [job_name(fleet, city, run_key, attempt) for city, run_key, attempt in submissions]
    assert len(set(names)) == len(names)


@settings(deadline=None)  # CPU time varies on shared CI machines: no per-example deadline
@given(
    submissions=st.lists(st.tuples(fleets, cities, run_keys, attempts), min_size=2, max_size=25, unique=True)
)
@example(submissions=[("city", "demand-paris", "20261129", 1), ("citydemand", "paris", "20261129", 1)])
def test_no_collisions_across_fleets(submissions: list[tuple[str, str, str, int]]) -> None:
    """Two different (fleet, city, run, attempt) never give one name, whatever the fleets."""
    names = [job_name(*submission) for submission in submissions]
    assert len(set(names)) == len(names)


@pytest.mark.parametrize("fleet", ["city-demand", "a-", "-a", ""])
def test_a_fleet_name_with_a_hyphen_cannot_name_a_job(fleet: str) -> None:
    """Fleet `city` + city `demand-paris` and fleet `city-demand` + city `paris` would share a name."""
    with pytest.raises(ValueError, match="without '-'"):
        job_name(fleet, "paris", "20261129")


@settings(max_examples=100, deadline=None)
@given(
    fleet=fleets,
    stem=st.from_regex(r"[a-z][a-z0-9-]{60,80}", fullmatch=True),
    tails=st.lists(st.from_regex(r"[a-z0-9]{1,6}", fullmatch=True), min_size=2, max_size=30, unique=True),
    run_key=run_keys,
    attempt=attempts,
)
def test_no_collisions_when_long_names_are_cut_to_the_same_head(
    fleet: str, stem: str, tails: list[str], run_key: str, attempt: int
) -> None:
    """Cities that differ only after the cut share the visible head; the hash keeps them apart."""
    names = [job_name(fleet, f"{stem}-{tail}", run_key, attempt) for tail in tails]
    assert len(set(names)) == len(names)
    assert all(len(name) <= 63 for name in names)


@settings(deadline=None)  # CPU time varies on shared CI machines: no per-example deadline
@given(fleet=fleets, city=long_cities, run_key=run_keys)
def test_attempts_and_run_keys_of_a_long_city_stay_apart(fleet: str, city: str, run_key: str) -> None:
    names = {job_name(fleet, city, run_key, attempt) for attempt in range(1, 12)}
    names |= {job_name(fleet, city, other, 1) for other in ("20261129", "20261130", "m3fa772980")}
    assert len(names) == 11 + len({"20261129", "20261130", "m3fa772980"} - {run_key})


@pytest.mark.parametrize(("attempt", "suffix"), [(1, ""), (2, "-r2"), (3, "-r3"), (12, "-r12")])
def test_resubmission_suffix(attempt: int, suffix: str) -> None:
    assert job_name("f", "oslo", "20261129", attempt) == f"f-oslo-20261129{suffix}"


@settings(deadline=None)  # CPU time varies on shared CI machines: no per-example deadline
@given(fleet=fleets, city=cities, run_key=run_keys, attempt=attempts)
def test_every_name_of_a_run_is_the_runs_and_says_its_submission(
    fleet: str, city: str, run_key: str, attempt: int
) -> None:
    """Shortened or not: the run tells its own jobs by the name alone, and the report its submission number."""
    name = job_name(fleet, city, run_key, attempt)
    assert is_run_job(name, fleet, run_key)
    assert submission_number(name) == attempt
    assert not is_run_job(name, fleet + "x", run_key)
    assert not is_run_job(name, fleet, run_key + "x")


def test_a_name_of_another_run_or_fleet_is_not_the_runs() -> None:
    assert not is_run_job("weekly-paris-20261129", "daily", "20261129")
    assert not is_run_job("daily-paris-20261130-r2", "daily", "20261129")
    assert not is_run_job("daily-paris-20261129-x", "daily", "20261129")


@pytest.mark.parametrize("attempt", [0, -1])
def test_attempt_below_one_is_rejected(attempt: int) -> None:
    with pytest.raises(ValueError, match="attempt must be ≥ 1"):
        job_name("f", "oslo", "20261129", attempt)


@pytest.mark.parametrize(
    "run_key",
    [
        "r2",
        "r10",
        "r0",
        "R2",
        "ABC",
        "2026-11-29",
        "2026_11_29",
        "",
        "a" * 17,
        "run key",
        "ñ1",
        "20261129\n",
        "r2\n",
    ],
)
def test_invalid_run_keys_are_rejected(run_key: str) -> None:
    with pytest.raises(InvalidRunKeyError, match="1-16 lowercase letters or digits"):
        validate_run_key(run_key)
    with pytest.raises(InvalidRunKeyError):
        job_name("f", "oslo", run_key)


@settings(deadline=None)  # CPU time varies on shared CI machines: no per-example deadline
@given(
    st.text(max_size=20).filter(
        lambda key: not re.fullmatch(r"[a-z0-9]{1,16}", key) or re.fullmatch(r"r\d+", key)
    )
)
def test_any_run_key_outside_the_rule_is_rejected(run_key: str) -> None:
    with pytest.raises(InvalidRunKeyError):
        validate_run_key(run_key)


@pytest.mark.parametrize("run_key", ["20261129", "m3fa772980", "r", "r2x", "a" * 16, "0"])
def test_valid_run_keys(run_key: str) -> None:
    assert validate_run_key(run_key) == run_key


# ------------------------------------------------------------------------------------------------ run keys


MIDNIGHT = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
DAG = "city_training_manual"


def test_run_key_of_a_scheduled_run_is_its_logical_date() -> None:
    assert (
        run_key_for(MIDNIGHT, "scheduled__2026-11-29T00:00:00+00:00", "scheduled", dag_id=DAG) == "20261129"
    )
    assert run_key_for(MIDNIGHT, "backfill__2026-11-29T00:00:00+00:00", "backfill", dag_id=DAG) == "20261129"


def test_runs_of_a_sub_daily_schedule_get_a_key_each() -> None:
    """Two scheduled runs on one day (hourly, say) must not share the day's key: the second would attach to the
    first one's jobs and train nothing."""
    keys = {
        run_key_for(MIDNIGHT + dt.timedelta(hours=h), f"scheduled__{h}", "scheduled", dag_id=DAG)
        for h in range(24)
    }
    assert len(keys) == 24
    six = run_key_for(MIDNIGHT + dt.timedelta(hours=6, minutes=30), "scheduled__x", "scheduled", dag_id=DAG)
    assert six == "20261129t063000"
    assert validate_run_key(six) == six
    # the logical date in another zone is the same instant, the same key
    seoul = (MIDNIGHT + dt.timedelta(hours=6, minutes=30)).astimezone(dt.timezone(dt.timedelta(hours=9)))
    assert run_key_for(seoul, "scheduled__x", "scheduled", dag_id=DAG) == six


def test_the_run_type_decides_not_the_run_id() -> None:
    """A manual run may be given any run id, ``scheduled__…`` included: it is still a run of its own."""
    manual = run_key_for(MIDNIGHT, "scheduled__2026-11-29T00:00:00+00:00", "manual", dag_id=DAG)
    assert re.fullmatch(r"m[0-9a-f]{15}", manual)
    assert run_key_for(MIDNIGHT, "my-run", "scheduled", dag_id=DAG) == "20261129"


def test_run_key_of_a_manual_run_is_a_short_stable_hash() -> None:
    key = run_key_for(MIDNIGHT, "manual__2026-11-29T10:00:00+00:00", "manual", dag_id=DAG)
    assert key == "m94e6182bc3ba64b"
    assert key == run_key_for(
        None, "manual__2026-11-29T10:00:00+00:00", "manual", dag_id=DAG
    )  # the date plays no part
    assert run_key_for(MIDNIGHT, "manual__2026-11-29T10:00:01+00:00", "manual", dag_id=DAG) != key
    assert run_key_for(MIDNIGHT, "asset_triggered__x", "asset_triggered", dag_id=DAG) != key


def test_two_dags_given_the_same_run_id_are_two_runs() -> None:
    """The shipped daily and manual DAGs share one fleet file: given the same run id, the second must not attach to,
    release or stop the first one's jobs (their owner tags would match), so the DAG is part of the key."""
    daily = run_key_for(None, "manual__same", "manual", dag_id="city_training_daily")
    manual = run_key_for(None, "manual__same", "manual", dag_id="city_training_manual")
    assert daily != manual
    assert job_name("demo", "seoul", daily) != job_name("demo", "seoul", manual)
    # the separator keeps the DAG and the run apart: ("a", "b/c") is not ("a/b", "c")
    assert run_key_for(None, "b/c", "manual", dag_id="a") != run_key_for(None, "c", "manual", dag_id="a/b")


def test_a_dags_test_run_is_keyed_by_its_dag_and_logical_date() -> None:
    """Each ``airflow dags test`` makes a new run id (its run_after is the clock): a test of the same DAG and date
    must be the same run, so it attaches to the jobs of one that was stopped; another DAG or date is another run,
    and none shares a key with the scheduled run of that date."""
    first = run_key_for(MIDNIGHT, "manual__2026-12-06T10:00:00+00:00", "manual", dag_id=DAG, test=True)
    again = run_key_for(MIDNIGHT, "manual__2026-12-06T10:05:00+00:00", "manual", dag_id=DAG, test=True)
    assert first == again
    assert re.fullmatch(r"t[0-9a-f]{15}", first)
    assert run_key_for(MIDNIGHT, "x", "manual", dag_id="other", test=True) != first
    assert run_key_for(MIDNIGHT + dt.timedelta(days=1), "x", "manual", dag_id=DAG, test=True) != first
    assert first != run_key_for(MIDNIGHT, "scheduled__x", "scheduled", dag_id=DAG)
    # the same instant written in another zone is the same date
    seoul = MIDNIGHT.astimezone(dt.timezone(dt.timedelta(hours=9)))
    assert run_key_for(seoul, "y", "manual", dag_id=DAG, test=True) == first


def test_scheduled_run_without_a_logical_date_falls_back_to_the_hash() -> None:
    key = run_key_for(None, "scheduled__2026-11-29T00:00:00+00:00", "scheduled", dag_id=DAG)
    assert re.fullmatch(r"m[0-9a-f]{15}", key)


def test_a_sub_second_logical_date_is_refused() -> None:
    with pytest.raises(InvalidRunKeyError, match="whole seconds"):
        run_key_for(MIDNIGHT + dt.timedelta(microseconds=5), "scheduled__x", "scheduled", dag_id=DAG)


@settings(deadline=None)  # CPU time varies on shared CI machines: no per-example deadline
@given(run_id=st.text(min_size=1, max_size=250))
def test_hashed_run_keys_are_valid_in_job_names(run_id: str) -> None:
    key = run_key_for(None, run_id, "manual", dag_id=DAG)
    assert validate_run_key(key) == key
    assert SAGEMAKER_NAME.match(job_name("citydemand", "seoul", key, 2))


# ------------------------------------------------------------------------------------------------ S3 paths


@pytest.mark.parametrize("output", ["s3://acme-ml/fleets/citydemand", "s3://acme-ml/fleets/citydemand/"])
def test_s3_paths_follow_the_contract(output: str) -> None:
    assert (
        checkpoint_s3_uri(output, "seoul", "20261129")
        == "s3://acme-ml/fleets/citydemand/checkpoints/seoul/20261129/"
    )
    assert (
        model_s3_uri(output, "seoul", "20261129") == "s3://acme-ml/fleets/citydemand/models/seoul/20261129/"
    )
    assert report_s3_uri(output, "20261129") == "s3://acme-ml/fleets/citydemand/reports/20261129/"


@settings(deadline=None)  # CPU time varies on shared CI machines: no per-example deadline
@given(city=cities, run_key=run_keys, other_city=cities, other_key=run_keys)
def test_checkpoint_prefixes_are_per_city_and_run(
    city: str, run_key: str, other_city: str, other_key: str
) -> None:
    """Every submission of a city in a run shares one prefix (so it resumes); nothing else shares it."""
    mine = checkpoint_s3_uri("s3://b/f", city, run_key)
    theirs = checkpoint_s3_uri("s3://b/f", other_city, other_key)
    assert (mine == theirs) == ((city, run_key) == (other_city, other_key))
    assert not theirs.startswith(mine) or mine == theirs  # no prefix reaches into another's objects


def test_a_job_names_fleet_is_what_precedes_its_first_dash_shortened_or_not() -> None:
    from sagemaker_fleet.fleetspec.names import fleet_of_job

    assert fleet_of_job(job_name("demo", "seoul", "20261129", attempt=3)) == "demo"
    long = job_name("forecast", "x" * 70, "m0123456789")
    assert len(long) == 63
    assert fleet_of_job(long) == "forecast"
    assert fleet_of_job("team-vision") == "team"  # any name of that shape is in that fleet's namespace
    assert fleet_of_job("nodash") is None
    assert fleet_of_job("-lead") is None
