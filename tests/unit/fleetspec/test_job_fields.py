"""The field table (owned / merged / shorthand / passed) against the compiler and botocore's model."""

from __future__ import annotations

import dataclasses
from typing import Any

from sagemaker_fleet.fleetspec import load_fleet_spec
from sagemaker_fleet.fleetspec.job_fields import AWS_DEFAULTS, MERGED, OWNED, PROVIDED, SHORTHANDS
from sagemaker_fleet.fleetspec.request_model import FIELDS_SINCE, FieldShape
from sagemaker_fleet.hooks.request_model import BOTOCORE_MODEL
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from unit.jobs.test_request_pinned import FLEET_FILES


def shape_tree(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: shape_tree(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape_tree(value[0])] if value else []
    return type(value).__name__


def test_provided_is_the_shape_of_what_the_compiler_always_sends() -> None:
    fleet = load_fleet_spec(FLEET_FILES[0])
    city = next(city for city in fleet.cities if city.vpc is None and city.spot is None)
    city = dataclasses.replace(city, hyperparameters=(), environment=())
    request = compile_training_request(fleet, city, Submission(city.name, "20261129"))
    assert shape_tree(PROVIDED) == shape_tree(request)


def member(path: str) -> FieldShape | None:
    shape: FieldShape | None = BOTOCORE_MODEL.load().request
    for part in path.replace("[train]", "").split("."):
        while shape is not None and shape.kind == "list":
            shape = shape.item
        shape = shape.members.get(part) if shape is not None else None
    return shape


def test_every_path_of_the_table_is_a_field_of_the_installed_model() -> None:
    paths = [*OWNED, *MERGED, *(s.path for s in SHORTHANDS), *AWS_DEFAULTS]
    assert [path for path in paths if member(path) is None] == []


def test_a_newer_field_is_in_the_installed_model_exactly_when_its_release_is_installed() -> None:
    model = BOTOCORE_MODEL.load()
    for path in FIELDS_SINCE:
        assert (member(path) is None) == (model.since(path) is not None), path
