"""CreateTrainingJob allowed only within the spec: one statement per instance type, its conditions read from the
requests the provider compiles for the spec's cities (pure).

Every city's requests — on demand with the longest keep-alive it may get, on spot when it has ``spot:`` — go
through :func:`~.context.create_training_job_context`, and the contexts of one instance type fold into that type's
statement: the instance type (and only it), the longest max runtime, the longest keep-alive, the subnets, security
groups and KMS keys its cities use. A key no request of the type sets must be absent from the request (``Null``);
a key every request sets must be present. So a launch outside the spec — another instance type, a longer runtime
or keep-alive, a subnet, security group or key the spec does not name — matches no statement and is refused.

Within one instance type the dimensions are bounded one by one: a request may combine one city's subnets with
another city's runtime of the same type. The role is not a condition of CreateTrainingJob: ``iam:PassRole`` on the
spec's roles (:mod:`.parts`) bounds it.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from sagemaker_fleet.iam import context as keys
from sagemaker_fleet.iam.context import Context, create_training_job_context
from sagemaker_fleet.iam.scope import PolicyScope, PolicyScopeError
from sagemaker_fleet.iam.statement import Statement
from sagemaker_fleet.jobs.request import Submission, compile_training_request
from sagemaker_fleet.plan.keepalive import keep_alive_ceiling

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CitySpec, FleetSpec

#: The run key of the requests compiled for the policy: job names and tag values are not conditions, so any
#: valid key gives the same conditions.
POLICY_RUN_KEY = "policy"
#: A KMS key named by its ARN, as ``sagemaker:VolumeKmsKeyArn`` and ``sagemaker:OutputKmsKeyArn`` compare it.
KMS_KEY_ARN_RE = re.compile(r"^arn:aws[a-z-]*:kms:[a-z0-9-]+:\d{12}:key/[A-Za-z0-9-]+$")
_KMS_FIELDS = (
    (keys.VOLUME_KMS_KEY, "volume_kms_key_id (ResourceConfig.VolumeKmsKeyId)"),
    (keys.OUTPUT_KMS_KEY, "job: OutputDataConfig.KmsKeyId"),
)


def city_requests(spec: FleetSpec, city: CitySpec) -> Iterator[dict[str, object]]:
    """The CreateTrainingJob requests ``city`` may send, at their widest: on demand (a spot city's fallback too)
    with the longest keep-alive it may be created with, and on spot when it has ``spot:``."""
    ceiling = keep_alive_ceiling(city.keep_alive, spot=city.spot is not None)
    on_demand = Submission(city.name, POLICY_RUN_KEY, spot=False, keep_alive_seconds=ceiling)
    yield dict(compile_training_request(spec, city, on_demand))
    if city.spot is not None:
        yield dict(compile_training_request(spec, city, Submission(city.name, POLICY_RUN_KEY, spot=True)))


def spec_contexts(spec: FleetSpec) -> dict[tuple[str, ...], list[tuple[str, Context]]]:
    """Every city's request contexts by the instance types they name (one type per job in a fleet)."""
    grouped: dict[tuple[str, ...], list[tuple[str, Context]]] = defaultdict(list)
    for city in spec.cities:
        for request in city_requests(spec, city):
            context = create_training_job_context(request)
            _check_kms_arns(city.name, context)
            types = context.get(keys.INSTANCE_TYPES, [])
            grouped[tuple(sorted(types if isinstance(types, list) else [types]))].append((city.name, context))
    return dict(sorted(grouped.items()))


def _check_kms_arns(city: str, context: Context) -> None:
    for key, field in _KMS_FIELDS:
        value = context.get(key)
        if isinstance(value, str) and not KMS_KEY_ARN_RE.fullmatch(value):
            raise PolicyScopeError(
                f"city {city}: {field} is {value!r}, but {key} holds the key's ARN, so the policy could not "
                "name it: write the key's ARN (arn:aws:kms:REGION:ACCOUNT:key/KEY-ID) in the spec"
            )


def launch_statements(spec: FleetSpec, scope: PolicyScope) -> list[Statement]:
    """One CreateTrainingJob statement per instance type of the spec, on the fleet's job names only."""
    return [
        Statement(
            "LaunchTheFleetsJobsOn" + _sid_word("".join(types)),
            ("sagemaker:CreateTrainingJob",),
            (scope.jobs_arn(),),
            launch_conditions(types, [context for _, context in named]),
        )
        for types, named in spec_contexts(spec).items()
    ]


def _sid_word(text: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", text) if part)


class _Conditions:
    """An IAM ``Condition`` block being written: operator → key → value(s)."""

    def __init__(self) -> None:
        self.block: dict[str, dict[str, str | list[str]]] = {}

    def add(self, operator: str, key: str, value: str | list[str]) -> None:
        self.block.setdefault(operator, {})[key] = value


def launch_conditions(
    types: Sequence[str], contexts: Sequence[Context]
) -> dict[str, dict[str, str | list[str]]]:
    """The conditions that allow exactly what ``contexts`` (the requests of one instance type) ask for, at most."""
    out = _Conditions()
    out.add("ForAllValues:StringEquals", keys.INSTANCE_TYPES, list(types))
    out.add("Null", keys.INSTANCE_TYPES, "false")
    out.add(
        "NumericLessThanEquals", keys.MAX_RUNTIME, str(max(_number(c, keys.MAX_RUNTIME) for c in contexts))
    )
    out.add(
        "NumericLessThanEqualsIfExists",
        keys.KEEP_ALIVE,
        str(max(_number(c, keys.KEEP_ALIVE) for c in contexts)),
    )
    for key in (keys.VPC_SUBNETS, keys.VPC_SECURITY_GROUPS):
        _bounded_set(out, key, contexts, "ForAllValues:StringEquals")
    for key in (keys.VOLUME_KMS_KEY, keys.OUTPUT_KMS_KEY):
        _bounded_set(out, key, contexts, "ArnEquals")
    for key in (keys.NETWORK_ISOLATION, keys.TRAFFIC_ENCRYPTION):
        if all(c.get(key) == "true" for c in contexts):  # the spec turns it on everywhere: required
            out.add("Bool", key, "true")
    if not any(c.get(keys.REMOTE_DEBUG) == "true" for c in contexts):
        out.add("BoolIfExists", keys.REMOTE_DEBUG, "false")
    if not any(keys.FILE_SYSTEM_ID in c for c in contexts):
        out.add("Null", keys.FILE_SYSTEM_ID, "true")
    return out.block


def _number(context: Context, key: str) -> int:
    value = context.get(key)
    return int(value) if isinstance(value, str) else 0


def _values(context: Context, key: str) -> list[str]:
    value = context.get(key)
    return [] if value is None else [value] if isinstance(value, str) else list(value)


def _bounded_set(out: _Conditions, key: str, contexts: Sequence[Context], operator: str) -> None:
    """``key`` within the values the requests give it: required when every request sets it, refused when none
    does, allowed absent when some do (``…IfExists`` for a single-valued key; ``ForAllValues`` is true of an
    absent key)."""
    present = [key in c for c in contexts]
    if not any(present):
        out.add("Null", key, "true")
        return
    values = sorted({v for c in contexts for v in _values(c, key)})
    multivalued = operator.startswith("ForAllValues")
    if all(present):
        out.add(operator, key, values)
        if multivalued:  # ForAllValues is true of a request without the key
            out.add("Null", key, "false")
    else:
        out.add(operator if multivalued else f"{operator}IfExists", key, values)
