"""FleetPoolReleaseOperator: when every city of a run has had its turn, end the run's pools still idle.

The run's poller already ends a group's pools once no city of it is still to come (its last jobs end without one).
What it cannot know ends here: a successor whose task failed or was marked failed before it started, a triggerer
that went away before its last sweep, a pool of a city the run did not plan, and every pool of a DAG that carries
pools (its poller ends none early). Each such pool would bill idle time until its keep-alive ran out.
With ``carry_pools`` a pool that will outlive the start of the fleet's next scheduled run is kept for it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cost.report import RunJobIndex
from sagemaker_fleet.failures import fleet_spec
from sagemaker_fleet.fleetspec.errors import RunConfError
from sagemaker_fleet.fleetspec.names import run_key_floor, run_name_contains
from sagemaker_fleet.fleetspec.runconf import parse_run_conf
from sagemaker_fleet.hooks.connection import aws_template_fields
from sagemaker_fleet.jobs.release import IdlePool, PoolRelease, idle_pool, release_decision
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE
from sagemaker_fleet.operators.aws import FleetAwsOperator, task_conf, task_run_key

if TYPE_CHECKING:
    from airflow.sdk import Context


class FleetPoolReleaseOperator(FleetAwsOperator):
    """End (keep-alive 0) every ``Available`` warm pool of this run's jobs; runs with ``trigger_rule="all_done"``
    after the training tasks, before the cost report, so the report sees the idle time as final.

    :param spec_path: the fleet YAML (templated).
    :param carry_pools: keep a pool that will still be alive when the DAG's next scheduled run starts.
    :param use_params: read the run's conf: a dry run (``dry_run``), or a run whose conf the plan task refused,
        launched nothing, so there is nothing to end.

    Returns ``{"ended": [{job_name, instance_type, instance_count, idle_seconds_left}], "kept": [job names],
    "idle_seconds_saved": s}``: the pools ended (with the keep-alive seconds each had left) and kept, and the
    instance-seconds of idle time the ended ones would still have been billed for. The cost report shows it.
    """

    template_fields: Sequence[str] = aws_template_fields("spec_path")

    def __init__(
        self, *, spec_path: str, carry_pools: bool = False, use_params: bool = False, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.carry_pools = carry_pools
        self.use_params = use_params

    def execute(self, context: Context) -> dict[str, Any]:
        if self.use_params and not self._launched(context):
            return {"ended": [], "kept": [], "idle_seconds_saved": 0}
        spec = fleet_spec(self.spec_path)
        run_key = task_run_key(context)
        index = RunJobIndex.for_run(spec, run_key)
        pools = self._idle_pools(index, run_key)
        now = self._now()
        next_run = next_scheduled_run(context, now) if self.carry_pools else None
        decision = release_decision(pools, now, next_run)
        for pool in decision.end:
            self.hook.update_keep_alive(pool.job_name, 0)
        left = {p.job_name: round(p.idle_seconds_left(now)) for p in decision.end}
        # in the whole seconds listed per pool, so the total is their sum
        saved = sum(left[p.job_name] * p.instance_count for p in decision.end)
        self._log(decision, saved, next_run)
        return {
            "ended": [
                {
                    "job_name": p.job_name,
                    "instance_type": p.instance_type,
                    "instance_count": p.instance_count,
                    "idle_seconds_left": left[p.job_name],
                }
                for p in decision.end
            ],
            "kept": [p.job_name for p in decision.keep],
            "idle_seconds_saved": saved,
        }

    def _launched(self, context: Context) -> bool:
        """Whether this run may have launched anything: not a dry run, nor a run whose conf the plan task refused."""
        try:
            conf = parse_run_conf(task_conf(context))
        except RunConfError as exc:
            self.log.info("nothing to end: the plan task refused this run's conf (%s)", exc)
            return False
        if conf.dry_run:
            self.log.info("nothing to end: a dry run launched nothing")
        return not conf.dry_run

    @staticmethod
    def _now() -> dt.datetime:
        """The time the pools' expiries are measured against: the wall clock, which is AWS's."""
        return dt.datetime.now(dt.UTC)

    def _idle_pools(self, index: RunJobIndex, run_key: str) -> list[IdlePool]:
        summaries = self.hook.list_jobs(
            run_name_contains(run_key),
            creation_time_after=run_key_floor(run_key),
            warm_pool_status_equals=POOL_AVAILABLE,
        )
        pools = []
        for summary in summaries:
            name = summary["TrainingJobName"]
            if name not in index:
                continue  # another fleet's job whose name contains the same run key
            description = self.hook.describe(name)
            pool = idle_pool(description) if description is not None else None
            if pool is not None:
                pools.append(pool)
        return pools

    def _log(self, decision: PoolRelease, saved: int, next_run: dt.datetime | None) -> None:
        if decision.end:
            self.log.info(
                "ended %d idle warm pool(s) at the run's end, %d instance-seconds of idle time saved: %s",
                len(decision.end),
                saved,
                ", ".join(p.job_name for p in decision.end),
            )
        else:
            self.log.info("no idle warm pool left at the run's end")
        if decision.keep:
            self.log.info(
                "kept %d pool(s) for the next run at %s: %s",
                len(decision.keep),
                next_run,
                ", ".join(p.job_name for p in decision.keep),
            )


def next_scheduled_run(context: Context, now: dt.datetime) -> dt.datetime | None:
    """When the DAG's timetable next starts a run after ``now`` (``None``: unscheduled, or not knowable)."""
    from airflow.timetables.base import DataInterval, TimeRestriction

    from sagemaker_fleet.compat import core_timetable

    dag = context.get("dag")
    if dag is None or not getattr(dag, "timetable", None):
        return None
    timetable = core_timetable(dag.timetable)
    restriction = TimeRestriction(earliest=None, latest=None, catchup=False)
    run = context.get("dag_run")
    start, end = getattr(run, "data_interval_start", None), getattr(run, "data_interval_end", None)
    last = DataInterval(start, end) if start is not None and end is not None else None
    for _ in range(4):  # a catch-up-free timetable first answers with the latest past fire time
        info = timetable.next_dagrun_info(last_automated_data_interval=last, restriction=restriction)
        if info is None:
            return None
        if info.run_after > now:
            return info.run_after
        last = info.data_interval
    return None
