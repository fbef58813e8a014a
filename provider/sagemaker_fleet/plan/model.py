"""The plan's value objects (docs/formats.md, plan JSON): groups of matching jobs, lanes, planned jobs, the summary.

Each object writes exactly its stable fields (``to_json``) and reads them back (``from_json``) so that the DAG
layer can hand a plan through XCom as JSON and rebuild it unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from sagemaker_fleet.jobs.keys import WarmPoolKey

if TYPE_CHECKING:
    from sagemaker_fleet.plan.jsonread import JsonObject

StartKind = Literal["cold", "warm"]
LaneKind = Literal["warm", "cold", "spot"]
START_KINDS: tuple[StartKind, ...] = ("cold", "warm")


def key_from_json(obj: JsonObject) -> WarmPoolKey:
    """The inverse of :meth:`WarmPoolKey.to_json`."""
    return WarmPoolKey(
        role_arn=obj.text("role_arn"),
        instance_type=obj.text("instance_type"),
        instance_count=obj.integer("instance_count"),
        volume_size_gb=obj.integer("volume_size_gb"),
        volume_kms_key_id=obj.optional_text("volume_kms_key_id"),
        subnets=obj.texts("subnets"),
        security_group_ids=obj.texts("security_group_ids"),
        enable_network_isolation=obj.flag("enable_network_isolation"),
        enable_inter_container_traffic_encryption=obj.flag("enable_inter_container_traffic_encryption"),
        session_tag_chaining="enable_session_tag_chaining" in obj.data
        and obj.flag("enable_session_tag_chaining"),
    )


@dataclass(frozen=True)
class PoolGroup:
    """Cities whose jobs may hand a warm pool on to each other: one matching key, all spot or all on-demand.

    Spot groups never have a warm pool (docs/sagemaker-behaviour.md, warm pools). ``warm_pool`` is true when at least one of the
    group's lanes keeps a pool; ``lanes`` counts its lanes.
    """

    group: str
    key: WarmPoolKey
    spot: bool
    warm_pool: bool
    lanes: int
    jobs: int

    def to_json(self) -> dict[str, Any]:
        return {
            "group": self.group,
            "warm_pool": self.warm_pool,
            "lanes": self.lanes,
            "key": self.key.to_json(),
            "spot": self.spot,
            "jobs": self.jobs,
        }

    @classmethod
    def from_json(cls, obj: JsonObject) -> PoolGroup:
        return cls(
            group=obj.text("group"),
            key=key_from_json(obj.child("key")),
            spot=obj.flag("spot") if "spot" in obj.data else False,
            warm_pool=obj.flag("warm_pool"),
            lanes=obj.integer("lanes"),
            jobs=obj.integer("jobs") if "jobs" in obj.data else 0,
        )


@dataclass(frozen=True)
class PlannedJob:
    """One city's training job as planned: its lane and place in it, how it starts, and its keep-alive.

    ``expected_seconds`` is the training time the plan assumed (spec or history); the planned start and end are
    seconds from run start, the start being the moment of CreateTrainingJob (start-up is inside the job's span).
    """

    city: str
    job_name: str
    group: str
    lane: int
    position: int
    spot: bool
    warm_pool: bool
    start: StartKind
    keep_alive_seconds: int
    expected_seconds: int
    planned_start_seconds: int
    planned_end_seconds: int
    #: A warm start whose image differs from its lane predecessor's: the pool pulls the image again.
    image_change: bool = False

    @property
    def planned_seconds(self) -> int:
        """Start-up plus training, as planned."""
        return self.planned_end_seconds - self.planned_start_seconds

    def to_json(self) -> dict[str, Any]:
        return {
            "city": self.city,
            "job_name": self.job_name,
            "group": self.group,
            "lane": self.lane,
            "position": self.position,
            "spot": self.spot,
            "warm_pool": self.warm_pool,
            "start": self.start,
            "keep_alive_seconds": self.keep_alive_seconds,
            "expected_seconds": self.expected_seconds,
            "planned_start_seconds": self.planned_start_seconds,
            "planned_end_seconds": self.planned_end_seconds,
            "image_change": self.image_change,
        }

    @classmethod
    def from_json(cls, obj: JsonObject) -> PlannedJob:
        start: StartKind = "warm" if obj.choice("start", START_KINDS) == "warm" else "cold"
        return cls(
            city=obj.text("city"),
            job_name=obj.text("job_name"),
            group=obj.text("group"),
            lane=obj.integer("lane"),
            position=obj.integer("position"),
            spot=obj.flag("spot"),
            warm_pool=obj.flag("warm_pool"),
            start=start,
            keep_alive_seconds=obj.integer("keep_alive_seconds"),
            expected_seconds=obj.integer("expected_seconds"),
            planned_start_seconds=obj.integer("planned_start_seconds"),
            planned_end_seconds=obj.integer("planned_end_seconds"),
            image_change=obj.flag("image_change") if "image_change" in obj.data else False,
        )


@dataclass(frozen=True)
class Lane:
    """A sequence of jobs of one group run one after another on the same capacity (and pool, if warm)."""

    lane: int
    group: str
    jobs: tuple[PlannedJob, ...]

    @property
    def kind(self) -> LaneKind:
        if self.jobs and self.jobs[0].spot:
            return "spot"
        return "warm" if self.jobs and self.jobs[0].warm_pool else "cold"

    @property
    def start_seconds(self) -> int:
        return self.jobs[0].planned_start_seconds

    @property
    def end_seconds(self) -> int:
        return self.jobs[-1].planned_end_seconds

    @property
    def busy_seconds(self) -> int:
        """From the first job's creation to the last job's end: jobs plus the orchestration gaps between them."""
        return self.end_seconds - self.start_seconds


@dataclass(frozen=True)
class QuotaRequest:
    """What a plan holds at its peak of one instance type, in instances: the Service Quotas to ask AWS for so
    that the plan runs as laid out (docs/guides/aws.md, quotas to request). ``instances`` counts on-demand jobs and the
    warm pools they keep (pools count toward the instance quota); ``warm_pools`` the instances kept as pools;
    ``spot_instances`` the spot jobs'."""

    instance_type: str
    instances: int
    warm_pools: int
    spot_instances: int

    def to_json(self) -> dict[str, Any]:
        return {
            "instance_type": self.instance_type,
            "instances": self.instances,
            "warm_pools": self.warm_pools,
            "spot_instances": self.spot_instances,
        }

    @classmethod
    def from_json(cls, obj: JsonObject) -> QuotaRequest:
        return cls(
            instance_type=obj.text("instance_type"),
            instances=obj.integer("instances"),
            warm_pools=obj.integer("warm_pools"),
            spot_instances=obj.integer("spot_instances"),
        )


@dataclass(frozen=True)
class PlanSummary:
    """Totals of a plan. See :func:`sagemaker_fleet.plan.summary.summarize` for how each is computed."""

    jobs: int
    lanes: int
    cold_starts: int
    warm_starts: int
    planned_makespan_seconds: int
    makespan_lower_bound_seconds: int
    planned_retained_seconds: int
    warm_lanes: int = 0
    cold_lanes: int = 0
    spot_lanes: int = 0
    image_changes: int = 0  # warm starts planned with another image than their lane predecessor's
    quota_request: tuple[QuotaRequest, ...] = ()  # per instance type, in the order the groups first use them

    def to_json(self) -> dict[str, Any]:
        return {
            "jobs": self.jobs,
            "lanes": self.lanes,
            "cold_starts": self.cold_starts,
            "warm_starts": self.warm_starts,
            "planned_makespan_seconds": self.planned_makespan_seconds,
            "makespan_lower_bound_seconds": self.makespan_lower_bound_seconds,
            "planned_retained_seconds": self.planned_retained_seconds,
            "warm_lanes": self.warm_lanes,
            "cold_lanes": self.cold_lanes,
            "spot_lanes": self.spot_lanes,
            "image_changes": self.image_changes,
            "quota_request": [request.to_json() for request in self.quota_request],
        }

    @classmethod
    def from_json(cls, obj: JsonObject) -> PlanSummary:
        extra = {
            name: obj.integer(name)
            for name in ("warm_lanes", "cold_lanes", "spot_lanes", "image_changes")
            if name in obj.data
        }
        requests = (
            tuple(QuotaRequest.from_json(item) for item in obj.objects("quota_request"))
            if "quota_request" in obj.data
            else ()
        )
        return cls(
            jobs=obj.integer("jobs"),
            lanes=obj.integer("lanes"),
            cold_starts=obj.integer("cold_starts"),
            warm_starts=obj.integer("warm_starts"),
            planned_makespan_seconds=obj.integer("planned_makespan_seconds"),
            makespan_lower_bound_seconds=obj.integer("makespan_lower_bound_seconds"),
            planned_retained_seconds=obj.integer("planned_retained_seconds"),
            quota_request=requests,
            **extra,
        )
