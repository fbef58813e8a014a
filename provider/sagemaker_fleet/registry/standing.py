"""Where each city stands in the registry now: its champion (the latest Approved package), that champion's metric
and age, and the last model the fleet registered for it with its decision — what ``sagemaker-fleet models``
prints (pure: the client is handed in).

Read from one newest-first listing of the city's group and a DescribeModelPackage of the champion and of the last
model (the same package when the last one is the champion); the champion's value as
:func:`~sagemaker_fleet.registry.champion.champion_value` reads it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from sagemaker_fleet.jobs.paging import as_datetime
from sagemaker_fleet.registry.champion import champion_value, version_name
from sagemaker_fleet.registry.packages import job_of_description, recorded_decision, recorded_value
from sagemaker_fleet.registry.registration import (
    DEFAULT_REGISTER_WORKERS,
    RegistryClient,
    describe_package,
    is_missing,
    newest_first,
    training_job_of,
)


@dataclass(frozen=True)
class CityStanding:
    """A city's group now: ``champion`` (its name, ``group/version``), value and creation; the last package the fleet
    registered (its job, decision, status as it is now, value and reason). ``group_exists`` False: nothing was
    ever registered for the city."""

    city: str
    group: str
    group_exists: bool = True
    champion: str | None = None
    champion_arn: str | None = None
    champion_value: float | None = None
    champion_created: dt.datetime | None = None
    last: str | None = None
    last_job: str | None = None
    last_decision: str | None = None
    last_status: str | None = None
    last_value: float | None = None
    last_reason: str | None = None

    def age(self, now: dt.datetime) -> float | None:
        """Seconds since the champion was registered (None: no champion)."""
        return (now - self.champion_created).total_seconds() if self.champion_created else None

    def to_json(self, now: dt.datetime) -> dict[str, Any]:
        return {
            "city": self.city,
            "group": self.group,
            "group_exists": self.group_exists,
            "champion": self.champion,
            "champion_arn": self.champion_arn,
            "champion_value": self.champion_value,
            "champion_created": self.champion_created.isoformat() if self.champion_created else None,
            "champion_age_seconds": round(age) if (age := self.age(now)) is not None else None,
            "last": self.last,
            "last_job": self.last_job,
            "last_decision": self.last_decision,
            "last_status": self.last_status,
            "last_value": self.last_value,
            "last_reason": self.last_reason,
        }


def city_standing(client: RegistryClient, city: str, group: str, metric: str) -> CityStanding:
    try:
        champion, last = _newest(client, group)
    except Exception as exc:
        if is_missing(exc):
            return CityStanding(city, group, group_exists=False)
        raise
    described: dict[str, Mapping[str, Any]] = {}
    for summary in (champion, last):
        if summary is not None and summary["ModelPackageArn"] not in described:
            described[summary["ModelPackageArn"]] = describe_package(client, str(summary["ModelPackageArn"]))
    standing: dict[str, Any] = {}
    if champion is not None:
        held = described[champion["ModelPackageArn"]]
        standing.update(
            champion=version_name(held),
            champion_arn=str(held["ModelPackageArn"]),
            champion_value=champion_value(held, metric, training_job_of(client, held, metric)),
            champion_created=as_datetime(held.get("CreationTime")),
        )
    if last is not None:
        made = described[last["ModelPackageArn"]]
        status = str(made.get("ModelApprovalStatus") or "") or None
        standing.update(
            last=version_name(made),
            last_job=job_of_description(made.get("ModelPackageDescription")),
            last_decision=recorded_decision(made, status),
            last_status=status,
            last_value=recorded_value(made, metric),
            last_reason=made.get("ApprovalDescription"),
        )
    return CityStanding(city, group, **standing)


def _newest(client: RegistryClient, group: str) -> tuple[Mapping[str, Any] | None, Mapping[str, Any] | None]:
    """The group's newest Approved package and the newest the fleet registered (read until both are known)."""
    champion = last = None
    for summary in newest_first(client, group):
        if last is None and job_of_description(summary.get("ModelPackageDescription")):
            last = summary
        if champion is None and summary.get("ModelApprovalStatus") == "Approved":
            champion = summary
        if champion is not None and last is not None:
            break
    return champion, last


def standings(
    client: RegistryClient,
    cities: Sequence[tuple[str, str, str]],
    workers: int = DEFAULT_REGISTER_WORKERS,
) -> list[CityStanding]:
    """Each ``(city, group, metric)``'s standing, ``workers`` at a time, in the order given."""
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        return list(pool.map(lambda item: city_standing(client, *item), cities))
