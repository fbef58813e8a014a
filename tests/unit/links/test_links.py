"""The extra links' URLs, in each AWS partition, from the values the city trigger and the report task store."""

from __future__ import annotations

import pytest
from airflow.providers.amazon.aws.links.base_aws import BaseAwsLink

from sagemaker_fleet.links.fleet import FleetCostReportLink, SageMakerTrainingJobLink, TrainingJobLogsLink

PARTITIONS = [
    ("aws", "eu-west-1", "https://console.aws.amazon.com"),
    ("aws-cn", "cn-north-1", "https://console.amazonaws.cn"),
    ("aws-us-gov", "us-gov-west-1", "https://console.amazonaws-us-gov.com"),
]


@pytest.mark.parametrize(("partition", "region", "console"), PARTITIONS)
def test_training_job_page(partition: str, region: str, console: str) -> None:
    link = SageMakerTrainingJobLink().format_link(
        region_name=region,
        aws_domain=BaseAwsLink.get_aws_domain(partition),
        job_name="citydemand-paris-20261201",
    )
    assert link == f"{console}/sagemaker/home?region={region}#/jobs/citydemand-paris-20261201"


@pytest.mark.parametrize(("partition", "region", "console"), PARTITIONS)
def test_training_job_logs_filter_by_the_job_name(partition: str, region: str, console: str) -> None:
    link = TrainingJobLogsLink().format_link(
        region_name=region,
        aws_domain=BaseAwsLink.get_aws_domain(partition),
        job_name="citydemand-paris-20261201",
    )
    assert link == (
        f"{console}/cloudwatch/home?region={region}#logsV2:log-groups/log-group/"
        "$252Faws$252Fsagemaker$252FTrainingJobs$3FlogStreamNameFilter$3Dcitydemand-paris-20261201"
    )


@pytest.mark.parametrize(("partition", "region", "console"), PARTITIONS)
def test_cost_report_object(partition: str, region: str, console: str) -> None:
    link = FleetCostReportLink().format_link(
        region_name=region,
        aws_domain=BaseAwsLink.get_aws_domain(partition),
        bucket="acme-ml",
        key="fleets/citydemand/reports/20261201/report.html",
    )
    assert link == (
        f"{console}/s3/object/acme-ml?region={region}&prefix=fleets/citydemand/reports/20261201/report.html"
    )


def test_a_link_without_its_values_is_empty_not_an_error() -> None:
    assert SageMakerTrainingJobLink().format_link(region_name="eu-west-1", aws_domain="aws.amazon.com") == ""


def test_the_keys_are_the_ones_the_trigger_and_the_report_store() -> None:
    assert SageMakerTrainingJobLink.key == "sagemaker_fleet_training_job"
    assert TrainingJobLogsLink.key == "sagemaker_fleet_training_logs"
    assert FleetCostReportLink.key == "sagemaker_fleet_cost_report"
