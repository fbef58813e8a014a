"""What ``sagemaker-fleet pilot --dry-run`` prints: the fleet, every AWS call in order, the cost ceiling with its
arithmetic, and the command that runs exactly that (its run key), as text or as JSON (``--json``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sagemaker_fleet.cli.pilot.calls import render_calls
from sagemaker_fleet.cli.pilot.settings import (
    DEFAULT_INSTANCE_TYPE,
    DEFAULT_MAX_COST,
    DEFAULT_MAX_RUNTIME,
    DEFAULT_POLL_INTERVAL,
)
from sagemaker_fleet.fleetspec.builtin_images import builtin_xgboost

if TYPE_CHECKING:
    from sagemaker_fleet.cli.pilot.calls import PlannedCall
    from sagemaker_fleet.cli.pilot.ceiling import CostCeiling
    from sagemaker_fleet.cli.pilot.fleet import PilotFleet


def dry_run_json(fleet: PilotFleet, ceiling: CostCeiling, calls: list[PlannedCall]) -> dict[str, Any]:
    settings = fleet.settings
    return {
        "fleet": fleet.spec.fleet,
        "run_key": settings.run_key,
        "region": settings.region,
        "instance_type": settings.instance_type,
        "image_uri": fleet.image_uri,
        "s3_prefix": f"s3://{settings.bucket}/{settings.run_prefix}",
        "role_arn": settings.role_arn,
        "jobs": [
            {
                "store": store,
                "job_name": fleet.job_name(store),
                "planned_start": job.start,
                "keep_alive_seconds": fleet.book.turns[store].keep_alive_seconds,
            }
            for store in fleet.stores
            for job in [fleet.plan.job(store)]
        ],
        "calls": [call.to_json() for call in calls],
        "ceiling": ceiling.to_json(),
        "max_cost_usd": str(settings.max_cost),
    }


def dry_run_text(fleet: PilotFleet, ceiling: CostCeiling, calls: list[PlannedCall]) -> str:
    settings, images = fleet.settings, builtin_xgboost()
    starts = ", ".join(f"{store} {fleet.plan.job(store).start}" for store in fleet.stores)
    lines = [
        "sagemaker-fleet pilot, dry run: nothing is called and nothing is written.",
        "",
        f"fleet {fleet.spec.fleet} · run key {settings.run_key} · region {settings.region} · "
        f"{len(fleet.stores)} stores on {settings.instance_type}, one at a time ({starts})",
        f"image {fleet.image_uri} (SageMaker's built-in XGBoost {images.version}: nothing to build)",
        f"data, models and checkpoints under s3://{settings.bucket}/{settings.run_prefix} · role {settings.role_arn}",
        "",
        f"AWS calls, in order ({len(calls)}; once, repeated = at least once, if = only when said):",
        *render_calls(calls),
        "",
        "cost ceiling (what the jobs can be billed at most):",
        *ceiling.lines(),
        f"  ceiling ${ceiling.usd} against --max-cost ${settings.max_cost}",
        "",
        "Not in the ceiling: S3 requests and a few kB stored, CloudWatch Logs of three short jobs, the training "
        "volumes (docs/guides/pilot.md).",
        f"Run exactly this: sagemaker-fleet pilot --region {settings.region} --role-arn {settings.role_arn} "
        f"--s3-prefix s3://{settings.bucket}/{settings.prefix} --run-key {settings.run_key}" + _flags(fleet),
    ]
    return "\n".join(lines) + "\n"


def _flags(fleet: PilotFleet) -> str:
    """The flags of the dry run that change the calls or the ceiling, to repeat on the real run."""
    settings = fleet.settings
    flags = []
    if settings.instance_type != DEFAULT_INSTANCE_TYPE:
        flags.append(f"--instance-type {settings.instance_type}")
    if settings.max_runtime_seconds != DEFAULT_MAX_RUNTIME:
        flags.append(f"--max-runtime {settings.max_runtime_seconds}")
    if settings.poll_interval != DEFAULT_POLL_INTERVAL:
        flags.append(f"--poll-interval {settings.poll_interval:g}")
    if settings.price_per_hour is not None:
        flags.append(f"--price-per-hour {settings.price_per_hour}")
    if settings.max_cost != DEFAULT_MAX_COST:
        flags.append(f"--max-cost {settings.max_cost}")
    if settings.delete_data:
        flags.append("--delete-data")
    return "".join(f" {flag}" for flag in flags)
