"""botocore's SageMaker model as the fleet spec checks ``job:`` and ``register.inference`` against it: read once per
process, on first use.

The spec layer may not import botocore (the import-linter contracts keep it pure), so this loader — beside the
hook, the package's one door to the AWS SDK — converts CreateTrainingJob's input shape (and CreateModelPackage's InferenceSpecification) into plain
:class:`~sagemaker_fleet.fleetspec.request_model.FieldShape` values and hands them in as a
:class:`~sagemaker_fleet.fleetspec.request_model.ModelSource`. A spec without ``job:`` or ``register:`` never calls :meth:`load`.
"""

from __future__ import annotations

import functools
import importlib.metadata
from typing import TYPE_CHECKING

from sagemaker_fleet.fleetspec.request_model import FieldShape, RequestModel

if TYPE_CHECKING:
    from botocore.model import Shape


class BotocoreModel:
    """The installed botocore's model: ``version`` names boto3's release (the one users upgrade), else botocore's."""

    @functools.cached_property
    def version(self) -> str:
        for distribution in ("boto3", "botocore"):
            try:
                return importlib.metadata.version(distribution)
            except importlib.metadata.PackageNotFoundError:
                continue
        return "0"

    def load(self) -> RequestModel:
        return _load(self.version)


@functools.cache
def _load(version: str) -> RequestModel:
    import botocore.session

    service = botocore.session.get_session().get_service_model("sagemaker")
    shape = service.operation_model("CreateTrainingJob").input_shape
    described = service.operation_model("DescribeTrainingJob").output_shape
    package = service.operation_model("CreateModelPackage").input_shape
    assert shape is not None
    assert described is not None
    assert package is not None
    seen: dict[str, FieldShape] = {}
    return RequestModel(
        request=_convert(shape, seen),
        version=version,
        described=frozenset(described.members),
        inference=_convert(package.members["InferenceSpecification"], seen),
    )


def _convert(shape: Shape, seen: dict[str, FieldShape]) -> FieldShape:
    """One botocore shape as a :class:`FieldShape` (shared shapes converted once)."""
    if shape.name in seen:
        return seen[shape.name]
    meta = shape.metadata
    kind = shape.type_name
    members: dict[str, FieldShape] = {}
    item = key = None
    if kind == "structure":
        members = {name: _convert(member, seen) for name, member in shape.members.items()}  # type: ignore[attr-defined]
    elif kind == "list":
        item = _convert(shape.member, seen)  # type: ignore[attr-defined]
    elif kind == "map":
        key = _convert(shape.key, seen)  # type: ignore[attr-defined]
        item = _convert(shape.value, seen)  # type: ignore[attr-defined]
    converted = FieldShape(
        kind=kind,
        name=shape.name,
        members=members,
        required=frozenset(meta.get("required", ())),
        item=item,
        key=key,
        low=meta.get("min"),
        high=meta.get("max"),
        pattern=meta.get("pattern"),
        enum=tuple(getattr(shape, "enum", None) or ()),
    )
    seen[shape.name] = converted
    return converted


#: The one source every reader uses (the command line, the DAG factory).
BOTOCORE_MODEL = BotocoreModel()
