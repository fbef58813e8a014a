"""PlanFleetOperator: the run-time pool-aware plan, with the previous run's durations when its report exists."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, cast

from sagemaker_fleet.compat import AirflowFailException, has_external_views, under_dag_test
from sagemaker_fleet.contract import PLAN_XCOM_KEY, SUMMARY_XCOM_KEY, cities_xcom_key
from sagemaker_fleet.cost.estimate import estimate_plan_cost
from sagemaker_fleet.dispatch import DispatchBook
from sagemaker_fleet.errors import SageMakerFleetError
from sagemaker_fleet.failures import RefusedConfError, UnplannableFleetError, run_spec, unusable
from sagemaker_fleet.fleetspec.errors import FleetSpecError, RunConfError
from sagemaker_fleet.fleetspec.limits import capped
from sagemaker_fleet.fleetspec.names import reports_s3_prefix, split_s3_uri
from sagemaker_fleet.fleetspec.regions import KnownRegion, region_mismatch
from sagemaker_fleet.hooks.connection import aws_template_fields
from sagemaker_fleet.jobs.groups import group_label
from sagemaker_fleet.jobs.prices import PriceBook
from sagemaker_fleet.links.fleet import FleetViewLink, fleet_view_url
from sagemaker_fleet.operators.aws import FleetAwsOperator, task_conf, task_run_key
from sagemaker_fleet.operators.cities import split_cities
from sagemaker_fleet.operators.run_note import DEFAULT_API_CONN_ID, write_run_note
from sagemaker_fleet.plan import DurationHistory, plan_fleet
from sagemaker_fleet.plan.errors import PlanError
from sagemaker_fleet.runnote import (
    asked_line,
    cost_line,
    dry_run_line,
    fleet_view_line,
    plan_line,
    refused_line,
)

#: The XCom key of the plan's summary (cities, starts, makespan).
#: Earlier reports tried, newest first, before planning without history.
HISTORY_CANDIDATES = 10


class PlanMismatchError(SageMakerFleetError, AirflowFailException):
    """The fleet file and the parsed DAG disagree; retrying cannot help (the task fails without retries),
    re-parsing does."""


class RefusedParamsError(SageMakerFleetError, AirflowFailException):
    """The run's conf (the trigger form's values) breaks a fleet DAG's contract or asks what the fleet cannot do
    (an unknown key or city, a type without quota); retrying cannot help, a new run with other choices does."""


if TYPE_CHECKING:
    from airflow.sdk import Context

    from sagemaker_fleet.fleetspec.model import FleetSpec, InstanceQuota
    from sagemaker_fleet.plan import FleetPlan


class PlanFleetOperator(FleetAwsOperator):
    """Plan this run of the fleet: the order and keep-alive its training tasks dispatch by.

    The plan is pushed under the XCom key ``plan`` (the training triggers read it once per run and triggerer) and
    its summary under ``summary``; the run's cities are returned in start order (the mapped training task expands
    over them; past a thousand the next ones go under ``cities_2``, …: :mod:`sagemaker_fleet.operators.cities`).

    :param spec_path: the fleet YAML (templated).
    :param chunks: how many mapped training tasks the DAG has (one per thousand cities when it was parsed).
    :param use_params: read the run's conf (cities, spot, instance_type, dry_run: every fleet DAG does,
        :mod:`sagemaker_fleet.fleetspec.runconf`) and plan the run it asks for; a conf that breaks the contract, or
        that the fleet cannot do, fails the task without retries before anything is planned.
    :param run_note: with ``use_params``, write the run's note on every run (the manual DAG): what was asked, the
        planned starts and makespan, the expected cost — or why the run was refused. Without it only a run whose
        conf asked something gets one (``airflow dags test DAG DATE -c '{"dry_run": true}'``).
    :param use_history: plan with the durations of the latest earlier report under ``{output}/reports/``.
    :param account_quotas: read the account's quotas from Service Quotas and plan within the lower of them and the
        spec's (the spec's alone when it has none): :mod:`sagemaker_fleet.preflight.effective`. Unreadable (no
        ``servicequotas:ListServiceQuotas``, say): the spec's, with a warning.
    :param api_conn_id: the connection to the api-server that the note is written through
        (:mod:`sagemaker_fleet.operators.run_note`).
    """

    template_fields: Sequence[str] = aws_template_fields("spec_path")
    operator_extra_links = (FleetViewLink(),)

    def __init__(
        self,
        *,
        spec_path: str,
        chunks: int = 1,
        use_params: bool = False,
        run_note: bool = True,
        use_history: bool = True,
        account_quotas: bool = True,
        api_conn_id: str | None = DEFAULT_API_CONN_ID,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.spec_path = spec_path
        self.chunks = chunks
        self.use_params = use_params
        self.run_note = run_note
        self.use_history = use_history
        self.account_quotas = account_quotas
        self.api_conn_id = api_conn_id

    def execute(self, context: Context) -> Any:
        conf = task_conf(context) if self.use_params else None
        # the manual DAG notes every run; another notes a run that was asked something (`dags test -c '{...}'`)
        noted = self.use_params and (self.run_note or bool(conf))
        try:
            this_run = run_spec(self.spec_path, conf, use_params=self.use_params)
        except RefusedConfError as exc:
            self._refuse(context, "", exc, noted)
        dry_run = this_run.dry_run
        asked = asked_line(this_run.overrides, this_run.fleet, dry_run) if noted else ""
        run_key = task_run_key(context)
        self._check_region(this_run.fleet.region)
        try:
            spec, account = (
                self._account_quotas(this_run.spec) if self.account_quotas else (this_run.spec, {})
            )
            history = self._history(spec, run_key) if self.use_history else None
            plan = plan_fleet(spec, run_key, history).within(account)
        except (FleetSpecError, PlanError) as exc:
            if not self.use_params or (this_run.conf.empty and not noted):  # the fleet file itself
                raise (
                    unusable(exc) if isinstance(exc, FleetSpecError) else UnplannableFleetError(str(exc))
                ) from exc
            self._refuse(context, asked, exc, noted)
        try:
            parts = split_cities(start_order(plan), self.chunks)
        except ValueError as exc:
            raise PlanMismatchError(str(exc)) from exc
        book = DispatchBook.from_plan(plan, spec)
        self.log.info("plan %s/%s: %s", spec.fleet, run_key, json.dumps(plan.summary.to_json()))
        for line in group_lines(plan, book.widths, one_at_a_time=under_dag_test()):
            self.log.info("%s", line)
        context["ti"].xcom_push(key=PLAN_XCOM_KEY, value=plan.to_json())
        for chunk, cities in enumerate(parts[1:], start=1):
            context["ti"].xcom_push(key=cities_xcom_key(chunk), value=cities)
        context["ti"].xcom_push(key=SUMMARY_XCOM_KEY, value=plan.summary.to_json())
        if noted:
            prices = PriceBook.for_spec(spec)
            estimate = estimate_plan_cost(plan.to_json(), spec, prices)
            first = (
                [dry_run_line(plan.summary, estimate), asked] if dry_run else [asked, plan_line(plan.summary)]
            )
            write_run_note(
                context, [*first, cost_line(estimate), *_fleet_view(context)], self.api_conn_id, self.log
            )
        return parts[0]

    def _check_region(self, fleet_region: str) -> None:
        """Refuse the run (no retry: the connection or the spec must change) when the AWS connection talks to
        another region than the fleet's; a connection that names none is left to boto3's default."""
        region = self.region_name
        if not region:
            try:
                region = self.hook.conn_region_name  # the connection's, else the AWS environment's
            except Exception:  # noqa: BLE001 - no region anywhere: boto3 refuses the run's calls with the reason
                region = None
        known = KnownRegion(region, f"the {self.aws_conn_id} connection") if region else None
        mismatch = region_mismatch(fleet_region, known)
        if mismatch is not None:
            raise UnplannableFleetError(mismatch)

    def _account_quotas(self, spec: FleetSpec) -> tuple[FleetSpec, Mapping[str, InstanceQuota]]:
        """``spec`` with the quotas this run keeps to: the spec's and the account's together (one paged
        ListServiceQuotas call), and the account's as read — the spec's and none when the account cannot be read.
        Where the spec declares less than the account, the spec's is the fleet's cap and the account's what all
        jobs of the account keep to (:attr:`FleetPlan.account_quotas`)."""
        from airflow.providers.amazon.aws.hooks.base_aws import AwsBaseHook

        from sagemaker_fleet.preflight.effective import effective_quotas
        from sagemaker_fleet.preflight.quotas import read_account_quotas

        try:
            connection = self.connection
            hook = AwsBaseHook(
                **{**connection.hook_kwargs(), "region_name": connection.region_name or spec.region},
                client_type="service-quotas",
            )
            account = read_account_quotas(hook.get_conn(), spec.instance_types)
        except Exception as exc:  # noqa: BLE001 - the spec's quotas still make a plan
            self.log.warning("the account's quotas could not be read (%s); planning with the spec's", exc)
            return spec, {}
        spec, notes = effective_quotas(spec, account)
        for note in notes:
            (self.log.warning if note.level == "warning" else self.log.info)("%s", note.text)
        return spec, account

    def _refuse(self, context: Context, asked: str, exc: FleetSpecError | PlanError, noted: bool) -> NoReturn:
        """Say in the run's note (``noted``) why nothing is launched, and fail without retries."""
        if isinstance(exc, RunConfError):
            reasons = exc.reasons()
        elif isinstance(exc, FleetSpecError):
            reasons = [str(issue) for issue in exc.issues]
        else:
            reasons = [str(exc)]
        if noted:
            write_run_note(
                context, [refused_line(reasons), *([asked] if asked else [])], self.api_conn_id, self.log
            )
        raise RefusedParamsError(capped("refused: " + "; ".join(reasons))) from exc

    def _history(self, spec: FleetSpec, run_key: str) -> DurationHistory | None:
        """The newest earlier report.json of this fleet in S3 that reads, if any. A missing bucket or report is not
        an error, and neither is a report that does not read (corrupt, another fleet's, another format): it is
        skipped with a warning and the next newest is tried, so one bad file never blocks later runs. The newest is
        known from the listing's LastModified (no HEAD per past run)."""
        bucket, reports = split_s3_uri(reports_s3_prefix(spec.output_s3_uri))
        reports = reports.lstrip("/")
        from airflow.providers.amazon.aws.hooks.s3 import S3Hook  # boto3's transfer stack: only when used

        s3 = S3Hook(aws_conn_id=self.aws_conn_id, region_name=self.region_name, verify=self.verify)
        try:
            pages = (
                cast("Any", s3.get_conn())
                .get_paginator("list_objects_v2")
                .paginate(Bucket=bucket, Prefix=reports)
            )
            listed = [
                (obj["LastModified"], obj["Key"])
                for page in pages
                for obj in page.get("Contents", [])
                if obj["Key"].endswith("/report.json") and f"/{run_key}/" not in obj["Key"]
            ]
        except Exception as exc:  # noqa: BLE001 - history is an optimisation; planning goes on without it
            self.log.warning("no duration history (%s); planning from expected_seconds", exc)
            return None
        for _, key in sorted(listed, reverse=True)[:HISTORY_CANDIDATES]:
            try:
                report = json.loads(s3.read_key(key, bucket))
                history = DurationHistory.from_report(report, spec.fleet, source=f"s3://{bucket}/{key}")
            except Exception as exc:  # noqa: BLE001 - a bad report is skipped, never fatal
                reason = " ".join(str(exc).split())  # one log line, however many problems the file has
                self.log.warning("skipping s3://%s/%s as duration history: %s", bucket, key, reason)
                continue
            self.log.info("planning with durations from s3://%s/%s", bucket, key)
            return history
        self.log.info(
            "no readable earlier report under s3://%s/%s; planning from expected_seconds", bucket, reports
        )
        return None


