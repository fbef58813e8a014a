"""A city's fields with ``defaults`` underneath: where each value was written, and the city with defaults applied."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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


class Resolved:
    """A city's fields with ``defaults`` underneath, remembering where each value was written."""

    def __init__(self, top: FleetLayer, city: CityLayer, index: int, poisoned: set[str]) -> None:
        self.top = top
        self.city = city
        self.index = index
        self.poisoned = poisoned

    def value(self, name: str) -> Any:
        if name in self.city.model_fields_set:
            return getattr(self.city, name)
        return getattr(self.top.defaults, name)

    def path(self, name: str) -> str:
        """Where the value of ``name`` comes from; a broken default (already reported) keeps its own path."""
        if name in self.city.model_fields_set:
            return f"cities[{self.index}].{name}"
        if name in self.top.defaults.model_fields_set or {"defaults", f"defaults.{name}"} & self.poisoned:
            return f"defaults.{name}"
        return f"cities[{self.index}].{name}"

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
