"""Benchmark of ``sagemaker-fleet validate`` on a huge fleet: valid, with every city broken (issue 16), and valid
with ``job:`` templates (issue 38).

Run: ``.venv/bin/python benchmarks/bench_validate.py [--cities 20000] [--repeat 3]``.

Writes three fleet files of N cities each — all valid; all invalid (four rules failing in turn: a bad name, a
runtime written as text, a misspelt key, no data URI); and valid with a fleet-level ``job:`` template (two channels
beyond ``train`` with ``{city}`` in them, metric definitions, tags, an entrypoint with arguments, environment, a VPC,
a retry strategy: checked against botocore's model, rendered and checked for every city) and a ``job:`` of its own
on every tenth city — and times the command on each, interleaved, best of ``--repeat`` runs (the machine is shared:
the best run is the least disturbed). Collecting errors is linear when the invalid file takes about as long as the
valid one; templates are cheap when the templated file takes at most 1.5 times as long.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from result_file import add_result_options, options, printed_lines, started_now, write_result

HEAD = """\
fleet: bench
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/bench
quotas:
  ml.m5.xlarge: {instances: 20, warm_pools: 8}
defaults:
  instance_type: ml.m5.xlarge
  max_runtime_seconds: 7200
cities:
"""
BROKEN = [
    '  - {{name: "City_{i}", train_s3_uri: "s3://acme-ml/data/c{i}/"}}',
    '  - {{name: c{i}, train_s3_uri: "s3://acme-ml/data/c{i}/", max_runtime_seconds: "1h"}}',
    '  - {{name: c{i}, train_s3_uri: "s3://acme-ml/data/c{i}/", expected_secs: 10}}',
    "  - {{name: c{i}}}",
]
VALID = '  - {{name: c{i}, train_s3_uri: "s3://acme-ml/data/c{i}/"}}'
#: The fleet-level template of the templated file (after ``defaults``), and a city's own on every tenth city.
TEMPLATE = """\
job:
  AlgorithmSpecification:
    ContainerEntrypoint: [python, -m, demand.train]
    ContainerArguments: [--city, "{city}", --run, "{run_key}"]
    MetricDefinitions:
      - {Name: "validation:rmse", Regex: "val_rmse=([0-9.]+)"}
      - {Name: "validation:mape", Regex: "val_mape=([0-9]{{1,3}}[.][0-9]+)"}
  InputDataConfig:
    - {ChannelName: validation, DataSource: {S3DataSource: {S3DataType: S3Prefix, S3Uri: "s3://acme-ml/data/{city}/val/"}}}
    - {ChannelName: features, DataSource: {S3DataSource: {S3DataType: S3Prefix, S3Uri: "s3://acme-ml/features/"}}}
  OutputDataConfig: {KmsKeyId: alias/ml-output}
  Environment: {STAGE: prod, CITY: "{city}"}
  VpcConfig: {Subnets: [subnet-0a1b2c3d], SecurityGroupIds: [sg-0a1b2c3d]}
  RetryStrategy: {MaximumRetryAttempts: 2}
  ExperimentConfig: {ExperimentName: "{fleet}-{city}", RunName: "{city}-{run_key}"}
  Tags: [{Key: cost-center, Value: forecasting}, {Key: city, Value: "{city}"}]
"""
OWN_JOB = (
    '  - {{name: c{i}, train_s3_uri: "s3://acme-ml/data/c{i}/", job: {{HyperParameters: {{epochs: "30"}}}}}}'
)


def fleet(cities: int, *, broken: bool = False, templated: bool = False) -> str:
    if templated:
        lines = [(OWN_JOB if i % 10 == 0 else VALID).format(i=i) for i in range(cities)]
        return HEAD.replace("cities:\n", TEMPLATE + "cities:\n") + "\n".join(lines) + "\n"
    lines = [(BROKEN[i % 4] if broken else VALID).format(i=i) for i in range(cities)]
    return HEAD + "\n".join(lines) + "\n"


def run(path: Path) -> tuple[float, subprocess.CompletedProcess[str]]:
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "sagemaker_fleet.cli.main", "validate", str(path)],
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - began, done


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cities", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    with printed_lines() as printed:
        with tempfile.TemporaryDirectory() as folder:
            files = {kind: Path(folder) / f"{kind}.yaml" for kind in ("valid", "invalid", "templated")}
            for kind, path in files.items():
                text = fleet(args.cities, broken=kind == "invalid", templated=kind == "templated")
                path.write_text(text, encoding="utf-8")
            best: dict[str, float] = {}
            last: dict[str, subprocess.CompletedProcess[str]] = {}
            for _ in range(args.repeat):
                for kind, path in files.items():
                    seconds, last[kind] = run(path)
                    best[kind] = min(best.get(kind, seconds), seconds)
        assert last["valid"].returncode == 0, last["valid"].stderr
        assert last["invalid"].returncode == 2, last["invalid"].stderr
        assert last["templated"].returncode == 0, last["templated"].stderr
        errors = last["invalid"].stderr.splitlines()[0]
        print(f"validate, {args.cities:,} cities, best of {args.repeat} (s):")
        print(f"  valid    {best['valid']:6.2f}  exit 0")
        print(
            f"  invalid  {best['invalid']:6.2f}  exit 2, {errors.split(': ', 1)[1]} printed in "
            f"{len(last['invalid'].stderr.splitlines())} lines"
        )
        print(f"  templated {best['templated']:5.2f}  exit 0, a fleet-level job: and one on every tenth city")
        print(f"  invalid / valid = {best['invalid'] / best['valid']:.2f}")
        print(f"  templated / valid = {best['templated'] / best['valid']:.2f} (at most 1.5 wanted)")
    write_result(
        "bench_validate",
        {"options": options(args), "printed": printed},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
