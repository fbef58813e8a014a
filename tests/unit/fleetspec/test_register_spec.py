"""``register:`` at fleet level, in ``defaults`` and per city: merged like ``job:``, checked against the job's
MetricDefinitions and botocore's InferenceSpecification shape, every error naming its field and city, exit 2 from
``validate`` (docs/guides/model-registry.md)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from sagemaker_fleet.cli.main import main
from unit.fleetspec.job_specs import error_at, errors, load, spec_data

SERVE = "111122223333.dkr.ecr.us-east-1.amazonaws.com/demand-serve:2.1"
REGISTER: dict[str, Any] = {
    "group": "{fleet}-{city}",
    "metric": "validation:rmse",
    "direction": "minimize",
    "margin": 0.02,
    "bound": 25.0,
    "approve": "Approved",
    "losers": "reject",
    "inference": {
        "Containers": [{"Image": SERVE, "Environment": {"CITY": "{city}"}}],
        "SupportedContentTypes": ["text/csv"],
        "SupportedResponseMIMETypes": ["text/csv"],
    },
}


def with_register(register: dict[str, Any] | None = None, **changes: Any) -> dict[str, Any]:
    data = spec_data(**changes)
    data["register"] = copy.deepcopy(REGISTER if register is None else register)
    return data


def test_the_issue_s_shape_resolves_for_every_city_and_is_shared() -> None:
    spec = load(with_register())
    seoul, lagos = (spec.city(name).register for name in ("seoul", "lagos"))
    assert seoul is not None
    assert seoul is lagos  # one value for every city with the same layers
    assert (seoul.metric, seoul.direction, seoul.margin, seoul.margin_abs, seoul.bound) == (
        "validation:rmse",
        "minimize",
        0.02,
        None,
        25.0,
    )
    assert (seoul.approve, seoul.losers) == ("Approved", "reject")
    assert seoul.group_name("demand", "seoul") == "demand-seoul"
    assert seoul.inference_for("demand", "lagos", "20261129")["Containers"] == [
        {"Image": SERVE, "Environment": {"CITY": "lagos"}}
    ]


def test_defaults_and_a_city_merge_over_the_fleet_and_a_margin_replaces_the_other() -> None:
    data = with_register(
        defaults={"instance_type": "ml.m5.xlarge", "register": {"approve": "PendingManualApproval"}}
    )
    data["cities"][1]["register"] = {
        "margin_abs": 0.5,
        "losers": "skip",
        "inference": {"SupportedContentTypes": ["application/json"]},
    }
    spec = load(data)
    seoul, lagos = spec.city("seoul").register, spec.city("lagos").register
    assert seoul is not None
    assert lagos is not None
    assert (seoul.approve, seoul.margin, seoul.margin_abs, seoul.losers) == (
        "PendingManualApproval",
        0.02,
        None,
        "reject",
    )
    assert (lagos.approve, lagos.margin, lagos.margin_abs, lagos.losers) == (
        "PendingManualApproval",
        None,
        0.5,
        "skip",
    )
    inference = json.loads(lagos.inference)
    assert inference["SupportedContentTypes"] == ["application/json"]
    assert inference["Containers"][0]["Image"] == SERVE  # merged member by member


def test_register_null_on_a_city_leaves_it_out_and_a_spec_without_register_has_none() -> None:
    data = with_register()
    data["cities"][0]["register"] = None
    spec = load(data)
    assert spec.city("seoul").register is None
    assert spec.city("lagos").register is not None
    assert all(city.register is None for city in load(spec_data()).cities)


def test_a_city_may_register_alone() -> None:
    data = spec_data()
    data["cities"][1]["register"] = copy.deepcopy(REGISTER)
    spec = load(data)
    assert spec.city("seoul").register is None
    assert spec.city("lagos").register is not None


@pytest.mark.parametrize(
    ("change", "path", "says"),
    [
        ({"metric": "validation:rmsee"}, "register.metric", "did you mean 'validation:rmse'?"),
        ({"metric": "train:loss"}, "register.metric", "not one of the job's MetricDefinitions"),
        ({"metric": ""}, "register.metric", "at least 1 character"),
        ({"margin": 1.5}, "register.margin", "less than 1"),
        ({"margin": -0.1}, "register.margin", "greater than or equal to 0"),
        ({"margin": "2%"}, "register.margin", "such as 0.02 for 2 %"),
        ({"margin": float("nan")}, "register.margin", "finite"),
        ({"margin_abs": 0.5}, "register.margin_abs", "both set"),
        ({"margin_abs": -1}, "register.margin_abs", "greater than or equal to 0"),
        ({"group": "{fleet}-models"}, "register.group", "has no {city}"),
        ({"group": "{city}-{run_key}"}, "register.group", "a new group each run"),
        ({"group": "{town}"}, "register.group", "unknown placeholder `{town}`"),
        ({"group": "{city}_models"}, "register.group", "not a model package group's name"),
        ({"direction": "lower"}, "register.direction", "'minimize' or 'maximize'"),
        ({"approve": "Rejected"}, "register.approve", "'Approved' or 'PendingManualApproval'"),
        ({"losers": "drop"}, "register.losers", "'reject' or 'skip'"),
        ({"bound": "low"}, "register.bound", "a plain number"),
        ({"approval": "Approved"}, "register.approval", "did you mean `approve`?"),
        ({"tags": {"sagemaker-fleet:owner": "x"}}, "register.tags[sagemaker-fleet:owner]", "the provider's"),
    ],
)
def test_a_bad_value_is_named_with_its_fix(change: dict[str, Any], path: str, says: str) -> None:
    register = {**REGISTER, **change}
    assert says in error_at(with_register(register), path)


@pytest.mark.parametrize("key", ["group", "metric", "direction", "inference", "margin"])
def test_a_missing_field_is_named_once(key: str) -> None:
    register = {k: v for k, v in REGISTER.items() if k != key}
    found = [line for line in errors(with_register(register)) if f"register.{key} " in line]
    assert len(found) == 1, found
    assert "required field is missing" in found[0]


def test_a_job_without_metric_definitions_cannot_be_gated() -> None:
    job = copy.deepcopy(spec_data()["job"])
    del job["AlgorithmSpecification"]["MetricDefinitions"]
    message = error_at(with_register(job=job), "register.metric")
    assert "defines no MetricDefinitions" in message
    assert "job.AlgorithmSpecification.MetricDefinitions" in message


def test_a_city_whose_own_job_lacks_the_metric_is_named() -> None:
    data = with_register()
    data["cities"][1]["job"] = {
        "AlgorithmSpecification": {"MetricDefinitions": [{"Name": "train:loss", "Regex": "loss=([0-9.]+)"}]}
    }
    # lists replace across job: layers, so lagos's job reports train:loss only
    message = error_at(data, "register.metric")
    assert (
        "for city lagos: 'validation:rmse' is not one of the job's MetricDefinitions (train:loss)" in message
    )


def test_a_group_too_long_for_one_city_names_the_city() -> None:
    data = with_register()
    data["cities"].append({"name": "x" * 60, "train_s3_uri": "s3://acme-ml/data/x/"})
    message = error_at(data, "register.group")
    assert f"for city {'x' * 60}: the group's name 'demand-{'x' * 60}' has 67 characters" in message


def test_inference_is_checked_against_create_model_package_s_shape() -> None:
    register = copy.deepcopy(REGISTER)
    register["inference"]["Containerz"] = []
    register["inference"]["Containers"][0]["ModelDataUrl"] = "s3://acme-ml/model.tar.gz"
    register["inference"]["SupportedRealtimeInferenceInstanceTypes"] = ["ml.m5.xxl"]
    lines = errors(with_register(register))
    text = "\n".join(lines)
    assert "register.inference.Containerz" in text
    assert "did you mean `Containers`?" in text
    assert "register.inference.Containers[0].ModelDataUrl" in text
    assert "is the provider's" in text
    assert "register.inference.SupportedRealtimeInferenceInstanceTypes[0]" in text
    assert "'ml.m5.xxl' is not one of SageMaker's values" in text
    no_containers = {**REGISTER, "inference": {"SupportedContentTypes": ["text/csv"]}}
    assert "`Containers` is required here by CreateModelPackage's InferenceSpecification" in error_at(
        with_register(no_containers), "register.inference"
    )


def test_an_inference_string_is_checked_once_rendered_for_each_city() -> None:
    register = copy.deepcopy(REGISTER)
    register["inference"]["Containers"][0]["ContainerHostname"] = "{city}-serving-container-{run_key}-x"
    data = with_register(register)
    data["cities"][0]["name"] = "s" * 30
    message = error_at(data, "register.inference.Containers[0].ContainerHostname")
    assert "rendered:" in message
    assert f"for city {'s' * 30}" in message


def test_a_city_s_own_layer_errors_name_the_city() -> None:
    data = with_register()
    data["cities"][0]["register"] = {"metric": "validation:mapee", "margin": 2}
    lines = "\n".join(errors(data))
    assert "cities[0] (seoul).register.margin" in lines
    assert "cities[0] (seoul).register.metric" in lines


def test_validate_refuses_bad_register_input_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    register = {**REGISTER, "metric": "validation:accuracy", "group": "{fleet}", "margin": 3}
    path = tmp_path / "fleet.yaml"
    path.write_text(yaml.safe_dump(with_register(register), sort_keys=False))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "register.metric" in err
    assert "register.group" in err
    assert "register.margin" in err
    path.write_text(yaml.safe_dump(with_register(), sort_keys=False))
    assert main(["validate", str(path)]) == 0
