"""SageMaker's built-in XGBoost training image in every region that has one: nothing to build, nothing to push.

Source: the registry table the SageMaker Python SDK ships (``image_uri_config/xgboost.json`` of the public
repository ``aws/sagemaker-python-sdk``; the file names the commit it was read at), copied into
``sagemaker_fleet/data/builtin_images.json`` by ``scripts/builtin_images.py`` with each region's ECR host as
botocore resolves it. ``sagemaker-fleet pilot`` trains with it; SageMaker pulls these images with its own
credentials, so the execution role needs no ECR permission for them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from types import MappingProxyType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping


@dataclass(frozen=True)
class BuiltinImageSource:
    """Where the table was read: the SDK's repository, the file's path, the commit and its date."""

    repository: str
    path: str
    commit: str
    committed: str


@dataclass(frozen=True)
class BuiltinImages:
    """The built-in algorithm's image URI by region, its version and the table's source."""

    algorithm: str
    version: str
    repository: str
    source: BuiltinImageSource
    image_uris: Mapping[str, str]

    @property
    def regions(self) -> tuple[str, ...]:
        return tuple(sorted(self.image_uris))

    def image_uri(self, region: str) -> str | None:
        """The image of ``region``, or None where SageMaker offers none (or the table does not list it yet)."""
        return self.image_uris.get(region)

    def is_builtin(self, uri: str) -> bool:
        """Whether ``uri`` is one of these images (SageMaker's own, in AWS's registries)."""
        return uri in self.image_uris.values()


@cache
def builtin_xgboost() -> BuiltinImages:
    """The shipped table (read once)."""
    text = resources.files("sagemaker_fleet").joinpath("data/builtin_images.json").read_text("utf-8")
    data = json.loads(text)
    source = data["source"]
    return BuiltinImages(
        algorithm=str(data["algorithm"]),
        version=str(data["version"]),
        repository=str(data["repository"]),
        source=BuiltinImageSource(
            str(source["repository"]), str(source["path"]), str(source["commit"]), str(source["committed"])
        ),
        image_uris=MappingProxyType(
            {str(region): str(entry["image_uri"]) for region, entry in data["regions"].items()}
        ),
    )
