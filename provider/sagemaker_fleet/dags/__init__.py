"""Build fleet DAGs from fleet specs."""

from __future__ import annotations

from sagemaker_fleet.dags.factory import build_fleet_dag

__all__ = ["build_fleet_dag"]
