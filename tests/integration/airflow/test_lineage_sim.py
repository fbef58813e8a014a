"""OpenLineage of city tasks through Airflow's OpenLineage provider (its file transport), with city triggers run
against the simulator as one triggerer runs them: every event checked against OpenLineage's JSON schemas, one
COMPLETE per city with its training data in and its model artifact out, under the run id the worker's START had."""

from __future__ import annotations

import datetime as dt
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import pytest
from airflow.triggers.base import TaskFailedEvent, TaskSuccessEvent, TriggerEvent

from openlineage_events import openlineage_to_file, read_events, registry, validate
from sagemaker_fleet.dispatch import DispatchBook
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.observability import lineage
from sagemaker_fleet.operators.training import FleetTrainingOperator
from sagemaker_fleet.plan import plan_fleet
from trigger_runs import city_trigger, publish_plan, run_triggers

if TYPE_CHECKING:
    from sagemaker_fleet.triggers.city import FleetCityTrigger

pytestmark = pytest.mark.integration
RUN_KEY = "20261129"
FLEETS = Path(__file__).parent / "fleets"
DISPATCH, QUICK = FLEETS / "dispatch.yaml", FLEETS / "quick.yaml"
LOGICAL = dt.datetime(2026, 11, 29, tzinfo=dt.UTC)
RUN_ID = "scheduled__2026-11-29T00:00:00+00:00"


@pytest.fixture
def fast(aws_sim):
    for city in ("seoul", "tokyo", "oslo"):
        aws_sim.set_work(120, city=city)
    aws_sim.set_speed(200)
    yield aws_sim
    aws_sim.set_speed(1)


def worker_ids(dag_id: str, city: str, map_index: int, try_number: int = 1) -> dict:
    """What the city's task computes on its worker as it defers (the listener's START of that try has these)."""
    dag_run = SimpleNamespace(logical_date=LOGICAL, run_after=LOGICAL, clear_number=0, conf={}, run_id=RUN_ID)
    ti = SimpleNamespace(
        dag_id=dag_id,
        task_id="train",
        try_number=try_number,
        map_index=map_index,
        run_id=RUN_ID,
        dag_run=dag_run,
    )
    ti.get_template_context = lambda: {"dag_run": dag_run}
    operator = FleetTrainingOperator(task_id="train", spec_path="x.yaml", city=city, owner="ml-platform")
    ids = lineage.lineage_ids(
        {"ti": ti, "dag_run": dag_run, "dag": SimpleNamespace(tags=["fleet"])}, operator
    )
    assert ids is not None
    return ids


def trigger(spec_path: Path, city: str, **kwargs) -> FleetCityTrigger:
    values = {
        "run_key": RUN_KEY,
        "try_id": f"{RUN_ID}/1",
        "poll_interval": 0.3,
        "capacity_retry_seconds": 0.5,
    }
    return city_trigger(spec_path, city, **{**values, **kwargs})


def test_every_city_ended_in_the_triggerer_closes_its_run_with_its_datasets(
    fast, monkeypatch, tmp_path
) -> None:
    from airflow.providers.openlineage.plugins.adapter import OpenLineageAdapter

    spec = load_fleet_spec(DISPATCH)
    plan = plan_fleet(spec, RUN_KEY)
    publish_plan(monkeypatch, plan)
    book = DispatchBook.from_plan(plan, spec)
    ranked = list(next(iter(book.members.values())))
    with openlineage_to_file(monkeypatch, tmp_path / "events.jsonl") as path:
        ids = {city: worker_ids("disp_fleet", city, index) for index, city in enumerate(ranked)}
        # the run id is the one the provider's listener gives the try's START on the worker
        assert ids[ranked[2]]["run_id"] == OpenLineageAdapter.build_task_instance_run_id(
            dag_id="disp_fleet", task_id="train", try_number=1, logical_date=LOGICAL, map_index=2
        )
        events = run_triggers([trigger(DISPATCH, c, plan_task_id="plan", lineage=ids[c]) for c in ranked])
    assert all(isinstance(e, TaskSuccessEvent) for e in events)
    emitted = read_events(path)
    reg = registry()
    for event in emitted:
        assert validate(event, reg) == []  # every facet has its schema, ours too
    assert sorted(e["eventType"] for e in emitted) == ["COMPLETE"] * len(ranked)
    by_run = {e["run"]["runId"]: e for e in emitted}
    client = fast.boto3_client("sagemaker")
    starts = {j["name"]: j["start"] for j in fast.state()["jobs"]}
    for city in ranked:
        event = by_run[ids[city]["run_id"]]  # one COMPLETE per city, under its START's run id
        name = f"disp-{city}-{RUN_KEY}"
        described = client.describe_training_job(TrainingJobName=name)
        assert (event["job"]["namespace"], event["job"]["name"]) == (
            "sagemaker-fleet-tests",
            "disp_fleet.train",
        )
        parent = event["run"]["facets"]["parent"]
        assert parent["run"]["runId"] == ids[city]["parent_run_id"]
        # ParentRunFacet 1-2-0 adds the job's "facets" (1-1-0, of openlineage-python before 1.5x, has none)
        assert {k: parent["job"][k] for k in ("namespace", "name")} == {
            "namespace": "sagemaker-fleet-tests",
            "name": "disp_fleet",
        }
        # the root the listener gave the START (the DAG run itself where the provider, 2.6.1, takes no other)
        assert parent["root"]["run"]["runId"] == ids[city]["root_run_id"]
        assert [(d["namespace"], d["name"]) for d in event["inputs"]] == [("s3://acme-ml", f"data/{city}")]
        artifact = described["ModelArtifacts"]["S3ModelArtifacts"]
        assert artifact.endswith(f"/{name}/output/model.tar.gz")
        bucket, key = artifact.removeprefix("s3://").split("/", 1)
        assert [(d["namespace"], d["name"]) for d in event["outputs"]] == [(f"s3://{bucket}", key)]
        facet = event["run"]["facets"]["sagemakerFleetJob"]
        assert (facet["city"], facet["jobName"], facet["runKey"]) == (city, name, RUN_KEY)
        assert facet["start"] == starts[name]
        assert facet["billableSeconds"] == described["BillableTimeInSeconds"]
        assert facet["costUsd"] > 0
        assert event["job"]["facets"]["ownership"]["owners"] == [{"name": "ml-platform"}]
    assert sum(1 for e in emitted if e["run"]["facets"]["sagemakerFleetJob"]["start"] == "warm") == 4


