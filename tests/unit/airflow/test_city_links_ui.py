"""A city task ended from the triggerer carries its links' URLs: Airflow's UI reads a link only under its
``xcom_key``, which nothing else writes for such a task."""

from __future__ import annotations

from sagemaker_fleet.links.fleet import SageMakerTrainingJobLink, TrainingJobLogsLink
from sagemaker_fleet.triggers.city import job_link_xcoms


def test_the_event_carries_each_links_url_under_its_xcom_key_and_its_parameters_under_its_key() -> None:
    xcoms = job_link_xcoms("eu-west-1", "aws.amazon.com", "fleet-paris-20261129")
    console, logs = SageMakerTrainingJobLink(), TrainingJobLogsLink()
    assert xcoms[console.xcom_key] == (
        "https://console.aws.amazon.com/sagemaker/home?region=eu-west-1#/jobs/fleet-paris-20261129"
    )
    assert xcoms[logs.xcom_key].startswith("https://console.aws.amazon.com/cloudwatch/home?region=eu-west-1")
    assert "fleet-paris-20261129" in xcoms[logs.xcom_key]
    params = {"region_name": "eu-west-1", "aws_domain": "aws.amazon.com", "job_name": "fleet-paris-20261129"}
    assert xcoms[console.key] == xcoms[logs.key] == params
