"""Parse time of a fleet DAG file as the dag-processor sees it, for 10 → 1,000 → 5,000-city fleets.

Each size is parsed in a fresh interpreter (as the dag-processor's file processor does): cold (the provider's
modules imported by the file itself) and with them pre-imported (Airflow's default
``[dag_processor] parsing_pre_import_modules``), beside a trivial one-task DAG file as the floor.
The spec cache (``fleetspec/cache.py``) is a folder of the run's own: each file's first parse reads its spec
(``first parse``, cold, as after a deploy or an edit of the fleet file); every later parse finds it cached, as the
dag-processor's parses after its first do, and the cold and pre-imported columns are such parses (before the cache
took part, a single run's cold column read the spec and its pre-imported one did not). ``--repeat N`` parses each
file N times in each column (each in its own fresh interpreter, cold and pre-imported alternating) and reports the
median: on a shared machine one parse moves by a third between runs.
Target: a 1,000-city fleet under 1 s, far inside Airflow's 30 s DAG-file import timeout. Usage:

    python benchmarks/bench_dag_parse.py [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from result_file import add_result_options, started_now, write_result

REPO = Path(__file__).resolve().parent.parent
PROBE = """
import sys, time
sys.path.insert(0, {folder!r})
import airflow.sdk  # Airflow itself is loaded before the file, as in the dag-processor
if {preimport}:  # [dag_processor] parsing_pre_import_modules: the processor imports the file's imports first
    import sagemaker_fleet.dags
from airflow.dag_processing.dagbag import DagBag
t = time.perf_counter()
bag = DagBag(dag_folder={path!r}, safe_mode=True)
assert not bag.import_errors, bag.import_errors
print("RESULT", time.perf_counter() - t, len(bag.dags), sum(len(d.tasks) for d in bag.dags.values()))
"""
TRIVIAL = '''"""airflow dag"""
import datetime as dt
from airflow.sdk import DAG
from airflow.providers.standard.operators.empty import EmptyOperator
with DAG("trivial", schedule=None, start_date=dt.datetime(2026, 1, 1)) as dag:
    EmptyOperator(task_id="t")
'''


def fleet_yaml(cities: int) -> str:
    base = yaml.safe_load((REPO / "dags" / "fleets" / "demo.yaml").read_text())
    template = base["cities"]
    base["cities"] = [
        {
            **template[i % len(template)],
            "name": f"{template[i % len(template)]['name']}-{i}",
            "train_s3_uri": f"s3://sagemaker-fleet-demo/data/c{i}/",
        }
        for i in range(cities)
    ]
    for itype, quota in base["quotas"].items():
        base["quotas"][itype] = {k: v * max(1, cities // 200) for k, v in quota.items()}
    return yaml.safe_dump(base, sort_keys=False)


def parse(folder: Path, path: Path, preimport: bool = False) -> tuple[float, int, int]:
    code = PROBE.format(folder=str(folder), path=str(path), preimport=preimport)
    env = {**os.environ, "SAGEMAKER_FLEET_CACHE_DIR": str(folder / "spec-cache")}  # the run's own spec cache
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env)
    line = next(line for line in out.stdout.splitlines() if line.startswith("RESULT"))
    _, seconds, dags, tasks = line.split()
    return float(seconds), int(dags), int(tasks)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--repeat", type=int, default=1, help="parses of each file; the median is reported")
    add_result_options(parser)
    args = parser.parse_args()
    run_started = started_now()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "trivial.py").write_text(TRIVIAL)
        floor = statistics.median(parse(folder, folder / "trivial.py")[0] for _ in range(args.repeat))
        print(f"trivial one-task DAG file: {floor:.3f} s")
        print(f"{'cities':>7} {'first parse s':>14} {'parse s':>8} {'pre-imported s':>15} {'tasks':>6}")
        for cities in (10, 200, 1000, 5000):
            (folder / f"fleet{cities}.yaml").write_text(fleet_yaml(cities))
            dag_file = folder / f"fleet_{cities}.py"
            dag_file.write_text(
                '"""airflow dag"""\nfrom sagemaker_fleet.dags import build_fleet_dag\n'
                f"dag = build_fleet_dag({str(folder / f'fleet{cities}.yaml')!r}, dag_id='fleet_{cities}')\n"
            )
            first, _, _ = parse(folder, dag_file)  # the spec is not cached yet
            colds, warms = [], []
            for _ in range(args.repeat):  # alternating, so that both columns see the same load
                seconds, _, tasks = parse(folder, dag_file)
                colds.append(seconds)
                warms.append(parse(folder, dag_file, preimport=True)[0])
            seconds, warm = statistics.median(colds), statistics.median(warms)
            print(f"{cities:>7} {first:>14.3f} {seconds:>8.3f} {warm:>15.3f} {tasks:>6}")
            rows.append(
                {
                    "cities": cities,
                    "first_parse_s": first,
                    "cold_parse_s": seconds,
                    "pre_imported_s": warm,
                    "tasks": tasks,
                    "cold_parse_runs_s": colds,
                    "pre_imported_runs_s": warms,
                }
            )
    write_result(
        "bench_dag_parse",
        {"repeat": args.repeat, "trivial_dag_s": floor, "rows": rows},
        run_started,
        directory=args.results_dir,
    )


if __name__ == "__main__":
    main()