def _fleet_view(context: Context) -> list[str]:
    """The note's line to the run's Fleet view where the UI has no Fleet tab to find it by (Airflow 3.0)."""
    if has_external_views():
        return []
    ti = context["ti"]
    url = fleet_view_url(ti.dag_id, ti.run_id)
    return [fleet_view_line(url)] if url else []


def group_lines(plan: FleetPlan, widths: Mapping[str, int], *, one_at_a_time: bool = False) -> list[str]:
    """A line per group of the plan, named as the report and the Fleet view name it: its jobs and lanes, how many
    run at once (``widths``: the dispatch's), and its planned warm starts — or why it keeps no pool. Under
    ``airflow dags test`` (``one_at_a_time``) the line says that the cities start one at a time all the same."""
    lines = []
    for group in plan.groups:
        key = group.key
        warm = sum(1 for job in plan.jobs if job.group == group.group and job.start == "warm")
        pools = (
            "spot: no warm pool"
            if group.spot
            else f"{warm} warm start(s) planned"
            if group.warm_pool
            else "no warm pool planned"
        )
        at_once = (
            f"up to {widths[group.group]} at once as planned; airflow dags test starts them one at a time"
            if one_at_a_time
            else f"up to {widths[group.group]} at once"
        )
        lines.append(
            f"group {group.group} ({group_label(key, group.spot, key.instance_type, key.instance_count)}): "
            f"{group.jobs} job(s) in {group.lanes} lane(s), {at_once}; {pools}"
        )
    return lines


def start_order(plan: FleetPlan) -> list[str]:
    """The plan's cities, first to start first (planned start, then group, lane and place in the lane): the order
    of the training task's map indexes, so that Airflow defers the first wave first."""
    jobs = sorted(plan.jobs, key=lambda j: (j.planned_start_seconds, j.group, j.lane, j.position, j.city))
    return [job.city for job in jobs]
