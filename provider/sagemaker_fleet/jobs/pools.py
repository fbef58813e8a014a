"""Finding an Available warm pool for a matching key (pure: the caller supplies descriptions)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, cast

from sagemaker_fleet.jobs.keys import WarmPoolKey, warm_pool_key
from sagemaker_fleet.jobs.statuses import POOL_AVAILABLE

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import DescribeTrainingJobResponseTypeDef

    from sagemaker_fleet.jobs.record import Description


def matching_pool(key: WarmPoolKey, descriptions: Iterable[Description]) -> str | None:
    """The name of a job whose Available warm pool the key would reuse, if any."""
    for description in descriptions:
        job = cast("DescribeTrainingJobResponseTypeDef", description)  # read as boto3's shape
        pool = job.get("WarmPoolStatus")
        if pool and pool.get("Status") == POOL_AVAILABLE and warm_pool_key(job) == key:
            return str(job["TrainingJobName"])
    return None
