"""Build fleet DAGs from fleet specs: :func:`build_fleet_dag` and the groups of its settings.

- ``factory.py``: :func:`build_fleet_dag`, plan → training mapped over the run's cities → pool release, cost
  report, outcome (and notice);
- ``config.py``: :class:`ConnectionConfig`, :class:`DispatchConfig`, :class:`ReportConfig`, the settings beyond
  the DAG's own;
- ``form.py``: the manual DAG's trigger form (cities, capacity overrides, dry run).
"""

from __future__ import annotations

from sagemaker_fleet.dags.config import ConnectionConfig, DispatchConfig, ReportConfig
from sagemaker_fleet.dags.factory import build_fleet_dag

__all__ = ["ConnectionConfig", "DispatchConfig", "ReportConfig", "build_fleet_dag"]
