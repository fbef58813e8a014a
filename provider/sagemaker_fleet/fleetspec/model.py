"""The fleet spec as typed values (the format: docs/reference/fleet-spec.md, generated from this module).

Two shapes live here (``register:``'s in :mod:`~sagemaker_fleet.fleetspec.register_model`): the *layers* exactly as
written in YAML (pydantic, every field optional so that a city may override any default), and the *resolved* values
every later layer works with (frozen dataclasses, every field set).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import Field, StrictBool, StrictInt, StrictStr

from sagemaker_fleet.fleetspec.layer_types import AwsFields as _Job
from sagemaker_fleet.fleetspec.layer_types import Finite as _Finite
from sagemaker_fleet.fleetspec.layer_types import Layer as _Layer
from sagemaker_fleet.fleetspec.limits import CITIES_MAX
from sagemaker_fleet.fleetspec.register_model import RegisterLayer, RegisterSpec

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
#: A job stopped (StopTrainingJob, or at MaxRuntimeInSeconds) gets SIGTERM, then at most this long before it is killed:
#: the algorithm's time to save its model (StoppingCondition in the API reference), billed like the rest of its run.
STOP_GRACE_SECONDS = 120
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

#: Defaults, each defined here once (shown in docs/reference/fleet-spec.md). A city's field left out by the
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
_HyperValue = StrictStr | StrictInt | _Finite | StrictBool


class VpcLayer(_Layer):
    """``vpc``: the subnets and security groups the city's job runs in (CreateTrainingJob's VpcConfig)."""

    subnets: Annotated[list[StrictStr], Field(min_length=1, max_length=16)] = Field(
        description="subnet ids such as subnet-0a1b2c3d, in the VPC of the security groups"
    )
    security_group_ids: Annotated[list[StrictStr], Field(min_length=1, max_length=5)] = Field(
        description="security group ids such as sg-0a1b2c3d"
    )


class SpotLayer(_Layer):
    """``spot``: managed spot training for the city, merged key by key over ``defaults.spot``; ``spot: null`` on a
    city turns a default spot off. Spot cities keep no warm pool."""

    max_wait_seconds: _Seconds | None = Field(
        None,
        description="required: the spot job's total time, waiting for capacity included (MaxWaitTimeInSeconds); "
        "at least max_runtime_seconds, at most 28 days",
    )
    max_attempts: Annotated[StrictInt, Field(ge=1, le=20)] | None = Field(
        None, description="spot submissions before the fallback (each after MaxWaitTimeExceeded)"
    )
    fallback: SpotFallback | None = Field(
        None, description="after the last spot attempt: train on demand, or fail the city"
    )


class QuotaLayer(_Layer):
    """One instance type's account quotas (``quotas.<instance type>``): what the dispatch keeps the run within."""

    instances: Annotated[StrictInt, Field(ge=1, le=QUOTA_MAX)] = Field(
        description="concurrent training instances of the type (the account's training job usage quota)"
    )
    warm_pools: _Quota = Field(
        0, description="instances of the type that may idle in warm pools (AWS's default quota is 0)"
    )
    spot_instances: _Quota | None = Field(
        None, description="concurrent spot training instances; absent: spot jobs share `instances`"
    )


class SharingLayer(_Layer):
    """``sharing``: the fleet's place among the runs of its account (checked in the builder: a share is written
    ``40%`` or ``40``). ``true`` or ``{}`` take part with share 0 and priority 0; ``false`` posts nothing on the
    board and ranks after every fleet that does."""

    share: object = Field(
        None,
        json_schema_extra={"yaml_type": "text such as `40%`, or a number"},
        description="percentage of each instance quota guaranteed while the fleet has cities waiting, written "
        "`40%` or `40`, 0-100 (absent: 0)",
    )
    priority: object = Field(
        0,
        json_schema_extra={"yaml_type": "integer"},
        description=f"whole number 0-{PRIORITY_MAX}: among runs borrowing beyond their share, higher goes first",
    )
    board: StrictStr | None = Field(
        None,
        description="S3 prefix where the account's runs post what they hold and wait for, the same for every "
        "fleet of the account (absent: s3://<bucket of output_s3_uri>/sagemaker-fleet/board/)",
    )