def test_a_city_that_failed_closes_its_run_with_fail_and_the_reason(fast, monkeypatch, tmp_path) -> None:
    fast.failures(cities=["quick/oslo"])
    with openlineage_to_file(monkeypatch, tmp_path / "events.jsonl") as path:
        (event,) = run_triggers([trigger(QUICK, "oslo", lineage=worker_ids("quick_fleet", "oslo", 0))])
    assert isinstance(event, TaskFailedEvent)
    (emitted,) = read_events(path)
    assert validate(emitted, registry()) == []
    assert emitted["eventType"] == "FAIL"
    assert emitted["run"]["facets"]["errorMessage"]["message"].startswith("AlgorithmError: ")
    assert [d["name"] for d in emitted["inputs"]] == ["data/oslo"]
    assert emitted["outputs"] == []  # a failed job made no model
    assert emitted["run"]["facets"]["sagemakerFleetJob"]["status"] == "Failed"


def test_a_task_that_ends_on_a_worker_takes_its_lineage_from_the_operator(
    fast, monkeypatch, tmp_path
) -> None:
    """A synchronous wait (or a failure the trigger hands back): the provider's listener on the worker asks the
    operator; the trigger emits nothing itself."""
    with openlineage_to_file(monkeypatch, tmp_path / "events.jsonl") as path:
        (event,) = run_triggers(
            [trigger(QUICK, "seoul", end_from_trigger=False, lineage=worker_ids("q", "seoul", 0))]
        )
        assert isinstance(event, TriggerEvent)
        assert read_events(path) == []
        operator = FleetTrainingOperator(task_id="train", spec_path=str(QUICK), city="seoul")
        ti = SimpleNamespace(run_id=RUN_ID, try_number=1, xcom_push=lambda **_: None)
        result = operator.execute_complete({"ti": ti}, event.payload)
        assert result["job_name"] == f"quick-seoul-{RUN_KEY}"
        facets = operator.get_openlineage_facets_on_complete(ti)
        # what the listener would emit with them, through the same adapter, checked against the schemas
        lineage._adapter().complete_task(
            run_id="01890000-0000-7000-8000-000000000001",
            job_name="q.train",
            end_time=dt.datetime.now(dt.UTC).isoformat(),
            task=facets,
            nominal_start_time=None,
            nominal_end_time=None,
            owners=None,
            tags=None,
            job_description=None,
        )
        (emitted,) = read_events(path)
    assert validate(emitted, registry()) == []
    assert [d["name"] for d in emitted["inputs"]] == ["data/seoul"]
    assert emitted["outputs"][0]["name"].endswith(f"quick-seoul-{RUN_KEY}/output/model.tar.gz")
    assert emitted["run"]["facets"]["sagemakerFleetJob"]["jobName"] == f"quick-seoul-{RUN_KEY}"


def test_without_the_provider_nothing_is_imported_and_the_city_ends_alike(
    fast, monkeypatch, tmp_path
) -> None:
    with openlineage_to_file(monkeypatch, tmp_path / "events.jsonl") as path:
        ids = worker_ids("quick_fleet", "tokyo", 0)  # a worker that had the provider; this triggerer has not
        with monkeypatch.context() as without:
            without.setitem(sys.modules, "airflow.providers.openlineage", None)  # its import fails
            assert lineage.enabled() is False
            (event,) = run_triggers([trigger(QUICK, "tokyo", lineage=ids)])
    assert isinstance(event, TaskSuccessEvent)
    assert event.xcoms["return_value"]["job_name"] == f"quick-tokyo-{RUN_KEY}"
    assert read_events(path) == []
