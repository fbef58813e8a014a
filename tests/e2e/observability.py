"""What the e2e runs check of the fleet's observability: the metrics Airflow's StatsD client sent (from the
triggerers and the report's task process), the OpenLineage events (the workers' listener and the triggerers' own),
the models asset's event and the DAG it triggered."""

from __future__ import annotations

import json
import time
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from e2e.chaos import by_city, fleet_jobs
from openlineage_events import read_events, registry, validate

if TYPE_CHECKING:
    from statsd_listener import StatsdListener

OBSERVED_DAG = "e2e_models_changed"


def observability_env(listener: StatsdListener, lineage_file: Path) -> dict[str, str]:
    """Every Airflow component's settings: StatsD to the test's listener, OpenLineage to a file."""
    return {
        "AIRFLOW__METRICS__STATSD_ON": "True",
        "AIRFLOW__METRICS__STATSD_HOST": "127.0.0.1",
        "AIRFLOW__METRICS__STATSD_PORT": str(listener.port),
        "AIRFLOW__METRICS__STATSD_PREFIX": "airflow",
        "AIRFLOW__OPENLINEAGE__TRANSPORT": json.dumps(
            {"type": "file", "log_file_path": str(lineage_file), "append": True}
        ),
        "AIRFLOW__OPENLINEAGE__NAMESPACE": "e2e",
    }


def _total(listener: StatsdListener, name: str) -> float:
    return sum(line.value for line in listener.lines if line.name == name)


FOUND_ENDED = b"ended while no trigger watched it"


def found_ended(home: Path) -> list[str]:
    """The task-log lines of triggers that, on (re)starting, found their try's job ended and counted it then: one
    per such trigger run, read from every trigger log file of the Airflow home's logs."""
    return [
        f"{path.name}: {line.decode(errors='replace')[:200]}"
        for path in sorted(home.rglob("*.log.trigger.*"))
        for line in path.read_bytes().splitlines()
        if FOUND_ENDED in line
    ]


def check_metrics(listener: StatsdListener, sim: Any, spec: Any, report: dict, home: Path) -> dict:
    """The triggerers' counters agree with the simulator's jobs: each job is counted by the trigger that sees it
    end, or by its try's restarted trigger that finds it ended (its task log says so). A trigger killed (or taken
    over by the other triggerer) between a job's count and its task's end is restarted and finds that job ended:
    the only way a job is counted twice, so the counts beyond one per job are at most those log lines."""
    found = found_ended(home)
    prefix = f"airflow.sagemaker_fleet.{spec.fleet}."
    jobs = fleet_jobs(sim, spec)
    warm, cold = _total(listener, prefix + "warm_starts"), _total(listener, prefix + "cold_starts")
    sim_warm = sum(1 for j in jobs if j["start"] == "warm")
    handoffs = [line for line in listener.lines if line.name == prefix + "handoff"]
    waiting = [line for line in listener.lines if line.name == prefix + "cities_waiting"]
    figures = {
        "starts_counted": warm + cold,
        "jobs": len(jobs),
        "warm_counted": warm,
        "warm_simulated": sim_warm,
        "handoffs": len(handoffs),
        "resubmissions": _total(listener, prefix + "resubmissions"),
        "cost_usd": round(_total(listener, prefix + "cost_usd"), 6),
        "found_ended_by_restarted_triggers": len(found),
    }
    assert 0.8 * len(jobs) <= warm + cold <= len(jobs) + len(found), (figures, found)
    assert 0 < warm <= sim_warm + len(found), (figures, found)
    assert handoffs, figures
    assert all(line.type == "ms" and line.value >= 0 for line in handoffs), handoffs[:5]
    assert waiting, "no cities_waiting gauge from the triggerers"
    assert figures["resubmissions"] >= 1, figures  # the city failed once on purpose was retried
    assert abs(figures["cost_usd"] - report["cost_usd"]) <= 1e-4, (figures, report)
    return figures


