"""The hooks a task or trigger builds from its AWS connection: the board's S3 hook goes where and as the run's
SageMaker hook goes (region, certificate check, botocore config with the fleet's retry policy), and AwsConnection
hands a hook its fields under the Amazon provider's names."""

from __future__ import annotations

from sagemaker_fleet.hooks.connection import AwsConnection, aws_template_fields
from sagemaker_fleet.hooks.fleet import DEFAULT_RETRIES, SageMakerFleetHook


def test_the_s3_hook_is_on_the_sagemaker_hooks_connection() -> None:
    hook = SageMakerFleetHook(
        aws_conn_id=None, region_name="eu-west-1", verify="/etc/ssl/ca.pem", config={"connect_timeout": 3}
    )
    s3 = hook.s3_hook()
    assert s3.client_type == "s3"
    assert (s3.aws_conn_id, s3.region_name, s3.verify) == (None, "eu-west-1", "/etc/ssl/ca.pem")
    assert s3.config.connect_timeout == 3
    assert s3.config.retries == DEFAULT_RETRIES  # the fleet hook's policy, which a bare S3Hook would not have


def test_a_retry_policy_given_to_the_sagemaker_hook_reaches_the_s3_hook() -> None:
    standard = {"mode": "standard", "max_attempts": 5}
    hook = SageMakerFleetHook(aws_conn_id=None, region_name="us-east-1", config={"retries": standard})
    assert hook.s3_hook().config.retries == standard


def test_the_connection_hands_a_hook_its_fields() -> None:
    connection = AwsConnection("fleet_aws", "eu-west-1", False, {"connect_timeout": 3})
    assert connection.hook_kwargs() == {
        "aws_conn_id": "fleet_aws",
        "region_name": "eu-west-1",
        "verify": False,
        "config": {"connect_timeout": 3},
    }
    assert AwsConnection(**connection.to_json()) == connection
    # the trigger's own config wins over what the poller asks for
    assert connection.with_defaults(
        {"connect_timeout": 9, "retries": {"mode": "standard"}}
    ).botocore_config == {
        "connect_timeout": 3,
        "retries": {"mode": "standard"},
    }
    assert connection.with_defaults(None) is connection


def test_the_templated_fields_are_the_amazon_providers() -> None:
    from airflow.providers.amazon.aws.utils.mixins import aws_template_fields as amazon

    assert aws_template_fields("city", "spec_path") == amazon("city", "spec_path")
