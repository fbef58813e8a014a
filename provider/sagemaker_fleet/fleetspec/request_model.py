"""CreateTrainingJob's request shape as plain values: what a ``job:`` template is checked against.

The shapes come from the botocore service model installed beside the provider; this layer may not import botocore,
so a loader above it (:mod:`sagemaker_fleet.hooks.request_model`) converts the model into these values and the
spec's readers hand it in (:class:`ModelSource`). A spec without ``job:`` never loads it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

#: Request fields newer than the oldest botocore the provider supports (1.39.11, pinned beside Amazon MWAA's
#: Airflow 3.0.6), with the botocore release whose SageMaker model added them (boto3 releases carry the same
#: number). Read from botocore's history of ``data/sagemaker/2017-07-24/service-2.json``; list levels are left out
#: of the paths. A field newer still and missing here is answered as an unknown key.
FIELDS_SINCE: dict[str, str] = {
    "ResourceConfig.InstancePlacementConfig": "1.40.6",
    "InputDataConfig.DataSource.DatasetSource": "1.42.2",
    "MlflowConfig": "1.42.2",
    "ModelPackageConfig": "1.42.2",
    "ServerlessJobConfig": "1.42.2",
    "ServerlessJobConfig.SequenceLength": "1.43.66",
}


@dataclass(frozen=True, eq=False)
class FieldShape:
    """One shape of the service model: its kind (``structure``, ``list``, ``map``, ``string``, ``integer``,
    ``long``, ``float``, ``double``, ``boolean``, ``timestamp``, ``blob``) and the constraints the model states."""

    kind: str
    name: str = ""
    members: Mapping[str, FieldShape] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    #: a list's member, or a map's value
    item: FieldShape | None = None
    #: a map's key
    key: FieldShape | None = None
    low: float | None = None
    high: float | None = None
    pattern: str | None = None
    enum: tuple[str, ...] = ()


@dataclass(frozen=True, eq=False)
class RequestModel:
    """CreateTrainingJob's input shape, the installed SDK's version (named in "needs boto3 ≥ X" messages), the
    members of DescribeTrainingJob's answer (what ``import`` reads back) and CreateModelPackage's
    InferenceSpecification (what ``register.inference`` is checked against)."""

    request: FieldShape
    version: str
    described: frozenset[str] = frozenset()
    inference: FieldShape | None = None

    def since(self, path: str) -> str | None:
        """The SDK release that added the field at ``path`` (list levels left out), when it is newer than this one."""
        release = FIELDS_SINCE.get(path)
        if release is None or _release(release) <= _release(self.version):
            return None
        return release


class ModelSource(Protocol):
    """Where a spec reader gets the model: ``version`` is cheap (it keys caches), ``load()`` reads the model once."""

    @property
    def version(self) -> str: ...

    def load(self) -> RequestModel: ...


def _release(version: str) -> tuple[int, ...]:
    parts = []
    for part in version.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)