# pydantic warns that a field named `register` shadows an attribute of the parent class: ABCMeta's `register`, a
# method of the class (never of an instance, whose `register` is the field). The key is the contract's name.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "register"', category=UserWarning)

    class CityLayer(_Layer):
        """Fields a city or ``defaults`` may set; a field present on the city wins over ``defaults``."""

        name: StrictStr | None = Field(
            None,
            description="required on each city (not in defaults): lowercase letters, digits and '-', at most 200, "
            "unique in the fleet",
        )
        train_s3_uri: StrictStr | None = Field(
            None,
            description="required on each city (not in defaults), unless its job: gives the train channel's S3Uri: "
            "S3 URI of the city's training data, the `train` channel",
        )
        role_arn: StrictStr | None = Field(
            None, description="IAM role the job runs as; overrides the fleet's"
        )
        image_uri: StrictStr | None = Field(
            None, description="training container image; overrides the fleet's"
        )
        instance_type: StrictStr | None = Field(
            None,
            description="one of SageMaker's training instance types, such as ml.m5.xlarge (required, here or in "
            "defaults)",
        )
        instance_count: Annotated[StrictInt, Field(ge=1, le=100)] | None = Field(
            None, description="instances of the job, no more than the type's quota"
        )
        volume_size_gb: Annotated[StrictInt, Field(ge=1, le=16384)] | None = Field(
            None, description="size of each instance's ML storage volume, in GB"
        )
        volume_kms_key_id: StrictStr | None = Field(
            None, description="KMS key id, alias or ARN that encrypts the storage volume"
        )
        vpc: VpcLayer | None = Field(None, description="run the job in a VPC (both members required)")
        enable_network_isolation: StrictBool | None = Field(
            None, description="no network access for the training container"
        )
        enable_inter_container_traffic_encryption: StrictBool | None = Field(
            None, description="encrypt the traffic between the job's instances"
        )
        max_runtime_seconds: _Seconds | None = Field(
            None, description="SageMaker stops the job after this long (MaxRuntimeInSeconds), at most 28 days"
        )
        expected_seconds: _Seconds | None = Field(
            None,
            description="the planner's training time when no history says otherwise, at most max_runtime_seconds "
            "(absent: the default, capped at max_runtime_seconds)",
        )
        keep_alive: Literal["auto"] | _NonNegative | None = Field(
            None,
            description=f"warm-pool keep-alive: `auto` (the planner decides; absent: auto) or whole seconds up to "
            f"{KEEP_ALIVE_API_MAX} (a warning above {KEEP_ALIVE_GUIDE_MAX}); 0 or `auto` on spot cities",
        )
        spot: SpotLayer | None = Field(None, description="train on managed spot capacity (absent: on demand)")
        hyperparameters: dict[StrictStr, _HyperValue] | None = Field(
            None,
            description=f"at most {HYPERPARAMETERS_MAX}, names up to {HYPERPARAMETER_KEY_MAX} and values up to "
            f"{HYPERPARAMETER_VALUE_MAX} characters, no line breaks; sent as text, with {{city}}, {{fleet}} and "
            "{run_key} filled as in job: ({{ and }} for a literal brace)",
        )
        environment: dict[StrictStr, StrictStr] | None = Field(
            None,
            description=f"container environment: at most {ENVIRONMENT_MAX}, names [A-Za-z_][A-Za-z0-9_]*, values up "
            f"to {ENVIRONMENT_VALUE_MAX} characters, with {{city}}, {{fleet}} and {{run_key}} filled as in job:",
        )
        job: _Job | None = Field(
            None,
            description="CreateTrainingJob fields in AWS's names, merged over defaults.job and the fleet's job "
            "(the job: template)",
        )
        register: RegisterLayer | None = Field(
            None,
            description="register the city's model through the champion gate, merged over defaults.register and "
            "the fleet's register; null leaves the city out",
        )

    class FleetLayer(_Layer):
        """Top-level keys of a fleet file; cities are parsed one by one so one bad city never hides another's errors."""

        fleet: StrictStr = Field(
            description="the fleet's name, 1-20 lowercase letters or digits, no '-': it starts every job name"
        )
        region: StrictStr = Field(description="AWS region code of the jobs, such as us-east-1")
        role_arn: StrictStr | None = Field(
            None,
            description="IAM role the jobs run as; required unless the fleet-level job: writes RoleArn",
        )
        image_uri: StrictStr | None = Field(
            None,
            description="training container image; required unless the fleet-level job: writes "
            "AlgorithmSpecification.TrainingImage",
        )
        output_s3_uri: StrictStr = Field(
            description="S3 prefix under which models, checkpoints and reports go (a trailing '/' is dropped)"
        )
        input_mode: InputMode = Field(DEFAULT_INPUT_MODE, description="how the jobs read the training data")
        orchestration_latency_seconds: Annotated[StrictInt, Field(ge=0, le=ORCHESTRATION_LATENCY_MAX)] = (
            Field(
                DEFAULT_ORCHESTRATION_LATENCY,
                description="allowance between a job's end and its successor's CreateTrainingJob",
            )
        )
        deadline_seconds: Annotated[StrictInt, Field(ge=1, le=DEADLINE_MAX)] | None = Field(
            None,
            description="the run's deadline: the planner adds cold lanes when warm lanes alone would miss it",
        )
        quotas: dict[StrictStr, QuotaLayer] | None = Field(
            None,
            description="per instance type, the account's quotas; once given, every type used needs an entry "
            "(absent: 10 instances and 0 warm pools a type, with a warning)",
        )
        prices: dict[StrictStr, Annotated[_Finite | StrictInt, Field(ge=0, le=PRICE_MAX)]] | None = Field(
            None, description="per instance type, USD per instance-hour, over the shipped price table"
        )
        sharing: SharingLayer | StrictBool | None = Field(
            None,
            description="the fleet's share and priority among the account's runs, or false (absent: take part)",
        )
        defaults: CityLayer = Field(
            CityLayer(),
            description="city fields every city takes unless it sets them (not name, train_s3_uri)",
        )
        job: _Job | None = Field(
            None, description="CreateTrainingJob fields in AWS's names for every city (the job: template)"
        )
        register: RegisterLayer | None = Field(
            None,
            description="register every city's model through the champion gate (docs/guides/model-registry.md)",
        )
        cities: list[object] = Field(
            min_length=1,
            max_length=CITIES_MAX,
            json_schema_extra={"yaml_type": "list of mappings of city fields"},
            description="the cities, each a mapping of city fields with at least name and train_s3_uri",
        )


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
    #: the city's ``register:`` layers merged (docs/guides/model-registry.md); None: its models are not registered
    register: RegisterSpec | None = None


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