def check_lineage(lineage_file: Path, sim: Any, spec: Any, dag_id: str, failing: str, report: dict) -> dict:
    """Every event is valid OpenLineage; every city that trained has a COMPLETE from its triggerer under the run
    id of a START from its worker, with its data in and its model out; the failing city's tries end in FAIL; the
    report's COMPLETE carries the run's totals."""
    events = read_events(lineage_file)
    reg = registry()
    for event in events:
        validate(event, reg, every_facet=False)  # the listener's own airflow facets have no schema here
    train = f"{dag_id}.train"
    starts = {e["run"]["runId"] for e in events if e["job"]["name"] == train and e["eventType"] == "START"}
    ended: dict[str, list[dict]] = defaultdict(list)
    for event in events:
        facet = event["run"]["facets"].get("sagemakerFleetJob")
        if event["job"]["name"] == train and event["eventType"] in ("COMPLETE", "FAIL") and facet:
            assert validate(event, reg) == [], event  # the triggerer's own: every facet has its schema
            ended[facet["city"]].append(event)
    completed = {
        city: next(j for j in jobs if j["status"] == "Completed")
        for city, jobs in by_city(fleet_jobs(sim, spec), spec).items()
        if city != failing
    }
    for city, job in completed.items():
        closes = [e for e in ended[city] if e["eventType"] == "COMPLETE"]
        assert closes, f"{city}: no COMPLETE"
        for event in closes:
            assert event["run"]["runId"] in starts, f"{city}: a COMPLETE whose START no worker emitted"
            assert [d["name"] for d in event["inputs"]] == [f"data/{city}"]
            assert event["outputs"][0]["name"].endswith(f"/{job['name']}/output/model.tar.gz")
    assert [e["eventType"] for e in ended[failing]]
    assert {e["eventType"] for e in ended[failing]} == {"FAIL"}
    (totals,) = [
        e["run"]["facets"]["sagemakerFleetRun"]
        for e in events
        if e["job"]["name"] == f"{dag_id}.cost_report" and e["eventType"] == "COMPLETE"
    ]
    assert abs(totals["costUsd"] - report["cost_usd"]) <= 1e-5
    assert totals["jobs"] == report["jobs"]
    return {
        "events": len(events),
        "cities_closed_from_the_triggerer": len([c for c in completed if ended[c]]),
        "cities_closed_twice": sorted(c for c in completed if len(ended[c]) > 1),
    }


def check_models_asset(stack: Any, sim: Any, spec: Any, failing: str, timeout: float = 180.0) -> int:
    """The report emitted the models asset with every city that trained; the DAG scheduled on it ran with them."""
    listed = stack.api("GET", "/api/v2/assets/events?source_dag_id=e2e_fleet&source_task_id=cost_report")
    (event,) = [e for e in listed["asset_events"] if e["name"] == f"{spec.fleet}-models"]
    extra = event["extra"]
    cities = {c["city"]: c for c in extra["cities"]}
    expected = {c.name for c in spec.cities} - {failing}
    assert set(cities) == expected, sorted(set(cities) ^ expected)
    jobs = by_city(fleet_jobs(sim, spec), spec)
    for city, entry in cities.items():
        job = next(j for j in jobs[city] if j["status"] == "Completed")
        assert entry["job_name"] == job["name"]
        assert entry["model_uri"].endswith(f"/{job['name']}/output/model.tar.gz")
    deadline = time.monotonic() + timeout
    runs: list[dict] = []
    while time.monotonic() < deadline:
        runs = [r for r in stack.runs(OBSERVED_DAG) if r["state"] == "success"]
        if runs:
            break
        time.sleep(2)
    assert runs, f"{OBSERVED_DAG} did not run after the models asset's event"
    record = Path(stack.settings.home) / "models-changed" / f"{runs[0]['dag_run_id'].replace(':', '_')}.json"
    (seen,) = json.loads(record.read_text())
    assert {c["city"] for c in seen["cities"]} == expected
    return len(cities)
