"""The fleet spec as typed values (the format: docs/guides/fleet-spec.md).

Two shapes live here: the *layers* exactly as written in YAML (pydantic, every field optional so that a city may
override any default), and the *resolved* values every later layer works with (frozen dataclasses, every field set).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.job_template import JobTemplate

InputMode = Literal["File", "FastFile", "Pipe"]
SpotFallback = Literal["on_demand", "fail"]

#: Keep-alive limits: the API accepts up to 21600 s, the developer guide documents 3600 s.
KEEP_ALIVE_API_MAX = 21600
KEEP_ALIVE_GUIDE_MAX = 3600
#: MaxRuntimeInSeconds may be at most 28 days; a request without it gets SageMaker's default, one day.
MAX_RUNTIME_LIMIT = 28 * 24 * 3600
MAX_RUNTIME_AWS_DEFAULT = 24 * 3600
#: A warm pool moves from job to job for at most 28 days (older docs: 7 days).
WARM_POOL_LIFETIME_MAX = 28 * 24 * 3600
#: CreateTrainingJob's limits (botocore's SageMaker service model): S3 URIs, hyperparameters, environment.
S3_URI_MAX = 1024
HYPERPARAMETERS_MAX = 100
HYPERPARAMETER_KEY_MAX = 256
HYPERPARAMETER_VALUE_MAX = 2500
ENVIRONMENT_MAX = 100
ENVIRONMENT_VALUE_MAX = 512
#: Bounds of our own: past them a value is a typo (or a unit mix-up), and the planner's arithmetic in seconds
#: would lose its precision. A day of orchestration latency, a year of deadline, 100,000 instances of one type
#: (no account's quota is near it) and 10,000 USD an instance-hour (the largest type costs about 100).
ORCHESTRATION_LATENCY_MAX = 24 * 3600
DEADLINE_MAX = 366 * 24 * 3600
QUOTA_MAX = 100_000
PRICE_MAX = 10_000
#: ``sharing.priority``: 0 (the default, lowest) to this, as AWS Batch's scheduling priorities.
PRIORITY_MAX = 9999

#: Defaults, each defined here once (the table in docs/guides/fleet-spec.md). A city's field left out by the
#: city and by ``defaults`` takes the city default; the loader and the resolved values below both use these.
DEFAULT_INPUT_MODE: InputMode = "FastFile"
DEFAULT_ORCHESTRATION_LATENCY = 120
DEFAULT_INSTANCE_COUNT = 1
DEFAULT_VOLUME_SIZE_GB = 30
DEFAULT_MAX_RUNTIME = 7200
#: A city's expected training seconds when neither it nor ``defaults`` says (capped at its max_runtime_seconds).
DEFAULT_EXPECTED = 1200
DEFAULT_MAX_ATTEMPTS = 3
DEFAULT_SPOT_FALLBACK: SpotFallback = "on_demand"

_Seconds = Annotated[StrictInt, Field(ge=1)]
_NonNegative = Annotated[StrictInt, Field(ge=0)]
_Quota = Annotated[StrictInt, Field(ge=0, le=QUOTA_MAX)]
#: A number of YAML such as ``1e400`` is infinite and ``.nan`` is not a number: neither is a usable value.
_Finite = Annotated[StrictFloat, Field(allow_inf_nan=False)]
_HyperValue = StrictStr | StrictInt | _Finite | StrictBool
#: A ``job:`` layer: CreateTrainingJob fields in AWS's names, checked against botocore's model by the builder.
_Job = dict[StrictStr, object]


class _Layer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class VpcLayer(_Layer):
    subnets: Annotated[list[StrictStr], Field(min_length=1, max_length=16)]
    security_group_ids: Annotated[list[StrictStr], Field(min_length=1, max_length=5)]


class SpotLayer(_Layer):
    max_wait_seconds: _Seconds | None = None
    max_attempts: Annotated[StrictInt, Field(ge=1, le=20)] | None = None
    fallback: SpotFallback | None = None


class QuotaLayer(_Layer):
    instances: Annotated[StrictInt, Field(ge=1, le=QUOTA_MAX)]
    warm_pools: _Quota = 0
    spot_instances: _Quota | None = None


class SharingLayer(_Layer):
    """``sharing``: the fleet's place among the runs of its account (checked in the builder: a share is written
    ``40%`` or ``40``)."""

    share: object = None
    priority: object = 0
    board: StrictStr | None = None


class CityLayer(_Layer):
    """Fields a city or ``defaults`` may set; a field present on the city wins over ``defaults``."""

    name: StrictStr | None = None
    train_s3_uri: StrictStr | None = None
    role_arn: StrictStr | None = None
    image_uri: StrictStr | None = None
    instance_type: StrictStr | None = None
    instance_count: Annotated[StrictInt, Field(ge=1, le=100)] | None = None
    volume_size_gb: Annotated[StrictInt, Field(ge=1, le=16384)] | None = None
    volume_kms_key_id: StrictStr | None = None
    vpc: VpcLayer | None = None
    enable_network_isolation: StrictBool | None = None
    enable_inter_container_traffic_encryption: StrictBool | None = None
    max_runtime_seconds: _Seconds | None = None
    expected_seconds: _Seconds | None = None
    keep_alive: Literal["auto"] | _NonNegative | None = None
    spot: SpotLayer | None = None
    hyperparameters: dict[StrictStr, _HyperValue] | None = None
    environment: dict[StrictStr, StrictStr] | None = None
    job: _Job | None = None


class FleetLayer(_Layer):
    """Top-level keys of a fleet file; cities are parsed one by one so one bad city never hides another's errors."""

    fleet: StrictStr
    region: StrictStr
    #: required unless the fleet-level ``job:`` writes RoleArn / AlgorithmSpecification.TrainingImage
    role_arn: StrictStr | None = None
    image_uri: StrictStr | None = None
    output_s3_uri: StrictStr
    input_mode: InputMode = DEFAULT_INPUT_MODE
    orchestration_latency_seconds: Annotated[StrictInt, Field(ge=0, le=ORCHESTRATION_LATENCY_MAX)] = (
        DEFAULT_ORCHESTRATION_LATENCY
    )
    deadline_seconds: Annotated[StrictInt, Field(ge=1, le=DEADLINE_MAX)] | None = None
    quotas: dict[StrictStr, QuotaLayer] | None = None
    prices: dict[StrictStr, Annotated[_Finite | StrictInt, Field(ge=0, le=PRICE_MAX)]] | None = None
    sharing: SharingLayer | StrictBool | None = None
    defaults: CityLayer = CityLayer()
    job: _Job | None = None
    cities: list[object] = Field(min_length=1)


