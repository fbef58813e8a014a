"""Build fleet DAGs from fleet specs: :func:`build_fleet_dag`, and the groups of its settings beyond the DAG's own
(:mod:`sagemaker_fleet.dags.config`)."""

from __future__ import annotations

from sagemaker_fleet.dags.config import ConnectionConfig, DispatchConfig, ReportConfig
from sagemaker_fleet.dags.factory import build_fleet_dag

__all__ = ["ConnectionConfig", "DispatchConfig", "ReportConfig", "build_fleet_dag"]
