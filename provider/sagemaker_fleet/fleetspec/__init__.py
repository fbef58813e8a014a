"""Parse and validate fleet specs (docs/guides/fleet-spec.md) into typed, resolved values.

The names below are loaded on first use (PEP 562), not when the package is imported: a city's task process on a
worker imports :mod:`sagemaker_fleet.fleetspec.names` once per city and needs neither pydantic nor YAML.

Reading a spec:

- ``load.py``: read a spec from YAML, check every rule, resolve defaults into :class:`FleetSpec`;
- ``cache.py``: a spec read once per file content on a machine, not once per parse of the DAG file;
- ``yamlread.py``: the YAML as plain data, the line of every field path, its duplicate keys;
- ``model.py``: the spec as typed (pydantic) values;
- ``build.py``: checks one spec and resolves it, every problem with its field path and line;
- ``resolve.py``: a city's fields with ``defaults`` underneath, and where each value was written;
- ``repair.py``: drops the values pydantic refused so that a spec is validated again;
- ``paths.py``: field paths (``cities[3].spot.max_wait_seconds``), written and walked up.

Rules of the fields:

- ``formats.py``: what a valid value of each text field looks like, and the fix;
- ``crossfield.py``: rules between fields of one city that SageMaker would enforce only once a job runs;
- ``spot_rules.py``: a city's spot and keep-alive rules;
- ``resource_rules.py``: the values SageMaker bounds (KMS key, VPC ids, environment, hyperparameters);
- ``limits.py``: how much the provider takes from a user: a file's bytes and nodes, cities, a conf's bytes, a
  refusal's length;
- ``instance_types.py``: the training instance types the checks know, and the nearest one to a typo;
- ``ecr.py``: an ECR image URI taken apart, as DescribeImages names it;
- ``sharing.py``: the ``sharing`` block (a share of the account's quotas, a priority, the board);
- ``price_table.py``: the dated on-demand price table shipped in ``data/prices.json``.

``job:`` templates:

- ``job_layers.py``: the fleet's, ``defaults``' and each city's layers, checked and merged;
- ``job_merge.py``: how layers combine and how a template lands on the request (one rule for both);
- ``job_template.py``: a city's merged template as the resolved spec carries it;
- ``job_fields.py``: who fills each CreateTrainingJob field (provider, merged, shorthand, ``job:`` alone);
- ``model_check.py``: one layer checked against CreateTrainingJob's shape;
- ``request_model.py``: CreateTrainingJob's request shape as plain values;
- ``placeholders.py``: ``{city}``, ``{fleet}``, ``{run_key}`` in a template's strings.

``register:`` (the model registry's gate):

- ``register.py``: the fleet's, ``defaults``' and each city's layers, checked (the job's MetricDefinitions,
  InferenceSpecification's shape) and merged into a city's ``RegisterSpec``.

Errors and messages:

- ``issue.py``: one problem (:class:`SpecIssue`);
- ``errors.py``: the error that carries every problem of a spec at once;
- ``messages.py``: pydantic's structural errors as our messages;
- ``render.py``: thousands of problems as text a person can read.

Runs and advice:

- ``names.py``: job names, their tags and S3 paths — the name is a submission's idempotency key;
- ``runspec.py``: this run's spec, the run's conf applied;
- ``runconf.py``: a run's conf, the contract every fleet DAG keeps (the trigger form's keys, nothing else);
- ``overrides.py``: run-time overrides (a subset of cities, spot off, another instance type);
- ``draft.py``: a spec drafted from training jobs you already run (``sagemaker-fleet import``);
- ``draft_cities.py``: the cities of such a draft, read out of the jobs' names;
- ``triggerer.py``: how many triggers a run holds at once, as advice for the triggerers.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.errors import FleetSpecError
    from sagemaker_fleet.fleetspec.issue import SpecIssue
    from sagemaker_fleet.fleetspec.load import build_fleet_spec, load_fleet_spec, parse_fleet_spec
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec, InstanceQuota, SpotSettings, VpcSettings

#: Where each exported name is defined.
_HOMES = {
    "FleetSpecError": "errors",
    "SpecIssue": "issue",
    "build_fleet_spec": "load",
    "load_fleet_spec": "load",
    "parse_fleet_spec": "load",
    "CitySpec": "model",
    "FleetSpec": "model",
    "InstanceQuota": "model",
    "SpotSettings": "model",
    "VpcSettings": "model",
}

__all__ = [
    "CitySpec",
    "FleetSpec",
    "FleetSpecError",
    "InstanceQuota",
    "SpecIssue",
    "SpotSettings",
    "VpcSettings",
    "build_fleet_spec",
    "load_fleet_spec",
    "parse_fleet_spec",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
