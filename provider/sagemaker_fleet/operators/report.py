"""FleetCostReportOperator: the run's cost report from billed time, written locally and to S3."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from airflow.sdk import Asset, AssetAlias

from sagemaker_fleet.compat import AirflowSkipException, alias_event_extra
from sagemaker_fleet.contract import PLAN_TASK_ID, PLAN_XCOM_KEY, models_alias_name, models_asset_name
from sagemaker_fleet.cost import RunJobIndex, build_cost_report, report_json
from sagemaker_fleet.cost.collect import describe_run_jobs, find_other_runs_givers
from sagemaker_fleet.cost.estimate import estimate_plan_cost
from sagemaker_fleet.cost.publish import upload_refusal, upload_report_files, write_report_files
from sagemaker_fleet.cost.report import released_pools
from sagemaker_fleet.cost.summary import WARNING, summary_lines
from sagemaker_fleet.failures import run_spec
from sagemaker_fleet.fleetspec.errors import RunConfError
from sagemaker_fleet.fleetspec.names import models_s3_prefix, report_s3_uri, split_s3_uri
from sagemaker_fleet.hooks.connection import aws_template_fields
from sagemaker_fleet.jobs.errors import error_code
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.links.fleet import FleetCostReportLink
from sagemaker_fleet.observability.facets import (
    RUN_FACET,
    models_event_extra,
    run_facet_fields,
    trained_cities,
)
from sagemaker_fleet.observability.metrics import report_measurements
from sagemaker_fleet.observability.stats import send
from sagemaker_fleet.operators.aws import FleetAwsOperator, task_conf, task_run_key
from sagemaker_fleet.plan import FleetPlan
from sagemaker_fleet.plan.errors import PlanFormatError
from sagemaker_fleet.registry.decision import RunDecisions, decisions_from_json

if TYPE_CHECKING:
    from airflow.sdk import Context

    from sagemaker_fleet.cost.publish import ReportFiles
    from sagemaker_fleet.cost.report import CostReport
    from sagemaker_fleet.fleetspec.model import FleetSpec
    from sagemaker_fleet.jobs.record import Description
    from sagemaker_fleet.observability.lineage import Lineage


class FleetCostReportOperator(FleetAwsOperator):
    """Price every submission of this run (failed and re-submitted ones too) and publish report.json/csv/html.

    Runs with ``trigger_rule="all_done"`` in the fleet DAG, so a run with failures still gets its report.

    :param spec_path: the fleet YAML (templated).
    :param out_dir: local folder for the files (templated); default: a temporary folder.
    :param upload: also put the files under ``{output_s3_uri}/reports/{run_key}/``.
    :param use_params: read the run's conf (cities, spot, instance_type, dry_run) like the other tasks.
    :param plan_task_id: the plan task whose ``plan`` XCom prices a dry run and that the report compares the run
        with, group by group (planned warm starts, warm starts got, why each missed one started cold).
    :param release_task_id: the task that ended the run's idle pools (``FleetPoolReleaseOperator``): the report
        shows how much idle time that saved.
    :param register_task_id: the task that registered the run's models (``FleetRegisterOperator``): the report
        shows each city's decision, and the models asset's event lists the approved cities only.
    """

    template_fields: Sequence[str] = aws_template_fields("spec_path", "out_dir")
    operator_extra_links = (FleetCostReportLink(),)

    def __init__(
        self,
        *,
        spec_path: str,
        out_dir: str | None = None,
        upload: bool = True,
        use_params: bool = False,
        plan_task_id: str = PLAN_TASK_ID,
        release_task_id: str | None = None,
        register_task_id: str | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.release_task_id = release_task_id
        self.register_task_id = register_task_id
        self.spec_path = spec_path
        self.out_dir = out_dir
        self.upload = upload
        self.use_params = use_params
        self.plan_task_id = plan_task_id
        #: What the lineage listener reports when the task completes: the run's totals, its models and report.
        self._lineage: dict[str, Any] | None = None

    def execute(self, context: Context) -> dict[str, Any]:
        try:
            this_run = run_spec(
                self.spec_path, task_conf(context) if self.use_params else None, use_params=self.use_params
            )
            spec = this_run.spec if self.use_params else this_run.fleet
        except RunConfError as exc:  # the plan task refused this conf: nothing was launched
            raise AirflowSkipException(
                f"nothing to report: the plan task refused this run's conf ({exc})"
            ) from None
        run_key = task_run_key(context)
        book = PriceBook.for_spec(spec)
        if this_run.dry_run:
            plan = context["ti"].xcom_pull(task_ids=self.plan_task_id, key=PLAN_XCOM_KEY)
            estimate = estimate_plan_cost(plan, spec, book)
            self.log.info("dry run: expected cost %s", estimate)
            return {"dry_run": True, "estimate": estimate}
        index = RunJobIndex.for_run(spec, run_key)
        describes = describe_run_jobs(self.hook, index)
        other_runs = find_other_runs_givers(self.hook, index, describes)
        report = build_cost_report(
            spec,
            run_key,
            describes,
            book,
            index=index,
            other_runs=other_runs,
            plan=self._plan(context, spec.fleet, run_key),
        )
        release = context["ti"].xcom_pull(task_ids=self.release_task_id) if self.release_task_id else None
        if isinstance(release, dict):
            report = dataclasses.replace(report, released=released_pools(release, book))
        if self.register_task_id:
            models = decisions_from_json(context["ti"].xcom_pull(task_ids=self.register_task_id))
            # no decisions (the task failed or was skipped): an empty set, so that no ungated model is announced
            report = dataclasses.replace(report, models=models or RunDecisions(()))
        out = Path(self.out_dir) if self.out_dir else Path(tempfile.mkdtemp(prefix="sagemaker-fleet-"))
        files = write_report_files(report, out / run_key if self.out_dir else out)
        for line in summary_lines(report):
            if line.startswith(WARNING):
                self.log.warning("%s", line.removeprefix(WARNING))
            elif line.startswith("no price for"):
                self.log.warning("%s", line)
            else:
                self.log.info("%s", line)
        self.log.info("report page: %s", files.html)
        uploaded = self.upload and self._upload(context, files, report_s3_uri(spec.output_s3_uri, run_key))
        self._observe(context, spec, report, describes, files.json, uploaded)
        document = report_json(report)
        return {
            "run_key": run_key,
            "local_html": str(files.html),
            "totals": document["totals"],
            "pools_released": document["pools_released"],
            "other_runs_pools": document["other_runs_pools"],
            "plan_against_actual": _headline(document["plan_against_actual"]),
            **({"models": document["models"]["counts"]} if "models" in document else {}),
        }

    def _plan(self, context: Context, fleet: str, run_key: str) -> FleetPlan | None:
        """The run's plan from the plan task's XCom, to compare the run with; None (the report says so) when the
        task published none or one that does not read or is another run's."""
        data = context["ti"].xcom_pull(task_ids=self.plan_task_id, key=PLAN_XCOM_KEY)
        if data is None:
            self.log.info(
                "task %s published no plan: the report shows no plan against actual", self.plan_task_id
            )
            return None
        try:
            plan = FleetPlan.from_json(data)
        except PlanFormatError as exc:
            self.log.warning(
                "the plan of task %s does not read (%s): no plan against actual", self.plan_task_id, exc
            )
            return None
        if (plan.fleet, plan.run_key) != (fleet, run_key):
            self.log.warning(
                "the plan of task %s is for fleet %s run %s, not %s run %s: no plan against actual",
                self.plan_task_id,
                plan.fleet,
                plan.run_key,
                fleet,
                run_key,
            )
            return None
        return plan

    def _upload(self, context: Context, files: ReportFiles, prefix: str) -> bool:
        """Upload the report's files under ``prefix`` and link the page; whether they were uploaded. An upload S3
        refuses for good (no such bucket, access denied) is a warning, as in the ``report`` command: the run's
        outcome is its cities', and a retry would meet the same refusal."""
        from airflow.providers.amazon.aws.hooks.s3 import S3Hook  # boto3's transfer stack: only when used
        from botocore.exceptions import ClientError

        s3 = S3Hook(aws_conn_id=self.aws_conn_id, region_name=self.region_name, verify=self.verify)
        try:
            for uri in upload_report_files(s3.get_conn(), files, prefix):
                self.log.info("uploaded %s", uri)
        except ClientError as exc:
            refusal = upload_refusal(error_code(exc), prefix, files.html.parent)
            if refusal is None:
                raise
            self.log.warning("%s", refusal)
            return False
        bucket, key = split_s3_uri(prefix + "report.html")
        FleetCostReportLink.persist(
            context,
            self,
            region_name=self.hook.conn_region_name,
            aws_partition=self.hook.conn_partition,
            bucket=bucket,
            key=key,
        )
        return True

    def _observe(
        self,
        context: Context,
        spec: FleetSpec,
        report: CostReport,
        describes: list[Any],
        report_file: Path,
        uploaded: bool,
    ) -> None:
        """The run's billed money as metrics, its trained cities as the models asset's event, and its totals for
        the lineage listener (:meth:`get_openlineage_facets_on_complete`)."""
        send(report_measurements(report))
        descriptions: list[Description] = list(describes)
        extra = models_event_extra(report, descriptions, models_s3_prefix(spec.output_s3_uri))
        alias = next(
            (
                o
                for o in self.outlets
                if isinstance(o, AssetAlias) and o.name == models_alias_name(spec.fleet)
            ),
            None,
        )
        if alias is not None and (extra["cities"] or extra.get("pending")):
            context["outlet_events"][alias].add(models_asset(spec), extra=alias_event_extra(extra))
            self.log.info(
                "models asset: %d cities trained in run %s, %d in the event%s",
                extra["trained"],
                report.run_key,
                len(extra["cities"]),
                f" ({len(extra['pending'])} pending approval)" if "pending" in extra else "",
            )
        self._lineage = {
            "inputs": [c["model_uri"] for c in trained_cities(report, descriptions) if c["model_uri"]],
            "outputs": [report_s3_uri(spec.output_s3_uri, report.run_key) + report_file.name]
            if uploaded
            else [],
            "facet": run_facet_fields(report),
        }

    def get_openlineage_facets_on_complete(self, task_instance: Any) -> Lineage:
        """The report's lineage: the run's model artifacts in, its report.json out, the ``sagemakerFleetRun`` facet
        with the run's totals (nothing for a dry run)."""
        from sagemaker_fleet.observability.lineage import operator_lineage

        lineage = self._lineage or {}
        facets = {RUN_FACET: lineage["facet"]} if lineage.get("facet") else {}
        return operator_lineage(lineage.get("inputs") or (), lineage.get("outputs") or (), facets)


def models_asset(spec: FleetSpec) -> Asset:
    """The fleet's models asset (``{output_s3_uri}/models/``): the event the report emits through the models alias,
    and the report task's inlet in the fleet DAG — declared there so that Airflow registers it as active: an event
    for an asset no DAG declares is logged as one "for inactive AssetModel"."""
    return Asset(name=models_asset_name(spec.fleet), uri=models_s3_prefix(spec.output_s3_uri))


def _headline(against: dict[str, Any] | None) -> dict[str, Any] | None:
    """The task's return value keeps the plan comparison's totals, not every group and missed city (the XCom stays
    small for a fleet of thousands: report.json has the rest)."""
    if against is None:
        return None
    return {key: value for key, value in against.items() if key != "groups"}
