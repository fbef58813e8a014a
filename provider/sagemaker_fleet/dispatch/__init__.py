"""Dispatch: which city of a fleet run starts now, decided from the run's jobs as SageMaker lists them (pure).

One core, two shells: the triggerer's shared poller (:mod:`sagemaker_fleet.triggers.poller`) and the virtual-time
``simulate`` driver feed the same :class:`RunTracker` with ListTrainingJobs summaries and act on its answers.
"""

from __future__ import annotations

from sagemaker_fleet.dispatch.book import DispatchBook, QuotaPool, Turn, peak_lanes, quota_pool
from sagemaker_fleet.dispatch.tracker import RunTracker, Wait

__all__ = ["DispatchBook", "QuotaPool", "RunTracker", "Turn", "Wait", "peak_lanes", "quota_pool"]
