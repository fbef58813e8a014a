"""sagemaker-fleet: pool-aware SageMaker training fleets for Apache Airflow."""

from __future__ import annotations

from sagemaker_fleet.errors import SageMakerFleetError

__all__ = ["SageMakerFleetError", "__version__"]

__version__ = "0.1.0"
