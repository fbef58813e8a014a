"""sagemaker-fleet: pool-aware SageMaker training fleets for Apache Airflow."""

from __future__ import annotations

from sagemaker_fleet import _renamed
from sagemaker_fleet.errors import SageMakerFleetError

_renamed.install()  # the old sagemaker_fleet.spec and sagemaker_fleet.aws import paths, deprecated

__all__ = ["SageMakerFleetError", "__version__"]

__version__ = "0.1.0"
