"""Benchmark of ``sagemaker-fleet validate`` on a huge fleet: valid, and with every city broken (issue 16).

Run: ``.venv/bin/python benchmarks/bench_validate.py [--cities 20000] [--repeat 3]``.

Writes two fleet files of N cities each — all valid, and all invalid (four rules failing in turn: a bad name, a
runtime written as text, a misspelt key, no data URI) — and times the command on each, interleaved, best of
``--repeat`` runs (the machine is shared: the best run is the least disturbed). Collecting errors is linear when
the invalid file takes about as long as the valid one; it also prints how many lines the 20,000 errors take.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def fleet(cities: int, *, broken: bool) -> str:
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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        files = {"valid": Path(folder) / "valid.yaml", "invalid": Path(folder) / "invalid.yaml"}
        for kind, path in files.items():
            path.write_text(fleet(args.cities, broken=kind == "invalid"), encoding="utf-8")
        best: dict[str, float] = {}
        last: dict[str, subprocess.CompletedProcess[str]] = {}
        for _ in range(args.repeat):
            for kind, path in files.items():
                seconds, last[kind] = run(path)
                best[kind] = min(best.get(kind, seconds), seconds)
    assert last["valid"].returncode == 0, last["valid"].stderr
    assert last["invalid"].returncode == 2, last["invalid"].stderr
    errors = last["invalid"].stderr.splitlines()[0]
    print(f"validate, {args.cities:,} cities, best of {args.repeat} (s):")
    print(f"  valid    {best['valid']:6.2f}  exit 0")
    print(
        f"  invalid  {best['invalid']:6.2f}  exit 2, {errors.split(': ', 1)[1]} printed in "
        f"{len(last['invalid'].stderr.splitlines())} lines"
    )
    print(f"  invalid / valid = {best['invalid'] / best['valid']:.2f}")


if __name__ == "__main__":
    main()
