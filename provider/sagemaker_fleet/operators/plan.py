"""PlanFleetOperator: the run-time pool-aware plan, with the previous run's durations when its report exists."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from airflow.providers.amazon.aws.operators.base_aws import AwsBaseOperator
from airflow.providers.amazon.aws.utils.mixins import aws_template_fields
from airflow.providers.common.compat.sdk import AirflowFailException

from sagemaker_fleet.dispatch import DispatchBook
from sagemaker_fleet.hooks.fleet import SageMakerFleetHook
from sagemaker_fleet.plan import DurationHistory, plan_fleet
from sagemaker_fleet.spec.load import load_fleet_spec
from sagemaker_fleet.spec.names import context_run_key
from sagemaker_fleet.spec.overrides import FleetOverrides, apply_overrides
from sagemaker_fleet.triggers.city import PLAN_XCOM_KEY


class PlanMismatchError(AirflowFailException):
    """The fleet file and the parsed DAG disagree; retrying cannot help (the task fails without retries),
    re-parsing does."""

if TYPE_CHECKING:
    from airflow.sdk import Context

    from sagemaker_fleet.spec.model import FleetSpec


class PlanFleetOperator(AwsBaseOperator[SageMakerFleetHook]):
    """Plan this run of the fleet: the order and keep-alive its training tasks dispatch by.

    The plan is pushed under the XCom key ``plan`` (the training triggers read it once per run and triggerer) and
    its summary is returned.

    :param spec_path: the fleet YAML (templated).
    :param cities: the cities the DAG has a training task for; a run-time city outside them is an error (the
        fleet file changed since the DAG was parsed).
    :param use_params: apply the run's params (cities, spot, instance_type) as overrides (the manual DAG).
    :param use_history: plan with the durations of the latest earlier report under ``{output}/reports/``.
    """

    aws_hook_class = SageMakerFleetHook
    template_fields: Sequence[str] = aws_template_fields("spec_path")

    def __init__(
        self,
        *,
        spec_path: str,
        cities: Sequence[str] = (),
        use_params: bool = False,
        use_history: bool = True,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.cities = list(cities)
        self.use_params = use_params
        self.use_history = use_history

    def execute(self, context: Context) -> Any:
        spec = load_fleet_spec(self.spec_path)
        if self.use_params:
            spec = apply_overrides(spec, FleetOverrides.from_params(context.get("params")))
        run_key = context_run_key(context)
        history = self._history(spec, run_key) if self.use_history else None
        plan = plan_fleet(spec, run_key, history)
        unknown = sorted({c.name for c in spec.cities} - set(self.cities)) if self.cities else []
        if unknown:
            raise PlanMismatchError(f"the fleet has cities {unknown} that this DAG has no training task for; the "
                                    "fleet file changed since the DAG was parsed — let the DAG re-parse")
        book = DispatchBook.from_plan(plan, spec)
        self.log.info("plan %s/%s: %s", spec.fleet, run_key, json.dumps(plan.summary.to_json()))
        for group in plan.groups:
            self.log.info("group %s (%s%s): %d jobs, %d at once", group.group, group.key.instance_type,
                          ", spot" if group.spot else "", group.jobs, book.widths[group.group])
        context["ti"].xcom_push(key=PLAN_XCOM_KEY, value=plan.to_json())
        return plan.summary.to_json()

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
