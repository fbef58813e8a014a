"""A worker that parses a fleet DAG file to run one city's task instance builds that task alone, light: no spec
read (but a manual DAG's form), no AWS SDK, no other operator — the same task as the whole DAG's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]

PROBE = """
import json, os, sys, time
os.environ["_AIRFLOW_PARSING_CONTEXT_DAG_ID"] = sys.argv[2]
if sys.argv[3]:
    os.environ["_AIRFLOW_PARSING_CONTEXT_TASK_ID"] = sys.argv[3]
from sagemaker_fleet.compat import dag_bag_class
DagBag = dag_bag_class()
before = set(sys.modules)
bag = DagBag(sys.argv[1])
dag = bag.dags[sys.argv[2]]
train = dag.task_dict[sys.argv[3] or "train"]
print(json.dumps({
    "tasks": sorted(dag.task_dict),
    "errors": {k: str(v) for k, v in bag.import_errors.items()},
    "boto3": "boto3" in sys.modules,
    "planner": "sagemaker_fleet.plan.planner" in sys.modules,
    "trigger": "sagemaker_fleet.triggers.city" in sys.modules,
    "partial": {k: v for k, v in train.partial_kwargs.items() if k not in ("outlets",)},
    "template": train.partial_kwargs.get("map_index_template"),
    "source": train.expand_input.value["city"].operator.task_id,
    "params": sorted(dag.params),
}, default=str))
"""


def parse(dag_file: Path, dag_id: str, task_id: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", PROBE, str(dag_file), dag_id, task_id],
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("dag_file", "dag_id"),
    [
        ("city_training_weekly.py", "city_training_weekly"),
        ("city_training_manual.py", "city_training_manual"),
    ],
)
def test_a_city_task_process_builds_the_city_task_alone_without_the_aws_sdk(
    dag_file: str, dag_id: str
) -> None:
    light = parse(REPO / "dags" / dag_file, dag_id, "train")
    assert light["errors"] == {}
    assert light["tasks"] == ["plan", "train"]
    assert light["source"] == "plan"
    assert (light["boto3"], light["planner"], light["trigger"]) == (False, False, False)
    whole = parse(REPO / "dags" / dag_file, dag_id, "")
    assert whole["tasks"] == ["cost_report", "outcome", "plan", "release_pools", "train"]
    assert whole["boto3"]  # the whole DAG is what the dag-processor parses, with everything
    # the same city task either way: what it defers with comes from these arguments, and the form's params
    assert light["partial"] == whole["partial"]
    assert light["template"] == "{{ task.city }}"
    assert light["params"] == whole["params"]


def test_a_city_task_of_the_second_thousand_is_mapped_over_its_cities_task(tmp_path: Path) -> None:
    dag_file = tmp_path / "big_dag.py"
    dag_file.write_text(
        '"""airflow dag"""\nfrom sagemaker_fleet.dags import build_fleet_dag\n'
        f"dag = build_fleet_dag({str(REPO / 'dags' / 'fleets' / 'weekly.yaml')!r}, dag_id='big')\n"
    )
    light = parse(dag_file, "big", "train_2")
    assert light["errors"] == {}
    assert light["tasks"] == ["cities_2", "train_2"]
    assert light["source"] == "cities_2"
    assert not light["boto3"]