# --------------------------------------------------------------------------------------------- resolved values


@dataclass(frozen=True)
class VpcSettings:
    subnets: tuple[str, ...]
    security_group_ids: tuple[str, ...]


@dataclass(frozen=True)
class SpotSettings:
    """Managed spot training for a city; warm pools never apply (SageMaker keeps no pool of a spot job)."""

    max_wait_seconds: int
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    fallback: SpotFallback = DEFAULT_SPOT_FALLBACK


@dataclass(frozen=True)
class InstanceQuota:
    """Account limits for one instance type: concurrent training instances, warm pools, spot instances."""

    instances: int
    warm_pools: int
    spot_instances: int | None = None

    @property
    def spot_shares_instances(self) -> bool:
        """``spot_instances`` absent means spot jobs share ``instances``."""
        return self.spot_instances is None


@dataclass(frozen=True)
class SharingSettings:
    """The fleet's place among the runs of its account (docs/concepts/several-fleets.md): ``share`` of each
    instance quota it is guaranteed while it has cities waiting (a fraction, 0 to 1), its ``priority`` among runs
    borrowing beyond their share (higher first), and the ``board`` (an S3 prefix) where the runs of the account
    post what they hold and wait for."""

    share: float
    priority: int
    board: str


#: Assumed when a spec has no ``quotas`` block. AWS's default warm-pool quota is 0, so we assume none.
ASSUMED_QUOTA = InstanceQuota(instances=10, warm_pools=0)


@dataclass(frozen=True)
class CitySpec:
    """One city with every default applied: what the planner, the request compiler and the report see."""

    name: str
    train_s3_uri: str
    role_arn: str
    image_uri: str
    instance_type: str
    instance_count: int = DEFAULT_INSTANCE_COUNT
    volume_size_gb: int = DEFAULT_VOLUME_SIZE_GB
    volume_kms_key_id: str | None = None
    vpc: VpcSettings | None = None
    enable_network_isolation: bool = False
    enable_inter_container_traffic_encryption: bool = False
    max_runtime_seconds: int = DEFAULT_MAX_RUNTIME
    expected_seconds: int = DEFAULT_EXPECTED
    keep_alive: int | None = None  # None is ``auto``: the planner decides
    spot: SpotSettings | None = None
    hyperparameters: tuple[tuple[str, str], ...] = ()
    environment: tuple[tuple[str, str], ...] = ()
    #: the city's ``job:`` layers merged (docs/guides/job-template.md); None for a spec without ``job:``
    job: JobTemplate | None = None


@dataclass(frozen=True)
class FleetSpec:
    fleet: str
    region: str
    role_arn: str
    image_uri: str
    output_s3_uri: str
    cities: tuple[CitySpec, ...]
    input_mode: InputMode = DEFAULT_INPUT_MODE
    orchestration_latency_seconds: int = DEFAULT_ORCHESTRATION_LATENCY
    deadline_seconds: int | None = None
    quotas: dict[str, InstanceQuota] = field(default_factory=dict)
    quotas_given: bool = True
    prices: dict[str, float] = field(default_factory=dict)
    sharing: SharingSettings | None = None
    warnings: tuple[str, ...] = ()

    def city(self, name: str) -> CitySpec:
        for city in self.cities:
            if city.name == name:
                return city
        raise KeyError(f"no city {name!r} in fleet {self.fleet!r}")

    def quota(self, instance_type: str) -> InstanceQuota:
        return self.quotas[instance_type]

    @property
    def instance_types(self) -> tuple[str, ...]:
        return tuple(sorted({city.instance_type for city in self.cities}))
