"""Where a fleet run stands, from ListTrainingJobs summaries (pure): for sensors, progress bars and reports."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.names import MAX_SUBMISSIONS, job_name
from sagemaker_fleet.jobs.statuses import TERMINAL_STATUSES as TERMINAL

if TYPE_CHECKING:
    from mypy_boto3_sagemaker.type_defs import TrainingJobSummaryTypeDef

    from sagemaker_fleet.fleetspec.model import FleetSpec


def run_job_names(
    spec: FleetSpec, run_key: str, attempts: int = MAX_SUBMISSIONS
) -> dict[str, tuple[str, int]]:
    """Every job name the run may use, mapped to (city, attempt)."""
    return {
        job_name(spec.fleet, city.name, run_key, attempt): (city.name, attempt)
        for city in spec.cities
        for attempt in range(1, attempts + 1)
    }


@dataclass(frozen=True)
class RunProgress:
    """The latest submission of each city: its summary, and how many submissions the run made in all."""

    city_names: tuple[str, ...]
    latest: dict[str, dict[str, Any]] = field(default_factory=dict)
    submissions: int = 0

    @property
    def missing(self) -> list[str]:
        return sorted(set(self.city_names) - set(self.latest))

    def count(self, *statuses: str) -> int:
        return sum(1 for summary in self.latest.values() if summary.get("TrainingJobStatus") in statuses)

    @property
    def completed(self) -> int:
        return self.count("Completed")

    @property
    def failed(self) -> int:
        return self.count("Failed", "Stopped")

    @property
    def running(self) -> int:
        return self.count("InProgress", "Stopping")

    @property
    def all_terminal(self) -> bool:
        return len(self.latest) == len(self.city_names) and all(
            s.get("TrainingJobStatus") in TERMINAL for s in self.latest.values()
        )


def run_progress(
    spec: FleetSpec, run_key: str, summaries: Iterable[TrainingJobSummaryTypeDef | Mapping[str, Any]]
) -> RunProgress:
    """From ListTrainingJobs summaries: boto3's typed ones, or plain mappings (the async hook's, untyped)."""
    names = run_job_names(spec, run_key)
    latest: dict[str, tuple[int, dict[str, Any]]] = {}
    submissions = 0
    for summary in summaries:
        found = names.get(str(summary.get("TrainingJobName")))
        if found is None:
            continue
        submissions += 1
        city, attempt = found
        if city not in latest or latest[city][0] < attempt:
            latest[city] = (attempt, dict(summary))
    return RunProgress(
        city_names=tuple(city.name for city in spec.cities),
        latest={city: summary for city, (_, summary) in latest.items()},
        submissions=submissions,
    )
