"""Benchmark of the input limits (``sagemaker_fleet.fleetspec.limits``): what refusing an oversized input costs.

Run: ``.venv/bin/python benchmarks/bench_input_limits.py [--repeat 5]``.

Measures, best of ``--repeat`` runs (the machine is shared: the best run is the least disturbed):

- the alias bomb of about a kilobyte under ``job:`` (nine aliases of nine aliases, eight levels: 9^8 metric
  definitions) — in this process, ``parse_fleet_spec`` with botocore's model, time and ``tracemalloc`` peak; and
  ``sagemaker-fleet validate`` on it in a fresh process, wall time and peak RSS, beside ``validate`` of the
  12-city ``dags/fleets/small.yaml`` (the command's own start-up is most of both);
- a fleet file of 64 MiB (sparse), refused by its size;
- a run's conf of 200,000 unknown cities (4.5 MB of JSON), refused by its size.

Before the limits the bomb ran ``validate`` into a MemoryError after 2.2 GB and 46 s. Wanted: each refusal under a
second and 200 MB; the bomb's ``validate`` within a few tenths of a second of the small fleet's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

from result_file import add_result_options, options, printed_lines, started_now, write_result

REPO = Path(__file__).resolve().parents[1]
SMALL = REPO / "dags" / "fleets" / "small.yaml"
HEAD = """\
fleet: bomb
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/bomb
quotas:
  ml.m5.xlarge: {instances: 2, warm_pools: 1}
defaults: {instance_type: ml.m5.xlarge}
job:
  AlgorithmSpecification:
    MetricDefinitions:
      - &a0 {Name: a, Regex: b}
"""
TAIL = "cities:\n  - {name: lima, train_s3_uri: 's3://acme-ml/data/lima/'}\n"


def alias_bomb(levels: int = 8) -> str:
    items = "".join(f"      - &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, levels + 1))
    return HEAD + items + TAIL


def in_process(call: Callable[[], Any], repeat: int) -> tuple[float, int, str]:
    """Best time of ``call`` (seconds), its ``tracemalloc`` peak (bytes) and what it raised."""
    best = float("inf")
    for _ in range(repeat):
        began = time.perf_counter()
        try:
            call()
            outcome = "no error"
        except Exception as exc:  # noqa: BLE001 - the refusal is the outcome measured
            outcome = type(exc).__name__
        best = min(best, time.perf_counter() - began)
    tracemalloc.start()
    try:
        call()
    except Exception:  # noqa: BLE001, S110 - measured above
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return best, peak, outcome


def validate(path: Path, repeat: int) -> tuple[float, float, int]:
    """Best wall time of ``sagemaker-fleet validate path`` in a fresh process, its peak RSS (MB) and exit code."""
    best, rss, code = float("inf"), 0.0, -1
    for _ in range(repeat):
        script = (
            "import resource, sys\n"
            "from sagemaker_fleet.cli.main import main\n"
            "code = main(['validate', sys.argv[1]])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
            "sys.exit(code)\n"
        )
        began = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True)
        best = min(best, time.perf_counter() - began)
        rss = max(rss, int(done.stderr.strip().splitlines()[-1]) / 1024)
        code = done.returncode
    return best, rss, code


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    from sagemaker_fleet.fleetspec import load_fleet_spec, parse_fleet_spec
    from sagemaker_fleet.fleetspec.runconf import parse_run_conf
    from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL

    BOTOCORE_MODEL.load()
    bomb = alias_bomb()
    small = SMALL.read_text(encoding="utf-8")
    conf = {"cities": [f"unknown-city-{i:06d}" for i in range(200_000)], "dry_run": True}
    with printed_lines() as printed, tempfile.TemporaryDirectory() as folder:
        bomb_path = Path(folder) / "bomb.yaml"
        bomb_path.write_text(bomb, encoding="utf-8")
        huge = Path(folder) / "huge.yaml"
        with huge.open("wb") as file:
            file.truncate(64 * 1024 * 1024)
        rows = {
            "alias bomb, parse": in_process(
                lambda: parse_fleet_spec(bomb, model=BOTOCORE_MODEL), args.repeat
            ),
            "small.yaml, parse": in_process(
                lambda: parse_fleet_spec(small, model=BOTOCORE_MODEL), args.repeat
            ),
            "64 MiB file, load": in_process(lambda: load_fleet_spec(huge), args.repeat),
            "4.5 MB conf, parse": in_process(lambda: parse_run_conf(conf), args.repeat),
        }
        print(f"in this process, best of {args.repeat}:")
        for name, (seconds, peak, outcome) in rows.items():
            print(f"  {name:20s} {seconds * 1000:8.1f} ms  peak {peak / 1e6:6.1f} MB  {outcome}")
        bomb_cli = validate(bomb_path, args.repeat)
        small_cli = validate(SMALL, args.repeat)
        print(f"sagemaker-fleet validate, a fresh process, best of {args.repeat}:")
        print(
            f"  alias bomb ({len(bomb.encode())} bytes) {bomb_cli[0]:6.2f} s  peak RSS {bomb_cli[1]:6.1f} MB  exit {bomb_cli[2]}"
        )
        print(
            f"  small.yaml (12 cities)  {small_cli[0]:6.2f} s  peak RSS {small_cli[1]:6.1f} MB  exit {small_cli[2]}"
        )
        print(
            f"  bomb / small = {bomb_cli[0] / small_cli[0]:.2f} (time), {bomb_cli[1] / small_cli[1]:.2f} (memory)"
        )
    write_result(
        "bench_input_limits",
        {
            "options": options(args),
            "printed": printed,
            "in_process": {
                name: {"seconds": s, "peak_bytes": p, "outcome": o} for name, (s, p, o) in rows.items()
            },
            "validate": {
                "bomb": dict(zip(("seconds", "peak_rss_mb", "exit"), bomb_cli, strict=True)),
                "small": dict(zip(("seconds", "peak_rss_mb", "exit"), small_cli, strict=True)),
            },
            "conf_bytes": len(json.dumps(conf)),
        },
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
