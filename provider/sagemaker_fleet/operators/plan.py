"""PlanFleetOperator: the run-time pool-aware plan, with the previous run's durations when its report exists."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.operators.base_aws import AwsBaseOperator
from airflow.providers.amazon.aws.utils.mixins import aws_template_fields

from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.operators.training import context_run_key
from sagemaker_fleet.plan import DurationHistory, plan_fleet
from sagemaker_fleet.spec.load import load_fleet_spec
from sagemaker_fleet.spec.model import KEEP_ALIVE_GUIDE_MAX
from sagemaker_fleet.spec.overrides import FleetOverrides, apply_overrides

if TYPE_CHECKING:
    from airflow.sdk import Context

    from sagemaker_fleet.plan import FleetPlan, PlannedJob, PoolGroup
    from sagemaker_fleet.spec.model import FleetSpec


def group_signature(group: PoolGroup) -> str:
    """A stable id for a group across parse time and run time: its matching key and spot flag, hashed."""
    raw = json.dumps({"key": group.key.to_json(), "spot": group.spot}, sort_keys=True)
    return hashlib.sha256(raw.encode()).hexdigest()[:10]


def handoff_keep_alive(plan: FleetPlan, spec: FleetSpec) -> int:
    """Keep-alive for a pool handed to whichever job of the group starts next: the plan's longest automatic
    keep-alive, or the orchestration latency plus a minute when the plan has none."""
    planned = [job.keep_alive_seconds for job in plan.jobs if job.keep_alive_seconds > 0]
    fallback = spec.orchestration_latency_seconds + 60
    return min(KEEP_ALIVE_GUIDE_MAX, max(planned, default=fallback))


def group_kwargs(
    plan: FleetPlan, spec: FleetSpec, concurrency: Mapping[str, int] | None = None
) -> dict[str, list[dict[str, Any]]]:
    """Per group, the training tasks' kwargs in planned start order (what each mapped task expands over).

    Airflow starts the next task of a group whenever one of its ``concurrency`` slots frees, so with N jobs the
    first N − concurrency each have a successor that takes their pool over, whichever lane the plan drew it in;
    they keep their pool (the plan's keep-alive, or :func:`handoff_keep_alive`), the last ``concurrency`` end
    without one. A keep-alive written in the spec is always kept as written; spot jobs never keep a pool.
    """
    explicit = {city.name for city in spec.cities if city.keep_alive is not None}
    handoff = handoff_keep_alive(plan, spec)
    ordered: dict[str, list[PlannedJob]] = {group.group: [] for group in plan.groups}
    for job in sorted(plan.jobs, key=lambda j: (j.planned_start_seconds, j.lane)):
        ordered[job.group].append(job)
    out: dict[str, list[dict[str, Any]]] = {}
    for group in plan.groups:
        signature = group_signature(group)
        jobs = ordered[group.group]
        slots = (concurrency or {}).get(signature, group.lanes)
        kwargs = []
        for index, job in enumerate(jobs):
            if job.city in explicit or group.spot or not group.warm_pool:
                keep = job.keep_alive_seconds
            else:
                keep = (job.keep_alive_seconds or handoff) if index < len(jobs) - slots else 0
            kwargs.append({"city": job.city, "keep_alive_seconds": keep})
        out[signature] = kwargs
    return out


class PlanFleetOperator(AwsBaseOperator[SageMakerFleetHook]):
    """Plan this run of the fleet and hand each group's ordered jobs to its mapped training task.

    :param spec_path: the fleet YAML (templated).
    :param signature: return only this group's ordered training kwargs (what its mapped task expands over);
        without it the whole plan JSON is returned. The full plan is always pushed under the XCom key ``plan``.
    :param signatures: every group signature the DAG has a training task for; a run-time group outside them is
        an error (the fleet file changed since the DAG was parsed).
    :param concurrency: each group's task concurrency (its parse-time lanes), by signature.
    :param use_params: apply the run's params (cities, spot, instance_type) as overrides (the manual DAG).
    :param use_history: plan with the durations of the latest earlier report under ``{output}/reports/``.
    """

    aws_hook_class = SageMakerFleetHook
    template_fields: Sequence[str] = aws_template_fields("spec_path")

    def __init__(
        self,
        *,
        spec_path: str,
        signature: str | None = None,
        signatures: Sequence[str] = (),
        concurrency: Mapping[str, int] | None = None,
        use_params: bool = False,
        use_history: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.signature = signature
        self.signatures = list(signatures)
        self.concurrency = dict(concurrency or {})
        self.use_params = use_params
        self.use_history = use_history

    def execute(self, context: Context) -> Any:
        spec = load_fleet_spec(self.spec_path)
        if self.use_params:
            spec = apply_overrides(spec, FleetOverrides.from_params(context.get("params")))
        run_key = context_run_key(context)
        history = self._history(spec, run_key) if self.use_history else None
        plan = plan_fleet(spec, run_key, history)
        per_group = group_kwargs(plan, spec, self.concurrency)
        unknown = sorted(set(per_group) - set(self.signatures)) if self.signatures else []
        if unknown:
            raise ValueError(f"the plan has groups {unknown} that this DAG has no training task for; "
                             "the fleet file changed since the DAG was parsed — let the DAG re-parse")
        self.log.info("plan %s/%s: %s", spec.fleet, run_key, json.dumps(plan.summary.to_json()))
        context["ti"].xcom_push(key="plan", value=plan.to_json())
        if self.signature is None:
            return plan.to_json()
        jobs = per_group.get(self.signature, [])
        self.log.info("group %s: %d jobs in planned order", self.signature, len(jobs))
        return jobs

    def _history(self, spec: FleetSpec, run_key: str) -> DurationHistory | None:
        """The latest earlier run's report.json in S3, if any (a missing bucket or report is not an error)."""
        bucket, _, prefix = spec.output_s3_uri.removeprefix("s3://").partition("/")
        reports = f"{prefix.rstrip('/')}/reports/".lstrip("/")
        from airflow.providers.amazon.aws.hooks.s3 import S3Hook  # boto3's transfer stack: only when used

        s3 = S3Hook(aws_conn_id=self.aws_conn_id, region_name=self.region_name, verify=self.verify)
        try:
            keys = [k for k in s3.list_keys(bucket, prefix=reports) or [] if k.endswith("/report.json")]
        except Exception as exc:  # noqa: BLE001 - history is an optimisation; planning goes on without it
            self.log.warning("no duration history (%s); planning from expected_seconds", exc)
            return None
        earlier = sorted(k for k in keys if f"/{run_key}/" not in k)
        if not earlier:
            self.log.info("no earlier report under s3://%s/%s; planning from expected_seconds", bucket, reports)
            return None
        latest = max(earlier, key=lambda k: s3.head_object(k, bucket)["LastModified"])
        self.log.info("planning with durations from s3://%s/%s", bucket, latest)
        return DurationHistory.from_report(json.loads(s3.read_key(latest, bucket)))
