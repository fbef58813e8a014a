"""Extra links on fleet tasks: the training job's console page, its CloudWatch logs and the run's cost report."""

from __future__ import annotations

from airflow.providers.amazon.aws.links.base_aws import BASE_AWS_CONSOLE_LINK, BaseAwsLink


class SageMakerTrainingJobLink(BaseAwsLink):
    """The SageMaker console page of the training job (the stock provider has none for training jobs)."""

    name = "SageMaker Training Job"
    key = "sagemaker_fleet_training_job"
    format_str = BASE_AWS_CONSOLE_LINK + "/sagemaker/home?region={region_name}#/jobs/{job_name}"


class TrainingJobLogsLink(BaseAwsLink):
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
