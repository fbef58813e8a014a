"""Provider metadata that Airflow's ProvidersManager reads through the ``apache_airflow_provider`` entry point."""

from __future__ import annotations

from typing import Any

from sagemaker_fleet import __version__
from sagemaker_fleet.settings import provider_config


def get_provider_info() -> dict[str, Any]:
    """Describe the provider; lists grow as hooks, operators, sensors, triggers and links land."""
    return {
        "package-name": "airflow-provider-sagemaker-fleet",
        "name": "SageMaker Fleet",
        "description": "Pool-aware fleets of per-city Amazon SageMaker training jobs with honest cost reports.",
        "versions": [__version__],
        "integrations": [
            {
                "integration-name": "SageMaker Fleet",
                "external-doc-url": "https://docs.aws.amazon.com/sagemaker/latest/dg/train-warm-pools.html",
                "tags": ["aws"],
            }
        ],
        "hooks": [
            {"integration-name": "SageMaker Fleet", "python-modules": ["sagemaker_fleet.hooks.fleet"]},
        ],
        "operators": [
            {
                "integration-name": "SageMaker Fleet",
                "python-modules": [
                    "sagemaker_fleet.operators.plan",
                    "sagemaker_fleet.operators.cities",
                    "sagemaker_fleet.operators.training",
                    "sagemaker_fleet.operators.report",
                    "sagemaker_fleet.operators.outcome",
                    "sagemaker_fleet.operators.release",
                    "sagemaker_fleet.operators.register",
                    "sagemaker_fleet.operators.notify",
                ],
            },
        ],
        "sensors": [
            {"integration-name": "SageMaker Fleet", "python-modules": ["sagemaker_fleet.sensors.fleet"]},
        ],
        "triggers": [
            {
                "integration-name": "SageMaker Fleet",
                "python-modules": [
                    "sagemaker_fleet.triggers.city",
                    "sagemaker_fleet.triggers.defaults",
                    "sagemaker_fleet.triggers.fleet",
                    "sagemaker_fleet.triggers.conditions",
                ],
            },
        ],
        "extra-links": [
            "sagemaker_fleet.links.fleet.SageMakerTrainingJobLink",
            "sagemaker_fleet.links.fleet.TrainingJobLogsLink",
            "sagemaker_fleet.links.fleet.FleetCostReportLink",
            "sagemaker_fleet.links.fleet.FleetViewLink",
        ],
        "config": provider_config(),
    }
