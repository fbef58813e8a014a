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
from sagemaker_fleet.cost import PriceBook, RunJobIndex, build_cost_report, report_json
from sagemaker_fleet.cost.collect import describe_run_jobs, find_other_runs_givers
from sagemaker_fleet.cost.estimate import estimate_plan_cost
from sagemaker_fleet.cost.publish import upload_report_files, write_report_files
from sagemaker_fleet.cost.report import released_pools
from sagemaker_fleet.cost.summary import summary_lines
from sagemaker_fleet.fleetspec.errors import FleetSpecError
from sagemaker_fleet.fleetspec.names import models_s3_prefix, report_s3_uri, split_s3_uri
from sagemaker_fleet.links.fleet import FleetCostReportLink
from sagemaker_fleet.observability.facets import (
    RUN_FACET,
    models_event_extra,
    run_facet_fields,
    trained_cities,
)
from sagemaker_fleet.observability.metrics import report_measurements
from sagemaker_fleet.observability.stats import send
from sagemaker_fleet.operators.aws import FleetAwsOperator, aws_template_fields
from sagemaker_fleet.operators.training import context_run_key
from sagemaker_fleet.registry.decision import RunDecisions, decisions_from_json
from sagemaker_fleet.triggers.errors import run_spec

if TYPE_CHECKING:
    from airflow.sdk import Context

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
    :param use_params: apply the run's params (cities, spot, instance_type, dry_run) like the other tasks.
    :param plan_task_id: a plan task whose ``plan`` XCom prices a dry run.
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
        this_run = run_spec(self.spec_path, context.get("params") or {}, use_params=self.use_params)
        spec = this_run.fleet
        if self.use_params:
            try:
                spec = this_run.spec
            except FleetSpecError as exc:  # the plan task refused these params: nothing was launched
                raise AirflowSkipException(
                    f"nothing to report: the plan task refused this run's params ({exc})"
                ) from exc
        run_key = context_run_key(context)
        book = PriceBook.for_spec(spec)
        if this_run.dry_run:
            plan = context["ti"].xcom_pull(task_ids=self.plan_task_id, key=PLAN_XCOM_KEY)
            estimate = estimate_plan_cost(plan, spec, book)
            self.log.info("dry run: expected cost %s", estimate)
            return {"dry_run": True, "estimate": estimate}
        index = RunJobIndex.for_run(spec, run_key)
        describes = describe_run_jobs(self.hook.conn, spec.fleet, index)
        other_runs = find_other_runs_givers(self.hook.conn, index, describes)
        report = build_cost_report(spec, run_key, describes, book, index=index, other_runs=other_runs)
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
            self.log.info(line)
        self.log.info("report page: %s", files.html)
        if self.upload:
            prefix = report_s3_uri(spec.output_s3_uri, run_key)
            from airflow.providers.amazon.aws.hooks.s3 import S3Hook  # boto3's transfer stack: only when used

            s3 = S3Hook(aws_conn_id=self.aws_conn_id, region_name=self.region_name, verify=self.verify)
            for uri in upload_report_files(s3.get_conn(), files, prefix):
                self.log.info("uploaded %s", uri)
            bucket, key = split_s3_uri(prefix + "report.html")
            FleetCostReportLink.persist(
                context,
                self,
                region_name=self.hook.conn_region_name,
                aws_partition=self.hook.conn_partition,
                bucket=bucket,
                key=key,
            )
        self._observe(context, spec, report, describes, files.json)
        document = report_json(report)
        return {
            "run_key": run_key,
            "local_html": str(files.html),
            "totals": document["totals"],
            "pools_released": document["pools_released"],
            "other_runs_pools": document["other_runs_pools"],
            **({"models": document["models"]["counts"]} if "models" in document else {}),
        }

    def _observe(
        self, context: Context, spec: FleetSpec, report: CostReport, describes: list[Any], report_file: Path
    ) -> None:
        """The run's billed money as metrics, its trained cities as the models asset's event, and its totals for
        the lineage listener (:meth:`get_openlineage_facets_on_complete`)."""
        send(report_measurements(report))
        descriptions: list[Description] = list(describes)
        models_uri = models_s3_prefix(spec.output_s3_uri)
        extra = models_event_extra(report, descriptions, models_uri)
        alias = next(
            (
                o
                for o in self.outlets
                if isinstance(o, AssetAlias) and o.name == models_alias_name(spec.fleet)
            ),
            None,
        )
        if alias is not None and (extra["cities"] or extra.get("pending")):
            context["outlet_events"][alias].add(
                Asset(name=models_asset_name(spec.fleet), uri=models_uri), extra=alias_event_extra(extra)
            )
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
            if self.upload
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
