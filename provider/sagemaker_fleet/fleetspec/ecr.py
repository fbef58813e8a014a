"""A training image URI in Amazon ECR taken apart (pure): the registry, region, repository and tag or digest that
ECR's DescribeImages names it by. ``sagemaker-fleet preflight`` checks such an image exists; the simulator's
``--provision`` creates it; the spec warns about an image outside ECR.

An ECR registry's host is ``{account}.dkr.ecr[-fips].{region}.{partition's DNS suffix}``: ``amazonaws.com`` in the
commercial and GovCloud regions, other suffixes in China, the European Sovereign Cloud and the isolated regions.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The DNS suffix of each AWS partition (botocore's ``endpoints.json``, ``dnsSuffix``): commercial and GovCloud,
#: China, the European Sovereign Cloud, and the isolated regions (``aws-iso``, ``-iso-b``, ``-iso-e``, ``-iso-f``).
#: ``tests/unit/fleetspec/test_ecr_uri.py`` checks them against the installed botocore's partitions.
ECR_DNS_SUFFIXES = (
    "amazonaws.com",
    "amazonaws.com.cn",
    "amazonaws.eu",
    "c2s.ic.gov",
    "sc2s.sgov.gov",
    "cloud.adc-e.uk",
    "csp.hci.ic.gov",
)
_SUFFIX = "|".join(re.escape(suffix) for suffix in ECR_DNS_SUFFIXES)
#: ``{registry}.dkr.ecr.{region}.{DNS suffix}/{repository}[:{tag}][@{digest}]`` (FIPS endpoints too).
ECR_URI_RE = re.compile(
    rf"^(?P<registry>\d{{12}})\.dkr\.ecr(?:-fips)?\.(?P<region>[a-z0-9-]+)\.(?:{_SUFFIX})/"
    r"(?P<repository>[a-z0-9][a-z0-9._/-]*?)(?::(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}))?"
    r"(?:@(?P<digest>sha256:[0-9a-f]{64}))?$"
)


@dataclass(frozen=True)
class EcrImage:
    """An image in an ECR registry, as DescribeImages names it. Without tag or digest Docker pulls ``latest``."""

    registry_id: str
    region: str
    repository: str
    tag: str | None = None
    digest: str | None = None

    @property
    def image_id(self) -> dict[str, str]:
        """DescribeImages' ``imageIds`` member: the digest when pinned by one, else the tag."""
        if self.digest is not None:
            return {"imageDigest": self.digest}
        return {"imageTag": self.tag or "latest"}

    @property
    def reference(self) -> str:
        """``demand:1.4`` or ``demand@sha256:…``."""
        if self.digest is not None:
            return f"{self.repository}@{self.digest}"
        return f"{self.repository}:{self.tag or 'latest'}"


def ecr_image(uri: str) -> EcrImage | None:
    """The ECR image of a training image URI, or None for an image outside ECR."""
    match = ECR_URI_RE.fullmatch(uri)
    if match is None:
        return None
    return EcrImage(
        registry_id=match["registry"],
        region=match["region"],
        repository=match["repository"],
        tag=match["tag"],
        digest=match["digest"],
    )
