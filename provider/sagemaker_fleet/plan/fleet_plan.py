"""The fleet plan: what the DAG layer launches, in which order, on which pools (docs/formats.md, plan JSON)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sagemaker_fleet.fleetspec.model import InstanceQuota
from sagemaker_fleet.plan.errors import PlanFormatError
from sagemaker_fleet.plan.jsonread import JsonObject
from sagemaker_fleet.plan.model import Lane, PlannedJob, PlanSummary, PoolGroup


@dataclass(frozen=True)
class FleetPlan:
    """Groups, lanes and jobs of one run. ``jobs`` are ordered by lane, then position in the lane.

    Lane numbers are unique across the whole plan (not per group); positions start at 0 in every lane.
    """

    fleet: str
    run_key: str
    groups: tuple[PoolGroup, ...]
    jobs: tuple[PlannedJob, ...]
    summary: PlanSummary
    warnings: tuple[str, ...] = ()
    #: the quotas the plan was laid out within, per instance type it uses (the spec's, or the lower of the spec's
    #: and the account's when the run read them): the run's dispatch keeps to these, not to the file's
    quotas: Mapping[str, InstanceQuota] = field(default_factory=dict)
    #: the account's own quotas as the run read them (Service Quotas), per instance type it uses; empty when they
    #: were not read. Where they are above :attr:`quotas`, ``quotas`` is the fleet's cap within the account: its
    #: own jobs keep to it, while everyone's jobs together keep to the account's
    account_quotas: Mapping[str, InstanceQuota] = field(default_factory=dict)
    _by_city: dict[str, PlannedJob] = field(init=False, repr=False, compare=False)
    _lanes: dict[int, Lane] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_city: dict[str, PlannedJob] = {}
        members: dict[int, list[PlannedJob]] = {}
        for job in self.jobs:
            if job.city in by_city:
                raise PlanFormatError(f"jobs: city {job.city!r} appears twice")
            by_city[job.city] = job
            members.setdefault(job.lane, []).append(job)
        lanes: dict[int, Lane] = {}
        for lane_id in sorted(members):
            ordered = tuple(sorted(members[lane_id], key=lambda job: job.position))
            if [job.position for job in ordered] != list(range(len(ordered))):
                raise PlanFormatError(f"jobs: lane {lane_id} positions are not 0..{len(ordered) - 1}")
            if len({job.group for job in ordered}) != 1:
                raise PlanFormatError(f"jobs: lane {lane_id} mixes groups")
            lanes[lane_id] = Lane(lane=lane_id, group=ordered[0].group, jobs=ordered)
        object.__setattr__(self, "_by_city", by_city)
        object.__setattr__(self, "_lanes", lanes)

    # -- lookups ---------------------------------------------------------------------------------------------

    @property
    def lanes(self) -> tuple[Lane, ...]:
        return tuple(self._lanes.values())

    def job(self, city: str) -> PlannedJob:
        try:
            return self._by_city[city]
        except KeyError:
            raise KeyError(f"no city {city!r} in the plan of fleet {self.fleet!r}") from None

    def group(self, group: str) -> PoolGroup:
        for candidate in self.groups:
            if candidate.group == group:
                return candidate
        raise KeyError(f"no group {group!r} in the plan of fleet {self.fleet!r}")

    def lane(self, lane: int) -> Lane:
        try:
            return self._lanes[lane]
        except KeyError:
            raise KeyError(f"no lane {lane} in the plan of fleet {self.fleet!r}") from None

    def lane_jobs(self, lane: int) -> tuple[PlannedJob, ...]:
        """The jobs of a lane in the order they run."""
        return self.lane(lane).jobs

    def predecessor(self, city: str) -> PlannedJob | None:
        """The job before ``city``'s in its lane (whose pool it reuses when it starts warm), or None."""
        job = self.job(city)
        return self._lanes[job.lane].jobs[job.position - 1] if job.position > 0 else None

    def successor(self, city: str) -> PlannedJob | None:
        """The job after ``city``'s in its lane (created when this one ends), or None for the lane's last."""
        job = self.job(city)
        lane_jobs = self._lanes[job.lane].jobs
        return lane_jobs[job.position + 1] if job.position + 1 < len(lane_jobs) else None

    # -- JSON ------------------------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The plan JSON of docs/formats.md (stable fields in their order, plus ``warnings`` and a few extras)."""
        return {
            "fleet": self.fleet,
            "run_key": self.run_key,
            "groups": [group.to_json() for group in self.groups],
            "jobs": [job.to_json() for job in self.jobs],
            "summary": self.summary.to_json(),
            "warnings": list(self.warnings),
            "quotas": _quotas_json(self.quotas),
            **({"account_quotas": _quotas_json(self.account_quotas)} if self.account_quotas else {}),
        }

    def within(self, account: Mapping[str, InstanceQuota]) -> FleetPlan:
        """This plan with the account's quotas as read (:attr:`account_quotas`), for the types it uses whose
        quota differs from the plan's."""
        differ = {t: q for t, q in account.items() if t in self.quotas and q != self.quotas[t]}
        return dataclasses.replace(self, account_quotas=differ) if differ else self

    def dumps(self, *, indent: int | None = None) -> str:
        return json.dumps(self.to_json(), indent=indent)

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> FleetPlan:
        """Rebuild a plan from :meth:`to_json` output (or its JSON text); raises :class:`PlanFormatError`."""
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise PlanFormatError(f"<root>: not JSON: {exc}") from exc
        root = JsonObject(data, "")
        warnings = tuple(root.texts("warnings")) if "warnings" in root.data else ()
        return cls(
            fleet=root.text("fleet"),
            run_key=root.text("run_key"),
            groups=tuple(PoolGroup.from_json(obj) for obj in root.objects("groups")),
            jobs=tuple(PlannedJob.from_json(obj) for obj in root.objects("jobs")),
            summary=PlanSummary.from_json(root.child("summary")),
            warnings=warnings,
            quotas=_quotas(root.child("quotas")) if "quotas" in root.data else {},
            account_quotas=_quotas(root.child("account_quotas")) if "account_quotas" in root.data else {},
        )


def _quotas_json(quotas: Mapping[str, InstanceQuota]) -> dict[str, dict[str, int | None]]:
    return {
        itype: {"instances": q.instances, "warm_pools": q.warm_pools, "spot_instances": q.spot_instances}
        for itype, q in sorted(quotas.items())
    }


def _quotas(obj: JsonObject) -> dict[str, InstanceQuota]:
    """The plan JSON's ``quotas`` (absent in plans written before it was added: the spec's then apply)."""
    quotas: dict[str, InstanceQuota] = {}
    for itype in obj.data:
        quota = obj.child(itype)
        spot = quota.data.get("spot_instances")
        if spot is not None:
            spot = quota.integer("spot_instances")
        quotas[itype] = InstanceQuota(quota.integer("instances"), quota.integer("warm_pools"), spot)
    return quotas
