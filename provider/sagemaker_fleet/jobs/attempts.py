"""What to do next for a city in a run, given its earlier submissions (pure; the operator applies it).

Submissions are named ``{fleet}-{city}-{run_key}`` and ``…-r{n}``; the latest one decides:
- none yet: submit attempt 1 (spot if the city is spot);
- running or stopping: attach to it — never a second job;
- completed: done (re-running a completed city returns its result) unless a retrain is forced (the caller
  forces once per run: not again on a retry or clear of a try that already forced one);
- stopped with ``MaxWaitTimeExceeded`` on spot: resubmit on spot from the same checkpoint while spot attempts
  remain, then fall back to on-demand or fail as the spec says;
- failed or stopped otherwise: resubmit when the task is retried (a new try), else fail with the reason.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, cast

from sagemaker_fleet.fleetspec.names import MAX_SUBMISSIONS
from sagemaker_fleet.jobs.statuses import ACTIVE_STATUSES as ACTIVE

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import DescribeTrainingJobResponseTypeDef

    from sagemaker_fleet.fleetspec.model import CitySpec
    from sagemaker_fleet.jobs.record import Description

#: The capacity back-off (ResourceLimitExceeded) doubles from its base up to this.
CAPACITY_RETRY_MAX_SECONDS = 900.0


def capacity_delay(retries: int, base: float, cap: float = CAPACITY_RETRY_MAX_SECONDS) -> float:
    """Seconds before the ``retries``-th retry of a create the quota refused (before jitter)."""
    return float(min(base * 2 ** min(retries, 30), cap))


@dataclass(frozen=True)
class NextStep:
    kind: Literal["submit", "attach", "done", "fail"]
    attempt: int
    spot: bool = False
    reason: str = ""
    #: The submission retrains a completed city because a retrain was forced (it is tagged so, and no later try
    #: of the run forces again).
    forced: bool = False


def stopped_by_someone(description: Description) -> bool:
    """A job that StopTrainingJob ended (a user, or Airflow on a user's action), not spot's MaxWait."""
    job = cast("DescribeTrainingJobResponseTypeDef", description)  # read as boto3's shape: members checked
    return job.get("TrainingJobStatus") == "Stopped" and job.get("SecondaryStatus") != "MaxWaitTimeExceeded"


def spot_attempts(history: Sequence[Description]) -> int:
    return sum(1 for description in history if description.get("EnableManagedSpotTraining"))


def after_max_wait(city: CitySpec, history: Sequence[Description]) -> NextStep:
    """The spot job gave up waiting for capacity: spot again, on-demand, or fail."""
    attempt = len(history) + 1
    assert city.spot is not None
    if spot_attempts(history) < city.spot.max_attempts:
        return NextStep("submit", attempt, spot=True, reason="spot MaxWaitTimeExceeded: resubmitting on spot")
    if city.spot.fallback == "on_demand":
        return NextStep(
            "submit", attempt, spot=False, reason="spot attempts used up: falling back to on-demand"
        )
    return NextStep(
        "fail",
        attempt - 1,
        reason=f"spot MaxWaitTimeExceeded {spot_attempts(history)} time(s); fallback is `fail`",
    )


def next_step(
    city: CitySpec,
    history: Sequence[Description],
    *,
    force: bool = False,
    new_try: bool = True,
    stopped_outside: bool = False,
) -> NextStep:
    """Decide from the descriptions of attempts 1..n (oldest first). A submission past
    :data:`~sagemaker_fleet.fleetspec.names.MAX_SUBMISSIONS` becomes a failure with the reason.
    ``stopped_outside``: the latest job was stopped outside Airflow (the console, the CLI: no
    ``sagemaker-fleet:stopped-by`` tag). That is final — a retry does not train it again; ``force`` does."""
    latest = history[-1] if history else {}
    if stopped_outside and not force and stopped_by_someone(latest):
        return NextStep(
            "fail",
            len(history),
            spot=bool(latest.get("EnableManagedSpotTraining")),
            reason=(
                f"{latest.get('TrainingJobName')} was stopped outside Airflow (StopTrainingJob from the console or "
                "the CLI): not submitted again; run the task with force_retrain to train the city anew"
            ),
        )
    step = _next_step(city, history, force=force, new_try=new_try)
    if step.kind == "submit" and step.attempt > MAX_SUBMISSIONS:
        return NextStep(
            "fail",
            step.attempt - 1,
            spot=step.spot,
            reason=(
                f"{step.reason + '; ' if step.reason else ''}{city.name} has made {step.attempt - 1} submissions in this "
                f"run, the most one run allows ({MAX_SUBMISSIONS}): start a new run to train it again"
            ),
        )
    return step


def _next_step(city: CitySpec, history: Sequence[Description], *, force: bool, new_try: bool) -> NextStep:
    if not history:
        return NextStep("submit", 1, spot=city.spot is not None)
    latest = cast("DescribeTrainingJobResponseTypeDef", history[-1])  # read as boto3's shape: members checked
    attempt = len(history)
    status = latest.get("TrainingJobStatus")
    was_spot = bool(latest.get("EnableManagedSpotTraining"))
    if status in ACTIVE:
        return NextStep("attach", attempt, spot=was_spot)
    if status == "Completed" or stopped_by_someone(latest):
        if force:
            return NextStep(
                "submit", attempt + 1, spot=city.spot is not None, reason="retrain forced", forced=True
            )
        if status == "Completed":
            return NextStep("done", attempt, spot=was_spot)
    if (
        status == "Stopped"
        and latest.get("SecondaryStatus") == "MaxWaitTimeExceeded"
        and was_spot
        and city.spot
    ):
        return after_max_wait(city, history)
    reason = str(latest.get("FailureReason") or f"training job {status} ({latest.get('SecondaryStatus')})")
    if new_try:
        spot = was_spot and city.spot is not None and spot_attempts(history) < city.spot.max_attempts
        return NextStep("submit", attempt + 1, spot=spot, reason=f"previous attempt ended: {reason}")
    return NextStep("fail", attempt, spot=was_spot, reason=reason)
