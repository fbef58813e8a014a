"""sagemaker-fleet: pool-aware SageMaker training fleets for Apache Airflow."""

from __future__ import annotations

__version__ = "0.1.0"
