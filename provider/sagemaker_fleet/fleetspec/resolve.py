"""A city's fields with ``defaults`` underneath: where each value was written, and the city with defaults applied.

A shorthand a city leaves unwritten may come from its ``job:`` layers (:mod:`~sagemaker_fleet.fleetspec.job_layers`
lifts it): its value and path are then the template's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sagemaker_fleet.fleetspec.job_layers import NO_JOB, CityJob
from sagemaker_fleet.fleetspec.model import (
    DEFAULT_EXPECTED,
    DEFAULT_INSTANCE_COUNT,
    DEFAULT_MAX_RUNTIME,
    DEFAULT_VOLUME_SIZE_GB,
    HYPERPARAMETER_VALUE_MAX,
    CitySpec,
    SpotLayer,
    SpotSettings,
    VpcSettings,
)

if TYPE_CHECKING:
    from sagemaker_fleet.fleetspec.model import CityLayer, FleetLayer
    from sagemaker_fleet.fleetspec.register_model import RegisterSpec


class Resolved:
    """A city's fields with ``defaults`` underneath, remembering where each value was written."""

    def __init__(
        self, top: FleetLayer, city: CityLayer, index: int, poisoned: set[str], job: CityJob = NO_JOB
    ) -> None:
        self.top = top
        self.city = city
        self.index = index
        self.poisoned = poisoned
        self.job = job
        #: the city's ``register:`` layers merged (:mod:`~sagemaker_fleet.fleetspec.register`)
        self.register: RegisterSpec | None = None

    def value(self, name: str) -> Any:
        if name in self.city.model_fields_set:
            return getattr(self.city, name)
        if name not in self.top.defaults.model_fields_set and name in self.job.lifted:
            return self.job.lifted[name].value
        if name == "train_s3_uri" and self.job.without_train_channel:
            return ""  # the template's channels are the job's data: the provider adds no `train` channel
        return getattr(self.top.defaults, name)

    def path(self, name: str) -> str:
        """Where the value of ``name`` comes from; a broken default (already reported) keeps its own path."""
        if name in self.city.model_fields_set:
            return f"cities[{self.index}].{name}"
        if name in self.top.defaults.model_fields_set or {"defaults", f"defaults.{name}"} & self.poisoned:
            return f"defaults.{name}"
        if name in self.job.lifted:
            return self.job.lifted[name].path
        return f"cities[{self.index}].{name}"

    def member_path(self, name: str, member: str, aws_member: str) -> str:
        """The path of a member of a structured field (``vpc.subnets``), in AWS's name when ``job:`` wrote it."""
        path = self.path(name)
        lifted = self.job.lifted.get(name)
        return f"{path}.{aws_member if lifted is not None and lifted.path == path else member}"

    def written(self, key: str) -> str | None:
        """Where the shorthand ``key`` is written for this city (the city, ``defaults``, or the top level for the
        role, the image and the input mode), or None."""
        if key in self.city.model_fields_set:
            return f"cities[{self.index}].{key}"
        if key in self.top.defaults.model_fields_set:
            return f"defaults.{key}"
        if (
            key in ("role_arn", "image_uri", "input_mode")
            and key in self.top.model_fields_set - self.poisoned
        ):
            return key  # (a missing top-level value's stand-in is poisoned: it was never written)
        return None

    def map_keys(self, key: str) -> dict[str, str]:
        """The entries of the shorthand map ``key`` (hyperparameters, environment) and where each is written."""
        values = self.value(key) or {}
        base = self.path(key)
        return {name: f"{base}[{name}]" for name in values}

    def spot(self) -> dict[str, tuple[Any, str]] | None:
        """Spot settings merged key by key; a city's ``spot: null`` turns spot off for that city."""
        layers: list[tuple[SpotLayer | None, str]] = [
            (self.top.defaults.spot, "defaults.spot"),
            (self.city.spot, f"cities[{self.index}].spot"),
        ]
        if "spot" in self.city.model_fields_set and self.city.spot is None:
            return None
        merged: dict[str, tuple[Any, str]] = {}
        present = False
        for layer, path in layers:
            if layer is None:
                continue
            present = True
            for key in layer.model_fields_set:
                merged[key] = (getattr(layer, key), f"{path}.{key}")
        return merged if present else None


def city_spec(
    resolved: Resolved,
    name: str,
    train: str,
    role: str,
    image: str,
    instance_type: str,
    keep_alive: int | str | None,
    spot: SpotSettings | None,
) -> CitySpec:
    """The checked city with every default applied."""
    vpc = resolved.value("vpc")
    max_runtime = resolved.value("max_runtime_seconds") or DEFAULT_MAX_RUNTIME
    return CitySpec(
        name=name,
        train_s3_uri=train,
        role_arn=role,
        image_uri=image,
        instance_type=instance_type,
        instance_count=resolved.value("instance_count") or DEFAULT_INSTANCE_COUNT,
        volume_size_gb=resolved.value("volume_size_gb") or DEFAULT_VOLUME_SIZE_GB,
        volume_kms_key_id=resolved.value("volume_kms_key_id"),
        vpc=VpcSettings(tuple(vpc.subnets), tuple(vpc.security_group_ids)) if vpc else None,
        enable_network_isolation=bool(resolved.value("enable_network_isolation")),
        enable_inter_container_traffic_encryption=bool(
            resolved.value("enable_inter_container_traffic_encryption")
        ),
        max_runtime_seconds=max_runtime,
        expected_seconds=resolved.value("expected_seconds") or min(DEFAULT_EXPECTED, max_runtime),
        keep_alive=None if keep_alive in (None, "auto") else int(keep_alive),
        spot=spot,
        hyperparameters=tuple(
            sorted((k, hyper_text(v)) for k, v in (resolved.value("hyperparameters") or {}).items())
        ),
        environment=tuple(sorted((resolved.value("environment") or {}).items())),
        job=resolved.job.template,
        register=resolved.register,
    )


def hyper_text(value: object) -> str:
    """A hyperparameter value as the text SageMaker is sent."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int) and value.bit_length() > 8_400:
        return "9" * (
            HYPERPARAMETER_VALUE_MAX + 1
        )  # too long to print (Python refuses > 4,300 digits): too long
    return str(value)
