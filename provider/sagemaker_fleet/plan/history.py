"""Durations measured in a previous run (its report.json), to plan the next run with.

For each city the training seconds of its latest completed submission replace the spec's ``expected_seconds``.
Start-up seconds of completed on-demand jobs calibrate the start-up model: when at least
:data:`MIN_STARTUP_SAMPLES` cold (or warm) starts were measured, their P90 replaces the start-up table for that
kind of start. Failed, stopped and re-submitted-away attempts are ignored. The file is checked first, whole
(:mod:`sagemaker_fleet.plan.history_check`): a file with any problem is not used at all.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sagemaker_fleet.fleetspec.names import submission_number
from sagemaker_fleet.fleetspec.render import render_issues
from sagemaker_fleet.plan.errors import HistoryError, PlanFormatError
from sagemaker_fleet.plan.history_check import history_issues
from sagemaker_fleet.plan.jsonread import JsonObject

MIN_STARTUP_SAMPLES = 5


def _p90(samples: list[int]) -> int:
    ordered = sorted(samples)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)]


def _seconds(obj: JsonObject, name: str) -> int | None:
    value = obj.data.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise HistoryError(f"{obj.path}.{name}: expected a number of seconds, got {value!r}")
    return round(value)


@dataclass(frozen=True)
class DurationHistory:
    """Training seconds per city and observed start-up P90s, from one earlier run."""

    training: Mapping[str, int] = field(default_factory=dict)
    cold_startup_p90: int | None = None
    warm_startup_p90: int | None = None

    def training_seconds(self, city: str) -> int | None:
        return self.training.get(city)

    def startup_p90(self, *, warm: bool) -> int | None:
        return self.warm_startup_p90 if warm else self.cold_startup_p90

    @classmethod
    def load(cls, path: str | Path, fleet: str | None = None) -> DurationHistory:
        """Read the report.json at ``path``; with ``fleet``, a report of another fleet is refused."""
        path = Path(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise HistoryError(f"{path}: cannot read the history file: {exc.strerror}") from exc
        except UnicodeDecodeError as exc:
            raise HistoryError(
                f"{path}: not UTF-8 text ({exc.reason}); pass a report.json written by `report`"
            ) from exc
        except (ValueError, RecursionError) as exc:  # also a number of 5,000 digits, or [[[[… 100,000 deep
            detail = (
                exc if isinstance(exc, json.JSONDecodeError) else "nested too deeply or a number too long"
            )
            raise HistoryError(
                f"{path}: not JSON ({detail}); pass a report.json written by `report`"
            ) from exc
        return cls.from_report(data, fleet, source=str(path))

    @classmethod
    def from_report(
        cls, report: object, fleet: str | None = None, source: str = "report.json"
    ) -> DurationHistory:
        """Read the ``jobs`` of a report.json, after checking all of it (every problem at once)."""
        issues = history_issues(report, fleet)
        if issues:
            lines = "\n".join(render_issues(issues))
            raise HistoryError(f"{source}: {len(issues):,} error(s) in the history file:\n{lines}")
        try:
            jobs = JsonObject(report, "").objects("jobs")
            return cls._from_jobs(jobs)
        except PlanFormatError as exc:
            raise HistoryError(f"report.json {exc}") from exc

    @classmethod
    def _from_jobs(cls, jobs: list[JsonObject]) -> DurationHistory:
        latest: dict[str, tuple[int, int, int]] = {}
        startups: dict[str, list[int]] = {"cold": [], "warm": []}
        for index, obj in enumerate(jobs):
            if obj.data.get("status") != "Completed":
                continue
            city = obj.text("city")
            training = _seconds(obj, "training_seconds")
            order = (submission_number(obj.optional_text("job_name") or ""), index)
            if training is not None and training > 0 and order >= latest.get(city, (0, -1, 0))[:2]:
                latest[city] = (*order, training)
            startup = _seconds(obj, "startup_seconds")
            start = obj.data.get("start")
            if (
                startup is not None
                and startup >= 0
                and start in startups
                and obj.data.get("spot") is not True
            ):
                startups[str(start)].append(startup)
        return cls(
            training={city: seconds for city, (_, _, seconds) in sorted(latest.items())},
            cold_startup_p90=_p90(startups["cold"]) if len(startups["cold"]) >= MIN_STARTUP_SAMPLES else None,
            warm_startup_p90=_p90(startups["warm"]) if len(startups["warm"]) >= MIN_STARTUP_SAMPLES else None,
        )
