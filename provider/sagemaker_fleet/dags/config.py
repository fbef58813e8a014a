"""The fleet DAG's settings beyond what Airflow's own DAG takes, grouped by concern (as astronomer-cosmos splits a
dbt DAG's into ProjectConfig, ProfileConfig, ExecutionConfig and RenderConfig): each group a small frozen
dataclass, every field optional. ``build_fleet_dag(spec_path, dag_id=…, schedule=…)`` needs none of them.

- :class:`ConnectionConfig`: the Airflow connections the tasks talk through (AWS, the api-server);
- :class:`DispatchConfig`: how the run's cities are dispatched (the poll interval, the capacity back-off, whether
  the run's idle warm pools are carried to the next run);
- :class:`ReportConfig`: what the run leaves when it ends (the cost report's folder, the notice and its notifiers).

Light on purpose: a worker imports it to parse the file for one city's task, which only defers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sagemaker_fleet import settings
from sagemaker_fleet.operators.run_note import DEFAULT_API_CONN_ID
from sagemaker_fleet.triggers.defaults import CityTiming


@dataclass(frozen=True)
class ConnectionConfig:
    """The Airflow connections the fleet's tasks use.

    :param aws_conn_id: the AWS connection of every task that talks to AWS (plan, train, release_pools,
        cost_report).
    :param api_conn_id: with ``manual``, the connection to Airflow's api-server that the plan task writes the run's
        note through (default ``airflow_api``; without it, Airflow's own address and no credentials).
    """

    aws_conn_id: str = "aws_default"
    api_conn_id: str | None = DEFAULT_API_CONN_ID


@dataclass(frozen=True)
class DispatchConfig:
    """How the run's cities are dispatched.

    :param poll_interval: real seconds between status sweeps of the run's jobs (default
        ``[sagemaker_fleet] poll_interval``, else 30 s of the endpoint's clock: 30 s against AWS, 30 simulated
        seconds against the sped-up simulator, which announces its speed; at most 10 s while a city waits for its
        turn). 0 counts as not given.
    :param capacity_retry_seconds: base back-off on ResourceLimitExceeded (default 60, or
        ``[sagemaker_fleet] capacity_retry_seconds``). 0 counts as not given.
    :param carry_pools: at the run's end keep the idle warm pools that will still be alive when the next
        scheduled run starts (its first jobs then start warm); by default every pool of the run is ended as soon
        as no city of its group is left to take it over (the group's last jobs end without a pool).
    """

    poll_interval: float | None = None
    capacity_retry_seconds: float | None = None
    carry_pools: bool = False

    def city_timing(self) -> CityTiming:
        """The clocks of the run's cities, with the ``[sagemaker_fleet]`` settings where they are not given (read at
        parse time)."""
        return CityTiming(
            poll_interval=self.poll_interval or settings.get_float_or_none("poll_interval") or 0.0,
            capacity_retry_seconds=self.capacity_retry_seconds
            or settings.get_float("capacity_retry_seconds"),
        )


@dataclass(frozen=True)
class ReportConfig:
    """What the run leaves when it ends.

    :param report_dir: where the cost report task writes its files (default: a temporary folder, or
        ``[sagemaker_fleet] report_dir``); they are uploaded to S3 either way.
    :param on_success: Airflow notifiers (``BaseNotifier``: the SMTP or Slack provider's, your own) that a last
        ``notify`` task calls with the run's summary when every city trained; ``on_failure``: when one did not.
        Their templates can use ``{{ fleet_summary.<field> }}`` and ``{{ fleet_message }}``.
    :param notice: the Jinja template of ``fleet_message`` (default
        :data:`sagemaker_fleet.operators.notify.DEFAULT_MESSAGE`).
    """

    report_dir: str | None = None
    on_success: Sequence[Any] = ()
    on_failure: Sequence[Any] = ()
    notice: str | None = None


#: The keywords ``build_fleet_dag`` took before the groups, and the group each went to.
MOVED_KEYWORDS = {
    "aws_conn_id": "connections=ConnectionConfig",
    "api_conn_id": "connections=ConnectionConfig",
    "poll_interval": "dispatch=DispatchConfig",
    "capacity_retry_seconds": "dispatch=DispatchConfig",
    "carry_pools": "dispatch=DispatchConfig",
    "report_dir": "report=ReportConfig",
    "on_success": "report=ReportConfig",
    "on_failure": "report=ReportConfig",
    "notice": "report=ReportConfig",
}
