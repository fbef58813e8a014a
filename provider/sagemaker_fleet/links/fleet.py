"""Extra links on fleet tasks: the training job's console page, its CloudWatch logs, the run's cost report and
its Fleet view."""

from __future__ import annotations

from typing import Any

from airflow.providers.amazon.aws.links.base_aws import BASE_AWS_CONSOLE_LINK, BaseAwsLink
from airflow.sdk import BaseOperatorLink

from sagemaker_fleet.contract import fleet_view_path


class _JobLink(BaseAwsLink):
    """A link to a city's training job, whose parameters the city's trigger writes when the task ends."""

    def get_link(self, operator: Any, *, ti_key: Any) -> str:
        # A task that defers has no job yet; Airflow's task runner asks each extra link for its URL as the task
        # defers, and the XCom read of a key not written yet logs an error per link ("XCom not found").
        state = getattr(ti_key, "state", None)
        if getattr(state, "value", state) == "deferred":
            return ""
        return str(super().get_link(operator, ti_key=ti_key))


class SageMakerTrainingJobLink(_JobLink):
    """The SageMaker console page of the training job (the stock provider has none for training jobs)."""

    name = "SageMaker Training Job"
    key = "sagemaker_fleet_training_job"
    format_str = BASE_AWS_CONSOLE_LINK + "/sagemaker/home?region={region_name}#/jobs/{job_name}"


class TrainingJobLogsLink(_JobLink):
    """The job's log streams in /aws/sagemaker/TrainingJobs (stream names start with the job name)."""

    name = "Training Job Logs"
    key = "sagemaker_fleet_training_logs"
    format_str = (
        BASE_AWS_CONSOLE_LINK + "/cloudwatch/home?region={region_name}#logsV2:log-groups/log-group/"
        "$252Faws$252Fsagemaker$252FTrainingJobs$3FlogStreamNameFilter$3D{job_name}"
    )


class FleetCostReportLink(BaseAwsLink):
    """The run's report.html in S3."""

    name = "Fleet Cost Report"
    key = "sagemaker_fleet_cost_report"
    format_str = BASE_AWS_CONSOLE_LINK + "/s3/object/{bucket}?region={region_name}&prefix={key}"


def fleet_view_url(dag_id: str, run_id: str) -> str:
    """The run's Fleet view, under ``[api] base_url`` when it is set (else from the UI's own address): its tab on
    Airflow 3.1+, the plugin's own page on 3.0 (no plugin tabs there); "" when the view is off
    (``[sagemaker_fleet] fleet_view``)."""
    from sagemaker_fleet import settings
    from sagemaker_fleet.compat import airflow_conf, has_external_views

    if not settings.get_bool("fleet_view"):
        return ""
    base = str(airflow_conf().get("api", "base_url", fallback="") or "").rstrip("/")
    return base + fleet_view_path(dag_id, run_id, tab=has_external_views())


class FleetViewLink(BaseOperatorLink):
    """The run's Fleet view (:func:`fleet_view_url`), on the plan task: on Airflow 3.0, which has no Fleet tab, the
    way from a run to its Fleet view."""

    name = "Fleet view"

    def get_link(self, operator: Any, *, ti_key: Any) -> str:
        return fleet_view_url(ti_key.dag_id, ti_key.run_id)
