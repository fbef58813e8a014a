"""Benchmark of the fleet's observability (issue 27): CPU per city of the metrics and the lineage, in one run.

Run: ``.venv/bin/python benchmarks/bench_observability.py [--cities 1000] | tail -8`` (the provider logs a line per
event it emits, as it does in the triggerer: that is part of what is measured).

What a city's trigger adds at its end, measured with ``time.process_time`` over every city of a one-group fleet
whose run's ledger holds every job's end (the worst case of the hand-off's scan):

1. the metrics: :func:`city_measurements` (start, hand-off, re-submission) and :func:`send` through Airflow's own
   StatsD client to a UDP socket on 127.0.0.1 (``[metrics] statsd_on``), and, for comparison, with metrics off;
2. the lineage: the city facet (priced as the cost report prices it) and the provider's ``OperatorLineage``, and
   the whole COMPLETE event written by the provider's adapter through the client's file transport;
3. per sweep: the run's ledger reading a listing of every job.

Target: < 5 ms of CPU per city for 1 and 2 together. No SageMaker call is made: the values come from the
descriptions and listings the trigger and the poller hold already.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import socket
import tempfile
import time
from pathlib import Path
from typing import Any

from result_file import add_result_options, options, printed_lines, started_now, write_result
from sagemaker_fleet.dispatch import DispatchBook, RunTracker
from sagemaker_fleet.dispatch.cadence import Cadence
from sagemaker_fleet.dispatch.city_run import CityRun
from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec, InstanceQuota
from sagemaker_fleet.fleetspec.names import job_name
from sagemaker_fleet.jobs.progress import run_job_names
from sagemaker_fleet.observability.facets import job_facet_fields, model_artifact, training_inputs
from sagemaker_fleet.observability.metrics import RunLedger, city_measurements
from sagemaker_fleet.observability.stats import send
from sagemaker_fleet.plan import plan_fleet

RUN_KEY = "20261129"
ROLE = "arn:aws:iam::111122223333:role/Team0"
IMAGE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4"
T0 = dt.datetime(2026, 11, 29, 6, tzinfo=dt.UTC)


def fleet(cities: int) -> FleetSpec:
    return FleetSpec(
        fleet="bench",
        region="us-east-1",
        role_arn=ROLE,
        image_uri=IMAGE,
        output_s3_uri="s3://acme-ml/fleets/bench",
        cities=tuple(
            CitySpec(
                name=f"c{i:04d}",
                train_s3_uri=f"s3://acme-ml/data/c{i:04d}/",
                role_arn=ROLE,
                image_uri=IMAGE,
                instance_type="ml.m5.xlarge",
                expected_seconds=600 + i % 300,
            )
            for i in range(cities)
        ),
        quotas={"ml.m5.xlarge": InstanceQuota(instances=20, warm_pools=20)},
    )


def description(name: str, created: float, startup: float, city: str) -> dict[str, Any]:
    """A completed job as boto3 describes it (datetimes, transitions, billing, a warm pool that was reused)."""

    def at(seconds: float) -> dt.datetime:
        return T0 + dt.timedelta(seconds=seconds)

    phases = [
        ("Starting", startup * 0.6),
        ("Downloading", startup * 0.4),
        ("Training", 600.0),
        ("Uploading", 10.0),
    ]
    transitions, t = [], created
    for status, seconds in phases:
        transitions.append(
            {"Status": status, "StartTime": at(t), "EndTime": at(t + seconds), "StatusMessage": ""}
        )
        t += seconds
    return {
        "TrainingJobName": name,
        "TrainingJobArn": f"arn:aws:sagemaker:us-east-1:111122223333:training-job/{name}",
        "TrainingJobStatus": "Completed",
        "SecondaryStatus": "Completed",
        "RoleArn": ROLE,
        "AlgorithmSpecification": {"TrainingImage": IMAGE, "TrainingInputMode": "FastFile"},
        "InputDataConfig": [
            {"ChannelName": "train", "DataSource": {"S3DataSource": {"S3Uri": f"s3://acme-ml/data/{city}/"}}}
        ],
        "ModelArtifacts": {
            "S3ModelArtifacts": f"s3://acme-ml/fleets/bench/models/{city}/{RUN_KEY}/{name}/output/model.tar.gz"
        },
        "ResourceConfig": {"InstanceType": "ml.m5.xlarge", "InstanceCount": 1, "VolumeSizeInGB": 30},
        "EnableManagedSpotTraining": False,
        "CreationTime": at(created),
        "TrainingStartTime": at(created + startup),
        "TrainingEndTime": at(t),
        "LastModifiedTime": at(t),
        "SecondaryStatusTransitions": transitions,
        "TrainingTimeInSeconds": 600,
        "BillableTimeInSeconds": 600,
        "WarmPoolStatus": {"Status": "Reused", "ResourceRetainedBillableTimeInSeconds": 12},
    }


class NoIO:
    """The city runs' I/O is not used: each run's state is set as its trigger leaves it."""


def runs(cities: int) -> tuple[list[CityRun], RunLedger, list[dict[str, Any]]]:
    spec = fleet(cities)
    book = DispatchBook.from_plan(plan_fleet(spec, RUN_KEY), spec)
    tracker = RunTracker(book, run_job_names(spec, RUN_KEY))
    described = [
        description(
            job_name(spec.fleet, c.name, RUN_KEY), 200.0 * (i // 20), 21.0 if i >= 20 else 140.0, c.name
        )
        for i, c in enumerate(spec.cities)
    ]
    ledger = RunLedger()
    ledger.observe(described)  # every end seen: the hand-off's scan at its longest
    out = []
    for city, d in zip(spec.cities, described, strict=True):
        run = CityRun(
            spec,
            city,
            RUN_KEY,
            NoIO(),
            NoIO(),
            tracker,
            cadence=Cadence(capacity_retry_seconds=60, capacity_timeout_seconds=600),
        )  # type: ignore[arg-type]
        run.history = [d]
        out.append(run)
    return out, ledger, described


def per_city_ms(work: Any, items: list[Any], repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        for item in items:
            work(item)
        best = min(best, time.process_time() - start)
    return best / len(items) * 1000


def statsd_on(port: int) -> None:
    from sagemaker_fleet.compat import reinitialize_stats

    os.environ.update(
        {
            "AIRFLOW__METRICS__STATSD_ON": "True",
            "AIRFLOW__METRICS__STATSD_HOST": "127.0.0.1",
            "AIRFLOW__METRICS__STATSD_PORT": str(port),
        }
    )
    reinitialize_stats()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cities", type=int, default=1000)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    with printed_lines() as printed:
        city_runs, ledger, described = runs(args.cities)
        print(f"{args.cities} cities, one warm-pool group, every job's end in the run's ledger")

        def metrics(run: CityRun) -> None:
            send(city_measurements(run, run.history, ledger, refusals=1))

        def compute_only(run: CityRun) -> None:
            city_measurements(run, run.history, ledger, refusals=1)

        off = per_city_ms(metrics, city_runs)  # Airflow's Stats off: NoStatsLogger
        computed = per_city_ms(compute_only, city_runs)
        sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sink.bind(("127.0.0.1", 0))
        sink.setblocking(False)
        statsd_on(sink.getsockname()[1])
        on = per_city_ms(metrics, city_runs)
        sink.close()

        from sagemaker_fleet.observability import lineage

        def facet_and_lineage(run: CityRun) -> None:
            latest = run.history[-1]
            fields = job_facet_fields(run.spec, run.city.name, RUN_KEY, latest, 1, ledger.reused)
            output = model_artifact(latest)
            lineage.operator_lineage(
                training_inputs(latest), [output] if output else [], {"sagemakerFleetJob": fields}
            )

        facets = per_city_ms(facet_and_lineage, city_runs)
        with tempfile.TemporaryDirectory() as folder:
            os.environ["AIRFLOW__OPENLINEAGE__TRANSPORT"] = json.dumps(
                {"type": "file", "log_file_path": str(Path(folder) / "ol.jsonl"), "append": True}
            )
            ids = {
                "run_id": "01890000-0000-7000-8000-000000000001",
                "job_name": "bench.train",
                "parent_run_id": "01890000-0000-7000-8000-000000000002",
                "parent_job_name": "bench",
            }

            def emitted(run: CityRun) -> None:
                latest = run.history[-1]
                fields = job_facet_fields(run.spec, run.city.name, RUN_KEY, latest, 1, ledger.reused)
                built = lineage.operator_lineage(
                    training_inputs(latest), [model_artifact(latest) or ""], {"sagemakerFleetJob": fields}
                )
                lineage._emit(ids, "success", built, "")

            emit = per_city_ms(emitted, city_runs[:200], repeat=1)
        sweep = per_city_ms(lambda _: RunLedger().observe(described), [0], repeat=5) / len(described)

        print(f"{'per city (CPU, best of 3)':44s}{'ms':>10s}")
        print(f"{'metrics computed (no send)':44s}{computed:10.3f}")
        print(f"{'metrics computed and sent, Stats off':44s}{off:10.3f}")
        print(f"{'metrics computed and sent to StatsD (UDP)':44s}{on:10.3f}")
        print(f"{'lineage facet and OperatorLineage':44s}{facets:10.3f}")
        print(f"{'  + COMPLETE emitted (file transport)':44s}{emit:10.3f}")
        print(f"{'metrics (StatsD) + lineage (emitted)':44s}{on + emit:10.3f}   target < 5")
        print(f"{'ledger, per job listed per sweep':44s}{sweep * 1000:10.1f} µs")
    write_result(
        "bench_observability",
        {"options": options(args), "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
