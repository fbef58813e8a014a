"""``{city}``, ``{fleet}`` and ``{run_key}`` in template strings; ``{{`` and ``}}`` are literal braces."""

from __future__ import annotations

import pytest

from sagemaker_fleet.fleetspec.placeholders import PlaceholderError, names_in, render, render_value

VALUES = {"city": "seoul", "fleet": "demand", "run_key": "20261129"}


@pytest.mark.parametrize(
    ("text", "rendered"),
    [
        ("s3://b/{city}/{run_key}/", "s3://b/seoul/20261129/"),
        ("{fleet}-{city}", "demand-seoul"),
        ("rmse=([0-9]{{1,3}})", "rmse=([0-9]{1,3})"),
        ('{{"city": "{city}"}}', '{"city": "seoul"}'),
        ("plain", "plain"),
        ("", ""),
    ],
)
def test_render(text: str, rendered: str) -> None:
    assert render(text, VALUES) == rendered


@pytest.mark.parametrize(
    ("text", "quoted"),
    [
        ("s3://{town}/", "`{town}`"),
        ("{City}", "`{City}`"),
        ("{}", "`{}`"),
        ("a { b", "lone `{`"),
        ("a } b", "lone `}`"),
    ],
)
def test_unknown_placeholders_and_lone_braces_are_quoted(text: str, quoted: str) -> None:
    with pytest.raises(PlaceholderError, match=quoted.replace("{", r"\{").replace("}", r"\}")):
        names_in(text)


def test_keys_are_never_rendered_and_containers_are_fresh() -> None:
    value = {"{city}": ["{city}", 3, {"k": "{fleet}"}]}
    rendered = render_value(value, VALUES)
    assert rendered == {"{city}": ["seoul", 3, {"k": "demand"}]}
    assert rendered is not value
    assert names_in("{run_key}-{city}") == {"run_key", "city"}


SHORTHAND = """
fleet: bakery
region: us-east-1
role_arn: arn:aws:iam::111122223333:role/FleetTraining
image_uri: 111122223333.dkr.ecr.us-east-1.amazonaws.com/demand:1.4
output_s3_uri: s3://acme-ml/fleets/bakery
quotas: {{ml.m5.xlarge: {{instances: 2, warm_pools: 2}}}}
defaults:
  instance_type: ml.m5.xlarge
  hyperparameters: {{model_name: "demand-{{city}}", json: '{{{{"a": 1}}}}', epochs: 3{extra_hyper}}}
  environment: {{RUN: "{{fleet}}/{{run_key}}"}}
cities:
  - {{name: caen, train_s3_uri: "s3://acme-ml/data/caen/"{city_env}}}
"""


def test_the_shorthands_placeholders_are_filled_as_a_job_templates() -> None:
    """``defaults.hyperparameters: {model_name: "demand-{city}"}`` went to SageMaker as ``demand-{city}``: the
    shorthand's values now take the placeholders (and the literal braces) of ``job:``."""
    from sagemaker_fleet.fleetspec import parse_fleet_spec
    from sagemaker_fleet.jobs.request import Submission, compile_training_request

    spec = parse_fleet_spec(SHORTHAND.format(extra_hyper="", city_env=""))
    request = compile_training_request(spec, spec.city("caen"), Submission("caen", "20261204"))
    assert request["HyperParameters"] == {"model_name": "demand-caen", "json": '{"a": 1}', "epochs": "3"}
    assert request["Environment"] == {"RUN": "bakery/20261204"}


@pytest.mark.parametrize(
    ("extra_hyper", "city_env", "path"),
    [
        (', store: "{store}"', "", "defaults.hyperparameters[store]"),
        ("", ', environment: {STORE: "x-{store}"}', "cities[0].environment[STORE]"),
        (', half: "a { b"', "", "defaults.hyperparameters[half]"),
    ],
)
def test_an_unknown_placeholder_in_the_shorthand_is_refused_where_it_is_written(
    extra_hyper: str, city_env: str, path: str
) -> None:
    from sagemaker_fleet.fleetspec import FleetSpecError, parse_fleet_spec

    with pytest.raises(FleetSpecError) as refused:
        parse_fleet_spec(SHORTHAND.format(extra_hyper=extra_hyper, city_env=city_env))
    (issue,) = refused.value.issues
    assert issue.path == path
    assert "{city}, {fleet} or {run_key}" in issue.message or "write a literal brace" in issue.message
