"""The example DAG scheduled on the demo fleet's models asset listens to the asset the fleet DAG's report emits, and
reads the changed cities from the events' extra."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import SimpleNamespace

from airflow.sdk import Asset

from sagemaker_fleet.contract import models_asset_name
from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.names import models_s3_prefix

DAGS = Path(__file__).resolve().parents[3] / "dags"


def example():
    spec = importlib.util.spec_from_file_location("city_models_changed", DAGS / "city_models_changed.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_it_is_scheduled_on_the_asset_the_demo_fleets_report_emits() -> None:
    module = example()
    fleet = load_fleet_spec(DAGS / "fleets" / "demo.yaml")
    # (Airflow normalises an asset's URI: the report's Asset and this one must be made alike)
    assert module.MODELS == Asset(
        name=models_asset_name(fleet.fleet), uri=models_s3_prefix(fleet.output_s3_uri)
    )


def test_the_latest_run_names_each_city_once() -> None:
    module = example()
    first = {
        "run_key": "20261128",
        "cities": [{"city": "lima", "job_name": "a", "model_uri": "s3://m/a", "start": "cold"}],
    }
    second = {
        "run_key": "20261129",
        "cities": [
            {"city": "lima", "job_name": "b", "model_uri": "s3://m/b", "start": "warm"},
            {"city": "oslo", "job_name": "c", "model_uri": "s3://m/c", "start": "cold"},
        ],
    }
    cities = module.changed_cities([SimpleNamespace(extra=first), SimpleNamespace(extra=second)])
    assert {name: (c["job_name"], c["run_key"]) for name, c in cities.items()} == {
        "lima": ("b", "20261129"),
        "oslo": ("c", "20261129"),
    }


def test_an_event_recorded_on_airflow_3_0_reads_alike() -> None:
    """Airflow 3.0 records an alias's event only with hashable extra values: the cities travel as their JSON text
    there (``compat.alias_event_extra``); the example reads both."""
    import json

    module = example()
    cities = [{"city": "lima", "job_name": "a", "model_uri": "s3://m/a", "start": "cold"}]
    on_3_0 = {"run_key": "20261128", "cities": json.dumps(cities)}
    on_3_1 = {"run_key": "20261128", "cities": cities}
    read = [module.changed_cities([SimpleNamespace(extra=extra)]) for extra in (on_3_0, on_3_1)]
    assert read[0] == read[1] == {"lima": {**cities[0], "run_key": "20261128"}}


def test_the_extra_of_an_alias_event_is_hashable_where_airflow_needs_it(monkeypatch) -> None:
    from sagemaker_fleet import compat

    extra = {"version": 1, "fleet": "f", "trained": 1, "cities": [{"city": "lima"}]}
    monkeypatch.setattr(compat, "ALIAS_EVENT_EXTRA_MUST_BE_HASHABLE", True)
    flat = compat.alias_event_extra(extra)
    frozenset(flat.items())  # what Airflow 3.0 does with it (TypeError: unhashable type: 'list' before)
    assert json_loads(flat["cities"]) == extra["cities"]
    monkeypatch.setattr(compat, "ALIAS_EVENT_EXTRA_MUST_BE_HASHABLE", False)
    assert compat.alias_event_extra(extra) == extra


def json_loads(text: str) -> object:
    import json

    return json.loads(text)


def test_a_gated_run_deploys_the_approved_cities_only() -> None:
    """With register:, the event's cities are the approved ones (each with its package) and the pending ones are
    apart: the example deploys the first and not the second."""
    module = example()
    gated = {
        "run_key": "20261130",
        "cities": [
            {
                "city": "lima",
                "job_name": "b",
                "model_uri": "s3://m/b",
                "start": "warm",
                "package_arn": "arn:p/2",
            }
        ],
        "pending": [
            {
                "city": "oslo",
                "job_name": "c",
                "model_uri": "s3://m/c",
                "start": "cold",
                "package_arn": "arn:q/1",
            }
        ],
        "registry": {"approved": 1, "pending": 1, "rejected": 3, "no_metric": 0, "not_trained": 0},
    }
    events = [SimpleNamespace(extra=gated)]
    assert list(module.changed_cities(events)) == ["lima"]
    assert module.changed_cities(events)["lima"]["package_arn"] == "arn:p/2"
    assert list(module.changed_cities(events, "pending")) == ["oslo"]
