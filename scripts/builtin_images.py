#!/usr/bin/env python3
"""Write ``provider/sagemaker_fleet/data/builtin_images.json``: SageMaker's built-in XGBoost training image in every
region, from the registry table the SageMaker Python SDK ships.

    git -C sagemaker-python-sdk show COMMIT:sagemaker-core/src/sagemaker/core/image_uri_config/xgboost.json > xgboost.json
    .venv/bin/python scripts/builtin_images.py xgboost.json --commit COMMIT --committed 2026-08-21          # rewrite
    .venv/bin/python scripts/builtin_images.py xgboost.json --commit COMMIT --committed 2026-08-21 --check  # exit 1 when the file differs

The SDK's ``image_uri_config/xgboost.json`` (public repository ``aws/sagemaker-python-sdk``) maps each region to
the AWS account whose ECR registry holds the built-in algorithm's images (``training.versions[V].registries``) and
names the repository. The registry's host is ``ecr.{region}.{the partition's DNS suffix}``, as the SDK builds it
(``image_uris.retrieve``: botocore's endpoint resolver), so the script asks the installed botocore for each region's
host. The file records the SDK file's path and commit, the version and the botocore used; the pilot
(``sagemaker-fleet pilot``) reads it, and ``tests/unit/fleetspec/test_builtin_images.py`` checks every URI in it
against the installed botocore and the spec's ECR parser.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "provider" / "sagemaker_fleet" / "data" / "builtin_images.json"
SDK_REPOSITORY = "aws/sagemaker-python-sdk"
SDK_PATH = "sagemaker-core/src/sagemaker/core/image_uri_config/xgboost.json"
#: The version the pilot trains with: one the developer guide lists as current, the same registries as every other.
VERSION = "1.7-1"


def ecr_host(region: str) -> str:
    """``ecr.{region}.{DNS suffix}`` from the installed botocore's endpoint resolver, as the SDK builds it."""
    import botocore.session

    resolver = botocore.session.get_session()._get_internal_component("endpoint_resolver")
    endpoint = resolver.construct_endpoint("ecr", region)
    if not endpoint:  # a region botocore's endpoint data does not list yet: the partition's pattern
        partition = resolver.get_partition_for_region(region)
        suffix = resolver.get_partition_dns_suffix(partition)
        return f"ecr.{region}.{suffix}"
    return str(endpoint["hostname"])


def generate(config: dict[str, Any], commit: str, committed: str, version: str = VERSION) -> str:
    """The file's text from the SDK's ``xgboost.json`` (``config``) read at ``commit``."""
    import botocore

    entry = config["training"]["versions"][version]
    repository = str(entry["repository"])
    regions = {
        region: {
            "registry": str(account),
            "image_uri": f"{account}.dkr.{ecr_host(region)}/{repository}:{version}",
        }
        for region, account in sorted(entry["registries"].items())
    }
    data = {
        "schema": 1,
        "algorithm": "xgboost",
        "version": version,
        "repository": repository,
        "source": {
            "repository": SDK_REPOSITORY,
            "path": SDK_PATH,
            "commit": commit,
            "committed": committed,
            "key": f'training.versions["{version}"].registries',
        },
        "hosts": f"ecr.<region>.<DNS suffix> from botocore {botocore.__version__}'s endpoint resolver, as the SDK "
        "builds image URIs",
        "regions": regions,
    }
    return json.dumps(data, indent=2) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", type=Path, help=f"the SDK's {SDK_PATH}, as read at --commit")
    parser.add_argument("--commit", required=True, help=f"the {SDK_REPOSITORY} commit the file was read at")
    parser.add_argument("--committed", required=True, help="that commit's date (YYYY-MM-DD)")
    parser.add_argument("--version", default=VERSION, help=f"the XGBoost image version (default {VERSION})")
    parser.add_argument("--check", action="store_true", help="exit 1 when the shipped file differs")
    args = parser.parse_args(argv)
    text = generate(
        json.loads(args.config.read_text(encoding="utf-8")), args.commit, args.committed, args.version
    )
    if args.check:
        same = TARGET.exists() and TARGET.read_text(encoding="utf-8") == text
        print(f"{TARGET.relative_to(ROOT)}: {'up to date' if same else 'differs'}")
        return 0 if same else 1
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
